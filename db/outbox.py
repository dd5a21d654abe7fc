"""The outbox: what the players must be told, as the move path saved it.

Every move saves its announcements in its own transaction (:meth:`db.core.StoreCore.
apply_action`); the bot's delivery worker reads them here, oldest first, and marks
each delivered once sent. :class:`Outbox` is a service of the store (``store.outbox``).
"""

from __future__ import annotations

import json

from db.backend import Connection
from db.core import StoreCore
from db.records import (
    ANNOUNCEMENT_COLUMNS,
    DIGEST,
    FOLLOW,
    LOG_COLUMNS,
    Announcement,
    Delivery,
    GameRecord,
    LogEntry,
    announcement_from_row,
    as_game_id,
    entries_from_rows,
)

#: Announcements read at once for one game's delivery (more wait for the next pass), and
#: the most logged actions read with them.
DELIVERY_LIMIT = 500
DELIVERY_ENTRIES = 200


def told_from(item: Announcement) -> int:
    """The first logged action an announcement tells: a digest's (or a follower's
    copy's) first move, else its own."""
    if item.kind in (DIGEST, FOLLOW):
        first = item.payload.get("first")
        return int(first) if isinstance(first, int) and not isinstance(first, bool) \
            else item.seq
    return item.seq


class Outbox:
    """Reading and settling saved announcements (``store.outbox``)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    async def pending(self, game_id: int | None = None,
                      limit: int = 500) -> list[Announcement]:
        """Announcements not yet delivered, oldest first (of one game, or of all)."""
        where, args = "delivered_at IS NULL", tuple[int, ...]()
        if game_id is not None:
            where, args = "game_id = ? AND delivered_at IS NULL", (as_game_id(game_id),)
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {ANNOUNCEMENT_COLUMNS} FROM announcements WHERE {where} "
                "ORDER BY id LIMIT ?", (*args, max(1, limit)))
        return [announcement_from_row(row) for row in rows]

    async def delivery(self, conn: Connection, record: GameRecord) -> Delivery:
        """What delivering ``record``'s pending announcements needs (in ``conn``'s
        transaction or snapshot, awaiting nothing else: a batch body, see
        :meth:`db.core.StoreCore.batch`): them, and the logged actions they tell."""
        rows = await conn.execute_fetchall(
            f"SELECT {ANNOUNCEMENT_COLUMNS} FROM announcements "
            "WHERE game_id = ? AND delivered_at IS NULL ORDER BY id LIMIT ?",
            (record.id, DELIVERY_LIMIT))
        pending = tuple(announcement_from_row(row) for row in rows)
        first = min((told_from(a) for a in pending), default=None)
        entries: dict[int, LogEntry] = {}
        # (a long backlog's actions are read when each is sent, not all here)
        if first is not None and first <= record.version < first + DELIVERY_ENTRIES:
            entries = {e.seq: e for e in entries_from_rows(await conn.execute_fetchall(
                f"SELECT {LOG_COLUMNS} FROM actions WHERE game_id = ? AND seq BETWEEN ? "
                "AND ? ORDER BY seq", (record.id, first, record.version)))}
        return Delivery(record, pending, entries)

    async def read_delivery(self, game_id: int) -> Delivery:
        """:meth:`delivery` for game ``game_id``, read in one hop."""
        game_id = as_game_id(game_id)

        async def read(conn: Connection) -> Delivery:
            return await self.delivery(conn, await self.core.fetch(conn, game_id))

        return await self.core.batch_read(read)

    async def mark_all_delivered(self, done: list[tuple[int, str | None]]) -> None:
        """:meth:`mark_delivered` for several (announcement id, message id), in one
        statement."""
        if not done:
            return
        cases = " ".join("WHEN ? THEN ?" for _ in done)
        marks = ", ".join("?" for _ in done)
        await self.core.write_one(
            f"UPDATE announcements SET delivered_at = ?, secret = NULL, message_id = CASE id "
            f"{cases} ELSE message_id END WHERE id IN ({marks})",
            (self.core.now(), *(x for pair in done for x in (int(pair[0]), pair[1])),
             *(int(pair[0]) for pair in done)))

    async def get(self, announcement_id: int) -> Announcement | None:
        """One announcement by its id, delivered or not."""
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                f"SELECT {ANNOUNCEMENT_COLUMNS} FROM announcements WHERE id = ?",
                (int(announcement_id),)))
        return announcement_from_row(rows[0]) if rows else None

    async def mark_delivered(self, announcement_id: int, message_id: str | None) -> None:
        """Delivered (or given up on): never sent again; its interaction token is dropped."""
        async with self.core.transaction() as conn:
            await conn.execute(
                "UPDATE announcements SET delivered_at = ?, message_id = ?, secret = NULL "
                "WHERE id = ?", (self.core.now(), message_id, int(announcement_id)))

    async def digests(self, game_id: int) -> list[Announcement]:
        """Every turn digest of a game, oldest first (delivered or not)."""
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {ANNOUNCEMENT_COLUMNS} FROM announcements WHERE game_id = ? AND "
                "kind = 'digest' ORDER BY id", (int(game_id),))
        return [announcement_from_row(row) for row in rows]

    async def latest_digest(self, game_id: int) -> Announcement | None:
        """A game's newest turn digest, if any."""
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                f"SELECT {ANNOUNCEMENT_COLUMNS} FROM announcements WHERE game_id = ? AND "
                "kind = 'digest' ORDER BY id DESC LIMIT 1", (int(game_id),)))
        return announcement_from_row(rows[0]) if rows else None

    async def last_turn_start(self, game_id: int) -> int:
        """The first move told by the newest turn digest (1 if there is none): from
        there to now is "the last turn" that a board shown on request marks."""
        game_id = as_game_id(game_id)
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT payload FROM announcements "
                "WHERE game_id = ? AND kind = 'digest' ORDER BY id DESC LIMIT 1",
                (game_id,)))
        first = json.loads(rows[0][0]).get("first") if rows else None
        return max(1, int(first)) if isinstance(first, int) else 1
