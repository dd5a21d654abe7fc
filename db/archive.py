"""Archiving finished games: each one's log compacted into one replayable record.

A game over for longer than the admin's retention period (``ARCHIVE_AFTER_DAYS``) keeps
its row in ``games`` (seats, seed, options, final position, status), but its action
log moves into one row of ``archives``: the ordered list of ``(seq, player, action,
created_at, origin)``, as canonical JSON, compressed. What is dropped:

* each action's events: the engine is deterministic, so replaying the seed and the
  actions (:func:`db.replay.replay`) makes them again. An undo entry keeps its one
  event (the platform made it, not the engine). A SHA-256 of all the events as they
  were is kept, so a replay that no longer gives the same events is noticed;
* request ids (they only matter while a move can still be retried);
* the game's delivered announcements, which hold a board view per turn digest: the
  recap and the digests of an archived game are gone.

A game is archived only if replaying its log gives exactly the stored events and
position (checked just before), it is finished or aborted, and every announcement of it
has been delivered. Each game is archived in its own transaction, under its game lock.

Readers of a log ask :func:`archived_entries` when a game has no rows in ``actions``:
it rebuilds the :class:`LogEntry` list, events included.

The table and the change to the append-only trigger are migration 5 (db/schema.py,
db/schema_pg.py): the log may lose rows only of a game whose archive covers them.

Where the store reads a log, an archived game (no rows in ``actions``) is read here:
``store.history.log`` and ``store.history.actions_between`` call
:func:`archived_entries`; ``store.history.problems`` calls :func:`read_archive` then
:func:`archive_problems`; ``store.history.log_page`` reads and rebuilds itself;
anonymising a user (db/privacy.py) reads it with :func:`archived_entries` and rewrites
it with :func:`replace_archived_log`. The core's ``log_of`` (undo, ``replay_steps``: the
recap) does not: an archived game's recap is gone with its digests.

The format and its readers take a connection and know no store; :class:`Archiving`,
the service that archives games (``store.archive``), builds on the store's core.
"""

from __future__ import annotations

import hashlib
import json
import logging
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import engine
from db.backend import Connection
from db.core import StoreCore
from db.records import (
    ABORTED,
    BY_UNDO,
    FINISHED,
    GAME_COLUMNS,
    LOG_COLUMNS,
    GameRecord,
    LogEntry,
    StoreError,
    canonical_json,
    entries_from_rows,
    game_from_row,
)
from db.replay import opening, replay
from engine.core import Game, IllegalAction

log = logging.getLogger("warhost.db")

#: The version of the record's layout (in the record, to read old ones later).
ARCHIVE_FORMAT = 1
#: zlib's level: archiving is rare and reading is cheap at any level.
COMPRESSION = 9

@dataclass(frozen=True)
class Archive:
    """A game's archived log, read back (the entries' events are not in it: see
    :func:`rebuild`; an undo entry keeps its own)."""

    game_id: int
    actions: int
    archived_at: float
    entries: tuple[LogEntry, ...]
    #: SHA-256 of every entry's events as they were logged (see :func:`events_digest`).
    events_sha256: str
    #: Size of the stored record, compressed.
    size: int


def events_digest(events: Sequence[list[dict[str, Any]]]) -> str:
    """SHA-256 of a log's events (one list per entry, in order), canonical JSON."""
    return hashlib.sha256(canonical_json(list(events)).encode()).hexdigest()


def pack(entries: Sequence[LogEntry]) -> bytes:
    """The archive record of a whole log (``entries`` in order, events included)."""
    rows: list[list[Any]] = []
    for entry in entries:
        row: list[Any] = [entry.seq, entry.player, entry.action, entry.created_at,
                          entry.origin]
        if entry.origin == BY_UNDO:
            row.append(entry.events)
        rows.append(row)
    body = {"format": ARCHIVE_FORMAT, "entries": rows,
            "events_sha256": events_digest([e.events for e in entries])}
    return zlib.compress(canonical_json(body).encode(), COMPRESSION)


def unpack(game_id: int, blob: bytes) -> tuple[tuple[LogEntry, ...], str]:
    """The entries (events empty, but an undo's) and the events' digest of a record."""
    try:
        body = json.loads(zlib.decompress(bytes(blob)).decode())
        if not isinstance(body, dict):
            raise ValueError("not a record")
        if body.get("format") != ARCHIVE_FORMAT:
            raise ValueError(f"unknown format {body.get('format')!r}")
        entries = []
        for row in body["entries"]:
            seq, player, action, created_at, origin = row[:5]
            events = row[5] if len(row) > 5 else []
            entries.append(LogEntry(int(seq), str(player), str(action), list(events),
                                    float(created_at), str(origin)))
        digest = str(body["events_sha256"])
    except (ValueError, KeyError, TypeError, IndexError, zlib.error) as exc:
        raise StoreError(f"Game #{game_id}'s archived log cannot be read ({exc}); ask an "
                         "admin to run `python -m db check`.") from exc
    return tuple(entries), digest


