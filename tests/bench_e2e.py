"""``make bench``'s end-to-end part: the real bot (``bot.create_bot``, its board workers
included) and the real discord.py client against the loopback Discord double.

The bot runs as its own process (``python bot.py``, as ``make run`` starts it, with its
board workers), the double and the scripted players in this one, so each process's CPU
per move is counted apart (``/proc``): the target is on the bot's own.

A *move* here is Conqueror's ``/play action:end``: it passes the turn, so its turn digest
carries a freshly drawn board. Its latency runs from the interaction's dispatch on the
gateway to the moment the double has stored the digest's message with the PNG: everything
a player waits for. The floor is ``/game status`` (a text answer, no board, no database
write) timed the same way, to its answer. The double's rate limits are lifted: they would
measure Discord's pacing, not Warhost (real Discord lets a channel post 5 messages per 5 s).
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import engine
from db import Store
from tests.discord_double import DiscordDouble, RequestRecord, loopback_only
from tests.shards import (
    BotProcess,
    descendants,
    machine_jiffies,
    own_cpu_seconds,
    proc_cpu_seconds,
)

KIND = "conqueror"
GAME = engine.GAMES[KIND]
_CHANNEL_POST = re.compile(r"/api/v\d+/channels/(\d+)/messages$")
_CALLBACK = re.compile(r"/api/v\d+/interactions/(\d+)/[^/]+/callback$")


class Watcher:
    """Wakes whoever waits for a channel's next board message or an interaction's answer."""

    def __init__(self) -> None:
        self.boards: dict[str, asyncio.Future[float]] = {}
        self.answers: dict[str, asyncio.Future[float]] = {}

    async def after(self, record: RequestRecord) -> None:
        now = time.perf_counter()
        if record.method == "POST" and record.uploads and record.status < 300:
            m = _CHANNEL_POST.search(record.path)
            if m and m.group(1) in self.boards and not self.boards[m.group(1)].done():
                self.boards[m.group(1)].set_result(now)
        m = _CALLBACK.search(record.path)
        if m and m.group(1) in self.answers and not self.answers[m.group(1)].done():
            self.answers[m.group(1)].set_result(now)


async def _dispatch(dd: DiscordDouble, table: Any, user: str, command: str,
                    options: dict[str, Any]) -> Any:
    """Send a slash command without waiting for the double to settle (it waits for the
    whole bot to go idle, which 100 games at once never do)."""
    u = table.user(user)
    reply = dd.new_interaction(type=2, user=u, channel=table.channel,
                               data=table._command_data(u, command, options, focused=None),
                               name=command)
    session = dd._interaction_session(table.channel.guild.id)
    assert session is not None
    dd.interactions[reply.id] = reply
    dd._by_token[reply.token] = reply
    reply.dispatched_at = time.monotonic()
    await session.dispatch("INTERACTION_CREATE", reply.payload)
    return reply


async def start_game(store: Store, guild_id: str, channel_id: str, users: Any,
                     seed: int) -> tuple[int, Any]:
    """A Conqueror game of the two ``users`` started in the channel: (its id, its state)."""
    a, b = (u.id for u in users)
    lobby = await store.lobby.open(KIND, guild_id, channel_id, a)
    await store.lobby.join(lobby.id, b)
    record = await store.lobby.start(lobby.id, a, seed=seed)
    return record.id, store.load_state(record)


class Match:
    """One game in its own channel, with a mirror of its state to know who acts."""

    def __init__(self, dd: DiscordDouble, watcher: Watcher, n: int) -> None:
        self.dd, self.watcher = dd, watcher
        self.channel = dd.add_channel(f"game-{n}")
        self.table = dd.table(channel=self.channel)
        self.users = (dd.add_user(f"a{n}"), dd.add_user(f"b{n}"))
        self.state: Any = None
        self.game_id = 0

    async def create(self, store: Store, seed: int) -> None:
        self.game_id, self.state = await start_game(store, self.dd.guild.id, self.channel.id,
                                                    self.users, seed)

    def mover(self) -> str:
        pid = GAME.to_act(self.state)[0]
        return next(u.name for u in self.users if u.id == pid)

    async def move(self) -> float:
        """One ``/play action:end``; seconds until its board is in the channel."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[float] = loop.create_future()
        self.watcher.boards[self.channel.id] = done
        user = self.mover()
        began = time.perf_counter()
        await _dispatch(self.dd, self.table, user, "play", {"action": "end"})
        landed = await asyncio.wait_for(done, 30)
        pid = GAME.to_act(self.state)[0]
        self.state, _ = GAME.apply(self.state, pid, "end")
        return landed - began

    async def look(self) -> float:
        """One ``/game status``; seconds until its answer."""
        loop = asyncio.get_running_loop()
        user = self.users[0].name
        began = time.perf_counter()
        sent = await _dispatch(self.dd, self.table, user, "game status", {})
        done: asyncio.Future[float] = loop.create_future()
        self.watcher.answers[sent.id] = done
        if sent.responded and not done.done():  # answered before we started watching
            done.set_result(time.perf_counter())
        landed = await asyncio.wait_for(done, 30)
        return landed - began


def _ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return (statistics.median(ordered) * 1000,
            ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] * 1000)


