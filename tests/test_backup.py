"""Backups of the SQLite store: online (moves go on), checked, pruned, restored; the
``python -m db`` admin commands; the maintenance cog's schedule."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

import engine
from cogs.maintenance import Maintenance, MaintenanceSettings, SettingsError
from db import Store
from db.__main__ import main as db_main
from db.backup import (
    BackupError,
    backup_folder,
    backups_of,
    check_file,
    database_in_use,
    latest_backup,
    prune,
    restore,
    take_backup,
    taken_at,
)
from tests import databases
from tests.fakegame import GAME as RACE

REPO = Path(__file__).resolve().parents[1]
T0 = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def race(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", RACE)


async def new_race(store: Store, channel: str, seed: int) -> int:
    lobby = await store.lobby.open("race", "g", channel, "a", {"target": 1000000})
    await store.lobby.join(lobby.id, "b")
    return (await store.lobby.start(lobby.id, "a", seed=seed)).id


async def play(store: Store, game_id: int, moves: int) -> None:
    for n in range(moves):
        record = await store.get(game_id)
        player = RACE.current_turn(store.load_state(record))
        assert player is not None
        await store.apply_action(game_id, player, "roll" if n % 2 else "step 2")


async def filled(path: Path, games: int = 4, moves: int = 30) -> tuple[Store, list[int]]:
    store = await Store.open(str(path))
    ids = [await new_race(store, f"c{i}", seed=i) for i in range(games)]
    for game_id in ids:
        await play(store, game_id, moves)
    return store, ids


# ---------------------------------------------------------------------------- backups


async def test_a_backup_taken_while_moves_happen_restores_every_game(tmp_path: Path) -> None:
    """The copy pauses half-way (its read snapshot held) while the bot makes moves on the
    event loop: each move still succeeds at once. The backup holds the games as they
    were when it began; restored into a fresh place, they open and verify."""
    live = tmp_path / "warhost.db"
    store, ids = await filled(live)
    try:
        before = {g: (await store.get(g)).version for g in ids}
        paused, resume = threading.Event(), threading.Event()
        steps: list[tuple[int, int]] = []

        def progress(left: int, total: int) -> None:
            steps.append((left, total))
            if len(steps) == 1:
                paused.set()
                assert resume.wait(30), "the test never let the backup go on"

        copying = asyncio.create_task(asyncio.to_thread(
            take_backup, live, tmp_path / "backups", when=T0, step_pages=2, progress=progress))
        assert await asyncio.to_thread(paused.wait, 30)
        # Half copied, snapshot held: moves (writes) and reads go on, promptly.
        for game_id in ids:
            started = time.monotonic()
            await play(store, game_id, 5)
            assert time.monotonic() - started < 2.0
        assert not copying.done()
        resume.set()
        made = await copying
        assert len(steps) > 2 and steps[-1][0] == 0        # it really went step by step
        after = {g: (await store.get(g)).version for g in ids}
        assert all(after[g] == before[g] + 5 for g in ids)
    finally:
        await store.close()

    assert made.path == tmp_path / "backups" / "warhost-20250301T120000Z.db"
    assert made.games == len(ids) and made.schema_version >= 3
    assert not list((tmp_path / "backups").glob(".*"))       # no temporary file left
    fresh = tmp_path / "fresh" / "here" / "warhost.db"
    done = restore(made.path, fresh)
    assert done.moved_aside == () and done.games == len(ids)
    restored = await Store.open(str(fresh))
    try:
        for game_id in ids:
            record = await restored.get(game_id)
            assert record.version == before[game_id]       # the moment the copy began
            assert await restored.history.problems(game_id) == []
            assert await restored.history.verify(game_id)
        await play(restored, ids[0], 3)                    # and play goes on from there
        assert await restored.history.verify(ids[0])
    finally:
        await restored.close()


async def test_moves_keep_flowing_during_free_running_backups(tmp_path: Path) -> None:
    """Backups back to back in a thread, moves back to back on the loop: no move waits."""
    live = tmp_path / "warhost.db"
    store, ids = await filled(live, games=2, moves=10)
    stop = asyncio.Event()
    slowest = 0.0
    moves = 0

    async def mover() -> None:
        nonlocal slowest, moves
        while not stop.is_set():
            started = time.monotonic()
            await play(store, ids[moves % 2], 1)
            slowest = max(slowest, time.monotonic() - started)
            moves += 1

    task = asyncio.create_task(mover())
    try:
        made = []
        for i in range(5):
            made.append(await asyncio.to_thread(take_backup, live, tmp_path / "b",
                                                when=T0 + timedelta(hours=i), step_pages=1))
        stop.set()
        await task
        assert moves > 0 and slowest < 2.0
        for backup in made:
            assert check_file(backup.path).games == 2
    finally:
        stop.set()
        await store.close()


def test_backups_are_named_by_utc_time_and_never_overwrite(tmp_path: Path) -> None:
    live = tmp_path / "games.db"
    sqlite3.connect(live).close()
    store = asyncio.run(Store.open(str(live)))
    asyncio.run(store.close())
    first = take_backup(live, tmp_path / "b", when=T0)
    second = take_backup(live, tmp_path / "b", when=T0)       # the same second
    assert first.path.name == "games-20250301T120000Z.db"
    assert second.path.name == "games-20250301T120000Z-1.db"
    assert backups_of(tmp_path / "b", "games") == [first.path, second.path]
    assert taken_at(first.path) == T0
    # A backup is one self-contained file (not WAL), readable on its own.
    assert first.path.read_bytes()[18:20] == b"\x01\x01"


def test_pruning_keeps_the_newest_n(tmp_path: Path) -> None:
    live = tmp_path / "warhost.db"
    asyncio.run(_create(live))
    folder = tmp_path / "b"
    made = [take_backup(live, folder, when=T0 + timedelta(hours=6 * i)).path for i in range(6)]
    other = folder / "notes.txt"
    other.write_text("mine")
    foreign = folder / "other-20250301T120000Z.db"
    foreign.write_bytes(b"another database's backup")
    stale = folder / ".warhost-20240101T000000Z.tmp"
    stale.write_bytes(b"half a backup")
    os.utime(stale, (time.time() - 3 * 86400,) * 2)
    fresh_temp = folder / ".warhost-20990101T000000Z.tmp"
    fresh_temp.write_bytes(b"a backup being written now")

    gone = prune(folder, "warhost", keep=4)
    assert set(gone) == {made[0], made[1], stale}
    assert backups_of(folder, "warhost") == made[2:]
    assert latest_backup(folder, "warhost") == made[-1]
    assert other.exists() and foreign.exists() and fresh_temp.exists()
    assert prune(folder, "warhost", keep=4) == []
    with pytest.raises(ValueError):
        prune(folder, "warhost", keep=0)


async def _create(path: Path) -> None:
    store = await Store.open(str(path))
    await new_race(store, "c", seed=1)
    await store.close()


def test_backing_up_nothing_or_into_an_unwritable_place_says_what_to_do(
        tmp_path: Path) -> None:
    with pytest.raises(BackupError, match=r"There is no database at .*missing\.db.*"
                                          r"DATABASE_PATH"):
        take_backup(tmp_path / "missing.db", tmp_path / "b")
    live = tmp_path / "warhost.db"
    asyncio.run(_create(live))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(BackupError, match=r"Cannot create the backup folder .*BACKUP_DIR"):
        take_backup(live, blocker / "sub")


def test_a_bad_copy_is_never_kept_under_a_backup_name(tmp_path: Path) -> None:
    """A foreign SQLite file "backed up" fails the check after writing: no file stays."""
    foreign = tmp_path / "notes.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE notes (text TEXT)")
    con.commit()
    con.close()
    with pytest.raises(BackupError, match=r"not a Warhost one.*not kept.*python -m db check"):
        take_backup(foreign, tmp_path / "b", when=T0)
    assert list((tmp_path / "b").iterdir()) == []


# ---------------------------------------------------------------------------- restore


def _damage(path: Path) -> None:
    """Overwrite the middle of the file (table pages, not the header) with garbage."""
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) >= 4 * page
    for at in range(2 * page, len(data) - page, page):
        data[at:at + 200] = b"\xee" * 200
    path.write_bytes(bytes(data))


async def test_a_damaged_backup_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    live = tmp_path / "warhost.db"
    store, _ = await filled(live, games=3, moves=40)
    await store.close()
    good = take_backup(live, tmp_path / "b", when=T0).path
    live_bytes = live.read_bytes()

    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(good.read_bytes())
    _damage(damaged)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database\n" * 500)
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    half = tmp_path / "half.db"
    half.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    foreign = tmp_path / "foreign.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE notes (text TEXT)")
    con.commit()
    con.close()

    cases = {damaged: r"is damaged \(database disk image is malformed\)",
             garbage: r"is not a SQLite database, or its first page is damaged",
             empty: r"is empty", half: r"is damaged", foreign: r"not a Warhost one"}
    for backup, reason in cases.items():
        with pytest.raises(BackupError, match=reason) as refused:
            restore(backup, live)
        message = str(refused.value)
        assert str(backup) in message and "Nothing was changed" in message
        assert "Restore another backup" in message
        assert live.read_bytes() == live_bytes
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []

    with pytest.raises(BackupError, match=r"There is no backup file .*nothere\.db"):
        restore(tmp_path / "nothere.db", live)
    with pytest.raises(BackupError, match=r"is the database itself"):
        restore(live, live)
    # The good one goes in.
    assert restore(good, live).games == 3


async def test_a_newer_warhosts_backup_is_refused(tmp_path: Path) -> None:
    live = tmp_path / "warhost.db"
    await _create(live)
    newer = take_backup(live, tmp_path / "b", when=T0).path
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version = 999")
    con.commit()
    con.close()
    with pytest.raises(BackupError, match=r"schema version 999.*newer Warhost.*Upgrade"):
        restore(newer, tmp_path / "restored.db")
    assert not (tmp_path / "restored.db").exists()


async def test_restore_refuses_while_the_bot_has_the_database_open(tmp_path: Path) -> None:
    live = tmp_path / "warhost.db"
    store, ids = await filled(live, games=2, moves=5)
    backup = take_backup(live, tmp_path / "b", when=T0).path
    await play(store, ids[0], 5)                  # after the backup
    try:
        assert database_in_use(live) is not None  # the store here (same process)
        with pytest.raises(BackupError, match=r"is in use.*Stop the bot first.*Nothing was "
                                              r"changed"):
            restore(backup, live)
        assert (await store.get(ids[0])).version == 10
    finally:
        await store.close()
    assert database_in_use(live) is None

    # Stopped: the backup goes in, the newer database is moved aside, whole.
    done = restore(backup, live, when=T0 + timedelta(days=1))
    assert done.moved_aside and done.moved_aside[0].name == \
        "warhost.db.before-restore-20250302T120000Z"
    reopened = await Store.open(str(live))
    try:
        assert (await reopened.get(ids[0])).version == 5
        assert await reopened.history.verify(ids[0])
    finally:
        await reopened.close()
    aside = await Store.open(str(done.moved_aside[0]))
    try:
        assert (await aside.get(ids[0])).version == 10
    finally:
        await aside.close()


HOLDER = """
import asyncio, sys, engine
from tests.fakegame import GAME
engine.GAMES["race"] = GAME
from db import Store

