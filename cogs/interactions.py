"""Answering an interaction: the channel's game, a private or public reply, and the one
error handler that turns every failure into a clear, private message (never a
traceback).
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

import engine
from cogs.wording import NO_MENTIONS, clip
from db import GameRecord, Store, StoreError
from engine import Game, IllegalAction

log = logging.getLogger("warhost.cogs")


#: What a user sees when something unexpected fails. Never a traceback.
GENERIC_ERROR = "Something went wrong; the game is unchanged."


NO_GAME = "There is no game in this channel. Open one with `/game new`."


SERVER_ONLY = ("Warhost's games are played in a server's channels, so that command only "
               "works there. Open a game with `/game new` in a channel of a server Warhost "
               "is in; `/help` works anywhere.")


MENTION_HELP = ("Hello! I host war and conquest board games here. Open one with "
                "`/game new`, play with `/play`, and see every command with `/help` (only "
                "you will see the answer).")


def store_of(client: discord.Client) -> Store:
    """The bot's open :class:`db.Store`."""
    store = getattr(client, "store", None)
    if not isinstance(store, Store):
        raise RuntimeError("the bot has no open Store")
    return store


async def channel_game(interaction: discord.Interaction) -> GameRecord | None:
    """The game (lobby or running) in the interaction's channel, if any."""
    if interaction.channel_id is None:
        return None
    return await store_of(interaction.client).active_in_channel(str(interaction.channel_id))


async def require_game(interaction: discord.Interaction) -> GameRecord | None:
    """Like :func:`channel_game`, but tells the user (ephemerally) when there is none."""
    record = await channel_game(interaction)
    if record is None:
        await reply_error(interaction, NO_GAME)
    return record


async def reply_error(interaction: discord.Interaction, message: str) -> None:
    """Tell only the user who acted; works whether or not the interaction was answered."""
    await send_ephemeral(interaction, clip(message or GENERIC_ERROR))


async def send_ephemeral(interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
    try:
        if interaction.response.is_done():
            await interaction.followup.send(content, ephemeral=True,
                                            allowed_mentions=NO_MENTIONS, **kwargs)
        else:
            await interaction.response.send_message(content, ephemeral=True,
                                                    allowed_mentions=NO_MENTIONS, **kwargs)
    except discord.HTTPException:
        log.warning("Could not send an ephemeral reply to interaction %s", interaction.id)


async def send_public(interaction: discord.Interaction, content: str = "", *,
                      allowed_mentions: discord.AllowedMentions = NO_MENTIONS,
                      **kwargs: Any) -> None:
    """Reply in the channel (or follow up if the interaction was already answered)."""
    if interaction.response.is_done():
        await interaction.followup.send(content, allowed_mentions=allowed_mentions, **kwargs)
    else:
        await interaction.response.send_message(content, allowed_mentions=allowed_mentions,
                                                **kwargs)


def user_message(error: BaseException) -> str | None:
    """The user-facing message of an expected error (engine or store), else None."""
    if isinstance(error, IllegalAction | StoreError):
        return str(error) or GENERIC_ERROR
    return None


async def report_app_command_error(interaction: discord.Interaction,
                                   error: app_commands.AppCommandError) -> None:
    """The tree-wide error handler: a clear ephemeral message, never a traceback."""
    original: BaseException = getattr(error, "original", error)
    message = user_message(original)
    if message is None:
        if isinstance(error, app_commands.NoPrivateMessage):
            message = "That command only works in a server channel."
        elif isinstance(error, app_commands.MissingPermissions | app_commands.CommandOnCooldown
                        | app_commands.BotMissingPermissions):
            message = str(error)
        elif isinstance(error, app_commands.TransformerError):
            message = f"I could not read `{clip(str(error.value), 40)}` there."
        elif isinstance(error, app_commands.CheckFailure):
            message = "You can't use that command here."
        else:
            log.error("Unexpected error in /%s", _command_name(interaction), exc_info=original)
            message = GENERIC_ERROR
    await reply_error(interaction, message)


def _command_name(interaction: discord.Interaction) -> str:
    command = interaction.command
    return command.qualified_name if command is not None else "?"


async def running_game(interaction: discord.Interaction,
                       kind: str) -> tuple[Game[Any], Any, GameRecord] | None:
    """This channel's running game of ``kind`` and its state, or None (never raises)."""
    try:
        record = await channel_game(interaction)
        if (record is None or record.kind != kind or record.status != "active"
                or record.state is None):
            return None
        return engine.get_game(kind), store_of(interaction.client).load_state(record), record
    except Exception:
        log.exception("Reading the %s game failed", kind)
        return None
