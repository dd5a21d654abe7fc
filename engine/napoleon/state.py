"""Napoleonic Wars' state and its position format (JSON text, see docs/games/napoleon.md).

The position format is the server's storage and also meant to be written by hand: every
field is optional, with the defaults the doc lists, and anything wrong is refused with a
message that says exactly what and where. It holds every secret (both hands, the order of
the deck); views and public events never do.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.core import Dice, bounded, json_object, parse_position, position_fields
from engine.napoleon.board import COUNTRIES, NEIGHBOURS, ORDER, SEA_POWER, SIDES
from engine.napoleon.cards import BY_ID, COPIES, DECK

FORMAT = "warhost.napoleon/1"
PHASES = ("discard", "move", "choose", "cards", "retreat", "over")
STEPS = ("attacker", "defender", "retreat")
RESULTS = ("paris", "east", "rounds", "resigned")
POOL = 80
HAND_LIMIT = 7
DRAW = 2
DEFAULT_PLAYERS = ("french", "allies")
MAX_ROUNDS = 100

SETUP: dict[str, dict[str, int]] = {
    "french": {"france": 20, "rhineland": 4, "holland": 2, "denmark": 2, "spain": 2,
               "portugal": 2, "italy": 2, "naples": 2, "switzerland": 2, "egypt": 2},
    "allies": {"england": 10, "russia": 10, "austria": 10, "prussia": 10},
}


def other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def full(counts: dict[str, int] | None = None) -> dict[str, int]:
    """A count for every country, in map order (missing ones 0)."""
    counts = counts or {}
    return {c: counts.get(c, 0) for c in ORDER}


@dataclass(frozen=True)
class Seat:
    """A player's seat, as the platform's shared helpers see it (nobody drops out of a
    two-player game before it ends: resigning ends it)."""

    id: str
    side: str
    out: bool = False


@dataclass
class Battle:
    """The battle being fought: the attacker is always the side whose turn it is."""

    country: str
    step: str = "attacker"  # attacker | defender (card steps) | retreat
    cards: dict[str, list[str]] = field(default_factory=lambda: {s: [] for s in SIDES})
    loser: str | None = None  # at the retreat step

    def copy(self) -> Battle:
        return Battle(self.country, self.step, {s: list(v) for s, v in self.cards.items()},
                      self.loser)


@dataclass
class NapoleonState:
    players: list[str]  # [French, Allies]
    rounds: int  # the round limit
    round: int
    turn: str  # the side whose turn it is
    phase: str
    armies: dict[str, dict[str, int]]  # side -> country -> armies (every country)
    moved: dict[str, int]  # country -> armies of the side to move that moved this turn
    hands: dict[str, list[str]]  # side -> card ids, in the order drawn
    deck: list[str]  # top first
    discard: list[str]  # oldest first
    dice: Dice
    battle: Battle | None = None
    winner: str | None = None  # a side
    result: str | None = None  # one of RESULTS once over
    #: Each side's memory of the discard pile: the positions (indices into ``discard``,
    #: ascending) of the cards that side saw go there, every card played face up (a march,
    #: a battle's cards) and its own face-down discards. The rest are the other side's
    #: face-down discards. A side's secret: only the computer's determinization and the
    #: position format read it.
    seen: dict[str, list[int]] = field(default_factory=lambda: {s: [] for s in SIDES})

    def copy(self) -> NapoleonState:
        return NapoleonState(
            players=list(self.players), rounds=self.rounds, round=self.round, turn=self.turn,
            phase=self.phase, armies={s: dict(v) for s, v in self.armies.items()},
            moved=dict(self.moved), hands={s: list(v) for s, v in self.hands.items()},
            deck=list(self.deck), discard=list(self.discard), dice=self.dice.copy(),
            battle=self.battle.copy() if self.battle else None, winner=self.winner,
            result=self.result, seen={s: list(v) for s, v in self.seen.items()})

    def to_discard(self, cards: list[str], seen_by: tuple[str, ...] = SIDES) -> None:
        """Put ``cards`` on the discard pile, remembered by the sides in ``seen_by`` (both
        for a card played face up; only its own side for a face-down discard)."""
        for cid in cards:
            self.discard.append(cid)
            for side in seen_by:
                self.seen[side].append(len(self.discard) - 1)

    def reshuffle(self) -> None:
        """The discard pile becomes the deck, shuffled: nobody knows where its cards are."""
        self.deck = self.dice.shuffle(self.discard)
        self.discard = []
        self.seen = {s: [] for s in SIDES}

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def seats(self) -> list[Seat]:
        return [Seat(pid, side) for side, pid in zip(SIDES, self.players, strict=True)]

    def player_of(self, side: str) -> str:
        return self.players[SIDES.index(side)]

    def side_of(self, player: str) -> str | None:
        for side, pid in zip(SIDES, self.players, strict=True):
            if pid == player:
                return side
        return None

    @property
    def defender(self) -> str:
        return other(self.turn)

    def on_map(self, side: str) -> int:
        return sum(self.armies[side].values())

    def pool(self, side: str) -> int:
        return POOL - self.on_map(side)

    def control(self, country: str) -> str | None:
        f, a = self.armies["french"][country], self.armies["allies"][country]
        if f and not a:
            return "french"
        if a and not f:
            return "allies"
        return None

    def contested(self) -> list[str]:
        f, a = self.armies["french"], self.armies["allies"]
        return [c for c in ORDER if f[c] and a[c]]

    def battles_left(self) -> list[str]:
        """Contested countries not yet fought this turn (the current battle excluded)."""
        if self.phase not in ("choose", "cards", "retreat"):
            return []
        current = self.battle.country if self.battle else None
        return [c for c in self.contested() if c != current]

    def score(self, side: str) -> int:
        """The reinforcement value of the countries ``side`` controls (the table's value,
        for the French too in Prussia, Russia and Austria)."""
        return sum(COUNTRIES[c].reinforcement for c in ORDER if self.control(c) == side)


def retreats(armies: dict[str, dict[str, int]], side: str, country: str) -> list[str]:
    """Where the survivors of ``side`` may retreat from ``country``: a neighbour holding no
    enemy armies, never England (map order)."""
    enemy = armies[other(side)]
    return [c for c in NEIGHBOURS[country] if c != SEA_POWER and not enemy[c]]


# -- decks ----------------------------------------------------------------------------

# -- the position format ---------------------------------------------------------------

def dump(state: NapoleonState) -> str:
    b = state.battle
    data: dict[str, Any] = {
        "format": FORMAT,
        "players": list(state.players),
        "rounds": state.rounds,
        "round": state.round,
        "turn": state.turn,
        "phase": state.phase,
        "armies": {s: {c: n for c, n in state.armies[s].items() if n} for s in SIDES},
        "moved": {c: n for c, n in state.moved.items() if n},
        "hands": {s: list(state.hands[s]) for s in SIDES},
        "deck": list(state.deck),
        "discard": list(state.discard),
        "battle": None if b is None else {
            "country": b.country, "step": b.step,
            "cards": {s: list(b.cards[s]) for s in SIDES}, "loser": b.loser},
        "winner": state.winner,
        "result": state.result,
        "dice": state.dice.to_json(),
    }
    if any(state.seen.values()):  # written once a side remembers something
        data["seen"] = {s: list(state.seen[s]) for s in SIDES}
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def load(text: str) -> NapoleonState:
    """Parse and check a position; any problem raises :class:`IllegalAction`."""
    return parse_position(text, "Napoleonic Wars", _load)


FIELDS = ("format", "players", "rounds", "round", "turn", "phase", "armies", "moved", "hands",
          "deck", "discard", "battle", "winner", "result", "dice", "forced", "seed", "seen")


def _side(value: Any, where: str) -> str:
    if value not in SIDES:
        raise ValueError(f"{where}: {value!r} is not a side (french or allies)")
    return str(value)


def _country(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in COUNTRIES:
        raise ValueError(f"{where}: unknown country {value!r} (countries: {', '.join(ORDER)})")
    return value


def _cards(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise ValueError(f"{where} must be a list of card ids")
    for i, cid in enumerate(value):
        if not isinstance(cid, str) or cid not in BY_ID:
            raise ValueError(f"{where}[{i}]: unknown card {cid!r}")
    return list(value)


def _load(text: str) -> NapoleonState:
    data = position_fields(text, FORMAT, FIELDS)
    players = data.get("players", list(DEFAULT_PLAYERS))
    if (not isinstance(players, list) or len(players) != 2
            or not all(isinstance(p, str) and p for p in players)):
        raise ValueError("players must be a list of two player ids (French first)")
    if players[0] == players[1]:
        raise ValueError("players: the two ids must differ")
    seed = bounded(data.get("seed", 0), 0, 2**64 - 1, "seed")
    rounds = bounded(data.get("rounds", 20), 1, MAX_ROUNDS, "rounds")
    round_ = bounded(data.get("round", 1), 1, rounds, "round")
    turn = _side(data.get("turn", "french"), "turn")
    phase = data.get("phase", "move")
    if phase not in PHASES:
        raise ValueError(f"phase: {phase!r} is not one of {', '.join(PHASES)}")

    # armies
    if "armies" in data:
        raw_armies = json_object(data["armies"], "armies")
        for key in raw_armies:
            _side(key, "armies")
        armies = {}
        for s in SIDES:
            counts = json_object(raw_armies.get(s, {}), f"armies.{s}")
            for c, n in counts.items():
                _country(c, f"armies.{s}")
                if isinstance(n, int) and not isinstance(n, bool) and n < 0:
                    raise ValueError(f"armies.{s}.{c}: {n} is negative")
                bounded(n, 0, POOL, f"armies.{s}.{c}")
            armies[s] = full(counts)
    else:
        armies = {s: full(SETUP[s]) for s in SIDES}
    if armies["french"][SEA_POWER]:
        raise ValueError("armies.french.england: the French can never be in England")
    for s in SIDES:
        total = sum(armies[s].values())
        if total > POOL:
            raise ValueError(f"armies.{s}: {total} armies on the map, more than the {POOL} "
                             "counters a side has")

    # armies that moved this turn
    raw_moved = json_object(data.get("moved", {}), "moved")
    moved = full()
    for c, n in raw_moved.items():
        _country(c, "moved")
        moved[c] = bounded(n, 0, armies[turn][c], f"moved.{c} (armies of the {turn} there)")
    if any(moved.values()) and phase != "move":
        raise ValueError("moved: armies are marked as moved only in the move phase")

    # cards
    raw_hands = json_object(data.get("hands", {}), "hands")
    for key in raw_hands:
        _side(key, "hands")
    hands = {s: _cards(raw_hands.get(s, []), f"hands.{s}") for s in SIDES}
    discard = _cards(data.get("discard", []), "discard")

    # the battle
    battle = None
    raw_battle = data.get("battle")
    if raw_battle is not None:
        raw_battle = json_object(raw_battle, "battle")
        extra = [k for k in raw_battle if k not in ("country", "step", "cards", "loser")]
        if extra:
            raise ValueError(f"battle: unknown field {extra[0]!r}")
        country = _country(raw_battle.get("country"), "battle.country")
        step = raw_battle.get("step", "retreat" if phase == "retreat" else "attacker")
        if step not in STEPS:
            raise ValueError(f"battle.step: {step!r} is not one of {', '.join(STEPS)}")
        raw_played = json_object(raw_battle.get("cards", {}), "battle.cards")
        for key in raw_played:
            _side(key, "battle.cards")
        played = {s: _cards(raw_played.get(s, []), f"battle.cards.{s}") for s in SIDES}
        for s in SIDES:
            for i, cid in enumerate(played[s]):
                card = BY_ID[cid]
                if not card.playable_by(s) or card.kind == "march" or (
                        card.country not in (None, country)):
                    raise ValueError(f"battle.cards.{s}[{i}]: the {s} cannot play {cid} in "
                                     f"{country}")
        loser = raw_battle.get("loser")
        if loser is not None:
            loser = _side(loser, "battle.loser")
        battle = Battle(country, step, played, loser)
    _check_phase(phase, turn, armies, hands, battle)

    # every card in one place
    places: dict[str, list[str]] = {}
    where = [*((f"hands.{s}", hands[s]) for s in SIDES), ("discard", discard)]
    if battle is not None:
        where += [(f"battle.cards.{s}", battle.cards[s]) for s in SIDES]
    if "deck" in data:
        deck: list[str] | None = _cards(data["deck"], "deck")
        where.append(("deck", deck or []))
    else:
        deck = None
    for name, cards in where:
        for cid in cards:
            places.setdefault(cid, []).append(name)
    for cid, found in places.items():
        if len(found) > COPIES[cid]:
            copies = "1 copy" if COPIES[cid] == 1 else f"{COPIES[cid]} copies"
            raise ValueError(f"card {cid!r} is in {len(found)} places "
                             f"({', '.join(found)}) but the deck has {copies}")
    dice = _dice(data, seed)
    if deck is None:
        placed = Counter({cid: len(found) for cid, found in places.items()})
        rest = []
        for cid in DECK:
            if placed[cid] > 0:
                placed[cid] -= 1
            else:
                rest.append(cid)
        deck = _shuffle_rest(rest, seed)
    else:
        missing = [cid for cid in COPIES if len(places.get(cid, [])) < COPIES[cid]]
        if missing:
            raise ValueError(f"card {missing[0]!r} is missing: with a deck given, every card "
                             "must be somewhere (hands, deck, discard or the battle)")

    # the end
    winner = data.get("winner")
    result = data.get("result")
    if winner is not None:
        winner = _side(winner, "winner")
    if result is not None and result not in RESULTS:
        raise ValueError(f"result: {result!r} is not one of {', '.join(RESULTS)}")
    if (phase == "over") != (result is not None) or (phase == "over") != (winner is not None):
        raise ValueError("a finished game (phase over), and only one, has a winner and a result")
    seen = _seen(data.get("seen", {}), len(discard))
    return NapoleonState(players=list(players), rounds=rounds, round=round_, turn=turn,
                         phase=phase, armies=armies, moved=moved, hands=hands, deck=deck,
                         discard=discard, dice=dice, battle=battle, winner=winner,
                         result=result, seen=seen)


def _seen(value: Any, size: int) -> dict[str, list[int]]:
    """Each side's memory of the discard pile (none in older positions: nothing seen)."""
    raw = json_object(value, "seen")
    for key in raw:
        _side(key, "seen")
    out = {}
    for s in SIDES:
        found = raw.get(s, [])
        if not isinstance(found, list):
            raise ValueError(f"seen.{s} must be a list of positions in the discard pile")
        where = [bounded(i, 0, max(size - 1, 0), f"seen.{s}[{n}]") for n, i in enumerate(found)]
        if size == 0 and where:
            raise ValueError(f"seen.{s}: the discard pile is empty")
        if where != sorted(set(where)):
            raise ValueError(f"seen.{s}: positions must be in ascending order, each once")
        out[s] = where
    return out


