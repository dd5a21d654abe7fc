"""Crash safety: a process applying moves is SIGKILLed at random moments, repeatedly.

After each kill the database is reopened and must hold every move the worker saw
accepted, no move twice, a snapshot that replays from the log (verify), and a game
that carries on. The move the worker had in flight is resubmitted with its request id:
it is applied if and only if it had not been committed.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import engine
from db import Store
from db.backend import is_postgres
from tests.databases import raw
from tests.fakegame import GAME as RACE

REPO = Path(__file__).resolve().parents[1]

WORKER = """
import asyncio, sys
import engine
from tests.fakegame import GAME
engine.GAMES["race"] = GAME
from db import Store

async def main(path, game_id, tag, synchronous):
    store = await Store.open(path, synchronous=synchronous)
    print("ready", flush=True)
    n = 0
    while True:
        record = await store.get(game_id)
        player = GAME.current_turn(store.load_state(record))
        action = "step 2" if n % 3 == 0 else "roll"
        request = f"{tag}-{n}"
        print("send", request, player, action, sep="\t", flush=True)
        result = await store.apply_action(game_id, player, action, request_id=request)
        print("done", request, result.seq, sep="\t", flush=True)
        n += 1

asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]))
"""


@pytest.fixture(autouse=True)
def race(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", RACE)


def wait_for_ready(out: Path, proc: subprocess.Popen[bytes], limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if out.exists() and "ready" in out.read_text():
            return
        if proc.poll() is not None:
            raise AssertionError(f"worker died: {out.read_text() if out.exists() else ''}")
        time.sleep(0.005)
    raise AssertionError("worker never became ready")


def run_and_kill(path: str, game_id: int, tag: str, out: Path, delay: float,
                 synchronous: str) -> list[list[str]]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with out.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, path, str(game_id), tag, synchronous],
            cwd=REPO, env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            wait_for_ready(out, proc)
            time.sleep(delay)
            assert proc.poll() is None, out.read_text()      # still moving when killed
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    # A line the kill cut short (no newline yet) may hold any prefix of its text,
    # even an empty last field: only whole lines count.
    text = out.read_text()
    whole = text[:text.rfind("\n") + 1]
    return [line.split("\t") for line in whole.splitlines()]


@pytest.mark.parametrize("synchronous", [
    "FULL", pytest.param("NORMAL", marks=pytest.mark.sqlite_only)])
async def test_sigkill_mid_play_loses_nothing_and_applies_nothing_twice(
        database: str, tmp_path: Path, synchronous: str) -> None:
    path = database
    store = await Store.open(path)
    lobby = await store.lobby.open("race", "g", "c", "a", {"target": 1000000})
    await store.lobby.join(lobby.id, "b")
    game_id = (await store.lobby.start(lobby.id, "a", seed=2024)).id
    await store.close()

    rng = random.Random(f"crash-{synchronous}")
    total_done = 0
    for round_no in range(6):
        tag = f"k{round_no}"
        lines = run_and_kill(path, game_id, tag, tmp_path / f"{tag}.out",
                             rng.uniform(0.02, 0.4), synchronous)
        # (run_and_kill drops a line the kill cut short: that move counts as in flight.)
        done = {w[1]: int(w[2]) for w in lines if w[0] == "done"}
        sent = [w[1:] for w in lines if w[0] == "send"]
        total_done += len(done)

        if not is_postgres(path):
            assert raw(path, "PRAGMA integrity_check") == [("ok",)]
        logged = dict(raw(path, "SELECT request_id, seq FROM actions WHERE request_id LIKE ?",
                          (tag + "-%",)))
        # Every move the worker saw accepted is there, under the seq it was told.
        for request, seq in done.items():
            assert logged[request] == seq

        store = await Store.open(path)
        try:
            record = await store.get(game_id)
            log = await store.history.log(game_id, limit=10**9)
            assert record.version == len(log)
            assert [e.seq for e in log] == list(range(1, record.version + 1))
            assert await store.history.verify(game_id)

            # Resubmit what was in flight: applied iff it had not been committed.
            if sent and sent[-1][0] not in done:
                request, player, action = sent[-1]
                committed = request in logged
                again = await store.apply_action(game_id, player, action, request_id=request)
                assert again.duplicate == committed
                assert again.seq == (logged[request] if committed else record.version + 1)
            # And play continues.
            record = await store.get(game_id)
            turn = RACE.current_turn(store.load_state(record))
            assert turn is not None
            moved = await store.apply_action(game_id, turn, "step 1")
            assert moved.seq == record.version + 1
            assert await store.history.verify(game_id)
        finally:
            await store.close()
    assert total_done >= 6          # the kills landed mid-play, not before it began
