"""Where the store's SQL runs: SQLite (embedded, the default) or PostgreSQL (many machines).

:class:`db.Store` speaks one small connection interface, :class:`Connection`
(``execute``, ``execute_fetchall``, ``?`` placeholders), and asks a :class:`Backend`
for connections in two ways:

* :meth:`Backend.transaction` -- a write transaction. SQLite: the one writer
  connection, ``BEGIN IMMEDIATE`` (one writer at a time across processes, waiting up to
  :data:`BUSY_TIMEOUT_MS`). PostgreSQL: a pooled connection, ``READ COMMITTED``; the
  store reads a game's row ``FOR UPDATE`` (see :attr:`Connection.for_update`), which
  serialises each game's writers across every process and machine, and its version
  compare-and-set backs that up.
* :meth:`Backend.reading` -- reads outside any transaction of ours. SQLite: a small
  pool of read connections in WAL mode, so a read never waits for a write (of this
  process or another); PostgreSQL: a pooled connection. ``snapshot=True`` reads
  several statements from one consistent snapshot.
* :meth:`Backend.batch` and :meth:`Backend.batch_read` -- the same two, for a body
  (``async def body(conn)``) that awaits nothing but its connection: SQLite runs the
  whole body, ``BEGIN`` to ``COMMIT``, in **one hop** to the connection's thread (see
  :func:`run_inline`) instead of a hop per statement; PostgreSQL runs it as a plain
  transaction. The move path is such a body.

Every driver error leaves here as a :class:`DatabaseError` (``IntegrityError``,
``BusyError``, ``CorruptError``, ``ReadOnlyError``); the store words them for people.
The SQL is written once, portably: ``?`` placeholders (rewritten to ``$n`` for
PostgreSQL), ``ON CONFLICT`` upserts, ``IS NOT DISTINCT FROM``; an ``INSERT`` into a
table with an ``id`` column reports :attr:`Cursor.lastrowid` on both.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

import aiosqlite

from db.witness import Witness

log = logging.getLogger("warhost.db")

BUSY_TIMEOUT_MS = 10_000
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
#: Read connections a SQLite store keeps (each is a thread); reads beyond this queue.
SQLITE_READERS = 3
#: Connections a PostgreSQL store keeps at most (per process).
POSTGRES_POOL_MAX = 10
POSTGRES_SCHEMES = ("postgresql://", "postgres://")

Row = Sequence[Any]
T = TypeVar("T")


class DatabaseError(Exception):
    """The database failed; ``str()`` is the driver's own words."""


class IntegrityError(DatabaseError):
    """A constraint (unique, foreign key, check, the append-only log) refused a write."""


class BusyError(DatabaseError):
    """Another writer held the database longer than the busy timeout."""


class CorruptError(DatabaseError):
    """The database file is damaged."""


class ReadOnlyError(DatabaseError):
    """The database cannot be written (file permissions, a read-only mount or replica)."""


class ForeignError(DatabaseError):
    """The file is another application's database; ``tables`` are its tables."""

    def __init__(self, tables: list[str]) -> None:
        super().__init__(", ".join(tables))
        self.tables = tables


class ClosedError(DatabaseError):
    """The store was closed (the bot is shutting down)."""


@dataclass(frozen=True)
class Cursor:
    """What a write reports: rows changed and, for an ``INSERT`` with an id, the new id."""

    rowcount: int
    lastrowid: int | None = None


class Connection(Protocol):
    """The part of a database connection the store uses."""

    #: ``"sqlite"`` or ``"postgresql"``.
    dialect: str
    #: ``" FOR UPDATE"`` in a PostgreSQL write transaction (locks the rows read until
    #: commit), else ``""`` (a SQLite write transaction already excludes other writers).
    for_update: str

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor: ...

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    async def lock(self, key: str) -> None:
        """Hold ``key`` until this write transaction ends: read-modify-writes of one
        thing (a player's settings, their vacations) queue up across processes."""


