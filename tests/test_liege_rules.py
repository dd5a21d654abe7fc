"""Every Liège rule and product ruling, with scripted dice (docs/games/liege.md)."""

from __future__ import annotations

import pytest

from engine import IllegalAction, get_game
from engine.liege import GAME
from tests.liege_positions import av, mg, mortar, position, rifle, trench


def act(state, action, player=None):
    return GAME.apply(state, player or GAME.to_act(state)[0], action)


def events_of(events, kind):
    return [e for e in events if e["type"] == kind]


def event(events, kind):
    found = events_of(events, kind)
    assert len(found) == 1, f"expected one {kind} event in {events}"
    return found[0]


def seat(state, pid):
    return state.seat_of(pid)


def refused(state, action, match, player=None):
    with pytest.raises(IllegalAction, match=match):
        act(state, action, player)


# -- board, seats, options, setup ---------------------------------------------------

@pytest.mark.parametrize("n,sides", [(2, ["south", "north"]),
                                     (3, ["south", "north", "west"]),
                                     (4, ["south", "north", "west", "east"])])
def test_seats_and_highlighted_squares(n, sides):
    s = GAME.new_game([f"p{i}" for i in range(n)], seed=1)
    view = GAME.view(s, None)
    assert [p["side"] for p in view["players"]] == sides
    expected = {"south": ["e1", "f1"], "north": ["e10", "f10"], "west": ["a5", "a6"],
                "east": ["j5", "j6"]}
    assert all(p["highlights"] == expected[p["side"]] for p in view["players"])
    assert all(p["credits"] == 400 and p["lives"] == 3 for p in view["players"])
    assert view["phase"] == "setup" and view["damage_tokens_left"] == 5


def test_size_eight_highlights_and_options():
    s = GAME.new_game(["a", "b", "c", "d"], seed=1, options={"size": 8})
    view = GAME.view(s, None)
    assert view["size"] == 8
    assert [p["highlights"] for p in view["players"]] == [
        ["d1", "e1"], ["d8", "e8"], ["a4", "a5"], ["h4", "h5"]]
    assert {o.name: (o.default, o.choices) for o in GAME.options} == {
        "size": (10, (10, 8)), "forward_bonus": (30, (30, 40))}
    for bad in ({"size": 9}, {"forward_bonus": 35}, {"speed": 1}):
        with pytest.raises(IllegalAction):
            GAME.new_game(["a", "b"], 1, bad)
    assert get_game("liege") is GAME


def test_setup_each_player_places_their_general_in_seat_order():
    s = GAME.new_game(["a", "b", "c"], seed=1)
    assert GAME.to_act(s) == ["a"] and GAME.legal_actions(s, "a") == ["general e1", "general f1"]
    assert GAME.legal_actions(s, "b") == []
    refused(s, "general e2", "e1 or f1")
    refused(s, "buy rifle e2", "First place your General")
    refused(s, "general e10", "not your turn", player="b")
    s, _ = act(s, "general f1")
    assert GAME.to_act(s) == ["b"] and GAME.legal_actions(s, "b") == ["general e10",
                                                                      "general f10"]
    s, _ = act(s, "general e10")
    s, events = act(s, "General A6")
    assert [p["general"] for p in GAME.view(s, None)["players"]] == ["f1", "e10", "a6"]
    assert GAME.to_act(s) == ["a"] and s.phase == "general" and s.round == 1
    assert event(events, "turn_start")["player"] == "a"


# -- the General step ----------------------------------------------------------------

def test_general_steps_one_square_then_deployment_begins():
    s = position(phase="general", A={"general": "e3"})
    moves = [a for a in GAME.legal_actions(s, "A") if a.startswith("general")]
    assert moves == ["general d2", "general e2", "general f2", "general d3", "general f3",
                     "general d4", "general e4", "general f4"]
    refused(s, "general e5", "not next to")
    s, _ = act(s, "general e4")
    assert seat(s, "A").general == "e4" and s.phase == "deploy"
    refused(s, "general e5", "start of the turn")


def test_general_enters_an_empty_trench_and_boards_its_own_vehicle_only():
    s = position({"e4": trench(), "d4": av("A"), "f4": av("B"), "e2": rifle("A")},
                 phase="general", A={"general": "e3"})
    moves = [a for a in GAME.legal_actions(s, "A") if a.startswith("general")]
    assert "general e4" in moves and "general d4" in moves
    assert "general f4" not in moves and "general e2" not in moves
    refused(s, "general f4", "is taken")
    t, _ = act(s, "general e4")
    assert GAME.view(t, None)["players"][0]["in_trench"]
    v, _ = act(s, "general d4")
    assert GAME.view(v, None)["players"][0]["in_vehicle"]


def test_general_in_vehicle_moves_two_king_steps_not_through_pieces():
    s = position({"e3": av("A"), "d4": rifle("A"), "e4": rifle("A"), "f4": rifle("A")},
                 phase="general", A={"general": "e3"})
    moves = [a.split()[1] for a in GAME.legal_actions(s, "A") if a.startswith("general")]
    assert "e5" not in moves  # every way there passes through a piece
    assert "c5" not in moves  # only through d4
    assert "c4" in moves and "g1" in moves and "c1" in moves and "e2" in moves
    s, _ = act(s, "general c4")
    assert seat(s, "A").general == "c4" and s.pieces["c4"].type == "av"
    assert "e3" not in s.pieces
    refused(position({"e3": av("A")}, phase="general", A={"general": "e3"}), "general e6",
            "up to 2 squares")


def test_general_cannot_enter_a_trench_from_its_vehicle():
    s = position({"e3": av("A"), "e4": trench()}, phase="general", A={"general": "e3"})
    refused(s, "general e4", "not reachable")


