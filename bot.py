"""Warhost's entry point: ``python bot.py`` (``make run``).

Configuration comes from the environment or a ``.env`` file next to where the bot is
started (the environment wins): ``DISCORD_TOKEN`` (required), ``DATABASE_PATH``,
``DEV_GUILD_ID``, ``LOG_LEVEL``, the abuse limits (``RATE_LIMITS``, ``MAX_OPEN_GAMES``,
``LOBBY_EXPIRY_HOURS``), the reminders' defaults (``REMINDER_EVERY``,
``REMINDER_LIMIT``; those two and the last two are defaults that each server may change
with ``/settings``),
``WARHOST_FORCE_SYNC`` (sync the commands with Discord even if unchanged), the web
pages (``WEB_PORT``, ``WEB_URL``, see docs/web.md) and, for the loopback test double only,
``DISCORD_API_BASE`` (and optionally ``DISCORD_GATEWAY_URL``; without it the gateway
is asked of that API). See ``.env.example``.

:func:`create_bot` builds the bot without starting it; tests and ``make demo`` use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import importlib
import json
import logging
import os
import pkgutil
import re
import signal
import socket
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import yarl
from discord import app_commands
from discord.ext import commands

import cogs
import render
from cogs.boards import Boards
from cogs.computers import ComputerPlayers
from cogs.interactions import (
    MENTION_HELP,
    SERVER_ONLY,
    answer_left,
    conclude,
    report_app_command_error,
)
from cogs.limits import DEFAULT_CAP, DEFAULT_LOBBY_HOURS, Limiter, admit
from cogs.moves import RecentIds, SentClock
from cogs.outbox import Announcer
from cogs.scheduler import Scheduler
from cogs.workers import stop_task
from db import Store, StoreError
from db.backend import redact_url
from db.clocks import DEFAULT_REMINDER_EVERY, DEFAULT_REMINDER_LIMIT
from db.leases import new_holder
from db.server_settings import (
    LOBBY_EXPIRY_HOURS,
    MAX_CAP,
    MAX_LOBBY_HOURS,
    MAX_OPEN_GAMES,
    MAX_REMINDER_LIMIT,
    REMINDER_EVERY,
    REMINDER_LIMIT,
    SETTINGS,
    SettingError,
)
from db.settings import DEFAULT_DATABASE_PATH, read_settings
from engine.notation import is_number
from web.app import WebApp, WebSettings

log = logging.getLogger("warhost")

#: How long a shared job's lease lasts without renewal, unless configured
#: (WARHOST_LEASE_SECONDS): after a process dies, another takes over its deliveries and
#: the scheduler within about twice this many seconds.
DEFAULT_LEASE_SECONDS = 30.0
MAX_LEASE_SECONDS = 3600.0
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

NO_TOKEN_HELP = """\
Warhost needs a Discord bot token, and DISCORD_TOKEN is not set.

1. Open https://discord.com/developers/applications, create (or pick) an application,
   go to Bot and press Reset Token; copy the token.
2. Put it in a file named .env in the folder you start the bot from (the project
   root for `make run`):  DISCORD_TOKEN=<your token>
   Copy .env.example to .env to start from the template, or set it in the environment.
3. Invite the bot: OAuth2 -> URL Generator, scopes "bot" and "applications.commands".

