"""Leases: when several bot processes share one database (sharding, PostgreSQL), a job
that must run once -- the scheduler's passes, a game's deliveries, backups -- runs in
whichever process holds its lease. A lease lasts ``ttl`` seconds unless renewed; a
process that dies simply stops renewing, and another takes over when it expires.

:class:`Leases` is a service of the store (``store.leases``).
"""

from __future__ import annotations

import os
import secrets
import socket

from db.core import StoreCore


def new_holder() -> str:
    """A name for this process that no other process (here or elsewhere) shares."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class Leases:
    """Named leases that one process at a time holds (``store.leases``)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    async def take(self, name: str, holder: str, ttl: float) -> bool:
        """Take (or renew) the lease ``name`` for ``ttl`` seconds; False while another
        holder's lease on it has not expired."""
        now = self.core.now()
        async with self.core.transaction() as conn:
            cursor = await conn.execute(
                "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, "
                "expires_at = excluded.expires_at "
                "WHERE leases.holder = excluded.holder OR leases.expires_at <= ?",
                (str(name), str(holder), now + float(ttl), now))
        return cursor.rowcount == 1

    async def release(self, name: str, holder: str) -> None:
        """Give up ``name`` now (if ``holder`` has it), so another may take it at once."""
        async with self.core.transaction() as conn:
            await conn.execute("DELETE FROM leases WHERE name = ? AND holder = ?",
                               (str(name), str(holder)))

    async def holder(self, name: str) -> str | None:
        """Who holds ``name`` now (None: nobody, or it expired)."""
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT holder FROM leases WHERE name = ? AND expires_at > ?",
                (str(name), self.core.now()))
        return str(rows[0][0]) if rows else None
