"""The store with the real game: Conqueror played through apply_action."""

from __future__ import annotations

import asyncio
import random

import pytest

import engine
from db import MoveResult, Store
from engine.core import IllegalAction
from tests.databases import snapshot

pytestmark = pytest.mark.skipif("conqueror" not in engine.GAMES,
                                reason="engine/conqueror is not there yet")


async def start_conqueror(store: Store, players: list[str], seed: int,
                          channel: str = "c1") -> int:
    lobby = await store.lobby.open("conqueror", "g1", channel, players[0])
    for p in players[1:]:
        await store.lobby.join(lobby.id, p)
    record = await store.lobby.start(lobby.id, players[0], seed=seed)
    assert record.state == engine.get_game("conqueror").dump(
        engine.get_game("conqueror").new_game(players, seed, record.options))
    return record.id


async def test_conqueror_played_through_the_store_matches_the_engine(database: str) -> None:
    game = engine.get_game("conqueror")
    path = database
    players = ["p1", "p2", "p3"]
    store = await Store.open(path)
    game_id = await start_conqueror(store, players, seed=31337)
    shadow = game.new_game(players, 31337, {})       # the same game, engine only
    rng = random.Random(8)
    try:
        for n in range(160):
            if n == 80:                               # restart the bot mid-game
                await store.close()
                store = await Store.open(path)
            player = game.current_turn(shadow)
            assert player is not None
            legal = game.legal_actions(shadow, player)
            others = [a for a in legal if a != "end"]
            action = rng.choice(others) if others and rng.random() < 0.75 else "end"
            shadow, events = game.apply(shadow, player, action)
            result = await store.apply_action(game_id, player, action, request_id=f"i{n}")
            assert result.seq == n + 1 and not result.duplicate
            assert result.events == events
            assert result.record.state == game.dump(shadow)
        assert await store.history.verify(game_id)
        log = await store.history.log(game_id, limit=1000)
        assert len(log) == 160 == (await store.get(game_id)).version

        # Everyone but p2 resigns: the game finishes, p2 wins, the channel is free.
        last: MoveResult | None = None
        for player in ("p1", "p3"):
            last = await store.apply_action(game_id, player, "resign")
        assert last is not None and last.record.status == "finished"
        outcome = game.outcome(last.state)
        assert outcome is not None and outcome.winners == ("p2",)
        assert await store.active_in_channel("c1") is None
        with pytest.raises(IllegalAction, match=r"^This game is over\.$"):
            await store.apply_action(game_id, "p2", "end")
        assert await store.history.verify(game_id)
    finally:
        await store.close()


async def test_conqueror_illegal_moves_change_nothing(database: str) -> None:
    path = database
    store = await Store.open(path)
    try:
        game_id = await start_conqueror(store, ["p1", "p2"], seed=5)
        before = snapshot(path)
        for player, action in [("p2", "end"), ("p1", "move a1 f6 9"), ("p1", "fly"),
                               ("stranger", "end"), ("p1", "recruit 99")]:
            with pytest.raises(IllegalAction):
                await store.apply_action(game_id, player, action)
        assert snapshot(path) == before
        assert (await store.apply_action(game_id, "p1", "end")).seq == 1
    finally:
        await store.close()


async def test_conqueror_racing_turn_ends_across_connections(database: str) -> None:
    path = database
    one, two = await Store.open(path), await Store.open(path)
    try:
        game_id = await start_conqueror(one, ["p1", "p2"], seed=6)
        results = await asyncio.gather(one.apply_action(game_id, "p1", "end"),
                                       two.apply_action(game_id, "p1", "end"),
                                       return_exceptions=True)
        moved = [r for r in results if isinstance(r, MoveResult)]
        refused = [r for r in results if isinstance(r, IllegalAction)]
        assert len(moved) == 1 and len(refused) == 1
        assert "not your turn" in str(refused[0])
        assert (await two.get(game_id)).version == 1 and await one.history.verify(game_id)
    finally:
        await one.close()
        await two.close()
