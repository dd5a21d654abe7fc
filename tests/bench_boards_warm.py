"""The first board a fresh board worker draws, against the boards it draws after (issue 30).

Each game gets a fresh worker of the real pool (``cogs.boards``: forkserver, its
initializer warming up); the worker draws a new game's board (the first it sees of that
game) and then boards of other new games, and reports the CPU each took. Figures, in the
shape ``tests/bench_e2e.py`` returns: ``(name, value, unit, target, met)``, the last two
only where there is a target:

- ``<kind> first board (fresh worker)``: ms of CPU;
- ``<kind> warm board``: the median of the boards after it, ms of CPU;
- ``<kind> first / warm``: their ratio, at most 2;
- without ``quick``, the same first board in a worker that did not warm up
  (``<kind> first board, no warm-up``), to show what the warm-up saves.

Run: ``python -m tests.bench_boards_warm [--quick]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import engine
import render
from cogs.boards import _worker_start
from tests.boards import random_view

#: The games drawn after the first (other new games, each a different seed).
WARM_BOARDS = 6
MOVES = 30


def boards_cpu(kind: str, seeds: list[int]) -> list[float]:
    """In a worker: a board of a new game per seed, in order; the CPU ms of each (the
    positions are built first and not counted)."""
    views = [random_view(kind, engine.GAMES[kind].max_players, seed, MOVES) for seed in seeds]
    names = {f"x{i}": f"Player {i}" for i in range(8)}
    out = []
    for view in views:
        began = time.process_time()
        render.render(kind, view, None, names)
        out.append((time.process_time() - began) * 1000)
    return out


def _in_fresh_worker(kind: str, warm: bool) -> list[float]:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["render", "PIL.Image"])
    with ProcessPoolExecutor(1, mp_context=context, initializer=_worker_start,
                             initargs=(os.getpid(), warm)) as pool:
        return pool.submit(boards_cpu, kind, list(range(1000, 1001 + WARM_BOARDS))).result()


def run(quick: bool = False) -> list[tuple[Any, ...]]:
    figures: list[tuple[Any, ...]] = []
    for kind in engine.GAMES:
        times = _in_fresh_worker(kind, warm=True)
        first, warm = times[0], statistics.median(times[1:])
        figures.append((f"{kind} first board (fresh worker)", first, "ms"))
        figures.append((f"{kind} warm board", warm, "ms"))
        figures.append((f"{kind} first / warm", first / warm, "x", "<= 2", first <= 2 * warm))
        if not quick:
            cold = _in_fresh_worker(kind, warm=False)
            figures.append((f"{kind} first board, no warm-up", cold[0], "ms"))
            figures.append((f"{kind} first / warm, no warm-up",
                            cold[0] / statistics.median(cold[1:]), "x"))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    for name, value, unit, *rest in run(parser.parse_args().quick):
        target, met = [*rest, "", None][:2]
        mark = {True: "ok  ", False: "MISS", None: "    "}[met]
        print(f"{mark} {name:<46} {value:>10.2f} {unit:<8} {target}")


if __name__ == "__main__":
    main()
