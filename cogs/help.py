"""``/help``, written from the commands the bot has registered, so it cannot fall behind.

Every root command and group in the command tree is listed, its subcommands by name, in
the order a newcomer needs them: ``/game`` first, then ``/play`` and ``/hand``, then each
game's own group (in the games' order), then the rest, ``/help`` last. The message says
what to type; an embed below it gives each command's own description, as Discord shows
it in the command picker.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs.interactions import send_ephemeral
from cogs.wording import MESSAGE_LIMIT, clip

#: Discord's limits for an embed's fields and its whole text (with room to spare).
FIELD_LIMIT, EMBED_TOTAL, MAX_FIELDS = 1024, 5800, 25
INTRO = ("**Warhost** hosts board games of war and conquest here (one game per channel or "
         "thread). Open one with `/game new`, then move with `/play` (autocomplete lists "
         "your moves) or with the game's own commands.")
#: Roots shown first, in this order; game groups follow them, then the rest by name.
FIRST = ("game", "play", "hand")
LAST = ("help",)

AnyCommand = app_commands.Command[Any, ..., Any] | app_commands.Group


def ordered(roots: Iterable[AnyCommand], kinds: Sequence[str]) -> list[AnyCommand]:
    """The root commands in the order /help lists them."""
    def rank(command: AnyCommand) -> tuple[int, int, str]:
        name = command.name
        if name in FIRST:
            return (0, FIRST.index(name), name)
        if name in kinds:
            return (1, kinds.index(name), name)
        if name in LAST:
            return (3, LAST.index(name), name)
        return (2, 0, name)
    return sorted(roots, key=rank)


def leaves(command: AnyCommand) -> list[app_commands.Command[Any, ..., Any]]:
    """A command, or every command inside a group (nested groups included), in order."""
    if isinstance(command, app_commands.Group):
        return [leaf for sub in command.commands for leaf in leaves(sub)]
    return [command]


def index_line(command: AnyCommand, games: dict[str, str]) -> str:
    """One line of the message: a group's subcommands by name, or a command's meaning."""
    if isinstance(command, app_commands.Group):
        names = " · ".join(sub.name for sub in command.commands)
        what = f" ({games[command.name]})" if command.name in games else ""
        return f"**/{command.name}**{what} {names}"
    return f"**/{command.name}** — {command.description}"


def help_text(roots: Iterable[AnyCommand], games: dict[str, str] | None = None) -> str:
    """The message: what Warhost is, then one line per root command or group."""
    games = {k: g.name for k, g in engine.GAMES.items()} if games is None else games
    lines = [INTRO, ""]
    lines.extend(index_line(c, games) for c in ordered(roots, list(games)))
    return clip("\n".join(lines), MESSAGE_LIMIT)


def help_embed(roots: Iterable[AnyCommand], games: dict[str, str] | None = None
               ) -> discord.Embed:
    """Each command's description, a field per root (split where a field would be too
    long), within Discord's limits."""
    games = {k: g.name for k, g in engine.GAMES.items()} if games is None else games
    embed = discord.Embed(title="Every command", colour=discord.Colour.dark_gold())
    used = len(embed.title or "")
    for root in ordered(roots, list(games)):
        if not isinstance(root, app_commands.Group):
            continue            # a single command's meaning is in the message already
        rows = [f"`/{leaf.qualified_name}` — {leaf.description}" for leaf in leaves(root)]
        chunks: list[list[str]] = [[]]
        for row in rows:
            row = clip(row, 200)
            if sum(len(r) + 1 for r in chunks[-1]) + len(row) > FIELD_LIMIT:
                chunks.append([])
            chunks[-1].append(row)
        for n, chunk in enumerate(chunks):
            name = f"/{root.name}" + (f" ({games[root.name]})" if root.name in games else "")
            name = clip(name if n == 0 else f"{name}, more", 256)
            value = "\n".join(chunk)
            if len(embed.fields) >= MAX_FIELDS or used + len(name) + len(value) > EMBED_TOTAL:
                return embed
            embed.add_field(name=name, value=value, inline=False)
            used += len(name) + len(value)
    return embed


class HelpCog(commands.Cog):
    """``/help``."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="How to play with Warhost: every command")
    async def help_(self, interaction: discord.Interaction) -> None:
        roots = [c for c in self.bot.tree.get_commands()
                 if isinstance(c, app_commands.Command | app_commands.Group)]
        await send_ephemeral(interaction, help_text(roots), embed=help_embed(roots))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(HelpCog(bot))
