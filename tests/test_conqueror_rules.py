"""Every Conqueror rule and product ruling, with scripted dice (docs/games/conqueror.md)."""

from __future__ import annotations

import pytest

from engine import IllegalAction
from engine.conqueror import GAME
from engine.conqueror.rules import ap_income, defender_numbers
from tests.conqueror_positions import position, soldiers


def act(state, action, player=None):
    return GAME.apply(state, player or GAME.to_act(state)[0], action)


def event(events, kind):
    found = [e for e in events if e["type"] == kind]
    assert len(found) == 1, f"expected one {kind} event in {events}"
    return found[0]


def sq(state, name):
    return state.board[name]


# -- board, seats, start -------------------------------------------------------

@pytest.mark.parametrize("n,bases", [(2, ["a1", "f6"]), (3, ["a1", "f6", "f1"]),
                                     (4, ["a1", "f6", "f1", "a6"])])
def test_bases_by_player_count(n, bases):
    players = [f"p{i}" for i in range(n)]
    s = GAME.new_game(players, seed=1)
    assert [seat.base for seat in s.seats] == bases
    for seat in s.seats:
        base = sq(s, seat.base)
        assert (base.resource, base.owner, base.soldiers) == ("base", seat.id, 1)
        assert seat.base_health == 5
    # seat 1 has begun round 1 with 2 AP; everyone else starts empty
    assert s.round == 1 and GAME.to_act(s) == ["p0"]
    assert (s.seats[0].ap, s.seats[0].gold, s.seats[0].lumber) == (2, 0, 0)
    assert all((x.ap, x.gold, x.lumber) == (0, 0, 0) for x in s.seats[1:])
    assert sum(1 for q in s.board.values() if q.resource == "hidden") == 36 - n


@pytest.mark.parametrize("bad", [["a"], ["a", "b", "c", "d", "e"], ["a", "a"], ["a", ""]])
def test_new_game_refuses_bad_seats(bad):
    with pytest.raises(IllegalAction):
        GAME.new_game(bad, seed=1)


# -- rounds and income ---------------------------------------------------------

def test_round_advances_when_seat_one_begins():
    s = GAME.new_game(["a", "b", "c"], seed=3)
    s, _ = act(s, "end")
    s, _ = act(s, "end")
    assert s.round == 1
    s, events = act(s, "end")
    assert s.round == 2 and GAME.to_act(s) == ["a"]
    assert event(events, "turn_start")["round"] == 2


@pytest.mark.parametrize("rnd,income", [(1, 2), (10, 2), (11, 4), (15, 4), (16, 5), (40, 5)])
def test_ap_income_by_round(rnd, income):
    assert ap_income(rnd) == income
    s = position(round=rnd - 1 or 1, turn="B", A={"ap": 0})  # B ends: A begins round rnd
    s, events = act(s, "end")
    assert s.round == max(rnd, 2) and s.seats[0].ap == ap_income(s.round)
    if rnd > 1:
        assert s.seats[0].ap == income
    assert event(events, "turn_start")["ap"] == income


def test_ap_cap_discards_excess_and_says_so():
    s = position(turn="B", A={"ap": 4})
    s, events = act(s, "end")
    start = event(events, "turn_start")
    assert s.seats[0].ap == 5 and start["ap_lost"] == 1


def test_harvest_one_per_square_and_forts_harvest_unmanned():
    s = position(turn="B", board={
        "b2": soldiers("A", 3, "gold"),          # 3 soldiers, still 1 gold
        "c2": soldiers("A", 1, "gold"),
        "b3": soldiers("A", 1, "lumber"),
        "c3": {"resource": "lumber", "fort": "A"},  # unmanned fort harvests
        "d4": soldiers("A", 2, "blank"),
        "e5": soldiers("B", 1, "gold"),          # not A's
    }, A={"ap": 0})
    s, events = act(s, "end")
    start = event(events, "turn_start")
    assert (start["gold"], start["lumber"]) == (2, 2)
    assert (s.seats[0].gold, s.seats[0].lumber) == (2, 2)


