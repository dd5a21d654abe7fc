"""End to end: the real bot (create_bot) against the loopback Discord double.

Scripted players open a Conqueror lobby, join and start with the buttons, play a few
turns with /play, /conqueror and autocomplete, and the assertions read the payloads the
double recorded from discord.py: embeds, components, ephemeral flags, pings, PNGs.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from discord_double import ClientRefused, DiscordDouble, Message, Reply, Table
from e2e_driver import check_png, digest_after
from e2e_world import World, open_game, start_world, world_config, world_fixture

import bot as warhost
import engine
from db import Store

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "conqueror"]
#: Everything the bot and discord.py log, so a test can look for the token there.
DEBUG = {"LOG_LEVEL": "DEBUG"}

world = world_fixture(people=("alice", "bob", "carol"), commands=COMMANDS, **DEBUG)


@pytest.fixture
def table(world: World) -> Table:
    return world.dd.table()


def uid(table: Table, name: str) -> str:
    return table.user(name).id


def board_message(reply: Reply) -> Message:
    with_file = [m for m in reply.messages if m.attachments]
    assert len(with_file) == 1, reply.describe()
    return with_file[0]


async def open_and_start(table: Table) -> None:
    await open_game(table, "conqueror", ["alice", "bob"])


# ---------------------------------------------------------------------------------------------


async def test_commands_are_synced_to_the_dev_guild(discord_double: DiscordDouble,
                                                    table: Table) -> None:
    names = {c["name"] for c in discord_double.commands(discord_double.guild)}
    assert {"game", "play", "help", "conqueror", "settings"} <= names
    game = discord_double.command("game")
    subs = {o["name"] for o in game["options"]}
    assert subs == {"new", "join", "leave", "start", "status", "board", "log", "resign",
                    "abort", "list", "rules", "seat", "undo", "follow", "unfollow", "hint",
                    "back", "web", "stats", "export"}
    new = next(o for o in game["options"] if o["name"] == "new")
    kind, options, clock, timeouts, bots, level, takeover, rated, from_, at = new["options"]
    assert rated["name"] == "rated" and rated["type"] == 5 and not rated.get("required")
    assert (from_["name"], from_["type"]) == ("from", 11)       # an attachment
    assert (at["name"], at["type"], at["min_value"]) == ("at", 4, 0)
    assert (bots["name"], bots["min_value"], bots["max_value"]) == ("bots", 0, 7)
    assert [c["value"] for c in level["choices"]] == ["easy", "medium", "hard"]
    assert takeover["name"] == "takeover" and takeover["type"] == 5    # a boolean
    assert clock["name"] == "clock" and clock["autocomplete"] is True
    assert (timeouts["name"], timeouts["min_value"], timeouts["max_value"]) == ("timeouts", 0, 20)
    assert [c["value"] for c in kind["choices"]] == sorted(engine.GAMES)
    assert kind["required"] and "conqueror" in [c["value"] for c in kind["choices"]]
    assert options["name"] == "options" and options["autocomplete"] is True
    assert not options.get("required")
    move = next(o for o in discord_double.command("conqueror")["options"]
                if o["name"] == "move")
    count = next(o for o in move["options"] if o["name"] == "count")
    assert (count["min_value"], count["max_value"]) == (1, 6)


async def test_lobby_with_buttons(table: Table) -> None:
    reply = await table.slash("alice", "game new", kind="conqueror")
    assert not reply.ephemeral
    lobby = reply.message
    [embed] = lobby.embeds
    assert "Conqueror" in embed["title"]
    game_id = embed["title"].rsplit("#", 1)[1]
    assert lobby.custom_ids == [f"warhost:lobby:{a}:{game_id}"
                                for a in ("join", "leave", "start", "addbot")]
    assert f"<@{uid(table, 'alice')}> (host)" in embed["fields"][0]["value"]
    assert "third seat" in embed["footer"]["text"]
    assert lobby.pings == []                          # an embed mention pings nobody

    joined = await table.click("bob", "Join")
    assert joined.response_type == 7                 # UPDATE_MESSAGE: the lobby itself
    seats = table.last_message().embeds[0]["fields"][0]
    assert seats["name"] == "Seats (2/4)" and f"<@{uid(table, 'bob')}>" in seats["value"]

    refused = await table.click("carol", "Start")
    assert refused.ephemeral and "Only the host" in (refused.content or "")
    again = await table.click("bob", "Join")
    assert again.ephemeral and "already seated" in (again.content or "")

    left = await table.click("bob", "Leave")
    assert left.response_type == 7
    await table.slash("carol", "game join")          # the slash form edits the lobby too
    seats = table.messages[0].embeds[0]["fields"][0]
    assert f"<@{uid(table, 'carol')}>" in seats["value"]
    assert f"<@{uid(table, 'bob')}>" not in seats["value"]

    busy = await table.slash("bob", "game new", kind="conqueror")
    assert busy.ephemeral and "already has a game" in (busy.content or "")

    # the host reorders the seats: carol moves first
    refused = await table.slash("carol", "game seat", player=uid(table, "carol"), position=1)
    assert refused.ephemeral and "Only the host" in (refused.content or "")
    moved = await table.slash("alice", "game seat", player=uid(table, "carol"), position=1)
    assert moved.ephemeral
    seats = table.messages[0].embeds[0]["fields"][0]["value"]
    assert seats.index(f"<@{uid(table, 'carol')}>") < seats.index(f"<@{uid(table, 'alice')}>")


async def test_options_of_a_game_without_any(table: Table) -> None:
    assert await table.autocomplete("alice", "game new", "options", typed="",
                                    kind="conqueror") == []
    assert await table.autocomplete("alice", "game new", "options", typed="size") == []
    refused = await table.slash("alice", "game new", kind="conqueror", options="size=8")
    assert refused.ephemeral and "no option called `size`" in (refused.content or "")
    assert table.messages == []                       # no lobby was opened
    opened = await table.slash("alice", "game new", kind="conqueror")
    assert not opened.ephemeral
    assert "Options" not in {f["name"] for f in opened.message.embeds[0]["fields"]}


async def test_start_posts_the_board_and_pings_the_first_player(table: Table) -> None:
    await open_and_start(table)
    lobby = table.messages[0]
    assert lobby.edited and lobby.components == []   # buttons gone once started
    board = digest_after(table, 1)
    assert not board.ephemeral and "The game begins" in board.content
    assert board.pings == [uid(table, "alice")]
    width, height = check_png(board)
    assert 800 <= width <= 1400 and height > 300


async def test_a_few_turns(table: Table) -> None:
    await open_and_start(table)
    alice, bob = uid(table, "alice"), uid(table, "bob")

    # autocomplete: only the player to act gets choices; filtered by what they typed
    mine = await table.autocomplete("alice", "play", "action", typed="")
    assert [c.value for c in mine] == ["move a1 b1 1", "move a1 a2 1", "move a1 b2 1",
                                       "convert ap", "end"]
    typed = await table.autocomplete("alice", "play", "action", typed="B2")
    assert [c.value for c in typed] == ["move a1 b2 1"]
    assert await table.autocomplete("bob", "play", "action", typed="") == []
    assert await table.autocomplete("carol", "play", "action", typed="") == []
    sources = await table.autocomplete("alice", "conqueror move", "from", typed="")
    assert [c.value for c in sources] == ["a1"]
    targets = await table.autocomplete("alice", "conqueror move", "to", typed="", **{"from": "a1"})
    assert sorted(str(c.value) for c in targets) == ["a2", "b1", "b2"]

    # out of turn: ephemeral, with the engine's message
    early = await table.slash("bob", "play", action="end")
    assert early.ephemeral and f"<@{alice}>" in (early.content or "")  # ids shown as names

    # a move within the turn: a private confirmation with the die; the channel hears nothing
    seen = len(table.messages)
    moved = await table.slash("alice", "conqueror move", **{"from": "a1", "to": "b2",
                                                           "count": 1})
    assert moved.ephemeral and moved.response_type == 5      # deferred, then answered
    assert f"<@{alice}> moves 1 from a1 to b2" in (moved.content or "")
    assert "rolled" in (moved.content or "")
    assert moved.attachments == [] and all(m.pings == [] for m in moved.messages)
    assert len(table.messages) == seen

    # ending the turn: one digest of the whole turn, with the board, pinging bob only
    ended = await table.slash("alice", "play", action="end")
    assert ended.ephemeral and "ends their turn" in (ended.content or "")
    board = digest_after(table, seen)
    text = board.content
    assert text.index("moves 1 from a1 to b2") < text.index("ends their turn")
    assert board.pings == [bob] and f"<@{bob}>" in text
    assert ended.message.pings == []

    # bob's turn: recruiting without gold is refused, the game unchanged
    broke = await table.slash("bob", "conqueror recruit", count=2)
    assert broke.ephemeral and "gold" in (broke.content or "").lower()
    converted = await table.slash("bob", "conqueror convert", what="ap")
    assert converted.ephemeral and converted.attachments == []
    with pytest.raises(ClientRefused):               # the client enforces Range[1, 6]
        await table.slash("bob", "conqueror recruit", count=7)
    seen = len(table.messages)
    await table.slash("bob", "conqueror end")
    assert digest_after(table, seen).pings == [alice]

    status = await table.slash("carol", "game status")
    assert status.ephemeral and "round 2" in (status.content or "").lower()
    log = await table.slash("carol", "game log")
    assert log.ephemeral
    assert [line.split(" ")[0] for line in (log.content or "").splitlines()[1:]
            if line.startswith("`#")] == ["`#1`", "`#2`", "`#3`", "`#4`"]
    assert "converts 1 AP into 2 gold" in (log.content or "")

    seen = len(table.messages)
    shown = await table.slash("carol", "game board")       # looking costs nothing
    assert board_message(shown).ephemeral and board_message(shown).pings == []
    assert len(table.messages) == seen
    shared = await table.slash("carol", "game board", share=True)
    assert not board_message(shared).ephemeral and board_message(shared).pings == []

    # garbage of every kind: refused politely, never a crash
    for junk in ("💥💥💥", "move a1 b2 99999999999999999999", "x" * 200, "move 🙂 b2 1"):
        bad = await table.slash("alice", "play", action=junk)
        assert bad.ephemeral and bad.content and "Something went wrong" not in bad.content

    # bob resigns out of turn: the game ends, alice wins
    seen = len(table.messages)
    await table.slash("bob", "game resign")
    result = digest_after(table, seen)
    assert "Game over" in result.content and f"<@{alice}>" in result.content
    assert alice not in result.content.replace(f"<@{alice}>", "")  # no bare ids
    listed = await table.slash("alice", "game list")
    assert "No games" in (listed.content or "")


async def test_lobby_buttons_survive_a_restart(world: World, table: Table) -> None:
    await table.slash("alice", "game new", kind="conqueror")
    # a new process, as far as the bot knows: fresh objects, the same database file
    await world.restart()
    joined = await table.click("bob", "Join")
    assert joined.response_type == 7
    assert f"<@{uid(table, 'bob')}>" in table.messages[0].embeds[0]["fields"][0]["value"]
    await table.click("alice", "Start")
    assert digest_after(table, 1).pings == [uid(table, "alice")]


async def test_rules_help_and_abort(table: Table, discord_double: DiscordDouble) -> None:
    rules = await table.slash("carol", "game rules", kind="conqueror")
    [embed] = rules.message.embeds
    assert rules.ephemeral and embed["title"] == "Conqueror — quick rules"
    assert len(embed["fields"]) >= 4 and "docs/" not in str(embed)
    helped = await table.slash("carol", "help")
    assert helped.ephemeral and "/play" in (helped.content or "")
    await open_and_start(table)
    refused = await table.slash("carol", "game abort")
    assert refused.ephemeral and "host" in (refused.content or "")
    aborted = await table.slash("alice", "game abort")
    assert not aborted.ephemeral and "aborted" in (aborted.content or "")
    assert "No games" in ((await table.slash("bob", "game list")).content or "")


async def test_the_token_never_reaches_the_logs(discord_double: DiscordDouble, start_bot: Any,
                                                tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    await start_world(discord_double, start_bot, tmp_path, ("alice", "bob"), True, **DEBUG)
    await open_and_start(discord_double.table())
    assert any(r.name.startswith("discord.") for r in caplog.records)
    assert discord_double.token not in caplog.text


async def test_the_store_is_closed_with_the_bot(discord_double: DiscordDouble, start_bot: Any,
                                                tmp_path: Path) -> None:
    created = warhost.create_bot(world_config(discord_double, tmp_path, **DEBUG))
    running = await start_bot(created)
    store = created.store
    assert isinstance(store, Store)
    await running.stop()
    assert created.store is None


async def test_gateway_is_found_from_the_api_base_alone(discord_double: DiscordDouble,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        start_bot: Any, tmp_path: Path) -> None:
    import discord
    import yarl

    # forget where the double's gateway is: only DISCORD_API_BASE can lead the bot there
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        yarl.URL("ws://127.0.0.1:9/nowhere"))
    config = world_config(discord_double, tmp_path, **DEBUG)
    assert config.gateway_url is None
    await start_bot(warhost.create_bot(config))
    assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == discord_double.gateway_url
    reply = await discord_double.table().slash("guild-owner", "help")
    assert reply.ephemeral
