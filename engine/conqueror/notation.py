"""Conqueror's action notation: parsing player text into a typed action.

    move b2 c3 3     move 3 soldiers from b2 to c3 (count defaults to all of them)
    recruit 2        buy 2 soldiers onto your base (count defaults to 1)
    fort c3          build a fort on c3
    raze c3          destroy your own fort on c3
    convert lumber   2 lumber -> 1 gold
    convert ap       1 AP -> 2 gold
    end              end your turn
    resign           leave the game
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.conqueror.board import is_square
from engine.core import IllegalAction
from engine.verbs import NUMBER, Arg, Verb

_COUNT = re.compile(r"[0-9]{1,3}")
HELP = ("Actions: `move b2 c3 3`, `recruit 2`, `fort c3`, `raze c3`, `convert lumber`, "
        "`convert ap`, `end`, `resign`.")

_SQUARE = "square"
#: The friendly commands (``/conqueror move from: to: count:``), built by the platform.
VERBS: tuple[Verb, ...] = (
    Verb("move", "Move soldiers to a neighbouring square (1 AP)", "move {from} {to} {count}",
         (Arg("from", "Square the soldiers leave, e.g. a1", _SQUARE, longest=20),
          Arg("to", "Neighbouring square, e.g. b2", _SQUARE, longest=20),
          Arg("count", "How many soldiers (1-6)", NUMBER, low=1, high=6))),
    Verb("recruit", "Buy soldiers onto your base (1 gold each)", "recruit {count}",
         (Arg("count", "How many soldiers (1-6)", NUMBER, low=1, high=6),)),
    Verb("fort", "Build a fort (2 lumber, 2 gold, 2 AP)", "fort {square}",
         (Arg("square", "A square holding 1-4 of your soldiers", _SQUARE, longest=20),)),
    Verb("raze", "Destroy one of your own forts (free)", "raze {square}",
         (Arg("square", "The fort's square", _SQUARE, longest=20),)),
    Verb("convert", "2 lumber -> 1 gold, or 1 AP -> 2 gold", "convert {what}",
         (Arg("what", "What to turn into gold",
              choices=(("2 lumber -> 1 gold", "lumber"), ("1 AP -> 2 gold", "ap"))),)),
    Verb("end", "End your turn (AP left over is kept)"),
)


@dataclass(frozen=True)
class Action:
    verb: str
    squares: tuple[str, ...] = ()
    count: int | None = None
    what: str = ""


def _square(word: str) -> str:
    if not is_square(word):
        raise IllegalAction(f"`{word[:12]}` is not a square: use a file a-f and a rank 1-6, "
                            "like `c3`.")
    return word


def _count(word: str) -> int:
    if not _COUNT.fullmatch(word):
        raise IllegalAction(f"`{word[:12]}` is not a number of soldiers (1-6).")
    return int(word)


def parse(text: str) -> Action:
    """Parse normalised (lower-case, single-spaced) text."""
    words = text.split(" ")
    verb, args = words[0], words[1:]
    if verb == "move":
        if len(args) not in (2, 3):
            raise IllegalAction("Write a move as `move <from> <to> [count]`, e.g. `move a1 b2 1`.")
        count = _count(args[2]) if len(args) == 3 else None
        return Action("move", (_square(args[0]), _square(args[1])), count)
    if verb == "recruit":
        if len(args) > 1:
            raise IllegalAction("Write `recruit <count>`, e.g. `recruit 2`.")
        return Action("recruit", count=_count(args[0]) if args else 1)
    if verb in ("fort", "raze"):
        if len(args) != 1:
            raise IllegalAction(f"Write `{verb} <square>`, e.g. `{verb} c3`.")
        return Action(verb, (_square(args[0]),))
    if verb == "convert":
        if len(args) != 1 or args[0] not in ("lumber", "ap"):
            raise IllegalAction("Write `convert lumber` (2 lumber -> 1 gold) or `convert ap` "
                                "(1 AP -> 2 gold).")
        return Action("convert", what=args[0])
    if verb == "end" and args in ([], ["turn"]):
        return Action("end")
    if verb == "resign" and not args:
        return Action("resign")
    raise IllegalAction(f"I don't know that action. {HELP}")
