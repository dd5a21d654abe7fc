"""The same games play identically on SQLite and on PostgreSQL.

Every kind of game is played on both backends at once, in lockstep: the same seeded
games, the same random legal actions (from one seeded generator), the same clock
(injected), with the platform's own operations mixed in (undo, a request sent twice,
clocks running out and the scheduler waking the game, announcements delivered). Each
step must give the same answer on both (the same result, events, record, or the same
refusal), and at the end every row of every table must be the same: the logs and their
events, the saved positions, the announcements and their payloads, the clocks.

Also here: processes starting together on an empty PostgreSQL database.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

import engine
from db import GameRecord, Store, StoreError
from db.clocks import TimeControl
from engine import IllegalAction
from tests import databases

pytestmark = pytest.mark.postgres_only

#: How some games are seated and clocked here, so that clocks of both sorts and several
#: seat counts are played: kind -> (players, time control). Any other game (the toy one,
#: a new one) plays with its fewest players and "1h"; every game plays its own short game
#: (``facts.short_game``).
SEATS_AND_CLOCKS: dict[str, tuple[int, str]] = {
    "conqueror": (3, "1h"),
    "liege": (4, "2h+10m"),
    "battlecards": (2, "1h"),
    "napoleon": (2, "3h+30m"),
    "antiquity": (3, "1h"),
}


def _table(kind: str) -> tuple[int, dict[str, Any], str]:
    """(players, options, time control) of ``kind``'s games here."""
    game = engine.get_game(kind)
    players, control = SEATS_AND_CLOCKS.get(kind, (game.min_players, "1h"))
    return players, dict(game.facts.short_game), control


def _kinds() -> list[str]:
    """Every game, the ones seated above first (in that order: each game's seeds stay)."""
    return [*(k for k in SEATS_AND_CLOCKS if k in engine.GAMES),
            *(k for k in engine.GAMES if k not in SEATS_AND_CLOCKS)]
#: Actions (and other operations) per kind; games that end are followed by new ones.
STEPS = 240
BASE_TIME = 1_750_000_000.0


class Clock:
    """The one clock both stores read; the test moves it."""

    def __init__(self) -> None:
        self.now = BASE_TIME

    def __call__(self) -> float:
        return self.now


def _comparable(value: Any) -> Any:
    """``value`` with each game's public id and dice secret blanked: random bits,
    different on each backend by design (the web pages' address, the secret a lobby
    commits to), like nothing else in a record."""
    if isinstance(value, GameRecord):
        secret = {k: "" for k in ("seed", "salt", "commitment") if k in value.dice}
        return dataclasses.replace(value, public_id="", dice={**value.dice, **secret})
    if isinstance(value, tuple | list):
        return type(value)(_comparable(v) for v in value)
    return value


def _same(a: Any, b: Any, what: str) -> Any:
    a, b = _comparable(a), _comparable(b)
    assert a == b, f"{what}: SQLite {a!r} but PostgreSQL {b!r}"
    return a


async def _both(stores: tuple[Store, Store], call: str, *args: Any, **kwargs: Any
                ) -> tuple[str, Any]:
    """``call`` (a method's path, e.g. ``"lobby.join"``) on both stores; the same
    outcome (result, or refusal) on each."""
    outcomes = []
    for store in stores:
        method: Any = store
        for name in call.split("."):
            method = getattr(method, name)
        try:
            outcomes.append(("ok", await method(*args, **kwargs)))
        except (IllegalAction, StoreError) as exc:
            outcomes.append((type(exc).__name__, str(exc)))
    lite, pg = outcomes
    if lite[0] == "ok" and pg[0] == "ok" and hasattr(lite[1], "state") and \
            hasattr(lite[1], "record"):
        # a MoveResult: the engine state objects compare by their dump
        game = engine.get_game(lite[1].record.kind)
        _same((lite[1].record, lite[1].events, lite[1].seq, lite[1].duplicate,
               lite[1].announcements, game.dump(lite[1].state)),
              (pg[1].record, pg[1].events, pg[1].seq, pg[1].duplicate, pg[1].announcements,
               game.dump(pg[1].state)), f"{call}{args}")
    else:
        _same(lite, pg, f"{call}{args}")
    return lite


async def _new_game(stores: tuple[Store, Store], kind: str, channel: str, number: int,
                    rng: random.Random) -> int:
    players, options, control = _table(kind)
    seats = [f"{kind}-{number}-p{i}" for i in range(1, players + 1)]
    _, lobby = await _both(stores, "lobby.open", kind, "900", channel, seats[0], options,
                           TimeControl.parse(control, max_timeouts=0))
    for seat in seats[1:]:
        await _both(stores, "lobby.join", lobby.id, seat)
    await _both(stores, "hosting.follow", lobby.id, f"{kind}-{number}-spectator")
    await _both(stores, "lobby.start", lobby.id, seats[0], rng.randrange(2**63))
    return int(lobby.id)


