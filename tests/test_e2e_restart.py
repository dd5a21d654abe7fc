"""A bot closed soon after it connected, as a restart does, leaves nothing behind: no
coroutine never awaited, no task failing on a closed client.

discord.py's ``Client.close()`` does not cancel the task that waits, after READY, for
the guilds to arrive (``ConnectionState._delay_ready``, ``guild_ready_timeout`` seconds
after the last GUILD_CREATE). Closed before that wait ends, the client later dispatches
``ready`` with its loop gone: ``Client._schedule_event`` makes the ``_run_event``
coroutine, then fails to schedule it (``'_MissingSentinel' object has no attribute
'create_task'``), so the coroutine is never awaited (a RuntimeWarning) and the task
fails unseen. Cancelling that task in ``close`` is not enough on Python 3.11: its
``asyncio.wait_for`` swallows a cancellation that comes as a guild arrives, and the wait
goes on. So a closed bot dispatches nothing (``WarhostBot.dispatch``), and its ``close``
cancels the wait (so an old bot is not kept for seconds after a restart).
"""

from __future__ import annotations

import asyncio
import gc
import warnings
from typing import Any

from e2e_world import World, world_fixture

pytest_plugins = ["discord_double.fixtures"]

world = world_fixture(people=("alice", "bob"), commands=["game", "play"])


def ready_wait(bot: Any) -> float:
    """How long discord.py waits for guilds after READY before dispatching ``ready``."""
    return float(getattr(bot._connection, "guild_ready_timeout", 2.0))


async def test_restarts_leave_no_coroutine_unawaited_nor_a_task_failing(world: World) -> None:
    loop = asyncio.get_running_loop()
    failed: list[dict[str, Any]] = []
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: failed.append(context))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")     # every warning recorded, then none allowed
            wait = ready_wait(world.running.bot)
            await world.restart()           # each bot closed within the wait after READY
            await world.restart()
            table = world.dd.table()
            opened = await table.slash("alice", "game new", kind="conqueror")
            assert not opened.ephemeral, opened.describe()    # the new bot plays on
            await asyncio.sleep(wait + 0.5)  # past the old bots' wait for their guilds
            gc.collect()                    # tasks dropped with an error are reported now
            await asyncio.sleep(0)
            errors = [str(c.get("exception") or c.get("message")) for c in failed]
            failed.clear()                  # their tracebacks held the coroutines: freed,
            gc.collect()                    # one never awaited is reported now
    finally:
        loop.set_exception_handler(before)
    unawaited = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert unawaited == []
    assert errors == []