def test_harvest_caps_at_five_and_reports_loss():
    s = position(turn="B", board={"b2": soldiers("A", 1, "gold"),
                                   "c2": soldiers("A", 1, "gold")}, A={"gold": 4, "ap": 0})
    s, events = act(s, "end")
    assert s.seats[0].gold == 5 and event(events, "turn_start")["gold_lost"] == 1


# -- discovering resources -------------------------------------------------------

@pytest.mark.parametrize("roll,resource", [(1, "gold"), (4, "gold"), (2, "lumber"),
                                           (5, "lumber"), (3, "blank"), (6, "blank")])
def test_discovery_die(roll, resource):
    s = position(board={"a1": {"owner": "A", "soldiers": 1}}, dice=[roll])
    s, events = act(s, "move a1 b2 1")
    assert sq(s, "b2").resource == resource
    assert event(events, "discover") == {"type": "discover", "square": "b2", "rolls": [roll],
                                         "resource": resource, "rerolled": False}


def test_third_blank_in_a_quadrant_is_rerolled_until_not_blank():
    s = position(board={"a1": {"owner": "A", "soldiers": 1},
                        "a3": {"resource": "blank"}, "c1": {"resource": "blank"}},
                 dice=[3, 6, 3, 5])
    s, events = act(s, "move a1 b2 1")
    d = event(events, "discover")
    assert d["rolls"] == [3, 6, 3, 5] and d["resource"] == "lumber" and d["rerolled"]


def test_blanks_in_other_quadrants_and_bases_do_not_count():
    # two blanks in the d1-f3 quadrant, none in a1-c3: a blank stands in a1-c3
    s = position(board={"a1": {"owner": "A", "soldiers": 1},
                        "d1": {"resource": "blank"}, "e2": {"resource": "blank"}},
                 dice=[3])
    s, _ = act(s, "move a1 b2 1")
    assert sq(s, "b2").resource == "blank"


def test_revealed_squares_are_not_rolled_again():
    s = position(board={"a1": {"owner": "A", "soldiers": 1}, "b2": {"resource": "gold"}},
                 dice=[3])
    s, events = act(s, "move a1 b2 1")
    assert not [e for e in events if e["type"] == "discover"]
    assert s.dice.forced == [3]


# -- moving ----------------------------------------------------------------------

def test_move_costs_one_ap_and_moves_a_stack():
    s = position(board={"b2": soldiers("A", 5)}, A={"ap": 2})
    s, _ = act(s, "move b2 c3 4")  # c3 hidden
    assert s.seats[0].ap == 1
    assert (sq(s, "b2").soldiers, sq(s, "c3").soldiers, sq(s, "c3").owner) == (1, 4, "A")


def test_same_soldiers_move_again_while_ap_lasts_then_refused():
    s = position(board={"b2": soldiers("A", 1), "c3": {"resource": "gold"},
                        "d4": {"resource": "gold"}}, A={"ap": 2})
    s, _ = act(s, "move b2 c3 1")
    s, _ = act(s, "move c3 d4 1")
    with pytest.raises(IllegalAction, match="costs 1 AP and you have 0"):
        act(s, "move d4 e5 1")


def test_move_count_defaults_to_whole_stack():
    s = position(board={"b2": soldiers("A", 3), "c2": {"resource": "gold"}})
    s, _ = act(s, "move b2 c2")
    assert sq(s, "c2").soldiers == 3 and sq(s, "b2").soldiers == 0
    assert s.last_move["action"] == "move b2 c2 3"


@pytest.mark.parametrize("action,message", [
    ("move b2 d4 1", "not next to"),
    ("move b2 c3 4", "move 1-3"),
    ("move b2 c3 0", "move 1-3"),
    ("move c4 c5 1", "no soldiers on c4"),
    ("move e5 e4 1", "no soldiers on e5"),   # B's soldiers
    ("move b2 a1 1", "cannot return to their base"),
])
def test_illegal_moves_explain_why(action, message):
    s = position(board={"b2": soldiers("A", 3), "e5": soldiers("B", 2)})
    with pytest.raises(IllegalAction, match=message):
        act(s, action)


