"""What the events did on a Napoleonic Wars board (every public event since the last image,
e.g. a whole turn): moves and retreats, battles with their forces, reinforcements, armies
destroyed, forced marches and cards played. Private, unknown and malformed events are
skipped."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from render.common import MAX_EVENTS, as_int, bounded, clean_text, drawable_events, mapping
from render.napoleon.view import _country_id, _side


@dataclass(frozen=True)
class _Move:
    side: str | None
    src: str
    dst: str
    count: int
    retreat: bool = False


@dataclass(frozen=True)
class _Battle:
    country: str
    attacker: str | None
    defender: str | None
    armies: tuple[int, int]  # french, allies
    bonus: tuple[int, int]
    dice: tuple[int, int]
    force: tuple[int, int]
    losses: tuple[int, int]
    winner: str | None


@dataclass
class _Turn:
    moves: list[_Move] = field(default_factory=list)
    battles: list[_Battle] = field(default_factory=list)
    placed: dict[tuple[str, str], int] = field(default_factory=dict)  # (side, country) -> n
    lost: dict[str, int] = field(default_factory=dict)  # reinforcements beyond the pool
    destroyed: list[tuple[str | None, str, int]] = field(default_factory=list)
    marches: list[tuple[str | None, str]] = field(default_factory=list)
    retreats: list[_Move] = field(default_factory=list)
    cards: list[tuple[str, str]] = field(default_factory=list)  # (country, "Name +2") played

    def __bool__(self) -> bool:
        return bool(self.moves or self.battles or self.placed or self.destroyed
                    or self.marches or self.retreats or self.cards)


def _pair(value: Any, lo: int = 0, hi: int = 999) -> tuple[int, int]:
    m = mapping(value)
    return bounded(m.get("french"), lo, hi), bounded(m.get("allies"), lo, hi)


def _read_events(events: Any) -> _Turn:
    """The drawable facts in ``events``: private, unknown and malformed events are skipped."""
    turn = _Turn()
    for e in drawable_events(events, MAX_EVENTS):
        kind = e["type"]
        if kind in ("move", "retreat"):
            src, dst = _country_id(e.get("from")), _country_id(e.get("to"))
            if src is None or dst is None or src == dst:
                continue
            move = _Move(_side(e.get("side")), src, dst, bounded(e.get("count")),
                         kind == "retreat")
            (turn.retreats if move.retreat else turn.moves).append(move)
        elif kind == "battle":
            cid = _country_id(e.get("country"))
            if cid is None:
                continue
            turn.battles.append(_Battle(
                cid, _side(e.get("attacker")), _side(e.get("defender")), _pair(e.get("armies")),
                _pair(e.get("bonus"), -99, 99), _pair(e.get("dice"), 0, 99),
                _pair(e.get("force"), -999, 999), _pair(e.get("losses")),
                _side(e.get("winner"))))
        elif kind == "reinforce":
            side = _side(e.get("side"))
            placed = e.get("placed")
            if side is None:
                continue
            for cid, n in placed.items() if isinstance(placed, Mapping) else ():
                if _country_id(cid) is not None and as_int(n) > 0:
                    key = (side, cid)
                    turn.placed[key] = min(999, turn.placed.get(key, 0) + as_int(n))
            lost = as_int(e.get("lost"))
            if lost > 0:
                turn.lost[side] = min(999, turn.lost.get(side, 0) + lost)
        elif kind == "destroyed":
            cid = _country_id(e.get("country"))
            if cid is not None:
                turn.destroyed.append((_side(e.get("side")), cid,
                                       bounded(e.get("count"))))
        elif kind == "card":
            cid, card = _country_id(e.get("country")), e.get("card")
            if cid is not None and isinstance(card, Mapping):
                name = clean_text(card.get("name") or card.get("id"), limit=30)
                bonus = as_int(card.get("bonus"))
                turn.cards.append((cid, f"{name} {bonus:+d}" if bonus else name))
        elif kind == "march":
            cid = _country_id(e.get("country"))
            if cid is not None:
                turn.marches.append((_side(e.get("side")), cid))
    return turn

