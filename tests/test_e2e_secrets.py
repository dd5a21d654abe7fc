"""The bot token never reaches the logs, nor do the interaction tokens that let anyone
answer as the bot for 15 minutes.

The real bot runs as its own process (``python bot.py``, as ``make run``) against the
Discord double with a recognisable token, at DEBUG level (discord.py then logs every
request, gateway event and URL); players use commands, buttons and autocomplete; then
everything the process wrote (its logs on stderr, and stdout) is searched for the token,
each of its three base64 pieces, its base64 form, and every interaction token issued.
"""

from __future__ import annotations

import base64
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from discord_double import DiscordDouble, loopback_only

REPO = Path(__file__).resolve().parents[1]
#: A bot token's shape (base64 user id . base64 timestamp . HMAC), easy to find.
TOKEN = "TmV2ZXJMb2dNZUNhbmFyeTEyMzQ1.Gw4rH0.cAnArY-hmac_NEVER-in-logs_0123456789abcdefXY"


@pytest.fixture
async def double() -> AsyncIterator[DiscordDouble]:
    with loopback_only():
        async with DiscordDouble(in_process_bot=False, default_timeout=30) as dd:
            dd.token = TOKEN        # the double accepts this token, and only this one
            yield dd


async def test_no_token_in_the_logs_of_a_bot_at_debug_level(double: DiscordDouble,
                                                            tmp_path: Path) -> None:
    dd = double
    for name in ("alice", "bob"):
        dd.add_user(name)
    env = {**os.environ, "PYTHONPATH": str(REPO), "DISCORD_TOKEN": TOKEN,
           "DISCORD_API_BASE": dd.api_base, "DEV_GUILD_ID": dd.guild.id,
           "DATABASE_PATH": str(tmp_path / "warhost.db"), "LOG_LEVEL": "DEBUG",
           "RENDER_WORKERS": "0"}
    output = tmp_path / "bot.log"
    with output.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, str(REPO / "bot.py")], cwd=tmp_path,
                                env=env, stdout=sink, stderr=subprocess.STDOUT)
        issued: list[str] = []
        try:
            await dd.wait_until(
                lambda: proc.poll() is not None or (
                    dd.latest_session is not None and dd.latest_session.guilds_sent
                    and dd.latest_session.connected),
                timeout=60, what="the bot process to connect")
            assert proc.poll() is None, output.read_text(errors="replace")[-3000:]
            await dd.wait_for_commands(["game", "play", "help", "privacy"], timeout=60)
            table = dd.table()
            replies = [await table.slash("alice", "help")]
            opened = await table.slash("alice", "game new", kind="conqueror")
            replies += [opened, await table.click("bob", "Join", message=opened.message),
                        await table.click("alice", "Start", message=opened.message)]
            replies.append(await table.autocomplete_reply("alice", "play", "action"))
            replies.append(await table.slash("alice", "play", action="end"))
            replies.append(await table.slash("bob", "game status"))
            replies.append(await table.slash("bob", "privacy"))
            replies.append(await table.slash("bob", "play", action="nonsense"))
            issued = [r.token for r in replies]
            assert all(r.responded for r in replies)
        finally:
            proc.send_signal(signal.SIGINT)           # Ctrl-C: the bot closes cleanly
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    text = re.sub(r"\x1b\[[0-9;]*m", "", output.read_text(errors="replace"))   # no colours

    # DEBUG logging was on: discord.py's request lines and gateway events are there
    assert "DEBUG" in text and "discord.http" in text and "INTERACTION_CREATE" in text
    assert "[token hidden]" in text                  # interaction URLs were logged, hidden
    assert TOKEN not in text
    for piece in TOKEN.split("."):
        assert piece not in text, piece
    assert base64.b64encode(TOKEN.encode()).decode() not in text
    for token in issued:
        assert token not in text
    assert "Traceback" not in text
