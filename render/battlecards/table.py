"""Reading a Battlecards view: who sits where (the German player's mat above, the British
one below), each side's style, and tolerant readers of counts, forces, card values and
unit references."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.battlecards.layout import FORCES, OTHER, STYLES, Style
from render.common import Players, as_int, clean_text


def _count(value: Any) -> int:
    return max(0, as_int(value))


def _style(side: Any) -> Style:
    return STYLES.get(side, OTHER) if isinstance(side, str) else OTHER


def _forces(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for f in value[:6]:
        if f in FORCES and f not in out:
            out.append(f)
    return out


def _number(n: int) -> str:
    """A count as drawn: at most three digits."""
    return str(n) if n <= 999 else "999+"


def _stat(value: Any) -> str:
    """A card value: the number, or "–" for N/A (anything that is not a number)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "–"
    return str(max(-99, min(99, value)))


def _ref(value: Any) -> str:
    return clean_text(value, limit=4).upper() or "?"


def _key(owner: Any, ref: Any) -> tuple[str | None, str]:
    """A battle unit's key: its owner's id (None unless a string) and its reference."""
    return (owner if isinstance(owner, str) else None, _ref(ref))


class _Table:
    """Who sits where: the German player's mat above, the British one below."""

    def __init__(self, view: Mapping[str, Any], names: Mapping[str, str] | None) -> None:
        self.players = Players(view, names)
        ps = self.players.players[:2]
        german = [p for p in ps if p.get("side") == "german"]
        others = [p for p in ps if p.get("side") != "german"]
        order = german + others
        self.top: Mapping[str, Any] | None = order[0] if order else None
        self.bottom: Mapping[str, Any] | None = order[1] if len(order) > 1 else None

    def style(self, pid: Any) -> Style:
        p = self.players.get(pid)
        return _style(p.get("side")) if p is not None else OTHER

    def name(self, pid: Any) -> str:
        return self.players.name(pid)