async def read_archive(conn: Connection, game_id: int) -> Archive | None:
    """The game's archive, if it has one (read on ``conn``; nothing is replayed)."""
    rows = await conn.execute_fetchall(
        "SELECT log, actions, archived_at FROM archives WHERE game_id = ?", (int(game_id),))
    if not rows:
        return None
    blob, actions, archived_at = rows[0]
    entries, digest = unpack(int(game_id), bytes(blob))
    return Archive(int(game_id), int(actions), float(archived_at), entries, digest, len(blob))


def _replayed(game: Game[Any], record: GameRecord, entries: Sequence[LogEntry]
              ) -> tuple[list[LogEntry], Any]:
    """The entries with their events, made again, and the position they end at."""
    rebuilt: list[LogEntry] = []
    state = opening(game, record)
    for step in replay(game, record, entries):
        rebuilt.append(LogEntry(step.entry.seq, step.entry.player, step.entry.action,
                                step.events, step.entry.created_at, step.entry.origin))
        state = step.after
    return rebuilt, state


def rebuild(game: Game[Any], record: GameRecord, archive: Archive) -> list[LogEntry]:
    """An archived game's whole log, events included, replayed from its seed.

    Raises :class:`StoreError` if it no longer replays, or no longer gives the events
    it gave when it was played (the game's rules changed since).
    """
    try:
        entries, _ = _replayed(game, record, archive.entries)
    except (IllegalAction, ValueError) as exc:
        raise StoreError(f"Game #{record.id}'s archived log no longer replays ({exc}); ask "
                         "an admin to run `python -m db check`.") from exc
    if events_digest([e.events for e in entries]) != archive.events_sha256:
        raise StoreError(f"Game #{record.id}'s archived log no longer replays as it was "
                         "played (the rules changed since it was archived); ask an admin "
                         "to run `python -m db check`.")
    return entries


def archive_problems(game: Game[Any], record: GameRecord, archive: Archive) -> list[str]:
    """What is wrong with an archived game (empty when nothing is): what
    :meth:`db.history.History.problems` checks, for a log that lives in ``archives``."""
    found: list[str] = []
    if record.status not in (FINISHED, ABORTED):
        found.append(f"archived, yet status {record.status}")
    if archive.actions != len(archive.entries):
        found.append(f"the archive says {archive.actions} actions but holds "
                     f"{len(archive.entries)}")
    if record.version != len(archive.entries):
        found.append(f"version {record.version} but {len(archive.entries)} archived actions")
    for expected, entry in enumerate(archive.entries, start=1):
        if entry.seq != expected:
            found.append(f"archived log has seq {entry.seq} where {expected} belongs")
            return found
    if record.state is None:
        found.append("archived, yet no position")
        return found
    try:
        entries, state = _replayed(game, record, archive.entries)
    except (IllegalAction, ValueError) as exc:
        found.append(f"replay of the archived log failed: {exc}")
        return found
    if events_digest([e.events for e in entries]) != archive.events_sha256:
        found.append("the archived log now gives different events")
    try:
        if game.dump(state) != game.dump(game.load(record.state)):
            found.append("the saved position differs from the replayed one")
    except (IllegalAction, ValueError) as exc:
        found.append(f"the saved position cannot be read: {exc}")
    over = game.outcome(state) is not None
    if (record.status == FINISHED) != over and record.status != ABORTED:
        found.append(f"status {record.status} but the replay is "
                     f"{'over' if over else 'not over'}")
    return found


async def archived_entries(conn: Connection, game_id: int) -> list[LogEntry] | None:
    """An archived game's whole log, events included (replayed), oldest first; None if
    the game is not archived. Call it where a game's log has no rows in ``actions``.

    Raises :class:`StoreError` if the record cannot be read or no longer replays.
    """
    archive = await read_archive(conn, game_id)
    if archive is None:
        return None
    rows = await conn.execute_fetchall(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?",
                                       (int(game_id),))
    if not rows:
        return None
    record = game_from_row(rows[0])
    return rebuild(_game_of(record), record, archive)


async def replace_archived_log(conn: Connection, game_id: int,
                               entries: Sequence[LogEntry]) -> bool:
    """Store ``entries`` (the whole log, events included) as the game's archive, in the
    caller's transaction: for a rewrite of an archived game (anonymising a user). False
    (nothing written) if the game is not archived."""
    rows = await conn.execute_fetchall(
        "SELECT actions FROM archives WHERE game_id = ?", (int(game_id),))
    if not rows:
        return False
    if int(rows[0][0]) != len(entries):
        raise StoreError(f"Internal error: game #{game_id}'s archive holds {int(rows[0][0])} "
                         f"actions, not {len(entries)}; it was left as it was.")
    await conn.execute("UPDATE archives SET log = ? WHERE game_id = ?",
                       (pack(entries), int(game_id)))
    return True


