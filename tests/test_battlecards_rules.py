"""Every Battlecards rule and product ruling, with stacked decks (docs/games/battlecards.md)."""

from __future__ import annotations

import pytest

from engine import IllegalAction, get_game
from engine.battlecards import GAME
from engine.battlecards import battle as bt
from engine.battlecards.cards import CONFLICT
from engine.battlecards.rules import final_result
from tests.battlecards_positions import NAME, position

FILLERS: dict[int, list[str]] = {}
for _rank in ("other", "keep", "battle"):  # plain cards first, then the rest
    for _c in CONFLICT:
        if {"battle": "battle", "keep": "keep"}.get(_c.kind, "other") == _rank:
            FILLERS.setdefault(_c.action_number, []).append(_c.name)


def battles_worth(vp, exclude=()):
    """Battle names (no Total Victory card) whose victory points add up to ``vp``."""
    pool = [c for c in CONFLICT if c.kind == "battle" and not c.total_victory
            and c.name not in exclude]

    def search(i, left):
        if left == 0:
            return []
        if i == len(pool) or left < 0:
            return None
        found = search(i + 1, left - pool[i].vp)
        return [pool[i].name, *found] if found is not None else search(i + 1, left)
    result = search(0, vp)
    assert result is not None
    return result


def shots(*numbers: int) -> list[str]:
    """Conflict cards (not battles, not keep cards) with these Action Numbers, in order."""
    used: dict[int, int] = {}
    out = []
    for n in numbers:
        out.append(FILLERS[n][used.get(n, 0)])
        used[n] = used.get(n, 0) + 1
    return out


def act(state, action, player=None):
    return GAME.apply(state, player or GAME.to_act(state)[0], action)


def kinds(events):
    return [e["type"] for e in events]


def event(events, kind):
    found = [e for e in events if e["type"] == kind]
    assert len(found) == 1, f"expected one {kind} in {kinds(events)}"
    return found[0]


def refused(state, action, match, player=None):
    with pytest.raises(IllegalAction, match=match):
        act(state, action, player)


def fight(state):
    """Draw (the German) and attack (the card's aggressor)."""
    state, e1 = act(state, "draw")
    state, e2 = act(state, "attack")
    return state, e1 + e2


# -- setup and the turn --------------------------------------------------------------

def test_registered_and_seats():
    assert get_game("battlecards") is GAME
    s = GAME.new_game(["a", "b"], 1)
    assert [x.side for x in s.seats] == ["german", "british"]
    with pytest.raises(IllegalAction):
        GAME.new_game(["a"], 1)
    with pytest.raises(IllegalAction):
        GAME.new_game(["a", "b", "c"], 1)


def test_setup_both_deploy_three_in_any_order_then_the_german_draws():
    s = GAME.new_game(["a", "b"], 3)
    assert all(len(x.hand) == 6 for x in s.seats)
    assert GAME.to_act(s) == ["a", "b"]
    assert GAME.legal_actions(s, "b")[:6] == [f"deploy {i}" for i in range(1, 7)]
    s, ev = act(s, "deploy 2", "b")
    assert kinds(ev) == ["deployed", "deployed_card"] and ev[1]["private_to"] == "b"
    for _ in range(2):
        s, _ = act(s, "deploy 1", "b")
    assert GAME.to_act(s) == ["a"] and GAME.view(s, None)["phase"] == "setup"
    refused(s, "deploy 1", "not your move", "b")
    for _ in range(3):
        s, ev = act(s, "deploy 1", "a")
    assert GAME.to_act(s) == ["a"] and s.phase == "draw"
    assert all(len(x.hand) == 3 and sum(map(len, x.stacks.values())) == 3 for x in s.seats)
    assert GAME.legal_actions(s, "a") == ["draw", "emergency", "autofire off"]


def test_units_deploy_only_onto_their_own_stack():
    s = GAME.new_game(["a", "b"], 4)
    for _ in range(3):
        s, _ = act(s, "deploy 1", "a")
    for force, cards in s.seats[0].stacks.items():
        assert all(bt.UNITS[c].stack == force for c in cards)