Then run `make run` again."""


class ConfigError(Exception):
    """Bad or missing configuration; the message is shown to whoever starts the bot."""


@dataclass(frozen=True)
class Config:
    """Everything the bot reads from its environment."""

    token: str = field(repr=False)
    database_path: str = DEFAULT_DATABASE_PATH
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    api_base: str | None = None
    gateway_url: str | None = None
    #: Worker processes drawing boards (None: one per core; 0: draw in a thread).
    render_workers: int | None = None
    #: Per-user rate limits on commands, autocomplete and buttons (RATE_LIMITS=off:
    #: none, for scripted players in tests and benchmarks).
    rate_limits: bool = True
    #: Open games (lobbies and games under way) a server may have at once (0: no cap).
    max_open_games: int = DEFAULT_CAP
    #: Hours a lobby may sit untouched before it is closed (0: never).
    lobby_expiry_hours: float = DEFAULT_LOBBY_HOURS
    #: How long a player may wait before a reminder, and reminders per move, in a
    #: channel that set none (REMINDER_EVERY, REMINDER_LIMIT). These and the two above
    #: are defaults: each server's admins may choose their own (/settings).
    reminder_every: float = DEFAULT_REMINDER_EVERY
    reminder_limit: int = DEFAULT_REMINDER_LIMIT
    #: Sync the commands with Discord at start even if they did not change
    #: (WARHOST_FORCE_SYNC=1).
    force_sync: bool = False
    #: Board workers draw a few boards of every game before their first (BOARD_WARMUP).
    board_warmup: bool = True
    #: The event loop: "uvloop" (libuv's, the default where installed) or "asyncio"
    #: (Python's own) (WARHOST_EVENT_LOOP).
    event_loop: str = "uvloop"
    #: ``postgresql://...``: games in PostgreSQL instead of the SQLite file.
    database_url: str | None = field(default=None, repr=False)
    #: Sharding: how many shards the bot has in all, and which of them this process
    #: runs (None: one process runs every shard Discord recommends).
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    #: Worker processes searching computer players' moves (0: search in a thread).
    computer_workers: int = 1
    #: How long a shared job's lease lasts without renewal (WARHOST_LEASE_SECONDS).
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    #: The web companion: served here when ``web.port`` is set (WEB_PORT); its address
    #: (WEB_URL) puts a "View on the web" button under every digest.
    web: WebSettings = field(default_factory=WebSettings)

    @property
    def database(self) -> str:
        """Where the games are: DATABASE_URL if set, else the SQLite file."""
        return self.database_url or self.database_path

    @property
    def shared_database(self) -> bool:
        """Whether other bot processes may use the same database (so shared jobs
        take leases)."""
        return self.shard_ids is not None or self.database_url is not None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None,
                 dotenv_path: str | os.PathLike[str] | None = ".env") -> Config:
        """Read the configuration; ``environ`` (default ``os.environ``) wins over the file.

        Empty values count as unset. Raises :class:`ConfigError` with a message meant for
        a person when the token is missing or a value is malformed.
        """
        values = read_settings(environ, dotenv_path)

        token = values.get("DISCORD_TOKEN", "")
        if not token:
            raise ConfigError(NO_TOKEN_HELP)

        guild_text = values.get("DEV_GUILD_ID")
        dev_guild_id: int | None = None
        if guild_text is not None:
            if not _digits(guild_text) or len(guild_text) > 20:
                raise ConfigError(
                    f"DEV_GUILD_ID must be a server id (digits only), not {guild_text!r}. "
                    "Leave it empty to sync commands globally.")
            dev_guild_id = int(guild_text)

        level = values.get("LOG_LEVEL", "INFO").upper()
        if level not in LOG_LEVELS:
            raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {level!r}.")

        api_base = values.get("DISCORD_API_BASE")
        gateway_url: str | None = None
        if api_base is not None:  # the gateway override only goes with an API override
            api_base = api_base.rstrip("/")
            # None: asked of that API (GET /gateway/bot) once logged in, see setup_hook
            gateway_url = values.get("DISCORD_GATEWAY_URL")

        workers_text = values.get("RENDER_WORKERS")
        render_workers: int | None = None
        if workers_text is not None:
            if not _digits(workers_text) or int(workers_text) > 64:
                raise ConfigError(
                    f"RENDER_WORKERS must be a number of processes from 0 to 64, not "
                    f"{workers_text!r}. Leave it empty for one per CPU core.")
            render_workers = int(workers_text)
        computers_text = values.get("COMPUTER_WORKERS", "1")
        if not _digits(computers_text) or int(computers_text) > 64:
            raise ConfigError(
                f"COMPUTER_WORKERS must be a number of processes from 0 to 64, not "
                f"{computers_text!r} (default 1; 0 searches in a thread).")

        database_url = values.get("DATABASE_URL")
        if database_url is not None and not database_url.startswith(
                ("postgresql://", "postgres://")):
            raise ConfigError("DATABASE_URL must be a PostgreSQL URL "
                              "(postgresql://user:password@host:5432/database). For SQLite, "
                              "leave it empty and set DATABASE_PATH.")
        shard_count, shard_ids = _shards(values.get("SHARD_COUNT"), values.get("SHARD_IDS"))
        rate_limits, max_open, lobby_hours = _limits(values)
        reminder_every, reminder_limit = _reminders(values)
        warm_text = values.get("BOARD_WARMUP", "on").strip().lower()
        if warm_text not in _ON + _OFF:
            raise ConfigError(f"BOARD_WARMUP must be on (the default) or off, not "
                              f"{warm_text!r}.")
        loop_text = values.get("WARHOST_EVENT_LOOP", "uvloop").strip().lower()
        if loop_text not in EVENT_LOOPS:
            raise ConfigError(f"WARHOST_EVENT_LOOP must be uvloop (the default) or asyncio, "
                              f"not {loop_text!r}.")
        force_text = values.get("WARHOST_FORCE_SYNC", "0").lower()
        if force_text not in _ON + _OFF:
            raise ConfigError(f"WARHOST_FORCE_SYNC must be 1 (sync the commands at every "
                              f"start) or 0, not {force_text!r}.")
        lease_text = values.get("WARHOST_LEASE_SECONDS", f"{DEFAULT_LEASE_SECONDS:g}")
        try:        # float() also reads other scripts' digits: ASCII only
            lease_seconds = float(lease_text) if lease_text.isascii() else -1.0
        except ValueError:
            lease_seconds = -1.0
        if not 1 <= lease_seconds <= MAX_LEASE_SECONDS:     # NaN fails this too
            raise ConfigError(f"WARHOST_LEASE_SECONDS must be a number of seconds from 1 to "
                              f"3600, not {lease_text!r} (default 30).")
        try:
            web_settings = WebSettings.from_env(values)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None

        return cls(token=token,
                   database_path=values.get("DATABASE_PATH", DEFAULT_DATABASE_PATH),
                   database_url=database_url, shard_count=shard_count, shard_ids=shard_ids,
                   dev_guild_id=dev_guild_id, log_level=level,
                   api_base=api_base, gateway_url=gateway_url,
                   render_workers=render_workers, rate_limits=rate_limits,
                   computer_workers=int(computers_text),
                   max_open_games=max_open, lobby_expiry_hours=lobby_hours,
                   reminder_every=reminder_every, reminder_limit=reminder_limit,
                   force_sync=force_text in _ON, lease_seconds=lease_seconds,
                   event_loop=loop_text, board_warmup=warm_text in _ON, web=web_settings)


_ON, _OFF = ("on", "true", "yes", "1"), ("off", "false", "no", "0")
EVENT_LOOPS = ("uvloop", "asyncio")


def loop_factory(config: Config) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop unless the configuration asks for asyncio's own, or uvloop is
    not installed (Windows): None, asyncio's default. libuv's loop runs a move's Discord
    and database traffic (sockets, futures, thread wake-ups) for a good deal less CPU."""
    if config.event_loop != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def _digits(text: str) -> bool:
    """Whether ``text`` is a setting's number: digits 0-9 only (:func:`is_number`), and
    at most 20 of them (a Discord id's length), so ``int`` can always read it."""
    return is_number(text) and len(text) <= 20


