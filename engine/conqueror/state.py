"""Conqueror's state and its position format (JSON text, documented in docs/games/conqueror.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.conqueror.board import SQUARES, is_square
from engine.core import (
    Dice,
    Seated,
    parse_position,
    position_object,
    position_text,
    read_out_order,
    whole,
)

FORMAT = "warhost.conqueror/1"
MAX_STOCK = 5  # the cap on AP, gold and lumber
MAX_STACK = 6  # soldiers on one square
MAX_STACK_FORT = 4  # soldiers on a square with a fort
MAX_FORTS = 4  # forts standing per player
BASE_HEALTH = 5

#: What a square can hold. "hidden" is undiscovered; "ruin" is a destroyed base.
RESOURCES = ("hidden", "gold", "lumber", "blank", "base", "ruin")

#: ``Square.fort_owner`` of a fort left behind by an eliminated player.
NOBODY = ""


@dataclass
class Square:
    resource: str = "hidden"
    owner: str | None = None  # whose soldiers stand here
    soldiers: int = 0
    fort_owner: str | None = None  # None: no fort; NOBODY: an ownerless fort

    @property
    def has_fort(self) -> bool:
        return self.fort_owner is not None

    def copy(self) -> Square:
        return Square(self.resource, self.owner, self.soldiers, self.fort_owner)


@dataclass
class Seat:
    id: str
    base: str
    base_health: int = BASE_HEALTH
    ap: int = 0
    gold: int = 0
    lumber: int = 0
    out: bool = False

    def copy(self) -> Seat:
        return Seat(self.id, self.base, self.base_health, self.ap, self.gold, self.lumber,
                    self.out)


@dataclass
class ConquerorState(Seated[Seat]):
    seats: list[Seat]
    board: dict[str, Square]
    turn: int  # index into seats of whose turn it is
    round: int
    dice: Dice
    out_order: list[str] = field(default_factory=list)  # players in the order they went out
    last_move: dict[str, Any] | None = None
    #: The squares of a :meth:`draft` that are its own copies so far (see :meth:`square`).
    _own: set[str] = field(default_factory=set, init=False, repr=False, compare=False)

    def copy(self) -> ConquerorState:
        return ConquerorState(
            seats=[s.copy() for s in self.seats],
            board={k: v.copy() for k, v in self.board.items()},
            turn=self.turn,
            round=self.round,
            dice=self.dice.copy(),
            out_order=list(self.out_order),
            last_move=dict(self.last_move) if self.last_move else None,
        )

    def draft(self) -> ConquerorState:
        """A copy for ``apply`` to change that shares the squares with this state until
        :meth:`square` copies them, one by one: a move changes two squares of 36, and
        copying the whole board was most of a move's cost."""
        return ConquerorState(
            seats=[s.copy() for s in self.seats],
            board=dict(self.board),
            turn=self.turn,
            round=self.round,
            dice=self.dice.copy(),
            out_order=list(self.out_order),
            last_move=dict(self.last_move) if self.last_move else None,
        )

    def square(self, name: str) -> Square:
        """``name``'s square, to change: copied on first use, so that the state drafted
        from never changes. Every change to a square goes through here."""
        if name in self._own:
            return self.board[name]
        sq = self.board[name] = self.board[name].copy()
        self._own.add(name)
        return sq

    def settle(self) -> None:
        """Forget which squares are this state's own, once handed out: a draft made from
        it shares them, so any later change copies again."""
        self._own.clear()

    @property
    def over(self) -> bool:
        return len(self.alive) <= 1


def dump(state: ConquerorState) -> str:
    board: dict[str, dict[str, Any]] = {}
    for name in SQUARES:
        sq = state.board[name]
        entry: dict[str, Any] = {}
        if sq.resource != "hidden":
            entry["resource"] = sq.resource
        if sq.soldiers:
            entry["owner"] = sq.owner
            entry["soldiers"] = sq.soldiers
        if sq.fort_owner is not None:
            entry["fort"] = sq.fort_owner
        if entry:
            board[name] = entry
    data: dict[str, Any] = {
        "format": FORMAT,
        "round": state.round,
        "turn": state.seats[state.turn].id,
        "players": [
            {"id": s.id, "base": s.base, "base_health": s.base_health, "ap": s.ap,
             "gold": s.gold, "lumber": s.lumber, "out": s.out}
            for s in state.seats
        ],
        "board": board,
        "dice": state.dice.to_json(),
        "out_order": state.out_order,
        "last_move": state.last_move,
    }
    return position_text(data)



