"""The replay's frames: the board of a game at any version, drawn once.

A game's positions come from replaying its log through the engine
(:func:`db.replay.replay`, undos included), once per version of the game, off the event
loop. Each frame is the board of one version marking what that version's action did,
drawn by the same render pipeline as the channel's boards, at twice their size (sharp on
a phone, zoomed in); a frame is kept by (game, version, viewer), so each is drawn once,
however many pages ask for it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import engine
import render
from db.records import BY_UNDO, GameRecord, LogEntry
from db.replay import opening, replay
from engine import public_events

#: ``draw(kind, view, events, names) -> PNG bytes``: the bot passes its board workers.
Draw = Callable[[str, dict[str, Any], "list[dict[str, Any]] | None", "dict[str, str] | None"],
                Awaitable[bytes]]

T = TypeVar("T")

#: Frames kept, in bytes (about 60 KB each: some 1,000 frames).
FRAME_BYTES = 64 * 1024 * 1024
#: Games whose replayed positions are kept.
REPLAYS_KEPT = 16


async def draw_in_thread(kind: str, view: dict[str, Any], events: list[dict[str, Any]] | None,
                         names: dict[str, str] | None) -> bytes:
    """Draw a frame in a thread (a web process of its own has no board workers): twice
    the size of the channel's board, drawn at that size, so it stays sharp when a phone
    zooms into it (:func:`render.render_large`)."""
    return await asyncio.to_thread(render.render_large, kind, view, events, names)


@dataclass(frozen=True)
class Positions:
    """Every position of one game at one version: ``states[v]`` is the game after
    version ``v`` (0: the start), ``marks[v]`` the public events that version made."""

    version: int
    states: dict[int, Any]
    marks: dict[int, list[dict[str, Any]]]


def positions_of(record: GameRecord, entries: Sequence[LogEntry]) -> Positions:
    """Replay a game's log (pure; slow for a long game, so run it off the event loop)."""
    game = engine.get_game(record.kind)
    states: dict[int, Any] = {0: opening(game, record)}
    marks: dict[int, list[dict[str, Any]]] = {0: []}
    for step in replay(game, record, entries):
        states[step.entry.seq] = step.after
        marks[step.entry.seq] = ([] if step.entry.origin == BY_UNDO
                                 else public_events(list(step.entry.events)))
    return Positions(record.version, states, marks)


async def made_once(running: dict[Any, asyncio.Future[T]], key: Hashable,
                    make: Callable[[], Awaitable[T]]) -> T:
    """``make()`` for ``key``, once at a time: whoever asks for the same key while it
    runs waits for the same result (or failure) instead of making it again."""
    pending = running.get(key)
    if pending is not None:
        return await asyncio.shield(pending)
    future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    running[key] = future
    try:
        result = await make()
    except BaseException as exc:
        future.set_exception(exc)
        future.exception()              # retrieved: nobody else may be waiting
        raise
    finally:
        running.pop(key, None)
    future.set_result(result)
    return result


class Frames:
    """Frames by (game, version, viewer), and the positions they are drawn from."""

    def __init__(self, draw: Draw | None = None, max_bytes: int = FRAME_BYTES) -> None:
        self.draw: Draw = draw or draw_in_thread
        self.max_bytes = max_bytes
        self._frames: OrderedDict[Hashable, bytes] = OrderedDict()
        self._bytes = 0
        self._drawing: dict[Any, asyncio.Future[bytes]] = {}
        self._positions: OrderedDict[int, Positions] = OrderedDict()
        self._replaying: dict[Any, asyncio.Future[Positions]] = {}
        #: Frames actually drawn (not served from the cache), for tests and the bench.
        self.drawn = 0

    def cached(self, key: Hashable) -> bytes | None:
        png = self._frames.get(key)
        if png is not None:
            self._frames.move_to_end(key)
        return png

    async def positions(self, record: GameRecord, entries: Sequence[LogEntry]) -> Positions:
        """The game's positions at its current version (replayed once per version)."""
        kept = self._positions.get(record.id)
        if kept is not None and kept.version == record.version:
            self._positions.move_to_end(record.id)
            return kept

        async def replayed() -> Positions:
            found = await asyncio.to_thread(positions_of, record, list(entries))
            self._positions[record.id] = found
            while len(self._positions) > REPLAYS_KEPT:
                self._positions.popitem(last=False)
            return found

        return await made_once(self._replaying, (record.id, record.version), replayed)

    async def frame(self, record: GameRecord, positions: Positions, version: int,
                    viewer: str | None, names: dict[str, str]) -> bytes:
        """The board at ``version`` as ``viewer`` (None: anyone) may see it."""
        key = self.key(record, version, viewer, names)
        png = self.cached(key)
        if png is not None:
            return png

        async def drawn() -> bytes:
            view = engine.get_game(record.kind).view(positions.states[version], viewer)
            png = await self.draw(record.kind, view, positions.marks[version] or None, names)
            self.drawn += 1
            self._frames[key] = png
            self._bytes += len(png)
            while self._bytes > self.max_bytes and len(self._frames) > 1:
                _, dropped = self._frames.popitem(last=False)
                self._bytes -= len(dropped)
            return png

        return await made_once(self._drawing, key, drawn)

    @staticmethod
    def key(record: GameRecord, version: int, viewer: str | None,
            names: dict[str, str]) -> Hashable:
        """What a frame depends on: the game, the version, whose view, the names."""
        return (record.id, record.public_id, version, viewer, tuple(sorted(names.items())))
