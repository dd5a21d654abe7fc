"""Antiquity under random play (docs/games/antiquity.md): at every player count, whatever
the players do, the rules keep their promises. Each step checks that legal actions are
accepted, garbage is refused without touching the state, the position format round-trips,
the view is JSON, pieces are conserved, nobody loses their last city, and the same seed and
actions give the same game."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engine.antiquity import GAME
from engine.antiquity import constants as C
from engine.antiquity.board import NATION_ORDER
from engine.antiquity.state import AntiquityState
from engine.core import IllegalAction
from tests import properties as props

GARBAGE = ["", "   ", "go", "go nowhere", "move", "move 1", "move -1 attica macedonia",
           "move 1 attica attica", "move 999999999999999999999 attica macedonia",
           "conquer attica 99999", "conquer attica -1", "fight", "found", "learn", "temple",
           "💥", "go gold 💥", "ｍｏｖｅ 1 attica macedonia", "x" * 500, "end end",
           "legion atlantis", "galley latium", "abandon", "move 1 latium tyrrhenum",
           "fight latium latium", "conquer phoenicia 0 0", "resign now", "\x00", "go ",
           "learn wheel wheel", "move 1.5 attica macedonia", "move ² attica macedonia",
           "move attica macedonia ٣", "move １ attica macedonia", "move ፩ attica macedonia",
           "move ߁ attica macedonia", "conquer attica ²", "conquer phoenicia ٣",
           "conquer phoenicia １", "conquer phoenicia ፩", "conquer phoenicia ½"]


def _check(state: AntiquityState, start_cities: dict[str, int]) -> None:
    view = GAME.view(state, None)
    json.dumps(view)
    assert len(state.temples) + state.temples_left() == C.TEMPLES
    assert state.temples <= set(state.cities)
    for nat in state.nations:
        assert state.legions_of(nat) <= C.LEGIONS and state.galleys_of(nat) <= C.GALLEYS
        assert state.stones(nat) >= 0 and state.city_count(nat) + state.stones(nat) == C.STONES
        assert all(v >= 0 for v in state.resources[nat].values())
        if start_cities[nat]:
            assert state.city_count(nat) >= 1, f"{nat} lost its last city"
        assert state.points(nat) == sum(state.personalities[nat].values())
    for here in state.units.values():
        assert all(k > 0 for k in here.values())
    for region, k in state.moved.items():
        assert 0 < k <= state.count(region, state.turn)
    if not state.over:
        assert GAME.to_act(state) == [state.player_of(state.turn)]
        assert state.turn not in state.out


def _choose(rng: random.Random, state: AntiquityState, player: str, legal: list[str]) -> str:
    """Random play that lingers in its actions (so maneuvers do something), and now and
    then resigns."""
    if rng.random() < 0.002:
        return "resign"
    busy = [a for a in legal if a != "end"]
    if busy and rng.random() < 0.85:
        conquests = [a for a in busy if a.startswith(("conquer", "found", "fight"))]
        if conquests and rng.random() < 0.5:
            return rng.choice(conquests)
        return rng.choice(busy)
    return rng.choice(legal)


def _play(n: int, seed: int, plies: int, stats: Counter[str] | None = None,
          checks: bool = True) -> list[str]:
    players = [f"p{i}" for i in range(n)]
    state = GAME.new_game(players, seed)
    assert sorted(state.nations) == sorted(NATION_ORDER[:n])
    start = {nat: state.city_count(nat) for nat in state.nations}
    dumps = [GAME.dump(state)]
    steps = props.walk(GAME, state, random.Random(seed), plies, choose=_choose)  # never mutated
    for step, (state, player, _action, after, events) in enumerate(steps):
        legal = GAME.legal_actions(state, player)
        assert legal and len(set(legal)) == len(legal)
        if stats is not None:
            stats.update(e["type"] for e in events)
        if checks:
            text = GAME.dump(after)
            assert GAME.load(text) == after and GAME.dump(GAME.load(text)) == text
            assert len(GAME.narrate(events, {})) <= len(events)
            _check(after, start)
            if step % 7 == 0:
                before = GAME.dump(state)
                for bad in GARBAGE:
                    if bad.strip().lower() in legal:
                        continue
                    with pytest.raises(IllegalAction):
                        GAME.apply(state, player, bad)
                    assert GAME.dump(state) == before
                for other in [p for p in players if p != player][:2]:
                    assert GAME.legal_actions(state, other) == []
                    with pytest.raises(IllegalAction):
                        GAME.apply(state, other, legal[0])
                assert GAME.timeout_action(state, player) in legal
        dumps.append(GAME.dump(after))
    return dumps


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_play_keeps_every_promise(n: int) -> None:
    stats: Counter[str] = Counter()
    for seed in range(3):
        _play(n, 100 * n + seed, 260, stats)
    assert stats["move"] and stats["turn"] and stats["produce"]
    assert stats["found"] + stats["conquer"] + stats["fight"] > 0


def test_conquests_happen_and_respect_the_rules() -> None:
    stats: Counter[str] = Counter()
    for seed in range(4):
        _play(4, seed, 700, stats, checks=False)
    assert stats["conquer"] > 0 and stats["found"] > 0 and stats["fight"] > 0
    assert stats["personality"] > 0


def test_the_same_seed_and_actions_give_identical_games() -> None:
    for n in (2, 6):
        assert _play(n, 5, 150, checks=False) == _play(n, 5, 150, checks=False)
    assert _play(3, 5, 40, checks=False) != _play(3, 6, 40, checks=False)


def test_a_game_always_ends_within_the_round_limit() -> None:
    state = props.play_out(GAME, GAME.start(["a", "b", "c"], 4, 3),
                           props.timeouts(GAME, "end"), 500)
    outcome = GAME.outcome(state)
    assert outcome is not None and state.result == "rounds" and state.round == 3
    assert sorted(outcome.standings) == ["a", "b", "c"]


def test_huge_and_odd_inputs_are_refused_cleanly() -> None:
    state = GAME.new_game(["a", "b"], 1)
    props.check_non_text_refused(GAME, state, "a", "go gold",
                                 more=(7, ["go", "gold"], {"go": 1}))
    assert GAME.legal_actions(state, None) == []  # type: ignore[arg-type]
    for text in ["", "null", "[1]", "{\"players\": 5}", "{\"rounds\": 1e309}",
                 "{\"legions\": {\"latium\": {\"romans\": 1e400}}}", "\"\"" * 3,
                 json.dumps({"resources": {"romans": {"gold": 2**70}}})]:
        with pytest.raises(IllegalAction):
            GAME.load(text)


test_any_text_is_refused_or_applied_never_crashes = props.any_text_test(
    GAME, lambda: GAME.new_game(["a", "b", "c"], 2), ["a", "b", "c"],
    words=("move", "conquer", "attica", "macedonia", "phoenicia", "2"))
test_any_json_is_a_valid_position_or_refused = props.any_json_test(GAME)
