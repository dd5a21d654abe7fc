"""Whole-game properties of Battlecards: fuzz, invariants, determinism, the position
format, golden legal actions, automatic players."""

from __future__ import annotations

import json

import pytest

from engine import IllegalAction
from engine.battlecards import GAME
from engine.battlecards.ai import choose_action
from engine.battlecards.cards import ARSENAL, CONFLICT, FORCES, UNITS
from tests import properties as props

GARBAGE = ["", "   ", "draw now", "deploy", "deploy 0", "deploy 99999999999999999999",
           "deploy -1", "deploy x", "scout", "scout space", "fire", "fire g1", "fire g0 a1",
           "fire g1 z1", "support s1", "play 0 g1", "play 1", "withdraw", "withdraw q7",
           "autofire", "autofire maybe", "🎖️", "x" * 5000, "\x00", "resign please",
           "draw\ndraw", "deploy ٣", "ＤＲＡＷ", "deploy １", "attack now", "stay put",
           "emergency 1", "pass pass", "fire g1 a1 s1", "withdraw g100", "deploy ²",
           "deploy ፩", "deploy ߁", "play ² g1", "fire g² a1", "fire g1 a٣"]


def check_invariants(state):
    conflict = [*state.conflict_deck, *state.conflict_discard,
                *([state.current] if state.current else [])]
    for s in state.seats:
        conflict += s.kept + s.won
    assert sorted(conflict) == sorted(c.id for c in CONFLICT)
    for s in state.seats:
        mine = [*s.deck, *s.discard, *s.hand, *(c for f in FORCES for c in s.stacks[f])]
        if state.battle:
            mine += [u.card for u in state.battle.units if u.owner == s.id]
        assert sorted(mine) == sorted(c.id for c in ARSENAL[s.side])
    if GAME.outcome(state) is not None:
        assert GAME.to_act(state) == [] and state.phase == "over"
    else:
        assert GAME.to_act(state)


@pytest.mark.parametrize("seed", range(40))
def test_random_play_raises_only_illegal_action_and_keeps_invariants(seed):
    # both deploy at once in the set-up (either may go); auto-fire may be set at any time
    steps = props.fuzz(GAME, ["ger", "bri"], seed, 250, garbage=GARBAGE,
                       invariants=check_invariants, strangers=("stranger", "", None, 7),
                       anytime=("autofire",), pick=props.anyone,
                       choose=props.mixed(GAME, choose_action, 0.5))
    assert len(list(steps)) > 0


def test_computer_players_finish_games():
    for seed in range(30):
        state = props.play_out(GAME, GAME.new_game(["ger", "bri"], seed),
                               props.automatic(GAME, choose_action), 20000)
        props.check_single_winner(GAME, state, ["ger", "bri"])
        check_invariants(state)


def test_golden_legal_actions():
    state = GAME.new_game(["a", "b"], 1)
    assert GAME.to_act(state) == ["a", "b"]
    assert GAME.legal_actions(state, "a") == [
        "deploy 1", "deploy 2", "deploy 3", "deploy 4", "deploy 5", "deploy 6", "autofire off"]
    for p in ("a", "b"):
        for _ in range(3):
            state, _ = GAME.apply(state, p, "deploy 1")
    assert GAME.legal_actions(state, "a") == ["draw", "emergency", "autofire off"]
    assert GAME.legal_actions(state, "b") == []
    state, _ = GAME.apply(state, "a", "autofire off")
    assert GAME.legal_actions(state, "a") == ["draw", "emergency", "autofire on"]


def test_autofire_and_resign_from_anyone_in_the_game_at_any_time():
    state = GAME.new_game(["a", "b"], 1)
    for _ in range(3):
        state, _ = GAME.apply(state, "a", "deploy 1")
    state, ev = GAME.apply(state, "a", "autofire off")  # a has finished setup
    assert not state.seats[0].autofire and GAME.narrate(ev)


