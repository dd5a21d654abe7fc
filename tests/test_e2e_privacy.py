"""End to end, ``/privacy``: a player sees what is stored about them and deletes it with a
confirmation; their lobby goes on without them, their running game is resigned and goes
on, their finished game still shows its log, and nothing in the database names them.
Cancelling or an expired confirmation deletes nothing; the Red-DiscordBot hook does the
same deletion; ``/privacy`` works in direct messages too."""

from __future__ import annotations

import logging
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from discord_double import DiscordDouble, Message, Table
from e2e_world import World, deal_seeds, start_world

from engine.conqueror import GAME
from tests import databases

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "privacy", "reminders"]
PLACEHOLDER = re.compile(r"deleted-[0-9a-f]{8}")


@pytest.fixture
async def world(discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> World:
    return await start_world(discord_double, start_bot, tmp_path, ("alice", "bob", "carol"),
                             COMMANDS, deal_seeds(monkeypatch, 20250101))


async def opened(table: Table, host: str, *players: str, start: bool = True) -> int:
    reply = await table.slash(host, "game new", kind="conqueror")
    for name in players:
        await table.click(name, "Join", message=reply.message)
    if start:
        await table.click(host, "Start", message=reply.message)
    return int(reply.message.embeds[0]["title"].rsplit("#", 1)[1])


def everything(world: World) -> str:
    return "\n".join(databases.snapshot(str(Path(world.store.path))))


async def test_a_player_deletes_their_data_and_the_games_go_on(
        world: World, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    dd, store = world.dd, world.store
    alice = world.uid("alice")
    # a finished game (alice resigned), a running one, a lobby she hosts, her settings
    one, two, three = dd.table(channel="one"), dd.table(channel="two"), dd.table(channel="three")
    finished = await opened(one, "alice", "bob")
    await one.slash("alice", "play", action="end")
    await one.slash("bob", "play", action="resign")
    running = await opened(two, "bob", "alice", "carol")
    await two.slash("bob", "play", action="end")
    lobby = await opened(three, "alice", "carol", start=False)
    await three.slash("alice", "reminders me", dm=True)
    assert (await store.get(finished)).status == "finished"

    shown = await one.slash("alice", "privacy")
    assert shown.ephemeral
    assert "3 games (2 open)" in (shown.content or "") and "settings: yes" in shown.content
    confirm = await one.click("alice", "Delete my data…", message=shown.message)
    assert "Delete your data?" in (dd.messages[shown.message.id].content or "")
    seen = {t: len(t.messages) for t in (one, two, three)}
    done = await one.click("alice", "Delete everything", message=dd.messages[shown.message.id])
    assert confirm.ephemeral and done.responded
    final = dd.messages[shown.message.id].content or ""
    assert final.startswith("🗑️ Done: left 1 lobby, resigned from 1 game, anonymised 2 games")
    assert "nothing that names you" in final

    assert alice not in everything(world)                      # in no table, no row
    # the running game told its channel she resigned, and goes on between bob and carol
    posted = [m for m in two.messages[seen[two]:] if not m.ephemeral]
    assert posted and all(alice not in m.pings for m in posted)
    record = await store.get(running)
    state = store.load_state(record)
    assert record.status == "active" and len(set(GAME.players(state)) & {alice}) == 0
    assert any(PLACEHOLDER.fullmatch(s) for s in record.seats)
    up = GAME.current_turn(state)
    assert up in (world.uid("bob"), world.uid("carol"))
    moved = await two.slash(world.name(up), "play", action="end")
    assert (moved.content or "").startswith("✅")
    assert await store.history.verify(running) and await store.history.verify(finished)
    # the lobby goes on with carol as host; its message no longer lists alice
    lobby_record = await store.get(lobby)
    assert lobby_record.seats == (world.uid("carol"),)
    assert lobby_record.host_id == world.uid("carol")
    lobby_message: Message = next(m for m in three.messages if m.embeds
                                  and f"#{lobby}" in m.embeds[0].get("title", ""))
    assert alice not in str(dd.messages[lobby_message.id].embeds)
    # the finished game's log still reads, naming nobody by alice's id
    log = await one.slash("bob", "game log", game=finished)
    assert log.ephemeral and f"#{finished}" in (log.content or "") and alice not in log.content
    # and there is nothing left to show her
    again = await one.slash("alice", "privacy")
    assert "About you now:** nothing." in (again.content or "")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_cancel_and_an_expired_confirmation_delete_nothing(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    dd, store = world.dd, world.store
    table = dd.table()
    game_id = await opened(table, "bob", "carol")
    before = everything(world)

    shown = await table.slash("bob", "privacy")
    await table.click("bob", "Delete my data…", message=shown.message)
    await table.click("bob", "Cancel", message=dd.messages[shown.message.id])
    assert dd.messages[shown.message.id].content == "Nothing was deleted."

    shown = await table.slash("bob", "privacy")
    await table.click("bob", "Delete my data…", message=shown.message)
    live = sys.modules["cogs.privacy"]      # the extension as the bot loaded it
    later = time.time() + live.CONFIRM_WINDOW + 5
    monkeypatch.setattr(live, "time", SimpleNamespace(time=lambda: later))
    await table.click("bob", "Delete everything", message=dd.messages[shown.message.id])
    assert "expired" in (dd.messages[shown.message.id].content or "")
    assert everything(world) == before
    assert (await store.get(game_id)).seats == (world.uid("bob"), world.uid("carol"))


async def test_the_red_hook_deletes_and_privacy_works_in_direct_messages(
        world: World) -> None:
    dd, store = world.dd, world.store
    table = dd.table()
    game_id = await opened(table, "bob", "carol")
    cog = world.running.bot.get_cog("PrivacyCog")
    assert cog is not None
    carol = world.uid("carol")
    forgotten = await cog.red_delete_data_for_user(requester="discord_deleted_user",
                                                   user_id=int(carol))
    assert forgotten.resigned == (game_id,) and carol not in everything(world)
    assert (await store.get(game_id)).status == "finished"    # two players: bob wins

    # in a direct message (the commands are synced to the test server only, so the
    # interaction is made as Discord would send it from a DM)
    template = (await table.slash("carol", "privacy")).payload["data"]
    dm = dd.new_interaction(type=2, user=dd.resolve_user("carol"),
                            channel=dd.dm_channel("carol"), data=template, name="privacy")
    await dd.send_interaction(dm)
    assert dm.ephemeral and "About you now:** nothing." in (dm.content or "")
