"""The store's side of weeks-long games, on an injected clock: time-outs through the one
move path, banks, vacations, reminders (escalation, quiet hours, restarts), undo, followers,
/mygames and the paged log."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from db import GameRecord, Store, StoreError
from db.clocks import DAY, HOUR, MINUTE, QuietHours, TimeControl
from engine.conqueror import GAME as CONQUEROR
from engine.core import IllegalAction
from tests.clocks import T0, FakeClock  # T0: 2027-01-15 08:00 UTC
from tests.fakegame import GAME as RACE

#: The Race test game, and ``store`` on ``clock`` (a FakeClock from T0): tests/conftest.py.
pytestmark = pytest.mark.usefixtures("race")


async def started(store: Store, players: tuple[str, ...] = ("a", "b", "c"), *,
                  control: TimeControl | None = None, kind: str = "race",
                  options: dict[str, Any] | None = None, channel: str = "c1") -> GameRecord:
    record = await store.lobby.open(kind, "g1", channel, players[0],
                                    options or ({"target": 1000000} if kind == "race" else {}),
                                    control)
    for p in players[1:]:
        await store.lobby.join(record.id, p)
    return await store.lobby.start(record.id, players[0], seed=1)


async def wake_all(store: Store) -> list[Any]:
    """One scheduler pass (what cogs.scheduler does, without Discord)."""
    return [await store.hosting.wake(g) for g in await store.hosting.due_games()]


async def kinds(store: Store, game_id: int) -> list[tuple[str, str | None, str | None]]:
    """Pending announcements as (kind, recipient, payload type), then marked delivered."""
    found = []
    for a in await store.outbox.pending(game_id):
        found.append((a.kind, a.recipient, a.payload.get("type")))
        await store.outbox.mark_delivered(a.id, None)
    return found


# -- clocks ------------------------------------------------------------------------------


async def test_out_of_time_plays_the_safe_default_then_removes_the_player(
        store: Store, clock: FakeClock) -> None:
    game = await started(store, control=TimeControl(per_move=HOUR, max_timeouts=2))
    await kinds(store, game.id)
    clock.advance(HOUR - 1)
    assert await wake_all(store) == [await store.hosting.wake(game.id)]   # due (just started)...
    assert (await store.history.log(game.id)) == []                       # ...but nobody is late
    clock.advance(2)
    [woken] = await wake_all(store)
    assert woken.timed_out == ("a",)
    [entry] = await store.history.log(game.id)
    assert (entry.player, entry.action, entry.origin) == ("a", "step 1", "timeout")
    record = await store.get(game.id)
    assert record.timing["timeouts"] == {"a": 1} and list(record.decisions) == ["b"]
    # the digest tells it, with b's deadline (an hour from now) and a's time-out count
    pending = await store.outbox.pending(game.id)
    [digest] = [a for a in pending if a.kind == "digest"]
    assert digest.payload["deadlines"] == {"b": clock.t + HOUR}
    assert digest.payload["timeouts"] == {"a": 1}
    await kinds(store, game.id)
    # b plays in time; c and then a run out: a's second time-out removes a
    clock.advance(HOUR / 2)
    await store.apply_action(game.id, "b", "step 2")
    clock.advance(HOUR + 1)
    await wake_all(store)                        # c times out
    clock.advance(HOUR + 1)
    [woken] = await wake_all(store)              # a again: removed as by resignation
    assert woken.timed_out == ("a",)
    log = [(e.player, e.action, e.origin) for e in await store.history.log(game.id)]
    assert log == [("a", "step 1", "timeout"), ("b", "step 2", "player"),
                   ("c", "step 1", "timeout"), ("a", "step 1", "timeout"),
                   ("a", "resign", "timeout")]
    record = await store.get(game.id)
    assert record.status == "active" and record.timing["timeouts"] == {"a": 2, "c": 1}
    state = store.load_state(record)
    assert "a" in state.out and RACE.to_act(state) in (["b"], ["c"])   # the game goes on
    assert await store.history.verify(game.id)
    # nothing is due again until the next player's hour is up
    clock.advance(HOUR - 5)
    await wake_all(store)
    assert len(await store.history.log(game.id)) == 5


async def test_a_bank_pays_only_the_time_taken_and_gains_the_increment(
        store: Store, clock: FakeClock) -> None:
    game = await started(store, ("a", "b"), control=TimeControl(bank=2 * HOUR,
                                                                increment=30 * MINUTE))
    assert (await store.get(game.id)).timing["banks"] == {"a": 2 * HOUR, "b": 2 * HOUR}
    clock.advance(20 * MINUTE)
    await store.apply_action(game.id, "a", "step 1")
    record = await store.get(game.id)
    assert record.timing["banks"]["a"] == 2 * HOUR - 20 * MINUTE + 30 * MINUTE
    facts = await store.hosting.clock_facts(record)
    assert facts["deadlines"] == {"b": clock.t + 2 * HOUR}
    assert facts["clock"] == "2h bank + 30m per move; removed after 3 timeouts"
    # b lets the bank run dry: skipped, and the bank restarts at the increment
    clock.advance(2 * HOUR + 1)
    [woken] = await wake_all(store)
    assert woken.timed_out == ("b",)
    assert (await store.get(game.id)).timing["banks"]["b"] == 30 * MINUTE


async def test_a_vacation_stops_clocks_and_reminders_on_that_server(
        store: Store, clock: FakeClock) -> None:
    game = await started(store, ("a", "b"), control=TimeControl(per_move=HOUR))
    other = await started(store, ("b", "a"), control=TimeControl(per_move=HOUR), channel="c2")
    await store.apply_action(other.id, "b", "step 1")            # a to act in both games
    clock.advance(10 * MINUTE)
    away = await store.hosting.start_vacation("g1", "a", 2)
    assert away.ends_at == clock.t + 2 * DAY
    # both games are looked at again, and their status messages refreshed
    assert {a.kind for a in await store.outbox.pending(game.id)} >= {"status"}
    facts = await store.hosting.clock_facts(await store.get(game.id))
    assert facts["vacations"] == {"a": clock.t + 2 * DAY}
    assert facts["deadlines"]["a"] == T0 + HOUR + 2 * DAY       # 50 minutes left after
    clock.advance(DAY)
    await wake_all(store)
    assert await store.history.log(game.id) == []                       # no time-out, no reminder
    assert not [a for a in await store.outbox.pending(game.id) if a.kind == "notice"]
    with pytest.raises(StoreError, match="already on vacation"):
        await store.hosting.start_vacation("g1", "a", 1)
    current, used, left = await store.hosting.vacation("g1", "a")
    assert current is not None and used == pytest.approx(2) and left == pytest.approx(28)
    # back early: the clock runs again with the 50 minutes that were left
    await store.hosting.end_vacation("g1", "a")
    clock.advance(49 * MINUTE)
    await wake_all(store)
    assert await store.history.log(game.id) == []
    clock.advance(2 * MINUTE)
    await wake_all(store)
    assert [e.origin for e in await store.history.log(game.id)] == ["timeout"]
    assert [e.origin for e in await store.history.log(other.id)] == ["player", "timeout"]
    with pytest.raises(StoreError, match="not on vacation"):
        await store.hosting.end_vacation("g1", "a")


async def test_the_yearly_vacation_allowance(store: Store, clock: FakeClock) -> None:
    held = await store.hosting.start_vacation("g1", "a", 25)
    assert held.ends_at - held.starts_at == 25 * DAY
    clock.advance(26 * DAY)
    cut = await store.hosting.start_vacation("g1", "a", 30)              # only 5 days are left
    assert cut.ends_at - cut.starts_at == pytest.approx(5 * DAY)
    clock.advance(6 * DAY)
    with pytest.raises(StoreError, match="used your 30 vacation days"):
        await store.hosting.start_vacation("g1", "a", 1)
    assert (await store.hosting.start_vacation("g2", "a", 3)).guild_id == "g2"   # per server
    clock.advance(365 * DAY)                                     # a year on: all back
    assert (await store.hosting.vacation("g1", "a"))[2] == pytest.approx(30)


# -- reminders ---------------------------------------------------------------------------


async def test_reminders_escalate_to_dm_stop_with_a_note_and_survive_a_restart(
        database: str, clock: FakeClock) -> None:
    store = await Store.open(database, clock=clock)
    game = await started(store, ("a", "b"))
    await store.hosting.set_channel_settings("c1", "g1", reminder_every=HOUR, reminder_limit=2)
    await store.hosting.set_player_settings("a", dm_reminders=True)
    await kinds(store, game.id)
    clock.advance(HOUR - 1)
    await wake_all(store)
    assert await kinds(store, game.id) == []
    clock.advance(1)
    await wake_all(store)
    await wake_all(store)                                   # a second pass sends nothing more
    assert await kinds(store, game.id) == [("notice", None, "reminder")]
    await store.close()
    # a new process on the same file, three hours later: one reminder, not three
    clock.advance(3 * HOUR)
    store = await Store.open(database, clock=clock)
    await wake_all(store)
    [direct] = await store.outbox.pending(game.id)
    assert (direct.kind, direct.recipient, direct.payload["count"]) == ("direct", "a", 2)
    assert set(direct.payload) == {"type", "player", "count", "limit", "since", "deadline"}
    await kinds(store, game.id)
    clock.advance(HOUR)
    await wake_all(store)
    assert await kinds(store, game.id) == [("notice", None, "reminders_stopped")]
    clock.advance(10 * DAY)
    await wake_all(store)
    assert await kinds(store, game.id) == [] and (await store.get(game.id)).wake_at is None
    # a move starts b's decision, with reminders afresh
    await store.apply_action(game.id, "a", "step 1")
    await kinds(store, game.id)
    clock.advance(HOUR)
    await wake_all(store)
    assert await kinds(store, game.id) == [("notice", None, "reminder")]
    await store.close()


async def test_a_channel_with_a_limit_of_none_reminds_nobody_but_clocks_still_run(
        store: Store, clock: FakeClock) -> None:
    game = await started(store, ("a", "b"), control=TimeControl(per_move=DAY))
    await store.hosting.set_channel_settings("c1", "g1", reminder_every=HOUR, reminder_limit=0)
    await kinds(store, game.id)
    for _ in range(5):
        clock.advance(3 * HOUR)
        await wake_all(store)
    assert await kinds(store, game.id) == []                # no reminder, no "stopped" note
    assert (await store.get(game.id)).wake_at == T0 + DAY    # only the deadline is waited for
    clock.t = T0 + DAY + 1
    [woken] = await wake_all(store)
    assert woken.timed_out == ("a",)


async def test_a_players_own_interval_and_quiet_hours(store: Store, clock: FakeClock) -> None:
    clock.t = T0 + 12 * HOUR                                   # 20:00 UTC
    game = await started(store, ("a", "b"))
    await store.hosting.set_player_settings("a", reminder_every=3 * HOUR,
                                            quiet=QuietHours.parse("22:00-07:00", "UTC"))
    await kinds(store, game.id)
    clock.advance(3 * HOUR)                                    # 23:00: quiet
    await wake_all(store)
    assert await kinds(store, game.id) == []
    assert (await store.get(game.id)).wake_at == T0 + 23 * HOUR   # 07:00 next morning
    clock.t = T0 + 23 * HOUR
    await wake_all(store)
    assert await kinds(store, game.id) == [("notice", None, "reminder")]


async def test_reminders_carry_no_game_state(store: Store, clock: FakeClock) -> None:
    game = await started(store, ("a", "b"))
    await store.apply_action(game.id, "a", "roll")              # a private luck event
    clock.advance(13 * HOUR)
    await wake_all(store)
    notices = [a for a in await store.outbox.pending(game.id) if a.kind == "notice"]
    assert notices and all(set(a.payload) <= {"type", "player", "count", "limit", "since",
                                              "deadline"} for a in notices)


# -- undo --------------------------------------------------------------------------------


async def test_undo_takes_back_own_actions_this_turn_but_never_past_dice(
        store: Store, clock: FakeClock) -> None:
    game = await started(store, ("1", "2"), kind="conqueror")
    await store.apply_action(game.id, "1", "convert ap")
    await store.apply_action(game.id, "1", "move a1 b2 1")      # discovers b2: a die roll
    before = store.load_state(await store.get(game.id))
    await store.apply_action(game.id, "1", "recruit 1")
    preview = await store.history.undo_preview(game.id, "1")
    assert preview.seqs == (3,) and preview.actions == ("recruit 1",)
    assert preview.stop == "it rolled dice or drew or revealed a card"
    with pytest.raises(IllegalAction, match=r"at most 1 action \(it rolled dice"):
        await store.apply_action(game.id, "1", "undo 2")
    with pytest.raises(IllegalAction, match=r"nothing to undo \(another player acted"):
        await store.apply_action(game.id, "2", "undo")
    with pytest.raises(IllegalAction, match="moved on"):
        await store.apply_action(game.id, "1", "undo", expect_version=2)
    moved = await store.apply_action(game.id, "1", "undo", expect_version=3)
    assert moved.events == [{"type": "undo", "undone": [3]}]
    assert CONQUEROR.dump(moved.state) == CONQUEROR.dump(before)
    # the log keeps the action and its undo; the replay agrees with the saved game
    log = [(e.seq, e.action, e.origin) for e in await store.history.log(game.id)]
    assert log == [(1, "convert ap", "player"), (2, "move a1 b2 1", "player"),
                   (3, "recruit 1", "player"), (4, "undo", "undo")]
    assert await store.history.verify(game.id)
    assert (await store.history.undo_preview(game.id, "1")).seqs == ()
    with pytest.raises(IllegalAction, match="nothing to undo"):
        await store.apply_action(game.id, "1", "undo")
    # once the turn has passed, nothing of it can be taken back
    await store.apply_action(game.id, "1", "recruit 1")
    await store.apply_action(game.id, "1", "end")
    assert (await store.history.undo_preview(game.id, "1")).stop == "your turn began there"
    for bad in ("undo 0", "undo 51", "undo x", "undo 1 2"):
        with pytest.raises(IllegalAction, match="undo N"):
            await store.apply_action(game.id, "2", bad)


async def test_an_undone_then_redone_turn_replays_exactly(store: Store) -> None:
    game = await started(store, ("1", "2"), kind="conqueror")
    await store.apply_action(game.id, "1", "convert ap")
    await store.apply_action(game.id, "1", "undo")
    await store.apply_action(game.id, "1", "convert ap")
    await store.apply_action(game.id, "1", "end")
    assert await store.history.verify(game.id)
    record, steps = await store.history.replay_steps(game.id)
    assert [s.entry.origin for s in steps] == ["player", "undo", "player", "player"]
    assert CONQUEROR.dump(steps[-1].after) == record.state


# -- followers, /mygames, the log ---------------------------------------------------------


async def test_followers_get_a_copy_of_every_digest(store: Store) -> None:
    game = await started(store, ("a", "b"))
    await store.hosting.follow(game.id, "spectator")
    await store.hosting.follow(game.id, "spectator")                    # twice is once
    assert await store.hosting.following(game.id, "spectator")
    await kinds(store, game.id)
    await store.apply_action(game.id, "a", "step 1")
    found = await store.outbox.pending(game.id)
    [digest] = [a for a in found if a.kind == "digest"]
    [copy] = [a for a in found if a.kind == "follow"]
    assert copy.recipient == "spectator" and copy.payload == digest.payload
    await store.hosting.follow(game.id, "spectator", on=False)
    await kinds(store, game.id)
    await store.apply_action(game.id, "b", "step 1")
    assert "follow" not in {a.kind for a in await store.outbox.pending(game.id)}


async def test_games_waiting_for_a_player_and_the_paged_log(store: Store) -> None:
    first = await started(store, ("a", "b"))
    second = await started(store, ("b", "a"), channel="c2")
    mine = await store.games_of("a")
    assert [r.id for r in mine] == [first.id, second.id]
    assert ["a" in r.decisions for r in mine] == [True, False]
    for _ in range(13):
        record = await store.get(first.id)
        await store.apply_action(first.id, next(iter(record.decisions)), "step 1")
    entries, pages = await store.history.log_page(first.id, 1, per_page=5)
    assert pages == 3 and [e.seq for e in entries] == [1, 2, 3, 4, 5]
    entries, _ = await store.history.log_page(first.id, 99, per_page=5)     # past the end: the last
    assert [e.seq for e in entries] == [11, 12, 13]
    assert (await store.latest_in_channel("c2")).id == second.id


# -- leases (several bot processes on one database) ------------------------------------


async def test_a_lease_is_held_by_one_holder_until_it_expires_or_is_released(
        database: str, clock: FakeClock) -> None:
    one, two = await Store.open(database, clock=clock), await Store.open(database, clock=clock)
    try:
        assert await one.leases.take("scheduler", "p1", 30)
        assert not await two.leases.take("scheduler", "p2", 30)     # held by p1
        assert await one.leases.take("scheduler", "p1", 30)          # renewed
        assert await two.leases.holder("scheduler") == "p1"
        clock.advance(29)
        assert not await two.leases.take("scheduler", "p2", 30)      # renewal counted
        clock.advance(2)
        assert await two.leases.take("scheduler", "p2", 30)          # p1 went quiet
        assert not await one.leases.take("scheduler", "p1", 30)
        await one.leases.release("scheduler", "p1")                  # not p1's: no effect
        assert await one.leases.holder("scheduler") == "p2"
        await two.leases.release("scheduler", "p2")
        assert await one.leases.holder("scheduler") is None
        assert await one.leases.take("scheduler", "p1", 30)
        assert await two.leases.take("game:1:deliver", "p2", 30)     # leases are separate
    finally:
        await one.close()
        await two.close()


async def test_racing_holders_get_a_lease_once(database: str, clock: FakeClock) -> None:
    stores = [await Store.open(database, clock=clock) for _ in range(3)]
    try:
        for _ in range(5):
            won = await asyncio.gather(*(s.leases.take("job", f"h{n}", 10)
                                         for n, s in enumerate(stores)))
            assert sum(won) == 1                     # each round, once the last expired
            clock.advance(11)
    finally:
        for s in stores:
            await s.close()


async def test_racing_vacations_across_stores_cannot_overdraw_the_allowance(
        database: str, clock: FakeClock) -> None:
    stores = [await Store.open(database, clock=clock) for _ in range(2)]
    try:
        results = await asyncio.gather(
            *(s.hosting.start_vacation("g1", "a", 20) for s in stores * 2),
            return_exceptions=True)
        started_ = [r for r in results if not isinstance(r, BaseException)]
        assert len(started_) == 1, results                  # one vacation, not four
        assert all("already on vacation" in str(r) for r in results if r not in started_)
    finally:
        for s in stores:
            await s.close()