def test_stack_limit_six_and_four_on_a_fort():
    s = position(board={"b2": soldiers("A", 3), "c3": soldiers("A", 4),
                        "b3": soldiers("A", 2, fort="A")})
    with pytest.raises(IllegalAction, match="At most 6"):
        act(s, "move b2 c3 3")
    s2, _ = act(s, "move b2 c3 2")
    assert sq(s2, "c3").soldiers == 6
    with pytest.raises(IllegalAction, match="At most 4 soldiers fit on a square with a fort"):
        act(s, "move b2 b3 3")
    s3, _ = act(s, "move b2 b3 2")
    assert sq(s3, "b3").soldiers == 4


# -- recruiting, converting, forts --------------------------------------------------

def test_recruit_costs_gold_and_appears_on_base():
    s = position(board={"a1": {"owner": "A", "soldiers": 2}}, A={"gold": 4})
    s, _ = act(s, "recruit 3")
    assert (s.seats[0].gold, sq(s, "a1").soldiers) == (1, 5)
    with pytest.raises(IllegalAction, match="costs 2 gold and you have 1"):
        act(s, "recruit 2")
    s = position(board={"a1": {"owner": "A", "soldiers": 5}}, A={"gold": 4})
    with pytest.raises(IllegalAction, match="holds at most 6"):
        act(s, "recruit 2")


def test_convert_lumber_and_ap_and_refuse_past_cap():
    s = position(A={"lumber": 3, "ap": 2, "gold": 0})
    s, _ = act(s, "convert lumber")
    assert (s.seats[0].lumber, s.seats[0].gold) == (1, 1)
    s, _ = act(s, "convert ap")
    assert (s.seats[0].ap, s.seats[0].gold) == (1, 3)
    with pytest.raises(IllegalAction, match="needs 2 lumber and you have 1"):
        act(s, "convert lumber")
    s = position(A={"ap": 2, "gold": 4})
    with pytest.raises(IllegalAction, match="over the cap of 5"):
        act(s, "convert ap")


def test_fort_costs_and_conditions():
    rich = {"lumber": 2, "gold": 2, "ap": 2}
    s = position(board={"c3": soldiers("A", 2, "gold")}, A=rich)
    s2, _ = act(s, "fort c3")
    assert sq(s2, "c3").fort_owner == "A"
    assert (s2.seats[0].lumber, s2.seats[0].gold, s2.seats[0].ap) == (0, 0, 0)
    with pytest.raises(IllegalAction, match="costs 2 lumber, 2 gold and 2 AP"):
        act(position(board={"c3": soldiers("A", 2)}, A={"lumber": 2, "gold": 2, "ap": 1}),
            "fort c3")
    with pytest.raises(IllegalAction, match="need a soldier on c4"):
        act(s, "fort c4")
    with pytest.raises(IllegalAction, match="at most 4 soldiers"):
        act(position(board={"c3": soldiers("A", 5)}, A=rich), "fort c3")
    with pytest.raises(IllegalAction, match="base"):
        act(position(board={"a1": {"owner": "A", "soldiers": 1}}, A=rich), "fort a1")
    with pytest.raises(IllegalAction, match="already has a fort"):
        act(position(board={"c3": soldiers("A", 1, fort="A")}, A=rich), "fort c3")
    four = {f: {"resource": "blank", "fort": "A"} for f in ["b4", "c4", "d4", "e4"]}
    with pytest.raises(IllegalAction, match="4 forts standing"):
        act(position(board={**four, "c3": soldiers("A", 1)}, A=rich), "fort c3")


def test_raze_own_fort_free_and_not_others():
    s = position(board={"c3": soldiers("A", 1, fort="A"), "d4": {"resource": "gold",
                                                                  "fort": "B"}}, A={"ap": 0})
    s2, _ = act(s, "raze c3")
    assert sq(s2, "c3").fort_owner is None and sq(s2, "c3").soldiers == 1
    assert s2.seats[0].ap == 0 and s2.seats[0].gold == 0
    with pytest.raises(IllegalAction, match="no fort on d4"):
        act(s, "raze d4")


