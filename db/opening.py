"""Opening a database, and what its failures say to people.

Before the store writes anything, :func:`check_and_migrate` checks the database (a
damaged file, another application's tables, a read-only replica), migrates it, and
checks its tables are the ones the migrations built (:mod:`db.schema_check`);
:func:`unopenable` words why a database cannot be opened for whoever starts the bot,
and :func:`database_failed` words a failure during a request for the player who made
it (saying whether anything was saved).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time

import db.backend as backend_module
from db.backend import (
    BusyError,
    ClosedError,
    Connection,
    CorruptError,
    DatabaseError,
    ForeignError,
    IntegrityError,
    PostgresBackend,
    ReadOnlyError,
    SQLiteBackend,
    is_postgres,
    open_backend,
)
from db.records import StoreError
from db.schema import SCHEMA_VERSION, migrate, user_version
from db.schema_check import drift_message, schema_problems
from db.witness import Mark, Witness, keep_wal, lost, lost_message, read_mark, write_mark

log = logging.getLogger("warhost.db")


def unopenable(where: str, setting: str, exc: DatabaseError) -> str:
    """Why a database cannot be opened, and what to do, for whoever starts the bot."""
    if isinstance(exc, ForeignError):
        shown = ", ".join(exc.tables[:5]) + (" ..." if len(exc.tables) > 5 else "")
        return (f"The database {where} belongs to another application (it has tables "
                f"{shown} but no Warhost schema); Warhost will not add its tables to it, "
                f"and left it unchanged. Point {setting} at a new file or database.")
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


#: Above this size, the whole-file check at start (``PRAGMA quick_check``, 16 to 25 s a
#: gigabyte read cold from disk) runs only after an unclean stop; after a clean close the
#: file is as the last check left it. ``python -m db check`` always checks the whole file.
FULL_CHECK_BYTES = 512 * 1024 * 1024


async def check_and_migrate(backend: SQLiteBackend | PostgresBackend, where: str,
                            setting: str) -> None:
    """The checks at start (see :meth:`Store.open`), then the migrations (which refuse
    another application's database, under their lock), then the schema compared with
    the migrations' and, for a SQLite file, its commits with their witness
    (:mod:`db.witness`)."""
    file = sqlite_file(backend)
    mark = read_mark(file) if file else None
    async with backend.reading() as conn:
        if conn.dialect == "sqlite":
            await check_pages(conn, file, mark)
        version = await user_version(conn)
        names: set[str] = set()
        if 0 < version <= SCHEMA_VERSION:
            names = {str(r[0]) for r in await conn.execute_fetchall(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                if conn.dialect == "sqlite" else
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()")}
            if not {"games", "actions"} <= names:
                shown = ", ".join(sorted(names)[:5]) or "none"
                raise StoreError(f"The database {where} has a schema version but not "
                                 f"Warhost's tables (it has: {shown}); it belongs to "
                                 f"another application. Point {setting} at a new file or "
                                 "database.")
        if file and mark is not None and mark.count > 0:
            identity, held = (await commits_held(conn) if 0 < version <= SCHEMA_VERSION
                              and "warhost_commits" in names else (None, 0))
            if lost(mark, identity, held):
                # Kept now, while the connections hold the log: closing them
                # checkpoints it and deletes it.
                kept = await asyncio.to_thread(keep_wal, file)
                raise StoreError(lost_message(where, identity, held, mark, kept))
    await migrate(backend, where)
    async with backend.reading() as conn:
        problems, unknown = await schema_problems(conn)
    if problems:
        raise StoreError(drift_message(where, problems))
    if unknown:
        log.info("The database %s has things Warhost's migrations did not make "
                 "(allowed: they change nothing it relies on): %s", where,
                 ", ".join(unknown))
    async with backend.transaction() as conn:
        # Prove the database takes writes now, not at the first player's move.
        if conn.dialect == "sqlite":
            await conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
        else:
            rows = await conn.execute_fetchall("SHOW transaction_read_only")
            if str(rows[0][0]).lower() == "on":
                raise ReadOnlyError("the server is a read-only replica")
            await conn.execute("UPDATE warhost_schema SET version = version")
    if file and isinstance(backend, SQLiteBackend):
        await start_witness(backend, file, mark)


def sqlite_file(backend: SQLiteBackend | PostgresBackend) -> str:
    """The SQLite database's file path ("" for PostgreSQL, memory, or a URI)."""
    if not isinstance(backend, SQLiteBackend):
        return ""
    path = backend.path
    if path in ("", ":memory:") or path.startswith("file:"):
        return ""
    return path


async def check_pages(conn: Connection, file: str, mark: Mark | None) -> None:
    """SQLite's ``quick_check`` of the file (of a large one, after a clean close, only
    its tables other than the move history; see :data:`FULL_CHECK_BYTES`)."""
    size = os.path.getsize(file) if file else 0
    if size > FULL_CHECK_BYTES and mark is not None and mark.clean:
        log.info("Skipped the whole-file check of %s at start (%.1f GB, closed cleanly "
                 "last time); `python -m db check` runs it", file, size / 1e9)
        return
    found = [str(r[0]) for r in await conn.execute_fetchall("PRAGMA quick_check")]
    if found != ["ok"]:
        raise CorruptError("; ".join(found[:3]))


async def commits_held(conn: Connection) -> tuple[str, int]:
    """(the database's identity, how many changing transactions it holds)."""
    rows = await conn.execute_fetchall("SELECT identity, count FROM warhost_commits")
    if not rows:
        raise CorruptError("the warhost_commits row is missing")
    return str(rows[0][0]), int(rows[0][1])


async def start_witness(backend: SQLiteBackend, file: str, mark: Mark | None) -> None:
    """Open the witness beside ``file`` (a new one when there is none, or it is about
    another database) and note the count the database starts at."""
    async with backend.reading() as conn:
        identity, held = await commits_held(conn)
    # Into the file itself now: the identity must not live only in the log it guards.
    await backend.checkpoint()
    if mark is None or mark.identity != identity:
        await asyncio.to_thread(write_mark, file, Mark(identity, held, time.time(), False))
    witness = Witness(file, identity)
    await asyncio.to_thread(witness.note, held)
    backend.witness = witness


async def open_readonly(target: str, where: str, setting: str
                        ) -> SQLiteBackend | PostgresBackend:
    """A backend that only reads, for a database the bot already set up: refused (with
    what to do) when there is none yet or it is at another schema version."""
    if not is_postgres(target) and target not in ("", ":memory:") and not (
            target.startswith("file:") or os.path.isfile(target)):
        raise StoreError(f"There is no database at {where} yet. Start the bot once "
                         f"(`make run`) to create it, or point {setting} at the bot's.")
    try:
        backend = await open_backend(target, readonly=True)
    except DatabaseError as exc:
        raise StoreError(unopenable(where, setting, exc)) from exc
    try:
        async with backend.reading() as conn:
            version = await user_version(conn)
    except DatabaseError as exc:
        await backend.close()
        raise StoreError(unopenable(where, setting, exc)) from exc
    if version != SCHEMA_VERSION:
        await backend.close()
        raise StoreError(
            f"The database {where} is at schema version {version}; this Warhost reads "
            f"version {SCHEMA_VERSION}. Start the bot of the same version first (it "
            "updates the database), then the web pages.")
    return backend