def _limits(values: Mapping[str, str]) -> tuple[bool, int, float]:
    """RATE_LIMITS, MAX_OPEN_GAMES and LOBBY_EXPIRY_HOURS, checked."""
    rate_text = values.get("RATE_LIMITS", "on").lower()
    if rate_text not in _ON + _OFF:
        raise ConfigError(f"RATE_LIMITS must be on or off, not {rate_text!r}.")
    cap_text = values.get("MAX_OPEN_GAMES", str(DEFAULT_CAP))
    if not _digits(cap_text) or int(cap_text) > MAX_CAP:
        raise ConfigError(f"MAX_OPEN_GAMES must be a number of games from 0 (no cap) to "
                          f"100000, not {cap_text!r}.")
    hours_text = values.get("LOBBY_EXPIRY_HOURS", str(DEFAULT_LOBBY_HOURS))
    try:
        hours = float(hours_text)
    except ValueError:
        hours = -1.0
    if not 0 <= hours <= MAX_LOBBY_HOURS:
        raise ConfigError(f"LOBBY_EXPIRY_HOURS must be a number of hours from 0 (lobbies "
                          f"never expire) to 8784, not {hours_text!r}.")
    return rate_text in _ON, int(cap_text), hours


def _reminders(values: Mapping[str, str]) -> tuple[float, int]:
    """REMINDER_EVERY (a duration: 12h) and REMINDER_LIMIT, checked."""
    every_text = values.get("REMINDER_EVERY")
    every = DEFAULT_REMINDER_EVERY
    if every_text is not None:
        try:
            every = SETTINGS[REMINDER_EVERY].parse(every_text)
        except SettingError:
            raise ConfigError(f"REMINDER_EVERY must be a duration from 1 minute to 365 days "
                              f"(12h, 2d, 1d12h), not {every_text!r}.") from None
    limit_text = values.get("REMINDER_LIMIT", str(DEFAULT_REMINDER_LIMIT))
    if not _digits(limit_text) or not 0 <= int(limit_text) <= MAX_REMINDER_LIMIT:
        raise ConfigError(f"REMINDER_LIMIT must be a number of reminders per move from 0 "
                          f"to {MAX_REMINDER_LIMIT}, not {limit_text!r}.")
    return float(every), int(limit_text)


