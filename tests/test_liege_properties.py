"""Whole-game properties of Liège: fuzz, invariants, determinism, the position format."""

from __future__ import annotations

import json
import random

import pytest

from engine import IllegalAction
from engine.liege import GAME
from engine.liege.ai import choose_action
from engine.liege.fights import unit_at
from tests import properties as props

GARBAGE = ["", "   ", "general", "general z9", "general e99999999999999999999", "buy",
           "buy rifle", "buy rifle e0", "buy nuke e2", "buy rifle e2 e3", "attack e2",
           "attack e2 e2", "casualty", "casualty e2 e3", "turn e2 x", "turn e2 ne",
           "shift e2", "grenade e2", "missile", "gas a1 a1", "end now", "skip it", "done 1",
           "🎖️", "x" * 5000, "\x00", "resign please", "end\nend", "general ٣", "buy rifle ｅ2",
           "general e１", "general k1", "general a11", "general a0", "attack -1 e2",
           "buy rifle e1e2", "ＥＮＤ", "general e1 e2", "general e²", "general e፩",
           "general e߁", "buy rifle e²", "attack e2 e٣"]


def check_invariants(state):
    alive = {s.id for s in state.alive}
    geo = state.geo
    generals = {}
    for s in state.seats:
        assert 0 <= s.lives <= 3 and s.credits >= 0
        assert all(0 <= s.used[k] <= lim for k, lim in
                   {"trench": 3, "grenade": 3, "missile": 2, "gas": 2}.items())
        assert s.out == (s.id in state.out_order)
        if s.out:
            assert s.general is None and s.credits == 0
        elif state.phase != "setup":
            assert s.general is not None and geo.is_square(s.general)
        if s.general:
            assert s.general not in generals
            generals[s.general] = s.id
    damaged = 0
    for square, p in state.pieces.items():
        assert geo.is_square(square)
        if p.type == "trench":
            assert p.owner is None  # nobody's; Mustard Gas may have damaged it
        else:
            assert p.owner in alive
        assert (p.facing is not None) == (p.type in ("mg", "mortar"))
        damaged += p.damaged
        if square in generals:
            assert p.type == "trench" or (p.type == "av" and p.owner == generals[square])
    assert 0 <= state.damage_tokens <= 5 and damaged <= 5 - state.damage_tokens
    assert len(GAME.to_act(state)) <= 1
    if state.pending is not None:
        for square in state.pending.choices:
            unit = unit_at(state, square)
            assert unit is not None and unit.owner == state.pending.player
    if GAME.outcome(state) is not None:
        assert GAME.to_act(state) == [] and state.phase == "over"


@pytest.mark.parametrize("seed", range(48))
def test_random_play_raises_only_illegal_action_and_keeps_invariants(seed):
    players = [f"u{i}" for i in range(2 + seed % 3)]
    options = {"size": 8} if seed % 4 == 3 else None
    rng = random.Random(-seed)
    for state, player, _action, _after, _events in props.fuzz(
            GAME, players, seed, 300, garbage=GARBAGE, invariants=check_invariants,
            strangers=("stranger", ""), options=options):
        # anything on a square of the board that is not listed is refused
        legal = GAME.legal_actions(state, player)
        verb = rng.choice(["general", "buy rifle", "buy mg", "attack", "shift", "casualty"])
        square = rng.choice(state.geo.squares)
        guess = f"{verb} {square}" if verb in ("general", "casualty") or verb.startswith(
            "buy") else f"{verb} {rng.choice(state.geo.squares)} {square}"
        if guess not in legal:
            with pytest.raises(IllegalAction):
                GAME.apply(state, player, guess)


@pytest.mark.parametrize("players,size", [(2, 10), (3, 10), (4, 10), (2, 8), (4, 8)])
def test_computer_players_finish_games(players, size):
    for seed in range(6):
        ids = [f"p{i}" for i in range(players)]
        state = props.play_out(GAME, GAME.new_game(ids, seed, {"size": size}),
                               props.automatic(GAME, choose_action), 3000, check_invariants)
        props.check_single_winner(GAME, state, ids)


def test_dump_is_stable_text():
    data = props.check_stable_dump(GAME, GAME.new_game(["a", "b"], 1))
    assert data["turn"] == "a"
    assert data["phase"] == "setup" and data["size"] == 10 and data["pieces"] == {}
    assert data["players"][0]["side"] == "south" and data["players"][0]["credits"] == 400


