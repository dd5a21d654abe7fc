# The methods take ``self: Store`` (the class this is mixed into); mypy calls that a
# "misc" error for a mixin, wrongly here.
# mypy: disable-error-code="misc"
"""The store's side of hosting games for weeks: what the scheduler does to a game when
its time comes (time-outs, reminders), vacations, players' and channels' settings,
followers, and the queries behind ``/mygames`` and the paged ``/game log``.

:class:`Hosting` is a part of :class:`db.Store` (a mixin), kept here so the move path
in ``store.py`` stays short. Every change to a game goes through the same locks,
transactions and :meth:`db.Store._commit` as a player's move.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from db import computers as cpu
from db.backend import Connection, json_array_has
from db.clocks import (
    DAY,
    DEFAULT_REMINDER_EVERY,
    DEFAULT_REMINDER_LIMIT,
    VACATION_DAYS_PER_YEAR,
    Interval,
    QuietHours,
    Reminding,
    TimeControl,
    deadline,
    next_reminder,
    paused_at,
    paused_between,
)
from db.records import (
    ACTIVE,
    BY_TIMEOUT,
    DIRECT,
    NOTICE,
    STATUS,
    TAKEOVER,
    Announcement,
    ChannelSettings,
    GameRecord,
    LogEntry,
    NotFound,
    PlayerSettings,
    StoreError,
    Vacation,
)
from engine.core import RESIGN, Game, IllegalAction

if TYPE_CHECKING:
    from db.store import Store

log = logging.getLogger("warhost.db")

#: Default actions applied for one player's timed-out decision, at most (a guard: every
#: game's safe default ends the decision long before this).
MAX_DEFAULT_STEPS = 200
#: Seconds after which a computer's pending decision is handed out again (its search
#: is long over by then unless the process running it died).
COMPUTER_RETRY = 60.0
#: Seconds in the year over which vacation days are counted.
YEAR = 365 * DAY

_UNSET: Any = object()


@dataclass(frozen=True)
class Woken:
    """What the scheduler's look at one game did."""

    made: tuple[int, ...] = ()
    timed_out: tuple[str, ...] = ()
    reminded: tuple[str, ...] = ()
    #: Seats the computer plays that must act now: the scheduler hands them to the
    #: computer players (``cogs/computers.py``).
    computers: tuple[str, ...] = ()


def _player_settings(row: Any) -> PlayerSettings:
    return PlayerSettings(user_id=row[0], timezone=row[1], quiet_start=row[2],
                          quiet_end=row[3], dm_reminders=bool(row[4]),
                          reminder_every=None if row[5] is None else float(row[5]))


def quiet_hours(settings: PlayerSettings | None) -> QuietHours | None:
    if (settings is None or settings.timezone is None or settings.quiet_start is None
            or settings.quiet_end is None):
        return None
    return QuietHours(settings.timezone, settings.quiet_start, settings.quiet_end)