# -- phases ------------------------------------------------------------------------

def test_skip_moves_through_the_phases_and_end_ends_from_any_phase():
    s = position(phase="general", A={"general": "e3"})
    s, _ = act(s, "skip")
    assert s.phase == "deploy"
    s, _ = act(s, "skip")
    assert s.phase == "fight"
    refused(s, "skip", "type `end`")
    refused(s, "buy rifle e2", "deployment is over")
    refused(s, "shift e2 e3", "deployment is over")
    for phase in ("general", "deploy", "move", "fight"):
        t, events = act(position(phase=phase), "end")
        assert GAME.to_act(t) == ["B"] and t.phase == "general"
        assert event(events, "turn_start")["player"] == "B"


def test_a_later_phase_action_skips_the_earlier_phases():
    s = position({"e2": rifle("A")}, phase="general", A={"general": "e1"})
    t, _ = act(s, "buy rifle d2")
    assert t.phase == "fight"
    refused(t, "general e3", "start of the turn")
    t, _ = act(s, "shift e2 e3")
    assert t.phase == "move"
    refused(t, "buy rifle d2", "moving resources")
    t, _ = act(t, "done")
    assert t.phase == "fight"


def test_skip_and_done_are_each_the_phase_s_listed_word_or_refused():
    """Ruling 12: `done` in deployment is the listed `skip`, `skip` in Move Resources the
    listed `done` (the same position, events and record); `done` in the General step is
    refused (only `skip` is listed there)."""
    general = position({"e2": rifle("A")}, phase="general", A={"general": "e1"})
    assert "done" not in GAME.legal_actions(general, "A")
    refused(general, "done", "`skip` the General step")
    deploy, _ = act(general, "skip")
    moving, _ = act(general, "shift e2 e3")
    for state, typed, listed in ((deploy, "done", "skip"), (moving, "skip", "done")):
        legal = GAME.legal_actions(state, "A")
        assert listed in legal and typed not in legal
        (s1, e1), (s2, e2) = act(state, typed), act(state, listed)
        assert s1.phase == "fight" and GAME.dump(s1) == GAME.dump(s2) and e1 == e2
        assert s1.last_move["action"] == listed
    fight = position(phase="fight")
    refused(fight, "done", "already over")
    refused(fight, "skip", "type `end`")


def test_round_counts_when_seat_one_begins():
    s = position(turn="B")
    s, _ = act(s, "end")
    assert s.round == 3 and GAME.to_act(s) == ["A"]


# -- buying and placing ---------------------------------------------------------------

def test_prices_and_facing_forward():
    s = position(phase="deploy", A={"general": "e3"})
    view = GAME.view(s, "A")
    assert view["players"][0]["prices"] == {"rifle": 20, "mg": 130, "mortar": 160, "av": 210,
                                            "trench": 40, "grenade": 80, "missile": 30,
                                            "gas": 40}
    assert view["players"][0]["left"] == {"trench": 3, "grenade": 3, "missile": 2, "gas": 2}
    for kind, price in (("rifle", 20), ("mg", 130), ("mortar", 160), ("av", 210),
                        ("trench", 40)):
        t, events = act(s, f"buy {kind} d2")
        assert seat(t, "A").credits == 400 - price and event(events, "buy")["price"] == price
        piece = t.pieces["d2"]
        assert (piece.type, piece.owner, piece.new) == (
            kind, None if kind == "trench" else "A", True)
        assert piece.facing == ("n" if kind in ("mg", "mortar") else None)
        assert t.phase == "fight"
        refused(t, "buy rifle c2", "deployment is over")
    for side, pid, _general, square, facing in (("north", "B", "e10", "d9", "s"),
                                                 ("west", "C", "a5", "b4", "e"),
                                                 ("east", "D", "j5", "i4", "w")):
        t = position(players=4, turn=pid, phase="deploy")
        t, _ = act(t, f"buy mg {square}")
        assert t.pieces[square].facing == facing, side


def test_buying_says_why_not():
    s = position(phase="deploy", A={"credits": 120, "general": "e3"})
    refused(s, "buy mortar d2", r"^A Mortar costs 160 credits and you have 120\.$")
    refused(s, "buy av d2", r"^An Armored Vehicle costs 210 credits and you have 120\.$")
    s = position(phase="deploy", A={"used": {"trench": 3, "grenade": 3, "missile": 2}})
    refused(s, "buy trench d5", r"^You have placed all 3 of your Trenches\.$")
    s = position({"c2": rifle("A"), "e3": mortar("A", "n")}, phase="deploy",
                 A={"used": {"grenade": 3, "missile": 2}})
    refused(s, "grenade c2 c4", r"^You have used all 3 of your Grenades\.$")
    refused(s, "missile e3 e6", r"^You have used both of your Missiles\.$")
    refused(position(phase="deploy", A={"credits": 30}), "buy rifle zz", "not a square")
    refused(position(phase="deploy"), "buy tank e2", "not something you can buy")
    refused(position(phase="deploy"), "buy grenade e2", "used as it is bought")


def test_deployment_zone_one_rank_in_front_of_the_general():
    s = position(phase="deploy", A={"general": "e3"})
    act(s, "buy rifle a4")
    act(s, "buy rifle j1")
    refused(s, "buy rifle e5", "too far forward")
    refused(s, "buy rifle e3", "is taken")
    legal = GAME.legal_actions(s, "A")
    rifles = {a.split()[2] for a in legal if a.startswith("buy rifle")}
    assert rifles == {f"{f}{r}" for f in "abcdefghij" for r in (1, 2, 3, 4)} - {"e3"}
    # trenches go anywhere empty
    t, _ = act(s, "buy trench e7")
    assert t.pieces["e7"].type == "trench" and seat(t, "A").used["trench"] == 1
    # North's zone is mirrored
    n = position(turn="B", phase="deploy", B={"general": "e8"})
    act(n, "buy rifle e7")
    refused(n, "buy rifle e6", "too far forward")