def test_arsenal_card_draws_privately_and_passes_the_turn():
    s = position(deck=["Lend-Lease Convoy"])
    s, ev = act(s, "draw")
    public = [e for e in ev if "private_to" not in e]
    assert event(ev, "arsenal_drawn")["count"] == 2
    private = event(ev, "arsenal_cards")
    assert private["private_to"] == "g" and len(private["cards"]) == 2
    assert len(s.seats[0].hand) == 2 and s.conflict_discard[-1] == "C20"
    assert all(n not in str(public) for n in private["cards"])
    assert GAME.to_act(s) == ["b"]


def test_keep_card_goes_face_down_behind_the_stacks():
    s = position(deck=["Radar Warning"])
    s, ev = act(s, "draw")
    assert event(ev, "kept")["kept_count"] == 1
    assert event(ev, "kept_card")["private_to"] == "g"
    assert "Radar Warning" not in str(GAME.narrate(ev)) and s.seats[0].kept == ["C43"]
    assert GAME.view(s, None)["players"][0]["kept_count"] == 1


def test_deploy_card_lets_you_deploy_up_to_its_number_then_done():
    s = position(g={"hand": ["1st Panzer Division", "U-47", "KMS Tirpitz"]},
                 deck=["Rail Movement"])
    s, _ = act(s, "draw")
    assert GAME.legal_actions(s, "g") == ["deploy 1", "deploy 2", "deploy 3", "done",
                                          "autofire off"]
    s, _ = act(s, "deploy 2")
    s, _ev = act(s, "deploy 2")  # Tirpitz, now slot 2: second and last deployment
    assert [NAME[c] for c in s.seats[0].stacks["sea"]] == ["U-47", "KMS Tirpitz"]
    assert GAME.to_act(s) == ["b"] and "C28" in s.conflict_discard
    s2 = position(g={"hand": ["1st Panzer Division"]}, deck=["Rail Movement"])
    s2, _ = act(s2, "draw")
    s2, _ = act(s2, "done")
    assert s2.seats[0].hand and GAME.to_act(s2) == ["b"]


def test_deploy_card_with_an_empty_hand_is_simply_discarded():
    s, _ev = act(position(deck=["Rail Movement"]), "draw")
    assert GAME.to_act(s) == ["b"]


def test_scout_shows_one_enemy_stack_privately():
    s = position(b={"stacks": ["HMS Hood", "HMS Kelly"]}, deck=["Enigma Decrypts"])
    s, _ = act(s, "draw")
    assert GAME.legal_actions(s, "g") == ["scout sea", "autofire off"]
    s, ev = act(s, "scout sea")
    assert event(ev, "scout_report") == {"type": "scout_report", "private_to": "g",
                                         "player": "g", "stack": "sea",
                                         "cards": ["HMS Hood", "HMS Kelly"]}
    assert event(ev, "scouted")["count"] == 2 and "Hood" not in str(GAME.narrate(ev))


def test_both_draw_gives_each_player_cards():
    s, _ev = act(position(deck=["War Economy"]), "draw")
    assert [len(x.hand) for x in s.seats] == [2, 2]


def test_emergency_deployment_puts_the_whole_hand_down_instead_of_drawing():
    s = position(g={"hand": ["1st Panzer Division", "U-47", "Jagdgeschwader 3"]})
    deck_before = list(s.conflict_deck)
    s, ev = act(s, "emergency")
    assert s.seats[0].hand == [] and event(ev, "emergency")["counts"] == {
        "ground": 1, "air": 1, "sea": 1}
    assert s.conflict_deck == deck_before and GAME.to_act(s) == ["b"]
    assert GAME.legal_actions(s, "b") == ["draw", "autofire off"]  # no hand, no emergency


# -- drawing a battlecard ------------------------------------------------------------

def test_prerequisites_not_met_discard_the_battle_and_lose_the_turn():
    s = position(deck=["Invasion of Britain"])
    s, ev = act(s, "draw")
    assert event(ev, "prerequisites_unmet")["missing"] == ["Battle of Britain"]
    assert GAME.to_act(s) == ["b"] and s.conflict_discard == ["C07"]


