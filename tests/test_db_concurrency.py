"""Racing moves and creates, within one Store and across two Stores (two processes' worth)
on one database, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import time
from collections.abc import AsyncIterator

import pytest

import db.backend
from db import ChannelBusy, GameRecord, MoveResult, Store, StoreError
from engine.core import IllegalAction
from tests.fakegame import GAME as RACE

BIG = {"target": 1000000}   # a race nobody finishes during these tests
#: The Race test game (tests/conftest.py); ``database`` is a fresh one on each backend.
pytestmark = pytest.mark.usefixtures("race")


@pytest.fixture
async def stores(database: str) -> AsyncIterator[tuple[Store, Store]]:
    one = await Store.open(database)
    two = await Store.open(database)
    yield one, two
    await one.close()
    await two.close()


async def started(store: Store, channel: str = "c1") -> GameRecord:
    record = await store.lobby.open("race", "g1", channel, "a", BIG)
    await store.lobby.join(record.id, "b")
    return await store.lobby.start(record.id, "a", seed=11)


async def settle(*moves: object) -> tuple[list[MoveResult], list[IllegalAction]]:
    results = await asyncio.gather(*moves, return_exceptions=True)  # type: ignore[call-overload]
    done = [r for r in results if isinstance(r, MoveResult)]
    refused = [r for r in results if isinstance(r, IllegalAction)]
    assert len(done) + len(refused) == len(results), results
    return done, refused


async def test_two_racing_moves_in_one_store_serialize(stores: tuple[Store, Store]) -> None:
    store = stores[0]
    record = await started(store)
    # Both are legal now; after either one, it is b's turn and the other is not.
    done, refused = await settle(store.apply_action(record.id, "a", "step 1"),
                                 store.apply_action(record.id, "a", "step 2"))
    assert len(done) == 1 and len(refused) == 1
    assert str(refused[0]) == "It is not your turn; it is b's."   # judged on the new state
    after = await store.get(record.id)
    assert after.version == 1 and len(await store.history.log(record.id)) == 1
    assert await store.history.verify(record.id)


async def test_two_connections_racing_serialize(stores: tuple[Store, Store]) -> None:
    one, two = stores
    record = await started(one)
    for _ in range(10):
        current = await one.get(record.id)
        turn = RACE.current_turn(one.load_state(current))
        assert turn is not None
        done, refused = await settle(one.apply_action(record.id, turn, "step 1"),
                                     two.apply_action(record.id, turn, "roll"))
        assert len(done) == 1 and len(refused) == 1
        assert "not your turn" in str(refused[0])
    final = await two.get(record.id)
    assert final.version == 10 and len(await two.history.log(record.id, 100)) == 10
    assert await one.history.verify(record.id) and await two.history.verify(record.id)


async def test_many_players_hammering_two_connections(stores: tuple[Store, Store]) -> None:
    """Each player keeps trying to move through a random connection until 60 moves exist."""
    one, two = stores
    record = await started(one)
    rng = random.Random(5)
    accepted: list[int] = []

    async def player(name: str) -> None:
        while len(accepted) < 60:
            store = rng.choice((one, two))
            try:
                result = await store.apply_action(record.id, name,
                                                  rng.choice(("roll", "step 2")))
            except IllegalAction:
                await asyncio.sleep(0)
                continue
            accepted.append(result.seq)

    await asyncio.gather(player("a"), player("b"), player("a"), player("b"))
    final = await one.get(record.id)
    log = await two.history.log(record.id, 1000)
    assert sorted(accepted) == list(range(1, final.version + 1))   # every seq exactly once
    assert [e.seq for e in log] == list(range(1, final.version + 1))
    assert [e.player for e in log] == ["ab"[n % 2] for n in range(final.version)]
    assert await one.history.verify(record.id)


async def test_same_request_racing_applies_once(stores: tuple[Store, Store]) -> None:
    one, two = stores
    record = await started(one)
    results = await asyncio.gather(one.apply_action(record.id, "a", "roll", "same"),
                                   two.apply_action(record.id, "a", "roll", "same"),
                                   one.apply_action(record.id, "a", "roll", "same"))
    assert sorted(r.duplicate for r in results) == [False, True, True]
    assert {r.seq for r in results} == {1}
    assert all(r.events == results[0].events for r in results)
    assert (await two.get(record.id)).version == 1


@pytest.mark.parametrize("across", [False, True])
async def test_racing_creates_in_one_channel(stores: tuple[Store, Store], across: bool) -> None:
    one, two = stores
    other = two if across else one
    results = await asyncio.gather(
        *(s.lobby.open("race", "g1", "c1", f"host{n}")
          for n, s in enumerate([one, other, one, other])),
        return_exceptions=True)
    winners = [r for r in results if isinstance(r, GameRecord)]
    losers = [r for r in results if isinstance(r, ChannelBusy)]
    assert len(winners) == 1 and len(losers) == 3
    assert all(f"#{winners[0].id}, in the lobby" in str(e) for e in losers)
    assert await two.active_in_channel("c1") == winners[0]
    assert len(await one.list_active("g1")) == 1


async def test_racing_joins_do_not_overfill(stores: tuple[Store, Store]) -> None:
    one, two = stores
    lobby = await one.lobby.open("race", "g1", "c1", "host")   # max 3 players
    results = await asyncio.gather(*(s.lobby.join(lobby.id, f"p{n}")
                                     for n, s in enumerate([one, two] * 3)),
                                   return_exceptions=True)
    joined = [r for r in results if isinstance(r, GameRecord)]
    assert len(joined) == 2
    assert all("is full (3/3 players)" in str(r) for r in results if r not in joined)
    assert len((await two.get(lobby.id)).seats) == 3


@contextlib.asynccontextmanager
async def with_other_process(database: str) -> AsyncIterator[tuple[Store, sqlite3.Connection]]:
    """A store, and another process's connection to the same SQLite file (to take the
    write lock with ``BEGIN IMMEDIATE``); both closed after."""
    store = await Store.open(database)
    holder = sqlite3.connect(database, isolation_level=None)
    try:
        yield store, holder
    finally:
        holder.close()
        await store.close()


@pytest.mark.sqlite_only
async def test_cancelled_while_waiting_for_the_write_lock(database: str) -> None:
    async with with_other_process(database) as (store, holder):
        record = await started(store)
        holder.execute("BEGIN IMMEDIATE")          # another process is writing
        task = asyncio.create_task(store.apply_action(record.id, "a", "step 1"))
        await asyncio.sleep(0.2)                   # stuck in BEGIN IMMEDIATE's busy wait
        assert not task.done()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        holder.execute("ROLLBACK")
        result = await store.apply_action(record.id, "a", "step 2")
        logged = [e.action for e in await store.history.log(record.id)]
        assert result.seq == 1 and logged == ["step 2"]
        assert await store.history.verify(record.id)


@pytest.mark.sqlite_only
async def test_a_write_lock_held_too_long_is_reported_as_busy(
        database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db.backend, "BUSY_TIMEOUT_MS", 100)
    async with with_other_process(database) as (store, holder):
        record = await started(store)
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreError, match=r"busy .*Try again in a moment"):
            await store.apply_action(record.id, "a", "step 1")
        holder.execute("ROLLBACK")
        assert (await store.get(record.id)).version == 0
        assert (await store.apply_action(record.id, "a", "step 1")).seq == 1


@pytest.mark.sqlite_only
async def test_reads_never_wait_for_a_write(database: str) -> None:
    """Another process holds the write lock; our own move to one game waits for it, and
    meanwhile reads of another game (and of that one) answer at once."""
    async with with_other_process(database) as (store, holder):
        waiting, other = await started(store, "c1"), await started(store, "c2")
        holder.execute("BEGIN IMMEDIATE")
        move = asyncio.create_task(store.apply_action(waiting.id, "a", "step 1"))
        await asyncio.sleep(0.2)
        assert not move.done()                       # stuck behind the other process
        began = time.perf_counter()
        for _ in range(20):
            assert (await store.get(other.id)).version == 0
            assert (await store.get(waiting.id)).version == 0
            assert len(await store.list_active("g1")) == 2
        assert time.perf_counter() - began < 1.0     # not the 10 s busy timeout
        holder.execute("ROLLBACK")
        assert (await move).seq == 1


async def _hold_row(url: str, game_id: int, release: asyncio.Event,
                    held: asyncio.Event) -> None:
    """Another process's transaction holding a game's row lock until ``release``."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            await conn.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game_id)
            held.set()
            await release.wait()
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def row_held(database: str, game_id: int) -> AsyncIterator[None]:
    """Another process holds the game's row lock (PostgreSQL) until the block ends."""
    release, held = asyncio.Event(), asyncio.Event()
    holder = asyncio.create_task(_hold_row(database, game_id, release, held))
    await held.wait()
    try:
        yield
    finally:
        release.set()
        await holder


@pytest.mark.postgres_only
async def test_postgres_row_lock_queues_writers_and_not_readers(
        database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = await Store.open(database)
    try:
        busy, other = await started(store, "c1"), await started(store, "c2")
        async with row_held(database, busy.id):
            move = asyncio.create_task(store.apply_action(busy.id, "a", "step 1"))
            await asyncio.sleep(0.3)
            assert not move.done()                   # queued behind the other writer
            began = time.perf_counter()
            assert (await store.apply_action(other.id, "a", "step 1")).seq == 1  # others go
            assert (await store.get(busy.id)).version == 0                       # reads go
            assert time.perf_counter() - began < 1.0
        assert (await move).seq == 1
    finally:
        await store.close()


@pytest.mark.postgres_only
async def test_postgres_lock_held_too_long_is_busy(
        database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db.backend, "BUSY_TIMEOUT_MS", 200)
    store = await Store.open(database)
    try:
        record = await started(store)
        async with row_held(database, record.id):
            with pytest.raises(StoreError, match=r"busy .*Nothing was saved"):
                await store.apply_action(record.id, "a", "step 1")
        assert (await store.get(record.id)).version == 0
        assert (await store.apply_action(record.id, "a", "step 1")).seq == 1
    finally:
        await store.close()
