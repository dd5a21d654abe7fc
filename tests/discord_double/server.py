"""A loopback Discord: REST API + gateway on 127.0.0.1 that the real discord.py client talks to.

Usage (see README.md next to this file)::

    async with DiscordDouble() as dd:
        alice = dd.add_user("alice")
        ...  # point discord.py at dd.api_base / dd.gateway_url, start the bot
        table = dd.table()
        reply = await table.slash("alice", "game new", kind="conqueror")
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import json
import logging
import re
import secrets
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from .models import (
    ADMINISTRATOR,
    APPLICATION_COMMAND,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    ATTACH_FILES,
    CB_AUTOCOMPLETE_RESULT,
    CB_CHANNEL_MESSAGE,
    CB_DEFERRED_CHANNEL_MESSAGE,
    CB_DEFERRED_UPDATE_MESSAGE,
    CB_LAUNCH_ACTIVITY,
    CB_MODAL,
    CB_PREMIUM_REQUIRED,
    CB_UPDATE_MESSAGE,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    DM,
    EMBED_LINKS,
    EVERYONE_RE,
    FLAG_EPHEMERAL,
    FLAG_IS_COMPONENTS_V2,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    GUILD_TEXT,
    MANAGE_MESSAGES,
    MENTION_EVERYONE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    READ_MESSAGE_HISTORY,
    ROLE_MENTION_RE,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    USER_MENTION_RE,
    VIEW_CHANNEL,
    Attachment,
    BotError,
    Choice,
    DoubleTimeout,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeRole,
    FakeUser,
    Message,
    Reply,
    Snowflakes,
    iso_now,
    next_seq,
    walk_components,
)
from .validation import (
    check_choices,
    check_command,
    check_message,
    check_modal,
    error_body,
    form_error,
)

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("discord_double")

#: How long Discord remembers a message's nonce for ``enforce_nonce`` (a few minutes).
NONCE_WINDOW = 300.0

# Gateway opcodes
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE_UPDATE = 3
OP_VOICE_STATE_UPDATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_GUILD_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

# Gateway intents
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT

#: asyncio task names discord.py gives to the coroutines that run a bot's interaction handlers
HANDLER_TASK_PREFIXES = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch",
    "discord-ui-dynamic-item",
    "discord-ui-modal-dispatch",
    "discord.py: on_interaction",
    "discord.py: on_app_command",
)

CALLBACKS_ALLOWED = {
    APPLICATION_COMMAND: {
        CB_CHANNEL_MESSAGE,
        CB_DEFERRED_CHANNEL_MESSAGE,
        CB_MODAL,
        CB_PREMIUM_REQUIRED,
        CB_LAUNCH_ACTIVITY,
    },
    MESSAGE_COMPONENT: {
        CB_CHANNEL_MESSAGE,
        CB_DEFERRED_CHANNEL_MESSAGE,
        CB_DEFERRED_UPDATE_MESSAGE,
        CB_UPDATE_MESSAGE,
        CB_MODAL,
        CB_PREMIUM_REQUIRED,
        CB_LAUNCH_ACTIVITY,
    },
    APPLICATION_COMMAND_AUTOCOMPLETE: {CB_AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {
        CB_CHANNEL_MESSAGE,
        CB_DEFERRED_CHANNEL_MESSAGE,
        CB_DEFERRED_UPDATE_MESSAGE,
        CB_UPDATE_MESSAGE,
        CB_PREMIUM_REQUIRED,
        CB_LAUNCH_ACTIVITY,
    },
}


class ApiError(Exception):
    """Raised by route handlers: becomes a Discord-shaped JSON error response."""

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None):
        super().__init__(f"{status} {body}")
        self.status = status
        self.body = body
        self.headers = headers or {}


@dataclass
class Upload:
    """One ``files[n]`` part of a multipart request."""

    field: str
    filename: str
    data: bytes
    content_type: str | None


@dataclass
class RequestRecord:
    """One REST request the bot made, and what the double answered."""

    method: str
    path: str
    route: str
    query: dict[str, str]
    json: Any = None
    uploads: list[Upload] = field(default_factory=list)
    status: int = 0
    response: Any = None
    response_headers: dict[str, str] = field(default_factory=dict)
    at: float = field(default_factory=time.time)
    #: The client's end of the connection, ``(host, port)``: with several bot processes,
    #: which one made the request (see ``tests/shards.py``).
    peer: tuple[str, int] | None = None

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} -> {self.status}>"


RECORD: Any = web.RequestKey("record", RequestRecord) if hasattr(web, "RequestKey") else "record"


class GatewaySession:
    """A gateway session: survives a dropped websocket so the client can RESUME it."""

    def __init__(
        self, dd: DiscordDouble, session_id: str, token: str, intents: int, shard: tuple[int, int]
    ):
        self.dd = dd
        self.id = session_id
        self.token = token
        self.intents = intents
        self.shard = shard
        self.seq = 0
        self.log: list[tuple[int, str]] = []
        self.ws: web.WebSocketResponse | None = None
        self.lock = asyncio.Lock()
        self.invalid = False
        self.guilds_sent = False
        self.identified_at = time.monotonic()
        self.resumes = 0
        self.presence: dict[str, Any] | None = None
        #: The client's end of the websocket, ``(host, port)`` (updated on RESUME).
        self.peer: tuple[str, int] | None = None
        #: Which IDENTIFY made it (1 for the double's first).
        self.identify_number = 0
        self._pending: deque[str] = deque()

    @property
    def connected(self) -> bool:
        return self.ws is not None and not self.ws.closed and not self.invalid

    def handles_guild(self, guild_id: str | None) -> bool:
        if guild_id is None:
            return self.shard[0] == 0
        return (int(guild_id) >> 22) % self.shard[1] == self.shard[0]

    async def send(self, payload: dict[str, Any]) -> None:
        ws = self.ws
        if ws is not None and not ws.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):  # the client went away
                await ws.send_str(json.dumps(payload))

    def enqueue(self, event: str, data: dict[str, Any]) -> None:
        """Assign the next sequence number now (so frames keep call order) and send soon."""
        self.seq += 1
        frame = json.dumps({"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data})
        self.log.append((self.seq, frame))
        del self.log[:-5000]
        self._pending.append(frame)
        self.dd._spawn(self.flush())

    async def flush(self) -> None:
        async with self.lock:
            while self._pending:
                frame = self._pending.popleft()
                ws = self.ws
                if ws is None or ws.closed:
                    self._pending.clear()  # still in the log: replayed on RESUME
                    break
                try:
                    await ws.send_str(frame)
                except (ConnectionError, RuntimeError):
                    self._pending.clear()
                    break
        self.dd._bump()

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.enqueue(event, data)
        await self.flush()


class DiscordDouble:
    """The fake Discord. One application (the bot), any number of guilds, users and channels.

    State (users, channels, messages, synced commands) lives here, not in any bot, so a bot
    can be stopped and a new instance connected to the same double, as after a restart.
    """

    def __init__(
        self,
        *,
        app_name: str = "Warhost",
        guild_name: str = "Warhost Test",
        channel_name: str = "general",
        interaction_deadline: float = 3.0,
        attachment_size_limit: int = 10 * 1024 * 1024,
        rate_limit: int = 50,
        rate_limit_window: float = 1.0,
        heartbeat_interval_ms: int = 41250,
        allowed_intents: int = PRIVILEGED_INTENTS,
        in_process_bot: bool = True,
        quiet_period: float = 0.02,
        default_timeout: float = 10.0,
    ) -> None:
        self.snowflakes = Snowflakes()
        self.interaction_deadline = interaction_deadline
        self.attachment_size_limit = attachment_size_limit
        self.rate_limit = rate_limit
        self.rate_limit_window = rate_limit_window
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.allowed_intents = allowed_intents
        self.in_process_bot = in_process_bot
        self.quiet_period = quiet_period
        self.default_timeout = default_timeout

        self.token = "FAKE." + secrets.token_urlsafe(18) + ".double"
        self.application_id = self.snowflakes.next()
        self.verify_key = secrets.token_hex(32)
        self.users: dict[str, FakeUser] = {}
        self.bot_user = FakeUser(
            id=self.application_id, name=app_name, bot=True, discriminator="0001"
        )
        self.users[self.bot_user.id] = self.bot_user
        self.owner = self._new_user("guild-owner")
        self.guilds: dict[str, FakeGuild] = {}
        self.channels: dict[str, FakeChannel] = {}
        self.messages: dict[str, Message] = {}
        self.interactions: dict[str, Reply] = {}
        self._by_token: dict[str, Reply] = {}
        self.global_commands: dict[str, dict[str, Any]] = {}
        self.guild_commands: dict[str, dict[str, dict[str, Any]]] = {}
        self.command_syncs: list[tuple[str | None, list[dict[str, Any]]]] = []
        self.requests: list[RequestRecord] = []
        #: every request the double refused (4xx), with Discord's error body
        self.rejections: list[RequestRecord] = []
        self.unknown_routes: list[RequestRecord] = []
        self.sessions: dict[str, GatewaySession] = {}
        self.identify_count = 0
        self.gateway_frames_received: list[dict[str, Any]] = []
        self._dm_channels: dict[str, FakeChannel] = {}
        self._buckets: dict[tuple[str, str], list[float]] = {}
        self._inflight = 0
        self._last_activity = 0.0
        self._changed: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self._uploads: dict[str, Attachment] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: exceptions raised inside the double's own handlers (a bug in the double)
        self.internal_errors: list[BaseException] = []
        #: fault injection: awaited with each REST request's record (body read) before
        #: the double handles it, and after (status and response set, not yet sent back).
        #: A test can kill the bot process in either, to crash it at that exact moment.
        #: ``before_request`` returning True drops the request unhandled (a 503).
        self.before_request: Callable[[RequestRecord], Awaitable[bool]] | None = None
        self.after_request: Callable[[RequestRecord], Awaitable[None]] | None = None
        #: (author id, nonce) -> message, for messages sent with enforce_nonce
        self._nonces: dict[tuple[str, str], tuple[float, Message]] = {}
        self.port = 0

        self.guild = self.add_guild(guild_name, channels=(channel_name,))

    # ------------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """What ``discord.http.Route.BASE`` (or ``DISCORD_API_BASE``) must be set to."""
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """What ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` must be set to."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> DiscordDouble:
        app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[self._middleware])
        self._add_routes(app)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=0.5
        )
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()
        self._changed = asyncio.Event()
        log.debug("discord double listening on %s", self.url)
        return self

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for ws in list(self._sockets):
            ws._double_closed = True  # type: ignore[attr-defined]
            await self._close_ws(ws, 1001, b"double shutting down")
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> DiscordDouble:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ world building
    def _new_user(
        self, name: str, *, bot: bool = False, global_name: str | None = None
    ) -> FakeUser:
        user = FakeUser(id=self.snowflakes.next(), name=name, bot=bot, global_name=global_name)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str,
        *,
        channels: Iterable[str] = ("general",),
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        everyone_permissions: int = DEFAULT_EVERYONE_PERMISSIONS,
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """A new guild (the bot is in it). ``shard=(shard_id, shard_count)``: its id is
        chosen so that Discord routes its events to that shard."""
        gid = self.snowflakes.next() if shard is None else self.snowflakes.next_on_shard(*shard)
        guild = FakeGuild(id=gid, name=name, owner_id=self.owner.id)
        guild.roles[gid] = FakeRole(id=gid, name="@everyone", permissions=everyone_permissions)
        bot_role = FakeRole(
            id=self.snowflakes.next(),
            name=self.bot_user.name,
            permissions=bot_permissions,
            position=1,
            managed=True,
            bot_id=self.bot_user.id,
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[self.owner.id] = FakeMember(self.owner)
        guild.members[self.bot_user.id] = FakeMember(self.bot_user, role_ids=[bot_role.id])
        for user in self.users.values():
            if not user.bot and user is not self.owner:
                guild.members[user.id] = FakeMember(user)
        self.guilds[gid] = guild
        for cname in channels:
            self.add_channel(cname, guild=guild)
        self._fire_guild_event(guild.id, "GUILD_CREATE", None)
        return guild

    def add_user(
        self,
        name: str,
        *,
        guild: FakeGuild | None = None,
        roles: Iterable[FakeRole] = (),
        nick: str | None = None,
        global_name: str | None = None,
        bot: bool = False,
    ) -> FakeUser:
        """Register a user by name; they join every guild (or just ``guild``)."""
        if self.user_named(name) is not None:
            raise ValueError(f"user {name!r} already exists")
        user = self._new_user(name, bot=bot, global_name=global_name)
        for g in [guild] if guild is not None else list(self.guilds.values()):
            member = FakeMember(user, role_ids=[r.id for r in roles], nick=nick)
            g.members[user.id] = member
            data = member.payload()
            data["guild_id"] = g.id
            self._fire_guild_event(g.id, "GUILD_MEMBER_ADD", data, intent=INTENT_GUILD_MEMBERS)
        return user

    def add_role(
        self,
        name: str,
        *,
        guild: FakeGuild | None = None,
        permissions: int = 0,
        mentionable: bool = False,
        members: Iterable[FakeUser | str] = (),
    ) -> FakeRole:
        g = guild or self.guild
        role = FakeRole(
            id=self.snowflakes.next(),
            name=name,
            permissions=permissions,
            position=len(g.roles),
            mentionable=mentionable,
        )
        g.roles[role.id] = role
        self._fire_guild_event(
            g.id, "GUILD_ROLE_CREATE", {"guild_id": g.id, "role": role.payload()}
        )
        for m in members:
            user = self.resolve_user(m)
            g.members[user.id].role_ids.append(role.id)
            self._member_update(g, user)
        return role

    def give_role(
        self, user: FakeUser | str, role: FakeRole, *, guild: FakeGuild | None = None
    ) -> None:
        g = guild or self.guild
        u = self.resolve_user(user)
        g.members[u.id].role_ids.append(role.id)
        self._member_update(g, u)

    def _member_update(self, g: FakeGuild, user: FakeUser) -> None:
        m = g.members[user.id]
        data = m.payload()
        data["guild_id"] = g.id
        self._fire_guild_event(g.id, "GUILD_MEMBER_UPDATE", data, intent=INTENT_GUILD_MEMBERS)

    def add_channel(
        self,
        name: str,
        *,
        guild: FakeGuild | None = None,
        type: int = GUILD_TEXT,
        topic: str | None = None,
        overwrites: Iterable[dict[str, Any]] = (),
    ) -> FakeChannel:
        g = guild or self.guild
        channel = FakeChannel(
            id=self.snowflakes.next(),
            name=name,
            type=type,
            guild=g,
            position=len(g.channels),
            topic=topic,
            overwrites=list(overwrites),
        )
        g.channels[channel.id] = channel
        self.channels[channel.id] = channel
        self._fire_guild_event(g.id, "CHANNEL_CREATE", channel.payload())
        return channel

    def add_thread(
        self,
        parent: FakeChannel,
        name: str,
        *,
        owner: FakeUser | None = None,
        private: bool = False,
        thread_id: str | None = None,
    ) -> FakeChannel:
        g = parent.guild
        if g is None:
            raise ValueError("threads live in guild channels")
        thread = FakeChannel(
            id=thread_id or self.snowflakes.next(),
            name=name,
            type=PRIVATE_THREAD if private else PUBLIC_THREAD,
            guild=g,
            parent_id=parent.id,
            owner_id=(owner or self.bot_user).id,
        )
        g.channels[thread.id] = thread
        self.channels[thread.id] = thread
        data = thread.payload()
        data["newly_created"] = True
        self._fire_guild_event(g.id, "THREAD_CREATE", data)
        return thread

    def set_overwrite(
        self, channel: FakeChannel, target: FakeUser | FakeRole, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Add a permission overwrite (e.g. deny the bot SEND_MESSAGES in a channel)."""
        kind = 1 if isinstance(target, FakeUser) else 0
        channel.overwrites = [o for o in channel.overwrites if o["id"] != target.id]
        channel.overwrites.append({"id": target.id, "type": kind, "allow": allow, "deny": deny})
        if channel.guild is not None:
            self._fire_guild_event(channel.guild.id, "CHANNEL_UPDATE", channel.payload())

    def user_named(self, name: str) -> FakeUser | None:
        return next((u for u in self.users.values() if u.name == name), None)

    def resolve_user(self, user: FakeUser | str) -> FakeUser:
        if isinstance(user, FakeUser):
            return user
        found = self.user_named(user) or self.users.get(str(user))
        if found is None:
            raise LookupError(f"no user {user!r}; add it with dd.add_user({user!r})")
        return found

    def resolve_channel(
        self, channel: FakeChannel | str | int | None, guild: FakeGuild | None = None
    ) -> FakeChannel:
        g = guild or self.guild
        if channel is None:
            return g.text_channels()[0]
        if isinstance(channel, FakeChannel):
            return channel
        if str(channel) in self.channels:
            return self.channels[str(channel)]
        found = g.channel_named(str(channel))
        if found is None:
            found = self.add_channel(str(channel), guild=g)
        return found

    def dm_channel(self, user: FakeUser | str) -> FakeChannel:
        u = self.resolve_user(user)
        channel = self._dm_channels.get(u.id)
        if channel is None:
            channel = FakeChannel(
                id=self.snowflakes.next(), name=f"dm-{u.name}", type=DM, recipients=[u]
            )
            self._dm_channels[u.id] = channel
            self.channels[channel.id] = channel
        return channel

    def table(
        self, guild: FakeGuild | None = None, channel: FakeChannel | str | int | None = None
    ) -> Table:
        """A scripted-player view of one channel (created by name if it does not exist)."""
        from .table import Table

        return Table(self, self.resolve_channel(channel, guild))

    def dm_table(self, user: FakeUser | str) -> Table:
        from .table import Table

        return Table(self, self.dm_channel(user))

    # ------------------------------------------------------------------ queries for tests
    def channel_messages(
        self,
        channel: FakeChannel,
        *,
        include_ephemeral: bool = False,
        include_deleted: bool = False,
    ) -> list[Message]:
        out = [m for m in self.messages.values() if m.channel is channel]
        if not include_ephemeral:
            out = [m for m in out if not m.ephemeral]
        if not include_deleted:
            out = [m for m in out if not m.deleted]
        return sorted(out, key=lambda m: m.seq)

    def commands(self, guild: FakeGuild | None = None) -> list[dict[str, Any]]:
        """Synced commands: the guild's (if given) followed by the global ones."""
        out: list[dict[str, Any]] = []
        if guild is not None:
            out.extend(self.guild_commands.get(guild.id, {}).values())
        out.extend(self.global_commands.values())
        return out

    def command(
        self, name: str, guild: FakeGuild | None = None, *, type: int = 1
    ) -> dict[str, Any]:
        for cmd in self.commands(guild or self.guild):
            if cmd["name"] == name and cmd.get("type", 1) == type:
                return cmd
        known = sorted({c["name"] for c in self.commands(guild or self.guild)})
        raise LookupError(f"no synced command {name!r} (synced: {known})")

    def shard_session(self, shard_id: int, shard_count: int) -> GatewaySession | None:
        """The newest live gateway session identified as that shard (None: none)."""
        live = [
            s
            for s in self.sessions.values()
            if not s.invalid and s.shard == (shard_id, shard_count)
        ]
        return max(live, key=lambda s: s.identified_at) if live else None

    async def wait_for_shard(
        self, shard_id: int, shard_count: int, *, after: int = 0, timeout: float | None = None
    ) -> GatewaySession:
        """Wait for a session of that shard, identified after the ``after``-th IDENTIFY
        (``dd.identify_count`` before starting the process), connected with its guilds."""

        def ready() -> GatewaySession | None:
            fresh = [
                s
                for s in self.sessions.values()
                if s.shard == (shard_id, shard_count)
                and s.identify_number > after
                and s.guilds_sent
                and s.connected
            ]
            return max(fresh, key=lambda s: s.identified_at) if fresh else None

        return await self.wait_until(
            ready, timeout=timeout, what=f"shard {shard_id} of {shard_count} to connect"
        )

    @property
    def latest_session(self) -> GatewaySession | None:
        live = [s for s in self.sessions.values() if not s.invalid]
        return max(live, key=lambda s: s.identified_at) if live else None

    def assert_no_rejections(self) -> None:
        if self.rejections:
            lines = "\n".join(
                f"  {r.method} {r.path} -> {r.status} {r.response}" for r in self.rejections
            )
            raise BotError(f"the double rejected {len(self.rejections)} bot request(s):\n{lines}")

    # ------------------------------------------------------------------ waiting
    def _bump(self) -> None:
        self._last_activity = time.monotonic()
        if self._changed is not None:
            self._changed.set()
            self._changed = asyncio.Event()

    async def _wait_change(self, timeout: float) -> None:
        event = self._changed
        if event is None or timeout <= 0:
            await asyncio.sleep(max(timeout, 0))
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    async def wait_until(
        self, condition: Callable[[], Any], *, timeout: float | None = None, what: str = "condition"
    ) -> Any:
        """Wait until ``condition()`` is truthy (re-checked on every change); returns its value."""
        timeout = self.default_timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            left = deadline - time.monotonic()
            if left <= 0:
                raise DoubleTimeout(f"timed out after {timeout}s waiting for {what}")
            await self._wait_change(min(left, 0.05))

    async def wait_for_message(
        self,
        predicate: Callable[[Message], bool] | None = None,
        *,
        channel: FakeChannel | None = None,
        after: Message | int | None = None,
        timeout: float | None = None,
        include_ephemeral: bool = False,
    ) -> Message:
        """The first message (newer than ``after``; by default: any created from now on)."""
        floor = after.seq if isinstance(after, Message) else after
        if floor is None:
            floor = next_seq()

        def find() -> Message | None:
            for m in sorted(self.messages.values(), key=lambda m: m.seq):
                if m.seq <= floor or m.deleted:
                    continue
                if channel is not None and m.channel is not channel:
                    continue
                if m.ephemeral and not include_ephemeral:
                    continue
                if predicate is None or predicate(m):
                    return m
            return None

        return await self.wait_until(find, timeout=timeout, what="a matching message")

    async def wait_for_response(
        self,
        reply: Reply,
        predicate: Callable[[Reply], bool] | None = None,
        *,
        timeout: float | None = None,
    ) -> Reply:
        """Wait until the interaction is complete (or ``predicate(reply)`` holds)."""
        check = predicate or (lambda r: r.complete)
        await self.wait_until(
            lambda: check(reply), timeout=timeout, what=f"the bot's response to {reply.name!r}"
        )
        return reply

    async def wait_for_commands(
        self, names: Iterable[str] | None = None, *, timeout: float | None = None
    ) -> None:
        wanted = set(names or ())

        def synced() -> bool:
            have = {c["name"] for c in self.global_commands.values()}
            for cmds in self.guild_commands.values():
                have |= {c["name"] for c in cmds.values()}
            return wanted <= have if wanted else bool(have)

        await self.wait_until(synced, timeout=timeout, what=f"commands {sorted(wanted)} synced")

    async def wait_until_connected(
        self, *, after: int = 0, timeout: float | None = None
    ) -> GatewaySession:
        """Wait for a gateway session (the ``after+1``-th IDENTIFY) with all guilds sent."""

        def ready() -> GatewaySession | None:
            s = self.latest_session
            if self.identify_count > after and s is not None and s.guilds_sent and s.connected:
                return s
            return None

        return await self.wait_until(ready, timeout=timeout, what="the bot to connect")

    # ------------------------------------------------------------------ gateway fan-out
    def _fire_guild_event(
        self,
        guild_id: str | None,
        event: str,
        data: dict[str, Any] | None,
        *,
        intent: int = INTENT_GUILDS,
    ) -> None:
        if self._changed is None:
            return  # not started: nothing is connected yet
        for session in list(self.sessions.values()):
            if session.invalid or not session.guilds_sent or not session.handles_guild(guild_id):
                continue
            if not session.intents & intent:
                continue
            payload = data
            if event == "GUILD_CREATE" and guild_id is not None:
                payload = self._guild_create_payload(self.guilds[guild_id], session)
            assert payload is not None
            session.enqueue(event, payload)

    def _guild_create_payload(self, guild: FakeGuild, session: GatewaySession) -> dict[str, Any]:
        return guild.payload(
            include_members=bool(session.intents & INTENT_GUILD_PRESENCES), bot_id=self.bot_user.id
        )

    def _message_event(self, event: str, message: Message) -> None:
        if message.ephemeral or self._changed is None:
            return
        guild_id = message.guild_id
        intent = INTENT_GUILD_MESSAGES if guild_id else INTENT_DIRECT_MESSAGES
        for session in list(self.sessions.values()):
            if (
                session.invalid
                or not session.handles_guild(guild_id)
                or not session.intents & intent
            ):
                continue
            data = self.message_payload(message, gateway=True)
            if (
                message.author is not self.bot_user
                and guild_id is not None
                and not session.intents & INTENT_MESSAGE_CONTENT
                and self.bot_user.id not in message.mentions
            ):
                data.update(content="", embeds=[], attachments=[], components=[])
            session.enqueue(event, data)

    def _interaction_session(self, guild_id: str | None) -> GatewaySession | None:
        live = [s for s in self.sessions.values() if s.connected and s.handles_guild(guild_id)]
        return max(live, key=lambda s: s.identified_at) if live else None

    async def drop_connection(self, *, code: int = 4000) -> None:
        """Close the live gateway socket(s) like a network blip; the client should RESUME."""
        for session in list(self.sessions.values()):
            if session.ws is not None and not session.ws.closed:
                await self._close_ws(session.ws, code, b"dropped by the double")

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT, as Discord does before moving a session."""
        for session in list(self.sessions.values()):
            if session.connected:
                await session.send({"op": OP_RECONNECT, "d": None})

    # ------------------------------------------------------------------ interactions
    def new_interaction(
        self,
        *,
        type: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        message: Message | None = None,
        name: str = "",
    ) -> Reply:
        """Build an INTERACTION_CREATE payload with Discord's documented shape."""
        iid = self.snowflakes.next()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(60)
        guild = channel.guild
        payload: dict[str, Any] = {
            "id": iid,
            "application_id": self.application_id,
            "type": type,
            "data": data,
            "token": token,
            "version": 1,
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": self.attachment_size_limit,
            "channel_id": channel.id,
        }
        chan = channel.payload()
        if guild is not None:
            member = guild.members.get(user.id)
            if member is None:
                raise LookupError(f"{user.name} is not a member of {guild.name}")
            user_perms = guild.permissions_in(user.id, channel)
            chan["permissions"] = str(user_perms)
            mdata = member.payload()
            mdata["permissions"] = str(user_perms)
            payload.update(
                guild_id=guild.id,
                guild={"id": guild.id, "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member=mdata,
                app_permissions=str(guild.permissions_in(self.bot_user.id, channel)),
                authorizing_integration_owners={"0": guild.id},
                context=0,
            )
        else:
            payload.update(
                user=user.payload(),
                app_permissions=str(
                    VIEW_CHANNEL
                    | SEND_MESSAGES
                    | EMBED_LINKS
                    | ATTACH_FILES
                    | READ_MESSAGE_HISTORY
                    | MENTION_EVERYONE
                ),
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        payload["channel"] = chan
        if message is not None:
            payload["message"] = self.message_payload(message)
        reply = Reply(
            id=iid,
            token=token,
            type=type,
            user=user,
            channel=channel,
            payload=payload,
            name=name,
            seq=next_seq(),
            source_message=message,
        )
        reply._waiter = self.wait_until
        return reply

    async def send_interaction(
        self, reply: Reply, *, expect_response: bool = True, timeout: float | None = None
    ) -> Reply:
        """Dispatch the interaction to the bot and wait until it has finished answering."""
        session = self._interaction_session(reply.channel.guild.id if reply.channel.guild else None)
        if session is None:
            raise BotError("no bot is connected to the double's gateway")
        before = asyncio.all_tasks()
        self.interactions[reply.id] = reply
        self._by_token[reply.token] = reply
        reply.dispatched_at = time.monotonic()
        await session.dispatch("INTERACTION_CREATE", reply.payload)
        await self._settle(reply, before, self.default_timeout if timeout is None else timeout)
        if expect_response and not reply.responded:
            why = (
                f"errors: {reply.errors}"
                if reply.errors
                else f"no callback within {self.interaction_deadline}s"
            )
            raise BotError(
                f"the bot did not answer {reply.user.name}'s {reply.name!r} ({why}); "
                "Discord would show 'This interaction failed'"
            )
        return reply

    def _handler_tasks(self, before: set[asyncio.Task[Any]]) -> list[asyncio.Task[Any]]:
        return [
            t
            for t in asyncio.all_tasks()
            if t not in before and not t.done() and t.get_name().startswith(HANDLER_TASK_PREFIXES)
        ]

    async def _settle(self, reply: Reply, before: set[asyncio.Task[Any]], timeout: float) -> None:
        """Wait until the bot is done with the interaction.

        In process (the bot runs on this event loop) that is: discord.py's handler tasks for
        it have finished, no request is in flight and nothing happened for ``quiet_period``.
        Otherwise: the interaction is complete (answered, and followed up if deferred).
        """
        start = time.monotonic()
        deadline = start + timeout
        seen_handler = False
        while True:
            now = time.monotonic()
            handlers = self._handler_tasks(before) if self.in_process_bot else []
            seen_handler = seen_handler or bool(handlers)
            idle = not handlers and self._inflight == 0
            quiet = now - self._last_activity >= self.quiet_period
            if idle and quiet:
                if reply.complete or (self.in_process_bot and seen_handler):
                    return
                if not reply.responded and now - reply.dispatched_at > self.interaction_deadline:
                    return  # Discord has given up on it
            if now >= deadline:
                return
            await self._wait_change(0.01)

    # ------------------------------------------------------------------ payload builders
    def message_payload(self, m: Message, *, gateway: bool = False) -> dict[str, Any]:
        guild = m.channel.guild
        data: dict[str, Any] = {
            "id": m.id,
            "channel_id": m.channel.id,
            "author": m.author.payload(),
            "content": m.content,
            "timestamp": m.timestamp,
            "edited_timestamp": m.edited_timestamp,
            "tts": m.tts,
            "mention_everyone": m.mention_everyone,
            "mentions": [self._mention_payload(uid, guild) for uid in m.mentions],
            "mention_roles": list(m.mention_roles),
            "attachments": [a.payload() for a in m.attachments],
            "embeds": copy.deepcopy(m.embeds),
            "pinned": m.pinned,
            "type": m.type,
            "flags": m.flags,
            "components": copy.deepcopy(m.components),
        }
        if m.reactions:
            data["reactions"] = [
                {
                    "count": m.reactions.count(e),
                    "count_details": {"burst": 0, "normal": 1},
                    "me": True,
                    "me_burst": False,
                    "burst_colors": [],
                    "emoji": {"id": None, "name": e},
                }
                for e in dict.fromkeys(m.reactions)
            ]
        if m.webhook_id:
            data["webhook_id"] = m.webhook_id
        if m.application_id:
            data["application_id"] = m.application_id
        if m.message_reference:
            data["message_reference"] = m.message_reference
            ref = self.messages.get(str(m.message_reference.get("message_id")))
            data["referenced_message"] = self.message_payload(ref) if ref else None
        if m.channel.is_thread:
            data["position"] = 0
        if m.interaction is not None:
            r = m.interaction
            meta: dict[str, Any] = {
                "id": r.id,
                "type": r.type,
                "user": r.user.payload(),
                "authorizing_integration_owners": r.payload.get(
                    "authorizing_integration_owners", {}
                ),
            }
            if r.type == APPLICATION_COMMAND:
                meta["name"] = r.name
                meta["command_type"] = 1
            if m.kind == "followup" and r.original is not None:
                meta["original_response_message_id"] = r.original.id
            if r.source_message is not None:
                meta["interacted_message_id"] = r.source_message.id
            data["interaction_metadata"] = meta
            if r.type == APPLICATION_COMMAND:
                data["interaction"] = {
                    "id": r.id,
                    "type": r.type,
                    "name": r.name,
                    "user": r.user.payload(),
                }
        if gateway and guild is not None:
            data["guild_id"] = guild.id
            member = guild.members.get(m.author.id)
            if member is not None and not m.webhook_id:
                data["member"] = member.payload(with_user=False)
        return data

    def _mention_payload(self, user_id: str, guild: FakeGuild | None) -> dict[str, Any]:
        user = self.users[user_id]
        data = user.payload()
        if guild is not None and user_id in guild.members:
            data["member"] = guild.members[user_id].payload(with_user=False)
        return data

    # ------------------------------------------------------------------ message mechanics
    def _compute_mentions(self, m: Message, guild: FakeGuild | None) -> None:
        content = m.content or ""
        ids = list(dict.fromkeys(USER_MENTION_RE.findall(content)))
        role_ids = list(dict.fromkeys(ROLE_MENTION_RE.findall(content)))
        allowed = m.allowed_mentions
        if allowed is None:
            parse = {"users", "roles", "everyone"}
            users_ok: list[str] = []
            roles_ok: list[str] = []
        else:
            parse = set(allowed.get("parse") or [])
            users_ok = [str(u) for u in allowed.get("users") or []]
            roles_ok = [str(r) for r in allowed.get("roles") or []]
        m.content_mentions = [i for i in ids if i in self.users]
        m.mentions = [i for i in m.content_mentions if "users" in parse or i in users_ok]
        roles = guild.roles if guild is not None else {}
        m.mention_roles = [
            r for r in role_ids if r in roles and ("roles" in parse or r in roles_ok)
        ]
        m.mention_everyone = bool(EVERYONE_RE.search(content)) and "everyone" in parse
        if (
            m.mention_everyone
            and guild is not None
            and m.author is self.bot_user
            and not guild.permissions_in(self.bot_user.id, m.channel) & MENTION_EVERYONE
        ):
            m.mention_everyone = False
        ref = m.message_reference
        if ref is not None:
            target = self.messages.get(str(ref.get("message_id")))
            wants = True if allowed is None else bool(allowed.get("replied_user", False))
            if target is not None and wants and target.author.id not in m.mentions:
                m.mentions.append(target.author.id)

    def _check_allowed_mentions(self, data: dict[str, Any]) -> None:
        allowed = data.get("allowed_mentions")
        if not allowed:
            return
        parse = set(allowed.get("parse") or [])
        for kind in ("users", "roles"):
            if kind in parse and allowed.get(kind):
                raise ApiError(
                    400,
                    form_error(
                        "allowed_mentions",
                        "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                        f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.',
                    ),
                )

    def _attachments_from(
        self,
        data: dict[str, Any],
        uploads: list[Upload],
        channel: FakeChannel,
        *,
        ephemeral: bool,
        keep: list[Attachment] | None = None,
    ) -> list[Attachment]:
        for up in uploads:
            if len(up.data) > self.attachment_size_limit:
                raise ApiError(413, error_body(40005, "Request entity too large"))
        out: list[Attachment] = []
        by_index: dict[str, dict[str, Any]] = {}
        keep_ids = {a.id: a for a in keep or []}
        for entry in data.get("attachments") or []:
            eid = str(entry.get("id"))
            if eid in keep_ids:
                out.append(keep_ids[eid])
            else:
                by_index[eid] = entry
        for index, up in enumerate(uploads):
            m = re.match(r"files\[(\d+)\]", up.field)
            key = m.group(1) if m else str(index)
            meta = by_index.get(key, {})
            att_id = self.snowflakes.next()
            filename = meta.get("filename") or up.filename
            att = Attachment(
                id=att_id,
                filename=filename,
                data=up.data,
                content_type=_guess_type(filename, up.content_type),
                description=meta.get("description"),
                url=f"{self.url}/attachments/{channel.id}/{att_id}/{filename}",
                ephemeral=ephemeral,
            )
            self._uploads[att_id] = att
            out.append(att)
        return out

    def _normalize_components(self, components: list[dict[str, Any]]) -> list[dict[str, Any]]:
        comps = copy.deepcopy(components or [])
        for counter, comp in enumerate(walk_components(comps), start=1):
            comp.setdefault("id", counter)
        return comps

    def _normalize_embeds(
        self, embeds: list[dict[str, Any]], attachments: list[Attachment]
    ) -> list[dict[str, Any]]:
        out = copy.deepcopy(embeds or [])
        files = {a.filename: a for a in attachments}
        for e in out:
            e.setdefault("type", "rich")
            e.setdefault("content_scan_version", 0)
            for key in ("image", "thumbnail"):
                media = e.get(key)
                if isinstance(media, dict) and str(media.get("url", "")).startswith(
                    "attachment://"
                ):
                    att = files.get(media["url"][len("attachment://") :])
                    if att is not None:
                        media["url"] = media["proxy_url"] = att.url
                        dims = att.dimensions()
                        if dims:
                            media["width"], media["height"] = dims
        return out

    def create_message(
        self,
        channel: FakeChannel,
        data: dict[str, Any],
        uploads: list[Upload],
        *,
        author: FakeUser | None = None,
        kind: str = "channel",
        interaction: Reply | None = None,
        loading: bool = False,
    ) -> Message:
        """Validate and store a new message; dispatches MESSAGE_CREATE unless ephemeral."""
        author = author or self.bot_user
        if not loading:
            body = check_message(data, n_files=len(uploads))
            if body is not None:
                raise ApiError(400, body)
        self._check_allowed_mentions(data)
        flags = int(data.get("flags") or 0)
        allowed_flags = FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_IS_COMPONENTS_V2
        if interaction is not None:
            allowed_flags |= FLAG_EPHEMERAL
        flags &= allowed_flags
        if loading:
            flags |= FLAG_LOADING
        ephemeral = bool(flags & FLAG_EPHEMERAL)
        attachments = self._attachments_from(data, uploads, channel, ephemeral=ephemeral)
        mtype = 0
        if interaction is not None and interaction.type in (
            APPLICATION_COMMAND,
            APPLICATION_COMMAND_AUTOCOMPLETE,
        ):
            mtype = 20
        elif data.get("message_reference"):
            mtype = 19
        msg = Message(
            id=self.snowflakes.next(),
            channel=channel,
            author=author,
            content=data.get("content") or "",
            embeds=self._normalize_embeds(data.get("embeds") or [], attachments),
            components=self._normalize_components(data.get("components") or []),
            attachments=attachments,
            flags=flags,
            tts=bool(data.get("tts")),
            allowed_mentions=copy.deepcopy(data.get("allowed_mentions")),
            message_reference=self._message_reference(channel, data.get("message_reference")),
            type=mtype,
            webhook_id=self.application_id if interaction is not None else None,
            application_id=self.application_id if interaction is not None else None,
            interaction=interaction,
            kind=kind,
            visible_to=interaction.user.id if interaction is not None and ephemeral else None,
            seq=next_seq(),
            payloads=[copy.deepcopy(data)],
        )
        self._compute_mentions(msg, channel.guild)
        notify = not (ephemeral or loading or flags & FLAG_SUPPRESS_NOTIFICATIONS)
        msg.pings = list(msg.mentions) if notify else []
        self.messages[msg.id] = msg
        if not ephemeral:
            channel.last_message_id = msg.id
        self._message_event("MESSAGE_CREATE", msg)
        self._bump()
        return msg

    def _message_reference(
        self, channel: FakeChannel, ref: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        if not ref:
            return None
        mid = str(ref.get("message_id"))
        target = self.messages.get(mid)
        if target is None or target.deleted:
            if ref.get("fail_if_not_exists", True):
                raise ApiError(
                    400,
                    form_error("message_reference", "REPLIES_UNKNOWN_MESSAGE", "Unknown message"),
                )
            return None
        out = {"type": 0, "message_id": mid, "channel_id": target.channel.id}
        if target.guild_id:
            out["guild_id"] = target.guild_id
        return out

    def edit_message(
        self,
        msg: Message,
        data: dict[str, Any],
        uploads: list[Upload],
        *,
        resolve_loading: bool = False,
    ) -> Message:
        """Apply a PATCH body; dispatches MESSAGE_UPDATE unless ephemeral."""
        if msg.deleted:
            raise ApiError(404, error_body(10008, "Unknown Message"))
        self._check_allowed_mentions(data)
        new_content = data.get("content", msg.content)
        if "attachments" in data:
            attachments = self._attachments_from(
                data, uploads, msg.channel, ephemeral=msg.ephemeral, keep=msg.attachments
            )
        else:
            attachments = msg.attachments + self._attachments_from(
                data, uploads, msg.channel, ephemeral=msg.ephemeral
            )
        embeds = data.get("embeds", msg.embeds)
        components = data.get("components", msg.components)
        flags = msg.flags
        if "flags" in data and data["flags"] is not None:
            changeable = FLAG_SUPPRESS_EMBEDS | FLAG_IS_COMPONENTS_V2
            flags = (flags & ~changeable) | (int(data["flags"]) & changeable)
        merged = {
            "content": new_content,
            "embeds": embeds or [],
            "components": components or [],
            "flags": flags,
        }
        body = check_message(merged, n_files=len(attachments))
        if body is not None:
            raise ApiError(400, body)
        if not msg.loading:
            msg.history.append(msg.snapshot())
            before = copy.copy(msg)
            before.earlier, before.edit_seqs = [], []
            msg.earlier.append(before)
            msg.edit_seqs.append(next_seq())
        was_loading = msg.loading
        msg.content = new_content or ""
        msg.attachments = attachments
        msg.embeds = self._normalize_embeds(embeds or [], attachments)
        msg.components = self._normalize_components(components or [])
        msg.flags = flags & ~FLAG_LOADING if (resolve_loading or was_loading) else flags
        if "allowed_mentions" in data:
            msg.allowed_mentions = copy.deepcopy(data["allowed_mentions"])
        self._compute_mentions(msg, msg.channel.guild)
        msg.payloads.append(copy.deepcopy(data))
        if not was_loading:
            msg.edited_timestamp = iso_now()
        self._message_event("MESSAGE_UPDATE", msg)
        self._bump()
        return msg

    def delete_message(self, msg: Message) -> None:
        msg.deleted = True
        if not msg.ephemeral and self._changed is not None:
            data: dict[str, Any] = {"id": msg.id, "channel_id": msg.channel.id}
            if msg.guild_id:
                data["guild_id"] = msg.guild_id
            intent = INTENT_GUILD_MESSAGES if msg.guild_id else INTENT_DIRECT_MESSAGES
            for session in list(self.sessions.values()):
                if not session.invalid and session.intents & intent:
                    session.enqueue("MESSAGE_DELETE", data)
        self._bump()

    def user_message(
        self, channel: FakeChannel, user: FakeUser, content: str, *, reply_to: Message | None = None
    ) -> Message:
        """A scripted user posts in a channel (dispatched as MESSAGE_CREATE)."""
        data: dict[str, Any] = {"content": content}
        if reply_to is not None:
            data["message_reference"] = {"message_id": reply_to.id}
        msg = Message(
            id=self.snowflakes.next(),
            channel=channel,
            author=user,
            content=content,
            seq=next_seq(),
            payloads=[data],
            message_reference=self._message_reference(channel, data.get("message_reference")),
            type=19 if reply_to is not None else 0,
        )
        self._compute_mentions(msg, channel.guild)
        msg.pings = list(msg.mentions)
        self.messages[msg.id] = msg
        channel.last_message_id = msg.id
        self._message_event("MESSAGE_CREATE", msg)
        self._bump()
        return msg

    # ------------------------------------------------------------------ HTTP plumbing
    def _response(
        self, status: int, body: Any = None, headers: dict[str, str] | None = None
    ) -> web.Response:
        hdrs = dict(headers or {})
        if status == 204 or body is None:
            return web.Response(status=204 if body is None else status, headers=hdrs)
        # exactly "application/json": discord.py compares the header with ==
        hdrs["Content-Type"] = "application/json"
        return web.Response(status=status, body=json.dumps(body).encode(), headers=hdrs)

    def _ratelimit(self, request: web.Request, route: str) -> tuple[dict[str, str], bool]:
        mi = request.match_info
        major = "+".join(
            mi[k]
            for k in ("channel_id", "guild_id", "webhook_id", "token", "interaction_id")
            if k in mi
        )
        bucket = hashlib.sha1(f"{request.method} {route}".encode()).hexdigest()[:16]
        now = time.time()
        window = self._buckets.get((bucket, major))
        if window is None or now >= window[0]:
            window = [now + self.rate_limit_window, 0.0]
            self._buckets[(bucket, major)] = window
        window[1] += 1
        remaining = max(0, self.rate_limit - int(window[1]))
        reset_after = max(window[0] - now, 0.0)
        headers = {
            "X-RateLimit-Limit": str(self.rate_limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{window[0]:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket,
        }
        return headers, window[1] > self.rate_limit

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if not request.path.startswith("/api/"):
            return await handler(request)
        resource = request.match_info.route.resource
        route = resource.canonical if resource is not None else request.path
        record = RequestRecord(
            method=request.method,
            path=request.path,
            route=route,
            query=dict(request.query),
            peer=_peer(request),
        )
        self.requests.append(record)
        request[RECORD] = record
        self._inflight += 1
        self._bump()
        headers, limited = self._ratelimit(request, route)
        try:
            if resource is None or request.match_info.http_exception is not None:
                self.unknown_routes.append(record)
                raise ApiError(
                    404 if resource is None else 405,
                    {
                        "message": "404: Not Found"
                        if resource is None
                        else "405: Method Not Allowed",
                        "code": 0,
                    },
                )
            needs_auth = not route.startswith(
                ("/api/v{version}/interactions", "/api/v{version}/webhooks")
            )
            if needs_auth and request.headers.get("Authorization") != f"Bot {self.token}":
                raise ApiError(401, {"message": "401: Unauthorized", "code": 0})
            if limited:
                retry = float(headers["X-RateLimit-Reset-After"])
                raise ApiError(
                    429,
                    {
                        "message": "You are being rate limited.",
                        "retry_after": retry,
                        "global": False,
                    },
                    {
                        "Retry-After": str(max(1, round(retry))),
                        "X-RateLimit-Scope": "user",
                        "Via": "1.1 google",
                    },
                )
            record.json, record.uploads = await self._read_body(request)
            if self.before_request is not None and await self.before_request(record):
                # dropped: as if it never reached Discord (the bot was killed mid-send)
                raise ApiError(503, {"message": "dropped by the test", "code": 0})
            status, body = await handler(request)  # type: ignore[misc]
        except ApiError as e:
            status, body = e.status, e.body
            headers.update(e.headers)
            self.rejections.append(record)
            log.info("rejected %s %s: %s %s", request.method, request.path, status, body)
        except Exception as exc:  # a bug in the double: fail fast (a 500 makes discord.py retry)
            log.exception("discord double crashed on %s %s", request.method, request.path)
            self.internal_errors.append(exc)
            status, body = 400, {"message": f"discord double internal error: {exc!r}", "code": 0}
            self.rejections.append(record)
        finally:
            self._inflight -= 1
            self._bump()
        record.status, record.response, record.response_headers = status, body, headers
        if self.after_request is not None and request.path.startswith("/api/"):
            await self.after_request(record)
        return self._response(status, body, headers)

    async def _read_body(self, request: web.Request) -> tuple[Any, list[Upload]]:
        if request.method in ("GET", "DELETE") and not request.can_read_body:
            return None, []
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            payload: Any = {}
            uploads: list[Upload] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if part.name == "payload_json":  # type: ignore[union-attr]
                    payload = json.loads(await part.text())  # type: ignore[union-attr]
                else:
                    data = await part.read()  # type: ignore[union-attr]
                    uploads.append(
                        Upload(
                            field=part.name or "",  # type: ignore[union-attr]
                            filename=part.filename or "file",  # type: ignore[union-attr]
                            data=bytes(data),
                            content_type=part.headers.get("Content-Type"),
                        )
                    )  # type: ignore[union-attr]
            return payload, uploads
        raw = await request.read()
        if not raw:
            return None, []
        try:
            return json.loads(raw), []
        except ValueError as err:
            raise ApiError(
                400, error_body(50109, "The request body contains invalid JSON.")
            ) from err

    def _add_routes(self, app: web.Application) -> None:
        api = "/api/v{version:\\d+}"
        r = app.router
        r.add_get("/gateway", self._gateway_ws)
        r.add_get("/attachments/{channel_id}/{att_id}/{filename}", self._serve_attachment)
        routes: list[tuple[str, str, Callable[[web.Request], Awaitable[Any]]]] = [
            ("GET", "/users/@me", self._get_me),
            ("GET", "/users/{user_id:\\d+}", self._get_user),
            ("POST", "/users/@me/channels", self._create_dm),
            ("GET", "/oauth2/applications/@me", self._get_application),
            ("GET", "/applications/@me", self._get_application),
            ("GET", "/gateway", self._get_gateway),
            ("GET", "/gateway/bot", self._get_gateway_bot),
            ("GET", "/applications/{app_id}/commands", self._list_commands),
            ("PUT", "/applications/{app_id}/commands", self._bulk_commands),
            ("POST", "/applications/{app_id}/commands", self._upsert_command),
            ("GET", "/applications/{app_id}/commands/{command_id}", self._get_command),
            ("PATCH", "/applications/{app_id}/commands/{command_id}", self._edit_command),
            ("DELETE", "/applications/{app_id}/commands/{command_id}", self._delete_command),
            ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self._list_commands),
            ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self._bulk_commands),
            ("POST", "/applications/{app_id}/guilds/{guild_id}/commands", self._upsert_command),
            (
                "GET",
                "/applications/{app_id}/guilds/{guild_id}/commands/permissions",
                self._command_permissions,
            ),
            (
                "GET",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self._get_command,
            ),
            (
                "PATCH",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self._edit_command,
            ),
            (
                "DELETE",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self._delete_command,
            ),
            ("GET", "/applications/{app_id}/entitlements", self._empty_list),
            ("GET", "/applications/{app_id}/emojis", self._list_app_emojis),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._interaction_callback),
            (
                "GET",
                "/webhooks/{webhook_id}/{token}/messages/{message_id}",
                self._get_webhook_message,
            ),
            (
                "PATCH",
                "/webhooks/{webhook_id}/{token}/messages/{message_id}",
                self._edit_webhook_message,
            ),
            (
                "DELETE",
                "/webhooks/{webhook_id}/{token}/messages/{message_id}",
                self._delete_webhook_message,
            ),
            ("POST", "/webhooks/{webhook_id}/{token}", self._followup),
            ("GET", "/channels/{channel_id}", self._get_channel),
            ("GET", "/channels/{channel_id}/messages", self._list_messages),
            ("POST", "/channels/{channel_id}/messages", self._post_message),
            ("GET", "/channels/{channel_id}/messages/{message_id:\\d+}", self._get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id:\\d+}", self._patch_message),
            (
                "DELETE",
                "/channels/{channel_id}/messages/{message_id:\\d+}",
                self._delete_channel_message,
            ),
            ("POST", "/channels/{channel_id}/typing", self._no_content),
            (
                "PUT",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self._add_reaction,
            ),
            (
                "DELETE",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self._no_content,
            ),
            ("PUT", "/channels/{channel_id}/pins/{message_id}", self._pin),
            ("PUT", "/channels/{channel_id}/messages/pins/{message_id}", self._pin),
            ("DELETE", "/channels/{channel_id}/pins/{message_id}", self._unpin),
            ("DELETE", "/channels/{channel_id}/messages/pins/{message_id}", self._unpin),
            ("POST", "/channels/{channel_id}/threads", self._create_thread),
            ("POST", "/channels/{channel_id}/messages/{message_id}/threads", self._create_thread),
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self._no_content),
            ("DELETE", "/channels/{channel_id}/thread-members/{user_id}", self._no_content),
            ("GET", "/guilds/{guild_id}", self._get_guild),
            ("GET", "/guilds/{guild_id}/channels", self._get_guild_channels),
            ("GET", "/guilds/{guild_id}/roles", self._get_guild_roles),
            ("GET", "/guilds/{guild_id}/members", self._list_members),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member),
            ("GET", "/guilds/{guild_id}/threads/active", self._active_threads),
        ]
        for method, path, handler in routes:
            r.add_route(method, api + path, handler)
        r.add_route("*", api + "/{tail:.*}", self._unknown)

    # ------------------------------------------------------------------ REST: lookups
    def _channel(self, request: web.Request) -> FakeChannel:
        channel = self.channels.get(request.match_info["channel_id"])
        if channel is None:
            raise ApiError(404, error_body(10003, "Unknown Channel"))
        if channel.guild is not None and not self._bot_can(channel, VIEW_CHANNEL):
            raise ApiError(403, error_body(50001, "Missing Access"))
        return channel

    def _guild(self, request: web.Request) -> FakeGuild:
        guild = self.guilds.get(request.match_info["guild_id"])
        if guild is None:
            raise ApiError(404, error_body(10004, "Unknown Guild"))
        return guild

    def _bot_can(self, channel: FakeChannel, perm: int) -> bool:
        if channel.guild is None:
            return True
        perms = channel.guild.permissions_in(self.bot_user.id, channel)
        return bool(perms & ADMINISTRATOR) or perms & perm == perm

    def _app(self, request: web.Request) -> None:
        if request.match_info.get("app_id", self.application_id) != self.application_id:
            raise ApiError(
                403,
                error_body(
                    20012, "You are not authorized to perform this action on this application"
                ),
            )

    async def _unknown(self, request: web.Request) -> tuple[int, Any]:
        self.unknown_routes.append(request[RECORD])
        raise ApiError(404, {"message": "404: Not Found", "code": 0})

    async def _no_content(self, request: web.Request) -> tuple[int, Any]:
        self._channel(request)
        return 204, None

    async def _empty_list(self, request: web.Request) -> tuple[int, Any]:
        return 200, []

    async def _list_app_emojis(self, request: web.Request) -> tuple[int, Any]:
        return 200, {"items": []}

    async def _serve_attachment(self, request: web.Request) -> web.StreamResponse:
        att = self._uploads.get(request.match_info["att_id"])
        if att is None:
            return web.Response(status=404)
        return web.Response(
            body=att.data, headers={"Content-Type": att.content_type or "application/octet-stream"}
        )

    # ------------------------------------------------------------------ REST: identity
    def _me_payload(self) -> dict[str, Any]:
        data = self.bot_user.payload()
        data.update(
            verified=True,
            mfa_enabled=False,
            locale="en-US",
            email=None,
            flags=0,
            premium_type=0,
            bio="",
        )
        return data

    async def _get_me(self, request: web.Request) -> tuple[int, Any]:
        return 200, self._me_payload()

    async def _get_user(self, request: web.Request) -> tuple[int, Any]:
        user = self.users.get(request.match_info["user_id"])
        if user is None:
            raise ApiError(404, error_body(10013, "Unknown User"))
        return 200, user.payload()

    def application_payload(self) -> dict[str, Any]:
        return {
            "id": self.application_id,
            "name": self.bot_user.name,
            "icon": None,
            "description": "A board game host (Discord double).",
            "summary": "",
            "type": None,
            "hook": True,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": self.verify_key,
            "owner": self.owner.payload(),
            "team": None,
            "flags": self._application_flags(),
            "bot": self._me_payload(),
            "rpc_origins": [],
            "terms_of_service_url": None,
            "privacy_policy_url": None,
            "interactions_endpoint_url": None,
            "role_connections_verification_url": None,
            "event_webhooks_url": None,
            "event_webhooks_status": 1,
            "tags": [],
            "install_params": None,
            "custom_install_url": None,
            "integration_types_config": {"0": {}},
            "approximate_guild_count": len(self.guilds),
            "approximate_user_install_count": 0,
            "redirect_uris": [],
            "is_monetized": False,
            "is_verified": False,
            "is_discoverable": False,
            "storefront_available": False,
        }

    def _application_flags(self) -> int:
        flags = 1 << 23  # APPLICATION_COMMAND_BADGE
        if self.allowed_intents & INTENT_GUILD_PRESENCES:
            flags |= 1 << 13
        if self.allowed_intents & INTENT_GUILD_MEMBERS:
            flags |= 1 << 15
        if self.allowed_intents & INTENT_MESSAGE_CONTENT:
            flags |= 1 << 19
        return flags

    async def _get_application(self, request: web.Request) -> tuple[int, Any]:
        return 200, self.application_payload()

    async def _get_gateway(self, request: web.Request) -> tuple[int, Any]:
        return 200, {"url": self.gateway_url}

    async def _get_gateway_bot(self, request: web.Request) -> tuple[int, Any]:
        return 200, {
            "url": self.gateway_url,
            "shards": 1,
            "session_start_limit": {
                "total": 1000,
                "remaining": 1000 - self.identify_count,
                "reset_after": 86400000,
                "max_concurrency": 1,
            },
        }

    async def _create_dm(self, request: web.Request) -> tuple[int, Any]:
        body = request[RECORD].json or {}
        uid = str(body.get("recipient_id", ""))
        if uid not in self.users:
            raise ApiError(
                400, form_error("recipient_id", "NUMBER_TYPE_COERCE", "Value is not snowflake.")
            )
        return 200, self.dm_channel(self.users[uid]).payload()

    # ------------------------------------------------------------------ REST: commands
    def _command_store(self, request: web.Request) -> tuple[dict[str, dict[str, Any]], str | None]:
        self._app(request)
        gid = request.match_info.get("guild_id")
        if gid is None:
            return self.global_commands, None
        if gid not in self.guilds:
            raise ApiError(404, error_body(10004, "Unknown Guild"))
        return self.guild_commands.setdefault(gid, {}), gid

    def _normalize_command(
        self, cmd: dict[str, Any], guild_id: str | None, existing: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        ctype = cmd.get("type", 1)
        old = next(
            (
                c
                for c in existing.values()
                if c["name"] == cmd.get("name") and c.get("type", 1) == ctype
            ),
            None,
        )
        out = copy.deepcopy(cmd)
        out.update(
            id=old["id"] if old else self.snowflakes.next(),
            application_id=self.application_id,
            version=self.snowflakes.next(),
            type=ctype,
            default_member_permissions=cmd.get("default_member_permissions"),
            nsfw=bool(cmd.get("nsfw", False)),
            description=cmd.get("description", "") if ctype == 1 else "",
            name_localizations=cmd.get("name_localizations"),
            description_localizations=cmd.get("description_localizations"),
        )
        if guild_id is not None:
            out["guild_id"] = guild_id
            out.pop("contexts", None)
            out.pop("integration_types", None)
        else:
            out.setdefault("contexts", None)
            out["integration_types"] = cmd.get("integration_types") or [0]
            out.setdefault("dm_permission", True)
        if ctype == 1:
            out["options"] = cmd.get("options") or []
        return out

    async def _list_commands(self, request: web.Request) -> tuple[int, Any]:
        store, _ = self._command_store(request)
        return 200, list(store.values())

    async def _bulk_commands(self, request: web.Request) -> tuple[int, Any]:
        store, gid = self._command_store(request)
        body = request[RECORD].json
        if not isinstance(body, list):
            raise ApiError(400, form_error("", "BASE_TYPE_ARRAY", "Must be an array."))
        errors: dict[str, Any] = {}
        for i, cmd in enumerate(body):
            errors.update(check_command(cmd, (i,)).errors)
        if len([c for c in body if c.get("type", 1) == 1]) > 100:
            errors.setdefault("_errors", []).append(
                {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 100 or fewer in length."}
            )
        names = [(c.get("name"), c.get("type", 1)) for c in body]
        if len(set(names)) != len(names):
            errors.setdefault("_errors", []).append(
                {
                    "code": "APPLICATION_COMMANDS_DUPLICATE_NAME",
                    "message": "Application command names must be unique",
                }
            )
        if errors:
            raise ApiError(400, {"message": "Invalid Form Body", "code": 50035, "errors": errors})
        new = [self._normalize_command(c, gid, store) for c in body]
        store.clear()
        store.update({c["id"]: c for c in new})
        self.command_syncs.append((gid, copy.deepcopy(new)))
        return 200, new

    async def _upsert_command(self, request: web.Request) -> tuple[int, Any]:
        store, gid = self._command_store(request)
        body = request[RECORD].json or {}
        problems = check_command(body, ())
        if problems.body():
            raise ApiError(400, problems.body())  # type: ignore[arg-type]
        cmd = self._normalize_command(body, gid, store)
        created = cmd["id"] not in store
        store[cmd["id"]] = cmd
        return (201 if created else 200), cmd

    def _find_command(
        self, request: web.Request
    ) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        store, _ = self._command_store(request)
        cmd = store.get(request.match_info["command_id"])
        if cmd is None:
            raise ApiError(404, error_body(10063, "Unknown application command"))
        return store, cmd

    async def _get_command(self, request: web.Request) -> tuple[int, Any]:
        return 200, self._find_command(request)[1]

    async def _edit_command(self, request: web.Request) -> tuple[int, Any]:
        _, cmd = self._find_command(request)
        cmd.update(request[RECORD].json or {})
        cmd["version"] = self.snowflakes.next()
        return 200, cmd

    async def _delete_command(self, request: web.Request) -> tuple[int, Any]:
        store, cmd = self._find_command(request)
        del store[cmd["id"]]
        return 204, None

    async def _command_permissions(self, request: web.Request) -> tuple[int, Any]:
        self._command_store(request)
        return 200, []

    # ------------------------------------------------------------------ REST: interactions
    def _reply_for_token(self, request: web.Request) -> Reply:
        if request.match_info["webhook_id"] != self.application_id:
            raise ApiError(404, error_body(10015, "Unknown Webhook"))
        reply = self._by_token.get(request.match_info["token"])
        if reply is None:
            raise ApiError(401, error_body(50027, "Invalid Webhook Token"))
        return reply

    def _reject_for(self, reply: Reply, err: ApiError) -> ApiError:
        reply.errors.append({"status": err.status, **err.body})
        return err

    async def _interaction_callback(self, request: web.Request) -> tuple[int, Any]:
        reply = self.interactions.get(request.match_info["interaction_id"])
        if reply is None or reply.token != request.match_info["token"]:
            raise ApiError(404, error_body(10062, "Unknown interaction"))
        record = request[RECORD]
        body = record.json or {}
        try:
            return self._apply_callback(reply, body, record.uploads, request)
        except ApiError as err:
            raise self._reject_for(reply, err) from None

    def _apply_callback(
        self, reply: Reply, body: dict[str, Any], uploads: list[Upload], request: web.Request
    ) -> tuple[int, Any]:
        if reply.callbacks:
            raise ApiError(400, error_body(40060, "Interaction has already been acknowledged."))
        if time.monotonic() - reply.dispatched_at > self.interaction_deadline:
            raise ApiError(404, error_body(10062, "Unknown interaction"))
        ctype = body.get("type")
        if ctype not in CALLBACKS_ALLOWED.get(reply.type, set()):
            raise ApiError(
                400,
                form_error(
                    "type",
                    "INTERACTION_CALLBACK_TYPE_INVALID",
                    f"Callback type {ctype} is not valid here.",
                ),
            )
        data = body.get("data") or {}
        message: Message | None = None
        if ctype == CB_CHANNEL_MESSAGE:
            message = self.create_message(
                reply.channel, data, uploads, kind="response", interaction=reply
            )
            reply.original = message
        elif ctype == CB_DEFERRED_CHANNEL_MESSAGE:
            flags = int(data.get("flags") or 0) & FLAG_EPHEMERAL
            message = self.create_message(
                reply.channel,
                {"flags": flags},
                [],
                kind="response",
                interaction=reply,
                loading=True,
            )
            reply.original = message
        elif ctype in (CB_DEFERRED_UPDATE_MESSAGE, CB_UPDATE_MESSAGE):
            source = reply.source_message
            if source is None:
                raise ApiError(400, error_body(50035, "This interaction has no message to update."))
            if ctype == CB_UPDATE_MESSAGE:
                self.edit_message(source, data, uploads)
            message = source
            reply.original = source
            reply.resolved = ctype == CB_UPDATE_MESSAGE
        elif ctype == CB_AUTOCOMPLETE_RESULT:
            err = check_choices(data.get("choices"))
            if err is not None:
                raise ApiError(400, err)
            reply.choices = [Choice(c["name"], c["value"]) for c in data["choices"]]
        elif ctype == CB_MODAL:
            err = check_modal(data)
            if err is not None:
                raise ApiError(400, err)
            reply.modal = copy.deepcopy(data)
        entry = copy.deepcopy(body)
        if uploads:
            entry["files"] = [u.filename for u in uploads]
        reply.callbacks.append(entry)
        self._bump()
        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return 204, None
        inter: dict[str, Any] = {"id": reply.id, "type": reply.type}
        result: dict[str, Any] = {"interaction": inter}
        if message is not None:
            inter.update(
                response_message_id=message.id,
                response_message_loading=message.loading,
                response_message_ephemeral=message.ephemeral,
            )
            result["resource"] = {"type": ctype, "message": self.message_payload(message)}
        elif ctype != CB_AUTOCOMPLETE_RESULT:
            result["resource"] = {"type": ctype}
        return 200, result

    def _webhook_message(self, reply: Reply, message_id: str) -> Message:
        if message_id == "@original":
            if reply.original is None or reply.original.deleted:
                raise ApiError(404, error_body(10008, "Unknown Message"))
            return reply.original
        for m in reply.messages:
            if m.id == message_id and not m.deleted:
                return m
        raise ApiError(404, error_body(10008, "Unknown Message"))

    async def _get_webhook_message(self, request: web.Request) -> tuple[int, Any]:
        reply = self._reply_for_token(request)
        try:
            return 200, self.message_payload(
                self._webhook_message(reply, request.match_info["message_id"])
            )
        except ApiError as err:
            raise self._reject_for(reply, err) from None

    async def _edit_webhook_message(self, request: web.Request) -> tuple[int, Any]:
        reply = self._reply_for_token(request)
        record = request[RECORD]
        try:
            msg = self._webhook_message(reply, request.match_info["message_id"])
            self.edit_message(msg, record.json or {}, record.uploads, resolve_loading=True)
        except ApiError as err:
            raise self._reject_for(reply, err) from None
        if msg is reply.original:
            reply.resolved = True
        self._bump()
        return 200, self.message_payload(msg)

    async def _delete_webhook_message(self, request: web.Request) -> tuple[int, Any]:
        reply = self._reply_for_token(request)
        try:
            msg = self._webhook_message(reply, request.match_info["message_id"])
        except ApiError as err:
            raise self._reject_for(reply, err) from None
        self.delete_message(msg)
        if msg is reply.original:
            reply.resolved = True
        return 204, None

    async def _followup(self, request: web.Request) -> tuple[int, Any]:
        reply = self._reply_for_token(request)
        record = request[RECORD]
        data = record.json or {}
        try:
            if not reply.callbacks:
                raise ApiError(404, error_body(10015, "Unknown Webhook"))
            original = reply.original
            if (
                reply.response_type == CB_DEFERRED_CHANNEL_MESSAGE
                and original is not None
                and original.loading
                and not original.deleted
            ):
                # Discord: the first follow-up after a deferral replaces the "thinking" message,
                # keeping the deferral's ephemeral state (and, being an edit, pings nobody).
                data = {k: v for k, v in data.items() if k != "flags"} | {
                    "flags": int(data.get("flags") or 0) & FLAG_SUPPRESS_EMBEDS
                }
                msg = self.edit_message(original, data, record.uploads, resolve_loading=True)
                reply.resolved = True
            else:
                msg = self.create_message(
                    reply.channel, data, record.uploads, kind="followup", interaction=reply
                )
                reply.followups.append(msg)
        except ApiError as err:
            raise self._reject_for(reply, err) from None
        self._bump()
        if request.query.get("wait", "").lower() in ("1", "true"):
            return 200, self.message_payload(msg)
        return 204, None

    # ------------------------------------------------------------------ REST: channels
    async def _get_channel(self, request: web.Request) -> tuple[int, Any]:
        return 200, self._channel(request).payload()

    def _visible_channel_message(self, channel: FakeChannel, message_id: str) -> Message:
        msg = self.messages.get(message_id)
        if msg is None or msg.channel is not channel or msg.deleted or msg.ephemeral:
            raise ApiError(404, error_body(10008, "Unknown Message"))
        return msg

    async def _list_messages(self, request: web.Request) -> tuple[int, Any]:
        channel = self._channel(request)
        if not self._bot_can(channel, READ_MESSAGE_HISTORY):
            return 200, []
        q = request.query
        limit = min(max(int(q.get("limit", 50)), 1), 100)
        msgs = self.channel_messages(channel)
        if "before" in q:
            msgs = [m for m in msgs if int(m.id) < int(q["before"])]
            msgs = msgs[-limit:]
        elif "after" in q:
            msgs = [m for m in msgs if int(m.id) > int(q["after"])][:limit]
        elif "around" in q:
            ids = [m.id for m in msgs]
            idx = ids.index(q["around"]) if q["around"] in ids else len(msgs)
            half = limit // 2
            msgs = msgs[max(0, idx - half) : idx + half + 1][:limit]
        else:
            msgs = msgs[-limit:]
        return 200, [self.message_payload(m) for m in reversed(msgs)]

    async def _get_message(self, request: web.Request) -> tuple[int, Any]:
        channel = self._channel(request)
        if not self._bot_can(channel, READ_MESSAGE_HISTORY):
            raise ApiError(403, error_body(50013, "Missing Permissions"))
        return 200, self.message_payload(
            self._visible_channel_message(channel, request.match_info["message_id"])
        )

    async def _post_message(self, request: web.Request) -> tuple[int, Any]:
        channel = self._channel(request)
        record = request[RECORD]
        data = record.json or {}
        needed = SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES
        if record.uploads:
            needed |= ATTACH_FILES
        if not self._bot_can(channel, VIEW_CHANNEL | needed):
            raise ApiError(403, error_body(50013, "Missing Permissions"))
        if channel.is_thread and channel.archived:
            raise ApiError(400, error_body(50083, "Thread is archived"))
        if not self._bot_can(channel, EMBED_LINKS) and data.get("embeds"):
            data = dict(data, embeds=[])  # Discord drops embeds it may not show
        nonce = data.get("nonce")
        key = (self.bot_user.id, str(nonce))
        if nonce is not None and data.get("enforce_nonce"):
            # Discord: the same author and nonce within a few minutes gets the message
            # already created, not a second one.
            seen = self._nonces.get(key)
            if seen is not None and time.monotonic() - seen[0] < NONCE_WINDOW:
                return 200, self.message_payload(seen[1])
        msg = self.create_message(channel, data, record.uploads)
        if nonce is not None and data.get("enforce_nonce"):
            self._nonces[key] = (time.monotonic(), msg)
        return 200, self.message_payload(msg)

    async def _patch_message(self, request: web.Request) -> tuple[int, Any]:
        channel = self._channel(request)
        msg = self._visible_channel_message(channel, request.match_info["message_id"])
        record = request[RECORD]
        data = record.json or {}
        if msg.author is not self.bot_user and set(data) - {"flags"}:
            raise ApiError(403, error_body(50005, "Cannot edit a message authored by another user"))
        self.edit_message(msg, data, record.uploads)
        return 200, self.message_payload(msg)

    async def _delete_channel_message(self, request: web.Request) -> tuple[int, Any]:
        channel = self._channel(request)
        msg = self._visible_channel_message(channel, request.match_info["message_id"])
        if msg.author is not self.bot_user and not self._bot_can(channel, MANAGE_MESSAGES):
            raise ApiError(403, error_body(50013, "Missing Permissions"))
        self.delete_message(msg)
        return 204, None

    async def _add_reaction(self, request: web.Request) -> tuple[int, Any]:
        channel = self._channel(request)
        msg = self._visible_channel_message(channel, request.match_info["message_id"])
        msg.reactions.append(request.match_info["emoji"])
        self._bump()
        return 204, None

    async def _pin(self, request: web.Request) -> tuple[int, Any]:
        channel = self._channel(request)
        self._visible_channel_message(channel, request.match_info["message_id"]).pinned = True
        return 204, None

    async def _unpin(self, request: web.Request) -> tuple[int, Any]:
        channel = self._channel(request)
        self._visible_channel_message(channel, request.match_info["message_id"]).pinned = False
        return 204, None

    async def _create_thread(self, request: web.Request) -> tuple[int, Any]:
        channel = self._channel(request)
        body = request[RECORD].json or {}
        mid = request.match_info.get("message_id")
        if mid is not None:
            self._visible_channel_message(channel, mid)
        private = mid is None and body.get("type", PRIVATE_THREAD) == PRIVATE_THREAD
        needed = CREATE_PRIVATE_THREADS if private else CREATE_PUBLIC_THREADS
        if not self._bot_can(channel, needed):
            raise ApiError(403, error_body(50013, "Missing Permissions"))
        name = body.get("name") or "thread"
        if len(name) > 100:
            raise ApiError(
                400, form_error("name", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
            )
        thread = self.add_thread(channel, name, private=private, thread_id=mid)
        data = thread.payload()
        data["member"] = {
            "id": thread.id,
            "user_id": self.bot_user.id,
            "join_timestamp": thread.created_at,
            "flags": 0,
        }
        return 201, data

    # ------------------------------------------------------------------ REST: guilds
    async def _get_guild(self, request: web.Request) -> tuple[int, Any]:
        g = self._guild(request)
        data = g.payload(include_members=False, bot_id=self.bot_user.id)
        for key in (
            "members",
            "channels",
            "threads",
            "presences",
            "voice_states",
            "joined_at",
            "large",
            "unavailable",
            "member_count",
            "lazy",
            "stage_instances",
            "guild_scheduled_events",
            "soundboard_sounds",
            "embedded_activities",
            "activity_instances",
        ):
            data.pop(key, None)
        if request.query.get("with_counts") in ("1", "true"):
            data.update(approximate_member_count=len(g.members), approximate_presence_count=0)
        return 200, data

    async def _get_guild_channels(self, request: web.Request) -> tuple[int, Any]:
        g = self._guild(request)
        return 200, [c.payload() for c in g.channels.values() if not c.is_thread]

    async def _get_guild_roles(self, request: web.Request) -> tuple[int, Any]:
        return 200, [r.payload() for r in self._guild(request).roles.values()]

    async def _list_members(self, request: web.Request) -> tuple[int, Any]:
        g = self._guild(request)
        if not self.allowed_intents & INTENT_GUILD_MEMBERS:
            raise ApiError(403, error_body(50001, "Missing Access"))
        limit = min(int(request.query.get("limit", 1)), 1000)
        after = int(request.query.get("after", 0))
        members = sorted(g.members.values(), key=lambda m: int(m.user.id))
        return 200, [m.payload() for m in members if int(m.user.id) > after][:limit]

    async def _get_member(self, request: web.Request) -> tuple[int, Any]:
        g = self._guild(request)
        member = g.members.get(request.match_info["user_id"])
        if member is None:
            raise ApiError(404, error_body(10007, "Unknown Member"))
        return 200, member.payload()

    async def _active_threads(self, request: web.Request) -> tuple[int, Any]:
        g = self._guild(request)
        threads = [t for t in g.threads() if not t.archived]
        return 200, {"threads": [t.payload() for t in threads], "members": []}

    # ------------------------------------------------------------------ gateway
    async def _gateway_ws(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        ws._double_peer = _peer(request)  # type: ignore[attr-defined]
        self._sockets.add(ws)
        session: GatewaySession | None = None
        try:
            await ws.send_str(
                json.dumps(
                    {
                        "op": OP_HELLO,
                        "d": {
                            "heartbeat_interval": self.heartbeat_interval_ms,
                            "_trace": ['["discord-double"]'],
                        },
                    }
                )
            )
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.BINARY:
                        await self._close_ws(ws, 4002, b"Decode error")
                    break
                try:
                    frame = json.loads(msg.data)
                except ValueError:
                    await self._close_ws(ws, 4002, b"Decode error")
                    break
                self.gateway_frames_received.append(frame)
                self._bump()
                session = await self._on_frame(ws, session, frame)
        finally:
            self._sockets.discard(ws)
            if session is not None and session.ws is ws:
                session.ws = None
                # a clean close by the client (1000/1001) ends the session, as on Discord
                if ws.close_code in (1000, 1001) and not self._closing_by_us(ws):
                    session.invalid = True
            self._bump()
        return ws

    def _closing_by_us(self, ws: web.WebSocketResponse) -> bool:
        return getattr(ws, "_double_closed", False)

    async def _close_ws(self, ws: web.WebSocketResponse, code: int, reason: bytes) -> None:
        ws._double_closed = True  # type: ignore[attr-defined]
        await ws.close(code=code, message=reason)

    async def _on_frame(
        self, ws: web.WebSocketResponse, session: GatewaySession | None, frame: dict[str, Any]
    ) -> GatewaySession | None:
        op = frame.get("op")
        d = frame.get("d")
        if op == OP_HEARTBEAT:
            await ws.send_str(json.dumps({"op": OP_HEARTBEAT_ACK}))
        elif op == OP_IDENTIFY:
            if session is not None:
                await self._close_ws(ws, 4005, b"Already authenticated")
                return session
            return await self._identify(ws, d or {})
        elif op == OP_RESUME:
            return await self._resume(ws, d or {})
        elif op == OP_REQUEST_GUILD_MEMBERS:
            if session is None:
                await self._close_ws(ws, 4003, b"Not authenticated")
                return None
            await self._member_chunks(session, d or {})
        elif op == OP_PRESENCE_UPDATE:
            if session is not None:
                session.presence = d
        elif op == OP_VOICE_STATE_UPDATE:
            pass
        else:
            await self._close_ws(ws, 4001, b"Unknown opcode")
        return session

    async def _identify(
        self, ws: web.WebSocketResponse, d: dict[str, Any]
    ) -> GatewaySession | None:
        if d.get("token") != self.token:
            await self._close_ws(ws, 4004, b"Authentication failed.")
            return None
        intents = d.get("intents")
        if not isinstance(intents, int) or intents < 0:
            await self._close_ws(ws, 4013, b"Invalid intent(s).")
            return None
        if intents & PRIVILEGED_INTENTS & ~self.allowed_intents:
            await self._close_ws(ws, 4014, b"Disallowed intent(s).")
            return None
        shard = tuple(d.get("shard") or (0, 1))
        if len(shard) != 2 or not 0 <= shard[0] < shard[1]:
            await self._close_ws(ws, 4010, b"Invalid shard.")
            return None
        session = GatewaySession(
            self, secrets.token_hex(16), d["token"], intents, (int(shard[0]), int(shard[1]))
        )
        session.ws = ws
        session.peer = getattr(ws, "_double_peer", None)
        self.sessions[session.id] = session
        self.identify_count += 1
        session.identify_number = self.identify_count
        guilds = [g for g in self.guilds.values() if session.handles_guild(g.id)]
        ready: dict[str, Any] = {
            "v": 10,
            "user": self._me_payload(),
            "guilds": [{"id": g.id, "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": self.application_id, "flags": self._application_flags()},
            "user_settings": {},
            "relationships": [],
            "private_channels": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["local"],
            "auth": {},
            "_trace": ['["discord-double"]'],
        }
        if d.get("shard"):
            ready["shard"] = list(session.shard)
        await session.dispatch("READY", ready)
        if intents & INTENT_GUILDS:
            for g in guilds:
                await session.dispatch("GUILD_CREATE", self._guild_create_payload(g, session))
        session.guilds_sent = True
        self._bump()
        return session

    async def _resume(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> GatewaySession | None:
        session = self.sessions.get(str(d.get("session_id")))
        if session is None or session.invalid or d.get("token") != session.token:
            await ws.send_str(json.dumps({"op": OP_INVALID_SESSION, "d": False}))
            return None
        old = session.ws
        if old is not None and old is not ws and not old.closed:
            await self._close_ws(old, 4000, b"session resumed elsewhere")
        session.ws = ws
        session.peer = getattr(ws, "_double_peer", None)
        session.resumes += 1
        last = int(d.get("seq") or 0)
        async with session.lock:
            session._pending.clear()
            for seq, frame in session.log:
                if seq > last:
                    await ws.send_str(frame)
        await session.dispatch("RESUMED", {"_trace": ['["discord-double"]']})
        self._bump()
        return session

    async def _member_chunks(self, session: GatewaySession, d: dict[str, Any]) -> None:
        gids = d.get("guild_id")
        for gid in gids if isinstance(gids, list) else [gids]:
            g = self.guilds.get(str(gid))
            if g is None:
                continue
            members = list(g.members.values())
            if d.get("user_ids"):
                wanted = {str(u) for u in d["user_ids"]}
                members = [m for m in members if m.user.id in wanted]
            elif d.get("query"):
                members = [m for m in members if m.user.name.lower().startswith(d["query"].lower())]
            if d.get("limit"):
                members = members[: int(d["limit"])]
            chunk: dict[str, Any] = {
                "guild_id": g.id,
                "members": [m.payload() for m in members],
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": [],
            }
            if d.get("nonce"):
                chunk["nonce"] = d["nonce"]
            await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)


def _peer(request: web.Request) -> tuple[str, int] | None:
    """The client's ``(host, port)`` of the request's connection, if known."""
    transport = request.transport
    peer = transport.get_extra_info("peername") if transport is not None else None
    if isinstance(peer, tuple) and len(peer) >= 2:
        return str(peer[0]), int(peer[1])
    return None


def _guess_type(filename: str, given: str | None) -> str | None:
    lower = filename.lower()
    for ext, mime in (
        (".png", "image/png"),
        (".jpg", "image/jpeg"),
        (".jpeg", "image/jpeg"),
        (".gif", "image/gif"),
        (".webp", "image/webp"),
        (".txt", "text/plain; charset=utf-8"),
        (".json", "application/json; charset=utf-8"),
    ):
        if lower.endswith(ext):
            return mime
    return given