def test_the_aggressor_decides_even_when_the_other_player_drew():
    s = position(turn="g", deck=["Dieppe Raid"], b={"stacks": ["HMS Hood"]},
                 g={"stacks": ["KMS Tirpitz"]})
    s, _ = act(s, "draw")
    assert GAME.to_act(s) == ["b"] and GAME.view(s, None)["phase"] == "decide"
    assert GAME.legal_actions(s, "b") == ["attack", "decline", "autofire off"]
    s, ev = act(s, "decline")
    assert kinds(ev)[0] == "declined" and s.conflict_discard == ["C09"]
    assert GAME.to_act(s) == ["b"] and s.turn == 1  # the drawing German lost the turn


def test_missing_forces_the_other_side_wins_and_neither_ignores():
    s = position(g={"stacks": ["Jagdgeschwader 3"]}, b={"stacks": ["HMS Hood"]},
                 deck=["Battle of Britain"])
    s, ev = fight(s)
    assert event(ev, "walkover")["player"] == "g" and s.seats[0].won == ["C03"]
    assert s.seats[0].stacks["air"] == ["G19"]  # never revealed, still deployed
    s = position(g={"stacks": ["HMS Hood"]} if False else {"stacks": ["U-47"]},
                 b={"stacks": ["HMS Hood"]}, deck=["Battle of Britain"])
    s, ev = fight(s)
    assert "battle_ignored" in kinds(ev) and s.conflict_discard == ["C03"]
    assert GAME.to_act(s) == ["b"]


# -- targeting and shots -------------------------------------------------------------

def test_hit_window_above_defense_up_to_attack():
    # Jagdgeschwader 3 (air attack 6) against No. 19 Squadron (defense vs air 3): 4-6 hit
    for number, hit in [(3, False), (4, True), (6, True), (7, False)]:
        s = position(g={"stacks": ["Jagdgeschwader 3"]}, b={"stacks": ["No. 19 Squadron"]},
                     deck=["Battle of Britain", *shots(number, 1, 1, 1)])
        s, ev = fight(s)
        first = next(e for e in ev if e["type"] == "shot")
        assert (first["shooter"], first["target"], first["action_number"]) == ("a1", "a1",
                                                                              number)
        assert (first["attack"], first["defense"], first["hit"]) == (6, 3, hit)
        assert s.last_shots[0]["action_number"] == number


def test_destroying_every_enemy_unit_wins_the_battle():
    s = position(g={"stacks": ["Jagdgeschwader 3"]}, b={"stacks": ["No. 19 Squadron"]},
                 deck=["Battle of Britain", *shots(5)])
    s, ev = fight(s)
    assert event(ev, "battle_won")["player"] == "g" and s.seats[0].vp == 6
    assert s.seats[1].discard == ["B19"] and s.seats[0].stacks["air"] == ["G19"]
    assert s.battle is None and GAME.to_act(s) == ["b"]


def test_targeting_needs_an_attack_value_at_least_the_defense():
    # the bomber has no attack against Air: it cannot fire; the fighter fires back
    s = position(g={"stacks": ["Kampfgeschwader 2"]}, b={"stacks": ["No. 19 Squadron"]},
                 deck=["Battle of Britain", *shots(1, 8)])
    s, ev = fight(s)
    shot_list = [e for e in ev if e["type"] == "shot"]
    assert {e["shooter_owner"] for e in shot_list} == {"b"}
    b = s.battle
    g_unit, b_unit = b.unit("g", "a1"), b.unit("b", "a1")
    assert not bt.can_target(g_unit, b_unit) and bt.can_target(b_unit, g_unit)
    # attack below defense: infantry (Air attack 2) cannot target a fighter (defense 5 vs
    # Ground); attack equal to defense may target, but never hits
    inf = bt.Unit("g1", "b", "B07")  # 50th Northumbrian Division
    fighter = bt.Unit("a1", "g", "G19")
    armour = bt.Unit("g1", "b", "B01")
    assert not bt.can_target(inf, fighter)
    assert bt.can_target(fighter, armour) and bt.chance(fighter, armour) == 0
    fighter.bonus = 2  # a kept card's bonus counts
    assert bt.chance(fighter, armour) == 2


