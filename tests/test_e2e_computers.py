"""End to end: computer players at a Discord table, through the real discord.py client.

* One person plays a whole game against the computer: ``/game new bots:1``, the computer
  moves on its own through the one move path (searched in a worker process), narrated in
  the turn digests like any player, and the game finishes.
* The host adds and removes computers with the lobby's buttons; only the host may.
* ``/game hint`` tells only the asker the move the computer would make, and changes
  nothing.
* A computer's turn left pending by a restart is played after it.
* With ``takeover``, a player whose clock runs out hands the seat to the computer, and
  takes it back by moving.
* When the last person resigns, the computers do not play on: the game is closed.
"""

from __future__ import annotations

import pytest
from databases import raw
from discord_double import Table
from e2e_world import World, public_after, world_fixture

import engine
from db.clocks import DAY, MINUTE
from engine.search import heuristic_action

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "mygames", "vacation", "reminders"]
PEOPLE = ("alice", "bob", "carol", "dave", "erin")
#: Monday 2 March 2026, 20:00 UTC.
EVENING = 1772481600.0

#: The bot on its own clock, its computers searching in one worker process.
host = world_fixture(name="host", people=PEOPLE, commands=COMMANDS, seed=5, clock=EVENING,
                     RENDER_WORKERS="0", COMPUTER_WORKERS="1")


async def settle(host: World) -> None:
    """Let every computer that is due move, and every announcement arrive."""
    bot = host.running.bot
    for _ in range(50):
        await bot.scheduler.run_due()
        await bot.computers.idle()
        await bot.announcer.deliver_all()
        record = await host.store.get(1)
        game = engine.get_game(record.kind)
        state = host.store.load_state(record) if record.state else None
        if state is None or record.status != "active" or not any(
                p.startswith("cpu-") for p in game.to_act(state)):
            return
    raise AssertionError("the computer never finished its turn")


async def human_turn(host: World, table: Table, name: str, kind: str = "conqueror") -> None:
    """``name`` plays until nothing waits for them, with the game's heuristic, via /play."""
    uid = host.uid(name)
    game = engine.get_game(kind)
    for _ in range(100):
        record = await host.store.get(1)
        state = host.store.load_state(record)
        if record.status != "active" or uid not in game.to_act(state):
            return
        reply = await table.slash(name, "play", action=heuristic_action(game, state, uid))
        assert "not" not in (reply.content or "")[:40] or reply.ephemeral


async def test_one_person_plays_a_whole_game_against_the_computer(host: World) -> None:
    table = host.dd.table()
    alice = host.uid("alice")
    reply = await table.slash("alice", "game new", kind="conqueror", bots=1, level="easy")
    lobby = reply.message
    assert "🤖 Computer 1" in lobby.embeds[0]["fields"][0]["value"]
    assert "easy" in lobby.embeds[0]["fields"][0]["value"]
    refused = await table.click("bob", "+ Computer")
    assert refused.ephemeral and "Only the host" in (refused.content or "")
    await table.click("alice", "+ Computer")
    await table.click("alice", "− Computer")
    record = await host.store.get(1)
    assert record.seats == (alice, "cpu-1")
    await table.click("alice", "Start")

    hint = await table.slash("alice", "game hint")
    assert hint.ephemeral and "the computer would play" in (hint.content or "")
    record = await host.store.get(1)
    state = host.store.load_state(record)
    suggested = (hint.content or "").split("**`")[1].split("`**")[0]
    assert suggested in engine.get_game("conqueror").legal_actions(state, alice)
    assert record.version == 0                       # a hint changes nothing
    other = await table.slash("bob", "game hint")
    assert other.ephemeral and "not playing" in (other.content or "")

    for _ in range(400):
        record = await host.store.get(1)
        if record.status != "active":
            break
        await human_turn(host, table, "alice")
        await settle(host)
    record = await host.store.get(1)
    assert record.status == "finished"
    log = await host.store.history.log(1, limit=100_000)
    by_computer = [e for e in log if e.player == "cpu-1"]
    assert by_computer and {e.origin for e in by_computer} == {"computer"}
    assert any("🤖 Computer 1" in m.content for m in public_after(table, 0))
    assert host.running.bot.computers.moves == len(by_computer)
    assert host.running.bot.computers.fallbacks == 0


