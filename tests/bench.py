"""Warhost benchmarks: ``make bench``. Prints medians, never asserts.

Timings on shared machines are noisy: compare medians and ratios, not single runs.
    engine   one ``apply`` and one ``legal_actions`` in random play, for every game kind
    render   one board PNG per game kind: the opening and a crowded position
    store    one persisted move through ``Store.apply_action`` (file database, WAL;
             synchronous=FULL as the bot runs, and NORMAL for comparison)
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import engine
import render
from db import Store
from engine.conqueror import GAME
from engine.conqueror.ai import choose_action


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _time(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        out.append(time.perf_counter() - began)
    return out


def _played(game: Any, players: int, seed: int, plies: int,
            timings: dict[str, list[float]] | None = None) -> Any:
    """A game after ``plies`` random legal actions (timing each call if asked)."""
    rng = random.Random(seed)
    state = game.new_game([f"p{i}" for i in range(1, players + 1)], seed)
    for _ in range(plies):
        if not game.to_act(state):
            break
        p = game.to_act(state)[0]
        began = time.perf_counter()
        legal = game.legal_actions(state, p)
        mid = time.perf_counter()
        state, _ = game.apply(state, p, rng.choice(legal))
        if timings is not None:
            timings["legal_actions"].append(mid - began)
            timings["apply"].append(time.perf_counter() - mid)
    return state


def bench_engines() -> dict[str, float]:
    """Every game kind, at its largest player count, over random play."""
    results = {}
    for kind, game in engine.GAMES.items():
        timings: dict[str, list[float]] = {"apply": [], "legal_actions": []}
        for seed in range(20):
            _played(game, game.max_players, seed, 200, timings)
        results[f"{kind} apply"] = _median_ms(timings["apply"])
        results[f"{kind} legal_actions"] = _median_ms(timings["legal_actions"])
    return results


def bench_render() -> dict[str, float]:
    """Every game's board: the opening and a crowded position after random play."""
    results = {}
    for kind, game in engine.GAMES.items():
        opening = game.view(_played(game, 2, 1, 0), None)
        late = game.view(_played(game, game.max_players, 3, 150), None)
        render.render(kind, opening)  # warm fonts and caches
        results[f"render {kind} opening"] = _median_ms(
            _time(lambda v=opening, k=kind: render.render(k, v), 30))
        results[f"render {kind} crowded"] = _median_ms(
            _time(lambda v=late, k=kind: render.render(k, v), 30))
    return results


async def _store_moves(path: str, synchronous: str, moves: int = 200) -> list[float]:
    store = await Store.open(path, synchronous=synchronous)
    try:
        lobby = await store.create_lobby("conqueror", "guild", "channel", "a")
        await store.join(lobby.id, "b")
        record = await store.start(lobby.id, "a", seed=5)
        state = store.load_state(record)
        times = []
        for n in range(moves):
            if not GAME.to_act(state):
                break
            p = GAME.to_act(state)[0]
            action = choose_action(GAME, state, p)
            began = time.perf_counter()
            result = await store.apply_action(record.id, p, action, request_id=f"r{n}")
            times.append(time.perf_counter() - began)
            state = result.state
        return times
    finally:
        await store.close()


def bench_store() -> dict[str, float]:
    results = {}
    for synchronous, label in (("FULL", "persisted move"),
                               ("NORMAL", "persisted move (sync=NORMAL)")):
        with tempfile.TemporaryDirectory() as tmp:
            times = asyncio.run(_store_moves(str(Path(tmp) / "bench.db"), synchronous))
        results[label] = _median_ms(times)
    return results


def main() -> None:
    results: dict[str, float] = {}
    for bench in (bench_engines, bench_render, bench_store):
        results.update(bench())
    width = max(map(len, results))
    for name, ms in results.items():
        print(f"{name:<{width}}  median {ms:8.3f} ms")
    ratio = results["persisted move"] / results["conqueror apply"]
    print(f"{'persisted / conqueror apply':<{width}}  {ratio:8.1f}x")


if __name__ == "__main__":
    main()
