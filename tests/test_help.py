"""/help names every command a player can use, from the registered command tree, within
Discord's limits; ``/help about:<group>`` describes a group in full."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from e2e_world import world_fixture

import bot as warhost
import engine
from cogs import help as help_cog


async def every_command_bot() -> commands.Bot:
    """A bot with every cog Warhost loads (nothing connects)."""
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    for name in warhost.discover_cogs():
        await bot.load_extension(name)
    return bot


def walk(command: Any) -> list[Any]:
    """Every command in the tree under ``command`` (groups and subcommands, nested)."""
    if isinstance(command, app_commands.Group):
        return [command, *(c for sub in command.commands for c in walk(sub))]
    return [command]


def fits(embed: discord.Embed) -> None:
    assert len(embed) <= 6000 and len(embed.fields) <= 25
    assert len(embed.description or "") <= 4096 and len(embed.title or "") <= 256
    assert all(len(str(f.value)) <= 1024 and len(str(f.name)) <= 256 for f in embed.fields)


async def test_help_names_every_registered_command_and_describes_each() -> None:
    bot = await every_command_bot()
    roots = [c for c in bot.tree.get_commands()
             if isinstance(c, app_commands.Command | app_commands.Group)]
    text = help_cog.help_text(roots)
    assert len(text) <= 2000 and not text.endswith("…")      # nothing clipped away
    lines = text.splitlines()
    main = help_cog.help_embed(roots)
    fits(main)
    abouts = {name: help_cog.help_embed(roots, about=name)
              for name in help_cog.group_names(roots)}
    for embed in abouts.values():
        fits(embed)
    described = "\n".join(str(f.value) for e in [main, *abouts.values()] for f in e.fields)
    seen = 0
    for root in roots:
        for command in walk(root):
            if command.qualified_name in help_cog.HIDDEN:
                assert help_cog.HIDDEN[command.qualified_name]      # hidden with a reason
                continue
            if isinstance(command, app_commands.Group):
                continue
            seen += 1
            if command.parent is None:
                assert f"**/{command.name}** — {command.description}" in lines
                continue
            line = next(x for x in lines if x.startswith(f"**/{root.name}**"))
            names = line.split(") ", 1)[-1] if ") " in line else line.split("** ", 1)[1]
            assert help_cog.sub_name(root, command) in names.split(" · "), command
            assert f"`/{command.qualified_name}` — {command.description}" in described
    assert seen > 40
    for name in ("seat", "hint", "back", "unfollow", "follow"):
        assert f" · {name}" in next(x for x in lines if x.startswith("**/game**"))
    # the commands every game shares are described on /help itself; each game's own
    # groups are pointed at
    shared = "\n".join(str(f.value) for f in main.fields)
    assert "`/game hint` — " in shared and "`/vacation start` — " in shared
    for kind in engine.GAMES:
        assert f"`/help about:{kind}`" in shared


async def test_help_about_a_group_and_bad_input() -> None:
    bot = await every_command_bot()
    roots = [c for c in bot.tree.get_commands()
             if isinstance(c, app_commands.Command | app_commands.Group)]
    liege = help_cog.help_embed(roots, about="liege")
    assert liege.fields and all("`/liege " in str(f.value) for f in liege.fields)
    nothing = help_cog.help_embed(roots, about="no such group")
    assert not nothing.fields                           # nothing to describe, no crash
    assert "game" in help_cog.group_names(roots) and "play" not in help_cog.group_names(roots)


@pytest.mark.parametrize("command", ["game", "play", "help"])
def test_nothing_is_hidden_without_a_reason(command: str) -> None:
    assert command not in help_cog.HIDDEN
    assert all(reason.strip() for reason in help_cog.HIDDEN.values())


# -- through Discord (the double) -------------------------------------------------------------

pytest_plugins = ["discord_double.fixtures"]


world = world_fixture(people=("alice",), commands=["game", "play", "help", "liege"])


async def test_help_and_help_about_through_discord(world: Any) -> None:
    table = world.dd.table()
    helped = await table.slash("alice", "help")
    assert helped.ephemeral and "**/game**" in (helped.content or "")
    assert "`/help about:liege`" in helped.text and len(helped.text) <= 6000 + 2000
    offered = [c.value for c in await table.autocomplete("alice", "help", "about", typed="li")]
    assert offered == ["liege"]
    liege = await table.slash("alice", "help", about="liege")
    assert liege.ephemeral and "`/liege buy` — " in liege.text
    wrong = await table.slash("alice", "help", about="nonsense" * 20)
    assert wrong.ephemeral and "There is no command group" in (wrong.content or "")
    assert len(wrong.content or "") <= 2000 and "**/game**" in (wrong.content or "")