def test_nothing_placed_next_to_an_opponents_piece():
    s = position({"c4": rifle("B")}, phase="deploy", A={"general": "e4"},
                 B={"general": "h5"})
    for square in ("b3", "c3", "d3", "d5", "g4", "g6"):
        refused(s, f"buy rifle {square}", "next to an opponent")
        refused(s, f"buy trench {square}", "next to an opponent")
    act(s, "buy rifle a3")
    legal = GAME.legal_actions(s, "A")
    assert "buy rifle d3" not in legal and "buy trench g6" not in legal
    # your own pieces and empty trenches do not block
    t = position({"d3": rifle("A"), "b2": trench()}, phase="deploy", A={"general": "e4"})
    act(t, "buy rifle c3")
    act(t, "buy rifle b3")


# -- move resources ------------------------------------------------------------------

def test_move_resources_steps_each_piece_once_and_turns_quarter_turns():
    s = position({"c2": rifle("A"), "d2": mg("A", "n"), "e2": mortar("A", "n"),
                  "f2": av("A"), "g2": trench(), "h2": rifle("B")},
                 phase="deploy", A={"general": "e1"}, B={"general": "e10"})
    s, _ = act(s, "shift c2 c3")
    assert s.phase == "move" and s.pieces["c3"].moved
    refused(s, "shift c3 c4", "already moved")
    refused(s, "shift g2 g3", "does not move")
    refused(s, "shift h2 h3", "no piece on h2")
    refused(s, "shift d2 d4", "not next to")
    refused(s, "shift d2 e2", "is taken")
    refused(s, "buy rifle a1", "moving resources")
    s, _ = act(s, "shift f2 f3")
    s, _ = act(s, "turn d2 e")
    assert s.pieces["d2"].facing == "e"
    refused(s, "turn d2 s", "already turned")
    refused(s, "turn e2 s", "turns 90 degrees: face e or w")
    refused(s, "turn c3 e", "no Machine Gun or Mortar")
    s, _ = act(s, "turn e2 w")
    s, _ = act(s, "shift e2 e3")  # a turned piece may still step
    s, _ = act(s, "done")
    assert s.phase == "fight"


def test_vehicle_carrying_the_general_does_not_shift():
    s = position({"e1": av("A")}, phase="deploy", A={"general": "e1"})
    refused(s, "shift e1 e2", "moves with the General")


# -- fights: the basics ------------------------------------------------------------------

def test_one_on_one_attacker_wins_and_the_lone_defender_is_destroyed():
    s = position({"c3": rifle("A"), "d4": rifle("B")}, dice=[5, 3])
    s, events = act(s, "attack c3 d4")
    fight = event(events, "fight")
    assert fight["rounds"] == [{"attack": [5], "defense": [3], "attack_scores": [5],
                                "defense_scores": [3], "attack_best": 5, "defense_best": 3}]
    assert fight["winner"] == "attacker" and fight["in_range"]
    assert "d4" not in s.pieces and event(events, "casualty")["result"] == "destroyed"
    assert GAME.to_act(s) == ["A"] and s.pieces["c3"].fought
    refused(s, "attack c3 d4", "already fought")
    view = GAME.view(s, None)
    assert view["last_fight"] == {"attacker": "A", "defender": "B", "from": "c3", "to": "d4",
                                  "attackers": ["c3"], "defenders": ["d4"],
                                  "winner": "attacker"}


def test_attack_checks():
    s = position({"c3": rifle("A"), "d4": rifle("B"), "c2": rifle("A", new=True),
                  "b3": rifle("A", fought=True), "b2": mortar("A", "n"), "a2": av("A"),
                  "h8": rifle("B"), "d2": trench(), "b4": rifle("A")})
    refused(s, "attack c3 d3", "nothing on d3")
    refused(s, "attack c3 b3", "yours")
    refused(s, "attack c2 d3", "placed this turn")
    refused(s, "attack b3 c4", "already fought")
    refused(s, "attack b2 c3", "never attacks")
    refused(s, "attack a2 b3", "never attacks")
    refused(s, "attack c3 h8", "out of range")
    refused(s, "attack c3 d2", "Trenches do not fight")
    refused(s, "attack e5 d4", "no piece on e5")
    s2, _ = act(position({"c3": rifle("A"), "d4": rifle("B")}, phase="general"), "skip")
    assert s2.phase == "deploy"
    s2, _ = act(s2, "attack c3 d4")  # attacking from deployment skips ahead
    assert s2.phase == "fight"


def test_ties_are_rolled_again_and_every_roll_is_in_the_events():
    s = position({"c3": rifle("A"), "d4": rifle("B")}, dice=[4, 4, 2, 2, 1, 6])
    s, events = act(s, "attack c3 d4")
    fight = event(events, "fight")
    assert [(r["attack"], r["defense"]) for r in fight["rounds"]] == [
        ([4], [4]), ([2], [2]), ([1], [6])]
    assert fight["winner"] == "defender"
    assert "c3" not in s.pieces and "d4" in s.pieces
    line = " ".join(GAME.narrate(events))
    assert "Tie, re-roll" in line and "A 1" in line and "B 6" in line


