"""Warhost benchmarks: ``make bench``. Prints every figure beside its target; asserts
nothing (speed is measured here, never in timed tests).

Machines here are shared and noisy, so each figure is a median (and p99) and stands
beside a baseline measured in the same run:
    engine   random playouts (``legal_actions`` + ``apply``) per second, every kind
    render   every kind's board, opening and crowded (a turn's events marked): the fast
             pipeline beside the same drawing done naively (every primitive blended on an
             RGB image, zlib PNG) and the naive drawing saved as an octree palette PNG
    games    each game's successive boards at the largest table (each a new position
             with its turn marked, as digests are): the median, target <= 10 ms
    warm     a fresh board worker's first board of each game beside its later ones
             (tests/bench_boards_warm.py): at most 2x once the worker has warmed up
    store    one persisted move through ``Store.apply_action`` (one hop to SQLite's
             thread) beside raw aiosqlite running that move's very statements, one call
             each, on the same database settings
    e2e      the real bot (``python bot.py`` in its own process, its board workers below
             it) through the real discord.py client against the loopback Discord double
             (in this process): a move whose turn digest carries a board, from the
             interaction's dispatch to the board's message landing; one game, then 100
             games at once; beside ``/game status`` (a plain text answer) as the floor;
             CPU per move of each process apart (the bot's, its workers', the double's).
             ``BENCH_PROFILE=FILE`` also writes the bot process's cProfile stats there
    capacity 100,000 stored games and a peak hour's moves at 3x the average rate, on
             SQLite (one bot process) and PostgreSQL (two) (tests/bench_capacity.py)
    shards   moves/s with one bot process against two on PostgreSQL (SQLite for
             reference): games through the double on two shards, and moves through
             ``Store.apply_action`` from worker processes (tests/bench_shards.py)
    web      the web companion (tests/bench_web.py): a game's page with 1,000 games
             stored, a cached replay frame, a move reaching an open page's event stream
    ratings  100,000 rated games stored (tests/bench_ratings.py): ``/leaderboard``'s read
             (target ≤ 10 ms), a player's and a kind's stats, and the rating update's
             cost on the move that ends a game (target ≤ 2 ms) beside the same move
             without it
    ai       per game, the computer player (engine/search.py) at the medium and hard
             levels, from seeded mid-game positions at two seats and at the largest
             table: play-outs per CPU second, a decision's CPU seconds for its whole
             budget (what a free core takes; medium: median and max under 1 s,
             hard: under its 8 s cap) and wall seconds (the cap bounds them on a busy
             machine); beside the heuristic's own play-out steps per CPU second
             (docs/ai.md)

    python -m tests.bench [--quick] [--only SECTION]... [--markdown FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import math
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite
from PIL import Image

import engine
import render
import render.common as drawing
from db import Store
from tests.boards import game_boards, played


@dataclass
class Figure:
    section: str
    name: str
    value: float
    unit: str
    target: str = ""
    met: bool | None = None
    note: str = ""

    def line(self) -> str:
        mark = {True: "ok  ", False: "MISS", None: "    "}[self.met]
        return (f"{mark} {self.name:<46} {self.value:>10.2f} {self.unit:<8} "
                f"{self.target:<16} {self.note}")


FIGURES: list[Figure] = []


def figure(section: str, name: str, value: float, unit: str, target: str = "",
           met: bool | None = None, note: str = "") -> None:
    f = Figure(section, name, value, unit, target, met, note)
    FIGURES.append(f)
    print(f.line(), flush=True)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def p99_ms(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] * 1000


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    """CPU seconds of each call (this process's: a busy shared machine does not count)."""
    out = []
    for _ in range(repeat):
        began = time.process_time()
        fn()
        out.append(time.process_time() - began)
    return out


# -- engine -------------------------------------------------------------------------------


def bench_engine(quick: bool) -> None:
    print("\n# engine: random playouts (legal_actions + apply) per CPU second, two players "
          "and the largest table")
    for kind, game in engine.GAMES.items():
        for players in sorted({2, game.max_players}):
            steps, spent = 0, 0.0
            for seed in range(8 if quick else 30):
                rng = random.Random(seed)
                state = game.new_game([f"p{i}" for i in range(1, players + 1)], seed)
                began = time.process_time()
                for _ in range(300):
                    to_act = game.to_act(state)
                    if not to_act:
                        break
                    state, _ = game.apply(state, to_act[0],
                                          rng.choice(game.legal_actions(state, to_act[0])))
                    steps += 1
                spent += time.process_time() - began
            rate = steps / spent
            figure("engine", f"{kind} {players} players steps/s (CPU)", rate, "steps/s",
                   ">= 10000", rate >= 10_000)


# -- render -------------------------------------------------------------------------------


def _octree_png(image: Image.Image, palette: Any = None) -> bytes:
    """The second baseline's encoder: octree palette, zlib level 1."""
    buf = io.BytesIO()
    image.quantize(256, method=Image.Quantize.FASTOCTREE).save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def bench_render(quick: bool) -> None:
    print("\n# render: one board PNG, CPU ms (fast pipeline; naive RGB baseline; naive "
          "palette baseline)")
    repeat = 10 if quick else 40
    names = {f"p{i}": f"Player {i}" for i in range(1, 7)}
    for kind, game in engine.GAMES.items():
        for label, players, plies, marked in (("opening", 2, 0, 0),
                                              ("crowded", game.max_players, 150, 10)):
            state, events = played(kind, players, 3, plies, marked)
            view, ev = game.view(state, None), events or None
            png = render.render(kind, view, ev, names)  # warm the caches, as a worker is
            fast = timed(lambda v=view, e=ev, k=kind: render.render(k, v, e, names), repeat)
            with drawing.reference_quality(1):
                rgb = timed(lambda v=view, e=ev, k=kind: render.render(k, v, e, names),
                            max(5, repeat // 4))
                encode = drawing.encode_png
                drawing.encode_png = _octree_png  # type: ignore[assignment]
                try:
                    pal = timed(lambda v=view, e=ev, k=kind: render.render(k, v, e, names),
                                max(5, repeat // 4))
                finally:
                    drawing.encode_png = encode  # type: ignore[assignment]
            m, base, base_pal = median_ms(fast), median_ms(rgb), median_ms(pal)
            name = f"{kind} {label}"
            figure("render", f"{name} median", m, "ms", "<= 10", m <= 10)
            figure("render", f"{name} p99", p99_ms(fast), "ms")
            figure("render", f"{name} baseline RGB", base, "ms")
            figure("render", f"{name} baseline palette", base_pal, "ms")
            figure("render", f"{name} / baseline RGB", m / base, "x", "<= 0.4", m / base <= 0.4)
            figure("render", f"{name} / baseline palette", m / base_pal, "x")
            figure("render", f"{name} PNG", len(png) / 1000, "KB", "<= 150",
                   len(png) <= 150_000)


def bench_warm(quick: bool) -> None:
    from tests.bench_boards_warm import run

    print("\n# warm: a fresh board worker's first board of each game beside its later ones "
          "(CPU ms; the worker warms up before it serves, BOARD_WARMUP)")
    for f in run(quick):
        figure("warm", *f[:2], f[2], *f[3:])


def bench_render_games(quick: bool) -> None:
    """Each board a new position, as in play (the figures above draw one position again
    and again, which the renderers' kept parts favour)."""
    print("\n# render: a game's successive boards (each a new position with its turn "
          "marked), largest table, CPU ms")
    names = {f"p{i}": f"Player {i}" for i in range(1, 7)}
    for kind in engine.GAMES:
        times: list[float] = []
        for seed in range(2 if quick else 4):
            boards = game_boards(kind, 100 + seed, 15 if quick else 30)
            for view, events in boards[:2]:                # this game's colours and names
                render.render(kind, view, events, names)
            times += [timed(lambda v=v, e=e, k=kind: render.render(k, v, e, names), 1)[0]
                      for v, e in boards[2:]]
        m = median_ms(times)
        figure("render", f"{kind} game boards median", m, "ms", "<= 10", m <= 10,
               f"{len(times)} boards")
        figure("render", f"{kind} game boards p90", sorted(times)[int(0.9 * (len(times) - 1))]
               * 1000, "ms")


# -- store --------------------------------------------------------------------------------


Statements = list[tuple[str, tuple[Any, ...]]]


async def _started(path: str) -> tuple[Store, Any]:
    store = await Store.open(path)
    lobby = await store.lobby.open("conqueror", "1", "2", "a")
    await store.lobby.join(lobby.id, "b")
    return store, await store.lobby.start(lobby.id, "a", seed=5)


async def _store_moves(path: str, moves: int) -> tuple[list[float], list[Statements]]:
    """Times of ``moves`` persisted Conqueror moves (each with the mover's reply, as a
    /play saves it), and the statements each ran, with their values."""
    from db.backend import InlineSQLiteConnection

    game = engine.GAMES["conqueror"]
    ran: Statements = []
    real = (InlineSQLiteConnection.execute, InlineSQLiteConnection.execute_fetchall)

    async def execute(self: Any, sql: str, params: Any = ()) -> Any:
        ran.append((sql, tuple(params)))
        return await real[0](self, sql, params)

    async def execute_fetchall(self: Any, sql: str, params: Any = ()) -> Any:
        ran.append((sql, tuple(params)))
        return await real[1](self, sql, params)

    store, record = await _started(path)
    try:
        state = store.load_state(record)
        times, statements = [], []
        rng = random.Random(5)
        for n in range(moves):
            to_act = game.to_act(state)
            if not to_act:
                break
            action = rng.choice(game.legal_actions(state, to_act[0]))
            reply = {"application_id": "1", "token": f"t{n}", "interaction_id": f"r{n}"}
            began = time.perf_counter()
            result = await store.apply_action(record.id, to_act[0], action, request_id=f"r{n}",
                                              reply_to=reply)
            times.append(time.perf_counter() - began)
            state = result.state
        # the same moves again on a copy, noting each one's statements (not timed)
        copy, record = await _started(path + "-copy")
        try:
            InlineSQLiteConnection.execute = execute  # type: ignore[method-assign]
            InlineSQLiteConnection.execute_fetchall = execute_fetchall  # type: ignore[method-assign]
            state = copy.load_state(record)
            rng = random.Random(5)
            for n in range(len(times)):
                to_act = game.to_act(state)
                action = rng.choice(game.legal_actions(state, to_act[0]))
                reply = {"application_id": "1", "token": f"t{n}", "interaction_id": f"r{n}"}
                ran.clear()
                state = (await copy.apply_action(record.id, to_act[0], action,
                                                 request_id=f"r{n}", reply_to=reply)).state
                statements.append(list(ran))
        finally:
            InlineSQLiteConnection.execute, InlineSQLiteConnection.execute_fetchall = real  # type: ignore[method-assign]
            await copy.close()
        return times, statements
    finally:
        await store.close()


async def _raw_moves(path: str, statements: list[Statements]) -> list[float]:
    """Each move's very statements in raw aiosqlite (``BEGIN IMMEDIATE``, each one,
    counting the commit as the store does, ``COMMIT``) on a database set up the same way,
    with the same settings (WAL, synchronous=FULL): the floor for a persisted move."""
    store, _ = await _started(path)
    await store.close()
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        await conn.execute("PRAGMA synchronous = FULL")
        times = []
        for move in statements:
            began = time.perf_counter()
            await conn.execute("BEGIN IMMEDIATE")
            for sql, params in move:
                await conn.execute_fetchall(sql, params)
            await conn.execute("UPDATE warhost_commits SET count = count + 1")
            await conn.execute("COMMIT")
            times.append(time.perf_counter() - began)
        return times


def bench_store(quick: bool) -> None:
    print("\n# store: one persisted move (file database, WAL, synchronous=FULL)")
    with tempfile.TemporaryDirectory() as tmp:
        times, statements = asyncio.run(_store_moves(str(Path(tmp) / "store.db"),
                                                     60 if quick else 200))
        raw = asyncio.run(_raw_moves(str(Path(tmp) / "raw.db"), statements))
    m, floor = median_ms(times), median_ms(raw)
    count = statistics.median(len(s) for s in statements)
    figure("store", "persisted move median", m, "ms", "<= 1", m <= 1)
    figure("store", "persisted move p99", p99_ms(times), "ms")
    figure("store", "raw aiosqlite, the same statements, median", floor, "ms", "", None,
           f"{count:g} statements a move, each its own call")
    figure("store", "persisted move / raw aiosqlite", m / floor, "x", "<= 1.2",
           m / floor <= 1.2)


# -- end to end ---------------------------------------------------------------------------


def bench_e2e(quick: bool) -> None:
    from tests.bench_e2e import run

    print("\n# e2e: the real bot in its own process (python bot.py, board workers below "
          "it), the loopback Discord double in this one")
    for f in run(quick, os.environ.get("BENCH_PROFILE") or None):
        figure("e2e", *f[:2], f[2], *f[3:])


# -- shards -------------------------------------------------------------------------------


def bench_capacity(quick: bool) -> None:
    from tests.bench_capacity import run

    print("\n# capacity: 100,000 stored games, a peak hour's moves (3x the average rate) "
          "replayed; SQLite with one bot process, PostgreSQL with two (docs/performance.md)")
    for f in run(quick):
        figure("capacity", *f[:2], f[2], *f[3:])


def bench_shards(quick: bool) -> None:
    from tests.bench_shards import run

    print("\n# shards: one bot process against two on PostgreSQL; SQLite for reference")
    for f in run(quick):
        figure("shards", *f[:2], f[2], *f[3:])


# -- web --------------------------------------------------------------------------------


def bench_web(quick: bool) -> None:
    from tests.bench_web import run

    print("\n# web: a game's page, replay frames and live updates (1,000 games stored)")
    for f in run(quick):
        figure("web", *f[:2], f[2], *f[3:])


# -- ratings ----------------------------------------------------------------------------


def bench_ratings(quick: bool) -> None:
    from tests.bench_ratings import run

    print("\n# ratings: leaderboards and stats with 100,000 rated games, the update's cost")
    for f in run(quick):
        figure("ratings", *f[:2], f[2], *f[3:])


# -- ai ---------------------------------------------------------------------------------


def _thinking_positions(kind: str, count: int, seats: int = 2) -> list[tuple[Any, str]]:
    """Seeded mid-game positions at a table of ``seats`` (heuristic play, 20 to 60 moves
    in, times the number of seats) where the player to act has a choice the search
    thinks about."""
    from engine import search

    game = engine.GAMES[kind]
    players = [f"p{i + 1}" for i in range(seats)]
    out: list[tuple[Any, str]] = []
    for seed in range(count * 3):
        if len(out) == count:
            break
        state = game.new_game(players, seed)
        plies = (20 + (seed * 10) % 41) * seats // 2
        for ply in range(plies + 40 * seats):
            actors = game.to_act(state)
            if not actors or game.outcome(state) is not None:
                break
            actor = actors[0]
            if ply >= plies and search.choose(game, state, actor, iterations=1,
                                              seconds=None).iterations:
                out.append((state, actor))
                break
            state, _ = game.apply(state, actor, search.heuristic_action(game, state, actor))
    return out


def _whole_game_positions(kind: str, level: str, count: int,
                          games: int = 2) -> list[tuple[Any, str]]:
    """``count`` positions spread evenly through ``games`` seeded two-seat games that
    ``level``'s own play-out policy plays on both sides, where the player to act has a
    choice the search thinks about. A level's policy plays the game as the level does,
    so these reach the positions its own games reach: in Battlecards the seasoned and
    sharp policies decline bad attacks and the battles grow to 80 units, where the
    heuristic's stay near 20 and the positions above never reach one."""
    from engine import search

    game = engine.GAMES[kind]
    policy = search.level_heuristics(kind, level).policy
    out: list[tuple[Any, str]] = []
    for seed in range(games):
        state = game.new_game(["p1", "p2"], 1000 + seed)
        seen: list[tuple[Any, str]] = []
        for _ in range(3000):
            actors = game.to_act(state)
            if not actors or game.outcome(state) is not None:
                break
            actor = actors[0]
            if search.choose(game, state, actor, iterations=1, seconds=None).iterations:
                seen.append((state, actor))
            action = (policy(game, state, actor) if policy is not None
                      else search.heuristic_action(game, state, actor))
            state, _ = game.apply(state, actor, action)
        each = count // games
        out += [seen[(2 * i + 1) * len(seen) // (2 * each)] for i in range(each) if seen]
    return out


def bench_ai(quick: bool) -> None:
    from engine import search

    medium, hard = search.LEVELS["medium"], search.LEVELS["hard"]
    print(f"\n# ai: the computer player at medium ({medium.iterations} play-outs unless the "
          f"game sets its own, {medium.seconds:g} s cap) and hard ({hard.iterations}, "
          f"{hard.seconds:g} s cap) "
          f"from seeded mid-game positions, two seats and the largest table; heuristic "
          f"play-outs")
    for kind, game in engine.GAMES.items():
        positions = _thinking_positions(kind, 3 if quick else 6)
        if game.max_players > 2:
            positions += _thinking_positions(kind, 2 if quick else 4, game.max_players)
        for level, target in ((medium, 1.0), (hard, None)):
            rates, times, full, short = [], [], [], 0
            iterations = search.level_iterations(kind, level.name)   # this game's budget
            for n, (state, actor) in enumerate(positions):
                began = time.process_time()
                choice = search.choose(game, state, actor, level=level.name, seed=n)
                used = max(time.process_time() - began, 1e-9)
                rates.append(choice.iterations / used)
                times.append(choice.seconds)
                # the CPU seconds of the whole budget, had the time cap not cut it short
                # (a search that settled early is counted as it ran)
                full.append(used if choice.iterations < iterations and
                            choice.seconds < level.seconds else
                            used * iterations / max(1, choice.iterations))
                short += choice.seconds >= level.seconds
            if not times:
                continue
            # Per CPU second, so that a busy machine does not halve the figures: a whole
            # decision's CPU time is what a free core takes. Medium must answer within a
            # second of it; hard within its cap, which also bounds the wall time on a busy
            # machine (a search cut by it plays on what it found).
            name = level.name
            limit = target if target is not None else level.seconds
            figure("ai", f"{kind} {name} play-outs/s (CPU)", statistics.median(rates), "/s",
                   note=f"{len(times)} positions, {iterations} play-outs a decision")
            figure("ai", f"{kind} {name} decision CPU median", statistics.median(full),
                   "s", f"< {limit:g}", statistics.median(full) < limit)
            figure("ai", f"{kind} {name} decision CPU max", max(full), "s",
                   f"< {limit:g}", max(full) < limit)
            figure("ai", f"{kind} {name} decision wall median", statistics.median(times), "s",
                   note=f"{short} cut by the {level.seconds:g} s cap" if short else "")
            figure("ai", f"{kind} {name} decision wall max", max(times), "s")
        # the same through whole games of each level's own policy: the positions above
        # sit 20 to 60 moves into heuristic games and miss a long game's costliest ones
        for level, target in ((medium, 1.0), (hard, hard.seconds)):
            full = []
            for n, (state, actor) in enumerate(
                    _whole_game_positions(kind, level.name, 4 if quick else 8)):
                began = time.process_time()
                search.choose(game, state, actor, level=level.name, seed=n,
                              seconds=math.inf)
                full.append(time.process_time() - began)
            if not full:
                continue
            figure("ai", f"{kind} {level.name} through games CPU median",
                   statistics.median(full), "s", f"< {target:g}",
                   statistics.median(full) < target,
                   note=f"{len(full)} positions through two games of its own policy")
            figure("ai", f"{kind} {level.name} through games CPU max", max(full), "s",
                   f"< {target:g}", max(full) < target)
        steps, spent = 0, 0.0
        for seed in range(3 if quick else 10):
            state = game.new_game(["p1", "p2"], seed)
            began = time.process_time()
            for _ in range(300):
                actors = game.to_act(state)
                if not actors:
                    break
                state, _ = game.apply(state, actors[0],
                                      search.heuristic_action(game, state, actors[0]))
                steps += 1
            spent += time.process_time() - began
        rate = steps / max(spent, 1e-9)
        figure("ai", f"{kind} heuristic play-out steps/s (CPU)", rate, "steps/s", ">= 10000",
               rate >= 10_000)


# -- report -------------------------------------------------------------------------------


def machine() -> str:
    try:
        model = next(line.split(":", 1)[1].strip()
                     for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return (f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, Pillow {Image.__version__}")


def markdown() -> str:
    out = [f"Machine: {machine()}.", ""]
    for section in dict.fromkeys(f.section for f in FIGURES):
        out += [f"### {section}", "", "| figure | value | target | |", "| --- | ---: | --- | --- |"]
        for f in (f for f in FIGURES if f.section == section):
            mark = {True: "met", False: "**missed**", None: ""}[f.met]
            note = " · ".join(x for x in (mark, f.note) if x)
            out.append(f"| {f.name} | {f.value:.2f} {f.unit} | {f.target} | {note} |")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    parser.add_argument("--only", choices=("engine", "render", "games", "warm", "store", "e2e",
                                           "capacity", "shards", "web", "ratings", "ai"),
                        action="append")
    parser.add_argument("--markdown", type=Path, help="also write the figures as a table")
    args = parser.parse_args(argv)
    print(f"Machine: {machine()}")
    print(f"{'':5}{'figure':<46} {'value':>10} {'unit':<8} {'target':<16}")
    benches = {"engine": bench_engine, "render": bench_render,
               "games": bench_render_games, "warm": bench_warm,
               "store": bench_store, "e2e": bench_e2e, "capacity": bench_capacity,
               "shards": bench_shards, "web": bench_web, "ratings": bench_ratings,
               "ai": bench_ai}
    for name, bench in benches.items():
        if not args.only or name in args.only:
            bench(args.quick)
    missed = [f for f in FIGURES if f.met is False]
    print(f"\n{sum(f.met is True for f in FIGURES)} targets met, {len(missed)} missed"
          + (": " + ", ".join(f.name for f in missed) if missed else ""))
    if args.markdown:
        args.markdown.write_text(markdown() + "\n", encoding="utf-8")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
