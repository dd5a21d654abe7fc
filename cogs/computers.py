"""Computer players at the table: who moves for a computer seat, and ``/game hint``'s brain.

A seat the computer plays (a computer's own ``cpu-N`` seat, or a human's taken over when
their clock ran out; see :mod:`db.computers`) is due the moment it must act: the move
that makes it due sets the game's ``wake_at`` to now, and the scheduler's look at the
game (:meth:`db.hosting.Hosting.wake`) hands the seat here. :class:`ComputerPlayers`
then searches in a worker process (:func:`engine.search.choose`, the level's iteration
budget, with a hard time limit: a search that overstays it has its worker killed and the
game's own heuristic move is played instead) and plays the move through the one move path,
``Store.apply_action(by_computer=True)``, guarded by the version it searched, so a
human who moved meanwhile wins and the computer thinks again.

Nothing here is state: a restart finds the computer's decision still due (``wake_at``
in the database) and searches it again. A game only computers are playing is stopped by
the store (:data:`db.computers.MAX_COMPUTER_STREAK`, and a game whose last human
resigned is closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import discord

import engine
from cogs.outbox import announcer_of, deliver
from cogs.workers import exit_with, stop_task
from db import Store, StoreClosed, StoreError
from db import computers as cpu
from db.records import ACTIVE, GameRecord
from engine.core import IllegalAction
from engine.search import LEVELS, Choice, choose, heuristic_action

log = logging.getLogger("warhost.computers")

#: Seconds a worker may overstay the level's own time limit before it is killed (a
#: fresh worker's start is in here too).
GRACE = 10.0
#: The level a hint searches at, and its time limit (the interaction is deferred, so
#: Discord's 3 seconds do not apply; its token lasts 15 minutes).
HINT_LEVEL = "medium"
HINT_SECONDS = 6.0
#: Computer moves one run makes before it hands the game back to the scheduler (which
#: looks again at once): a bound on any one task, whatever the game does.
MOVES_PER_RUN = 200
#: A short breath between two computer moves in one game, so a channel reads them in
#: order and other games get the worker too.
PACE = 0.05


def think(kind: str, position: str, player: str, level: str, seed: int,
          seconds: float | None = None) -> Choice:
    """The search, as a worker process runs it: from the stored position text."""
    game = engine.get_game(kind)
    state = game.load(position)
    return choose(game, state, player, level=level, seed=seed, seconds=seconds)


def _worker_start(bot_pid: int) -> None:
    import engine.search  # noqa: F401  (warm: the first search should not wait on imports)

    threading.Thread(target=exit_with, args=(bot_pid,), daemon=True).start()


def search_seed(record: GameRecord, player: str) -> int:
    """The seed of a computer's search: fixed by the game, its version and the seat, so a
    decision searched again after a restart comes out the same (at the same budget)."""
    return (record.seed * 1_000_003 + record.version * 7919
            + zlib.crc32(player.encode())) & ((1 << 63) - 1)


class ComputerPlayers:
    """Plays every computer seat of the games this process hosts (``bot.computers``)."""

    def __init__(self, client: discord.Client, store: Store, *, workers: int = 1,
                 pace: float = PACE) -> None:
        self.client = client
        self.store = store
        #: Worker processes (0: search in a thread, for tests; no hard kill then).
        self.workers = max(0, workers)
        self.pace = pace
        self._pool: ProcessPoolExecutor | None = None
        #: What a worker runs (a picklable module-level function; tests swap it).
        self.thinker: Callable[..., Choice] = think
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.moves = 0          # computer moves made (for tests and logs)
        self.fallbacks = 0      # searches that overstayed and were replaced

    # -- the worker ------------------------------------------------------------------

    def _executor(self) -> ProcessPoolExecutor | None:
        if self.workers == 0:
            return None
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["engine.search"])
            self._pool = ProcessPoolExecutor(self.workers, mp_context=context,
                                             initializer=_worker_start,
                                             initargs=(os.getpid(),))
        return self._pool

    def _kill_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list(getattr(pool, "_processes", {}).values()):
            with contextlib.suppress(Exception):
                process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    async def search(self, record: GameRecord, player: str, level: str, *,
                     seconds: float | None = None) -> Choice:
        """Search ``player``'s decision in ``record``'s position, within a hard limit."""
        assert record.state is not None
        limit = LEVELS[level].seconds if seconds is None else seconds
        args = (record.kind, record.state, player, level, search_seed(record, player),
                limit)
        pool = self._executor()
        if pool is None:
            return await asyncio.to_thread(self.thinker, *args)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(pool, self.thinker, *args)
        try:
            return await asyncio.wait_for(future, limit + GRACE)
        except TimeoutError:
            log.warning("Game %s: the search for %s overstayed %.0f s; its worker is "
                        "killed", record.id, player, limit + GRACE)
        except BrokenProcessPool:
            log.warning("Game %s: a search worker died; starting afresh", record.id)
        self._kill_pool()
        self.fallbacks += 1
        game = engine.get_game(record.kind)
        state = self.store.load_state(record)
        action = await asyncio.to_thread(heuristic_action, game, state, player)
        return Choice(action, reason="The search ran out of time; this is the game's "
                                     "rule-of-thumb move.")

    # -- playing -----------------------------------------------------------------------

    def request(self, game_id: int) -> None:
        """Play the computer seats of ``game_id`` that must act (once per game at a time)."""
        task = self._tasks.get(game_id)
        if task is not None and not task.done():
            return
        self._tasks[game_id] = asyncio.get_running_loop().create_task(
            self._play(game_id), name=f"warhost-computer-{game_id}")

    async def idle(self) -> None:
        """Wait until no computer is thinking (tests)."""
        while any(not t.done() for t in self._tasks.values()):
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _play(self, game_id: int) -> None:
        try:
            for _ in range(MOVES_PER_RUN):
                if not await self.play_one(game_id):
                    return
                if self.pace:
                    await asyncio.sleep(self.pace)
        except asyncio.CancelledError:
            raise
        except StoreClosed:
            return
        except Exception:
            log.exception("Game %s: a computer move failed; the scheduler will retry",
                          game_id)
        finally:
            if self._tasks.get(game_id) is asyncio.current_task():
                del self._tasks[game_id]

    async def play_one(self, game_id: int) -> bool:
        """One computer move in ``game_id`` if one is due; whether it made one."""
        record = await self.store.get(game_id)
        if record.status != ACTIVE or record.state is None:
            return False
        played_by = cpu.computers(record.timing)
        game = engine.get_game(record.kind)
        state = self.store.load_state(record)
        seats = [p for p in game.to_act(state) if p in played_by]
        if not seats:
            return False
        seat = seats[0]
        choice = await self.search(record, seat, played_by[seat])
        action = choice.action
        announcer = announcer_of(self.client)
        passes = announcer.passes(game_id) if announcer is not None else 0
        for attempt in range(2):
            try:
                move = await self.store.apply_action(
                    game_id, seat, action, expect_version=record.version,
                    request_id=f"cpu:{game_id}:{record.version}:{seat}:{attempt}",
                    by_computer=True,
                    prefetch=self.store.outbox.delivery if announcer is not None else None)
                break
            except IllegalAction as exc:
                now = await self.store.get(game_id)
                if now.version != record.version or seat not in cpu.computers(now.timing):
                    # The game moved meanwhile (a human acted, or took the seat back).
                    log.info("Game %s: %s's move %r was overtaken (%s)", game_id, seat,
                             action, exc)
                    return True
                # The engine refused the search's own move: a bug, but never a stall.
                log.error("Game %s: the engine refused %s's move %r (%s)", game_id, seat,
                          action, exc)
                fallback = game.timeout_action(state, seat)
                if attempt or fallback is None:
                    return False
                action = fallback
            except StoreError:
                log.warning("Game %s: %s's move could not be saved; retrying soon",
                            game_id, seat, exc_info=True)
                await asyncio.sleep(1.0)
                return True
        self.moves += 1
        await deliver(self.client, game_id, read=move.delivery, read_after=passes)
        return True

    async def hint(self, record: GameRecord, player: str) -> Choice:
        """What the computer would play for ``player`` now (searched from what they may
        see: their own determinizations, never the hidden cards)."""
        return await self.search(record, player, HINT_LEVEL, seconds=HINT_SECONDS)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            await stop_task(task)
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)


def computers_of(client: Any) -> ComputerPlayers | None:
    computers = getattr(client, "computers", None)
    return computers if isinstance(computers, ComputerPlayers) else None
