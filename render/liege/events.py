"""What happened on a Liège board: from the events (every public event since the last
image, a whole turn; private, unknown and malformed ones skipped), else from the view's
last fight, blast and move. The marks the board draws and the lines the panel tells."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from render.common import (
    ACCENT,
    MAX_EVENTS,
    RGB,
    TEXT,
    Colour,
    Players,
    as_int,
    as_str,
    drawable_events,
    lighten,
    mapping,
    note_actor,
    optional_mapping,
)
from render.liege.layout import BLAST_COLOURS, FACINGS, SHORT, _Board, _square, _squares

#: Colours of the "THIS TURN" lines by what they tell.
LINE_FIGHT: RGB = (255, 170, 150)
LINE_LOSS: RGB = (255, 196, 120)


@dataclass(frozen=True)
class _Step:
    """A General's or a piece's move; ``src`` None when it was placed (no trail)."""

    player: str | None
    src: str | None
    dst: str


@dataclass(frozen=True)
class _Fight:
    attacker: str | None
    defender: str | None
    src: str | None
    dst: str | None
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    winner: str | None  # "attacker", "defender" or None (unknown)


@dataclass(frozen=True)
class _Blast:
    kind: str
    src: str | None
    target: str | None
    squares: tuple[str, ...]


@dataclass
class _Marks:
    """What the board marks and the panel tells: from the events (a whole turn) or, with
    none usable, from the view's last fight, blast and move."""

    steps: list[_Step] = field(default_factory=list)
    fights: list[_Fight] = field(default_factory=list)
    blasts: list[_Blast] = field(default_factory=list)
    placed: list[str] = field(default_factory=list)  # pieces bought and placed
    lost: list[str] = field(default_factory=list)  # squares where a piece was destroyed
    retreats: list[tuple[str, str]] = field(default_factory=list)  # Generals falling back
    actors: list[str] = field(default_factory=list)  # who acted, in order of first action
    lines: list[tuple[int, str, Colour]] = field(default_factory=list)  # priority, text
    ended: bool = False
    from_events: bool = False

    def __bool__(self) -> bool:
        return bool(self.steps or self.fights or self.blasts or self.placed or self.lost
                    or self.retreats or self.lines or self.ended)

    def acted(self, player: Any) -> str | None:
        return note_actor(self.actors, player)


def _unit_squares(board: _Board, value: Any) -> tuple[str, ...]:
    """The squares of a fight side: a list of names or of {"square": name} entries."""
    if not isinstance(value, list):
        return ()
    names = [u.get("square") if isinstance(u, Mapping) else u for u in value[:40]]
    return tuple(_squares(board, names))


def _piece_name(kind: Any) -> str:
    if kind == "general":
        return "General"
    return SHORT.get(kind, "Piece") if isinstance(kind, str) else "Piece"