@pytest.mark.parametrize("text", [
    "", "null", "[]", "{}", '{"format": "warhost.battlecards/1"}', "[" * 10000,
])
def test_bad_positions_are_refused(text):
    with pytest.raises(IllegalAction):
        GAME.load(text)


def test_positions_must_conserve_cards():
    data = json.loads(GAME.dump(GAME.new_game(["a", "b"], 2)))
    for breakage in (
        lambda d: d["conflict"]["deck"].pop(),
        lambda d: d["conflict"]["deck"].append(d["conflict"]["deck"][0]),
        lambda d: d["players"][0]["hand"].append(d["players"][1]["hand"][0]),
        lambda d: d["players"][0]["deck"].pop(),
        lambda d: d.update(phase="lunch"),
        lambda d: d.update(turn="z"),
        lambda d: d["players"][0]["stacks"][
            "air" if UNITS[d["players"][0]["hand"][0]].stack != "air" else "sea"].append(
                d["players"][0]["hand"].pop(0)),  # a unit on the wrong stack
    ):
        broken = json.loads(json.dumps(data))
        breakage(broken)
        with pytest.raises(IllegalAction):
            GAME.load(json.dumps(broken))


def test_dump_is_stable_text():
    data = props.check_stable_dump(GAME, GAME.new_game(["a", "b"], 1))
    assert data["phase"] == "setup"
    assert len(data["conflict"]["deck"]) == 50 and len(data["players"][0]["hand"]) == 6


test_any_text_is_refused_or_applied_never_crashes = props.any_text_test(
    GAME, lambda: GAME.new_game(["a", "b"], 2), ["a", "b"])
test_any_json_is_a_valid_position_or_refused = props.any_json_test(GAME)


def test_auto_fire_and_auto_support_choose_as_the_plain_rules_say(monkeypatch):
    """Auto-fire lists the foes once per firing pass and again only after a hit, and
    auto-support works out each unit's gain once until it is supported (shortcuts for
    big battles): every shot and every support over whole games must still be the one
    the plain rule picks at that moment, over all the units as they stand."""
    from engine.battlecards import ai
    from engine.battlecards import battle as bt

    checked = {"shot": 0, "support": 0}
    shoot, give_support = bt.shoot, bt.give_support

    def checked_shoot(state, u, t, events):
        plain = None
        for foe in state.battle.units:  # the rule: best chance, then threat, first of equals
            if foe.owner != u.owner and foe.active and bt.can_target(u, foe) and (
                    plain is None or (bt.chance(u, foe), bt.threat(foe))
                    > (bt.chance(u, plain), bt.threat(plain))):
                plain = foe
        assert t is plain
        checked["shot"] += 1
        return shoot(state, u, t, events)

    def checked_support(state, s, u, events):
        b, sup = state.battle, UNITS[s.card].support
        foes = [t for t in b.units if t.active and t.owner != s.owner]
        def gain(x):
            # its best chance against any foe it has an attack on (0 where none hits)
            return max((bt.chance(x, t) for t in foes
                        if bt.MATCHUPS[x.card, t.card][0] is not None), default=-1)
        mine = [x for x in b.of(s.owner) if x is not s and x.force in sup.to]
        assert u is max(mine, key=gain)  # max keeps the first of equals
        checked["support"] += 1
        give_support(state, s, u, events)

    monkeypatch.setattr(bt, "shoot", checked_shoot)
    monkeypatch.setattr(bt, "give_support", checked_support)
    biggest = 0
    for seed in range(12):
        s = GAME.new_game(["g", "b"], seed)
        while GAME.outcome(s) is None:
            actor = GAME.to_act(s)[0]
            s, _ = GAME.apply(s, actor, ai.choose_seasoned(GAME, s, actor))
            if s.battle is not None:
                biggest = max(biggest, len(s.battle.units))
    assert checked["shot"] > 1000 and checked["support"] > 50 and biggest > 30
