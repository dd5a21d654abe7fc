"""A restart never leaves a player "thinking…": the deferred interactions a bot never
answered are answered by its next start (issue 29, item 7).

The real bot against the loopback double, on SQLite and PostgreSQL. A ``/play`` is
deferred, then the bot stops before the move is saved (the store's ``apply_action``
hangs, and the bot is closed under it, as a kill would leave it); the next bot edits the
deferred response once, with the restart's words, and the game is unchanged. A move that
is saved leaves nothing pending, and costs one database round trip more than before
(the note), none for concluding it; a deferral older than Discord's 15 minutes is dropped
unanswered. The round trips of a whole ``/play`` are printed (``pytest -s``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from discord_double import DiscordDouble, Reply
from e2e_world import World, deal_seeds, new_world, open_game

from cogs.interactions import RESTARTED_COMMAND, RESTARTED_MOVE
from db import Store
from db.backend import is_postgres
from db.pending import COMMAND, MOVE, Pending
from engine.conqueror import GAME

pytest_plugins = ["discord_double.fixtures"]

PEOPLE = ("alice", "bob")


@pytest_asyncio.fixture
async def world(discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch, database: str) -> World:
    made = new_world(discord_double, start_bot, tmp_path, PEOPLE, ["game", "play"],
                     deal_seeds(monkeypatch, 3), RENDER_WORKERS="0", COMPUTER_WORKERS="0",
                     DATABASE_URL=database if is_postgres(database) else None)
    await made.start()
    return made


async def first_move(world: World, game_id: int) -> tuple[str, str, int]:
    """Who acts first in the game, a legal action of theirs, and the game's version."""
    record = await world.store.get(game_id)
    state = world.store.load_state(record)
    player = GAME.current_turn(state)
    assert player is not None
    return world.name(player), GAME.legal_actions(state, player)[0], record.version


def edits(dd: DiscordDouble, reply: Reply) -> int:
    """How many times the bot edited the interaction's response (by its webhook)."""
    return len([r for r in dd.requests if r.method == "PATCH" and reply.token in r.path])


def play_reply(dd: DiscordDouble) -> Reply:
    return [r for r in dd.interactions.values() if r.name == "play"][-1]


async def test_a_restart_answers_a_move_left_thinking(world: World) -> None:
    dd = world.dd
    game_id = await open_game(dd.table(), "conqueror", list(PEOPLE))
    who, action, version = await first_move(world, game_id)

    hanging: list[asyncio.Task[Any]] = []
    started = asyncio.Event()

    async def hang(*args: Any, **kwargs: Any) -> Any:
        current = asyncio.current_task()
        assert current is not None
        hanging.append(current)
        started.set()
        await asyncio.Event().wait()        # the process dies here, before the move is saved

    old_store = world.store
    old_store.apply_action = hang  # type: ignore[method-assign]
    sent = asyncio.get_running_loop().create_task(dd.table().slash(who, "play", action=action))
    try:
        await asyncio.wait_for(started.wait(), 10)
        reply = play_reply(dd)
        assert reply.deferred and not reply.resolved       # the player sees "thinking…"
        assert await old_store.pending.count() == 1
        # The bot goes away under the hanging move, as a kill would leave it (nothing
        # after the hang runs: cancelled, the handler neither answers nor concludes).
        for task in hanging:
            task.cancel()
        await world.restart()
        await dd.wait_until(lambda: reply.resolved, timeout=10,
                            what="the restarted bot to answer the deferred /play")
    finally:
        sent.cancel()
        await asyncio.gather(sent, return_exceptions=True)
    original = reply.original
    assert original is not None
    assert original.content == RESTARTED_MOVE
    await asyncio.sleep(0.1)
    assert edits(dd, reply) == 1 and reply.followups == []              # exactly one edit
    assert await world.store.pending.count() == 0
    assert (await world.store.get(game_id)).version == version          # nothing changed

    # sent again, it is played and answered as usual, and nothing is left pending
    again = await dd.table().slash(who, "play", action=action)
    assert again.resolved and again.original is not None
    assert again.original.content != RESTARTED_MOVE
    assert (await world.store.get(game_id)).version == version + 1
    assert await world.store.pending.count() == 0


