"""Napoleonic Wars' rules on scripted positions (docs/games/napoleon.md).

Dice are scripted with the position's ``forced`` list. In a battle they are used in this
order: the attacker's die, the defender's die, the winner's casualty die, the loser's two
casualty dice.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from engine import GAMES, IllegalAction
from engine.napoleon import GAME
from engine.napoleon.board import COUNTRIES, ORDER, SEA_POWER
from engine.napoleon.cards import BY_ID, DECK, markdown
from engine.napoleon.notation import VERBS, parse
from engine.napoleon.state import POOL, retreats
from engine.verbs import verb_named
from tests.napoleon_positions import A, F, of, play, position

DOC = Path(__file__).resolve().parent.parent / "docs" / "games" / "napoleon.md"


def refused(state: object, player: str, action: str, match: str) -> None:
    """``player`` may not do ``action`` here, for the reason ``match`` finds."""
    with pytest.raises(IllegalAction, match=match):
        GAME.apply(state, player, action)


# -- the game and its setup ---------------------------------------------------------------

def test_the_game_is_registered_with_its_option_and_verbs() -> None:
    assert GAMES["napoleon"] is GAME
    assert GAME.min_players == GAME.max_players == 2
    assert [o.name for o in GAME.options] == ["rounds"] and GAME.options[0].default == 20
    assert [v.name for v in GAME.verbs] == ["move", "march", "end", "battle", "play", "ready",
                                            "retreat", "discard"]


def test_setup_follows_the_seed_and_the_french_draw_first() -> None:
    s = GAME.new_game([F, A], 1)
    assert {c: n for c, n in s.armies["french"].items() if n} == {
        "france": 20, "rhineland": 4, "holland": 2, "denmark": 2, "spain": 2, "portugal": 2,
        "italy": 2, "naples": 2, "switzerland": 2, "egypt": 2}
    assert {c: n for c, n in s.armies["allies"].items() if n} == {
        "england": 10, "russia": 10, "austria": 10, "prussia": 10}
    assert s.pool("french") == s.pool("allies") == 40
    assert s.turn == "french" and s.phase == "move" and s.round == 1
    assert len(s.hands["french"]) == 2 and s.hands["allies"] == []
    assert len(s.deck) == len(DECK) - 2
    assert GAME.to_act(s) == [F] and GAME.current_turn(s) == F
    view = GAME.view(s, None)
    assert [c["id"] for c in view["countries"]] == list(ORDER) and len(ORDER) == 17
    assert view["scores"] == {"french": 14, "allies": 10}
    assert sorted(c["id"] for c in view["countries"] if not c["control"]) == [
        "ottoman", "sweden", "warsaw"]


def test_the_deck_is_shuffled_by_the_seed() -> None:
    assert GAME.new_game([F, A], 1).deck == GAME.new_game([F, A], 1).deck
    assert GAME.new_game([F, A], 1).deck != GAME.new_game([F, A], 2).deck
    assert sorted(GAME.new_game([F, A], 3).deck + GAME.new_game([F, A], 3).hands["french"]) \
        == sorted(DECK)


def test_rounds_option() -> None:
    assert GAME.new_game([F, A], 1, {"rounds": 12}).rounds == 12
    with pytest.raises(IllegalAction):
        GAME.new_game([F, A], 1, {"rounds": 7})
    assert GAME.view(GAME.new_game([F, A], 1), F)["rounds"] == 20


# -- battles ---------------------------------------------------------------------------------

def test_the_seeds_casualty_example() -> None:
    # winner 10 armies rolling 4 loses 4; loser 6 armies rolling 11 (5+6) loses all 6
    s = position({"rhineland": 10}, {"austria": 6}, forced=[6, 1, 4, 5, 6])
    s, events = play(s, "move 10 rhineland austria", "end")
    (battle,) = of(events, "battle")
    assert battle["armies"] == {"french": 10, "allies": 6}
    assert battle["dice"] == {"french": 6, "allies": 1}
    assert battle["force"] == {"french": 16, "allies": 8}
    assert battle["winner"] == "french" and battle["loser"] == "allies"
    assert battle["casualty_dice"] == {"winner": [4], "loser": [5, 6]}
    assert battle["losses"] == {"french": 4, "allies": 6} and not battle["capped"]
    assert s.armies["french"]["austria"] == 6 and s.armies["allies"]["austria"] == 0
    assert not of(events, "retreat") and not of(events, "destroyed")
    assert s.dice.forced == []


def test_the_winner_never_loses_more_than_twice_the_losers_armies() -> None:
    s = position({"rhineland": 10}, {"austria": 1}, forced=[6, 1, 6, 1, 1])
    s, events = play(s, "move 10 rhineland austria", "end")
    (battle,) = of(events, "battle")
    assert battle["winner"] == "french"
    assert battle["losses"] == {"french": 2, "allies": 0} and battle["capped"]  # not 6
    assert s.armies["french"]["austria"] == 8


def test_a_loser_never_loses_more_than_it_has() -> None:
    s = position({"rhineland": 10}, {"austria": 3}, forced=[6, 1, 1, 6, 6])
    s, events = play(s, "move 10 rhineland austria", "end")
    assert of(events, "battle")[0]["losses"] == {"french": 1, "allies": 3}


def test_a_tie_goes_to_the_defender_who_has_one_more() -> None:
    # 5 + 4 against 4 + 1 + 4: equal, the Allies defend and win
    s = position({"rhineland": 5}, {"austria": 4}, forced=[4, 4, 1, 1, 1])
    s, events = play(s, "move 5 rhineland austria", "end")
    (battle,) = of(events, "battle")
    assert battle["force"] == {"french": 9, "allies": 9}
    assert battle["winner"] == "allies" and battle["defender"] == "allies"
    # the beaten French (5 - 1) choose where to go: it is their own turn
    assert s.phase == "retreat" and GAME.to_act(s) == [F]
    assert s.armies["french"]["austria"] == 4


def test_the_defender_adds_one() -> None:
    # 5 + 3 = 8 against 5 + 1 + 1 = 7: the attacker wins by one
    s = position({"rhineland": 5}, {"austria": 5}, forced=[3, 1, 1, 1, 1])
    _, events = play(s, "move 5 rhineland austria", "end")
    (battle,) = of(events, "battle")
    assert battle["force"] == {"french": 8, "allies": 7} and battle["winner"] == "french"


def test_cards_add_their_bonus_and_only_their_side_may_play_them() -> None:
    s = position({"rhineland": 8}, {"austria": 8}, forced=[3, 3, 1, 1, 1],
                 hands={"french": ["austerlitz", "paris", "ulm"],
                        "allies": ["aspern", "wellington", "jena"]})
    s, _ = play(s, "move 8 rhineland austria", "end")
    assert s.phase == "cards" and GAME.to_act(s) == [F]
    # a card for the Allies, a card for another country: not listed, refused
    assert GAME.legal_actions(s, F) == ["play austerlitz", "ready"]
    refused(s, F, "play paris", "favours the Allies")
    refused(s, F, "play ulm", "Rhineland")
    refused(s, A, "play aspern", "not your move")
    s, events = play(s, "play austerlitz")
    assert of(events, "card")[0]["card"]["id"] == "austerlitz"
    assert GAME.view(s, None)["battle"]["cards"][0]["id"] == "austerlitz"  # face up
    s, _ = play(s, "ready")
    # the defender's card step, on the French turn
    assert GAME.to_act(s) == [A] and GAME.current_turn(s) == F
    assert GAME.legal_actions(s, A) == ["play aspern", "play wellington", "ready"]
    s, events = play(s, "play aspern", "play wellington", "ready")
    (battle,) = of(events, "battle")
    assert battle["cards"] == {"french": ["austerlitz"], "allies": ["aspern", "wellington"]}
    assert battle["bonus"] == {"french": 2, "allies": 4}
    assert battle["force"] == {"french": 13, "allies": 16} and battle["winner"] == "allies"
    assert s.phase == "retreat" and GAME.view(s, None)["battle"]["cards"][2]["id"] == "wellington"
    s, _ = play(s, "retreat rhineland")  # the battle is over: its cards are discarded
    assert {"austerlitz", "aspern", "wellington"} <= set(s.discard)
    assert s.hands["french"] == ["paris", "ulm"] and s.hands["allies"][0] == "jena"


def test_a_card_step_is_skipped_only_with_an_empty_hand() -> None:
    # the French hold nothing: skipped; the Allies hold only a French card: still asked
    s = position({"rhineland": 8}, {"austria": 8}, hands={"allies": ["jena"]},
                 forced=[6, 1, 1, 1, 1])
    s, _ = play(s, "move 8 rhineland austria", "end")
    assert s.battle is not None and s.battle.step == "defender"
    assert GAME.to_act(s) == [A] and GAME.legal_actions(s, A) == ["ready"]
    assert GAME.view(s, F)["prompt"] == "Battle in Austria: the Allies may play cards, then `ready`"


def test_forced_march_is_played_in_the_move_phase_only() -> None:
    s = position({"rhineland": 8}, {"austria": 8}, hands={"french": ["forced-march"]})
    s, _ = play(s, "move 8 rhineland austria", "end")
    assert GAME.legal_actions(s, F) == ["ready"]
    refused(s, F, "play forced-march", "move phase")


def test_the_attacker_picks_the_order_of_battles() -> None:
    s = position({"france": 1, "rhineland": 6, "italy": 6}, {"austria": 2, "switzerland": 2},
                 forced=[6, 1, 1, 1, 1, 6, 1, 1, 1, 1])
    s, _ = play(s, "move 3 rhineland switzerland", "move 6 italy austria", "end")
    assert s.phase == "choose" and GAME.to_act(s) == [F]
    assert GAME.legal_actions(s, F) == ["battle austria", "battle switzerland"]
    assert GAME.view(s, None)["battles_left"] == ["austria", "switzerland"]
    refused(s, F, "battle italy", "no battle")
    s, events = play(s, "battle switzerland")
    battles = of(events, "battle")
    # Switzerland first (its beaten Allies can only go to Italy); the last battle then
    # starts by itself
    assert [b["country"] for b in battles] == ["switzerland", "austria"]
    assert of(events, "retreat")[0]["to"] == "italy"
    assert s.phase == "retreat" and GAME.view(s, None)["battles_left"] == []


# -- retreats ------------------------------------------------------------------------------

def test_the_loser_chooses_among_several_retreats_on_the_other_players_turn() -> None:
    s = position({"rhineland": 10}, {"austria": 5}, forced=[6, 1, 1, 1, 1])
    s, events = play(s, "move 10 rhineland austria", "end")
    assert s.phase == "retreat" and GAME.to_act(s) == [A] and GAME.current_turn(s) == F
    options = GAME.legal_actions(s, A)
    assert options == [f"retreat {c}" for c in ("russia", "prussia", "rhineland", "italy",
                                                 "switzerland", "warsaw", "ottoman")]
    view = GAME.view(s, None)
    assert view["battle"]["step"] == "retreat" and view["battle"]["retreats"][0] == "russia"
    refused(s, A, "retreat france", "cannot retreat")
    s, events = play(s, "retreat warsaw")
    assert of(events, "retreat") == [{"type": "retreat", "side": "allies", "from": "austria",
                                      "to": "warsaw", "count": 4}]
    assert s.armies["allies"]["warsaw"] == 4 and s.armies["allies"]["austria"] == 0


def test_a_single_retreat_is_automatic_and_never_into_enemy_armies() -> None:
    s = position({"prussia": 12, "austria": 3}, {"warsaw": 5}, forced=[6, 1, 1, 1, 1])
    s, events = play(s, "move 10 prussia warsaw", "end")
    assert of(events, "retreat") == [{"type": "retreat", "side": "allies", "from": "warsaw",
                                      "to": "russia", "count": 4}]
    assert s.turn == "allies"  # nothing was asked


def test_with_nowhere_to_go_the_survivors_are_destroyed() -> None:
    s = position({"prussia": 12, "austria": 3, "russia": 2}, {"warsaw": 5},
                 forced=[6, 1, 1, 1, 1])
    s, events = play(s, "move 10 prussia warsaw", "end")
    assert of(events, "destroyed") == [{"type": "destroyed", "side": "allies",
                                        "country": "warsaw", "count": 4}]
    assert s.armies["allies"]["warsaw"] == 0 and s.pool("allies") == POOL


def test_nobody_ever_retreats_into_england() -> None:
    empty = {c: 0 for c in ORDER}
    armies = {"french": dict(empty), "allies": dict(empty)}
    for side in ("french", "allies"):
        for country in ORDER:
            assert SEA_POWER not in retreats(armies, side, country)


# -- moving ----------------------------------------------------------------------------------

def test_england_sails_to_any_coastal_country_and_nobody_goes_back() -> None:
    s = position({"spain": 2}, {"england": 5, "holland": 2}, turn="allies")
    legal = GAME.legal_actions(s, A)
    sails = {a.split()[3] for a in legal if a.startswith("move 1 england ")}
    assert sails == {c for c in ORDER if COUNTRIES[c].coastal and c != SEA_POWER}
    assert not {"switzerland", "rhineland", "austria", "warsaw"} & sails
    assert not any(a.endswith(" england") for a in legal)
    refused(s, A, "move 1 england switzerland", "no coast")
    refused(s, A, "move 1 holland england", "never go back to England")
    s, _ = play(s, "move 5 england egypt")
    assert s.armies["allies"]["egypt"] == 5


def test_the_french_never_enter_england() -> None:
    s = position({"france": 5, "holland": 2}, {"england": 1})
    assert not any(a.endswith(" england") for a in GAME.legal_actions(s, F))
    refused(s, F, "move 1 holland england", "French can never enter England")


def test_each_army_moves_once_and_stacks_split_any_way() -> None:
    s = position({"france": 10, "spain": 2})
    s, events = play(s, "move 3 france spain", "move 4 france holland")
    assert [e["count"] for e in of(events, "move")] == [3, 4]
    assert s.armies["french"]["france"] == 3 and s.moved["spain"] == 3
    assert "move 2 spain portugal" in GAME.legal_actions(s, F)
    assert "move 3 spain portugal" not in GAME.legal_actions(s, F)
    refused(s, F, "move 5 spain portugal", "only 2 armies in Spain that can move")
    refused(s, F, "move 1 holland rhineland", "only 0 armies in Holland")
    refused(s, F, "move 1 france austria", "does not border")
    s, _ = play(s, "move 2 spain portugal")
    assert s.armies["french"]["spain"] == 3 and s.moved["spain"] == 3
    assert not any(a.startswith("move ") and a.split()[2] == "spain"
                   for a in GAME.legal_actions(s, F))
    assert GAME.view(s, None)["countries"][ORDER.index("spain")]["moved"] == 3


def test_every_legal_count_is_listed_in_canonical_spelling() -> None:
    s = position({"naples": 3})
    assert GAME.legal_actions(s, F) == ["move 1 naples italy", "move 2 naples italy",
                                        "move 3 naples italy", "end"]
    # typed-out countries and the count last are read too
    s2, _ = play(s, "Move 2 Kingdom of Naples Kingdom of Italy")
    s3, _ = play(s, "move naples italy 2")
    assert GAME.dump(s2) == GAME.dump(s3)


def test_forced_march_moves_a_stack_once_more() -> None:
    s = position({"rhineland": 6}, {"russia": 1}, hands={"french": ["forced-march", "ulm"]})
    refused(s, F, "march rhineland", "None of your armies moved into")
    s, _ = play(s, "move 6 rhineland switzerland")
    assert "march switzerland" in GAME.legal_actions(s, F)
    assert not any(a.startswith("move") for a in GAME.legal_actions(s, F))
    s, events = play(s, "march switzerland")
    (march,) = of(events, "march")
    assert march["count"] == 6 and march["card"]["id"] == "forced-march"
    assert s.hands["french"] == ["ulm"] and s.discard[-1] == "forced-march"
    s, _ = play(s, "move 6 switzerland austria")
    assert s.armies["french"]["austria"] == 6
    refused(s, F, "march austria", "no Forced March")


# -- reinforcements ----------------------------------------------------------------------------

def test_reinforcements_skip_prussia_russia_and_austria_for_the_french() -> None:
    s = position({"france": 1, "prussia": 1, "austria": 1, "holland": 1},
                 {"russia": 3, "england": 1})
    s, events = play(s, "end")
    (reinforce,) = of(events, "reinforce")
    assert reinforce["placed"] == {"france": 4, "holland": 1} and reinforce["lost"] == 0
    assert s.armies["french"]["prussia"] == s.armies["french"]["austria"] == 1
    s, events = play(s, "end")  # the Allies get theirs, Russia included
    assert of(events, "reinforce")[0]["placed"] == {"england": 3, "russia": 3}


def test_reinforcements_beyond_the_pool_are_lost_in_map_order() -> None:
    s = position({"france": 75, "holland": 1, "spain": 1}, {"england": 1})
    assert s.pool("french") == 3
    s, events = play(s, "end")
    (reinforce,) = of(events, "reinforce")
    assert reinforce["placed"] == {"france": 3} and reinforce["lost"] == 3
    assert s.pool("french") == 0 and s.on_map("french") == POOL


def test_destroyed_armies_go_back_to_the_pool() -> None:
    s = position({"rhineland": 10}, {"austria": 6, "england": 1}, forced=[6, 1, 4, 5, 6])
    s, _ = play(s, "move 10 rhineland austria", "end")
    assert s.pool("allies") == POOL - 1 and s.pool("french") == POOL - 6


# -- cards in hand -----------------------------------------------------------------------------

SEVEN = ["austerlitz", "ulm", "jena", "friedland", "wagram", "dresden", "paris"]


def test_over_seven_cards_the_player_chooses_what_to_discard() -> None:
    s = position({"france": 1}, {"england": 1}, hands={"allies": SEVEN})
    s, events = play(s, "end")
    assert s.turn == "allies" and s.phase == "discard" and GAME.to_act(s) == [A]
    assert of(events, "draw")[0]["count"] == 2 and len(s.hands["allies"]) == 9
    assert GAME.view(s, None)["prompt"].startswith("The Allies must discard 2 cards")
    legal = GAME.legal_actions(s, A)
    assert legal[:7] == [f"discard {c}" for c in SEVEN]
    refused(s, A, "end", "You cannot `end` now")
    s, events = play(s, "discard paris")
    assert [e["type"] for e in events] == ["discard", "discarded"]
    assert events[1]["private_to"] == A and events[1]["card"]["id"] == "paris"
    assert "card" not in events[0]
    assert s.phase == "discard"
    s, _ = play(s, "discard ulm")
    assert s.phase == "move" and len(s.hands["allies"]) == 7
    assert s.discard[-2:] == ["paris", "ulm"]


def test_an_empty_deck_reshuffles_the_discards() -> None:
    others = [c for c in DECK if c != "paris"]
    s = position({"france": 1}, {"england": 1}, deck=["paris"], discard=others)
    s, events = play(s, "end")
    (reshuffle,) = of(events, "reshuffle")
    assert reshuffle["count"] == len(others)
    assert s.hands["allies"][0] == "paris" and len(s.hands["allies"]) == 2
    assert len(s.deck) == len(others) - 1 and s.discard == []
    assert of(events, "draw")[0]["deck_count"] == len(others) - 1


# -- victory -------------------------------------------------------------------------------------

def test_the_allies_win_by_holding_france_at_the_end_of_their_turn() -> None:
    s = position({"spain": 3}, {"holland": 5}, turn="allies")
    s, events = play(s, "move 5 holland france", "end")
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.winners == (A,) and s.result == "paris"
    assert events[-1]["type"] == "victory" and events[-1]["side"] == "allies"
    assert GAME.to_act(s) == [] and GAME.current_turn(s) is None
    assert GAME.view(s, F)["outcome"]["winners"] == [A]


def test_the_allies_win_when_france_is_still_theirs_after_a_french_turn() -> None:
    s = position({"spain": 3}, {"france": 2, "england": 1})
    s, _ = play(s, "end")
    assert s.winner == "allies" and s.result == "paris"


def test_the_french_win_by_holding_the_east_at_the_end_of_their_turn() -> None:
    s = position({"prussia": 3, "austria": 3, "russia": 3, "france": 5}, {"england": 3})
    s, _ = play(s, "end")
    assert s.winner == "french" and s.result == "east"
    assert GAME.outcome(s).winners == (F,)


def test_holding_the_east_after_an_allied_turn_is_not_yet_a_win() -> None:
    s = position({"prussia": 3, "austria": 3, "russia": 3, "france": 5}, {"england": 3},
                 turn="allies")
    s, _ = play(s, "end")
    assert not s.over and s.turn == "french"
    s, _ = play(s, "end")
    assert s.winner == "french"


def test_when_both_conditions_hold_the_fall_of_paris_wins() -> None:
    s = position({"prussia": 3, "austria": 3, "russia": 3}, {"france": 3})
    s, _ = play(s, "end")
    assert s.winner == "allies" and s.result == "paris"


def test_the_round_limit_counts_reinforcement_values_and_ties_go_to_the_allies() -> None:
    # French: France 4 + Spain 1 + Italy 1 = 6; Allies: England 3 + Russia 3 = 6
    base = {"round": 20, "rounds": 20, "turn": "allies"}
    s, events = play(position({"france": 1, "spain": 1, "italy": 1},
                              {"england": 1, "russia": 1}, **base), "end")
    assert s.winner == "allies" and s.result == "rounds"
    assert events[-1]["scores"] == {"french": 6, "allies": 6}
    assert "a tie goes to the Allies" in GAME.outcome(s).reason
    # one more country (Holland 1) and the French win
    s, _ = play(position({"france": 1, "spain": 1, "italy": 1, "holland": 1},
                         {"england": 1, "russia": 1}, **base), "end")
    assert s.winner == "french" and s.result == "rounds"
    # Russia, Austria and Prussia count their table value for the French too
    s, _ = play(position({"russia": 1, "austria": 1}, {"england": 1}, **base), "end")
    assert s.winner == "french"


def test_the_last_round_ends_after_the_allied_turn() -> None:
    s = position({"france": 1}, {"england": 1}, round=20, rounds=20)
    s, _ = play(s, "end")
    assert not s.over and s.turn == "allies" and s.round == 20
    s, events = play(s, "end")
    assert s.over and s.round == 20 and of(events, "victory")


def test_a_round_passes_after_the_allied_turn() -> None:
    s = position({"france": 1}, {"england": 1}, round=3)
    s, events = play(s, "end")
    assert s.round == 3 and of(events, "turn")[0] == {"type": "turn", "side": "allies",
                                                       "round": 3, "player": A}
    s, events = play(s, "end")
    assert s.round == 4 and s.turn == "french"


def test_resigning_gives_the_game_to_the_other_side_even_out_of_turn() -> None:
    s = position({"france": 1}, {"england": 1})
    s, events = GAME.apply(s, A, "resign")
    assert s.winner == "french" and s.result == "resigned"
    assert [e["type"] for e in events] == ["resign", "victory"]
    refused(s, F, "end", "over")


def test_a_game_resigned_at_any_moment_is_stored_and_loaded_whole() -> None:
    # in the middle of a battle (its cards go to the discard pile) or while the side on
    # turn still has cards to discard, the finished position must load again
    seen_phases: set[str] = set()
    for seed in range(120):
        rng = random.Random(seed)
        state = GAME.new_game([F, A], seed)
        for _ in range(rng.randrange(1, 260)):
            if GAME.outcome(state) is not None:
                break
            actor = GAME.to_act(state)[0]
            state, _ = GAME.apply(state, actor, rng.choice(GAME.legal_actions(state, actor)))
        if GAME.outcome(state) is not None:
            continue
        seen_phases.add(state.phase)
        cards = sorted(c for s in (state.hands["french"], state.hands["allies"],
                                   state.deck, state.discard) for c in s)
        if state.battle is not None:
            cards = sorted(cards + state.battle.cards["french"] + state.battle.cards["allies"])
        over, _ = GAME.apply(state, rng.choice([F, A]), "resign")
        loaded = GAME.load(GAME.dump(over))
        assert GAME.dump(loaded) == GAME.dump(over)
        assert sorted(c for s in (loaded.hands["french"], loaded.hands["allies"],
                                  loaded.deck, loaded.discard) for c in s) == cards
    assert {"discard", "cards", "move"} <= seen_phases


# -- secrets ---------------------------------------------------------------------------------

def test_views_show_only_the_viewers_own_hand() -> None:
    s = position({"rhineland": 8}, {"austria": 8},
                 hands={"french": ["austerlitz"], "allies": ["aspern", "paris"]})
    s, _ = play(s, "move 8 rhineland austria", "end")
    for viewer, side, shown in ((F, 0, ["austerlitz"]), (A, 1, ["aspern", "paris"])):
        view = GAME.view(s, viewer)
        assert [c["id"] for c in view["players"][side]["hand"]] == shown
        assert "hand" not in view["players"][1 - side]
        assert view["players"][1 - side]["hand_count"] == len(s.hands[("french", "allies")
                                                                      [1 - side]])
    public = json.dumps(GAME.view(s, None))
    assert "austerlitz" not in public and "aspern" not in public and "paris" not in public
    assert "aspern" not in json.dumps(GAME.view(s, F))
    assert "austerlitz" not in json.dumps(GAME.view(s, A))


def test_narration_hides_cards_drawn_and_discarded() -> None:
    s = position({"france": 1}, {"england": 1}, hands={"allies": SEVEN}, deck=[
        "leipzig", "waterloo", *[c for c in DECK if c not in (*SEVEN, "leipzig", "waterloo")]])
    s, events = play(s, "end", "discard paris")
    lines = GAME.narrate(events, {F: "Napoleon", A: "Wellington"})
    text = " ".join(lines)
    assert "Wellington (Allies) draws 2 cards" in text and "discards a card face down" in text
    for card in ("Leipzig", "Waterloo", "Paris"):
        assert card not in text
    # the owner is told (the platform strips private_to for them)
    private = [{k: v for k, v in e.items() if k != "private_to"} for e in events
               if e.get("private_to") == A]
    told = GAME.narrate(private, {A: "you"})
    assert told == ["You draw Leipzig (+3 Allies in Rhineland) and Waterloo (+3 Allies in "
                    "Holland).", "You discard The Battle of Paris (+3 Allies in France)."]


def test_choice_labels_read_only_the_given_view() -> None:
    s = position({"france": 20, "rhineland": 2}, {"england": 2},
                 hands={"french": ["austerlitz", "forced-march"], "allies": ["paris"]})
    mine = GAME.view(s, F)
    assert GAME.choice_labels(mine, "country", ["france", "england", "nowhere"]) == [
        "france · France (20 French, 0 Allied)", "england · England (0 French, 2 Allied)",
        "nowhere"]
    assert GAME.choice_labels(mine, "card", ["austerlitz", "forced-march"]) == [
        "austerlitz · Austerlitz: +2 French in Austria",
        "forced-march · Forced March: move a stack again"]
    # the other player's card is only ever shown as its bare id
    assert GAME.choice_labels(mine, "card", ["paris"]) == ["paris"]
    assert GAME.choice_labels(GAME.view(s, A), "card", ["austerlitz"]) == ["austerlitz"]
    assert GAME.choice_labels(GAME.view(s, None), "card", ["austerlitz"]) == ["austerlitz"]
    assert GAME.choice_labels(mine, "count", ["1", "2"]) == ["1", "2"]


# -- notation and verbs ----------------------------------------------------------------------

def test_verbs_build_the_notation_with_natural_names() -> None:
    move = verb_named(VERBS, "move")
    assert move.template == "move {count} {from} {to}"
    assert [a.name for a in move.args] == ["from", "to", "count"]
    assert move.arg("count").high == 80
    assert move.notation({"from": "Ottoman Empire", "to": "Russia", "count": 3}) \
        == "move 3 ottoman russia"
    assert move.notation({"from": "Great Britain", "to": "The Netherlands", "count": 2}) \
        == "move 2 england holland"
    assert move.notation({"from": "france · France (20 French, 0 Allied)", "to": "spain",
                          "count": 1}) == "move 1 france spain"
    aliases = {"confederation of the rhine": "rhineland", "kingdom of italy": "italy",
               "kingdom of naples": "naples", "britain": "england", "duchy of warsaw": "warsaw",
               "netherlands": "holland", "ottoman empire": "ottoman"}
    for typed, cid in aliases.items():
        assert verb_named(VERBS, "retreat").notation({"to": typed}) == f"retreat {cid}"
    assert verb_named(VERBS, "play").notation({"card": "The Russian Winter"}) \
        == "play russian-winter"
    legal = ["move 1 france spain", "move 2 france spain", "move 1 italy naples", "end"]
    assert move.candidates(legal, "count", {"from": "france", "to": "spain"}) == ["1", "2"]
    assert all(re.fullmatch(r"[a-z0-9-]+", c) for c in BY_ID)


@pytest.mark.parametrize("text,message", [
    ("move", "Write `move <count>"), ("move 3 france", "Write `move <count>"),
    ("move 0 france spain", "at least 1"), ("move 3 france atlantis", "not a country"),
    ("battle", "Write `battle <country>"), ("play", "Write `play <card>"),
    ("play marengo", "not a card"), ("jump", "don't know"), ("retreat", "Write `retreat"),
])
def test_bad_notation_is_explained(text: str, message: str) -> None:
    with pytest.raises(IllegalAction, match=re.escape(message)):
        parse(text)


def test_actions_are_case_insensitive() -> None:
    s = position({"france": 3})
    a, _ = GAME.apply(s, F, "  MOVE 2   France  Spain ")
    b, _ = GAME.apply(s, F, "move 2 france spain")
    assert GAME.dump(a) == GAME.dump(b)
    refused(s, "stranger", "end", "not playing")
    refused(s, A, "end", "not your move")


# -- the clock and undo -----------------------------------------------------------------------

def test_timeout_defaults_in_every_phase() -> None:
    # discard: the least useful card (one the Allies cannot play goes first)
    s = position({"france": 1}, {"england": 1}, hands={"allies": [
        "wellington", "paris", "russian-winter", "aspern", "kulm", "leipzig", "austerlitz"]})
    s, _ = play(s, "end")
    assert s.phase == "discard"
    assert GAME.timeout_action(s, A) == "discard austerlitz" and GAME.timeout_action(s, F) is None
    # move: end
    s = position({"france": 5}, {"spain": 1})
    assert GAME.timeout_action(s, F) == "end"
    # choose: the first battle; cards: ready; retreat: the first place offered
    s = position({"rhineland": 6, "italy": 6}, {"austria": 2, "switzerland": 2},
                 hands={"french": ["austerlitz"], "allies": ["aspern"]},
                 forced=[6, 1, 1, 1, 1])
    s, _ = play(s, "move 3 rhineland switzerland", "move 6 italy austria", "end")
    assert GAME.timeout_action(s, F) == "battle austria"
    s, _ = play(s, "battle austria")
    assert GAME.timeout_action(s, F) == "ready" and GAME.timeout_action(s, A) is None
    s, _ = play(s, "ready")
    assert GAME.timeout_action(s, A) == "ready"
    s, _ = play(s, "ready")
    assert s.phase == "retreat"
    assert GAME.timeout_action(s, A) == GAME.legal_actions(s, A)[0] == "retreat russia"


def _undoable(state: object, action: str) -> bool:
    after, events = GAME.apply(state, GAME.to_act(state)[0], action)
    return GAME.reversible(state, after, events)


def test_only_moves_and_forced_marches_may_be_undone() -> None:
    s = position({"rhineland": 6, "italy": 6}, {"austria": 2, "switzerland": 2},
                 hands={"french": ["forced-march", "austerlitz"], "allies": ["aspern"]},
                 forced=[6, 1, 1, 1, 1, 6, 1, 1, 1, 1])
    assert _undoable(s, "move 3 rhineland switzerland")
    s, _ = play(s, "move 3 rhineland switzerland")
    assert _undoable(s, "march switzerland")
    s, _ = play(s, "move 6 italy austria")
    assert not _undoable(s, "end")
    s, _ = play(s, "end")
    assert not _undoable(s, "battle austria")  # no event, yet it cannot be taken back
    s, _ = play(s, "battle austria")
    assert not _undoable(s, "play austerlitz") and not _undoable(s, "ready")
    s, _ = play(s, "ready")
    assert not _undoable(s, "ready")  # the defender's: dice roll
    s, _ = play(s, "ready")
    assert not _undoable(s, "retreat russia")
    d = position({"france": 1}, {"england": 1}, hands={"allies": SEVEN})
    d, _ = play(d, "end")
    assert not _undoable(d, "discard paris")


# -- narration ------------------------------------------------------------------------------------

def test_a_battle_is_told_in_one_line_with_forces_dice_and_losses() -> None:
    s = position({"rhineland": 10}, {"austria": 6}, forced=[6, 1, 4, 5, 6],
                 hands={"french": ["austerlitz"]})
    s, events = play(s, "move 10 rhineland austria", "end", "play austerlitz", "ready")
    lines = GAME.narrate(events, {F: "Napoleon", A: "Kutuzov"})
    assert "Napoleon (French) plays Austerlitz (+2 French in Austria) in Austria." in lines
    battle = next(line for line in lines if line.startswith("Battle in Austria"))
    assert battle == ("Battle in Austria: French 10 armies + Austerlitz +2 + die 6 = 18 "
                      "against Allies 6 armies + 1 defending + die 1 = 8. The French win. "
                      "Losses: French 4 (die 4), Allies 6 (dice 5+6).")
    assert "French: 10 armies Rhineland → Austria." in lines


def test_every_public_event_is_narrated() -> None:
    s = GAME.new_game([F, A], 4)
    from engine.napoleon.ai import choose_action
    kinds: set[str] = set()
    while GAME.to_act(s):
        p = GAME.to_act(s)[0]
        s, events = GAME.apply(s, p, choose_action(GAME, s, p))
        for e in events:
            if "private_to" not in e:
                kinds.add(e["type"])
                assert GAME.narrate([e], {}), e
    assert {"move", "battle", "reinforce", "turn", "draw", "victory"} <= kinds


# -- the position format -------------------------------------------------------------------------

def test_an_empty_position_is_the_setup_with_the_defaults() -> None:
    s = GAME.load("{}")
    assert s.players == ["french", "allies"] and s.turn == "french" and s.phase == "move"
    assert s.round == 1 and s.rounds == 20 and s.armies["french"]["france"] == 20
    assert sorted(s.deck) == sorted(DECK) and s.hands == {"french": [], "allies": []}
    assert s.deck == GAME.load('{"seed": 0}').deck != GAME.load('{"seed": 1}').deck
    assert GAME.load(GAME.dump(s)) == s


def test_a_hand_written_position_round_trips() -> None:
    text = json.dumps({"players": ["nap", "wel"], "turn": "allies", "round": 5,
                       "armies": {"french": {"france": 12, "spain": 3},
                                  "allies": {"england": 4, "portugal": 6}},
                       "hands": {"allies": ["torres-vedras"]}, "forced": [6, 6]})
    s = GAME.load(text)
    assert s.players == ["nap", "wel"] and s.turn == "allies" and s.round == 5
    assert s.hands["allies"] == ["torres-vedras"] and s.dice.forced == [6, 6]
    assert len(s.deck) == len(DECK) - 1
    again = GAME.load(GAME.dump(s))
    assert again == s and GAME.dump(again) == GAME.dump(s)
    assert GAME.to_act(s) == ["wel"]


@pytest.mark.parametrize("data,message", [
    ({"armies": {"french": {"atlantis": 3}}}, "armies.french: unknown country 'atlantis'"),
    ({"armies": {"allies": {"russia": -3}}}, "armies.allies.russia: -3 is negative"),
    ({"armies": {"french": {"france": 81}}}, "armies.french.france: 81 is above 80"),
    ({"armies": {"french": {"france": 50, "spain": 31}}}, "81 armies on the map, more than"),
    ({"armies": {"french": {"england": 1}}}, "the French can never be in England"),
    ({"armies": {"prussians": {}}}, "'prussians' is not a side"),
    ({"hands": {"french": ["austerliz"]}}, "hands.french[0]: unknown card 'austerliz'"),
    ({"hands": {"french": ["paris"], "allies": ["paris"]}},
     "card 'paris' is in 2 places (hands.french, hands.allies)"),
    ({"hands": {"french": ["ulm"]}, "discard": ["ulm"]}, "card 'ulm' is in 2 places"),
    ({"deck": ["ulm"]}, "is missing"),
    ({"hands": {"french": [*SEVEN, "kulm"]}}, "hands.french: 8 cards, over the limit of 7"),
    ({"phase": "discard"}, "a discard is due only over 7"),
    ({"phase": "cards"}, "phase cards needs a battle"),
    ({"phase": "choose"}, "two or more contested"),
    ({"phase": "teatime"}, "'teatime' is not one of"),
    ({"turn": "prussia"}, "turn: 'prussia' is not a side"),
    ({"round": 21}, "round: 21 is above 20"),
    ({"rounds": 0}, "rounds: 0 is below 1"),
    ({"forced": [7]}, "forced[0]: 7 is above 6"),
    ({"moved": {"france": 21}}, "moved.france"),
    ({"phase": "over"}, "a finished game"),
    ({"players": ["a"]}, "two player ids"),
    ({"armys": {}}, "unknown field 'armys'"),
    ({"format": "chess/1"}, "format must be"),
    ({"battle": {"country": "austria"}}, "there is no battle in phase move"),
])
def test_bad_positions_say_what_and_where(data: dict[str, object], message: str) -> None:
    with pytest.raises(IllegalAction, match=re.escape(message)):
        GAME.load(json.dumps(data))


def test_bad_battle_positions() -> None:
    armies = {"french": {"austria": 3}, "allies": {"austria": 2}}
    ok = GAME.load(json.dumps({"armies": armies, "phase": "cards",
                               "battle": {"country": "austria",
                                          "cards": {"french": ["austerlitz"]}}}))
    assert ok.battle is not None and ok.battle.cards["french"] == ["austerlitz"]
    assert GAME.load(GAME.dump(ok)) == ok
    for battle, message in (
            ({"country": "austria", "cards": {"french": ["paris"]}}, "cannot play paris"),
            ({"country": "spain"}, "must hold armies of both sides"),
            ({"country": "austria", "step": "retreat"}, "belongs to phase retreat")):
        with pytest.raises(IllegalAction, match=message):
            GAME.load(json.dumps({"armies": armies, "phase": "cards", "battle": battle}))
    with pytest.raises(IllegalAction, match="names the side that lost"):
        GAME.load(json.dumps({"armies": armies, "phase": "retreat",
                              "battle": {"country": "austria"}}))
    with pytest.raises(IllegalAction, match="nowhere to retreat"):
        GAME.load(json.dumps({"armies": {"french": {"austria": 3, "italy": 1, "rhineland": 1,
                                                    "switzerland": 1, "prussia": 1,
                                                    "warsaw": 1, "russia": 1, "ottoman": 1},
                                         "allies": {"austria": 2}},
                              "phase": "retreat",
                              "battle": {"country": "austria", "loser": "allies"}}))


def test_not_json_is_refused_clearly() -> None:
    with pytest.raises(IllegalAction, match="Not a valid Napoleonic Wars position: not JSON"):
        GAME.load("{armies")
    with pytest.raises(IllegalAction, match="must be an object"):
        GAME.load("[]")


# -- the doc ---------------------------------------------------------------------------------------

def test_the_docs_card_table_is_the_generated_one() -> None:
    text = DOC.read_text(encoding="utf-8")
    start, end = "<!-- cards:begin -->\n", "<!-- cards:end -->"
    assert start in text and end in text
    table = text.split(start, 1)[1].split(end, 1)[0]
    assert table == markdown(), (
        "regenerate the table with `python -m engine.napoleon.cardlist` between the markers")
