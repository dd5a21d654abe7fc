"""The store: games in SQLite or PostgreSQL, and :meth:`Store.apply_action`, the one
path for every move.

Concurrency model
-----------------
Where the SQL runs is :mod:`db.backend`'s business: SQLite (one writer connection
behind an asyncio lock, plus read connections in WAL mode, so reads never wait for a
write) or PostgreSQL (a connection pool). Moves hold a per-game asyncio lock first, so
moves on one game queue up in arrival order within a process. Across processes (a
second bot, shards on other machines, an admin script): SQLite serialises writers
(``BEGIN IMMEDIATE``, waiting up to :data:`db.backend.BUSY_TIMEOUT_MS`); PostgreSQL
locks the game's row (``SELECT ... FOR UPDATE``) for the transaction. Either way every
decision is made on the row read inside the transaction (the in-memory parsed state is
used only when it matches that row's version and text), and the write is guarded by
the version read (compare-and-set).

Durability
----------
SQLite: WAL journal, ``synchronous=FULL`` by default: a move that :meth:`apply_action`
returned has been fsync'd, so it survives not only the process being killed (which
``NORMAL`` already survives) but also power loss. Moves come at human speed, so one
fsync per move is worth it; pass ``synchronous="NORMAL"`` to :meth:`Store.open` to trade
that for speed. PostgreSQL: committed means durable by the server's own settings.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import db.backend as backend_module
import engine
from db import computers as cpu
from db.archive import Archiving, archive_problems, archived_entries, read_archive
from db.backend import (
    SYNCHRONOUS_MODES,
    BusyError,
    ClosedError,
    Connection,
    CorruptError,
    DatabaseError,
    IntegrityError,
    PostgresBackend,
    ReadOnlyError,
    SQLiteBackend,
    is_postgres,
    open_backend,
    redact_url,
    sqlite_file_problem,
)
from db.clocks import Interval, TimeControl, bank_after, deadline, paused_at
from db.hosting import Hosting
from db.leases import Leases
from db.limits import Limits
from db.privacy import Privacy
from db.records import (
    ABORTED,
    ACTIVE,
    BY_COMPUTER,
    BY_PLAYER,
    BY_UNDO,
    COMPUTERS_ONLY,
    DIGEST,
    FINISHED,
    FOLLOW,
    LOBBY,
    NOTICE,
    PRIVATE,
    RECAP,
    REPLY,
    STATUS,
    Announcement,
    ChannelBusy,
    GameRecord,
    LogEntry,
    MoveResult,
    NotFound,
    StoreClosed,
    StoreError,
)
from db.replay import Step, Undoable, replay, undo_event, undoable
from db.schema import SCHEMA_VERSION, migrate, user_version
from engine.core import RESIGN, Game, IllegalAction

log = logging.getLogger("warhost.db")

#: Parsed states kept in memory (one per game, most recently used).
STATE_CACHE_SIZE = 512
MAX_SEED = 2**63 - 1

_COLUMNS = ("id, kind, guild_id, channel_id, host_id, status, seats, seed, options, state, "
            "version, lobby_message_id, created_at, updated_at, digest_seq, decisions, "
            "timing, nudges, wake_at")
_ANNOUNCEMENT_COLUMNS = ("id, game_id, seq, kind, recipient, payload, secret, created_at, "
                         "delivered_at, message_id")
_OPEN = "status IN ('lobby', 'active')"

Row = Sequence[Any]


def canonical_json(value: Any) -> str:
    """The one JSON spelling the log stores (sorted keys, no spaces, no NaN)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def _record(row: Row) -> GameRecord:
    return GameRecord(
        id=int(row[0]), kind=row[1], guild_id=row[2], channel_id=row[3], host_id=row[4],
        status=row[5], seats=tuple(json.loads(row[6])), seed=int(row[7]),
        options=json.loads(row[8]), state=row[9], version=int(row[10]),
        lobby_message_id=row[11], created_at=float(row[12]), updated_at=float(row[13]),
        digest_seq=int(row[14]), decisions=json.loads(row[15]), timing=json.loads(row[16]),
        nudges=json.loads(row[17]), wake_at=None if row[18] is None else float(row[18]))


#: The columns of a log row, in the order :func:`_entries` reads them.
_LOG_COLUMNS = "seq, player, action, events, created_at, origin"


def _entries(rows: Iterable[Row]) -> list[LogEntry]:
    """Log rows (:data:`_LOG_COLUMNS`) as entries, in the given order."""
    return [LogEntry(int(r[0]), r[1], r[2], json.loads(r[3]), float(r[4]), r[5]) for r in rows]


def _announcement(row: Row) -> Announcement:
    return Announcement(
        id=int(row[0]), game_id=int(row[1]), seq=int(row[2]), kind=row[3], recipient=row[4],
        payload=json.loads(row[5]), secret=row[6], created_at=float(row[7]),
        delivered_at=None if row[8] is None else float(row[8]), message_id=row[9])


def _game_name(kind: str) -> str:
    game = engine.GAMES.get(kind)
    return game.name if game is not None else kind.title()


def _describe(record: GameRecord) -> str:
    where = "in the lobby" if record.status == LOBBY else "under way"
    return f"{_game_name(record.kind)}, #{record.id}, {where}"


def _mention(user_id: str) -> str:
    return f"<@{user_id}>"


def _not_in_lobby(record: GameRecord) -> str:
    if record.status == ACTIVE:
        return f"Game #{record.id} has already started; the seats can no longer change."
    return f"Game #{record.id} is over."


def _gid(value: Any) -> int:
    """Game ids are ints; digits in text (from a custom_id, say) are accepted too."""
    if isinstance(value, str) and value.strip().lstrip("#").isdigit():
        return int(value.strip().lstrip("#"))
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotFound(f"There is no game #{value}.")
    return value


def _check_running(record: GameRecord) -> None:
    """Refuse actions on a game that is not under way."""
    if record.status == LOBBY:
        raise IllegalAction("This game has not started yet.")
    if record.status == FINISHED:
        raise IllegalAction("This game is over.")
    if record.status == ABORTED:
        raise IllegalAction("This game is over: it was aborted.")


#: Most actions one undo takes back.
MAX_UNDO = 50


