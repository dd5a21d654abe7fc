"""How long one persisted move takes (file database, WAL).

``python -m tests.test_db_perf [directory]`` prints the medians; the test only checks
they stay far below anything a player would notice.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pytest

import engine
from db import Store
from tests.fakegame import GAME as RACE

MOVES = 200


async def measure(path: str, synchronous: str, moves: int = MOVES) -> list[float]:
    """Seconds taken by each of ``moves`` apply_action calls on a fresh game."""
    engine.GAMES.setdefault("race", RACE)
    store = await Store.open(path, synchronous=synchronous)
    try:
        lobby = await store.create_lobby("race", "g", f"perf-{synchronous}", "a",
                                         {"target": 1000000})
        await store.join(lobby.id, "b")
        game_id = (await store.start(lobby.id, "a", seed=1)).id
        times = []
        for n in range(moves):
            began = time.perf_counter()
            await store.apply_action(game_id, "ab"[n % 2], "roll", request_id=f"m{n}")
            times.append(time.perf_counter() - began)
        assert (await store.get(game_id)).version == moves
        return times
    finally:
        await store.close()


@pytest.mark.parametrize("synchronous", ["FULL", "NORMAL"])
async def test_a_move_is_quick(tmp_path: Path, synchronous: str,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", RACE)
    times = await measure(str(tmp_path / "perf.db"), synchronous)
    assert len(times) == MOVES
    assert statistics.median(times) < 0.25, f"median move took {statistics.median(times):.3f}s"


async def _main(directory: str) -> None:
    for synchronous in ("FULL", "NORMAL"):
        times = await measure(str(Path(directory) / f"perf-{synchronous}.db"), synchronous)
        print(f"synchronous={synchronous}: median {statistics.median(times) * 1000:.2f} ms, "
              f"p90 {statistics.quantiles(times, n=10)[-1] * 1000:.2f} ms over {MOVES} moves")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(_main(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(_main(tmp))
