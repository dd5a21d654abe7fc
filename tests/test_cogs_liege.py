"""cogs/liege.py: notation building, choices derived from legal actions and the view, the
shop, and the cog's commands."""

from __future__ import annotations

from functools import partial
from typing import Any

import discord
import pytest
from discord.ext import commands

from cogs import choices as autocomplete
from cogs import liege as lg
from cogs import wording
from cogs.verbs import GameCommands, completers
from engine.liege.notation import VERBS
from engine.verbs import notation

A, B = "111111111111111111", "222222222222222222"

N = partial(notation, VERBS)


# -- notation ---------------------------------------------------------------------------------


def test_notation_builders() -> None:
    assert N("general", " E1 ") == "general e1"
    assert N("buy", "rifle", "C3") == "buy rifle c3"
    assert N("buy", "Machine Gun", "c3") == "buy mg c3"
    assert N("buy", "armoured vehicle", "c3") == "buy av c3"
    assert N("buy", "MG", "c3") == "buy mg c3"
    assert N("grenade", "c3", "D5") == "grenade c3 d5"
    assert N("missile", "c3", "e7") == "missile c3 e7"
    assert N("gas", "c3", "e7") == "gas c3 e7"
    assert N("shift", "C3", "c4") == "shift c3 c4"
    assert N("turn", "c3", "e") == "turn c3 e"
    assert N("turn", "c3", "North") == "turn c3 n"
    assert N("attack", "c3", "d5") == "attack c3 d5"
    assert N("casualty", "D5") == "casualty d5"
    assert ("done", "skip", "end") == ("done", "skip", "end")


def test_typed_out_choice_labels_are_understood() -> None:
    assert N("buy", "Rifle — 20 credits", "c3") == "buy rifle c3"
    assert N("buy", "Machine Gun — 130 credits: you have 100", "c3") == "buy mg c3"
    assert N("buy", "Trench — 40 credits (3 left)", "c3") == "buy trench c3"
    assert lg.canonical("bazooka — 5") == "bazooka"    # unknown: the engine refuses it


def test_garbage_is_passed_on_for_the_engine_to_refuse() -> None:
    # inner spaces are kept, so "c3 d4" stays two words and the engine says what is wrong
    assert N("general", "c3  d4") == "general c3 d4"
    assert N("buy", "bazooka", "c3") == "buy bazooka c3"
    assert N("casualty", "🙂") == "casualty 🙂"


# -- choices from legal actions ------------------------------------------------------------------

LEGAL = ["general e2", "general f2", "skip",
         "buy rifle c2", "buy rifle d2", "buy mg c2", "buy trench h5",
         "grenade c3 c5", "grenade c3 d4", "grenade d3 d5",
         "missile e3 e6", "gas e3 e6", "gas e3 f7",
         "shift c3 c4", "shift c3 b4", "shift e3 e4",
         "turn e3 e", "turn e3 w",
         "attack c3 d4", "attack c3 c4", "attack e3 e5",
         "casualty d5", "casualty c4", "done", "end"]


def test_firsts_in_order_of_first_appearance() -> None:
    assert lg.firsts(LEGAL, "general") == ["e2", "f2"]
    assert lg.firsts(LEGAL, "buy") == ["rifle", "mg", "trench"]
    assert lg.firsts(LEGAL, "grenade") == ["c3", "d3"]
    assert lg.firsts(LEGAL, "shift") == ["c3", "e3"]
    assert lg.firsts(LEGAL, "turn") == ["e3"]
    assert lg.firsts(LEGAL, "attack") == ["c3", "e3"]
    assert lg.firsts(LEGAL, "casualty") == ["d5", "c4"]
    assert lg.firsts(LEGAL, "nonsense") == []
    assert lg.firsts([], "attack") == []