def test_auto_fire_picks_the_best_legal_target():
    s = position(g={"stacks": ["Jagdgeschwader 3"]},
                 b={"stacks": ["7th Armoured Division", "No. 17 Squadron"
                               if False else "No. 617 Squadron"]},
                 deck=["Battle of France", *shots(1, 1, 3, 3)])
    s, ev = fight(s)
    first = next(e for e in ev if e["type"] == "shot")
    # vs the bomber: attack 6 against defense 2 beats attack 3 against the armour's 3
    assert first["target_name"] == "No. 617 Squadron"


def test_auto_fire_off_asks_for_each_shot():
    s = position(g={"stacks": ["Jagdgeschwader 3"], "autofire": False},
                 b={"stacks": ["No. 19 Squadron", "No. 617 Squadron"]},
                 deck=["Battle of Britain", *shots(1, 1, 1, 1)])
    s, ev = fight(s)
    assert "shot" not in kinds(ev) and GAME.to_act(s) == ["g"]
    assert GAME.view(s, None)["battle"]["phase"] == 1
    assert GAME.legal_actions(s, "g") == ["fire a1 a1", "fire a1 a2", "autofire on"]
    refused(s, "fire a1 a3", "cannot")
    s, ev = act(s, "fire a1 a2")
    assert next(e for e in ev if e["type"] == "shot")["target_name"] == "No. 617 Squadron"
    # the British fighter fires back automatically, the turn comes back for phase 2
    assert [e["shooter_owner"] for e in ev if e["type"] == "shot"] == ["g", "b"]
    assert GAME.to_act(s) == ["g"] and s.battle.phase == 2
    s, ev = act(s, "autofire on")  # switching back fires at once
    assert "shot" in kinds(ev)


# -- supports and kept cards ------------------------------------------------------------

def test_support_units_add_their_bonus_automatically_with_auto_fire():
    s = position(g={"stacks": ["Jagdgeschwader 3", "Adolf Galland"]},
                 b={"stacks": ["No. 19 Squadron"]},
                 deck=["Battle of Britain", *shots(7, 1, 1, 1, 1)])
    s, ev = fight(s)
    sup = event(ev, "support")
    assert (sup["from"], sup["to"], sup["bonus"]) == ("a2", "a1", 1)
    first = next(e for e in ev if e["type"] == "shot")
    assert first["attack"] == 7 and first["hit"]  # 7 hits only with the support


def test_supports_and_kept_cards_are_offered_when_auto_fire_is_off():
    s = position(g={"stacks": ["Jagdgeschwader 3", "Adolf Galland"], "autofire": False,
                    "kept": ["Radar Warning", "Gunnery Drill"]},
                 b={"stacks": ["No. 19 Squadron"]},
                 deck=["Battle of Britain", *shots(9, 1, 1, 1, 1)])
    s, ev = fight(s)
    assert GAME.legal_actions(s, "g") == [
        "play 1 a1", "play 1 a2", "support a2 a1", "pass", "autofire on"]
    s, ev = act(s, "play 1 a1")
    assert event(ev, "kept_played")["card"] == "Radar Warning"  # played: now public
    assert s.seats[0].kept == ["C45"] and "C43" in s.conflict_discard
    s, ev = act(s, "support a2 a1")  # nothing left to play: the firing begins
    assert GAME.legal_actions(s, "g") == ["fire a1 a1", "fire a2 a1", "autofire on"]
    unit = s.battle.unit("g", "a1")
    assert (unit.bonus, unit.support) == (2, 1)
    s, ev = act(s, "fire a1 a1")
    assert event(ev, "shot")["attack"] == 9 and event(ev, "shot")["hit"]


def test_kept_cards_are_asked_for_even_with_auto_fire():
    s = position(g={"stacks": ["Jagdgeschwader 3"], "kept": ["Radar Warning"]},
                 b={"stacks": ["No. 19 Squadron"]},
                 deck=["Battle of Britain", *shots(1, 1, 1, 1)])
    s, ev = fight(s)
    assert GAME.legal_actions(s, "g") == ["play 1 a1", "pass", "autofire off"]
    assert GAME.view(s, None)["phase"] == "battle"
    s, ev = act(s, "pass")
    assert "shot" in kinds(ev)


