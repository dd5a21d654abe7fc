"""Interactions deferred and not yet answered (``store.pending``, migration 10), on both
backends: noted, concluded by the move that saves their answer (the trigger, in the same
transaction) or by hand, left for the next start while their token is good.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from db import Store
from db.backend import open_backend
from db.pending import COMMAND, MOVE, created_at
from db.schema import migrate, migrations_for
from engine.core import IllegalAction
from tests.databases import raw
from tests.fakegame import GAME as RACE  # noqa: F401  (the race fixture's game)

pytestmark = pytest.mark.usefixtures("race")

def snowflake(seconds_ago: float = 0.0, n: int = 0) -> str:
    return str((int((time.time() - seconds_ago) * 1000 - 1_420_070_400_000) << 22) + n)


@pytest.fixture
async def store(database: str) -> AsyncIterator[Store]:
    s = await Store.open(database)
    yield s
    await s.close()


async def started(store: Store) -> int:
    record = await store.lobby.open("race", "g1", "c1", "a", None)
    await store.lobby.join(record.id, "b")
    return (await store.lobby.start(record.id, "a", seed=1)).id


def reply_to(interaction_id: str) -> dict[str, str]:
    return {"application_id": "42", "token": "secret-token-" + interaction_id,
            "interaction_id": interaction_id}


async def test_a_deferral_is_noted_and_concluded(store: Store, database: str) -> None:
    iid = snowflake()
    await store.pending.note(iid, 42, "secret-token", COMMAND, shards="0,1")
    assert store.pending.is_open(iid)
    [row] = raw(database, "SELECT interaction_id, application_id, secret, kind, shards, "
                          "expires_at FROM pending_interactions")
    assert row[:5] == (iid, "42", "secret-token", COMMAND, "0,1")
    assert row[5] == pytest.approx(created_at(iid) + 15 * 60)
    assert abs(created_at(iid) - time.time()) < 5
    await store.pending.note(iid, 42, "secret-token", COMMAND)        # again: one row
    assert await store.pending.count() == 1
    await store.pending.conclude(iid)
    assert not store.pending.is_open(iid)
    assert await store.pending.count() == 0
    await store.pending.conclude(iid)           # nothing left: nothing to do


async def test_the_move_that_saves_its_answer_concludes_it(store: Store) -> None:
    game = await started(store)
    mine, other = snowflake(n=1), snowflake(n=2)
    await store.pending.note(mine, 42, "t1", MOVE)
    await store.pending.note(other, 42, "t2", MOVE)
    with pytest.raises(IllegalAction):          # refused: nothing saved, still pending
        await store.apply_action(game, "b", "roll", reply_to=reply_to(mine))
    assert await store.pending.count() == 2
    await store.apply_action(game, "a", "roll", request_id=mine, reply_to=reply_to(mine))
    left = {d.interaction_id for d in await store.pending.left(before=store.now() + 1)}
    assert left == {other}                      # in the move's own transaction
    await store.apply_action(game, "b", "step 1")       # no answer saved: nothing concluded
    assert await store.pending.count() == 1


async def test_what_a_start_answers(store: Store, database: str) -> None:
    fresh, old, gone, other_shards = (snowflake(60, 1), snowflake(600, 2),
                                      snowflake(16 * 60, 3), snowflake(60, 4))
    for iid in (fresh, old, gone):
        await store.pending.note(iid, 42, "token-" + iid, MOVE)
    await store.pending.note(other_shards, 42, "t", COMMAND, shards="1")
    start = store.now()
    later = snowflake(0, 5)
    await store.pending.note(later, 42, "t", COMMAND)    # this run's own, after its start
    left = await store.pending.left(before=start)
    assert [d.interaction_id for d in left] == [fresh, old]      # oldest noted first
    assert left[0].secret == "token-" + fresh and left[0].kind == MOVE
    assert "token-" not in repr(left[0])        # the token is never shown
    assert [d.interaction_id for d in await store.pending.left("1", before=start)] == \
        [other_shards]
    assert await store.pending.drop([d.interaction_id for d in left]) == 3   # and the expired
    ids = {r[0] for r in raw(database, "SELECT interaction_id FROM pending_interactions")}
    assert ids == {other_shards, later}


async def test_migration_10_adds_the_table_to_a_database_at_9(database: str) -> None:
    backend = await open_backend(database)
    try:
        steps = migrations_for(backend.dialect)
        assert await migrate(backend, database, steps[:9]) == 9
        assert await migrate(backend, database, steps[:10]) == 10
    finally:
        await backend.close()
    store = await Store.open(database)
    try:
        game = await started(store)
        iid = snowflake()
        await store.pending.note(iid, 42, "t", MOVE)
        await store.apply_action(game, "a", "roll", reply_to=reply_to(iid))
        assert await store.pending.count() == 0
    finally:
        await store.close()
