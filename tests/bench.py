"""Warhost benchmarks: ``make bench``. Prints medians, never asserts.

Timings on shared machines are noisy: compare medians and ratios, not single runs.
    engine   one Conqueror ``apply`` and one ``legal_actions`` mid-game
    render   one board PNG: the opening and a crowded late position
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


def _late_state(seed: int = 3) -> Any:
    """A 4-player game played by the computer players until it is crowded."""
    state = GAME.new_game(["p1", "p2", "p3", "p4"], seed)
    for _ in range(180):
        if not GAME.to_act(state):
            break
        p = GAME.to_act(state)[0]
        state, _ = GAME.apply(state, p, choose_action(GAME, state, p))
    return state


def bench_engine() -> dict[str, float]:
    rng = random.Random(1)
    apply_times: list[float] = []
    legal_times: list[float] = []
    for seed in range(20):
        state = GAME.new_game(["a", "b", "c", "d"], seed)
        for _ in range(200):
            if not GAME.to_act(state):
                break
            p = GAME.to_act(state)[0]
            began = time.perf_counter()
            legal = GAME.legal_actions(state, p)
            legal_times.append(time.perf_counter() - began)
            action = rng.choice(legal)
            began = time.perf_counter()
            state, _ = GAME.apply(state, p, action)
            apply_times.append(time.perf_counter() - began)
    return {"engine apply": _median_ms(apply_times),
            "engine legal_actions": _median_ms(legal_times)}


def bench_render() -> dict[str, float]:
    opening = GAME.view(GAME.new_game(["p1", "p2"], 1), None)
    late = GAME.view(_late_state(), None)
    render.render("conqueror", opening)  # warm fonts and caches
    return {"render opening": _median_ms(_time(lambda: render.render("conqueror", opening), 30)),
            "render crowded": _median_ms(_time(lambda: render.render("conqueror", late), 30))}


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
    for bench in (bench_engine, bench_render, bench_store):
        results.update(bench())
    width = max(map(len, results))
    for name, ms in results.items():
        print(f"{name:<{width}}  median {ms:8.3f} ms")
    ratio = results["persisted move"] / results["engine apply"]
    print(f"{'persisted / engine':<{width}}  {ratio:8.1f}x")


if __name__ == "__main__":
    main()