def test_one_die_per_point_of_offense_and_defense():
    s = position({"c3": mg("A", "n"), "c5": mg("B", "s")}, dice=[1, 2, 3, 6])
    s, events = act(s, "attack c3 c5")
    fight = event(events, "fight")
    assert (fight["offense"], fight["defense"]) == (2, 2)
    assert fight["rounds"][0]["attack"] == [1, 2] and fight["rounds"][0]["defense"] == [3, 6]


# -- side formation --------------------------------------------------------------------

def test_sides_form_in_a_chain_until_nothing_more_joins():
    s = position({
        "c3": rifle("A"), "d4": rifle("B"),      # attacker and target
        "e3": rifle("A"),                         # reaches d4: joins the attack
        "f4": rifle("B"),                         # reaches e3: joins the defence
        "g5": rifle("A"),                         # reaches f4
        "h6": rifle("B"),                         # reaches g5
        "j9": rifle("B"),                         # reaches nobody
        "b6": rifle("A"),                         # reaches nobody
        "c5": rifle("A", fought=True),            # already fought: stays out
        "e5": rifle("A", new=True),               # placed this turn: stays out
        "d3": mortar("A", "n"),                   # never attacks: stays out
        "c4": mortar("B", "s"),                   # defends its neighbours: joins
    }, dice=[6, 1, 1, 1, 1, 1, 1, 1])
    s, events = act(s, "attack c3 d4")
    fight = event(events, "fight")
    assert [u["square"] for u in fight["attackers"]] == ["c3", "e3", "g5"]
    assert [u["square"] for u in fight["defenders"]] == ["d4", "c4", "f4", "h6"]
    assert (fight["offense"], fight["defense"]) == (3, 4)
    assert fight["winner"] == "attacker"
    assert GAME.view(s, None)["last_fight"]["defenders"] == ["d4", "c4", "f4", "h6"]
    for square in ("c3", "e3", "g5", "d4", "c4", "f4", "h6"):
        assert s.pieces[square].fought, square
    assert not s.pieces["j9"].fought and not s.pieces["b6"].fought


def test_machine_gun_facing_decides_whether_it_joins():
    base = {"c3": rifle("A"), "d4": rifle("B")}
    # an MG on f4 facing east reaches nothing of the attack: it stays out
    facing_away = position({**base, "f4": mg("B", "e")}, dice=[6, 1, 1, 1])
    _, events = act(facing_away, "attack c3 d4")
    assert [u["square"] for u in event(events, "fight")["defenders"]] == ["d4"]
    facing_in = position({**base, "e2": mg("B", "w")}, dice=[6, 1, 1, 1])
    # an MG on e2 facing west covers d1-d3, c1-c3 and e1/e3: it reaches c3
    _, events = act(facing_in, "attack c3 d4")
    assert [u["square"] for u in event(events, "fight")["defenders"]] == ["d4", "e2"]


def test_general_in_a_trench_is_never_targeted_or_drawn_in_but_may_attack():
    s = position({"d4": trench(), "c3": rifle("A"), "c4": rifle("B")},
                 A={"general": "e3"}, B={"general": "d4"}, dice=[6, 1])
    refused(s, "attack c3 d4", "inside a Trench cannot be attacked")
    assert "attack c3 d4" not in GAME.legal_actions(s, "A")
    _s2, events = act(s, "attack c3 c4")
    assert [u["square"] for u in event(events, "fight")["defenders"]] == ["c4"]
    # and from the trench it attacks
    t = position({"d4": trench(), "d5": rifle("A")}, turn="B", B={"general": "d4"},
                 A={"general": "e1"}, dice=[6, 1])
    t, events = act(t, "attack d4 d5")
    assert event(events, "fight")["attackers"][0]["piece"] == "general"
    assert "d5" not in t.pieces


def test_the_target_may_be_attacked_again_but_its_fought_friends_stay_out():
    s = position({"c3": rifle("A"), "e3": rifle("A"), "d4": mg("B", "s"),
                  "a1": rifle("A")}, dice=[6, 1, 1, 1, 6, 1, 1])
    s, _ = act(s, "attack c3 d4")
    assert s.pieces["d4"].damaged and s.pieces["e3"].fought  # e3 joined the first fight
    refused(s, "attack e3 d4", "already fought")


# -- damage ------------------------------------------------------------------------------

def test_partly_damaged_side_subtracts_two_from_its_highest_die():
    s = position({"c3": rifle("A", damaged=True), "e3": rifle("A"), "d4": rifle("B")},
                 dice=[6, 3, 5])
    s, events = act(s, "attack c3 d4")
    fight = event(events, "fight")
    assert fight["attack_damage"] == "some"
    assert fight["rounds"][0]["attack_scores"] == [4, 3]
    assert fight["winner"] == "defender"  # 4 against 5; undamaged it would have won 6-5
    assert "(damaged: 4, 3)" in GAME.narrate(events)[0]


def test_all_damaged_side_subtracts_two_from_every_die():
    s = position({"c3": mg("A", "n", damaged=True), "c5": rifle("B", damaged=True)},
                 dice=[6, 5, 5])
    _, events = act(s, "attack c3 c5")
    fight = event(events, "fight")
    assert (fight["attack_damage"], fight["defense_damage"]) == ("all", "all")
    assert fight["rounds"][0]["attack_scores"] == [4, 3]
    assert fight["rounds"][0]["defense_scores"] == [3]
    assert fight["winner"] == "attacker"


def test_machine_gun_is_damaged_first_then_destroyed():
    s = position({"c3": rifle("A"), "e3": rifle("A", ), "d4": mg("B", "w")},
                 dice=[6, 5, 1, 1])
    # e3 joins too (it reaches d4): 2 attack dice against the MG's 2
    s, events = act(s, "attack c3 d4")
    assert event(events, "casualty")["result"] == "damaged"
    assert s.pieces["d4"].damaged and s.damage_tokens == 4
    s = position({"c3": rifle("A"), "d4": mg("B", "w", damaged=True)},
                 extra={"damage_tokens": 4}, dice=[6, 1, 1])
    s, events = act(s, "attack c3 d4")
    assert "d4" not in s.pieces and event(events, "casualty")["result"] == "destroyed"
    assert s.damage_tokens == 4  # a token is never handed back