def test_kept_cards_may_be_played_before_any_shot_with_auto_fire():
    # Offered at the round's start, and again before the next phase in which the
    # holder's units fire (not only once per combat round).
    s = position(g={"stacks": ["Jagdgeschwader 3"], "kept": ["Radar Warning", "Combined Arms"]},
                 b={"stacks": ["No. 19 Squadron"]},
                 deck=["Battle of Britain", *shots(1, 1, 3, 3, 4, 4, 6, 6)])
    s, ev = fight(s)
    assert GAME.legal_actions(s, "g") == ["play 1 a1", "play 2 a1", "pass", "autofire off"]
    s, ev = act(s, "pass")
    assert kinds(ev) == ["shot", "shot"]               # phase 1, both sides
    first = next(e for e in ev if e["shooter_owner"] == "g")["attack"]
    assert (s.battle.step, s.battle.phase, GAME.to_act(s)) == ("ready", 2, ["g"])
    assert "before your units fire in phase 2" in GAME.view(s, None)["prompt"]
    s, ev = act(s, "play 1 a1")
    assert event(ev, "kept_played")["card"] == "Radar Warning"
    assert GAME.legal_actions(s, "g") == ["play 1 a1", "pass", "autofire off"]
    s, ev = act(s, "pass")
    shot = next(e for e in ev if e["type"] == "shot" and e["shooter_owner"] == "g")
    assert shot["attack"] == first + 2                 # Radar Warning: +2 for an Air unit


def test_kept_cards_may_be_played_between_shots_when_firing_by_hand():
    s = position(g={"stacks": ["Jagdgeschwader 3"], "autofire": False,
                    "kept": ["Radar Warning"]},
                 b={"stacks": ["No. 19 Squadron"]},
                 deck=["Battle of Britain", *shots(1, 1, 3, 3, 4, 4, 6, 6)])
    s, _ = fight(s)
    s, _ = act(s, "pass")
    assert GAME.legal_actions(s, "g") == ["play 1 a1", "fire a1 a1", "autofire on"]
    s, ev = act(s, "fire a1 a1")                      # phase 1 without the card
    assert [e["shooter_owner"] for e in ev if e["type"] == "shot"] == ["g", "b"]
    first = ev[0]["attack"]
    assert s.battle.phase == 2 and "play 1 a1" in GAME.legal_actions(s, "g")
    before = s.battle.unit("g", "a1").bonus
    s, ev = act(s, "play 1 a1")                       # before the phase-2 shot
    assert event(ev, "kept_played")["ref"] == "a1" and "shot" not in kinds(ev)
    assert s.battle.unit("g", "a1").bonus == before + 2
    s, ev = act(s, "fire a1 a1")
    g_shot = next(e for e in ev if e["type"] == "shot" and e["shooter_owner"] == "g")
    assert g_shot["attack"] == first + 2               # the bonus is in the shot


# -- withdrawals, stalemate ------------------------------------------------------------

def _round_of_misses():
    return ["Battle of Britain", *shots(1, 1, 1, 2, 3, 3, 3, 7, 7, 7, 7, 8)]


def test_withdrawals_after_phase_four_aggressor_then_defender():
    s = position(g={"stacks": ["Jagdgeschwader 3", "Jagdgeschwader 26"]},
                 b={"stacks": ["No. 19 Squadron"]}, deck=_round_of_misses())
    s, ev = fight(s)
    assert GAME.view(s, None)["phase"] == "withdraw" and GAME.to_act(s) == ["g"]
    assert GAME.legal_actions(s, "g") == ["withdraw a1", "withdraw a2", "stay",
                                          "autofire off"]
    s, ev = act(s, "withdraw a1")
    assert event(ev, "withdraw")["ref"] == "a1" and GAME.to_act(s) == ["g"]
    s, _ = act(s, "stay")
    assert GAME.to_act(s) == ["b"]
    s, ev = act(s, "withdraw a1")  # the defender pulls out its only unit: the German wins
    assert event(ev, "battle_won")["player"] == "g"
    assert sorted(s.seats[0].stacks["air"]) == ["G19", "G20"]  # withdrawn and survivor
    assert s.seats[1].stacks["air"] == ["B19"]


