"""Reading a game's history: its log (archived or not), the log replayed, its portable
record (``/game export``), and a check that the saved data replays to exactly what is
stored.

:class:`History` is a service of the store (``store.history``); it only reads. An
archived game (no rows in ``actions``) is read from its archive (:mod:`db.archive`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import engine
from db.archive import Archive, archive_problems, archived_entries, read_archive, rebuild
from db.core import StoreCore, check_running
from db.records import (
    ABORTED,
    FINISHED,
    GAME_COLUMNS,
    LOBBY,
    LOG_COLUMNS,
    GameRecord,
    LogEntry,
    NotFound,
    StoreError,
    as_game_id,
    canonical_json,
    entries_from_rows,
    game_from_row,
)
from db.replay import Step, Undoable, opening, replay, undoable
from engine import record as game_record
from engine.core import IllegalAction

log = logging.getLogger("warhost.db")


class History:
    """A game's log, replays and integrity checks (``store.history``)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    async def log(self, game_id: int, limit: int = 20) -> list[LogEntry]:
        """The last ``limit`` accepted actions, oldest first (newest last)."""
        game_id = as_game_id(game_id)
        async with self.core.reading() as conn:
            await self.core.fetch(conn, game_id)
            rows = list(await conn.execute_fetchall(
                f"SELECT {LOG_COLUMNS} FROM actions "
                "WHERE game_id = ? ORDER BY seq DESC LIMIT ?", (game_id, max(0, limit))))
            if not rows and limit > 0:
                archived = await archived_entries(conn, game_id)
                if archived is not None:
                    return archived[-limit:]
        return entries_from_rows(reversed(rows))

    async def actions_between(self, game_id: int, first: int, last: int) -> list[LogEntry]:
        """The logged actions ``first``..``last`` (inclusive), oldest first."""
        game_id = as_game_id(game_id)
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {LOG_COLUMNS} FROM actions "
                "WHERE game_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                (game_id, int(first), int(last)))
            if not rows and first <= last:
                archived = await archived_entries(conn, game_id)
                if archived is not None:
                    return [e for e in archived if first <= e.seq <= last]
        return entries_from_rows(rows)

    async def log_page(self, game_id: int, page: int,
                       per_page: int = 15) -> tuple[list[LogEntry], int]:
        """Page ``page`` (1-based; the last page when past the end) of the whole log,
        oldest first, and the number of pages. An archived game's log is replayed from
        its archive (see :mod:`db.archive`)."""
        archive: Archive | None = None
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT count(*) FROM actions WHERE game_id = ?", (int(game_id),)))
            total = int(rows[0][0])
            if total == 0:
                found_game = list(await conn.execute_fetchall(
                    f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (int(game_id),)))
                if not found_game:
                    raise NotFound(f"There is no game #{game_id}.")
                record = game_from_row(found_game[0])
                if record.version > 0:      # moves made, yet no rows: archived
                    archive = await read_archive(conn, record.id)
            if archive is None:
                pages = max(1, -(-total // per_page))
                page = min(max(1, page), pages)
                found = await conn.execute_fetchall(
                    f"SELECT {LOG_COLUMNS} FROM actions WHERE game_id = ? ORDER BY seq "
                    "LIMIT ? OFFSET ?", (int(game_id), per_page, (page - 1) * per_page))
                return entries_from_rows(found), pages
        # Replayed off the connection: the archive holds the actions, not their events.
        entries = rebuild(engine.get_game(record.kind), record, archive)
        pages = max(1, -(-len(entries) // per_page))
        page = min(max(1, page), pages)
        return entries[(page - 1) * per_page:page * per_page], pages


    async def undo_preview(self, game_id: int, player: str) -> Undoable:
        """What ``player`` could take back now in ``game_id`` (nothing is changed)."""
        record, entries = await self.core.snapshot(as_game_id(game_id))
        check_running(record)
        return undoable(engine.get_game(record.kind), self.core.replayed(record, entries),
                        str(player), record.digest_seq)

    async def replay_steps(self, game_id: int) -> tuple[GameRecord, list[Step]]:
        """The game and every logged action replayed (for a recap, say)."""
        record, entries = await self.core.snapshot(as_game_id(game_id))
        return record, self.core.replayed(record, entries) if record.state is not None else []


    async def export(self, game_id: int) -> tuple[GameRecord, dict[str, Any]]:
        """A game and its portable record (``docs/records.md``): everything once the game
        is over (finished or aborted), public information only before. Replays a
        finished game's whole log, off the event loop."""
        game_id = as_game_id(game_id)
        async with self.core.reading(snapshot=True) as conn:     # the row and the log together
            record = await self.core.fetch(conn, game_id)
            entries = await self.core.log_of(conn, game_id)
            if not entries and record.version:
                entries = await archived_entries(conn, game_id) or []
        if record.status == LOBBY or record.state is None:
            raise StoreError(f"Game #{record.id} has not started yet, so it has no record.")
        game = engine.get_game(record.kind)
        complete = not record.is_open
        try:
            data = await asyncio.to_thread(
                game_record.build, game, game_id=record.id, status=record.status,
                options=record.options, seats=record.seats,
                rated=record.timing.get("rated") is not False, dice=record.dice,
                origin=record.origin, seed=record.seed, entries=entries,
                started_at=record.timing.get("started_at"),
                finished_at=record.timing.get("finished_at"),
                exported_at=self.core.now(), complete=complete)
        except (IllegalAction, ValueError) as exc:
            raise StoreError(f"Game #{record.id}'s log cannot be replayed ({exc}); ask an "
                             "admin to check the database.") from exc
        return record, data

    # -- integrity ------------------------------------------------------------------

    async def problems(self, game_id: int) -> list[str]:
        """What is wrong with a game's saved data (empty when nothing is).

        Replays the seed and the whole log through the engine and compares each
        action's events and the final position with what is stored.
        """
        game_id = as_game_id(game_id)
        async with self.core.reading(snapshot=True) as conn:     # both tables at one moment
            record = await self.core.fetch(conn, game_id)
            rows = list(await conn.execute_fetchall(
                f"SELECT {LOG_COLUMNS} FROM actions WHERE game_id = ? ORDER BY seq",
                (game_id,)))
            archive = await read_archive(conn, game_id) if not rows else None
        if archive is not None:
            return archive_problems(engine.get_game(record.kind), record, archive)
        found: list[str] = []
        if record.version != len(rows):
            found.append(f"version {record.version} but {len(rows)} logged actions")
        if record.state is None:
            if record.status not in (LOBBY, ABORTED) or rows:
                found.append(f"no position, yet status {record.status} with {len(rows)} "
                             "actions")
            return found
        entries = entries_from_rows(rows)
        for expected, entry in enumerate(entries, start=1):
            if entry.seq != expected:
                found.append(f"log has seq {entry.seq} where {expected} belongs")
                return found
        game = engine.get_game(record.kind)
        try:
            state = opening(game, record)
            stored = {e.seq: canonical_json(e.events) for e in entries}
            for step in replay(game, record, entries):
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
