"""Telling a game's events as lines of text: the pieces every game's narration shares.

A game's narration module has ``narrate(events, names)``, which is
:func:`narrate_public` with the game's own one-event ``line``; :class:`engine.core.Game`
calls it (its ``narrator``). The small wording helpers here keep the games' lines alike:
``2 legions``, ``Gaul, Hispania and Italia``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.core import Event

#: How a line names a player: their id -> what the caller wants shown ("nobody" for none).
Namer = Callable[[object], str]


def narrate_public(events: Iterable[Event], names: dict[str, str],
                   line: Callable[[Event, Namer], str | None]) -> list[str]:
    """Apply a game's one-event ``line`` to every public event, naming players by ``names``."""
    def who(pid: object) -> str:
        return names.get(str(pid), str(pid)) if pid else "nobody"

    lines = []
    for event in events:
        if "private_to" not in event:
            text = line(event, who)
            if text:
                lines.append(text)
    return lines


def counted(n: object, unit: str) -> str:
    """``1 legion``, ``2 legions``: ``n`` and ``unit``, with an s unless ``n`` is 1."""
    return f"{n} {unit}{'' if n == 1 else 's'}"


def listing(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
