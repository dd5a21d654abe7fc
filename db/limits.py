"""The store's side of keeping a server's games in bounds: how many games a server has
open (for the cap at ``/game new``), and lobbies nobody touches, which are closed.

:class:`Limits` is a service of the store (``store.limits``). Closing a lobby goes
through the same game lock, transaction and guarded write as any other change, and
saves the channel's notice in the same transaction (the outbox), so a crash can
neither lose the notice nor send it for a lobby that stayed open.
"""

from __future__ import annotations

import logging

from db.core import StoreCore
from db.records import ABORTED, LOBBY, NOTICE, GameRecord

log = logging.getLogger("warhost.db")

#: The notice a closed lobby leaves in its channel (``payload["type"]``).
LOBBY_EXPIRED = "lobby_expired"


class Limits:
    """Open games per server, and lobbies that expire (``store.limits``)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    async def open_games(self, guild_id: str | None, *,
                         up_to: int | None = None) -> int:
        """How many games are in a lobby or under way in the guild (None: direct
        messages); with ``up_to``, only those with an id up to that one (the games
        opened before it, for a cap that two racing ``/game new`` cannot both pass)."""
        guild = None if guild_id is None else str(guild_id)
        last = 2**63 - 1 if up_to is None else int(up_to)
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT count(*) FROM games WHERE guild_id IS NOT DISTINCT FROM ? AND "
                "status IN ('lobby', 'active') AND id <= ?", (guild, last)))
        return int(rows[0][0])

    async def expire_lobbies(self, idle: float, limit: int = 100) -> list[GameRecord]:
        """Abort every lobby untouched (nobody joined, left, reseated or started it) for
        ``idle`` seconds, saving a notice for its channel; the closed games, oldest first.

        A lobby touched while this runs is left open: each one is looked at again under
        its lock, in the transaction that closes it.
        """
        if idle <= 0:
            return []
        cutoff = self.core.now() - idle
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM games WHERE status = 'lobby' AND updated_at < ? "
                "ORDER BY updated_at, id LIMIT ?", (cutoff, max(1, limit)))
        closed: list[GameRecord] = []
        for (game_id,) in rows:
            async with self.core.game_lock(int(game_id)), self.core.transaction() as conn:
                record = await self.core.fetch(conn, int(game_id))
                if record.status != LOBBY or record.updated_at >= cutoff:
                    continue
                now = self.core.now()
                aborted = await self.core.write(conn, record, status=ABORTED)
                await self.core.announce(conn, record.id, record.version, NOTICE, None,
                                         {"type": LOBBY_EXPIRED, "idle": idle,
                                          "since": record.updated_at}, now=now)
            closed.append(aborted)
            log.info("Game %s: its lobby expired after %.0f hours untouched", record.id,
                     idle / 3600)
        return closed
