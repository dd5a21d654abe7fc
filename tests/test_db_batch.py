"""A move's database work in one batch: ``Backend.batch`` (one hop to SQLite's thread for
the whole transaction), ``Backend.batch_read``, the delivery read made in the move's own
transaction (``prefetch``), and the outbox marking several announcements in one
statement. Both backends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import aiosqlite
import pytest

from db import GameRecord, Store, StoreError
from db.backend import NotInline, is_postgres
from db.records import DIGEST, REPLY, STATUS


async def started(store: Store, channel: str = "c1") -> GameRecord:
    record = await store.lobby.open("conqueror", "g1", channel, "1")
    await store.lobby.join(record.id, "2")
    return await store.lobby.start(record.id, "1", seed=3)


class Hops:
    """Calls onto aiosqlite connections' threads, while counting."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real: Callable[..., Any] = aiosqlite.Connection._execute

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await real(*args, **kwargs)

        monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)


async def rows(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    async with store.reading() as conn:
        return [tuple(r) for r in await conn.execute_fetchall(sql, params)]


async def test_a_move_with_its_delivery_read_is_one_hop_on_sqlite(
        store: Store, database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    record = await started(store)
    opening = await store.outbox.read_delivery(record.id)
    await store.outbox.mark_all_delivered([(a.id, None) for a in opening.pending])
    hops = Hops(monkeypatch)
    move = await store.apply_action(record.id, "1", "end", request_id="r1",
                                    reply_to={"application_id": "9", "token": "t",
                                              "interaction_id": "r1"},
                                    prefetch=store.outbox.delivery)
    if not is_postgres(database):
        assert hops.count == 1
    read = move.delivery
    assert read is not None and read.record == move.record
    # exactly what a separate read finds: the reply, the digest, the status refresh
    again = await store.outbox.read_delivery(record.id)
    assert read.pending == again.pending
    assert [a.kind for a in read.pending] == [REPLY, DIGEST, STATUS]
    assert set(move.announcements) == {a.id for a in read.pending}
    assert read.between(1, 1) == again.between(1, 1)
    assert [e.action for e in read.between(1, 1) or []] == ["end"]
    assert read.between(1, 2) is None           # not all there: the caller reads itself
    # a duplicate request reads nothing more and reports no delivery
    assert (await store.apply_action(record.id, "1", "end", request_id="r1",
                                     prefetch=store.outbox.delivery)).delivery is None


async def test_marking_several_announcements_is_one_statement(
        store: Store, database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    record = await started(store)
    await store.apply_action(record.id, "1", "end")
    pending = (await store.outbox.read_delivery(record.id)).pending
    assert len(pending) >= 3
    hops = Hops(monkeypatch)
    done = [(a.id, str(1000 + n) if n % 2 else None) for n, a in enumerate(pending)]
    await store.outbox.mark_all_delivered(done)
    if not is_postgres(database):
        assert hops.count == 1
    assert (await store.outbox.read_delivery(record.id)).pending == ()
    stored = await rows(store, "SELECT id, message_id, secret, delivered_at FROM "
                               "announcements WHERE game_id = ? ORDER BY id", (record.id,))
    marked = {row[0]: row for row in stored}
    for item_id, message_id in done:
        assert marked[item_id][1] == message_id
        assert marked[item_id][2] is None and marked[item_id][3] is not None
    await store.outbox.mark_all_delivered([])        # nothing to mark: no statement


async def test_a_batch_that_awaits_anything_else_is_refused_and_changes_nothing(
        store: Store, database: str) -> None:
    record = await started(store)

    async def sleeps(conn: Any) -> None:
        await conn.execute("UPDATE games SET host_id = 'x' WHERE id = ?", (record.id,))
        await asyncio.sleep(0)

    if is_postgres(database):
        # a plain transaction there: any await is fine, and it commits
        await store.batch(sleeps)
        assert (await store.get(record.id)).host_id == "x"
        return
    with pytest.raises(NotInline, match="sleeps awaited something other"):
        await store.batch(sleeps)
    assert (await store.get(record.id)).host_id == "1"        # rolled back
    # and the writer is free again
    await store.apply_action(record.id, "1", "end")


async def test_a_failing_batch_rolls_back_everything_it_did(store: Store) -> None:
    record = await started(store)

    async def half(conn: Any) -> None:
        await conn.execute("UPDATE games SET host_id = 'x' WHERE id = ?", (record.id,))
        await conn.execute("INSERT INTO no_such_table VALUES (1)")

    with pytest.raises(StoreError, match=r"no_such_table.*Nothing was saved"):
        await store.batch(half)
    assert (await store.get(record.id)).host_id == "1"
    assert (await store.apply_action(record.id, "1", "end")).seq == 1


async def test_batch_read_sees_one_moment(store: Store, database: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    record = await started(store)
    hops = Hops(monkeypatch)

    async def both(conn: Any) -> tuple[int, int]:
        games = await conn.execute_fetchall("SELECT count(*) FROM games")
        announced = await conn.execute_fetchall(
            "SELECT count(*) FROM announcements WHERE game_id = ?", (record.id,))
        return int(games[0][0]), int(announced[0][0])

    assert await store.batch_read(both) == (1, 2)
    if not is_postgres(database):
        assert hops.count == 1


async def test_a_long_backlog_reads_its_actions_when_each_is_sent(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The move's delivery read holds the logged actions its news tells, unless the news
    waiting goes back further than ``DELIVERY_ENTRIES`` actions: then none (each is read
    as it is sent), so a game whose channel fails for a while costs its moves nothing."""
    import db.outbox

    record = await started(store)
    for player in ("1", "2", "1"):
        move = await store.apply_action(record.id, player, "end",
                                        prefetch=store.outbox.delivery)
    assert move.delivery is not None and move.delivery.between(1, 3) is not None
    monkeypatch.setattr(db.outbox, "DELIVERY_ENTRIES", 3)     # the opening's news is at 0
    move = await store.apply_action(record.id, "2", "end", prefetch=store.outbox.delivery)
    assert move.delivery is not None and move.delivery.entries == {}
    assert move.delivery.between(4, 4) is None
    assert len(move.delivery.pending) == len((await store.outbox.read_delivery(record.id)).pending)