def test_seconds_depend_on_the_first() -> None:
    assert lg.seconds(LEGAL, "attack", "c3") == ["d4", "c4"]
    assert lg.seconds(LEGAL, "attack", " E3 ") == ["e5"]
    assert lg.seconds(LEGAL, "attack", "j9") == []
    assert lg.seconds(LEGAL, "attack", None) == ["d4", "c4", "e5"]
    assert lg.seconds(LEGAL, "buy", "rifle") == ["c2", "d2"]
    assert lg.seconds(LEGAL, "buy", "Machine Gun") == ["c2"]          # aliases understood
    assert lg.seconds(LEGAL, "shift", "c3") == ["c4", "b4"]
    assert lg.seconds(LEGAL, "turn", "e3") == ["e", "w"]
    assert lg.weapon_sources(LEGAL, "gas") == ["e3"]
    assert lg.weapon_targets(LEGAL, "gas", "e3") == ["e6", "f7"]
    assert lg.weapon_targets(LEGAL, "missile", "c3") == []
    assert lg.seconds(LEGAL, "casualty", "d5") == []                  # one argument only


def test_every_derived_choice_rebuilds_a_legal_action() -> None:
    built = set()
    for src in lg.firsts(LEGAL, "attack"):
        built |= {N("attack", src, t) for t in lg.seconds(LEGAL, "attack", src)}
    for piece in lg.firsts(LEGAL, "buy"):
        built |= {N("buy", piece, sq) for sq in lg.seconds(LEGAL, "buy", piece)}
    for weapon in lg.WEAPONS:
        for src in lg.weapon_sources(LEGAL, weapon):
            built |= {N(weapon, src, t)
                      for t in lg.weapon_targets(LEGAL, weapon, src)}
    for src in lg.firsts(LEGAL, "shift"):
        built |= {N("shift", src, t) for t in lg.seconds(LEGAL, "shift", src)}
    for sq in lg.firsts(LEGAL, "turn"):
        built |= {N("turn", sq, f) for f in lg.seconds(LEGAL, "turn", sq)}
    built |= {N("general", s) for s in lg.firsts(LEGAL, "general")}
    built |= {N("casualty", s) for s in lg.firsts(LEGAL, "casualty")}
    assert built == set(LEGAL) - {"skip", "done", "end"}


# -- the view -------------------------------------------------------------------------------------

ME = {"id": A, "seat": 1, "side": "south", "credits": 150, "lives": 3, "out": False,
      "general": "e2", "in_vehicle": False, "in_trench": False, "highlights": ["e1", "f1"],
      "prices": {"rifle": 20, "mg": 130, "mortar": 160, "av": 210, "trench": 40,
                 "grenade": 80, "missile": 50, "gas": 60},
      "left": {"trench": 0, "grenade": 3, "missile": 2, "gas": 1}}
THEM = {**ME, "id": B, "seat": 2, "side": "north", "credits": 400, "general": "f10",
        "left": {"trench": 3, "grenade": 3, "missile": 2, "gas": 2}}
VIEW: dict[str, Any] = {
    "kind": "liege", "viewer": None, "size": 10, "round": 2, "turn": A, "to_act": [A],
    "phase": "deploy", "players": [ME, THEM],
    "pieces": [
        {"square": "c3", "type": "rifle", "owner": A, "facing": None, "damaged": False,
         "general_inside": None, "fought": False, "new": False},
        {"square": "d5", "type": "mg", "owner": B, "facing": "s", "damaged": True,
         "general_inside": None, "fought": False, "new": False},
        {"square": "h5", "type": "trench", "owner": None, "facing": None, "damaged": False,
         "general_inside": B, "fought": False, "new": False},
    ],
}


def test_player_entry_and_occupants() -> None:
    assert lg.player_entry(VIEW, B) is THEM
    assert lg.player_entry(VIEW, "999") is None
    assert lg.player_entry({}, A) is None
    assert lg.occupants(VIEW) == {"c3": "Rifle", "d5": "Machine Gun (damaged)",
                                  "h5": "Trench with a General", "e2": "General",
                                  "f10": "General"}
    assert lg.occupants({"pieces": ["junk", {"square": 3}], "players": [None]}) == {}


def test_square_labels_say_what_stands_there() -> None:
    assert lg.square_labels(["c3", "d5", "c4"], VIEW) == [
        ("c3 · Rifle", "c3"), ("d5 · Machine Gun (damaged)", "d5"), ("c4", "c4")]
    assert lg.square_labels(["c3"], None) == [("c3", "c3")]