def test_the_sixth_damage_token_does_nothing():
    s = position({"c3": rifle("A"), "d4": mg("B", "w")}, extra={"damage_tokens": 0},
                 dice=[6, 1, 1])
    s, events = act(s, "attack c3 d4")
    assert event(events, "casualty")["result"] == "no token left"
    assert not s.pieces["d4"].damaged and GAME.view(s, None)["damage_tokens_left"] == 0


def test_a_mortar_losing_raises_missile_and_gas_prices_instead():
    s = position({"c3": rifle("A"), "d4": mortar("B", "s")}, dice=[6, 1])
    s, events = act(s, "attack c3 d4")
    assert "d4" in s.pieces and event(events, "casualty")["result"] == "prices raised"
    prices = GAME.view(s, None)["players"][1]["prices"]
    assert (prices["missile"], prices["gas"], prices["rifle"]) == (50, 60, 20)
    t = position({"e8": mortar("B", "s")}, turn="B", phase="deploy",
                 B={"credits": 55, "mortar_losses": 2})
    refused(t, "missile e8 e5", r"^A Missile costs 70 credits and you have 55\.$")
    refused(t, "gas e8 e5", r"^Mustard Gas costs 80 credits and you have 55\.$")


# -- the out-of-range attacker ---------------------------------------------------------------

def test_out_of_range_attacker_that_loses_is_only_damaged():
    # the rifle on c3 reaches d4, but the MG there faces north and cannot reach c3
    s = position({"c3": rifle("A"), "d4": mg("B", "n")}, dice=[1, 6, 1])
    s, events = act(s, "attack c3 d4")
    fight = event(events, "fight")
    assert not fight["in_range"] and fight["only_damage"] and fight["winner"] == "defender"
    assert s.pieces["c3"].damaged and event(events, "casualty")["result"] == "damaged"


def test_out_of_range_machine_gun_that_loses_is_not_even_damaged():
    s = position({"c3": mg("A", "n"), "c5": rifle("B")}, dice=[1, 1, 6])
    s, events = act(s, "attack c3 c5")
    assert event(events, "casualty")["result"] == "unharmed"
    assert not s.pieces["c3"].damaged and s.damage_tokens == 5


def test_out_of_range_attacker_that_wins_destroys_as_usual():
    s = position({"c3": mg("A", "n"), "c5": rifle("B")}, dice=[6, 1, 1])
    s, _ = act(s, "attack c3 c5")
    assert "c5" not in s.pieces


def test_an_empty_vehicle_never_reaches_its_attacker():
    s = position({"c3": rifle("A"), "d4": av("B")}, dice=[1, 6, 1])
    s, events = act(s, "attack c3 d4")
    assert event(events, "fight")["defense"] == 2 and not event(events, "fight")["in_range"]
    assert s.pieces["c3"].damaged


# -- casualties chosen by the loser -------------------------------------------------------

def chain_fight():
    return position({"c3": rifle("A"), "e3": rifle("A"), "d4": rifle("B"), "e5": mg("B", "s"),
                     "j1": rifle("A")}, dice=[6, 1, 1, 1, 1])


def test_the_loser_chooses_a_casualty_even_off_turn_and_nobody_else_acts():
    s, events = act(chain_fight(), "attack c3 d4")
    assert event(events, "casualty_needed") == {"type": "casualty_needed", "player": "B",
                                                 "choices": ["d4", "e5"]}
    assert GAME.to_act(s) == ["B"] and GAME.current_turn(s) == "A"
    view = GAME.view(s, "B")
    assert view["phase"] == "casualty" and view["to_act"] == ["B"] and view["turn"] == "A"
    assert GAME.legal_actions(s, "B") == ["casualty d4", "casualty e5"]
    assert GAME.legal_actions(s, "A") == []
    refused(s, "end", "Waiting for B", player="A")
    refused(s, "attack j1 j2", "Waiting for B", player="A")
    refused(s, "end", "choose the piece", player="B")
    refused(s, "casualty c3", "Choose one of your pieces", player="B")
    s, events = act(s, "casualty e5", player="B")
    assert s.pieces["e5"].damaged and "d4" in s.pieces
    assert GAME.to_act(s) == ["A"] and GAME.view(s, None)["phase"] == "fight"
    refused(s, "casualty d4", "no casualty", player="A")


def test_the_attacker_chooses_when_it_loses():
    s = position({"c3": rifle("A"), "e3": rifle("A"), "d4": rifle("B")}, dice=[1, 1, 6])
    s, _ = act(s, "attack c3 d4")
    assert GAME.to_act(s) == ["A"] and GAME.legal_actions(s, "A") == [
        "casualty c3", "casualty e3"]
    s, _ = act(s, "casualty e3")
    assert "e3" not in s.pieces and "c3" in s.pieces


def test_casualty_wait_survives_dump_and_load_and_resign():
    s, _ = act(chain_fight(), "attack c3 d4")
    assert GAME.load(GAME.dump(s)) == s
    t, _ = GAME.apply(s, "B", "resign")
    assert GAME.outcome(t).winners == ("A",)
    u, _ = GAME.apply(s, "A", "resign")
    assert GAME.outcome(u).winners == ("B",)


# -- Generals -------------------------------------------------------------------------------

