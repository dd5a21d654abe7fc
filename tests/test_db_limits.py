"""The store's side of keeping servers in bounds: open games counted per server (the cap
at /game new) and lobbies that expire, with their channel's notice saved in the outbox."""

from __future__ import annotations

import pytest

from db import Store
from db.limits import LOBBY_EXPIRED
from tests.clocks import T0, FakeClock

HOUR = 3600.0


pytestmark = pytest.mark.usefixtures("race")


async def test_open_games_counts_lobbies_and_running_games_of_one_server(
        store: Store) -> None:
    lobby = await store.lobby.open("race", "g1", "c1", "a")
    running = await store.lobby.open("race", "g1", "c2", "a")
    await store.lobby.join(running.id, "b")
    await store.lobby.start(running.id, "a", seed=1)
    over = await store.lobby.open("race", "g1", "c3", "a")
    await store.lobby.abort(over.id)
    await store.lobby.open("race", "g2", "c4", "a")          # another server
    await store.lobby.open("race", None, "dm", "a")          # a direct message
    assert await store.limits.open_games("g1") == 2
    assert await store.limits.open_games("g2") == 1
    assert await store.limits.open_games(None) == 1
    assert await store.limits.open_games("nowhere") == 0
    # the games opened up to a given one (the cap's check after a race)
    assert await store.limits.open_games("g1", up_to=lobby.id) == 1
    assert await store.limits.open_games("g1", up_to=running.id) == 2


async def test_a_lobby_untouched_for_the_limit_is_aborted_with_a_notice(
        store: Store, clock: FakeClock) -> None:
    idle = await store.lobby.open("race", "g1", "c1", "a")
    busy = await store.lobby.open("race", "g1", "c2", "a")
    running = await store.lobby.open("race", "g1", "c3", "a")
    await store.lobby.join(running.id, "b")
    await store.lobby.start(running.id, "a", seed=1)
    clock.t += 20 * HOUR
    await store.lobby.join(busy.id, "b")                 # touched: its 24 hours start again
    clock.t += 5 * HOUR

    closed = await store.limits.expire_lobbies(24 * HOUR)

    assert [r.id for r in closed] == [idle.id]
    assert (await store.get(idle.id)).status == "aborted"
    assert (await store.get(busy.id)).status == "lobby"
    assert (await store.get(running.id)).status == "active"     # games under way never expire
    [notice] = await store.outbox.pending(idle.id)
    assert (notice.kind, notice.recipient) == ("notice", None)
    assert notice.payload["type"] == LOBBY_EXPIRED
    assert notice.payload["idle"] == 24 * HOUR and notice.payload["since"] == T0
    # the channel is free again, and a second pass finds nothing more
    assert await store.active_in_channel("c1") is None
    assert await store.limits.expire_lobbies(24 * HOUR) == []
    clock.t += 20 * HOUR
    assert [r.id for r in await store.limits.expire_lobbies(24 * HOUR)] == [busy.id]


async def test_expiry_off_and_the_batch_limit(store: Store, clock: FakeClock) -> None:
    lobbies = [await store.lobby.open("race", "g1", f"c{i}", "a") for i in range(3)]
    clock.t += 48 * HOUR
    assert await store.limits.expire_lobbies(0) == []                  # 0: lobbies never expire
    first = await store.limits.expire_lobbies(24 * HOUR, limit=2)
    assert [r.id for r in first] == [lobbies[0].id, lobbies[1].id]
    assert [r.id for r in await store.limits.expire_lobbies(24 * HOUR)] == [lobbies[2].id]
