"""Reading a Napoleonic Wars view: each country's armies and control, and who plays which
side with their public numbers (tolerant: odd fields are zero)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from render.common import bounded, display_name, mappings
from render.napoleon.geography import _Country, countries
from render.napoleon.layout import SIDE_NAMES, SIDES


@dataclass
class _Place:
    """One country's state in the view (tolerant: odd fields are zero)."""

    country: _Country
    french: int = 0
    allies: int = 0
    control: str | None = None
    contested: bool = False
    moved: int = 0

    def armies(self, side: str) -> int:
        return self.french if side == "french" else self.allies if side == "allies" else 0


def _places(view: Mapping[str, Any]) -> dict[str, _Place]:
    land = countries()
    places = {cid: _Place(c) for cid, c in land.items()}
    for entry in mappings(view.get("countries"), 64):
        cid = entry.get("id")
        if not isinstance(cid, str) or cid not in places:
            continue
        place = places[cid]
        place.french = bounded(entry.get("french"))
        place.allies = bounded(entry.get("allies"))
        control = entry.get("control")
        place.control = control if control in SIDES else None
        place.contested = bool(entry.get("contested")) or (place.french > 0 and place.allies > 0)
        place.moved = bounded(entry.get("moved"))
    return places



def _side(value: Any) -> str | None:
    return value if value in SIDES else None


def _country_id(value: Any) -> str | None:
    return value if isinstance(value, str) and value in countries() else None


class _Sides:
    """Who plays which side, their names and their public numbers."""

    def __init__(self, view: Mapping[str, Any], names: Mapping[str, str] | None) -> None:
        players = mappings(view.get("players"), 8)
        self.entry: dict[str, Mapping[str, Any]] = {}
        self.pid: dict[str, str | None] = {}
        self.name: dict[str, str] = {}
        self.side_of: dict[str, str] = {}
        for i, p in enumerate(players):
            side = _side(p.get("side"))
            if side is None and i < 2 and SIDES[i] not in self.entry:
                side = SIDES[i]  # players[0] is French, players[1] the Allies
            if side is None or side in self.entry:
                continue
            pid = p.get("id")
            self.entry[side] = p
            self.pid[side] = pid if isinstance(pid, str) else None
            self.name[side] = display_name(names, pid, i + 1)
            if isinstance(pid, str):
                self.side_of[pid] = side
        for side in SIDES:
            self.entry.setdefault(side, {})
            self.pid.setdefault(side, None)
            self.name.setdefault(side, SIDE_NAMES[side])

    def hand(self, side: str) -> int:
        """How many cards ``side`` holds: the public count only (never the cards)."""
        return bounded(self.entry[side].get("hand_count"), hi=99)

    def side(self, who: Any) -> str | None:
        """The side of a player id (or a side name)."""
        if who in SIDES:
            return str(who)
        return self.side_of.get(who) if isinstance(who, str) else None

