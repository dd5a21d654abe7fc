"""Napoleonic Wars' map: the 17 countries of Europe, 1805-1815 (docs/games/napoleon.md).

``data/map.toml`` is read once, at import time, with :mod:`tomllib`. The renderer reads the
same file and may add drawing keys of its own, so keys this module does not know are
ignored. The file is checked when it loads: 17 countries, borders listed on both sides.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

SIDES = ("french", "allies")
SIDE_NAMES = {"french": "French", "allies": "Allies"}
#: An adjective for each side's armies ("3 Allied armies").
ARMY_ADJECTIVE = {"french": "French", "allies": "Allied"}
#: Countries whose reinforcements the French never receive.
NO_FRENCH_REINFORCEMENT = ("prussia", "russia", "austria")
#: The French win by holding all of these at the end of one of their turns.
EAST = ("russia", "austria", "prussia")
CAPITAL = "france"


class MapDataError(ValueError):
    """The bundled map breaks an invariant."""


@dataclass(frozen=True)
class Country:
    id: str
    name: str
    reinforcement: int
    coastal: bool
    borders: tuple[str, ...]


def _load() -> tuple[dict[str, Country], str]:
    text = resources.files("engine.napoleon").joinpath("data/map.toml").read_text("utf-8")
    data: dict[str, Any] = tomllib.loads(text)
    countries: dict[str, Country] = {}
    for cid, raw in data["countries"].items():
        countries[cid] = Country(id=cid, name=str(raw["name"]),
                                 reinforcement=int(raw["reinforcement"]),
                                 coastal=bool(raw["coastal"]),
                                 borders=tuple(str(b) for b in raw["borders"]))
    sea = str(data.get("sea_power", "england"))
    if len(countries) != 17:
        raise MapDataError(f"the map has {len(countries)} countries, not 17")
    for c in countries.values():
        for b in c.borders:
            if b not in countries or c.id not in countries[b].borders:
                raise MapDataError(f"{c.id}-{b}: borders must be listed on both sides")
    if sea not in countries or countries[sea].borders:
        raise MapDataError("the sea power must be a country with no land border")
    return countries, sea


COUNTRIES, SEA_POWER = _load()
#: Country ids in map order (the order of every listing and of reinforcements).
ORDER: tuple[str, ...] = tuple(COUNTRIES)
INDEX = {c: i for i, c in enumerate(ORDER)}
#: Land neighbours, in map order.
NEIGHBOURS: dict[str, tuple[str, ...]] = {
    c: tuple(sorted(COUNTRIES[c].borders, key=INDEX.__getitem__)) for c in ORDER}
COASTAL: tuple[str, ...] = tuple(c for c in ORDER if COUNTRIES[c].coastal and c != SEA_POWER)


def name(country: str) -> str:
    return COUNTRIES[country].name


def _destinations(side: str, country: str) -> tuple[str, ...]:
    if country == SEA_POWER:
        return COASTAL if side == "allies" else ()
    return tuple(c for c in NEIGHBOURS[country] if c != SEA_POWER)


#: :func:`destinations` of every side and country, worked out once (the move generator
#: and the automatic player ask for them many times a move).
DESTINATIONS: dict[str, dict[str, tuple[str, ...]]] = {
    side: {c: _destinations(side, c) for c in ORDER} for side in SIDES}


def destinations(side: str, country: str) -> tuple[str, ...]:
    """Where armies of ``side`` in ``country`` may move (map order): its neighbours, or from
    England any coastal country; never into England."""
    table = DESTINATIONS.get(side)
    if table is None or country not in table:
        return _destinations(side, country)
    return table[country]
