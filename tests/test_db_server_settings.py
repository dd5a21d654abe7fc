"""Each server's own settings in the store (``store.server_settings``), on both backends:
the default from the environment until a server sets its own, values checked in words,
and the places that use them: lobbies that expire, the reminders' defaults. Also the
values the bot's processes share (the hash of the commands last synced), and vacation
lengths refused in words by the store itself."""

from __future__ import annotations

import math
from typing import Any

import pytest

from db import GameRecord, Store, StoreError
from db.clocks import HOUR, MINUTE
from db.server_settings import (
    BUILT_IN,
    LOBBY_EXPIRY_HOURS,
    MAX_OPEN_GAMES,
    REMINDER_EVERY,
    REMINDER_LIMIT,
    SETTINGS,
    SettingError,
)
from tests import databases
from tests.clocks import FakeClock

pytestmark = pytest.mark.usefixtures("race")


async def started(store: Store, guild: str, channel: str) -> GameRecord:
    record = await store.lobby.open("race", guild, channel, "a", {"target": 1000000})
    await store.lobby.join(record.id, "b")
    return await store.lobby.start(record.id, "a", seed=1)


async def reminders(store: Store, game_id: int) -> list[dict[str, Any]]:
    """The reminders pending for a game (then delivered)."""
    found = []
    for a in await store.outbox.pending(game_id):
        if a.payload.get("type") == "reminder":
            found.append(a.payload)
        await store.outbox.mark_delivered(a.id, None)
    return found


async def wake_all(store: Store) -> None:
    for game_id in await store.hosting.due_games():
        await store.hosting.wake(game_id)


async def test_defaults_until_a_server_sets_its_own_then_reset(store: Store) -> None:
    values = await store.server_settings.of("g1")
    assert list(values) == list(SETTINGS)
    assert {n: (v.value, v.own) for n, v in values.items()} == {
        n: (BUILT_IN[n], False) for n in SETTINGS}
    store.server_settings.use_defaults({MAX_OPEN_GAMES: 7, LOBBY_EXPIRY_HOURS: 0})
    assert await store.server_settings.value("g1", MAX_OPEN_GAMES) == 7

    assert await store.server_settings.set("g1", "max_open_games", "2") == 2
    assert await store.server_settings.set("g1", "reminder_every", "1d12h") == 36 * HOUR
    assert await store.server_settings.set("g1", "LOBBY_EXPIRY_HOURS ", "1.5") == 1.5
    assert await store.server_settings.set("g1", "reminder_limit", "off") == 0
    mine = await store.server_settings.of("g1")
    assert {n: (v.value, v.own) for n, v in mine.items()} == {
        MAX_OPEN_GAMES: (2, True), REMINDER_EVERY: (36 * HOUR, True),
        LOBBY_EXPIRY_HOURS: (1.5, True), REMINDER_LIMIT: (0, True)}
    assert (await store.server_settings.of("g2"))[MAX_OPEN_GAMES].value == 7  # others: default
    assert (await store.server_settings.of(None))[MAX_OPEN_GAMES].own is False
    assert await store.server_settings.overrides(MAX_OPEN_GAMES) == {"g1": 2}

    assert await store.server_settings.reset("g1", MAX_OPEN_GAMES) is True
    assert await store.server_settings.reset("g1", MAX_OPEN_GAMES) is False
    assert (await store.server_settings.of("g1"))[MAX_OPEN_GAMES] == \
        type(mine[MAX_OPEN_GAMES])(7, False)


@pytest.mark.parametrize("name, value", [
    ("max_open_games", "-1"), ("max_open_games", "100001"), ("max_open_games", "1.5"),
    ("max_open_games", "NaN"), ("max_open_games", "١"), ("max_open_games", ""),
    ("max_open_games", math.nan), ("max_open_games", math.inf), ("max_open_games", True),
    ("max_open_games", 10**400),
    pytest.param("max_open_games", -10**5000, id="minus-10**5000"),
    ("lobby_expiry_hours", "-0.5"),
    ("lobby_expiry_hours", "1e3"), ("lobby_expiry_hours", -math.inf),
    ("reminder_every", "30s"), ("reminder_every", "never"), ("reminder_every", 1.0),
    ("reminder_limit", "3.0.1"), ("reminder_limit", 11), ("reminder_limit", "🙂"),
    ("colour", "red"), ("", "1"),
])
async def test_what_is_not_a_value_is_refused_in_words(store: Store, name: str,
                                                       value: Any) -> None:
    with pytest.raises(SettingError) as refused:
        await store.server_settings.set("g1", name, value)
    text = str(refused.value)
    assert (text.startswith("`") and "you gave" in text) or \
        text.startswith("There is no setting")
    assert len(text) < 300
    assert not any(v.own for v in (await store.server_settings.of("g1")).values())


