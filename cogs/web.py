"""``/web settings``: a server's admins list its games on a web page (``/s/<server id>``),
or stop. Only the pages' listing is set here; a game's own page is reachable by its
link whatever this says (see docs/web.md)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.interactions import send_ephemeral, store_of
from cogs.weblinks import WEB_OFF, web_enabled, web_url


class WebCog(commands.Cog):
    """The ``/web`` group."""

    web = app_commands.Group(name="web", description="This server's web pages of games",
                             guild_only=True,
                             default_permissions=discord.Permissions(manage_guild=True))

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @web.command(name="settings", description="List this server's games on a web page, or "
                                              "stop (admins)")
    @app_commands.describe(listing="on: anyone with the address sees this server's games; "
                                   "off: only each game's own link works")
    @app_commands.choices(listing=[app_commands.Choice(name="on", value="on"),
                                   app_commands.Choice(name="off", value="off")])
    async def settings(self, interaction: discord.Interaction,
                       listing: app_commands.Choice[str] | None = None) -> None:
        guild = interaction.guild
        if guild is None or interaction.guild_id is None:
            await send_ephemeral(interaction, "This is set per server; use it in a server.")
            return
        member = interaction.user
        perms = getattr(member, "guild_permissions", None)
        if perms is None or not (perms.manage_guild or perms.administrator):
            await send_ephemeral(interaction, "Only the server's admins (Manage Server) can "
                                              "change its web page.")
            return
        if not web_enabled(interaction.client):
            await send_ephemeral(interaction, WEB_OFF)
            return
        store = store_of(interaction.client)
        page = f"{web_url(interaction.client) or ''}/s/{interaction.guild_id}"
        if listing is None:
            name = await store.web.listing(str(interaction.guild_id))
            state = f"on: {page}" if name is not None else "off"
            await send_ephemeral(interaction, f"This server's page of games is {state}. "
                                              "`/web settings listing:on` or `off` changes it.")
            return
        on = listing.value == "on"
        await store.web.set_listed(str(interaction.guild_id), on, guild.name)
        text = (f"🌐 This server's games are listed at {page} (running and finished games, "
                "with their players' names). `/web settings listing:off` hides the list."
                if on else "This server's page of games is off. Each game's own link still "
                           "works for whoever has it.")
        await send_ephemeral(interaction, text)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(WebCog(bot))