def test_general_loses_a_life_and_steps_back_toward_home():
    s = position({"d4": rifle("A")}, B={"general": "d5"}, dice=[6, 1])
    s, events = act(s, "attack d4 d5")
    life = event(events, "life_lost")
    assert (life["lives"], life["to"]) == (2, "d6")
    assert seat(s, "B").general == "d6" and seat(s, "B").lives == 2


def test_general_that_cannot_step_back_stays_and_steps_into_an_empty_trench():
    s = position({"d4": rifle("A"), "d6": rifle("B")}, B={"general": "d5"}, dice=[6, 1])
    s, _ = act(s, "attack d4 d5")
    fight_loser = GAME.legal_actions(s, "B")
    assert fight_loser == []  # d6 did not reach d4, so the General fought alone
    assert seat(s, "B").general == "d5" and seat(s, "B").lives == 2
    t = position({"d4": rifle("A"), "d6": trench()}, B={"general": "d5"}, dice=[6, 1])
    t, _ = act(t, "attack d4 d5")
    assert seat(t, "B").general == "d6" and GAME.view(t, None)["players"][1]["in_trench"]


def test_armored_vehicle_is_lost_instead_of_a_life():
    s = position({"c3": rifle("A"), "d4": av("B")}, B={"general": "d4"}, dice=[6, 5, 1])
    s, events = act(s, "attack c3 d4")
    fight = event(events, "fight")
    assert fight["defense"] == 2 and fight["defenders"][0]["piece"] == "general"
    assert fight["in_range"]
    assert event(events, "casualty")["result"] == "vehicle destroyed"
    assert "d4" not in s.pieces and seat(s, "B").general == "d4" and seat(s, "B").lives == 3


def test_general_attacks_like_a_rifle_and_fights_once_per_turn():
    s = position({"e2": rifle("B"), "f2": rifle("B")}, A={"general": "e1"},
                 dice=[6, 1, 6, 1])
    s, events = act(s, "attack e1 e2")
    assert event(events, "fight")["offense"] == 1
    refused(s, "attack e1 f2", "already fought")


def test_death_removes_everything_but_trenches_and_ends_a_two_player_game():
    s = position({"d4": rifle("A"), "e6": rifle("B"), "h9": mg("B", "s"), "c8": av("B"),
                  "b8": trench(), "d6": trench()},
                 B={"general": "d5", "lives": 1}, dice=[6, 1])
    s, events = act(s, "attack d4 d5")
    assert event(events, "eliminated") == {"type": "eliminated", "player": "B",
                                           "reason": "killed"}
    assert {sq: p.type for sq, p in s.pieces.items()} == {"d4": "rifle", "b8": "trench",
                                                          "d6": "trench"}
    b = seat(s, "B")
    assert b.out and b.general is None and b.credits == 0 and b.lives == 0
    outcome = GAME.outcome(s)
    assert outcome.winners == ("A",) and outcome.standings == ("A", "B")
    assert "last General standing" in outcome.reason and GAME.to_act(s) == []
    assert GAME.view(s, None)["phase"] == "over"
    refused(s, "end", "over", player="A")


def test_death_in_a_three_player_game_and_an_attacker_dying_on_its_own_turn():
    s = position({"d5": rifle("B"), "h5": rifle("C")}, players=3,
                 A={"general": "d4", "lives": 1}, dice=[1, 6])
    s, _events = act(s, "attack d4 d5")
    assert seat(s, "A").out and GAME.outcome(s) is None
    assert GAME.to_act(s) == ["B"] and s.phase == "general"
    assert "h5" in s.pieces


# -- winning at the far edge -------------------------------------------------------------------

def test_edge_win_only_after_surviving_a_round():
    s = position(phase="general", A={"general": "e9"}, B={"general": "a10"})
    s, _ = act(s, "general e10")
    s, _ = act(s, "end")
    assert GAME.outcome(s) is None and GAME.to_act(s) == ["B"]
    s, events = act(s, "end")
    assert event(events, "edge_win")["player"] == "A"
    outcome = GAME.outcome(s)
    assert outcome.winners == ("A",) and "far edge" in outcome.reason
    assert GAME.to_act(s) == []


def test_edge_win_is_lost_if_the_general_is_knocked_back():
    s = position({"d9": rifle("B")}, turn="B", A={"general": "e10"}, B={"general": "a9"},
                 dice=[6, 1])
    s, _ = act(s, "attack d9 e10")
    assert seat(s, "A").general == "e9"  # South steps back toward rank 1
    s, _ = act(s, "end")
    assert GAME.outcome(s) is None and GAME.to_act(s) == ["A"]


def test_west_and_east_race_across_files():
    s = position(players=4, turn="B", C={"general": "j2"})
    s, _events = act(s, "end")
    assert GAME.outcome(s).winners == ("C",)


# -- forward bonus -------------------------------------------------------------------------------

@pytest.mark.parametrize("bonus", [30, 40])
def test_forward_bonus_is_paid_at_the_end_of_a_turn_that_ended_nearer(bonus):
    s = GAME.new_game(["a", "b"], 1, {"forward_bonus": bonus})
    s, _ = act(s, "general e1")
    s, _ = act(s, "general e10")
    t, _ = act(s, "general e2")
    assert seat(t, "a").credits == 400  # paid only at the end
    t, events = act(t, "end")
    assert event(events, "end_turn")["bonus"] == bonus and seat(t, "a").credits == 400 + bonus
    sideways, _ = act(s, "general f1")
    sideways, events = act(sideways, "end")
    assert event(events, "end_turn")["bonus"] == 0 and seat(sideways, "a").credits == 400


# -- blasts --------------------------------------------------------------------------------------

