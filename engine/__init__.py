"""Warhost's game rules: pure, deterministic Python (no Discord, no images, no I/O).

Every game lives in its own sub-package exposing ``GAME`` (a :class:`engine.core.Game`).
:data:`GAMES` is built by discovering those sub-packages, so adding a game touches
nothing here.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from engine.core import RESIGN, Event, Game, IllegalAction, Option, Outcome, public_events


def _discover() -> dict[str, Game[Any]]:
    games: dict[str, Game[Any]] = {}
    for module in pkgutil.iter_modules(__path__):
        if not module.ispkg:
            continue
        package = importlib.import_module(f"{__name__}.{module.name}")
        game = getattr(package, "GAME", None)
        if isinstance(game, Game):
            games[game.kind] = game
    return dict(sorted(games.items()))


#: Every game kind id mapped to its game object.
GAMES: dict[str, Game[Any]] = _discover()


def get_game(kind: str) -> Game[Any]:
    """The game for ``kind``; raises :class:`IllegalAction` if there is none."""
    try:
        return GAMES[kind]
    except KeyError:
        known = ", ".join(GAMES) or "none"
        raise IllegalAction(f"There is no game called {kind!r}. Games: {known}.") from None


__all__ = ["GAMES", "RESIGN", "Event", "Game", "IllegalAction", "Option", "Outcome",
           "get_game", "public_events"]
