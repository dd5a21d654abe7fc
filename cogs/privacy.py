"""``/privacy``: what Warhost stores about you, for how long, and deleting it on request.

Deleting follows Red-DiscordBot's model: the cog's
:meth:`PrivacyCog.red_delete_data_for_user` does it (whoever asks: the user, the bot's
owner, Discord for a deleted account), and ``__red_end_user_data_statement__`` says what
is stored. The store does the work (:meth:`db.privacy.Privacy.forget_user`, see
``docs/privacy.md``); this module asks for a confirmation, then delivers what the
deletion made due (a resignation's turn digest, refreshed lobby and status messages) and
forgets what the bot holds in memory.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from cogs.interactions import reply_error, send_ephemeral, store_of
from cogs.limits import Limited, limiter_of
from cogs.lobby import show_lobby
from cogs.names import forget_names
from cogs.outbox import deliver
from db import StoreError
from db.privacy import Forgotten, Held

log = logging.getLogger("warhost.cogs.privacy")

__red_end_user_data_statement__ = (
    "Warhost stores your Discord user id: your seat and your moves in the games you play "
    "(moves are kept, anonymised, when you delete your data, so games still replay), your "
    "reminder settings, vacations and follows, and messages waiting to be sent to you. It "
    "never stores your messages, name or email. /privacy shows it and deletes it.")

#: Seconds a "Delete everything" button stays valid after it is shown.
CONFIRM_WINDOW = 600
PRIVACY_TEMPLATE = r"warhost:privacy:(?P<step>ask|yes|no)(?::(?P<at>[0-9]{1,12}))?"
Requester = Literal["discord_deleted_user", "owner", "user", "user_strict"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def privacy_text(held: Held) -> str:
    """What is stored, for how long, what deleting does; and what is held about the
    caller now."""
    if held.anything:
        mine = (f"{_plural(held.games, 'game')} ({held.open_games} open), "
                f"{_plural(held.moves, 'move')}, settings: "
                f"{'yes' if held.settings else 'none'}, {_plural(held.vacations, 'vacation')}, "
                f"following {_plural(held.following, 'game')}, "
                f"{_plural(held.ratings, 'rating')}, "
                f"{_plural(held.waiting, 'message')} waiting for you.")
    else:
        mine = "nothing."
    return (
        "**What Warhost stores about you, and for how long**\n"
        "• **Your Discord user id**, never your messages, name or email. It is your seat "
        "in each game you join, the player of each move you make (a game is its list of "
        "moves: that is how it is replayed and checked), and your clock and reminders in "
        "it. Games are kept while the bot's admin keeps them.\n"
        "• **Your settings** (`/reminders me`) until you change or delete them; your "
        "**vacations** (`/vacation`) for 400 days, to count your yearly allowance; the "
        "games you **follow** (`/game follow`); your **ratings** (`/stats`), made from "
        "your finished games.\n"
        "• **Messages waiting for you** (your private cards, reminders) until they are "
        "delivered.\n"
        "• Display names and rate-limit counters are kept in memory only, briefly.\n\n"
        f"**About you now:** {mine}\n\n"
        "**Deleting your data** takes you out of your lobbies, resigns you from the games "
        "you are playing (the others play on), and replaces your id by an anonymous "
        "placeholder in every game you played: your moves stay, so those games still "
        "replay, but they no longer name you. Your settings, vacations, follows, ratings "
        "and waiting messages are deleted. Messages already posted in channels belong to the "
        "server (its moderators can remove them), and backups made before keep your data "
        "until they are replaced.")


def confirm_text(held: Held) -> str:
    return ("**Delete your data?** This cannot be undone. You will leave your lobbies and "
            f"resign from your games under way ({held.open_games} open now); your moves in "
            f"{_plural(held.games, 'game')} will no longer name you; your settings, "
            "vacations, follows and waiting messages will be deleted.\n"
            f"Press **Delete everything** within {CONFIRM_WINDOW // 60} minutes to confirm.")


def done_text(forgotten: Forgotten) -> str:
    parts = [f"left {_plural(len(forgotten.left), 'lobby')}".replace("lobbys", "lobbies"),
             f"resigned from {_plural(len(forgotten.resigned), 'game')}",
             f"anonymised {_plural(len(forgotten.anonymised), 'game')}",
             f"deleted {_plural(forgotten.deleted, 'other record')}"]
    text = "🗑️ Done: " + ", ".join(parts) + "."
    if forgotten.failed:
        shown = ", ".join(f"#{g}" for g in forgotten.failed[:10])
        text += (f"\n⚠️ {_plural(len(forgotten.failed), 'game')} ({shown}) could not be "
                 "anonymised and still name you; the bot's admin can see why in its log. "
                 "Run `/privacy` again later to retry.")
    else:
        text += " Warhost keeps nothing that names you now."
    return text


def privacy_view(step: str) -> discord.ui.View:
    """The button(s) of one step: ``ask`` (Delete my data...) or ``confirm``."""
    view = discord.ui.View(timeout=None)
    if step == "ask":
        view.add_item(PrivacyButton("ask"))
    else:
        view.add_item(PrivacyButton("yes", int(time.time())))
        view.add_item(PrivacyButton("no"))
    return view


_LABELS = {"ask": ("Delete my data…", discord.ButtonStyle.secondary),
           "yes": ("Delete everything", discord.ButtonStyle.danger),
           "no": ("Cancel", discord.ButtonStyle.secondary)}


class PrivacyButton(Limited, discord.ui.DynamicItem[discord.ui.Button[Any]],
                    template=PRIVACY_TEMPLATE):
    """A step of deleting one's data. It acts for whoever clicks it (only on their own
    data), so a forged click can only delete the forger's own."""

    def __init__(self, step: str, at: int = 0) -> None:
        label, style = _LABELS[step]
        custom_id = f"warhost:privacy:{step}" + (f":{at}" if step == "yes" else "")
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))
        self.step = step
        self.at = at

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> PrivacyButton:
        return cls(match["step"], int(match["at"] or 0))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            if self.step == "no":
                await interaction.response.edit_message(content="Nothing was deleted.",
                                                        view=None)
            elif self.step == "ask":
                store = store_of(interaction.client)
                held = await store.privacy.held_about(str(interaction.user.id))
                await interaction.response.edit_message(content=confirm_text(held),
                                                        view=privacy_view("confirm"))
            elif not 0 <= time.time() - self.at <= CONFIRM_WINDOW:
                await interaction.response.edit_message(
                    content="That confirmation has expired, so nothing was deleted. Run "
                            "`/privacy` again.", view=None)
            else:
                await interaction.response.defer()
                forgotten = await delete_user_data(interaction.client, interaction.user.id)
                await interaction.edit_original_response(content=done_text(forgotten),
                                                         view=None)
        except StoreError as exc:
            await reply_error(interaction, f"{exc} Nothing more was deleted; run `/privacy` "
                                           "again to finish.")
        except Exception:
            log.exception("Privacy step %s failed", self.step)
            await reply_error(interaction, "Something went wrong; run `/privacy` again to "
                                           "finish deleting your data.")