def undo_count(action: object) -> int | None:
    """``"undo"`` -> 1, ``"undo 3"`` -> 3; None for any other action (the game's own)."""
    if not isinstance(action, str):
        return None
    words = action.strip().lower().split()
    if not words or words[0] != "undo":
        return None
    if len(words) == 1:
        return 1
    if len(words) == 2 and words[1].isdigit() and 1 <= int(words[1]) <= MAX_UNDO:
        return int(words[1])
    raise IllegalAction(f"Write `undo` or `undo N` (N from 1 to {MAX_UNDO}).")


def _id(value: Any, what: str) -> str:
    """Discord snowflakes arrive as int or str; the store keeps text."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value) == "":
        raise StoreError(f"Internal error: {what} must be a Discord id, not {value!r}.")
    return str(value)


#: How long Discord lets a bot answer an interaction (15 minutes), less a safety margin.
INTERACTION_TOKEN_LIFE = 15 * 60 - 60

#: A decision off one's turn lists its choices in the digest when there are this few.
DECISION_CHOICES_SHOWN = 8

STALE_ACTION = ("That was sent before your current turn began (the game moved on while it "
                "was on its way), so it was not applied. Look at the board and choose again.")


@dataclass(frozen=True)
class Turn:
    """Who is up: whose turn it is, who must act, and whether it is over."""

    current: str | None
    to_act: tuple[str, ...]
    over: bool

    @classmethod
    def of(cls, game: Game[Any], state: Any) -> Turn:
        return cls(game.current_turn(state), tuple(game.to_act(state)),
                   game.outcome(state) is not None)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Turn) and self.current == other.current
                and set(self.to_act) == set(other.to_act) and self.over == other.over)

    def __hash__(self) -> int:
        return hash((self.current, frozenset(self.to_act), self.over))

    def decisions(self, known: dict[str, float], before: Turn | None,
                  now: float) -> dict[str, float]:
        """When each player who must act now began deciding: ``now`` for those who just
        became due (or whose turn just began), unchanged for the rest."""
        began: dict[str, float] = {}
        for p in self.to_act:
            fresh = (before is None or p not in before.to_act
                     or (p == self.current and before.current != self.current))
            if fresh:
                began[p] = now
            elif p in known:
                began[p] = known[p]
        return began


def digest_payload(game: Game[Any], state: Any, first: int, last: int,
                   turn: Turn | None = None) -> dict[str, Any]:
    """What a turn digest of moves ``first``..``last`` needs of the position it ends at
    (public only): the view, who must act, a few choices for an off-turn decision."""
    turn = turn or Turn.of(game, state)
    outcome = game.outcome(state)
    choices: list[str] = []
    if len(turn.to_act) == 1 and turn.to_act[0] != turn.current:
        legal = game.legal_actions(state, turn.to_act[0])
        if len(legal) <= DECISION_CHOICES_SHOWN:
            choices = list(legal)
    return {"first": first, "last": last, "view": game.view(state, None),
            "to_act": list(turn.to_act), "current": turn.current, "choices": choices,
            "outcome": None if outcome is None else outcome.to_json()}


def _unopenable(where: str, setting: str, exc: DatabaseError) -> str:
    """Why a database cannot be opened, and what to do, for whoever starts the bot."""
    if isinstance(exc, CorruptError):
        return (f"The database {where} is damaged ({exc}). Restore the latest backup "
                "(`python -m db restore BACKUP_FILE`, see docs/backups.md), or point "
                f"{setting} at another database.")
    if isinstance(exc, ReadOnlyError):
        return (f"The database {where} is read-only ({exc}); Warhost must write to it. "
                f"Fix its permissions or mount, or point {setting} at a writable one.")
    if isinstance(exc, BusyError):
        return (f"The database {where} is locked by another program ({exc}). Stop it, or "
                "wait and start again.")
    return (f"Cannot open the database {where}: {exc}. Check {setting} points at a Warhost "
            "database (or a new file) and that the bot can reach it.")


def database_failed(exc: DatabaseError, *, written: bool) -> str:
    """A database error during a request, worded for the player who made it."""
    nothing = " Nothing was saved." if written else ""
    if isinstance(exc, ClosedError):
        return str(exc)
    if isinstance(exc, BusyError):
        return ("The game database is busy (another process has held it for more than "
                f"{backend_module.BUSY_TIMEOUT_MS / 1000:g} s).{nothing} Try again in a moment.")
    if isinstance(exc, CorruptError):
        return (f"The game database is damaged ({exc}).{nothing} Trying again will not "
                "help: ask the bot's admin to restore a backup (docs/backups.md).")
    if isinstance(exc, ReadOnlyError):
        return (f"The game database has become read-only ({exc}).{nothing} Ask the bot's "
                "admin to check its disk and permissions.")
    if isinstance(exc, IntegrityError):
        return (f"The game database refused the change ({exc}).{nothing} This is a bug; "
                "please tell the bot's admin.")
    return f"The game database failed ({exc}).{nothing} Try again; if it keeps failing, " \
           "tell the bot's admin."


async def _check_and_migrate(backend: SQLiteBackend | PostgresBackend, where: str,
                             setting: str) -> None:
    """The checks at start (see :meth:`Store.open`), then the migrations (which refuse
    another application's database, under their lock)."""
    async with backend.reading() as conn:
        if conn.dialect == "sqlite":
            found = [str(r[0]) for r in await conn.execute_fetchall("PRAGMA quick_check")]
            if found != ["ok"]:
                raise CorruptError("; ".join(found[:3]))
        version = await user_version(conn)
        if 0 < version <= SCHEMA_VERSION:
            names = {str(r[0]) for r in await conn.execute_fetchall(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                if conn.dialect == "sqlite" else
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()")}
            if not {"games", "actions"} <= names:
                shown = ", ".join(sorted(names)[:5]) or "none"
                raise StoreError(f"The database {where} has a schema version but not "
                                 f"Warhost's tables (it has: {shown}); it belongs to another "
                                 f"application. Point {setting} at a new file or database.")
    await migrate(backend, where)
    async with backend.transaction() as conn:
        # Prove the database takes writes now, not at the first player's move.
        if conn.dialect == "sqlite":
            await conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
        else:
            rows = await conn.execute_fetchall("SHOW transaction_read_only")
            if str(rows[0][0]).lower() == "on":
                raise ReadOnlyError("the server is a read-only replica")
            await conn.execute("UPDATE warhost_schema SET version = version")


class Store(Hosting, Leases, Limits, Privacy, Archiving):
    """Warhost's games, persisted. Create with ``await Store.open(path_or_url)``."""

    def __init__(self, backend: SQLiteBackend | PostgresBackend,
                 clock: Callable[[], float] | None = None) -> None:
        self.backend = backend
        #: ``"sqlite"`` or ``"postgresql"``.
        self.dialect = backend.dialect
        #: Where the data is (a file path, or the URL without its password), for messages.
        self.path = backend.where
        #: What time it is (epoch seconds): every timestamp the store writes comes from
        #: here, so tests run weeks of a game in a moment by injecting a clock.
        self.now: Callable[[], float] = clock or time.time
        self._game_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        # game id -> (version, dump text, parsed state); most recently used last.
        self._states: OrderedDict[int, tuple[int, str, Any]] = OrderedDict()

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(cls, target: str, *, synchronous: str = "FULL",
                   clock: Callable[[], float] | None = None) -> Store:
        """Open (creating and migrating as needed) the database at ``target``: a SQLite
        file path, or a ``postgresql://`` URL.

        Before anything is written, the database is checked, and :class:`StoreError`
        says what is wrong and what to do: a file the bot cannot write, a damaged file
        (``PRAGMA quick_check``), another application's database, one written by a newer
        Warhost, a read-only database, an unreachable server.
        """
        if synchronous.upper() not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}")
        where = redact_url(target) if is_postgres(target) else target
        setting = "DATABASE_URL" if is_postgres(target) else "DATABASE_PATH"
        if not is_postgres(target):
            problem = sqlite_file_problem(target)
            if problem is not None:
                raise StoreError(f"Cannot use the database {where}: {problem}. Fix the "
                                 f"permissions, or point {setting} at another file.")
        try:
            backend = await open_backend(target, synchronous)
        except DatabaseError as exc:
            raise StoreError(_unopenable(where, setting, exc)) from exc
        try:
            await _check_and_migrate(backend, where, setting)
        except DatabaseError as exc:
            await backend.close()
            raise StoreError(_unopenable(where, setting, exc)) from exc
        except BaseException:
            await backend.close()
            raise
        return cls(backend, clock)

    async def close(self) -> None:
        """Close the database (waits for an operation under way to finish)."""
        await self.backend.close()
        self._states.clear()

    # ------------------------------------------------------------------ plumbing

    def _game_lock(self, game_id: int) -> asyncio.Lock:
        lock = self._game_locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._game_locks[game_id] = lock
        return lock

    @asynccontextmanager
    async def _reading(self, snapshot: bool = False) -> AsyncIterator[Connection]:
        """A connection for reads outside any transaction of ours (``snapshot``: every
        statement sees the same moment). Database errors become :class:`StoreError`."""
        try:
            async with self.backend.reading(snapshot) as conn:
                yield conn
        except ClosedError as exc:
            raise StoreClosed(str(exc)) from exc
        except DatabaseError as exc:
            raise StoreError(database_failed(exc, written=False)) from exc

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Connection]:
        """A write transaction; any exception rolls everything back, and a database
        error becomes a :class:`StoreError` that says nothing was saved."""
        try:
            async with self.backend.transaction() as conn:
                yield conn
        except ClosedError as exc:
            raise StoreClosed(str(exc)) from exc
        except DatabaseError as exc:
            raise StoreError(database_failed(exc, written=True)) from exc

    async def _fetch(self, conn: Connection, game_id: int) -> GameRecord:
        """The game's row; in a PostgreSQL write transaction it stays locked until
        commit, which queues every process's writers of this game one after another."""
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise NotFound(f"There is no game #{game_id}.")
        rows = list(await conn.execute_fetchall(
            f"SELECT {_COLUMNS} FROM games WHERE id = ?{conn.for_update}", (game_id,)))
        if not rows:
            raise NotFound(f"There is no game #{game_id}.")
        return _record(rows[0])

    async def _open_in_channel(self, conn: Connection,
                               channel_id: str) -> GameRecord | None:
        rows = list(await conn.execute_fetchall(
            f"SELECT {_COLUMNS} FROM games WHERE channel_id = ? AND {_OPEN}", (channel_id,)))
        return _record(rows[0]) if rows else None

    async def _write(self, conn: Connection, old: GameRecord,
                     **changes: Any) -> GameRecord:
        """Save ``changes`` to a game read in this transaction (guarded by its version)."""
        new = replace(old, updated_at=self.now(), **changes)
        sql_values = {
            "status": new.status, "seats": canonical_json(list(new.seats)),
            "host_id": new.host_id, "seed": new.seed, "state": new.state,
            "version": new.version, "lobby_message_id": new.lobby_message_id,
            "updated_at": new.updated_at, "digest_seq": new.digest_seq,
            "decisions": canonical_json(new.decisions), "timing": canonical_json(new.timing),
            "nudges": canonical_json(new.nudges), "wake_at": new.wake_at,
        }
        columns = ", ".join(f"{name} = ?" for name in sql_values)
        cursor = await conn.execute(
            f"UPDATE games SET {columns} WHERE id = ? AND version = ?",
            (*sql_values.values(), old.id, old.version))
        if cursor.rowcount != 1:
            raise StoreError(f"Game #{old.id} changed while it was being saved; try again.")
        return new

    @staticmethod
    def _game(kind: str) -> Game[Any]:
        return engine.get_game(kind)

    # ------------------------------------------------------------------ the state cache

    def _remember(self, game_id: int, version: int, text: str, state: Any) -> None:
        known = self._states.get(game_id)
        if known is not None and known[0] > version:
            return                      # never replace a newer position with an older one
        self._states[game_id] = (version, text, state)
        self._states.move_to_end(game_id)
        while len(self._states) > STATE_CACHE_SIZE:
            self._states.popitem(last=False)

    def load_state(self, record: GameRecord) -> Any:
        """The engine state of ``record`` (parsed once per version, then cached).

        The returned object is shared: treat it as read-only (the engine never mutates
        states; it returns new ones).
        """
        if record.state is None:
            raise StoreError(f"Game #{record.id} has not started yet, so it has no position.")
        known = self._states.get(record.id)
        if known is not None and known[0] == record.version and known[1] == record.state:
            self._states.move_to_end(record.id)
            return known[2]
        game = self._game(record.kind)
        try:
            state = game.load(record.state)
        except IllegalAction as exc:
            raise StoreError(f"Game #{record.id}'s saved position cannot be read ({exc}); "
                             "ask an admin to check the database.") from exc
        self._remember(record.id, record.version, record.state, state)
        return state

    # ------------------------------------------------------------------ lobby

    async def create_lobby(self, kind: str, guild_id: str | None, channel_id: str,
                           host_id: str, options: dict[str, Any] | None = None,
                           control: TimeControl | None = None, *, computers: int = 0,
                           level: str | None = None, takeover: bool = False) -> GameRecord:
        """A new game in its lobby, the host in seat 1, with an optional time control.

        ``computers`` seats after the host's go to computer players of ``level`` (see
        :mod:`db.computers`); with ``takeover``, a player whose clock runs out hands their
        seat to the computer instead of having the safe default played.

        Raises :class:`ChannelBusy` if the channel already has an open game, and
        ``IllegalAction`` for an unknown kind or bad options.
        """
        game = self._game(kind)
        resolved = game.resolve_options(options)
        try:
            chosen_level = cpu.level_of(level)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from None
        if isinstance(computers, bool) or not isinstance(computers, int) or not \
                0 <= computers < game.max_players:
            raise IllegalAction(f"{game.name} seats at most {game.max_players} players, so "
                                f"the host can add 0-{game.max_players - 1} computers.")
        bots = [cpu.computer_seat(n) for n in range(1, computers + 1)]
        timing: dict[str, Any] = {} if control is None else {"control": control.to_json()}
        if bots or takeover or level is not None:
            timing.update(computers=dict.fromkeys(bots, chosen_level),
                          computer_level=chosen_level, takeover=bool(takeover))
        try:
            options_json = canonical_json(resolved)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"Those options cannot be saved: {exc}.") from exc
        guild = None if guild_id is None else _id(guild_id, "guild_id")
        channel = _id(channel_id, "channel_id")
        host = _id(host_id, "host_id")
        now = self.now()
        async with self._transaction() as conn:
            busy = await self._open_in_channel(conn, channel)
            if busy is None:
                # A create racing ours (another process) may insert first; the unique
                # index then makes this insert nothing, and the winner is reported.
                cursor = await conn.execute(
                    "INSERT INTO games (kind, guild_id, channel_id, host_id, status, seats, "
                    "seed, options, state, version, created_at, updated_at, timing) "
                    "VALUES (?, ?, ?, ?, 'lobby', ?, 0, ?, NULL, 0, ?, ?, ?) "
                    "ON CONFLICT (channel_id) WHERE status IN ('lobby', 'active') DO NOTHING",
                    (kind, guild, channel, host, canonical_json([host, *bots]), options_json,
                     now, now, canonical_json(timing)))
                if cursor.rowcount == 1 and cursor.lastrowid is not None:
                    return await self._fetch(conn, cursor.lastrowid)
                busy = await self._open_in_channel(conn, channel)
                if busy is None:
                    raise StoreError("Another game was being opened in this channel at the "
                                     "same moment; try again.")
            raise ChannelBusy(
                f"This channel already has a game ({_describe(busy)}). Finish or abort it "
                "first, or open a thread.")

    async def join(self, game_id: int, user_id: str) -> GameRecord:
        """Seat ``user_id`` last. Refused unless in the lobby, not seated, not full."""
        game_id = _gid(game_id)
        user = _id(user_id, "user_id")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if record.status != LOBBY:
                raise StoreError(_not_in_lobby(record))
            if user in record.seats:
                raise StoreError(f"You are already seated in game #{record.id}.")
            game = self._game(record.kind)
            if len(record.seats) >= game.max_players:
                raise StoreError(f"Game #{record.id} is full ({len(record.seats)}/"
                                 f"{game.max_players} players).")
            return await self._write(conn, record, seats=(*record.seats, user))

    async def leave(self, game_id: int, user_id: str) -> GameRecord:
        """Give up a seat in the lobby.

        A leaving host hands over to the player seated after them; when the last
        player leaves, the game is aborted.
        """
        game_id = _gid(game_id)
        user = _id(user_id, "user_id")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if record.status == ACTIVE:
                raise StoreError(f"Game #{record.id} has already started; to leave it, "
                                 "resign.")
            if record.status != LOBBY:
                raise StoreError(_not_in_lobby(record))
            if user not in record.seats:
                raise StoreError(f"You are not seated in game #{record.id}.")
            index = record.seats.index(user)
            seats = record.seats[:index] + record.seats[index + 1:]
            people = cpu.humans(seats)
            if not people:     # nobody left to play against the computers
                return await self._write(conn, record, seats=seats, status=ABORTED)
            host = record.host_id
            if user == host:
                after = [*seats[index:], *seats[:index]]
                host = next(s for s in after if s in people)
            return await self._write(conn, record, seats=seats, host_id=host)

    async def _host_in_lobby(self, conn: Connection, game_id: int, user: str,
                             doing: str) -> GameRecord:
        """The lobby ``user`` hosts, read for a change only its host may make."""
        record = await self._fetch(conn, game_id)
        if record.status != LOBBY:
            raise StoreError(_not_in_lobby(record))
        if user != record.host_id:
            raise StoreError(f"Only the host, {_mention(record.host_id)}, can {doing}.")
        return record

    async def add_computer(self, game_id: int, by_user: str,
                           level: str | None = None) -> GameRecord:
        """The host seats a computer player last (the table's level unless ``level``)."""
        game_id = _gid(game_id)
        user = _id(by_user, "by_user")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._host_in_lobby(conn, game_id, user, "add computer players")
            game = self._game(record.kind)
            if len(record.seats) >= game.max_players:
                raise StoreError(f"Game #{record.id} is full ({len(record.seats)}/"
                                 f"{game.max_players} players).")
            try:
                chosen = cpu.level_of(level or cpu.table_level(record.timing))
            except ValueError as exc:
                raise StoreError(str(exc)) from None
            seat = cpu.next_computer_seat(record.seats)
            timing = {**record.timing, "computer_level": cpu.table_level(record.timing),
                      "computers": {**cpu.computers(record.timing), seat: chosen}}
            return await self._write(conn, record, seats=(*record.seats, seat), timing=timing)

    async def remove_computer(self, game_id: int, by_user: str) -> GameRecord:
        """The host gives the last computer seat up."""
        game_id = _gid(game_id)
        user = _id(by_user, "by_user")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._host_in_lobby(conn, game_id, user,
                                               "remove computer players")
            bots = [s for s in record.seats if cpu.is_computer_seat(s)]
            if not bots:
                raise StoreError(f"Game #{record.id} has no computer players.")
            seat = bots[-1]
            left = {k: v for k, v in cpu.computers(record.timing).items() if k != seat}
            return await self._write(conn, record,
                                     seats=tuple(s for s in record.seats if s != seat),
                                     timing={**record.timing, "computers": left})

    async def reclaim_seat(self, game_id: int, user_id: str) -> GameRecord:
        """``user_id`` is back: the computer that took their seat over gives it up (their
        next decision is theirs again; any move of theirs does the same)."""
        game_id = _gid(game_id)
        user = _id(user_id, "user_id")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            _check_running(record)
            played_by = cpu.computers(record.timing)
            if user not in played_by or cpu.is_computer_seat(user):
                raise StoreError(f"The computer is not playing your seat in game "
                                 f"#{record.id}.")
            del played_by[user]
            return await self._write(conn, record, timing={**record.timing,
                                                           "computers": played_by})

    async def set_seats(self, game_id: int, seats: list[str]) -> GameRecord:
        """Reorder the lobby: ``seats`` must be the seated players in a new order."""
        game_id = _gid(game_id)
        new_seats = tuple(_id(s, "seat") for s in seats)
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if record.status != LOBBY:
                raise StoreError(_not_in_lobby(record))
            if (len(new_seats) != len(record.seats)
                    or sorted(new_seats) != sorted(record.seats)):
                seated = ", ".join(map(_mention, record.seats))
                raise StoreError("The new seating must list each seated player exactly "
                                 f"once: {seated}.")
            return await self._write(conn, record, seats=new_seats)

    async def start(self, game_id: int, by_user: str, seed: int | None = None) -> GameRecord:
        """Start the game (host only, enough players); the position is dealt from ``seed``."""
        game_id = _gid(game_id)
        user = _id(by_user, "by_user")
        if seed is None:
            seed = secrets.randbits(63)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise StoreError(f"A seed must be a whole number from 0 to {MAX_SEED}.")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if record.status != LOBBY:
                raise StoreError(f"Game #{record.id} has already started." if
                                 record.status == ACTIVE else _not_in_lobby(record))
            if user != record.host_id:
                raise StoreError(f"Only the host, {_mention(record.host_id)}, can start "
                                 f"game #{record.id}.")
            game = self._game(record.kind)
            if len(record.seats) < game.min_players:
                raise StoreError(
                    f"{game.name} needs at least {game.min_players} players; "
                    f"{len(record.seats)} seated. Wait for more players to join.")
            state = game.new_game(list(record.seats), seed, dict(record.options))
            text = game.dump(state)
            now = self.now()
            turn = Turn.of(game, state)
            timing = record.timing
            control = TimeControl.from_json(timing.get("control"))
            if control is not None and control.bank is not None:
                timing = {**timing, "banks": {p: control.bank for p in record.seats}}
            started = await self._write(conn, record, status=ACTIVE, seed=seed, state=text,
                                        version=0, digest_seq=0, timing=timing,
                                        decisions=turn.decisions({}, None, now), wake_at=now)
            # The opening digest: the board and who moves first.
            await self._announce_digest(conn, game, started, state, 1, 0, turn, now)
        self._remember(started.id, 0, text, state)
        return started

    async def abort(self, game_id: int) -> GameRecord:
        """End a game in its lobby or under way, with no result."""
        game_id = _gid(game_id)
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if not record.is_open:
                raise StoreError(f"Game #{record.id} is already over.")
            return await self._write(conn, record, status=ABORTED)

    async def set_lobby_message(self, game_id: int, message_id: str | None) -> None:
        """Remember the Discord message that shows the lobby."""
        game_id = _gid(game_id)
        message = None if message_id is None else _id(message_id, "message_id")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            await self._write(conn, record, lobby_message_id=message)

    # ------------------------------------------------------------------ reading

    async def get(self, game_id: int) -> GameRecord:
        """The game with that id; :class:`NotFound` if there is none."""
        game_id = _gid(game_id)
        async with self._reading() as conn:
            return await self._fetch(conn, game_id)

    async def active_in_channel(self, channel_id: str) -> GameRecord | None:
        """The channel's game in the lobby or under way, if any."""
        async with self._reading() as conn:
            return await self._open_in_channel(conn, str(channel_id))

    async def list_active(self, guild_id: str | None) -> list[GameRecord]:
        """Every game in a lobby or under way in the guild (None: direct messages)."""
        guild = None if guild_id is None else str(guild_id)
        async with self._reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_COLUMNS} FROM games WHERE guild_id IS NOT DISTINCT FROM ? "
                f"AND {_OPEN} ORDER BY id",
                (guild,))
        return [_record(row) for row in rows]

    async def log(self, game_id: int, limit: int = 20) -> list[LogEntry]:
        """The last ``limit`` accepted actions, oldest first (newest last)."""
        game_id = _gid(game_id)
        async with self._reading() as conn:
            await self._fetch(conn, game_id)
            rows = list(await conn.execute_fetchall(
                f"SELECT {_LOG_COLUMNS} FROM actions "
                "WHERE game_id = ? ORDER BY seq DESC LIMIT ?", (game_id, max(0, limit))))
            if not rows and limit > 0:
                archived = await archived_entries(conn, game_id)
                if archived is not None:
                    return archived[-limit:]
        return _entries(reversed(rows))

    # ------------------------------------------------------------------ moves

    async def apply_action(self, game_id: int, player: str, action: str,
                           request_id: str | None = None, *, sent_at: float | None = None,
                           reply_to: dict[str, str] | None = None,
                           expect_version: int | None = None,
                           by_computer: bool = False) -> MoveResult:
        """Apply one action: the only way any game state ever changes.

        Under the game's lock and one ``BEGIN IMMEDIATE`` transaction: read the game,
        return the stored result if ``request_id`` was already applied
        (``duplicate=True``), refuse unless the game is active, refuse an action
        ``sent_at`` (epoch seconds) before the player's current decision began (it was
        chosen for an earlier one), apply through the engine (``IllegalAction`` is
        re-raised unchanged, nothing written), append to the log, save the snapshot
        (guarded by the version read), mark it finished if the engine says it is over,
        save the announcements the action makes due, commit. Any failure leaves the
        database as it was.

        ``undo`` (or ``undo N``) is the platform's own action: it takes back the
        player's last N actions of their turn (see :func:`db.replay.undoable`), and is
        logged like any other. ``expect_version`` refuses the action if the game has
        moved since the player looked (an undo confirmed from its preview).

        Announcements: the turn digest when the turn passes, the players to act change,
        someone resigns or the game ends (with copies for followers, the status
        message's refresh and, at the end, the recap); each player's private events;
        and, with ``reply_to`` (``application_id``, ``token``, ``interaction_id`` of the
        Discord interaction that sent the action), the answer to that interaction.

        ``by_computer``: the computer chose it for a seat it plays (logged as such, and
        refused if the seat is no longer the computer's). A human acting on their own
        seat while the computer holds it takes the seat back.
        """
        game_id = _gid(game_id)
        player = _id(player, "player")
        async with self._game_lock(game_id):
            async with self._transaction() as conn:
                record = await self._fetch(conn, game_id)
                if request_id is not None:
                    request_id = str(request_id)
                    rows = list(await conn.execute_fetchall(
                        "SELECT game_id, seq, player, action, events FROM actions "
                        "WHERE request_id = ?", (request_id,)))
                    if rows:
                        return self._duplicate(record, rows[0], player, action)
                _check_running(record)
                if expect_version is not None and record.version != expect_version:
                    raise IllegalAction("The game has moved on since you looked; look again.")
                resigning = isinstance(action, str) and action.strip().lower() == RESIGN
                began = record.decisions.get(player)
                if sent_at is not None and began is not None and sent_at < began \
                        and not resigning:
                    raise IllegalAction(STALE_ACTION)
                game = self._game(record.kind)
                state = self.load_state(record)
                count = undo_count(action)
                played_by = cpu.computers(record.timing)
                if by_computer:
                    if player not in played_by:
                        raise IllegalAction(f"The computer no longer plays {player}'s seat.")
                    new_state, events = game.apply(state, player, action)
                    origin = BY_COMPUTER
                elif count is not None:
                    new_state, events = await self._undo(conn, game, record, player, count)
                    origin = BY_UNDO
                else:
                    new_state, events = game.apply(state, player, action)
                    origin = BY_PLAYER
                if not by_computer and player in played_by:
                    # back from being away: the seat is theirs again
                    del played_by[player]
                    record = await self._write(conn, record, timing={
                        **record.timing, "computers": played_by})
                move = await self._commit(conn, game, record, state, new_state, player, action,
                                          events, origin=origin, request_id=request_id,
                                          reply_to=reply_to)
            # Committed: only now does the cache learn the new position.
            self._remember(move.record.id, move.seq, move.record.state or "", new_state)
            return move

    async def _commit(self, conn: Connection, game: Game[Any], record: GameRecord,
                      state: Any, new_state: Any, player: str, action: str,
                      events: list[dict[str, Any]], *, origin: str,
                      request_id: str | None = None,
                      reply_to: dict[str, str] | None = None) -> MoveResult:
        """Log an applied action and save its position, clocks and announcements, in the
        caller's transaction (on a game read in it)."""
        try:
            events_json = canonical_json(events)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"Internal error: {record.kind} produced events that "
                             f"cannot be saved ({exc}); nothing was saved.") from exc
        text = game.dump(new_state)
        now = self.now()
        before, after = Turn.of(game, state), Turn.of(game, new_state)
        seq = record.version + 1
        await conn.execute(
            "INSERT INTO actions (game_id, seq, player, action, events, request_id, "
            "created_at, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, seq, player, action, events_json, request_id, now, origin))
        resigning = isinstance(action, str) and action.strip().lower() == RESIGN
        digest = after.over or after != before or resigning
        decisions = after.decisions(record.decisions, before, now)
        timing = await self._charge_clocks(conn, record, decisions, now)
        changed = decisions != record.decisions
        played_by = cpu.computers(timing)
        status = FINISHED if after.over else ACTIVE
        if played_by:
            streak = int(timing.get("computer_streak") or 0) + 1 \
                if origin == BY_COMPUTER else 0
            timing = {**timing, "computer_streak": streak}
            if not after.over and (streak >= cpu.MAX_COMPUTER_STREAK or (
                    resigning and origin != BY_COMPUTER
                    and not await self._humans_left(conn, record, player))):
                status = ABORTED        # only computers would play on
                digest = True
            elif not after.over and any(p in played_by for p in after.to_act):
                changed = True          # the scheduler hands the decision to the computer
        saved = await self._write(
            conn, record, state=text, version=seq, status=status,
            digest_seq=seq if digest else record.digest_seq,
            decisions=decisions, timing=timing,
            wake_at=None if status != ACTIVE else (now if changed else record.wake_at))
        made = await self._announce_move(conn, game, saved, record.digest_seq, seq,
                                         player, events, new_state, after, digest,
                                         reply_to, now)
        if status == ABORTED:
            made.append(await self._announce(conn, record.id, seq, NOTICE, None, {
                "type": COMPUTERS_ONLY, "streak": int(timing.get("computer_streak") or 0)},
                now=now))
        return MoveResult(saved, new_state, json.loads(events_json), seq, False, tuple(made))

    async def _humans_left(self, conn: Connection, record: GameRecord,
                           resigning: str) -> bool:
        """Whether a person is still in the game once ``resigning`` is out."""
        rows = await conn.execute_fetchall(
            "SELECT DISTINCT player FROM actions WHERE game_id = ? "
            "AND lower(trim(action)) = ?",
            (record.id, RESIGN))
        gone = {str(r[0]) for r in rows} | {resigning}
        return any(p not in gone for p in cpu.humans(record.seats))

    async def _charge_clocks(self, conn: Connection, record: GameRecord,
                             decisions: dict[str, float], now: float) -> dict[str, Any]:
        """The game's timing after decisions end: with a bank, each player whose decision
        ended pays the (un-paused) time it took and gains the increment."""
        control = TimeControl.from_json(record.timing.get("control"))
        if control is None or control.per_move is not None:
            return record.timing
        ended = [p for p, began in record.decisions.items() if decisions.get(p) != began]
        if not ended:
            return record.timing
        pauses = await self._pauses(conn, record.guild_id, ended, now)
        banks = dict(record.timing.get("banks") or {})
        for p in ended:
            banks[p] = bank_after(control, banks.get(p), record.decisions[p], now,
                                  pauses.get(p, []))
        return {**record.timing, "banks": banks}

    async def _pauses(self, conn: Connection, guild_id: str | None,
                      users: Iterable[str], since: float) -> dict[str, list[Interval]]:
        """Each user's vacations on the server that end after ``since``."""
        found: dict[str, list[Interval]] = {}
        wanted = list(dict.fromkeys(users))
        if guild_id is None or not wanted:
            return found
        marks = ", ".join("?" for _ in wanted)
        rows = await conn.execute_fetchall(
            f"SELECT user_id, starts_at, ends_at FROM vacations WHERE guild_id = ? AND "
            f"user_id IN ({marks}) AND ends_at > ? ORDER BY starts_at, id",
            (guild_id, *wanted, since - 400 * 86400))
        for user, start, end in rows:
            found.setdefault(user, []).append((float(start), float(end)))
        return found

    def _clock_payload(self, record: GameRecord, turn: Turn,
                       pauses: dict[str, list[Interval]], now: float) -> dict[str, Any]:
        """Public time facts for a digest or status: each waited-for player's deadline
        and who of them is on vacation (until when)."""
        control = TimeControl.from_json(record.timing.get("control"))
        deadlines: dict[str, float] = {}
        away: dict[str, float] = {}
        played_by = cpu.computers(record.timing)
        for p in turn.to_act:
            if p in played_by:
                continue            # a computer keeps no clock
            mine = pauses.get(p, [])
            on = paused_at(mine, now)
            if on is not None:
                away[p] = on[1]
            began = record.decisions.get(p)
            if control is not None and began is not None:
                banks = record.timing.get("banks") or {}
                due = deadline(control, began, banks.get(p), mine)
                if due is not None:
                    deadlines[p] = due
        return {"deadlines": deadlines, "vacations": away,
                "timeouts": dict(record.timing.get("timeouts") or {}),
                "clock": None if control is None else control.describe()}

    async def _undo(self, conn: Connection, game: Game[Any], record: GameRecord,
                    player: str, count: int) -> tuple[Any, list[dict[str, Any]]]:
        """The position after taking back ``player``'s last ``count`` actions, and the
        undo's event; refuses (IllegalAction) what may not be taken back, saying why."""
        steps = await self._steps(conn, record)
        allowed = undoable(game, steps, player, record.digest_seq)
        if count > len(allowed.seqs):
            why = f" ({allowed.stop})" if allowed.stop else ""
            if not allowed.seqs:
                raise IllegalAction(f"You have nothing to undo{why}.")
            raise IllegalAction(f"You can undo at most {len(allowed.seqs)} "
                                f"action{'s' if len(allowed.seqs) != 1 else ''}{why}.")
        seqs = sorted(allowed.seqs[:count])
        positions = {step.entry.seq: step.before for step in steps}
        return positions[seqs[0]], [undo_event(seqs)]

    async def _steps(self, conn: Connection, record: GameRecord) -> list[Step]:
        return self._replayed(record, await self._log_of(conn, record.id))

    @staticmethod
    async def _log_of(conn: Connection, game_id: int) -> list[LogEntry]:
        return _entries(await conn.execute_fetchall(
            f"SELECT {_LOG_COLUMNS} FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)))

    def _replayed(self, record: GameRecord, entries: list[LogEntry]) -> list[Step]:
        try:
            return list(replay(self._game(record.kind), record.seats, record.seed,
                               record.options, entries))
        except (IllegalAction, ValueError) as exc:
            raise StoreError(f"Game #{record.id}'s log cannot be replayed ({exc}); ask an "
                             "admin to check the database.") from exc

    async def _snapshot(self, game_id: int) -> tuple[GameRecord, list[LogEntry]]:
        """A game and its log, read together (replayed by the caller, off the connection)."""
        async with self._reading(snapshot=True) as conn:     # the row and the log together
            record = await self._fetch(conn, game_id)
            entries = await self._log_of(conn, game_id)
        return record, entries

    async def undo_preview(self, game_id: int, player: str) -> Undoable:
        """What ``player`` could take back now in ``game_id`` (nothing is changed)."""
        record, entries = await self._snapshot(_gid(game_id))
        _check_running(record)
        return undoable(self._game(record.kind), self._replayed(record, entries), str(player),
                        record.digest_seq)

    async def replay_steps(self, game_id: int) -> tuple[GameRecord, list[Step]]:
        """The game and every logged action replayed (for a recap, say)."""
        record, entries = await self._snapshot(_gid(game_id))
        return record, self._replayed(record, entries) if record.state is not None else []

    async def _announce_move(self, conn: Connection, game: Game[Any],
                             record: GameRecord, digested: int, seq: int, player: str,
                             events: list[dict[str, Any]], state: Any, turn: Turn,
                             digest: bool, reply_to: dict[str, str] | None,
                             now: float) -> list[int]:
        """Save what this move makes due: the reply, private notes, the digest, its copies
        for followers, the status message's refresh and the recap (in that order, which
        is the order they are delivered in)."""
        made: list[int] = []
        if reply_to is not None:
            token = str(reply_to.get("token", ""))
            payload = {"application_id": str(reply_to.get("application_id", "")),
                       "interaction_id": str(reply_to.get("interaction_id", "")),
                       "expires_at": now + INTERACTION_TOKEN_LIFE, "turn_passed": digest}
            made.append(await self._announce(conn, record.id, seq, REPLY, player, payload,
                                             secret=token or None, now=now))
        recipients = dict.fromkeys(str(e["private_to"]) for e in events if "private_to" in e)
        for recipient in recipients:
            if recipient == player and reply_to is not None:
                continue            # told in the reply to their own interaction
            if cpu.is_computer_seat(recipient):
                continue            # a computer reads its cards from the game itself
            made.append(await self._announce(conn, record.id, seq, PRIVATE, recipient, {},
                                             now=now))
        if digest:
            made.extend(await self._announce_digest(conn, game, record, state, digested + 1,
                                                    seq, turn, now))
        return made

    async def _announce_digest(self, conn: Connection, game: Game[Any],
                               record: GameRecord, state: Any, first: int, last: int,
                               turn: Turn, now: float) -> list[int]:
        """The turn digest of moves ``first``..``last``, a copy for each follower, the
        status message's refresh, and the recap once the game is over."""
        pauses = await self._pauses(conn, record.guild_id, turn.to_act, now)
        payload = {**digest_payload(game, state, first, last, turn),
                   **self._clock_payload(record, turn, pauses, now)}
        made = [await self._announce(conn, record.id, last, DIGEST, None, payload, now=now)]
        followers = await conn.execute_fetchall(
            "SELECT user_id FROM followers WHERE game_id = ? ORDER BY user_id", (record.id,))
        for (user,) in followers:
            made.append(await self._announce(conn, record.id, last, FOLLOW, user, payload,
                                             now=now))
        made.append(await self._announce(conn, record.id, last, STATUS, None, {}, now=now))
        if turn.over:
            made.append(await self._announce(conn, record.id, last, RECAP, None, {}, now=now))
        return made

    async def _announce(self, conn: Connection, game_id: int, seq: int, kind: str,
                        recipient: str | None, payload: dict[str, Any], *,
                        secret: str | None = None, now: float) -> int:
        try:
            text = canonical_json(payload)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"Internal error: game #{game_id}'s announcement cannot be "
                             f"saved ({exc}); nothing was saved.") from exc
        cursor = await conn.execute(
            "INSERT INTO announcements (game_id, seq, kind, recipient, payload, secret, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, seq, kind, recipient, text, secret, now))
        assert cursor.lastrowid is not None
        return int(cursor.lastrowid)

    def _duplicate(self, record: GameRecord, row: Row, player: str,
                   action: str) -> MoveResult:
        other_game, seq, stored_player, stored_action, events = row
        if other_game != record.id:
            raise StoreError("Internal error: this request id was already used for game "
                             f"#{other_game}; nothing was done.")
        if stored_player != player or stored_action != action:
            raise StoreError("Internal error: this request id was already used for a "
                             "different action; nothing was done.")
        state = self.load_state(record)
        return MoveResult(record, state, json.loads(events), int(seq), True)

    # ------------------------------------------------------------------ announcements

    async def pending_announcements(self, game_id: int | None = None,
                                    limit: int = 500) -> list[Announcement]:
        """Announcements not yet delivered, oldest first (of one game, or of all)."""
        where, args = "delivered_at IS NULL", tuple[int, ...]()
        if game_id is not None:
            where, args = "game_id = ? AND delivered_at IS NULL", (_gid(game_id),)
        async with self._reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_ANNOUNCEMENT_COLUMNS} FROM announcements WHERE {where} "
                "ORDER BY id LIMIT ?", (*args, max(1, limit)))
        return [_announcement(row) for row in rows]

    async def announcement(self, announcement_id: int) -> Announcement | None:
        async with self._reading() as conn:
            rows = list(await conn.execute_fetchall(
                f"SELECT {_ANNOUNCEMENT_COLUMNS} FROM announcements WHERE id = ?",
                (int(announcement_id),)))
        return _announcement(rows[0]) if rows else None

    async def mark_delivered(self, announcement_id: int, message_id: str | None) -> None:
        """Delivered (or given up on): never sent again; its interaction token is dropped."""
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE announcements SET delivered_at = ?, message_id = ?, secret = NULL "
                "WHERE id = ?", (self.now(), message_id, int(announcement_id)))

    async def actions_between(self, game_id: int, first: int, last: int) -> list[LogEntry]:
        """The logged actions ``first``..``last`` (inclusive), oldest first."""
        game_id = _gid(game_id)
        async with self._reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_LOG_COLUMNS} FROM actions "
                "WHERE game_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                (game_id, int(first), int(last)))
            if not rows and first <= last:
                archived = await archived_entries(conn, game_id)
                if archived is not None:
                    return [e for e in archived if first <= e.seq <= last]
        return _entries(rows)

    async def last_turn_start(self, game_id: int) -> int:
        """The first move told by the newest turn digest (1 if there is none): from
        there to now is "the last turn" that a board shown on request marks."""
        game_id = _gid(game_id)
        async with self._reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT payload FROM announcements "
                "WHERE game_id = ? AND kind = 'digest' ORDER BY id DESC LIMIT 1",
                (game_id,)))
        first = json.loads(rows[0][0]).get("first") if rows else None
        return max(1, int(first)) if isinstance(first, int) else 1

    # ------------------------------------------------------------------ integrity

    async def problems(self, game_id: int) -> list[str]:
        """What is wrong with a game's saved data (empty when nothing is).

        Replays the seed and the whole log through the engine and compares each
        action's events and the final position with what is stored.
        """
        game_id = _gid(game_id)
        async with self._reading(snapshot=True) as conn:     # both tables at one moment
            record = await self._fetch(conn, game_id)
            rows = list(await conn.execute_fetchall(
                f"SELECT {_LOG_COLUMNS} FROM actions WHERE game_id = ? ORDER BY seq",
                (game_id,)))
            archive = await read_archive(conn, game_id) if not rows else None
        if archive is not None:
            return archive_problems(self._game(record.kind), record, archive)
        found: list[str] = []
        if record.version != len(rows):
            found.append(f"version {record.version} but {len(rows)} logged actions")
        if record.state is None:
            if record.status not in (LOBBY, ABORTED) or rows:
                found.append(f"no position, yet status {record.status} with {len(rows)} "
                             "actions")
            return found
        entries = _entries(rows)
        for expected, entry in enumerate(entries, start=1):
            if entry.seq != expected:
                found.append(f"log has seq {entry.seq} where {expected} belongs")
                return found
        game = self._game(record.kind)
        try:
            state = game.new_game(list(record.seats), record.seed, dict(record.options))
            stored = {e.seq: canonical_json(e.events) for e in entries}
            for step in replay(game, record.seats, record.seed, record.options, entries):
                if canonical_json(step.events) != stored[step.entry.seq]:
                    found.append(f"action {step.entry.seq} ({step.entry.action!r}) now gives "
                                 "different events")
                state = step.after
            if game.dump(state) != game.dump(game.load(record.state)):
                found.append("the saved position differs from the replayed one")
            over = game.outcome(state) is not None
            if (record.status == FINISHED) != over and record.status != ABORTED:
                found.append(f"status {record.status} but the replay is "
                             f"{'over' if over else 'not over'}")
        except (IllegalAction, ValueError) as exc:
            found.append(f"replay failed: {exc}")
        return found

    async def verify(self, game_id: int) -> bool:
        """True when replaying the seed and log reproduces the saved game exactly."""
        found = await self.problems(game_id)
        for problem in found:
            log.warning("game #%s: %s", game_id, problem)
        return not found