def _pos(**changes):
    data = {"format": "warhost.liege/1", "turn": "a", "phase": "general",
            "players": [{"id": "a", "general": "e1"}, {"id": "b", "general": "e10"}]}
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize("text", [
    "", "null", "[]", "{}", '{"format": "warhost.liege/1"}', "[" * 10000,
    _pos(size=9), _pos(forward_bonus=35), _pos(turn="z"), _pos(phase="lunch"),
    _pos(players=[{"id": "a", "general": "e1"}]),
    _pos(players=[{"id": "a", "general": "e1"}, {"id": "a", "general": "e10"}]),
    _pos(players=[{"id": "a", "general": "e1"}, {"id": "b", "general": "e1"}]),
    _pos(players=[{"id": "a", "general": "k1"}, {"id": "b", "general": "e10"}]),
    _pos(players=[{"id": "a", "general": "e1", "side": "north"},
                  {"id": "b", "general": "e10"}]),
    _pos(players=[{"id": "a", "general": "e1", "lives": 4}, {"id": "b", "general": "e10"}]),
    _pos(players=[{"id": "a", "general": "e1", "lives": 0}, {"id": "b", "general": "e10"}]),
    _pos(players=[{"id": "a", "general": "e1", "credits": -5}, {"id": "b", "general": "e10"}]),
    _pos(players=[{"id": "a", "general": "e1", "used": {"missile": 3}},
                  {"id": "b", "general": "e10"}]),
    _pos(players=[{"id": "a", "general": None}, {"id": "b", "general": "e10"}]),
    _pos(pieces={"c3": {"type": "tank", "owner": "a"}}),
    _pos(pieces={"c3": {"type": "rifle", "owner": "z"}}),
    _pos(pieces={"c3": {"type": "mg", "owner": "a"}}),
    _pos(pieces={"c3": {"type": "rifle", "owner": "a", "facing": "n"}}),
    _pos(pieces={"c3": {"type": "trench", "owner": "a"}}),
    _pos(pieces={"e1": {"type": "rifle", "owner": "a"}}),
    _pos(pieces={"e1": {"type": "av", "owner": "b"}}),
    _pos(pieces={"z3": {"type": "rifle", "owner": "a"}}),
    _pos(pieces={"c3": {"type": "rifle", "owner": "a", "damaged": "yes"}}),
    _pos(damage_tokens=6), _pos(dice={"state": 1, "forced": [7]}),
    _pos(pending={"player": "a", "choices": ["e1"]}),
    _pos(phase="fight", pending={"player": "a", "choices": []}),
    _pos(out_order=["a"]), _pos(winner="q"), _pos(last_move=[1]),
])
def test_malformed_positions_are_refused_cleanly(text):
    with pytest.raises(IllegalAction, match="Not a valid Liège position"):
        GAME.load(text)


def _generals_placed():
    state = GAME.new_game(["a", "b"], 2)
    state, _ = GAME.apply(state, "a", "general e1")
    state, _ = GAME.apply(state, "b", "general e10")
    return state


test_any_text_is_refused_or_applied_never_crashes = props.any_text_test(
    GAME, _generals_placed, ["a", "b"])
test_any_json_is_a_valid_position_or_refused = props.any_json_test(GAME)


def test_non_text_actions_and_players_are_refused():
    state = GAME.new_game(["a", "b"], 2)
    props.check_non_text_refused(GAME, state, "a", "general e1",
                                 more=(["end"], b"end", 10**100))
    for who in (None, 3, "", "A"):
        with pytest.raises(IllegalAction):
            GAME.apply(state, who, "general e1")
        assert GAME.legal_actions(state, who) == []
    assert GAME.piece_range(state, None) == []


def test_view_has_exactly_the_interface_keys():
    state = GAME.new_game(["a", "b"], 2)
    for action in ("general e1", "general e10", "buy mg d2"):
        state, _ = GAME.apply(state, GAME.to_act(state)[0], action)
    view = GAME.view(state, "a")
    assert set(view) == {"kind", "viewer", "size", "round", "turn", "to_act", "phase",
                         "players", "pieces", "damage_tokens_left", "last_fight", "blast",
                         "selected", "last_move", "outcome"}
    assert set(view["players"][0]) == {"id", "seat", "side", "credits", "lives", "out",
                                       "general", "in_vehicle", "in_trench", "highlights",
                                       "prices", "left"}
    assert view["pieces"] == [{"square": "d2", "type": "mg", "owner": "a", "facing": "n",
                               "damaged": False, "general_inside": None, "fought": False,
                               "new": True}]
    assert view["last_move"] == {"player": "a", "action": "buy mg d2", "from": None,
                                 "to": "d2"}
    # no hidden information: every viewer sees the same thing
    assert {**GAME.view(state, "b"), "viewer": "a"} == view
    assert {**GAME.view(state, None), "viewer": "a"} == view


def crowded_state():
    """A 4-player 10x10 board with dozens of pieces, mid-turn in the fight phase."""
    rng = random.Random(5)
    state = GAME.new_game(["a", "b", "c", "d"], 5)
    for action in ("general e1", "general e10", "general a5", "general j5"):
        state, _ = GAME.apply(state, GAME.to_act(state)[0], action)
    data = json.loads(GAME.dump(state))
    kinds = ["rifle", "rifle", "mg", "mortar", "av", "trench"]
    generals = {"e1", "e10", "a5", "j5"}
    for square in state.geo.squares:
        if square in generals or rng.random() > 0.6:
            continue
        kind = rng.choice(kinds)
        entry = {"type": kind, "owner": None if kind == "trench" else rng.choice("abcd")}
        if kind in ("mg", "mortar"):
            entry["facing"] = rng.choice("nesw")
        data["pieces"][square] = entry
    return GAME.load(json.dumps(data))


def test_a_crowded_board_has_many_legal_actions_all_applicable():
    # speed is measured by `make bench`; here: the crowded board is really crowded and
    # every listed action applies
    state = crowded_state()
    assert len(state.pieces) > 40
    legal = GAME.legal_actions(state, "a")
    assert len(legal) > 100
    for action in legal:
        new, _ = GAME.apply(state, "a", action)
        assert new is not state


def test_the_documented_position_loads():
    import pathlib
    import re

    doc = pathlib.Path(__file__).parent.parent / "docs" / "games" / "liege.md"
    block = re.search(r"```json\n(.*?)```", doc.read_text(), re.S)
    assert block is not None
    state = GAME.load(block.group(1))
    assert state.pieces["e8"].type == "trench" and state.seat_of("222").general == "e8"
    view = GAME.view(state, None)
    assert view["players"][1]["in_trench"] and view["players"][1]["prices"]["gas"] == 60
    assert GAME.load(GAME.dump(state)) == state
