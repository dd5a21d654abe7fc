"""Faults that would lose or hide data at start: a damaged or deleted write-ahead log
(db/witness.py), another application's file, a schema changed by hand
(db/schema_check.py), the start-up check of a large file.

The log is damaged the way a crash and a careless admin damage it: a worker process
makes moves and is SIGKILLed (its moves sit in ``-wal``, not yet checkpointed), then the
``-wal`` is deleted, truncated, zeroed or scribbled on.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import db.opening
from db import Store, StoreError
from db.__main__ import main as db_main
from db.backup import restore, take_backup
from db.witness import Mark, Witness, decode, encode, read_mark, witness_path, write_mark
from tests.databases import raw

REPO = Path(__file__).resolve().parents[1]

WORKER = """
import asyncio, os, sys
import engine
from tests.fakegame import GAME
engine.GAMES["race"] = GAME
from db import Store

async def main(path, game_id, moves):
    store = await Store.open(path)
    for n in range(moves):
        record = await store.get(game_id)
        player = GAME.current_turn(store.load_state(record))
        await store.apply_action(game_id, player, "roll", request_id=f"w-{n}")
    print("saved", moves, flush=True)
    os.kill(os.getpid(), 9)          # a crash: nothing closed, nothing checkpointed

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
"""


async def a_game(path: str) -> int:
    store = await Store.open(path)
    try:
        lobby = await store.lobby.open("race", "g", "c", "a", {"target": 10**6})
        await store.lobby.join(lobby.id, "b")
        return (await store.lobby.start(lobby.id, "a", seed=7)).id
    finally:
        await store.close()


def crash_after(path: str, game_id: int, moves: int) -> None:
    """Make ``moves`` moves in another process, then kill it."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", WORKER, path, str(game_id), str(moves)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stderr
    assert f"saved {moves}" in done.stdout


async def admin(argv: list[str]) -> int:
    """``python -m db ARGV`` (it runs its own event loop, so on a thread)."""
    return await asyncio.to_thread(db_main, argv, {})


def moves_in(path: str, game_id: int) -> int:
    return int(raw(path, "SELECT count(*) FROM actions WHERE game_id = ? AND request_id "
                         "LIKE 'w-%'", (game_id,))[0][0])


