"""Data kept by the Discord double: users, guilds, channels, messages, interactions.

Everything here is plain data plus helpers that render Discord's documented JSON shapes
(https://discord.com/developers/docs/resources/...). Ids are snowflakes kept as strings,
exactly as they travel over the wire.
"""

from __future__ import annotations

import copy
import io
import itertools
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from PIL.Image import Image

DISCORD_EPOCH_MS = 1420070400000

# Interaction types (https://discord.com/developers/docs/interactions/receiving-and-responding)
PING = 1
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
APPLICATION_COMMAND_AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

# Interaction callback types
CB_PONG = 1
CB_CHANNEL_MESSAGE = 4
CB_DEFERRED_CHANNEL_MESSAGE = 5
CB_DEFERRED_UPDATE_MESSAGE = 6
CB_UPDATE_MESSAGE = 7
CB_AUTOCOMPLETE_RESULT = 8
CB_MODAL = 9
CB_PREMIUM_REQUIRED = 10
CB_LAUNCH_ACTIVITY = 12

# Message flags
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_IS_COMPONENTS_V2 = 1 << 15

# Channel types
GUILD_TEXT = 0
DM = 1
GUILD_CATEGORY = 4
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = (10, PUBLIC_THREAD, PRIVATE_THREAD)

# Component types
ACTION_ROW = 1
BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
SELECT_TYPES = (3, 5, 6, 7, 8)

# Permission bits (https://discord.com/developers/docs/topics/permissions)
CREATE_INSTANT_INVITE = 1 << 0
ADMINISTRATOR = 1 << 3
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
CONNECT = 1 << 20
SPEAK = 1 << 21
CHANGE_NICKNAME = 1 << 26
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1

DEFAULT_EVERYONE_PERMISSIONS = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_EXTERNAL_EMOJIS
    | CONNECT
    | SPEAK
    | CHANGE_NICKNAME
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | SEND_MESSAGES_IN_THREADS
)
DEFAULT_BOT_PERMISSIONS = (
    DEFAULT_EVERYONE_PERMISSIONS | MANAGE_MESSAGES | MANAGE_THREADS | CREATE_PRIVATE_THREADS
)

USER_MENTION_RE = re.compile(r"<@!?(\d{15,21})>")
ROLE_MENTION_RE = re.compile(r"<@&(\d{15,21})>")
EVERYONE_RE = re.compile(r"@(everyone|here)\b")


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


