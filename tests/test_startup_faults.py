"""What ``python bot.py`` says when it cannot start: the fault named for what failed.

Each test makes ``main()`` fail one way and reads what it printed and its exit code:
only a network fault gets the network's words; the board-drawing workers failing, and
the database's disk being full or failing, each get their own words and what to do.
Where it can, the fault comes from the real start-up (``setup_hook``: the workers, the
store opening), with the Discord login itself skipped.
"""

from __future__ import annotations

import errno
import socket
import sqlite3
from pathlib import Path
from typing import Any

import aiosqlite
import discord
import pytest

import bot as warhost
from cogs.boards import Boards
from db import Store

NETWORK = "could not reach Discord"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A configuration (the environment; no .env) with the database in ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    for name in ("DATABASE_URL", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL", "SHARD_COUNT",
                 "SHARD_IDS", "WEB_PORT", "LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    database = tmp_path / "warhost.db"
    monkeypatch.setenv("DISCORD_TOKEN", "test-token")
    monkeypatch.setenv("DATABASE_PATH", str(database))
    monkeypatch.setenv("RENDER_WORKERS", "0")
    monkeypatch.setenv("COMPUTER_WORKERS", "0")
    monkeypatch.setenv("LOG_LEVEL", "ERROR")
    return database


def failing_run(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    async def run(config: warhost.Config) -> None:
        raise exc

    monkeypatch.setattr(warhost, "run", run)


def start_without_discord(monkeypatch: pytest.MonkeyPatch) -> None:
    """``bot.start`` runs the real ``setup_hook`` (workers, store, cogs) but never logs in
    or connects: a start-up fault of ours surfaces as it would."""
    async def login(self: warhost.WarhostBot, token: str) -> None:
        await self.setup_hook()

    async def connect(self: warhost.WarhostBot, *, reconnect: bool = True) -> None:
        raise AssertionError("the start should have failed before connecting")

    monkeypatch.setattr(warhost.WarhostBot, "login", login)
    monkeypatch.setattr(warhost.WarhostBot, "connect", connect)


def said(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err


# ---------------------------------------------------------------- the network


@pytest.mark.parametrize("fault", [
    socket.gaierror(-3, "Temporary failure in name resolution"),
    ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
    TimeoutError(),
    discord.GatewayNotFound(),  # type: ignore[no-untyped-call]
], ids=["name lookup", "refused", "time-out", "gateway not found"])
def test_a_network_fault_says_discord_could_not_be_reached(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        fault: BaseException) -> None:
    failing_run(monkeypatch, fault)
    assert warhost.main() == 1
    text = said(capsys)
    assert NETWORK in text and "Check the network connection" in text
    assert type(fault).__name__ in text


def test_a_connector_error_from_aiohttp_is_the_network(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import aiohttp

    async def run(config: warhost.Config) -> None:
        async with aiohttp.ClientSession() as session:      # nothing listens on port 9
            await session.get("http://127.0.0.1:9/api/v10/gateway")

    monkeypatch.setattr(warhost, "run", run)
    assert warhost.main() == 1
    text = said(capsys)
    assert NETWORK in text and "ClientConnectorError" in text


def test_a_broken_pipe_elsewhere_is_not_called_the_network(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    failing_run(monkeypatch, BrokenPipeError(errno.EPIPE, "Broken pipe"))
    assert warhost.main() == 1
    text = said(capsys) + caplog.text
    assert NETWORK not in text
    assert "system error (BrokenPipeError" in text


def test_an_unexpected_error_is_logged_with_its_traceback(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    failing_run(monkeypatch, RuntimeError("boom"))
    assert warhost.main() == 1
    assert NETWORK not in said(capsys)
    [record] = [r for r in caplog.records if r.name == "warhost"]
    assert record.getMessage() == "Warhost stopped on an unexpected error"
    assert record.exc_info is not None


# ---------------------------------------------------------------- the board workers


def test_board_workers_that_fail_to_start_are_named(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(self: Boards) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(Boards, "start", broken)
    start_without_discord(monkeypatch)
    assert warhost.main() == 1
    text = said(capsys)
    assert NETWORK not in text
    assert "board-drawing workers failed to start (BrokenPipeError" in text
    assert "RENDER_WORKERS=0" in text and "Start the bot again" in text


def test_board_workers_failing_to_stop_do_not_hide_the_fault(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def broken_close(self: Boards) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(Boards, "close", broken_close)
    failing_run_in_bot(monkeypatch, socket.gaierror(-3, "Temporary failure"))
    assert warhost.main() == 1
    text = said(capsys)
    assert NETWORK in text and "board-drawing" not in text


def failing_run_in_bot(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    """The real ``run`` (bot made, closed on the way out) with ``login`` failing."""
    async def login(self: warhost.WarhostBot, token: str) -> None:
        raise exc

    monkeypatch.setattr(warhost.WarhostBot, "login", login)


# ---------------------------------------------------------------- the database's disk


def test_a_full_disk_under_the_database_is_named_with_its_path(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = aiosqlite.connect

    async def tiny(*args: Any, **kwargs: Any) -> aiosqlite.Connection:
        conn = await real(*args, **kwargs)
        # SQLite itself then says "database or disk is full" once the file would grow
        await conn.execute("PRAGMA max_page_count = 2")
        return conn

    monkeypatch.setattr(aiosqlite, "connect", tiny)
    start_without_discord(monkeypatch)
    assert warhost.main() == 1
    text = said(capsys)
    assert NETWORK not in text
    assert f"could not write its database at {env}: the disk is full" in text
    assert "Free some space" in text


def test_an_os_error_for_a_full_disk_while_opening_the_database(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def full(cls: type[Store], target: str, /, **kwargs: Any) -> Store:
        raise OSError(errno.ENOSPC, "No space left on device", target + "-wal")

    monkeypatch.setattr(Store, "open", classmethod(full))
    start_without_discord(monkeypatch)
    assert warhost.main() == 1
    text = said(capsys)
    assert NETWORK not in text
    assert f"could not write its database at {env}: the disk is full" in text


def test_a_disk_io_error_under_the_database_says_check_the_disk(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def failing(*args: Any, **kwargs: Any) -> aiosqlite.Connection:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(aiosqlite, "connect", failing)
    start_without_discord(monkeypatch)
    assert warhost.main() == 1
    text = said(capsys)
    assert NETWORK not in text
    assert f"could not write its database at {env}: the disk reported an I/O error" in text
    assert "Check the disk" in text


def test_another_database_fault_keeps_the_store_words(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    env.write_text("this is not a database, and it is long enough to be read as one" * 20)
    start_without_discord(monkeypatch)
    assert warhost.main() == 1
    text = said(capsys)
    assert text.startswith("Warhost could not use its database:")
    assert "disk is full" not in text and NETWORK not in text
