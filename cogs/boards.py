"""Drawing boards without holding up moves: in worker processes, each board once.

A board takes milliseconds of pure CPU; drawn on the event loop it would stall every
other game, and in a thread it would still share one core (Pillow holds the GIL for much
of it). :class:`Boards` sends each drawing to a pool of worker processes (one per core by
default, ``RENDER_WORKERS`` to change; 0 draws in a thread instead) and keeps the PNGs
it made by key, so the board of a game at a version (a turn digest's, then everyone's
``/game board``) is drawn at most once, even when asked for twice at the same moment.

Each worker draws a few boards of every game before it takes work (:func:`warm_up`: the
fonts, static layers, sprites and words a board needs, drawn once), so a player's first
board costs about what any other does; drawing in a thread, the bot warms up in the
background instead.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import discord

import render
from cogs.workers import exit_with

log = logging.getLogger(__name__)

#: How many finished PNGs are kept (about 60 KB each).
CACHE_SIZE = 128


def warm_positions(kind: str) -> list[dict[str, Any]]:
    """Views to warm ``kind``'s renderer with: a fresh game at every table size (its
    layout, backdrop and seat colours) and the same 15 and 45 random moves in (pieces,
    marks and the log's words), built by the engine alone (no database). Empty for a kind
    the engine does not know (a test's toy renderer)."""
    import random

    import engine

    game = engine.GAMES.get(kind)
    if game is None:
        return []
    views = []
    for count in range(game.min_players, game.max_players + 1):
        players = [f"p{i}" for i in range(1, count + 1)]
        state = game.new_game(players, 1)
        views.append(game.view(state, None))
        rng = random.Random(count)
        for moves in (15, 30):
            state = play_randomly(game, state, rng, moves)
            views.append(game.view(state, None))
    return views


def play_randomly(game: Any, state: Any, rng: Any, moves: int) -> Any:
    """``state`` after up to ``moves`` random legal actions (``rng.choice``), each by
    the first player to act; fewer if the game ends."""
    for _ in range(moves):
        to_act = game.to_act(state)
        actions = game.legal_actions(state, to_act[0]) if to_act else []
        if not actions:
            break
        state, _ = game.apply(state, to_act[0], rng.choice(actions))
    return state


def warm_up(kinds: Sequence[str] | None = None, pause: float = 0.0) -> dict[str, int]:
    """Draw a few boards of every game (see :func:`warm_positions`) so that the first board
    a player sees costs about what any other does: the fonts loaded, each game's static
    layers built, its counters, icons and words drawn once and cached. Returns how many
    boards each kind drew. A board that fails to draw is logged and skipped: warming up
    never stops a worker. ``pause`` seconds pass between boards (the bot's own thread
    leaves the event loop room to answer)."""
    drawn: dict[str, int] = {}
    if kinds is None:  # the games' own renderers (not one a test registered for a while)
        kinds = [k for k in render.kinds() if k not in render._REGISTERED]
    for kind in kinds:
        drawn[kind] = 0
        try:
            views = warm_positions(kind)
            names = {f"p{i}": f"Player {i}" for i in range(1, 9)}
            for view in views:
                render.renderer(kind)(view, None, names)
                drawn[kind] += 1
                if pause:
                    time.sleep(pause)
        except Exception:  # a renderer's bug must not stop the worker: it shows in play
            log.exception("Warming up the %s renderer failed", kind)
    return drawn


def _worker_start(bot_pid: int, warm: bool = True) -> None:
    """A worker's first act: import every renderer (so no move waits for an import), watch
    the bot, leaving when it is gone, even killed outright (the pool's own shutdown
    never runs then, and a worker would wait for work forever), and draw a few boards of
    every game (:func:`warm_up`) before it takes any work."""
    for kind in render.kinds():
        render.renderer(kind)
    threading.Thread(target=exit_with, args=(bot_pid,), daemon=True).start()
    if warm:
        warm_up()



def board_key(game_id: int, first: int, last: int,
              names: Mapping[str, str] | None) -> Hashable:
    """What a game's public board depends on, besides the game: the version it shows
    (``last``), the actions it marks (``first``..``last``) and the players' names."""
    return (game_id, first, last, tuple(sorted((names or {}).items())))


class Boards:
    """Draws board PNGs in worker processes, once per key (see the module docstring)."""

    def __init__(self, workers: int | None = None, cache_size: int = CACHE_SIZE, *,
                 warm: bool = True) -> None:
        self.workers = max(0, (os.cpu_count() or 1) if workers is None else workers)
        self.cache_size = cache_size
        #: Draw a few boards of every game before serving (BOARD_WARMUP; see warm_up).
        self.warm = warm
        self._pool: Executor | None = None
        self._done: OrderedDict[Hashable, bytes] = OrderedDict()
        self._drawing: dict[Hashable, asyncio.Future[bytes]] = {}
        self.drawn = 0  # boards actually drawn (not served from the cache)

    def _executor(self) -> Executor | None:
        if self.workers == 0:
            return None
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["render", "PIL.Image"])
            self._pool = ProcessPoolExecutor(self.workers, mp_context=context,
                                             initializer=_worker_start,
                                             initargs=(os.getpid(), self.warm))
        return self._pool

    def start(self) -> None:
        """Start the workers now (they warm up while the bot connects). Drawing in this
        process (``RENDER_WORKERS=0``, small installs) nothing is warmed up: a thread
        drawing every game's boards would hold the bot's own interpreter for seconds at
        each start (a SIGTERM then took over 20 s on a busy machine)."""
        pool = self._executor()
        if pool is not None:
            for _ in range(self.workers):
                pool.submit(len, ())

    async def png(self, kind: str, view: dict[str, Any],
                  events: Sequence[dict[str, Any]] | None = None,
                  names: dict[str, str] | None = None, *, key: Hashable | None = None) -> bytes:
        """The PNG of ``view`` marking ``events``. With a ``key`` (see :func:`board_key`)
        it is drawn at most once: later and simultaneous asks get the same bytes."""
        if key is None or self.cache_size <= 0:
            return await self._draw(kind, view, events, names)
        full_key = (kind, key)
        if full_key in self._done:
            self._done.move_to_end(full_key)
            return self._done[full_key]
        pending = self._drawing.get(full_key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._drawing[full_key] = future
        try:
            png = await self._draw(kind, view, events, names)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: nobody else may be waiting
            raise
        finally:
            self._drawing.pop(full_key, None)
        future.set_result(png)
        self._done[full_key] = png
        while len(self._done) > self.cache_size:
            self._done.popitem(last=False)
        return png

    async def file(self, kind: str, view: dict[str, Any],
                   events: Sequence[dict[str, Any]] | None, names: dict[str, str] | None,
                   filename: str, *, key: Hashable | None = None) -> discord.File:
        """:meth:`png` as an attachment."""
        return discord.File(io.BytesIO(await self.png(kind, view, events, names, key=key)),
                            filename=filename)

    async def _draw(self, kind: str, view: dict[str, Any],
                    events: Sequence[dict[str, Any]] | None,
                    names: dict[str, str] | None) -> bytes:
        self.drawn += 1
        return await self.run(render.render, kind, view, list(events) if events else None,
                              names)

    async def recap(self, kind: str, frames: Sequence[Any], names: dict[str, str] | None,
                    title: str) -> bytes:
        """The animated recap of a finished game (see :mod:`render.recap`)."""
        from render.recap import recap_animation

        return await self.run(functools.partial(recap_animation, title=title), kind,
                              list(frames), names)

    async def run(self, fn: Callable[..., bytes], *args: Any) -> bytes:
        """``fn(*args)`` in a worker (picklable function and arguments), else a thread."""
        pool = self._executor()
        if pool is not None:
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(pool, fn, *args)
            except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh
                log.warning("A board worker died; restarting the pool")
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
        return await asyncio.to_thread(fn, *args)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)


#: For clients without their own (tests' fakes): draws in a thread and keeps nothing (such
#: clients may come and go with their own databases, where game ids repeat).
_IN_THREAD = Boards(workers=0, cache_size=0)


def boards_of(client: Any) -> Boards:
    boards = getattr(client, "boards", None)
    return boards if isinstance(boards, Boards) else _IN_THREAD
