"""``make bench``'s *shards* section (docs/deploy.md's figures): moves per second with one
bot process against two on PostgreSQL, and SQLite for reference, measured in the same
run.

e2e
    Conqueror games played at once through the loopback Discord double, half of them
    on servers of shard 0 and half on shard 1, by real bot processes (``python bot.py``,
    ``SHARD_COUNT=2``): one process running both shards (``SHARD_IDS=0-1``) against two
    (``SHARD_IDS=0`` and ``SHARD_IDS=1``), on one PostgreSQL server; one process on
    SQLite for reference. A move is ``/play action:end`` and counts when its turn digest,
    with its freshly drawn board, is in the channel (as in the *e2e* section). Each
    configuration is timed over several batches (every game moves a few times per
    batch), in two passes (the second in the reverse order); the figure is the median
    batch. The double and the scripted players run in the benchmark's own process,
    apart from the bots; how much CPU each part used per move (the double's process,
    the bot processes with their board workers, the PostgreSQL server) is reported
    beside, to show which is the limit. Each bot draws boards with its default workers
    (one per core; ``BENCH_RENDER_WORKERS`` sets another number).
store
    Moves through ``Store.apply_action`` alone (no Discord): worker processes, each
    playing its own Conqueror games (random legal moves, all its games at once), one
    worker with every game against two with half each; on PostgreSQL and on SQLite
    (one file, ``synchronous=FULL``). Repeats alternate the configurations; medians.

Without PostgreSQL (``WARHOST_TEST_POSTGRES`` unset or unreachable) the PostgreSQL
figures are skipped, and the section says so.

    python -m tests.bench --only shards [--quick]
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from db import Store
from tests import databases
from tests.bench_e2e import KIND, Match, Watcher, start_game
from tests.discord_double import DiscordDouble, FakeGuild, loopback_only
from tests.shards import (
    REPO,
    BotProcess,
    cpu_of,
    descendants,
    machine_jiffies,
    postgres_pids,
    proc_cpu_seconds,
)

Figures = list[tuple[Any, ...]]


def _tree_cpu(pids: list[int]) -> float:
    """CPU seconds of these processes and every process below them (board workers, which
    a forkserver starts as its own children)."""
    return sum(proc_cpu_seconds(p) + sum(proc_cpu_seconds(c) for c in descendants(p))
               for p in pids)


@contextlib.contextmanager
def _database(backend: str, folder: Path, name: str) -> Iterator[str]:
    """A fresh database: a SQLite file in ``folder``, or a new PostgreSQL schema."""
    if backend == "sqlite":
        yield str(folder / f"{name}.db")
        return
    url, schema = databases.new_postgres_database()
    try:
        yield url
    finally:
        databases.drop_postgres_database(schema)


# -- e2e --------------------------------------------------------------------------------


class ShardMatch(Match):
    """One game in its own channel of a server on a given shard."""

    def __init__(self, dd: DiscordDouble, watcher: Watcher, guild: FakeGuild, n: int) -> None:
        self.dd, self.watcher = dd, watcher
        self.guild = guild
        self.channel = dd.add_channel(f"game-{n}", guild=guild)
        self.table = dd.table(guild=guild, channel=self.channel)
        self.users = (dd.add_user(f"a{n}"), dd.add_user(f"b{n}"))
        self.state: Any = None
        self.game_id = 0

    async def create(self, store: Store, seed: int) -> None:
        self.game_id, self.state = await start_game(store, self.guild.id, self.channel.id,
                                                    self.users, seed)


@dataclass
class Batch:
    moves: int
    seconds: float
    latencies: list[float]
    cpu_double: float
    cpu_bots: float
    cpu_postgres: float
    #: Of the whole machine during the batch: busy and stolen, as fractions of all CPUs.
    machine_busy: float = 0.0
    machine_steal: float = 0.0


async def _e2e(backend: str, processes: int, games: int, rounds: int, batches: int,
               folder: Path) -> list[Batch]:
    """Batches of ``rounds`` moves in each of ``games`` games, with ``processes`` bots."""
    with loopback_only(), _database(backend, folder, f"e2e-{processes}") as target:
        async with DiscordDouble(in_process_bot=False, default_timeout=60) as dd:
            dd.rate_limit = 1_000_000       # Discord's pacing is not what is measured
            dd.quiet_period = 0.0
            watcher = Watcher()
            dd.after_request = watcher.after
            guilds = [dd.add_guild(f"shard {k}", channels=(), shard=(k, 2)) for k in range(2)]
            matches = [ShardMatch(dd, watcher, guilds[n % 2], n) for n in range(games)]
            store = await Store.open(target)
            for n, match in enumerate(matches):
                await match.create(store, seed=n + 1)
            await store.close()
            ids = ["0-1"] if processes == 1 else ["0", "1"]
            bots = [BotProcess(dd, folder, target, shard_ids, 2, name=f"{backend}-{processes}-"
                               f"{k}", lease_seconds=30, log_level="WARNING",
                               extra_env={"RENDER_WORKERS": os.environ.get(
                                   "BENCH_RENDER_WORKERS", "")})
                    for k, shard_ids in enumerate(ids)]
            try:
                await asyncio.gather(*(bot.start(timeout=90) for bot in bots))
                await dd.wait_for_commands(["play"], timeout=30)
                await dd.wait_until(
                    lambda: sum(1 for m in matches for msg in dd.channel_messages(m.channel)
                                if msg.attachments) >= len(matches),
                    timeout=120, what="the opening boards")

                async def play(match: Match, n: int) -> list[float]:
                    return [await match.move() for _ in range(n)]

                for _ in range(2):      # warm up: board workers, caches, query plans
                    await asyncio.gather(*(play(m, 1) for m in matches))
                out = []
                pids = [bot.pid for bot in bots]
                for _ in range(batches):
                    pg = postgres_pids() if backend == "postgresql" else []
                    before = (time.process_time(), _tree_cpu(pids), cpu_of(pg))
                    machine = machine_jiffies()
                    began = time.perf_counter()
                    results = await asyncio.gather(*(play(m, rounds) for m in matches))
                    spent = time.perf_counter() - began
                    after = (time.process_time(), _tree_cpu(pids), cpu_of(pg))
                    busy, total, steal = (b - a for a, b in zip(machine, machine_jiffies(),
                                                                strict=True))
                    every = [t for r in results for t in r]
                    out.append(Batch(len(every), spent, every, after[0] - before[0],
                                     after[1] - before[1], after[2] - before[2],
                                     busy / total if total else 0.0,
                                     steal / total if total else 0.0))
                for bot in bots:
                    assert bot.alive, bot.output()
                return out
            finally:
                for bot in bots:
                    await bot.stop()


def _e2e_figures(quick: bool, with_postgres: bool) -> Figures:
    games, rounds, batches, passes = (12, 3, 3, 1) if quick else (40, 4, 3, 2)
    configs = [("sqlite", 1)]
    if with_postgres:
        configs += [("postgresql", 1), ("postgresql", 2)]
    rates: dict[tuple[str, int], float] = {}
    figures: Figures = []
    measured: dict[tuple[str, int], list[Batch]] = {c: [] for c in configs}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(passes):
            # the second pass in the reverse order, so a drift of the machine favours none
            for config in configs if n % 2 == 0 else reversed(configs):
                measured[config] += asyncio.run(_e2e(*config, games, rounds, batches,
                                                     Path(tmp)))
        for (backend, processes), runs in measured.items():
            rate = statistics.median(b.moves / b.seconds for b in runs)
            rates[(backend, processes)] = rate
            latency = statistics.median(t for b in runs for t in b.latencies) * 1000
            moves = sum(b.moves for b in runs)
            spent = sum(b.seconds for b in runs)
            label = f"e2e {backend}, {processes} process{'es' if processes > 1 else ''}"
            busy = statistics.median(b.machine_busy for b in runs)
            steal = statistics.median(b.machine_steal for b in runs)
            figures.append((f"{label}: moves with boards/s", rate, "moves/s", "", None,
                            f"{games} games at once, median of {len(runs)} batches; "
                            f"machine busy {busy:.0%} (stolen {steal:.0%})"))
            figures.append((f"{label}: move median", latency, "ms"))
            double = sum(b.cpu_double for b in runs)
            figures.append((f"{label}: double's CPU per move", double / moves * 1000, "ms",
                            "", None, f"its process busy {double / spent:.0%}"))
            bots = sum(b.cpu_bots for b in runs)
            figures.append((f"{label}: bots' CPU per move", bots / moves * 1000, "ms",
                            "", None, f"busy {bots / spent:.0%} (boards included)"))
            if backend == "postgresql":
                pg = sum(b.cpu_postgres for b in runs)
                figures.append((f"{label}: PostgreSQL CPU per move", pg / moves * 1000, "ms",
                                "", None, f"busy {pg / spent:.0%}"))
    if with_postgres:
        figures.append(("e2e PostgreSQL: 2 processes / 1 process",
                        rates[("postgresql", 2)] / rates[("postgresql", 1)], "x", "", None,
                        f"{os.cpu_count()} cores for the bots, the double and PostgreSQL"))
        figures.append(("e2e PostgreSQL / SQLite, 1 process",
                        rates[("postgresql", 1)] / rates[("sqlite", 1)], "x"))
    return figures


# -- store ------------------------------------------------------------------------------


async def _worker(target: str, games: int, moves: int, seed: int, tag: str) -> None:
    """One worker process: set up its games, say "ready", wait for "go", play, report."""
    game = engine.get_game(KIND)
    store = await Store.open(target)
    try:
        ids = []
        for n in range(games):
            lobby = await store.lobby.open(KIND, "1", f"{tag}-{n}", f"{tag}-{n}-a")
            await store.lobby.join(lobby.id, f"{tag}-{n}-b")
            ids.append((await store.lobby.start(lobby.id, f"{tag}-{n}-a", seed=seed + n)).id)
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

        async def play(game_id: int, rng: random.Random) -> int:
            state = store.load_state(await store.get(game_id))
            done = 0
            for m in range(moves):
                if game.outcome(state) is not None:
                    break
                player = game.to_act(state)[0]
                action = rng.choice(game.legal_actions(state, player))
                result = await store.apply_action(game_id, player, action,
                                                  request_id=f"{tag}-{game_id}-{m}")
                state = result.state
                done += 1
            return done

        cpu = time.process_time()
        began = time.time()
        done = await asyncio.gather(*(play(g, random.Random(seed + g)) for g in ids))
        ended = time.time()
        print(json.dumps({"moves": sum(done), "began": began, "ended": ended,
                          "cpu": time.process_time() - cpu}), flush=True)
    finally:
        await store.close()


def _store_trial(backend: str, workers: int, games: int, moves: int, seed: int,
                 folder: Path) -> tuple[float, float, float, float]:
    """(moves/s, the workers' CPU per move in ms, PostgreSQL's CPU per move in ms, how
    busy the machine was) with ``games`` games shared among ``workers`` processes."""
    with _database(backend, folder, f"store-{seed}-{workers}") as target:
        asyncio.run(_migrated(target))
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        procs = [subprocess.Popen(
            [sys.executable, "-m", "tests.bench_shards", "worker", target,
             str(games // workers), str(moves), str(seed + 1000 * w), f"w{w}"],
            cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for w in range(workers)]
        try:
            for proc in procs:
                assert proc.stdout is not None
                line = proc.stdout.readline().strip()
                assert line == "ready", f"worker failed to start ({line!r})"
            pg = postgres_pids() if backend == "postgresql" else []
            before = cpu_of(pg)
            machine = machine_jiffies()
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
            results = []
            for proc in procs:
                out, _ = proc.communicate(timeout=600)
                results.append(json.loads(out.strip().splitlines()[-1]))
            pg_cpu = cpu_of(pg) - before
            busy, total, _ = (b - a for a, b in zip(machine, machine_jiffies(), strict=True))
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
    moves_done = sum(r["moves"] for r in results)
    span = max(r["ended"] for r in results) - min(r["began"] for r in results)
    return (moves_done / span, sum(r["cpu"] for r in results) / moves_done * 1000,
            pg_cpu / moves_done * 1000, busy / total if total else 0.0)


async def _migrated(target: str) -> None:
    store = await Store.open(target)
    await store.close()


def _store_figures(quick: bool, with_postgres: bool) -> Figures:
    games, moves, repeats = (8, 25, 2) if quick else (16, 60, 5)
    backends = ["postgresql", "sqlite"] if with_postgres else ["sqlite"]
    configs = [(b, w) for b in backends for w in (1, 2)]
    samples: dict[tuple[str, int], list[tuple[float, float, float, float]]] = {
        c: [] for c in configs}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(repeats):
            # alternate the order, so a drift of the machine favours none
            for config in configs if r % 2 == 0 else reversed(configs):
                samples[config].append(_store_trial(*config, games, moves, 100 * r + 7,
                                                    Path(tmp)))
    figures: Figures = []
    rates = {}
    for (backend, workers), got in samples.items():
        rates[(backend, workers)] = rate = statistics.median(s[0] for s in got)
        label = f"store {backend}, {workers} process{'es' if workers > 1 else ''}"
        busy = statistics.median(s[3] for s in got)
        figures.append((f"{label}: moves/s", rate, "moves/s", "", None,
                        f"{games} games at once, median of {repeats}; machine busy "
                        f"{busy:.0%}"))
        figures.append((f"{label}: CPU per move", statistics.median(s[1] for s in got), "ms",
                        "", None, "the worker processes (Python)"))
        if backend == "postgresql":
            figures.append((f"{label}: PostgreSQL CPU per move",
                            statistics.median(s[2] for s in got), "ms"))
    for backend in backends:
        figures.append((f"store {backend}: 2 processes / 1 process",
                        rates[(backend, 2)] / rates[(backend, 1)], "x"))
    if with_postgres:
        figures.append(("store PostgreSQL / SQLite, 1 process",
                        rates[("postgresql", 1)] / rates[("sqlite", 1)], "x"))
    return figures


# -- the section ---------------------------------------------------------------------------


def run(quick: bool = False) -> Figures:
    problem = databases.postgres_problem()
    if problem is not None:
        print(f"     PostgreSQL figures skipped: {problem}. Set {databases.POSTGRES_ENV} "
              "to a server (.ci/run starts one) to measure one process against two.")
    with_postgres = problem is None
    return _store_figures(quick, with_postgres) + _e2e_figures(quick, with_postgres)


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "worker":
        _, _, target, games, moves, seed, tag = sys.argv
        asyncio.run(_worker(target, int(games), int(moves), int(seed), tag))
    else:
        print(__doc__)