def _marks_from_events(events: Any, board: _Board, players: Players) -> _Marks:
    """The marks of ``events``: private, unknown and malformed events are skipped."""
    m = _Marks(from_events=True)
    shifts: list[int] = []  # where the pieces' moves are told
    for e in drawable_events(events, MAX_EVENTS):
        kind = e["type"]
        who = e.get("player")
        src, dst = _square(board, e.get("from")), _square(board, e.get("to"))
        if kind == "general_placed":
            square = _square(board, e.get("square"))
            if square is not None:
                m.steps.append(_Step(m.acted(who), None, square))
                m.lines.append((3, f"General placed on {square}", TEXT))
        elif kind in ("general_move", "shift"):
            if src is None or dst is None or src == dst:
                continue
            m.steps.append(_Step(m.acted(who), src, dst))
            piece = "General" if kind == "general_move" else _piece_name(e.get("piece"))
            if kind == "shift":
                shifts.append(len(m.lines))
            m.lines.append((2 if kind == "general_move" else 3, f"{piece} {src} → {dst}", TEXT))
        elif kind == "turn":
            square = _square(board, e.get("square"))
            facing = e.get("to")
            if square is not None and facing in FACINGS:
                m.acted(who)
                m.lines.append((4, f"{_piece_name(e.get('piece'))} {square} turned "
                                   f"{str(facing).upper()}", TEXT))
        elif kind == "buy":
            square = _square(board, e.get("square"))
            if square is not None:
                m.acted(who)
                m.placed.append(square)
                m.lines.append((2, f"Bought {_piece_name(e.get('piece'))} on {square}", TEXT))
        elif kind in BLAST_COLOURS:
            target = _square(board, e.get("target"))
            squares = tuple(_squares(board, e.get("squares"), 25))
            if target is None and not squares:
                continue
            m.acted(who)
            m.blasts.append(_Blast(kind, _square(board, e.get("from")), target, squares))
            hit = _blast_losses(board, kind, e, m.lost)
            m.lines.append((1, f"{SHORT[kind]} at {target or '?'}: {hit}",
                            lighten(BLAST_COLOURS[kind], 0.35)))
        elif kind == "fight":
            fight = _Fight(as_str(e.get("attacker")), as_str(e.get("defender")), src, dst,
                           _unit_squares(board, e.get("attackers")),
                           _unit_squares(board, e.get("defenders")), _winner(e.get("winner")))
            if fight.dst is None and not fight.attackers and not fight.defenders:
                continue
            m.acted(fight.attacker)
            m.fights.append(fight)
            won = fight.attacker if fight.winner == "attacker" else (
                fight.defender if fight.winner == "defender" else None)
            where = f"{src or '?'} → {dst or '?'}"
            m.lines.append((1, f"Fight {where}" + (f": {players.name(won)} won" if won
                                                     else ""), LINE_FIGHT))
        elif kind == "casualty":
            square = _square(board, e.get("square"))
            result = e.get("result")
            if square is None or not isinstance(result, str) or result == "life lost":
                continue  # (not an action of the loser's: a single candidate is automatic)
            if result in ("destroyed", "vehicle destroyed"):
                m.lost.append(square)
            text = {"destroyed": "destroyed", "vehicle destroyed": "AV destroyed",
                    "damaged": "damaged", "prices raised": "prices +20"}.get(result)
            if text is not None:
                m.lines.append((2, f"{_piece_name(e.get('piece'))} {square} {text}", LINE_LOSS))
        elif kind == "life_lost":
            square, back = _square(board, e.get("square")), _square(board, e.get("to"))
            if square is not None and back is not None and square != back:
                m.retreats.append((square, back))
            lives = e.get("lives")
            left = f" ({as_int(lives)} left)" if isinstance(lives, int) else ""
            if isinstance(who, str):
                m.lines.append((1, f"{players.name(who)} loses a life{left}", LINE_LOSS))
        elif kind == "eliminated":
            if isinstance(who, str):
                m.lines.append((0, f"{players.name(who)} is out", LINE_FIGHT))
        elif kind == "edge_win":
            if isinstance(who, str):
                m.lines.append((0, f"{players.name(who)} holds the far edge", ACCENT))
        elif kind == "end_turn":
            if m.acted(who) is not None:
                m.ended = True
                bonus = as_int(e.get("bonus"))
                if bonus > 0:
                    m.lines.append((3, f"Forward bonus +{bonus}c", ACCENT))
        elif kind in ("skip", "done"):
            m.acted(who)
    if len(shifts) > 2:  # told once, where the first was
        m.lines[shifts[0]] = (3, f"{len(shifts)} pieces moved", TEXT)
        for i in reversed(shifts[1:]):
            del m.lines[i]
    return m


def _winner(value: Any) -> str | None:
    return value if value in ("attacker", "defender") else None


def _blast_losses(board: _Board, kind: str, e: Mapping[str, Any], lost: list[str]) -> str:
    """What a weapon did, in words; adds the squares of destroyed pieces to ``lost``."""
    destroyed = damaged = 0
    key = {"grenade": "rolls", "missile": "destroyed", "gas": "effects"}[kind]
    entries = e.get(key)
    for entry in entries[:25] if isinstance(entries, list) else []:
        if not isinstance(entry, Mapping):
            continue
        square = _square(board, entry.get("square"))
        gone = (kind == "missile" or (kind == "grenade" and entry.get("survived") is False)
                or (kind == "gas" and entry.get("result") == "destroyed"))
        if gone:
            destroyed += 1
            if square is not None:
                lost.append(square)
        elif kind == "gas" and entry.get("result") == "damaged":
            damaged += 1
    parts = []
    if destroyed:
        parts.append(f"{destroyed} destroyed")
    if damaged:
        parts.append(f"{damaged} damaged")
    return ", ".join(parts) or "no losses"


def _marks_from_view(view: Mapping[str, Any], board: _Board) -> _Marks:
    """The last fight, blast and move the view carries (images without events)."""
    m = _Marks()
    fight = optional_mapping(view.get("last_fight"))
    ends = None
    if fight is not None:
        f = _Fight(as_str(fight.get("attacker")), as_str(fight.get("defender")),
                   _square(board, fight.get("from")), _square(board, fight.get("to")),
                   _unit_squares(board, fight.get("attackers")),
                   _unit_squares(board, fight.get("defenders")), _winner(fight.get("winner")))
        m.fights.append(f)
        ends = (f.src, f.dst)
    blast = optional_mapping(view.get("blast"))
    if blast is not None:
        kind = blast.get("kind")
        m.blasts.append(_Blast(kind if kind in BLAST_COLOURS else "missile", None,
                               _square(board, blast.get("target")),
                               tuple(_squares(board, blast.get("squares"), 25))))
    last = mapping(view.get("last_move"))
    src, dst = _square(board, last.get("from")), _square(board, last.get("to"))
    if dst is not None and (src, dst) != ends:  # an attack shows as the fight
        m.steps.append(_Step(as_str(last.get("player")), src if src != dst else None, dst))
    return m

