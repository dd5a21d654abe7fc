"""Live pages: who is watching which game, and telling them when it changes.

Each open page holds one server-sent event stream (no polling in the page). One task per
web process looks at the versions of the games being watched, a single indexed query
every :data:`LOOK_EVERY` seconds while anyone watches and none otherwise, so a move
made by any bot process reaches every open page within about that long. The bot, when
it serves the pages itself, also pokes the watcher the moment it has delivered a turn,
so those pages hear of it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable

log = logging.getLogger("warhost.web")

#: How often the watched games are looked at (seconds).
LOOK_EVERY = 0.25
#: Most events waiting for one slow page; past that it only needs the newest.
QUEUE_LIMIT = 8

Versions = Callable[[Iterable[int]], Awaitable[dict[int, tuple[int, str]]]]


class Watcher:
    """Subscriptions by game id, and the task that tells them of new versions."""

    def __init__(self, versions: Versions, every: float = LOOK_EVERY) -> None:
        self.versions = versions
        self.every = every
        self._subscribers: dict[int, set[asyncio.Queue[tuple[int, str]]]] = {}
        self._seen: dict[int, tuple[int, str]] = {}
        self._task: asyncio.Task[None] | None = None
        self._poke = asyncio.Event()
        #: Looks taken at the database, for tests.
        self.looks = 0

    @property
    def watched(self) -> int:
        return sum(len(s) for s in self._subscribers.values())

    def subscribe(self, game_id: int, seen: tuple[int, str]) -> asyncio.Queue[tuple[int, str]]:
        """A queue that gets ``(version, status)`` each time the game changes."""
        queue: asyncio.Queue[tuple[int, str]] = asyncio.Queue(QUEUE_LIMIT)
        self._subscribers.setdefault(game_id, set()).add(queue)
        self._seen.setdefault(game_id, seen)
        self._poke.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(),
                                                                name="warhost-web-watch")
        return queue

    def unsubscribe(self, game_id: int, queue: asyncio.Queue[tuple[int, str]]) -> None:
        queues = self._subscribers.get(game_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._subscribers[game_id]
                self._seen.pop(game_id, None)

    def poke(self) -> None:
        """Look now (the bot calls this when it has delivered a turn)."""
        self._poke.set()

    async def _run(self) -> None:
        while self._subscribers:
            self._poke.clear()
            try:
                await self.look()
            except Exception:                  # the database is away a moment: go on
                log.exception("Looking for new moves failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poke.wait(), self.every)

    async def look(self) -> None:
        """Tell every watcher of a game that changed since the last look."""
        ids = list(self._subscribers)
        if not ids:
            return
        self.looks += 1
        now = await self.versions(ids)
        for game_id in ids:
            current = now.get(game_id)
            if current is None or current == self._seen.get(game_id):
                continue
            self._seen[game_id] = current
            for queue in list(self._subscribers.get(game_id, ())):
                if queue.full():
                    with contextlib.suppress(asyncio.QueueEmpty):
                        queue.get_nowait()
                queue.put_nowait(current)

    async def close(self) -> None:
        task, self._task = self._task, None
        self._subscribers.clear()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
