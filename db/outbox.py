"""The outbox: what the players must be told, as the move path saved it.

Every move saves its announcements in its own transaction (:meth:`db.core.StoreCore.
apply_action`); the bot's delivery worker reads them here, oldest first, and marks
each delivered once sent. :class:`Outbox` is a service of the store (``store.outbox``).
"""

from __future__ import annotations

import json

from db.core import StoreCore
from db.records import (
    ANNOUNCEMENT_COLUMNS,
    Announcement,
    announcement_from_row,
    as_game_id,
)


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
