"""``/help``, written from the commands the bot has registered, so it cannot fall behind.

Every command in the command tree is named in the message: each root command with its
meaning, each group with all its subcommands (nested groups included), in the order a
newcomer needs them: ``/game`` first, then ``/play`` and ``/hand``, then each game's own
group (in the games' order), then the rest, ``/help`` last. An embed below it gives each
command's own description, as Discord shows it in the command picker: the commands every
game shares, and a pointer to ``/help about:<group>``, which describes one group (a
game's own commands) in full. All of it at once would not fit Discord's 6000 characters
of embeds in a message.

Nothing is hidden from /help (:data:`HIDDEN` says why, should anything ever be).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs.choices import as_choices, filter_choices
from cogs.interactions import send_ephemeral
from cogs.wording import MESSAGE_LIMIT, clip

#: Discord's limits for an embed's fields, description and whole text (with room to spare).
FIELD_LIMIT, EMBED_TOTAL, MAX_FIELDS = 1024, 5800, 25
INTRO = ("**Warhost** hosts board games of war and conquest here (one game per channel or "
         "thread). Open one with `/game new`, then move with `/play` (autocomplete lists "
         "your moves) or with the game's own commands.")
#: Roots shown first, in this order; game groups follow them, then the rest by name.
FIRST = ("game", "play", "hand")
LAST = ("help",)
#: Commands /help leaves out, by qualified name, with the reason. None so far: every
#: command a player can use is in it.
HIDDEN: dict[str, str] = {}

AnyCommand = app_commands.Command[Any, ..., Any] | app_commands.Group


def ordered(roots: Iterable[AnyCommand], kinds: Sequence[str]) -> list[AnyCommand]:
    """The root commands in the order /help lists them (hidden ones left out)."""
    def rank(command: AnyCommand) -> tuple[int, int, str]:
        name = command.name
        if name in FIRST:
            return (0, FIRST.index(name), name)
        if name in kinds:
            return (1, kinds.index(name), name)
        if name in LAST:
            return (3, LAST.index(name), name)
        return (2, 0, name)
    return sorted((r for r in roots if r.qualified_name not in HIDDEN), key=rank)


def leaves(command: AnyCommand) -> list[app_commands.Command[Any, ..., Any]]:
    """A command, or every command inside a group (nested groups included), in order;
    hidden ones left out."""
    if isinstance(command, app_commands.Group):
        return [leaf for sub in command.commands for leaf in leaves(sub)]
    return [] if command.qualified_name in HIDDEN else [command]


def sub_name(root: AnyCommand, leaf: AnyCommand) -> str:
    """A leaf's name inside its root group: ``seat``, or ``settings show`` when nested."""
    return leaf.qualified_name.removeprefix(root.name + " ")


def index_line(command: AnyCommand, games: dict[str, str]) -> str:
    """One line of the message: a group's subcommands by name, or a command's meaning."""
    if isinstance(command, app_commands.Group):
        names = " · ".join(sub_name(command, leaf) for leaf in leaves(command))
        what = f" ({games[command.name]})" if command.name in games else ""
        return f"**/{command.name}**{what} {names}"
    return f"**/{command.name}** — {command.description}"


def help_text(roots: Iterable[AnyCommand], games: dict[str, str] | None = None) -> str:
    """The message: what Warhost is, then one line per root command or group."""
    games = {k: g.name for k, g in engine.GAMES.items()} if games is None else games
    lines = [INTRO, ""]
    lines.extend(index_line(c, games) for c in ordered(roots, list(games)))
    return clip("\n".join(lines), MESSAGE_LIMIT)


def group_names(roots: Iterable[AnyCommand]) -> list[str]:
    """The groups ``/help about:`` describes."""
    return [r.name for r in roots if isinstance(r, app_commands.Group)
            and r.qualified_name not in HIDDEN]


def _title(root: AnyCommand, games: dict[str, str]) -> str:
    return f"/{root.name}" + (f" ({games[root.name]})" if root.name in games else "")


def _add_group(embed: discord.Embed, root: app_commands.Group, games: dict[str, str]) -> bool:
    """The group's commands with their descriptions, as fields (split where a field would
    be too long); False when the embed had no room left for all of it."""
    rows = [clip(f"`/{leaf.qualified_name}` — {leaf.description}", 200)
            for leaf in leaves(root)]
    chunks: list[list[str]] = [[]]
    for row in rows:
        if chunks[-1] and sum(len(r) + 1 for r in chunks[-1]) + len(row) > FIELD_LIMIT:
            chunks.append([])
        chunks[-1].append(row)
    for n, chunk in enumerate(c for c in chunks if c):
        name = clip(_title(root, games) if n == 0 else f"{_title(root, games)}, more", 256)
        value = "\n".join(chunk)
        if len(embed.fields) >= MAX_FIELDS or len(embed) + len(name) + len(value) > EMBED_TOTAL:
            return False
        embed.add_field(name=name, value=value, inline=False)
    return True


def help_embed(roots: Iterable[AnyCommand], games: dict[str, str] | None = None, *,
               about: str | None = None) -> discord.Embed:
    """Each command's description within Discord's limits: of the groups every game
    shares (and a pointer to each game's own), or of the one group ``about`` names."""
    games = {k: g.name for k, g in engine.GAMES.items()} if games is None else games
    groups = [r for r in ordered(roots, list(games)) if isinstance(r, app_commands.Group)]
    if about is not None:
        embed = discord.Embed(title=f"/{about}", colour=discord.Colour.dark_gold())
        for root in groups:
            if root.name == about:
                if root.description:
                    embed.description = clip(root.description, 4000)
                _add_group(embed, root, games)
        return embed
    embed = discord.Embed(title="Every command", colour=discord.Colour.dark_gold())
    own = [root for root in groups if root.name in games]
    for root in groups:
        if root.name not in games:
            _add_group(embed, root, games)
    if own:
        value = clip("\n".join(f"`/help about:{root.name}` — {_title(root, games)}'s own "
                               "commands" for root in own), FIELD_LIMIT)
        if len(embed.fields) < MAX_FIELDS and len(embed) + len(value) + 40 <= EMBED_TOTAL:
            embed.add_field(name="Each game's own commands", value=value, inline=False)
    return embed


class HelpCog(commands.Cog):
    """``/help``."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    def roots(self) -> list[AnyCommand]:
        return [c for c in self.bot.tree.get_commands()
                if isinstance(c, app_commands.Command | app_commands.Group)]

    @app_commands.command(name="help", description="How to play with Warhost: every command")
    @app_commands.describe(about="One group of commands in full, e.g. a game's own commands")
    async def help_(self, interaction: discord.Interaction, about: str | None = None) -> None:
        roots = self.roots()
        text = help_text(roots)
        if about is not None:
            wanted = " ".join(about.lower().split()).lstrip("/")
            if wanted in group_names(roots):
                await send_ephemeral(interaction, f"**/{wanted}**: each command and what it "
                                                  "does. `/help` lists every command.",
                                     embed=help_embed(roots, about=wanted))
                return
            known = ", ".join(f"`{name}`" for name in group_names(roots))
            text = clip(f"There is no command group `{clip(about, 40)}` (there are "
                        f"{known}).\n\n{text}", MESSAGE_LIMIT)
        await send_ephemeral(interaction, text, embed=help_embed(roots))

    @help_.autocomplete("about")
    async def about_choices(self, interaction: discord.Interaction, current: str
                            ) -> list[app_commands.Choice[str]]:
        return as_choices(filter_choices(group_names(self.roots()), current))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(HelpCog(bot))
