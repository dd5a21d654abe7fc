"""Ratings' figures for ``make bench`` (``--only ratings``).

A SQLite database holding 100,000 rated two-player games of one kind on one server (2,000
players; results and ratings made by the same fold the bot uses, :func:`db.standings.fold`),
then:

* ``/leaderboard``'s read (``store.ratings.leaderboard``): the first page and a deep page,
  all time and the last 30 days; target ≤ 10 ms median;
* a player's stats (``store.ratings.player``) and a kind's (``store.ratings.kind_stats``);
* the move that ends a game: ``Store.apply_action`` of a Race game's winning move with
  the rating update, beside the same move with the update switched off, alternated in the
  same run; the cost added is the difference of the medians (target ≤ 2 ms), in wall and
  in CPU time (the process's, the database thread included).
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import engine
from db import Store
from db import standings as st
from db.records import canonical_json
from engine.ratings import conservative
from tests.fakegame import GAME as RACE

Figure = tuple[str, float, str, str, bool | None, str]
GAMES = 100_000
PLAYERS = 2_000
GUILD = "900000000000000001"
KIND = "race"
#: The games end every 5 minutes up to about now (the last 30 days hold 8,640 of them).
T0 = time.time() - GAMES * 300.0


def fill(path: str, games: int) -> None:
    """``games`` finished, rated games of KIND on GUILD, their results and the ratings."""
    rng = random.Random(7)
    strength = [rng.gauss(0, 1) for _ in range(PLAYERS)]
    ids = [str(10**17 + n) for n in range(PLAYERS)]
    rows_games, rows_results, series = [], [], []
    for g in range(1, games + 1):
        a, b = rng.sample(range(PLAYERS), 2)
        a_wins = strength[a] + rng.gauss(0, 1) > strength[b] + rng.gauss(0, 1)
        at = T0 + g * 300.0
        seats = [ids[a], ids[b]]
        rows_games.append((g, KIND, GUILD, f"c{g}", ids[a], "finished", canonical_json(seats),
                           0, "{}", None, 10, at - 3600, at, f"{g:024x}",
                           canonical_json({"finished_at": at})))
        results = (st.SeatResult(0, ids[a], "", 1 if a_wins else 2, a_wins, 0, 5, 600.0),
                   st.SeatResult(1, ids[b], "", 2 if a_wins else 1, not a_wins, 0, 5, 900.0))
        series.append((at, g, results))
    table, after = st.fold(series)
    for at, g, results in series:
        for s in results:
            mu, sigma = after[(g, s.seat)]
            rows_results.append((g, s.seat, GUILD, KIND, s.player, s.side, s.place,
                                 int(s.won), 2, 1, at, at - 3600, 12, 0, s.decisions,
                                 s.thinking, mu, sigma))
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seats, seed, "
            "options, state, version, created_at, updated_at, public_id, timing) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows_games)
        conn.executemany(f"INSERT INTO game_results ({st.RESULT_COLUMNS}) VALUES "
                         f"({', '.join('?' * 18)})", rows_results)
        conn.executemany(
            "INSERT INTO ratings (guild_id, kind, player, mu, sigma, score, games, wins, "
            "last_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(GUILD, KIND, p, s.mu, s.sigma, conservative(s.mu, s.sigma), s.games, s.wins,
              s.last_at) for p, s in table.items()])
        conn.execute("UPDATE ratings_meta SET built = 1")
    conn.close()


async def _median_ms(fn: Callable[[], Awaitable[Any]], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        began = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - began)
    return statistics.median(samples) * 1000


async def _finishing_moves(store: Store, rounds: int) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) seconds of winning moves, with and without the rating update."""
    real = st.record_finish

    async def skipped(*args: Any, **kwargs: Any) -> None:
        return None

    found: dict[str, list[tuple[float, float]]] = {"with": [], "without": []}
    for n in range(rounds):
        for mode in ("with", "without"):
            record = await store.lobby.open(KIND, GUILD, f"m{mode}{n}", "111", {"target": 5})
            await store.lobby.join(record.id, "222")
            await store.lobby.start(record.id, "111", seed=1)
            await store.apply_action(record.id, "111", "step 3")
            await store.apply_action(record.id, "222", "step 1")
            st.record_finish = real if mode == "with" else skipped  # type: ignore[assignment]
            try:
                wall, cpu = time.perf_counter(), time.process_time()
                await store.apply_action(record.id, "111", "step 3")
                found[mode].append((time.perf_counter() - wall, time.process_time() - cpu))
            finally:
                st.record_finish = real  # type: ignore[assignment]
    return found


async def _run(path: str, quick: bool) -> list[Figure]:
    store = await Store.open(path)
    figures: list[Figure] = []
    repeat = 20 if quick else 100
    try:
        for period in ("all", "30d"):
            for offset, where in ((0, "first page"), (1000, "page 101")):
                ms = await _median_ms(lambda p=period, o=offset: store.ratings.leaderboard(
                    GUILD, KIND, period=p, offset=o), repeat)
                label = "all time" if period == "all" else "30 days"
                figures.append((f"leaderboard, {label}, {where}", ms, "ms", "≤ 10 ms",
                                ms <= 10, f"{GAMES:,} rated games, {PLAYERS:,} players"))
        player = str(10**17 + 5)
        ms = await _median_ms(lambda: store.ratings.player(GUILD, player, KIND), repeat)
        figures.append(("a player's stats (/stats)", ms, "ms", "", None,
                        "~100 games of theirs, with the chart's points"))
        ms = await _median_ms(lambda: store.ratings.kind_stats(GUILD, KIND), 5 if quick else 10)
        figures.append(("a kind's stats (/game stats)", ms, "ms", "", None,
                        f"over all {GAMES:,} games"))
        moves = await _finishing_moves(store, 15 if quick else 60)
        with_wall = statistics.median(w for w, _ in moves["with"]) * 1000
        without_wall = statistics.median(w for w, _ in moves["without"]) * 1000
        with_cpu = statistics.median(c for _, c in moves["with"]) * 1000
        without_cpu = statistics.median(c for _, c in moves["without"]) * 1000
        figures.append(("winning move, without rating (baseline)", without_wall, "ms", "",
                        None, f"CPU {without_cpu:.2f} ms"))
        figures.append(("winning move, with rating", with_wall, "ms", "", None,
                        f"CPU {with_cpu:.2f} ms"))
        added = with_wall - without_wall
        figures.append(("rating update added to the winning move", added, "ms", "≤ 2 ms",
                        added <= 2, f"CPU {with_cpu - without_cpu:+.2f} ms; "
                        f"×{with_wall / without_wall:.2f} the baseline"))
    finally:
        await store.close()
    return figures


def run(quick: bool) -> list[Figure]:
    engine.GAMES[KIND] = RACE
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = str(Path(folder) / "ratings.db")

            async def create() -> None:
                await (await Store.open(path)).close()

            asyncio.run(create())
            began = time.perf_counter()
            fill(path, 20_000 if quick else GAMES)
            print(f"  (filled {20_000 if quick else GAMES:,} games in "
                  f"{time.perf_counter() - began:.1f} s)")
            return asyncio.run(_run(path, quick))
    finally:
        engine.GAMES.pop(KIND, None)