class Snowflakes:
    """Monotonic snowflake generator: real timestamps in the top bits, as Discord does."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> str:
        value = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if value <= self._last:
            value = self._last + 1
        self._last = value
        return str(value)

    def next_on_shard(self, shard_id: int, shard_count: int) -> str:
        """The next snowflake whose events Discord routes to shard ``shard_id`` of
        ``shard_count`` (``(id >> 22) % shard_count``): its timestamp is moved on by a
        few milliseconds at most."""
        if not 0 <= shard_id < shard_count:
            raise ValueError(f"no shard {shard_id} of {shard_count}")
        stamp = max(int(time.time() * 1000) - DISCORD_EPOCH_MS, (self._last >> 22) + 1)
        stamp += (shard_id - stamp) % shard_count
        self._last = stamp << 22
        return str(self._last)


@dataclass(eq=False)
class FakeUser:
    """A Discord user. ``name`` is the username the tests refer to them by."""

    id: str
    name: str
    global_name: str | None = None
    bot: bool = False
    discriminator: str = "0"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    @property
    def display_name(self) -> str:
        return self.global_name or self.name

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "username": self.name,
            "discriminator": self.discriminator,
            "global_name": None if self.bot else self.display_name,
            "avatar": None,
            "banner": None,
            "accent_color": None,
            "public_flags": 0,
            "flags": 0,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
        }
        if self.bot:
            data["bot"] = True
        return data

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} id={self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: str
    name: str
    permissions: int = 0
    position: int = 0
    mentionable: bool = False
    color: int = 0
    managed: bool = False
    bot_id: str | None = None

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "color": self.color,
            "colors": {
                "primary_color": self.color,
                "secondary_color": None,
                "tertiary_color": None,
            },
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": self.mentionable,
            "flags": 0,
        }
        if self.bot_id:
            data["tags"] = {"bot_id": self.bot_id}
        return data


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    role_ids: list[str] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    def payload(self, *, with_user: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "roles": list(self.role_ids),
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
            "avatar_decoration_data": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        return data


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, a thread, or a DM channel."""

    id: str
    name: str
    type: int = GUILD_TEXT
    guild: FakeGuild | None = None
    parent_id: str | None = None
    position: int = 0
    topic: str | None = None
    owner_id: str | None = None
    recipients: list[FakeUser] = field(default_factory=list)
    #: [{"id": role_or_user_id, "type": 0 (role) | 1 (member), "allow": int, "deny": int}]
    overwrites: list[dict[str, Any]] = field(default_factory=list)
    archived: bool = False
    last_message_id: str | None = None
    created_at: str = field(default_factory=iso_now)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> dict[str, Any]:
        if self.is_dm:
            return {
                "id": self.id,
                "type": DM,
                "last_message_id": self.last_message_id,
                "flags": 0,
                "recipients": [u.payload() for u in self.recipients],
            }
        data: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "guild_id": self.guild.id if self.guild else None,
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [
                {
                    "id": o["id"],
                    "type": o["type"],
                    "allow": str(o.get("allow", 0)),
                    "deny": str(o.get("deny", 0)),
                }
                for o in self.overwrites
            ],
            "nsfw": False,
            "parent_id": self.parent_id,
            "last_message_id": self.last_message_id,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if self.is_thread:
            data.pop("position")
            data.pop("permission_overwrites")
            data.update(
                owner_id=self.owner_id,
                message_count=0,
                member_count=1,
                total_message_sent=0,
                thread_metadata={
                    "archived": self.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": self.created_at,
                    "locked": False,
                    "invitable": self.type == PRIVATE_THREAD,
                    "create_timestamp": self.created_at,
                },
            )
        else:
            data.update(topic=self.topic, default_thread_rate_limit_per_user=0)
        return data

    def __repr__(self) -> str:
        return f"<FakeChannel #{self.name} id={self.id} type={self.type}>"


@dataclass(eq=False)
class FakeGuild:
    id: str
    name: str
    owner_id: str
    roles: dict[str, FakeRole] = field(default_factory=dict)
    members: dict[str, FakeMember] = field(default_factory=dict)
    channels: dict[str, FakeChannel] = field(default_factory=dict)
    locale: str = "en-US"

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def text_channels(self) -> list[FakeChannel]:
        return [c for c in self.channels.values() if c.type == GUILD_TEXT]

    def threads(self) -> list[FakeChannel]:
        return [c for c in self.channels.values() if c.is_thread]

    def channel_named(self, name: str) -> FakeChannel | None:
        return next((c for c in self.channels.values() if c.name == name), None)

    def base_permissions(self, user_id: str) -> int:
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user_id)
        perms = self.everyone.permissions
        if member is not None:
            for role_id in member.role_ids:
                role = self.roles.get(role_id)
                if role is not None:
                    perms |= role.permissions
        if perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def permissions_in(self, user_id: str, channel: FakeChannel) -> int:
        """Discord's documented algorithm: base permissions, then channel overwrites."""
        perms = self.base_permissions(user_id)
        if perms == ALL_PERMISSIONS:
            return perms
        target = channel
        if channel.is_thread and channel.parent_id in self.channels:
            target = self.channels[channel.parent_id]
        member = self.members.get(user_id)
        role_ids = set(member.role_ids) if member else set()
        overwrites = target.overwrites
        for o in overwrites:
            if o["id"] == self.id:
                perms = (perms & ~o.get("deny", 0)) | o.get("allow", 0)
        allow = deny = 0
        for o in overwrites:
            if o["type"] == 0 and o["id"] in role_ids:
                allow |= o.get("allow", 0)
                deny |= o.get("deny", 0)
        perms = (perms & ~deny) | allow
        for o in overwrites:
            if o["type"] == 1 and o["id"] == user_id:
                perms = (perms & ~o.get("deny", 0)) | o.get("allow", 0)
        return perms

    def payload(self, *, include_members: bool, bot_id: str) -> dict[str, Any]:
        members = [
            m.payload() for uid, m in self.members.items() if include_members or uid == bot_id
        ]
        return {
            "id": self.id,
            "name": self.name,
            "icon": None,
            "icon_hash": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": self.owner_id,
            "region": None,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "widget_channel_id": None,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "max_presences": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": self.locale,
            "nsfw_level": 0,
            "nsfw": False,
            "incidents_data": None,
            "hub_type": None,
            "latest_onboarding_question_id": None,
            # GUILD_CREATE extras
            "joined_at": iso_now(),
            "large": False,
            "unavailable": False,
            "lazy": True,
            "member_count": len(self.members),
            "voice_states": [],
            "members": members,
            "channels": [c.payload() for c in self.channels.values() if not c.is_thread],
            "threads": [c.payload() for c in self.channels.values() if c.is_thread],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
            "activity_instances": [],
        }