async def main(path):
    store = await Store.open(path)
    await store.get(1)
    print("ready", flush=True)
    await asyncio.sleep(60)

asyncio.run(main(sys.argv[1]))
"""


def test_python_m_db_restore_refuses_while_a_bot_process_runs(tmp_path: Path) -> None:
    live = tmp_path / "warhost.db"
    asyncio.run(_create(live))
    backup = take_backup(live, tmp_path / "b", when=T0).path
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    bot = subprocess.Popen([sys.executable, "-c", HOLDER, str(live)], cwd=REPO, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert bot.stdout is not None and bot.stdout.readline().strip() == "ready"
        result = subprocess.run(
            [sys.executable, "-m", "db", "restore", str(backup), "--database", str(live)],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
        assert result.returncode == 1
        assert "is in use" in result.stderr and "Stop the bot first" in result.stderr
        assert "Traceback" not in result.stderr
    finally:
        bot.kill()
        bot.wait()
    result = subprocess.run(
        [sys.executable, "-m", "db", "restore", str(backup), "--database", str(live)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Restored" in result.stdout and "moved aside" in result.stdout


# ---------------------------------------------------------------------------- python -m db


async def test_cli_backup_check_and_restore(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)          # no .env here
    live = tmp_path / "data" / "warhost.db"
    live.parent.mkdir()
    store, ids = await filled(live, games=2, moves=8)
    await store.close()
    env = {"DATABASE_PATH": str(live), "BACKUP_DIR": str(tmp_path / "kept")}

    assert await asyncio.to_thread(db_main, ["backup"], env) == 0
    out = capsys.readouterr().out
    (made,) = backups_of(tmp_path / "kept", "warhost")
    assert f"to {made}" in out and "2 games" in out and "checked" in out
    assert await asyncio.to_thread(db_main, ["backup", "--database", str(live), "--to",
                                             str(tmp_path / "other")], {}) == 0
    assert len(backups_of(tmp_path / "other", "warhost")) == 1
    assert await asyncio.to_thread(db_main, ["backup", "--database", str(live)], {}) == 0
    assert len(backups_of(live.parent / "backups", "warhost")) == 1      # beside it
    capsys.readouterr()

    assert await asyncio.to_thread(db_main, ["check"], env) == 0
    out = capsys.readouterr().out
    assert "quick_check ok" in out and "All 2 games replay exactly" in out

    # A tampered position is found, named, and the exit status says so.
    con = sqlite3.connect(live)
    con.execute("UPDATE games SET state = replace(state, '\"scores\": [', '\"scores\": [7') "
                "WHERE id = ?", (ids[1],))
    con.commit()
    con.close()
    assert await asyncio.to_thread(db_main, ["check"], env) == 1
    err = capsys.readouterr().err
    assert f"game #{ids[1]}: the saved position differs" in err
    assert "Restore the newest backup" in err

    assert await asyncio.to_thread(db_main, ["restore", str(made)], env) == 0
    out = capsys.readouterr().out
    assert "Restored" in out and "before-restore" in out
    assert await asyncio.to_thread(db_main, ["check"], env) == 0

    # Errors are one clear line on stderr, exit status 1.
    assert await asyncio.to_thread(db_main, ["check", "--database",
                                             str(tmp_path / "nope.db")], {}) == 1
    assert "There is no database at" in capsys.readouterr().err
    assert await asyncio.to_thread(
        db_main, ["backup"], {"DATABASE_URL": "postgresql://u@h/db"}) == 1
    assert "pg_dump" in capsys.readouterr().err
    (tmp_path / "bad.db").write_bytes(b"garbage" * 1000)
    assert await asyncio.to_thread(db_main, ["check", "--database",
                                             str(tmp_path / "bad.db")], {}) == 1
    assert "is not a SQLite database" in capsys.readouterr().err


def test_cli_reads_the_database_path_from_dotenv(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    live = tmp_path / "from-dotenv.db"
    asyncio.run(_create(live))
    (tmp_path / ".env").write_text(f"DATABASE_PATH={live}\nBACKUP_DIR={tmp_path / 'bk'}\n")
    assert db_main(["backup"], {}) == 0
    assert len(backups_of(tmp_path / "bk", "from-dotenv")) == 1
    with pytest.raises(SystemExit) as usage:
        db_main(["restore"], {})
    assert usage.value.code == 2


# ---------------------------------------------------------------------------- the cog


def test_settings_defaults_and_clear_errors(tmp_path: Path) -> None:
    assert MaintenanceSettings.from_env({}, None) == MaintenanceSettings(6.0, None, 14, 30.0)
    assert backup_folder(None, "./warhost.db") == Path("backups")
    assert backup_folder(None, "/data/games.db") == Path("/data/backups")
    assert backup_folder("/elsewhere", "/data/games.db") == Path("/elsewhere")
    got = MaintenanceSettings.from_env({"BACKUP_EVERY_HOURS": "0.5", "BACKUP_DIR": "/x",
                                        "BACKUP_KEEP": "3", "ARCHIVE_AFTER_DAYS": "0"}, None)
    assert got == MaintenanceSettings(0.5, "/x", 3, 0.0)
    dotenv = tmp_path / ".env"
    dotenv.write_text("BACKUP_KEEP=5\nARCHIVE_AFTER_DAYS=7\n")
    got = MaintenanceSettings.from_env({"ARCHIVE_AFTER_DAYS": "9"}, dotenv)
    assert (got.backup_keep, got.archive_after_days) == (5, 9.0)
    for name, value in (("BACKUP_EVERY_HOURS", "often"), ("BACKUP_EVERY_HOURS", "-1"),
                        ("BACKUP_KEEP", "0"), ("BACKUP_KEEP", "2.5"),
                        ("ARCHIVE_AFTER_DAYS", "nan"), ("ARCHIVE_AFTER_DAYS", "forever")):
        with pytest.raises(SettingsError) as bad:
            MaintenanceSettings.from_env({name: value}, None)
        assert name in str(bad.value) and repr(value) in str(bad.value)
        assert "restart the bot" in str(bad.value)


async def test_the_cog_backs_up_on_schedule_and_keeps_n(tmp_path: Path) -> None:
    live = tmp_path / "warhost.db"
    store, ids = await filled(live, games=1, moves=3)
    clock = [T0.timestamp()]
    settings = MaintenanceSettings(backup_every_hours=6, backup_dir=str(tmp_path / "b"),
                                   backup_keep=3, archive_after_days=0)
    cog = Maintenance(SimpleNamespace(store=store), settings,  # type: ignore[arg-type]
                      wall=lambda: clock[0])
    try:
        first = await cog.run_once()
        assert first.backup is not None and first.backup.path.parent == tmp_path / "b"
        assert (await cog.run_once()).backup is None        # not due yet
        for hours in range(1, 6):
            clock[0] = T0.timestamp() + hours * 6 * 3600 + 1
            await play(store, ids[0], 1)
            done = await cog.run_once()
            assert done.backup is not None
        kept = backups_of(tmp_path / "b", "warhost")
        assert len(kept) == 3 and kept[-1] == done.backup.path
        assert check_file(kept[-1]).games == 1
        # The schedule lives in the folder: a new cog (a restart) is not due either.
        again = Maintenance(SimpleNamespace(store=store), settings,  # type: ignore[arg-type]
                            wall=lambda: clock[0] + 60)
        assert (await again.run_once()).backup is None
    finally:
        await store.close()


async def test_the_cog_skips_backups_for_postgresql_and_memory_and_reports_failure(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = MaintenanceSettings(backup_dir=str(tmp_path / "b"), archive_after_days=0)

    async def take(*args: object) -> bool:
        return True              # the only process

    leases = SimpleNamespace(take=take)
    postgres = SimpleNamespace(dialect="postgresql", path="postgresql://u:***@h/db",
                               leases=leases)
    cog = Maintenance(SimpleNamespace(store=postgres), settings)  # type: ignore[arg-type]
    with caplog.at_level("INFO", logger="warhost.maintenance"):
        assert await cog.run_once() == type(await cog.run_once())()
    assert "pg_dump" in caplog.text and caplog.text.count("pg_dump") == 1
    assert not (tmp_path / "b").exists()

    memory = SimpleNamespace(dialect="sqlite", path=":memory:", leases=leases)
    cog = Maintenance(SimpleNamespace(store=memory), settings)  # type: ignore[arg-type]
    assert (await cog.run_once()).backup is None

    gone = SimpleNamespace(dialect="sqlite", path=str(tmp_path / "gone.db"), leases=leases)
    cog = Maintenance(SimpleNamespace(store=gone), settings)  # type: ignore[arg-type]
    caplog.clear()
    with caplog.at_level("ERROR", logger="warhost.maintenance"):
        assert (await cog.run_once()).backup is None
    assert "Backup failed: There is no database at" in caplog.text
    assert "tries again in 60 minutes" in caplog.text
    assert (await cog.run_once()).backup is None     # not retried at every tick


async def test_the_cog_loop_starts_on_load_and_stops_on_unload(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    live = tmp_path / "warhost.db"
    await _create(live)
    store = await Store.open(str(live))
    try:
        settings = MaintenanceSettings(backup_dir=str(tmp_path / "b"), archive_after_days=0)
        cog = Maintenance(SimpleNamespace(store=store), settings,  # type: ignore[arg-type]
                          tick=0.05, first_look=0)
        await cog.cog_load()
        for _ in range(200):
            if backups_of(tmp_path / "b", "warhost"):
                break
            await asyncio.sleep(0.05)
        assert len(backups_of(tmp_path / "b", "warhost")) == 1
        task = cog.loop.task
        assert task is not None and not task.done()
        await cog.cog_unload()
        assert task.done() and cog.loop.task is None

        # Bad settings in the environment: logged clearly, and no loop.
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("BACKUP_KEEP", "none")
        cog = Maintenance(SimpleNamespace(store=store))  # type: ignore[arg-type]
        with caplog.at_level("ERROR", logger="warhost.maintenance"):
            await cog.cog_load()
        assert cog.loop.task is None
        assert "BACKUP_KEEP must be" in caplog.text and "no scheduled backups" in caplog.text
        await cog.cog_unload()
    finally:
        await store.close()


async def test_cli_copy_moves_every_game_and_refuses_a_database_in_use(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live = tmp_path / "warhost.db"
    store, ids = await filled(live, games=2, moves=6)
    try:
        assert await asyncio.to_thread(db_main, ["copy", str(live),
                                                 str(tmp_path / "new.db")], {}) == 1
        assert "is in use" in capsys.readouterr().err
    finally:
        await store.close()
    assert await asyncio.to_thread(db_main, ["copy", str(live), str(tmp_path / "new.db")],
                                   {}) == 0
    out = capsys.readouterr().out
    assert "games: 2 rows" in out and "all 2 games replay exactly" in out
    copied = await Store.open(str(tmp_path / "new.db"))
    try:
        assert [(await copied.get(g)).version for g in ids] == [6, 6]
    finally:
        await copied.close()
    assert await asyncio.to_thread(db_main, ["copy", str(live), str(tmp_path / "new.db")],
                                   {}) == 1
    assert "already has 2 games" in capsys.readouterr().err


@pytest.mark.postgres_only
async def test_cli_check_replays_every_game_on_postgresql(
        database: str, capsys: pytest.CaptureFixture[str]) -> None:
    store = await Store.open(database)
    try:
        lobby = await store.lobby.open("conqueror", "g", "c", "111")
        await store.lobby.join(lobby.id, "222")
        record = await store.lobby.start(lobby.id, "111", seed=4)
        await store.apply_action(record.id, "111", "end")
    finally:
        await store.close()
    assert await asyncio.to_thread(db_main, ["check"], {"DATABASE_URL": database}) == 0
    assert "All 1 games replay exactly" in capsys.readouterr().out
    databases.raw(database, "UPDATE games SET state = replace(state, '\"gold\":0', "
                            "'\"gold\":7') WHERE id = ?", (record.id,))
    assert await asyncio.to_thread(db_main, ["check"], {"DATABASE_URL": database}) == 1
    assert f"game #{record.id}:" in capsys.readouterr().err
