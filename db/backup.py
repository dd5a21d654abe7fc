"""Backups of the SQLite store: taken online, checked, kept for a while, and restored.

A backup is one self-contained SQLite file, ``<stem>-<UTC time>.db`` (the live
database's name without its suffix, then e.g. ``20250301T120000Z``), taken with the
SQLite backup API from a read snapshot of the live file. It never blocks the bot:
it runs on its own connection (:func:`take_backup` is synchronous; the bot calls it in
a thread), and in WAL mode a reader never stops a writer, so moves go on while it is
copied; the backup is the database as it was at the moment the copy began.

Each backup is written under a temporary name in the same folder, checked
(``PRAGMA quick_check``, the Warhost tables and a schema version this Warhost knows),
synced, and only then renamed into place: a file with a backup's name is always a
whole, checked backup. :func:`prune` keeps the newest N.

:func:`restore` puts a backup in place of the database, after checking the bot is not
using it and that the backup is sound; the database it replaces is moved aside (with
its ``-wal`` and ``-shm``), never deleted.

Only SQLite is here: a PostgreSQL store is backed up with PostgreSQL's own tools
(``pg_dump``; docs/backups.md).

Every :class:`BackupError` says what went wrong and what to do; it is shown to the
admin as is.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from db.witness import Mark, keep_wal, lost, lost_message, read_mark, witness_path, write_mark

#: The time in a backup's name: UTC, to the second (``20250301T120000Z``).
STAMP = "%Y%m%dT%H%M%SZ"
#: Pages copied per step of the backup API (4 MB with SQLite's 4 KB pages); the read
#: snapshot is held from the first step to the last, so the copy stays consistent.
STEP_PAGES = 1024
#: A temporary file a backup or restore left behind (a crash, a full disk) is removed
#: when this old.
STALE_TEMP_SECONDS = 24 * 3600
#: How long :func:`database_in_use` waits for a lock someone holds for a moment.
IN_USE_WAIT_SECONDS = 1.0
#: Tables every Warhost database has, from the first schema version on.
WARHOST_TABLES = frozenset({"games", "actions"})

#: Called after each step of the copy with (pages left, pages in all); tests use it to
#: make moves while a backup is half done.
Progress = Callable[[int, int], None]


class BackupError(Exception):
    """A backup, check or restore that cannot be done; the message says what to do."""


@dataclass(frozen=True)
class Checked:
    """What a sound Warhost database file holds."""

    path: Path
    schema_version: int
    games: int
    size: int


@dataclass(frozen=True)
class Backup:
    """A backup taken: where, how big, what it holds, how long it took."""

    path: Path
    size: int
    schema_version: int
    games: int
    seconds: float


@dataclass(frozen=True)
class Restored:
    """A restore done: the database now in place, and where the old one went."""

    database: Path
    backup: Path
    moved_aside: tuple[Path, ...]
    schema_version: int
    games: int


# ------------------------------------------------------------------------ names

#: The backup folder's name beside the database, when BACKUP_DIR is not set.
DEFAULT_FOLDER_NAME = "backups"


def backup_folder(setting: str | None, database: str | os.PathLike[str]) -> Path:
    """Where backups go: ``BACKUP_DIR`` if set, else ``backups`` beside the database
    (``./backups`` for the default ``./warhost.db``)."""
    if setting:
        return Path(setting)
    return Path(database).parent / DEFAULT_FOLDER_NAME


def stamp(when: datetime) -> str:
    return when.astimezone(UTC).strftime(STAMP)


def _pattern(stem: str) -> re.Pattern[str]:
    # [0-9], not \d: \d also takes other scripts' digits, which int() may refuse.
    return re.compile(rf"^{re.escape(stem)}-([0-9]{{8}}T[0-9]{{6}}Z)(?:-([0-9]{{1,9}}))?\.db$")


def backups_of(directory: str | os.PathLike[str], stem: str) -> list[Path]:
    """The backups of the database named ``stem`` in ``directory``, oldest first."""
    folder = Path(directory)
    if not folder.is_dir():
        return []
    pattern = _pattern(stem)
    found: list[tuple[str, int, Path]] = []
    for path in folder.iterdir():
        match = pattern.match(path.name)
        if match and path.is_file():
            found.append((match.group(1), int(match.group(2) or 0), path))
    return [path for _, _, path in sorted(found)]


def taken_at(path: Path) -> datetime | None:
    """When a backup was taken, from its name (None if it is not a backup's name)."""
    match = re.search(r"-([0-9]{8}T[0-9]{6}Z)(?:-[0-9]{1,9})?\.db$", path.name)
    if match is None:
        return None
    return datetime.strptime(match.group(1), STAMP).replace(tzinfo=UTC)


def latest_backup(directory: str | os.PathLike[str], stem: str) -> Path | None:
    found = backups_of(directory, stem)
    return found[-1] if found else None


def _free_name(folder: Path, stem: str, when: datetime) -> Path:
    base = f"{stem}-{stamp(when)}"
    path = folder / f"{base}.db"
    n = 1
    while path.exists():            # two backups within one second
        path = folder / f"{base}-{n}.db"
        n += 1
    return path


# ------------------------------------------------------------------------ checking


def _uri(path: Path, mode: str) -> str:
    return f"file:{quote(str(path.resolve()))}?mode={mode}"


def _connect(path: Path, mode: str = "rw", timeout: float = 10.0) -> sqlite3.Connection:
    """A connection to an existing file (``mode=rw`` never creates one)."""
    return sqlite3.connect(_uri(path, mode), uri=True, isolation_level=None, timeout=timeout)


def _schema_version() -> int:
    from db.schema import SCHEMA_VERSION

    return SCHEMA_VERSION


def check_file(path: str | os.PathLike[str], what: str = "backup",
               shown: str | os.PathLike[str] | None = None) -> Checked:
    """Check that ``path`` is a sound Warhost database: SQLite's ``quick_check``, the
    Warhost tables, a schema version this Warhost knows. Raises :class:`BackupError`
    saying what is wrong, naming the file as ``what`` and ``shown`` ("backup" and the
    path, by default).

    The file is opened read-write (a WAL-mode file needs it to be read reliably) but
    nothing is written; only check files that no bot is using.
    """
    path = Path(path)
    file = Path(shown) if shown is not None else path
    if not path.is_file():
        raise BackupError(f"There is no file {file}.")
    size = path.stat().st_size
    if size == 0:
        raise BackupError(f"The {what} {file} is empty (0 bytes): it is not a Warhost "
                          "database.")
    try:
        con = _connect(path)
    except sqlite3.Error as exc:
        raise BackupError(f"The {what} {file} cannot be opened ({exc}).") from exc
    try:
        try:
            problems = [str(r[0]) for r in con.execute("PRAGMA quick_check").fetchall()]
            tables = {str(r[0]) for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = int(con.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            if "not a database" in str(exc).lower():
                raise BackupError(f"The {what} {file} is not a SQLite database, or its first "
                                  f"page is damaged ({exc}).") from exc
            raise BackupError(f"The {what} {file} is damaged ({exc}).") from exc
        if problems != ["ok"]:
            shown = "; ".join(problems[:3]) + (" ..." if len(problems) > 3 else "")
            raise BackupError(f"The {what} {file} is damaged: SQLite's quick_check found "
                              f"{len(problems)} problem{'s' if len(problems) != 1 else ''} "
                              f"({shown}).")
        if version == 0 or not tables >= WARHOST_TABLES:
            raise BackupError(f"The {what} {file} is a SQLite database, but not a Warhost "
                              "one (it has no Warhost schema).")
        known = _schema_version()
        if version > known:
            raise BackupError(f"The {what} {file} has schema version {version}, but this "
                              f"Warhost knows versions up to {known}: it was made by a newer "
                              "Warhost. Upgrade Warhost first.")
        try:
            games = int(con.execute("SELECT count(*) FROM games").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"The {what} {file} is damaged: its games cannot be read "
                              f"({exc}).") from exc
    finally:
        con.close()
    return Checked(path, version, games, size)


# ------------------------------------------------------------------------ taking


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _prepare_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"Cannot create the backup folder {folder} ({exc.strerror or exc}). "
                          "Set BACKUP_DIR (or --to) to a folder the bot's user may write "
                          "in.") from exc
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BackupError(f"The bot's user cannot write in the backup folder {folder}. Fix "
                          "its permissions, or set BACKUP_DIR (or --to) to another folder.")


def take_backup(database: str | os.PathLike[str], directory: str | os.PathLike[str], *,
                when: datetime | None = None, step_pages: int = STEP_PAGES,
                progress: Progress | None = None) -> Backup:
    """Back up the SQLite database at ``database`` into ``directory`` (created if need
    be), as ``<stem>-<UTC time>.db``; returns what was written.

    Synchronous and slow-ish (it copies the whole file): run it in a thread. It opens
    its own connection to the file and holds one read snapshot for the whole copy, so
    the bot's writes go on meanwhile and the backup is the database at one moment. The
    copy is written under a temporary name, checked (:func:`check_file`), synced, then
    renamed into place.
    """
    source = Path(database)
    folder = Path(directory)
    started = time.monotonic()
    if not source.is_file():
        raise BackupError(f"There is no database at {source} to back up. Check "
                          "DATABASE_PATH (or --database).")
    _prepare_folder(folder)
    when = when or datetime.now(UTC)
    final = _free_name(folder, source.stem, when)
    temp = folder / f".{final.stem}.tmp"
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()
    try:
        src = _connect(source)
    except sqlite3.Error as exc:
        raise BackupError(f"Cannot open the database {source} to back it up ({exc}).") from exc
    try:
        try:
            # One read snapshot for the whole copy: the backup API then never restarts
            # when the bot writes meanwhile, and copies one consistent moment.
            src.execute("BEGIN")
            src.execute("SELECT count(*) FROM sqlite_master").fetchone()
            dst = sqlite3.connect(temp, isolation_level=None)
            try:
                src.backup(dst, pages=max(1, step_pages), progress=_stepper(progress))
                dst.execute("PRAGMA journal_mode = DELETE")   # one self-contained file
            finally:
                dst.close()
        finally:
            with contextlib.suppress(sqlite3.Error):
                src.execute("ROLLBACK")
            src.close()
    except sqlite3.Error as exc:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        if "full" in str(exc).lower():
            raise BackupError(f"The backup of {source} did not fit in {folder}: the disk is "
                              "full. Free some space, or lower BACKUP_KEEP.") from exc
        raise BackupError(f"The backup of {source} failed ({exc}). If the database is "
                          "damaged, `python -m db check` says how.") from exc
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise BackupError(f"The backup of {source} could not be written to {folder} "
                          f"({exc.strerror or exc}).") from exc
    try:
        checked = check_file(temp, "backup just written", shown=final)
        _fsync_file(temp)
        os.replace(temp, final)
        _fsync_dir(folder)
    except BackupError as exc:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise BackupError(f"{exc} It was not kept. Run `python -m db check --database "
                          f"{source}` to see whether the database itself is sound.") from exc
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise BackupError(f"The backup of {source} could not be saved in {folder} "
                          f"({exc.strerror or exc}).") from exc
    return Backup(final, checked.size, checked.schema_version, checked.games,
                  time.monotonic() - started)


def _stepper(progress: Progress | None) -> Callable[[int, int, int], object] | None:
    if progress is None:
        return None
    report = progress

    def step(_status: int, left: int, total: int) -> None:
        report(left, total)

    return step


def prune(directory: str | os.PathLike[str], stem: str, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` backups of ``stem`` in ``directory`` (and
    temporary files left by a backup that died a day ago or more); what was deleted."""
    if keep < 1:
        raise ValueError("keep at least one backup")
    folder = Path(directory)
    gone: list[Path] = []
    for path in backups_of(folder, stem)[:-keep]:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            gone.append(path)
    if folder.is_dir():
        cutoff = time.time() - STALE_TEMP_SECONDS
        for path in folder.glob(f".{glob_escape(stem)}-*.tmp"):
            with contextlib.suppress(OSError):
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    gone.append(path)
    return gone


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


# ------------------------------------------------------------------------ restoring


def database_in_use(database: str | os.PathLike[str]) -> str | None:
    """Why the database cannot be replaced now (None: nobody has it open).

    A running bot keeps its connections open all the time, and every open connection
    holds a shared lock on the file; this asks SQLite for an exclusive lock (waiting a
    moment, in case another program is just finishing a write) and gives it back at
    once. It works across processes and within one.
    """
    path = Path(database)
    if not path.exists():
        return None
    try:
        con = _connect(path, timeout=IN_USE_WAIT_SECONDS)
    except sqlite3.Error:
        return None         # not even openable: nobody is using it as a database
    try:
        con.execute("PRAGMA locking_mode = EXCLUSIVE")
        con.execute("BEGIN EXCLUSIVE")
        con.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        text = str(exc).lower()
        if "locked" in text or "busy" in text:
            return (f"The database {path} is in use: the bot (or another program) has it "
                    "open. Stop the bot first (Ctrl-C where `make run` runs, or "
                    "`systemctl stop warhost`), then run this again.")
        return None
    except sqlite3.DatabaseError:
        return None         # damaged (the reason to restore, perhaps): not in use
    finally:
        con.close()
    return None


def _companions(path: Path) -> list[Path]:
    """The database file, its WAL and shared-memory files and its commit witness
    (:mod:`db.witness`), those that exist."""
    return [p for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal"),
                        witness_path(path))
            if p.exists()]


def _remove(path: Path) -> None:
    """Delete a file of ours and any journal files SQLite left beside it."""
    for leftover in _companions(path):
        with contextlib.suppress(OSError):
            leftover.unlink()


def restore(backup: str | os.PathLike[str], database: str | os.PathLike[str], *,
            when: datetime | None = None) -> Restored:
    """Put ``backup`` in place of the database at ``database``.

    Refused (:class:`BackupError`, nothing changed) while the database is in use, or if
    the backup is not a sound Warhost database. Otherwise the current database (with
    its ``-wal``, ``-shm`` and ``-commits``) is renamed to ``<name>.before-restore-<UTC
    time>`` beside it, with its write-ahead log as it was before anything opened it
    (``...-wal.as-found``), and a copy of the backup takes its place (copied under a
    temporary name, checked again, synced, then renamed: a crash midway leaves either the
    old database aside and no new one, or the new one in place). The commit witness
    starts again from the backup (:func:`restart_witness`).
    """
    source = Path(backup)
    target = Path(database)
    if not source.is_file():
        raise BackupError(f"There is no backup file {source}. List the backups with "
                          f"`ls {source.parent}`.")
    if target.exists() and source.resolve() == target.resolve():
        raise BackupError(f"{source} is the database itself, not a backup of it.")
    # Opening the database to see whether it is in use checkpoints its write-ahead log
    # and deletes it: keep the log as it was found (perhaps the reason to restore).
    found = keep_wal(target)
    try:
        return _restore(source, target, found, when)
    except BaseException:
        if found is not None:
            with contextlib.suppress(OSError):
                found.unlink()
        raise


def _restore(source: Path, target: Path, found: Path | None,
             when: datetime | None) -> Restored:
    busy = database_in_use(target)
    if busy is not None:
        raise BackupError(f"{busy} Nothing was changed.")
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"Cannot create the folder {folder} ({exc.strerror or exc}). "
                          "Nothing was changed.") from exc
    when = when or datetime.now(UTC)
    temp = folder / f".{target.name}.restoring-{stamp(when)}"
    try:
        shutil.copyfile(source, temp)
        checked = check_file(temp, "backup", shown=source)
        _fsync_file(temp)
    except BackupError as exc:
        _remove(temp)
        raise BackupError(f"{exc} Nothing was changed. Restore another backup (the newest "
                          "one that passes this check).") from exc
    except OSError as exc:
        _remove(temp)
        raise BackupError(f"Could not copy the backup {source} next to {target} "
                          f"({exc.strerror or exc}). Nothing was changed.") from exc
    aside_base = folder / f"{target.name}.before-restore-{stamp(when)}"
    moved: list[Path] = []
    try:
        busy = database_in_use(target)     # the bot may have been started meanwhile
        if busy is not None:
            raise BackupError(f"{busy} Nothing was changed.")
        for path in _companions(target):
            aside = Path(str(aside_base) + str(path)[len(str(target)):])
            os.replace(path, aside)
            moved.append(aside)
        if found is not None:
            aside = Path(f"{aside_base}-wal.as-found")
            os.replace(found, aside)
            moved.append(aside)
        os.replace(temp, target)
        restart_witness(target)
        _fsync_dir(folder)
    except (OSError, BackupError) as exc:
        _remove(temp)
        if moved:       # put back what was moved
            for aside in moved:
                with contextlib.suppress(OSError):
                    os.replace(aside, Path(str(target) + str(aside)[len(str(aside_base)):]))
        if isinstance(exc, BackupError):
            raise
        raise BackupError(f"Could not put the backup in place of {target} "
                          f"({exc.strerror or exc}); the database was left as it was.") from exc
    return Restored(target, source, tuple(moved), checked.schema_version, checked.games)


def restart_witness(database: Path) -> None:
    """A new commit witness for the database now at ``database`` (restored, or its loss
    accepted): it is the evidence from now on."""
    try:
        identity, held = held_by_file(database)
    except sqlite3.Error as exc:
        raise BackupError(f"Cannot read {database} ({exc}).") from exc
    if identity is None:
        with contextlib.suppress(FileNotFoundError):
            witness_path(database).unlink()
        return
    write_mark(database, Mark(identity, held, time.time(), False))


def held_by_file(database: str | os.PathLike[str]) -> tuple[str | None, int]:
    """(identity, count of saved changes) of a SQLite file, read without changing it (a
    read-only connection never checkpoints the write-ahead log or deletes it); (None, 0)
    when it has no count."""
    con = _connect(Path(database), "ro")
    try:
        rows = con.execute("SELECT identity, count FROM warhost_commits").fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None, 0
        raise
    finally:
        con.close()
    return (str(rows[0][0]), int(rows[0][1])) if rows else (None, 0)


def lost_in_file(database: str | os.PathLike[str]) -> str | None:
    """For ``python -m db check`` and ``accept-loss``: why the file lost saved changes
    (its log as found kept aside), or None. Raises ``sqlite3.Error`` if it cannot be
    read."""
    mark = read_mark(database)
    if mark is None:
        return None
    identity, held = held_by_file(database)
    if not lost(mark, identity, held):
        return None
    return lost_message(str(database), identity, held, mark, keep_wal(database))
