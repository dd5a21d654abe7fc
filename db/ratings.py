"""Ratings, players' statistics and games' statistics (``store.ratings``).

Everything here reads the derived tables :mod:`db.standings` keeps (``game_results``,
``ratings``), except :meth:`Ratings.rebuild`, which makes them again from the finished
games: ``python -m db ratings --rebuild``, and once at the bot's start on a database
that had finished games before ratings existed (:meth:`Ratings.build_if_needed`).

Who is shown: leaderboards and ranks count people only (never a computer level, never
the placeholder of a deleted user); each computer level's rating is listed apart, so
players see how strong "hard" is. The names shown are the callers' business.
"""

from __future__ import annotations

import logging
import math
import statistics
import time
from dataclasses import dataclass
from typing import Any

import engine
from db import standings
from db.archive import read_archive
from db.backend import Connection
from db.core import StoreCore
from db.privacy import PLACEHOLDER_PREFIX
from db.records import FINISHED, GAME_COLUMNS, GameRecord, game_from_row
from db.standings import COMPUTER_PREFIX, GameResult
from engine.ratings import DEFAULT_MU, DEFAULT_SIGMA, conservative
from engine.stats import wilson_interval

log = logging.getLogger("warhost.db")

#: Rated games a player needs before a leaderboard shows them.
MIN_GAMES = 3
#: Players per leaderboard page.
PAGE_SIZE = 10
#: The recent period of ``/leaderboard ... period:30d``, in days.
PERIOD_DAYS = 30
#: SQL: a ``ratings``/``game_results`` row of a person (not a computer, not a placeholder).
PEOPLE = (f"player NOT LIKE '{COMPUTER_PREFIX}%' AND player NOT LIKE '{PLACEHOLDER_PREFIX}%'")


@dataclass(frozen=True)
class Ranked:
    """One line of a leaderboard."""

    rank: int
    player: str
    mu: float
    sigma: float
    games: int
    wins: int
    last_at: float
    #: In a period's leaderboard: rated games in the period, and the change of the
    #: conservative rating over it.
    period_games: int | None = None
    change: float | None = None

    @property
    def score(self) -> float:
        return conservative(self.mu, self.sigma)


@dataclass(frozen=True)
class Leaderboard:
    guild_id: str
    kind: str
    period: str             # "all" or "30d"
    rows: tuple[Ranked, ...]
    total: int              # people on the whole board
    offset: int
    #: Each computer level's rating for this kind on this server.
    computers: tuple[Ranked, ...] = ()
    min_games: int = MIN_GAMES


@dataclass(frozen=True)
class KindRecord:
    """A player's rating in one game kind on one server."""

    kind: str
    mu: float
    sigma: float
    games: int
    wins: int
    rank: int | None        # None until they have MIN_GAMES rated games
    ranked: int             # people on that leaderboard

    @property
    def score(self) -> float:
        return conservative(self.mu, self.sigma)


@dataclass(frozen=True)
class PlayerStats:
    player: str
    guild_id: str
    kind: str | None
    games: int              # finished games (rated or not), of ``kind`` if given
    wins: int
    current_streak: int     # wins in a row, up to the last game
    best_streak: int
    favourite: str | None   # the kind they finished most games of
    kinds: tuple[KindRecord, ...]
    average_decision: float | None      # seconds per decision
    timeouts: int
    #: The chart: (finished_at, mu, sigma) after each rated game of ``chart_kind``.
    chart_kind: str | None
    history: tuple[tuple[float, float, float], ...]


