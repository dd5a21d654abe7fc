"""The web companion from Discord: the "View on the web" button under every digest and
the status message, ``/game web`` (a personal link, or revoking them), and the display
names the pages show. Shared by several cogs (not an extension itself).

The companion is on when the bot serves it (``WEB_PORT``) or knows where it is served
(``WEB_URL``); otherwise every function here does nothing and the commands say how an
admin turns it on. The pages themselves are :mod:`web`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import discord

from cogs.interactions import require_game, send_ephemeral, store_of
from cogs.names import names_for
from db import GameRecord, StoreError
from db.computers import is_computer_seat
from db.web import LINK_DAYS
from engine.notation import is_number

log = logging.getLogger("warhost.cogs.web")

WEB_OFF = ("This server's Warhost has no web pages. The bot's admin turns them on with "
           "WEB_PORT and WEB_URL (see docs/web.md).")


def web_url(client: discord.Client) -> str | None:
    """Where people open the pages (``WEB_URL``), or None."""
    settings = getattr(getattr(client, "config", None), "web", None)
    url = getattr(settings, "public_url", None)
    return url if isinstance(url, str) and url else None


def web_enabled(client: discord.Client) -> bool:
    """Whether pages are served by this bot or elsewhere (so names are worth keeping)."""
    settings = getattr(getattr(client, "config", None), "web", None)
    return bool(web_url(client) or getattr(settings, "port", None))


def game_url(client: discord.Client, record: GameRecord) -> str | None:
    url = web_url(client)
    return f"{url}/g/{record.public_id}" if url and record.public_id else None


def link_view(client: discord.Client, record: GameRecord) -> discord.ui.View | None:
    """A "View on the web" link button for a game's public page (None without WEB_URL).
    A link button needs no handler, so the view never times out or needs restoring."""
    url = game_url(client, record)
    if url is None:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(style=discord.ButtonStyle.link, label="View on the web",
                                    emoji="🌐", url=url))
    return view


async def keep_names(client: discord.Client, record: GameRecord,
                     seen: Mapping[str, str] | None = None) -> None:
    """Keep the display names of a game's players for its pages (``seen``: names just
    seen; else every human seat's, from Discord's caches). Never fails a command."""
    if not web_enabled(client):
        return
    try:
        if seen is None:
            humans = [p for p in record.seats if not is_computer_seat(p) and is_number(p)]
            seen = await names_for(client, record.guild_id, humans)
        await store_of(client).web.save_names(record.guild_id, seen)
    except (StoreError, discord.HTTPException) as exc:
        log.info("Could not keep players' names for game %s's page (%s)", record.id, exc)


async def game_web(interaction: discord.Interaction, revoke: bool) -> None:
    """``/game web``: a personal link to the channel's game, shown only to the caller;
    ``revoke:true`` makes every link they were given for it stop working."""
    url = web_url(interaction.client)
    record = await require_game(interaction)
    if record is None:
        return
    store = store_of(interaction.client)
    me = str(interaction.user.id)
    if revoke:
        await store.web.revoke_links(record.id, me)
        await send_ephemeral(interaction, f"🔒 Every personal link you were given for game "
                                          f"#{record.id} has stopped working. `/game web` "
                                          "gives you a new one.")
        return
    if url is None:
        await send_ephemeral(interaction, WEB_OFF)
        return
    public = f"{url}/g/{record.public_id}"
    if me not in record.seats:
        await send_ephemeral(interaction, f"🌐 Game #{record.id} on the web: {public}\n"
                                          "You have no seat in it, so this is its public page.")
        return
    settings = getattr(getattr(interaction.client, "config", None), "web", None)
    token, expires = await store.web.issue_link(
        record.id, me, days=getattr(settings, "link_days", LINK_DAYS))
    await keep_names(interaction.client, record,
                     {me: getattr(interaction.user, "display_name", "") or str(me)})
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(style=discord.ButtonStyle.link, label="Open my view",
                                    emoji="🔑", url=f"{url}/p/{token}"))
    await send_ephemeral(
        interaction,
        f"🔑 Your personal link to game #{record.id} shows your own view (your hand, what "
        f"you were told). It works until <t:{int(expires)}:f>; do not share it. "
        f"`/game web revoke:true` turns off every link you were given.\n"
        f"The public page, for anyone: {public}", view=view)
