"""Answering an interaction: the channel's game, a private or public reply, the one
error handler that turns every failure into a clear, private message (never a
traceback), and deferring so that a restart never leaves anyone "thinking…"
(:func:`defer`, :func:`conclude`, :func:`answer_left`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import discord
from discord import app_commands

import engine
from cogs.wording import NO_MENTIONS, clip
from db import GameRecord, Store, StoreError
from db.pending import COMMAND, MOVE
from engine import Game, IllegalAction
from engine.notation import is_number

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


#: What a player left "thinking…" by a restart is told, once the bot is back: a move
#: (nothing was saved), any other command.
RESTARTED_MOVE = ("Warhost restarted before your move was saved; nothing changed, please "
                  "send it again.")
RESTARTED_COMMAND = "Warhost restarted before it answered; please try again."


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


async def defer(interaction: discord.Interaction, *, ephemeral: bool = True,
                kind: str = COMMAND) -> None:
    """Defer with "thinking…", noting it in the store (``store.pending``) so that if the
    bot dies before answering, its next start answers instead (:func:`answer_left`).

    The note is written while the defer is on its way to Discord (the statement is
    queued first; a local write normally lands well before an internet round trip), and
    both are finished when this returns, so nothing is done for the player before the
    note is durable. If the note cannot be written, the command goes on (logged).
    Raises what ``interaction.response.defer`` raises; the note is then withdrawn
    unless Discord says the interaction was already answered (another delivery of it
    owns the note).
    """
    store = getattr(interaction.client, "store", None)
    noting: asyncio.Task[None] | None = None
    if isinstance(store, Store):
        noting = asyncio.get_running_loop().create_task(_note(store, interaction, kind))
        await asyncio.sleep(0)          # the insert is on its way before the defer
    try:
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    except BaseException as exc:
        if noting is not None:
            await asyncio.wait([noting])
            if not (isinstance(exc, discord.HTTPException) and exc.code == 40060):
                await conclude(interaction)
        raise
    if noting is not None:
        await noting


async def _note(store: Store, interaction: discord.Interaction, kind: str) -> None:
    try:
        await store.pending.note(interaction.id, interaction.application_id,
                                 interaction.token, kind,
                                 shards=str(getattr(interaction.client, "pending_shards", "")))
    except StoreError as exc:
        store.pending.saved(interaction.id)     # no row: nothing to conclude
        log.warning("Could not note interaction %s as deferred (%s); a restart now would "
                    "leave it unanswered", interaction.id, exc)


async def conclude(interaction: discord.Interaction) -> None:
    """The interaction was answered (or never will be by this run): forget its note.
    Free when it has none (most commands, a move that was saved)."""
    store = getattr(interaction.client, "store", None)
    if not isinstance(store, Store) or not store.pending.is_open(interaction.id):
        return
    try:
        await store.pending.conclude(interaction.id)
    except StoreError as exc:
        log.warning("Could not conclude deferred interaction %s (%s)", interaction.id, exc)


async def answer_left(client: discord.Client, store: Store, shards: str = "", *,
                      before: float | None = None) -> int:
    """Answer every interaction an earlier run of these shards deferred (before
    ``before``, this run's start on the store's clock) and never answered, while its
    token is good (15 minutes); then forget them and every expired one. How many were
    answered."""
    left = await store.pending.left(shards, before=before)
    answered = 0
    for item in left:
        if not is_number(item.application_id) or time.time() >= item.expires_at:
            continue
        text = RESTARTED_MOVE if item.kind == MOVE else RESTARTED_COMMAND
        webhook: Any = discord.Webhook.partial(int(item.application_id), item.secret,
                                               client=client)
        try:        # "@original" is the deferred "thinking…" response
            await webhook.edit_message("@original", content=text, embeds=[],
                                       attachments=[], allowed_mentions=NO_MENTIONS)
            answered += 1
        except discord.NotFound:
            log.info("Deferred interaction %s is gone; not answered", item.interaction_id)
        except (discord.HTTPException, OSError, TimeoutError) as exc:
            log.warning("Could not answer deferred interaction %s after the restart (%s)",
                        item.interaction_id, type(exc).__name__)
    await store.pending.drop([item.interaction_id for item in left])
    if left:
        log.info("Answered %d of %d interactions left unanswered by the last run",
                 answered, len(left))
    return answered


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
    await conclude(interaction)


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