async def test_a_stored_value_out_of_bounds_counts_as_unset(store: Store,
                                                            database: str) -> None:
    await store.server_settings.set("g1", MAX_OPEN_GAMES, 4)
    databases.raw(database, "INSERT INTO server_settings (guild_id, name, value, updated_at) "
                  "VALUES ('g1', 'reminder_limit', '99', 0), ('g1', 'gone', '1', 0), "
                  "('g1', 'lobby_expiry_hours', 'nan', 0)")
    values = await store.server_settings.of("g1")
    assert values[MAX_OPEN_GAMES].value == 4 and values[MAX_OPEN_GAMES].own
    assert not values[REMINDER_LIMIT].own and not values[LOBBY_EXPIRY_HOURS].own


async def test_each_servers_lobby_expiry(store: Store, clock: FakeClock) -> None:
    quick = await store.lobby.open("race", "quick", "c1", "a")        # 2 hours
    never = await store.lobby.open("race", "never", "c2", "a")        # 0: never
    usual = await store.lobby.open("race", "usual", "c3", "a")        # the default
    await store.server_settings.set("quick", LOBBY_EXPIRY_HOURS, 2)
    await store.server_settings.set("never", LOBBY_EXPIRY_HOURS, "never")
    clock.advance(3 * HOUR)
    closed = await store.limits.expire_lobbies(24 * HOUR)
    assert [r.id for r in closed] == [quick.id]
    [notice] = await store.outbox.pending(quick.id)
    assert notice.payload["idle"] == 2 * HOUR
    clock.advance(30 * HOUR)
    assert [r.id for r in await store.limits.expire_lobbies(24 * HOUR)] == [usual.id]
    clock.advance(1000 * HOUR)
    assert await store.limits.expire_lobbies(24 * HOUR) == []
    assert (await store.get(never.id)).status == "lobby"
    # with lobbies never expiring by default, a server that chose a time still has it
    other = await store.lobby.open("race", "quick", "c4", "a")
    clock.advance(3 * HOUR)
    assert [r.id for r in await store.limits.expire_lobbies(0)] == [other.id]


async def test_a_servers_reminders_unless_the_channel_chose(store: Store,
                                                            clock: FakeClock) -> None:
    await store.server_settings.set("g1", REMINDER_EVERY, "1h")
    await store.server_settings.set("g1", REMINDER_LIMIT, 1)
    ours = await started(store, "g1", "c1")
    theirs = await started(store, "g1", "c2")
    await store.hosting.set_channel_settings("c2", "g1", reminder_every=5 * HOUR)
    elsewhere = await started(store, "g2", "c3")
    for game in (ours, theirs, elsewhere):
        await reminders(store, game.id)
    assert await store.hosting.reminder_defaults("g1") == (HOUR, 1)
    clock.advance(HOUR + MINUTE)
    await wake_all(store)
    assert [p["limit"] for p in await reminders(store, ours.id)] == [1]
    assert await reminders(store, theirs.id) == []          # the channel's 5 hours win
    assert await reminders(store, elsewhere.id) == []       # the default 12 hours
    clock.advance(5 * HOUR)
    await wake_all(store)
    assert [p["limit"] for p in await reminders(store, theirs.id)] == [1]   # server's limit
    # the server changes its interval: its games are looked at again at once
    await store.server_settings.set("g1", REMINDER_LIMIT, 3)
    assert (await store.get(ours.id)).wake_at == clock()


async def test_shared_values(store: Store) -> None:
    assert await store.server_settings.shared("command-sync:1:global") is None
    await store.server_settings.share("command-sync:1:global", "abc")
    await store.server_settings.share("command-sync:1:global", "def")
    assert await store.server_settings.shared("command-sync:1:global") == "def"


@pytest.mark.parametrize("days, shown", [
    (-3, "-3"), (0, "0"), (31, "31"), (0.5, "0.5"), (math.nan, "nan"), (math.inf, "inf"),
    (10**30, "1000000000000000000…"),
    pytest.param(10**5000, "a number too long to write out", id="10**5000"),
    (True, "True"), ("3", "'3'"),
])
async def test_the_store_refuses_vacations_out_of_bounds_in_words(
        store: Store, days: Any, shown: str) -> None:
    with pytest.raises(StoreError) as refused:
        await store.hosting.start_vacation("g1", "a", days)
    assert str(refused.value) == f"Vacation is 1 to 30 days; you asked for {shown}."
    current, used, _ = await store.hosting.vacation("g1", "a")
    assert current is None and used == 0


@pytest.mark.parametrize("changes", [
    {"reminder_limit": -1}, {"reminder_limit": 11}, {"reminder_limit": 10**20},
    {"reminder_limit": 2.0}, {"reminder_every": 1.0}, {"reminder_every": math.nan},
    {"reminder_every": 10**12},
])
async def test_the_store_refuses_channel_settings_out_of_bounds(
        store: Store, changes: dict[str, Any]) -> None:
    with pytest.raises(StoreError):
        await store.hosting.set_channel_settings("c1", "g1", **changes)
    assert (await store.hosting.channel_settings("c1")).reminder_limit is None
