"""Toy Raid: a small sixth game that lives in the tests, to prove that a game touches
nothing shared. The generic suites register it at run time and run over it like over
the five real games: the contract, verbs and autocomplete, time-outs and undo, move
generation, the phone check of its image, the store's round trip and a whole game
through the loopback Discord.

    with toy_game.registered():     # engine.register + render.register, undone after
        engine.GAMES["toy"]         # the game; render.render("toy", view) draws it

Its rules are in :mod:`tests.toy_game.rules`, its notation and verbs in
:mod:`.notation`, its position format in :mod:`.state`, its narration in
:mod:`.narration` and its board in :mod:`.board`. It has no ``ai.py`` (the computer
player searches it with no heuristics), no cog, no palette file and no rules doc.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import engine
import render
from engine.core import Game
from tests.toy_game.board import render as render_board
from tests.toy_game.rules import Toy

KIND = "toy"
GAME = Toy()


@contextmanager
def registered() -> Iterator[Game[Any]]:
    """The toy game in ``engine.GAMES`` and its renderer in ``render``, for the block's
    duration, in this process only (worker processes the bot starts do not have it)."""
    engine.register(GAME)
    render.register(KIND, render_board)
    try:
        yield GAME
    finally:
        render.unregister(KIND)
        engine.unregister(KIND)


def every_game() -> dict[str, Game[Any]]:
    """What the generic suites run over, by kind: every discovered game, then the toy
    (whether it is registered yet or not: a suite's parameters are made before)."""
    return {**{k: engine.GAMES[k] for k in sorted(engine.GAMES) if k != KIND}, KIND: GAME}


def kinds() -> list[str]:
    """The kinds of :func:`every_game`, in its order."""
    return list(every_game())


__all__ = ["GAME", "KIND", "Toy", "every_game", "kinds", "registered", "render_board"]
