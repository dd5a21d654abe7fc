"""Liège's action notation (docs/games/liege-interface.md): player text into a typed action.

    general e2          place (setup) or step your General
    skip                skip the current phase
    buy rifle c3        buy a piece (rifle, mg, mortar, av, trench) and place it
    grenade c3 d5       buy a Grenade and throw it from your Rifle on c3 at d5
    missile c3 e7       buy a Missile and fire it from your Mortar on c3 at e7
    gas c3 e7           the same with Mustard Gas
    shift c3 c4         Move Resources: step a piece one square
    turn c3 e           Move Resources: turn a Machine Gun or Mortar to face n/e/s/w
    done                close Move Resources
    attack c3 d5        your piece on c3 attacks the enemy on d5
    casualty d5         the loser of a fight picks the piece that takes the loss
    end                 end your turn
    resign              leave the game
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.core import IllegalAction
from engine.liege.board import FACINGS
from engine.liege.pieces import PIECES, WEAPONS
from engine.verbs import Arg, Verb

_SQUARE = re.compile(r"[a-j](10|[1-9])")
ALIASES = {"machinegun": "mg", "machine-gun": "mg", "armored": "av", "vehicle": "av",
           "armoredvehicle": "av", "trenches": "trench", "rifles": "rifle"}
HELP = ("Actions: `general e2`, `skip`, `buy rifle c3` (rifle, mg, mortar, av, trench), "
        "`grenade c3 d5`, `missile c3 e7`, `gas c3 e7`, `shift c3 c4`, `turn c3 e`, `done`, "
        "`attack c3 d5`, `casualty d5`, `end`, `resign`.")

#: Words a player may type for a piece, weapon or facing (and the shop's names).
WORDS = {**ALIASES, "machine gun": "mg", "machine_gun": "mg", "armored vehicle": "av",
         "armoured vehicle": "av", "armored_vehicle": "av", "tank": "av", "rifleman": "rifle",
         "mustard gas": "gas", "mustard": "gas", "north": "n", "east": "e", "south": "s",
         "west": "w", "grenades": "grenade", "missiles": "missile", "mortars": "mortar"}
_SQ = "square"


def _weapon(name: str, user: str, what: str) -> Verb:
    return Verb(name, f"Buy {what} and fire it from one of your {user}s",
                f"{name} {{from}} {{target}}",
                (Arg("from", f"Your {user}'s square", _SQ, longest=20),
                 Arg("target", "The target square" + (" (at most 2 away)"
                                                      if name == "grenade" else ""), _SQ,
                     longest=20)))


#: The friendly commands (``/liege buy piece: square:``), built by the platform.
VERBS: tuple[Verb, ...] = (
    Verb("general", "Place your General (first action) or move it one square",
         "general {square}", (Arg("square", "Where your General goes, e.g. e1", _SQ, longest=20),)),
    Verb("buy", "Buy a piece and place it (see /liege shop for prices)",
         "buy {piece} {square}",
         (Arg("piece", "What to buy (autocomplete shows your prices)", "piece", longest=40,
              aliases=WORDS),
          Arg("square", "Where to place it", _SQ, longest=20))),
    _weapon("grenade", "Rifle", "a Grenade"),
    _weapon("missile", "Mortar", "a Missile"),
    _weapon("gas", "Mortar", "Mustard Gas"),
    Verb("shift", "Move resources: step one of your pieces one square", "shift {from} {to}",
         (Arg("from", "The piece's square", _SQ, longest=20),
          Arg("to", "A neighbouring empty square", _SQ, longest=20))),
    Verb("turn", "Move resources: turn a Machine Gun or Mortar 90 degrees",
         "turn {square} {facing}",
         (Arg("square", "The Machine Gun's or Mortar's square", _SQ, longest=20),
          Arg("facing", "The way it will face", aliases=WORDS, choices=(
              ("north (n)", "n"), ("east (e)", "e"), ("south (s)", "s"), ("west (w)", "w"))))),
    Verb("done", "Close Move Resources and go to fighting"),
    Verb("skip", "Skip this phase (General step -> deployment -> fighting)"),
    Verb("attack", "Attack an enemy piece in range", "attack {from} {target}",
         (Arg("from", "Your attacking piece's square", _SQ, longest=20),
          Arg("target", "The enemy's square", _SQ, longest=20))),
    Verb("casualty", "After losing a fight: the piece of yours that takes the loss",
         "casualty {square}", (Arg("square", "One of your pieces that fought", _SQ, longest=20),)),
    Verb("end", "End your turn (the forward bonus is paid)"),
)


@dataclass(frozen=True)
class Action:
    verb: str
    squares: tuple[str, ...] = ()
    what: str = ""  # piece type for buy, facing for turn


def square(word: str, size: int) -> str:
    if _SQUARE.fullmatch(word) and "abcdefghij".index(word[0]) < size \
            and int(word[1:]) <= size:
        return word
    last = "abcdefghij"[size - 1]
    raise IllegalAction(f"`{word[:12]}` is not a square: use a file a-{last} and a rank "
                        f"1-{size}, like `c3`.")


def parse(text: str, size: int) -> Action:
    """Parse normalised (lower-case, single-spaced) text."""
    words = text.split(" ")
    verb, args = words[0], words[1:]
    if verb in ("general", "casualty"):
        if len(args) != 1:
            raise IllegalAction(f"Write `{verb} <square>`, e.g. `{verb} e2`.")
        return Action(verb, (square(args[0], size),))
    if verb == "buy":
        if len(args) != 2:
            raise IllegalAction("Write `buy <piece> <square>`, e.g. `buy rifle c3` "
                                "(rifle, mg, mortar, av, trench).")
        what = ALIASES.get(args[0], args[0])
        if what in WEAPONS:
            raise IllegalAction(f"A {what} is used as it is bought: write `{what} <from> <at>`, "
                                f"e.g. `{what} c3 e5`.")
        if what not in PIECES:
            raise IllegalAction(f"`{args[0][:12]}` is not something you can buy: rifle, mg, "
                                "mortar, av or trench.")
        return Action("buy", (square(args[1], size),), what)
    if verb in (*WEAPONS, "shift", "attack"):
        if len(args) != 2:
            example = {"shift": "shift c3 c4", "attack": "attack c3 d4"}.get(verb,
                                                                           f"{verb} c3 e5")
            raise IllegalAction(f"Write `{verb} <from> <to>`, e.g. `{example}`.")
        return Action(verb, (square(args[0], size), square(args[1], size)))
    if verb == "turn":
        if len(args) != 2 or args[1] not in FACINGS:
            raise IllegalAction("Write `turn <square> <n|e|s|w>`, e.g. `turn c3 e`.")
        return Action("turn", (square(args[0], size),), args[1])
    if verb in ("skip", "done", "end", "resign") and not args:
        return Action(verb)
    if verb == "end" and args == ["turn"]:
        return Action("end")
    raise IllegalAction(f"I don't know that action. {HELP}")
