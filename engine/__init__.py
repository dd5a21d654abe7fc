"""Warhost's game rules: pure, deterministic Python (no Discord, no images, no I/O).

Every game lives in its own sub-package exposing ``GAME`` (a :class:`engine.core.Game`).
:data:`GAMES` is built by discovering those sub-packages, so adding a game touches
nothing here. A game defined elsewhere (a test's toy game) joins at run time with
:func:`register` and leaves with :func:`unregister`; it exists in that process only.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Any

from engine.core import (
    RESIGN,
    Event,
    Game,
    GameFacts,
    IllegalAction,
    Option,
    Outcome,
    public_events,
)


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


_KIND = re.compile(r"[a-z][a-z0-9_]*")


def register(game: Game[Any]) -> Game[Any]:
    """Add ``game`` to :data:`GAMES` under its ``kind`` (for this process only); returns it.

    Refuses a kind that is not a lower-case identifier or that another game already has.
    The game's renderer is registered apart (``render.register``).
    """
    if not isinstance(game, Game):
        raise TypeError(f"{game!r} is not an engine.Game")
    kind = getattr(game, "kind", None)
    if not isinstance(kind, str) or not _KIND.fullmatch(kind):
        raise ValueError(f"game kind {kind!r} must be a lower-case identifier")
    known = GAMES.get(kind)
    if known is not None and known is not game:
        raise ValueError(f"there is already a game called {kind!r}")
    GAMES[kind] = game
    return game


def unregister(kind: str) -> None:
    """Take the game ``kind`` out of :data:`GAMES` (nothing if it is not there)."""
    GAMES.pop(kind, None)


def get_game(kind: str) -> Game[Any]:
    """The game for ``kind``; raises :class:`IllegalAction` if there is none."""
    try:
        return GAMES[kind]
    except KeyError:
        known = ", ".join(GAMES) or "none"
        raise IllegalAction(f"There is no game called {kind!r}. Games: {known}.") from None


__all__ = ["GAMES", "RESIGN", "Event", "Game", "GameFacts", "IllegalAction", "Option",
           "Outcome", "get_game", "public_events", "register", "unregister"]
