"""The store's side of keeping a server's games in bounds: how many games a server has
open (for the cap at ``/game new``), and lobbies nobody touches, which are closed
after the server's lobby expiry (``/settings``, else the bot's ``LOBBY_EXPIRY_HOURS``).

:class:`Limits` is a service of the store (``store.limits``). Closing a lobby goes
through the same game lock, transaction and guarded write as any other change, and
saves the channel's notice in the same transaction (the outbox), so a crash can
neither lose the notice nor send it for a lobby that stayed open.
"""

from __future__ import annotations

import logging
import math

from db.core import StoreCore
from db.records import ABORTED, LOBBY, NOTICE, GameRecord
from db.server_settings import LOBBY_EXPIRY_HOURS, ServerSettings

log = logging.getLogger("warhost.db")

#: The notice a closed lobby leaves in its channel (``payload["type"]``).
LOBBY_EXPIRED = "lobby_expired"


class Limits:
    """Open games per server, and lobbies that expire (``store.limits``)."""

    def __init__(self, core: StoreCore, servers: ServerSettings | None = None) -> None:
        self.core = core
        #: Each server's settings (its lobby expiry); None: ``idle`` everywhere.
        self.servers = servers

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
        its server's lobby expiry (``/settings``; ``idle`` seconds where the server chose
        none; 0: never), saving a notice for its channel; the closed games, oldest first.

        A lobby touched while this runs is left open: each one is looked at again under
        its lock, in the transaction that closes it.
        """
        default = max(0.0, float(idle)) if math.isfinite(float(idle)) else 0.0
        own: dict[str, float] = {}
        if self.servers is not None:
            own = {guild: float(hours) * 3600 for guild, hours in
                   (await self.servers.overrides(LOBBY_EXPIRY_HOURS)).items()}
        shortest = min((v for v in (default, *own.values()) if v > 0), default=0.0)
        if shortest <= 0:
            return []
        now = self.core.now()

        def idle_for(guild: str | None) -> float:
            return own.get(guild, default) if guild is not None else default

        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id, guild_id, updated_at FROM games WHERE status = 'lobby' AND "
                "updated_at < ? ORDER BY updated_at, id LIMIT ?",
                (now - shortest, max(1, limit) * 10))
        due = [(int(game_id), idle_for(guild)) for game_id, guild, updated in rows
               if idle_for(guild) > 0 and float(updated) < now - idle_for(guild)]
        closed: list[GameRecord] = []
        for game_id, seconds in due[:max(1, limit)]:
            cutoff = self.core.now() - seconds
            async with self.core.game_lock(game_id), self.core.transaction() as conn:
                record = await self.core.fetch(conn, game_id)
                if record.status != LOBBY or record.updated_at >= cutoff:
                    continue
                now = self.core.now()
                aborted = await self.core.write(conn, record, status=ABORTED)
                await self.core.announce(conn, record.id, record.version, NOTICE, None,
                                         {"type": LOBBY_EXPIRED, "idle": seconds,
                                          "since": record.updated_at}, now=now)
            closed.append(aborted)
            log.info("Game %s: its lobby expired after %.0f hours untouched", record.id,
                     seconds / 3600)
        return closed
