"""The store's round trip for every game and the toy sixth game (tests/toy_game): a whole
game, a short one if the game has a short form (``facts.short_game``), played to its end
through the one move path (``Store.apply_action``), with the platform's undo taken
now and then after a slip (an action the engine lets be undone), and replayed exactly by
``store.history.verify``.

After every action the stored position must be the engine's own (the move path keeps
no private copy); after undoing a slip, the position before it, exactly.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from db import Store
from engine.search import heuristic_action
from tests import toy_game

PLAYERS = ("1001", "1002", "1003", "1004")
#: No game played here comes near this many store operations.
MAX_STEPS = 3000


def _slip(game: Any, state: Any, player: str, rng: random.Random) -> str | None:
    """A legal action the engine lets be undone and that leaves the turn where it is (so
    the store may take it back): a slip a player would undo. None if there is none."""
    legal = game.legal_actions(state, player)
    for action in rng.sample(legal, min(len(legal), 12)):
        after, events = game.apply(state, player, action)
        if (game.reversible(state, after, events) and game.to_act(after) == game.to_act(state)
                and game.current_turn(after) == game.current_turn(state)):
            return action
    return None


@pytest.mark.parametrize("kind", toy_game.kinds())
async def test_a_whole_game_round_trips_through_the_store(store: Store, kind: str) -> None:
    game = engine.get_game(kind)
    players = PLAYERS[:min(3, game.max_players)]
    opened = await store.lobby.open(kind, "900", f"channel-{kind}", players[0],
                                    dict(game.facts.short_game))
    for p in players[1:]:
        await store.lobby.join(opened.id, p)
    record = await store.lobby.start(opened.id, players[0], seed=4242)
    rng = random.Random(kind)
    undone = actions = 0
    for _ in range(MAX_STEPS):
        record = await store.get(record.id)
        if record.status != "active":
            break
        state = store.load_state(record)
        player = rng.choice(game.to_act(state))
        slip = _slip(game, state, player, rng) if rng.random() < 0.25 and undone < 8 else None
        if slip is not None:   # played, then taken back with the platform's undo
            slipped = await store.apply_action(record.id, player, slip)
            preview = await store.history.undo_preview(record.id, player)
            assert preview.seqs and preview.seqs[0] == slipped.seq, (slip, preview)
            n = rng.randint(1, len(preview.seqs))
            back = sorted(preview.seqs)[-n:]
            moved = await store.apply_action(record.id, player, "undo" if n == 1
                                             else f"undo {n}")
            assert moved.events == [{"type": "undo", "undone": back}]
            assert (await store.get(record.id)).state == game.dump(moved.state)
            if n == 1:
                assert game.dump(moved.state) == game.dump(state)
            actions += 1
            undone += 1
            continue
        action = (heuristic_action(game, state, player) if rng.random() < 0.85
                  else rng.choice(game.legal_actions(state, player)))
        expected, events = game.apply(state, player, action)
        moved = await store.apply_action(record.id, player, action)
        assert moved.events == events and game.dump(moved.state) == game.dump(expected)
        assert (await store.get(record.id)).state == game.dump(expected)
        actions += 1
    record = await store.get(record.id)
    assert record.status == "finished", f"{kind} did not finish in {MAX_STEPS} steps"
    state = store.load_state(record)
    outcome = game.outcome(state)
    assert outcome is not None and sorted(outcome.standings) == sorted(players)
    assert await store.history.verify(record.id)
    assert await store.history.problems(record.id) == []
    _, steps = await store.history.replay_steps(record.id)
    assert len(steps) == actions + undone and game.dump(steps[-1].after) == record.state
    if any(game.facts.fixed_undo.values()):     # a game with undoable moves had some undone
        assert undone > 0
