"""Background work the bot runs beside Discord's event loop: its loops, stopped cleanly,
and its worker processes (boards, computer players), which leave when the bot does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from typing import Any


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
