"""Battlecards' state and its position format (JSON text, see docs/games/battlecards.md).

The position format is the server's storage: it holds every secret (hands, stacks, kept
cards, deck orders). Views and public events never do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.battlecards.cards import ARSENAL, CONFLICT, CONFLICTS, FORCES, SIDES, UNITS
from engine.core import Dice, Seated, flag, parse_position, position_object, position_text, whole

FORMAT = "warhost.battlecards/1"
PHASES = ("setup", "draw", "resolve", "decide", "battle", "over")
PENDING_KINDS = ("deploy", "scout", "decide", "homeland")
#: A battle's steps: a new combat round; both sides' bonuses before it; firing; an
#: auto-firing side offered its kept cards before its units shoot ("ready"); withdrawals.
STEPS = ("round", "bonus", "fire", "ready", "withdraw")
STATUSES = ("active", "destroyed", "withdrawn")
ARSENAL_IDS = {side: frozenset(c.id for c in ARSENAL[side]) for side in SIDES}
SETUP_DEAL = 6
SETUP_DEPLOY = 3


@dataclass
class Seat:
    id: str
    side: str
    autofire: bool = True
    deck: list[str] = field(default_factory=list)  # arsenal draw pile, top first
    discard: list[str] = field(default_factory=list)  # destroyed units, public
    hand: list[str] = field(default_factory=list)  # reserve hand, in the order drawn
    stacks: dict[str, list[str]] = field(default_factory=lambda: {f: [] for f in FORCES})
    kept: list[str] = field(default_factory=list)
    won: list[str] = field(default_factory=list)  # battlecards won
    placed: int = 0  # setup deployments made
    #: This seat's memory of the *opponent's* face-down stacks: for each force, the enemy
    #: cards this seat has legitimately seen and knows are still there (bottom first):
    #: a scouted stack, and units that went back face down after a battle. Secret to
    #: this seat; only the computer's determinization and the position format read it.
    known: dict[str, list[str]] = field(default_factory=lambda: {f: [] for f in FORCES})
    #: The cards the opponent's arsenal deck was last made from, when this seat saw their
    #: discard pile (public) shuffled into it: that deck holds none but these (sorted;
    #: empty: nothing known). This seat's secret, like ``known``.
    deck_from: list[str] = field(default_factory=list)

    @property
    def vp(self) -> int:
        return sum(CONFLICTS[c].vp for c in self.won)

    @property
    def out(self) -> bool:
        """Nobody drops out of a two-player game before it ends (resigning ends it)."""
        return False

    def copy(self) -> Seat:
        return Seat(self.id, self.side, self.autofire, list(self.deck), list(self.discard),
                    list(self.hand), {f: list(v) for f, v in self.stacks.items()},
                    list(self.kept), list(self.won), self.placed,
                    {f: list(v) for f, v in self.known.items()}, list(self.deck_from))


@dataclass
class Unit:
    """A revealed unit in the battle being fought."""

    ref: str
    owner: str
    card: str
    status: str = "active"
    bonus: int = 0  # from kept cards: the rest of the battle
    support: int = 0  # from support units: this combat round
    supported: bool = False  # this (support) unit gave its bonus this round
    fired: bool = False  # fired in the current firing phase

    @property
    def force(self) -> str:
        return UNITS[self.card].stack

    @property
    def active(self) -> bool:
        return self.status == "active"

    def copy(self) -> Unit:
        return Unit(self.ref, self.owner, self.card, self.status, self.bonus, self.support,
                    self.supported, self.fired)


@dataclass
class Battle:
    aggressor: str
    defender: str
    units: list[Unit]
    round: int = 1
    phase: int = 1  # firing phase 1-4
    step: str = "round"  # one of STEPS
    side: int = 0  # 0: the aggressor acts, 1: the defender
    #: The acting side has been offered its kept cards before this phase's shots.
    offered: bool = False

    def copy(self) -> Battle:
        return Battle(self.aggressor, self.defender, [u.copy() for u in self.units],
                      self.round, self.phase, self.step, self.side, self.offered)

    @property
    def acting(self) -> str:
        return self.aggressor if self.side == 0 else self.defender

    def unit(self, owner: str, ref: str) -> Unit | None:
        for u in self.units:
            if u.owner == owner and u.ref == ref:
                return u
        return None

    def of(self, owner: str, active: bool = True) -> list[Unit]:
        # the status test spelled out: a search asks this millions of times a move
        return [u for u in self.units
                if u.owner == owner and (not active or u.status == "active")]


@dataclass
class Pending:
    kind: str  # deploy | scout | decide | homeland
    player: str
    left: int = 0  # deploy: cards still allowed

    def copy(self) -> Pending:
        return Pending(self.kind, self.player, self.left)


@dataclass
class BattlecardsState(Seated[Seat]):
    seats: list[Seat]
    conflict_deck: list[str]  # top first
    conflict_discard: list[str]  # top last
    dice: Dice
    turn: int = 0  # index of the drawing player
    round: int = 1  # turn counter
    phase: str = "setup"
    current: str | None = None  # the conflict card being resolved (or fought over)
    pending: Pending | None = None
    battle: Battle | None = None
    winner: str | None = None
    result: str | None = None  # total | standard | last_battle | resigned | draw
    last_shots: list[dict[str, Any]] = field(default_factory=list)
    last_move: dict[str, Any] | None = None
    #: The cards the conflict deck was last made from (its discard pile, public, shuffled
    #: when the deck ran out): the deck holds none but these (sorted; empty: no reshuffle
    #: yet). Both players know it; only the computer's determinization reads it.
    conflict_from: list[str] = field(default_factory=list)

    def copy(self) -> BattlecardsState:
        return BattlecardsState(
            seats=[s.copy() for s in self.seats], conflict_deck=list(self.conflict_deck),
            conflict_discard=list(self.conflict_discard), dice=self.dice.copy(),
            turn=self.turn, round=self.round, phase=self.phase, current=self.current,
            pending=self.pending.copy() if self.pending else None,
            battle=self.battle.copy() if self.battle else None, winner=self.winner,
            result=self.result, last_shots=[dict(s) for s in self.last_shots],
            last_move=dict(self.last_move) if self.last_move else None,
            conflict_from=list(self.conflict_from))

    @property
    def over(self) -> bool:
        return self.phase == "over"

    def seat(self, player: str) -> Seat:
        s = self.seat_of(player)
        assert s is not None
        return s

    def opponent(self, player: str) -> Seat:
        return self.seats[1] if self.seats[0].id == player else self.seats[0]

    def side_seat(self, side: str) -> Seat:
        return self.seats[SIDES.index(side)]

    def won_keys(self) -> set[str]:
        return {CONFLICTS[c].key for s in self.seats for c in s.won}


# -- decks ----------------------------------------------------------------------------

def _refilled(deck: list[str], discard: list[str], dice: Dice) -> tuple[list[str], list[str]]:
    """The deck and discard pile to draw from: an empty deck takes the pile, shuffled."""
    if not deck and discard:
        return dice.shuffle(discard), []
    return deck, discard


def forget_stack(state: BattlecardsState, owner: Seat, force: str) -> None:
    """``owner``'s ``force`` stack was emptied (its units revealed in a battle): the
    opponent no longer remembers any card in it."""
    state.opponent(owner.id).known[force] = []


def remember(state: BattlecardsState, owner: Seat, force: str, cards: list[str]) -> None:
    """``owner``'s opponent has seen ``cards`` go (or sit) face down on ``owner``'s
    ``force`` stack."""
    known = state.opponent(owner.id).known[force]
    known += [c for c in cards if c not in known]


def draw_conflict(state: BattlecardsState) -> str | None:
    """The top conflict card (reshuffling the discard pile into an empty deck)."""
    if not state.conflict_deck and state.conflict_discard:
        state.conflict_from = sorted(state.conflict_discard)  # seen face up by both
    state.conflict_deck, state.conflict_discard = _refilled(
        state.conflict_deck, state.conflict_discard, state.dice)
    return state.conflict_deck.pop(0) if state.conflict_deck else None


def draw_arsenal(state: BattlecardsState, seat: Seat) -> str | None:
    """The top card of ``seat``'s arsenal (reshuffling their discard pile into an empty
    deck)."""
    if not seat.deck and seat.discard:
        state.opponent(seat.id).deck_from = sorted(seat.discard)  # a public pile
    seat.deck, seat.discard = _refilled(seat.deck, seat.discard, state.dice)
    return seat.deck.pop(0) if seat.deck else None


# -- the position format ---------------------------------------------------------------

def dump(state: BattlecardsState) -> str:
    b = state.battle
    data: dict[str, Any] = {
        "format": FORMAT,
        "round": state.round,
        "turn": state.seats[state.turn].id,
        "phase": state.phase,
        "players": [
            {"id": s.id, "side": s.side, "autofire": s.autofire, "deck": s.deck,
             "discard": s.discard, "hand": s.hand, "stacks": s.stacks, "kept": s.kept,
             "won": s.won, "placed": s.placed,
             # written only once the seat remembers something, so a position without
             # memory reads as it always did
             **({"known": s.known} if any(s.known.values()) else {}),
             **({"deck_from": s.deck_from} if s.deck_from else {})}
            for s in state.seats],
        "conflict": {"deck": state.conflict_deck, "discard": state.conflict_discard},
        "current": state.current,
        "pending": None if state.pending is None else {
            "kind": state.pending.kind, "player": state.pending.player,
            "left": state.pending.left},
        "battle": None if b is None else {
            "aggressor": b.aggressor, "defender": b.defender, "round": b.round,
            "phase": b.phase, "step": b.step, "side": b.side, "offered": b.offered,
            "units": [{"ref": u.ref, "owner": u.owner, "card": u.card, "status": u.status,
                       "bonus": u.bonus, "support": u.support, "supported": u.supported,
                       "fired": u.fired} for u in b.units]},
        "winner": state.winner,
        "result": state.result,
        "dice": state.dice.to_json(),
        "last_shots": state.last_shots,
        "last_move": state.last_move,
    }
    if state.conflict_from:
        data["conflict"]["deck_from"] = state.conflict_from
    return position_text(data)


def load(text: str) -> BattlecardsState:
    """Parse and check a position; any problem raises :class:`IllegalAction`."""
    return parse_position(text, "Battlecards", _load)




def _ids(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of card ids")
    return list(value)


def _load(text: str) -> BattlecardsState:
    data = position_object(text, FORMAT)
    raw_players = data["players"]
    if not isinstance(raw_players, list) or len(raw_players) != 2:
        raise ValueError("there must be 2 players")
    seats = []
    for i, p in enumerate(raw_players):
        pid = p["id"]
        if not isinstance(pid, str) or not pid:
            raise ValueError("player ids must be non-empty text")
        if p.get("side", SIDES[i]) != SIDES[i]:
            raise ValueError(f"seat {i + 1} is {SIDES[i]}")
        stacks_raw = p.get("stacks", {})
        if not isinstance(stacks_raw, dict) or set(stacks_raw) - set(FORCES):
            raise ValueError("stacks has ground, air and sea")
        seat = Seat(id=pid, side=SIDES[i], autofire=flag(p.get("autofire", True), "autofire"),
                    deck=_ids(p.get("deck", []), "deck"),
                    discard=_ids(p.get("discard", []), "discard"),
                    hand=_ids(p.get("hand", []), "hand"),
                    stacks={f: _ids(stacks_raw.get(f, []), f"stack {f}") for f in FORCES},
                    kept=_ids(p.get("kept", []), "kept"), won=_ids(p.get("won", []), "won"),
                    placed=whole(p.get("placed", SETUP_DEPLOY), 0, SETUP_DEPLOY, "placed"))
        for force, cards in seat.stacks.items():
            if any(UNITS.get(c) is None or UNITS[c].stack != force for c in cards):
                raise ValueError(f"{pid}: the {force} stack holds only {force} units")
        if any(c not in CONFLICTS or CONFLICTS[c].kind != "keep" for c in seat.kept):
            raise ValueError(f"{pid}: only keep cards can be kept")
        if any(c not in CONFLICTS or not CONFLICTS[c].is_battle for c in seat.won):
            raise ValueError(f"{pid}: only battlecards can be won")
        seats.append(seat)
    if seats[0].id == seats[1].id:
        raise ValueError("player ids must differ")
    for i, p in enumerate(raw_players):
        # older positions have no memory: the seat remembers nothing
        known_raw = p.get("known", {})
        if not isinstance(known_raw, dict) or set(known_raw) - set(FORCES):
            raise ValueError("known has ground, air and sea")
        seat, opp = seats[i], seats[1 - i]
        seat.known = {f: _ids(known_raw.get(f, []), f"known {f}") for f in FORCES}
        for force, cards in seat.known.items():
            if len(set(cards)) != len(cards) or not set(cards) <= set(opp.stacks[force]):
                raise ValueError(f"{seat.id}: known {force} cards must be on "
                                 f"{opp.id}'s {force} stack")
        seat.deck_from = sorted(_ids(p.get("deck_from", []), "deck_from"))
        if len(set(seat.deck_from)) != len(seat.deck_from):
            raise ValueError(f"{seat.id}: deck_from names each card once")
        if seat.deck_from and not set(opp.deck) <= set(seat.deck_from):
            raise ValueError(f"{seat.id}: deck_from must hold every card of {opp.id}'s deck")
        if any(c not in ARSENAL_IDS[opp.side] for c in seat.deck_from):
            raise ValueError(f"{seat.id}: deck_from holds {opp.id}'s arsenal cards only")
    ids = [s.id for s in seats]
    conflict = data.get("conflict", {})
    deck = _ids(conflict.get("deck", []), "conflict deck")
    conflict_from = sorted(_ids(conflict.get("deck_from", []), "conflict deck_from"))
    if conflict_from and not set(deck) <= set(conflict_from):
        raise ValueError("conflict deck_from must hold every card of the conflict deck")
    if any(c not in CONFLICTS for c in conflict_from):
        raise ValueError("conflict deck_from holds conflict cards only")
    discard = _ids(conflict.get("discard", []), "conflict discard")
    current = data.get("current")
    if current is not None and current not in CONFLICTS:
        raise ValueError("current must be a conflict card or null")
    phase = data.get("phase", "draw")
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {', '.join(PHASES)}")
    pending = None
    raw_pending = data.get("pending")
    if raw_pending is not None:
        if raw_pending.get("kind") not in PENDING_KINDS or raw_pending.get("player") not in ids:
            raise ValueError("pending needs a kind and a player")
        pending = Pending(raw_pending["kind"], raw_pending["player"],
                          whole(raw_pending.get("left", 0), 0, 10, "left"))
        if phase not in ("resolve", "decide") or current is None:
            raise ValueError("a pending choice belongs to the resolve or decide phase with "
                             "a current card")
    elif phase in ("resolve", "decide"):
        raise ValueError(f"the {phase} phase needs a pending choice")
    battle = None
    raw_battle = data.get("battle")
    if raw_battle is not None:
        # (a game that ends mid-battle, by a resignation or a time-out, keeps its battle)
        if phase not in ("battle", "over") or current is None \
                or not CONFLICTS[current].is_battle:
            raise ValueError("a battle belongs to the battle phase with a battlecard")
        units = []
        for u in raw_battle["units"]:
            if u["owner"] not in ids or u["card"] not in UNITS or u.get("status",
                                                                        "active") not in STATUSES:
                raise ValueError("bad battle unit")
            owner_side = SIDES[ids.index(u["owner"])]
            if UNITS[u["card"]].side != owner_side:
                raise ValueError("a unit fights for its own side")
            units.append(Unit(str(u["ref"]), u["owner"], u["card"], u.get("status", "active"),
                              whole(u.get("bonus", 0), 0, 100, "bonus"),
                              whole(u.get("support", 0), 0, 100, "support"),
                              flag(u.get("supported", False), "supported"),
                              flag(u.get("fired", False), "fired")))
        refs = [(u.owner, u.ref) for u in units]
        if len(set(refs)) != len(refs):
            raise ValueError("battle refs must differ")
        agg, dfd = raw_battle["aggressor"], raw_battle["defender"]
        if {agg, dfd} != set(ids):
            raise ValueError("the battle is between the two players")
        if raw_battle.get("step", "round") not in STEPS:
            raise ValueError("bad battle step")
        battle = Battle(agg, dfd, units, whole(raw_battle.get("round", 1), 1, 10**9, "round"),
                        whole(raw_battle.get("phase", 1), 1, 4, "phase"),
                        raw_battle.get("step", "round"),
                        whole(raw_battle.get("side", 0), 0, 1, "side"),
                        flag(raw_battle.get("offered", False), "offered"))
    elif phase == "battle":
        raise ValueError("the battle phase needs a battle")
    # every card is in exactly one place
    places = [*deck, *discard, *([current] if current else [])]
    for s in seats:
        places += s.kept + s.won
    if sorted(places) != sorted(c.id for c in CONFLICT):
        raise ValueError("every conflict card must be in exactly one place")
    for i, s in enumerate(seats):
        mine = [*s.deck, *s.discard, *s.hand, *(c for f in FORCES for c in s.stacks[f])]
        if battle is not None:
            mine += [u.card for u in battle.units if u.owner == s.id]
        if sorted(mine) != sorted(c.id for c in ARSENAL[SIDES[i]]):
            raise ValueError(f"{s.id}: every {SIDES[i]} arsenal card must be in exactly one place")
    turn_id = data.get("turn", ids[0])
    if turn_id not in ids:
        raise ValueError("turn must name a player")
    winner = data.get("winner")
    if winner is not None and winner not in ids:
        raise ValueError("winner must be a player or null")
    result = data.get("result")
    if (phase == "over") != (result is not None):
        raise ValueError("a finished game, and only one, has a result")
    shots = data.get("last_shots", [])
    if not isinstance(shots, list) or not all(isinstance(x, dict) for x in shots):
        raise ValueError("last_shots must be a list of objects")
    last_move = data.get("last_move")
    if last_move is not None and not isinstance(last_move, dict):
        raise ValueError("last_move must be an object or null")
    dice = Dice.from_json(data.get("dice", {"state": 0}))
    return BattlecardsState(
        seats=seats, conflict_deck=deck, conflict_discard=discard, dice=dice,
        turn=ids.index(turn_id), round=whole(data.get("round", 1), 1, 10**9, "round"),
        phase=phase, current=current, pending=pending, battle=battle, winner=winner,
        result=result, last_shots=list(shots), last_move=last_move,
        conflict_from=conflict_from)
