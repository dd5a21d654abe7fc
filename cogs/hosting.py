"""Commands for games that last weeks: ``/mygames``, ``/vacation`` and ``/reminders``.

What they change lives in the database (see :mod:`db.hosting`); the scheduler
(:mod:`cogs.scheduler`) acts on it. Every answer is ephemeral: these are a player's
own affairs.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs.interactions import SERVER_ONLY, reply_error, send_ephemeral, store_of
from cogs.outbox import deliver_all
from cogs.scheduler import scheduler_of
from cogs.wording import channel_link, chunk_lines, when
from db import GameRecord, StoreError
from db.clocks import (
    VACATION_DAYS_PER_YEAR,
    ClockError,
    QuietHours,
    check_zone,
    describe_duration,
    find_zones,
    parse_duration,
)
from db.hosting import check_reminder_limit, check_vacation_days, quiet_hours
from engine.notation import is_number

log = logging.getLogger("warhost.cogs.hosting")

#: Games listed by /mygames, at most (the message must stay under Discord's limit).
MYGAMES_SHOWN = 20


def _poke(client: discord.Client) -> None:
    scheduler = scheduler_of(client)
    if scheduler is not None:
        scheduler.poke()


class HostingCog(commands.Cog):
    """``/mygames``, ``/vacation`` and ``/reminders``."""

    vacation = app_commands.Group(name="vacation", guild_only=True,
                                  description="Pause your clocks and reminders in this "
                                              "server's games")
    reminders = app_commands.Group(name="reminders",
                                   description="When and how Warhost reminds players")

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    # /mygames ------------------------------------------------------------------------

    @app_commands.command(name="mygames", description="Every game waiting for you, on every "
                                                      "server we share (only you see it)")
    async def mygames(self, interaction: discord.Interaction) -> None:
        store = store_of(interaction.client)
        me = str(interaction.user.id)
        records = [r for r in await store.games_of(me) if self._shared(r)]
        if not records:
            await send_ephemeral(interaction, "You have no games under way. Open one with "
                                              "`/game new` in a server's channel.")
            return
        waiting = [r for r in records if me in r.decisions]
        others = [r for r in records if me not in r.decisions]
        lines = [f"**Waiting for you ({len(waiting)})**" if waiting
                 else "**Nothing is waiting for you.**"]
        for record in waiting[:MYGAMES_SHOWN]:
            lines.append(await self._game_line(record, me, waiting=True))
        if others:
            lines.append(f"**Your other games ({len(others)})**")
            for record in others[:max(0, MYGAMES_SHOWN - len(waiting))]:
                lines.append(await self._game_line(record, me, waiting=False))
        await send_ephemeral(interaction, "\n".join(chunk_lines(lines)[:1]))

    def _shared(self, record: GameRecord) -> bool:
        """Whether the bot is still on the game's server (else it cannot be played)."""
        if record.guild_id is None or not is_number(record.guild_id):
            return True
        return self.bot.get_guild(int(record.guild_id)) is not None

    async def _game_line(self, record: GameRecord, me: str, *, waiting: bool) -> str:
        game = engine.GAMES.get(record.kind)
        name = game.name if game is not None else record.kind
        guild = self.bot.get_guild(int(record.guild_id)) if is_number(record.guild_id) else None
        where = f" on {guild.name}" if guild is not None else ""
        line = f"• [{name} #{record.id}]({channel_link(record)}){where}"
        if waiting:
            facts = await store_of(self.bot).hosting.clock_facts(record)
            if me in (facts.get("vacations") or {}):
                line += " · you are on vacation (clock stopped)"
            elif me in (facts.get("deadlines") or {}):
                line += f" · time runs out {when(facts['deadlines'][me])}"
            began = record.decisions.get(me)
            if began is not None:
                line += f" · waiting since <t:{int(began)}:R>"
        return line

    # /vacation -----------------------------------------------------------------------

    @vacation.command(name="start", description="Go on vacation: your clocks and reminders "
                                                "stop in this server's games")
    @app_commands.describe(days=f"How many days (at most {VACATION_DAYS_PER_YEAR} in any "
                                "365)")
    async def vacation_start(self, interaction: discord.Interaction,
                             days: app_commands.Range[int, 1, VACATION_DAYS_PER_YEAR]
                             ) -> None:
        if interaction.guild_id is None:
            await reply_error(interaction, SERVER_ONLY)
            return
        try:    # a client may send any number, whatever the option's declared range
            length = check_vacation_days(days)
        except StoreError as exc:
            await reply_error(interaction, str(exc))
            return
        store = store_of(interaction.client)
        guild, user = str(interaction.guild_id), str(interaction.user.id)
        held = await store.hosting.start_vacation(guild, user, length)
        _, _, left = await store.hosting.vacation(guild, user)
        await send_ephemeral(interaction, f"🏖️ You are on vacation until {when(held.ends_at)}: "
                                          "your clocks and reminders in this server's games "
                                          "are stopped, and the other players see it. "
                                          f"`/vacation end` comes back early. Days left this "
                                          f"year: {left:.1f}.")
        _poke(interaction.client)
        await deliver_all(interaction.client)   # the status messages show it

    @vacation.command(name="end", description="Come back from vacation now")
    async def vacation_end(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None
        store = store_of(interaction.client)
        await store.hosting.end_vacation(str(interaction.guild_id), str(interaction.user.id))
        await send_ephemeral(interaction, "Welcome back: your clocks run again. `/mygames` "
                                          "shows what is waiting for you.")
        _poke(interaction.client)
        await deliver_all(interaction.client)

    @vacation.command(name="status", description="Whether you are on vacation, and the days "
                                                 "you have left")
    async def vacation_status(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None
        current, used, left = await store_of(interaction.client).hosting.vacation(
            str(interaction.guild_id), str(interaction.user.id))
        head = (f"🏖️ On vacation until {when(current.ends_at)}." if current is not None
                else "You are not on vacation here.")
        await send_ephemeral(interaction, f"{head} Used in the last 365 days: {used:.1f} of "
                                          f"{VACATION_DAYS_PER_YEAR} days; {left:.1f} left.")

    # /reminders ----------------------------------------------------------------------

    @reminders.command(name="me", description="Your own reminders: how often, by direct "
                                              "message, quiet hours")
    @app_commands.describe(
        every="How long before you are reminded, e.g. 6h or 1d ('channel': the channel's)",
        dm="After the first reminder in the channel, remind you by direct message",
        quiet="Hours with no reminders, your time, e.g. 22:00-07:00 ('none' to clear)",
        timezone="Your time zone for quiet hours: start typing a city, e.g. Paris or New York")
    async def reminders_me(self, interaction: discord.Interaction,
                           every: app_commands.Range[str, 1, 30] | None = None,
                           dm: bool | None = None,
                           quiet: app_commands.Range[str, 1, 30] | None = None,
                           timezone: app_commands.Range[str, 1, 60] | None = None) -> None:
        store = store_of(interaction.client)
        me = str(interaction.user.id)
        old = await store.hosting.player_settings(me)
        changes: dict[str, Any] = {}
        try:
            if every is not None:
                changes["reminder_every"] = (None if every.strip().lower() == "channel"
                                             else parse_duration(every))
            if dm is not None:
                if not isinstance(dm, bool):    # a client may send anything
                    raise ClockError("`dm` is true or false.")
                changes["dm_reminders"] = dm
            zone = check_zone(timezone) if timezone is not None else old.timezone
            if timezone is not None:
                changes["timezone"] = zone
            if quiet is not None:
                if quiet.strip().lower() not in ("none", "off", "no") and zone is None:
                    raise ClockError("Give your `timezone` too, so I know when your quiet "
                                     "hours are.")
                changes["quiet"] = QuietHours.parse(quiet, zone or "UTC")
            elif timezone is not None and old.quiet_start is not None \
                    and old.quiet_end is not None:
                changes["quiet"] = QuietHours(zone or "UTC", old.quiet_start, old.quiet_end)
        except ClockError as exc:
            await reply_error(interaction, str(exc))
            return
        settings = await store.hosting.set_player_settings(me, **changes) if changes else old
        _poke(interaction.client)
        quiet_now = quiet_hours(settings)
        lines = ["Your reminders:",
                 "• every " + (describe_duration(settings.reminder_every)
                               if settings.reminder_every else "the channel's interval"),
                 "• by direct message after the first: " + ("yes" if settings.dm_reminders
                                                            else "no"),
                 "• quiet hours: " + (quiet_now.describe() if quiet_now else "none")]
        await send_ephemeral(interaction, "\n".join(lines))

    @reminders_me.autocomplete("timezone")
    async def timezone_choices(self, interaction: discord.Interaction,
                               current: str) -> list[app_commands.Choice[str]]:
        """IANA zones matching what is typed (any part, any case; ``PST`` too)."""
        return [app_commands.Choice(name=label, value=zone)
                for label, zone in find_zones(current)]

    @reminders.command(name="channel", description="This channel's reminders (Manage "
                                                   "Channels)")
    @app_commands.describe(every="How long a player may wait before a reminder, e.g. 12h",
                           limit="Reminders per move before Warhost stops (0: none)")
    async def reminders_channel(self, interaction: discord.Interaction,
                                every: app_commands.Range[str, 1, 30] | None = None,
                                limit: app_commands.Range[int, 0, 10] | None = None) -> None:
        if interaction.guild_id is None:
            await reply_error(interaction, SERVER_ONLY)
            return
        if not interaction.permissions.manage_channels:
            await reply_error(interaction, "Only members with Manage Channels can set this "
                                           "channel's reminders.")
            return
        store = store_of(interaction.client)
        changes: dict[str, Any] = {}
        try:
            if every is not None:
                changes["reminder_every"] = parse_duration(every)
        except ClockError as exc:
            await reply_error(interaction, str(exc))
            return
        try:
            if limit is not None:
                changes["reminder_limit"] = check_reminder_limit(limit)
        except StoreError as exc:
            await reply_error(interaction, str(exc))
            return
        channel = str(interaction.channel_id)
        settings = (await store.hosting.set_channel_settings(channel, str(interaction.guild_id),
                                                             **changes)
                    if changes else await store.hosting.channel_settings(channel))
        _poke(interaction.client)
        server_every, server_limit = await store.hosting.reminder_defaults(
            str(interaction.guild_id))
        every_text = describe_duration(settings.reminder_every or server_every)
        limit_n = (settings.reminder_limit if settings.reminder_limit is not None
                   else server_limit)
        await send_ephemeral(interaction, f"In this channel a player who must act is reminded "
                                          f"every {every_text}, {limit_n} times at most. "
                                          "Players may choose their own interval with "
                                          "`/reminders me`.")


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(HostingCog(bot))
