"""The computer players' runner (cogs/computers.py) without Discord: searches in a
worker process within a hard limit, the fallback when one overstays, and the seed."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from cogs import computers as cc
from db import Store
from tests.clocks import FakeClock
from tests.slow_search import never_done


@pytest.fixture
async def store(tmp_path: Any) -> AsyncIterator[Store]:
    s = await Store.open(str(tmp_path / "w.db"), clock=FakeClock(1_800_000_000.0))
    yield s
    await s.close()


async def started(store: Store) -> Any:
    record = await store.lobby.open("conqueror", "g1", "c1", "1", computers=1)
    return await store.lobby.start(record.id, "1", seed=4)


async def test_a_search_in_a_worker_process_gives_a_legal_move(store: Store) -> None:
    players = cc.ComputerPlayers(None, store, workers=1)  # type: ignore[arg-type]
    try:
        record = await started(store)
        choice = await players.search(record, "1", "easy")
        again = await players.search(record, "1", "easy")
    finally:
        await players.close()
    state = store.load_state(record)
    from engine.conqueror import GAME

    assert choice.action in GAME.legal_actions(state, "1")
    assert choice.iterations == 16 and (again.action, again.ranking) == (
        choice.action, choice.ranking)                       # same game, version, seat
    assert players.fallbacks == 0


async def test_a_search_that_overstays_is_killed_and_the_heuristic_plays(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cc, "GRACE", 0.5)
    players = cc.ComputerPlayers(None, store, workers=1)  # type: ignore[arg-type]
    try:
        record = await started(store)
        players.thinker = never_done
        began = time.monotonic()
        choice = await players.search(record, "1", "easy", seconds=0.5)
        waited = time.monotonic() - began
        assert players.fallbacks == 1 and "ran out of time" in choice.reason
        from engine.conqueror import GAME
        from engine.conqueror.ai import choose_action

        state = store.load_state(record)
        assert choice.action == choose_action(GAME, state, "1")
        assert waited < 30                                   # not the 120 s it wanted
        players.thinker = cc.think                           # a fresh worker serves again
        assert (await players.search(record, "1", "easy")).iterations == 16
    finally:
        await players.close()


def test_the_search_seed_depends_on_the_game_version_and_seat() -> None:
    from db.records import GameRecord

    base = GameRecord(1, "conqueror", None, "c", "h", "active", ("a", "b"), 7, {}, "{}", 3,
                      None, 0.0, 0.0)
    from dataclasses import replace

    seeds = {cc.search_seed(base, "a"), cc.search_seed(base, "b"),
             cc.search_seed(replace(base, version=4), "a"),
             cc.search_seed(replace(base, seed=8), "a")}
    assert len(seeds) == 4 and cc.search_seed(base, "a") == cc.search_seed(base, "a")


async def test_a_move_the_engine_refuses_falls_back_to_the_safe_default(store: Store) -> None:
    from engine.search import Choice

    players = cc.ComputerPlayers(None, store, workers=0)  # type: ignore[arg-type]
    players.thinker = lambda *args: Choice("move z9 z9 99")
    record = await started(store)
    await store.apply_action(record.id, "1", "end")
    assert await players.play_one(record.id) is True
    [_, second] = await store.history.log(record.id)
    assert (second.player, second.action, second.origin) == ("cpu-1", "end", "computer")