class Hosting:
    """Scheduling, vacations, settings and followers (part of :class:`db.Store`)."""

    # -- the scheduler's look at a game -----------------------------------------------

    async def due_games(self: Store, limit: int = 200) -> list[int]:
        """Running games whose time has come (a deadline, a reminder, a vacation's end)."""
        async with self._reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM games WHERE status = 'active' AND wake_at <= ? "
                "ORDER BY wake_at, id LIMIT ?", (self.now(), max(1, limit)))
        return [int(r[0]) for r in rows]

    async def next_wake(self: Store) -> float | None:
        """The earliest time a running game must be looked at, if any."""
        async with self._reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT min(wake_at) FROM games WHERE status = 'active'"))
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    async def wake(self: Store, game_id: int) -> Woken:
        """Do what is due in one game, in one transaction: play the safe default for
        everyone out of time (removing them after too many time-outs), else send the
        reminders that are due; then note when to look again."""
        async with self._game_lock(game_id), self._transaction() as conn:
            record = await self._fetch(conn, game_id)
            if record.status != ACTIVE or record.state is None:
                if record.wake_at is not None:
                    await self._write(conn, record, wake_at=None)
                return Woken()
            game = self._game(record.kind)
            state = self.load_state(record)
            now = self.now()
            played_by = cpu.computers(record.timing)
            everyone = list(game.to_act(state))
            waiting = tuple(p for p in everyone if p in played_by)
            to_act = [p for p in everyone if p not in played_by]   # computers keep no clock
            pauses = await self._pauses(conn, record.guild_id, to_act, now)
            control = TimeControl.from_json(record.timing.get("control"))
            banks = record.timing.get("banks") or {}
            late = []
            for p in to_act:
                began = record.decisions.get(p)
                if began is None or paused_at(pauses.get(p, []), now) is not None:
                    continue
                due = deadline(control, began, banks.get(p), pauses.get(p, []))
                if due is not None and due <= now:
                    late.append(p)
            if late:
                made: list[int] = []
                began_then = dict(record.decisions)
                skipped = []
                for p in late:
                    if record.decisions.get(p) != began_then.get(p):
                        continue        # someone else's default already moved them on
                    record, state, more = await self._time_out(conn, game, record, state, p,
                                                              control)
                    made.extend(more)
                    skipped.append(p)
                if record.status == ACTIVE:     # look again at once: others may be due
                    record = await self._write(conn, record, wake_at=now)
                final = (record.id, record.version, record.state, state)
            else:
                # A computer's decision is looked at again after a while: if the process
                # that was searching it died, another (or the next start) takes it up.
                also = [now + COMPUTER_RETRY] if waiting else []
                made, reminded, record = await self._remind(conn, game, record, to_act,
                                                            pauses, control, now, also)
                return Woken(tuple(made), (), tuple(reminded), waiting)
        self._remember(final[0], final[1], final[2] or "", final[3])
        return Woken(tuple(made), tuple(skipped), ())

    async def _time_out(self: Store, conn: Connection, game: Game[Any],
                        record: GameRecord, state: Any, player: str,
                        control: TimeControl | None
                        ) -> tuple[GameRecord, Any, list[int]]:
        """``player`` is out of time: count it, play the game's safe default until they
        no longer must act, and remove them if that was one time-out too many."""
        timeouts = dict(record.timing.get("timeouts") or {})
        timeouts[player] = int(timeouts.get(player, 0)) + 1
        timing = {**record.timing, "timeouts": timeouts}
        banks = dict(timing.get("banks") or {})
        if control is not None and control.bank is not None:
            banks[player] = 0.0     # spent; the increment is added as the decision ends
            timing["banks"] = banks
        made: list[int] = []
        if cpu.takeover(timing):
            # The table chose it: the computer plays the seat until its player is back.
            level = cpu.table_level(timing)
            timing["computers"] = {**cpu.computers(timing), player: level}
            record = await self._write(conn, record, timing=timing)
            made.append(await self._announce(
                conn, record.id, record.version, NOTICE, None,
                {"type": TAKEOVER, "player": player, "level": level}, now=self.now()))
            return record, state, made
        record = await self._write(conn, record, timing=timing)
        for _ in range(MAX_DEFAULT_STEPS):
            if player not in game.to_act(state):
                break
            action = game.timeout_action(state, player)
            if action is None:
                break
            new_state, events = game.apply(state, player, action)
            move = await self._commit(conn, game, record, state, new_state, player, action,
                                      events, origin=BY_TIMEOUT)
            record, state = move.record, new_state
            made.extend(move.announcements)
        else:
            log.error("Game %s: %s's safe default did not end their decision", record.id,
                      player)
        limit = control.max_timeouts if control is not None else 0
        if limit and timeouts[player] >= limit and game.outcome(state) is None:
            try:
                new_state, events = game.apply(state, player, RESIGN)
            except IllegalAction:
                pass              # already out of the game
            else:
                move = await self._commit(conn, game, record, state, new_state, player,
                                          RESIGN, events, origin=BY_TIMEOUT)
                record, state = move.record, new_state
                made.extend(move.announcements)
        return record, state, made

    async def _remind(self: Store, conn: Connection, game: Game[Any],
                      record: GameRecord, to_act: list[str],
                      pauses: dict[str, list[Interval]], control: TimeControl | None,
                      now: float, also: list[float] | None = None
                      ) -> tuple[list[int], list[str], GameRecord]:
        channel = await self._channel_settings(conn, record.channel_id)
        players = await self._players(conn, to_act)
        limit = channel.reminder_limit if channel.reminder_limit is not None \
            else DEFAULT_REMINDER_LIMIT
        banks = record.timing.get("banks") or {}
        nudges: dict[str, Any] = {}
        wakes: list[float] = list(also or ())
        made: list[int] = []
        reminded: list[str] = []
        for p in to_act:
            began = record.decisions.get(p)
            if began is None:
                continue
            mine = pauses.get(p, [])
            due_by = deadline(control, began, banks.get(p), mine)
            if due_by is not None:
                wakes.append(due_by)
            away = paused_at(mine, now)
            if away is not None:
                wakes.append(away[1])
                if p in record.nudges:
                    nudges[p] = record.nudges[p]
                continue
            if limit <= 0:
                continue        # the channel wants no reminders (nor a note saying so)
            settings = players.get(p)
            every = (settings.reminder_every if settings and settings.reminder_every
                     else channel.reminder_every or DEFAULT_REMINDER_EVERY)
            quiet = quiet_hours(settings)
            state = Reminding.of(record.nudges.get(p), began)
            due = next_reminder(state, every, limit, mine, quiet)
            if due is not None and due <= now:
                payload = {"player": p, "count": state.sent + 1, "limit": limit,
                           "since": began, "deadline": due_by}
                if state.sent >= limit:
                    made.append(await self._announce(
                        conn, record.id, record.version, NOTICE, None,
                        {**payload, "type": "reminders_stopped"}, now=now))
                else:
                    kind = DIRECT if state.sent >= 1 and settings and settings.dm_reminders \
                        else NOTICE
                    made.append(await self._announce(
                        conn, record.id, record.version, kind, p if kind == DIRECT else None,
                        {**payload, "type": "reminder"}, now=now))
                    reminded.append(p)
                state = Reminding(began, state.sent + 1, now)
                due = next_reminder(state, every, limit, mine, quiet)
            nudges[p] = state.to_json()
            if due is not None:
                wakes.append(due)
        record = await self._write(conn, record, nudges=nudges,
                                   wake_at=min(wakes) if wakes else None)
        return made, reminded, record

    # -- settings ---------------------------------------------------------------------

    async def _players(self: Store, conn: Connection,
                       users: Iterable[str]) -> dict[str, PlayerSettings]:
        wanted = list(dict.fromkeys(users))
        if not wanted:
            return {}
        marks = ", ".join("?" for _ in wanted)
        rows = await conn.execute_fetchall(
            "SELECT user_id, timezone, quiet_start, quiet_end, dm_reminders, reminder_every "
            f"FROM players WHERE user_id IN ({marks})", wanted)
        return {row[0]: _player_settings(row) for row in rows}

    async def _channel_settings(self: Store, conn: Connection,
                                channel_id: str) -> ChannelSettings:
        rows = list(await conn.execute_fetchall(
            "SELECT reminder_every, reminder_limit FROM channels WHERE channel_id = ?",
            (channel_id,)))
        if not rows:
            return ChannelSettings(channel_id)
        every, limit = rows[0]
        return ChannelSettings(channel_id, None if every is None else float(every),
                               None if limit is None else int(limit))

    async def player_settings(self: Store, user_id: str) -> PlayerSettings:
        user = str(user_id)
        async with self._reading() as conn:
            found: dict[str, PlayerSettings] = await self._players(conn, [user])
        return found.get(user, PlayerSettings(user))

    async def set_player_settings(self: Store, user_id: str, *, timezone: Any = _UNSET,
                                  quiet: Any = _UNSET, dm_reminders: Any = _UNSET,
                                  reminder_every: Any = _UNSET) -> PlayerSettings:
        """Change some of a player's settings (``quiet``: QuietHours or None)."""
        user = str(user_id)
        async with self._transaction() as conn:
            await conn.lock(f"player:{user}")
            old = (await self._players(conn, [user])).get(user, PlayerSettings(user))
            zone = old.timezone if timezone is _UNSET else timezone
            start, end = old.quiet_start, old.quiet_end
            if quiet is not _UNSET:
                start, end = (None, None) if quiet is None else (quiet.start, quiet.end)
                if quiet is not None:
                    zone = quiet.zone
            dm = old.dm_reminders if dm_reminders is _UNSET else bool(dm_reminders)
            every = old.reminder_every if reminder_every is _UNSET else reminder_every
            await conn.execute(
                "INSERT INTO players (user_id, timezone, quiet_start, quiet_end, "
                "dm_reminders, reminder_every, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET timezone = excluded.timezone, "
                "quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, "
                "dm_reminders = excluded.dm_reminders, "
                "reminder_every = excluded.reminder_every, updated_at = excluded.updated_at",
                (user, zone, start, end, int(dm), every, self.now()))
            await self._wake_games_of(conn, user, None)
        return PlayerSettings(user, zone, start, end, dm, every)

    async def channel_settings(self: Store, channel_id: str) -> ChannelSettings:
        async with self._reading() as conn:
            found: ChannelSettings = await self._channel_settings(conn, str(channel_id))
        return found

    async def set_channel_settings(self: Store, channel_id: str, guild_id: str | None, *,
                                   reminder_every: Any = _UNSET,
                                   reminder_limit: Any = _UNSET) -> ChannelSettings:
        channel = str(channel_id)
        async with self._transaction() as conn:
            await conn.lock(f"channel:{channel}")
            old = await self._channel_settings(conn, channel)
            every = old.reminder_every if reminder_every is _UNSET else reminder_every
            limit = old.reminder_limit if reminder_limit is _UNSET else reminder_limit
            await conn.execute(
                "INSERT INTO channels (channel_id, guild_id, reminder_every, "
                "reminder_limit, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id, "
                "reminder_every = excluded.reminder_every, "
                "reminder_limit = excluded.reminder_limit, updated_at = excluded.updated_at",
                (channel, guild_id, every, limit, self.now()))
            await conn.execute(
                "UPDATE games SET wake_at = ? WHERE channel_id = ? AND status = 'active'",
                (self.now(), channel))
        return ChannelSettings(channel, every, limit)

    # -- vacations --------------------------------------------------------------------

    async def _vacations(self: Store, conn: Connection, guild_id: str,
                         user_id: str, since: float) -> list[Vacation]:
        rows = await conn.execute_fetchall(
            "SELECT id, guild_id, user_id, starts_at, ends_at FROM vacations WHERE "
            "guild_id = ? AND user_id = ? AND ends_at > ? ORDER BY starts_at, id",
            (guild_id, user_id, since))
        return [Vacation(int(r[0]), r[1], r[2], float(r[3]), float(r[4])) for r in rows]

    async def vacation(self: Store, guild_id: str, user_id: str
                       ) -> tuple[Vacation | None, float, float]:
        """The vacation under way (if any), the days used in the last 365 days (counting
        the one under way to its planned end) and the days left."""
        now = self.now()
        async with self._reading() as conn:
            held = await self._vacations(conn, str(guild_id), str(user_id), now - YEAR)
        current = next((v for v in held if v.starts_at <= now < v.ends_at), None)
        used = paused_between([(v.starts_at, v.ends_at) for v in held], now - YEAR,
                              max([now, *(v.ends_at for v in held)])) / DAY
        return current, used, max(0.0, VACATION_DAYS_PER_YEAR - used)

    async def start_vacation(self: Store, guild_id: str, user_id: str,
                             days: float) -> Vacation:
        """Start a vacation now, for ``days`` (cut to what is left of the year's allowance)."""
        guild, user = str(guild_id), str(user_id)
        now = self.now()
        async with self._transaction() as conn:
            await conn.lock(f"vacation:{guild}:{user}")
            held = await self._vacations(conn, guild, user, now - YEAR)
            if any(v.starts_at <= now < v.ends_at for v in held):
                raise StoreError("You are already on vacation here; `/vacation end` ends it.")
            used = paused_between([(v.starts_at, v.ends_at) for v in held], now - YEAR,
                                  now) / DAY
            left = VACATION_DAYS_PER_YEAR - used
            if left < 1 / 24:
                raise StoreError(f"You have used your {VACATION_DAYS_PER_YEAR} vacation days "
                                 "of the last 365 here.")
            length = min(float(days), left) * DAY
            cursor = await conn.execute(
                "INSERT INTO vacations (guild_id, user_id, starts_at, ends_at) "
                "VALUES (?, ?, ?, ?)", (guild, user, now, now + length))
            await self._wake_games_of(conn, user, guild)
            assert cursor.lastrowid is not None
            return Vacation(int(cursor.lastrowid), guild, user, now, now + length)

    async def end_vacation(self: Store, guild_id: str, user_id: str) -> Vacation:
        """End the vacation under way now (refused if there is none)."""
        guild, user = str(guild_id), str(user_id)
        now = self.now()
        async with self._transaction() as conn:
            await conn.lock(f"vacation:{guild}:{user}")
            held = await self._vacations(conn, guild, user, now)
            current = next((v for v in held if v.starts_at <= now < v.ends_at), None)
            if current is None:
                raise StoreError("You are not on vacation here.")
            await conn.execute("UPDATE vacations SET ends_at = ? WHERE id = ?",
                               (now, current.id))
            await self._wake_games_of(conn, user, guild)
            return Vacation(current.id, guild, user, current.starts_at, now)

    async def _wake_games_of(self: Store, conn: Connection, user: str,
                             guild: str | None) -> None:
        """Have the scheduler look again at ``user``'s running games (on ``guild``; all if
        None), and refresh their status messages (they show who is away)."""
        now = self.now()
        rows = await conn.execute_fetchall(
            "SELECT id, version FROM games WHERE status = 'active' AND (CAST(? AS TEXT) IS "
            f"NULL OR guild_id = ?) AND {json_array_has(conn.dialect, 'games.seats')}",
            (guild, guild, user))
        for game_id, version in rows:
            await conn.execute("UPDATE games SET wake_at = ? WHERE id = ?", (now, game_id))
            if guild is not None:
                await self._announce(conn, int(game_id), int(version), STATUS, None, {},
                                     now=now)

    # -- followers --------------------------------------------------------------------

    async def follow(self: Store, game_id: int, user_id: str, on: bool = True) -> GameRecord:
        """Send (or stop sending) ``user_id`` the game's turn digests by direct message."""
        async with self._transaction() as conn:
            record = await self._fetch(conn, int(game_id))
            if on:
                if not record.is_open:
                    raise StoreError(f"Game #{record.id} is over; there is nothing to follow.")
                await conn.execute("INSERT INTO followers (game_id, user_id) VALUES (?, ?) "
                                   "ON CONFLICT DO NOTHING", (record.id, str(user_id)))
            else:
                await conn.execute("DELETE FROM followers WHERE game_id = ? AND user_id = ?",
                                   (record.id, str(user_id)))
            return record

    async def following(self: Store, game_id: int, user_id: str) -> bool:
        async with self._reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT 1 FROM followers WHERE game_id = ? AND user_id = ?",
                (int(game_id), str(user_id))))
        return bool(rows)

    # -- looking up games -------------------------------------------------------------

    async def games_of(self: Store, user_id: str) -> list[GameRecord]:
        """Every running game ``user_id`` has a seat in, on any server, oldest first."""
        from db.store import _COLUMNS, _record

        async with self._reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_COLUMNS} FROM games WHERE status = 'active' AND "
                f"{json_array_has(conn.dialect, 'games.seats')} ORDER BY id",
                (str(user_id),))
        return [_record(row) for row in rows]

    async def latest_in_channel(self: Store, channel_id: str) -> GameRecord | None:
        """The channel's newest game, running or not."""
        from db.store import _COLUMNS, _record

        async with self._reading() as conn:
            rows = list(await conn.execute_fetchall(
                f"SELECT {_COLUMNS} FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
                (str(channel_id),)))
        return _record(rows[0]) if rows else None

    async def log_page(self: Store, game_id: int, page: int,
                       per_page: int = 15) -> tuple[list[LogEntry], int]:
        """Page ``page`` (1-based; the last page when past the end) of the whole log,
        oldest first, and the number of pages. An archived game's log is replayed from
        its archive (see :mod:`db.archive`)."""
        from db.archive import Archive, read_archive, rebuild
        from db.store import _COLUMNS, _LOG_COLUMNS, _entries, _record

        archive: Archive | None = None
        async with self._reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT count(*) FROM actions WHERE game_id = ?", (int(game_id),)))
            total = int(rows[0][0])
            if total == 0:
                found_game = list(await conn.execute_fetchall(
                    f"SELECT {_COLUMNS} FROM games WHERE id = ?", (int(game_id),)))
                if not found_game:
                    raise NotFound(f"There is no game #{game_id}.")
                record = _record(found_game[0])
                if record.version > 0:      # moves made, yet no rows: archived
                    archive = await read_archive(conn, record.id)
            if archive is None:
                pages = max(1, -(-total // per_page))
                page = min(max(1, page), pages)
                found = await conn.execute_fetchall(
                    f"SELECT {_LOG_COLUMNS} FROM actions WHERE game_id = ? ORDER BY seq "
                    "LIMIT ? OFFSET ?", (int(game_id), per_page, (page - 1) * per_page))
                return _entries(found), pages
        # Replayed off the connection: the archive holds the actions, not their events.
        entries = rebuild(self._game(record.kind), record, archive)
        pages = max(1, -(-len(entries) // per_page))
        page = min(max(1, page), pages)
        return entries[(page - 1) * per_page:page * per_page], pages

    async def digests(self: Store, game_id: int) -> list[Announcement]:
        """Every turn digest of a game, oldest first (delivered or not)."""
        from db.store import _ANNOUNCEMENT_COLUMNS, _announcement

        async with self._reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_ANNOUNCEMENT_COLUMNS} FROM announcements WHERE game_id = ? AND "
                "kind = 'digest' ORDER BY id", (int(game_id),))
        return [_announcement(row) for row in rows]

    async def latest_digest(self: Store, game_id: int) -> Announcement | None:
        """A game's newest turn digest, if any."""
        from db.store import _ANNOUNCEMENT_COLUMNS, _announcement

        async with self._reading() as conn:
            rows = list(await conn.execute_fetchall(
                f"SELECT {_ANNOUNCEMENT_COLUMNS} FROM announcements WHERE game_id = ? AND "
                "kind = 'digest' ORDER BY id DESC LIMIT 1", (int(game_id),)))
        return _announcement(rows[0]) if rows else None

    async def clock_facts(self: Store, record: GameRecord) -> dict[str, Any]:
        """The public time facts of a running game now: deadlines, who is on vacation,
        the time control and everyone's time-outs (for a status)."""
        from db.store import Turn

        if record.state is None or record.status != ACTIVE:
            return {"deadlines": {}, "vacations": {}, "clock": None}
        game = self._game(record.kind)
        turn = Turn.of(game, self.load_state(record))
        now = self.now()
        async with self._reading() as conn:
            pauses = await self._pauses(conn, record.guild_id, record.seats, now)
        facts = self._clock_payload(record, turn, pauses, now)
        facts["away"] = {p: on[1] for p in record.seats
                         if (on := paused_at(pauses.get(p, []), now)) is not None}
        return facts