def load(text: str) -> ConquerorState:
    """Parse and check a position; any problem raises :class:`IllegalAction`."""
    return parse_position(text, "Conqueror", _load)


def _load(text: str) -> ConquerorState:
    data = position_object(text, FORMAT)
    seats: list[Seat] = []
    for p in data["players"]:
        pid = p["id"]
        if not isinstance(pid, str) or not pid:
            raise ValueError("player ids must be non-empty text")
        base = p["base"]
        if not isinstance(base, str) or not is_square(base):
            raise ValueError(f"bad base square {base!r}")
        out = p.get("out", False)
        if not isinstance(out, bool):
            raise ValueError("out must be true or false")
        seats.append(Seat(
            id=pid, base=base,
            base_health=whole(p.get("base_health", BASE_HEALTH), 0, BASE_HEALTH, "base_health"),
            ap=whole(p.get("ap", 0), 0, MAX_STOCK, "ap"),
            gold=whole(p.get("gold", 0), 0, MAX_STOCK, "gold"),
            lumber=whole(p.get("lumber", 0), 0, MAX_STOCK, "lumber"),
            out=out,
        ))
    ids = [s.id for s in seats]
    if not 2 <= len(seats) <= 4 or len(set(ids)) != len(ids):
        raise ValueError("there must be 2-4 players with different ids")
    board = {name: Square() for name in SQUARES}
    for seat in seats:
        if not seat.out:
            board[seat.base].resource = "base"
    raw_board = data.get("board", {})
    if not isinstance(raw_board, dict):
        raise ValueError("board must be an object")
    for name, entry in raw_board.items():
        if not is_square(name):
            raise ValueError(f"{name!r} is not a square")
        sq = board[name]
        resource = entry.get("resource", "hidden")
        if resource not in RESOURCES:
            raise ValueError(f"{name}: unknown resource {resource!r}")
        sq.resource = resource
        soldiers = whole(entry.get("soldiers", 0), 0, MAX_STACK, f"{name} soldiers")
        owner = entry.get("owner")
        if soldiers and owner not in ids:
            raise ValueError(f"{name}: soldiers need an owner who is a player")
        sq.soldiers = soldiers
        sq.owner = owner if soldiers else None
        fort = entry.get("fort")
        if fort is not None and fort != NOBODY and fort not in ids:
            raise ValueError(f"{name}: fort owner must be a player or \"\"")
        sq.fort_owner = fort
    for seat in seats:
        if not seat.out and board[seat.base].resource != "base":
            raise ValueError(f"{seat.base} is {seat.id}'s base")
    for name, sq in board.items():
        if sq.soldiers and sq.resource == "hidden":
            raise ValueError(f"{name}: a square with soldiers has been discovered")
        if sq.has_fort and sq.soldiers > MAX_STACK_FORT:
            raise ValueError(f"{name}: a fort holds at most {MAX_STACK_FORT} soldiers")
        if sq.resource == "base" and sq.has_fort:
            raise ValueError(f"{name}: a base cannot hold a fort")
    turn_id = data["turn"]
    if turn_id not in ids:
        raise ValueError("turn must name a player")
    out_order = read_out_order(data, seats)
    last_move = data.get("last_move")
    if last_move is not None and not isinstance(last_move, dict):
        raise ValueError("last_move must be an object or null")
    dice = Dice.from_json(data.get("dice", {"state": 0}))
    if any(not 1 <= v <= 6 for v in dice.forced):
        raise ValueError("forced dice must be 1-6")
    return ConquerorState(
        seats=seats, board=board, turn=ids.index(turn_id),
        round=whole(data.get("round", 1), 1, 10**9, "round"),
        dice=dice, out_order=out_order, last_move=last_move,
    )