class InlineSQLiteConnection:
    """A :class:`Connection` on a ``sqlite3`` connection, for code already on that
    connection's thread: each ``await`` returns at once (no hop), so a body awaiting
    nothing else runs to its end in one go (:func:`run_inline`)."""

    dialect = "sqlite"
    for_update = ""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        try:
            cursor = self.db.execute(sql, params)
        except sqlite3.Error as exc:
            raise sqlite_error(exc) from exc
        return Cursor(cursor.rowcount, cursor.lastrowid)

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise sqlite_error(exc) from exc

    async def lock(self, key: str) -> None:
        """Nothing to do: a SQLite write transaction already excludes other writers."""


class NotInline(RuntimeError):
    """A batch body awaited something other than its connection (a lock, a sleep, the
    network), which cannot be waited for on the database's thread."""


def run_inline(body: Callable[[Any], Awaitable[T]], conn: Any) -> T:
    """Run ``body(conn)`` to its end here and now. Its every ``await`` must be answered
    at once (an :class:`InlineSQLiteConnection`'s are), so the coroutine finishes on its
    first step; one that suspends is closed (its ``finally`` blocks run) and refused."""
    coroutine = body(conn)
    try:
        coroutine.send(None)  # type: ignore[attr-defined]
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()  # type: ignore[attr-defined]
    raise NotInline(f"{getattr(body, '__qualname__', body)} awaited something other "
                    "than its database connection; it cannot run as one batch")


def json_array_has(dialect: str, column: str) -> str:
    """SQL true when the JSON array of text in ``column`` holds the next ``?``."""
    if dialect == "sqlite":
        return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE value = ?)"
    return f"jsonb_exists({column}::jsonb, ?)"


class Backend(Protocol):
    dialect: str
    #: Where the data lives, for messages (a path, or a URL without its password).
    where: str

    def transaction(self) -> Any: ...          # async context manager -> Connection

    def reading(self, snapshot: bool = False) -> Any: ...   # async context manager

    async def write_one(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """One statement committed by itself, in one round trip where possible."""
        ...

    async def batch(self, body: Callable[[Any], Awaitable[T]]) -> T:
        """``body(conn)`` in one write transaction (one hop on SQLite)."""
        ...

    async def batch_read(self, body: Callable[[Any], Awaitable[T]]) -> T:
        """``body(conn)`` reading one consistent snapshot (one hop on SQLite)."""
        ...

    async def close(self) -> None: ...


def is_postgres(target: str) -> bool:
    return target.startswith(POSTGRES_SCHEMES)


# ---------------------------------------------------------------------------- SQLite


def sqlite_error(exc: sqlite3.Error) -> DatabaseError:
    """The driver's error as ours (the kind decides how the store words it)."""
    text = str(exc)
    lowered = text.lower()
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if isinstance(exc, sqlite3.IntegrityError):
        return IntegrityError(text)
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in lowered:
        return BusyError(text)
    if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) \
            or "malformed" in lowered or "not a database" in lowered:
        return CorruptError(text)
    if primary == sqlite3.SQLITE_READONLY or "readonly" in lowered or "read-only" in lowered:
        return ReadOnlyError(text)
    return DatabaseError(text)


def _commit_counted(db: sqlite3.Connection, changes_at_begin: int,
                    witness: Witness | None) -> None:
    """``COMMIT`` on the connection's thread; with a ``witness``, a transaction that
    changed something first counts itself in ``warhost_commits``, and the count is noted
    beside the database once committed (:mod:`db.witness`)."""
    if witness is None or db.total_changes == changes_at_begin:
        db.execute("COMMIT")
        return
    count = db.execute("UPDATE warhost_commits SET count = count + 1 RETURNING count"
                       ).fetchall()
    db.execute("COMMIT")
    if count:
        witness.note(int(count[0][0]))