def _game_of(record: GameRecord) -> Game[Any]:
    try:
        return engine.get_game(record.kind)
    except Exception as exc:
        raise StoreError(f"Game #{record.id} is a game of {record.kind!r}, which this "
                         "Warhost does not have.") from exc


def _unarchivable(game: Game[Any], record: GameRecord, entries: Sequence[LogEntry]
                  ) -> str | None:
    """Why this log must not lose its events (None: replaying it gives them all back)."""
    if record.state is None:
        return "it has no position"
    if len(entries) != record.version:
        return f"version {record.version} but {len(entries)} logged actions"
    for expected, entry in enumerate(entries, start=1):
        if entry.seq != expected:
            return f"the log has seq {entry.seq} where {expected} belongs"
    try:
        replayed, state = _replayed(game, record, entries)
    except (IllegalAction, ValueError) as exc:
        return f"its log no longer replays ({exc})"
    for old, new in zip(entries, replayed, strict=True):
        if canonical_json(old.events) != canonical_json(new.events):
            return f"action {old.seq} ({old.action!r}) now gives different events"
    if game.dump(state) != game.dump(game.load(record.state)):
        return "the saved position differs from the replayed one"
    return None


class Archiving:
    """Archiving finished games (``store.archive``)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core
        #: Games found not to replay exactly: left whole, and said once (not each pass).
        self.refused: set[int] = set()

    async def sweep(self, older_than: float, limit: int) -> list[int]:
        """Archive up to ``limit`` games finished (or aborted) and untouched since before
        ``older_than`` (epoch seconds), oldest first, each in its own transaction; the
        ids of those archived. Lobbies and running games are never touched; a game
        whose announcements are not all delivered waits for a later pass; a game whose
        log no longer replays exactly is left whole (logged once)."""
        refused = self.refused
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM games WHERE status IN ('finished', 'aborted') "
                "AND version > 0 AND updated_at < ? "
                "AND NOT EXISTS (SELECT 1 FROM archives WHERE archives.game_id = games.id) "
                "AND NOT EXISTS (SELECT 1 FROM announcements WHERE "
                "announcements.game_id = games.id AND announcements.delivered_at IS NULL) "
                "ORDER BY updated_at, id LIMIT ?",
                (float(older_than), max(1, int(limit)) + len(refused)))
        done: list[int] = []
        for (game_id,) in rows:
            if len(done) >= limit:
                break
            if int(game_id) in refused:
                continue
            if await self.archive(int(game_id)):
                done.append(int(game_id))
        return done

    async def archive(self, game_id: int) -> bool:
        """Archive one finished or aborted game now, whatever its age; False (nothing
        changed) if it is not over, is archived already, still has announcements to
        deliver, or its log no longer replays exactly."""
        game_id = int(game_id)
        async with self.core.reading(snapshot=True) as conn:
            record = await self.core.fetch(conn, game_id)
            rows = await conn.execute_fetchall(
                f"SELECT {LOG_COLUMNS} FROM actions WHERE game_id = ? ORDER BY seq",
                (game_id,))
        if record.status not in (FINISHED, ABORTED) or not rows:
            return False
        entries = entries_from_rows(rows)
        game = _game_of(record)
        why = _unarchivable(game, record, entries)
        if why is not None:
            if game_id not in self.refused:
                self.refused.add(game_id)
                log.warning("Game #%s is not archived: %s. Its whole log stays; "
                            "`python -m db check` lists what is wrong.", game_id, why)
            return False
        blob = pack(entries)
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            current = await self.core.fetch(conn, game_id)
            if (current.status not in (FINISHED, ABORTED) or current.version != record.version
                    or current.state != record.state):
                return False
            if await conn.execute_fetchall(
                    "SELECT 1 FROM archives WHERE game_id = ?", (game_id,)):
                return False
            if await conn.execute_fetchall(
                    "SELECT 1 FROM announcements WHERE game_id = ? AND delivered_at IS NULL",
                    (game_id,)):
                return False
            count = await conn.execute_fetchall(
                "SELECT count(*) FROM actions WHERE game_id = ?", (game_id,))
            if int(count[0][0]) != len(entries):
                return False
            await conn.execute(
                "INSERT INTO archives (game_id, log, actions, archived_at) VALUES (?, ?, ?, ?)",
                (game_id, blob, len(entries), self.core.now()))
            await conn.execute("DELETE FROM actions WHERE game_id = ?", (game_id,))
            await conn.execute(
                "DELETE FROM announcements WHERE game_id = ? AND delivered_at IS NOT NULL",
                (game_id,))
        log.info("Game #%s archived: %d actions in %d bytes", game_id, len(entries), len(blob))
        return True

    async def read(self, game_id: int) -> Archive | None:
        """A game's archive record (None if it is not archived); nothing is replayed."""
        async with self.core.reading() as conn:
            found: Archive | None = await read_archive(conn, int(game_id))
        return found