class CpuMeter:
    """CPU seconds of each process over a stretch of moves: the bot's own process, its
    workers (board and computer processes, below it), and this one (the double and the
    scripted players)."""

    def __init__(self, bot_pid: int) -> None:
        self.bot_pid = bot_pid
        self.began = self._now()

    def _now(self) -> tuple[float, float, float]:
        workers = sum(proc_cpu_seconds(p) for p in descendants(self.bot_pid))
        return own_cpu_seconds(self.bot_pid), workers, time.process_time()

    def per_move_ms(self, moves: int) -> tuple[float, float, float]:
        """(bot, workers, double) CPU milliseconds per move since the meter began."""
        now = self._now()
        bot, workers, double = ((b - a) * 1000 / max(1, moves)
                                for a, b in zip(self.began, now, strict=True))
        return bot, workers, double


async def _run(quick: bool, profile: str | None) -> list[tuple[Any, ...]]:
    figures: list[tuple[Any, ...]] = []
    count, rounds, solo_moves = (20, 2, 20) if quick else (100, 5, 60)
    with tempfile.TemporaryDirectory() as tmp, loopback_only():
        async with DiscordDouble(in_process_bot=False, default_timeout=60) as dd:
            dd.rate_limit = 1_000_000
            dd.quiet_period = 0.0
            watcher = Watcher()
            dd.after_request = watcher.after
            matches = [Match(dd, watcher, n) for n in range(count + 1)]
            path = str(Path(tmp) / "bench.db")
            store = await Store.open(path)
            for n, match in enumerate(matches):
                await match.create(store, seed=n + 1)
            await store.close()
            bot = BotProcess(dd, Path(tmp), path, "0", 1, name="bench", sharded=False,
                             lease_seconds=30, log_level="WARNING",
                             extra_env={"RENDER_WORKERS": os.environ.get(
                                 "BENCH_RENDER_WORKERS", ""), "BOARD_WARMUP": "on"},
                             python_args=("-m", "tests.profiled", profile) if profile else ())
            try:
                await bot.start(timeout=90)
                await dd.wait_for_commands(["game", "play"], timeout=30)
                # the opening digests a fresh start delivers
                await dd.wait_until(
                    lambda: sum(1 for c in (m.channel for m in matches)
                                for msg in dd.channel_messages(c) if msg.attachments)
                    >= len(matches), timeout=120, what="the opening boards")
                solo = matches[0]
                for _ in range(3):
                    await solo.move()
                floor = [await solo.look() for _ in range(solo_moves)]
                asked = len(dd.requests)
                meter = CpuMeter(bot.pid)
                one = [await solo.move() for _ in range(solo_moves)]
                cpu_one = meter.per_move_ms(len(one))
                if os.environ.get("BENCH_REQUESTS"):
                    for r in dd.requests[asked:asked + 12]:
                        print("   ", r.method, r.path, r.status)
                requests = (len(dd.requests) - asked) / len(one)
                med, p99 = _ms(one)
                figures.append(("one game: move with board median", med, "ms", "<= 15",
                                med <= 15))
                figures.append(("one game: move with board p99", p99, "ms", "<= 30",
                                p99 <= 30))
                med, p99 = _ms(floor)
                figures.append(("one game: /game status (floor) median", med, "ms"))
                figures.append(("one game: /game status (floor) p99", p99, "ms"))
                figures.append(("one game: bot CPU per move", cpu_one[0], "ms"))
                figures.append(("one game: board workers' CPU per move", cpu_one[1], "ms"))
                figures.append(("one game: double's CPU per move", cpu_one[2], "ms"))
                figures.append(("one game: Discord requests per move", requests, "requests"))

                crowd = matches[1:]

                async def play(match: Match) -> list[float]:
                    return [await match.move() for _ in range(rounds)]

                await asyncio.gather(*(play_once(m) for m in crowd))   # warm: every game
                if profile:
                    os.kill(bot.pid, signal.SIGUSR1)
                meter = CpuMeter(bot.pid)
                machine = machine_jiffies()
                began = time.perf_counter()
                results = await asyncio.gather(*(play(m) for m in crowd))
                spent = time.perf_counter() - began
                busy, total, _ = (b - a for a, b in zip(machine, machine_jiffies(),
                                                        strict=True))
                every = [t for r in results for t in r]
                cpu = meter.per_move_ms(len(every))
                if profile:
                    os.kill(bot.pid, signal.SIGUSR2)
                rate = len(every) / spent
                med, p99 = _ms(every)
                label = f"{len(crowd)} games at once"
                figures.append((f"{label}: moves with boards/s", rate, "moves/s", ">= 100",
                                rate >= 100, f"machine busy {busy / max(1, total):.0%} of "
                                f"{os.cpu_count()} cores"))
                figures.append((f"{label}: move median", med, "ms"))
                figures.append((f"{label}: move p99", p99, "ms"))
                figures.append((f"{label}: bot CPU per move (boards excluded)", cpu[0], "ms",
                                "<= 5", cpu[0] <= 5))
                figures.append((f"{label}: board workers' CPU per move", cpu[1], "ms"))
                figures.append((f"{label}: double's CPU per move", cpu[2], "ms", "", None,
                                "the double and the scripted players, in this process"))
                figures.append(("boards drawn", float(sum(
                    1 for m in matches for msg in dd.channel_messages(m.channel)
                    if msg.attachments)), "boards"))
                assert bot.alive, bot.output()
            finally:
                await bot.stop(timeout=60)
    return figures


async def play_once(match: Match) -> float:
    return await match.move()


def run(quick: bool = False, profile: str | None = None) -> list[tuple[Any, ...]]:
    """The figures; ``profile``: also write the bot process's cProfile stats there. The
    double runs on uvloop too (as the bot does): its CPU is the machine's, not the bot's,
    but on two cores it is taken from the bot."""
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(_run(quick, profile))
