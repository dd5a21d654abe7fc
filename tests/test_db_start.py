"""What the store checks before the bot starts, and how database errors reach people."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import engine
from db import Store, StoreError
from db.backend import CorruptError, ReadOnlyError
from db.opening import database_failed
from tests.databases import raw
from tests.fakegame import GAME as RACE


@pytest.fixture(autouse=True)
def race(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", RACE)


async def a_game(target: str) -> int:
    store = await Store.open(target)
    try:
        lobby = await store.lobby.open("race", "g", "c", "a")
        await store.lobby.join(lobby.id, "b")
        return (await store.lobby.start(lobby.id, "a", seed=3)).id
    finally:
        await store.close()


async def test_another_applications_database_is_refused_untouched(database: str) -> None:
    raw(database, "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    raw(database, "INSERT INTO invoices (id, total) VALUES (1, 9.5)")
    with pytest.raises(StoreError, match=r"belongs to another application.*invoices"):
        await Store.open(database)
    # nothing of Warhost's was added
    if database.startswith("postgresql"):
        names = raw(database, "SELECT table_name FROM information_schema.tables "
                              "WHERE table_schema = current_schema()")
    else:
        names = raw(database, "SELECT name FROM sqlite_master WHERE type = 'table'")
    assert [n[0] for n in names] == ["invoices"]


@pytest.mark.sqlite_only
async def test_a_versioned_file_without_warhost_tables_is_refused(database: str) -> None:
    raw(database, "CREATE TABLE notes (x TEXT)")
    raw(database, "PRAGMA user_version = 2")
    with pytest.raises(StoreError, match="another application"):
        await Store.open(database)


@pytest.mark.sqlite_only
async def test_a_file_with_damaged_pages_is_refused_with_what_to_do(database: str) -> None:
    await a_game(database)
    store = await Store.open(database)
    try:                       # enough rows to span many pages
        for n in range(60):
            lobby = await store.lobby.open("race", "g", f"ch{n}", "a", {"target": 10**6})
            await store.lobby.join(lobby.id, "b")
            await store.lobby.start(lobby.id, "a", seed=n)
    finally:
        await store.close()
    raw(database, "PRAGMA wal_checkpoint(TRUNCATE)")
    size = os.path.getsize(database)
    assert size > 8 * 4096
    with open(database, "r+b") as f:            # scribble over pages in the middle
        f.seek(4 * 4096)
        f.write(os.urandom(3 * 4096))
    with pytest.raises(StoreError, match=r"is damaged .*python -m db restore"):
        await Store.open(database)


@pytest.mark.sqlite_only
async def test_a_read_only_database_is_refused_at_start(database: str) -> None:
    await a_game(database)
    with pytest.raises(StoreError, match="read-only"):
        await Store.open(f"file:{database}?mode=ro")


@pytest.mark.sqlite_only
async def test_an_unwritable_place_is_refused_before_opening(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        await Store.open(str(tmp_path / "no" / "such" / "folder" / "w.db"))
    with pytest.raises(StoreError, match="is a folder"):
        await Store.open(str(tmp_path))


@pytest.mark.postgres_only
async def test_an_unreachable_server_is_refused_without_its_password(database: str) -> None:
    url = "postgresql://warhost:hunter2@127.0.0.1:1/warhost"
    with pytest.raises(StoreError, match="DATABASE_URL") as caught:
        await Store.open(url)
    assert "hunter2" not in str(caught.value) and "***" in str(caught.value)


async def test_a_database_error_mid_read_becomes_a_store_error(database: str) -> None:
    game_id = await a_game(database)
    store = await Store.open(database)
    try:
        raw(database, "ALTER TABLE games RENAME COLUMN nudges TO nudges_old")
        with pytest.raises(StoreError, match="The game database failed"):
            await store.get(game_id)
        with pytest.raises(StoreError, match="Nothing was saved"):
            await store.apply_action(game_id, "a", "roll")
        with pytest.raises(StoreError, match="The game database failed"):
            await store.history.log(game_id)
    finally:
        raw(database, "ALTER TABLE games RENAME COLUMN nudges_old TO nudges")
        await store.close()


def test_damage_is_not_answered_with_try_again() -> None:
    damaged = database_failed(CorruptError("database disk image is malformed"), written=True)
    assert "Trying again will not help" in damaged and "backup" in damaged
    assert "Try again" not in damaged.replace("Trying again", "")
    assert "read-only" in database_failed(ReadOnlyError("x"), written=False)