@dataclass(frozen=True)
class Share:
    label: str
    games: int
    wins: int

    @property
    def share(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


@dataclass(frozen=True)
class KindStats:
    kind: str
    guild_games: int        # finished on this server
    all_games: int          # finished anywhere
    everywhere: bool        # whether the shares below count every server's games
    decided: int            # of those counted, games with a result
    seats: tuple[Share, ...]
    sides: tuple[Share, ...]
    rounds_median: float | None
    rounds_mean: float | None
    days_median: float | None


@dataclass(frozen=True)
class Rebuilt:
    games: int
    rated: int
    series: int
    seconds: float


class Ratings:
    """Reads ratings and statistics; rebuilds them from the finished games."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    # ------------------------------------------------------------ leaderboards

    async def leaderboard(self, guild_id: str | None, kind: str, *, period: str = "all",
                          offset: int = 0, limit: int = PAGE_SIZE) -> Leaderboard:
        """The people of a server ranked by μ − 3σ (with :data:`MIN_GAMES` rated games);
        ``period="30d"``: only those who finished a rated game in the last 30 days, with
        their games and change over it."""
        guild = guild_id or ""
        offset = max(0, int(offset))
        limit = max(1, min(int(limit), 50))
        since = self.core.now() - PERIOD_DAYS * 86400 if period == "30d" else None
        recent = " AND last_at >= ?" if since is not None else ""
        params: tuple[Any, ...] = (guild, kind, MIN_GAMES) + ((since,) if since else ())
        async with self.core.reading(snapshot=True) as conn:
            total = int((await conn.execute_fetchall(
                f"SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND kind = ? AND "
                f"games >= ? AND {PEOPLE}{recent}", params))[0][0])
            rows = await conn.execute_fetchall(
                f"SELECT player, mu, sigma, games, wins, last_at FROM ratings "
                f"WHERE guild_id = ? AND kind = ? AND games >= ? AND {PEOPLE}{recent} "
                f"ORDER BY score DESC, games DESC, player LIMIT ? OFFSET ?",
                (*params, limit, offset))
            ranked = [Ranked(offset + i + 1, str(r[0]), float(r[1]), float(r[2]),
                             int(r[3]), int(r[4]), float(r[5])) for i, r in enumerate(rows)]
            if since is not None:
                ranked = [await self._over_period(conn, guild, kind, r, since)
                          for r in ranked]
            bots = await conn.execute_fetchall(
                f"SELECT player, mu, sigma, games, wins, last_at FROM ratings "
                f"WHERE guild_id = ? AND kind = ? AND player LIKE '{COMPUTER_PREFIX}%' "
                f"ORDER BY score DESC", (guild, kind))
        computers = tuple(Ranked(0, str(r[0]), float(r[1]), float(r[2]), int(r[3]),
                                 int(r[4]), float(r[5])) for r in bots)
        return Leaderboard(guild, kind, "30d" if since is not None else "all",
                           tuple(ranked), total, offset, computers)

    async def _over_period(self, conn: Connection, guild: str, kind: str, row: Ranked,
                           since: float) -> Ranked:
        counted = await conn.execute_fetchall(
            "SELECT COUNT(*) FROM game_results WHERE guild_id = ? AND player = ? AND "
            "kind = ? AND finished_at >= ? AND rated = 1", (guild, row.player, kind, since))
        before = await conn.execute_fetchall(
            "SELECT mu, sigma FROM game_results WHERE guild_id = ? AND player = ? AND "
            "kind = ? AND finished_at < ? AND rated = 1 ORDER BY finished_at DESC, "
            "game_id DESC LIMIT 1", (guild, row.player, kind, since))
        start = conservative(float(before[0][0]), float(before[0][1])) if before else \
            conservative(DEFAULT_MU, DEFAULT_SIGMA)
        return Ranked(row.rank, row.player, row.mu, row.sigma, row.games, row.wins,
                      row.last_at, int(counted[0][0]), row.score - start)

    async def _rank(self, conn: Connection, guild: str, kind: str,
                    player: str) -> tuple[int | None, int]:
        rows = await conn.execute_fetchall(
            "SELECT score, games FROM ratings WHERE guild_id = ? AND kind = ? AND player = ?",
            (guild, kind, player))
        total = int((await conn.execute_fetchall(
            f"SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND kind = ? AND games >= ? "
            f"AND {PEOPLE}", (guild, kind, MIN_GAMES)))[0][0])
        if not rows or int(rows[0][1]) < MIN_GAMES or not _is_person(player):
            return None, total
        ahead = await conn.execute_fetchall(
            f"SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND kind = ? AND games >= ? "
            f"AND {PEOPLE} AND score > ?", (guild, kind, MIN_GAMES, float(rows[0][0])))
        return int(ahead[0][0]) + 1, total

    # ------------------------------------------------------------ a player

    async def player(self, guild_id: str | None, player: str,
                     kind: str | None = None) -> PlayerStats:
        """What ``player`` has done on a server (in ``kind``, or every kind)."""
        guild = guild_id or ""
        kind_filter = " AND kind = ?" if kind else ""
        extra: tuple[Any, ...] = (kind,) if kind else ()
        async with self.core.reading(snapshot=True) as conn:
            rows = await conn.execute_fetchall(
                f"SELECT kind, won, place, timeouts, decisions, thinking FROM game_results "
                f"WHERE guild_id = ? AND player = ?{kind_filter} "
                f"ORDER BY finished_at, game_id, seat", (guild, player, *extra))
            rated = await conn.execute_fetchall(
                f"SELECT kind, mu, sigma, games, wins FROM ratings WHERE guild_id = ? AND "
                f"player = ?{kind_filter} ORDER BY games DESC, kind", (guild, player, *extra))
            kinds = []
            for r in rated:
                rank, ranked = await self._rank(conn, guild, str(r[0]), player)
                kinds.append(KindRecord(str(r[0]), float(r[1]), float(r[2]), int(r[3]),
                                        int(r[4]), rank, ranked))
            played: dict[str, int] = {}
            for r in rows:
                played[str(r[0])] = played.get(str(r[0]), 0) + 1
            favourite = max(sorted(played), key=lambda k: played[k]) if played else None
            chart_kind = kind or (kinds[0].kind if kinds else None)
            history: list[tuple[float, float, float]] = []
            if chart_kind is not None:
                points = await conn.execute_fetchall(
                    "SELECT finished_at, mu, sigma FROM game_results WHERE guild_id = ? AND "
                    "player = ? AND kind = ? AND rated = 1 AND mu IS NOT NULL "
                    "ORDER BY finished_at, game_id, seat", (guild, player, chart_kind))
                history = [(float(p[0]), float(p[1]), float(p[2])) for p in points]
        streak = best = 0
        for r in rows:
            if r[2] is None:
                continue        # no result: the streak neither grows nor breaks
            streak = streak + 1 if r[1] else 0
            best = max(best, streak)
        decisions = sum(int(r[4]) for r in rows)
        thinking = math.fsum(float(r[5]) for r in rows)
        return PlayerStats(
            player=player, guild_id=guild, kind=kind, games=len(rows),
            wins=sum(1 for r in rows if r[1]), current_streak=streak, best_streak=best,
            favourite=favourite, kinds=tuple(kinds),
            average_decision=thinking / decisions if decisions else None,
            timeouts=sum(int(r[3]) for r in rows), chart_kind=chart_kind,
            history=tuple(history))

    # ------------------------------------------------------------ a game kind

    async def kind_stats(self, guild_id: str | None, kind: str, *,
                         everywhere: bool = False) -> KindStats:
        """How ``kind``'s finished games went: counts here and anywhere, win share by seat
        (per number of players) and by side, length in rounds and days."""
        guild = guild_id or ""
        where = "kind = ?" + ("" if everywhere else " AND guild_id = ?")
        params: tuple[Any, ...] = (kind,) if everywhere else (kind, guild)
        async with self.core.reading(snapshot=True) as conn:
            here = await conn.execute_fetchall(
                "SELECT COUNT(*) FROM game_results WHERE kind = ? AND guild_id = ? AND seat = 0",
                (kind, guild))
            anywhere = await conn.execute_fetchall(
                "SELECT COUNT(*) FROM game_results WHERE kind = ? AND seat = 0", (kind,))
            seats = await conn.execute_fetchall(
                f"SELECT players, seat, COUNT(*), SUM(won) FROM game_results WHERE {where} "
                f"AND place IS NOT NULL GROUP BY players, seat ORDER BY players, seat", params)
            sides = await conn.execute_fetchall(
                f"SELECT side, COUNT(*), SUM(won) FROM game_results WHERE {where} "
                f"AND place IS NOT NULL AND side <> '' GROUP BY side ORDER BY side", params)
            lengths = await conn.execute_fetchall(
                f"SELECT rounds, finished_at - started_at, place FROM game_results "
                f"WHERE {where} AND seat = 0", params)
        rounds = [int(r[0]) for r in lengths if r[0] is not None]
        days = [max(0.0, float(r[1])) / 86400 for r in lengths]
        return KindStats(
            kind=kind, guild_games=int(here[0][0]), all_games=int(anywhere[0][0]),
            everywhere=everywhere, decided=sum(1 for r in lengths if r[2] is not None),
            seats=tuple(Share(f"Seat {int(r[1]) + 1} of {int(r[0])}", int(r[2]),
                              int(r[3] or 0)) for r in seats),
            sides=tuple(Share(str(r[0]), int(r[1]), int(r[2] or 0)) for r in sides),
            rounds_median=statistics.median(rounds) if rounds else None,
            rounds_mean=statistics.fmean(rounds) if rounds else None,
            days_median=statistics.median(days) if days else None)

    # ------------------------------------------------------------ rebuilding

    async def build_if_needed(self) -> Rebuilt | None:
        """Build the derived tables once on a database that had finished games before
        ratings existed (migration 7 marks it); None when there was nothing to do."""
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall("SELECT built FROM ratings_meta WHERE id = 1")
        if rows and int(rows[0][0]):
            return None
        done = await self.rebuild()
        log.info("Ratings built from %d finished games (%d rated) in %.1f s", done.games,
                 done.rated, done.seconds)
        return done

    async def rebuild(self) -> Rebuilt:
        """Make ``game_results`` and ``ratings`` again from every finished game (archived
        ones too), exactly as the moves that ended them did.

        The games' results are worked out from a snapshot first (the engine's work, no
        lock held); then one transaction takes the ratings lock, works out again any
        game that finished or changed meanwhile, and replaces both tables."""
        started = time.perf_counter()
        async with self.core.reading(snapshot=True) as conn:
            seen = await self._results(conn, {})
        async with self.core.transaction() as conn:
            await conn.lock(standings.RATINGS_LOCK)
            results = await self._results(conn, seen)
            await conn.execute("DELETE FROM game_results")
            await conn.execute("DELETE FROM ratings")
            series: dict[tuple[str, str], list[GameResult]] = {}
            for _, result in sorted(results.values(), key=lambda x: x[0]):
                if result is None:
                    continue
                await standings.insert_results(conn, result)
                if result.rated:
                    series.setdefault((result.guild_id, result.kind), []).append(result)
            for (guild, kind), games in sorted(series.items()):
                games.sort(key=lambda r: (r.finished_at, r.game_id))
                table, after = standings.fold((r.finished_at, r.game_id, r.seats)
                                              for r in games)
                await standings.save_standings(conn, guild, kind, table)
                await standings.save_after(conn, after)
            await conn.execute("UPDATE ratings_meta SET built = 1 WHERE id = 1")
        rated = sum(len(v) for v in series.values())
        return Rebuilt(len(results), rated, len(series), time.perf_counter() - started)

    async def _results(self, conn: Connection,
                       seen: dict[int, tuple[tuple[int, float], GameResult | None]]
                       ) -> dict[int, tuple[tuple[int, float], GameResult | None]]:
        """Every finished game's result, keyed by id, each with (id, updated_at): the ones
        in ``seen`` with the same key are taken as they are."""
        keys = await conn.execute_fetchall(
            "SELECT id, updated_at FROM games WHERE status = ? ORDER BY id", (FINISHED,))
        found: dict[int, tuple[tuple[int, float], GameResult | None]] = {}
        wanted = []
        for game_id, updated_at in keys:
            key = (int(game_id), float(updated_at))
            if int(game_id) in seen and seen[int(game_id)][0] == key:
                found[int(game_id)] = seen[int(game_id)]
            else:
                wanted.append(int(game_id))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            marks = ", ".join("?" for _ in chunk)
            rows = await conn.execute_fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE id IN ({marks})", chunk)
            last: dict[int, float] = {int(r[0]): float(r[1]) for r in await conn.execute_fetchall(
                f"SELECT game_id, MAX(created_at) FROM actions WHERE game_id IN ({marks}) "
                f"GROUP BY game_id", chunk)}
            for row in rows:
                record = game_from_row(row)
                finished_at = await self._finished_at(conn, record, last.get(record.id))
                found[record.id] = ((record.id, record.updated_at),
                                    _result(record, finished_at))
        return found

    async def _finished_at(self, conn: Connection, record: GameRecord,
                           last: float | None) -> float:
        if "finished_at" in record.timing or last is not None:
            return standings.finished_time(record, last)
        archive = await read_archive(conn, record.id)      # compacted: its record has it
        at = archive.entries[-1].created_at if archive and archive.entries else None
        return standings.finished_time(record, at)


def _result(record: GameRecord, finished_at: float) -> GameResult | None:
    try:
        game = engine.get_game(record.kind)
        state = game.load(record.state or "")
        return standings.result_of(game, record, state, finished_at)
    except Exception as exc:        # one unreadable game never stops the others
        log.error("Game %s: no result could be worked out (%s)", record.id, exc)
        return None


def _is_person(player: str) -> bool:
    return not player.startswith((COMPUTER_PREFIX, PLACEHOLDER_PREFIX))

