"""``/conqueror``: friendly forms of Conqueror's actions.

Each command builds the action's notation and goes through :func:`cogs.common.submit`,
exactly like ``/play``; squares autocomplete from the caller's legal actions.
"""

from __future__ import annotations

from collections.abc import Iterable

import discord
from discord import app_commands
from discord.ext import commands

from cogs import common
from cogs.common import reply_error, store_of
from cogs.game import legal_for

KIND = "conqueror"
Count = app_commands.Range[int, 1, 6]
Square = app_commands.Range[str, 1, 20]


# -- notation (pure) --------------------------------------------------------------------


def _word(text: str) -> str:
    """One lower-case token; inner spaces are kept so the engine refuses them clearly."""
    return " ".join(text.lower().split())


def move_notation(src: str, dst: str, count: int) -> str:
    return f"move {_word(src)} {_word(dst)} {count}"


def recruit_notation(count: int) -> str:
    return f"recruit {count}"


def fort_notation(square: str) -> str:
    return f"fort {_word(square)}"


def raze_notation(square: str) -> str:
    return f"raze {_word(square)}"


def convert_notation(what: str) -> str:
    return f"convert {_word(what)}"


END = "end"


# -- squares from legal actions (pure) -----------------------------------------------------


def _split(actions: Iterable[str], verb: str) -> list[list[str]]:
    return [words[1:] for words in (a.split() for a in actions) if words and words[0] == verb]


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def move_sources(actions: Iterable[str]) -> list[str]:
    """Squares that appear as the source of a legal move, in order of first appearance."""
    return _unique(args[0] for args in _split(actions, "move") if len(args) >= 2)


def move_targets(actions: Iterable[str], src: str | None) -> list[str]:
    """Squares a legal move from ``src`` can reach (from anywhere if ``src`` is empty)."""
    wanted = _word(src or "")
    return _unique(args[1] for args in _split(actions, "move")
                   if len(args) >= 2 and (not wanted or args[0] == wanted))


def move_counts(actions: Iterable[str], src: str | None, dst: str | None) -> list[int]:
    """Legal soldier counts for a move from ``src`` to ``dst``."""
    s, d = _word(src or ""), _word(dst or "")
    counts = {int(args[2]) for args in _split(actions, "move")
              if len(args) == 3 and args[2].isdigit()
              and (not s or args[0] == s) and (not d or args[1] == d)}
    return sorted(counts)


def squares_for(actions: Iterable[str], verb: str) -> list[str]:
    """Squares of legal ``fort`` or ``raze`` actions."""
    return _unique(args[0] for args in _split(actions, verb) if len(args) == 1)


def square_choices(squares: list[str], typed: str) -> list[app_commands.Choice[str]]:
    return common.as_choices(common.filter_choices(squares, typed))


# -- the cog ------------------------------------------------------------------------------


@app_commands.guild_only()
class ConquerorCog(commands.GroupCog, group_name="conqueror",
                   group_description="Conqueror actions (or use /play)"):
    """``/conqueror move|recruit|fort|raze|convert|end``."""

    game_help = ("`/conqueror move|recruit|fort|raze|convert|end`: friendly forms of "
                 "Conqueror moves.")

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        super().__init__()

    async def _submit(self, interaction: discord.Interaction, action: str) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        if record.kind != KIND:
            await reply_error(interaction, f"The game in this channel is not Conqueror; use "
                                           f"`/play` for its actions (e.g. `/play {action}`).")
            return
        await common.submit(interaction, store_of(interaction.client), record, action)

    @app_commands.command(name="move", description="Move soldiers to a neighbouring square "
                                                   "(1 AP)")
    @app_commands.rename(from_="from")
    @app_commands.describe(from_="Square the soldiers leave, e.g. a1",
                           to="Neighbouring square, e.g. b2", count="How many soldiers (1-6)")
    async def move(self, interaction: discord.Interaction, from_: Square, to: Square,
                   count: Count) -> None:
        await self._submit(interaction, move_notation(from_, to, count))

    @move.autocomplete("from_")
    async def move_from_autocomplete(self, interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
        return square_choices(move_sources(await legal_for(interaction, KIND)), current)

    @move.autocomplete("to")
    async def move_to_autocomplete(self, interaction: discord.Interaction,
                                   current: str) -> list[app_commands.Choice[str]]:
        src = getattr(interaction.namespace, "from", None)
        legal = await legal_for(interaction, KIND)
        return square_choices(move_targets(legal, src if isinstance(src, str) else None),
                              current)

    @app_commands.command(name="recruit", description="Buy soldiers onto your base "
                                                      "(1 gold each)")
    @app_commands.describe(count="How many soldiers (1-6)")
    async def recruit(self, interaction: discord.Interaction, count: Count) -> None:
        await self._submit(interaction, recruit_notation(count))

    @app_commands.command(name="fort", description="Build a fort (2 lumber, 2 gold, 2 AP)")
    @app_commands.describe(square="A square holding 1-4 of your soldiers")
    async def fort(self, interaction: discord.Interaction, square: Square) -> None:
        await self._submit(interaction, fort_notation(square))

    @fort.autocomplete("square")
    async def fort_autocomplete(self, interaction: discord.Interaction,
                                current: str) -> list[app_commands.Choice[str]]:
        return square_choices(squares_for(await legal_for(interaction, KIND), "fort"), current)

    @app_commands.command(name="raze", description="Destroy one of your own forts (free)")
    @app_commands.describe(square="The fort's square")
    async def raze(self, interaction: discord.Interaction, square: Square) -> None:
        await self._submit(interaction, raze_notation(square))

    @raze.autocomplete("square")
    async def raze_autocomplete(self, interaction: discord.Interaction,
                                current: str) -> list[app_commands.Choice[str]]:
        return square_choices(squares_for(await legal_for(interaction, KIND), "raze"), current)

    @app_commands.command(name="convert", description="2 lumber -> 1 gold, or 1 AP -> 2 gold")
    @app_commands.describe(what="What to turn into gold")
    @app_commands.choices(what=[
        app_commands.Choice(name="2 lumber -> 1 gold", value="lumber"),
        app_commands.Choice(name="1 AP -> 2 gold", value="ap"),
    ])
    async def convert(self, interaction: discord.Interaction,
                      what: str) -> None:
        await self._submit(interaction, convert_notation(what))

    @app_commands.command(name="end", description="End your turn (AP left over is kept)")
    async def end(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, END)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ConquerorCog(bot))
