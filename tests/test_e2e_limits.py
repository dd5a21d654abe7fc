"""End to end, the abuse limits through the real bot and the Discord double:

* a user over the rate limit is told once, privately, how long to wait, and nothing
  else happens (no lobby opens, no seat is taken); autocomplete gets an empty list;
  others are not affected; after the wait all is normal;
* ``/game new`` names each permission the bot lacks in the channel (or thread);
* a server's open games are capped, even when two ``/game new`` race for the last place;
* a lobby nobody touches is closed with a notice, its buttons gone, the channel free.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from discord_double import DiscordDouble, Table
from discord_double.models import ATTACH_FILES, EMBED_LINKS, SEND_MESSAGES_IN_THREADS
from e2e_world import Clock, World, start_world
from e2e_world import game_id_of as game_id

from cogs.limits import Limiter, Rate
from cogs.lobby import LobbyExpiry

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help"]
HOUR = 3600.0


async def start(dd: DiscordDouble, start_bot: Any, tmp_path: Path,
                **settings: str) -> World:
    """The bot on its own clock with the limits as ``settings`` say (rate limits on
    unless ``RATE_LIMITS=off``)."""
    return await start_world(dd, start_bot, tmp_path, ("alice", "bob", "carol"), COMMANDS,
                             clock=Clock(), RENDER_WORKERS="0",
                             **{"RATE_LIMITS": None, **settings})


# -- rate limits ---------------------------------------------------------------------------------


async def test_a_user_over_the_rate_limit_is_told_once_and_nothing_happens(
        discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    site = await start(discord_double, start_bot, tmp_path)
    assert isinstance(site.running.bot.limiter, Limiter)      # on by default
    now = [0.0]
    small = Rate(3, 1.0)
    site.running.bot.limiter = Limiter(small, small, small, clock=lambda: now[0])
    table = site.dd.table()

    for _ in range(3):
        assert "Warhost" in ((await table.slash("alice", "help")).content or "")
    told = await table.slash("alice", "game new", kind="conqueror")
    assert told.ephemeral and told.content == "You are sending commands too fast; wait 1 s."
    again = await table.invoke("alice", "game new", {"kind": "conqueror"},
                               expect_response=False, timeout=0.5)
    assert not again.responded                                # told once, then quiet
    assert await site.store.active_in_channel(table.channel.id) is None   # nothing opened
    assert (await table.slash("bob", "help")).ephemeral       # others are not affected

    # autocomplete: suggestions while in bounds, an empty list beyond
    for _ in range(3):
        assert await table.autocomplete("alice", "game new", "options", typed="",
                                        kind="liege")
    assert await table.autocomplete("alice", "game new", "options", typed="",
                                    kind="liege") == []

    now[0] += 2.0                                             # the wait is over
    opened = await table.slash("alice", "game new", kind="conqueror")
    lobby = game_id(opened)

    # buttons count too: a limited click is refused and takes no seat
    await table.click("bob", "Join", message=opened.message)
    await table.click("bob", "Leave", message=opened.message)
    await table.click("bob", "Join", message=opened.message)
    refused = await table.click("bob", "Leave", message=opened.message)
    assert refused.ephemeral and (refused.content or "").startswith(
        "You are sending commands too fast")
    assert (await site.store.get(lobby)).seats == (site.dd.resolve_user("alice").id,
                                                   site.dd.resolve_user("bob").id)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# -- permissions at /game new ------------------------------------------------------------------


async def test_game_new_names_each_permission_the_bot_lacks(
        discord_double: DiscordDouble, start_bot: Any, tmp_path: Path) -> None:
    site = await start(discord_double, start_bot, tmp_path, RATE_LIMITS="off")
    dd = site.dd
    bare = dd.add_channel("bare")
    dd.set_overwrite(bare, dd.bot_user, deny=ATTACH_FILES | EMBED_LINKS)
    table = dd.table(channel=bare)
    refused = await table.slash("alice", "game new", kind="conqueror")
    assert refused.ephemeral
    text = refused.content or ""
    assert "**Embed Links**" in text and "**Attach Files**" in text
    assert "Send Messages" not in text and "Edit Channel → Permissions" in text
    assert await site.store.active_in_channel(bare.id) is None

    parent = dd.add_channel("threads-only")
    dd.set_overwrite(parent, dd.bot_user, deny=SEND_MESSAGES_IN_THREADS)
    thread = dd.table(channel=parent).thread("side game")
    refused = await thread.slash("alice", "game new", kind="conqueror")
    assert "**Send Messages in Threads**" in (refused.content or "")
    assert "parent channel" in (refused.content or "")
    assert await site.store.active_in_channel(thread.channel.id) is None
    # the parent channel itself is fine: Send Messages is allowed there
    opened = await dd.table(channel=parent).slash("alice", "game new", kind="conqueror")
    assert opened.message.embeds and not opened.ephemeral

    # once an admin grants them, the same command works
    dd.set_overwrite(bare, dd.bot_user)
    opened = await table.slash("alice", "game new", kind="conqueror")
    assert opened.message.embeds and game_id(opened)


# -- the cap on open games ---------------------------------------------------------------------


async def test_open_games_are_capped_per_server(discord_double: DiscordDouble,
                                                start_bot: Any, tmp_path: Path) -> None:
    site = await start(discord_double, start_bot, tmp_path, RATE_LIMITS="off",
                       MAX_OPEN_GAMES="2")
    dd = site.dd
    first = await dd.table(channel="one").slash("alice", "game new", kind="conqueror")
    await dd.table(channel="two").slash("bob", "game new", kind="conqueror")
    refused = await dd.table(channel="three").slash("carol", "game new", kind="conqueror")
    assert refused.ephemeral and "already has 2 open games" in (refused.content or "")
    assert await site.store.active_in_channel(dd.table(channel="three").channel.id) is None

    await dd.table(channel="one").slash("alice", "game abort")
    assert (await site.store.get(game_id(first))).status == "aborted"
    # one place left, two racing for it: exactly one gets it
    tables = [dd.table(channel="three"), dd.table(channel="four")]
    replies = await asyncio.gather(
        tables[0].slash("carol", "game new", kind="conqueror"),
        tables[1].slash("bob", "game new", kind="conqueror"))
    opened = [r for r in replies if not r.ephemeral]
    refused_now = [r for r in replies if r.ephemeral]
    assert len(opened) == 1 and len(refused_now) == 1
    assert "already has 2 open games" in (refused_now[0].content or "")
    assert await site.store.limits.open_games(dd.guild.id) == 2


# -- lobbies that expire ---------------------------------------------------------------------


async def test_an_untouched_lobby_is_closed_with_a_notice(discord_double: DiscordDouble,
                                                          start_bot: Any,
                                                          tmp_path: Path) -> None:
    site = await start(discord_double, start_bot, tmp_path, RATE_LIMITS="off",
                       LOBBY_EXPIRY_HOURS="24")
    table: Table = site.dd.table()
    opened = await table.slash("alice", "game new", kind="conqueror")
    lobby = game_id(opened)
    cog = site.running.bot.get_cog("LobbyExpiry")
    assert isinstance(cog, LobbyExpiry)

    site.clock.advance(20 * HOUR)
    await table.click("bob", "Join", message=opened.message)      # touched
    site.clock.advance(20 * HOUR)
    assert await cog.run_once() == []                              # 20 h since: kept
    seen = len(table.messages)
    site.clock.advance(5 * HOUR)
    [closed] = await cog.run_once()

    assert closed.id == lobby and (await site.store.get(lobby)).status == "aborted"
    [notice] = [m for m in table.messages[seen:] if not m.ephemeral]
    assert f"Conqueror #{lobby}** was closed" in notice.content and "24 hours" in notice.content
    assert notice.pings == []
    message = site.dd.messages[opened.message.id]
    assert message.components == []                                # no more buttons
    assert "aborted" in message.embeds[0]["description"]
    again = await table.slash("bob", "game new", kind="conqueror")  # the channel is free
    assert not again.ephemeral and game_id(again) != lobby
