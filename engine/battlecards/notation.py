"""Battlecards' action notation (docs/games/battlecards-interface.md).

Cards in a hand are named by slot number and kept cards by kept slot, so no action text
ever names a private card.
"""

from __future__ import annotations

import re

from engine.battlecards.cards import FORCES
from engine.core import IllegalAction
from engine.notation import Action
from engine.verbs import Arg, Verb

HELP = ("Actions: `draw`, `emergency`, `deploy 2`, `done`, `scout ground`, `attack`, "
        "`decline`, `fire g1 a2`, `support s1 g1`, `play 1 g1`, `pass`, `withdraw g1`, "
        "`stay`, `autofire on|off`.")
_REF = re.compile(r"[gas][1-9][0-9]?")
_SLOT = re.compile(r"[1-9][0-9]?")

_FORCE_NAMES = {"ground": "Ground", "air": "Air", "sea": "Sea"}
_ON_OFF = {"true": "on", "yes": "on", "1": "on", "false": "off", "no": "off", "0": "off"}
#: The friendly commands (``/battlecards fire unit: target:``), built by the platform.
#: Argument kinds: ``hand`` and ``kept`` slots (labelled with their cards only in their
#: owner's autocomplete), ``unit`` (the caller's units) and ``enemy`` (the opponent's).
VERBS: tuple[Verb, ...] = (
    Verb("draw", "Draw the top conflict card and resolve it"),
    Verb("emergency", "Emergency deployment: your whole reserve hand onto your stacks"),
    Verb("deploy", "Deploy a card from your reserve hand onto its stack", "deploy {slot}",
         (Arg("slot", "Your hand slot (autocomplete shows your cards, only to you)",
              "hand"),)),
    Verb("done", "Stop deploying"),
    Verb("scout", "Look at one of the enemy's stacks (only you see it)", "scout {stack}",
         (Arg("stack", "Which enemy stack", choices=tuple(
             (name, force) for force, name in _FORCE_NAMES.items())),)),
    Verb("attack", "Fight the battle you are aggressor in"),
    Verb("decline", "Do not fight it: the card is discarded"),
    Verb("fire", "Fire one of your units at an enemy unit (auto-fire off)",
         "fire {unit} {target}",
         (Arg("unit", "Your unit, e.g. g1", "unit"),
          Arg("target", "The enemy unit, e.g. a2", "enemy"))),
    Verb("support", "Add a support unit's bonus to another of your units this round",
         "support {supporter} {unit}",
         (Arg("supporter", "Your supporting unit", "unit"),
          Arg("unit", "The unit it supports", "unit"))),
    Verb("play", "Play a kept card on one of your units for the rest of the battle",
         "play {kept} {unit}",
         (Arg("kept", "Your kept card (autocomplete shows them, only to you)", "kept"),
          Arg("unit", "Your unit in the battle", "unit"))),
    Verb("pass", "Play no kept card or support now (or: no emergency deployment)"),
    Verb("withdraw", "Pull one of your units out of the battle", "withdraw {unit}",
         (Arg("unit", "Your unit, e.g. g1", "unit"),)),
    Verb("stay", "End your withdrawals"),
    Verb("autofire", "Let the engine fire your units (on) or fire them yourself (off)",
         "autofire {setting}",
         (Arg("setting", "on or off", choices=(("on", "on"), ("off", "off")),
              aliases=_ON_OFF),)),
)


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
