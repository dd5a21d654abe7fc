"""Napoleonic Wars over many random and automatic games: invariants that must always hold.

Also the napoleon side of the platform-wide checks (timeouts, undo, legal-action listing,
replay), written here against the game alone.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from engine import IllegalAction
from engine.napoleon import GAME, NapoleonState
from engine.napoleon.ai import choose_action
from engine.napoleon.board import ORDER, SEA_POWER, SIDES
from engine.napoleon.cards import COPIES, DECK
from engine.napoleon.state import HAND_LIMIT, POOL
from tests import properties as props
from tests.napoleon_positions import napoleon_reference

PLAYERS = ["F", "A"]


def _walk(seed: int, plies: int = 3000, ai_share: float = 0.5,
          rounds: int = 20) -> Iterator[props.Step]:
    """A game played by a mix of the automatic player and random legal actions."""
    return props.walk(GAME, GAME.start(PLAYERS, seed, rounds), random.Random(seed), plies,
                choose=props.mixed(GAME, choose_action, ai_share))


def _cards_everywhere(s: NapoleonState) -> list[str]:
    cards = [*s.deck, *s.discard, *s.hands["french"], *s.hands["allies"]]
    if s.battle is not None:
        cards += s.battle.cards["french"] + s.battle.cards["allies"]
    return cards


def _check_invariants(s: NapoleonState) -> None:
    for side in SIDES:
        assert all(n >= 0 for n in s.armies[side].values())
        assert s.on_map(side) <= POOL
        limit = HAND_LIMIT + 2 if (s.phase == "discard" and side == s.turn) else HAND_LIMIT
        assert len(s.hands[side]) <= limit
    assert s.armies["french"][SEA_POWER] == 0
    assert sorted(_cards_everywhere(s)) == sorted(DECK)
    if s.phase in ("discard", "over"):
        assert not any(s.moved.values())
    if s.phase == "move":
        assert all(s.moved[c] <= s.armies[s.turn][c] for c in ORDER)
    assert GAME.load(GAME.dump(s)) == s


@pytest.mark.parametrize("seed", range(12))
def test_random_games_keep_every_invariant(seed: int) -> None:
    turns_seen = 0
    for before, _player, _action, after, events in _walk(seed, ai_share=0.3 if seed % 2 else 0.8):
        _check_invariants(after)
        assert after.armies["allies"][SEA_POWER] <= before.armies["allies"][SEA_POWER] + 3
        if any(e["type"] == "move" and e["to"] == SEA_POWER for e in events):
            pytest.fail("nobody may move into England")
        if any(e["type"] == "turn" for e in events) or after.over:
            assert not after.contested()  # a turn ends with all its battles fought
            turns_seen += 1
        for e in events:
            if e["type"] == "battle":
                loser, winner = e["loser"], e["winner"]
                assert e["losses"][winner] <= 2 * e["armies"][loser]
                assert e["losses"][loser] <= e["armies"][loser]
                assert e["losses"][winner] < e["armies"][winner]  # the winner always holds
                f = e["force"]
                assert (f[e["attacker"]] > f[e["defender"]]) == (winner == e["attacker"])
            if e["type"] == "reinforce" and e["side"] == "french":
                assert not {"prussia", "russia", "austria"} & set(e["placed"])
    assert turns_seen > 0


def test_no_country_is_contested_when_a_turn_begins() -> None:
    for seed in range(20):
        for before, _p, _a, after, events in _walk(seed, ai_share=0.7):
            if any(e["type"] == "turn" for e in events):
                assert not after.contested(), GAME.dump(after)
            if after.phase == "move" and before.phase != "move":
                assert not after.contested()


def test_automatic_games_end_and_every_ending_is_reached() -> None:
    results = set()
    for seed in range(60):
        state = props.play_out(GAME, GAME.start(PLAYERS, seed, 10),
                               props.automatic(GAME, choose_action), 20000)
        assert state.over and GAME.outcome(state) is not None
        results.add((state.winner, state.result))
    assert {("allies", "paris"), ("french", "east")} <= results
    assert {r for _, r in results} >= {"paris", "east", "rounds"}


def test_every_listed_action_applies_and_the_listing_matches_the_reference() -> None:
    for seed in range(6):
        for before, _p, _a, _after, _e in _walk(seed, plies=400, ai_share=0.5):
            for player in [*PLAYERS, "stranger"]:
                legal = GAME.legal_actions(before, player)
                assert legal == napoleon_reference(GAME, before, player)
                assert len(set(legal)) == len(legal)
            acting = GAME.to_act(before)[0]
            legal = GAME.legal_actions(before, acting)
            for action in legal[:: max(1, len(legal) // 25)]:
                GAME.apply(before, acting, action)  # raises if refused


def test_near_miss_moves_are_refused() -> None:
    for _before, _p, _a, after, _e in _walk(3, plies=200):
        if after.phase != "move":
            continue
        acting = GAME.to_act(after)[0]
        legal = set(GAME.legal_actions(after, acting))
        side = after.side_of(acting)
        assert side is not None
        for a in ORDER:
            n = after.armies[side][a] + 1
            for b in ORDER:
                for count in (1, n):
                    action = f"move {count} {a} {b}"
                    if action in legal:
                        continue
                    with pytest.raises(IllegalAction):
                        GAME.apply(after, acting, action)
        break


def test_timeout_is_always_legal_and_ends_the_decision() -> None:
    seen = set()
    checked = 0
    for seed in range(8):
        for before, _p, _a, _after, _e in _walk(seed, plies=300, ai_share=0.6):
            seen.add(before.phase)
            to_act = GAME.to_act(before)
            for p in [*PLAYERS, "stranger"]:
                if p not in to_act:
                    assert GAME.timeout_action(before, p) is None
                    continue
                state, steps = before, 0
                while p in GAME.to_act(state):
                    action = GAME.timeout_action(state, p)
                    assert action is not None and action in GAME.legal_actions(state, p)
                    state, _ = GAME.apply(state, p, action)
                    steps += 1
                    assert steps <= 10
                checked += 1
    assert seen >= {"discard", "move", "choose", "cards", "retreat"}
    assert checked > 1000


def test_timeouts_alone_play_a_whole_game() -> None:
    state = props.play_out(GAME, GAME.new_game(PLAYERS, 9), props.timeouts(GAME), 2000)
    assert state.over and state.result == "rounds" and state.round == 20


def test_reversible_actions_replay_exactly_and_never_pass_chance_or_secrets() -> None:
    verdicts: dict[str, set[bool]] = {}
    for seed in range(8):
        for before, player, action, after, events in _walk(seed, plies=400):
            ok = GAME.reversible(before, after, events)
            verdicts.setdefault(action.split()[0], set()).add(ok)
            if ok:
                assert action.split()[0] in ("move", "march")
                assert before.dice == after.dice and before.deck == after.deck
                assert not any("private_to" in e for e in events)
                replayed, again = GAME.apply(GAME.load(GAME.dump(before)), player, action)
                assert GAME.dump(replayed) == GAME.dump(after) and again == events
    assert verdicts["move"] == {True}
    for verb in ("end", "battle", "ready", "retreat", "discard", "play"):
        assert verdicts.get(verb, {False}) == {False}, verb


def test_same_seed_and_actions_give_the_same_game() -> None:
    lines = []
    for _ in range(2):
        dumps = [GAME.dump(after) for *_, after, _e in _walk(5, plies=600)]
        lines.append(dumps)
    assert lines[0] == lines[1]
    other = [GAME.dump(after) for *_, after, _e in _walk(6, plies=600)]
    assert other != lines[0]


def test_apply_never_changes_its_input_and_positions_continue_exactly() -> None:
    walk = list(_walk(2, plies=300))
    for before, player, action, after, events in walk[::7]:
        frozen = GAME.dump(before)
        copy = GAME.load(frozen)
        again, again_events = GAME.apply(copy, player, action)
        assert GAME.dump(before) == frozen
        assert GAME.dump(again) == GAME.dump(after) and again_events == events


def test_hands_never_leak_into_public_views_events_or_narration() -> None:
    for seed in range(6):
        for _before, _p, _a, after, events in _walk(seed, plies=500):
            public = GAME.view(after, None)
            assert all("hand" not in p for p in public["players"])
            for viewer, side in zip(PLAYERS, SIDES, strict=True):
                view = GAME.view(after, viewer)
                mine = next(p for p in view["players"] if p["id"] == viewer)
                theirs = next(p for p in view["players"] if p["id"] != viewer)
                assert [c["id"] for c in mine["hand"]] == after.hands[side]
                assert "hand" not in theirs
                json.dumps(view)
            for e in events:
                if "private_to" in e:
                    continue
                text = json.dumps(e)
                assert '"cards": [{' not in text  # no card lists but the battle's ids
                if e["type"] in ("draw", "discard", "turn", "reshuffle"):
                    assert not any(f'"{c}"' in text for c in COPIES)
            lines = GAME.narrate(events, {})
            drawn = [c["name"] for e in events if e["type"] == "drawn" for c in e["cards"]]
            played = {c for e in events if e["type"] in ("card", "march")
                      for c in [e["card"]["name"]]}
            for name in drawn:
                if name not in played:
                    assert not any(name in line for line in lines), (name, lines)


test_any_text_is_refused_or_applied_never_crashes = props.any_text_test(
    GAME, lambda: GAME.new_game(PLAYERS, 2), PLAYERS,
    words=("move", "france", "spain", "holland", "3"))
test_any_json_is_a_valid_position_or_refused = props.any_json_test(GAME)
