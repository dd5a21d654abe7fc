"""The store: games in SQLite, and :meth:`Store.apply_action`, the one path for every move.

Concurrency model
-----------------
One :class:`Store` owns one aiosqlite connection (one worker thread). Transactions on
a single connection would interleave between coroutines, so every use of the
connection holds ``_conn_lock``; moves also hold a per-game lock first (always in
that order: game lock, then connection lock), so moves on one game queue up in
arrival order. Other processes (a second bot, an admin script) are serialized by
SQLite itself: every write starts with ``BEGIN IMMEDIATE`` and waits up to
:data:`BUSY_TIMEOUT_MS` for the write lock, and every decision is made on the row
read inside that transaction (the in-memory parsed state is used only when it matches
that row's version and text).

Durability
----------
WAL journal, ``synchronous=FULL`` by default: a move that :meth:`apply_action`
returned has been fsync'd, so it survives not only the process being killed (which
``NORMAL`` already survives) but also power loss. Moves come at human speed, so one
fsync per move (well under a millisecond on an SSD with a write cache, a few ms on
slower disks) is worth it; pass ``synchronous="NORMAL"`` to :meth:`Store.open` to
trade that for speed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import sqlite3
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import aiosqlite

import engine
from db.records import (
    ABORTED,
    ACTIVE,
    DIGEST,
    FINISHED,
    LOBBY,
    PRIVATE,
    REPLY,
    Announcement,
    ChannelBusy,
    GameRecord,
    LogEntry,
    MoveResult,
    NotFound,
    StoreError,
)
from db.schema import migrate
from engine.core import RESIGN, Game, IllegalAction

log = logging.getLogger("warhost.db")

BUSY_TIMEOUT_MS = 10_000
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
#: Parsed states kept in memory (one per game, most recently used).
STATE_CACHE_SIZE = 512
MAX_SEED = 2**63 - 1

_COLUMNS = ("id, kind, guild_id, channel_id, host_id, status, seats, seed, options, state, "
            "version, lobby_message_id, created_at, updated_at, digest_seq, decisions")
_ANNOUNCEMENT_COLUMNS = ("id, game_id, seq, kind, recipient, payload, secret, created_at, "
                         "delivered_at, message_id")
_OPEN = "status IN ('lobby', 'active')"

Row = Sequence[Any]


def canonical_json(value: Any) -> str:
    """The one JSON spelling the log stores (sorted keys, no spaces, no NaN)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def _record(row: Row) -> GameRecord:
    return GameRecord(
        id=int(row[0]), kind=row[1], guild_id=row[2], channel_id=row[3], host_id=row[4],
        status=row[5], seats=tuple(json.loads(row[6])), seed=int(row[7]),
        options=json.loads(row[8]), state=row[9], version=int(row[10]),
        lobby_message_id=row[11], created_at=float(row[12]), updated_at=float(row[13]),
        digest_seq=int(row[14]), decisions=json.loads(row[15]))


def _entries(rows: Iterable[Row]) -> list[LogEntry]:
    """Log rows (seq, player, action, events, created_at) as entries, in the given order."""
    return [LogEntry(int(r[0]), r[1], r[2], json.loads(r[3]), float(r[4])) for r in rows]


def _announcement(row: Row) -> Announcement:
    return Announcement(
        id=int(row[0]), game_id=int(row[1]), seq=int(row[2]), kind=row[3], recipient=row[4],
        payload=json.loads(row[5]), secret=row[6], created_at=float(row[7]),
        delivered_at=None if row[8] is None else float(row[8]), message_id=row[9])


def _game_name(kind: str) -> str:
    game = engine.GAMES.get(kind)
    return game.name if game is not None else kind.title()


def _describe(record: GameRecord) -> str:
    where = "in the lobby" if record.status == LOBBY else "under way"
    return f"{_game_name(record.kind)}, #{record.id}, {where}"


def _mention(user_id: str) -> str:
    return f"<@{user_id}>"


