"""Liège's state and its position format (JSON text, documented in docs/games/liege.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine.core import (
    Dice,
    Seated,
    flag,
    parse_position,
    position_object,
    position_text,
    read_out_order,
    whole,
)
from engine.liege.board import FACINGS, SIDES, SIZES, Board, board
from engine.liege.pieces import DAMAGE_TOKENS, LIMITS, PIECES, START_CREDITS, START_LIVES

FORMAT = "warhost.liege/1"
PHASES = ("setup", "general", "deploy", "move", "fight", "over")
BONUSES = (30, 40)
USED_KEYS = ("trench", "grenade", "missile", "gas")


@dataclass
class Piece:
    type: str
    owner: str | None  # None for a Trench
    facing: str | None = None  # n/e/s/w for a Machine Gun or Mortar
    damaged: bool = False
    fought: bool = False  # took part in a fight this turn
    new: bool = False  # placed this turn
    moved: bool = False  # stepped during this turn's Move Resources
    turned: bool = False  # turned during this turn's Move Resources

    def copy(self) -> Piece:
        return Piece(self.type, self.owner, self.facing, self.damaged, self.fought, self.new,
                     self.moved, self.turned)


@dataclass
class Seat:
    id: str
    side: str
    credits: int = START_CREDITS
    lives: int = START_LIVES
    out: bool = False
    general: str | None = None
    general_fought: bool = False
    start_to_go: int | None = None  # the General's distance to go when this turn began
    used: dict[str, int] = field(default_factory=lambda: dict.fromkeys(USED_KEYS, 0))
    mortar_losses: int = 0
    #: The nearest the General has come to its far edge (squares to go), for ``quiet``.
    closest: int | None = None

    def copy(self) -> Seat:
        return Seat(self.id, self.side, self.credits, self.lives, self.out, self.general,
                    self.general_fought, self.start_to_go, dict(self.used), self.mortar_losses,
                    self.closest)


@dataclass
class Pending:
    """A lost fight waiting for the loser to choose a casualty."""

    player: str
    choices: list[str]
    only_damage: bool  # the out-of-range original attacker lost

    def copy(self) -> Pending:
        return Pending(self.player, list(self.choices), self.only_damage)


def _json_copy(value: Any) -> Any:
    """What a JSON round trip gives (a deep copy, tuples as lists), walked directly for
    the plain text, numbers and lists a fight or blast record holds; anything else still
    takes the round trip."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is list or kind is tuple:
        return [_json_copy(v) for v in value]
    if kind is dict and all(type(k) is str for k in value):
        return {k: _json_copy(v) for k, v in value.items()}
    return json.loads(json.dumps(value))


@dataclass
class LiegeState(Seated[Seat]):
    size: int
    forward_bonus: int
    seats: list[Seat]
    pieces: dict[str, Piece]
    turn: int  # index into seats: whose turn (or whose General to place during setup)
    round: int
    phase: str
    dice: Dice
    damage_tokens: int = DAMAGE_TOKENS
    blasted: bool = False  # a Grenade, Missile or Mustard Gas was used this turn
    pending: Pending | None = None
    winner: str | None = None  # set by the edge win
    out_order: list[str] = field(default_factory=list)
    last_fight: dict[str, Any] | None = None
    blast: dict[str, Any] | None = None
    last_move: dict[str, Any] | None = None
    #: Turns ended in a row since anything that cannot be undone happened: a fight, a
    #: blast, or a General nearer its far edge than it had ever stood. The rules ignore
    #: it; after a dozen such turns the computer player steps its General forward when it
    #: can, where waiting for ever looked best to both sides (issue 31). Like a seat's
    #: ``closest``, it follows from the moves: :meth:`~engine.liege.rules.Liege.forget`
    #: leaves both out, and the position text writes them only when set.
    quiet: int = 0

    @property
    def geo(self) -> Board:
        return board(self.size)

    def copy(self) -> LiegeState:
        return LiegeState(
            size=self.size, forward_bonus=self.forward_bonus,
            seats=[s.copy() for s in self.seats],
            pieces={k: v.copy() for k, v in self.pieces.items()},
            turn=self.turn, round=self.round, phase=self.phase, dice=self.dice.copy(),
            damage_tokens=self.damage_tokens, blasted=self.blasted,
            pending=self.pending.copy() if self.pending else None, winner=self.winner,
            out_order=list(self.out_order),
            last_fight=_json_copy(self.last_fight) if self.last_fight else None,
            blast=_json_copy(self.blast) if self.blast else None,
            last_move=dict(self.last_move) if self.last_move else None,
            quiet=self.quiet,
        )

    @property
    def over(self) -> bool:
        return self.winner is not None or len(self.alive) <= 1

    def general_at(self, square: str) -> Seat | None:
        for seat in self.seats:
            if seat.general == square and not seat.out:
                return seat
        return None

    def enemy_squares(self, player: str) -> list[str]:
        """Squares holding an opponent's piece or General."""
        enemy = [sq for sq, p in self.pieces.items()
                 if p.owner is not None and p.owner != player]
        enemy += [s.general for s in self.seats if not s.out and s.id != player and s.general]
        return enemy

    def near_enemy(self, player: str) -> set[str]:
        """Squares holding an opponent's piece or General, and their neighbours."""
        geo = self.geo
        near: set[str] = set()
        for sq in self.enemy_squares(player):
            near.update(geo.block[sq])  # the square and its neighbours
        return near

    def occupied(self) -> set[str]:
        """Squares holding a piece or a General."""
        taken = set(self.pieces)
        taken.update(s.general for s in self.seats if s.general and not s.out)
        return taken


