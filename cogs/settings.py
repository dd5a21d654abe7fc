"""``/settings``: a server's admins choose their server's own settings.

``/settings show`` lists every setting with its value here and whether it is the
server's own or the default (from the bot's environment); ``/settings set`` and
``/settings reset`` change one. The settings, their bounds and their words are in
:mod:`db.server_settings`; the store keeps them (``store.server_settings``) and the
places that use them read them from there (the cap on open games at ``/game new``,
lobbies that expire, reminders). Only members with Manage Server may use it (Discord
shows it to them alone by default, and it is checked again here).
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from cogs.interactions import SERVER_ONLY, reply_error, send_ephemeral, store_of
from cogs.scheduler import scheduler_of
from db.server_settings import REMINDER_EVERY, REMINDER_LIMIT, SETTINGS, SettingError, setting

log = logging.getLogger("warhost.cogs.settings")

#: The setting names offered as the ``name`` option's choices (at most 25).
NAME_CHOICES = [app_commands.Choice(name=name, value=name) for name in SETTINGS]

NOT_ADMIN = "Only members with Manage Server can change this server's settings."


def _where(own: bool) -> str:
    return "this server's" if own else "the default"


class SettingsCog(commands.Cog):
    """``/settings show``, ``/settings set`` and ``/settings reset``."""

    settings = app_commands.Group(
        name="settings", description="This server's Warhost settings (Manage Server)",
        guild_only=True, default_permissions=discord.Permissions(manage_guild=True))

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    async def _allowed(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None:
            await reply_error(interaction, SERVER_ONLY)
            return False
        if not interaction.permissions.manage_guild:
            await reply_error(interaction, NOT_ADMIN)
            return False
        return True

    @settings.command(name="show", description="Every setting, its value here and where it "
                                               "comes from")
    async def show(self, interaction: discord.Interaction) -> None:
        if not await self._allowed(interaction):
            return
        values = await store_of(interaction.client).server_settings.of(
            str(interaction.guild_id))
        lines = ["**This server's settings** (`/settings set` changes one, "
                 "`/settings reset` goes back to the default):"]
        for name, spec in SETTINGS.items():
            held = values[name]
            lines.append(f"• `{name}`: **{spec.describe(held.value)}** ({_where(held.own)})"
                         f" — {spec.label}")
        lines.append("A channel's own reminders (`/reminders channel`) win over the "
                     "server's.")
        await send_ephemeral(interaction, "\n".join(lines))

    @settings.command(name="set", description="Change one of this server's settings")
    @app_commands.describe(name="Which setting", value="Its new value, e.g. 10, 48, 12h")
    @app_commands.choices(name=NAME_CHOICES)
    async def set_(self, interaction: discord.Interaction, name: str,
                   value: app_commands.Range[str, 1, 100]) -> None:
        if not await self._allowed(interaction):
            return
        store = store_of(interaction.client)
        guild = str(interaction.guild_id)
        try:
            spec = setting(name)
            before = (await store.server_settings.of(guild))[spec.name]
            now = await store.server_settings.set(guild, spec.name, value)
        except SettingError as exc:
            await reply_error(interaction, str(exc))
            return
        log.info("Guild %s set %s to %s", guild, spec.name, now)
        self._poke(spec.name)
        await send_ephemeral(interaction, f"`{spec.name}` is now **{spec.describe(now)}** "
                                          f"here (it was {spec.describe(before.value)}, "
                                          f"{_where(before.own)}).")

    @settings.command(name="reset", description="Put one of this server's settings back "
                                                "to the default")
    @app_commands.describe(name="Which setting")
    @app_commands.choices(name=NAME_CHOICES)
    async def reset(self, interaction: discord.Interaction, name: str) -> None:
        if not await self._allowed(interaction):
            return
        store = store_of(interaction.client)
        guild = str(interaction.guild_id)
        try:
            spec = setting(name)
            had = await store.server_settings.reset(guild, spec.name)
        except SettingError as exc:
            await reply_error(interaction, str(exc))
            return
        default = spec.describe(store.server_settings.default(spec.name))
        self._poke(spec.name)
        if had:
            log.info("Guild %s reset %s", guild, spec.name)
            await send_ephemeral(interaction, f"`{spec.name}` is back to the default: "
                                              f"**{default}**.")
        else:
            await send_ephemeral(interaction, f"`{spec.name}` already had the default: "
                                              f"**{default}**.")

    def _poke(self, name: str) -> None:
        """Reminders changed: the scheduler looks at the server's games again now."""
        if name in (REMINDER_EVERY, REMINDER_LIMIT):
            scheduler = scheduler_of(self.bot)
            if scheduler is not None:
                scheduler.poke()


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(SettingsCog(bot))