def damage(wal: Path, how: str) -> None:
    data = wal.read_bytes()
    if how == "deleted":
        wal.unlink()
    elif how == "truncated":
        wal.write_bytes(data[:len(data) // 3])
    elif how == "zeroed":
        wal.write_bytes(bytes(len(data)))
    elif how == "scribbled":            # a run of bytes in the middle, as a bad disk would
        middle = len(data) // 2
        wal.write_bytes(data[:middle] + os.urandom(4096) + data[middle + 4096:])
    else:
        raise AssertionError(how)


@pytest.fixture(autouse=True)
def _race(race: None) -> None:
    """The Race test game."""


# ----------------------------------------------------------------- the write-ahead log


@pytest.mark.parametrize("how", ["deleted", "truncated", "zeroed", "scribbled"])
async def test_a_damaged_write_ahead_log_stops_the_bot_and_says_what_was_lost(
        tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "warhost.db")
    game_id = await a_game(path)
    crash_after(path, game_id, 40)
    wal = Path(f"{path}-wal")
    assert wal.stat().st_size > 0               # the moves are in the log, not the file
    noted = read_mark(path)
    assert noted is not None and not noted.clean
    damage(wal, how)
    found = wal.read_bytes() if wal.exists() else None

    with pytest.raises(StoreError) as refused:
        await Store.open(path)
    text = str(refused.value)
    lost = int(text.split("missing the last ")[1].split(" ")[0])
    assert 1 <= lost <= noted.count
    assert f"counts {noted.count} saved changes" in text
    assert "python -m db accept-loss" in text and "docs/backups.md" in text
    # The log as it was found is kept (opening and closing the file deleted the real one).
    kept = sorted(tmp_path.glob("warhost.db-wal.as-found-*"))
    if found:
        assert len(kept) == 1 and kept[0].read_bytes() == found and str(kept[0]) in text
    else:
        assert kept == []
    # Refused again, and so is `db check` (exit 1, the same words).
    with pytest.raises(StoreError, match="missing the last"):
        await Store.open(path)
    capsys.readouterr()
    assert await admin(["check", "--database", path]) == 1
    assert "missing the last" in capsys.readouterr().err

    # The admin accepts the loss; the bot starts on what is left, and play goes on.
    assert await admin(["accept-loss", "--database", path]) == 0
    held = moves_in(path, game_id)
    assert held < 40
    store = await Store.open(path)
    try:
        record = await store.get(game_id)
        assert await store.history.verify(game_id)
        player = store.load_state(record)
        assert player is not None
    finally:
        await store.close()
    assert await admin(["check", "--database", path]) == 0


async def test_a_crash_with_the_log_intact_starts_with_every_move(tmp_path: Path) -> None:
    path = str(tmp_path / "warhost.db")
    game_id = await a_game(path)
    crash_after(path, game_id, 25)
    store = await Store.open(path)
    await store.close()
    assert moves_in(path, game_id) == 25
    mark = read_mark(path)
    assert mark is not None and mark.clean
    assert sorted(p.name for p in tmp_path.iterdir()) == ["warhost.db", "warhost.db-commits"]


async def test_a_fresh_database_whose_whole_log_was_deleted_is_refused(tmp_path: Path) -> None:
    """Even the first moves of a new file, its schema and identity still in the log."""
    path = str(tmp_path / "warhost.db")
    store = await Store.open(path)
    for n in range(3):
        await store.lobby.open("race", "g", f"c{n}", "a")
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    for name in ("warhost.db", "warhost.db-commits"):     # the files at the crash, no log
        shutil.copy(tmp_path / name, crashed / name)
    await store.close()
    with pytest.raises(StoreError, match=r"missing the last 3 changes .*: it holds 0, "):
        await Store.open(str(crashed / "warhost.db"))


async def test_a_database_swapped_by_hand_is_refused_until_accepted(tmp_path: Path) -> None:
    path = str(tmp_path / "warhost.db")
    other = str(tmp_path / "other.db")
    await a_game(path)
    await a_game(other)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(other + suffix):
            shutil.copy(other + suffix, path + suffix)
    with pytest.raises(StoreError, match="is not the one Warhost was saving to"):
        await Store.open(path)
    assert await admin(["accept-loss", "--database", path]) == 0
    store = await Store.open(path)
    await store.close()


async def test_restore_keeps_the_damaged_log_and_starts_the_witness_again(
        tmp_path: Path) -> None:
    path = str(tmp_path / "warhost.db")
    game_id = await a_game(path)
    backup = take_backup(path, tmp_path / "backups")
    crash_after(path, game_id, 30)
    wal = Path(f"{path}-wal")
    damage(wal, "truncated")
    found = wal.read_bytes()
    done = restore(backup.path, path)
    aside = {p.name: p for p in done.moved_aside}
    kept = [p for name, p in aside.items() if name.endswith("-wal.as-found")]
    assert len(kept) == 1 and kept[0].read_bytes() == found
    assert any(name.endswith("-commits") for name in aside)     # the old evidence, too
    store = await Store.open(path)      # the witness follows the restored file
    try:
        assert (await store.get(game_id)).version == 0
    finally:
        await store.close()


def test_the_witness_never_goes_backwards_and_rejects_a_torn_record(tmp_path: Path) -> None:
    path = tmp_path / "warhost.db"
    first, second = Witness(path, "abc"), Witness(path, "abc")
    first.note(7)
    second.note(5)                   # another process, a moment behind
    mark = read_mark(path)
    assert mark is not None and (mark.identity, mark.count, mark.clean) == ("abc", 7, False)
    first.close(9)
    second.close(None)
    mark = read_mark(path)
    assert mark is not None and (mark.count, mark.clean) == (9, True)     # the higher
    record = encode(Mark("abc", 12, 1.0, False))
    assert decode(record) == Mark("abc", 12, 1.0, False)
    assert decode(record.replace(b"12", b"13")) is None          # the checksum
    assert decode(record[:40]) is None
    witness_path(path).write_bytes(b"\x00" * 128)
    assert read_mark(path) is None


async def test_the_move_path_counts_only_transactions_that_change_something(
        tmp_path: Path) -> None:
    path = str(tmp_path / "warhost.db")
    store = await Store.open(path)
    try:
        start = raw(path, "SELECT count FROM warhost_commits")[0][0]
        async with store.transaction() as conn:
            await conn.execute_fetchall("SELECT count(*) FROM games")
        assert raw(path, "SELECT count FROM warhost_commits")[0][0] == start
        await store.lobby.open("race", "g", "c", "a")
        after = raw(path, "SELECT count FROM warhost_commits")[0][0]
        assert after == start + 1
        mark = read_mark(path)
        assert mark is not None and mark.count == after
        # One statement committed by itself (a deferral's note) counts the same way.
        await store.backend.write_one(
            "INSERT INTO bot_state (name, value, updated_at) VALUES ('k', 'v', 0)")
        await store.backend.write_one("DELETE FROM bot_state WHERE name = 'none'")
        assert raw(path, "SELECT count FROM warhost_commits")[0][0] == after + 1
        mark = read_mark(path)
        assert mark is not None and mark.count == after + 1
    finally:
        await store.close()


# ------------------------------------------------------------- another application's file


@pytest.mark.parametrize("journal", ["delete", "wal"])
async def test_another_applications_file_is_refused_before_anything_changes(
        tmp_path: Path, journal: str) -> None:
    path = tmp_path / "theirs.db"
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA journal_mode = {journal}")
    con.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    con.execute("INSERT INTO invoices VALUES (1, 9.5)")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"another application.*invoices.*left it unchanged"):
        await Store.open(str(path))
    assert path.read_bytes() == before         # its journal mode too (byte 18 and 19)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.db"]


# ------------------------------------------------------------------------ the schema


SQLITE_DRIFT = {
    "a renamed column": ("ALTER TABLE games RENAME COLUMN kind TO game_kind",
                         "table games has no column kind and an unknown column game_kind"),
    "a dropped table": ("DROP TABLE announcements", "table announcements is missing"),
    "a dropped trigger": ("DROP TRIGGER actions_append_only_update",
                          "trigger actions_append_only_update on actions is missing"),
    "an added unique index": ("CREATE UNIQUE INDEX mine ON games (kind, id)",
                              "table games has an unknown index mine"),
    "an added column": ("ALTER TABLE players ADD COLUMN nickname TEXT",
                        "table players has an unknown column nickname"),
    # SQLite cannot alter a column's type: tools rebuild the table instead.
    "a changed column type": (
        "CREATE TABLE players_new (user_id INTEGER PRIMARY KEY, timezone TEXT, "
        "quiet_start INTEGER, quiet_end INTEGER, dm_reminders INTEGER NOT NULL DEFAULT 0, "
        "reminder_every REAL, updated_at REAL NOT NULL) WITHOUT ROWID; "
        "DROP TABLE players; ALTER TABLE players_new RENAME TO players",
        "table players: columns changed (user_id)"),
}

POSTGRES_DRIFT = {
    "a renamed column": ("ALTER TABLE games RENAME COLUMN kind TO game_kind",
                         "table games has no column kind and an unknown column game_kind"),
    "a dropped table": ("DROP TABLE announcements CASCADE", "table announcements is missing"),
    "a dropped trigger": ("DROP TRIGGER actions_append_only_update ON actions",
                          "trigger actions_append_only_update on actions is missing"),
    "a changed column type": ("ALTER TABLE players ALTER COLUMN user_id TYPE VARCHAR(40)",
                              "table players: columns changed (user_id)"),
    "an added unique index": ("CREATE UNIQUE INDEX mine ON games (kind, id)",
                              "table games has an unknown index mine"),
    "an added column": ("ALTER TABLE players ADD COLUMN nickname TEXT",
                        "table players has an unknown column nickname"),
}


assert SQLITE_DRIFT.keys() == POSTGRES_DRIFT.keys()


@pytest.mark.parametrize("case", sorted(SQLITE_DRIFT))
async def test_a_schema_changed_by_hand_is_refused_at_start(database: str, case: str) -> None:
    drift = POSTGRES_DRIFT if database.startswith("postgres") else SQLITE_DRIFT
    sql, said = drift[case]
    store = await Store.open(database)
    await store.close()
    for statement in sql.split("; "):
        raw(database, statement)
    with pytest.raises(StoreError, match="not the ones Warhost's migrations built") as refused:
        await Store.open(database)
    assert said in str(refused.value)
    assert "restore" in str(refused.value)


async def test_harmless_additions_are_allowed(database: str,
                                              caplog: pytest.LogCaptureFixture) -> None:
    store = await Store.open(database)
    await store.close()
    raw(database, "CREATE TABLE admin_notes (note TEXT)")
    raw(database, "CREATE INDEX games_by_kind_for_me ON games (kind)")
    with caplog.at_level(logging.INFO, logger="warhost.db"):
        store = await Store.open(database)
        await store.close()
    assert "table admin_notes" in caplog.text and "games_by_kind_for_me" in caplog.text


@pytest.mark.postgres_only
async def test_a_role_that_may_not_make_a_scratch_schema_still_starts(
        database: str, caplog: pytest.LogCaptureFixture) -> None:
    """Hosted PostgreSQL often gives the bot its own schema and nothing more: the
    comparison needs a scratch schema, so it is skipped with a warning, not fatal."""
    import uuid
    from urllib.parse import urlsplit, urlunsplit

    from db import schema_check
    from tests.databases import postgres_url

    base = postgres_url()
    assert base is not None
    schema = str(raw(database, "SELECT current_schema()")[0][0])
    role = f"limited_{uuid.uuid4().hex[:8]}"
    raw(base, f"CREATE ROLE {role} LOGIN")
    try:
        raw(base, f"GRANT ALL ON SCHEMA {schema} TO {role}")
        schema_check._expected.pop("postgresql", None)
        with caplog.at_level(logging.WARNING, logger="warhost.db"):
            parts = urlsplit(database)
            as_role = parts._replace(netloc=f"{role}@{parts.hostname}:{parts.port}")
            store = await Store.open(urlunsplit(as_role))
            await store.close()
        assert "not checked" in caplog.text
    finally:
        schema_check._expected.pop("postgresql", None)
        raw(base, f"DROP OWNED BY {role}")
        raw(base, f"DROP ROLE {role}")


@pytest.mark.sqlite_only
async def test_db_check_fails_on_a_changed_schema(database: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    store = await Store.open(database)
    await store.close()
    raw(database, "DROP TABLE announcements")
    assert await admin(["check", "--database", database]) == 1
    assert "table announcements is missing" in capsys.readouterr().err


# ------------------------------------------------------------ the check of a large file


@pytest.mark.sqlite_only
async def test_a_large_file_closed_cleanly_skips_the_whole_file_check(
        database: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    await a_game(database)
    monkeypatch.setattr(db.opening, "FULL_CHECK_BYTES", 0)        # every file is "large"
    with caplog.at_level(logging.INFO, logger="warhost.db"):
        store = await Store.open(database)
    assert "Skipped the whole-file check" in caplog.text
    caplog.clear()
    await store.close()
    # After an unclean stop (the witness not marked clean), the whole file is checked.
    mark = read_mark(database)
    assert mark is not None and mark.clean
    write_mark(database, Mark(mark.identity, mark.count, time.time(), False))
    with caplog.at_level(logging.INFO, logger="warhost.db"):
        store = await Store.open(database)
        await store.close()
    assert "Skipped the whole-file check" not in caplog.text
