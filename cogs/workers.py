"""Background work the bot runs beside Discord's event loop: its loops, stopped cleanly,
and its worker processes (boards, computer players), which leave when the bot does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable, Coroutine
from typing import Any


class Background:
    """One named background loop of the bot's (the announcer's retries, the scheduler,
    lobby expiry, housekeeping): started at most once, stopped cleanly."""

    def __init__(self, name: str, run: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self.name = name
        self._run = run
        #: The running loop's task (None before the start and after the stop).
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the loop (nothing happens if it is already running)."""
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    async def stop(self) -> bool:
        """Stop the loop and wait for it to end; whether it was running."""
        task, self.task = self.task, None
        await stop_task(task)
        return task is not None


async def stop_task(task: asyncio.Task[Any] | None) -> None:
    """Cancel a background loop and wait for it to end (whatever it ends with)."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


def exit_with(pid: int) -> None:
    """Leave this (worker) process once process ``pid`` (the bot) is gone."""
    while True:
        time.sleep(1)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # alive, someone else's: not ours, but not gone
            pass
