"""Each server's own settings (``/settings``), and a few values the bot's processes share.

A server's admins may change a handful of settings for their server alone: the cap on
open games, how long a lobby may sit untouched, and the reminders' default interval and
limit. A setting a server never changed (or reset) has the default, which the bot takes
from its environment (``MAX_OPEN_GAMES``, ``LOBBY_EXPIRY_HOURS``, ``REMINDER_EVERY``,
``REMINDER_LIMIT``; see ``bot.Config``) and puts in :attr:`ServerSettings.defaults`.
Rows live in ``server_settings`` (one per setting a server changed), so every process
and shard sees the same values.

Values are checked twice: when a person types one (:meth:`Setting.parse`, refusing in
words what is not a value of the setting) and when it is read back (a stored value out
of bounds, say written by hand, counts as unset).

``bot_state`` holds values the processes share (the hash of the commands last synced
with Discord): :meth:`ServerSettings.shared` and :meth:`ServerSettings.share`.

:class:`ServerSettings` is a service of the store (``store.server_settings``).
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from db.backend import Connection
from db.clocks import (
    DEFAULT_REMINDER_EVERY,
    DEFAULT_REMINDER_LIMIT,
    MAX_DURATION,
    MIN_DURATION,
    ClockError,
    describe_duration,
    parse_duration,
)
from db.core import StoreCore
from db.records import StoreError

#: Open games (lobbies and games under way) a server may have at once, unless configured.
DEFAULT_CAP = 25
#: Hours a lobby may sit untouched, unless configured.
DEFAULT_LOBBY_HOURS = 24.0
#: The most open games a cap may allow, and the most hours a lobby may wait.
MAX_CAP = 100_000
MAX_LOBBY_HOURS = 24 * 366.0
#: Reminders per decision a channel or server may ask for, at most.
MAX_REMINDER_LIMIT = 10

MAX_OPEN_GAMES = "max_open_games"
LOBBY_EXPIRY_HOURS = "lobby_expiry_hours"
REMINDER_EVERY = "reminder_every"
REMINDER_LIMIT = "reminder_limit"

_NUMBER = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,6})?")
_ZERO_WORDS = ("none", "off", "no", "never")


class SettingError(StoreError):
    """A value that is not one of a setting's (the message says what is)."""


def shown(text: object, limit: int = 30) -> str:
    """What someone typed, safe to quote back in backticks: no backticks or line breaks,
    cut to ``limit`` characters."""
    try:
        flat = " ".join(str(text).replace("`", "'").split())
    except ValueError:      # an int too long to write out
        flat = "a number too long to write out"
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


@dataclass(frozen=True)
class Setting:
    """One per-server setting: its bounds and how it is typed and shown."""

    name: str
    #: What it is, for /settings (a choice's label: at most 100 characters).
    label: str
    low: float
    high: float
    integer: bool
    #: How a value reads (``25 games``, ``24 hours``, ``12h``).
    describe_value: Callable[[float], str]
    #: What a person may type, for the refusal of anything else.
    expected: str
    #: What 0 means, if it may be 0 ("no cap", "never").
    zero: str | None = None
    #: Parses a typed duration (``12h``) instead of a number.
    duration: bool = False

    def describe(self, value: float) -> str:
        if value == 0 and self.zero is not None:
            return f"0 ({self.zero})"
        return self.describe_value(value)

    def valid(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if not self.low <= value <= self.high or not math.isfinite(value):
            return False
        return not self.integer or float(value).is_integer()

    def check(self, value: Any) -> float | int:
        """``value`` (a number) if it is one of this setting's, else :class:`SettingError`."""
        if not self.valid(value):
            raise SettingError(f"`{self.name}` is {self.expected}; you gave "
                               f"`{shown(value)}`.")
        return int(value) if self.integer else float(value)

    def parse(self, text: str | float) -> float | int:
        """A typed value (``"25"``, ``"1.5"``, ``"12h"``, ``"never"``), checked; refused
        in words (:class:`SettingError`) if it is not one of this setting's."""
        if not isinstance(text, str):
            return self.check(text)
        raw = " ".join(text.lower().split())
        if self.zero is not None and raw in _ZERO_WORDS:
            return self.check(0)
        value: float | None = None
        if self.duration:
            with contextlib.suppress(ClockError):
                value = parse_duration(raw)
        elif _NUMBER.fullmatch(raw):
            value = float(raw)
        if value is None or not self.valid(value):
            raise SettingError(f"`{self.name}` is {self.expected}; you gave "
                               f"`{shown(text)}`.")
        return self.check(value)

    def stored(self, text: str) -> float | int | None:
        """A value as stored (text), or None if it is not (any longer) a valid one."""
        try:
            value = float(text)
        except (TypeError, ValueError):
            return None
        return (int(value) if self.integer else value) if self.valid(value) else None

    def to_text(self, value: float) -> str:
        return str(int(value)) if self.integer else repr(float(value))


def _games(value: float) -> str:
    return f"{int(value)} game{'s' if value != 1 else ''}"


def _hours(value: float) -> str:
    number = f"{value:g}" if value < 1e6 else f"{value:.0f}"
    return f"{number} hour{'s' if value != 1 else ''}"


def _times(value: float) -> str:
    return f"{int(value)} reminder{'s' if value != 1 else ''} per move"


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting(MAX_OPEN_GAMES, "Open games (lobbies and games under way) this server may have "
            "at once", 0, MAX_CAP, True, _games,
            f"a number of games from 0 (no cap) to {MAX_CAP}", zero="no cap"),
    Setting(LOBBY_EXPIRY_HOURS, "Hours a lobby may sit untouched before it is closed", 0,
            MAX_LOBBY_HOURS, False, _hours,
            f"a number of hours from 0 (lobbies never expire) to {MAX_LOBBY_HOURS:g}",
            zero="lobbies never expire"),
    Setting(REMINDER_EVERY, "How long a player may wait before a reminder (a channel's "
            "own setting wins)", MIN_DURATION, MAX_DURATION, False, describe_duration,
            "a duration from 1 minute to 365 days, like `12h`, `2d` or `1d12h`",
            duration=True),
    Setting(REMINDER_LIMIT, "Reminders per move before Warhost stops (a channel's own "
            "setting wins)", 0, MAX_REMINDER_LIMIT, True, _times,
            f"a number of reminders from 0 (none) to {MAX_REMINDER_LIMIT}",
            zero="no reminders"),
)}

