"""Moving a server from SQLite to PostgreSQL (db/transfer.py) keeps every game playable."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from db import Store, StoreError
from db.clocks import TimeControl
from db.transfer import copy_database
from tests.databases import snapshot
from tests.fakegame import GAME as RACE

pytestmark = pytest.mark.postgres_only


@pytest.fixture(autouse=True)
def race(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", RACE)


async def a_server(path: str) -> list[int]:
    """A SQLite server with a game of each kind of state: running, over, in the lobby."""
    store = await Store.open(path)
    try:
        running = await store.lobby.open("race", "g1", "c1", "a",
                                         control=TimeControl(per_move=86400))
        await store.lobby.join(running.id, "b")
        await store.lobby.start(running.id, "a", seed=5)
        for n in range(6):
            await store.apply_action(running.id, "ab"[n % 2], "roll", request_id=f"r{n}")
        over = await store.lobby.open("race", "g1", "c2", "a", {"target": 5})
        await store.lobby.join(over.id, "b")
        await store.lobby.start(over.id, "a", seed=1)
        player = "a"
        while (await store.get(over.id)).status == "active":
            await store.apply_action(over.id, player, "step 2")
            player = "b" if player == "a" else "a"
        lobby = await store.lobby.open("race", None, "dm", "c")
        await store.hosting.follow(running.id, "spectator")
        await store.hosting.set_player_settings("a", dm_reminders=True)
        await store.hosting.set_channel_settings("c1", "g1", reminder_every=3600.0)
        await store.hosting.start_vacation("g1", "b", 2)
        return [running.id, over.id, lobby.id]
    finally:
        await store.close()


async def test_a_sqlite_server_moves_to_postgresql_whole(tmp_path: Path, database: str) -> None:
    source = str(tmp_path / "warhost.db")
    ids = await a_server(source)
    before = snapshot(source)
    said: list[str] = []
    copied = await copy_database(source, database, said.append)
    assert copied.games_checked == 3 and copied.rows["actions"] > 6
    assert any(line.startswith("games: 3 rows") for line in said)
    assert snapshot(source) == before                       # the source was only read

    def rows(target: str) -> list[str]:
        # same rows; numbers compared as numbers (0 and 0.0 are one timestamp)
        return sorted(line.replace(".0,", ",").replace(".0)", ")")
                      for line in snapshot(target) if not line.startswith("leases"))

    assert rows(database) == rows(source)
    store = await Store.open(database)
    try:
        for game_id in ids:
            assert await store.history.problems(game_id) == []
        running = await store.get(ids[0])
        moved = await store.apply_action(ids[0], "a", "roll", request_id="after-move")
        assert moved.seq == running.version + 1
        again = await store.apply_action(ids[0], "b", "roll", request_id="r1")
        assert again.duplicate                                # request ids came along
        fresh = await store.lobby.open("race", "g1", "c9", "z")
        assert fresh.id > max(ids)                            # ids continue past the copy
        assert await store.hosting.following(ids[0], "spectator")
        assert (await store.hosting.player_settings("a")).dm_reminders
    finally:
        await store.close()


async def test_copying_into_a_database_with_games_is_refused(tmp_path: Path,
                                                             database: str) -> None:
    source = str(tmp_path / "warhost.db")
    await a_server(source)
    await copy_database(source, database)
    with pytest.raises(StoreError, match="already has 3 games"):
        await copy_database(source, database)
