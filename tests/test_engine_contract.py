"""Properties every game kind owes the platform, checked for each one in ``engine.GAMES``
and for the toy sixth game (tests/toy_game, registered by tests/conftest.py).

Game-specific invariants live in each game's own property tests; what is the same for all
games (determinism, the position format continuing a game exactly, views, resigning, how
a game ends) is tested once, here.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine
from engine import RESIGN, IllegalAction
from engine.search import heuristic_action
from tests import toy_game

KINDS = toy_game.kinds()


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


def _positions(kind: str, seed: int, plies: int = 120) -> list[Any]:
    """The positions of a random game (every 3rd), from a seat count between the bounds."""
    game = engine.GAMES[kind]
    rng = random.Random(seed)
    count = game.min_players + seed % (game.max_players - game.min_players + 1)
    state = game.new_game([f"p{i}" for i in range(1, count + 1)], seed)
    found = [state]
    for _ in range(plies):
        if not game.to_act(state):
            break
        p = game.to_act(state)[0]
        state, _ = game.apply(state, p, rng.choice(game.legal_actions(state, p)))
        found.append(state)
    return found[::3]


@pytest.mark.parametrize("kind", KINDS)
def test_views_are_json_and_show_a_hand_to_its_owner_alone(kind: str) -> None:
    game = engine.GAMES[kind]
    hands = 0
    for seed in (1, 2):
        for state in _positions(kind, seed):
            public = game.view(state, None)
            assert json.loads(json.dumps(public)) == public
            assert public.get("viewer") is None
            entries = public.get("players") or []
            assert not any("hand" in e for e in entries if isinstance(e, dict))
            for p in game.players(state):
                own = game.view(state, p)
                assert json.loads(json.dumps(own)) == own and own.get("viewer") == p
                shown = [e for e in own.get("players") or []
                         if isinstance(e, dict) and "hand" in e]
                assert all(e.get("id") == p for e in shown)
                for entry in shown:
                    assert isinstance(entry["hand"], list)
                    assert all(isinstance(c, dict) and c.get("name") for c in entry["hand"])
                    hands += 1
    if "hand" in game.facts.board_shows:  # a game with hands shows each its own
        assert hands > 0


@pytest.mark.parametrize("kind", KINDS)
def test_resign_is_accepted_from_anyone_still_in_and_never_listed(kind: str) -> None:
    game = engine.GAMES[kind]
    resigned = 0
    for state in _positions(kind, 3)[::4]:
        if game.outcome(state) is not None:
            continue
        for p in [*game.players(state), "stranger"]:
            assert RESIGN not in game.legal_actions(state, p)
            if p not in game.still_in(state):
                with pytest.raises(IllegalAction):
                    game.apply(state, p, RESIGN)
                continue
            after, events = game.apply(state, p, "  Resign ")
            assert p not in game.still_in(after) and events
            assert game.outcome(after) is not None or p not in game.to_act(after)
            resigned += 1
    assert resigned > 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_game_ends_with_every_player_in_its_standings(kind: str) -> None:
    """Played by the computer player's heuristic (a short game if the game has one) to
    its end, or resigned down to one player: an outcome that ranks everyone, no one left
    to act, nothing legal, and a narration of text lines."""
    game = engine.GAMES[kind]
    players = [f"p{i}" for i in range(1, game.max_players + 1)]
    state = game.new_game(players, 4, dict(game.facts.short_game))
    for _ in range(1500):
        if not game.to_act(state):
            break
        p = game.to_act(state)[0]
        state, events = game.apply(state, p, heuristic_action(game, state, p))
        lines = game.narrate(events, {q: q.upper() for q in players})
        assert all(isinstance(line, str) and line for line in lines)
    for p in players:
        if game.outcome(state) is None and p in game.still_in(state):
            state, _ = game.apply(state, p, RESIGN)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.reason
    assert sorted(outcome.standings) == sorted(players)
    assert outcome.winners and set(outcome.winners) <= set(outcome.standings[:len(
        outcome.winners)])
    assert game.to_act(state) == [] and game.current_turn(state) is None
    assert all(game.legal_actions(state, p) == [] for p in players)
    assert game.view(state, None)["outcome"] == outcome.to_json()


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


@pytest.mark.parametrize("kind", KINDS)
def test_sides_and_rounds_for_statistics_name_every_seat_publicly(kind: str) -> None:
    """What the statistics of real games read (db/standings.py): every seat's side as a
    string (the same whoever looks: a side is public), and a round count that never goes
    backwards."""
    game = engine.GAMES[kind]
    players = [f"p{i}" for i in range(1, game.max_players + 1)]
    state = game.new_game(players, 3)
    rng = random.Random(3)
    seen: list[int] = []
    for _ in range(60):
        sides = game.sides(state)
        assert set(sides) == set(players) and all(isinstance(s, str) for s in sides.values())
        rounds = game.rounds(state)
        assert rounds is None or (isinstance(rounds, int) and rounds >= 1)
        if rounds is not None:
            assert not seen or rounds >= seen[-1]
            seen.append(rounds)
        if not game.to_act(state):
            break
        p = game.to_act(state)[0]
        state, _ = game.apply(state, p, rng.choice(game.legal_actions(state, p)))


@pytest.mark.parametrize("kind", KINDS)
def test_play_on_gives_what_apply_gives_and_refuses_without_a_change(kind: str) -> None:
    """``Game.play_on`` (a search's play-outs, which may change the state in place) must
    reach the state ``apply`` reaches, step by step, and refuse an illegal action before
    changing anything: a play-out goes on from the state after a refused move."""
    game = engine.GAMES[kind]
    rng = random.Random(5)
    players = [f"p{i}" for i in range(1, game.min_players + 1)]
    applied = game.new_game(players, 21)
    owned = game.load(game.dump(applied))
    seen: set[str] = set()
    refused = 0
    for step in range(250):
        if not game.to_act(applied):
            break
        p = game.to_act(applied)[0]
        legal = game.legal_actions(applied, p)
        seen.update(legal)
        # actions met elsewhere in the game, well formed but not legal here
        for bad in [*rng.sample(sorted(seen - set(legal)), min(3, len(seen - set(legal)))),
                    "🎖️ nonsense", "x" * 300]:
            try:
                game.apply(applied, p, bad)
                continue  # a game may accept a form it does not list
            except IllegalAction:
                pass
            before = game.dump(owned)
            with pytest.raises(IllegalAction):
                game.play_on(owned, p, bad)
            assert game.dump(owned) == before
            refused += 1
        action = heuristic_action(game, applied, p) if step % 3 else rng.choice(legal)
        applied, _ = game.apply(applied, p, action)
        owned = game.play_on(owned, p, action)
        assert game.dump(owned) == game.dump(applied)
    assert refused > 100