# -- the position format ---------------------------------------------------------------

def dump(state: LiegeState) -> str:
    pieces: dict[str, dict[str, Any]] = {}
    for name in state.geo.squares:
        p = state.pieces.get(name)
        if p is None:
            continue
        entry: dict[str, Any] = {"type": p.type, "owner": p.owner}
        if p.facing is not None:
            entry["facing"] = p.facing
        for mark in ("damaged", "fought", "new", "moved", "turned"):
            if getattr(p, mark):
                entry[mark] = True
        pieces[name] = entry
    players = []
    for s in state.seats:
        player: dict[str, Any] = {
            "id": s.id, "side": s.side, "credits": s.credits, "lives": s.lives, "out": s.out,
            "general": s.general, "general_fought": s.general_fought,
            "start_to_go": s.start_to_go, "used": dict(s.used),
            "mortar_losses": s.mortar_losses}
        if s.closest is not None:
            player["closest"] = s.closest
        players.append(player)
    data: dict[str, Any] = {
        "format": FORMAT,
        "size": state.size,
        "forward_bonus": state.forward_bonus,
        "round": state.round,
        "turn": state.seats[state.turn].id,
        "phase": state.phase,
        "players": players,
        "pieces": pieces,
        "damage_tokens": state.damage_tokens,
        "blasted": state.blasted,
        "pending": None if state.pending is None else {
            "player": state.pending.player, "choices": state.pending.choices,
            "only_damage": state.pending.only_damage},
        "winner": state.winner,
        "dice": state.dice.to_json(),
        "out_order": state.out_order,
        "last_fight": state.last_fight,
        "blast": state.blast,
        "last_move": state.last_move,
    }
    if state.quiet:
        data["quiet"] = state.quiet
    return position_text(data)




def _obj(value: Any, what: str) -> dict[str, Any] | None:
    if value is not None and not isinstance(value, dict):
        raise ValueError(f"{what} must be an object or null")
    return value


def load(text: str) -> LiegeState:
    """Parse and check a position; any problem raises :class:`IllegalAction`."""
    return parse_position(text, "Liège", _load)


