"""Housekeeping while the bot runs: backups of the SQLite store, and archiving games
that have been over for a while.

One loop, started when the cog loads and cancelled when it unloads, wakes every few
minutes and does what is due:

* **a backup** (SQLite only) when the newest one in ``BACKUP_DIR`` (default: a
  ``backups`` folder beside the database, so ``./backups`` for ``./warhost.db``) is older than
  ``BACKUP_EVERY_HOURS`` (default 6; 0 turns scheduled backups off), then keeps the
  newest ``BACKUP_KEEP`` (default 14). The schedule is read off the backups' names, so
  a restart neither skips one nor takes an extra one. The copy runs in a thread on its
  own connection (:func:`db.backup.take_backup`): the event loop and moves go on.
  With PostgreSQL it does nothing: ``pg_dump`` is the tool (docs/backups.md).
* **archiving** (hourly), when ``ARCHIVE_AFTER_DAYS`` (default 30; 0: never) is set:
  games finished or aborted that long ago are archived in small batches, one game per
  transaction (:meth:`db.archive.Archiving.archive_finished`).

Settings come from the environment or ``.env`` (the environment wins), like the bot's.
A bad value is logged as an error that names it, and the housekeeping stays off until
it is fixed and the bot restarted; games are not affected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from discord.ext import commands

from cogs.workers import Background
from db import StoreError
from db.backup import (
    Backup,
    BackupError,
    backup_folder,
    latest_backup,
    prune,
    take_backup,
    taken_at,
)
from db.leases import new_holder
from db.settings import read_settings

log = logging.getLogger("warhost.maintenance")

DEFAULT_BACKUP_EVERY_HOURS = 6.0
DEFAULT_BACKUP_KEEP = 14
DEFAULT_ARCHIVE_AFTER_DAYS = 30.0

#: How often the loop looks at what is due (seconds).
TICK = 300.0
#: The first look waits this long after the start, so the scheduler and the announcer
#: catch up with any downtime first.
FIRST_LOOK = 60.0
#: A failed backup is tried again after this long (seconds), not at every tick.
BACKUP_RETRY = 3600.0
#: How often archiving looks for games to archive (seconds).
ARCHIVE_EVERY = 3600.0
#: Games archived per call (each in its own transaction), and at most per pass.
ARCHIVE_BATCH = 20
ARCHIVE_PER_PASS = 500
#: The lease that makes one process of several sharing a database do the housekeeping.
LEASE = "maintenance"

DAY = 86400.0


class SettingsError(Exception):
    """A housekeeping setting is malformed; the message names it and says what to do."""


@dataclass(frozen=True)
class MaintenanceSettings:
    """``BACKUP_EVERY_HOURS``, ``BACKUP_DIR``, ``BACKUP_KEEP``, ``ARCHIVE_AFTER_DAYS``."""

    backup_every_hours: float = DEFAULT_BACKUP_EVERY_HOURS
    #: None: a ``backups`` folder beside the database.
    backup_dir: str | None = None
    backup_keep: int = DEFAULT_BACKUP_KEEP
    archive_after_days: float = DEFAULT_ARCHIVE_AFTER_DAYS

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None,
                 dotenv_path: str | os.PathLike[str] | None = ".env") -> MaintenanceSettings:
        """Read the settings (``environ``, default ``os.environ``, wins over the file).
        Empty values count as unset. Raises :class:`SettingsError`."""
        values = read_settings(environ, dotenv_path)
        every = _number(values, "BACKUP_EVERY_HOURS", DEFAULT_BACKUP_EVERY_HOURS, 0, 24 * 366,
                        "a number of hours from 0 to {high:g} (0 turns scheduled backups off)")
        keep = _number(values, "BACKUP_KEEP", DEFAULT_BACKUP_KEEP, 1, 100_000,
                       "the number of backups to keep, a whole number from 1 to {high:g}",
                       whole=True)
        days = _number(values, "ARCHIVE_AFTER_DAYS", DEFAULT_ARCHIVE_AFTER_DAYS, 0, 36_500,
                       "a number of days from 0 to {high:g} (0: never archive)")
        return cls(backup_every_hours=every,
                   backup_dir=values.get("BACKUP_DIR"),
                   backup_keep=int(keep), archive_after_days=days)


def _number(values: Mapping[str, str], name: str, default: float, low: float, high: float,
            what: str, whole: bool = False) -> float:
    text = values.get(name)
    if text is None:
        return default
    try:
        if not text.isascii():          # `٣` or `１`: int() and float() would take them
            raise ValueError(text)
        number = int(text) if whole else float(text)
    except ValueError:
        number = None
    if number is None or number != number or not low <= number <= high:
        raise SettingsError(f"{name} must be {what.format(high=high)}, not {text!r}. Fix it "
                            "in .env (or the environment) and restart the bot; leave it "
                            f"empty for the default, {default:g}.")
    return number


def _is_memory(path: str) -> bool:
    return path in ("", ":memory:") or "mode=memory" in path


@dataclass(frozen=True)
class Pass:
    """What one look did."""

    backup: Backup | None = None
    pruned: tuple[Path, ...] = ()
    archived: tuple[int, ...] = ()


class Maintenance(commands.Cog):
    """Backups and archiving, on a timer (no commands)."""

    def __init__(self, bot: commands.Bot, settings: MaintenanceSettings | None = None, *,
                 wall: Callable[[], float] = time.time, tick: float = TICK,
                 first_look: float = FIRST_LOOK) -> None:
        self.bot = bot
        #: None until the cog loads (read from the environment then, unless given).
        self.settings = settings
        #: Real time (epoch seconds), for the backups' UTC names; games' ages go by the
        #: store's own clock.
        self.wall = wall
        self.tick = tick
        self.first_look = first_look
        #: This process's name in the leases (the bot's own, when it has one).
        self.holder = str(getattr(bot, "holder", None) or new_holder())
        #: The housekeeping loop (running once the cog is loaded with good settings).
        self.loop = Background("warhost-maintenance", self._run)
        self._backup_failed_at: float | None = None
        self._archived_at: float | None = None
        self._told: set[str] = set()

    async def cog_load(self) -> None:
        if self.settings is None:
            try:
                self.settings = MaintenanceSettings.from_env()
            except SettingsError as exc:
                log.error("%s Until then there are no scheduled backups and no archiving.",
                          exc)
                return
        self.loop.start()

    async def cog_unload(self) -> None:
        if await self.loop.stop():
            store = self._store()
            if store is not None:       # another process may take over at once
                with contextlib.suppress(Exception):
                    await store.leases.release(LEASE, self.holder)

    # ------------------------------------------------------------------ the loop

    async def _run(self) -> None:
        await asyncio.sleep(self.first_look)
        while True:
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("A housekeeping pass failed; it runs again in %.0f s",
                              self.tick)
            await asyncio.sleep(self.tick)

    def _store(self) -> Any:
        return getattr(self.bot, "store", None)

    def _tell_once(self, key: str, level: int, message: str, *args: Any) -> None:
        if key not in self._told:
            self._told.add(key)
            log.log(level, message, *args)

    async def _have_lease(self, store: Any) -> bool:
        """Whether this process does the housekeeping (of several processes sharing the
        database, the one holding the lease does)."""
        try:
            return bool(await store.leases.take(LEASE, self.holder, self.tick * 3))
        except StoreError as exc:
            log.warning("Housekeeping skipped this time: %s", exc)
            return False

    async def run_once(self) -> Pass:
        """Do whatever is due now: a backup, an archiving pass."""
        store = self._store()
        if store is None or self.settings is None or not await self._have_lease(store):
            return Pass()
        backup: Backup | None = None
        pruned: list[Path] = []
        if self._backup_due(store):
            made = await self.backup_now()
            if made is not None:
                backup, pruned = made
        archived: tuple[int, ...] = ()
        now = self.wall()
        if self._archived_at is None or now - self._archived_at >= ARCHIVE_EVERY:
            self._archived_at = now
            archived = tuple(await self.archive_now())
        return Pass(backup, tuple(pruned), archived)

    # ------------------------------------------------------------------ backups

    def _backup_source(self, store: Any) -> Path | None:
        """The SQLite file to back up (None, said once, when there is none)."""
        if store.dialect != "sqlite":
            self._tell_once("postgres", logging.INFO,
                            "Scheduled backups are off: the games are in PostgreSQL, whose "
                            "own tools back it up (pg_dump; see docs/backups.md).")
            return None
        path = str(getattr(store, "path", ""))
        if _is_memory(path):
            self._tell_once("memory", logging.INFO,
                            "Scheduled backups are off: the database is in memory.")
            return None
        return Path(path)

    def _backup_due(self, store: Any) -> bool:
        assert self.settings is not None
        if self.settings.backup_every_hours <= 0:
            return False
        source = self._backup_source(store)
        if source is None:
            return False
        now = self.wall()
        if self._backup_failed_at is not None and now - self._backup_failed_at < BACKUP_RETRY:
            return False
        latest = latest_backup(backup_folder(self.settings.backup_dir, source), source.stem)
        when = taken_at(latest) if latest is not None else None
        return when is None or now - when.timestamp() >= self.settings.backup_every_hours * 3600

    async def backup_now(self) -> tuple[Backup, list[Path]] | None:
        """Take a backup now (in a thread) and prune the old ones; None if the store is
        not a SQLite file, or the backup failed (logged, with what to do)."""
        store = self._store()
        if store is None or self.settings is None:
            return None
        source = self._backup_source(store)
        if source is None:
            return None
        folder = backup_folder(self.settings.backup_dir, source)
        try:
            made = await asyncio.to_thread(take_backup, source, folder,
                                           when=datetime.fromtimestamp(self.wall(), UTC))
            pruned = await asyncio.to_thread(prune, folder, source.stem,
                                             self.settings.backup_keep)
        except BackupError as exc:
            self._backup_failed_at = self.wall()
            log.error("Backup failed: %s Warhost tries again in %.0f minutes.", exc,
                      BACKUP_RETRY / 60)
            return None
        except OSError as exc:
            self._backup_failed_at = self.wall()
            log.error("Backup failed: %s. Check BACKUP_DIR (%s); Warhost tries again in "
                      "%.0f minutes.", exc, folder, BACKUP_RETRY / 60)
            return None
        self._backup_failed_at = None
        log.info("Backup written: %s (%.1f MB, %d games, %.1f s)%s", made.path,
                 made.size / 1e6, made.games, made.seconds,
                 f"; {len(pruned)} old one(s) deleted" if pruned else "")
        return made, pruned

    # ------------------------------------------------------------------ archiving

    async def archive_now(self) -> list[int]:
        """Archive the games over for longer than ``ARCHIVE_AFTER_DAYS``, in batches;
        the ids archived."""
        store = self._store()
        if store is None or self.settings is None or self.settings.archive_after_days <= 0:
            return []
        cutoff = store.now() - self.settings.archive_after_days * DAY
        done: list[int] = []
        try:
            while len(done) < ARCHIVE_PER_PASS:
                batch = await store.archive.sweep(
                    cutoff, min(ARCHIVE_BATCH, ARCHIVE_PER_PASS - len(done)))
                done.extend(batch)
                if len(batch) < ARCHIVE_BATCH:
                    break
                await asyncio.sleep(0)          # let moves through between batches
        except StoreError as exc:
            log.warning("Archiving stopped for now: %s It goes on at the next pass.", exc)
        if done:
            log.info("Archived %d finished game(s): %s", len(done),
                     ", ".join(f"#{g}" for g in done[:20]) + (" ..." if len(done) > 20 else ""))
        return done


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Maintenance(bot))
