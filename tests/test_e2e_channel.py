"""End to end: what the channel is told, through the real client and the Discord double.

One turn digest per turn whose image marks every action of the turn; a move raced
against the turn change is refused, not applied to the sender's next turn; server-only
commands are refused in DMs; a mention of the bot answers with help; nothing logs a
traceback for user input.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from pathlib import Path
from typing import Any

import pytest
from discord_double import DiscordDouble, Message, Table
from e2e_world import World, deal_seeds, is_recap, start_world

import render
from cogs.interactions import MENTION_HELP, SERVER_ONLY
from cogs.wording import digest_events
from db.core import STALE_ACTION
from engine import public_events
from engine.conqueror import GAME
from engine.conqueror.ai import choose_action
from tests.boards import same_picture

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "conqueror"]


@pytest.fixture
async def world(discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> World:
    return await start_world(discord_double, start_bot, tmp_path, ("alice", "bob", "carol"),
                             COMMANDS, deal_seeds(monkeypatch, 20250101))


async def open_game(world: World, table: Table) -> int:
    opened = await table.slash("alice", "game new", kind="conqueror")
    game_id = int(opened.message.embeds[0]["title"].rsplit("#", 1)[1])
    await table.click("bob", "Join", message=opened.message)
    await table.click("alice", "Start", message=opened.message)
    return game_id


def posted_since(table: Table, seen: int) -> list[Message]:
    return [m for m in table.messages[seen:] if not m.ephemeral and not is_recap(m)]


async def test_a_turn_of_moves_and_a_battle_is_one_digest_marking_all_of_it(
        world: World) -> None:
    table = world.dd.table()
    game_id = await open_game(world, table)
    store = world.store
    names = {world.uid(n): n for n in ("alice", "bob")}
    for _ in range(2000):
        record = await store.get(game_id)
        state = store.load_state(record)
        if GAME.outcome(state) is not None:
            break
        player = GAME.current_turn(state)
        assert player is not None
        turn_start, seen = record.version + 1, len(table.messages)
        # one whole turn, by the computer player, every action an interaction
        while GAME.current_turn(state) == player and GAME.outcome(state) is None:
            action = choose_action(GAME, state, player)
            reply = await table.slash(names[player], "play", action=action)
            assert reply.ephemeral and (reply.content or "").startswith("✅")
            state = store.load_state(await store.get(game_id))
        record = await store.get(game_id)
        entries = await store.history.actions_between(game_id, turn_start, record.version)
        events = digest_events(entries)
        moves = [e for e in events if e["type"] == "move"]
        [digest] = posted_since(table, seen)           # one public message for the turn
        if len(moves) < 2 or not any(e["type"] == "battle" for e in events):
            continue
        # every action of the turn is told, in order, with the battle's dice
        text = digest.content
        at = 0
        for move in moves:
            line = f"moves {move['count']} from {move['from']} to {move['to']}"
            at = text.index(line, at) + len(line)
        assert "attacker rolls" in text or "defender rolls" in text or "battle" in text.lower()
        # the board is drawn from every event of the turn, not the last action's
        [png] = digest.attachments
        shown = png.data
        view = GAME.view(state, None)
        names_drawn = {world.uid(n): n for n in ("alice", "bob")}
        whole = render.render("conqueror", view, events, names_drawn)
        last_only = render.render("conqueror", view, public_events(entries[-1].events),
                                  names_drawn)
        assert same_picture(shown, whole) and not same_picture(whole, last_only)
        return
    pytest.fail("no turn with two moves and a battle in a whole game")


async def test_a_raced_out_of_turn_action_is_refused_not_applied_to_the_next_turn(
        world: World) -> None:
    table = world.dd.table()
    game_id = await open_game(world, table)
    await table.slash("alice", "play", action="end")            # now it is bob's turn
    before = await world.store.get(game_id)
    state = world.store.load_state(before)
    assert GAME.current_turn(state) == world.uid("bob")

    # alice sends `end` while bob's `end` is on its way: hers is received first but
    # held back (Discord slow to take her deferral), so bob's commits before hers runs
    async def slow_alice(record: Any) -> bool:
        if record.route.endswith("/callback") and alice_reply.token in record.path:
            await asyncio.sleep(0.3)
        return False

    alice_data = copy.deepcopy((await table.slash("alice", "play", action="zzz")).payload)
    alice_reply = world.dd.new_interaction(type=2, user=world.dd.resolve_user("alice"),
                                           channel=table.channel, data=alice_data["data"],
                                           name="play")
    alice_reply.payload["data"]["options"][0]["value"] = "end"
    world.dd.before_request = slow_alice
    sent_alice = asyncio.create_task(world.dd.send_interaction(alice_reply))
    await asyncio.sleep(0.02)
    bob = await table.slash("bob", "play", action="end")
    await sent_alice
    world.dd.before_request = None

    assert bob.ephemeral and (bob.content or "").startswith("✅")
    after = await world.store.get(game_id)
    assert after.version == before.version + 1                  # bob's end only
    state = world.store.load_state(after)
    assert GAME.current_turn(state) == world.uid("alice")       # alice's turn, not skipped
    assert alice_reply.ephemeral and alice_reply.content == STALE_ACTION
    [entry] = await world.store.history.log(game_id, limit=1)
    assert (entry.player, entry.action) == (world.uid("bob"), "end")
    # and alice can now play her turn normally
    again = await table.slash("alice", "play", action="end")
    assert (again.content or "").startswith("✅")


async def test_server_commands_are_for_servers_only(world: World,
                                                    discord_double: DiscordDouble) -> None:
    # registered for servers only: Discord's client hides them in DMs
    for name in ("game", "play", "conqueror"):
        command = discord_double.command(name)
        assert command.get("contexts") == [0] or command.get("dm_permission") is False, command
    # a forged (or stale-client) DM interaction is refused at run time, nothing opens
    table = world.dd.table()
    template = (await table.slash("carol", "game status")).payload["data"]
    dm = discord_double.dm_channel("carol")
    for data in (copy.deepcopy(template),
                 {"id": discord_double.command("game")["id"], "name": "game", "type": 1,
                  "options": [{"type": 1, "name": "new", "options": [
                      {"type": 3, "name": "kind", "value": "conqueror"}]}]}):
        reply = discord_double.new_interaction(type=2, user=discord_double.resolve_user("carol"),
                                               channel=dm, data=data, name="game")
        await discord_double.send_interaction(reply)
        assert reply.ephemeral and reply.content == SERVER_ONLY
    assert await world.store.active_in_channel(dm.id) is None
    assert world.store is not None and await world.store.list_active(None) == []


async def test_a_mention_gets_help_and_no_input_logs_an_error(
        world: World, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    table = world.dd.table()
    bot_id = world.dd.bot_user.id
    for text in (f"<@{bot_id}> help", f"<@{bot_id}>", f"hey <@{bot_id}> what do I do?"):
        said = await table.say("alice", text)
        answer = await table.wait_for_message(
            lambda m, said=said: m.message_reference is not None
            and m.message_reference.get("message_id") == said.id)
        assert answer.content == MENTION_HELP and answer.pings == []
    quiet = len(table.messages)
    await table.say("bob", "just chatting, no mention")
    await asyncio.sleep(0.1)
    assert len(table.messages) == quiet + 1                  # only bob's own message
    # garbage through every path: never an error in the log
    game_id = await open_game(world, table)
    for junk in ("💥", "x" * 200, "\x00", "move a1 b2 99999999999999999999"):
        await table.slash("alice", "play", action=junk)
    await table.slash("carol", "game board")
    await table.slash("carol", "game rules", kind="conqueror")
    assert game_id and not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "Traceback" not in caplog.text
