"""The web companion's figures for ``make bench`` (``--only web``).

A SQLite database with 1,000 games stored (a long Conqueror game among them, the one whose
page is asked for), the pages served by :class:`web.app.WebApp` in this process and asked
for over HTTP by a client in this process. Server time is the handler's own time (from the
request's arrival at the route to its response), so the client's cost is not counted:

* a game's page (HTML), made afresh (its data rebuilt, as after a move) and served again at
  the same version (its data kept): target ≤ 20 ms median;
* its ``state.json``;
* a replay frame already drawn (target ≤ 2 ms) and one drawn for the first time;
* live: from a move committed by the store to the open page's event stream receiving it,
  as a separate web process sees it (the watcher's look every 0.25 s; target ≤ 1 s) and
  as the bot serving its own pages does (the watcher woken when a digest is delivered).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web as aioweb

import engine
from db import Store
from engine.search import heuristic_action
from web.app import WebApp, WebSettings

Figure = tuple[str, float, str, str, bool | None, str]
GAMES = 1000
HOST = "111111111111111111"
GUEST = "222222222222222222"


def _ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def _fill(store: Store, games: int, long_moves: int) -> Any:
    """``games`` games stored (a few moves each), and one long game: its record."""
    conqueror = engine.get_game("conqueror")
    rng = random.Random(7)
    for n in range(games - 1):
        record = await store.lobby.open("conqueror", "1", str(10_000 + n), HOST)
        await store.lobby.join(record.id, GUEST)
        await store.lobby.start(record.id, HOST)
        for _ in range(rng.randrange(0, 3)):
            state = store.load_state(await store.get(record.id))
            player = conqueror.to_act(state)[0]
            await store.apply_action(record.id, player,
                                     rng.choice(conqueror.legal_actions(state, player)))
    record = await store.lobby.open("conqueror", "1", "999", HOST)
    await store.lobby.join(record.id, GUEST)
    await store.lobby.start(record.id, HOST)
    await store.web.save_names("1", {HOST: "Alice", GUEST: "Bob"})
    for _ in range(long_moves):
        state = store.load_state(await store.get(record.id))
        if conqueror.outcome(state) is not None:
            break
        player = conqueror.to_act(state)[0]
        await store.apply_action(record.id, player, heuristic_action(conqueror, state, player))
    return await store.get(record.id)


def _timing(app: WebApp, route: str, samples: list[float]) -> None:
    """Time ``app``'s handler ``route`` into ``samples`` (server time, client excluded)."""
    handler: Callable[[aioweb.Request], Awaitable[aioweb.StreamResponse]] = getattr(app, route)

    async def timed(request: aioweb.Request) -> aioweb.StreamResponse:
        began = time.perf_counter()
        try:
            return await handler(request)
        finally:
            samples.append(time.perf_counter() - began)

    for resource in app.app.router.resources():
        for item in resource:
            if getattr(item.handler, "__name__", "") == route:
                item._handler = timed  # type: ignore[attr-defined]


async def _run(quick: bool) -> list[Figure]:
    figures: list[Figure] = []
    games = 200 if quick else GAMES
    rounds = 20 if quick else 100
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(str(Path(tmp) / "web.db"), synchronous="NORMAL")
        try:
            record = await _fill(store, games, 120 if quick else 300)
            app = WebApp(store, WebSettings(port=0, rate_per_minute=10**9))
            pages: list[float] = []
            states: list[float] = []
            frames: list[float] = []
            _timing(app, "game_page", pages)
            _timing(app, "state_json", states)
            _timing(app, "frame", frames)
            await app.start()
            base = f"http://127.0.0.1:{app.port}/g/{record.public_id}"
            async with aiohttp.ClientSession() as http:
                async def get(url: str) -> bytes:
                    async with http.get(url) as response:
                        assert response.status == 200, (url, response.status)
                        return await response.read()

                await get(base)                         # warm: imports, first replay
                cold: list[float] = []
                for _ in range(rounds):
                    app._pages.clear()                  # as after a move: data made afresh
                    pages.clear()
                    await get(base)
                    cold.extend(pages)
                pages.clear()
                for _ in range(rounds):
                    await get(base)
                warm = list(pages)
                for _ in range(rounds):
                    await get(base + "/state.json")
                figures.append((f"game page, made afresh ({record.version} moves, "
                                f"{games} games)", _ms(cold), "ms", "<= 20 ms",
                                _ms(cold) <= 20, "server time, median"))
                figures.append(("game page, same version", _ms(warm), "ms", "<= 20 ms",
                                _ms(warm) <= 20, "server time, median"))
                figures.append(("state.json, same version", _ms(states), "ms", "", None,
                                "server time, median"))

                versions = list(range(0, record.version + 1,
                                      max(1, record.version // (10 if quick else 30))))
                for v in versions:                       # first draws
                    await get(f"{base}/frame/{v}.png")
                first = list(frames)
                frames.clear()
                for _ in range(3):
                    for v in versions:
                        await get(f"{base}/frame/{v}.png")
                figures.append(("replay frame, cached", _ms(frames), "ms", "<= 2 ms",
                                _ms(frames) <= 2, f"server time, median of {len(frames)}"))
                figures.append(("replay frame, first draw", _ms(first), "ms", "", None,
                                "includes the one replay of the game per version"))

                # live: a move in a game under way, then the open stream's event
                conqueror = engine.get_game("conqueror")
                live = await store.lobby.open("conqueror", "1", "998", HOST)
                await store.lobby.join(live.id, GUEST)
                live = await store.lobby.start(live.id, HOST)
                base = f"http://127.0.0.1:{app.port}/g/{live.public_id}"
                for label, poke in (("separate web process", False), ("in the bot", True)):
                    latencies: list[float] = []
                    async with http.get(base + "/events") as stream:
                        buffer = ""
                        while "event: hello" not in buffer:
                            buffer += (await stream.content.readany()).decode()
                        for _ in range(5 if quick else 20):
                            current = await store.get(live.id)
                            state = store.load_state(current)
                            if conqueror.outcome(state) is not None:
                                break
                            player = conqueror.to_act(state)[0]
                            await store.apply_action(
                                live.id, player, heuristic_action(conqueror, state, player))
                            began = time.perf_counter()
                            if poke:
                                app.watcher.poke()
                            buffer = ""
                            while "event: move" not in buffer:
                                buffer += (await asyncio.wait_for(stream.content.readany(),
                                                                  5)).decode()
                            latencies.append(time.perf_counter() - began)
                    if latencies:
                        figures.append((f"live update, {label}", _ms(latencies), "ms",
                                        "<= 1000 ms", max(latencies) <= 1.0,
                                        f"move committed -> event at the page; max "
                                        f"{max(latencies) * 1000:.0f} ms"))
            await app.stop()
        finally:
            await store.close()
    return figures


def run(quick: bool) -> list[Figure]:
    return asyncio.run(_run(quick))
