"""Antiquity's rules on scripted positions (docs/games/antiquity.md): the seed's three
worked examples of conquest, its rare exceptions, and every other rule of the contract."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from engine.antiquity import GAME
from engine.antiquity import constants as C
from engine.antiquity.state import AntiquityState
from engine.core import IllegalAction

# Six nations: the Phoenicians (Tyros, the seed's examples) play only at 6 players
# (docs/games/antiquity.md, "The regions in play by player count").
SIX = ["romans", "carthaginians", "greeks", "egyptians", "phoenicians", "iberians"]
PLAYERS = ["ann", "bob", "cy", "dee", "eve", "fay"]


def pos(**fields: Any) -> AntiquityState:
    """A 6-player position (Greeks to play a Maneuver unless told otherwise)."""
    data: dict[str, Any] = {"players": PLAYERS, "nations": SIX, "turn": "greeks",
                            "phase": "action", "field": "maneuver1"}
    data.update(fields)
    return GAME.load(json.dumps(data))


def act(state: AntiquityState, action: str) -> tuple[AntiquityState, list[dict[str, Any]]]:
    return GAME.apply(state, GAME.to_act(state)[0], action)


def refused(state: AntiquityState, action: str, *words: str) -> str:
    before = GAME.dump(state)
    with pytest.raises(IllegalAction) as err:
        act(state, action)
    assert GAME.dump(state) == before
    message = str(err.value)
    for word in words:
        assert word in message, message
    assert action not in GAME.legal_actions(state, GAME.to_act(state)[0])
    return message


def legal(state: AntiquityState) -> list[str]:
    return GAME.legal_actions(state, GAME.to_act(state)[0])


def province(state: AntiquityState, pid: str) -> dict[str, Any]:
    return next(p for p in GAME.view(state, None)["provinces"] if p["id"] == pid)


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


# -- the seed's worked examples ----------------------------------------------------------

def _marmarica(greek_legions: int, greek_galleys: int) -> AntiquityState:
    return pos(cities={"marmarica": "egyptians", "aegyptus": "egyptians",
                       "attica": "greeks"},
               temples=["marmarica"],
               legions={"marmarica": {"egyptians": 1, "greeks": greek_legions}},
               galleys={"libycum": {"egyptians": 1},
                        "aegyptium": {"greeks": greek_galleys},
                        "siculum": {"egyptians": 2}},
               knowhow={"egyptians": ["monarchy"]})


def test_example_1_temple_city_with_a_galley_a_legion_and_monarchy_has_strength_6() -> None:
    s = _marmarica(3, 2)
    assert province(s, "marmarica")["defence"] == 6  # 3 temple city + 2 units + 1 Monarchy
    assert not any(a.startswith("conquer marmarica") for a in legal(s))
    refused(s, "conquer marmarica 3", "Corniclanum has strength 6", "you have 5 units there")
    s = _marmarica(4, 2)
    assert [a for a in legal(s) if a.startswith("conquer marmarica")] == [
        "conquer marmarica 4"]  # 6 units: exactly 4 legions and 2 galleys
    after, events = act(s, "conquer marmarica 4")
    assert after.cities["marmarica"] == "greeks"
    assert after.count("marmarica", "greeks") == 0 and after.count("aegyptium", "greeks") == 0
    # the defender's legion and its galley on the coast are gone; far galleys stay
    assert after.count("marmarica", "egyptians") == 0
    assert after.count("libycum", "egyptians") == 0
    assert after.count("siculum", "egyptians") == 2
    # the temple goes back to the bank and earns the conqueror a General
    assert "marmarica" not in after.temples and after.temples_left() == C.TEMPLES
    assert after.personalities["greeks"]["general"] == 1
    conquer = events[0]
    assert conquer == {
        "type": "conquer", "nation": "greeks", "player": "cy", "defender": "egyptians",
        "defender_player": "dee", "province": "marmarica", "strength": 6, "legions": 4,
        "galleys": {"aegyptium": 2}, "temple": True,
        "defender_losses": {"legions": 1, "galleys": {"libycum": 1}}}
    assert types(events) == ["conquer", "personality"]
    assert events[1]["kind"] == "general" and events[1]["total"] == 1
    line = GAME.narrate(events, {"cy": "Cy"})[0]
    assert line == ("Greeks (Cy) conquer Corniclanum from the Egyptians with 4 legions and "
                    "2 galleys; the temple falls.")


def _tyros(legions: int, galleys: int) -> AntiquityState:
    return pos(cities={"phoenicia": "phoenicians", "syria": "phoenicians",
                       "attica": "greeks"},
               legions={"phoenicia": {"phoenicians": 1, "greeks": legions}},
               galleys={"syriacum": {"greeks": galleys}})


def test_example_2_tyros_has_strength_2_and_falls_to_two_galleys() -> None:
    s = _tyros(0, 2)
    assert province(s, "phoenicia")["defence"] == 2
    assert [a for a in legal(s) if a.startswith("conquer phoenicia")] == ["conquer phoenicia 0"]
    after, events = act(s, "conquer phoenicia 0")
    assert after.cities["phoenicia"] == "greeks"
    assert after.count("syriacum", "greeks") == 0 and after.count("phoenicia", "greeks") == 0
    assert after.count("phoenicia", "phoenicians") == 0
    assert events[0]["galleys"] == {"syriacum": 2} and events[0]["legions"] == 0
    assert not events[0]["temple"] and after.personalities["greeks"]["general"] == 0
    assert GAME.narrate(events, {"cy": "Cy"}) == [
        "Greeks (Cy) conquer Tyros from the Phoenicians with 2 galleys."]


def test_example_3_tyros_falls_to_a_legion_and_a_galley_leaving_one_unit() -> None:
    s = _tyros(2, 1)
    assert [a for a in legal(s) if a.startswith("conquer phoenicia")] == [
        "conquer phoenicia 1", "conquer phoenicia 2"]
    after, _ = act(s, "conquer phoenicia 1")  # one legion and one galley removed
    assert after.cities["phoenicia"] == "greeks"
    assert after.count("phoenicia", "greeks") == 1 and after.count("syriacum", "greeks") == 0
    after, _ = act(s, "conquer phoenicia 2")  # two legions: the galley is left
    assert after.count("phoenicia", "greeks") == 0 and after.count("syriacum", "greeks") == 1
    refused(s, "conquer phoenicia 0", "1 to 2 of them legions")  # only 1 galley there
    refused(s, "conquer phoenicia 3", "strength 2")


def test_galleys_are_taken_from_the_sea_holding_most_of_them() -> None:
    s = pos(cities={"sicilia": "romans", "latium": "romans", "attica": "greeks"},
            legions={}, galleys={"tyrrhenum": {"greeks": 1}, "siculum": {"greeks": 2},
                                 "ionium": {"greeks": 2}})
    after, events = act(s, "conquer sicilia 0")  # strength 1
    assert events[0]["galleys"] == {"siculum": 1}  # most galleys, map order first on a tie
    after, events = act(after.copy(), "end")
    assert after.cities["sicilia"] == "greeks"


def test_a_nations_last_city_cannot_be_conquered() -> None:
    s = pos(cities={"phoenicia": "phoenicians", "attica": "greeks"},
            legions={"phoenicia": {"greeks": 5}})
    refused(s, "conquer phoenicia 2", "last city")


def test_with_25_cities_a_nation_abandons_one_to_conquer_or_found() -> None:
    mine = ["lusitania", "baetica", "celtiberia", "tarraconensis", "narbonensis",
            "mauretania", "cisalpina", "etruria", "latium", "campania", "apulia", "sardinia",
            "sicilia", "numidia", "africa", "tripolitania", "illyria", "macedonia",
            "thracia", "attica", "peloponnesus", "creta", "cyrenaica", "marmarica", "asia"]
    assert len(mine) == C.STONES
    cities = {p: "greeks" for p in mine}
    cities.update({"phoenicia": "phoenicians", "syria": "phoenicians"})
    cities["lusitania"] = "greeks"
    s = pos(cities=cities, temples=["attica"], personalities={"greeks": {"king": 5}},
            legions={"phoenicia": {"greeks": 3}, "cilicia": {"greeks": 1}})
    assert GAME.view(s, None)["nations"][2]["stones"] == 0
    refused(s, "conquer phoenicia 1", "no city stone left", "abandon")
    refused(s, "found cilicia", "no city stone left")
    assert [a for a in legal(s) if a.startswith("abandon")][:2] == [
        "abandon lusitania", "abandon baetica"]
    after, events = act(s, "abandon attica")
    assert "attica" not in after.cities and not after.temples
    assert events == [{"type": "abandon", "nation": "greeks", "player": "cy",
                       "province": "attica", "temple": True}]
    assert after.stones("greeks") == 1
    conquered, _ = act(after, "conquer phoenicia 1")
    assert conquered.cities["phoenicia"] == "greeks" and conquered.stones("greeks") == 0
    founded, _ = act(after, "found cilicia")
    assert founded.cities["cilicia"] == "greeks"
    # with stones left there is nothing to abandon
    few = pos()
    refused(few, "abandon attica", "city stone")


def test_the_last_city_cannot_be_abandoned_and_only_own_cities_can() -> None:
    s = pos(cities={"attica": "greeks", "latium": "romans"})
    refused(s, "abandon latium", "not your city")


# -- the wheel -----------------------------------------------------------------------------

def test_the_first_turn_goes_anywhere_for_free() -> None:
    s = GAME.new_game(PLAYERS[:3], 1)
    assert s.phase == "wheel" and all(v is None for v in s.wheel.values())
    assert legal(s) == [f"go {f}" for f in ("marble", "temple", "maneuver1", "knowhow",
                                              "gold", "iron", "arming", "maneuver2")]
    after, events = act(s, "go maneuver2")
    assert events[0]["steps"] == 0 and events[0]["paid"] == {} and events[0]["from"] is None
    assert after.phase == "action" and after.field == "maneuver2"


def test_three_steps_are_free_and_each_further_step_costs_the_resource_held_most() -> None:
    s = pos(phase="wheel", field=None, wheel={"greeks": "marble"},
            resources={"greeks": {"marble": 2, "iron": 2, "gold": 2}})
    view = GAME.view(s, None)
    assert [(o["field"], o["steps"], o["cost"]) for o in view["wheel_options"]] == [
        ("temple", 1, 0), ("maneuver1", 2, 0), ("knowhow", 3, 0), ("gold", 4, 1),
        ("iron", 5, 2), ("arming", 6, 3), ("maneuver2", 7, 4)]
    assert "go maneuver2" in legal(s)  # 4 resources needed, 6 held
    after, events = act(s, "go iron")  # 5 steps: 2 resources, gold first on a tie, then iron
    assert events[0]["paid"] == {"iron": 1, "gold": 1}
    after, events = act(s, "go gold")
    assert events[0]["paid"] == {"gold": 1}
    rich = pos(phase="wheel", field=None, wheel={"greeks": "marble"},
               resources={"greeks": {"marble": 5, "iron": 0, "gold": 0}})
    after, events = act(rich, "go maneuver2")
    assert events[0]["paid"] == {"marble": 4} and after.resources["greeks"]["marble"] == 1
    poor = pos(phase="wheel", field=None, wheel={"greeks": "marble"},
               resources={"greeks": {"marble": 0, "iron": 1, "gold": 0}})
    assert legal(poor) == ["go temple", "go maneuver1", "go knowhow", "go gold"]
    refused(poor, "go iron", "2 resources", "you have 1")
    refused(poor, "go marble", "Your marker is on Marble")


def test_maneuver_2_is_offered_when_the_steps_can_be_paid() -> None:
    s = pos(phase="wheel", field=None, wheel={"greeks": "marble"},
            resources={"greeks": {"marble": 2, "iron": 1, "gold": 1}})
    assert "go maneuver2" in legal(s)


def test_production_counts_cities_temples_and_bonuses_and_ends_the_turn() -> None:
    s = pos(phase="wheel", field=None,
            cities={"attica": "greeks", "creta": "greeks", "apulia": "greeks",
                    "macedonia": "greeks", "latium": "romans"},
            temples=["creta", "latium"], wheel={"greeks": "maneuver2"},
            resources={"greeks": {"marble": 0, "iron": 0, "gold": 0}})
    after, events = act(s, "go marble")
    assert events[1] == {"type": "produce", "nation": "greeks", "player": "cy",
                         "resource": "marble", "amount": 1 + C.TEMPLE_YIELD + 1}
    assert after.resources["greeks"]["marble"] == 5
    assert types(events) == ["go", "produce", "turn"]
    assert after.turn == "egyptians" and after.phase == "wheel"
    dem = pos(phase="wheel", field=None, cities={"attica": "greeks", "macedonia": "greeks"},
              wheel={"greeks": "maneuver2"}, knowhow={"greeks": ["democracy", "currency"]},
              resources={"greeks": {"marble": 0, "iron": 0, "gold": 0}})
    after, events = act(dem, "go marble")
    assert events[1]["amount"] == 1 + C.DEMOCRACY_BONUS
    dem2 = pos(phase="wheel", field=None, cities={"attica": "greeks", "macedonia": "greeks"},
               wheel={"greeks": "knowhow"}, knowhow={"greeks": ["currency"]},
               resources={"greeks": {"marble": 0, "iron": 0, "gold": 0}})
    after, events = act(dem2, "go gold")
    assert events[1]["amount"] == 1 + C.CURRENCY_BONUS
    after, events = act(dem2, "go iron")  # no iron city: nothing, the turn still ends
    assert events[1]["amount"] == 0 and after.turn == "egyptians"


def test_the_round_turns_after_the_last_seat() -> None:
    s = pos(turn="iberians", field="temple", round=3)
    after, events = act(s, "end")
    assert after.turn == "romans" and after.round == 4
    assert events == [{"type": "turn", "nation": "romans", "player": "ann", "round": 4}]


# -- temples, arming, know-how -------------------------------------------------------------

def test_temples_cost_marble_come_from_the_bank_and_go_in_own_cities() -> None:
    s = pos(field="temple", resources={"greeks": {"marble": 10}}, temples=["macedonia"])
    assert legal(s) == ["temple attica", "temple peloponnesus", "end"]
    after, _events = act(s, "temple attica")
    assert "attica" in after.temples and after.resources["greeks"]["marble"] == 10 - C.TEMPLE_COST
    assert after.temples_left() == C.TEMPLES - 2
    refused(s, "temple macedonia", "already has a temple")
    refused(s, "temple latium", "not your city")
    refused(s, "temple aegaeum", "is a sea")
    poor = pos(field="temple", resources={"greeks": {"marble": C.TEMPLE_COST - 1}})
    assert legal(poor) == ["end"]
    refused(poor, "temple attica", f"costs {C.TEMPLE_COST} marble")
    # the bank is empty
    cities = {p: "romans" for p in ["lusitania", "baetica", "celtiberia", "tarraconensis",
                                    "narbonensis", "mauretania", "cisalpina", "etruria",
                                    "latium", "campania", "apulia", "sardinia", "sicilia",
                                    "numidia", "africa"]}
    cities["attica"] = "greeks"
    empty = pos(field="temple", cities=cities, temples=list(cities)[:C.TEMPLES],
                resources={"greeks": {"marble": 10}})
    assert empty.temples_left() == 0 and legal(empty) == ["end"]
    refused(empty, "temple attica", "no temple left")
    refused(s, "legion attica", "Arming field")


def test_arming_places_legions_by_own_cities_and_galleys_on_their_coasts() -> None:
    s = pos(field="arming", resources={"greeks": {"iron": 5}})
    # legions in the three home provinces; galleys in every sea on their coasts (deep too)
    assert legal(s) == ["legion macedonia", "legion attica", "legion peloponnesus",
                        "galley ionium", "galley libycum", "galley aegaeum", "end"]
    after, events = act(s, "galley ionium")
    assert after.count("ionium", "greeks") == 1 and after.resources["greeks"]["iron"] == 4
    assert events == [{"type": "arm", "nation": "greeks", "player": "cy", "unit": "galley",
                       "region": "ionium"}]
    after, _ = act(after, "legion attica")
    assert after.count("attica", "greeks") == 2
    refused(s, "legion latium", "has none")
    refused(s, "galley syriacum", "has none")
    refused(s, "galley attica", "is a province")
    full = pos(field="arming", resources={"greeks": {"iron": 5}},
               legions={"attica": {"greeks": C.LEGIONS}},
               galleys={"aegaeum": {"greeks": C.GALLEYS}})
    assert legal(full) == ["end"]
    refused(full, "legion attica", f"All your {C.LEGIONS} legions")
    broke = pos(field="arming", resources={"greeks": {"iron": 0}})
    refused(broke, "legion attica", "costs 1 iron")


def test_knowhow_costs_prerequisites_first_buyer_scholar_and_philosophy() -> None:
    s = pos(field="knowhow", resources={"greeks": {"gold": 30}},
            knowhow={"romans": ["monarchy"]})
    assert legal(s) == ["learn wheel", "learn sailing", "learn currency", "learn monarchy",
                        "learn democracy", "learn philosophy", "end"]
    view = GAME.view(s, None)
    assert view["knowhow_costs"]["monarchy"] == C.KNOWHOW_COST
    assert view["knowhow_costs"]["wheel"] == C.FIRST_COST
    after, events = act(s, "learn monarchy")  # Romans bought it first: no Scholar
    assert events == [{"type": "learn", "nation": "greeks", "player": "cy",
                       "knowhow": "monarchy", "cost": C.KNOWHOW_COST, "first": False}]
    after, events = act(after, "learn wheel")
    assert events[0]["cost"] == C.FIRST_COST and events[0]["first"]
    assert after.personalities["greeks"]["scholar"] == 1 and after.first["wheel"] == "greeks"
    assert "learn roads" in legal(after)
    after, events = act(after, "learn philosophy")  # first buyer: two Scholars
    assert after.personalities["greeks"]["scholar"] == 3
    assert types(events) == ["learn", "personality", "personality"]
    refused(after, "learn wheel", "already know")
    refused(s, "learn roads", "needs Wheel")
    refused(s, "learn navigation", "needs Sailing")
    poor = pos(field="knowhow", resources={"greeks": {"gold": C.FIRST_COST - 1}})
    refused(poor, "learn wheel", f"costs {C.FIRST_COST} gold")
    later = pos(field="knowhow", resources={"romans": {"gold": 30}}, turn="romans",
                knowhow={"greeks": ["philosophy"]})
    after, _ = act(later, "learn philosophy")  # a later buyer still gets Philosophy's one
    assert after.personalities["romans"]["scholar"] == 1


# -- maneuvers ---------------------------------------------------------------------------

def test_legions_range_grows_with_wheel_and_roads() -> None:
    s = pos(cities={"attica": "greeks", "latium": "romans"},
            legions={"attica": {"greeks": 1}})
    assert [a for a in legal(s) if a.startswith("move")] == [
        "move 1 attica macedonia", "move 1 attica peloponnesus"]
    wheel = pos(cities={"attica": "greeks", "latium": "romans"},
                legions={"attica": {"greeks": 1}}, knowhow={"greeks": ["wheel"]})
    assert "move 1 attica illyria" in legal(wheel)
    assert "move 1 attica cisalpina" not in legal(wheel)
    roads = pos(cities={"attica": "greeks", "latium": "romans"},
                legions={"attica": {"greeks": 1}}, knowhow={"greeks": ["wheel", "roads"]})
    after, events = act(roads, "move 1 attica cisalpina")
    assert events[0]["path"] == ["macedonia", "illyria", "cisalpina"]
    assert after.count("cisalpina", "greeks") == 1


def test_units_stop_at_foreign_units_and_legions_at_foreign_cities() -> None:
    s = pos(cities={"attica": "greeks", "illyria": "romans", "latium": "romans"},
            legions={"attica": {"greeks": 2}, "macedonia": {"carthaginians": 1}},
            knowhow={"greeks": ["wheel", "roads"]})
    moves = [a for a in legal(s) if a.startswith("move 1")]
    assert "move 1 attica macedonia" in moves and "move 1 attica illyria" not in moves
    refused(s, "move 1 attica illyria", "out of reach", "range 3")
    # starting from such a region is fine; a foreign city also stops legions
    t = pos(cities={"attica": "greeks", "macedonia": "romans", "latium": "romans"},
            legions={"macedonia": {"greeks": 1, "romans": 1}},
            knowhow={"greeks": ["wheel"]})
    assert "move 1 macedonia illyria" in legal(t) and "move 1 macedonia cisalpina" in legal(t)
    u = pos(cities={"attica": "greeks", "macedonia": "romans", "latium": "romans"},
            legions={"attica": {"greeks": 1}}, knowhow={"greeks": ["wheel"]})
    assert "move 1 attica macedonia" in legal(u) and "move 1 attica illyria" not in legal(u)


def test_galleys_need_navigation_for_deep_seas_and_sailing_for_range() -> None:
    s = pos(galleys={"aegaeum": {"greeks": 1}})
    assert [a for a in legal(s) if a.startswith("move 1 aegaeum")] == []  # ionium, libycum,
    refused(s, "move 1 aegaeum ionium", "deep sea")                # carpathium are deep
    nav = pos(galleys={"aegaeum": {"greeks": 1}}, knowhow={"greeks": ["sailing", "navigation"]})
    moves = [a.split()[-1] for a in legal(nav) if a.startswith("move")]
    assert {"ionium", "libycum", "carpathium", "siculum", "syriacum", "aegyptium"} <= set(moves)
    sail = pos(galleys={"tyrrhenum": {"greeks": 1}}, knowhow={"greeks": ["sailing"]})
    moves = [a.split()[-1] for a in legal(sail) if a.startswith("move 1 tyrrhenum")]
    assert moves == ["balearicum", "ligusticum", "sardoum", "siculum"]
    refused(sail, "move 1 tyrrhenum latium", "not both provinces or both seas")


def test_a_unit_moves_once_per_maneuver() -> None:
    s = pos(legions={"attica": {"greeks": 3}}, cities={"attica": "greeks",
                                                       "latium": "romans"})
    after, _ = act(s, "move 2 attica macedonia")
    assert after.moved == {"macedonia": 2}
    assert not any(a.startswith("move 1 macedonia") for a in legal(after))
    refused(after, "move 1 macedonia attica", "only 0 legions", "2 already moved")
    refused(after, "move 2 attica peloponnesus", "only 1 legion")
    after, _ = act(after, "move 1 attica macedonia")
    assert after.moved == {"macedonia": 3}
    ended, _ = act(after, "end")
    assert ended.moved == {}
    refused(s, "move 1 syria judaea", "no legions")


def test_fight_removes_one_for_one() -> None:
    s = pos(legions={"attica": {"greeks": 3, "romans": 2}},
            galleys={"aegaeum": {"greeks": 1, "egyptians": 4}})
    assert [a for a in legal(s) if a.startswith("fight")] == [
        "fight attica romans", "fight aegaeum egyptians"]
    after, events = act(s, "fight attica romans")
    assert after.count("attica", "greeks") == 1 and after.count("attica", "romans") == 0
    assert events[0]["losses"] == 2
    after, _ = act(s, "fight aegaeum egyptians")
    assert after.count("aegaeum", "greeks") == 0 and after.count("aegaeum", "egyptians") == 3
    refused(s, "fight attica egyptians", "have no legions")
    refused(s, "fight attica greeks", "yourself")
    five = GAME.load(json.dumps({"players": PLAYERS[:5], "turn": "greeks", "phase": "action",
                                 "field": "maneuver1",
                                 "legions": {"attica": {"greeks": 3, "romans": 2}}}))
    refused(five, "fight attica phoenicians", "not in this game")  # they play only at 6


def test_found_needs_a_unit_no_foreign_legion_and_one_of_each_resource() -> None:
    s = pos(legions={"thracia": {"greeks": 1}, "cyrenaica": {"greeks": 1, "romans": 1}},
            galleys={"aegaeum": {"greeks": 1}},
            resources={"greeks": {"marble": 1, "iron": 1, "gold": 1}})
    assert [a for a in legal(s) if a.startswith("found")] == [
        "found thracia", "found creta", "found asia"]  # galleys in Mare Aegaeum too
    after, events = act(s, "found creta")
    assert after.cities["creta"] == "greeks" and after.total_resources("greeks") == 0
    assert events == [{"type": "found", "nation": "greeks", "player": "cy",
                       "province": "creta"}]
    refused(s, "found cyrenaica", "Romans have legions")
    refused(s, "found attica", "already holds your city")
    refused(s, "found cilicia", "You need a legion")
    poor = pos(legions={"thracia": {"greeks": 1}}, resources={"greeks": {"gold": 0}})
    refused(poor, "found thracia", "1 marble, 1 iron and 1 gold")


# -- personalities and the end ---------------------------------------------------------------

def test_kings_citizens_and_navigators_are_earned_once_and_never_lost() -> None:
    s = pos(cities={"attica": "greeks", "macedonia": "greeks", "peloponnesus": "greeks",
                    "creta": "greeks", "latium": "romans"},
            legions={"thracia": {"greeks": 1}}, temples=["attica", "macedonia"],
            galleys={"aegaeum": {"greeks": 1}, "ionium": {"greeks": 1},
                     "libycum": {"greeks": 1}, "siculum": {"greeks": 2}},
            knowhow={"greeks": ["sailing", "navigation"]})
    after, events = act(s, "found thracia")  # the 5th city; galleys already in 4 seas
    assert [(e["type"], e.get("kind")) for e in events] == [
        ("found", None), ("personality", "king"), ("personality", "navigator")]
    assert after.personalities["greeks"]["king"] == 1
    after, events = act(after, "move 1 siculum tyrrhenum")  # a 5th sea: nothing new
    assert after.personalities["greeks"]["navigator"] == 1 and types(events) == ["move"]
    s2 = pos(field="temple", temples=["attica", "macedonia"],
             resources={"greeks": {"marble": 10}})
    after, events = act(s2, "temple peloponnesus")
    assert after.personalities["greeks"]["citizen"] == 1 and events[-1]["kind"] == "citizen"
    # losing a city does not take the King back
    lost = pos(cities={"attica": "greeks", "latium": "romans", "etruria": "romans"},
               personalities={"greeks": {"king": 1}}, legions={"latium": {"greeks": 3}})
    after, _ = act(lost, "conquer latium 1")
    assert after.personalities["greeks"]["king"] == 1


def test_navigator_counts_different_seas() -> None:
    s = pos(galleys={"aegaeum": {"greeks": 1}, "ionium": {"greeks": 1},
                     "libycum": {"greeks": 2}},
            knowhow={"greeks": ["sailing", "navigation"]})
    after, events = act(s, "move 1 libycum siculum")
    assert after.seas_of("greeks") == 4
    assert events[-1] == {"type": "personality", "nation": "greeks", "player": "cy",
                          "kind": "navigator", "count": 1, "total": 1}


def test_victory_at_the_end_of_the_nations_own_turn() -> None:
    goal = C.TARGET[6]
    s = pos(field="knowhow", resources={"greeks": {"gold": 20}},
            personalities={"greeks": {"scholar": goal - 1}, "romans": {"king": goal + 2}})
    after, events = act(s, "learn wheel")
    assert after.points("greeks") == goal and GAME.outcome(after) is None
    assert GAME.view(after, None)["target"] == goal
    over, events = act(after, "end")
    outcome = GAME.outcome(over)
    assert outcome is not None and outcome.winners == ("cy",)
    assert outcome.standings[0] == "cy" and outcome.standings[1] == "ann"
    assert events[-1]["type"] == "victory" and events[-1]["nations"] == ["greeks"]
    assert GAME.to_act(over) == [] and GAME.legal_actions(over, "cy") == []
    with pytest.raises(IllegalAction, match="over"):
        GAME.apply(over, "cy", "end")
    # the Romans, over the target too, win only at the end of their own turn
    assert over.winners == ["greeks"]
    for n in range(2, 7):
        players = [f"p{i}" for i in range(n)]
        assert GAME.view(GAME.new_game(players, 1), None)["target"] == C.TARGET[n]


def test_production_ending_a_turn_can_win() -> None:
    s = pos(phase="wheel", field=None, wheel={"greeks": "knowhow"},
            personalities={"greeks": {"king": C.TARGET[6]}})
    over, events = act(s, "go gold")
    assert types(events)[-1] == "victory" and over.result == "target"


def test_the_round_limit_and_its_tie_breaks() -> None:
    base: dict[str, Any] = dict(rounds=5, round=5, turn="iberians", field="temple")
    s = pos(**base, personalities={"romans": {"king": 2}, "greeks": {"king": 2}},
            cities={"attica": "greeks", "macedonia": "greeks", "latium": "romans"})
    over, events = act(s, "end")
    assert over.result == "rounds" and over.winners == ["greeks"]  # more cities
    assert "last round" in events[-1]["reason"]
    tied = pos(**base, cities={"attica": "greeks", "latium": "romans"}, legions={},
               resources={n: {"marble": 0, "iron": 0, "gold": 0} for n in SIX})
    over, _ = act(tied, "end")
    assert over.winners == ["romans", "greeks"]  # all tied: shared (the rest have no city)
    assert GAME.outcome(over).winners == ("ann", "cy")
    temples = pos(**base, cities={"attica": "greeks", "latium": "romans"}, temples=["latium"],
                  resources={n: {"marble": 0, "iron": 0, "gold": 0} for n in SIX})
    assert act(temples, "end")[0].winners == ["romans"]
    rich = pos(**base, cities={"attica": "greeks", "latium": "romans"},
               resources={**{n: {"marble": 0, "iron": 0, "gold": 0} for n in SIX},
                          "greeks": {"gold": 1}})
    assert act(rich, "end")[0].winners == ["greeks"]


def test_resigned_nations_are_skipped_their_cities_stay_and_the_last_one_wins() -> None:
    s = pos(field="temple")
    after, events = GAME.apply(s, "dee", "resign")  # out of turn
    assert events == [{"type": "resign", "nation": "egyptians", "player": "dee"}]
    assert after.turn == "greeks" and after.cities["aegyptus"] == "egyptians"
    after, events = act(after, "end")
    assert after.turn == "phoenicians"  # the Egyptians are skipped
    with pytest.raises(IllegalAction, match="out of this game"):
        GAME.apply(after, "dee", "end")
    after, events = GAME.apply(after, "eve", "resign")  # on its own turn: the next plays
    assert after.turn == "iberians" and types(events) == ["resign", "turn"]
    after, events = GAME.apply(after, "fay", "resign")  # the last seat: a new round
    assert after.turn == "romans" and after.round == 2 and types(events) == ["resign", "turn"]
    for p in ("bob", "cy"):
        after, _ = GAME.apply(after, p, "resign")
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.winners == ("ann",)
    assert outcome.standings == ("ann", "cy", "bob", "fay", "eve", "dee")
    # a resigned nation's last city is still protected; its others may be conquered
    t = pos(cities={"phoenicia": "phoenicians", "syria": "phoenicians", "attica": "greeks"},
            legions={"phoenicia": {"greeks": 3}}, out=["phoenicians"])
    assert "conquer phoenicia 1" in legal(t)


def test_to_act_is_the_one_nation_to_play_and_others_are_refused() -> None:
    s = pos()
    assert GAME.to_act(s) == ["cy"] and GAME.current_turn(s) == "cy"
    assert GAME.legal_actions(s, "ann") == [] and GAME.legal_actions(s, "nobody") == []
    with pytest.raises(IllegalAction, match="not your turn"):
        GAME.apply(s, "ann", "end")
    with pytest.raises(IllegalAction, match="not playing"):
        GAME.apply(s, "zed", "end")


def test_actions_belong_to_their_field() -> None:
    s = pos(phase="wheel", field=None)
    refused(s, "end", "First move your marker")
    m = pos()
    refused(m, "go gold", "already took Maneuver I")
    refused(m, "learn wheel", "Know-how field")


# -- the board by player count, the deal, set-up ----------------------------------------------

def test_regions_not_in_play_do_not_exist_for_fewer_players() -> None:
    s = GAME.new_game(["a", "b"], 3)
    view = GAME.view(s, None)
    ids = {p["id"] for p in view["provinces"]} | {x["id"] for x in view["seas"]}
    assert "phoenicia" not in ids and "syriacum" not in ids and "macedonia" not in ids
    assert len(view["provinces"]) == 17 and len(view["seas"]) == 8
    full = GAME.view(GAME.new_game([str(i) for i in range(6)], 3), None)
    assert len(full["provinces"]) == 34 and len(full["seas"]) == 13
    with pytest.raises(IllegalAction, match="not in play with 4 players"):
        GAME.load(json.dumps({"players": ["a", "b", "c", "d"], "cities": {"syria": "romans"}}))
    s4 = GAME.load(json.dumps({"players": ["a", "b", "c", "d"], "phase": "action",
                               "field": "maneuver1", "turn": "egyptians",
                               "legions": {"judaea": {"egyptians": 1}}}))
    # Judaea joins at 4 players (a free site behind Sinai), Syria and Phoenicia at 6
    assert "move 1 judaea sinai" in legal(s4)
    assert not any("syria" in a or "phoenicia" in a for a in legal(s4))
    refused(s4, "move 1 judaea syria", "not in play")


def test_the_deal_gives_the_first_nations_to_the_seats_at_random_from_the_seed() -> None:
    for n in range(2, 7):
        deals = {tuple(GAME.new_game([f"p{i}" for i in range(n)], seed).nations)
                 for seed in range(12)}
        assert all(sorted(d) == sorted(C_ORDER[:n]) for d in deals)
        assert len(deals) > 1
    a = GAME.new_game(PLAYERS, 9)
    assert GAME.dump(a) == GAME.dump(GAME.new_game(PLAYERS, 9))


C_ORDER = ["romans", "carthaginians", "greeks", "egyptians", "iberians", "phoenicians"]


def test_a_fresh_game_sets_up_home_cities_legions_and_seat_gold() -> None:
    s = GAME.new_game(PLAYERS[:3], 4)
    view = GAME.view(s, None)
    for seat, nation in enumerate(view["nations"]):
        assert nation["seat"] == seat and nation["cities"] == 3 and nation["legions"] == 3
        assert nation["stones"] == C.STONES - 3 and nation["galleys"] == 0
        assert (nation["marble"], nation["iron"], nation["gold"]) == (
            C.START["marble"], C.START["iron"], C.START["gold"] + seat * C.SEAT_GOLD)
        assert nation["points"] == 0 and nation["wheel"] is None
    assert view["round"] == 1 and view["temples_left"] == C.TEMPLES
    assert view["phase"] == "wheel" and view["turn"] == s.nations[0]
    assert view["to_act"] == ["ann"] and "place their marker" in view["prompt"]
    json.dumps(view)


# -- the clock -----------------------------------------------------------------------------

def test_timeouts_produce_for_free_or_end_the_action() -> None:
    s = GAME.new_game(PLAYERS[:2], 1)
    assert GAME.timeout_action(s, "ann") == "go gold" and GAME.timeout_action(s, "bob") is None
    for here, expected in [("marble", "go temple"), ("temple", "go gold"),
                           ("maneuver1", "go gold"), ("knowhow", "go gold"),
                           ("gold", "go iron"), ("iron", "go marble"),
                           ("arming", "go marble"), ("maneuver2", "go marble")]:
        t = pos(phase="wheel", field=None, wheel={"greeks": here})
        assert GAME.timeout_action(t, "cy") == expected, here
    assert GAME.timeout_action(pos(), "cy") == "end"


# -- notation, labels, narration ---------------------------------------------------------------

def test_friendly_forms_are_accepted() -> None:
    s = pos(phase="wheel", field=None, wheel={"greeks": "marble"})
    a, _ = act(s, "GO Maneuver I")
    b, _ = act(s, "go maneuver 1")
    assert a.field == b.field == "maneuver1"
    assert act(s, "go know-how")[0].field == "knowhow"
    t = _tyros(2, 1)
    assert act(t, "conquer Tyros 1")[0].cities["phoenicia"] == "greeks"
    u = pos(galleys={"syriacum": {"greeks": 1}})
    assert act(u, "move 1 Mare Syriacum mare aegyptium")[0].count("aegyptium", "greeks") == 1
    assert act(u, "move mare syriacum aegyptium 1")[0].count("aegyptium", "greeks") == 1
    v = pos(legions={"attica": {"greeks": 1, "romans": 1}})
    assert act(v, "fight Athenai Roman")[0].count("attica", "romans") == 0


@pytest.mark.parametrize("bad,words", [
    ("fly to rome", "don't know"), ("move", "Write"), ("move 1 attica", "Write"),
    ("move 1 atlantis attica", "not a province or a sea"), ("go nowhere", "not a field"),
    ("learn magic", "not a know-how"), ("conquer phoenicia", "how many of the units"),
    ("conquer", "Write"), ("move 99999 attica macedonia", "whole number"),
    ("move 0 attica macedonia", "at least 1"), ("fight attica", "name the nation"),
    ("temple", "Write"),
])
def test_bad_input_is_refused_with_a_message(bad: str, words: str) -> None:
    with pytest.raises(IllegalAction, match=words):
        act(pos(), bad)


def test_choice_labels_read_the_view() -> None:
    s = pos(phase="wheel", field=None, wheel={"greeks": "marble"},
            cities={"phoenicia": "phoenicians", "attica": "greeks"}, temples=["phoenicia"])
    view = GAME.view(s, "cy")
    assert GAME.choice_labels(view, "province", ["phoenicia", "creta"]) == [
        "phoenicia · Tyros (Phoenician, temple)", "creta · Knossos (free site, marble)"]
    assert GAME.choice_labels(view, "field", ["maneuver1", "gold"]) == [
        "maneuver1 · Maneuver I (2 steps, free)", "gold · Gold (4 steps, 1 resource)"]
    assert GAME.choice_labels(view, "sea", ["syriacum", "ionium"]) == [
        "syriacum · Mare Syriacum", "ionium · Mare Ionium (deep)"]
    assert GAME.choice_labels(view, "knowhow", ["monarchy"]) == [
        f"monarchy · Monarchy ({C.FIRST_COST} gold)"]
    assert GAME.choice_labels(view, "region", ["attica", "aegaeum"]) == [
        "attica · Athenai (Greek)", "aegaeum · Mare Aegaeum"]
    assert GAME.choice_labels(view, "nation", ["romans"]) == ["romans · Romans (ann)"]


def test_every_event_is_narrated_in_one_line() -> None:
    s = GAME.new_game(PLAYERS[:2], 2)
    s, events = act(s, "go maneuver1")
    lines = GAME.narrate(events, {"ann": "Ann", "bob": "Bob"})
    assert len(lines) == 1 and "start on Maneuver I" in lines[0]
    s, events = act(s, "end")
    assert GAME.narrate(events, {}) == [f"Round 1: {GAME.view(s, None)['nations'][1]['name']}"
                                        f" ({s.players[1]}) to play."]


# -- the position format --------------------------------------------------------------------

def test_the_brief_example_position_loads_and_round_trips() -> None:
    text = json.dumps({
        "players": ["a", "b", "c", "d", "e", "f"], "nations": SIX,
        "cities": {"phoenicia": "phoenicians", "attica": "greeks"}, "temples": ["phoenicia"],
        "legions": {"phoenicia": {"phoenicians": 1}}, "galleys": {"syriacum": {"greeks": 2}},
        "resources": {"greeks": {"gold": 4}}, "knowhow": {"phoenicians": ["monarchy"]},
        "wheel": {"romans": "gold"}, "turn": "greeks", "phase": "action",
        "field": "maneuver1"})
    s = GAME.load(text)
    assert s.wheel["greeks"] == "maneuver1" and s.first == {"monarchy": "phoenicians"}
    # An omitted resource takes the starting amount; a given one replaces it.
    assert s.resources["greeks"] == {**C.START, "gold": 4}
    assert s.resources["romans"] == C.START
    assert GAME.load(GAME.dump(s)) == s and GAME.dump(GAME.load(GAME.dump(s))) == GAME.dump(s)
    fresh = GAME.load("{}")
    assert fresh.nations == ["romans", "carthaginians"] and fresh.cities["latium"] == "romans"


@pytest.mark.parametrize("data,words", [
    ({"colour": 1}, "unknown field 'colour'"),
    ({"format": "x"}, "format"),
    ({"cities": {"atlantis": "romans"}}, "unknown province 'atlantis'"),
    ({"cities": {"aegaeum": "romans"}}, "is a sea, not a province"),
    ({"cities": {"phoenicia": "romans"}}, "phoenicia is not in play with 2 players"),
    ({"cities": {"latium": "greeks"}}, "do not play in a 2-player game"),
    ({"legions": {"latium": {"romans": 16}}}, "legions.latium.romans: 16 is above 15"),
    ({"legions": {"latium": {"romans": -1}}}, "below 0"),
    ({"legions": {"latium": {"romans": 8}, "etruria": {"romans": 8}}}, "more than their 15"),
    ({"galleys": {"latium": {"romans": 1}}}, "is a province, not a sea"),
    ({"galleys": {"tyrrhenum": {"romans": True}}}, "not a whole number"),
    ({"temples": ["sicilia"]}, "no city to hold a temple"),
    ({"resources": {"romans": {"wood": 1}}}, "unknown resource"),
    ({"resources": {"romans": {"gold": 10**9}}}, "above"),
    ({"knowhow": {"romans": ["roads"]}}, "roads needs wheel"),
    ({"knowhow": {"romans": ["magic"]}}, "unknown know-how"),
    ({"first": {"wheel": "romans"}}, "do not hold wheel"),
    ({"wheel": {"romans": "nowhere"}}, "not a wheel field"),
    ({"phase": "action"}, "needs the field"),
    ({"phase": "action", "field": "gold"}, "ends the turn"),
    ({"field": "temple"}, "only phase action"),
    ({"phase": "over"}, "winners"),
    ({"round": 70}, "above 60"),
    ({"moved": {"latium": 1}}, "only during a Maneuver"),
    ({"phase": "action", "field": "maneuver1", "moved": {"latium": 2}}, "above 1"),
    ({"nations": ["romans", "greeks"]}, "do not play in a 2-player game"),
    ({"players": ["a", "a"]}, "two seats"),
    ({"out": ["romans"]}, "two nations still playing"),
    ({"players": ["a", "b", "c"], "out": ["romans"], "turn": "romans"}, "resigned"),
    ("[]", "must be an object"),
    ("{", "not JSON"),
])
def test_bad_positions_say_what_and_where(data: Any, words: str) -> None:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(IllegalAction, match="Not a valid Antiquity position") as err:
        GAME.load(text)
    assert words in str(err.value)


def test_narration_does_not_depend_on_the_order_of_a_stored_events_keys() -> None:
    event = {"type": "go", "nation": "romans", "player": "ann", "field": "knowhow",
             "from": "marble", "steps": 7, "paid": {"gold": 1, "marble": 3}}
    assert GAME.narrate([event], {"ann": "Ann"}) == [
        "Romans (Ann) move 7 steps to Know-how (paying 3 marble and 1 gold)."]


def test_the_view_lists_each_seat_for_the_status() -> None:
    view = GAME.view(pos(), None)
    assert [p["id"] for p in view["players"]] == PLAYERS
    assert view["players"][2] == {"id": "cy", "nation": "Greeks", "personalities": 0,
                                  "cities": 3, "temples": 0, "out": False}


def test_the_rules_docs_third_example_position_plays_as_the_seed_tells() -> None:
    # docs/games/antiquity.md retells the seed's third example as a position: two Greek
    # legions and a galley against Tyros (strength 2); a legion and the galley go, and a
    # Greek legion stays beside the new city stone
    doc = (Path(__file__).resolve().parents[1] / "docs/games/antiquity.md").read_text()
    start = doc.index("Example: the third worked example")
    block = re.search(r"```json\n(.*?)```", doc[start:], re.S)
    assert block is not None
    s = GAME.load(block.group(1))
    assert s.count("phoenicia", "greeks") == 2 and s.count("syriacum", "greeks") == 1
    after, _ = GAME.apply(s, GAME.to_act(s)[0], "conquer phoenicia 1")
    assert after.cities["phoenicia"] == "greeks"
    assert after.count("phoenicia", "greeks") == 1 and after.count("syriacum", "greeks") == 0
    assert after.count("phoenicia", "phoenicians") == 0


def test_earlier_states_stay_as_they_were() -> None:
    """apply shares a region's units and a nation's personalities with the state it
    starts from until it changes them: no later move, from any earlier state, writes
    into an earlier one."""
    rng = random.Random(7)
    state = GAME.new_game(["p1", "p2", "p3"], 7)
    seen: list[tuple[AntiquityState, str]] = []
    for _ in range(400):
        actors = GAME.to_act(state)
        if not actors:
            break
        seen.append((state, GAME.dump(state)))
        if len(seen) > 3 and rng.random() < 0.2:  # a branch from an earlier state
            old, _ = seen[rng.randrange(len(seen))]
            if GAME.to_act(old):
                who = GAME.to_act(old)[0]
                GAME.apply(old, who, rng.choice(GAME.legal_actions(old, who)))
        legal = GAME.legal_actions(state, actors[0])
        state, _ = GAME.apply(state, actors[0], rng.choice(legal))
    assert len(seen) > 100
    for old, dump in seen:
        assert GAME.dump(old) == dump
