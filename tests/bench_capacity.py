"""``make bench``'s *capacity* section (issue 30): a peak hour on a full database.

What is simulated
    A database holding 100,000 stored games across 10,000 servers (80% running
    Conqueror games a few turns in, 20% finished, with their logs, delivered
    announcements, results and ratings), and a peak hour of moves at 3x the average rate
    of one move per game per hour: 3 x 100,000 / 3600 = 83.3 moves/s. The hour is
    compressed into a window (60 s; 20 s with ``--quick``) of Poisson arrivals at that
    rate, sent open-loop: each move is dispatched at its scheduled time whether or not
    earlier ones have finished, except that one game never has two moves in flight (a
    game's moves queue behind each other, as its players wait for their turn).

Which games move
    The Discord double (in this process) knows a few hundred servers with 1,000 live
    games (300 with ``--quick``), all running; the other ~100,000 games are only in the
    database. Every query still runs against the full-size tables and indexes; 1,000
    live games are twice the store's in-memory state cache (512), so most moves load
    their game from the database as a real peak (every running game moving ~3 times)
    would; each live game moves ~5 times in the window, close to the 3 of a real peak
    hour. Arrivals pick a game with lognormal weights (some tables play faster).

A move
    Conqueror's ``/play action:end`` by the player to act; it counts when its turn
    digest, with the freshly drawn board (a PNG), lands in the channel. Latency runs
    from the interaction's dispatch on the gateway to that moment.

Configurations
    SQLite with one bot process (``SHARD_IDS=0-1``); PostgreSQL with two bot
    processes (``SHARD_COUNT=2``, ``SHARD_IDS=0`` and ``1``), as tests/bench_shards.py.
    Bots are real ``python bot.py`` processes with their default board workers (one per
    core; ``BENCH_RENDER_WORKERS`` sets another number). CPU per move is reported for
    the bot processes alone, their board workers, this process (the double and the
    players) and the PostgreSQL server.

Filling
    A few dozen template games are played through the store itself (``Store.lobby``,
    ``Store.apply_action``, resignations for the finished ones); their rows are then
    cloned with new ids, servers, channels and players by bulk inserts. The SQLite file
    is cached (``WARHOST_BENCH_CACHE``, default /tmp/warhost-bench-capacity), keyed by
    the schema version; PostgreSQL gets the cached rows by COPY into a scratch schema.
    Without ``WARHOST_TEST_POSTGRES`` (or with it unreachable) the PostgreSQL half is
    skipped, and the section says so. The bots' logs of the last run are kept in the
    cache's ``logs`` folder.

Lost moves
    A move the bot does not acknowledge within Discord's 3 s is refused (the double
    answers "Unknown interaction", as Discord does, and the bot does not make it): it is
    counted as lost, and the game's mirror is read again from the database.

    python -m tests.bench_capacity [--quick]
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from db import Store, StoreError
from db.schema import SCHEMA_VERSION
from tests import databases
from tests.bench_e2e import GAME, KIND, Watcher, _dispatch, start_game
from tests.discord_double import DiscordDouble, FakeGuild, loopback_only
from tests.shards import BotProcess, descendants, machine_jiffies, proc_cpu_seconds

Figures = list[tuple[Any, ...]]

GAMES = 100_000
GUILDS = 10_000
FINISHED_SHARE = 0.2
#: One move per game per hour on average; the peak hour is three times that.
AVERAGE_RATE = GAMES / 3600
PEAK = 3.0
#: Bump when the fill's rows change (the cache is keyed by it and the schema version).
FILL_FORMAT = 2
#: Template ids, replaced in every cloned row (as whole column values, or quoted in JSON).
_T_GUILD, _T_CHANNEL = "7000000000000000001", "7000000000000000002"
_T_PLAYERS = ("7000000000000000003", "7000000000000000004")
_CLONED = ("games", "actions", "announcements", "game_results", "followers", "web_links",
           "player_names")


def _cache_dir() -> Path:
    return Path(os.environ.get("WARHOST_BENCH_CACHE", "/tmp/warhost-bench-capacity"))


def _ticks(pid: int) -> tuple[float, float]:
    """(the process's own CPU seconds, those of its reaped children)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    hz = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / hz, (int(fields[13]) + int(fields[14])) / hz


def _workers_cpu(pid: int) -> dict[int, float]:
    """CPU seconds so far of each process below ``pid``."""
    return {c: proc_cpu_seconds(c) for c in descendants(pid)}


def _client_ports(pids: list[int], server_port: int) -> set[int]:
    """Local ports of the TCP connections ``pids`` hold to ``server_port`` here."""
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:["):
                        inodes.add(link[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                parts = line.split()
                if (len(parts) > 9 and parts[9] in inodes
                        and int(parts[2].rsplit(":", 1)[1], 16) == server_port):
                    ports.add(int(parts[1].rsplit(":", 1)[1], 16))
    return ports


def _postgres_serving(url: str, bots: list[int]) -> list[int]:
    """The PostgreSQL processes working for these bots: the backends of their
    connections, and the server's own writers (WAL, checkpoints). Other clients of a
    shared server (another test run) are left out."""
    port = urlsplit(url).port or 5432
    ports = _client_ports(bots, port)
    rows = databases.raw(url, "SELECT pid, client_port, backend_type FROM pg_stat_activity")
    return [int(pid) for pid, client, kind in rows
            if client in ports or kind in ("walwriter", "checkpointer", "background writer")]


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# -- filling ------------------------------------------------------------------------------


async def _templates(path: Path, active: int, finished: int) -> None:
    """Template games played through the store: ``active`` running ones a few turns in
    (0-5 turns of random legal moves), ``finished`` ones resigned after a few turns."""
    store = await Store.open(str(path))
    rng = random.Random(30)
    try:
        for n in range(active + finished):
            a, b = _T_PLAYERS
            lobby = await store.lobby.open(KIND, _T_GUILD, f"{_T_CHANNEL[:-3]}{n:03d}", a)
            await store.lobby.join(lobby.id, b)
            record = await store.lobby.start(lobby.id, a, seed=rng.randrange(1, 2**31))
            state = store.load_state(record)
            turns = rng.randrange(0, 6) if n < active else rng.randrange(1, 11)
            m = 0
            while turns > 0 and GAME.outcome(state) is None:
                player = GAME.to_act(state)[0]
                legal = [x for x in GAME.legal_actions(state, player) if x != "resign"]
                action = "end" if "end" in legal and rng.random() < 0.3 else rng.choice(legal)
                if action == "end":
                    turns -= 1
                result = await store.apply_action(record.id, player, action,
                                                  request_id=f"t{n}-{m}")
                state, m = result.state, m + 1
            if n >= active and GAME.outcome(state) is None:
                player = GAME.to_act(state)[0]
                await store.apply_action(record.id, player, "resign", request_id=f"t{n}-r")
    finally:
        await store.close()


def _columns(con: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in con.execute(f"PRAGMA table_info({table})")]


def _fill_rows(template: Path, out: sqlite3.Connection, seed: int = 30) -> dict[str, int]:
    """Clone the template games into ``out`` (the same schema, empty): GAMES games over
    GUILDS servers, each with its own channel and two players from its server's pool."""
    src = sqlite3.connect(template)
    rng = random.Random(seed)
    rows: dict[str, dict[int, list[dict[str, Any]]]] = {}
    cols: dict[str, list[str]] = {}
    for table in _CLONED:
        cols[table] = _columns(src, table)
        rows[table] = {}
        key = "id" if table == "games" else "game_id"
        for row in src.execute(f"SELECT * FROM {table}"):
            d = dict(zip(cols[table], row, strict=True))
            rows[table].setdefault(int(d[key]), []).append(d)
    games = {int(g["id"]): g for [g] in rows["games"].values()}
    active = [g for g, r in games.items() if r["status"] == "active"]
    finished = [g for g, r in games.items() if r["status"] == "finished"]
    ratings_cols = _columns(src, "ratings")
    ratings = [dict(zip(ratings_cols, r, strict=True))
               for r in src.execute("SELECT * FROM ratings")]
    src.close()

    guilds = [str(600_000_000_000_000_000 + 4_194_304 * 1000 * g + rng.randrange(4_194_304))
              for g in range(GUILDS)]
    next_announcement = 1
    now = time.time()
    inserts: dict[str, list[tuple[Any, ...]]] = {t: [] for t in _CLONED}
    rating_rows: dict[tuple[str, str, str], tuple[Any, ...]] = {}
    counts = {t: 0 for t in _CLONED}

    def flush() -> None:
        for table, batch in inserts.items():
            if batch:
                names = cols[table]
                out.executemany(f"INSERT INTO {table} ({', '.join(names)}) VALUES "
                                f"({', '.join('?' for _ in names)})", batch)
                counts[table] += len(batch)
                batch.clear()

    for n in range(GAMES):
        gid = n + 1
        guild = guilds[n % GUILDS]
        channel = str(800_000_000_000_000_000 + n)
        pool = n % GUILDS
        a, b = rng.sample(range(20), 2)
        players = (str(900_000_000_000_000_000 + pool * 100 + a),
                   str(900_000_000_000_000_000 + pool * 100 + b))
        exact = {_T_GUILD: guild, _T_PLAYERS[0]: players[0], _T_PLAYERS[1]: players[1]}
        quoted = [(f'"{k}"', f'"{v}"') for k, v in exact.items()]
        model = rng.choice(finished if rng.random() < FINISHED_SHARE else active)

        def sub(value: Any, exact: dict[str, str] = exact,
                quoted: list[tuple[str, str]] = quoted) -> Any:
            if isinstance(value, str):
                if value in exact:
                    return exact[value]
                if '"70000000000000000' in value:
                    for old, new in quoted:
                        value = value.replace(old, new)
            return value

        for table in _CLONED:
            for d in rows[table].get(model, ()):
                new = {k: sub(v) for k, v in d.items()}
                if table == "games":
                    new["id"] = gid
                    new["channel_id"] = channel
                    new["public_id"] = f"{rng.getrandbits(96):024x}"
                    if new["status"] == "active":
                        new["wake_at"] = now + 86_400 + rng.random() * 86_400
                else:
                    new["game_id"] = gid
                if table == "actions" and new["request_id"] is not None:
                    new["request_id"] = f"fill-{gid}-{new['seq']}"
                if table == "announcements":
                    new["id"] = next_announcement
                    next_announcement += 1
                    new["secret"] = None
                    if new["delivered_at"] is None:
                        new["delivered_at"] = new["created_at"]
                        new["message_id"] = str(950_000_000_000_000_000 + new["id"])
                inserts[table].append(tuple(new[c] for c in cols[table]))
        if games[model]["status"] == "finished":
            for r in ratings:
                new = {k: sub(v) for k, v in r.items()}
                rating_rows[(new["guild_id"], new["kind"], new["player"])] = tuple(
                    new[c] for c in ratings_cols)
        if n % 5000 == 4999:
            flush()
    flush()
    out.executemany(f"INSERT INTO ratings ({', '.join(ratings_cols)}) VALUES "
                    f"({', '.join('?' for _ in ratings_cols)})", list(rating_rows.values()))
    counts["ratings"] = len(rating_rows)
    return counts


@dataclass
class Filled:
    path: Path
    seconds: float          # 0 when it came from the cache
    counts: dict[str, int] = field(default_factory=dict)


def filled_sqlite(say: Any = print) -> Filled:
    """The filled SQLite file (with its commit witness), from the cache or made now."""
    cache = _cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"capacity-s{SCHEMA_VERSION}-f{FILL_FORMAT}-{GAMES}.db"
    if path.exists():
        return Filled(path, 0.0)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        template = Path(tmp) / "template.db"
        asyncio.run(_templates(template, active=48, finished=12))
        work = Path(tmp) / "fill.db"
        asyncio.run(_opened_and_closed(str(work)))
        con = sqlite3.connect(work, isolation_level=None)
        con.execute("PRAGMA synchronous = OFF")
        con.execute("BEGIN")
        counts = _fill_rows(template, con)
        con.execute("COMMIT")
        con.execute("ANALYZE")
        con.close()
        asyncio.run(_opened_and_closed(str(work)))     # a clean close: its witness says so
        for suffix in ("", "-commits"):
            shutil.move(f"{work}{suffix}", f"{path}{suffix}.part")
        os.replace(f"{path}-commits.part", f"{path}-commits")
        os.replace(f"{path}.part", path)
    spent = time.perf_counter() - began
    say(f"     filled {GAMES} games in {spent:.0f} s: {counts} ({path.stat().st_size >> 20} MB)")
    return Filled(path, spent, counts)


async def _opened_and_closed(target: str) -> float:
    began = time.perf_counter()
    store = await Store.open(target)
    await store.close()
    return time.perf_counter() - began


async def _copy_to_postgres(source: Path, url: str) -> None:
    """Every cloned row of the SQLite file into a migrated, empty PostgreSQL schema."""
    import asyncpg

    await _opened_and_closed(url)
    src = sqlite3.connect(source)
    conn = await asyncpg.connect(url)
    try:
        for table in (*_CLONED, "ratings"):
            names = _columns(src, table)
            types = dict(await conn.fetch(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name = $1", table))
            kinds = [types[c] for c in names]

            def fix(row: tuple[Any, ...], kinds: list[str] = kinds) -> tuple[Any, ...]:
                return tuple(None if v is None else float(v) if k == "double precision"
                             else int(v) if k in ("bigint", "integer") else v
                             for v, k in zip(row, kinds, strict=True))

            cursor = src.execute(f"SELECT {', '.join(names)} FROM {table}")
            while True:
                batch = cursor.fetchmany(20_000)
                if not batch:
                    break
                await conn.copy_records_to_table(table, records=[fix(r) for r in batch],
                                                 columns=names)
        for table in ("games", "announcements"):
            await conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                               f"(SELECT COALESCE(max(id), 0) + 1 FROM {table}), false)")
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
        src.close()


@contextlib.contextmanager
def _database(backend: str, filled: Path, folder: Path, say: Any) -> Iterator[str]:
    """A fresh copy of the filled database: a SQLite file, or a PostgreSQL schema."""
    began = time.perf_counter()
    if backend == "sqlite":
        target = folder / "capacity.db"
        for suffix in ("", "-commits"):
            shutil.copyfile(f"{filled}{suffix}", f"{target}{suffix}")
        # the filled games' reminders stay out of the window, however old the cache is
        con = sqlite3.connect(target, isolation_level=None)
        con.execute("UPDATE games SET wake_at = ? + (id % 86400) WHERE status = 'active'",
                    (time.time() + 86_400,))
        con.close()
        say(f"     copied the filled database in {time.perf_counter() - began:.1f} s")
        yield str(target)
        return
    url, schema = databases.new_postgres_database()
    try:
        asyncio.run(_copy_to_postgres(filled, url))
        databases.raw(url, "UPDATE games SET wake_at = ? + (id % 86400) "
                      "WHERE status = 'active'", (time.time() + 86_400,))
        say(f"     copied the filled database to PostgreSQL in "
            f"{time.perf_counter() - began:.0f} s")
        yield url
    finally:
        databases.drop_postgres_database(schema)


# -- the peak -----------------------------------------------------------------------------


class Live:
    """One live game: its channel on a server the double knows, its two players, a
    mirror of its state (to know who acts), and its queue of moves."""

    def __init__(self, dd: DiscordDouble, watcher: Watcher, guild: FakeGuild, n: int) -> None:
        self.dd, self.watcher, self.guild = dd, watcher, guild
        self.channel = dd.add_channel(f"game-{n}", guild=guild)
        self.table = dd.table(guild=guild, channel=self.channel)
        self.users = (dd.add_user(f"a{n}", guild=guild), dd.add_user(f"b{n}", guild=guild))
        self.state: Any = None
        self.queue: asyncio.Queue[float | None] = asyncio.Queue()
        self.game_id = 0

    async def create(self, store: Store, seed: int) -> None:
        self.game_id, self.state = await start_game(store, self.guild.id, self.channel.id,
                                                    self.users, seed)

    async def move(self, timeout: float) -> tuple[float, float]:
        """One ``/play action:end``: (dispatched, board landed), ``time.perf_counter``.
        Raises :class:`Unanswered` when the bot did not acknowledge the interaction within
        Discord's 3 s (the move is lost, as on Discord), TimeoutError when no board came."""
        done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.watcher.boards[self.channel.id] = done
        pid = GAME.to_act(self.state)[0]
        user = next(u.name for u in self.users if u.id == pid)
        began = time.perf_counter()
        reply = await _dispatch(self.dd, self.table, user, "play", {"action": "end"})
        try:
            landed = await asyncio.wait_for(asyncio.shield(done),
                                            self.dd.interaction_deadline + 1)
        except TimeoutError:
            if not reply.callbacks:
                raise Unanswered from None
            landed = await asyncio.wait_for(done, timeout)
        self.state, _ = GAME.apply(self.state, pid, "end")
        return began, landed

    async def resync(self, store: Store, gate: asyncio.Semaphore) -> bool:
        """After a failed move: the game as the database has it (False: unreadable)."""
        for attempt in range(5):
            await asyncio.sleep(1.0 + attempt)
            try:
                async with gate:
                    self.state = store.load_state(await store.get(self.game_id))
                return True
            except StoreError:
                continue
        return False


class Unanswered(Exception):
    """The bot did not acknowledge the interaction within Discord's deadline."""


@dataclass
class Peak:
    backend: str
    processes: int
    live: int
    window: float
    asked: int                      # arrivals scheduled in the window
    done: list[tuple[float, float, float]]   # (scheduled, dispatched, landed), from 0
    unanswered: int                 # not acknowledged within 3 s: lost, as on Discord
    failed: int                     # acknowledged, but no board within the timeout
    spent: float                    # first arrival to the last board landed
    start_seconds: float            # bot processes started and connected
    openings_seconds: float         # then every live game's opening board delivered
    cpu_bots: list[float]
    cpu_workers: list[float]
    cpu_double: float
    cpu_postgres: float
    machine_busy: float
    machine_steal: float
    #: CPU seconds the machine spent in all, and in other processes than the ones above
    machine_cpu: float = 0.0
    others_cpu: float = 0.0


def _schedule(rate: float, window: float, games: int, seed: int) -> list[tuple[float, int]]:
    """Poisson arrivals at ``rate`` over ``window`` seconds, each given a game (lognormal
    weights: some tables play faster than others)."""
    rng = random.Random(seed)
    weights = [rng.lognormvariate(0, 0.5) for _ in range(games)]
    cumulative = [sum(weights[:k + 1]) for k in range(games)]
    out = []
    t = rng.expovariate(rate)
    while t < window:
        out.append((t, rng.choices(range(games), cum_weights=cumulative)[0]))
        t += rng.expovariate(rate)
    return out


async def _peak(backend: str, processes: int, target: str, live: int, window: float,
                folder: Path, say: Any) -> Peak:
    rate = AVERAGE_RATE * PEAK
    async with DiscordDouble(in_process_bot=False, default_timeout=120) as dd:
        dd.rate_limit = 1_000_000       # Discord's pacing is not what is measured
        dd.quiet_period = 0.0
        watcher = Watcher()
        dd.after_request = watcher.after
        per_guild = 4
        guilds = [dd.add_guild(f"server {k}", channels=(), shard=(k % 2, 2))
                  for k in range(math.ceil(live / per_guild))]
        games = [Live(dd, watcher, guilds[n // per_guild], n) for n in range(live)]
        store = await Store.open(target)
        for n, game in enumerate(games):
            await game.create(store, seed=n + 1)
        await store.close()
        ids = ["0-1"] if processes == 1 else ["0", "1"]
        bots = [BotProcess(dd, folder, target, shard_ids, 2, name=f"{backend}-{k}",
                           lease_seconds=30, log_level="WARNING",
                           extra_env={"RENDER_WORKERS": os.environ.get(
                               "BENCH_RENDER_WORKERS", ""), "WARHOST_FORCE_SYNC": "1"})
                for k, shard_ids in enumerate(ids)]
        try:
            began = time.perf_counter()
            await asyncio.gather(*(bot.start(timeout=300) for bot in bots))
            started = time.perf_counter() - began
            await dd.wait_for_commands(["play"], timeout=60)
            began = time.perf_counter()
            await dd.wait_until(
                lambda: sum(1 for g in games for msg in dd.channel_messages(g.channel)
                            if msg.attachments) >= len(games),
                timeout=600, what="the opening boards")
            openings = time.perf_counter() - began
            say(f"     {backend}, {processes} process(es): started in {started:.1f} s, "
                f"{live} opening boards in {openings:.1f} s")
            await asyncio.sleep(2)          # the openings' tail (scheduler, status edits)

            arrivals = _schedule(rate, window, live, seed=processes)
            done: list[tuple[float, float, float]] = []
            failed = unanswered = 0
            reader = await Store.open(target)
            gate = asyncio.Semaphore(2)

            async def player(game: Live) -> None:
                nonlocal failed, unanswered
                while (due := await game.queue.get()) is not None:
                    if (due - time.perf_counter()) < -600:
                        failed += 1     # ten minutes behind: the peak is long over
                        continue
                    if GAME.outcome(game.state) is not None:
                        continue
                    try:
                        sent, landed = await game.move(timeout=120)
                    except (Unanswered, TimeoutError) as exc:
                        if isinstance(exc, Unanswered):
                            unanswered += 1
                        else:
                            failed += 1
                        if not await game.resync(reader, gate):
                            return      # the rest of its moves are not sent
                        continue
                    done.append((due, sent, landed))

            workers = [asyncio.create_task(player(g)) for g in games]
            pids = [bot.pid for bot in bots]
            pg = _postgres_serving(target, pids) if backend == "postgresql" else []
            before_bots = [_ticks(p)[0] for p in pids]
            before_workers = [_workers_cpu(p) for p in pids]
            before_double = time.process_time()
            before_pg = {p: proc_cpu_seconds(p) for p in pg}
            machine = machine_jiffies()
            zero = time.perf_counter()
            for at, n in arrivals:
                delay = zero + at - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                games[n].queue.put_nowait(zero + at)
            for g in games:
                g.queue.put_nowait(None)
            await asyncio.gather(*workers)
            failed += sum(g.queue.qsize() for g in games)   # behind a game that gave up
            spent = time.perf_counter() - zero
            pg_after = {p: proc_cpu_seconds(p)
                        for p in set(pg) | set(_postgres_serving(target, pids))} if pg else {}
            busy, total, steal = (b - a for a, b in zip(machine, machine_jiffies(), strict=True))
            cpu_bots = [_ticks(p)[0] - b for p, b in zip(pids, before_bots, strict=True)]
            cpu_workers = [sum(v - b.get(c, 0.0) for c, v in _workers_cpu(p).items())
                           for p, b in zip(pids, before_workers, strict=True)]
            cpu_double = time.process_time() - before_double
            cpu_pg = sum(v - before_pg.get(p, 0.0) for p, v in pg_after.items())
            await reader.close()
            for bot in bots:
                assert bot.alive, bot.output()
            ours = sum(cpu_bots) + sum(cpu_workers) + cpu_double + cpu_pg
            rel = [(d - zero, s - zero, t - zero) for d, s, t in done]
            hz = os.sysconf("SC_CLK_TCK")
            return Peak(backend, processes, live, window, len(arrivals), rel, unanswered,
                        failed, spent, started, openings, cpu_bots, cpu_workers, cpu_double,
                        cpu_pg, busy / total if total else 0.0,
                        steal / total if total else 0.0, busy / hz, max(0.0, busy / hz - ours))
        finally:
            for bot in bots:
                await bot.stop()
            logs = _cache_dir() / "logs"
            logs.mkdir(parents=True, exist_ok=True)
            for log in folder.glob("*.log"):
                shutil.copyfile(log, logs / log.name)


def _figures(p: Peak) -> Figures:
    label = f"{p.backend}, {p.processes} bot process{'es' if p.processes > 1 else ''}"
    moves = len(p.done)
    out: Figures = []
    latency = [(t - s) * 1000 for _, s, t in p.done]
    waited = [(t - d) * 1000 for d, _, t in p.done]
    asked = p.asked / p.window
    last = max((t for _, _, t in p.done), default=0.0)
    achieved = moves / last if last else 0.0
    in_window = sum(1 for _, _, t in p.done if t <= p.window) / p.window
    out.append((f"{label}: bot start on the full database", p.start_seconds, "s", "", None,
                f"then {p.live} opening boards in {p.openings_seconds:.1f} s"))
    out.append((f"{label}: rate asked", asked, "moves/s", "", None,
                f"{p.asked} Poisson arrivals in {p.window:g} s over {p.live} live games"))
    out.append((f"{label}: rate achieved", achieved, "moves/s", f">= {asked * 0.95:.1f}",
                achieved >= asked * 0.95,
                f"{moves} moves with boards; {p.unanswered} not acknowledged within 3 s "
                f"(lost), {p.failed} with no board; the last board at {last:.1f} s; "
                f"{in_window:.1f}/s landed within the window"))
    if latency:
        p50, p99 = statistics.median(latency), _pct(latency, 0.99)
        out.append((f"{label}: move with board p50", p50, "ms"))
        out.append((f"{label}: move with board p99", p99, "ms"))
        out.append((f"{label}: scheduled to board p99", _pct(waited, 0.99), "ms", "", None,
                    "including the wait behind the same game's previous move"))
    per = 1000 / moves if moves else 0.0
    busy = ", ".join(f"{c / p.spent:.0%}" for c in p.cpu_bots)
    out.append((f"{label}: bot process CPU per move", sum(p.cpu_bots) * per, "ms", "", None,
                f"each process busy {busy} of one core"
                + (f"; split {' + '.join(f'{c * per:.2f}' for c in p.cpu_bots)}"
                   if len(p.cpu_bots) > 1 else "")))
    out.append((f"{label}: board workers' CPU per move", sum(p.cpu_workers) * per, "ms", "",
                None, f"busy {sum(p.cpu_workers) / p.spent:.0%} of one core"))
    out.append((f"{label}: double's CPU per move", p.cpu_double * per, "ms", "", None,
                f"this process (double and players), busy {p.cpu_double / p.spent:.0%}"))
    if p.backend == "postgresql":
        out.append((f"{label}: PostgreSQL CPU per move", p.cpu_postgres * per, "ms", "", None,
                    f"busy {p.cpu_postgres / p.spent:.0%} of one core"))
    out.append((f"{label}: machine busy", p.machine_busy * 100, "%", "", None,
                f"of {os.cpu_count()} cores; stolen {p.machine_steal:.0%}; other processes "
                f"than these used {p.others_cpu / p.spent:.0%} of one core"))
    return out


def run(quick: bool = False, show: bool = False) -> Figures:
    """The section's figures; ``show``: also print each configuration's as soon as it is
    measured (a later failure does not lose them)."""
    say = print
    window, live = (20.0, 300) if quick else (60.0, 1000)
    problem = databases.postgres_problem()
    if problem is not None:
        say(f"     PostgreSQL figures skipped: {problem}. Set {databases.POSTGRES_ENV} to a "
            "server to measure two bot processes on PostgreSQL.")
    filled = filled_sqlite(say)
    figures: Figures = [("filled database", float(GAMES), "games", "", None,
                         f"{GUILDS} servers, {filled.path.stat().st_size >> 20} MB SQLite; "
                         + (f"filled in {filled.seconds:.0f} s" if filled.seconds
                            else "from the cache"))]
    if show:
        _show(figures)
    configs = [("sqlite", 1)] + ([("postgresql", 2)] if problem is None else [])
    with tempfile.TemporaryDirectory() as tmp, loopback_only():
        for backend, processes in configs:
            folder = Path(tmp) / backend
            folder.mkdir()
            with _database(backend, filled.path, folder, say) as target:
                peak = asyncio.run(_peak(backend, processes, target, live, window, folder,
                                         say))
            figures += _figures(peak)
            if show:
                _show(_figures(peak))
    return figures


def _show(figures: Figures) -> None:
    for f in figures:
        name, value, unit = f[:3]
        target = f[3] if len(f) > 3 else ""
        met = f[4] if len(f) > 4 else None
        note = f[5] if len(f) > 5 else ""
        mark = "" if met is None else ("met" if met else "MISSED")
        print(f"  {name:<58} {value:10.2f} {unit:<8} {target:<10} {mark:<6} {note}")


if __name__ == "__main__":
    run(quick="--quick" in sys.argv[1:], show=True)