class Choice(NamedTuple):
    """One autocomplete choice as the Discord client would show it."""

    name: str
    value: str | int | float


@dataclass(eq=False)
class Attachment:
    """A file the bot uploaded. ``data`` holds the raw bytes exactly as received."""

    id: str
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None
    url: str = ""
    ephemeral: bool = False

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def is_png(self) -> bool:
        return self.data.startswith(b"\x89PNG\r\n\x1a\n")

    def image(self) -> Image:
        """Open the bytes with Pillow (fully loaded, so a corrupt file fails here)."""
        from PIL import Image as PILImage

        img = PILImage.open(io.BytesIO(self.data))
        img.load()
        return img

    def dimensions(self) -> tuple[int, int] | None:
        try:
            return self.image().size
        except Exception:
            return None

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
            "flags": 0,
        }
        if self.description is not None:
            data["description"] = self.description
        dims = self.dimensions() if self._looks_like_image() else None
        if dims:
            data["width"], data["height"] = dims
        if self.ephemeral:
            data["ephemeral"] = True
        return data

    def _looks_like_image(self) -> bool:
        return (self.content_type or "").startswith("image/") or self.filename.lower().endswith(
            (".png", ".jpg", ".jpeg", ".gif", ".webp")
        )

    def __repr__(self) -> str:
        return f"<Attachment {self.filename} {self.size} bytes>"


