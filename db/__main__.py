"""Warhost's database, for admins: ``python -m db COMMAND``.

    python -m db backup  [--database PATH] [--to DIR]
    python -m db restore BACKUP_FILE [--database PATH]
    python -m db check   [--database PATH]
    python -m db accept-loss [--database PATH]
    python -m db copy    SOURCE TARGET
    python -m db ratings --rebuild [--database PATH]

``--database`` defaults to ``DATABASE_PATH`` (environment, then ``.env``, then
``./warhost.db``), ``--to`` to ``BACKUP_DIR`` (then a ``backups`` folder beside the
database), as the bot reads them. ``backup``, ``restore`` and ``check`` are for the
SQLite store; a PostgreSQL store (``DATABASE_URL``) is backed up and restored with
PostgreSQL's own tools (docs/backups.md). ``accept-loss`` lets the bot start on a SQLite
database that lost saved changes (its write-ahead log damaged or deleted;
:mod:`db.witness`). ``copy`` moves every game into a new, empty database, a SQLite
path or a PostgreSQL URL either side (:mod:`db.transfer`; docs/deploy.md).
``ratings --rebuild`` makes the ratings and statistics again from the finished games
(:mod:`db.ratings`; docs/ratings.md), on SQLite or PostgreSQL (``DATABASE_URL``); the
bot may be running.

Exit status: 0 done (or no problem found), 1 refused or problems found, 2 bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from db.backup import (
    BackupError,
    backup_folder,
    check_file,
    database_in_use,
    lost_in_file,
    restart_witness,
    restore,
    take_backup,
)
from db.settings import DEFAULT_DATABASE_PATH, read_settings


class Refused(Exception):
    """What the admin is told, on stderr, before exit status 1."""


def _database(args: argparse.Namespace, values: Mapping[str, str]) -> Path:
    if args.database is not None:
        return Path(args.database)
    if values.get("DATABASE_URL", "").startswith(("postgresql://", "postgres://")):
        raise Refused("DATABASE_URL points at PostgreSQL; these commands are for the SQLite "
                      "store. Back PostgreSQL up with pg_dump and restore with pg_restore "
                      "(docs/backups.md), or pass --database PATH for a SQLite file.")
    return Path(values.get("DATABASE_PATH", DEFAULT_DATABASE_PATH))


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def cmd_backup(args: argparse.Namespace, values: Mapping[str, str]) -> int:
    database = _database(args, values)
    folder = Path(args.to) if args.to is not None else backup_folder(
        values.get("BACKUP_DIR"), database)
    made = take_backup(database, folder)
    print(f"Backed up {database} to {made.path} ({_mb(made.size)}, {made.games} games, "
          f"schema version {made.schema_version}, checked, {made.seconds:.1f} s).")
    print("This one-off backup is named like the scheduled ones; the bot counts it in "
          "BACKUP_KEEP when it prunes that folder.")
    return 0


def cmd_restore(args: argparse.Namespace, values: Mapping[str, str]) -> int:
    database = _database(args, values)
    done = restore(args.backup_file, database)
    print(f"Restored {done.backup} to {done.database} ({done.games} games, schema version "
          f"{done.schema_version}).")
    if done.moved_aside:
        print("The database it replaced was moved aside, not deleted:")
        for path in done.moved_aside:
            print(f"  {path}")
        print("Delete it once the restored games look right.")
    print("Start the bot now; every move made after the backup was taken is not in it.")
    return 0


def cmd_check(args: argparse.Namespace, values: Mapping[str, str]) -> int:
    url = values.get("DATABASE_URL", "")
    if args.database is None and url.startswith(("postgresql://", "postgres://")):
        problems = asyncio.run(_check_games(url))      # PostgreSQL: every game's replay
    else:
        database = _database(args, values)
        if not database.is_file():
            raise Refused(f"There is no database at {database}. Pass --database PATH, or "
                          "set DATABASE_PATH.")
        problems = asyncio.run(_check(database))
    if not problems:
        return 0
    print(f"{len(problems)} problem(s) found. Restore the newest backup that passes "
          "`python -m db check` (docs/backups.md), or keep the games as they are.",
          file=sys.stderr)
    return 1


async def _check(database: Path) -> list[str]:
    """Lost commits, SQLite's quick_check, the schema, then every game's replay
    (Store.history.problems)."""
    try:
        # First, and without writing: the checks below open the file read-write, and
        # closing it checkpoints and deletes a damaged write-ahead log.
        lost = await asyncio.to_thread(lost_in_file, database)
    except sqlite3.Error as exc:
        lost = None
        print(f"Could not compare {database} with its commit witness ({exc}).", file=sys.stderr)
    if lost is not None:
        print(lost, file=sys.stderr)
        return [lost]
    try:
        checked = await asyncio.to_thread(check_file, database, "database")
    except BackupError as exc:
        print(f"{exc}", file=sys.stderr)
        return [str(exc)]
    print(f"{database}: quick_check ok, schema version {checked.schema_version}, "
          f"{checked.games} games, {_mb(checked.size)}.")
    return await _check_games(str(database))


async def _check_games(target: str) -> list[str]:
    """Every game of the database at ``target`` replayed (Store.history.problems)."""
    from db import Store, StoreError

    try:
        store = await Store.open(target)
    except StoreError as exc:
        print(f"{exc}", file=sys.stderr)
        return [str(exc)]
    found: list[str] = []
    try:
        async with store.reading() as conn:
            ids = [int(r[0]) for r in await conn.execute_fetchall(
                "SELECT id FROM games ORDER BY id")]
        for game_id in ids:
            try:
                problems = await store.history.problems(game_id)
            except StoreError as exc:
                problems = [str(exc)]
            for problem in problems:
                found.append(f"game #{game_id}: {problem}")
                print(f"game #{game_id}: {problem}", file=sys.stderr)
    finally:
        await store.close()
    if not found:
        print(f"All {len(ids)} games replay exactly from their logs.")
    return found


def cmd_accept_loss(args: argparse.Namespace, values: Mapping[str, str]) -> int:
    database = _database(args, values)
    if not database.is_file():
        raise Refused(f"There is no database at {database}. Pass --database PATH, or set "
                      "DATABASE_PATH.")
    try:
        lost = lost_in_file(database)
    except sqlite3.Error as exc:
        raise Refused(f"Cannot read {database} ({exc}); `python -m db check` says more.") \
            from exc
    if lost is None:
        print(f"{database} holds every change Warhost noted; there is nothing to accept.")
        return 0
    busy = database_in_use(database)
    if busy is not None:
        raise Refused(busy)
    restart_witness(database)
    print(lost.split(". Its write-ahead log")[0] + ".")
    print(f"Accepted: Warhost will start from {database} as it is now. Ask the players of "
          "the games changed after that time to check their boards.")
    return 0


def cmd_copy(args: argparse.Namespace, values: Mapping[str, str]) -> int:
    from db.backend import is_postgres, redact_url
    from db.records import StoreError
    from db.transfer import copy_database

    source, target = str(args.source), str(args.target)
    if not is_postgres(source):
        if not Path(source).is_file():
            raise Refused(f"There is no database at {source} to copy from.")
        busy = database_in_use(source)
        if busy is not None:
            raise Refused(f"{busy} (Or copy from a backup: `python -m db backup`, then copy "
                          "that file.)")
    try:
        copied = asyncio.run(copy_database(source, target, progress=print))
    except StoreError as exc:
        raise Refused(str(exc)) from exc
    shown = redact_url(target) if is_postgres(target) else target
    print(f"Copied {sum(copied.rows.values())} rows to {shown}; all {copied.games_checked} "
          "games replay exactly there. The source was only read.")
    return 0


def cmd_ratings(args: argparse.Namespace, values: Mapping[str, str]) -> int:
    if not args.rebuild:
        raise Refused("Say what to do: `python -m db ratings --rebuild` makes every rating "
                      "and statistic again from the finished games.")
    url = values.get("DATABASE_URL", "")
    if args.database is None and url.startswith(("postgresql://", "postgres://")):
        target = url
    else:
        database = _database(args, values)
        if not database.is_file():
            raise Refused(f"There is no database at {database}. Pass --database PATH, or "
                          "set DATABASE_PATH.")
        target = str(database)
    return asyncio.run(_rebuild_ratings(target))


async def _rebuild_ratings(target: str) -> int:
    from db import Store, StoreError

    try:
        store = await Store.open(target)
    except StoreError as exc:
        raise Refused(str(exc)) from exc
    try:
        done = await store.ratings.rebuild()
    except StoreError as exc:
        raise Refused(str(exc)) from exc
    finally:
        await store.close()
    print(f"Rebuilt the ratings from {done.games} finished games: {done.rated} rated, in "
          f"{done.series} server and game pairs ({done.seconds:.1f} s).")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m db", description="Back up, restore and check Warhost's SQLite "
        "database (docs/backups.md); copy it; rebuild its ratings (docs/ratings.md).")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    database_help = "the database file (default: DATABASE_PATH, else ./warhost.db)"

    backup = commands.add_parser("backup", help="take a backup now (the bot may be running)",
                                 description="Take a checked backup of the database now; "
                                 "the bot may be running.")
    backup.add_argument("--database", metavar="PATH", help=database_help)
    backup.add_argument("--to", metavar="DIR",
                        help="the folder for it (default: BACKUP_DIR, else backups/ beside "
                        "the database)")
    backup.set_defaults(run=cmd_backup)

    back = commands.add_parser("restore", help="put a backup in place (stop the bot first)",
                               description="Put a backup in place of the database. The bot "
                               "must be stopped; the current database is moved aside, not "
                               "deleted.")
    back.add_argument("backup_file", metavar="BACKUP_FILE", help="the backup to restore")
    back.add_argument("--database", metavar="PATH", help=database_help)
    back.set_defaults(run=cmd_restore)

    check = commands.add_parser("check", help="check the database and replay every game",
                                description="Changes lost from the write-ahead log, "
                                "SQLite's quick_check, the schema against the migrations', "
                                "then every game's log replayed against its saved position.")
    check.add_argument("--database", metavar="PATH", help=database_help)
    check.set_defaults(run=cmd_check)

    accept = commands.add_parser(
        "accept-loss", help="start from a database that lost saved changes",
        description="The bot refuses to start on a database that lost changes it had saved "
        "(its write-ahead log damaged or deleted after a crash). Restore a copy if you have "
        "one; else this accepts the database as it is, so the bot starts again.")
    accept.add_argument("--database", metavar="PATH", help=database_help)
    accept.set_defaults(run=cmd_accept_loss)

    copy = commands.add_parser("copy", help="copy every game into a new, empty database",
                               description="Copy every game into a new, empty database "
                               "(SQLite to PostgreSQL, say), then check the copy by row "
                               "counts and by replaying every game. Stop the bot first.")
    copy.add_argument("source", metavar="SOURCE", help="a SQLite file or postgresql:// URL")
    copy.add_argument("target", metavar="TARGET", help="a new SQLite file or an empty "
                      "PostgreSQL database's URL")
    copy.set_defaults(run=cmd_copy)

    ratings = commands.add_parser(
        "ratings", help="make the ratings and statistics again from the finished games",
        description="Ratings and statistics are derived from the finished games; --rebuild "
        "makes them again, exactly as the moves that ended the games did. The bot may be "
        "running (moves wait for the rebuild's last step).")
    ratings.add_argument("--rebuild", action="store_true",
                         help="rebuild them (the only thing this command does)")
    ratings.add_argument("--database", metavar="PATH", help=database_help)
    ratings.set_defaults(run=cmd_ratings)
    return top


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args, read_settings(environ)))
    except (BackupError, Refused) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
