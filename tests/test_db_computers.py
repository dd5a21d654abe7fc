"""The store's side of computer players (db/computers.py), on SQLite and PostgreSQL:
seating them, handing their decisions to the scheduler, takeover of a timed-out seat and
taking it back, the log's origin, undo, private notes, and the brakes on games only
computers are playing."""

from __future__ import annotations

import pytest

from db import GameRecord, Store, StoreError
from db import computers as cpu
from db.clocks import HOUR, TimeControl
from db.hosting import COMPUTER_RETRY
from engine.core import IllegalAction
from tests.clocks import FakeClock
from tests.fakegame import GAME as RACE

pytestmark = pytest.mark.usefixtures("race")


async def lobby(store: Store, bots: int = 1, **extra: object) -> GameRecord:
    return await store.lobby.open("race", "g1", "c1", "alice", {"target": 1000000},
                                  computers=bots, **extra)  # type: ignore[arg-type]


async def test_computers_are_seated_after_the_host_within_the_table_size(store: Store) -> None:
    record = await lobby(store, bots=2, level="hard")
    assert record.seats == ("alice", "cpu-1", "cpu-2")
    assert cpu.computers(record.timing) == {"cpu-1": "hard", "cpu-2": "hard"}
    with pytest.raises(IllegalAction, match="0-2 computers"):
        await store.lobby.open("race", "g1", "c2", "bob", computers=3)
    with pytest.raises(IllegalAction, match="no computer level"):
        await store.lobby.open("race", "g1", "c3", "bob", computers=1, level="godlike")
    with pytest.raises(StoreError, match="full"):
        await store.lobby.add_computer(record.id, "alice")


async def test_only_the_host_adds_and_removes_computers(store: Store) -> None:
    record = await lobby(store, bots=0)
    await store.lobby.join(record.id, "bob")
    with pytest.raises(StoreError, match="Only the host"):
        await store.lobby.add_computer(record.id, "bob")
    with pytest.raises(StoreError, match="no computer players"):
        await store.lobby.remove_computer(record.id, "alice")
    record = await store.lobby.add_computer(record.id, "alice")
    assert record.seats == ("alice", "bob", "cpu-1")
    assert cpu.computers(record.timing) == {"cpu-1": "medium"}
    with pytest.raises(StoreError, match="Only the host"):
        await store.lobby.remove_computer(record.id, "bob")
    record = await store.lobby.remove_computer(record.id, "alice")
    assert record.seats == ("alice", "bob") and cpu.computers(record.timing) == {}


async def test_a_lobby_left_to_computers_closes_and_the_host_passes_to_a_person(
        store: Store) -> None:
    record = await lobby(store, bots=1)
    await store.lobby.join(record.id, "bob")
    record = await store.lobby.leave(record.id, "alice")
    assert record.host_id == "bob" and record.status == "lobby"   # not to cpu-1
    record = await store.lobby.leave(record.id, "bob")
    assert record.status == "aborted"


async def test_a_computers_decision_is_handed_to_the_scheduler_not_timed(
        store: Store, clock: FakeClock) -> None:
    record = await lobby(store, bots=1)
    record = await store.lobby.start(record.id, "alice", seed=3)
    await store.apply_action(record.id, "alice", "step 1")
    record = await store.get(record.id)
    assert record.wake_at == clock.t and set(record.decisions) == {"cpu-1"}
    woken = await store.hosting.wake(record.id)
    assert woken.computers == ("cpu-1",) and woken.timed_out == ()
    record = await store.get(record.id)
    assert record.wake_at == clock.t + COMPUTER_RETRY     # looked at again if nobody moves
    # a person cannot move for the computer, nor the computer for a person
    with pytest.raises(IllegalAction):
        await store.apply_action(record.id, "alice", "step 1")
    with pytest.raises(IllegalAction, match="no longer plays"):
        await store.apply_action(record.id, "alice", "step 1", by_computer=True)
    move = await store.apply_action(record.id, "cpu-1", "step 2", by_computer=True,
                                    expect_version=record.version)
    assert (await store.history.log(record.id))[-1].origin == "computer"
    assert move.record.timing["computer_streak"] == 1
    await store.apply_action(record.id, "alice", "step 1")
    assert (await store.get(record.id)).timing["computer_streak"] == 0


async def test_a_computer_gets_no_private_notes_and_its_moves_cannot_be_undone(
        store: Store) -> None:
    record = await lobby(store, bots=1)
    record = await store.lobby.start(record.id, "alice", seed=3)
    await store.apply_action(record.id, "alice", "step 1")
    await store.apply_action(record.id, "cpu-1", "roll", by_computer=True)   # a luck event
    pending = await store.outbox.pending(record.id)
    assert not [a for a in pending if a.recipient == "cpu-1"]
    assert [e.player for e in await store.history.log(record.id)] == ["alice", "cpu-1"]