def _shuffle_rest(cards: list[str], seed: int) -> list[str]:
    return Dice.from_seed(seed).shuffle(cards)


def _dice(data: dict[str, Any], seed: int) -> Dice:
    raw = data.get("dice")
    if raw is None:
        dice = Dice.from_seed(seed)
    else:
        raw = json_object(raw, "dice")
        extra = [k for k in raw if k not in ("state", "forced")]
        if extra:
            raise ValueError(f"dice: unknown field {extra[0]!r}")
        dice = Dice(bounded(raw.get("state", seed), 0, 2**64 - 1, "dice.state"))
        dice.forced = _forced(raw.get("forced", []), "dice.forced")
    if "forced" in data:
        if raw is not None and raw.get("forced"):
            raise ValueError("forced: give forced dice either in dice.forced or in forced")
        dice.forced = _forced(data["forced"], "forced")
    return dice


def _forced(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise ValueError(f"{where} must be a list of die results 1-6")
    return [bounded(v, 1, 6, f"{where}[{i}]") for i, v in enumerate(value)]


def _check_phase(phase: str, turn: str, armies: dict[str, dict[str, int]],
                 hands: dict[str, list[str]], battle: Battle | None) -> None:
    contested = [c for c in ORDER if armies["french"][c] and armies["allies"][c]]
    for s in SIDES:
        # a game may end (by resignation) while the side on turn is still to discard
        limit = (HAND_LIMIT + DRAW if (phase in ("discard", "over") and s == turn)
                 else HAND_LIMIT)
        if len(hands[s]) > limit:
            raise ValueError(f"hands.{s}: {len(hands[s])} cards, over the limit of {limit}")
    if phase == "discard" and len(hands[turn]) <= HAND_LIMIT:
        raise ValueError(f"phase discard: the {turn} hold only {len(hands[turn])} cards "
                         f"(a discard is due only over {HAND_LIMIT})")
    if phase in ("cards", "retreat"):
        if battle is None:
            raise ValueError(f"phase {phase} needs a battle")
        c = battle.country
        if phase == "cards":
            if battle.step == "retreat":
                raise ValueError("battle.step retreat belongs to phase retreat")
            if c not in contested:
                raise ValueError(f"battle.country: {c} must hold armies of both sides")
            if battle.loser is not None:
                raise ValueError("battle.loser: only at the retreat step")
        else:
            if battle.step != "retreat":
                raise ValueError("phase retreat needs battle.step retreat")
            if battle.loser is None:
                raise ValueError("battle.loser: the retreat step names the side that lost")
            if c not in contested:
                raise ValueError(f"battle.country: at the retreat step {c} holds the winner's "
                                 "armies and the loser's survivors")
            if not retreats(armies, battle.loser, c):
                raise ValueError(f"battle.loser: the {battle.loser} have nowhere to retreat "
                                 f"from {c}")
    elif battle is not None:
        raise ValueError(f"battle: there is no battle in phase {phase}")
    if phase == "choose" and len(contested) < 2:
        raise ValueError("phase choose: the attacker chooses only among two or more contested "
                         "countries")
