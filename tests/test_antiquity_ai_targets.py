"""The automatic player's choice of whom to fight (engine/antiquity/ai.py, docs/games/
antiquity.md "Balance"): the leader's cities first, rivals behind the nation spared."""

from __future__ import annotations

import json
from typing import Any

from engine.antiquity import GAME
from engine.antiquity.ai import choose_action
from engine.antiquity.state import AntiquityState

SIX = ["romans", "carthaginians", "greeks", "egyptians", "phoenicians", "iberians"]
PLAYERS = ["ann", "bob", "cy", "dee", "eve", "fay"]


def _position(points: dict[str, dict[str, int]]) -> AntiquityState:
    """Greeks in a Maneuver with two legions standing in Asia (a Phoenician city) and two
    in Thracia (a Roman city with a temple): both can be conquered now."""
    data: dict[str, Any] = {
        "players": PLAYERS, "nations": SIX, "turn": "greeks", "phase": "action",
        "field": "maneuver1",
        "cities": {"attica": "greeks", "peloponnesus": "greeks", "macedonia": "greeks",
                   "asia": "phoenicians", "phoenicia": "phoenicians", "syria": "phoenicians",
                   "thracia": "romans", "latium": "romans"},
        "temples": ["thracia"],
        "legions": {"asia": {"greeks": 2}, "thracia": {"greeks": 4},
                    "attica": {"greeks": 1}, "peloponnesus": {"greeks": 1},
                    "macedonia": {"greeks": 1}},
        "personalities": points,
    }
    return GAME.load(json.dumps(data))


def _choice(state: AntiquityState) -> str:
    player = GAME.to_act(state)[0]
    legal = GAME.legal_actions(state, player)
    assert any(a.startswith("conquer asia") for a in legal)
    assert any(a.startswith("conquer thracia") for a in legal)
    return choose_action(GAME, state, player)


def test_with_nobody_ahead_the_temple_city_comes_first() -> None:
    assert _choice(_position({})).startswith("conquer thracia")


def test_the_leaders_city_comes_before_a_weaker_neighbours_temple() -> None:
    # the Phoenicians lead (4 personalities, the Greeks 1, the Romans 1)
    points = {"phoenicians": {"scholar": 3, "king": 1}, "greeks": {"scholar": 1},
              "romans": {"scholar": 1}}
    assert _choice(_position(points)).startswith("conquer asia")


def test_a_rival_behind_the_nation_is_spared() -> None:
    # the Greeks lead (3) and the Phoenicians are level with them: the Romans (0) are
    # spared, the Phoenicians are not
    points = {"greeks": {"scholar": 3}, "phoenicians": {"scholar": 3}}
    assert _choice(_position(points)).startswith("conquer asia")


def test_a_single_rival_is_never_spared() -> None:
    # 2 players: the Romans lead by 3 and can take a Carthaginian city; with nobody else
    # to fight they take it
    data: dict[str, Any] = {
        "players": ["ann", "bob"], "nations": ["romans", "carthaginians"], "turn": "romans",
        "phase": "action", "field": "maneuver1",
        "cities": {"latium": "romans", "etruria": "romans", "campania": "romans",
                   "sicilia": "carthaginians", "africa": "carthaginians"},
        "legions": {"sicilia": {"romans": 3}, "latium": {"romans": 1},
                    "etruria": {"romans": 1}, "campania": {"romans": 1}},
        "personalities": {"romans": {"scholar": 3}},
    }
    state = GAME.load(json.dumps(data))
    player = GAME.to_act(state)[0]
    assert any(a.startswith("conquer sicilia") for a in GAME.legal_actions(state, player))
    assert choose_action(GAME, state, player).startswith("conquer sicilia")