def test_grenade_every_resource_in_the_cross_rolls_and_fighting_is_skipped():
    s = position({"c3": rifle("A"), "d5": rifle("B"), "d4": mg("B", "s"), "d6": trench(),
                  "c5": rifle("A"), "e5": av("B"), "e6": rifle("B")},
                 phase="deploy", A={"general": "e2"}, B={"general": "e10"},
                 dice=[5, 1, 2, 6])
    s, events = act(s, "grenade c3 d5")
    g = event(events, "grenade")
    assert g["squares"] == ["d4", "c5", "d5", "e5", "d6"]
    assert [(r["square"], r["roll"], r["survived"]) for r in g["rolls"]] == [
        ("d4", 5, True), ("c5", 1, False), ("d5", 2, False), ("e5", 6, True)]
    assert set(s.pieces) == {"c3", "d4", "d6", "e5", "e6"}
    assert seat(s, "A").credits == 320 and seat(s, "A").used["grenade"] == 1
    assert GAME.view(s, None)["blast"] == {"kind": "grenade", "target": "d5",
                                           "squares": ["d4", "c5", "d5", "e5", "d6"]}
    assert GAME.legal_actions(s, "A") == ["end"]
    refused(s, "attack c3 d4", "no fighting")
    line = GAME.narrate(events)[0]
    assert all(f"rolls {n}" in line for n in (5, 1, 2, 6))


def test_grenade_spares_generals_and_needs_a_rifle_in_reach():
    s = position({"c3": rifle("A"), "d4": trench()}, phase="deploy",
                 A={"general": "e2"}, B={"general": "d4"}, dice=[1])
    s2, events = act(s, "grenade c3 d4")
    assert event(events, "grenade")["rolls"] == [] and seat(s2, "B").lives == 3
    refused(s, "grenade c3 c6", "at most 2 squares")
    refused(s, "grenade c4 c5", "no Rifle on c4")
    refused(position({"c3": rifle("A")}, phase="fight"), "grenade c3 c5", "deployment is over")


def test_missile_destroys_everything_in_the_three_by_three():
    s = position({"e3": mortar("A", "n"), "d6": rifle("B"), "e7": trench(), "f5": mg("B", "s"),
                  "f6": av("C"), "d5": trench(), "g6": rifle("B")},
                 phase="deploy", A={"general": "a1"}, B={"general": "e7"},
                 C={"general": "f6"}, D={"general": "d5"}, players=4)
    s, events = act(s, "missile e3 e6")
    m = event(events, "missile")
    assert [d["square"] for d in m["destroyed"]] == ["d5", "f5", "d6", "f6", "e7"]
    assert set(s.pieces) == {"e3", "g6"}
    b, c, d = seat(s, "B"), seat(s, "C"), seat(s, "D")
    assert (b.lives, c.lives, d.lives) == (2, 3, 2)  # C's vehicle took the hit
    assert b.general == "e7" and d.general == "d5"   # no stepping back from a missile
    assert seat(s, "A").credits == 370 and seat(s, "A").used["missile"] == 1
    assert GAME.legal_actions(s, "A") == ["end"]


def test_missile_fire_zone_follows_the_mortar_facing():
    s = position({"e3": mortar("A", "n")}, phase="deploy", A={"general": "a1"})
    zone = GAME.piece_range(s, "e3")
    assert zone == ["d5", "e5", "f5", "d6", "e6", "f6", "d7", "e7", "f7"]
    refused(s, "missile e3 e4", "2-4 squares ahead")
    refused(s, "missile e3 e8", "2-4 squares ahead")
    east = position({"e3": mortar("A", "e")}, phase="deploy", A={"general": "a1"})
    assert GAME.piece_range(east, "e3") == ["g2", "h2", "i2", "g3", "h3", "i3", "g4", "h4",
                                            "i4"]


def test_missile_kills_a_general_on_its_last_life():
    s = position({"e3": mortar("A", "n")}, phase="deploy", A={"general": "a1"},
                 B={"general": "e6", "lives": 1})
    s, _events = act(s, "missile e3 e6")
    assert seat(s, "B").out and GAME.outcome(s).winners == ("A",)


def test_gas_damages_every_resource_trenches_included_but_never_generals():
    # Ruling (issue 8): only Generals are exempt; a Trench in range takes a token too,
    # and the General sitting in it is untouched.
    s = position({"e3": mortar("A", "n"), "d6": rifle("B"), "e6": mg("B", "s", damaged=True),
                  "f6": rifle("B", damaged=True), "d7": trench(), "f7": av("B"),
                  "e5": mg("A", "n")},
                 phase="deploy", A={"general": "a1"}, B={"general": "d7"},
                 extra={"damage_tokens": 5})
    s, events = act(s, "gas e3 e6")
    effects = {e["square"]: e["result"] for e in event(events, "gas")["effects"]}
    assert effects == {"e5": "damaged", "d6": "damaged", "e6": "destroyed",
                       "f6": "already damaged", "f7": "damaged", "d7": "damaged"}
    assert "e6" not in s.pieces and s.pieces["d7"].damaged
    assert s.damage_tokens == 1 and seat(s, "B").lives == 3
    assert seat(s, "B").general == "d7"
    assert seat(s, "A").credits == 360 and seat(s, "A").used["gas"] == 1


def test_gas_stops_placing_tokens_when_the_pool_is_empty():
    s = position({"e3": mortar("A", "n"), "d6": rifle("B"), "e6": rifle("B")},
                 phase="deploy", A={"general": "a1"}, extra={"damage_tokens": 1})
    s, events = act(s, "gas e3 e6")
    effects = [e["result"] for e in event(events, "gas")["effects"]]
    assert effects == ["damaged", "no token left"] and s.damage_tokens == 0