# -- battles against soldiers ------------------------------------------------------

@pytest.mark.parametrize("diff,k", [(5, 1), (2, 1), (1, 2), (0, 3), (-1, 4), (-2, 5), (-4, 5)])
def test_defender_numbers_by_difference(diff, k):
    assert defender_numbers(4 + diff, 4) == k


def battle(a, d, dice=None, fort=False):
    extra = {"fort": "B"} if fort else {}
    s = position(board={"b2": soldiers("A", a), "c3": soldiers("B", d, **extra)}, dice=dice)
    s, events = act(s, f"move b2 c3 {a}")
    return s, event(events, "battle")


def test_absolute_victory_six_against_two():
    s, b = battle(6, 2)
    assert b["rule"] == "absolute" and b["attacker_losses"] == 0
    assert (sq(s, "c3").owner, sq(s, "c3").soldiers, sq(s, "b2").soldiers) == ("A", 6, 0)
    assert "defender_rolls" not in b


def test_more_than_twice_wins_without_dice_losing_defender_count():
    s, b = battle(5, 2)
    assert b["rule"] == "overwhelming"
    assert (sq(s, "c3").owner, sq(s, "c3").soldiers) == ("A", 3)
    assert s.dice.forced == []


def test_defender_more_than_twice_attack_fails_without_dice():
    s, b = battle(1, 3)
    assert b["rule"] == "hopeless" and b["attacker_losses"] == 1
    assert (sq(s, "b2").soldiers, sq(s, "c3").soldiers, sq(s, "c3").owner) == (0, 3, "B")


def test_even_fight_attacker_wins_loses_one_and_moves_in():
    # k = 3: defender rolls 2, 2, 5, 1 (repeat ignored) -> numbers 2, 5, 1; attacker 6 wins
    s, b = battle(3, 3, dice=[2, 2, 5, 1, 6])
    assert b["k"] == 3 and b["defender_rolls"] == [2, 2, 5, 1]
    assert b["defender_numbers"] == [2, 5, 1] and b["attacker_roll"] == 6
    assert b["winner"] == "attacker" and b["attacker_losses"] == 1
    assert (sq(s, "c3").owner, sq(s, "c3").soldiers, sq(s, "b2").soldiers) == ("A", 2, 0)


def test_even_fight_defender_wins_attacker_loses_half_rounded_up():
    s, b = battle(3, 3, dice=[2, 5, 1, 5])
    assert b["winner"] == "defender" and b["attacker_losses"] == 2
    assert (sq(s, "b2").soldiers, sq(s, "c3").owner, sq(s, "c3").soldiers) == (1, "B", 3)


def test_one_more_attacker_k2_win_costs_nothing_loss_costs_one():
    s, b = battle(3, 2, dice=[4, 4, 6, 1])
    assert (b["k"], b["winner"], b["attacker_losses"]) == (2, "attacker", 0)
    assert sq(s, "c3").soldiers == 3
    s, b = battle(3, 2, dice=[4, 6, 6])
    assert (b["winner"], b["attacker_losses"]) == ("defender", 1)
    assert sq(s, "b2").soldiers == 2


def test_two_more_attackers_k1():
    s, b = battle(4, 2, dice=[3, 3])
    assert (b["k"], b["winner"], b["attacker_losses"]) == (1, "defender", 1)
    s, b = battle(4, 2, dice=[3, 4])
    assert (b["winner"], b["attacker_losses"], sq(s, "c3").soldiers) == ("attacker", 0, 4)


def test_outnumbered_attacks_k4_and_k5():
    s, b = battle(2, 3, dice=[1, 2, 3, 4, 5])
    assert (b["k"], b["winner"], b["attacker_losses"]) == (4, "attacker", 1)
    assert (sq(s, "c3").owner, sq(s, "c3").soldiers) == ("A", 1)
    s, b = battle(3, 5, dice=[1, 2, 3, 4, 5, 2])
    assert (b["k"], b["winner"], b["attacker_losses"]) == (5, "defender", 2)


