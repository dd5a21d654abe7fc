"""Antiquity's map: 34 provinces and 13 seas of the Mediterranean (docs/games/antiquity.md).

``data/map.toml`` is read once, at import time, with :mod:`tomllib`, and checked: borders
join known regions of the right kind, coasts are seas, every nation has 3 home provinces
and every home joins the board no later than its nation. The renderer reads the same file
and may add drawing keys of its own, which this module ignores. Map order (the order of
every listing) is the file's order: provinces first, then seas.

A region is *in play* when the table has at least its ``players`` seats; borders with a
region not in play vanish.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

RESOURCES = ("marble", "iron", "gold")


class MapDataError(ValueError):
    """The bundled map breaks an invariant."""


@dataclass(frozen=True)
class Province:
    id: str
    name: str
    city: str
    resource: str
    players: int
    coasts: tuple[str, ...]


@dataclass(frozen=True)
class Sea:
    id: str
    name: str
    deep: bool
    players: int


@dataclass(frozen=True)
class Nation:
    id: str
    name: str
    adjective: str
    color: str
    home: tuple[str, ...]
    players: int  # the player count from which it plays


def _load() -> tuple[dict[str, Province], dict[str, Sea], dict[str, Nation],
                     list[tuple[str, str]], list[tuple[str, str]]]:
    text = resources.files("engine.antiquity").joinpath("data/map.toml").read_text("utf-8")
    data: dict[str, Any] = tomllib.loads(text)
    provinces = {pid: Province(pid, str(raw["name"]), str(raw["city"]), str(raw["resource"]),
                               int(raw["players"]), tuple(str(s) for s in raw["coasts"]))
                 for pid, raw in data["provinces"].items()}
    seas = {sid: Sea(sid, str(raw["name"]), bool(raw["deep"]), int(raw["players"]))
            for sid, raw in data["seas"].items()}
    order = [str(n) for n in data["nation_order"]]
    nations = {}
    for i, nid in enumerate(order):
        raw = data["nations"][nid]
        nations[nid] = Nation(nid, str(raw["name"]), str(raw["adjective"]), str(raw["color"]),
                              tuple(str(h) for h in raw["home"]), max(2, i + 1))
    if set(order) != set(data["nations"]):
        raise MapDataError("nation_order must list every nation once")
    land = [(str(a), str(b)) for a, b in data["land"]]
    sea = [(str(a), str(b)) for a, b in data["sea"]]
    if set(provinces) & set(seas):
        raise MapDataError("a region id is both a province and a sea")
    for p in provinces.values():
        if p.resource not in RESOURCES:
            raise MapDataError(f"{p.id}: resource {p.resource!r}")
        for s in p.coasts:
            if s not in seas:
                raise MapDataError(f"{p.id}: coast {s!r} is not a sea")
    for a, b in land:
        if a not in provinces or b not in provinces or a == b:
            raise MapDataError(f"land border {a}-{b} must join two provinces")
    for a, b in sea:
        if a not in seas or b not in seas or a == b:
            raise MapDataError(f"sea border {a}-{b} must join two seas")
    for n in nations.values():
        if len(n.home) != 3 or len(set(n.home)) != 3:
            raise MapDataError(f"{n.id}: needs 3 home provinces")
        for h in n.home:
            if h not in provinces:
                raise MapDataError(f"{n.id}: home {h!r} is not a province")
            if provinces[h].players > n.players:
                raise MapDataError(f"{n.id}: home {h} joins after its nation")
        if sorted(provinces[h].resource for h in n.home) != sorted(RESOURCES):
            raise MapDataError(f"{n.id}: homes must be one marble, one iron, one gold city")
    return provinces, seas, nations, land, sea


PROVINCES, SEAS, NATIONS, _LAND, _SEA = _load()
PROVINCE_ORDER: tuple[str, ...] = tuple(PROVINCES)
SEA_ORDER: tuple[str, ...] = tuple(SEAS)
#: Every region in map order: provinces, then seas.
REGIONS: tuple[str, ...] = PROVINCE_ORDER + SEA_ORDER
INDEX = {r: i for i, r in enumerate(REGIONS)}
NATION_ORDER: tuple[str, ...] = tuple(NATIONS)
MIN_PLAYERS, MAX_PLAYERS = 2, len(NATION_ORDER)


def _neighbours(pairs: list[tuple[str, str]], ids: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    out: dict[str, set[str]] = {r: set() for r in ids}
    for a, b in pairs:
        out[a].add(b)
        out[b].add(a)
    return {r: tuple(sorted(v, key=INDEX.__getitem__)) for r, v in out.items()}


#: Land neighbours of each province, and sea neighbours of each sea (map order).
LAND: dict[str, tuple[str, ...]] = _neighbours(_LAND, PROVINCE_ORDER)
SEA_NEIGHBOURS: dict[str, tuple[str, ...]] = _neighbours(_SEA, SEA_ORDER)
#: Province -> the seas on its coast; sea -> the provinces on its shore (map order).
COASTS: dict[str, tuple[str, ...]] = {
    p: tuple(sorted(PROVINCES[p].coasts, key=INDEX.__getitem__)) for p in PROVINCE_ORDER}
SHORE: dict[str, tuple[str, ...]] = {
    s: tuple(p for p in PROVINCE_ORDER if s in PROVINCES[p].coasts) for s in SEA_ORDER}


def region_players(region: str) -> int:
    """The player count from which ``region`` is in play."""
    return PROVINCES[region].players if region in PROVINCES else SEAS[region].players


def in_play(region: str, n: int) -> bool:
    return region in INDEX and region_players(region) <= n


def is_province(region: str) -> bool:
    return region in PROVINCES


def is_sea(region: str) -> bool:
    return region in SEAS


def nation_name(nation: str) -> str:
    return NATIONS[nation].name


def region_name(region: str) -> str:
    if region in PROVINCES:
        return PROVINCES[region].name
    if region in SEAS:
        return SEAS[region].name
    return region


@cache
def provinces_in_play(n: int) -> tuple[str, ...]:
    return tuple(p for p in PROVINCE_ORDER if PROVINCES[p].players <= n)


@cache
def seas_in_play(n: int) -> tuple[str, ...]:
    return tuple(s for s in SEA_ORDER if SEAS[s].players <= n)


@cache
def neighbours(region: str, n: int) -> tuple[str, ...]:
    """Neighbours of the same kind in play with ``n`` players (map order)."""
    near = LAND[region] if region in PROVINCES else SEA_NEIGHBOURS[region]
    return tuple(r for r in near if region_players(r) <= n)


@cache
def coasts(province: str, n: int) -> tuple[str, ...]:
    """The seas in play on ``province``'s coast."""
    return tuple(s for s in COASTS[province] if SEAS[s].players <= n)


@cache
def shore(sea: str, n: int) -> tuple[str, ...]:
    """The provinces in play on ``sea``'s shore."""
    return tuple(p for p in SHORE[sea] if PROVINCES[p].players <= n)


def nations_in_play(n: int) -> tuple[str, ...]:
    return NATION_ORDER[:n]