def test_weapon_limits_count_over_the_whole_game():
    s = position({"e3": mortar("A", "n")}, phase="deploy", A={"general": "a1"})
    s, _ = act(s, "missile e3 e6")
    s, _ = act(s, "end")
    s, _ = act(s, "end")
    s, _ = act(s, "missile e3 e6")
    assert GAME.view(s, None)["players"][0]["left"]["missile"] == 0
    s, _ = act(s, "end")
    s, _ = act(s, "end")
    refused(s, "missile e3 e6", "both of your Missiles")
    assert not any(a.startswith("missile") for a in GAME.legal_actions(s, "A"))


# -- ranges ---------------------------------------------------------------------------------

def test_ranges_of_every_piece():
    s = position({"c3": rifle("A"), "e5": mg("A", "n"), "h5": mg("B", "w"), "b8": av("A"),
                  "d8": trench(), "j10": rifle("B")}, A={"general": "a1"})
    assert GAME.piece_range(s, "c3") == ["b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"]
    assert GAME.piece_range(s, "e5") == ["d5", "f5", "d6", "e6", "f6", "d7", "e7", "f7"]
    assert GAME.piece_range(s, "h5") == ["f4", "g4", "h4", "f5", "g5", "f6", "g6", "h6"]
    assert GAME.piece_range(s, "a1") == ["b1", "a2", "b2"]
    assert GAME.piece_range(s, "j10") == ["i9", "j9", "i10"]
    assert GAME.piece_range(s, "b8") == [] and GAME.piece_range(s, "d8") == []
    assert GAME.piece_range(s, "e4") == [] and GAME.piece_range(s, "zz") == []


# -- golden legal-action lists ----------------------------------------------------------------

def test_golden_fight_phase_actions_on_a_small_board():
    s = position({"c3": rifle("A"), "d4": rifle("B"), "c5": mg("B", "s"),
                  "b2": mortar("A", "e"), "d2": rifle("A", new=True)},
                 size=8, A={"general": "d1"}, B={"general": "d8"})
    assert GAME.legal_actions(s, "A") == ["attack c3 d4", "end"]


def test_golden_move_phase_actions():
    s = position({"a1": rifle("A"), "b1": mg("A", "n", moved=True), "a2": trench()},
                 size=8, phase="move", A={"general": "d1"}, B={"general": "d8"})
    assert GAME.legal_actions(s, "A") == ["shift a1 b2", "turn b1 e", "turn b1 w", "done",
                                          "end"]


def test_golden_opening_turn_actions():
    s = GAME.new_game(["a", "b"], 1, {"size": 8})
    s, _ = act(s, "general d1")
    s, _ = act(s, "general d8")
    legal = GAME.legal_actions(s, "a")
    assert legal[:5] == ["general c1", "general e1", "general c2", "general d2", "general e2"]
    buys = [a for a in legal if a.startswith("buy")]
    # ranks 1-2 but d1 for four pieces; a trench anywhere but the Generals and d8's neighbours
    assert len(buys) == 4 * 15 + (64 - 2 - 5)
    assert buys[0] == "buy rifle a1" and buys[-1] == "buy trench h8"
    assert "buy trench d7" not in buys and "buy rifle a3" not in buys
    assert legal[-2:] == ["skip", "end"] and len(set(legal)) == len(legal)


# -- resigning and narration -------------------------------------------------------------------

def test_resigning_in_setup_off_turn_and_on_turn():
    s = GAME.new_game(["a", "b", "c"], seed=1)
    s, _ = act(s, "general e1")
    s, events = GAME.apply(s, "c", "resign")  # off-turn, before placing
    assert event(events, "eliminated")["reason"] == "resigned"
    assert GAME.to_act(s) == ["b"]
    s, _ = act(s, "general e10")  # the last General placed: round 1 begins
    assert GAME.to_act(s) == ["a"] and s.phase == "general"
    s, _ = GAME.apply(s, "a", "resign")
    assert GAME.outcome(s).winners == ("b",) and GAME.outcome(s).standings == ("b", "a", "c")
    with pytest.raises(IllegalAction, match="over"):
        GAME.apply(s, "b", "end")


def test_resigned_player_pieces_leave_and_the_turn_passes():
    s = position({"c3": rifle("A"), "d4": trench(), "h8": rifle("B")}, players=3,
                 C={"general": "a5"})
    s, _ = GAME.apply(s, "A", "resign")
    assert set(s.pieces) == {"d4", "h8"} and GAME.to_act(s) == ["B"]
    with pytest.raises(IllegalAction, match="out of this game"):
        GAME.apply(s, "A", "end")


def test_narration_uses_names_and_shows_every_die():
    s = position({"c3": rifle("A"), "e3": rifle("A"), "d4": mg("B", "s")},
                 dice=[2, 3, 3, 3, 6, 1, 1, 1])
    s, events = act(s, "attack c3 d4")
    lines = GAME.narrate(events, {"A": "@ann", "B": "@bob"})
    text = " ".join(lines)
    assert "@ann attacks d4 from c3" in text
    assert "@ann 2, 3, @bob 3, 3" in text and "@ann 6, 1, @bob 1, 1" in text
    assert lines[-1] == "@bob's Machine Gun on d4 is damaged."


def test_a_general_casualty_is_narrated_once() -> None:
    from engine.liege.narration import narrate

    events = [{"type": "casualty", "player": "B", "piece": "general", "square": "b5",
               "result": "life lost"},
              {"type": "life_lost", "player": "B", "cause": "fight", "to": "b4", "lives": 2}]
    lines = narrate(events, {"B": "Bob"})
    assert lines == ["Bob's General loses a life and falls back to b4 (2 left)."]
