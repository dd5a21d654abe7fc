"""Reading an Antiquity view: the nations in seat order with their players, the regions in
play with their cities and units, whose turn it is and who won (tolerant: odd fields are
zero or skipped)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from render.antiquity.geography import _Region, game_map
from render.antiquity.layout import FIELD_NAMES, FIELDS, MAX_NATIONS, NEUTRAL_NATION
from render.common import (
    RGB,
    as_int,
    bounded,
    clean_text,
    display_name,
    first_to_act,
    mapping,
    mappings,
)


@dataclass
class _NationView:
    """One nation's public state (tolerant: odd fields are zero)."""

    id: str
    name: str
    colour: RGB
    player: str | None
    player_name: str
    seat: int
    out: bool
    raw: Mapping[str, Any]

    def num(self, key: str) -> int:
        return bounded(self.raw.get(key))

    @property
    def initial(self) -> str:
        return (self.name[:1] or "?").upper()


def _nations(view: Mapping[str, Any], names: Mapping[str, str] | None) -> list[_NationView]:
    gm = game_map()
    raw = view.get("nations")
    out: list[_NationView] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw[:MAX_NATIONS] if isinstance(raw, list) else []):
        if not isinstance(entry, Mapping):
            continue
        nid = entry.get("id")
        if not isinstance(nid, str) or nid in seen:
            continue
        seen.add(nid)
        known = gm.nations.get(nid)
        name = known.name if known else (clean_text(entry.get("name"), 24) or clean_text(nid, 24)
                                         or "?")
        colour = known.colour if known else NEUTRAL_NATION
        pid = entry.get("player")
        seat = as_int(entry.get("seat"), i)
        out.append(_NationView(nid, name, colour, pid if isinstance(pid, str) else None,
                               display_name(names, pid, seat + 1), seat,
                               bool(entry.get("out")), entry))
    return out


def _nation_colour(nid: Any) -> RGB:
    known = game_map().nations.get(nid) if isinstance(nid, str) else None
    return known.colour if known else NEUTRAL_NATION


def _nation_name(nid: Any) -> str:
    known = game_map().nations.get(nid) if isinstance(nid, str) else None
    return known.name if known else (clean_text(nid, 20) or "?")


@dataclass
class _Place:
    region: _Region
    owner: str | None = None
    temple: bool = False
    units: dict[str, int] = field(default_factory=dict)  # nation -> legions or galleys


def _places(view: Mapping[str, Any]) -> dict[str, _Place]:
    """Every region in play (as the view lists them) with its city and units."""
    gm = game_map()
    places: dict[str, _Place] = {}
    for key, table, units in (("provinces", gm.provinces, "legions"),
                              ("seas", gm.seas, "galleys")):
        for entry in mappings(view.get(key), 64):
            rid = entry.get("id")
            if not isinstance(rid, str) or rid not in table or rid in places:
                continue
            place = _Place(table[rid])
            owner = entry.get("owner")
            place.owner = owner if isinstance(owner, str) and owner else None
            place.temple = bool(entry.get("temple")) and place.owner is not None
            counts = entry.get("units") if units not in entry else entry.get(units)
            for nid, n in counts.items() if isinstance(counts, Mapping) else ():
                if isinstance(nid, str) and bounded(n) > 0:
                    place.units[nid] = bounded(n)
            places[rid] = place
    return places


def _field(value: Any) -> str | None:
    return value if isinstance(value, str) and value in FIELDS else None


def _status(view: Mapping[str, Any], nations: list[_NationView]) -> tuple[str | None, str]:
    """The nation to act and what it does now."""
    current = view.get("turn")
    current = current if isinstance(current, str) else None
    if current is None:
        actor = first_to_act(view)
        current = next((n.id for n in nations if n.player is not None and n.player == actor),
                       None)
    phase = view.get("phase")
    taken = _field(view.get("field"))
    if phase == "action" and taken is not None:
        doing = f"takes {FIELD_NAMES[taken]}"
    elif phase == "action":
        doing = "takes its action"
    elif phase == "wheel":
        doing = "moves on the wheel"
    else:
        doing = "to play"
    return current, doing


def _winners(view: Mapping[str, Any], nations: list[_NationView]) -> list[_NationView]:
    outcome = mapping(view.get("outcome"))
    winners = outcome.get("winners")
    ids = [w for w in winners if isinstance(w, str)] if isinstance(winners, list) else []
    return [n for n in nations if (n.player is not None and n.player in ids) or n.id in ids]

