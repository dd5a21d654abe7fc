"""Toy Raid's action notation and its declared verbs (the ``/toy`` group).

    play 2        play the 2nd card of your hand for its points (you draw a new one)
    stash 1       hide the 1st card of your hand in your stash (it scores at the end)
    raid 3 2      raid seat 3's hand for its 2nd card (face down); seat 3 must answer
    block 1       (raided) discard your 1st card to try to stop the raid
    yield         (raided) let the raider take the card
    pass          end your turn
    resign
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import IllegalAction
from engine.verbs import NUMBER, Arg, Verb
from tests.toy_game.state import HAND_LIMIT

HELP = "Actions: `play 2`, `stash 1`, `raid 3 2`, `block 1`, `yield`, `pass`, `resign`."

#: A card of the caller's own hand, by its place in it (labelled from their own view).
CARD = "card"
#: Another player's seat number (labelled with their score and hand).
SEAT = "seat"

VERBS: tuple[Verb, ...] = (
    Verb("play", "Play a card from your hand for its points (1 action)", "play {card}",
         (Arg("card", "Which card of your hand", CARD, longest=2),), section="Your turn"),
    Verb("stash", "Hide a card in your stash; it scores at the end (1 action)", "stash {card}",
         (Arg("card", "Which card of your hand", CARD, longest=2),), section="Your turn"),
    Verb("raid", "Raid another player's hand for one of their cards (1 action)",
         "raid {seat} {slot}",
         (Arg("seat", "Whose hand: their seat number", SEAT, longest=2),
          Arg("slot", "Which of their cards, counted from the left", NUMBER, low=1,
              high=HAND_LIMIT)), section="Your turn"),
    Verb("pass", "End your turn", section="Your turn"),
    Verb("block", "Discard another card to try to stop the raid", "block {card}",
         (Arg("card", "Which card of your hand to discard", CARD, longest=2),),
         section="When raided"),
    Verb("yield", "Let the raider take the card", section="When raided"),
)


@dataclass(frozen=True)
class Action:
    verb: str
    numbers: tuple[int, ...] = ()

    @property
    def text(self) -> str:
        """The canonical spelling (``play 2``)."""
        return " ".join([self.verb, *map(str, self.numbers)])


_ARITY = {"play": 1, "stash": 1, "block": 1, "raid": 2, "pass": 0, "yield": 0, "resign": 0}


def parse(text: str) -> Action:
    """Parse normalised (lower-case, single-spaced) text."""
    verb, *args = text.split(" ")
    arity = _ARITY.get(verb)
    if arity is None:
        raise IllegalAction(f"`{verb[:20]}` is not a Toy Raid action. {HELP}")
    if len(args) != arity or not all(a.isdigit() and len(a) <= 2 for a in args):
        raise IllegalAction(f"`{verb}` takes {arity} number(s). {HELP}")
    return Action(verb, tuple(int(a) for a in args))