class SQLiteConnection:
    """An aiosqlite connection speaking :class:`Connection`."""

    dialect = "sqlite"
    for_update = ""

    def __init__(self, raw: aiosqlite.Connection) -> None:
        self.raw = raw

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        try:
            cursor = await self.raw.execute(sql, params)
        except sqlite3.Error as exc:
            raise sqlite_error(exc) from exc
        return Cursor(cursor.rowcount, cursor.lastrowid)

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        try:
            return list(await self.raw.execute_fetchall(sql, params))
        except sqlite3.Error as exc:
            raise sqlite_error(exc) from exc

    async def lock(self, key: str) -> None:
        """Nothing to do: a SQLite write transaction already excludes other writers."""

    async def begin(self) -> int:
        """``BEGIN IMMEDIATE``; returns the connection's change counter at that moment
        (so :meth:`commit` knows whether the transaction changed anything)."""
        def begin(db: sqlite3.Connection) -> int:
            db.execute("BEGIN IMMEDIATE")
            return db.total_changes

        return int(await self._on_thread(begin))

    async def commit(self, changes_at_begin: int, witness: Witness | None) -> None:
        """``COMMIT``. With a ``witness``, a transaction that changed something also
        counts itself in ``warhost_commits`` and, once committed, notes the count beside
        the database (:mod:`db.witness`): all on the database's thread, in one hop."""
        await self._on_thread(lambda db: _commit_counted(db, changes_at_begin, witness))

    async def write_one(self, sql: str, params: Sequence[Any],
                        witness: Witness | None) -> Cursor:
        """``BEGIN IMMEDIATE``, ``sql``, ``COMMIT`` (counted, as :meth:`commit` does):
        one hop to the connection's thread."""
        def write(db: sqlite3.Connection) -> Cursor:
            db.execute("BEGIN IMMEDIATE")
            try:
                before = db.total_changes
                cursor = db.execute(sql, params)
                done = Cursor(cursor.rowcount, cursor.lastrowid)
                _commit_counted(db, before, witness)
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return done

        return await self._on_thread(write)

    async def _on_thread(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` on the connection's own thread (one hop, however many
        statements it runs)."""
        try:
            # aiosqlite runs ``fn`` on the connection's thread, like its own methods.
            result: T = await self.raw._execute(fn, self.raw._conn)  # type: ignore[no-untyped-call]
            return result
        except sqlite3.Error as exc:
            raise sqlite_error(exc) from exc

    async def rollback(self) -> None:
        try:
            await self.raw.rollback()
        except sqlite3.Error as exc:
            raise sqlite_error(exc) from exc


async def _sqlite_connect(path: str, *, readonly: bool = False) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                                   uri=path.startswith("file:"))
    try:
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
        await conn.execute("PRAGMA foreign_keys = ON")
        if readonly:
            await conn.execute("PRAGMA query_only = ON")
    except BaseException:
        await conn.close()
        raise
    return conn


#: A SQLite database's own tables and views, by name.
SQLITE_TABLES = ("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                 "AND name NOT LIKE 'sqlite%' ORDER BY name")


def foreign_tables_in(path: str) -> list[str]:
    """The tables of an existing SQLite file with no Warhost schema version (another
    application's), read without changing anything (``immutable``: no lock, no journal
    files made beside it; the main file holds every table a checkpoint copied, and a
    Warhost database's schema version always comes with its tables); [] for a Warhost
    database, a new or empty file, or one that cannot be read this way (opening it says
    why)."""
    if path in ("", ":memory:") or path.startswith("file:") or not os.path.isfile(path) \
            or os.path.getsize(path) == 0:
        return []
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1"
    try:
        con = sqlite3.connect(uri, uri=True, isolation_level=None)
        try:
            if con.execute("PRAGMA user_version").fetchone()[0] != 0:
                return []
            return [str(r[0]) for r in con.execute(SQLITE_TABLES)]
        finally:
            con.close()
    except sqlite3.Error:
        return []


class SQLiteBackend:
    """One writer connection (behind an asyncio lock: a transaction's statements must
    not interleave with another coroutine's) and a few read connections."""

    dialect = "sqlite"

    def __init__(self, path: str, writer: aiosqlite.Connection,
                 readers: list[aiosqlite.Connection]) -> None:
        self.path = self.where = path
        self._writer: SQLiteConnection | None = SQLiteConnection(writer)
        self._write_lock = asyncio.Lock()
        self._readers: list[aiosqlite.Connection] = readers
        self._idle: asyncio.Queue[SQLiteConnection] = asyncio.Queue()
        for reader in readers:
            self._idle.put_nowait(SQLiteConnection(reader))
        self._cleanups: set[asyncio.Task[None]] = set()
        self._closed = False
        #: Set once the database is checked (:func:`db.opening.check_and_migrate`).
        self.witness: Witness | None = None

    @classmethod
    async def open(cls, path: str, synchronous: str = "FULL", *,
                   readonly: bool = False) -> SQLiteBackend:
        """``readonly``: every connection refuses writes, and nothing about the file is
        changed (its journal mode included): for the web pages' processes."""
        mode = synchronous.upper()
        if mode not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}")
        try:
            if not readonly:
                # Before anything is changed (the journal mode is about to be).
                tables = await asyncio.to_thread(foreign_tables_in, path)
                if tables:
                    raise ForeignError(tables)
            writer = await _sqlite_connect(path, readonly=readonly)
        except sqlite3.Error as exc:
            raise sqlite_error(exc) from exc
        readers: list[aiosqlite.Connection] = []
        try:
            rows = list(await writer.execute_fetchall(
                "PRAGMA journal_mode" if readonly else "PRAGMA journal_mode = WAL"))
            journal = str(rows[0][0]).lower()
            memory = path in ("", ":memory:") or "mode=memory" in path
            if journal != "wal" and not memory:
                log.warning("database %s is in %s journal mode, not WAL", path, journal)
            if not readonly:
                await writer.execute(f"PRAGMA synchronous = {mode}")
            if journal == "wal" and not memory:
                for _ in range(SQLITE_READERS):
                    readers.append(await _sqlite_connect(path, readonly=True))
        except sqlite3.Error as exc:
            for conn in (writer, *readers):
                await conn.close()
            raise sqlite_error(exc) from exc
        except BaseException:
            for conn in (writer, *readers):
                await conn.close()
            raise
        return cls(path, writer, readers)

    @property
    def writer(self) -> SQLiteConnection:
        if self._writer is None:
            raise ClosedError("The game database is closed; the bot is shutting down.")
        return self._writer

    async def close(self) -> None:
        """Close every connection (an operation under way finishes first)."""
        count: int | None = None
        async with self._write_lock:
            self._closed = True
            writer, self._writer = self._writer, None
            if writer is not None:
                if self.witness is not None:
                    with contextlib.suppress(DatabaseError):
                        rows = await writer.execute_fetchall(
                            "SELECT count FROM warhost_commits")
                        count = int(rows[0][0]) if rows else None
                await writer.raw.close()
        for _ in self._readers:
            reader = await self._idle.get()       # waits for reads under way
            await reader.raw.close()
        self._readers = []
        witness, self.witness = self.witness, None
        if witness is not None:
            await asyncio.to_thread(witness.close, count)

    async def checkpoint(self) -> None:
        """Copy what the write-ahead log holds into the database file (as far as readers
        allow: ``PASSIVE``)."""
        async with self._write_lock:
            await self.writer.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")

    @asynccontextmanager
    async def reading(self, snapshot: bool = False) -> AsyncIterator[SQLiteConnection]:
        """A read connection (the writer, under its lock, for an in-memory database)."""
        if self._closed:
            raise ClosedError("The game database is closed; the bot is shutting down.")
        if not self._readers:
            async with self._write_lock:
                conn = self.writer
                if conn.raw.in_transaction:     # defensive: nothing should leave one open
                    await conn.rollback()
                async with self._snapshot(conn, snapshot):
                    yield conn
            return
        conn = await self._idle.get()
        try:
            if self._closed:
                raise ClosedError("The game database is closed; the bot is shutting down.")
            async with self._snapshot(conn, snapshot):
                yield conn
        finally:
            self._idle.put_nowait(conn)

    @staticmethod
    @asynccontextmanager
    async def _snapshot(conn: SQLiteConnection, snapshot: bool) -> AsyncIterator[None]:
        if not snapshot:
            yield
            return
        await conn.execute("BEGIN")
        try:
            yield
        finally:
            await conn.rollback()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SQLiteConnection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; any exception rolls everything back.

        If the caller is cancelled (while waiting for the write lock, or mid-way), the
        statements it queued may still be running on the connection's thread; a
        background task then keeps the write lock until its rollback, queued behind
        them, has run, and the cancellation goes through at once.
        """
        await self._write_lock.acquire()
        release = True
        try:
            conn = self.writer
            if conn.raw.in_transaction:      # defensive: nothing should leave one open
                await conn.rollback()
            changes = await conn.begin()
            try:
                yield conn
                await conn.commit(changes, self.witness)
            except BaseException as exc:
                if not isinstance(exc, Exception):     # cancelled, or the loop is exiting
                    raise
                await conn.rollback()
                raise
        except BaseException as exc:
            if not isinstance(exc, Exception) and self._writer is not None:
                release = False
                self._hand_off_rollback(self._writer)
            raise
        finally:
            if release:
                self._write_lock.release()

    async def write_one(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """One statement in a transaction of its own, in a single hop (under the write
        lock, like :meth:`transaction`)."""
        async with self._write_lock:
            conn = self.writer
            if conn.raw.in_transaction:      # defensive: nothing should leave one open
                await conn.rollback()
            return await conn.write_one(sql, params, self.witness)

    async def batch(self, body: Callable[[Any], Awaitable[T]]) -> T:
        """``BEGIN IMMEDIATE``, ``body``'s statements, ``COMMIT`` (counted, as
        :meth:`transaction` does), all in one hop to the writer's thread; any exception
        rolls back. ``body`` must await nothing but its connection (:func:`run_inline`).

        A caller cancelled before the transaction began (waiting for the lock, or for
        another process's write) changes nothing; one cancelled once the body runs
        stops waiting, and the transaction ends committed, as if it had been cancelled
        just after. The write lock is kept until the hop is over either way.
        """
        await self._write_lock.acquire()
        try:
            conn = self.writer
            if conn.raw.in_transaction:      # defensive: nothing should leave one open
                await conn.rollback()
        except BaseException:
            self._write_lock.release()
            raise
        witness = self.witness
        gave_up = threading.Event()

        def run(db: sqlite3.Connection) -> T:
            if gave_up.is_set():
                raise asyncio.CancelledError
            db.execute("BEGIN IMMEDIATE")    # may wait out another process's write
            try:
                if gave_up.is_set():         # the caller left meanwhile: do nothing
                    raise asyncio.CancelledError
                before = db.total_changes
                result = run_inline(body, InlineSQLiteConnection(db))
                _commit_counted(db, before, witness)
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return result

        def over(hop: asyncio.Future[T]) -> None:
            self._write_lock.release()
            if not hop.cancelled():
                hop.exception()     # retrieved, even when no caller waits any more

        hop = asyncio.ensure_future(conn._on_thread(run))
        hop.add_done_callback(over)
        try:
            return await asyncio.shield(hop)
        except asyncio.CancelledError:
            # Not yet begun (or still waiting for another process's write): it never
            # will be. Already under way: it ends, committed, as if just before.
            gave_up.set()
            raise

    async def batch_read(self, body: Callable[[Any], Awaitable[T]]) -> T:
        """``body``'s reads from one snapshot (``BEGIN`` ... ``ROLLBACK``), in one hop
        to a read connection's thread (the writer's, under its lock, for an in-memory
        database)."""
        def run(db: sqlite3.Connection) -> T:
            db.execute("BEGIN")
            try:
                return run_inline(body, InlineSQLiteConnection(db))
            finally:
                db.execute("ROLLBACK")

        async with self.reading() as conn:
            return await conn._on_thread(run)

    def _hand_off_rollback(self, conn: SQLiteConnection) -> None:
        """Roll back in the background, then release the write lock we hold."""
        async def rollback_then_release() -> None:
            try:
                await conn.raw.rollback()
            except Exception:
                log.exception("rollback after a cancelled database call failed")
            finally:
                self._write_lock.release()

        task = asyncio.get_running_loop().create_task(rollback_then_release())
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)


# ---------------------------------------------------------------------------- PostgreSQL

#: Tables whose ``INSERT`` reports the new row's ``id`` (``RETURNING id`` is added).
_ID_TABLES = frozenset({"games", "announcements", "vacations"})
_INSERT_INTO = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)", re.IGNORECASE)
_STATUS_COUNT = re.compile(r"(\d+)\s*$")


@lru_cache(maxsize=1024)
def postgres_sql(sql: str) -> tuple[str, bool]:
    """``sql`` in PostgreSQL's spelling: ``?`` -> ``$1``, ``$2``... (outside quotes),
    ``BEGIN IMMEDIATE`` -> ``BEGIN``; and whether ``RETURNING id`` was added."""
    out: list[str] = []
    n = 0
    quoted = False
    for ch in sql:
        if ch == "'":
            quoted = not quoted
        if ch == "?" and not quoted:
            n += 1
            out.append(f"${n}")
        else:
            out.append(ch)
    text = "".join(out)
    match = _INSERT_INTO.match(text)
    returning = bool(match and match.group(1).lower() in _ID_TABLES
                     and "returning" not in text.lower())
    if returning:
        text = text.rstrip().rstrip(";") + " RETURNING id"
    return text, returning


def postgres_error(exc: BaseException) -> DatabaseError:
    import asyncpg

    text = str(exc)
    if isinstance(exc, asyncpg.IntegrityConstraintViolationError):
        return IntegrityError(text)
    if isinstance(exc, asyncpg.exceptions.RaiseError) and "append-only" in text:
        return IntegrityError(text)
    if isinstance(exc, (asyncpg.LockNotAvailableError, asyncpg.DeadlockDetectedError,
                        asyncpg.QueryCanceledError, asyncpg.TooManyConnectionsError,
                        asyncpg.SerializationError)):
        return BusyError(text)
    if isinstance(exc, asyncpg.ReadOnlySQLTransactionError):
        return ReadOnlyError(text)
    if getattr(exc, "sqlstate", "").startswith("XX"):      # data or index corrupted
        return CorruptError(text)
    if isinstance(exc, (OSError, asyncpg.PostgresConnectionError,
                        asyncpg.InterfaceError, asyncio.TimeoutError)):
        return DatabaseError(f"cannot reach PostgreSQL: {text or type(exc).__name__}")
    return DatabaseError(text)


class PostgresConnection:
    """An asyncpg connection speaking :class:`Connection`."""

    dialect = "postgresql"

    def __init__(self, raw: Any, writing: bool) -> None:
        self.raw = raw
        self.for_update = " FOR UPDATE" if writing else ""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        text, returning = postgres_sql(sql)
        try:
            if returning:
                rows = await self.raw.fetch(text, *params)
                return Cursor(len(rows), int(rows[0][0]) if rows else None)
            status = await self.raw.execute(text, *params)
        except Exception as exc:
            raise postgres_error(exc) from exc
        match = _STATUS_COUNT.search(status or "")
        return Cursor(int(match.group(1)) if match else 0)

    async def lock(self, key: str) -> None:
        """A transaction-scoped advisory lock on ``key`` (hashed to 32 bits)."""
        await self.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (key,))

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        text, _ = postgres_sql(sql)
        try:
            return list(await self.raw.fetch(text, *params))
        except Exception as exc:
            raise postgres_error(exc) from exc


def redact_url(url: str) -> str:
    """The URL without its password (for messages and logs)."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


#: What a PostgreSQL URL without the driver installed gets told (asyncpg is an extra).
MISSING_DRIVER = ("PostgreSQL needs the asyncpg driver, which this install lacks: install "
                  "Warhost with its postgres extra (make run EXTRAS=dev,postgres, or pip "
                  "install -c requirements.lock '.[postgres]')")


class PostgresBackend:
    """A pool of asyncpg connections to one database."""

    dialect = "postgresql"

    def __init__(self, url: str, pool: Any) -> None:
        self.url = url
        self.where = redact_url(url)
        self.path = self.where
        self._pool: Any = pool

    @classmethod
    async def open(cls, url: str, max_size: int = POSTGRES_POOL_MAX, *,
                   readonly: bool = False) -> PostgresBackend:
        """``readonly``: every transaction is read-only (the web pages' processes)."""
        try:
            import asyncpg
        except ImportError:
            raise DatabaseError(MISSING_DRIVER) from None

        settings = {"lock_timeout": str(BUSY_TIMEOUT_MS),
                    "application_name": "warhost-web" if readonly else "warhost"}
        if readonly:
            settings["default_transaction_read_only"] = "on"
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=max_size, timeout=BUSY_TIMEOUT_MS / 1000,
                command_timeout=60,
                # a write waiting on a game's lock gives up like SQLite's busy timeout
                server_settings=settings)
        except Exception as exc:
            raise postgres_error(exc) from exc
        return cls(url, pool)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    def _pool_or_closed(self) -> Any:
        if self._pool is None:
            raise ClosedError("The game database is closed; the bot is shutting down.")
        return self._pool

    @asynccontextmanager
    async def _acquire(self) -> AsyncIterator[Any]:
        pool = self._pool_or_closed()
        try:
            raw = await pool.acquire(timeout=BUSY_TIMEOUT_MS / 1000)
        except TimeoutError as exc:     # every pooled connection busy for that long
            raise BusyError(f"no free connection to PostgreSQL in "
                            f"{BUSY_TIMEOUT_MS / 1000:g} s") from exc
        except Exception as exc:
            raise postgres_error(exc) from exc
        try:
            yield raw
        finally:
            await pool.release(raw)

    @asynccontextmanager
    async def reading(self, snapshot: bool = False) -> AsyncIterator[PostgresConnection]:
        async with self._acquire() as raw:
            conn = PostgresConnection(raw, writing=False)
            if not snapshot:
                yield conn
                return
            await conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield conn
            finally:
                await conn.execute("ROLLBACK")

    async def write_one(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """One statement, committed by itself (autocommit: one round trip)."""
        async with self._acquire() as raw:
            return await PostgresConnection(raw, writing=True).execute(sql, params)

    async def batch(self, body: Callable[[Any], Awaitable[T]]) -> T:
        """``body(conn)`` in one transaction (:meth:`transaction`)."""
        async with self.transaction() as conn:
            return await body(conn)

    async def batch_read(self, body: Callable[[Any], Awaitable[T]]) -> T:
        """``body(conn)`` reading one snapshot."""
        async with self.reading(snapshot=True) as conn:
            return await body(conn)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresConnection]:
        """``BEGIN`` (read committed) ... ``COMMIT``; any exception rolls back. A
        cancelled caller's connection is reset (or closed) by the pool on release."""
        async with self._acquire() as raw:
            conn = PostgresConnection(raw, writing=True)
            await conn.execute("BEGIN")
            try:
                yield conn
                await conn.execute("COMMIT")
            except BaseException:
                if not raw.is_closed():
                    # a failure here leaves a broken connection, which the pool drops
                    with contextlib.suppress(Exception):
                        await asyncio.shield(raw.execute("ROLLBACK"))
                raise


async def open_backend(target: str, synchronous: str = "FULL", *,
                       readonly: bool = False) -> SQLiteBackend | PostgresBackend:
    """The backend for ``target``: a ``postgresql://`` URL, else a SQLite file path."""
    if is_postgres(target):
        return await PostgresBackend.open(target, readonly=readonly)
    return await SQLiteBackend.open(target, synchronous, readonly=readonly)


def sqlite_file_problem(path: str) -> str | None:
    """Why the SQLite file at ``path`` cannot be written, checked before opening it."""
    if path in ("", ":memory:") or path.startswith("file:"):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"the folder {folder} does not exist"
    if os.path.exists(path):
        if os.path.isdir(path):
            return f"{path} is a folder, not a database file"
        if not os.access(path, os.R_OK | os.W_OK):
            return f"the bot's user cannot read and write {path}"
    if not os.access(folder, os.W_OK | os.X_OK):
        return (f"the bot's user cannot write in {folder} (SQLite keeps its journal "
                "files beside the database)")
    return None