def test_piece_choices_show_prices_and_why_not() -> None:
    legal = ["buy rifle c2", "buy mg c2", "end"]
    choices = dict((value, label) for label, value in lg.piece_choices(ME, legal))
    assert list(choices) == ["rifle", "mg", "mortar", "av", "trench"]
    assert choices["rifle"] == "Rifle — 20 credits"
    assert choices["mg"] == "Machine Gun — 130 credits"
    assert choices["mortar"] == "Mortar — 160 credits: you have 150"
    assert choices["av"] == "Armored Vehicle — 210 credits: you have 150"
    assert choices["trench"] == "Trench — 40 credits (0 left): none left"
    assert lg.piece_choices(ME, ["end"]) == []                     # may not buy now
    assert lg.piece_choices(ME, []) == []
    assert [v for _, v in lg.piece_choices(ME, legal, "machine")] == ["mg"]
    assert [v for _, v in lg.piece_choices(None, legal)] == list(lg.PIECES)


def test_shop_for_a_player() -> None:
    text = "\n".join(lg.shop_lines(VIEW, A))
    assert "150 credits left" in text
    assert "Rifle: 20\n" in text
    assert "Mortar: 160 (can't afford)" in text
    assert "Trench: 40 (0 left)" in text
    assert "Missile: 50 (+20 after your Mortars lost fights, 2 left, from a Mortar)" in text
    assert "Mustard Gas: 60 (+20 after your Mortars lost fights, 1 left, from a Mortar)" in text
    assert "Grenade: 80 (3 left, from a Rifle)" in text
    assert len(text) < 2000


def test_shop_for_a_spectator() -> None:
    text = "\n".join(lg.shop_lines(VIEW, "999"))
    assert f"<@{A}>: 150 credits" in text and f"<@{B}>: 400 credits" in text
    assert lg.shop_lines({}, None)[0].startswith("**Liège shop**")


# -- the cog --------------------------------------------------------------------------------------


def test_cog_commands() -> None:
    cog = GameCommands(commands.Bot(command_prefix="!", intents=discord.Intents.none()))
    group = cog.groups["liege"]
    assert group.name == "liege"
    names = sorted(c.name for c in group.commands)
    assert names == ["attack", "buy", "casualty", "done", "end", "gas", "general", "grenade",
                     "missile", "range", "shift", "shop", "skip", "turn"]

    def params(name: str) -> dict[str, Any]:
        command = group.get_command(name)
        assert command is not None
        return {p.display_name: p for p in command.parameters}  # type: ignore[union-attr]

    for name, options in {"general": ["square"], "buy": ["piece", "square"],
                          "grenade": ["from", "target"], "missile": ["from", "target"],
                          "gas": ["from", "target"], "shift": ["from", "to"],
                          "turn": ["square"], "attack": ["from", "target"],
                          "casualty": ["square"], "range": ["square"]}.items():
        found = params(name)
        for option in options:
            assert found[option].autocomplete, (name, option)
    facing = params("turn")["facing"]
    assert [c.value for c in facing.choices] == ["n", "e", "s", "w"]
    assert [c.name for c in facing.choices] == ["north (n)", "east (e)", "south (s)",
                                                "west (w)"]
    assert params("done") == {} and params("end") == {} and params("shop") == {}


def test_the_casualty_decision_is_explained() -> None:
    assert wording.DECISION_PROMPTS[("liege", "casualty")] == lg.CASUALTY_PROMPT
    assert "casualty" in lg.CASUALTY_PROMPT and "/liege casualty" in lg.CASUALTY_PROMPT


@pytest.mark.parametrize("typed", ["", "c", "RIFLE", "💥" * 40])
def test_choices_never_exceed_discord_limits(typed: str) -> None:
    pairs = [(f"{c}{r} · " + "x" * 120, f"{c}{r}") for c in "abcdefghij" for r in range(1, 11)]
    picked = autocomplete.labelled_choices(pairs, typed)
    assert len(picked) <= 25
    assert all(len(c.name) <= 100 and len(c.value) <= 100 for c in picked)


