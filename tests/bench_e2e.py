"""``make bench``'s end-to-end part: the real bot (``bot.create_bot``, its board workers
included) and the real discord.py client against the loopback Discord double.

A *move* here is Conqueror's ``/play action:end``: it passes the turn, so its turn digest
carries a freshly drawn board. Its latency runs from the interaction's dispatch on the
gateway to the moment the double has stored the digest's message with the PNG: everything
a player waits for. The floor is ``/game status`` (a text answer, no board, no database
write) timed the same way, to its answer. The double's rate limits are lifted: they would
measure Discord's pacing, not Warhost (real Discord lets a channel post 5 messages per 5 s).
"""

from __future__ import annotations

import asyncio
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import bot as warhost
import engine
from db import Store
from tests.discord_double import (
    DiscordDouble,
    RequestRecord,
    launch_bot,
    loopback_only,
    pointed_at,
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
        a, b = (u.id for u in self.users)
        lobby = await store.lobby.open(KIND, self.dd.guild.id, self.channel.id, a)
        await store.lobby.join(lobby.id, b)
        record = await store.lobby.start(lobby.id, a, seed=seed)
        self.game_id = record.id
        self.state = store.load_state(record)

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


async def _run(quick: bool) -> list[tuple[Any, ...]]:
    figures: list[tuple[Any, ...]] = []
    count, rounds, solo_moves = (20, 2, 20) if quick else (100, 5, 60)
    with tempfile.TemporaryDirectory() as tmp, loopback_only():
        async with DiscordDouble() as dd:
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
            config = warhost.Config.from_env({
                "DISCORD_TOKEN": dd.token, "DISCORD_API_BASE": dd.api_base,
                "DATABASE_PATH": path, "DEV_GUILD_ID": dd.guild.id, "LOG_LEVEL": "WARNING",
                "RATE_LIMITS": "off",       # the benchmark's players are machines
            }, None)
            with pointed_at(dd):
                bot = warhost.create_bot(config)
                running = await launch_bot(dd, bot, commands=["game", "play"], ready=True)
                try:
                    # the opening digests a fresh start delivers, then the workers warm up
                    await dd.wait_until(
                        lambda: sum(1 for c in (m.channel for m in matches)
                                    for msg in dd.channel_messages(c) if msg.attachments)
                        >= len(matches), timeout=120, what="the opening boards")
                    solo = matches[0]
                    for _ in range(3):
                        await solo.move()
                    floor = [await solo.look() for _ in range(solo_moves)]
                    one = [await solo.move() for _ in range(solo_moves)]
                    med, p99 = _ms(one)
                    figures.append(("one game: move with board median", med, "ms", "<= 15",
                                    med <= 15))
                    figures.append(("one game: move with board p99", p99, "ms", "<= 30",
                                    p99 <= 30))
                    med, p99 = _ms(floor)
                    figures.append(("one game: /game status (floor) median", med, "ms"))
                    figures.append(("one game: /game status (floor) p99", p99, "ms"))

                    crowd = matches[1:]

                    async def play(match: Match) -> list[float]:
                        return [await match.move() for _ in range(rounds)]

                    began = time.perf_counter()
                    results = await asyncio.gather(*(play(m) for m in crowd))
                    spent = time.perf_counter() - began
                    every = [t for r in results for t in r]
                    rate = len(every) / spent
                    med, p99 = _ms(every)
                    figures.append((f"{len(crowd)} games at once: moves with boards/s", rate,
                                    "moves/s", ">= 200", rate >= 200))
                    figures.append((f"{len(crowd)} games at once: move median", med, "ms"))
                    figures.append((f"{len(crowd)} games at once: move p99", p99, "ms"))
                    figures.append(("boards drawn (each once)", float(bot.boards.drawn),
                                    "boards"))
                finally:
                    await running.stop()
    return figures


def run(quick: bool = False) -> list[tuple[Any, ...]]:
    return asyncio.run(_run(quick))