def _not_in_lobby(record: GameRecord) -> str:
    if record.status == ACTIVE:
        return f"Game #{record.id} has already started; the seats can no longer change."
    return f"Game #{record.id} is over."


def _gid(value: Any) -> int:
    """Game ids are ints; digits in text (from a custom_id, say) are accepted too."""
    if isinstance(value, str) and value.strip().lstrip("#").isdigit():
        return int(value.strip().lstrip("#"))
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotFound(f"There is no game #{value}.")
    return value


def _id(value: Any, what: str) -> str:
    """Discord snowflakes arrive as int or str; the store keeps text."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value) == "":
        raise StoreError(f"Internal error: {what} must be a Discord id, not {value!r}.")
    return str(value)


#: How long Discord lets a bot answer an interaction (15 minutes), less a safety margin.
INTERACTION_TOKEN_LIFE = 15 * 60 - 60

#: A decision off one's turn lists its choices in the digest when there are this few.
DECISION_CHOICES_SHOWN = 8

STALE_ACTION = ("That was sent before your current turn began (the game moved on while it "
                "was on its way), so it was not applied. Look at the board and choose again.")


@dataclass(frozen=True)
class Turn:
    """Who is up: whose turn it is, who must act, and whether it is over."""

    current: str | None
    to_act: tuple[str, ...]
    over: bool

    @classmethod
    def of(cls, game: Game[Any], state: Any) -> Turn:
        return cls(game.current_turn(state), tuple(game.to_act(state)),
                   game.outcome(state) is not None)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Turn) and self.current == other.current
                and set(self.to_act) == set(other.to_act) and self.over == other.over)

    def __hash__(self) -> int:
        return hash((self.current, frozenset(self.to_act), self.over))

    def decisions(self, known: dict[str, float], before: Turn | None,
                  now: float) -> dict[str, float]:
        """When each player who must act now began deciding: ``now`` for those who just
        became due (or whose turn just began), unchanged for the rest."""
        began: dict[str, float] = {}
        for p in self.to_act:
            fresh = (before is None or p not in before.to_act
                     or (p == self.current and before.current != self.current))
            if fresh:
                began[p] = now
            elif p in known:
                began[p] = known[p]
        return began


def digest_payload(game: Game[Any], state: Any, first: int, last: int,
                   turn: Turn | None = None) -> dict[str, Any]:
    """What a turn digest of moves ``first``..``last`` needs of the position it ends at
    (public only): the view, who must act, a few choices for an off-turn decision."""
    turn = turn or Turn.of(game, state)
    outcome = game.outcome(state)
    choices: list[str] = []
    if len(turn.to_act) == 1 and turn.to_act[0] != turn.current:
        legal = game.legal_actions(state, turn.to_act[0])
        if len(legal) <= DECISION_CHOICES_SHOWN:
            choices = list(legal)
    return {"first": first, "last": last, "view": game.view(state, None),
            "to_act": list(turn.to_act), "current": turn.current, "choices": choices,
            "outcome": None if outcome is None else outcome.to_json()}


class Store:
    """Warhost's games, persisted. Create with ``await Store.open(path)``."""

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self.path = path
        self._conn_lock = asyncio.Lock()
        self._game_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        # game id -> (version, dump text, parsed state); most recently used last.
        self._states: OrderedDict[int, tuple[int, str, Any]] = OrderedDict()
        self._cleanups: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(cls, path: str, *, synchronous: str = "FULL") -> Store:
        """Open (creating and migrating as needed) the database at ``path``.

        WAL journal, foreign keys on, a busy timeout for other processes' writes.
        Raises :class:`StoreError` if the file is not a Warhost database or was
        written by a newer Warhost.
        """
        mode = synchronous.upper()
        if mode not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}")
        conn = await aiosqlite.connect(path, isolation_level=None,
                                       timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
            await conn.execute("PRAGMA foreign_keys = ON")
            rows = list(await conn.execute_fetchall("PRAGMA journal_mode = WAL"))
            journal = str(rows[0][0]).lower()
            if journal != "wal" and path != ":memory:" and path != "":
                log.warning("database %s is in %s journal mode, not WAL", path, journal)
            await conn.execute(f"PRAGMA synchronous = {mode}")
            await migrate(conn, path)
        except sqlite3.DatabaseError as exc:
            await conn.close()
            raise StoreError(f"Cannot open the database {path}: {exc}. Check DATABASE_PATH "
                             "points at a Warhost database (or a new file).") from exc
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path)

    async def close(self) -> None:
        """Close the connection (waits for an operation under way to finish)."""
        async with self._conn_lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                await conn.close()
        self._states.clear()

    # ------------------------------------------------------------------ plumbing

    def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StoreError("The game database is closed; the bot is shutting down.")
        return self._conn

    def _game_lock(self, game_id: int) -> asyncio.Lock:
        lock = self._game_locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._game_locks[game_id] = lock
        return lock

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection, for statements outside any transaction of ours."""
        async with self._conn_lock:
            conn = self._connection()
            if conn.in_transaction:      # defensive: nothing should leave one open
                await conn.rollback()
            yield conn

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; any exception rolls everything back.

        If the caller is cancelled (while waiting for the write lock, or mid-way), the
        statements it queued may still be running on the connection's thread; a
        background task then keeps the connection lock until its rollback, queued
        behind them, has run, and the cancellation goes through at once.
        """
        await self._conn_lock.acquire()
        release = True
        try:
            conn = self._connection()
            if conn.in_transaction:      # defensive: nothing should leave one open
                await conn.rollback()
            try:
                await conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError("The game database is busy; try again in a moment.") from exc
            try:
                yield conn
                await conn.execute("COMMIT")
            except BaseException as exc:
                if not isinstance(exc, Exception):     # cancelled, or the loop is exiting
                    raise
                await conn.rollback()
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"The game database failed ({exc}); nothing was "
                                     "saved. Try again.") from exc
                raise
        except BaseException as exc:
            if not isinstance(exc, Exception) and self._conn is not None:
                release = False
                self._hand_off_rollback(self._conn)
            raise
        finally:
            if release:
                self._conn_lock.release()

    def _hand_off_rollback(self, conn: aiosqlite.Connection) -> None:
        """Roll back in the background, then release the connection lock we hold."""
        async def rollback_then_release() -> None:
            try:
                await conn.rollback()
            except Exception:
                log.exception("rollback after a cancelled database call failed")
            finally:
                self._conn_lock.release()

        task = asyncio.get_running_loop().create_task(rollback_then_release())
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    async def _fetch(self, conn: aiosqlite.Connection, game_id: int) -> GameRecord:
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise NotFound(f"There is no game #{game_id}.")
        rows = list(await conn.execute_fetchall(
            f"SELECT {_COLUMNS} FROM games WHERE id = ?", (game_id,)))
        if not rows:
            raise NotFound(f"There is no game #{game_id}.")
        return _record(rows[0])

    async def _open_in_channel(self, conn: aiosqlite.Connection,
                               channel_id: str) -> GameRecord | None:
        rows = list(await conn.execute_fetchall(
            f"SELECT {_COLUMNS} FROM games WHERE channel_id = ? AND {_OPEN}", (channel_id,)))
        return _record(rows[0]) if rows else None

    async def _write(self, conn: aiosqlite.Connection, old: GameRecord,
                     **changes: Any) -> GameRecord:
        """Save ``changes`` to a game read in this transaction (guarded by its version)."""
        new = replace(old, updated_at=time.time(), **changes)
        sql_values = {
            "status": new.status, "seats": canonical_json(list(new.seats)),
            "host_id": new.host_id, "seed": new.seed, "state": new.state,
            "version": new.version, "lobby_message_id": new.lobby_message_id,
            "updated_at": new.updated_at, "digest_seq": new.digest_seq,
            "decisions": canonical_json(new.decisions),
        }
        columns = ", ".join(f"{name} = ?" for name in sql_values)
        cursor = await conn.execute(
            f"UPDATE games SET {columns} WHERE id = ? AND version = ?",
            (*sql_values.values(), old.id, old.version))
        if cursor.rowcount != 1:
            raise StoreError(f"Game #{old.id} changed while it was being saved; try again.")
        return new

    @staticmethod
    def _game(kind: str) -> Game[Any]:
        return engine.get_game(kind)

    # ------------------------------------------------------------------ the state cache

    def _remember(self, game_id: int, version: int, text: str, state: Any) -> None:
        known = self._states.get(game_id)
        if known is not None and known[0] > version:
            return                      # never replace a newer position with an older one
        self._states[game_id] = (version, text, state)
        self._states.move_to_end(game_id)
        while len(self._states) > STATE_CACHE_SIZE:
            self._states.popitem(last=False)

    def load_state(self, record: GameRecord) -> Any:
        """The engine state of ``record`` (parsed once per version, then cached).

        The returned object is shared: treat it as read-only (the engine never mutates
        states; it returns new ones).
        """
        if record.state is None:
            raise StoreError(f"Game #{record.id} has not started yet, so it has no position.")
        known = self._states.get(record.id)
        if known is not None and known[0] == record.version and known[1] == record.state:
            self._states.move_to_end(record.id)
            return known[2]
        game = self._game(record.kind)
        try:
            state = game.load(record.state)
        except IllegalAction as exc:
            raise StoreError(f"Game #{record.id}'s saved position cannot be read ({exc}); "
                             "ask an admin to check the database.") from exc
        self._remember(record.id, record.version, record.state, state)
        return state

    # ------------------------------------------------------------------ lobby

    async def create_lobby(self, kind: str, guild_id: str | None, channel_id: str,
                           host_id: str, options: dict[str, Any] | None = None) -> GameRecord:
        """A new game in its lobby, the host in seat 1.

        Raises :class:`ChannelBusy` if the channel already has an open game, and
        ``IllegalAction`` for an unknown kind or bad options.
        """
        game = self._game(kind)
        resolved = game.resolve_options(options)
        try:
            options_json = canonical_json(resolved)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"Those options cannot be saved: {exc}.") from exc
        guild = None if guild_id is None else _id(guild_id, "guild_id")
        channel = _id(channel_id, "channel_id")
        host = _id(host_id, "host_id")
        now = time.time()
        async with self._transaction() as conn:
            busy = await self._open_in_channel(conn, channel)
            if busy is None:
                try:
                    cursor = await conn.execute(
                        "INSERT INTO games (kind, guild_id, channel_id, host_id, status, seats, "
                        "seed, options, state, version, created_at, updated_at) "
                        "VALUES (?, ?, ?, ?, 'lobby', ?, 0, ?, NULL, 0, ?, ?)",
                        (kind, guild, channel, host, canonical_json([host]), options_json,
                         now, now))
                except sqlite3.IntegrityError:
                    busy = await self._open_in_channel(conn, channel)
                    if busy is None:
                        raise
                else:
                    game_id = cursor.lastrowid
                    assert game_id is not None
                    return await self._fetch(conn, game_id)
            raise ChannelBusy(
                f"This channel already has a game ({_describe(busy)}). Finish or abort it "
                "first, or open a thread.")

    async def join(self, game_id: int, user_id: str) -> GameRecord:
        """Seat ``user_id`` last. Refused unless in the lobby, not seated, not full."""
        game_id = _gid(game_id)
        user = _id(user_id, "user_id")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if record.status != LOBBY:
                raise StoreError(_not_in_lobby(record))
            if user in record.seats:
                raise StoreError(f"You are already seated in game #{record.id}.")
            game = self._game(record.kind)
            if len(record.seats) >= game.max_players:
                raise StoreError(f"Game #{record.id} is full ({len(record.seats)}/"
                                 f"{game.max_players} players).")
            return await self._write(conn, record, seats=(*record.seats, user))

    async def leave(self, game_id: int, user_id: str) -> GameRecord:
        """Give up a seat in the lobby.

        A leaving host hands over to the player seated after them; when the last
        player leaves, the game is aborted.
        """
        game_id = _gid(game_id)
        user = _id(user_id, "user_id")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if record.status == ACTIVE:
                raise StoreError(f"Game #{record.id} has already started; to leave it, "
                                 "resign.")
            if record.status != LOBBY:
                raise StoreError(_not_in_lobby(record))
            if user not in record.seats:
                raise StoreError(f"You are not seated in game #{record.id}.")
            index = record.seats.index(user)
            seats = record.seats[:index] + record.seats[index + 1:]
            if not seats:
                return await self._write(conn, record, seats=seats, status=ABORTED)
            host = record.host_id
            if user == host:
                host = seats[index % len(seats)]
            return await self._write(conn, record, seats=seats, host_id=host)

    async def set_seats(self, game_id: int, seats: list[str]) -> GameRecord:
        """Reorder the lobby: ``seats`` must be the seated players in a new order."""
        game_id = _gid(game_id)
        new_seats = tuple(_id(s, "seat") for s in seats)
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if record.status != LOBBY:
                raise StoreError(_not_in_lobby(record))
            if (len(new_seats) != len(record.seats)
                    or sorted(new_seats) != sorted(record.seats)):
                seated = ", ".join(map(_mention, record.seats))
                raise StoreError("The new seating must list each seated player exactly "
                                 f"once: {seated}.")
            return await self._write(conn, record, seats=new_seats)

    async def start(self, game_id: int, by_user: str, seed: int | None = None) -> GameRecord:
        """Start the game (host only, enough players); the position is dealt from ``seed``."""
        game_id = _gid(game_id)
        user = _id(by_user, "by_user")
        if seed is None:
            seed = secrets.randbits(63)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise StoreError(f"A seed must be a whole number from 0 to {MAX_SEED}.")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if record.status != LOBBY:
                raise StoreError(f"Game #{record.id} has already started." if
                                 record.status == ACTIVE else _not_in_lobby(record))
            if user != record.host_id:
                raise StoreError(f"Only the host, {_mention(record.host_id)}, can start "
                                 f"game #{record.id}.")
            game = self._game(record.kind)
            if len(record.seats) < game.min_players:
                raise StoreError(
                    f"{game.name} needs at least {game.min_players} players; "
                    f"{len(record.seats)} seated. Wait for more players to join.")
            state = game.new_game(list(record.seats), seed, dict(record.options))
            text = game.dump(state)
            now = time.time()
            turn = Turn.of(game, state)
            started = await self._write(conn, record, status=ACTIVE, seed=seed, state=text,
                                        version=0, digest_seq=0,
                                        decisions=turn.decisions({}, None, now))
            # The opening digest: the board and who moves first.
            await self._announce(conn, started.id, 0, DIGEST, None,
                                 digest_payload(game, state, 1, 0, turn), now=now)
        self._remember(started.id, 0, text, state)
        return started

    async def abort(self, game_id: int) -> GameRecord:
        """End a game in its lobby or under way, with no result."""
        game_id = _gid(game_id)
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if not record.is_open:
                raise StoreError(f"Game #{record.id} is already over.")
            return await self._write(conn, record, status=ABORTED)

    async def set_lobby_message(self, game_id: int, message_id: str | None) -> None:
        """Remember the Discord message that shows the lobby."""
        game_id = _gid(game_id)
        message = None if message_id is None else _id(message_id, "message_id")
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            await self._write(conn, record, lobby_message_id=message)

    # ------------------------------------------------------------------ reading

    async def get(self, game_id: int) -> GameRecord:
        """The game with that id; :class:`NotFound` if there is none."""
        game_id = _gid(game_id)
        async with self._reading() as conn:
            return await self._fetch(conn, game_id)

    async def active_in_channel(self, channel_id: str) -> GameRecord | None:
        """The channel's game in the lobby or under way, if any."""
        async with self._reading() as conn:
            return await self._open_in_channel(conn, str(channel_id))

    async def list_active(self, guild_id: str | None) -> list[GameRecord]:
        """Every game in a lobby or under way in the guild (None: direct messages)."""
        guild = None if guild_id is None else str(guild_id)
        async with self._reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_COLUMNS} FROM games WHERE guild_id IS ? AND {_OPEN} ORDER BY id",
                (guild,))
        return [_record(row) for row in rows]

    async def log(self, game_id: int, limit: int = 20) -> list[LogEntry]:
        """The last ``limit`` accepted actions, oldest first (newest last)."""
        game_id = _gid(game_id)
        async with self._reading() as conn:
            await self._fetch(conn, game_id)
            rows = list(await conn.execute_fetchall(
                "SELECT seq, player, action, events, created_at FROM actions "
                "WHERE game_id = ? ORDER BY seq DESC LIMIT ?", (game_id, max(0, limit))))
        return _entries(reversed(rows))

    # ------------------------------------------------------------------ moves

    async def apply_action(self, game_id: int, player: str, action: str,
                           request_id: str | None = None, *, sent_at: float | None = None,
                           reply_to: dict[str, str] | None = None) -> MoveResult:
        """Apply one action: the only way any game state ever changes.

        Under the game's lock and one ``BEGIN IMMEDIATE`` transaction: read the game,
        return the stored result if ``request_id`` was already applied
        (``duplicate=True``), refuse unless the game is active, refuse an action
        ``sent_at`` (epoch seconds) before the player's current decision began (it was
        chosen for an earlier one), apply through the engine (``IllegalAction`` is
        re-raised unchanged, nothing written), append to the log, save the snapshot
        (guarded by the version read), mark it finished if the engine says it is over,
        save the announcements the action makes due, commit. Any failure leaves the
        database as it was.

        Announcements: the turn digest when the turn passes, the players to act change,
        someone resigns or the game ends; each player's private events; and, with
        ``reply_to`` (``application_id``, ``token``, ``interaction_id`` of the Discord
        interaction that sent the action), the answer to that interaction.
        """
        game_id = _gid(game_id)
        player = _id(player, "player")
        async with self._game_lock(game_id):
            async with self._transaction() as conn:
                record = await self._fetch(conn, game_id)
                if request_id is not None:
                    request_id = str(request_id)
                    rows = list(await conn.execute_fetchall(
                        "SELECT game_id, seq, player, action, events FROM actions "
                        "WHERE request_id = ?", (request_id,)))
                    if rows:
                        return self._duplicate(record, rows[0], player, action)
                if record.status == LOBBY:
                    raise IllegalAction("This game has not started yet.")
                if record.status == FINISHED:
                    raise IllegalAction("This game is over.")
                if record.status == ABORTED:
                    raise IllegalAction("This game is over: it was aborted.")
                resigning = isinstance(action, str) and action.strip().lower() == RESIGN
                began = record.decisions.get(player)
                if sent_at is not None and began is not None and sent_at < began \
                        and not resigning:
                    raise IllegalAction(STALE_ACTION)
                game = self._game(record.kind)
                state = self.load_state(record)
                new_state, events = game.apply(state, player, action)
                try:
                    events_json = canonical_json(events)
                except (TypeError, ValueError) as exc:
                    raise StoreError(f"Internal error: {record.kind} produced events that "
                                     f"cannot be saved ({exc}); nothing was saved.") from exc
                text = game.dump(new_state)
                now = time.time()
                before, after = Turn.of(game, state), Turn.of(game, new_state)
                seq = record.version + 1
                await conn.execute(
                    "INSERT INTO actions (game_id, seq, player, action, events, request_id, "
                    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (record.id, seq, player, action, events_json, request_id, now))
                digest = after.over or after != before or resigning
                saved = await self._write(
                    conn, record, state=text, version=seq,
                    status=FINISHED if after.over else ACTIVE,
                    digest_seq=seq if digest else record.digest_seq,
                    decisions=after.decisions(record.decisions, before, now))
                made = await self._announce_move(conn, game, saved, record.digest_seq, seq,
                                                 player, events, new_state, after, digest,
                                                 reply_to, now)
            # Committed: only now does the cache learn the new position.
            self._remember(saved.id, seq, text, new_state)
            return MoveResult(saved, new_state, json.loads(events_json), seq, False,
                              tuple(made))

    async def _announce_move(self, conn: aiosqlite.Connection, game: Game[Any],
                             record: GameRecord, digested: int, seq: int, player: str,
                             events: list[dict[str, Any]], state: Any, turn: Turn,
                             digest: bool, reply_to: dict[str, str] | None,
                             now: float) -> list[int]:
        """Save what this move makes due: the reply, private notes, the digest (in that
        order, which is the order they are delivered in)."""
        made: list[int] = []
        if reply_to is not None:
            token = str(reply_to.get("token", ""))
            payload = {"application_id": str(reply_to.get("application_id", "")),
                       "interaction_id": str(reply_to.get("interaction_id", "")),
                       "expires_at": now + INTERACTION_TOKEN_LIFE, "turn_passed": digest}
            made.append(await self._announce(conn, record.id, seq, REPLY, player, payload,
                                             secret=token or None, now=now))
        recipients = dict.fromkeys(str(e["private_to"]) for e in events if "private_to" in e)
        for recipient in recipients:
            if recipient == player and reply_to is not None:
                continue            # told in the reply to their own interaction
            made.append(await self._announce(conn, record.id, seq, PRIVATE, recipient, {},
                                             now=now))
        if digest:
            made.append(await self._announce(
                conn, record.id, seq, DIGEST, None,
                digest_payload(game, state, digested + 1, seq, turn), now=now))
        return made

    async def _announce(self, conn: aiosqlite.Connection, game_id: int, seq: int, kind: str,
                        recipient: str | None, payload: dict[str, Any], *,
                        secret: str | None = None, now: float) -> int:
        try:
            text = canonical_json(payload)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"Internal error: game #{game_id}'s announcement cannot be "
                             f"saved ({exc}); nothing was saved.") from exc
        cursor = await conn.execute(
            "INSERT INTO announcements (game_id, seq, kind, recipient, payload, secret, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, seq, kind, recipient, text, secret, now))
        assert cursor.lastrowid is not None
        return int(cursor.lastrowid)

    def _duplicate(self, record: GameRecord, row: Row, player: str,
                   action: str) -> MoveResult:
        other_game, seq, stored_player, stored_action, events = row
        if other_game != record.id:
            raise StoreError("Internal error: this request id was already used for game "
                             f"#{other_game}; nothing was done.")
        if stored_player != player or stored_action != action:
            raise StoreError("Internal error: this request id was already used for a "
                             "different action; nothing was done.")
        state = self.load_state(record)
        return MoveResult(record, state, json.loads(events), int(seq), True)

    # ------------------------------------------------------------------ announcements

    async def pending_announcements(self, game_id: int | None = None,
                                    limit: int = 500) -> list[Announcement]:
        """Announcements not yet delivered, oldest first (of one game, or of all)."""
        where, args = "delivered_at IS NULL", tuple[int, ...]()
        if game_id is not None:
            where, args = "game_id = ? AND delivered_at IS NULL", (_gid(game_id),)
        async with self._reading() as conn:
            rows = await self._safely(conn.execute_fetchall(
                f"SELECT {_ANNOUNCEMENT_COLUMNS} FROM announcements WHERE {where} "
                "ORDER BY id LIMIT ?", (*args, max(1, limit))))
        return [_announcement(row) for row in rows]

    async def announcement(self, announcement_id: int) -> Announcement | None:
        async with self._reading() as conn:
            rows = list(await self._safely(conn.execute_fetchall(
                f"SELECT {_ANNOUNCEMENT_COLUMNS} FROM announcements WHERE id = ?",
                (int(announcement_id),))))
        return _announcement(rows[0]) if rows else None

    async def mark_delivered(self, announcement_id: int, message_id: str | None) -> None:
        """Delivered (or given up on): never sent again; its interaction token is dropped."""
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE announcements SET delivered_at = ?, message_id = ?, secret = NULL "
                "WHERE id = ?", (time.time(), message_id, int(announcement_id)))

    async def actions_between(self, game_id: int, first: int, last: int) -> list[LogEntry]:
        """The logged actions ``first``..``last`` (inclusive), oldest first."""
        game_id = _gid(game_id)
        async with self._reading() as conn:
            rows = await self._safely(conn.execute_fetchall(
                "SELECT seq, player, action, events, created_at FROM actions "
                "WHERE game_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                (game_id, int(first), int(last))))
        return _entries(rows)

    async def last_turn_start(self, game_id: int) -> int:
        """The first move told by the newest turn digest (1 if there is none): from
        there to now is "the last turn" that a board shown on request marks."""
        game_id = _gid(game_id)
        async with self._reading() as conn:
            rows = list(await self._safely(conn.execute_fetchall(
                "SELECT json_extract(payload, '$.first') FROM announcements "
                "WHERE game_id = ? AND kind = 'digest' ORDER BY id DESC LIMIT 1",
                (game_id,))))
        if not rows or rows[0][0] is None:
            return 1
        return max(1, int(rows[0][0]))

    @staticmethod
    async def _safely(query: Any) -> Any:
        try:
            return await query
        except sqlite3.Error as exc:
            raise StoreError(f"The game database failed ({exc}). Try again.") from exc

    # ------------------------------------------------------------------ integrity

    async def problems(self, game_id: int) -> list[str]:
        """What is wrong with a game's saved data (empty when nothing is).

        Replays the seed and the whole log through the engine and compares each
        action's events and the final position with what is stored.
        """
        game_id = _gid(game_id)
        async with self._reading() as conn:
            await conn.execute("BEGIN")          # one consistent snapshot of both tables
            try:
                record = await self._fetch(conn, game_id)
                rows = list(await conn.execute_fetchall(
                    "SELECT seq, player, action, events FROM actions WHERE game_id = ? "
                    "ORDER BY seq", (game_id,)))
            finally:
                await conn.rollback()
        found: list[str] = []
        if record.version != len(rows):
            found.append(f"version {record.version} but {len(rows)} logged actions")
        if record.state is None:
            if record.status not in (LOBBY, ABORTED) or rows:
                found.append(f"no position, yet status {record.status} with {len(rows)} "
                             "actions")
            return found
        try:
            game = self._game(record.kind)
            state = game.new_game(list(record.seats), record.seed, dict(record.options))
            for expected, (seq, player, action, events) in enumerate(rows, start=1):
                if seq != expected:
                    found.append(f"log has seq {seq} where {expected} belongs")
                    return found
                state, replayed = game.apply(state, player, action)
                if canonical_json(replayed) != events:
                    found.append(f"action {seq} ({action!r}) now gives different events")
            if game.dump(state) != game.dump(game.load(record.state)):
                found.append("the saved position differs from the replayed one")
            over = game.outcome(state) is not None
            if (record.status == FINISHED) != over and record.status != ABORTED:
                found.append(f"status {record.status} but the replay is "
                             f"{'over' if over else 'not over'}")
        except IllegalAction as exc:
            found.append(f"replay failed: {exc}")
        return found

    async def verify(self, game_id: int) -> bool:
        """True when replaying the seed and log reproduces the saved game exactly."""
        found = await self.problems(game_id)
        for problem in found:
            log.warning("game #%s: %s", game_id, problem)
        return not found