def test_one_against_one_win_leaves_square_empty():
    s, b = battle(1, 1, dice=[1, 2, 3, 4])
    assert b["winner"] == "attacker" and b["survivors"] == 0
    assert (sq(s, "c3").soldiers, sq(s, "c3").owner, sq(s, "b2").soldiers) == (0, None, 0)


# -- forts -------------------------------------------------------------------------

def test_undefended_fort_captured_without_battle():
    s = position(board={"b2": soldiers("A", 2), "c3": {"resource": "gold", "fort": "B"}},
                 A={"gold": 5, "lumber": 1})
    s, events = act(s, "move b2 c3 2")
    cap = event(events, "capture_fort")
    assert not [e for e in events if e["type"] == "battle"]
    assert sq(s, "c3").fort_owner is None and sq(s, "c3").owner == "A"
    assert (s.seats[0].gold, s.seats[0].lumber) == (5, 2) and cap["gold_lost"] == 1


def test_ownerless_fort_of_eliminated_player_captured():
    s = position(players=3, board={"b2": soldiers("A", 1), "c3": {"resource": "gold",
                                                                  "fort": ""}},
                 C={"out": True})
    s, events = act(s, "move b2 c3 1")
    assert event(events, "capture_fort")["previous_owner"] is None
    assert sq(s, "c3").fort_owner is None and s.seats[0].gold == 1


def test_defended_fort_fights_as_soldiers_plus_two_and_stands():
    # 3 attack a fort with 1 soldier: D = 3, k = 3; attacker wins but stays home
    s, b = battle(3, 1, dice=[1, 2, 3, 6], fort=True)
    assert (b["kind"], b["strength"], b["k"], b["winner"]) == ("fort", 3, 3, "attacker")
    assert b["attacker_losses"] == 1
    assert (sq(s, "c3").soldiers, sq(s, "c3").fort_owner, sq(s, "b2").soldiers) == (0, "B", 2)


def test_defended_fort_holds_and_attacker_pays():
    s, b = battle(3, 1, dice=[1, 2, 3, 2], fort=True)
    assert (b["winner"], b["attacker_losses"]) == ("defender", 2)
    s, b = battle(1, 2, fort=True)  # D = 4 > 2 * 1
    assert b["rule"] == "hopeless" and sq(s, "b2").soldiers == 0


# -- bases -------------------------------------------------------------------------

def base_attack(a, defenders=0, dice=None, health=5):
    board = {"e5": soldiers("A", a)}
    if defenders:
        board["f6"] = {"owner": "B", "soldiers": defenders}
    s = position(board=board, dice=dice, B={"base_health": health})
    s, events = act(s, f"move e5 f6 {a}")
    return s, event(events, "battle"), events


def test_base_attack_always_k3_even_when_overwhelming():
    s, b, _ = base_attack(6, 0, dice=[1, 2, 3, 4])
    assert (b["kind"], b["k"], b["winner"], b["damage"]) == ("base", 3, "attacker", 3)
    assert s.seats[1].base_health == 2
    assert (sq(s, "e5").soldiers, sq(s, "f6").owner) == (3, None)  # half lost, rest stay


@pytest.mark.parametrize("a,damage", [(1, 0), (3, 0), (4, 1), (5, 2), (6, 3)])
def test_base_damage_is_attackers_minus_three(a, damage):
    s, b, _ = base_attack(a, 0, dice=[1, 2, 3, 6])
    assert b["damage"] == damage and s.seats[1].base_health == 5 - damage
    assert sq(s, "e5").soldiers == a - (a + 1) // 2


def test_base_attack_lost_still_costs_half_and_does_no_damage():
    s, b, _ = base_attack(5, 2, dice=[1, 2, 3, 3])
    assert (b["winner"], b["damage"], b["attacker_losses"]) == ("defender", 0, 3)
    assert (sq(s, "f6").soldiers, sq(s, "e5").soldiers, s.seats[1].base_health) == (2, 2, 5)