def _shards(count_text: str | None, ids_text: str | None
            ) -> tuple[int | None, tuple[int, ...] | None]:
    """SHARD_COUNT and SHARD_IDS ("0,1", "2-3" or "0,2-3"), checked."""
    if count_text is None:
        if ids_text is not None:
            raise ConfigError("SHARD_IDS needs SHARD_COUNT (the number of shards in all).")
        return None, None
    if not _digits(count_text) or len(count_text) > 4 or not 1 <= int(count_text) <= 1024:
        raise ConfigError(f"SHARD_COUNT must be a number of shards from 1 to 1024, not "
                          f"{count_text!r}.")
    count = int(count_text)
    if ids_text is None:
        return count, tuple(range(count))
    ids: list[int] = []
    for part in ids_text.replace(" ", "").split(","):
        low, _, high = part.partition("-")
        if not _digits(low) or (high and not _digits(high)):
            raise ConfigError(f"SHARD_IDS must list shard numbers like 0,1 or 0-3, not "
                              f"{ids_text!r}.")
        if len(low) > 4 or len(high) > 4 or int(high or low) >= count:
            raise ConfigError(f"SHARD_IDS must name shards below SHARD_COUNT ({count}), not "
                              f"{ids_text!r}.")
        ids.extend(range(int(low), int(high or low) + 1))
    if not ids or any(i >= count for i in ids) or len(set(ids)) != len(ids):
        raise ConfigError(f"SHARD_IDS must name each shard once, each below SHARD_COUNT "
                          f"({count}), not {ids_text!r}.")
    return count, tuple(sorted(ids))


def point_discord_at(config: Config) -> None:
    """Aim discord.py at another API (the loopback test double); no-op unless configured."""
    if config.api_base is not None:
        discord.http.Route.BASE = config.api_base
    if config.gateway_url is not None:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(config.gateway_url)


#: Interaction and webhook tokens, which let anyone answer as the bot in a conversation
#: for 15 minutes: in a request's URL (discord.py logs each one at DEBUG), as the
#: ``token`` of a gateway event (logged whole at DEBUG), or anywhere by their prefix
#: (base64 of ``interaction:``).
_TOKENS_IN_TEXT = (
    (re.compile(r"(/(?:interactions|webhooks)/\d+/)[A-Za-z0-9_.\-]{20,}"), r"\1[token hidden]"),
    (re.compile(r"""(['"]token['"]\s*:\s*['"])[^'"]{8,}"""), r"\1[token hidden]"),
    (re.compile(r"aW50ZXJhY3Rpb246[A-Za-z0-9_\-+/=]*"), "[token hidden]"),
    # a personal web link (/game web) is a capability too
    (re.compile(r"(/p/)[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"), r"\1[token hidden]"),
)


