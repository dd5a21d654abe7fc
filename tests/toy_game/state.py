"""Toy Raid's state, its cards and its position format (``dump``/``load``).

The position is JSON text tagged ``"format": "toy"``: the seats (score, hand, stash, out),
the deck and the discard pile in order, the round, whose turn it is and how many actions
it has left, a raid waiting for its target's answer, the dice and why the game ended.
``load(dump(state))`` gives back a state that dumps to the same text and plays on the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.core import (
    Dice,
    Seated,
    bounded,
    flag,
    json_object,
    parse_position,
    position_object,
    position_text,
    read_out_order,
)

FORMAT = "toy"
#: Cards dealt to each seat at the start.
DEAL = 3
#: A hand this full may not raid for more.
HAND_LIMIT = 6
#: Cards a seat may keep in its stash.
STASH_LIMIT = 3
#: Actions (play, stash, raid) in a turn; ``pass`` ends it sooner.
ACTIONS = 2
#: Copies of each kind of card in the deck.
COPIES = 4


@dataclass(frozen=True)
class Card:
    key: str
    name: str
    value: int
    text: str


#: The kinds of card, in the order the deck is built.
KINDS_OF_CARD = (
    Card("copper", "Copper Coin", 1, "Worth 1 point."),
    Card("silver", "Silver Cup", 2, "Worth 2 points."),
    Card("gold", "Gold Ring", 3, "Worth 3 points."),
    Card("ruby", "Ruby", 4, "Worth 4 points."),
    Card("crown", "Crown", 5, "Worth 5 points."),
    Card("shield", "Shield", 0, "Worth nothing, but a block with it always holds."),
)
#: Every card id (``gold3``) and what it is; each copy has a name of its own (``Gold Ring
#: #3``), so a test can tell which card reached whom.
CARDS: dict[str, Card] = {f"{c.key}{n}": Card(c.key, f"{c.name} #{n}", c.value, c.text)
                          for c in KINDS_OF_CARD for n in range(1, COPIES + 1)}


def card_json(cid: str, slot: int | None = None) -> dict[str, Any]:
    """A card as views show it (``slot``: its place in a hand, from 1)."""
    card = CARDS[cid]
    shown: dict[str, Any] = {"id": cid, "name": card.name, "text": card.text,
                             "value": card.value}
    if slot is not None:
        shown["slot"] = slot
    return shown


@dataclass
class Seat:
    id: str
    score: int = 0
    hand: list[str] = field(default_factory=list)
    stash: list[str] = field(default_factory=list)
    out: bool = False

    def copy(self) -> Seat:
        return Seat(self.id, self.score, list(self.hand), list(self.stash), self.out)


@dataclass(frozen=True)
class Raid:
    """A raid waiting for its target: ``slot`` is the raided card's place in their hand."""

    raider: str
    target: str
    slot: int


@dataclass
class ToyState(Seated[Seat]):
    seats: list[Seat]
    deck: list[str]
    discard: list[str]
    dice: Dice
    rounds: int
    target: int
    round: int = 1
    turn: int = 0
    actions: int = ACTIONS
    raid: Raid | None = None
    out_order: list[str] = field(default_factory=list)
    #: Why the game ended (None while it runs).
    ended: str | None = None

    @property
    def over(self) -> bool:
        return self.ended is not None

    def copy(self) -> ToyState:
        return ToyState([s.copy() for s in self.seats], list(self.deck), list(self.discard),
                        self.dice.copy(), self.rounds, self.target, self.round, self.turn,
                        self.actions, self.raid, list(self.out_order), self.ended)

    def index_of(self, player: str) -> int:
        return next(i for i, s in enumerate(self.seats) if s.id == player)


# -- the position format ---------------------------------------------------------------


def dump(state: ToyState) -> str:
    raid = state.raid
    return position_text({
        "format": FORMAT,
        "players": [{"id": s.id, "score": s.score, "hand": s.hand, "stash": s.stash,
                     "out": s.out} for s in state.seats],
        "deck": state.deck, "discard": state.discard, "dice": state.dice.to_json(),
        "rounds": state.rounds, "target": state.target, "round": state.round,
        "turn": state.turn, "actions": state.actions,
        "raid": None if raid is None else {"raider": raid.raider, "target": raid.target,
                                           "slot": raid.slot},
        "out_order": state.out_order, "ended": state.ended,
    })


def load(text: str) -> ToyState:
    """Parse and check a position; any problem raises ``IllegalAction``."""
    return parse_position(text, "Toy Raid", _load)


def _cards(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(c, str) and c in CARDS
                                              for c in value):
        raise ValueError(f"{where} must be a list of card ids")
    return list(value)


def _load(text: str) -> ToyState:
    data = position_object(text, FORMAT)
    seats = []
    for i, raw in enumerate(data["players"]):
        p = json_object(raw, f"player {i + 1}")
        if not isinstance(p["id"], str) or not p["id"]:
            raise ValueError("player ids must be non-empty text")
        seats.append(Seat(p["id"], bounded(p["score"], 0, 10_000, "score"),
                          _cards(p["hand"], "a hand"), _cards(p["stash"], "a stash"),
                          flag(p["out"], "out")))
    if not 2 <= len(seats) <= 4 or len({s.id for s in seats}) != len(seats):
        raise ValueError("2-4 players, each once")
    deck, discard = _cards(data["deck"], "the deck"), _cards(data["discard"], "the discard")
    every = deck + discard + [c for s in seats for c in s.hand + s.stash]
    if sorted(every) != sorted(CARDS):
        raise ValueError("every card must be in exactly one place")
    raid = None
    if data["raid"] is not None:
        r = json_object(data["raid"], "raid")
        ids = [s.id for s in seats]
        if r["raider"] not in ids or r["target"] not in ids:
            raise ValueError("a raid names two players of the game")
        raid = Raid(r["raider"], r["target"], bounded(r["slot"], 1, HAND_LIMIT, "raid slot"))
    ended = data["ended"]
    if ended is not None and not isinstance(ended, str):
        raise ValueError("ended must be text or null")
    rounds = bounded(data["rounds"], 1, 99, "rounds")
    return ToyState(seats, deck, discard, Dice.from_json(json_object(data["dice"], "dice")),
                    rounds, bounded(data["target"], 1, 999, "target"),
                    bounded(data["round"], 1, rounds + 1, "round"),
                    bounded(data["turn"], 0, len(seats) - 1, "turn"),
                    bounded(data["actions"], 0, ACTIONS, "actions"), raid,
                    read_out_order(data, seats), ended)
