"""Properties every game kind owes the platform, checked for each one in ``engine.GAMES``.

Game-specific invariants live in each game's own property tests; what is the same for all
games (determinism, the position format continuing a game exactly) is tested once, here.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine

KINDS = sorted(engine.GAMES)


def _random_line(game: Any, state: Any, rng: random.Random, plies: int,
                 copy: Any = None) -> tuple[Any, Any, list[str]]:
    """Play ``plies`` random legal actions (on ``copy`` too, checking it keeps step)."""
    dumps = []
    for _ in range(plies):
        if not game.to_act(state):
            break
        p = game.to_act(state)[0]
        action = rng.choice(game.legal_actions(state, p))
        state, events = game.apply(state, p, action)
        if copy is not None:
            copy, copy_events = game.apply(copy, p, action)
            assert copy_events == events and game.dump(copy) == game.dump(state)
        dumps.append(game.dump(state))
    return state, copy, dumps


def _play(kind: str, seed: int, plies: int = 300) -> list[str]:
    game = engine.GAMES[kind]
    players = [f"p{i}" for i in range(1, game.max_players + 1)]
    _, _, dumps = _random_line(game, game.new_game(players, seed), random.Random(seed), plies)
    return dumps


@pytest.mark.parametrize("kind", KINDS)
def test_same_seed_and_actions_give_identical_games(kind: str) -> None:
    assert _play(kind, 7) == _play(kind, 7)
    assert _play(kind, 7) != _play(kind, 8)


@pytest.mark.parametrize("kind", KINDS)
def test_replaying_from_a_loaded_position_matches_continuing(kind: str) -> None:
    game = engine.GAMES[kind]
    rng = random.Random(3)
    state, _, _ = _random_line(game, game.new_game(["a", "b"], 11), rng, 40)
    copy = game.load(game.dump(state))
    assert game.dump(copy) == game.dump(state)
    _random_line(game, state, rng, 200, copy=copy)


def test_dice_shuffle_is_a_deterministic_permutation_that_leaves_forced_dice_alone() -> None:
    from engine.core import Dice

    cards = [f"c{i}" for i in range(40)]
    first, second = Dice.from_seed(11), Dice(11, forced=[6, 1])
    shuffled = first.shuffle(cards)
    assert sorted(shuffled) == sorted(cards) and shuffled != cards
    assert second.shuffle(cards) == shuffled and second.forced == [6, 1]
    assert first.state == second.state                      # the same draws were used
    assert Dice.from_seed(12).shuffle(cards) != shuffled
    assert cards == [f"c{i}" for i in range(40)]             # the input is not changed
