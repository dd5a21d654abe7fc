"""Board images for Warhost games, drawn with Pillow from a game's JSON-able view.

``render(kind, view, events, names)`` imports ``render.<kind>`` and calls its
``render(view, events, names) -> bytes``; a new game adds a module and touches nothing
else. A renderer defined elsewhere (a test's toy game) joins at run time with
:func:`register` and leaves with :func:`unregister`; it exists in that process only.
Renderers never change the view and know nothing of Discord, asyncio, the
database or the engine's classes: the view dict is all they see.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from typing import Any

__all__ = ["kinds", "register", "render", "render_large", "renderer", "unregister"]

_KIND = re.compile(r"[a-z][a-z0-9_]*")
#: Modules in this package that are helpers, not game renderers.
_NOT_GAMES = frozenset({"chart", "common", "recap"})

Renderer = Callable[[dict[str, Any], "list[dict[str, Any]] | None", "dict[str, str] | None"],
                    bytes]


#: Renderers registered at run time (:func:`register`), by kind.
_REGISTERED: dict[str, Renderer] = {}


def register(kind: str, fn: Renderer) -> None:
    """Draw ``kind``'s boards with ``fn(view, events, names) -> bytes`` in this process
    (for a game that is not a module of this package). Refuses a kind that is not a
    lower-case identifier or that already has a renderer here."""
    if not isinstance(kind, str) or not _KIND.fullmatch(kind) or kind in _NOT_GAMES:
        raise ValueError(f"{kind!r} cannot be a game kind.")
    if not callable(fn):
        raise TypeError(f"the renderer of {kind!r} must be callable")
    if kind in kinds() and _REGISTERED.get(kind) is not fn:
        raise ValueError(f"There is already a renderer for {kind!r}.")
    _REGISTERED[kind] = fn


def unregister(kind: str) -> None:
    """Forget the renderer :func:`register` gave ``kind`` (nothing if it had none)."""
    _REGISTERED.pop(kind, None)


def kinds() -> list[str]:
    """The game kinds that have a renderer here (modules and registered ones)."""
    found = {m.name for m in pkgutil.iter_modules(__path__)
             if _KIND.fullmatch(m.name) and m.name not in _NOT_GAMES}
    return sorted(found | set(_REGISTERED))


def renderer(kind: str) -> Renderer:
    """The ``render`` function of ``kind``'s module (or the one registered for it);
    ValueError for an unknown kind."""
    if not isinstance(kind, str) or not _KIND.fullmatch(kind) or kind in _NOT_GAMES:
        raise ValueError(f"No renderer for game kind {kind!r}.")
    if kind in _REGISTERED:
        return _REGISTERED[kind]
    try:
        module = importlib.import_module(f"{__name__}.{kind}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{kind}":
            raise ValueError(f"No renderer for game kind {kind!r}.") from None
        raise
    fn = getattr(module, "render", None)
    if not callable(fn):
        raise ValueError(f"No renderer for game kind {kind!r}.")
    return fn  # type: ignore[no-any-return]


def render(kind: str, view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """A PNG image of ``view`` (a game's view dict), marking what ``events`` did.

    ``names`` maps player id to display name. Raises ValueError for an unknown kind.
    """
    return renderer(kind)(view, events, names)


def render_large(kind: str, view: dict[str, Any], events: list[dict[str, Any]] | None = None,
                 names: dict[str, str] | None = None, scale: int = 2) -> bytes:
    """:func:`render`, ``scale`` times larger and drawn at that size (every line and letter
    sharp, not an image blown up): a board to zoom into on a phone. Slower: for images
    drawn once and kept (the web pages' frames)."""
    from render.common import enlarged

    with enlarged(scale):
        return renderer(kind)(view, events, names)