class RedactFilter(logging.Filter):
    """Replaces a secret, and interaction tokens in URLs, in every log record that
    passes through (defence in depth)."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is not ours to fix here
            return True
        hidden = self.hide(message)
        if hidden != message:
            record.msg = hidden
            record.args = None
        if record.exc_info and not record.exc_text:
            # formatted here (the formatter reuses exc_text) so tracebacks are covered too
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.hide(record.exc_text)
        if record.stack_info:
            record.stack_info = self.hide(record.stack_info)
        return True

    def hide(self, text: str) -> str:
        if self.secret:
            text = text.replace(self.secret, "[token hidden]")
        for pattern, replacement in _TOKENS_IN_TEXT:
            text = pattern.sub(replacement, text)
        return text


def setup_logging(config: Config) -> None:
    """Log to stderr at the configured level, never showing the token."""
    handler = logging.StreamHandler()
    handler.addFilter(RedactFilter(config.token))
    level = getattr(logging, config.log_level)
    discord.utils.setup_logging(handler=handler, level=level)
    # aiosqlite logs every statement with its values at DEBUG: the database's contents
    # (interaction tokens among them) do not belong in the log.
    logging.getLogger("aiosqlite").setLevel(max(level, logging.INFO))


#: Commands that work in direct messages too; every other one is for a server's channels.
DM_COMMANDS = frozenset({"help", "mygames", "reminders", "privacy"})


class WarhostTree(app_commands.CommandTree):
    """The command tree: one error handler for every app command of every cog, and the
    run-time checks of every command and autocomplete: the user's rate limit, and
    server-only commands used in a server."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if not await admit(interaction):
            return False
        if interaction.guild_id is not None or interaction.type not in (
                discord.InteractionType.application_command,
                discord.InteractionType.autocomplete):
            return True
        command = interaction.command
        root = getattr(command, "root_parent", None) or command
        if root is not None and root.name in DM_COMMANDS:
            return True
        if interaction.type == discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            await interaction.response.send_message(SERVER_ONLY, ephemeral=True)
        return False

    async def on_error(self, interaction: discord.Interaction,
                       error: app_commands.AppCommandError) -> None:
        await report_app_command_error(interaction, error)