def test_aggressor_withdrawing_everything_loses_the_battle():
    s = position(g={"stacks": ["Jagdgeschwader 3"]}, b={"stacks": ["No. 19 Squadron"]},
                 deck=_round_of_misses())
    s, _ = fight(s)
    s, ev = act(s, "withdraw a1")
    assert event(ev, "battle_won")["player"] == "b" and s.seats[1].vp == 6


def test_both_stay_and_a_new_round_begins():
    s = position(g={"stacks": ["Jagdgeschwader 3"]}, b={"stacks": ["No. 19 Squadron"]},
                 deck=["Battle of Britain", *shots(1, 1, 2, 3, 5)])
    s, _ = fight(s)
    s, _ = act(s, "stay")
    s, ev = act(s, "stay")
    assert event(ev, "battle_won")["player"] == "g"  # round 2, phase 1: the 5 hits


def test_stalemate_the_aggressor_must_withdraw_and_the_defender_takes_the_card():
    # a fighter against armour: legal targets both ways, but no Action Number can hit
    s = position(g={"stacks": ["Jagdgeschwader 3"]}, b={"stacks": ["7th Armoured Division"]},
                 deck=["Battle of France"])
    s, ev = fight(s)
    assert "stalemate" in kinds(ev) and event(ev, "battle_won")["player"] == "b"
    assert s.seats[0].stacks["air"] == ["G19"]


def test_a_kept_card_that_could_break_the_deadlock_is_no_stalemate():
    s = position(g={"stacks": ["Jagdgeschwader 3"], "kept": ["Combined Arms"]},
                 b={"stacks": ["7th Armoured Division"]}, deck=["Battle of France"])
    s, ev = fight(s)
    assert "stalemate" not in kinds(ev) and GAME.legal_actions(s, "g")[0] == "play 1 a1"


# -- special victory conditions ---------------------------------------------------------

def test_battle_of_france_ends_when_every_british_ground_unit_is_destroyed():
    s = position(g={"stacks": ["1st Panzer Division"]},
                 b={"stacks": ["7th Armoured Division", "No. 19 Squadron"]},
                 deck=["Battle of France", *shots(6)])
    s, ev = fight(s)
    assert event(ev, "battle_won")["player"] == "g"
    assert s.seats[1].stacks["air"] == ["B19"] and s.seats[1].discard == ["B01"]


def test_dunkirk_evacuation_gives_the_british_the_card():
    s = position(g={"stacks": ["1st Panzer Division"], "won": ["Battle of France"]},
                 b={"stacks": ["7th Armoured Division"]},
                 deck=["Dunkirk", *shots(1, 1, 1, 2, 3, 3, 3)])
    s, ev = fight(s)
    s, _ = act(s, "stay")
    s, ev = act(s, "withdraw g1")
    assert "evacuation" in kinds(ev) and event(ev, "battle_won")["player"] == "b"


# -- reshuffles -----------------------------------------------------------------------

def test_empty_conflict_deck_reshuffles_its_discard_pile():
    all_but_one = [c.name for c in CONFLICT if c.name != "Supply Lines"]
    s = position(deck=["Supply Lines"], discard=all_but_one)
    s, _ = act(s, "draw")
    assert len(s.conflict_deck) == 0 and len(s.conflict_discard) == 50
    s2, _ev = act(s, "draw")
    assert len(s2.conflict_deck) + len(s2.conflict_discard) + len(s2.seats[1].kept) == 50
    again, _ = act(s, "draw")
    assert GAME.dump(again) == GAME.dump(s2)  # seeded: the same shuffle every time


def test_empty_arsenal_reshuffles_its_discard_pile():
    s = position(g={"deck": [], "discard": ["1st Panzer Division", "U-47"]},
                 deck=["Lend-Lease Convoy"])
    seat = s.seats[0]
    # move the whole arsenal into the discard pile
    seat.discard += seat.deck
    seat.deck = []
    s = GAME.load(GAME.dump(s))
    s, _ev = act(s, "draw")
    assert len(s.seats[0].hand) == 2 and len(s.seats[0].deck) == 45
    assert s.seats[0].discard == []