def _load(text: str) -> LiegeState:
    data = position_object(text, FORMAT)
    size = data.get("size", 10)
    if size not in SIZES or isinstance(size, bool):
        raise ValueError("size must be 10 or 8")
    geo = board(size)
    bonus = data.get("forward_bonus", 30)
    if bonus not in BONUSES or isinstance(bonus, bool):
        raise ValueError("forward_bonus must be 30 or 40")
    raw_players = data["players"]
    if not isinstance(raw_players, list) or not 2 <= len(raw_players) <= 4:
        raise ValueError("there must be 2-4 players")
    seats: list[Seat] = []
    for i, p in enumerate(raw_players):
        if not isinstance(p, dict):
            raise ValueError("each player is an object")
        pid = p["id"]
        if not isinstance(pid, str) or not pid:
            raise ValueError("player ids must be non-empty text")
        side = p.get("side", SIDES[i])
        if side != SIDES[i]:
            raise ValueError(f"seat {i + 1} is {SIDES[i]}")
        general = p.get("general")
        if general is not None and (not isinstance(general, str) or not geo.is_square(general)):
            raise ValueError(f"{pid}: bad General square {general!r}")
        start = p.get("start_to_go")
        closest = p.get("closest")
        used_raw = p.get("used", {})
        if not isinstance(used_raw, dict) or set(used_raw) - set(USED_KEYS):
            raise ValueError(f"{pid}: used must be an object with {', '.join(USED_KEYS)}")
        used = {k: whole(used_raw.get(k, 0), 0, LIMITS[k], f"{pid} used {k}") for k in USED_KEYS}
        seat = Seat(
            id=pid, side=side,
            credits=whole(p.get("credits", START_CREDITS), 0, 10**9, "credits"),
            lives=whole(p.get("lives", START_LIVES), 0, START_LIVES, "lives"),
            out=flag(p.get("out", False), "out"), general=general,
            general_fought=flag(p.get("general_fought", False), "general_fought"),
            start_to_go=None if start is None else whole(start, 0, size - 1, "start_to_go"),
            used=used, mortar_losses=whole(p.get("mortar_losses", 0), 0, 10**6, "mortar_losses"),
            closest=None if closest is None else whole(closest, 0, size - 1, "closest"),
        )
        if seat.out and seat.general is not None:
            raise ValueError(f"{pid} is out and has no General")
        if not seat.out and seat.lives == 0:
            raise ValueError(f"{pid} has no lives left and must be out")
        seats.append(seat)
    ids = [s.id for s in seats]
    if len(set(ids)) != len(ids):
        raise ValueError("player ids must differ")
    generals = [s.general for s in seats if s.general]
    if len(set(generals)) != len(generals):
        raise ValueError("two Generals share a square")
    raw_pieces = data.get("pieces", {})
    if not isinstance(raw_pieces, dict):
        raise ValueError("pieces must be an object")
    pieces: dict[str, Piece] = {}
    for name, entry in raw_pieces.items():
        if not geo.is_square(name):
            raise ValueError(f"{name!r} is not a square")
        if not isinstance(entry, dict):
            raise ValueError(f"{name}: a piece is an object")
        kind = entry.get("type")
        if kind not in PIECES:
            raise ValueError(f"{name}: unknown piece type {kind!r}")
        owner = entry.get("owner")
        if kind == "trench":
            if owner is not None:
                raise ValueError(f"{name}: a Trench has no owner")
        else:
            seat_owner = next((s for s in seats if s.id == owner), None)
            if seat_owner is None or seat_owner.out:
                raise ValueError(f"{name}: the owner must be a player still in")
        facing = entry.get("facing")
        if kind in ("mg", "mortar"):
            if facing not in FACINGS:
                raise ValueError(f"{name}: facing must be n, e, s or w")
        elif facing is not None:
            raise ValueError(f"{name}: only Machine Guns and Mortars face a direction")
        piece = Piece(kind, owner, facing)
        for mark in ("damaged", "fought", "new", "moved", "turned"):
            setattr(piece, mark, flag(entry.get(mark, False), f"{name} {mark}"))
        pieces[name] = piece
    for seat in seats:
        if seat.general and seat.general in pieces:
            holder = pieces[seat.general]
            if not (holder.type == "trench" or (holder.type == "av" and holder.owner == seat.id)):
                raise ValueError(f"{seat.general}: a General shares a square only with a "
                                 "Trench or its own Armored Vehicle")
    turn_id = data["turn"]
    if turn_id not in ids:
        raise ValueError("turn must name a player")
    turn = ids.index(turn_id)
    phase = data.get("phase", "general")
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {', '.join(PHASES)}")
    if phase != "setup" and any(not s.out and s.general is None for s in seats):
        raise ValueError("every player still in has a General on the board after setup")
    out_order = read_out_order(data, seats)
    winner = data.get("winner")
    if winner is not None and winner not in ids:
        raise ValueError("winner must be a player or null")
    if phase == "over" and winner is None and len([s for s in seats if not s.out]) > 1:
        raise ValueError("a game that is over has a winner")
    if phase != "over" and seats[turn].out:
        raise ValueError("the player on turn must still be in")
    pending = None
    raw_pending = _obj(data.get("pending"), "pending")
    if raw_pending is not None:
        who = raw_pending["player"]
        choices = raw_pending["choices"]
        if who not in ids or not isinstance(choices, list) or not choices or not all(
                isinstance(c, str) and geo.is_square(c) for c in choices):
            raise ValueError("pending needs a player and a list of squares")
        if phase != "fight":
            raise ValueError("a casualty can only be pending in the fight phase")
        pending = Pending(who, list(choices), flag(raw_pending.get("only_damage", False),
                                                    "only_damage"))
    dice = Dice.from_json(data.get("dice", {"state": 0}))
    if any(not 1 <= v <= 6 for v in dice.forced):
        raise ValueError("forced dice must be 1-6")
    return LiegeState(
        size=size, forward_bonus=bonus, seats=seats, pieces=pieces, turn=turn,
        round=whole(data.get("round", 1), 1, 10**9, "round"), phase=phase, dice=dice,
        damage_tokens=whole(data.get("damage_tokens", DAMAGE_TOKENS), 0, DAMAGE_TOKENS,
                           "damage_tokens"),
        blasted=flag(data.get("blasted", False), "blasted"), pending=pending, winner=winner,
        out_order=out_order,
        last_fight=_obj(data.get("last_fight"), "last_fight"),
        blast=_obj(data.get("blast"), "blast"),
        last_move=_obj(data.get("last_move"), "last_move"),
        quiet=whole(data.get("quiet", 0), 0, 10**9, "quiet"),
    )