# -- against the real engine ---------------------------------------------------------------------


def _games() -> list[tuple[Any, list[Any]]]:
    """A few computer-played games: (game, every state with someone to act)."""
    from engine.liege import GAME
    from engine.liege.ai import choose_action

    played = []
    for seed, size in ((1, 8), (2, 8), (3, 10)):
        state = GAME.new_game([A, B], seed, {"size": size})
        states = []
        while GAME.outcome(state) is None and len(states) < 400:
            states.append(state)
            [player] = GAME.to_act(state)
            state, _ = GAME.apply(state, player, choose_action(GAME, state, player))
        played.append((GAME, states))
    return played


def rebuild(legal: list[str]) -> set[str]:
    """Every action the friendly commands can build from choices derived from ``legal``."""
    built = {N("general", s) for s in lg.firsts(legal, "general")}
    built |= {N("casualty", s) for s in lg.firsts(legal, "casualty")}
    for piece in lg.firsts(legal, "buy"):
        built |= {N("buy", lg.PIECES[piece], sq) for sq in lg.seconds(legal, "buy", piece)}
    for verb, build in (("attack", partial(N, "attack")), ("shift", partial(N, "shift")),
                        ("turn", partial(N, "turn"))):
        for src in lg.firsts(legal, verb):
            built |= {build(src, t) for t in lg.seconds(legal, verb, src)}
    for weapon in lg.WEAPONS:
        for src in lg.weapon_sources(legal, weapon):
            built |= {N(weapon, src, t)
                      for t in lg.weapon_targets(legal, weapon, src)}
    return built | {a for a in ("done", "skip", "end") if a in legal}


def test_the_commands_can_build_exactly_the_legal_actions_of_real_games() -> None:
    checked = 0
    for game, states in _games():
        for state in states:
            [player] = game.to_act(state)
            legal = game.legal_actions(state, player)
            assert rebuild(legal) == set(legal)
            checked += 1
            entry = lg.player_entry(game.view(state, player), player)
            choices = lg.piece_choices(entry, legal)
            buyable = set(lg.firsts(legal, "buy"))
            assert [v for _, v in choices] == (list(lg.PIECES) if buyable else [])
            for label, value in choices:
                assert ("credits" in label) and ((value in buyable) == (":" not in label))
    assert checked > 50


def test_a_casualty_decision_is_explained_from_a_real_fight() -> None:
    for game, states in _games():
        for state in states:
            [player] = game.to_act(state)
            if player != game.current_turn(state):
                text, ping = wording.next_up_line(game, state)
                assert ping == [player]
                assert f"<@{player}>: {lg.CASUALTY_PROMPT}" in text
                for action in game.legal_actions(state, player):
                    assert f"`{action}`" in text
                return
    pytest.skip("no off-turn casualty in these games")


def test_shop_and_range_from_a_real_view() -> None:
    from engine.liege import GAME

    state = GAME.new_game([A, B], 5, {"size": 8})
    text = "\n".join(lg.shop_lines(GAME.view(state, A), A))
    assert "400 credits left" in text and "Trench: 40 (3 left)" in text
    state, _ = GAME.apply(state, A, "general e1")
    assert lg.occupants(GAME.view(state, None)) == {"e1": "General"}
    assert GAME.piece_range(state, "e1")



async def test_every_autocomplete_answers_empty_instead_of_raising(
        caplog: pytest.LogCaptureFixture) -> None:
    from types import SimpleNamespace

    cog = GameCommands(commands.Bot(command_prefix="!", intents=discord.Intents.none()))
    broken = SimpleNamespace(client=SimpleNamespace(), channel_id=5,  # no store at all
                             user=SimpleNamespace(id=int(A)),
                             namespace=SimpleNamespace(**{"from": "c3", "piece": "rifle"}))
    callbacks = list(completers(cog.groups["liege"]).values())
    assert len(callbacks) == 16
    for callback in callbacks:
        assert await callback(broken, "") == []
        assert await callback(broken, "💥" * 100) == []