async def test_left_rows_the_next_start_answers_or_drops(world: World) -> None:
    """Rows as a dead process leaves them: a move and a command of a few minutes ago are
    answered once each; one past Discord's 15 minutes is dropped unanswered; another
    shard set's row waits for its own process."""
    dd = world.dd
    table = dd.table()
    replies = {}
    for name in ("move", "command", "expired", "other shards"):
        reply = dd.new_interaction(type=2, user=dd.resolve_user("alice"),
                                   channel=table.channel, data={"name": "help"}, name=name)
        dd.interactions[reply.id] = reply
        dd._by_token[reply.token] = reply        # as if dispatched: its webhook exists
        # deferred, the player sees "thinking…" (what the dead process did)
        reply.callbacks.append({"type": 5, "data": {"flags": 64}})
        reply.original = dd.create_message(table.channel, {"flags": 64}, [],
                                           kind="original", interaction=reply, loading=True)
        replies[name] = reply
    store = world.store
    now = time.time()
    await store.pending.note(replies["move"].id, dd.application_id, replies["move"].token,
                             MOVE, expires_at=now + 600)
    await store.pending.note(replies["command"].id, dd.application_id,
                             replies["command"].token, COMMAND, expires_at=now + 300)
    await store.pending.note(replies["expired"].id, dd.application_id,
                             replies["expired"].token, MOVE, expires_at=now - 5)
    await store.pending.note(replies["other shards"].id, dd.application_id,
                             replies["other shards"].token, MOVE, shards="1",
                             expires_at=now + 600)
    await world.restart()
    await dd.wait_until(lambda: replies["move"].resolved and replies["command"].resolved,
                        timeout=10, what="the restarted bot to answer what was left")
    assert replies["move"].original.content == RESTARTED_MOVE        # type: ignore[union-attr]
    assert replies["command"].original.content == RESTARTED_COMMAND  # type: ignore[union-attr]
    for name in ("move", "command"):
        assert edits(dd, replies[name]) == 1
    await asyncio.sleep(0.2)
    assert not replies["expired"].resolved and not replies["other shards"].resolved
    assert edits(dd, replies["expired"]) == edits(dd, replies["other shards"]) == 0
    rows = await world.store.pending.left("1", before=world.store.now() + 1)
    assert [d.interaction_id for d in rows] == [replies["other shards"].id]
    assert await world.store.pending.count() == 1       # the expired one is gone
    await world.restart()                               # answered once: nothing again
    await asyncio.sleep(0.2)
    assert edits(dd, replies["move"]) == edits(dd, replies["command"]) == 1


class RoundTrips:
    """Database round trips: SQLite's hops to its connection thread, PostgreSQL's
    statements."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        import aiosqlite

        self._wrap(monkeypatch, aiosqlite.Connection, "_execute")
        try:
            import asyncpg
        except ImportError:
            return
        for name in ("execute", "fetch", "fetchrow", "fetchval", "executemany"):
            self._wrap(monkeypatch, asyncpg.connection.Connection, name)

    def _wrap(self, monkeypatch: pytest.MonkeyPatch, cls: type, name: str) -> None:
        real: Callable[..., Any] = getattr(cls, name)

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await real(*args, **kwargs)

        monkeypatch.setattr(cls, name, counted)


async def test_a_saved_move_leaves_nothing_pending_and_costs_one_round_trip_more(
        world: World, monkeypatch: pytest.MonkeyPatch, database: str) -> None:
    dd = world.dd
    game_id = await open_game(dd.table(), "conqueror", list(PEOPLE))
    noting = True
    real_note = Pending.note

    async def note(self: Pending, *args: Any, **kwargs: Any) -> None:
        if noting:
            await real_note(self, *args, **kwargs)

    monkeypatch.setattr(Pending, "note", note)
    trips = RoundTrips(monkeypatch)

    in_move: list[int] = []
    real_apply = world.store.apply_action

    async def apply_action(*args: Any, **kwargs: Any) -> Any:
        at = trips.count
        try:
            return await real_apply(*args, **kwargs)
        finally:
            in_move.append(trips.count - at)

    world.store.apply_action = apply_action  # type: ignore[method-assign]

    async def one_move() -> int:
        who, action, version = await first_move(world, game_id)
        await asyncio.sleep(0.1)            # the world is quiet
        trips.count = 0
        reply = await dd.table().slash(who, "play", action=action)
        counted = trips.count
        assert reply.resolved and (await world.store.get(game_id)).version == version + 1
        assert await world.store.pending.count() == 0
        return counted

    # the same kind of move (each player's first) without the note, as before, and with
    noting = False
    before = await one_move()
    noting = True
    after = await one_move()
    # what the note costs by itself (concluding a saved move costs nothing more)
    trips.count = 0
    await world.store.pending.note("1", dd.application_id, "t", MOVE)
    noted = trips.count
    await world.store.pending.drop(["1"])
    backend = "postgresql" if is_postgres(database) else "sqlite"
    print(f"\n{backend}: one /play, from the interaction to its answer and the digest: "
          f"{before} database round trips before, {after} with the note ({noted}); the "
          f"move's transaction {in_move[0]} before, {in_move[1]} with the note")
    assert after - before == noted
    assert in_move[0] == in_move[1]          # concluding costs the move nothing (trigger)
    if backend == "sqlite":
        # the channel's game, the note, the move with its delivery read, the marks
        assert after <= 4 and in_move[1] == 1
    # one statement where the backend commits a single statement by itself; else its
    # own transaction (BEGIN, INSERT, COMMIT, and PostgreSQL's pool resets the connection)
    one_statement = hasattr(world.store.backend, "write_one")
    assert noted <= (2 if one_statement else 4)


async def test_a_refused_move_is_concluded_after_its_answer(world: World) -> None:
    dd = world.dd
    game_id = await open_game(dd.table(), "conqueror", list(PEOPLE))
    who, _, version = await first_move(world, game_id)
    other = next(p for p in PEOPLE if p != who)
    refused = await dd.table().slash(other, "play", action="end")      # not their turn
    assert refused.resolved
    assert await world.store.pending.count() == 0
    assert (await world.store.get(game_id)).version == version
    assert isinstance(world.store, Store)
