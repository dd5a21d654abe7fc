"""What a finished game leaves behind: its seats' results, and the ratings they move.

Ratings are **derived**: the source of truth is the finished games (seats, final
position, timing), and ``store.ratings.rebuild()`` (:mod:`db.ratings`) makes
``game_results`` and ``ratings`` again from them exactly. The move that ends a game
calls :func:`record_finish` in its own transaction, which gives the same numbers as a
rebuild (tests hold the two paths equal).

- A finished game's **result** (:func:`result_of`): each seat's place from the engine's
  :class:`~engine.core.Outcome` (winners share first place; the others follow
  ``standings``, where whoever resigned or was removed for time is already last among
  those still in), its side, time-outs and time to decide.
- It is **rated** unless the table chose ``rated:false``, it ended without a result (no
  winners), or fewer than two different players took part. A computer seat is rated as
  its level, ``computer:<level>``, one rating per level per game kind, so players can
  measure themselves against "hard"; a human's seat the computer took over is still the
  human's.
- **Ratings** are openskill's Weng-Lin Plackett-Luce model (:mod:`engine.ratings`, μ 25,
  σ 25/3), per server and game kind, updated game after game in the order the games
  finished (``finished_at``, then the game's id). A player who appears twice in one game
  (two computer seats of one level) gets the mean of the two seats' new ratings.
- Two games ending at once (other processes, PostgreSQL) queue on one advisory lock; a
  game that finds a later-finished game already rated re-folds its series
  (:func:`refold`), so the order never depends on which transaction won the race.

Nothing here knows the store: every function takes a connection (the caller's
transaction), like :mod:`db.archive`'s format.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from db import computers as cpu
from db.backend import Connection
from db.records import GameRecord
from engine.core import Game
from engine.ratings import Rating, conservative
from engine.ratings import rate as rate_places

#: The rating identity of a computer level: ``computer:hard``.
COMPUTER_PREFIX = "computer:"
#: Held by every transaction that writes ratings (PostgreSQL; SQLite needs none).
RATINGS_LOCK = "warhost:ratings"

RESULT_COLUMNS = ("game_id, seat, guild_id, kind, player, side, place, won, players, rated, "
                  "finished_at, started_at, rounds, timeouts, decisions, thinking, mu, sigma")


def computer_identity(level: str) -> str:
    return COMPUTER_PREFIX + level


def is_computer_identity(player: str) -> bool:
    return player.startswith(COMPUTER_PREFIX)


#: How leaderboards and statistics show a rated player no longer known there (they left
#: the server, or deleted their data): never their name, never their id.
FORMER_MEMBER = "former member"


def computer_label(player: str) -> str:
    """``🤖 Computer (hard)`` for the rating identity ``computer:hard``."""
    return f"🤖 Computer ({player.removeprefix(COMPUTER_PREFIX)})"


# ---------------------------------------------------------------- thinking time


def add_thinking(timing: Mapping[str, Any], before: Mapping[str, float],
                 after: Mapping[str, float], now: float) -> dict[str, Any]:
    """``timing`` with each decision that ended (in ``before``, gone or restarted in
    ``after``) added to its player's thinking: ``{player: [seconds, decisions]}``."""
    ended = [p for p, began in before.items() if after.get(p) != began]
    if not ended:
        return dict(timing)
    thinking = {str(k): list(v) for k, v in (timing.get("thinking") or {}).items()
                if isinstance(v, list) and len(v) == 2}
    for p in ended:
        seconds, count = thinking.get(p, [0.0, 0])
        spent = max(0.0, now - float(before[p]))
        thinking[p] = [round(float(seconds) + spent, 3), int(count) + 1]
    return {**timing, "thinking": thinking}


# ---------------------------------------------------------------- a game's result


@dataclass(frozen=True)
class SeatResult:
    seat: int
    player: str           # the rating identity: a user id or computer:<level>
    side: str
    place: int | None
    won: bool
    timeouts: int
    decisions: int
    thinking: float


@dataclass(frozen=True)
class GameResult:
    game_id: int
    guild_id: str
    kind: str
    rated: bool
    finished_at: float
    started_at: float
    rounds: int | None
    seats: tuple[SeatResult, ...]


def identity_of(record: GameRecord, seat: str) -> str:
    """Who a seat is, for ratings: the human, or the computer's level for its own seat."""
    if cpu.is_computer_seat(seat):
        level = cpu.computers(record.timing).get(seat) or cpu.table_level(record.timing)
        return computer_identity(level)
    return seat


def places(winners: Sequence[str], standings: Sequence[str],
           seats: Sequence[str]) -> dict[str, int]:
    """Each seat's place: the winners share first, the others follow ``standings`` (a
    place counts everyone ahead, so two winners then a third player are 1, 1, 3)."""
    won = set(winners)
    order = [p for p in standings if p not in won]
    order += [p for p in seats if p not in won and p not in order]
    found = dict.fromkeys((p for p in seats if p in won), 1)
    for index, p in enumerate(order):
        found[p] = len(won) + index + 1
    return found


