"""Battlecards' action notation (docs/games/battlecards-interface.md).

Cards in a hand are named by slot number and kept cards by kept slot, so no action text
ever names a private card.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.battlecards.cards import FORCES
from engine.core import IllegalAction

HELP = ("Actions: `draw`, `emergency`, `deploy 2`, `done`, `scout ground`, `attack`, "
        "`decline`, `fire g1 a2`, `support s1 g1`, `play 1 g1`, `pass`, `withdraw g1`, "
        "`stay`, `autofire on|off`.")
_REF = re.compile(r"[gas][1-9][0-9]?")
_SLOT = re.compile(r"[1-9][0-9]?")


@dataclass(frozen=True)
class Action:
    verb: str
    args: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join((self.verb, *self.args))


def _ref(word: str) -> str:
    if not _REF.fullmatch(word):
        raise IllegalAction(f"`{word[:12]}` is not a unit in the battle: write g1, a2, s1 "
                            "(Ground, Air, Sea and its number).")
    return word


def _slot(word: str, what: str) -> str:
    if not _SLOT.fullmatch(word):
        raise IllegalAction(f"`{word[:12]}` is not a {what} number: write 1, 2, 3 …")
    return word


def parse(text: str) -> Action:
    verb, *args = text.split(" ")
    n = len(args)
    if verb in ("draw", "emergency", "done", "attack", "decline", "pass", "stay",
                "resign") and n == 0:
        return Action(verb)
    if verb == "deploy":
        if n != 1:
            raise IllegalAction("Write `deploy <slot>`, e.g. `deploy 2` (the card in slot 2 "
                                "of your reserve hand).")
        return Action(verb, (_slot(args[0], "hand slot"),))
    if verb == "scout":
        if n != 1 or args[0] not in FORCES:
            raise IllegalAction("Write `scout ground`, `scout air` or `scout sea`.")
        return Action(verb, (args[0],))
    if verb in ("fire", "support"):
        if n != 2:
            whose, example = ("enemy", "g1 a2") if verb == "fire" else ("your", "s1 g1")
            raise IllegalAction(f"Write `{verb} <your unit> <{whose} unit>`, e.g. "
                                f"`{verb} {example}`.")
        return Action(verb, (_ref(args[0]), _ref(args[1])))
    if verb == "play":
        if n != 2:
            raise IllegalAction("Write `play <kept slot> <your unit>`, e.g. `play 1 g1`.")
        return Action(verb, (_slot(args[0], "kept card"), _ref(args[1])))
    if verb == "withdraw":
        if n != 1:
            raise IllegalAction("Write `withdraw <your unit>`, e.g. `withdraw g1`.")
        return Action(verb, (_ref(args[0]),))
    if verb == "autofire":
        if n != 1 or args[0] not in ("on", "off"):
            raise IllegalAction("Write `autofire on` or `autofire off`.")
        return Action(verb, (args[0],))
    raise IllegalAction(f"I don't know that action. {HELP}")
