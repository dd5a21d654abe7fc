"""The search heuristics of the perfect-information games (engine/<kind>/ai.py: ``evaluate``,
``candidates``, ``PLAYOUT_STEPS``) and the computer player (engine/search.py) that uses them:
Conqueror, Liège and Antiquity."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import search
from engine.antiquity import GAME as ANTIQUITY
from engine.antiquity import ai as antiquity_ai
from engine.conqueror import GAME as CONQUEROR
from engine.conqueror import ai as conqueror_ai
from engine.core import Game
from engine.liege import GAME as LIEGE
from engine.liege import ai as liege_ai
from tests.conqueror_positions import position as conqueror_position
from tests.conqueror_positions import soldiers
from tests.liege_positions import mortar
from tests.liege_positions import position as liege_position

GAMES: dict[str, tuple[Game[Any], Any]] = {
    "conqueror": (CONQUEROR, conqueror_ai),
    "liege": (LIEGE, liege_ai),
    "antiquity": (ANTIQUITY, antiquity_ai),
}
KINDS = sorted(GAMES)


def _walk(game: Game[Any], ai: Any, seed: int, steps: int, every: int) -> list[Any]:
    """Positions along a game played half by the heuristic, half at random."""
    rng = random.Random(seed)
    state = game.new_game(["A", "B"], seed)
    seen = []
    for step in range(steps):
        if game.outcome(state) is not None:
            break
        player = game.to_act(state)[0]
        legal = game.legal_actions(state, player)
        action = ai.choose_action(game, state, player) if rng.random() < 0.5 \
            else rng.choice(legal)
        state, _ = game.apply(state, player, action)
        if step % every == 0 and game.outcome(state) is None:
            seen.append(state)
    return seen


def _finished(game: Game[Any], ai: Any, seed: int) -> Any:
    state = game.new_game(["A", "B"], seed)
    for _ in range(3000):
        if game.outcome(state) is not None:
            return state
        player = game.to_act(state)[0]
        state, _ = game.apply(state, player, ai.choose_action(game, state, player))
    raise AssertionError("the heuristic players did not finish a game")


@pytest.fixture(scope="module")
def positions() -> dict[str, list[Any]]:
    return {kind: [s for seed in (1, 2, 3) for s in _walk(*GAMES[kind], seed, 150, 6)]
            for kind in KINDS}


def test_every_game_ships_its_search_heuristics() -> None:
    for kind in KINDS:
        h = search.heuristics(kind)
        assert h.policy is not None and h.evaluate is not None, kind
        assert 4 <= h.playout_steps <= 60, kind
    assert search.heuristics("conqueror").candidates is not None
    assert search.heuristics("liege").candidates is not None


@pytest.mark.parametrize("kind", KINDS)
def test_evaluate_gives_every_player_a_share_in_0_1_summing_to_1(
        kind: str, positions: dict[str, list[Any]]) -> None:
    game, ai = GAMES[kind]
    states = positions[kind]
    assert len(states) >= 20
    spread = set()
    for state in states:
        values = ai.evaluate(game, state)
        assert set(values) == set(game.players(state))
        assert all(0.0 <= v <= 1.0 for v in values.values()), values
        assert sum(values.values()) == pytest.approx(1.0)
        spread.add(round(values["A"], 2))
    assert len(spread) > 3, "the evaluation never tells positions apart"


@pytest.mark.parametrize("kind", KINDS)
def test_evaluate_gives_the_winner_of_a_finished_game_everything(kind: str) -> None:
    game, ai = GAMES[kind]
    state = _finished(game, ai, 7)
    outcome = game.outcome(state)
    assert outcome is not None and len(outcome.winners) == 1
    values = ai.evaluate(game, state)
    assert values[outcome.winners[0]] == pytest.approx(1.0)
    loser = next(p for p in game.players(state) if p not in outcome.winners)
    assert values[loser] == pytest.approx(0.0)


@pytest.mark.parametrize("kind", ["conqueror", "liege"])
def test_candidates_are_a_nonempty_subset_of_legal_holding_the_heuristics_move(
        kind: str, positions: dict[str, list[Any]]) -> None:
    game, ai = GAMES[kind]
    pruned = 0
    for state in positions[kind]:
        player = game.to_act(state)[0]
        legal = game.legal_actions(state, player)
        kept = ai.candidates(game, state, player, legal)
        assert kept and set(kept) <= set(legal)
        assert len(set(kept)) == len(kept)
        assert ai.choose_action(game, state, player) in kept
        pruned += len(legal) - len(kept)
    assert pruned > 0, "candidates never leave anything out"


def test_conqueror_candidates_leave_out_hopeless_fights_and_harmless_base_attacks() -> None:
    state = conqueror_position({"c3": soldiers("A", 2), "d4": soldiers("B", 5),
                                "e5": soldiers("A", 3), "f6": {"owner": "B", "soldiers": 1}},
                               A={"gold": 3})
    legal = CONQUEROR.legal_actions(state, "A")
    kept = conqueror_ai.candidates(CONQUEROR, state, "A", legal)
    assert "move c3 d4 2" in legal and "move e5 f6 3" in legal
    assert not [a for a in kept if a.startswith(("move c3 d4", "move e5 f6"))]
    assert "recruit 3" in kept and "recruit 1" not in kept
    assert "end" not in kept  # not while there is a recruit to make
    idle = conqueror_position({"a1": {"owner": "A", "soldiers": 1}}, A={"ap": 0})
    assert conqueror_ai.candidates(CONQUEROR, idle, "A",
                                   CONQUEROR.legal_actions(idle, "A")) == ["end"]


def test_liege_candidates_keep_blasts_that_hurt_the_enemy_and_drop_those_that_hurt_us() -> None:
    # A's Mortar on e3 faces north: its fire zone is d5-f7. B has a stack on e6/e7/d6;
    # A's own Rifle stands on f5.
    pieces = {"e3": mortar("A", "n"), "e6": {"type": "rifle", "owner": "B"},
              "e7": {"type": "mg", "owner": "B", "facing": "s"},
              "d6": {"type": "rifle", "owner": "B"}, "f5": {"type": "rifle", "owner": "A"},
              "d5": {"type": "rifle", "owner": "A"}}
    state = liege_position(pieces, phase="general", A={"general": "e2"},
                           B={"general": "e10"})
    legal = LIEGE.legal_actions(state, "A")
    kept = liege_ai.candidates(LIEGE, state, "A", legal)
    assert "missile e3 e7" in kept  # a Rifle, a Machine Gun and a Rifle of B's
    assert "missile e3 f5" in legal and "missile e3 f5" not in kept  # hits only our own
    assert not [a for a in kept if a.startswith("shift ")]
    # the evaluation sees the threat: the same position is worse for B with A's Mortar
    safe = liege_position({k: v for k, v in pieces.items() if k != "e3"}, phase="general",
                          A={"general": "e2"}, B={"general": "e10"})
    assert liege_ai.evaluate(LIEGE, state)["B"] < liege_ai.evaluate(LIEGE, safe)["B"]


def _conqueror_win() -> Any:
    # Both bases are down to 1 health. A, to play, has a full stack next to B's base and
    # 1 AP left; B has two full stacks next to A's: attack now, or B will most likely win.
    return conqueror_position({"e5": soldiers("A", 6), "a1": {"owner": "A", "soldiers": 2},
                               "b2": soldiers("B", 6), "a2": soldiers("B", 6),
                               "f6": {"owner": "B", "soldiers": 1}, "d5": soldiers("B", 1)},
                              A={"ap": 1, "base_health": 1}, B={"base_health": 1})


def _liege_edge() -> Any:
    # A's General is one step from its far edge and nobody can reach it in time.
    return liege_position(phase="general", A={"general": "e9"}, B={"general": "a10"})


def _liege_missile() -> Any:
    # B's General has one life left and stands in the fire zone of A's Mortar.
    return liege_position({"e5": mortar("A", "n"), "b4": {"type": "rifle", "owner": "A"}},
                          phase="general", A={"general": "e3"},
                          B={"general": "e8", "lives": 1})


def _antiquity_found() -> Any:
    # The Romans hold 6 personalities and 4 cities: a fifth city makes a King, the 7th.
    data = {"players": ["A", "B"], "nations": ["romans", "carthaginians"], "turn": "romans",
            "phase": "action", "field": "maneuver1",
            "cities": {"latium": "romans", "etruria": "romans", "campania": "romans",
                       "cisalpina": "romans", "africa": "carthaginians",
                       "numidia": "carthaginians", "tripolitania": "carthaginians"},
            "legions": {"apulia": {"romans": 1}, "latium": {"romans": 2},
                        "africa": {"carthaginians": 1}},
            "resources": {"romans": {"marble": 2, "iron": 2, "gold": 2}},
            "personalities": {"romans": {"scholar": 3, "citizen": 2, "navigator": 1}}}
    return ANTIQUITY.load(json.dumps(data))


@pytest.mark.parametrize(("kind", "build", "player", "good"), [
    ("conqueror", _conqueror_win, "A", {"move e5 f6 6"}),
    ("liege", _liege_edge, "A", {"general d10", "general e10", "general f10"}),
    ("liege", _liege_missile, "A", {f"missile e5 {s}" for s in ("d7", "e7", "f7", "d8", "e8",
                                                                "f8", "d9", "e9", "f9")}),
    ("antiquity", _antiquity_found, "A", {"found apulia"}),
])
def test_the_easy_search_finds_the_winning_move(kind: str, build: Any, player: str,
                                                good: set[str]) -> None:
    game = GAMES[kind][0]
    state = build()
    assert good <= set(game.legal_actions(state, player))
    for seed in (0, 1, 2):
        choice = search.choose(game, state, player, level="easy", seed=seed)
        assert choice.action in good, (seed, choice.ranking)


def test_the_winning_missile_is_the_only_candidate_and_wins() -> None:
    state = _liege_missile()
    legal = LIEGE.legal_actions(state, "A")
    assert liege_ai.candidates(LIEGE, state, "A", legal) == ["missile e5 d7"]  # d7-f9 hit e8
    after, _ = LIEGE.apply(state, "A", "missile e5 d7")
    outcome = LIEGE.outcome(after)
    assert outcome is not None and outcome.winners == ("A",)
    # with a life to spare the Missile is one good move among others, not a sure win
    spare = liege_position({"e5": mortar("A", "n")}, phase="general", A={"general": "e3"},
                           B={"general": "e8", "lives": 2})
    kept = liege_ai.candidates(LIEGE, spare, "A", LIEGE.legal_actions(spare, "A"))
    hits = {f"missile e5 {s}" for s in ("d7", "e7", "f7", "d8", "e8", "f8", "d9", "e9", "f9")}
    assert hits & set(kept) and len(kept) > 1


@pytest.mark.parametrize("kind", KINDS)
def test_the_same_seed_gives_the_same_choice(kind: str,
                                             positions: dict[str, list[Any]]) -> None:
    game, _ = GAMES[kind]
    state = next(s for s in positions[kind][3:]
                 if len(game.legal_actions(s, game.to_act(s)[0])) > 2)
    player = game.to_act(state)[0]
    first = search.choose(game, state, player, level="easy", seed=42)
    again = search.choose(game, state, player, level="easy", seed=42)
    assert first.action == again.action
    assert first.ranking == again.ranking
    assert first.action in game.legal_actions(state, player)