class WarhostBot(commands.Bot):
    """The bot: owns the :class:`db.Store`; cogs reach it as ``bot.store``."""

    def __init__(self, config: Config, clock: Callable[[], float] | None = None) -> None:
        quiet_voice()
        # No text commands: a mention is answered with help (see on_message, which never
        # runs prefix commands). The prefix is discord.py's "when mentioned", the one it
        # knows needs no message content intent (any other makes it warn at every start).
        super().__init__(command_prefix=commands.when_mentioned,
                         intents=discord.Intents.default(), tree_cls=WarhostTree,
                         allowed_mentions=discord.AllowedMentions.none(), help_command=None,
                         **self._shard_options(config))
        self.config = config
        #: This process's name in the database's leases (see db/leases.py).
        self.holder = new_holder()
        #: What time it is (epoch seconds) for games' clocks and reminders; tests pass
        #: their own to play weeks in a moment.
        self.clock: Callable[[], float] = clock or time.time
        self.store: Store | None = None
        self.announcer: Announcer | None = None
        self.scheduler: Scheduler | None = None
        self.computers: ComputerPlayers | None = None
        #: The web pages, when this process serves them (WEB_PORT).
        self.web: WebApp | None = None
        #: :meth:`close` has begun (discord.py's ``is_closed`` turns only once our own
        #: parts are stopped, at its end).
        self.closing = False
        self.boards = Boards(config.render_workers, warm=config.board_warmup)
        self.sent_clock = SentClock()
        self.recent_interactions = RecentIds()
        #: Per-user rate limits (see cogs/limits.py); None when RATE_LIMITS=off.
        self.limiter: Limiter | None = Limiter() if config.rate_limits else None
        #: Which shards' interactions this process notes as deferred (store.pending):
        #: a later run of the same shards answers what a crash left ("": all of them).
        self.pending_shards = ",".join(map(str, config.shard_ids or ()))
        self._answering: asyncio.Task[int] | None = None

    async def setup_hook(self) -> None:
        if self.config.api_base is not None and self.config.gateway_url is None:
            # Another API (the loopback double): its gateway is wherever it says it is.
            _, url, _ = await self.http.get_bot_gateway()
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
            log.info("Gateway at %s (from %s)", url, self.config.api_base)
        try:
            self.boards.start()  # board workers warm up while we connect
        except (OSError, EOFError, BrokenProcessPool) as exc:
            raise WorkersFailed(str(exc)) from exc
        try:
            self.store = await Store.open(self.config.database, clock=self.clock)
        except OSError as exc:      # the file system refused (the store words its own)
            raise StoreError(f"Cannot open the database {self.config.database_path}: "
                             f"{exc}") from exc
        log.info("Database open at %s (%s)", self.store.path, self.store.dialect)
        # Players a crash left "thinking…" (deferred, never answered) are told to send
        # again: what these shards noted before now (by webhook: no gateway needed).
        self._answering = asyncio.get_running_loop().create_task(
            self._answer_left(self.store.now()), name="warhost-answer-left")
        # What a server that chose nothing with /settings gets: the environment's values.
        self.store.server_settings.use_defaults({
            MAX_OPEN_GAMES: self.config.max_open_games,
            LOBBY_EXPIRY_HOURS: self.config.lobby_expiry_hours,
            REMINDER_EVERY: self.config.reminder_every,
            REMINDER_LIMIT: self.config.reminder_limit})
        # Once, on a database with finished games from before ratings existed.
        await self.store.ratings.build_if_needed()
        # With other processes on the database, each shared job runs where its lease is.
        lease = ((self.holder, self.config.lease_seconds) if self.config.shared_database
                 else None)
        self.announcer = Announcer(self, self.store, lease=lease)
        self.announcer.start()      # delivers what a crash left undelivered, then retries
        # Computer seats are handed out by the scheduler, so they move in its process.
        self.computers = ComputerPlayers(self, self.store, workers=self.config.computer_workers)
        self.scheduler = Scheduler(self, self.store, lease=lease)
        self.scheduler.start()      # catches up with clocks and reminders after downtime
        if self.config.web.port is not None:
            # the pages' frames (drawn large, to zoom into) come from the board workers
            self.web = WebApp(self.store, self.config.web, draw=self._draw_frame)
            await self.web.start()
        for name in discover_cogs():
            await self.load_extension(name)
            module = sys.modules[name]
            items = getattr(module, "DYNAMIC_ITEMS", ())
            if items:
                self.add_dynamic_items(*items)
            log.info("Loaded %s", name)
        await self.sync_commands()

    async def _answer_left(self, started: float) -> int:
        assert self.store is not None
        try:
            return await answer_left(self, self.store, self.pending_shards, before=started)
        except StoreError as exc:
            log.warning("Could not answer the interactions the last run left (%s)", exc)
            return 0

    async def on_app_command_completion(self, interaction: discord.Interaction,
                                        command: Any) -> None:
        """A command finished (its reply sent): a deferral it noted is concluded."""
        await conclude(interaction)

    async def _draw_frame(self, kind: str, view: dict[str, Any],
                          events: list[dict[str, Any]] | None,
                          names: dict[str, str] | None) -> bytes:
        return await self.boards.run(render.render_large, kind, view, events, names)

    @staticmethod
    def _shard_options(config: Config) -> dict[str, Any]:
        return {}

    async def sync_commands(self) -> None:
        """Register the commands with Discord, only when they changed since the last
        sync (Discord rate-limits registration): the hash of what would be sent is kept
        in the database, so restarts and every process share it. WARHOST_FORCE_SYNC=1
        syncs anyway. With shards, the process running shard 0 syncs; with other
        processes on the database, the one holding the sync's lease."""
        if self.config.shard_ids is not None and 0 not in self.config.shard_ids:
            log.info("Commands are synced by the process that runs shard 0")
            return
        assert self.store is not None
        guild: discord.Object | None = None
        if self.config.dev_guild_id is not None:
            guild = discord.Object(id=self.config.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
        digest, count = commands_hash(self.tree, guild)
        key = f"{SYNC_KEY}:{self.application_id}:{guild.id if guild else 'global'}"
        if not self.config.force_sync and await self.store.server_settings.shared(key) == digest:
            log.info("Commands unchanged since last sync (hash %s); not syncing", digest[:12])
            return
        if self.config.shared_database and not await self.store.leases.take(
                SYNC_KEY, self.holder, self.config.lease_seconds):
            log.info("Commands changed; another process is syncing them")
            return
        synced = await self.tree.sync(guild=guild)
        await self.store.server_settings.share(key, digest)
        where = f"to guild {guild.id}" if guild else "globally (may take a while to appear)"
        why = "Sync forced (WARHOST_FORCE_SYNC)" if self.config.force_sync \
            else "Commands changed"
        log.info("%s; synced %d commands %s (hash %s)", why, len(synced), where, digest[:12])
        if len(synced) != count:
            log.info("Discord holds %d commands, %d were sent", len(synced), count)

    async def on_ready(self) -> None:
        log.info("Logged in as %s (id %s)", self.user, self.user.id if self.user else "?")

    async def on_message(self, message: discord.Message) -> None:
        """A mention of the bot (``@Warhost help``, or just ``@Warhost``) gets the help."""
        if message.author.bot or self.user is None:
            return
        if not any(user.id == self.user.id for user in message.mentions):
            return
        try:
            await message.reply(MENTION_HELP, mention_author=False,
                                allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.info("Could not answer a mention in channel %s (%s)", message.channel.id,
                     exc)

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        # A closed client has no loop for handlers (discord.py sets it to MISSING), but its
        # wait for the servers after READY may still end and dispatch 'ready': a handler
        # made then would never run ("coroutine _run_event was never awaited"). Drop it.
        if self.is_closed():
            return
        super().dispatch(event_name, *args, **kwargs)

    async def close(self) -> None:
        self.closing = True
        # discord.py's close() leaves the after-READY wait for the servers running
        ready = getattr(self._connection, "_ready_task", None)
        if ready is not None:
            ready.cancel()
        try:
            await stop_task(self._answering)
            if self.scheduler is not None:
                await self.scheduler.close()
            if self.computers is not None:
                await self.computers.close()
            if self.announcer is not None:
                await self.announcer.close()
            if self.web is not None:
                web, self.web = self.web, None
                await web.stop()
            await super().close()
            try:
                await self.boards.close()
            except (OSError, EOFError, BrokenProcessPool) as exc:
                # leaving anyway: a worker that cannot be told so exits with the bot
                log.warning("The board workers did not stop cleanly (%s: %s)",
                            type(exc).__name__, exc)
        finally:
            if self.store is not None:
                store, self.store = self.store, None
                await store.close()
                log.info("Database closed")


class ShardedWarhostBot(WarhostBot, commands.AutoShardedBot):
    """The bot over the shards SHARD_IDS of SHARD_COUNT: several processes (or machines),
    each running some shards, share one PostgreSQL database and the work."""

    @staticmethod
    def _shard_options(config: Config) -> dict[str, Any]:
        return {"shard_count": config.shard_count,
                "shard_ids": None if config.shard_ids is None else list(config.shard_ids)}


def quiet_voice() -> None:
    """Warhost never joins voice: discord.py need not warn at start that the voice
    libraries (PyNaCl, davey) are missing. Its own flags, which it clears once it has
    warned, say whether to."""
    for flag in ("warn_nacl", "warn_dave"):
        if hasattr(discord.VoiceClient, flag):
            setattr(discord.VoiceClient, flag, False)


#: The name under which the last synced commands' hash is shared (and the sync's lease).
SYNC_KEY = "command-sync"


def commands_hash(tree: app_commands.CommandTree,
                  guild: discord.abc.Snowflake | None = None) -> tuple[str, int]:
    """A stable hash of what syncing ``tree`` (to ``guild``, or globally) would send
    Discord, and how many commands that is: each command's payload, in a canonical JSON
    (keys sorted), sorted by type and name."""
    payload = sorted((command.to_dict(tree) for command in tree.get_commands(guild=guild)),
                     key=lambda d: (int(d.get("type", 1)), str(d.get("name"))))
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest(), len(payload)


def discover_cogs() -> list[str]:
    """Every module in ``cogs/`` that has a ``setup`` function, as an extension name."""
    names = []
    for info in pkgutil.iter_modules(cogs.__path__):
        name = f"{cogs.__name__}.{info.name}"
        if callable(getattr(importlib.import_module(name), "setup", None)):
            names.append(name)
    return sorted(names)


def create_bot(config: Config, clock: Callable[[], float] | None = None) -> WarhostBot:
    """A ready-to-start bot (``await bot.start(config.token)``); nothing connects yet.
    ``clock`` (default ``time.time``) is what games' clocks and reminders go by."""
    point_discord_at(config)
    if config.shard_count is not None:
        return ShardedWarhostBot(config, clock)
    return WarhostBot(config, clock)


async def run(config: Config) -> None:
    bot = create_bot(config)
    async with bot:
        # systemd (and docker) stop with SIGTERM: stop as for Ctrl-C (the start is
        # cancelled, and leaving ``async with bot`` closes the bot and its database).
        main = asyncio.current_task()
        if main is not None:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop = asyncio.get_running_loop()
                loop.add_signal_handler(signal.SIGTERM, stop_on_signal, loop, main, bot)
        await bot.start(config.token)


#: Seconds after a SIGTERM before it is asked again, if the bot has not begun to close.
STOP_RETRY = 1.0


def stop_on_signal(loop: asyncio.AbstractEventLoop, main: asyncio.Task[None],
                   bot: WarhostBot) -> None:
    """Cancel the bot's main task, and again until the bot begins to close: Python
    3.11's ``asyncio.wait_for``, which discord.py connects through, drops a
    cancellation that lands as the awaited connection completes, and the bot would
    run on (a test saw it under load). Never once closing, so its cleanup runs whole."""
    if main.done() or bot.closing:
        return
    main.cancel()
    loop.call_later(STOP_RETRY, stop_on_signal, loop, main, bot)


class WorkersFailed(Exception):
    """The board-drawing worker processes could not be started (the cause is chained)."""


#: What the disk says when it is full: SQLite's words, PostgreSQL's, the system's.
_DISK_FULL = ("database or disk is full", "disk is full", "no space left on device",
              "disk quota exceeded", "could not extend file")
_DISK_IO = ("disk i/o error", "input/output error")


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it was raised from or during, outermost first."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 20:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _network(exc: BaseException) -> bool:
    """Whether ``exc`` means Discord could not be reached (name lookup, connection,
    time-out while connecting, the gateway closing or not found)."""
    return isinstance(exc, aiohttp.ClientConnectionError | aiohttp.ClientPayloadError
                      | socket.gaierror | ConnectionRefusedError | ConnectionResetError
                      | ConnectionAbortedError | TimeoutError | discord.GatewayNotFound
                      | discord.ConnectionClosed | discord.DiscordServerError)


def startup_fault(exc: BaseException, config: Config) -> tuple[str, bool]:
    """What to tell whoever started the bot when it stopped on ``exc``: the words, and
    whether the traceback belongs in the log too (a fault we cannot name)."""
    chain = _chain(exc)
    name = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, discord.LoginFailure):
        return ("Discord refused the token in DISCORD_TOKEN. Reset it in the developer "
                "portal (Applications -> your app -> Bot -> Reset Token) and update .env.",
                False)
    workers = next((e for e in chain if isinstance(e, WorkersFailed)), None)
    if workers is not None:
        cause = workers.__cause__ or workers
        return (f"Warhost's board-drawing workers failed to start ({type(cause).__name__}: "
                f"{cause}). Start the bot again; if it keeps failing, check the machine's "
                "free memory and its limits on processes and open files, or set "
                "RENDER_WORKERS=0 to draw the boards in the bot's own process.", False)
    stored = any(isinstance(e, StoreError) for e in chain)
    texts = " ".join(str(e).lower() for e in chain)
    disk_errnos = {errno.ENOSPC, errno.EDQUOT, errno.EIO}
    os_disk = [e for e in chain if isinstance(e, OSError) and e.errno in disk_errnos]
    full = any(t in texts for t in _DISK_FULL) or any(
        e.errno in (errno.ENOSPC, errno.EDQUOT) for e in os_disk)
    broken = any(t in texts for t in _DISK_IO) or any(e.errno == errno.EIO for e in os_disk)
    if (full or broken) and (stored or any(isinstance(e, sqlite3.Error) for e in chain)):
        where = redact_url(config.database) if config.database_url else config.database
        setting = "DATABASE_URL" if config.database_url else "DATABASE_PATH"
        if full:
            return (f"Warhost could not write its database at {where}: the disk is full. "
                    "Free some space on that disk (old logs, old backups), or point "
                    f"{setting} at a database on a disk with room, then start again.", False)
        return (f"Warhost could not write its database at {where}: the disk reported an "
                "I/O error. Check the disk (the system log, fsck) and whether the file is "
                "damaged (`python -m db check`); restore the latest backup if it is "
                f"(docs/backups.md), or point {setting} at another disk, then start again.",
                False)
    if stored:
        store_error = next(e for e in chain if isinstance(e, StoreError))
        return f"Warhost could not use its database: {store_error}", False
    if any(_network(e) for e in chain):
        return (f"Warhost could not reach Discord ({name}). Check the network connection "
                "and try again.", False)
    if isinstance(exc, OSError):
        return (f"Warhost stopped at start on a system error ({name}); the log above has "
                "the details.", True)
    return "Warhost stopped on an unexpected error", True


def main() -> int:
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    setup_logging(config)
    try:
        with asyncio.Runner(loop_factory=loop_factory(config)) as runner:
            runner.run(run(config))
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass                        # Ctrl-C or SIGTERM: closed cleanly
    except Exception as exc:
        words, traceback = startup_fault(exc, config)
        if traceback:
            # through the logging handler, so the token is hidden even in the traceback
            log.error("%s", words, exc_info=exc)
        else:
            print(words, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