def walk_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every component in a (possibly nested, components v2) component tree."""
    for comp in components or []:
        yield comp
        yield from walk_components(comp.get("components") or [])
        accessory = comp.get("accessory")
        if isinstance(accessory, dict):
            yield accessory
            yield from walk_components(accessory.get("components") or [])


@dataclass(eq=False)
class Message:
    """A message the bot (or a scripted user) created, as Discord stores it."""

    id: str
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    tts: bool = False
    #: allowed_mentions exactly as the bot sent it (None if it sent none)
    allowed_mentions: dict[str, Any] | None = None
    #: ids of users that this message pings (content mentions filtered by allowed_mentions)
    mentions: list[str] = field(default_factory=list)
    mention_roles: list[str] = field(default_factory=list)
    mention_everyone: bool = False
    #: ids of every ``<@id>`` written in the content, pinged or not
    content_mentions: list[str] = field(default_factory=list)
    #: ids of users who got a notification: ``mentions`` of a newly created, non-ephemeral
    #: message (edits, including a deferral's first follow-up, notify nobody)
    pings: list[str] = field(default_factory=list)
    message_reference: dict[str, Any] | None = None
    type: int = 0
    webhook_id: str | None = None
    application_id: str | None = None
    #: the interaction this message answers (None for plain channel messages)
    interaction: Reply | None = None
    #: "channel", "response" (the interaction's original response) or "followup"
    kind: str = "channel"
    #: for ephemeral messages: the only user who can see it
    visible_to: str | None = None
    seq: int = 0
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    deleted: bool = False
    pinned: bool = False
    reactions: list[str] = field(default_factory=list)
    #: every request body (JSON part) that created or edited this message, in order
    payloads: list[dict[str, Any]] = field(default_factory=list)
    #: snapshots (content, embeds, components, attachments) before each edit
    history: list[dict[str, Any]] = field(default_factory=list)
    #: the message as it was before each edit (shallow copies: its attachments' bytes too)
    earlier: list[Message] = field(default_factory=list, repr=False)
    #: the ``seq`` at which each edit happened (an edit orders among messages like a post)
    edit_seqs: list[int] = field(default_factory=list)

    # -- convenience -------------------------------------------------------------------------
    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True for a deferred response that has not been edited yet ("Bot is thinking...")."""
        return bool(self.flags & FLAG_LOADING)

    @property
    def edited(self) -> bool:
        return self.edited_timestamp is not None

    @property
    def guild_id(self) -> str | None:
        return self.channel.guild.id if self.channel.guild else None

    @property
    def text(self) -> str:
        """Content plus the readable text of embeds and text-display components."""
        parts = [self.content] if self.content else []
        for e in self.embeds:
            for key in ("title", "description"):
                if e.get(key):
                    parts.append(str(e[key]))
            for f in e.get("fields") or []:
                parts.append(f"{f.get('name', '')}: {f.get('value', '')}")
            if (e.get("footer") or {}).get("text"):
                parts.append(e["footer"]["text"])
        for comp in walk_components(self.components):
            if comp.get("type") == 10 and comp.get("content"):
                parts.append(comp["content"])
        return "\n".join(parts)

    def all_components(self) -> list[dict[str, Any]]:
        return list(walk_components(self.components))

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in walk_components(self.components) if c.get("type") == BUTTON]

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in walk_components(self.components) if "custom_id" in c]

    def button(self, label_or_custom_id: str) -> dict[str, Any] | None:
        for b in self.buttons:
            if label_or_custom_id in (b.get("label"), b.get("custom_id")):
                return b
        return None

    def attachment(self, filename: str | None = None) -> Attachment:
        for att in self.attachments:
            if filename is None or att.filename == filename:
                return att
        names = [a.filename for a in self.attachments]
        raise LookupError(f"message {self.id} has no attachment {filename!r} (has {names})")

    def image(self, filename: str | None = None) -> Image:
        return self.attachment(filename).image()

    def visible_for(self, user_id: str) -> bool:
        return not self.deleted and (self.visible_to is None or self.visible_to == user_id)

    def versions(self) -> list[tuple[int, Message]]:
        """``(seq, message as shown then)``: as first posted, then after each edit, in order."""
        shown = [*self.earlier, self]
        return list(zip([self.seq, *self.edit_seqs], shown, strict=True))

    def snapshot(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "embeds": copy.deepcopy(self.embeds),
            "components": copy.deepcopy(self.components),
            "attachments": [a.filename for a in self.attachments],
            "flags": self.flags,
        }

    def __repr__(self) -> str:
        extra = " ephemeral" if self.ephemeral else ""
        files = f" files={[a.filename for a in self.attachments]}" if self.attachments else ""
        return (
            f"<Message {self.id} #{self.channel.name} by {self.author.name}{extra}"
            f" content={self.content!r}{files}>"
        )


class BotError(AssertionError):
    """The double answered a bot request with an error, or the bot did not answer at all."""


