"""``python bot.py`` as a service manager runs it: stopped with SIGTERM, it closes cleanly,
even when the first cancellation is lost (Python 3.11's ``wait_for`` drops one that lands
as the connection it waits for completes)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from discord_double import DiscordDouble
from discord_double.runner import loopback_only

import bot as warhost

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
async def double() -> AsyncIterator[DiscordDouble]:
    with loopback_only():
        async with DiscordDouble(in_process_bot=False, default_timeout=20) as dd:
            yield dd


async def test_sigterm_closes_the_bot_and_its_database_cleanly(double: DiscordDouble,
                                                               tmp_path: Path) -> None:
    dd = double
    env = {**os.environ, "PYTHONPATH": str(REPO), "DISCORD_TOKEN": dd.token,
           "DISCORD_API_BASE": dd.api_base, "DEV_GUILD_ID": dd.guild.id,
           "DATABASE_PATH": str(tmp_path / "warhost.db"), "LOG_LEVEL": "INFO",
           "RENDER_WORKERS": "0"}
    log = tmp_path / "bot.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, str(REPO / "bot.py")], cwd=tmp_path, env=env,
                                stdout=sink, stderr=subprocess.STDOUT)
        try:
            await dd.wait_until(
                lambda: proc.poll() is not None or (
                    dd.latest_session is not None and dd.latest_session.connected),
                timeout=60, what="the bot process to connect")
            await dd.wait_for_commands(["game"], timeout=60)
            os.kill(proc.pid, signal.SIGTERM)
            # (waited for without blocking: the double answers the bot's goodbye)
            for _ in range(400):
                if proc.poll() is not None:
                    break
                await asyncio.sleep(0.05)
            code = proc.poll()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    output = log.read_text(errors="replace")
    assert code == 0, output
    assert "Database closed" in output and "Traceback" not in output, output


async def test_a_lost_cancellation_is_asked_again_until_the_bot_closes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warhost, "STOP_RETRY", 0.01)
    fake: Any = SimpleNamespace(closing=False)
    lost = []

    async def connecting() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            lost.append(True)  # what 3.11's wait_for does when the connection is made
        await asyncio.sleep(30)  # and the bot runs on

    main = asyncio.get_running_loop().create_task(connecting())
    await asyncio.sleep(0)
    warhost.stop_on_signal(asyncio.get_running_loop(), main, fake)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(main, timeout=5)
    assert lost == [True] and main.cancelled()


async def test_a_closing_bot_is_never_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warhost, "STOP_RETRY", 0.01)
    fake: Any = SimpleNamespace(closing=False)
    cleaned = []

    async def running() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            fake.closing = True  # leaving ``async with bot`` closes it
            await asyncio.sleep(0.1)  # a cleanup several retries long
            cleaned.append(True)
            raise

    main = asyncio.get_running_loop().create_task(running())
    await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    warhost.stop_on_signal(loop, main, fake)
    await asyncio.sleep(0.03)
    assert fake.closing and not main.done()
    warhost.stop_on_signal(loop, main, fake)  # a second SIGTERM while closing
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(main, timeout=5)
    assert cleaned == [True]
