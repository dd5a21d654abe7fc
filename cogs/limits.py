"""Keeping abuse in bounds: per-user rate limits, and the bot's permissions and the cap
on open games checked at ``/game new`` (lobbies that expire: :mod:`cogs.lobbies`).

Rate limits are token buckets per user, one set each for commands, autocomplete (which
Discord sends per keystroke, so it gets more) and buttons. Every app command and every
autocomplete passes :func:`admit` in the command tree's ``interaction_check``
(``bot.WarhostTree``); buttons pass it in their own ``interaction_check`` (mix in
:class:`Limited`). A user over the limit is told once, privately, how long to wait, and
nothing else happens; an autocomplete over the limit gets an empty list.

This module is not an extension: ``load_extension`` executes an extension afresh, and
``bot.py`` and the game cogs must share the one :class:`Limiter` class it defines.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import discord

from cogs.interactions import store_of
from cogs.wording import NO_MENTIONS
from db import GameRecord, StoreError

# The defaults (MAX_OPEN_GAMES, LOBBY_EXPIRY_HOURS unset) live with the server settings.
from db.server_settings import DEFAULT_CAP as DEFAULT_CAP
from db.server_settings import DEFAULT_LOBBY_HOURS as DEFAULT_LOBBY_HOURS
from db.server_settings import MAX_OPEN_GAMES

log = logging.getLogger("warhost.cogs.limits")


# -- rate limits (pure) -------------------------------------------------------------------


@dataclass(frozen=True)
class Rate:
    """A token bucket: ``burst`` at once, then ``per_second`` more each second."""

    burst: int
    per_second: float


#: Ten commands at once, then one a second: more than anyone plays by hand.
COMMANDS = Rate(10, 1.0)
#: Autocomplete fires on every keystroke: a long burst, then five a second.
AUTOCOMPLETE = Rate(40, 5.0)
#: Buttons (Join, log pages, undo, ...).
COMPONENTS = Rate(10, 1.0)


class TokenBuckets:
    """One token bucket per key, in bounded memory.

    Buckets are kept in order of last use; a bucket idle long enough to be full again is
    the same as no bucket, so those are dropped from the old end as new ones come, and
    past ``max_keys`` the oldest go whatever their state.
    """

    def __init__(self, rate: Rate, *, clock: Callable[[], float] = time.monotonic,
                 max_keys: int = 10_000) -> None:
        if rate.burst < 1 or rate.per_second <= 0:
            raise ValueError(f"a rate needs a burst of 1 or more and a refill above 0: {rate}")
        self.rate = rate
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: OrderedDict[int, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def _level(self, tokens: float, at: float, now: float) -> float:
        return min(float(self.rate.burst), tokens + max(0.0, now - at) * self.rate.per_second)

    def take(self, key: int) -> float:
        """Take a token for ``key``: 0.0 if there was one, else the seconds until one
        comes (nothing is taken then)."""
        now = self.clock()
        tokens, at = self._buckets.pop(key, (float(self.rate.burst), now))
        tokens = self._level(tokens, at, now)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate.per_second
        self._buckets[key] = (tokens, now)
        self._evict(now)
        return wait

    def forget(self, key: int) -> None:
        self._buckets.pop(key, None)

    def _evict(self, now: float) -> None:
        while self._buckets:
            key, (tokens, at) = next(iter(self._buckets.items()))
            full = self._level(tokens, at, now) >= self.rate.burst
            if not full and len(self._buckets) <= self.max_keys:
                break
            del self._buckets[key]


#: What a user over the limit is told (``{wait}``: whole seconds).
TOO_FAST = "You are sending commands too fast; wait {wait} s."


class Limiter:
    """Every user's buckets for commands, autocomplete and buttons; one per bot
    (``bot.limiter``). Remembers whom it has told to wait, so a user hammering away is
    told once per burst, not once per click."""

    KINDS = ("command", "autocomplete", "component")

    def __init__(self, commands: Rate = COMMANDS, autocomplete: Rate = AUTOCOMPLETE,
                 components: Rate = COMPONENTS, *,
                 clock: Callable[[], float] = time.monotonic, max_keys: int = 10_000) -> None:
        self.buckets = {kind: TokenBuckets(rate, clock=clock, max_keys=max_keys)
                        for kind, rate in zip(self.KINDS, (commands, autocomplete, components),
                                              strict=True)}
        self._told: OrderedDict[int, None] = OrderedDict()
        self.max_keys = max_keys

    def take(self, kind: str, user_id: int) -> float:
        """0.0 if ``user_id`` may go on, else the seconds to wait."""
        wait = self.buckets[kind].take(user_id)
        if wait <= 0:
            self._told.pop(user_id, None)
        return wait

    def tell(self, user_id: int) -> bool:
        """Whether to tell this limited user to wait (the first time in a row only)."""
        if user_id in self._told:
            return False
        self._told[user_id] = None
        while len(self._told) > self.max_keys:
            self._told.popitem(last=False)
        return True

    def forget(self, user_id: int) -> None:
        """Drop everything held about a user (a data deletion)."""
        for buckets in self.buckets.values():
            buckets.forget(user_id)
        self._told.pop(user_id, None)


def limiter_of(client: discord.Client) -> Limiter | None:
    limiter = getattr(client, "limiter", None)
    return limiter if isinstance(limiter, Limiter) else None


_KIND_OF = {
    discord.InteractionType.application_command: "command",
    discord.InteractionType.autocomplete: "autocomplete",
    discord.InteractionType.component: "component",
    discord.InteractionType.modal_submit: "component",
}


async def admit(interaction: discord.Interaction) -> bool:
    """Whether the interaction's user is within their rate limit. When not, they are
    told (once in a row) how long to wait, or get no suggestions, and False it is."""
    limiter = limiter_of(interaction.client)
    kind = _KIND_OF.get(interaction.type)
    if limiter is None or kind is None:
        return True
    user_id = interaction.user.id
    wait = limiter.take(kind, user_id)
    if wait <= 0:
        return True
    try:
        if kind == "autocomplete":
            await interaction.response.autocomplete([])
        elif limiter.tell(user_id):
            log.info("User %s is over the %s rate limit", user_id, kind)
            await interaction.response.send_message(
                TOO_FAST.format(wait=max(1, math.ceil(wait))), ephemeral=True,
                allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as exc:
        log.info("Could not tell user %s to slow down (%s)", user_id, exc)
    return False


class Limited:
    """Mixed into a button (a ``discord.ui.DynamicItem``, first in its bases): its clicks
    count against the clicker's rate limit."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        return await admit(interaction)


