"""The store's side of a user's data: what it holds about someone, and deleting it.

What names a user: their seat in games (``seats``, ``host_id``, and inside the engine's
position, the clocks and the reminders), the player of each logged move (and the ids in
its events), announcements addressed to them or naming them, their settings, vacations
and follows. See ``docs/privacy.md``.

Deleting (:meth:`Privacy.forget_user`): they leave their lobbies; they resign their
running games (through :meth:`db.core.StoreCore.apply_action`, the one move path, so the other
players are told and play on); then, in every game that names them, their id is
replaced by a placeholder (``deleted-`` and 8 random hex digits, one per game), the
same everywhere in that game, so the game still replays move for move: moves are
anonymised, never removed. Each game is rewritten in one transaction, and only after a
replay of the rewritten log gave the rewritten position exactly. Their settings,
vacations, follows and messages addressed to them are deleted.

The placeholder is random rather than a hash of the id: anyone who knows the id could
recompute a hash and find the games again.

A finished game whose log was archived (:mod:`db.archive`) has its record rewritten the
same way, checked by the same replay.

The action log is append-only, guarded by a trigger; the rewrite lifts that guard for
its own transaction only (:func:`_log_unguarded`) and puts it back before committing,
so no other writer ever sees the log unguarded (SQLite: the trigger is dropped and made
again from its stored SQL; PostgreSQL: it is disabled, which is transactional too).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import engine
from db import standings
from db.archive import archived_entries, replace_archived_log
from db.backend import Connection
from db.core import StoreCore
from db.lobby import Lobby
from db.records import (
    ACTIVE,
    GAME_COLUMNS,
    LOBBY,
    STATUS,
    GameRecord,
    LogEntry,
    StoreError,
    canonical_json,
    game_from_row,
)
from db.replay import opening, replay
from engine.core import RESIGN, IllegalAction
from engine.notation import is_number

log = logging.getLogger("warhost.db")

#: What replaces a deleted user's id (followed by 8 random hex digits).
PLACEHOLDER_PREFIX = "deleted-"
#: The trigger that keeps the action log append-only (see ``db/schema.py``).
LOG_GUARD = "actions_append_only_update"
#: Vacations that ended this long ago count for nothing (the allowance looks back a
#: year, clocks 400 days), so they are deleted.
VACATION_KEPT_DAYS = 400
#: Tries at rewriting a game that keeps changing under the rewrite.
REWRITE_TRIES = 3


@dataclass(frozen=True)
class Held:
    """What the database holds about one user (``/privacy`` shows it to them)."""

    games: int = 0
    open_games: int = 0
    moves: int = 0
    settings: bool = False
    vacations: int = 0
    following: int = 0
    waiting: int = 0
    #: Their ratings (one per server and game kind).
    ratings: int = 0

    @property
    def anything(self) -> bool:
        return bool(self.games or self.moves or self.settings or self.vacations
                    or self.following or self.waiting or self.ratings)


@dataclass(frozen=True)
class Forgotten:
    """What :meth:`Privacy.forget_user` did."""

    #: Lobbies they left, as they are now (their lobby messages need refreshing).
    left: tuple[GameRecord, ...] = ()
    #: Running games they resigned from (their announcements need delivering).
    resigned: tuple[int, ...] = ()
    #: Games whose records now name a placeholder instead of them.
    anonymised: tuple[int, ...] = ()
    #: Games that could not be rewritten (they still name the user; an admin must look).
    failed: tuple[int, ...] = ()
    #: Rows deleted outright: settings, vacations, follows, messages addressed to them.
    deleted: int = 0


def snowflake(user_id: object) -> str:
    """A Discord user id as text; anything else is refused (the rewrite matches digits)."""
    text = str(user_id).strip()
    if isinstance(user_id, bool) or not is_number(text) or not 1 <= len(text) <= 20:
        raise StoreError(f"Internal error: {user_id!r} is not a Discord user id; nothing "
                         "was deleted.")
    return text


def new_placeholder(taken: Sequence[str] = ()) -> str:
    """``deleted-`` and 8 random hex digits, not one of ``taken``."""
    while True:
        name = PLACEHOLDER_PREFIX + secrets.token_hex(4)
        if name not in taken:
            return name


def renamer(user_id: str, placeholder: str) -> Any:
    """``text -> text`` with every whole occurrence of the id (not part of a longer
    number) replaced by the placeholder: ids are the only digits-only strings of 15+
    characters a game stores, so this is exact for positions, events and payloads."""
    pattern = re.compile(rf"(?<![0-9]){re.escape(user_id)}(?![0-9])")

    def rename(text: str) -> str:
        return pattern.sub(placeholder, text)

    return rename


def _json_renamed(value: Any, rename: Any) -> Any:
    return json.loads(rename(canonical_json(value)))


class _Moved(Exception):
    """The game changed between reading it and rewriting it: read it again."""


@asynccontextmanager
async def _log_unguarded(conn: Connection) -> AsyncIterator[None]:
    """Lift the action log's append-only guard inside the caller's transaction, and put
    it back exactly as it was. On an error nothing is put back: the caller's rollback
    restores the guard with everything else."""
    if conn.dialect != "sqlite":
        await conn.execute(f"ALTER TABLE actions DISABLE TRIGGER {LOG_GUARD}")
        yield
        await conn.execute(f"ALTER TABLE actions ENABLE TRIGGER {LOG_GUARD}")
        return
    rows = list(await conn.execute_fetchall(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", (LOG_GUARD,)))
    if not rows or not rows[0][0]:
        raise StoreError("Internal error: the action log's guard is not where Warhost "
                         "expects it, so no move was rewritten. Ask an admin to check the "
                         "database.")
    await conn.execute(f"DROP TRIGGER {LOG_GUARD}")
    yield
    await conn.execute(rows[0][0])


class Privacy:
    """What is held about a user, and deleting it (``store.privacy``)."""

    def __init__(self, core: StoreCore, lobby: Lobby) -> None:
        self.core = core
        self.lobby = lobby

    async def held_about(self, user_id: str) -> Held:
        """Counts of what the database holds about ``user_id``."""
        user = snowflake(user_id)
        seated = f'%"{user}"%'
        async with self.core.reading() as conn:
            async def count(sql: str, *args: Any) -> int:
                rows = list(await conn.execute_fetchall(sql, args))
                return int(rows[0][0] or 0)

            games = await count("SELECT count(*) FROM games WHERE seats LIKE ? OR host_id = ?",
                                seated, user)
            open_games = await count(
                "SELECT count(*) FROM games WHERE (seats LIKE ? OR host_id = ?) AND "
                "status IN ('lobby', 'active')", seated, user)
            moves = await count(
                "SELECT count(*) FROM actions WHERE player = ? AND game_id IN "
                "(SELECT id FROM games WHERE seats LIKE ?)", user, seated)
            settings = (await count("SELECT count(*) FROM players WHERE user_id = ?", user)
                        + await count("SELECT count(*) FROM player_names WHERE user_id = ?",
                                      user)
                        + await count("SELECT count(*) FROM web_links WHERE user_id = ?",
                                      user))
            vacations = await count("SELECT count(*) FROM vacations WHERE user_id = ?", user)
            following = await count("SELECT count(*) FROM followers WHERE user_id = ?", user)
            waiting = await count("SELECT count(*) FROM announcements WHERE recipient = ? "
                                  "AND delivered_at IS NULL", user)
            ratings = await count("SELECT count(*) FROM ratings WHERE player = ?", user)
        return Held(games, open_games, moves, bool(settings), vacations, following, waiting,
                    ratings)

    async def forget_user(self, user_id: str) -> Forgotten:
        """Delete what names ``user_id``: leave their lobbies, resign their running
        games, anonymise every game that names them, delete their settings, vacations,
        follows and messages. Each step commits on its own; running it again finishes
        what a failure (or a crash) left undone, and otherwise does nothing."""
        user = snowflake(user_id)
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE (seats LIKE ? OR host_id = ?) "
                "ORDER BY id", (f'%"{user}"%', user))
        named = [game_from_row(row) for row in rows]
        left: list[GameRecord] = []
        resigned: list[int] = []
        for record in named:
            if record.status == LOBBY and user in record.seats:
                try:
                    left.append(await self.lobby.leave(record.id, user))
                except StoreError as exc:      # it started or closed meanwhile
                    log.info("Game %s: leaving its lobby failed (%s)", record.id, exc)
        for record in named:
            current = await self.core.get(record.id)
            if current.status == ACTIVE and user in current.seats:
                try:
                    await self.core.apply_action(current.id, user, RESIGN)
                except IllegalAction:
                    pass                        # already out of the game
                except StoreError as exc:       # anonymised all the same, below
                    log.error("Game %s: resigning a user who asked to be forgotten "
                              "failed (%s)", current.id, exc)
                else:
                    resigned.append(current.id)
        anonymised: list[int] = []
        failed: list[int] = []
        for record in named:
            try:
                if await self._anonymise(record.id, user):
                    anonymised.append(record.id)
            except StoreError as exc:
                log.error("Game %s could not be anonymised: %s", record.id, exc)
                failed.append(record.id)
        deleted = 0
        async with self.core.transaction() as conn:
            for sql in ("DELETE FROM players WHERE user_id = ?",
                        "DELETE FROM vacations WHERE user_id = ?",
                        "DELETE FROM followers WHERE user_id = ?",
                        "DELETE FROM player_names WHERE user_id = ?",   # the web's names
                        "DELETE FROM web_links WHERE user_id = ?",      # their links die
                        "DELETE FROM announcements WHERE recipient = ?"):
                cursor = await conn.execute(sql, (user,))
                deleted += max(0, cursor.rowcount)
            # Their ratings go; the series they were in are rated again without them.
            await standings.forget_player(conn, user)
        log.info("Deleted a user's data on request: %d lobbies left, %d games resigned, "
                 "%d anonymised, %d failed, %d rows deleted", len(left), len(resigned),
                 len(anonymised), len(failed), deleted)
        return Forgotten(tuple(left), tuple(resigned), tuple(anonymised), tuple(failed),
                         deleted)

    async def forget_old_vacations(self, days: float = VACATION_KEPT_DAYS) -> int:
        """Delete vacations that ended more than ``days`` ago (they count for nothing)."""
        async with self.core.transaction() as conn:
            cursor = await conn.execute("DELETE FROM vacations WHERE ends_at < ?",
                                        (self.core.now() - days * 86400,))
            return max(0, cursor.rowcount)

    async def _anonymise(self, game_id: int, user: str) -> bool:
        """Replace ``user`` by a placeholder everywhere in one game (in one transaction,
        checked by a replay first); False if the game does not name them."""
        for _ in range(REWRITE_TRIES):
            async with self.core.game_lock(game_id):
                record, entries = await self.core.snapshot(game_id)
                archived = False
                if not entries and record.version > 0:      # compacted (db/archive.py)?
                    async with self.core.reading(snapshot=True) as conn:
                        found = await archived_entries(conn, game_id)
                    if found is not None:
                        entries, archived = found, True
                if user not in record.seats and record.host_id != user \
                        and not any(e.player == user for e in entries):
                    return False
                if len(entries) != record.version:
                    raise StoreError(f"Game #{game_id}'s log holds {len(entries)} of its "
                                     f"{record.version} moves, so it was left as it was.")
                rename = renamer(user, new_placeholder(record.seats))
                new_record, new_entries = self._renamed(record, entries, rename)
                self._check_rewrite(record, entries, new_record, new_entries)
                try:
                    async with self.core.transaction() as conn:
                        await self._rewrite(conn, record, new_record, entries, new_entries,
                                            archived, user, rename)
                except _Moved:
                    continue
            self.core.forget_state(game_id)
            return True
        raise StoreError(f"Game #{game_id} kept changing while it was being anonymised; "
                         "try again.")

    def _renamed(self, record: GameRecord, entries: list[LogEntry],
                 rename: Any) -> tuple[GameRecord, list[LogEntry]]:
        """The game and its log with the id renamed (pure)."""
        new_record = replace(
            record, seats=tuple(rename(s) for s in record.seats),
            host_id=rename(record.host_id),
            state=None if record.state is None else rename(record.state),
            decisions=_json_renamed(record.decisions, rename),
            timing=_json_renamed(record.timing, rename),
            nudges=_json_renamed(record.nudges, rename),
            dice=_json_renamed(record.dice, rename),
            origin=_json_renamed(record.origin, rename))
        new_entries = [replace(e, player=rename(e.player), action=rename(e.action),
                               events=_json_renamed(e.events, rename)) for e in entries]
        return new_record, new_entries

    def _check_rewrite(self, record: GameRecord, entries: list[LogEntry],
                       new_record: GameRecord, new_entries: list[LogEntry]) -> None:
        """Refuse (StoreError) a rewrite whose log no longer replays to its position,
        unless the game did not replay before either (then the rename cannot be blamed)."""
        if new_record.state is None:
            return
        problem = self._replay_problem(new_record, new_entries)
        if problem is None:
            return
        before = self._replay_problem(record, entries)
        if before is None:
            raise StoreError(f"Game #{record.id}'s log would no longer replay after the "
                             f"rewrite ({problem}); it was left as it was.")
        log.warning("Game %s did not replay before its rewrite either (%s)", record.id, before)

    def _replay_problem(self, record: GameRecord,
                        entries: list[LogEntry]) -> str | None:
        """Why the log does not replay to the saved position, or None when it does."""
        game = engine.get_game(record.kind)
        try:
            state = opening(game, record)
            for step in replay(game, record, entries):
                if canonical_json(step.events) != canonical_json(step.entry.events):
                    return f"move {step.entry.seq} gives different events"
                state = step.after
        except (IllegalAction, ValueError) as exc:
            return f"replay failed: {exc}"
        if game.dump(state) != record.state:
            return "the replayed position differs from the saved one"
        return None

    async def _rewrite(self, conn: Connection, record: GameRecord,
                       new_record: GameRecord, entries: list[LogEntry],
                       new_entries: list[LogEntry], archived: bool, user: str,
                       rename: Any) -> None:
        """Save a renamed game (read as ``record`` before this transaction): the row,
        the moves (in ``actions``, or the archive's record), the announcements; refresh
        the status message if it runs."""
        current = await self.core.fetch(conn, record.id)
        if (current.version, current.updated_at, current.status) != (
                record.version, record.updated_at, record.status):
            raise _Moved
        await self.core.write(conn, current, seats=new_record.seats, host_id=new_record.host_id,
                              state=new_record.state, decisions=new_record.decisions,
                              timing=new_record.timing, nudges=new_record.nudges,
                              dice=new_record.dice, origin=new_record.origin)
        await standings.rename_seats(conn, record.id, record.seats, new_record.seats)
        if archived and not await replace_archived_log(conn, record.id, new_entries):
            raise _Moved
        changed = [] if archived else [
            new for new, old in zip(new_entries, entries, strict=True) if new != old]
        if changed:
            async with _log_unguarded(conn):
                for entry in changed:
                    cursor = await conn.execute(
                        "UPDATE actions SET player = ?, action = ?, events = ? "
                        "WHERE game_id = ? AND seq = ?",
                        (entry.player, entry.action, canonical_json(entry.events),
                         record.id, entry.seq))
                    if cursor.rowcount != 1:        # archived meanwhile, by another process
                        raise _Moved
        await conn.execute("DELETE FROM announcements WHERE game_id = ? AND recipient = ?",
                           (record.id, user))
        rows = await conn.execute_fetchall(
            "SELECT id, payload FROM announcements WHERE game_id = ? AND payload LIKE ?",
            (record.id, f"%{user}%"))
        for announcement_id, payload in rows:
            renamed = rename(payload)
            try:
                json.loads(renamed)
            except ValueError as exc:
                raise StoreError(f"Announcement {announcement_id} of game #{record.id} "
                                 "names the user in a way that cannot be rewritten; the "
                                 "game was left as it was.") from exc
            await conn.execute("UPDATE announcements SET payload = ? WHERE id = ?",
                               (renamed, announcement_id))
        if current.status == ACTIVE:
            await self.core.announce(conn, record.id, record.version, STATUS, None, {},
                                     now=self.core.now())
