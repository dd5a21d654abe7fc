"""The extension that closes lobbies nobody touches (see :class:`cogs.lobby.LobbyExpiry`,
kept there because :mod:`cogs.lobby` is shared, not loaded afresh)."""

from __future__ import annotations

from discord.ext import commands

from cogs.lobby import LobbyExpiry


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(LobbyExpiry(bot))
