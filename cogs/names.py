"""Players' display names: seen as they interact, from Discord's caches, or fetched once.

Names are for people to read (boards, recaps, hints); the game itself knows players by
their ids only. The memory of names seen is bounded, and a data deletion forgets a
user's (:func:`forget_names`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import discord

from db.computers import computer_name
from engine.notation import is_number

#: Display names seen lately, per (guild id or "", user id); bounded, oldest dropped first.
_NAMES: dict[tuple[str, str], str] = {}


_NAMES_MAX = 5000


def _name_key(guild_id: int | None, user_id: str) -> tuple[str, str]:
    return (str(guild_id or ""), user_id)


def _keep_name(key: tuple[str, str], name: str) -> None:
    _NAMES.pop(key, None)
    _NAMES[key] = name
    while len(_NAMES) > _NAMES_MAX:
        del _NAMES[next(iter(_NAMES))]


def remember(user: discord.abc.User, guild_id: int | None = None) -> None:
    """Note a user's display name (players are seen whenever they interact)."""
    _keep_name(_name_key(guild_id, str(user.id)), user.display_name)


def forget_names(user_id: str) -> None:
    """Drop a user's remembered display names (a data deletion)."""
    for key in [k for k in _NAMES if k[1] == user_id]:
        del _NAMES[key]
    for key in [k for k in _MEMBERS if k[1] == user_id]:
        del _MEMBERS[key]


def fallback_name(user_id: str) -> str:
    if is_number(user_id):
        return f"player {user_id[-4:]}"
    return computer_name(user_id) or user_id


async def name_of(client: discord.Client, guild: discord.Guild | None, user_id: str) -> str:
    """A player's display name: the member cache, names seen, the user cache, one fetch."""
    if not is_number(user_id):
        return fallback_name(user_id)
    key = _name_key(guild.id if guild is not None else None, user_id)
    member = guild.get_member(int(user_id)) if guild is not None else None
    if member is not None:
        return member.display_name
    if key in _NAMES:
        return _NAMES[key]
    name: str | None = None
    user = client.get_user(int(user_id))
    if user is not None:
        name = user.display_name
    elif guild is not None:
        try:
            name = (await guild.fetch_member(int(user_id))).display_name
        except (discord.HTTPException, ValueError):
            name = None
    if name is None:
        return fallback_name(user_id)
    _keep_name(key, name)
    return name


async def display_name(interaction: discord.Interaction, user_id: str) -> str:
    """A player's display name, as seen from ``interaction`` (the caller's own first)."""
    if str(interaction.user.id) == user_id:
        return interaction.user.display_name
    return await name_of(interaction.client, interaction.guild, user_id)


async def display_names(interaction: discord.Interaction,
                        user_ids: Iterable[str]) -> dict[str, str]:
    return {uid: await display_name(interaction, uid) for uid in user_ids}


async def names_for(client: discord.Client, guild_id: str | None,
                    user_ids: Iterable[str]) -> dict[str, str]:
    """Display names for drawing: the member cache, names seen lately, then one fetch."""
    guild = client.get_guild(int(guild_id)) if guild_id and is_number(guild_id) else None
    return {uid: await name_of(client, guild, uid) for uid in user_ids}


#: Whether a user is still a member of a server, per (guild id, user id): (until when, in
#: ``time.monotonic`` seconds; their display name, or None: they left). Bounded.
_MEMBERS: dict[tuple[str, str], tuple[float, str | None]] = {}
_MEMBERS_MAX = 2000
#: How long an answer of :func:`member_name` is kept.
MEMBER_TTL = 300.0


async def member_name(client: discord.Client, guild: discord.Guild,
                      user_id: str) -> str | None:
    """``user_id``'s display name if they are still a member of ``guild``, else None.

    For leaderboards and statistics, which must not name someone who left the server:
    the member cache, then one fetch (Discord's "Unknown Member": they left, None). When
    Discord cannot answer (another HTTP error), the name seen last in that server, else
    None. Each answer is kept for :data:`MEMBER_TTL` seconds; ``client`` is the bot
    asking (unused today: the guild knows its members).
    """
    if not is_number(user_id):
        return None
    key = _name_key(guild.id, user_id)
    member = guild.get_member(int(user_id))
    if member is not None:
        return member.display_name
    now = time.monotonic()
    known = _MEMBERS.get(key)
    if known is not None and known[0] > now:
        return known[1]
    try:
        name: str | None = (await guild.fetch_member(int(user_id))).display_name
    except discord.NotFound:
        name = None
    except (discord.HTTPException, ValueError):
        return _NAMES.get(key)        # not kept: Discord may answer next time
    _MEMBERS.pop(key, None)
    _MEMBERS[key] = (now + MEMBER_TTL, name)
    while len(_MEMBERS) > _MEMBERS_MAX:
        del _MEMBERS[next(iter(_MEMBERS))]
    if name is not None:
        _keep_name(key, name)
    return name


def left_server(guild_id: int, user_id: str) -> bool:
    """Whether Discord said lately that ``user_id`` is not a member of the server (an
    "Unknown Member" answer :func:`member_name` keeps)."""
    known = _MEMBERS.get(_name_key(guild_id, user_id))
    return known is not None and known[1] is None and known[0] > time.monotonic()