# -- winning ------------------------------------------------------------------------

def test_invasion_of_britain_is_total_victory():
    s = position(g={"stacks": ["Jagdgeschwader 3"], "won": ["Battle of Britain"]},
                 b={"stacks": ["No. 19 Squadron"]}, deck=["Invasion of Britain", *shots(5)])
    s, ev = fight(s)
    out = GAME.outcome(s)
    assert out.winners == ("g",) and "Total Victory" in out.reason
    assert GAME.to_act(s) == [] and kinds(ev)[-1] == "game_over"


def test_battle_for_germany_is_total_victory_even_for_the_defender():
    s = position(g={"stacks": ["Jagdgeschwader 3"]},
                 b={"stacks": ["No. 19 Squadron"], "won": ["Normandy Landings"]},
                 deck=["Battle for Germany", *shots(1, 5)], turn="g")
    s, _ = act(s, "draw")
    s, _ev = act(s, "attack")
    # the British attack; the German fighter (defender) fires after the British one misses
    assert GAME.outcome(s).winners == ("g",) and s.result == "total"


def test_the_invaded_homeland_may_deploy_its_reserve_first():
    s = position(g={"stacks": ["Jagdgeschwader 3"], "won": ["Battle of Britain"]},
                 b={"stacks": ["No. 19 Squadron"], "hand": ["No. 74 Squadron"]},
                 deck=["Invasion of Britain", *shots(1, 1, 1, 1)])
    s, _ = fight(s)
    assert GAME.to_act(s) == ["b"] and GAME.legal_actions(s, "b") == [
        "emergency", "pass", "autofire off"]
    s, _ev = act(s, "emergency")
    assert len([u for u in s.battle.units if u.owner == "b"]) == 2


def test_standard_victory_at_38():
    for before, over in [(31, False), (32, True)]:
        won = battles_worth(before, exclude=["Battle of Britain"])
        s = position(g={"stacks": ["Jagdgeschwader 3"], "won": won},
                     b={"stacks": ["No. 19 Squadron"]}, deck=["Battle of Britain", *shots(5)])
        s, _ = fight(s)
        assert s.seats[0].vp == before + 6 and s.over == over
        if over:
            assert GAME.outcome(s).winners == ("g",) and s.result == "standard"


def test_the_game_ends_after_the_last_battle():
    # With 75 VP in the deck, whoever holds the majority when the last battle is won has
    # already passed 38, and the Total Victory cards end the game when won: the rule is
    # implemented (the higher total wins, a tie is a draw) but real play reaches a
    # Standard Victory first. Checked directly.
    assert final_result({"g": 37, "b": 38}) == ("b", "last_battle")
    assert final_result({"g": 20, "b": 10}) == ("g", "last_battle")
    assert final_result({"g": 30, "b": 30}) == (None, "draw")


def test_resign_ends_the_game_for_the_opponent():
    s = GAME.new_game(["a", "b"], 1)
    s, _ev = act(s, "resign", "b")
    assert GAME.outcome(s).winners == ("a",) and GAME.to_act(s) == []
    refused(s, "draw", "over", "a")


def test_a_game_resigned_mid_battle_saves_and_loads():
    # a resignation ends the game at once, in the middle of the battle; the position as
    # it stood, battle included, must still read back, or the stored game is lost
    s = position(g={"stacks": ["Jagdgeschwader 3"], "autofire": False},
                 b={"stacks": ["No. 19 Squadron", "No. 617 Squadron"]},
                 deck=["Battle of Britain", *shots(1, 1, 1, 1)])
    s, _ev = fight(s)
    assert GAME.view(s, None)["phase"] == "battle"
    s, _ev = act(s, "resign", "b")
    assert GAME.outcome(s).winners == ("g",)
    again = GAME.load(GAME.dump(s))
    assert GAME.dump(again) == GAME.dump(s) and GAME.outcome(again).winners == ("g",)
    assert GAME.view(again, None)["battle"] is not None