class DoubleTimeout(AssertionError):
    """A waiting helper of the double ran out of time."""


@dataclass(eq=False)
class Reply:
    """One interaction sent by a scripted user, and everything the bot answered to it."""

    id: str
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    payload: dict[str, Any]
    #: "game new" for slash commands and autocomplete, the custom_id for components
    name: str = ""
    #: human summary for transcripts (options typed, button label)
    summary: str = ""
    seq: int = 0
    dispatched_at: float = 0.0
    #: every callback body the bot posted (normally exactly one)
    callbacks: list[dict[str, Any]] = field(default_factory=list)
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    choices: list[Choice] | None = None
    modal: dict[str, Any] | None = None
    #: requests concerning this interaction that the double rejected, with Discord's error body
    errors: list[dict[str, Any]] = field(default_factory=list)
    #: the message a component sat on (component interactions only)
    source_message: Message | None = None
    #: set once the original response was edited after a deferral
    resolved: bool = False
    _waiter: Callable[..., Any] | None = field(default=None, repr=False)

    @property
    def response_type(self) -> int | None:
        return self.callbacks[0]["type"] if self.callbacks else None

    @property
    def responded(self) -> bool:
        return bool(self.callbacks)

    @property
    def deferred(self) -> bool:
        return self.response_type in (CB_DEFERRED_CHANNEL_MESSAGE, CB_DEFERRED_UPDATE_MESSAGE)

    @property
    def complete(self) -> bool:
        """Answered for good: a real response, or a deferral later followed up."""
        if not self.callbacks:
            return False
        if self.deferred:
            return self.resolved or bool(self.followups)
        return True

    @property
    def messages(self) -> list[Message]:
        out = [self.original] if self.original is not None else []
        return out + list(self.followups)

    @property
    def message(self) -> Message:
        """The first message produced (original response, else first follow-up)."""
        msgs = self.messages
        if not msgs:
            raise BotError(f"interaction {self.name!r} produced no message: {self.describe()}")
        return msgs[0]

    @property
    def content(self) -> str | None:
        msgs = self.messages
        return msgs[0].content if msgs else None

    @property
    def text(self) -> str:
        return "\n".join(m.text for m in self.messages if m.text)

    @property
    def ephemeral(self) -> bool:
        """Whether the (first) response message is ephemeral."""
        msgs = self.messages
        return bool(msgs) and msgs[0].ephemeral

    @property
    def attachments(self) -> list[Attachment]:
        return [a for m in self.messages for a in m.attachments]

    files = attachments

    @property
    def components(self) -> list[dict[str, Any]]:
        return [c for m in self.messages for c in m.components]

    @property
    def custom_ids(self) -> list[str]:
        return [cid for m in self.messages for cid in m.custom_ids]

    def describe(self) -> str:
        parts = [f"type={self.type}", f"callbacks={[c['type'] for c in self.callbacks]}"]
        if self.errors:
            parts.append(f"errors={self.errors}")
        for m in self.messages:
            parts.append(repr(m))
        return " ".join(parts)

    async def wait(
        self, predicate: Callable[[Reply], bool] | None = None, *, timeout: float = 5.0
    ) -> Reply:
        """Wait until ``predicate(self)`` holds (default: until the interaction is complete)."""
        check = predicate or (lambda r: r.complete)
        assert self._waiter is not None
        await self._waiter(lambda: check(self), timeout=timeout, what=f"reply to {self.name!r}")
        return self

    async def wait_for_followup(self, count: int = 1, *, timeout: float = 5.0) -> Message:
        await self.wait(lambda r: len(r.followups) >= count, timeout=timeout)
        return self.followups[count - 1]

    def __repr__(self) -> str:
        return f"<Reply to {self.user.name}: {self.name!r} {self.describe()}>"


_counter = itertools.count(1)


def next_seq() -> int:
    """Global ordering of everything recorded (messages and interactions)."""
    return next(_counter)
