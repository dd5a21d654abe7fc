"""Archiving finished games: the log compacts into one replayable record, `/game log`
still shows every move, nothing open is ever touched, and a log that no longer replays
is left whole. Runs on SQLite and PostgreSQL (the ``database`` fixture).

"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import zlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cogs.maintenance import Maintenance, MaintenanceSettings
from db import LogEntry, Store, StoreError
from db.archive import (
    Archive,
    archive_problems,
    archived_entries,
    events_digest,
    pack,
    read_archive,
    replace_archived_log,
    unpack,
)
from engine.conqueror import GAME as CONQUEROR
from engine.conqueror.ai import choose_action
from tests import databases
from tests.clocks import FakeClock
from tests.fakegame import GAME as RACE

DAY = 86400.0
T0 = 1_750_000_000.0


pytestmark = pytest.mark.usefixtures("race")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)      # this file's own start (the shared store goes by it)


async def deliver_all(store: Store) -> None:
    for item in await store.outbox.pending(limit=10_000):
        await store.outbox.mark_delivered(item.id, "m")


async def conqueror_game(store: Store, channel: str, seed: int,
                         players: tuple[str, ...] = ("1", "2"), undo: bool = False,
                         clock: FakeClock | None = None) -> int:
    """A whole game of Conqueror between the heuristic players (engine/conqueror/ai);
    with ``clock``, each move comes a human while (seconds to minutes) after the last."""
    pace = random.Random(seed)
    lobby = await store.lobby.open("conqueror", "g", channel, players[0])
    for p in players[1:]:
        await store.lobby.join(lobby.id, p)
    game_id = (await store.lobby.start(lobby.id, players[0], seed=seed)).id
    if undo:        # an undo in the log: its event is the platform's, kept in the archive
        await store.apply_action(game_id, players[0], "convert ap")
        await store.apply_action(game_id, players[0], "undo")
    for _ in range(3000):
        state = store.load_state(await store.get(game_id))
        if CONQUEROR.outcome(state) is not None:
            return game_id
        player = CONQUEROR.current_turn(state)
        assert player is not None
        if clock is not None:
            clock.advance(pace.uniform(2.0, 600.0))
        await store.apply_action(game_id, player, choose_action(CONQUEROR, state, player))
    raise AssertionError("the game did not end")


async def race_game(store: Store, channel: str, seed: int, *, finish: bool = True) -> int:
    lobby = await store.lobby.open("race", "g", channel, "a", {"target": 10})
    await store.lobby.join(lobby.id, "b")
    game_id = (await store.lobby.start(lobby.id, "a", seed=seed)).id
    rng = random.Random(seed)
    while True:
        record = await store.get(game_id)
        player = RACE.current_turn(store.load_state(record))
        if player is None:
            return game_id
        if not finish and record.version >= 3:
            return game_id
        await store.apply_action(game_id, player, rng.choice(["roll", "step 1", "step 3"]))


async def full_log(store: Store, game_id: int) -> list[LogEntry]:
    entries, pages = await store.history.log_page(game_id, 1, per_page=10_000)
    assert pages == 1
    return entries


async def rows(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    async with store.reading() as conn:
        return list(await conn.execute_fetchall(sql, params))


# ---------------------------------------------------------------------------- the record


def test_the_record_round_trips_and_keeps_only_an_undos_events() -> None:
    entries = [LogEntry(1, "a", "step 2", [{"type": "gain", "gain": 2}], 1.5, "player"),
               LogEntry(2, "a", "undo", [{"type": "undo", "undone": [1]}], 2.25, "undo"),
               LogEntry(3, "b", "roll", [{"type": "luck", "private_to": "b"}], 3.0, "timeout")]
    blob = pack(entries)
    back, digest = unpack(7, blob)
    assert [(e.seq, e.player, e.action, e.created_at, e.origin) for e in back] == \
        [(e.seq, e.player, e.action, e.created_at, e.origin) for e in entries]
    assert [e.events for e in back] == [[], [{"type": "undo", "undone": [1]}], []]
    assert digest == events_digest([e.events for e in entries])
    for bad in (b"not zlib", zlib.compress(b"[1, 2]"), zlib.compress(b'{"format": 99}'),
                zlib.compress(b'{"format": 1, "entries": [[1]], "events_sha256": ""}')):
        with pytest.raises(StoreError, match=r"Game #7's archived log cannot be read .*"
                                             r"python -m db check"):
            unpack(7, bad)


# ---------------------------------------------------------------------------- archiving


async def test_a_finished_game_compacts_and_its_log_reads_the_same(
        store: Any, clock: FakeClock) -> None:
    game_id = await conqueror_game(store, "c1", seed=1, undo=True)
    await deliver_all(store)
    before = await full_log(store, game_id)
    page_before = await store.history.log_page(game_id, 2, per_page=15)
    record = await store.get(game_id)
    assert record.status == "finished" and len(before) == record.version > 20
    assert await store.history.problems(game_id) == []

    assert await store.archive.sweep(clock() - DAY, 10) == []       # not old enough
    clock.advance(31 * DAY)
    assert await store.archive.sweep(clock() - 30 * DAY, 10) == [game_id]
    assert await rows(store, "SELECT count(*) FROM actions WHERE game_id = ?",
                      (game_id,)) == [(0,)]
    assert await rows(store, "SELECT count(*) FROM announcements WHERE game_id = ?",
                      (game_id,)) == [(0,)]
    archive = await store.archive.read(game_id)
    assert isinstance(archive, Archive) and archive.actions == len(before)
    assert archive.archived_at == clock()
    after = await store.get(game_id)
    assert (after.state, after.version, after.status) == (record.state, record.version,
                                                          "finished")

    # /game log reads exactly what it read before, events included (replayed).
    assert await full_log(store, game_id) == before
    assert await store.history.log_page(game_id, 2, per_page=15) == page_before
    assert await store.history.log_page(game_id, 999, per_page=15) == \
        (before[-(len(before) % 15 or 15):], -(-len(before) // 15))
    async with store.reading() as conn:
        assert await archived_entries(conn, game_id) == before
        assert await archived_entries(conn, 12345) is None
    assert archive_problems(CONQUEROR, after, archive) == []
    assert await store.archive.sweep(clock(), 10) == []              # once only


async def test_log_message_of_an_archived_game_is_unchanged(store: Any,
                                                            clock: FakeClock) -> None:
    """What /game log shows (cogs/history.py's log_message), before and after."""
    from cogs.history import log_message

    game_id = await conqueror_game(store, "c1", seed=2)
    await deliver_all(store)
    client: Any = SimpleNamespace(store=store)
    record = await store.get(game_id)

    async def pages() -> list[tuple[str, list[str]]]:
        shown = []
        for page in (1, 2, None):
            text, view = await log_message(client, record, page)
            buttons = [str(getattr(item, "custom_id", "")) for item in
                       (view.children if view is not None else [])]
            shown.append((text, buttons))
        return shown

    shown = await pages()
    clock.advance(40 * DAY)
    assert await store.archive.sweep(clock() - 30 * DAY, 10) == [game_id]
    assert await pages() == shown
    assert "moves 1–" in shown[0][0] and len(shown[0][1]) == 4


async def test_only_games_over_for_long_enough_are_archived(store: Any,
                                                            clock: FakeClock) -> None:
    lobby = await store.lobby.open("race", "g", "lobby", "a")
    running = await race_game(store, "running", seed=1, finish=False)
    old = await race_game(store, "old", seed=2)
    aborted = await race_game(store, "aborted", seed=3, finish=False)
    await store.lobby.abort(aborted)
    aborted_lobby = await store.lobby.open("race", "g", "empty", "a")
    await store.lobby.abort(aborted_lobby.id)
    undelivered = await race_game(store, "undelivered", seed=4)
    await deliver_all(store)
    # a last announcement still waiting for Discord: that game waits too
    pending = [a for a in await store.outbox.pending(limit=10_000)]
    assert pending == []
    async with store.transaction() as conn:
        await conn.execute(
            "INSERT INTO announcements (game_id, seq, kind, recipient, payload, created_at) "
            "VALUES (?, 1, 'status', NULL, '{}', ?)", (undelivered, clock()))
    clock.advance(20 * DAY)
    recent = await race_game(store, "recent", seed=5)
    await deliver_all(store)
    async with store.transaction() as conn:
        await conn.execute(
            "INSERT INTO announcements (game_id, seq, kind, recipient, payload, created_at) "
            "VALUES (?, 1, 'status', NULL, '{}', ?)", (undelivered, clock()))
    clock.advance(15 * DAY)
    await race_game(store, "later", seed=6, finish=False)

    cutoff = clock() - 30 * DAY
    archived = await store.archive.sweep(cutoff, 1)          # batches of one
    archived += await store.archive.sweep(cutoff, 1)
    archived += await store.archive.sweep(cutoff, 1)
    assert sorted(archived) == sorted([old, aborted])
    versions = {g: (await store.get(g)).version for g in (running, recent, undelivered)}
    assert all(v > 0 for v in versions.values())
    for game_id in (running, recent, undelivered, lobby.id, aborted_lobby.id):
        assert await store.archive.read(game_id) is None
    assert (await store.get(running)).status == "active"
    # the running game plays on
    record = await store.get(running)
    player = RACE.current_turn(store.load_state(record))
    await store.apply_action(running, player, "step 1")
    # an open game is refused one by one too
    assert not await store.archive.archive(running)
    assert not await store.archive.archive(lobby.id)
    # and the aborted one's log is still there, replayed
    assert [e.seq for e in await full_log(store, aborted)] == [1, 2, 3]


async def test_the_log_stays_append_only_except_what_an_archive_holds(
        store: Any, database: str) -> None:
    game_id = await race_game(store, "c", seed=1)
    version = (await store.get(game_id)).version
    with pytest.raises(databases.RAW_ERRORS, match="append-only"):
        databases.raw(database, "DELETE FROM actions WHERE game_id = ?", (game_id,))
    # An archive that covers only the first action lets only that one go.
    databases.raw(database, "INSERT INTO archives (game_id, log, actions, archived_at) "
                            "VALUES (?, ?, 1, 0)", (game_id, b"x"))
    with pytest.raises(databases.RAW_ERRORS, match="append-only"):
        databases.raw(database, "DELETE FROM actions WHERE game_id = ?", (game_id,))
    databases.raw(database, "DELETE FROM actions WHERE game_id = ? AND seq = 1", (game_id,))
    with pytest.raises(databases.RAW_ERRORS, match="append-only"):
        databases.raw(database, "UPDATE actions SET action = 'x' WHERE game_id = ?",
                      (game_id,))
    assert databases.raw(database, "SELECT count(*) FROM actions WHERE game_id = ?",
                         (game_id,))[0][0] == version - 1


async def test_a_log_that_no_longer_replays_is_never_archived(
        store: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    game_id = await race_game(store, "c", seed=1)
    fine = await race_game(store, "d", seed=2)
    await deliver_all(store)
    clock.advance(31 * DAY)
    real = RACE.apply

    def changed_rules(state: Any, player: str, action: str) -> Any:
        after, events = real(state, player, action)
        return after, [*events, {"type": "new rule"}] if action == "roll" else events

    monkeypatch.setattr(RACE, "apply", changed_rules)
    with caplog.at_level("WARNING", logger="warhost.db"):
        assert await store.archive.sweep(clock(), 10) == []
        assert await store.archive.sweep(clock(), 10) == []
    assert caplog.text.count(f"Game #{game_id} is not archived") == 1
    assert "now gives different events" in caplog.text and "python -m db check" in caplog.text
    assert await rows(store, "SELECT count(*) FROM actions WHERE game_id = ?",
                      (game_id,)) != [(0,)]
    monkeypatch.setattr(RACE, "apply", real)
    # Refused games do not block the others (nor, once refused, get looked at again).
    store.archive.refused.clear()
    assert sorted(await store.archive.sweep(clock(), 10)) == sorted([game_id, fine])

    # Archived, then the rules change: reading it says so, clearly, and check finds it.
    monkeypatch.setattr(RACE, "apply", changed_rules)
    with pytest.raises(StoreError, match=r"archived log no longer replays as it was played.*"
                                         r"python -m db check"):
        await store.history.log_page(game_id, 1)
    async with store.reading() as conn:
        archive = await read_archive(conn, game_id)
    assert archive is not None
    assert archive_problems(RACE, await store.get(game_id), archive) == \
        ["the archived log now gives different events"]


async def test_an_archived_log_can_be_rewritten_for_a_forgotten_user(
        store: Any, clock: FakeClock) -> None:
    """What anonymising a user (db/privacy.py) must do to an archived game: the archive
    is rewritten with the placeholder, and it still replays."""
    alice, bob, gone = "111111111111111111", "222222222222222222", "deleted-0badc0de"
    lobby = await store.lobby.open("race", "g", "c", alice, {"target": 10})
    await store.lobby.join(lobby.id, bob)
    game_id = (await store.lobby.start(lobby.id, alice, seed=5)).id
    while (player := RACE.current_turn(store.load_state(await store.get(game_id)))):
        await store.apply_action(game_id, player, "roll")
    await deliver_all(store)
    clock.advance(31 * DAY)
    assert await store.archive.sweep(clock() - 30 * DAY, 5) == [game_id]
    entries = await full_log(store, game_id)

    def rename(text: str) -> str:
        return text.replace(alice, gone)

    renamed = [LogEntry(e.seq, rename(e.player), rename(e.action),
                        json.loads(rename(json.dumps(e.events))), e.created_at, e.origin)
               for e in entries]
    record = await store.get(game_id)
    async with store.transaction() as conn:
        assert await replace_archived_log(conn, game_id, renamed)
        assert not await replace_archived_log(conn, 424242, renamed)
        await conn.execute("UPDATE games SET seats = ?, host_id = ?, state = ? WHERE id = ?",
                           (rename(json.dumps(list(record.seats), separators=(",", ":"))),
                            gone, rename(record.state or ""), game_id))
    with pytest.raises(StoreError, match="holds"):
        async with store.transaction() as conn:
            await replace_archived_log(conn, game_id, renamed[:-1])
    async with store.reading() as conn:
        archive = await read_archive(conn, game_id)
        blob = (await conn.execute_fetchall("SELECT log FROM archives WHERE game_id = ?",
                                            (game_id,)))[0][0]
    assert alice.encode() not in zlib.decompress(bytes(blob))
    assert archive is not None
    assert archive_problems(RACE, await store.get(game_id), archive) == []
    assert await full_log(store, game_id) == renamed
    assert {e.player for e in renamed} == {gone, bob}


async def test_moves_go_on_while_games_are_archived(store: Any, clock: FakeClock) -> None:
    finished = [await race_game(store, f"f{i}", seed=i) for i in range(12)]
    running = await race_game(store, "live", seed=99, finish=False)
    await deliver_all(store)
    clock.advance(31 * DAY)
    moved = 0

    async def mover() -> None:
        nonlocal moved
        for _ in range(20):
            record = await store.get(running)
            player = RACE.current_turn(store.load_state(record))
            if player is None:
                return
            await store.apply_action(running, player, "step 1")
            moved += 1
            await asyncio.sleep(0)

    archived, _ = await asyncio.gather(store.archive.sweep(clock() - 30 * DAY, 50),
                                       mover())
    assert sorted(archived) == sorted(finished) and moved > 0
    for game_id in finished:
        assert len(await full_log(store, game_id)) == (await store.get(game_id)).version


async def test_the_maintenance_pass_archives_in_batches(store: Any, clock: FakeClock) -> None:
    ids = [await race_game(store, f"c{i}", seed=i) for i in range(5)]
    await deliver_all(store)
    settings = MaintenanceSettings(backup_every_hours=0, archive_after_days=30)
    wall = [T0]     # real time (how often it looks); the store's clock ages the games
    cog = Maintenance(SimpleNamespace(store=store), settings,  # type: ignore[arg-type]
                      wall=lambda: wall[0])
    assert (await cog.run_once()).archived == ()
    clock.advance(29 * DAY)
    wall[0] += 3600
    assert (await cog.run_once()).archived == ()              # not 30 days yet
    clock.advance(2 * DAY)
    wall[0] += 1800
    assert (await cog.run_once()).archived == ()              # hourly, not at every tick
    wall[0] += 1800
    assert sorted((await cog.run_once()).archived) == sorted(ids)
    off = Maintenance(SimpleNamespace(store=store),  # type: ignore[arg-type]
                      MaintenanceSettings(backup_every_hours=0, archive_after_days=0))
    assert await off.archive_now() == []


async def test_the_stores_readers_see_an_archived_log(store: Any, clock: FakeClock) -> None:
    game_id = await conqueror_game(store, "c1", seed=3)
    await deliver_all(store)
    before = await store.history.log(game_id, limit=10_000)
    between = await store.history.actions_between(game_id, 5, 9)
    clock.advance(31 * DAY)
    assert await store.archive.sweep(clock() - 30 * DAY, 10) == [game_id]
    assert await store.history.log(game_id, limit=10_000) == before
    assert await store.history.log(game_id, limit=3) == before[-3:]
    assert await store.history.actions_between(game_id, 5, 9) == between
    assert await store.history.problems(game_id) == []
    assert await store.history.verify(game_id)
    assert await store.outbox.digests(game_id) == []          # the recap's digests are gone


# ---------------------------------------------------------------------------- the figures


def _stored_bytes(path: str, game_id: int) -> dict[str, int]:
    con = sqlite3.connect(path)
    try:
        def one(sql: str) -> int:
            return int(con.execute(sql, (game_id,)).fetchone()[0] or 0)

        return {
            "actions": one("SELECT sum(length(player) + length(action) + length(events) + "
                           "length(origin) + coalesce(length(request_id), 0) + 8 + 8 + 8) "
                           "FROM actions WHERE game_id = ?"),
            "announcements": one("SELECT sum(length(payload) + length(kind) + "
                                 "coalesce(length(recipient), 0) + "
                                 "coalesce(length(message_id), 0) + 8 * 5) "
                                 "FROM announcements WHERE game_id = ?"),
            "archive": one("SELECT sum(length(log) + 8 * 3) FROM archives WHERE game_id = ?"),
            "game": one("SELECT length(state) + length(seats) + length(options) + "
                        "length(timing) + length(decisions) + 100 FROM games WHERE id = ?"),
        }
    finally:
        con.close()


def _file_size(path: str) -> int:
    con = sqlite3.connect(path, isolation_level=None)
    try:
        con.execute("VACUUM")
        busy, _, _ = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0
    finally:
        con.close()
    return Path(path).stat().st_size


@pytest.mark.sqlite_only
async def test_bytes_per_finished_game_before_and_after_archiving(
        store: Any, clock: FakeClock, database: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Whole games of Conqueror between the heuristic players (2 and 3 players, with
    Discord-sized ids and moves minutes apart): what one finished game stores, before and
    after archiving. ``-s`` prints the figures."""
    players = [tuple(str(10**17 + 7919 * p) for p in range(2 + i % 2)) for i in range(8)]
    games = [await conqueror_game(store, f"c{i}", seed=i, players=players[i], clock=clock)
             for i in range(8)]
    await deliver_all(store)
    before = [_stored_bytes(database, g) for g in games]
    actions = [(await store.get(g)).version for g in games]
    file_before = _file_size(database)
    clock.advance(31 * DAY)
    assert sorted(await store.archive.sweep(clock() - 30 * DAY, 100)) == sorted(games)
    after = [_stored_bytes(database, g) for g in games]
    file_after = _file_size(database)

    n = len(games)
    log_before = sum(b["actions"] for b in before) / n
    ann_before = sum(b["announcements"] for b in before) / n
    game_row = sum(b["game"] for b in before) / n
    archive_after = sum(a["archive"] for a in after) / n
    assert all(a["actions"] == 0 and a["announcements"] == 0 for a in after)
    total_before = log_before + ann_before + game_row
    total_after = archive_after + game_row
    assert total_after < total_before / 5
    assert file_after < file_before / 2
    with capsys.disabled():
        print(f"\n{n} finished Conqueror games, {sum(actions) / n:.0f} actions on average "
              f"({min(actions)}-{max(actions)}):")
        print(f"  before: log {log_before:,.0f} B + announcements {ann_before:,.0f} B + game "
              f"row {game_row:,.0f} B = {total_before:,.0f} B per game")
        print(f"  after:  archive {archive_after:,.0f} B + game row {game_row:,.0f} B = "
              f"{total_after:,.0f} B per game ({total_before / total_after:.1f}x smaller; "
              f"{archive_after / (sum(actions) / n):.1f} B per action)")
        print(f"  database file after VACUUM: {file_before / n:,.0f} -> {file_after / n:,.0f} "
              f"B per game ({file_before:,} -> {file_after:,} B for {n} games)")
