"""Starting the bot: quietly, and syncing its commands with Discord only when they changed.

* A normal start against the loopback double logs nothing at WARNING or above (no
  "message content intent" warning from the prefix set-up, no voice libraries missing).
* The commands' hash is kept in the database: the first start syncs (the double records
  the bulk overwrite), a restart with the same commands does not, a changed command
  syncs again, and WARHOST_FORCE_SYNC=1 syncs anyway; each start says which in one
  INFO line. The hash does not depend on the process (hash seeds).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import discord
import pytest
from discord_double import DiscordDouble
from e2e_world import world_config

import bot as warhost
from db import Store
from tests import databases

pytest_plugins = ["discord_double.fixtures"]

REPO = Path(__file__).resolve().parent.parent


def command_puts(dd: DiscordDouble) -> list[Any]:
    """The bulk overwrites of commands the bot sent (what ``tree.sync`` does)."""
    return [r for r in dd.requests if r.method == "PUT" and r.path.endswith("/commands")]


def sync_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "warhost"
            and r.getMessage().startswith(("Commands ", "Sync forced"))]


async def test_a_normal_start_logs_no_warning(discord_double: DiscordDouble, start_bot: Any,
                                              tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # as in a fresh process, where discord.py has not warned about voice yet
    for flag in ("warn_nacl", "warn_dave"):
        if hasattr(discord.VoiceClient, flag):
            monkeypatch.setattr(discord.VoiceClient, flag, True)
    caplog.set_level(logging.INFO)
    config = world_config(discord_double, tmp_path, RENDER_WORKERS="0", LOG_LEVEL="INFO")
    running = await start_bot(warhost.create_bot(config), ready=True)
    await discord_double.table().slash("guild-owner", "help")
    await running.stop()
    loud = [f"{r.name}: {r.getMessage()}" for r in caplog.records
            if r.levelno >= logging.WARNING]
    assert loud == []
    assert any("Loaded cogs.settings" in r.getMessage() for r in caplog.records)


async def test_commands_are_synced_only_when_they_changed(
        discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.INFO, logger="warhost")
    dd = discord_double

    async def start_and_stop(**settings: str) -> list[str]:
        caplog.clear()
        config = world_config(dd, tmp_path, RENDER_WORKERS="0", **settings)
        running = await start_bot(warhost.create_bot(config))
        await running.stop()
        lines = sync_lines(caplog)
        assert len(lines) == 1, lines                      # one line either way
        return lines

    first = await start_and_stop()
    assert len(command_puts(dd)) == 1
    assert first[0].startswith("Commands changed; synced ")
    [(name, digest)] = databases.raw(str(tmp_path / "warhost.db"),
                                     "SELECT name, value FROM bot_state")
    assert name == f"command-sync:{dd.application_id}:{dd.guild.id}"
    assert len(digest) == 64 and digest[:12] in first[0]
    assert "settings" in {c["name"] for c in dd.commands(dd.guild)}

    again = await start_and_stop()                         # a restart: nothing changed
    assert len(command_puts(dd)) == 1
    assert again[0].startswith("Commands unchanged since last sync (hash ")
    assert again[0].endswith("; not syncing")

    # a command changed (here: one extension fewer): synced again, once
    every = warhost.discover_cogs()
    monkeypatch.setattr(warhost, "discover_cogs",
                        lambda: [n for n in every if n != "cogs.settings"])
    changed = await start_and_stop()
    assert len(command_puts(dd)) == 2 and changed[0].startswith("Commands changed")
    assert "settings" not in {c["name"] for c in dd.commands(dd.guild)}
    await start_and_stop()
    assert len(command_puts(dd)) == 2

    forced = await start_and_stop(WARHOST_FORCE_SYNC="1")
    assert len(command_puts(dd)) == 3 and forced[0].startswith(
        "Sync forced (WARHOST_FORCE_SYNC); synced ")

    # globally (no DEV_GUILD_ID) is another target: synced once there too
    monkeypatch.setattr(warhost, "discover_cogs", lambda: every)
    config = world_config(dd, tmp_path, RENDER_WORKERS="0")
    config = warhost.Config(**{**config.__dict__, "dev_guild_id": None})
    for _ in range(2):
        running = await start_bot(warhost.create_bot(config))
        await running.stop()
    global_puts = [r for r in command_puts(dd) if "/guilds/" not in r.path]
    assert len(global_puts) == 1
    assert "settings" in {c["name"] for c in dd.global_commands.values()}


def test_the_commands_hash_is_the_same_in_every_process() -> None:
    probe = (
        "import asyncio, bot\n"
        "async def main():\n"
        "    cfg = bot.Config.from_env({'DISCORD_TOKEN': 'x', 'RENDER_WORKERS': '0'}, None)\n"
        "    b = bot.create_bot(cfg)\n"
        "    for name in bot.discover_cogs():\n"
        "        await b.load_extension(name)\n"
        "    print(bot.commands_hash(b.tree, None)[0])\n"
        "asyncio.run(main())\n")
    hashes = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, check=True,
                             capture_output=True, text=True, timeout=120)
        hashes.add(out.stdout.strip().splitlines()[-1])
    assert len(hashes) == 1 and len(next(iter(hashes))) == 64


async def test_with_other_processes_on_the_database_one_syncs(
        discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="warhost")
    dd = discord_double
    path = str(tmp_path / "warhost.db")
    store = await Store.open(path)
    try:        # another process holds the sync's lease (it is syncing right now)
        assert await store.leases.take(warhost.SYNC_KEY, "other-process", 600)
    finally:
        await store.close()
    config = world_config(dd, tmp_path, RENDER_WORKERS="0", SHARD_COUNT="1")
    assert config.shared_database
    running = await start_bot(warhost.create_bot(config), commands=False, ready=True)
    await running.stop()
    assert command_puts(dd) == []
    assert "Commands changed; another process is syncing them" in sync_lines(caplog)
    # a process that runs no shard 0 leaves it to the one that does
    caplog.clear()
    two = world_config(dd, tmp_path, RENDER_WORKERS="0", SHARD_COUNT="2", SHARD_IDS="1")
    running = await start_bot(warhost.create_bot(two), commands=False, ready=True)
    await running.stop()
    assert command_puts(dd) == []
    assert any(r.getMessage() == "Commands are synced by the process that runs shard 0"
               for r in caplog.records)
