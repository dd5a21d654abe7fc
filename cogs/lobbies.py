"""The extension that closes lobbies nobody touches (see :class:`cogs.limits.LimitsCog`,
kept there because :mod:`cogs.limits` is shared, not loaded afresh)."""

from __future__ import annotations

from discord.ext import commands

from cogs.limits import LimitsCog


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(LimitsCog(bot))