async def test_a_computer_turn_pending_at_a_restart_is_played_after_it(host: World) -> None:
    table = host.dd.table()
    await table.slash("alice", "game new", kind="conqueror", bots=1)
    await table.click("alice", "Start")
    await table.slash("alice", "play", action="end")
    # the bot dies before the computer could move (no scheduler pass, no search yet)
    bot = host.running.bot
    await bot.computers.close()
    record = await host.store.get(1)
    assert record.decisions.keys() == {"cpu-1"} and record.wake_at is not None
    early = await table.slash("alice", "game hint")            # not her decision now
    assert early.ephemeral and "Nothing is waiting for you" in (early.content or "")
    await host.restart()
    await settle(host)
    record = await host.store.get(1)
    assert host.uid("alice") in record.decisions
    assert any(e.player == "cpu-1" for e in await host.store.history.log(1))


async def test_a_timed_out_seat_goes_to_the_computer_and_comes_back(host: World) -> None:
    table = host.dd.table()
    alice, bob = host.uid("alice"), host.uid("bob")
    refused = await table.slash("alice", "game new", kind="conqueror", takeover=True)
    assert refused.ephemeral and "needs a `clock`" in (refused.content or "")
    await table.slash("alice", "game new", kind="conqueror", clock="1d", takeover=True)
    await table.click("bob", "Join")
    await table.click("alice", "Start")
    host.clock.advance(DAY + MINUTE)                  # alice lets her day go by
    await settle(host)
    record = await host.store.get(1)
    assert record.timing["computers"] == {alice: "medium"}
    notices = [m for m in public_after(table, 0) if "plays their seat" in m.content]
    assert len(notices) == 1 and notices[0].pings == [alice]
    log = await host.store.history.log(1)
    assert log and all(e.player == alice and e.origin == "computer" for e in log)
    assert any("🤖 The computer played" in m.content for m in public_after(table, 0))
    assert bob in record.decisions                    # the computer finished her turn
    refused = await table.slash("bob", "game back")
    assert refused.ephemeral and "not playing your seat" in (refused.content or "")
    back = await table.slash("alice", "game back")          # she is back: her seat again
    assert back.ephemeral and "yours again" in (back.content or "")
    assert (await host.store.get(1)).timing["computers"] == {}
    await human_turn(host, table, "bob")
    await settle(host)
    record = await host.store.get(1)
    assert alice in record.decisions                      # nobody moved for her this time
    await table.slash("alice", "play", action="end")
    assert (await host.store.history.log(1))[-1].origin == "player"


async def test_when_the_last_person_resigns_the_computers_stop(host: World) -> None:
    table = host.dd.table()
    await table.slash("alice", "game new", kind="conqueror", bots=2)
    await table.click("alice", "Start")
    await table.slash("alice", "game resign")
    await settle(host)
    record = await host.store.get(1)
    assert record.status == "aborted"
    closed = [m for m in public_after(table, 0) if "closed without a result" in m.content]
    assert len(closed) == 1
    assert not any(e.player.startswith("cpu-") for e in await host.store.history.log(1))


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
async def test_every_game_can_be_played_against_the_computer(host: World, kind: str) -> None:
    """A few rounds of each game, one person against an easy computer: the computer
    answers every time through the worker, and nothing it is dealt reaches the channel."""
    table = host.dd.table()
    await table.slash("alice", "game new", kind=kind, bots=1, level="easy")
    await table.click("alice", "Start")
    alice = host.uid("alice")
    game = engine.get_game(kind)
    rounds = 0
    for _ in range(6):
        await settle(host)
        record = await host.store.get(1)
        if record.status != "active":
            break
        assert alice in game.to_act(host.store.load_state(record))
        await human_turn(host, table, "alice", kind)
        rounds += 1
    await settle(host)
    log = await host.store.history.log(1, limit=100_000)
    assert any(e.player == "cpu-1" and e.origin == "computer" for e in log)
    assert rounds >= 2 or (await host.store.get(1)).status == "finished"
    assert host.running.bot.computers.fallbacks == 0
    # the computer's private notes (its hand, its draws) are never sent anywhere
    assert raw(host.config.database,
               "SELECT count(*) FROM announcements WHERE recipient = 'cpu-1'") == [(0,)]
    hidden = game.view(host.store.load_state(await host.store.get(1)), "cpu-1").get("hand")
    if hidden:
        shown = " ".join(m.content for m in table.messages if m.content)
        assert all(str(card) not in shown for card in hidden if len(str(card)) > 6)
