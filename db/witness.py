"""A witness, outside the write-ahead log, to how many changes a SQLite database holds.

SQLite in WAL mode keeps a committed move in ``<database>-wal`` until a checkpoint
copies it into the database file. If that file is damaged, truncated or deleted after a
crash, SQLite quietly reads what is left: the moves it held are gone and nothing says
so. So every write transaction that changes something also counts itself in the
database (``warhost_commits.count``, in the same commit) and, once committed, the
store notes the count in ``<database>-commits``, a small file beside it. At start the
two are compared: a database holding fewer changes than the bot had saved lost some,
and the bot refuses to start, saying how many, since when, and what to do.

The note is written (``pwrite``, under an ``flock`` so processes sharing the file keep
the highest count) after the commit, so it can only lag behind the database, never run
ahead of it: a crash between the two leaves a witness that asks for less than the
database has, which is fine. It is not fsynced on every move (that would double the
cost of a durable move); it survives the bot being killed, and after a power cut it
may lag, which again can only miss a loss, never invent one.

A clean close writes the count once more with ``clean`` set; :mod:`db.opening` skips the
long whole-file check of a large database after a clean close (docs/deploy.md).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import time
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger("warhost.db")

#: The witness file's name is the database's with this added.
SUFFIX = "-commits"
#: Every note is one fixed-size record at the start of the file (one sector: a write
#: of it is never half done).
RECORD_SIZE = 128
_MAGIC = "warhost-commits"
_VERSION = 1


@dataclass(frozen=True)
class Mark:
    """What the witness file says."""

    #: The database's identity (``warhost_commits.identity``): a note about another
    #: database under the same name is not evidence about this one.
    identity: str
    #: How many changing transactions the database held when this was written.
    count: int
    #: When (Unix time).
    at: float
    #: Written by a clean close (nothing was written after it).
    clean: bool


def witness_path(database: str | os.PathLike[str]) -> Path:
    return Path(f"{database}{SUFFIX}")


def encode(mark: Mark) -> bytes:
    body = f"{_MAGIC} {_VERSION} {mark.identity} {mark.count:d} {mark.at:.3f} {int(mark.clean)}"
    line = f"{body} {zlib.crc32(body.encode()):08x}\n".encode()
    if len(line) > RECORD_SIZE:
        raise ValueError("witness record too long")
    return line.ljust(RECORD_SIZE, b" ")


def decode(data: bytes) -> Mark | None:
    """The mark in ``data``, or None when it is not a whole, intact record."""
    try:
        text = data[:RECORD_SIZE].decode("ascii").strip()
        body, crc = text.rsplit(" ", 1)
        magic, version, identity, count, at, clean = body.split(" ")
        if (magic != _MAGIC or version != str(_VERSION) or f"{zlib.crc32(body.encode()):08x}" != crc
                or not (count.isascii() and count.isdigit()) or clean not in ("0", "1")):
            return None
        return Mark(identity, int(count), float(at), clean == "1")
    except (UnicodeDecodeError, ValueError):
        return None


def read_mark(database: str | os.PathLike[str]) -> Mark | None:
    """The database's witness (None: there is none, or it is unreadable)."""
    try:
        data = witness_path(database).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("Cannot read %s (%s); going on without it", witness_path(database), exc)
        return None
    mark = decode(data)
    if mark is None and data:
        log.warning("%s is not a Warhost witness record; it will be written anew",
                    witness_path(database))
    return mark


def write_mark(database: str | os.PathLike[str], mark: Mark) -> None:
    """Replace the witness (for a new database, a restore, an accepted loss), durably."""
    path = witness_path(database)
    temp = path.with_name(path.name + ".new")
    with open(temp, "wb") as out:
        out.write(encode(mark))
        out.flush()
        os.fsync(out.fileno())
    os.replace(temp, path)


class Witness:
    """The open witness file of a store that writes: :meth:`note` after each commit."""

    def __init__(self, database: str | os.PathLike[str], identity: str) -> None:
        self.path = witness_path(database)
        self.identity = identity
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)

    def note(self, count: int, *, clean: bool = False) -> None:
        """Record that the database holds ``count`` changes (never lowers the record
        another process wrote). Runs on the database's thread, after the commit."""
        fd = self._fd
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                held = decode(os.pread(fd, RECORD_SIZE, 0))
                if held is not None and held.identity == self.identity and (
                        held.count > count or (held.count == count and held.clean == clean)):
                    return
                os.pwrite(fd, encode(Mark(self.identity, count, time.time(), clean)), 0)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        except OSError as exc:
            # The move is saved; only the evidence of it is missing (a later note or the
            # next start mends it).
            log.warning("Could not note the commit count in %s (%s)", self.path, exc)

    def close(self, count: int | None) -> None:
        """After the database is closed: ``count`` (None: unknown) noted as clean."""
        if count is not None:
            self.note(count, clean=True)
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(fd)
            os.close(fd)


def lost(mark: Mark | None, identity: str | None, held: int) -> bool:
    """Whether a database of ``identity`` holding ``held`` changes (``identity`` None: it
    has no count, being empty or older than the count) lost some its witness saw."""
    if mark is None or mark.count == 0:
        return False
    return identity != mark.identity or held < mark.count


def lost_message(where: str, identity: str | None, held: int, mark: Mark,
                 kept: Path | None) -> str:
    """Why the bot will not start on a database that lost changes, and what to do."""
    when = datetime.fromtimestamp(mark.at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    noted = (f"{witness_path(where)}, which Warhost writes beside it after every save, "
             f"counts {mark.count} saved changes, the last at {when}")
    evidence = (f" The write-ahead log as it was found is kept at {kept}." if kept else "")
    accept = (f"To go on without them, run `python -m db accept-loss --database {where}` "
              "and start the bot again; the players of the games they touched will have "
              "to replay those moves.")
    if identity is not None and identity != mark.identity:
        return (f"The database {where} is not the one Warhost was saving to: {noted}, for "
                "a database with another identity. If you replaced the file on purpose, "
                f"run `python -m db accept-loss --database {where}` (or restore it with "
                "`python -m db restore`, which does that for you) and start again; if not, "
                "put the right file back.")
    lost = mark.count - held
    holds = f"it holds {held}" if identity is not None else "it holds none of them"
    return (f"The database {where} is missing the last {lost} change{'s' if lost != 1 else ''} "
            f"Warhost saved to it (moves among them): {holds}, but {noted}. Its "
            f"write-ahead log ({where}-wal) was damaged or deleted after the bot stopped, "
            f"and SQLite cannot read those changes back.{evidence} To get them back, "
            "restore a copy taken after that time (a Litestream replica, see "
            f"docs/backups.md). {accept}")


def keep_wal(database: str | os.PathLike[str]) -> Path | None:
    """Keep the database's ``-wal`` as it is now, as ``<name>-wal.as-found-<UTC time>``
    (a hard link, else a copy): closing the database, or opening it read-write, may
    checkpoint the log and delete it. None when there is no log to keep."""
    wal = Path(f"{database}-wal")
    if not wal.is_file() or wal.stat().st_size == 0:
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = wal.with_name(f"{wal.name}.as-found-{stamp}")
    if target.exists():
        return target
    try:
        os.link(wal, target)
    except OSError:
        try:
            shutil.copyfile(wal, target)
        except OSError as exc:
            log.warning("Could not keep a copy of %s (%s)", wal, exc)
            return None
    return target
