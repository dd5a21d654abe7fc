"""The store: schema, lobby rules, and apply_action's guarantees (single process)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import engine
from db import ChannelBusy, GameRecord, NotFound, Store, StoreError
from db.backend import DatabaseError, IntegrityError, open_backend
from db.schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    foreign_tables,
    migrate,
    migrations_for,
    split_statements,
    user_version,
)
from engine.core import IllegalAction
from tests.databases import RAW_ERRORS, RAW_INTEGRITY_ERRORS, raw, snapshot
from tests.fakegame import GAME as RACE

sqlite_only = pytest.mark.sqlite_only
#: The Race test game (tests/conftest.py); ``database`` is a fresh one on each backend.
pytestmark = pytest.mark.usefixtures("race")


@pytest.fixture
async def store(database: str) -> AsyncIterator[Store]:
    s = await Store.open(database)
    yield s
    await s.close()


async def started(store: Store, players: tuple[str, ...] = ("a", "b"), seed: int = 1,
                  channel: str = "c1", options: dict[str, Any] | None = None,
                  guild: str | None = "g1") -> GameRecord:
    record = await store.lobby.open("race", guild, channel, players[0], options)
    for p in players[1:]:
        await store.lobby.join(record.id, p)
    return await store.lobby.start(record.id, players[0], seed=seed)


# ---------------------------------------------------------------- schema


@sqlite_only
async def test_open_creates_schema_in_wal_mode(store: Store, database: str) -> None:
    assert raw(database, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert raw(database, "PRAGMA journal_mode") == [("wal",)]
    tables = {r[0] for r in raw(database, "SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"games", "actions"} <= tables
    indexes = {r[0] for r in raw(database, "SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"games_open_per_channel", "games_by_channel", "games_open_by_guild"} <= indexes
    async with store.backend.transaction() as conn:
        assert await conn.execute_fetchall("PRAGMA foreign_keys") == [(1,)]
        assert await conn.execute_fetchall("PRAGMA busy_timeout") == [(10_000,)]
        assert await conn.execute_fetchall("PRAGMA synchronous") == [(2,)]  # FULL
    async with store.backend.reading() as conn:       # a separate read connection
        assert await conn.execute_fetchall("PRAGMA query_only") == [(1,)]


async def test_reopen_keeps_games_and_schema(database: str) -> None:
    s = await Store.open(database)
    record = await started(s)
    moved = await s.apply_action(record.id, "a", "step 2")
    await s.close()
    before = snapshot(database)
    s = await Store.open(database)
    try:
        assert await s.get(record.id) == moved.record
        assert snapshot(database) == before        # reopening migrates nothing again
    finally:
        await s.close()


@sqlite_only
async def test_newer_database_is_refused_clearly(database: str) -> None:
    raw(database, f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    with pytest.raises(StoreError, match="newer Warhost"):
        await Store.open(database)


async def test_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="DATABASE_PATH"):
        await Store.open(str(path))


async def test_migrations_apply_in_order_each_in_its_own_transaction(database: str) -> None:
    steps = ["CREATE TABLE one (x INTEGER);",
             "CREATE TABLE two (y INTEGER); INSERT INTO two VALUES (7);"]
    backend = await open_backend(database)
    try:
        assert await migrate(backend, database, steps) == 2
        broken = [*steps, "CREATE TABLE three (z INTEGER); INSERT INTO nowhere VALUES (1);"]
        with pytest.raises(DatabaseError):
            await migrate(backend, database, broken)
        async with backend.reading() as conn:
            assert await user_version(conn) == 2
            assert await foreign_tables(conn) == ["one", "two"]  # the failed step left nothing
    finally:
        await backend.close()
    assert raw(database, "SELECT y FROM two") == [(7,)]


def test_split_statements_keeps_trigger_bodies_whole() -> None:
    statements = split_statements(MIGRATIONS[0])
    triggers = [s for s in statements if s.startswith("CREATE TRIGGER")]
    assert len(triggers) == 2
    assert all(t.rstrip().endswith("END;") for t in triggers)
    assert all(sqlite3.complete_statement(s) for s in statements)


# ---------------------------------------------------------------- lobby


async def test_create_lobby_seats_the_host_and_resolves_options(store: Store) -> None:
    record = await store.lobby.open("race", "g1", "c1", "host")
    assert record.status == "lobby"
    assert record.seats == ("host",)
    assert record.host_id == "host"
    assert record.options == {"target": 20}
    assert record.state is None and record.version == 0
    assert await store.get(record.id) == record
    other = await store.lobby.open("race", None, "c2", "h2", {"target": 5})
    assert other.options == {"target": 5} and other.guild_id is None
    assert other.id != record.id


async def test_create_lobby_rejects_unknown_kind_and_bad_options(store: Store,
                                                                 database: str) -> None:
    with pytest.raises(IllegalAction, match="no game called 'chess'"):
        await store.lobby.open("chess", "g1", "c1", "h")
    with pytest.raises(IllegalAction, match="no option called 'speed'"):
        await store.lobby.open("race", "g1", "c1", "h", {"speed": 3})
    with pytest.raises(IllegalAction, match="target must be one of"):
        await store.lobby.open("race", "g1", "c1", "h", {"target": 7})
    assert raw(database, "SELECT COUNT(*) FROM games") == [(0,)]


async def test_one_open_game_per_channel(store: Store) -> None:
    first = await store.lobby.open("race", "g1", "c1", "a")
    with pytest.raises(ChannelBusy) as busy:
        await store.lobby.open("race", "g1", "c1", "b")
    assert str(busy.value) == (f"This channel already has a game (Race, #{first.id}, in the "
                               "lobby). Finish or abort it first, or open a thread.")
    await store.lobby.join(first.id, "b")
    await store.lobby.start(first.id, "a", seed=3)
    with pytest.raises(ChannelBusy, match=r"\(Race, #\d+, under way\)"):
        await store.lobby.open("race", "g1", "c1", "b")
    thread = await store.lobby.open("race", "g1", "thread-of-c1", "b")
    assert thread.status == "lobby"
    await store.lobby.abort(first.id)
    again = await store.lobby.open("race", "g1", "c1", "b")
    assert (await store.active_in_channel("c1")) == again


async def test_unique_index_backs_up_the_channel_rule(store: Store, database: str) -> None:
    await store.lobby.open("race", "g1", "c1", "a")
    insert = ("INSERT INTO games (kind, guild_id, channel_id, host_id, status, seats, options, "
              "created_at, updated_at) VALUES ('race', 'g1', 'c1', 'z', ?, '[\"z\"]', '{}', 0, 0)")
    with pytest.raises(RAW_INTEGRITY_ERRORS):
        raw(database, insert, ("active",))
    raw(database, insert, ("finished",))           # closed games may pile up in a channel
    raw(database, insert, ("aborted",))
    assert raw(database, "SELECT COUNT(*) FROM games WHERE channel_id='c1'") == [(3,)]


async def test_join_rules(store: Store) -> None:
    record = await store.lobby.open("race", "g1", "c1", "a")
    with pytest.raises(StoreError, match="already seated"):
        await store.lobby.join(record.id, "a")
    await store.lobby.join(record.id, "b")
    record = await store.lobby.join(record.id, "c")
    assert record.seats == ("a", "b", "c")
    with pytest.raises(StoreError, match=r"is full \(3/3 players\)"):
        await store.lobby.join(record.id, "d")
    with pytest.raises(NotFound, match="There is no game #999"):
        await store.lobby.join(999, "d")
    await store.lobby.leave(record.id, "c")
    await store.lobby.start(record.id, "a")
    with pytest.raises(StoreError, match="already started"):
        await store.lobby.join(record.id, "d")
    assert (await store.get(record.id)).seats == ("a", "b")


async def test_leave_passes_host_on_and_last_one_out_aborts(store: Store) -> None:
    record = await store.lobby.open("race", "g1", "c1", "a")
    await store.lobby.join(record.id, "b")
    await store.lobby.join(record.id, "c")
    with pytest.raises(StoreError, match="not seated"):
        await store.lobby.leave(record.id, "zed")
    record = await store.lobby.set_seats(record.id, ["b", "a", "c"])
    record = await store.lobby.leave(record.id, "a")     # host was seat 2: seat 3 takes over
    assert record.seats == ("b", "c") and record.host_id == "c"
    record = await store.lobby.leave(record.id, "b")     # not the host: host stays
    assert record.seats == ("c",) and record.host_id == "c"
    record = await store.lobby.leave(record.id, "c")
    assert record.status == "aborted" and record.seats == ()
    assert await store.active_in_channel("c1") is None
    with pytest.raises(StoreError, match="is over"):
        await store.lobby.join(record.id, "a")


async def test_leave_after_start_is_refused(store: Store) -> None:
    record = await started(store)
    with pytest.raises(StoreError, match="already started; to leave it, resign"):
        await store.lobby.leave(record.id, "b")


async def test_set_seats_must_be_a_permutation(store: Store) -> None:
    record = await store.lobby.open("race", "g1", "c1", "a")
    await store.lobby.join(record.id, "b")
    for bad in (["a"], ["a", "a"], ["a", "b", "c"], ["a", "c"]):
        with pytest.raises(StoreError, match="each seated player exactly once"):
            await store.lobby.set_seats(record.id, bad)
    record = await store.lobby.set_seats(record.id, ["b", "a"])
    assert record.seats == ("b", "a") and record.host_id == "a"
    started_record = await store.lobby.start(record.id, "a", seed=9)
    assert RACE.players(store.load_state(started_record)) == ["b", "a"]
    with pytest.raises(StoreError, match="already started"):
        await store.lobby.set_seats(record.id, ["a", "b"])


async def test_start_rules(store: Store) -> None:
    record = await store.lobby.open("race", "g1", "c1", "a")
    with pytest.raises(StoreError, match="needs at least 2 players; 1 seated"):
        await store.lobby.start(record.id, "a")
    await store.lobby.join(record.id, "b")
    with pytest.raises(StoreError, match="Only the host, <@a>, can start"):
        await store.lobby.start(record.id, "b")
    with pytest.raises(StoreError, match="seed must be a whole number"):
        await store.lobby.start(record.id, "a", seed=-1)
    assert (await store.get(record.id)).status == "lobby"
    record = await store.lobby.start(record.id, "a", seed=42)
    assert record.status == "active" and record.version == 0 and record.seed == 42
    assert record.state == RACE.dump(RACE.new_game(["a", "b"], 42, {"target": 20}))
    with pytest.raises(StoreError, match="already started"):
        await store.lobby.start(record.id, "a")


async def test_start_without_seed_picks_a_random_63_bit_seed(store: Store) -> None:
    seeds = set()
    for n in range(3):
        record = await started(store, channel=f"c{n}", seed=0)
        assert record.seed == 0
        lobby = await store.lobby.open("race", "g1", f"r{n}", "a")
        await store.lobby.join(lobby.id, "b")
        seeds.add((await store.lobby.start(lobby.id, "a")).seed)
    assert len(seeds) == 3 and all(0 <= s < 2**63 for s in seeds)


async def test_abort(store: Store) -> None:
    lobby = await store.lobby.open("race", "g1", "c1", "a")
    assert (await store.lobby.abort(lobby.id)).status == "aborted"
    with pytest.raises(StoreError, match="already over"):
        await store.lobby.abort(lobby.id)
    game = await started(store, channel="c2")
    aborted = await store.lobby.abort(game.id)
    assert aborted.status == "aborted" and aborted.state == game.state


async def test_listing_and_lookup(store: Store) -> None:
    a = await store.lobby.open("race", "g1", "c1", "a")
    b = await started(store, channel="c2")
    c = await store.lobby.open("race", "g2", "c3", "a")
    d = await store.lobby.open("race", None, "dm", "a")
    done = await store.lobby.open("race", "g1", "c4", "a")
    await store.lobby.abort(done.id)
    assert [r.id for r in await store.list_active("g1")] == [a.id, b.id]
    assert [r.id for r in await store.list_active("g2")] == [c.id]
    assert [r.id for r in await store.list_active(None)] == [d.id]
    assert await store.list_active("nowhere") == []
    assert (await store.active_in_channel("c2")) == b
    assert await store.active_in_channel("c4") is None
    with pytest.raises(NotFound, match=r"There is no game #12345\."):
        await store.get(12345)
    # ids from custom_id text work too
    assert (await store.get(str(a.id))).id == a.id  # type: ignore[arg-type]


async def test_set_lobby_message(store: Store) -> None:
    record = await store.lobby.open("race", "g1", "c1", "a")
    await store.lobby.set_message(record.id, "m-77")
    assert (await store.get(record.id)).lobby_message_id == "m-77"
    with pytest.raises(NotFound):
        await store.lobby.set_message(404, "m")


# ---------------------------------------------------------------- moves


async def test_apply_action_persists_move_log_and_snapshot(store: Store, database: str) -> None:
    record = await started(store, seed=5)
    expected_state, expected_events = RACE.apply(store.load_state(record), "a", "roll")
    result = await store.apply_action(record.id, "a", "roll", request_id="i-1")
    assert not result.duplicate and result.seq == 1
    assert result.events == expected_events
    assert any(e.get("private_to") == "a" for e in result.events)
    assert result.state == expected_state
    assert result.record.version == 1 and result.record.status == "active"
    assert result.record.state == RACE.dump(expected_state)
    assert await store.get(record.id) == result.record
    entries = await store.history.log(record.id)
    assert [(e.seq, e.player, e.action, e.events) for e in entries] == [
        (1, "a", "roll", expected_events)]
    assert raw(database, "SELECT request_id FROM actions") == [("i-1",)]
    assert await store.history.verify(record.id)


async def test_log_is_newest_last_and_limited(store: Store) -> None:
    record = await started(store)
    for n in range(6):
        await store.apply_action(record.id, "ab"[n % 2], f"step {n % 3 + 1}")
    assert [e.seq for e in await store.history.log(record.id, limit=3)] == [4, 5, 6]
    assert [e.seq for e in await store.history.log(record.id)] == [1, 2, 3, 4, 5, 6]
    assert await store.history.log(record.id, limit=0) == []
    with pytest.raises(NotFound):
        await store.history.log(777)


async def test_action_is_logged_as_given_and_replays(store: Store) -> None:
    record = await started(store)
    await store.apply_action(record.id, "a", "  STEP   2 ")
    assert [e.action for e in await store.history.log(record.id)] == ["  STEP   2 "]
    assert await store.history.verify(record.id)


async def test_illegal_action_leaves_the_database_byte_identical(store: Store,
                                                                 database: str) -> None:
    record = await started(store)
    await store.apply_action(record.id, "a", "roll")
    before = snapshot(database)
    state = store.load_state(await store.get(record.id))
    for player, action in [("a", "roll"), ("b", "jump"), ("zed", "roll"), ("b", "x" * 500)]:
        with pytest.raises(IllegalAction) as refused:
            await store.apply_action(record.id, player, action, request_id=f"bad-{player}")
        with pytest.raises(IllegalAction) as direct:
            RACE.apply(state, player, action)
        assert str(refused.value) == str(direct.value)      # re-raised unchanged
    assert snapshot(database) == before
    assert (await store.get(record.id)).version == 1
    # A refused request id is not burnt: the same id may carry a legal move later.
    ok = await store.apply_action(record.id, "b", "step 1", request_id="bad-b")
    assert not ok.duplicate and ok.seq == 2


async def test_games_not_under_way_refuse_moves(store: Store) -> None:
    lobby = await store.lobby.open("race", "g1", "c1", "a")
    with pytest.raises(IllegalAction, match=r"^This game has not started yet\.$"):
        await store.apply_action(lobby.id, "a", "roll")
    game = await started(store, channel="c2")
    await store.lobby.abort(game.id)
    with pytest.raises(IllegalAction, match="This game is over"):
        await store.apply_action(game.id, "a", "roll")
    with pytest.raises(NotFound):
        await store.apply_action(4040, "a", "roll")


async def test_winning_move_finishes_the_game(store: Store, database: str) -> None:
    record = await started(store, options={"target": 5})
    await store.apply_action(record.id, "a", "step 3")
    await store.apply_action(record.id, "b", "step 1")
    result = await store.apply_action(record.id, "a", "step 2")
    assert result.record.status == "finished"
    assert {"type": "win", "player": "a", "text": "a wins"} in result.events
    assert RACE.outcome(result.state) is not None
    before = snapshot(database)
    with pytest.raises(IllegalAction, match=r"^This game is over\.$"):
        await store.apply_action(record.id, "b", "step 1")
    with pytest.raises(IllegalAction, match=r"^This game is over\.$"):
        await store.apply_action(record.id, "b", "resign")
    assert snapshot(database) == before
    assert await store.active_in_channel("c1") is None
    with pytest.raises(StoreError, match="already over"):
        await store.lobby.abort(record.id)
    assert await store.history.verify(record.id)


async def test_resign_ends_a_two_player_game(store: Store) -> None:
    record = await started(store)
    result = await store.apply_action(record.id, "b", "resign")   # out of turn is fine
    assert result.record.status == "finished"
    outcome = RACE.outcome(result.state)
    assert outcome is not None and outcome.winners == ("a",)


async def test_request_id_is_applied_once(store: Store, database: str) -> None:
    record = await started(store, seed=1, options={"target": 10})
    first = await store.apply_action(record.id, "a", "roll", request_id="123")
    assert first.record.status == "active"
    before = snapshot(database)
    again = await store.apply_action(record.id, "a", "roll", request_id="123")
    assert again.duplicate and not first.duplicate
    assert again.events == first.events and again.seq == first.seq == 1
    assert again.record == first.record and again.state == first.state
    assert snapshot(database) == before
    # Still recognised after later moves, and after the game has ended.
    await store.apply_action(record.id, "b", "step 3", request_id=124)  # type: ignore[arg-type]
    for player in "abababa":
        if (await store.get(record.id)).status == "finished":
            break
        await store.apply_action(record.id, player, "step 3")
    finished = await store.get(record.id)
    assert finished.status == "finished"
    late = await store.apply_action(record.id, "a", "roll", request_id="123")
    assert late.duplicate and late.seq == 1 and late.events == first.events
    assert late.record == finished
    int_id = await store.apply_action(record.id, "b", "step 3", request_id="124")
    assert int_id.duplicate and int_id.seq == 2
    assert raw(database, "SELECT COUNT(*) FROM actions") == [(finished.version,)]


async def test_request_id_reused_for_something_else_is_refused(store: Store) -> None:
    one = await started(store, channel="c1")
    two = await started(store, channel="c2")
    await store.apply_action(one.id, "a", "step 1", request_id="r")
    with pytest.raises(StoreError, match="different action"):
        await store.apply_action(one.id, "a", "step 2", request_id="r")
    with pytest.raises(StoreError, match="already used for game"):
        await store.apply_action(two.id, "a", "step 1", request_id="r")
    assert (await store.get(two.id)).version == 0


async def test_reopened_mid_game_continues_identically(database: str, tmp_path: Path) -> None:
    moves = [("a", "roll"), ("b", "roll"), ("a", "step 1"), ("b", "roll"), ("a", "roll"),
             ("b", "step 3"), ("a", "roll"), ("b", "roll")]
    straight = await Store.open(str(tmp_path / "straight.db"))
    try:
        game = await started(straight, seed=77, options={"target": 1000000})
        for player, action in moves:
            await straight.apply_action(game.id, player, action)
        expected = await straight.get(game.id)
        expected_log = await straight.history.log(game.id, 100)
    finally:
        await straight.close()

    s = await Store.open(database)
    game = await started(s, seed=77, options={"target": 1000000})
    for player, action in moves[:3]:
        await s.apply_action(game.id, player, action)
    await s.close()
    for chunk in (moves[3:5], moves[5:]):
        s = await Store.open(database)
        try:
            for player, action in chunk:
                await s.apply_action(game.id, player, action)
        finally:
            await s.close()
    s = await Store.open(database)
    try:
        final = await s.get(game.id)
        assert final.state == expected.state and final.version == expected.version == 8
        log = await s.history.log(game.id, 100)
        assert [(e.player, e.action, e.events) for e in log] == [
            (e.player, e.action, e.events) for e in expected_log]
        assert await s.history.verify(game.id)
    finally:
        await s.close()


async def test_verify_detects_tampering(store: Store, database: str) -> None:
    record = await started(store)
    lobby = await store.lobby.open("race", "g1", "c9", "a")
    assert await store.history.verify(lobby.id)
    for n in range(4):
        await store.apply_action(record.id, "ab"[n % 2], "roll")
    assert await store.history.verify(record.id) and await store.history.problems(record.id) == []
    state = (await store.get(record.id)).state
    assert state is not None
    raw(database, "UPDATE games SET state = ? WHERE id = ?",
        (state.replace('"scores": [', '"scores": [1'), record.id))
    assert not await store.history.verify(record.id)
    assert "differs from the replayed one" in " ".join(await store.history.problems(record.id))
    raw(database, "UPDATE games SET state = ?, version = 5 WHERE id = ?", (state, record.id))
    assert await store.history.problems(record.id) == ["version 5 but 4 logged actions"]


async def test_the_log_is_append_only(store: Store, database: str) -> None:
    record = await started(store)
    await store.apply_action(record.id, "a", "roll")
    with pytest.raises(RAW_ERRORS, match="append-only"):
        raw(database, "UPDATE actions SET action = 'step 3'")
    with pytest.raises(RAW_ERRORS, match="append-only"):
        raw(database, "DELETE FROM actions")
    with pytest.raises(IntegrityError):            # the foreign key holds too
        async with store.backend.transaction() as conn:
            await conn.execute("INSERT INTO actions (game_id, seq, player, action, events, "
                               "request_id, created_at, origin) "
                               "VALUES (999, 1, 'a', 'roll', '[]', NULL, 0, 'player')")


async def test_failure_after_the_log_insert_rolls_everything_back(
        store: Store, database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    record = await started(store)
    await store.apply_action(record.id, "a", "roll")
    before = snapshot(database)

    async def broken_write(*args: Any, **kwargs: Any) -> GameRecord:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "write", broken_write)
    with pytest.raises(RuntimeError, match="disk on fire"):
        await store.apply_action(record.id, "b", "roll", request_id="x")
    assert snapshot(database) == before
    monkeypatch.undo()
    monkeypatch.setitem(engine.GAMES, "race", RACE)
    result = await store.apply_action(record.id, "b", "roll", request_id="x")
    assert not result.duplicate and result.seq == 2
    assert await store.history.verify(record.id)


async def test_cancelled_move_leaves_nothing_half_written(
        store: Store, database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    record = await started(store)
    before = snapshot(database)
    inserted = asyncio.Event()
    real_write = store.write

    async def slow_write(*args: Any, **kwargs: Any) -> GameRecord:
        inserted.set()                       # the action row is in, uncommitted
        await asyncio.sleep(30)
        return await real_write(*args, **kwargs)

    monkeypatch.setattr(store, "write", slow_write)
    task = asyncio.create_task(store.apply_action(record.id, "a", "roll"))
    await inserted.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    monkeypatch.setattr(store, "write", real_write)
    assert snapshot(database) == before
    assert (await store.get(record.id)).version == 0
    result = await store.apply_action(record.id, "a", "roll")
    assert result.seq == 1 and await store.history.verify(record.id)


async def test_state_cache_is_keyed_by_game_and_version(store: Store) -> None:
    record = await started(store)
    first = store.load_state(record)
    assert store.load_state(record) is first                     # parsed once
    moved = await store.apply_action(record.id, "a", "step 2")
    assert store.load_state(moved.record) is moved.state          # cached by the move
    assert store.load_state(record) == first                      # an old record still works
    assert store.load_state(await store.get(record.id)) is moved.state  # stale one didn't win
    # A record whose text differs at the same version is parsed, not served from cache.
    assert moved.record.state is not None
    forged = GameRecord(**{**moved.record.__dict__,
                           "state": moved.record.state.replace('"turn": 1', '"turn": 0')})
    assert RACE.current_turn(store.load_state(forged)) == "a"
    assert RACE.current_turn(store.load_state(moved.record)) == "b"
    lobby = await store.lobby.open("race", "g1", "c2", "a")
    with pytest.raises(StoreError, match="has not started yet"):
        store.load_state(lobby)


async def test_moves_by_another_connection_are_seen(database: str) -> None:
    one = await Store.open(database)
    two = await Store.open(database)
    try:
        record = await started(one)
        await one.apply_action(record.id, "a", "step 1")     # one caches version 1
        await two.apply_action(record.id, "b", "step 2")     # two moves behind one's back
        result = await one.apply_action(record.id, "a", "step 3")
        assert result.seq == 3
        assert RACE.view(result.state, None)["scores"] == [4, 2]
        assert await two.history.verify(record.id)
    finally:
        await one.close()
        await two.close()


async def test_closed_store_says_so(database: str) -> None:
    s = await Store.open(database)
    await s.close()
    await s.close()                                            # idempotent
    with pytest.raises(StoreError, match="closed"):
        await s.get(1)


# ---------------------------------------------------------------- announcements (the outbox)


async def test_a_database_from_before_announcements_is_migrated_in_place(database: str) -> None:
    backend = await open_backend(database)
    try:                                         # a Warhost of the first schema
        await migrate(backend, database, migrations_for(backend.dialect)[:1])
        async with backend.transaction() as conn:
            await conn.execute(
                "INSERT INTO games (kind, guild_id, channel_id, host_id, status, seats, seed, "
                "options, state, version, created_at, updated_at) VALUES ('race', 'g', 'c', "
                "'a', 'active', '[\"a\",\"b\"]', 1, '{}', NULL, 7, 0, 0)")
    finally:
        await backend.close()
    store = await Store.open(database)
    try:
        record = await store.get(1)
        # nothing of the running game is told again, and no decision is bound yet
        assert (record.digest_seq, record.decisions) == (7, {})
        assert await store.outbox.pending() == []
    finally:
        await store.close()


async def test_each_move_saves_what_it_makes_due_in_its_own_transaction(store: Store) -> None:
    game = await started(store)
    # the opening digest, and the status message's refresh that follows every digest
    [opening, status] = await store.outbox.pending(game.id)
    assert (opening.kind, opening.seq, status.kind, status.seq) == ("digest", 0, "status", 0)
    assert (opening.payload["first"], opening.payload["last"]) == (1, 0)
    assert opening.payload["to_act"] == ["a"] and "view" in opening.payload
    await store.outbox.mark_delivered(opening.id, "m1")
    await store.outbox.mark_delivered(status.id, "m0")
    reply = {"application_id": "1", "token": "secret-token", "interaction_id": "9"}
    moved = await store.apply_action(game.id, "a", "roll", request_id="r1", reply_to=reply)
    # the roller's answer (with their private luck in it), the turn's digest, the status
    [answer, digest, status] = await store.outbox.pending(game.id)
    assert moved.announcements == (answer.id, digest.id, status.id)
    assert status.kind == "status" and status.payload == {}
    assert (answer.kind, answer.recipient, answer.secret) == ("reply", "a", "secret-token")
    assert answer.payload["turn_passed"] is True and "token" not in answer.payload
    assert (digest.payload["first"], digest.payload["last"], digest.payload["to_act"]) == (
        1, 1, ["b"])
    assert (await store.get(game.id)).digest_seq == 1
    await store.outbox.mark_delivered(answer.id, None)
    assert (await store.outbox.get(answer.id)).secret is None   # the token is forgotten
    # without an interaction (a timer, say), a roll's private event goes by DM
    await store.apply_action(game.id, "b", "roll")
    kinds = [(a.kind, a.recipient) for a in await store.outbox.pending(game.id)]
    assert kinds == [("digest", None), ("status", None), ("private", "b"), ("digest", None),
                     ("status", None)]


async def test_a_failed_move_saves_no_announcement(store: Store) -> None:
    game = await started(store)
    before = await store.outbox.pending(game.id)
    with pytest.raises(IllegalAction):
        await store.apply_action(game.id, "b", "roll", reply_to={"token": "t"})
    assert await store.outbox.pending(game.id) == before


async def test_a_move_sent_before_its_players_decision_began_is_refused(store: Store) -> None:
    game = await started(store)
    began_a = (await store.get(game.id)).decisions["a"]
    await store.apply_action(game.id, "a", "roll", sent_at=began_a + 1)
    record = await store.get(game.id)
    began_b = record.decisions["b"]
    assert set(record.decisions) == {"b"} and began_b >= began_a
    # b's "roll" sent before a's roll made it b's turn: chosen for another moment
    with pytest.raises(IllegalAction, match="before your current turn began"):
        await store.apply_action(game.id, "b", "roll", sent_at=began_b - 0.5)
    assert (await store.get(game.id)).version == 1
    # resigning is never refused for that, and a move sent after the turn began applies
    await store.apply_action(game.id, "b", "step 1", sent_at=began_b + 0.1)
    assert (await store.get(game.id)).version == 2
    await store.apply_action(game.id, "b", "resign", sent_at=0.0)
    assert (await store.get(game.id)).status == "finished"
