"""The store's side of hosting games for weeks: what the scheduler does to a game when
its time comes (time-outs, reminders, a computer taking a seat over), vacations,
players' and channels' settings, and followers.

:class:`Hosting` is a service of the store (``store.hosting``). Every change to a game
goes through the core's locks, transactions and :meth:`db.core.StoreCore.commit`, as a
player's move does.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import engine
from db import computers as cpu
from db.backend import Connection, json_array_has
from db.clocks import (
    DAY,
    DEFAULT_REMINDER_EVERY,
    DEFAULT_REMINDER_LIMIT,
    MAX_DURATION,
    MIN_DURATION,
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
from db.core import StoreCore, check_running
from db.records import (
    ACTIVE,
    BY_TIMEOUT,
    DIRECT,
    NOTICE,
    STATUS,
    TAKEOVER,
    ChannelSettings,
    GameRecord,
    PlayerSettings,
    StoreError,
    Vacation,
    as_discord_id,
    as_game_id,
)
from db.server_settings import (
    MAX_REMINDER_LIMIT,
    REMINDER_EVERY,
    REMINDER_LIMIT,
    ServerSettings,
)
from db.turns import Turn, clock_payload
from engine.core import RESIGN, Game, IllegalAction

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


def _number_text(value: Any) -> str:
    """A number someone sent, as they would read it (a huge one cut short)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    try:
        text = str(value) if isinstance(value, int | float) else repr(value)
    except ValueError:      # an int too long to write out
        text = "a number too long to write out"
    return text if len(text) <= 30 else text[:19] + "…"


def check_vacation_days(days: Any) -> float:
    """``days`` if it is a vacation's length (1 to :data:`VACATION_DAYS_PER_YEAR`), else
    :class:`StoreError` saying so in words."""
    if isinstance(days, bool) or not isinstance(days, int | float) or \
            not 1 <= days <= VACATION_DAYS_PER_YEAR or not math.isfinite(days):
        raise StoreError(f"Vacation is 1 to {VACATION_DAYS_PER_YEAR} days; you asked for "
                         f"{_number_text(days)}.")
    return float(days)


def check_reminder_every(every: Any) -> float | None:
    """A reminder interval in seconds (None: unset), else :class:`StoreError`."""
    if every is None:
        return None
    if isinstance(every, bool) or not isinstance(every, int | float) or \
            not MIN_DURATION <= every <= MAX_DURATION or not math.isfinite(every):
        raise StoreError("A reminder interval must be from 1 minute to 365 days.")
    return float(every)


