"""The computer player's view (engine.antiquity.digest.player_view) is the full view's
values under the same keys, at every position of seeded games (2-6 players); and its
choice is the same when the caller hands it the legal list."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.antiquity import GAME
from engine.antiquity.ai import choose_action
from engine.antiquity.digest import player_view


def _same(lean: Any, full: Any) -> None:
    """Every key of ``lean`` holds what ``full`` holds (tuples standing for lists)."""
    if isinstance(lean, dict):
        assert isinstance(full, dict)
        for key, value in lean.items():
            assert key in full, key
            _same(value, full[key])
    elif isinstance(lean, (list, tuple)):
        assert isinstance(full, list) and len(lean) == len(full)
        for a, b in zip(lean, full, strict=True):
            _same(a, b)
    else:
        assert lean == full and type(lean) is type(full)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_player_view_is_the_view(players: int) -> None:
    ids = [f"p{i}" for i in range(1, players + 1)]
    checked = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = GAME.new_game(ids, seed)
        for _ in range(400):
            actors = GAME.to_act(state)
            if not actors:
                break
            actor = actors[0]
            _same(player_view(state), GAME.view(state, actor))
            checked += 1
            legal = GAME.legal_actions(state, actor)
            action = choose_action(GAME, state, actor) if rng.random() < 0.6 else \
                rng.choice(legal)
            state, _ = GAME.apply(state, actor, action)
        _same(player_view(state), GAME.view(state, None))
    assert checked > 300


def test_choice_with_the_legal_list_given() -> None:
    """Passing the legal list just listed changes nothing (and leaves the list as it was)."""
    for seed in range(3):
        rng = random.Random(seed)
        state = GAME.new_game(["p1", "p2", "p3"], seed)
        for _ in range(200):
            actors = GAME.to_act(state)
            if not actors:
                break
            actor = actors[0]
            legal = GAME.legal_actions(state, actor)
            given = list(legal)
            choice = choose_action(GAME, state, actor, legal=given)
            assert choice == choose_action(GAME, state, actor) and given == legal
            action = choice if rng.random() < 0.7 else rng.choice(legal)
            state, _ = GAME.apply(state, actor, action)