def finished_time(record: GameRecord, last_action_at: float | None) -> float:
    """When the game ended: kept in its timing since ratings exist; before that, its
    last action's time (or its row's last change)."""
    value = record.timing.get("finished_at")
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return float(last_action_at if last_action_at is not None else record.updated_at)


def result_of(game: Game[Any], record: GameRecord, state: Any,
              finished_at: float) -> GameResult | None:
    """The result of a finished game (None if the engine says it is not over)."""
    outcome = game.outcome(state)
    if outcome is None:
        return None
    seats = list(record.seats)
    try:
        sides = game.sides(state)
    except Exception:       # statistics never stop a game from ending
        sides = {}
    try:
        rounds = game.rounds(state)
    except Exception:
        rounds = None
    has_result = bool(outcome.winners)
    placed = places(outcome.winners, outcome.standings, seats) if has_result else {}
    timeouts = record.timing.get("timeouts") or {}
    thinking = record.timing.get("thinking") or {}
    rows = []
    for index, seat in enumerate(seats):
        spent = thinking.get(seat) if isinstance(thinking, Mapping) else None
        seconds, count = spent if isinstance(spent, list) and len(spent) == 2 else (0.0, 0)
        rows.append(SeatResult(
            seat=index, player=identity_of(record, seat), side=str(sides.get(seat) or ""),
            place=placed.get(seat), won=seat in outcome.winners,
            timeouts=int(timeouts.get(seat, 0)) if isinstance(timeouts, Mapping) else 0,
            decisions=int(count), thinking=float(seconds)))
    rated = (record.timing.get("rated", True) is not False and has_result
             and len({r.player for r in rows}) >= 2)
    started = record.timing.get("started_at")
    return GameResult(
        game_id=record.id, guild_id=record.guild_id or "", kind=record.kind, rated=rated,
        finished_at=finished_at,
        started_at=float(started) if isinstance(started, (int, float)) else record.created_at,
        rounds=rounds, seats=tuple(rows))


# ---------------------------------------------------------------- the fold


def rate(priors: Mapping[str, Rating], seats: Sequence[SeatResult]) -> dict[str, Rating]:
    """The new rating of every player of one rated game, from their ratings before it
    (a seat without a place is last)."""
    return rate_places(priors, [(s.player, s.place if s.place is not None else len(seats))
                                for s in seats])


@dataclass
class Standing:
    mu: float
    sigma: float
    games: int
    wins: int
    last_at: float


def fold(games: Iterable[tuple[float, int, Sequence[SeatResult]]],
         start: Mapping[str, Standing] | None = None
         ) -> tuple[dict[str, Standing], dict[tuple[int, int], Rating]]:
    """Ratings after ``games`` (``(finished_at, game_id, seats)`` in finishing order) of
    one server and kind, from ``start``; and each seat's rating after its game."""
    table = {p: Standing(s.mu, s.sigma, s.games, s.wins, s.last_at)
             for p, s in (start or {}).items()}
    after: dict[tuple[int, int], Rating] = {}
    for finished_at, game_id, seats in games:
        priors = {p: (table[p].mu, table[p].sigma) for p in {s.player for s in seats}
                  if p in table}
        new = rate(priors, seats)
        won = {s.player for s in seats if s.won}
        for p, (mu, sigma) in new.items():
            old = table.get(p)
            table[p] = Standing(mu, sigma, (old.games if old else 0) + 1,
                                (old.wins if old else 0) + (p in won), finished_at)
        for s in seats:
            after[(game_id, s.seat)] = new[s.player]
    return table, after


# ---------------------------------------------------------------- writing


async def insert_results(conn: Connection, result: GameResult) -> None:
    for s in result.seats:
        await conn.execute(
            f"INSERT INTO game_results ({RESULT_COLUMNS}) "
            f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (result.game_id, s.seat, result.guild_id, result.kind, s.player, s.side, s.place,
             int(s.won), len(result.seats), int(result.rated), result.finished_at,
             result.started_at, result.rounds, s.timeouts, s.decisions, s.thinking,
             None, None))


async def save_standings(conn: Connection, guild_id: str, kind: str,
                          table: Mapping[str, Standing]) -> None:
    for p, s in table.items():
        await conn.execute(
            "INSERT INTO ratings (guild_id, kind, player, mu, sigma, score, games, wins, "
            "last_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, kind, player) "
            "DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, score = excluded.score, "
            "games = excluded.games, wins = excluded.wins, last_at = excluded.last_at",
            (guild_id, kind, p, s.mu, s.sigma, conservative(s.mu, s.sigma), s.games, s.wins,
             s.last_at))


async def save_after(conn: Connection, after: Mapping[tuple[int, int], Rating]) -> None:
    for (game_id, seat), (mu, sigma) in after.items():
        await conn.execute("UPDATE game_results SET mu = ?, sigma = ? "
                           "WHERE game_id = ? AND seat = ?", (mu, sigma, game_id, seat))


