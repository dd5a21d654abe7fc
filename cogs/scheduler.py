"""The scheduler: what happens to a game when nobody acts.

Every running game carries ``wake_at`` in the database: the next instant something is
due in it (a clock running out, a reminder, a vacation ending). :class:`Scheduler`
asks the store for the games whose instant has come and has it do what is due
(:meth:`db.hosting.Hosting.wake`: the game's safe default for whoever is out of time,
through the same commit as a move; or the reminders), then delivers what that made due
through the announcer. All of its state is in the database, so after downtime the
first pass catches up, once: each reminder counts from the last one sent.

The clock is the store's (``store.now``), injectable; tests drive the scheduler with
:meth:`Scheduler.run_due` instead of waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import discord

from cogs.computers import computers_of
from cogs.outbox import deliver
from cogs.workers import Background
from db import Store, StoreClosed, StoreError

log = logging.getLogger("warhost.scheduler")

#: Longest real sleep between passes (a newly due game is also noticed through poke()).
PASS_EVERY = 30.0
#: The lease whose holder runs the passes when several processes share the database.
SCHEDULER_LEASE = "scheduler"
#: Passes over the due games in one go (games woken again at once, e.g. after a
#: time-out passed the turn to someone else who is also due).
MAX_ROUNDS = 20


class Scheduler:
    """Runs due games' time-outs and reminders; one per bot (``bot.scheduler``)."""

    def __init__(self, client: discord.Client, store: Store, *,
                 every: float = PASS_EVERY, lease: tuple[str, float] | None = None) -> None:
        self.client = client
        self.store = store
        self.every = every if lease is None else min(every, lease[1])
        #: (this process's name, seconds): with other bot processes on the database,
        #: a pass runs only in the process holding the "scheduler" lease.
        self.lease = lease
        self._poked = asyncio.Event()
        self._loop = Background("warhost-scheduler", self._run)

    def start(self) -> None:
        self._loop.start()

    async def close(self) -> None:
        await self._loop.stop()

    def poke(self) -> None:
        """Look at the due games now (something changed that may make one due)."""
        self._poked.set()

    async def run_due(self) -> int:
        """Do everything due now; returns how many times a game was woken."""
        woken = 0
        if self.lease is not None:
            holder, ttl = self.lease
            if not await self.store.leases.take(SCHEDULER_LEASE, holder, ttl):
                return 0            # another process runs the passes while it lives
        for _ in range(MAX_ROUNDS):
            due = await self.store.hosting.due_games()
            if not due:
                break
            for game_id in due:
                try:
                    result = await self.store.hosting.wake(game_id)
                except StoreClosed:
                    return woken        # shutting down
                except StoreError:
                    log.exception("Waking game %s failed; will retry", game_id)
                    continue
                except Exception:
                    log.exception("Waking game %s failed unexpectedly", game_id)
                    continue
                woken += 1
                if result.computers:
                    computers = computers_of(self.client)
                    if computers is not None:
                        computers.request(game_id)
                if result.timed_out:
                    log.info("Game %s: out of time: %s", game_id, ", ".join(result.timed_out))
                if result.made:
                    await deliver(self.client, game_id)
        return woken

    async def _run(self) -> None:
        while True:
            try:
                await self.run_due()
                upcoming = await self.store.hosting.next_wake()
            except asyncio.CancelledError:
                raise
            except StoreClosed:
                return                  # shutting down
            except Exception:
                log.exception("A scheduler pass failed")
                upcoming = None
            delay = self.every
            if upcoming is not None:
                delay = min(self.every, max(0.5, upcoming - self.store.now()))
            self._poked.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poked.wait(), delay)


def scheduler_of(client: discord.Client) -> Scheduler | None:
    scheduler = getattr(client, "scheduler", None)
    return scheduler if isinstance(scheduler, Scheduler) else None
