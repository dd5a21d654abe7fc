"""Interactions deferred and not yet answered (``store.pending``).

A command that defers shows its player "thinking…" until the bot edits that response;
if the bot dies in between, nobody ever would. So each deferral is noted here (a row of
``pending_interactions``) and concluded (deleted) once the interaction is answered:

* a move: by the trigger ``announcements_conclude_pending`` (migration 10), in the
  very transaction that saves the move's answer to the interaction (its ``reply``
  announcement, delivered by the outbox), so concluding costs the move nothing more;
* a refusal, a duplicate, any other command: by :meth:`Pending.conclude`, once the
  reply is sent.

At start the bot answers the rows an earlier run of its shards left (:meth:`left`),
while their tokens are good, and deletes them (:meth:`drop`, which drops expired rows
too). The token is a secret, like an announcement's: kept at most 15 minutes, never
logged, and never read outside this module and the start-up answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from db.core import StoreCore

#: Kinds of deferred interaction: a move (``cogs.moves.submit``) or any other command.
MOVE, COMMAND = "move", "command"

#: How long Discord lets a bot answer an interaction after it was created.
TOKEN_LIFE = 15 * 60

_INSERT = ("INSERT INTO pending_interactions (interaction_id, application_id, secret, kind, "
           "shards, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
           "ON CONFLICT (interaction_id) DO NOTHING")


@dataclass(frozen=True)
class Deferred:
    """One interaction left unanswered: what answering it takes."""

    interaction_id: str
    application_id: str
    kind: str
    expires_at: float
    #: the interaction token (a secret: never shown)
    secret: str = field(repr=False)


class Pending:
    """Noting and concluding deferred interactions (``store.pending``).

    It also remembers, in memory, which of this process's rows are still open, so that
    concluding an interaction that has none (most commands, every move that was saved)
    costs no database round trip.
    """

    def __init__(self, core: StoreCore) -> None:
        self.core = core
        #: interaction id -> when its token expires (wall clock), for rows not concluded
        self._open: dict[str, float] = {}

    async def note(self, interaction_id: int | str, application_id: int | str | None,
                   token: str, kind: str, *, shards: str = "",
                   expires_at: float | None = None) -> None:
        """Note a deferral (one statement, committed on its own). ``expires_at`` (wall
        clock) defaults to 15 minutes after Discord created the interaction."""
        key = str(interaction_id)
        if expires_at is None:
            expires_at = created_at(key) + TOKEN_LIFE
        self._prune()
        self._open[key] = expires_at
        await self._write_one(_INSERT, (key, str(application_id or ""), str(token), kind,
                                        shards, self.core.now(), float(expires_at)))

    def saved(self, interaction_id: int | str) -> None:
        """The interaction's move was saved, which concluded its row (the trigger)."""
        self._open.pop(str(interaction_id), None)

    def is_open(self, interaction_id: int | str) -> bool:
        return str(interaction_id) in self._open

    async def conclude(self, interaction_id: int | str) -> None:
        """The interaction was answered: forget its row (nothing to do without one)."""
        key = str(interaction_id)
        if self._open.pop(key, None) is None:
            return
        await self._write_one("DELETE FROM pending_interactions WHERE interaction_id = ?",
                              (key,))

    async def left(self, shards: str = "", *, before: float | None = None,
                   now: float | None = None) -> list[Deferred]:
        """What an earlier run of these shards left unanswered: rows noted before
        ``before`` (the store's clock; this run's start) whose token is still good (wall
        clock ``now``), oldest first."""
        now = time.time() if now is None else now
        before = self.core.now() if before is None else before
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT interaction_id, application_id, kind, expires_at, secret "
                "FROM pending_interactions WHERE shards = ? AND created_at < ? "
                "AND expires_at > ? ORDER BY created_at, interaction_id",
                (shards, before, now))
        return [Deferred(str(r[0]), str(r[1]), str(r[2]), float(r[3]), str(r[4]))
                for r in rows]

    async def drop(self, interaction_ids: Iterable[str], now: float | None = None) -> int:
        """Delete these rows and every row whose token has expired; how many went."""
        now = time.time() if now is None else now
        ids = list(dict.fromkeys(str(i) for i in interaction_ids))
        marks = ", ".join("?" for _ in ids)
        where = f"expires_at <= ? OR interaction_id IN ({marks})" if ids else "expires_at <= ?"
        async with self.core.transaction() as conn:
            cursor = await conn.execute(f"DELETE FROM pending_interactions WHERE {where}",
                                        (now, *ids))
        for key in ids:
            self._open.pop(key, None)
        return cursor.rowcount

    async def count(self) -> int:
        """Rows of every process (for tests and checks)."""
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall("SELECT count(*) FROM pending_interactions")
        return int(rows[0][0])

    def _prune(self) -> None:
        """Forget rows whose token expired (a command that failed without concluding)."""
        if len(self._open) > 1000:
            now = time.time()
            for key in [k for k, expires in self._open.items() if expires <= now]:
                del self._open[key]

    async def _write_one(self, sql: str, params: tuple[Any, ...]) -> None:
        """One statement, committed by itself: a single round trip to the database."""
        await self.core.write_one(sql, params)


def created_at(interaction_id: str) -> float:
    """When Discord created the interaction (the timestamp in its snowflake id)."""
    return ((int(interaction_id) >> 22) + 1_420_070_400_000) / 1000
