"""pytest fixtures: the double, discord.py pointed at it, and bots started against it.

pytest_plugins = ["discord_double.fixtures"]      # in a test module (or tests/conftest.py)

async def test_something(discord_double, start_bot):
    running = await start_bot(make_my_bot())      # login, gateway, commands synced
    table = discord_double.table()
    ...
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest_asyncio

from .models import BotError
from .runner import RunningBot, launch_bot, loopback_only, pointed_at
from .server import DiscordDouble

StartBot = Callable[..., Awaitable[RunningBot]]


@pytest_asyncio.fixture
async def discord_double() -> AsyncIterator[DiscordDouble]:
    """A started double, discord.py pointed at it, and no network beyond the loopback.

    At teardown it fails the test if the double rejected any bot request (set
    ``discord_double.strict = False`` in tests that provoke rejections on purpose).
    """
    with loopback_only():
        async with DiscordDouble() as dd:
            dd.strict = True  # type: ignore[attr-defined]
            with pointed_at(dd):
                yield dd
            if dd.internal_errors:
                raise BotError(f"the double itself failed: {dd.internal_errors!r}")
            if dd.strict:  # type: ignore[attr-defined]
                dd.assert_no_rejections()


@pytest_asyncio.fixture
async def start_bot(discord_double: DiscordDouble) -> AsyncIterator[StartBot]:
    """``running = await start_bot(bot, commands=True, ready=False)``; stopped at teardown."""
    started: list[RunningBot] = []

    async def start(bot: Any, **kwargs: Any) -> RunningBot:
        running = await launch_bot(discord_double, bot, **kwargs)
        started.append(running)
        return running

    yield start
    errors = []
    for running in reversed(started):
        try:
            await running.stop()
        except Exception as exc:
            errors.append(exc)
    if errors:
        raise errors[0]