# -- /game new: permissions and the cap (pure parts first) ------------------------------

#: What the bot must be allowed in a game's channel: (permission, its name in Discord's
#: settings, why Warhost needs it). Mentions of players need no permission: Warhost never
#: pings roles, @everyone or @here.
NEEDED = (
    ("view_channel", "View Channel", "to see the channel"),
    ("send_messages", "Send Messages", "to post each turn"),
    ("embed_links", "Embed Links", "to show the lobby and the game's status"),
    ("attach_files", "Attach Files", "to post the board"),
    ("read_message_history", "Read Message History",
     "to find its own messages again after a restart"),
)
IN_THREADS = ("send_messages_in_threads", "Send Messages in Threads", "to post each turn")
THREAD_TYPES = (discord.ChannelType.public_thread, discord.ChannelType.private_thread,
                discord.ChannelType.news_thread)


def missing_permissions(permissions: discord.Permissions,
                        in_thread: bool) -> list[tuple[str, str]]:
    """(name, why) of each permission the bot lacks for a game here, in Discord's words."""
    if permissions.administrator:
        return []
    needed = [IN_THREADS if in_thread and attr == "send_messages" else (attr, name, why)
              for attr, name, why in NEEDED]
    return [(name, why) for attr, name, why in needed if not getattr(permissions, attr)]


def permissions_message(missing: list[tuple[str, str]], in_thread: bool) -> str:
    """A refusal naming each missing permission and where an admin grants it."""
    listed = "\n".join(f"• **{name}** — {why}" for name, why in missing)
    where = ("this thread's parent channel (Edit Channel → Permissions)" if in_thread
             else "this channel (Edit Channel → Permissions)")
    return (f"I can't host a game here: I am missing {len(missing)} "
            f"permission{'s' if len(missing) != 1 else ''} in this "
            f"{'thread' if in_thread else 'channel'}:\n{listed}\n"
            "A server admin can grant them to the Warhost role in Server Settings → Roles, "
            f"or to Warhost in {where}. Then run `/game new` again.")


def cap_message(cap: int) -> str:
    return (f"This server already has {cap} open game{'s' if cap != 1 else ''} (lobbies "
            "and games under way), the most Warhost runs here at once. Finish or abort one "
            "first (`/game list` shows them); a lobby nobody touches closes by itself.")


def max_open_games(client: discord.Client) -> int:
    """The default cap on open games per server (0: none), from the bot's configuration
    (MAX_OPEN_GAMES); a server may choose its own (:func:`server_cap`)."""
    return int(getattr(getattr(client, "config", None), "max_open_games", DEFAULT_CAP))


async def server_cap(client: discord.Client, guild_id: int | str | None) -> int:
    """The cap on open games in ``guild_id``: the server's own (``/settings``), else the
    bot's default."""
    if guild_id is None:
        return max_open_games(client)
    return int(await store_of(client).server_settings.value(str(guild_id), MAX_OPEN_GAMES))


def in_thread(channel: object) -> bool:
    return getattr(channel, "type", None) in THREAD_TYPES




async def refuse_new_game(interaction: discord.Interaction) -> str | None:
    """Why ``/game new`` must not open a lobby here (missing permissions, the server's
    cap reached), or None."""
    thread = in_thread(interaction.channel)
    missing = missing_permissions(interaction.app_permissions, thread)
    if missing:
        return permissions_message(missing, thread)
    cap = await server_cap(interaction.client, interaction.guild_id)
    if cap > 0 and interaction.guild_id is not None:
        count = await store_of(interaction.client).limits.open_games(str(interaction.guild_id))
        if count >= cap:
            return cap_message(cap)
    return None


async def undo_if_crowded(interaction: discord.Interaction,
                          record: GameRecord) -> str | None:
    """After a lobby was opened: if the games opened before it already fill the cap (two
    ``/game new`` raced past :func:`refuse_new_game`), abort it and say why."""
    cap = await server_cap(interaction.client, record.guild_id)
    if cap <= 0 or record.guild_id is None:
        return None
    store = store_of(interaction.client)
    if await store.limits.open_games(record.guild_id, up_to=record.id) <= cap:
        return None
    with contextlib.suppress(StoreError):
        await store.lobby.abort(record.id)
    return cap_message(cap)
