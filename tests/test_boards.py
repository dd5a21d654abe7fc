"""Boards are drawn in worker processes, once per key, and survive a dying worker."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest

import engine
import render
from cogs.boards import Boards, board_key
from tests.boards import played, same_picture

KIND = "conqueror"


def _view() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    state, events = played(KIND, 2, 4, 30, 4)
    return engine.GAMES[KIND].view(state, None), events


async def test_a_worker_process_draws_the_same_board_as_this_process() -> None:
    view, events = _view()
    boards = Boards(workers=2)
    try:
        png = await boards.png(KIND, view, events, {"p1": "Ada"})
    finally:
        await boards.close()
    assert same_picture(png, render.render(KIND, view, events, {"p1": "Ada"}))


async def test_a_board_is_drawn_once_per_key_even_when_asked_for_at_once() -> None:
    view, events = _view()
    boards = Boards(workers=0)
    key = board_key(7, 1, 30, {"p1": "Ada"})
    pngs = await asyncio.gather(*(boards.png(KIND, view, events, {"p1": "Ada"}, key=key)
                                  for _ in range(5)))
    again = await boards.png(KIND, view, events, {"p1": "Ada"}, key=key)
    assert boards.drawn == 1 and len(set(pngs)) == 1 and again == pngs[0]
    # another version, other marked actions or other names: another board
    for other in (board_key(7, 1, 31, {"p1": "Ada"}), board_key(7, 2, 30, {"p1": "Ada"}),
                  board_key(7, 1, 30, {"p1": "Bea"}), board_key(8, 1, 30, {"p1": "Ada"})):
        await boards.png(KIND, view, events, {"p1": "Ada"}, key=other)
    assert boards.drawn == 5


async def test_the_cache_keeps_only_the_newest_boards() -> None:
    view, _ = _view()
    boards = Boards(workers=0, cache_size=2)
    for version in (1, 2, 3):
        await boards.png(KIND, view, key=board_key(1, 1, version, None))
    await boards.png(KIND, view, key=board_key(1, 1, 3, None))  # kept
    assert boards.drawn == 3
    await boards.png(KIND, view, key=board_key(1, 1, 1, None))  # forgotten: drawn again
    assert boards.drawn == 4


async def test_a_failed_drawing_is_not_kept_and_is_told_to_every_waiter(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def broken(*args: Any) -> bytes:
        calls.append(args)
        raise OSError("font missing")

    monkeypatch.setattr(render, "render", broken)
    boards = Boards(workers=0)
    key = board_key(1, 1, 1, None)
    results = await asyncio.gather(*(boards.png(KIND, {}, key=key) for _ in range(3)),
                                   return_exceptions=True)
    assert all(isinstance(r, OSError) for r in results) and len(calls) == 1
    with pytest.raises(OSError):
        await boards.png(KIND, {}, key=key)  # not remembered: tried again
    assert len(calls) == 2


async def test_a_killed_worker_costs_one_board_at_most_a_retry() -> None:
    view, events = _view()
    boards = Boards(workers=1)
    try:
        first = await boards.png(KIND, view, events)
        pool: Any = boards._pool
        for pid in list(pool._processes):
            os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.2)
        again = await boards.png(KIND, view, events)  # a new pool, or a thread
        assert again == first
        later = await boards.png(KIND, view, events)
        assert later == first and boards._pool is not None
    finally:
        await boards.close()


def test_workers_leave_when_the_bot_is_killed_outright() -> None:
    """A SIGKILLed bot runs no shutdown: its workers must notice and go, not linger."""
    import subprocess
    import sys
    import time

    script = (
        "import asyncio, sys\n"
        "from cogs.boards import Boards\n"
        "async def main():\n"
        "    boards = Boards(workers=1)\n"
        "    await boards.png('conqueror', {})\n"
        "    print(*boards._pool._processes, flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n")
    bot = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                           cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        assert bot.stdout is not None
        workers = [int(pid) for pid in bot.stdout.readline().split()]
        assert workers and all(_alive(pid) for pid in workers)
    finally:
        bot.kill()
        bot.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in workers)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