#: Each setting's default when the environment names none.
BUILT_IN: dict[str, float] = {
    MAX_OPEN_GAMES: DEFAULT_CAP,
    LOBBY_EXPIRY_HOURS: DEFAULT_LOBBY_HOURS,
    REMINDER_EVERY: DEFAULT_REMINDER_EVERY,
    REMINDER_LIMIT: DEFAULT_REMINDER_LIMIT,
}


def setting(name: str) -> Setting:
    """The setting called ``name``, or :class:`SettingError` listing them."""
    found = SETTINGS.get(str(name).strip().lower())
    if found is None:
        raise SettingError(f"There is no setting `{shown(name)}`; the settings are "
                           + ", ".join(f"`{n}`" for n in SETTINGS) + ".")
    return found


@dataclass(frozen=True)
class Value:
    """A setting's value for one server, and whether the server chose it (else it is
    the default from the environment)."""

    value: float | int
    own: bool


class ServerSettings:
    """Each server's settings, and the values processes share (``store.server_settings``)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core
        #: The defaults (the bot sets them from its environment).
        self.defaults: dict[str, float | int] = dict(BUILT_IN)

    def use_defaults(self, values: Mapping[str, float]) -> None:
        """Take the environment's defaults (each checked like a typed value)."""
        for name, value in values.items():
            self.defaults[name] = setting(name).check(value)

    def default(self, name: str) -> float | int:
        return self.defaults.get(name, BUILT_IN[name])

    async def in_transaction(self, conn: Connection, guild_id: str | None
                             ) -> dict[str, Value]:
        """Every setting of ``guild_id`` (None: direct messages, the defaults) on an open
        connection."""
        own: dict[str, float | int] = {}
        if guild_id is not None:
            rows = await conn.execute_fetchall(
                "SELECT name, value FROM server_settings WHERE guild_id = ?", (str(guild_id),))
            for name, text in rows:
                spec = SETTINGS.get(str(name))
                value = spec.stored(text) if spec is not None else None
                if value is not None:
                    own[str(name)] = value
        return {name: Value(own[name], True) if name in own
                else Value(self.default(name), False) for name in SETTINGS}

    async def of(self, guild_id: str | None) -> dict[str, Value]:
        """Every setting's value for ``guild_id``, in the order of :data:`SETTINGS`."""
        async with self.core.reading() as conn:
            return await self.in_transaction(conn, guild_id)

    async def value(self, guild_id: str | None, name: str) -> float | int:
        """One setting's value for ``guild_id``."""
        setting(name)
        return (await self.of(guild_id))[name].value

    async def set(self, guild_id: str, name: str, value: str | float) -> float | int:
        """Set a server's setting (``value`` typed, or a number); the value set.
        Refuses in words (:class:`SettingError`) a name or value that is not one."""
        spec = setting(name)
        checked = spec.parse(value)
        async with self.core.transaction() as conn:
            await conn.execute(
                "INSERT INTO server_settings (guild_id, name, value, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (guild_id, name) DO UPDATE SET "
                "value = excluded.value, updated_at = excluded.updated_at",
                (str(guild_id), spec.name, spec.to_text(checked), self.core.now()))
            await self._touched(conn, str(guild_id), spec.name)
        return checked

    async def reset(self, guild_id: str, name: str) -> bool:
        """Back to the default; whether the server had its own value."""
        spec = setting(name)
        async with self.core.transaction() as conn:
            rows = await conn.execute_fetchall(
                "SELECT 1 FROM server_settings WHERE guild_id = ? AND name = ?",
                (str(guild_id), spec.name))
            if not rows:
                return False
            await conn.execute("DELETE FROM server_settings WHERE guild_id = ? AND name = ?",
                               (str(guild_id), spec.name))
            await self._touched(conn, str(guild_id), spec.name)
        return True

    async def overrides(self, name: str) -> dict[str, float | int]:
        """Every server's own value of one setting (guild id -> value)."""
        spec = setting(name)
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT guild_id, value FROM server_settings WHERE name = ?", (spec.name,))
        found: dict[str, float | int] = {}
        for guild, text in rows:
            value = spec.stored(text)
            if value is not None:
                found[str(guild)] = value
        return found

    async def _touched(self, conn: Connection, guild: str, name: str) -> None:
        """A reminder setting changed: the server's running games are looked at again."""
        if name in (REMINDER_EVERY, REMINDER_LIMIT):
            await conn.execute("UPDATE games SET wake_at = ? WHERE guild_id = ? AND "
                               "status = 'active'", (self.core.now(), guild))

    # -- values the bot's processes share ----------------------------------------------

    async def shared(self, name: str) -> str | None:
        """A value the processes share (None: never set)."""
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT value FROM bot_state WHERE name = ?", (str(name),)))
        return None if not rows else str(rows[0][0])

    async def share(self, name: str, value: str) -> None:
        async with self.core.transaction() as conn:
            await conn.execute(
                "INSERT INTO bot_state (name, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at", (str(name), str(value), self.core.now()))