async def test_takeover_hands_a_timed_out_seat_to_the_computer_until_its_player_moves(
        store: Store, clock: FakeClock) -> None:
    record = await store.lobby.open("race", "g1", "c1", "alice", {"target": 1000000},
                                    TimeControl(per_move=HOUR, max_timeouts=1),
                                    takeover=True)
    await store.lobby.join(record.id, "bob")
    record = await store.lobby.start(record.id, "alice", seed=3)
    clock.advance(HOUR + 1)
    woken = await store.hosting.wake(record.id)
    assert woken.timed_out == ("alice",)
    record = await store.get(record.id)
    assert cpu.computers(record.timing) == {"alice": "medium"}
    assert record.status == "active"                # one time-out allowed, yet not removed
    assert [e.player for e in await store.history.log(record.id)] == []   # no default was played
    notes = [a.payload for a in await store.outbox.pending(record.id)
             if a.payload.get("type") == "takeover"]
    assert notes == [{"type": "takeover", "player": "alice", "level": "medium"}]
    woken = await store.hosting.wake(record.id)
    assert woken.computers == ("alice",)
    await store.apply_action(record.id, "alice", "step 1", by_computer=True)
    await store.apply_action(record.id, "bob", "step 1")
    # alice is back: her own move gives her the seat again (and the computer's move
    # is not hers to undo)
    with pytest.raises(IllegalAction, match="nothing to undo"):
        await store.apply_action(record.id, "alice", "undo")
    await store.apply_action(record.id, "alice", "step 2")
    record = await store.get(record.id)
    assert cpu.computers(record.timing) == {}
    with pytest.raises(StoreError, match="not playing your seat"):
        await store.hosting.reclaim_seat(record.id, "alice")
    assert [e.origin for e in await store.history.log(record.id)] == [
        "computer", "player", "player"]


async def test_the_game_closes_when_the_last_person_resigns(store: Store) -> None:
    record = await lobby(store, bots=2)
    record = await store.lobby.start(record.id, "alice", seed=3)
    move = await store.apply_action(record.id, "alice", "resign")
    assert move.record.status == "aborted"
    notes = [a.payload for a in await store.outbox.pending(record.id)
             if a.kind == "notice"]
    assert notes == [{"type": "computers_only", "streak": 0}]


async def test_computers_alone_stop_after_the_streak_limit(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu, "MAX_COMPUTER_STREAK", 5)
    record = await store.lobby.open("race", "g1", "c1", "alice", {"target": 1000000},
                                    TimeControl(per_move=HOUR), takeover=True)
    await store.lobby.join(record.id, "bob")
    record = await store.lobby.start(record.id, "alice", seed=3)
    # both people are away for good: the computer plays both seats
    played = {"alice": "easy", "bob": "easy"}
    async with store.transaction() as conn:          # as two time-outs would leave it
        fresh = await store.fetch(conn, record.id)
        await store.write(conn, fresh, timing={**fresh.timing, "computers": played})
    statuses = []
    for _ in range(5):
        record = await store.get(record.id)
        seat = next(iter(record.decisions))
        move = await store.apply_action(record.id, seat, "step 1", by_computer=True)
        statuses.append(move.record.status)
    assert statuses == ["active"] * 4 + ["aborted"]
    notes = [a.payload for a in await store.outbox.pending(record.id)
             if a.kind == "notice"]
    assert notes == [{"type": "computers_only", "streak": 5}]


def test_undo_stops_at_a_move_the_computer_made_for_the_player() -> None:
    from db.records import LogEntry
    from db.replay import Step, undoable

    state = RACE.new_game(["alice", "bob"], 1)

    def step(seq: int, origin: str) -> Step:
        return Step(LogEntry(seq, "alice", "step 1", [], 0.0, origin), state, state, [])

    mine = undoable(RACE, [step(1, "player"), step(2, "player")], "alice", 0)
    assert mine.seqs == (2, 1) and mine.stop is None
    taken = undoable(RACE, [step(1, "computer"), step(2, "player")], "alice", 0)
    assert taken.seqs == (2,) and taken.stop == "the computer played that for you"


async def test_a_player_takes_their_seat_back_without_moving(store: Store) -> None:
    record = await store.lobby.open("race", "g1", "c1", "alice", {"target": 1000000},
                                    computers=1)
    await store.lobby.join(record.id, "bob")
    record = await store.lobby.start(record.id, "alice", seed=3)
    async with store.transaction() as conn:          # as a time-out with takeover leaves it
        fresh = await store.fetch(conn, record.id)
        await store.write(conn, fresh, timing={
            **fresh.timing, "computers": {**cpu.computers(fresh.timing), "bob": "easy"}})
    with pytest.raises(StoreError, match="not playing your seat"):
        await store.hosting.reclaim_seat(record.id, "alice")
    with pytest.raises(StoreError, match="not playing your seat"):
        await store.hosting.reclaim_seat(record.id, "cpu-1")     # a computer's own seat stays
    record = await store.hosting.reclaim_seat(record.id, "bob")
    assert cpu.computers(record.timing) == {"cpu-1": "medium"}


async def test_a_computer_keeps_no_deadline_in_the_digest(store: Store) -> None:
    record = await store.lobby.open("race", "g1", "c1", "alice", {"target": 1000000},
                                    TimeControl(per_move=HOUR), computers=1)
    record = await store.lobby.start(record.id, "alice", seed=3)
    opening = [a.payload for a in await store.outbox.pending(record.id)
               if a.kind == "digest"]
    assert list(opening[-1]["deadlines"]) == ["alice"]
    await store.apply_action(record.id, "alice", "step 1")
    digests = [a.payload for a in await store.outbox.pending(record.id)
               if a.kind == "digest"]
    assert digests[-1]["to_act"] == ["cpu-1"] and digests[-1]["deadlines"] == {}