async def record_finish(conn: Connection, game: Game[Any], record: GameRecord,
                        state: Any, finished_at: float) -> GameResult | None:
    """Save the result of the game ``record`` (just finished, in this transaction) and move
    its players' ratings, exactly as a rebuild would."""
    result = result_of(game, record, state, finished_at)
    if result is None:
        return None
    await conn.lock(RATINGS_LOCK)
    await conn.execute("DELETE FROM game_results WHERE game_id = ?", (record.id,))
    await insert_results(conn, result)
    if not result.rated:
        return result
    later = await conn.execute_fetchall(
        "SELECT 1 FROM game_results WHERE kind = ? AND guild_id = ? AND rated = 1 AND "
        "(finished_at > ? OR (finished_at = ? AND game_id > ?)) LIMIT 1",
        (result.kind, result.guild_id, finished_at, finished_at, record.id))
    if later:       # a game that finished after this one was rated first
        await refold(conn, result.guild_id, result.kind)
        return result
    players = sorted({s.player for s in result.seats})
    marks = ", ".join("?" for _ in players)
    rows = await conn.execute_fetchall(
        f"SELECT player, mu, sigma, games, wins, last_at FROM ratings WHERE guild_id = ? "
        f"AND kind = ? AND player IN ({marks})", (result.guild_id, result.kind, *players))
    start = {str(r[0]): Standing(float(r[1]), float(r[2]), int(r[3]), int(r[4]), float(r[5]))
             for r in rows}
    table, after = fold([(finished_at, record.id, result.seats)], start)
    await save_standings(conn, result.guild_id, result.kind,
                          {p: table[p] for p in players})
    await save_after(conn, after)
    return result


def _seat_from_row(row: Sequence[Any]) -> SeatResult:
    return SeatResult(seat=int(row[1]), player=str(row[2]), side="",
                      place=None if row[3] is None else int(row[3]), won=bool(row[4]),
                      timeouts=0, decisions=0, thinking=0.0)


async def refold(conn: Connection, guild_id: str, kind: str) -> None:
    """Rate one server's games of one kind again, from their saved results, in order."""
    rows = await conn.execute_fetchall(
        "SELECT game_id, seat, player, place, won, finished_at FROM game_results "
        "WHERE kind = ? AND guild_id = ? AND rated = 1 ORDER BY finished_at, game_id, seat",
        (kind, guild_id))
    games: list[tuple[float, int, list[SeatResult]]] = []
    for row in rows:
        if not games or games[-1][1] != int(row[0]):
            games.append((float(row[5]), int(row[0]), []))
        games[-1][2].append(_seat_from_row(row))
    table, after = fold(games)
    await conn.execute("DELETE FROM ratings WHERE guild_id = ? AND kind = ?", (guild_id, kind))
    await save_standings(conn, guild_id, kind, table)
    await save_after(conn, after)


async def replace_results(conn: Connection, results: Iterable[GameResult],
                          game_ids: Iterable[int]) -> set[tuple[str, str]]:
    """Swap the saved results of ``game_ids`` for ``results`` (games rewritten: a user's
    data deleted) and re-fold every series touched; the series, as (guild, kind)."""
    touched: set[tuple[str, str]] = set()
    await conn.lock(RATINGS_LOCK)
    for game_id in game_ids:
        rows = await conn.execute_fetchall(
            "SELECT DISTINCT guild_id, kind FROM game_results WHERE game_id = ?", (game_id,))
        touched |= {(str(r[0]), str(r[1])) for r in rows}
        await conn.execute("DELETE FROM game_results WHERE game_id = ?", (game_id,))
    for result in results:
        await insert_results(conn, result)
        touched.add((result.guild_id, result.kind))
    for guild_id, kind in sorted(touched):
        await refold(conn, guild_id, kind)
    return touched



async def rename_seats(conn: Connection, game_id: int, old: Sequence[str],
                       new: Sequence[str]) -> None:
    """A game's seats were renamed (a user's data deleted): its results follow."""
    for seat, (before, after) in enumerate(zip(old, new, strict=True)):
        if before != after:
            await conn.execute("UPDATE game_results SET player = ? WHERE game_id = ? AND "
                               "seat = ? AND player = ?", (after, game_id, seat, before))


async def forget_player(conn: Connection, player: str) -> int:
    """Delete ``player``'s ratings, re-folding each series they were in (their games
    now hold placeholders, each a newcomer, as a rebuild sees them); the series count."""
    await conn.lock(RATINGS_LOCK)
    rows = await conn.execute_fetchall(
        "SELECT guild_id, kind FROM ratings WHERE player = ? ORDER BY guild_id, kind",
        (player,))
    for guild_id, kind in rows:
        await refold(conn, str(guild_id), str(kind))
    await conn.execute("DELETE FROM ratings WHERE player = ?", (player,))
    return len(rows)
