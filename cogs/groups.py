"""The extension that adds every game's ``/<kind>`` group and ``/hand`` (see
:mod:`cogs.verbs`, which builds them from the games' declared verbs)."""

from __future__ import annotations

from discord.ext import commands

from cogs.verbs import GameCommands


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(GameCommands(bot))