async def _play(stores: tuple[Store, Store], clock: Clock, kind: str, seed: int) -> int:
    """STEPS operations of ``kind`` on both stores; returns how many games it took."""
    rng = random.Random(seed)
    game = engine.get_game(kind)
    channel = f"channel-{kind}"
    games = 1
    game_id = await _new_game(stores, kind, channel, games, rng)
    last_request: tuple[str, str, str] | None = None
    for step in range(STEPS):
        clock.now += rng.uniform(1, 120)
        record = await stores[0].get(game_id)
        if record.status != "active":
            games += 1
            game_id = await _new_game(stores, kind, channel, games, rng)
            continue
        state = stores[0].load_state(record)
        roll = rng.random()
        if roll < 0.04:
            # nobody moves for hours: the scheduler plays the safe default for them
            clock.now += 4 * 3600
            _, due = await _both(stores, "hosting.due_games")
            for woken in due:
                await _both(stores, "hosting.wake", woken)
            continue
        if roll < 0.08:
            player = rng.choice(game.to_act(state))
            await _both(stores, "apply_action", game_id, player, "undo",
                        request_id=f"{kind}-{step}")
            continue
        if roll < 0.10 and last_request is not None:
            await _both(stores, "apply_action", game_id, last_request[1], last_request[2],
                        request_id=last_request[0])      # sent twice: applied once
            continue
        player = rng.choice(game.to_act(state))
        action = rng.choice(game.legal_actions(state, player))
        reply_to = None
        if step % 3 == 0:
            reply_to = {"application_id": "77", "token": f"token-{kind}-{step}",
                        "interaction_id": f"{kind}-{step}"}
        last_request = (f"{kind}-{step}", player, action)
        await _both(stores, "apply_action", game_id, player, action,
                    request_id=f"{kind}-{step}", sent_at=clock.now, reply_to=reply_to)
        if step % 17 == 0:
            _, pending = await _both(stores, "outbox.pending")
            for item in pending:
                await _both(stores, "outbox.mark_delivered", item.id, f"message-{item.id}")
    return games


async def test_the_same_games_play_identically_on_sqlite_and_postgresql(
        database: str, tmp_path: Path, toy: Any) -> None:
    """Every game, the toy sixth one too (``toy``)."""
    lite_path = str(tmp_path / "same.db")
    clock = Clock()
    lite = await Store.open(lite_path, clock=clock)
    pg = await Store.open(database, clock=clock)
    try:
        stores = (lite, pg)
        # the server's own reminders (a channel sets none): reminders come sooner, and
        # stop after 2, on both
        await _both(stores, "server_settings.set", "900", "reminder_every", "45m")
        await _both(stores, "server_settings.set", "900", "reminder_limit", 2)
        await _both(stores, "server_settings.set", "900", "max_open_games", "nan")
        await _both(stores, "server_settings.reset", "900", "lobby_expiry_hours")
        await _both(stores, "server_settings.share", "command-sync:1:global", "abc")
        played = {}
        for n, kind in enumerate(_kinds()):
            played[kind] = await _play(stores, clock, kind, seed=1000 + n)
        assert set(played) == set(engine.GAMES), "every kind is played"
        counts = databases.raw(lite_path, "SELECT g.kind, count(*) FROM actions a JOIN games "
                               "g ON g.id = a.game_id GROUP BY g.kind ORDER BY g.kind")
        assert all(n >= STEPS * 0.6 for _, n in counts), counts
        origins = {r[0] for r in databases.raw(lite_path, "SELECT DISTINCT origin FROM actions")}
        assert {"player", "undo", "timeout"} <= origins, origins
        kinds = {r[0] for r in databases.raw(lite_path, "SELECT DISTINCT kind FROM announcements")}
        assert {"digest", "reply", "follow", "status"} <= kinds, kinds
        notices = [json.loads(r[0]) for r in databases.raw(
            lite_path, "SELECT payload FROM announcements WHERE kind = 'notice'")]
        limits = {n["limit"] for n in notices if n.get("type") == "reminder"}
        assert limits == {2}, "the server's reminder limit was used"
        # every row of every table: logs, events, positions, announcements, clocks (each
        # game's public id is random by design: made alike first)
        for target in (lite_path, database):
            databases.raw(target, "UPDATE games SET public_id = 'game-' || id")
        lite_rows, pg_rows = databases.snapshot(lite_path), databases.snapshot(database)
        assert len(lite_rows) == len(pg_rows)
        for a, b in zip(lite_rows, pg_rows, strict=True):
            assert a == b
        for (game_id,) in databases.raw(lite_path, "SELECT id FROM games ORDER BY id"):
            assert await lite.history.verify(game_id) and await pg.history.verify(game_id)
    finally:
        await lite.close()
        await pg.close()


async def test_processes_starting_together_on_an_empty_postgresql_database_all_open(
        database: str) -> None:
    # ``database`` is one fresh schema; two more make the race certain to be run often
    urls = [database]
    schemas = []
    for _ in range(2):
        url, schema = databases.new_postgres_database()
        urls.append(url)
        schemas.append(schema)
    try:
        problems = []
        for url in urls:
            opened = await asyncio.gather(*(Store.open(url) for _ in range(3)),
                                          return_exceptions=True)
            for store in opened:
                if isinstance(store, BaseException):
                    problems.append(str(store))
                else:
                    await store.close()
        assert not problems, problems
    finally:
        for schema in schemas:
            databases.drop_postgres_database(schema)