DYNAMIC_ITEMS = (PrivacyButton,)


async def delete_user_data(client: discord.Client, user_id: int) -> Forgotten:
    """Delete what names ``user_id`` (:meth:`db.privacy.Privacy.forget_user`), then tell the
    channels what that changed, and forget what the bot holds in memory."""
    forgotten = await store_of(client).privacy.forget_user(str(user_id))
    for game_id in dict.fromkeys((*forgotten.resigned, *forgotten.anonymised)):
        await deliver(client, game_id)    # a resignation's digest, status messages
    for record in forgotten.left:
        await show_lobby(client, record)
    limiter = limiter_of(client)
    if limiter is not None:
        limiter.forget(int(user_id))
    forget_names(str(user_id))
    return forgotten


class PrivacyCog(commands.Cog):
    """``/privacy``, and Red-DiscordBot's data deletion hook."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="privacy", description="What Warhost stores about you, for "
                                                      "how long, and deleting it")
    async def privacy(self, interaction: discord.Interaction) -> None:
        held = await store_of(interaction.client).privacy.held_about(str(interaction.user.id))
        await send_ephemeral(interaction, privacy_text(held), view=privacy_view("ask"))

    async def red_delete_data_for_user(self, *, requester: Requester,
                                       user_id: int) -> Forgotten:
        """Delete the data of ``user_id``, as Red-DiscordBot asks a cog to. Every
        requester gets the same: a user's own request, the bot owner's, or Discord's for
        a deleted account (``discord_deleted_user``)."""
        log.info("Deleting a user's data (requested by: %s)", requester)
        return await delete_user_data(self.bot, user_id)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PrivacyCog(bot))
