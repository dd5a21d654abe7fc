"""The store's core: games in SQLite or PostgreSQL, and :meth:`StoreCore.apply_action`,
the one path for every move.

The core holds the connections and transactions, the per-game locks, the cache of
parsed positions, reading a game, and the move path with the announcements a move saves
(the outbox). The services around it (:mod:`db.lobby`, :mod:`db.history`,
:mod:`db.outbox`, :mod:`db.hosting`, :mod:`db.archive`, :mod:`db.privacy`,
:mod:`db.leases`, :mod:`db.limits`) build on its public methods; :class:`db.Store`
assembles them. The core imports none of them.

Concurrency model
-----------------
Where the SQL runs is :mod:`db.backend`'s business: SQLite (one writer connection
behind an asyncio lock, plus read connections in WAL mode, so reads never wait for a
write) or PostgreSQL (a connection pool). Moves hold a per-game asyncio lock first, so
moves on one game queue up in arrival order within a process. Across processes (a
second bot, shards on other machines, an admin script): SQLite serialises writers
(``BEGIN IMMEDIATE``, waiting up to :data:`db.backend.BUSY_TIMEOUT_MS`); PostgreSQL
locks the game's row (``SELECT ... FOR UPDATE``) for the transaction. Either way every
decision is made on the row read inside the transaction (the in-memory parsed state is
used only when it matches that row's version and text), and the write is guarded by
the version read (compare-and-set).

Durability
----------
SQLite: WAL journal, ``synchronous=FULL`` by default: a move that :meth:`apply_action`
returned has been fsync'd, so it survives not only the process being killed (which
``NORMAL`` already survives) but also power loss. Moves come at human speed, so one
fsync per move is worth it; pass ``synchronous="NORMAL"`` to :meth:`StoreCore.open` to trade
that for speed. PostgreSQL: committed means durable by the server's own settings.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from typing import Any, Self, TypeVar

import engine
from db import computers as cpu
from db import standings
from db.backend import (
    SYNCHRONOUS_MODES,
    ClosedError,
    Connection,
    Cursor,
    DatabaseError,
    PostgresBackend,
    SQLiteBackend,
    is_postgres,
    json_array_has,
    open_backend,
    redact_url,
    sqlite_file_problem,
)
from db.clocks import Interval, TimeControl, bank_after
from db.opening import check_and_migrate, database_failed, open_readonly, unopenable
from db.records import (
    ABORTED,
    ACTIVE,
    BY_COMPUTER,
    BY_PLAYER,
    BY_UNDO,
    COMPUTERS_ONLY,
    DIGEST,
    FINISHED,
    FOLLOW,
    GAME_COLUMNS,
    LOBBY,
    LOG_COLUMNS,
    NOTICE,
    OPEN_SQL,
    PRIVATE,
    RECAP,
    REPLY,
    STATUS,
    Delivery,
    GameRecord,
    LogEntry,
    MoveResult,
    NotFound,
    Row,
    StoreClosed,
    StoreError,
    as_discord_id,
    as_game_id,
    canonical_json,
    entries_from_rows,
    game_from_row,
)
from db.replay import Step, replay, undo_event, undoable
from db.turns import Turn, clock_payload, dice_reveal, digest_payload
from engine.core import RESIGN, Game, IllegalAction
from engine.notation import looks_like_number, parse_number

T = TypeVar("T")
#: The games columns that hold JSON (``write`` encodes them).
_JSON_COLUMNS = frozenset({"seats", "decisions", "timing", "nudges", "dice", "origin"})
#: The games columns ``write`` changes (the rest are set once, when the game is opened).
_WRITABLE = _JSON_COLUMNS | {"status", "host_id", "seed", "state", "version",
                             "lobby_message_id", "digest_seq", "wake_at"}
#: Read in a move's transaction once it is written: ``prefetch(conn, record)``.
Prefetch = Callable[[Connection, GameRecord], Awaitable[Delivery]]

log = logging.getLogger("warhost.db")


@contextmanager
def worded_errors(*, written: bool) -> Iterator[None]:
    """A closed database becomes :class:`StoreClosed`, any other database error a
    :class:`StoreError` in words for people (saying nothing was saved, if ``written``)."""
    try:
        yield
    except ClosedError as exc:
        raise StoreClosed(str(exc)) from exc
    except DatabaseError as exc:
        raise StoreError(database_failed(exc, written=written)) from exc

#: Parsed states kept in memory (one per game, most recently used).
STATE_CACHE_SIZE = 512


def check_running(record: GameRecord) -> None:
    """Refuse actions on a game that is not under way."""
    if record.status == LOBBY:
        raise IllegalAction("This game has not started yet.")
    if record.status == FINISHED:
        raise IllegalAction("This game is over.")
    if record.status == ABORTED:
        raise IllegalAction("This game is over: it was aborted.")


#: Most actions one undo takes back.
MAX_UNDO = 50


def undo_count(action: object) -> int | None:
    """``"undo"`` -> 1, ``"undo 3"`` -> 3; None for any other action (the game's own).
    A count not written with the digits 0-9 (``undo ²``, ``undo ٣``) is refused by name."""
    if not isinstance(action, str):
        return None
    words = action.strip().lower().split()
    if not words or words[0] != "undo":
        return None
    if len(words) == 1:
        return 1
    if len(words) == 2 and looks_like_number(words[1]):
        count = parse_number(words[1], "The number of actions to undo")
        if 1 <= count <= MAX_UNDO:
            return count
    raise IllegalAction(f"Write `undo` or `undo N` (N from 1 to {MAX_UNDO}).")


#: How long Discord lets a bot answer an interaction (15 minutes), less a safety margin.
INTERACTION_TOKEN_LIFE = 15 * 60 - 60

STALE_ACTION = ("That was sent before your current turn began (the game moved on while it "
                "was on its way), so it was not applied. Look at the board and choose again.")


class StoreCore:
    """The store's core: connections and transactions, the per-game locks, the cache of
    parsed positions, reading games, and the one move path (:meth:`apply_action`).

    The services around it (:mod:`db.store` assembles them) use its public methods;
    it knows none of them."""

    def __init__(self, backend: SQLiteBackend | PostgresBackend,
                 clock: Callable[[], float] | None = None) -> None:
        self.backend = backend
        #: ``"sqlite"`` or ``"postgresql"``.
        self.dialect = backend.dialect
        #: Where the data is (a file path, or the URL without its password), for messages.
        self.path = backend.where
        #: What time it is (epoch seconds): every timestamp the store writes comes from
        #: here, so tests run weeks of a game in a moment by injecting a clock.
        self.now: Callable[[], float] = clock or time.time
        self._game_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        # game id -> (version, dump text, parsed state); most recently used last.
        self._states: OrderedDict[int, tuple[int, str, Any]] = OrderedDict()

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(cls, target: str, *, synchronous: str = "FULL",
                   clock: Callable[[], float] | None = None, readonly: bool = False) -> Self:
        """Open (creating and migrating as needed) the database at ``target``: a SQLite
        file path, or a ``postgresql://`` URL.

        Before anything is written, the database is checked, and :class:`StoreError`
        says what is wrong and what to do: a file the bot cannot write, a damaged file
        (``PRAGMA quick_check``), another application's database, one written by a newer
        Warhost, a read-only database, an unreachable server.

        ``readonly`` (the web pages' processes): nothing is ever written, not even a
        migration; the database must exist and be at this Warhost's schema version.
        """
        if synchronous.upper() not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}")
        where = redact_url(target) if is_postgres(target) else target
        setting = "DATABASE_URL" if is_postgres(target) else "DATABASE_PATH"
        if readonly:
            return cls(await open_readonly(target, where, setting), clock)
        if not is_postgres(target):
            problem = sqlite_file_problem(target)
            if problem is not None:
                raise StoreError(f"Cannot use the database {where}: {problem}. Fix the "
                                 f"permissions, or point {setting} at another file.")
        try:
            backend = await open_backend(target, synchronous)
        except DatabaseError as exc:
            raise StoreError(unopenable(where, setting, exc)) from exc
        try:
            await check_and_migrate(backend, where, setting)
        except DatabaseError as exc:
            await backend.close()
            raise StoreError(unopenable(where, setting, exc)) from exc
        except BaseException:
            await backend.close()
            raise
        return cls(backend, clock)

    async def close(self) -> None:
        """Close the database (waits for an operation under way to finish)."""
        await self.backend.close()
        self._states.clear()

    # ------------------------------------------------------------------ plumbing

    def game_lock(self, game_id: int) -> asyncio.Lock:
        lock = self._game_locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._game_locks[game_id] = lock
        return lock

    @asynccontextmanager
    async def reading(self, snapshot: bool = False) -> AsyncIterator[Connection]:
        """A connection for reads outside any transaction of ours (``snapshot``: every
        statement sees the same moment). Database errors become :class:`StoreError`."""
        with worded_errors(written=False):
            async with self.backend.reading(snapshot) as conn:
                yield conn

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        """A write transaction; any exception rolls everything back, and a database
        error becomes a :class:`StoreError` that says nothing was saved."""
        with worded_errors(written=True):
            async with self.backend.transaction() as conn:
                yield conn

    async def batch(self, body: Callable[[Connection], Awaitable[T]]) -> T:
        """``body(conn)`` in one write transaction, in one hop to SQLite's thread
        (:meth:`db.backend.SQLiteBackend.batch`): ``body`` awaits nothing but ``conn``.
        Errors as :meth:`transaction`."""
        with worded_errors(written=True):
            return await self.backend.batch(body)

    async def write_one(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """One statement committed by itself: a single round trip to the database.
        Errors as :meth:`transaction`."""
        with worded_errors(written=True):
            return await self.backend.write_one(sql, params)

    async def batch_read(self, body: Callable[[Connection], Awaitable[T]]) -> T:
        """``body(conn)`` reading one snapshot, in one hop to SQLite's thread. Errors as
        :meth:`reading`."""
        with worded_errors(written=False):
            return await self.backend.batch_read(body)

    async def fetch(self, conn: Connection, game_id: int) -> GameRecord:
        """The game's row; in a PostgreSQL write transaction it stays locked until
        commit, which queues every process's writers of this game one after another."""
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise NotFound(f"There is no game #{game_id}.")
        rows = list(await conn.execute_fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?{conn.for_update}", (game_id,)))
        if not rows:
            raise NotFound(f"There is no game #{game_id}.")
        return game_from_row(rows[0])

    async def open_in_channel(self, conn: Connection,
                              channel_id: str) -> GameRecord | None:
        rows = list(await conn.execute_fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ? AND {OPEN_SQL}", (channel_id,)))
        return game_from_row(rows[0]) if rows else None

    async def write(self, conn: Connection, old: GameRecord,
                    **changes: Any) -> GameRecord:
        """Save ``changes`` to a game read in this transaction (guarded by its version)."""
        new = replace(old, updated_at=self.now(), **changes)
        # Only what changed is written (a move leaves the seats, dice and origin as they
        # were): the row was read in this transaction, and the version guards it.
        sql_values: dict[str, Any] = {"updated_at": new.updated_at}
        for name in changes:
            if name not in _WRITABLE:
                raise TypeError(f"games.{name} is not written by StoreCore.write")
            value = getattr(new, name)
            if value == getattr(old, name):
                continue
            if name in _JSON_COLUMNS:
                value = canonical_json(list(value) if name == "seats" else value)
            sql_values[name] = value
        columns = ", ".join(f"{name} = ?" for name in sql_values)
        cursor = await conn.execute(
            f"UPDATE games SET {columns} WHERE id = ? AND version = ?",
            (*sql_values.values(), old.id, old.version))
        if cursor.rowcount != 1:
            raise StoreError(f"Game #{old.id} changed while it was being saved; try again.")
        return new


    # ------------------------------------------------------------------ the state cache

    def remember(self, game_id: int, version: int, text: str, state: Any) -> None:
        known = self._states.get(game_id)
        if known is not None and known[0] > version:
            return                      # never replace a newer position with an older one
        self._states[game_id] = (version, text, state)
        self._states.move_to_end(game_id)
        while len(self._states) > STATE_CACHE_SIZE:
            self._states.popitem(last=False)

    def forget_state(self, game_id: int) -> None:
        """Drop a game's cached position (its row was rewritten outside a move)."""
        self._states.pop(game_id, None)

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
        game = engine.get_game(record.kind)
        try:
            state = game.load(record.state)
        except IllegalAction as exc:
            raise StoreError(f"Game #{record.id}'s saved position cannot be read ({exc}); "
                             "ask an admin to check the database.") from exc
        self.remember(record.id, record.version, record.state, state)
        return state

    # ------------------------------------------------------------------ reading

    async def get(self, game_id: int) -> GameRecord:
        """The game with that id; :class:`NotFound` if there is none."""
        game_id = as_game_id(game_id)
        async with self.reading() as conn:
            return await self.fetch(conn, game_id)

    async def active_in_channel(self, channel_id: str) -> GameRecord | None:
        """The channel's game in the lobby or under way, if any."""
        async with self.reading() as conn:
            return await self.open_in_channel(conn, str(channel_id))

    async def list_active(self, guild_id: str | None) -> list[GameRecord]:
        """Every game in a lobby or under way in the guild (None: direct messages)."""
        guild = None if guild_id is None else str(guild_id)
        async with self.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE guild_id IS NOT DISTINCT FROM ? "
                f"AND {OPEN_SQL} ORDER BY id",
                (guild,))
        return [game_from_row(row) for row in rows]

    async def snapshot(self, game_id: int) -> tuple[GameRecord, list[LogEntry]]:
        """A game and its log, read together (replayed by the caller, off the connection)."""
        async with self.reading(snapshot=True) as conn:     # the row and the log together
            record = await self.fetch(conn, game_id)
            entries = await self.log_of(conn, game_id)
        return record, entries

    async def games_of(self, user_id: str) -> list[GameRecord]:
        """Every running game ``user_id`` has a seat in, on any server, oldest first."""
        async with self.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'active' AND "
                f"{json_array_has(conn.dialect, 'games.seats')} ORDER BY id",
                (str(user_id),))
        return [game_from_row(row) for row in rows]

    async def latest_in_channel(self, channel_id: str) -> GameRecord | None:
        """The channel's newest game, running or not."""
        async with self.reading() as conn:
            rows = list(await conn.execute_fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ? "
                "ORDER BY id DESC LIMIT 1",
                (str(channel_id),)))
        return game_from_row(rows[0]) if rows else None

    # ------------------------------------------------------------------ moves

    async def apply_action(self, game_id: int, player: str, action: str,
                           request_id: str | None = None, *, sent_at: float | None = None,
                           reply_to: dict[str, str] | None = None,
                           expect_version: int | None = None,
                           by_computer: bool = False,
                           prefetch: Prefetch | None = None) -> MoveResult:
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

        ``undo`` (or ``undo N``) is the platform's own action: it takes back the
        player's last N actions of their turn (see :func:`db.replay.undoable`), and is
        logged like any other. ``expect_version`` refuses the action if the game has
        moved since the player looked (an undo confirmed from its preview).

        Announcements: the turn digest when the turn passes, the players to act change,
        someone resigns or the game ends (with copies for followers, the status
        message's refresh and, at the end, the recap); each player's private events;
        and, with ``reply_to`` (``application_id``, ``token``, ``interaction_id`` of the
        Discord interaction that sent the action), the answer to that interaction.

        ``by_computer``: the computer chose it for a seat it plays (logged as such, and
        refused if the seat is no longer the computer's). A human acting on their own
        seat while the computer holds it takes the seat back.

        ``prefetch``: read, in the same transaction once the move is written, what comes
        next (``prefetch(conn, record)``, e.g. :meth:`db.outbox.Outbox.delivery`, so the
        delivery of the move's announcements reads nothing more); the result carries it
        as :attr:`MoveResult.delivery`.
        """
        game_id = as_game_id(game_id)
        player = as_discord_id(player, "player")

        async def body(conn: Connection) -> tuple[MoveResult, Any]:
            record = await self.fetch(conn, game_id)
            if request_id is not None:
                rows = list(await conn.execute_fetchall(
                    "SELECT game_id, seq, player, action, events FROM actions "
                    "WHERE request_id = ?", (str(request_id),)))
                if rows:
                    return self._duplicate(record, rows[0], player, action), None
            check_running(record)
            if expect_version is not None and record.version != expect_version:
                raise IllegalAction("The game has moved on since you looked; look again.")
            resigning = isinstance(action, str) and action.strip().lower() == RESIGN
            began = record.decisions.get(player)
            if sent_at is not None and began is not None and sent_at < began \
                    and not resigning:
                raise IllegalAction(STALE_ACTION)
            game = engine.get_game(record.kind)
            state = self.load_state(record)
            count = undo_count(action)
            played_by = cpu.computers(record.timing)
            if by_computer:
                if player not in played_by:
                    raise IllegalAction(f"The computer no longer plays {player}'s seat.")
                new_state, events = game.apply(state, player, action)
                origin = BY_COMPUTER
            elif count is not None:
                new_state, events = await self._undo(conn, game, record, player, count)
                origin = BY_UNDO
            else:
                new_state, events = game.apply(state, player, action)
                origin = BY_PLAYER
            if not by_computer and player in played_by:
                # back from being away: the seat is theirs again
                del played_by[player]
                record = await self.write(conn, record, timing={
                    **record.timing, "computers": played_by})
            move = await self.commit(conn, game, record, state, new_state, player, action,
                                     events, origin=origin,
                                     request_id=None if request_id is None else str(request_id),
                                     reply_to=reply_to)
            if prefetch is not None:
                move = replace(move, delivery=await prefetch(conn, move.record))
            return move, new_state

        async with self.game_lock(game_id):
            # One batch: on SQLite the whole transaction is one hop to the database's
            # thread (the engine's apply runs there too, between the read and the write).
            move, new_state = await self.batch(body)
            if not move.duplicate:
                # Committed: only now does the cache learn the new position.
                self.remember(move.record.id, move.seq, move.record.state or "", new_state)
            return move

    async def commit(self, conn: Connection, game: Game[Any], record: GameRecord,
                     state: Any, new_state: Any, player: str, action: str,
                     events: list[dict[str, Any]], *, origin: str,
                     request_id: str | None = None,
                     reply_to: dict[str, str] | None = None) -> MoveResult:
        """Log an applied action and save its position, clocks and announcements, in the
        caller's transaction (on a game read in it)."""
        try:
            events_json = canonical_json(events)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"Internal error: {record.kind} produced events that "
                             f"cannot be saved ({exc}); nothing was saved.") from exc
        text = game.dump(new_state)
        now = self.now()
        before, after = Turn.of(game, state), Turn.of(game, new_state)
        seq = record.version + 1
        await conn.execute(
            "INSERT INTO actions (game_id, seq, player, action, events, request_id, "
            "created_at, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, seq, player, action, events_json, request_id, now, origin))
        resigning = isinstance(action, str) and action.strip().lower() == RESIGN
        digest = after.over or after != before or resigning
        decisions = after.decisions(record.decisions, before, now)
        timing = await self._charge_clocks(conn, record, decisions, now)
        timing = standings.add_thinking(timing, record.decisions, decisions, now)
        changed = decisions != record.decisions
        played_by = cpu.computers(timing)
        status = FINISHED if after.over else ACTIVE
        if status == FINISHED:
            timing = {**timing, "finished_at": now}
        if played_by:
            streak = int(timing.get("computer_streak") or 0) + 1 \
                if origin == BY_COMPUTER else 0
            timing = {**timing, "computer_streak": streak}
            if not after.over and (streak >= cpu.MAX_COMPUTER_STREAK or (
                    resigning and origin != BY_COMPUTER
                    and not await self._humans_left(conn, record, player))):
                status = ABORTED        # only computers would play on
                digest = True
            elif not after.over and any(p in played_by for p in after.to_act):
                changed = True          # the scheduler hands the decision to the computer
        saved = await self.write(
            conn, record, state=text, version=seq, status=status,
            digest_seq=seq if digest else record.digest_seq,
            decisions=decisions, timing=timing,
            wake_at=None if status != ACTIVE else (now if changed else record.wake_at))
        if status == FINISHED:
            await standings.record_finish(conn, game, saved, new_state, now)
        made = await self._announce_move(conn, game, saved, record.digest_seq, seq,
                                         player, events, new_state, after, digest,
                                         reply_to, now)
        if status == ABORTED:
            made.append(await self.announce(conn, record.id, seq, NOTICE, None, {
                "type": COMPUTERS_ONLY, "streak": int(timing.get("computer_streak") or 0)},
                now=now))
        return MoveResult(saved, new_state, json.loads(events_json), seq, False, tuple(made))

    async def _humans_left(self, conn: Connection, record: GameRecord,
                           resigning: str) -> bool:
        """Whether a person is still in the game once ``resigning`` is out."""
        rows = await conn.execute_fetchall(
            "SELECT DISTINCT player FROM actions WHERE game_id = ? "
            "AND lower(trim(action)) = ?",
            (record.id, RESIGN))
        gone = {str(r[0]) for r in rows} | {resigning}
        return any(p not in gone for p in cpu.humans(record.seats))

    async def _charge_clocks(self, conn: Connection, record: GameRecord,
                             decisions: dict[str, float], now: float) -> dict[str, Any]:
        """The game's timing after decisions end: with a bank, each player whose decision
        ended pays the (un-paused) time it took and gains the increment."""
        control = TimeControl.from_json(record.timing.get("control"))
        if control is None or control.per_move is not None:
            return record.timing
        ended = [p for p, began in record.decisions.items() if decisions.get(p) != began]
        if not ended:
            return record.timing
        pauses = await self.pauses(conn, record.guild_id, ended, now)
        banks = dict(record.timing.get("banks") or {})
        for p in ended:
            banks[p] = bank_after(control, banks.get(p), record.decisions[p], now,
                                  pauses.get(p, []))
        return {**record.timing, "banks": banks}

    async def pauses(self, conn: Connection, guild_id: str | None,
                     users: Iterable[str], since: float) -> dict[str, list[Interval]]:
        """Each user's vacations on the server that end after ``since``."""
        found: dict[str, list[Interval]] = {}
        wanted = list(dict.fromkeys(users))
        if guild_id is None or not wanted:
            return found
        marks = ", ".join("?" for _ in wanted)
        rows = await conn.execute_fetchall(
            f"SELECT user_id, starts_at, ends_at FROM vacations WHERE guild_id = ? AND "
            f"user_id IN ({marks}) AND ends_at > ? ORDER BY starts_at, id",
            (guild_id, *wanted, since - 400 * 86400))
        for user, start, end in rows:
            found.setdefault(user, []).append((float(start), float(end)))
        return found


    async def _undo(self, conn: Connection, game: Game[Any], record: GameRecord,
                    player: str, count: int) -> tuple[Any, list[dict[str, Any]]]:
        """The position after taking back ``player``'s last ``count`` actions, and the
        undo's event; refuses (IllegalAction) what may not be taken back, saying why."""
        steps = await self._steps(conn, record)
        allowed = undoable(game, steps, player, record.digest_seq)
        if count > len(allowed.seqs):
            why = f" ({allowed.stop})" if allowed.stop else ""
            if not allowed.seqs:
                raise IllegalAction(f"You have nothing to undo{why}.")
            raise IllegalAction(f"You can undo at most {len(allowed.seqs)} "
                                f"action{'s' if len(allowed.seqs) != 1 else ''}{why}.")
        seqs = sorted(allowed.seqs[:count])
        positions = {step.entry.seq: step.before for step in steps}
        return positions[seqs[0]], [undo_event(seqs)]

    async def _steps(self, conn: Connection, record: GameRecord) -> list[Step]:
        return self.replayed(record, await self.log_of(conn, record.id))

    @staticmethod
    async def log_of(conn: Connection, game_id: int) -> list[LogEntry]:
        return entries_from_rows(await conn.execute_fetchall(
            f"SELECT {LOG_COLUMNS} FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)))

    def replayed(self, record: GameRecord, entries: list[LogEntry]) -> list[Step]:
        try:
            return list(replay(engine.get_game(record.kind), record, entries))
        except (IllegalAction, ValueError) as exc:
            raise StoreError(f"Game #{record.id}'s log cannot be replayed ({exc}); ask an "
                             "admin to check the database.") from exc


    async def _announce_move(self, conn: Connection, game: Game[Any],
                             record: GameRecord, digested: int, seq: int, player: str,
                             events: list[dict[str, Any]], state: Any, turn: Turn,
                             digest: bool, reply_to: dict[str, str] | None,
                             now: float) -> list[int]:
        """Save what this move makes due: the reply, private notes, the digest, its copies
        for followers, the status message's refresh and the recap (in that order, which
        is the order they are delivered in)."""
        made: list[int] = []
        if reply_to is not None:
            token = str(reply_to.get("token", ""))
            payload = {"application_id": str(reply_to.get("application_id", "")),
                       "interaction_id": str(reply_to.get("interaction_id", "")),
                       "expires_at": now + INTERACTION_TOKEN_LIFE, "turn_passed": digest}
            made.append(await self.announce(conn, record.id, seq, REPLY, player, payload,
                                            secret=token or None, now=now))
        recipients = dict.fromkeys(str(e["private_to"]) for e in events if "private_to" in e)
        for recipient in recipients:
            if recipient == player and reply_to is not None:
                continue            # told in the reply to their own interaction
            if cpu.is_computer_seat(recipient):
                continue            # a computer reads its cards from the game itself
            made.append(await self.announce(conn, record.id, seq, PRIVATE, recipient, {},
                                            now=now))
        if digest:
            made.extend(await self.announce_digest(conn, game, record, state, digested + 1,
                                                   seq, turn, now))
        return made

    async def announce_digest(self, conn: Connection, game: Game[Any],
                              record: GameRecord, state: Any, first: int, last: int,
                              turn: Turn, now: float) -> list[int]:
        """The turn digest of moves ``first``..``last``, a copy for each follower, the
        status message's refresh, and the recap once the game is over."""
        pauses = await self.pauses(conn, record.guild_id, turn.to_act, now)
        payload = {**digest_payload(game, state, first, last, turn),
                   **clock_payload(record, turn.to_act, pauses, now)}
        if turn.over:       # the dice's secret is revealed with the result
            payload["dice"] = dice_reveal(record.dice)
        made = [await self.announce(conn, record.id, last, DIGEST, None, payload, now=now)]
        followers = await conn.execute_fetchall(
            "SELECT user_id FROM followers WHERE game_id = ? ORDER BY user_id", (record.id,))
        for (user,) in followers:
            made.append(await self.announce(conn, record.id, last, FOLLOW, user, payload,
                                            now=now))
        made.append(await self.announce(conn, record.id, last, STATUS, None, {}, now=now))
        if turn.over:
            made.append(await self.announce(conn, record.id, last, RECAP, None, {}, now=now))
        return made

    async def announce(self, conn: Connection, game_id: int, seq: int, kind: str,
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
