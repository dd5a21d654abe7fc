"""What the events did on a Conqueror board (every public event since the last image,
usually a whole turn): moves, battles, recruits, forts built and razed, squares explored.
Private, unknown and malformed events are skipped, never drawn wrongly."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from render.common import MAX_EVENTS, as_int, as_str, drawable_events, note_actor
from render.conqueror.layout import _sq


@dataclass(frozen=True)
class _Move:
    player: str | None
    src: str
    dst: str
    count: int


@dataclass(frozen=True)
class _Battle:
    square: str
    attacker: str | None
    defender: str | None
    won: bool | None  # None: the event did not say
    kind: str
    damage: int


@dataclass
class _Turn:
    """The public events of one image (usually a whole turn), checked and sorted."""

    moves: list[_Move] = field(default_factory=list)
    battles: list[_Battle] = field(default_factory=list)
    recruits: dict[str, int] = field(default_factory=dict)  # square -> soldiers recruited
    forts: list[str] = field(default_factory=list)
    razed: list[str] = field(default_factory=list)
    discovered: list[str] = field(default_factory=list)
    converts: int = 0
    ended: bool = False
    actors: list[str] = field(default_factory=list)  # who acted, in order of first action
    eliminated: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.moves or self.battles or self.recruits or self.forts or self.razed
                    or self.discovered or self.converts or self.ended or self.eliminated)

    def acted(self, player: Any) -> str | None:
        return note_actor(self.actors, player)


def _read_events(events: Any) -> _Turn:
    """The drawable facts in ``events``: private, unknown and malformed events are skipped."""
    turn = _Turn()
    for e in drawable_events(events, MAX_EVENTS):
        kind = e["type"]
        if kind == "move":
            src, dst = _sq(e.get("from")), _sq(e.get("to"))
            if src is not None and dst is not None and src != dst:
                turn.moves.append(_Move(turn.acted(e.get("player")), src, dst,
                                        max(0, as_int(e.get("count")))))
        elif kind == "battle":
            dst = _sq(e.get("to"))
            if dst is None:
                continue
            winner = e.get("winner")
            won = True if winner == "attacker" else False if winner == "defender" else None
            bkind = e.get("kind")
            turn.battles.append(_Battle(
                dst, turn.acted(e.get("attacker")), as_str(e.get("defender")), won,
                bkind if isinstance(bkind, str) else "soldiers", max(0, as_int(e.get("damage")))))
        elif kind == "recruit":
            square, count = _sq(e.get("square")), as_int(e.get("count"))
            if square is not None and count > 0:
                turn.acted(e.get("player"))
                turn.recruits[square] = min(99, turn.recruits.get(square, 0) + count)
        elif kind in ("fort", "raze", "capture_fort"):
            square = _sq(e.get("square"))
            if square is None:
                continue
            turn.acted(e.get("player"))
            if kind == "fort":
                turn.forts.append(square)
                if square in turn.razed:
                    turn.razed.remove(square)
            else:
                turn.razed.append(square)
                if square in turn.forts:
                    turn.forts.remove(square)
        elif kind == "discover":
            square = _sq(e.get("square"))
            if square is not None and square not in turn.discovered:
                turn.discovered.append(square)
        elif kind == "convert":
            if turn.acted(e.get("player")) is not None:
                turn.converts += 1
        elif kind == "end_turn":
            if turn.acted(e.get("player")) is not None:
                turn.ended = True
        elif kind == "eliminated":
            pid = as_str(e.get("player"))
            if pid is not None and pid not in turn.eliminated:
                turn.eliminated.append(pid)
    return turn