def test_base_defenders_removed_when_base_attack_wins():
    s, b, _ = base_attack(4, 3, dice=[1, 2, 3, 4])
    assert b["defender_losses"] == 3 and sq(s, "f6").soldiers == 0
    assert s.seats[1].base_health == 4 and sq(s, "f6").resource == "base"


def test_base_destroyed_eliminates_and_last_base_wins():
    s = position(board={"e5": soldiers("A", 6), "d4": soldiers("B", 2),
                        "c4": {"resource": "gold", "fort": "B"}},
                 dice=[1, 2, 3, 4], B={"base_health": 2})
    s, events = act(s, "move e5 f6 6")
    assert event(events, "eliminated") == {"type": "eliminated", "player": "B",
                                           "reason": "base destroyed"}
    over = event(events, "game_over")
    assert over["winners"] == ["A"] and over["standings"] == ["A", "B"]
    assert sq(s, "d4").soldiers == 0 and sq(s, "c4").fort_owner == ""
    assert sq(s, "f6").resource == "ruin"
    assert GAME.to_act(s) == [] and GAME.outcome(s).winners == ("A",)
    with pytest.raises(IllegalAction, match="over"):
        act(s, "end", player="A")


def test_elimination_in_three_player_game_leaves_ownerless_forts_and_ruin():
    s = position(players=3, board={"e5": soldiers("A", 6), "d4": soldiers("B", 2),
                                   "c4": {"resource": "gold", "fort": "B"}},
                 dice=[1, 2, 3, 4], B={"base_health": 1})
    s, _ = act(s, "move e5 f6 6")
    assert GAME.outcome(s) is None and s.seats[1].out
    view = GAME.view(s, None)
    assert view["board"]["c4"] == {"resource": "gold", "base_of": None, "owner": None,
                                   "soldiers": 0, "fort": True, "fort_owner": None}
    assert view["board"]["f6"]["resource"] == "ruin"
    # the turn order now skips B; anyone may walk into the ruin, which yields nothing
    s, _ = act(s, "end")
    assert GAME.to_act(s) == ["C"]
    s2 = position(board={"e5": soldiers("A", 1), "f6": {"resource": "ruin"}},
                  players=3, B={"out": True})
    s2, ev = act(s2, "move e5 f6 1")
    assert sq(s2, "f6").owner == "A" and not [e for e in ev if e["type"] == "discover"]


# -- resigning and the end ----------------------------------------------------------

def test_resign_out_of_turn_and_standings_in_order_out():
    s = GAME.new_game(["a", "b", "c"], seed=5)
    s, events = GAME.apply(s, "c", "resign")
    assert s.seats[2].out and GAME.to_act(s) == ["a"]
    s, events = GAME.apply(s, "a", "resign")  # on own turn: play passes to b
    assert GAME.to_act(s) == []
    assert GAME.outcome(s).standings == ("b", "a", "c")
    assert event(events, "game_over")["winners"] == ["b"]


def test_round_counts_on_when_seat_one_is_out():
    s = GAME.new_game(["a", "b", "c"], seed=5)
    s, _ = GAME.apply(s, "a", "resign")
    assert GAME.to_act(s) == ["b"] and s.round == 1
    s, _ = act(s, "end")
    s, _events = act(s, "end")
    assert GAME.to_act(s) == ["b"] and s.round == 2


def test_wrong_player_and_out_player_refused():
    s = GAME.new_game(["a", "b", "c"], seed=5)
    with pytest.raises(IllegalAction, match="not your turn"):
        GAME.apply(s, "b", "end")
    with pytest.raises(IllegalAction, match="not playing"):
        GAME.apply(s, "zed", "end")
    s, _ = GAME.apply(s, "b", "resign")
    with pytest.raises(IllegalAction, match="out of this game"):
        GAME.apply(s, "b", "end")