def check_reminder_limit(limit: Any) -> int | None:
    """Reminders per move (0 to :data:`MAX_REMINDER_LIMIT`; None: unset), else
    :class:`StoreError`."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or \
            not 0 <= limit <= MAX_REMINDER_LIMIT:
        raise StoreError(f"Reminders per move are 0 to {MAX_REMINDER_LIMIT}; you asked "
                         f"for {_number_text(limit)}.")
    return limit


class Hosting:
    """Scheduling, vacations, settings and followers (``store.hosting``)."""

    def __init__(self, core: StoreCore, servers: ServerSettings | None = None) -> None:
        self.core = core
        #: Each server's settings (its reminders' defaults); None: the built-in ones.
        self.servers = servers

    # -- the scheduler's look at a game -----------------------------------------------

    async def due_games(self, limit: int = 200) -> list[int]:
        """Running games whose time has come (a deadline, a reminder, a vacation's end)."""
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM games WHERE status = 'active' AND wake_at <= ? "
                "ORDER BY wake_at, id LIMIT ?", (self.core.now(), max(1, limit)))
        return [int(r[0]) for r in rows]

    async def next_wake(self) -> float | None:
        """The earliest time a running game must be looked at, if any."""
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT min(wake_at) FROM games WHERE status = 'active'"))
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    async def wake(self, game_id: int) -> Woken:
        """Do what is due in one game, in one transaction: play the safe default for
        everyone out of time (removing them after too many time-outs), else send the
        reminders that are due; then note when to look again."""
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self.core.fetch(conn, game_id)
            if record.status != ACTIVE or record.state is None:
                if record.wake_at is not None:
                    await self.core.write(conn, record, wake_at=None)
                return Woken()
            game = engine.get_game(record.kind)
            state = self.core.load_state(record)
            now = self.core.now()
            played_by = cpu.computers(record.timing)
            everyone = list(game.to_act(state))
            waiting = tuple(p for p in everyone if p in played_by)
            to_act = [p for p in everyone if p not in played_by]   # computers keep no clock
            pauses = await self.core.pauses(conn, record.guild_id, to_act, now)
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
                    record = await self.core.write(conn, record, wake_at=now)
                final = (record.id, record.version, record.state, state)
            else:
                # A computer's decision is looked at again after a while: if the process
                # that was searching it died, another (or the next start) takes it up.
                also = [now + COMPUTER_RETRY] if waiting else []
                made, reminded, record = await self._remind(conn, game, record, to_act,
                                                            pauses, control, now, also)
                return Woken(tuple(made), (), tuple(reminded), waiting)
        self.core.remember(final[0], final[1], final[2] or "", final[3])
        return Woken(tuple(made), tuple(skipped), ())

    async def _time_out(self, conn: Connection, game: Game[Any],
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
            record = await self.core.write(conn, record, timing=timing)
            made.append(await self.core.announce(
                conn, record.id, record.version, NOTICE, None,
                {"type": TAKEOVER, "player": player, "level": level}, now=self.core.now()))
            return record, state, made
        record = await self.core.write(conn, record, timing=timing)
        for _ in range(MAX_DEFAULT_STEPS):
            if player not in game.to_act(state):
                break
            action = game.timeout_action(state, player)
            if action is None:
                break
            new_state, events = game.apply(state, player, action)
            move = await self.core.commit(conn, game, record, state, new_state, player, action,
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
                move = await self.core.commit(conn, game, record, state, new_state, player,
                                              RESIGN, events, origin=BY_TIMEOUT)
                record, state = move.record, new_state
                made.extend(move.announcements)
        return record, state, made

    async def _remind(self, conn: Connection, game: Game[Any],
                      record: GameRecord, to_act: list[str],
                      pauses: dict[str, list[Interval]], control: TimeControl | None,
                      now: float, also: list[float] | None = None
                      ) -> tuple[list[int], list[str], GameRecord]:
        channel = await self._channel_settings(conn, record.channel_id)
        server_every, server_limit = await self._server_reminders(conn, record.guild_id)
        players = await self._players(conn, to_act)
        limit = channel.reminder_limit if channel.reminder_limit is not None \
            else server_limit
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
                     else channel.reminder_every or server_every)
            quiet = quiet_hours(settings)
            state = Reminding.of(record.nudges.get(p), began)
            due = next_reminder(state, every, limit, mine, quiet)
            if due is not None and due <= now:
                payload = {"player": p, "count": state.sent + 1, "limit": limit,
                           "since": began, "deadline": due_by}
                if state.sent >= limit:
                    made.append(await self.core.announce(
                        conn, record.id, record.version, NOTICE, None,
                        {**payload, "type": "reminders_stopped"}, now=now))
                else:
                    kind = DIRECT if state.sent >= 1 and settings and settings.dm_reminders \
                        else NOTICE
                    made.append(await self.core.announce(
                        conn, record.id, record.version, kind, p if kind == DIRECT else None,
                        {**payload, "type": "reminder"}, now=now))
                    reminded.append(p)
                state = Reminding(began, state.sent + 1, now)
                due = next_reminder(state, every, limit, mine, quiet)
            nudges[p] = state.to_json()
            if due is not None:
                wakes.append(due)
        record = await self.core.write(conn, record, nudges=nudges,
                                       wake_at=min(wakes) if wakes else None)
        return made, reminded, record

    # -- settings ---------------------------------------------------------------------

    async def _server_reminders(self, conn: Connection, guild_id: str | None
                                ) -> tuple[float, int]:
        """The server's reminder interval and limit (its own, else the defaults), for
        channels that set none."""
        if self.servers is None:
            return DEFAULT_REMINDER_EVERY, DEFAULT_REMINDER_LIMIT
        values = await self.servers.in_transaction(conn, guild_id)
        return float(values[REMINDER_EVERY].value), int(values[REMINDER_LIMIT].value)

    async def reminder_defaults(self, guild_id: str | None) -> tuple[float, int]:
        """What a channel of ``guild_id`` that set nothing reminds by: (every, limit)."""
        async with self.core.reading() as conn:
            return await self._server_reminders(conn, guild_id)

    async def _players(self, conn: Connection,
                       users: Iterable[str]) -> dict[str, PlayerSettings]:
        wanted = list(dict.fromkeys(users))
        if not wanted:
            return {}
        marks = ", ".join("?" for _ in wanted)
        rows = await conn.execute_fetchall(
            "SELECT user_id, timezone, quiet_start, quiet_end, dm_reminders, reminder_every "
            f"FROM players WHERE user_id IN ({marks})", wanted)
        return {row[0]: _player_settings(row) for row in rows}

    async def _channel_settings(self, conn: Connection,
                                channel_id: str) -> ChannelSettings:
        rows = list(await conn.execute_fetchall(
            "SELECT reminder_every, reminder_limit FROM channels WHERE channel_id = ?",
            (channel_id,)))
        if not rows:
            return ChannelSettings(channel_id)
        every, limit = rows[0]
        return ChannelSettings(channel_id, None if every is None else float(every),
                               None if limit is None else int(limit))

    async def player_settings(self, user_id: str) -> PlayerSettings:
        user = str(user_id)
        async with self.core.reading() as conn:
            found: dict[str, PlayerSettings] = await self._players(conn, [user])
        return found.get(user, PlayerSettings(user))

    async def set_player_settings(self, user_id: str, *, timezone: Any = _UNSET,
                                  quiet: Any = _UNSET, dm_reminders: Any = _UNSET,
                                  reminder_every: Any = _UNSET) -> PlayerSettings:
        """Change some of a player's settings (``quiet``: QuietHours or None)."""
        user = str(user_id)
        async with self.core.transaction() as conn:
            await conn.lock(f"player:{user}")
            old = (await self._players(conn, [user])).get(user, PlayerSettings(user))
            zone = old.timezone if timezone is _UNSET else timezone
            start, end = old.quiet_start, old.quiet_end
            if quiet is not _UNSET:
                start, end = (None, None) if quiet is None else (quiet.start, quiet.end)
                if quiet is not None:
                    zone = quiet.zone
            dm = old.dm_reminders if dm_reminders is _UNSET else bool(dm_reminders)
            every = old.reminder_every if reminder_every is _UNSET \
                else check_reminder_every(reminder_every)
            await conn.execute(
                "INSERT INTO players (user_id, timezone, quiet_start, quiet_end, "
                "dm_reminders, reminder_every, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET timezone = excluded.timezone, "
                "quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, "
                "dm_reminders = excluded.dm_reminders, "
                "reminder_every = excluded.reminder_every, updated_at = excluded.updated_at",
                (user, zone, start, end, int(dm), every, self.core.now()))
            await self._wake_games_of(conn, user, None)
        return PlayerSettings(user, zone, start, end, dm, every)

    async def channel_settings(self, channel_id: str) -> ChannelSettings:
        async with self.core.reading() as conn:
            found: ChannelSettings = await self._channel_settings(conn, str(channel_id))
        return found

    async def set_channel_settings(self, channel_id: str, guild_id: str | None, *,
                                   reminder_every: Any = _UNSET,
                                   reminder_limit: Any = _UNSET) -> ChannelSettings:
        channel = str(channel_id)
        async with self.core.transaction() as conn:
            await conn.lock(f"channel:{channel}")
            old = await self._channel_settings(conn, channel)
            every = old.reminder_every if reminder_every is _UNSET \
                else check_reminder_every(reminder_every)
            limit = old.reminder_limit if reminder_limit is _UNSET \
                else check_reminder_limit(reminder_limit)
            await conn.execute(
                "INSERT INTO channels (channel_id, guild_id, reminder_every, "
                "reminder_limit, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id, "
                "reminder_every = excluded.reminder_every, "
                "reminder_limit = excluded.reminder_limit, updated_at = excluded.updated_at",
                (channel, guild_id, every, limit, self.core.now()))
            await conn.execute(
                "UPDATE games SET wake_at = ? WHERE channel_id = ? AND status = 'active'",
                (self.core.now(), channel))
        return ChannelSettings(channel, every, limit)

    # -- vacations --------------------------------------------------------------------

    async def _vacations(self, conn: Connection, guild_id: str,
                         user_id: str, since: float) -> list[Vacation]:
        rows = await conn.execute_fetchall(
            "SELECT id, guild_id, user_id, starts_at, ends_at FROM vacations WHERE "
            "guild_id = ? AND user_id = ? AND ends_at > ? ORDER BY starts_at, id",
            (guild_id, user_id, since))
        return [Vacation(int(r[0]), r[1], r[2], float(r[3]), float(r[4])) for r in rows]

    async def vacation(self, guild_id: str, user_id: str
                       ) -> tuple[Vacation | None, float, float]:
        """The vacation under way (if any), the days used in the last 365 days (counting
        the one under way to its planned end) and the days left."""
        now = self.core.now()
        async with self.core.reading() as conn:
            held = await self._vacations(conn, str(guild_id), str(user_id), now - YEAR)
        current = next((v for v in held if v.starts_at <= now < v.ends_at), None)
        used = paused_between([(v.starts_at, v.ends_at) for v in held], now - YEAR,
                              max([now, *(v.ends_at for v in held)])) / DAY
        return current, used, max(0.0, VACATION_DAYS_PER_YEAR - used)

    async def start_vacation(self, guild_id: str, user_id: str,
                             days: float) -> Vacation:
        """Start a vacation now, for ``days`` (1 to :data:`VACATION_DAYS_PER_YEAR`, cut to
        what is left of the year's allowance); anything else is refused in words."""
        days = check_vacation_days(days)
        guild, user = str(guild_id), str(user_id)
        now = self.core.now()
        async with self.core.transaction() as conn:
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

    async def end_vacation(self, guild_id: str, user_id: str) -> Vacation:
        """End the vacation under way now (refused if there is none)."""
        guild, user = str(guild_id), str(user_id)
        now = self.core.now()
        async with self.core.transaction() as conn:
            await conn.lock(f"vacation:{guild}:{user}")
            held = await self._vacations(conn, guild, user, now)
            current = next((v for v in held if v.starts_at <= now < v.ends_at), None)
            if current is None:
                raise StoreError("You are not on vacation here.")
            await conn.execute("UPDATE vacations SET ends_at = ? WHERE id = ?",
                               (now, current.id))
            await self._wake_games_of(conn, user, guild)
            return Vacation(current.id, guild, user, current.starts_at, now)

    async def _wake_games_of(self, conn: Connection, user: str,
                             guild: str | None) -> None:
        """Have the scheduler look again at ``user``'s running games (on ``guild``; all if
        None), and refresh their status messages (they show who is away)."""
        now = self.core.now()
        rows = await conn.execute_fetchall(
            "SELECT id, version FROM games WHERE status = 'active' AND (CAST(? AS TEXT) IS "
            f"NULL OR guild_id = ?) AND {json_array_has(conn.dialect, 'games.seats')}",
            (guild, guild, user))
        for game_id, version in rows:
            await conn.execute("UPDATE games SET wake_at = ? WHERE id = ?", (now, game_id))
            if guild is not None:
                await self.core.announce(conn, int(game_id), int(version), STATUS, None, {},
                                         now=now)

    # -- followers --------------------------------------------------------------------

    async def follow(self, game_id: int, user_id: str, on: bool = True) -> GameRecord:
        """Send (or stop sending) ``user_id`` the game's turn digests by direct message."""
        async with self.core.transaction() as conn:
            record = await self.core.fetch(conn, int(game_id))
            if on:
                if not record.is_open:
                    raise StoreError(f"Game #{record.id} is over; there is nothing to follow.")
                await conn.execute("INSERT INTO followers (game_id, user_id) VALUES (?, ?) "
                                   "ON CONFLICT DO NOTHING", (record.id, str(user_id)))
            else:
                await conn.execute("DELETE FROM followers WHERE game_id = ? AND user_id = ?",
                                   (record.id, str(user_id)))
            return record

    async def following(self, game_id: int, user_id: str) -> bool:
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT 1 FROM followers WHERE game_id = ? AND user_id = ?",
                (int(game_id), str(user_id))))
        return bool(rows)


    # -- a seat the computer took over ------------------------------------------

    async def reclaim_seat(self, game_id: int, user_id: str) -> GameRecord:
        """``user_id`` is back: the computer that took their seat over gives it up (their
        next decision is theirs again; any move of theirs does the same)."""
        game_id = as_game_id(game_id)
        user = as_discord_id(user_id, "user_id")
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self.core.fetch(conn, game_id)
            check_running(record)
            played_by = cpu.computers(record.timing)
            if user not in played_by or cpu.is_computer_seat(user):
                raise StoreError(f"The computer is not playing your seat in game "
                                 f"#{record.id}.")
            del played_by[user]
            return await self.core.write(conn, record, timing={**record.timing,
                                                               "computers": played_by})


    async def clock_facts(self, record: GameRecord) -> dict[str, Any]:
        """The public time facts of a running game now: deadlines, who is on vacation,
        the time control and everyone's time-outs (for a status)."""
        if record.state is None or record.status != ACTIVE:
            return {"deadlines": {}, "vacations": {}, "clock": None}
        game = engine.get_game(record.kind)
        turn = Turn.of(game, self.core.load_state(record))
        now = self.core.now()
        async with self.core.reading() as conn:
            pauses = await self.core.pauses(conn, record.guild_id, record.seats, now)
        facts = clock_payload(record, turn.to_act, pauses, now)
        facts["away"] = {p: on[1] for p in record.seats
                         if (on := paused_at(pauses.get(p, []), now)) is not None}
        return facts
