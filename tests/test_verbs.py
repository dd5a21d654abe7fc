"""Declared verbs (engine/verbs.py) and the slash groups built from them (cogs/verbs.py),
for every game and the toy sixth game (tests/toy_game): the declaration alone must reach
every legal action, and autocomplete built from it must offer exactly the legal choices."""

from __future__ import annotations

import random
import re
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

import engine
from cogs.verbs import GameCommands, number_choices, python_name
from engine.verbs import NUMBER, Arg, Verb, notation, verb_named
from tests import toy_game

MOVE = Verb("move", "Move armies", "move {count} {from} {to}",
            (Arg("from", "Where from", "country", aliases={"ottoman empire": "ottoman"}),
             Arg("to", "Where to", "country"),
             Arg("count", "How many", NUMBER, high=80)))
LEGAL = ["move 1 france spain", "move 2 france spain", "move 10 france spain",
         "move 1 france italy", "move 3 ottoman egypt", "end"]


def test_notation_puts_arguments_where_the_template_says() -> None:
    assert MOVE.notation({"from": " France ", "to": "SPAIN", "count": 3}) == "move 3 france spain"
    assert MOVE.notation({"from": "Ottoman Empire", "to": "egypt", "count": 1}) == \
        "move 1 ottoman egypt"
    assert MOVE.notation({"from": "france · France (20 French)", "to": "spain", "count": 2}) \
        == "move 2 france spain"                         # a choice's label typed out
    assert MOVE.notation({"to": "spain"}) == "move spain"  # missing: the engine refuses it
    assert notation([MOVE], "move", "italy", "naples", 4) == "move 4 italy naples"


def test_words_keep_inner_spaces_so_the_engine_refuses_them() -> None:
    arg = Arg("square", "A square")
    assert arg.word("c3 d4") == "c3 d4"
    assert arg.word("#2") == "2"
    assert arg.word(True) == "true" and arg.word(7) == "7"
    assert arg.word("💥" * 3) == "💥" * 3


def test_candidates_follow_what_is_filled_in() -> None:
    assert MOVE.candidates(LEGAL, "from") == ["france", "ottoman"]
    assert MOVE.candidates(LEGAL, "to", {"from": "france"}) == ["spain", "italy"]
    assert MOVE.candidates(LEGAL, "to", {"from": "Ottoman Empire"}) == ["egypt"]
    assert MOVE.candidates(LEGAL, "count", {"from": "france", "to": "spain"}) == ["1", "2", "10"]
    assert MOVE.candidates(LEGAL, "count", {"from": "france", "to": ""}) == ["1", "2", "10"]
    assert MOVE.candidates(LEGAL, "to", {"from": "prussia"}) == []
    assert MOVE.candidates(["end", "moves 1 a b", "move 1 a"], "from") == []


def test_a_template_must_name_exactly_its_arguments() -> None:
    with pytest.raises(ValueError):
        Verb("move", "x", "move {from}", (Arg("to", "y"),))
    assert Verb("end", "End your turn").template == "end"
    assert MOVE.usage() == "move <from> <to> <count>"
    with pytest.raises(KeyError):
        verb_named([MOVE], "fly")


def test_number_choices_keep_the_largest_when_there_are_too_many() -> None:
    pairs = [(str(n), str(n)) for n in range(1, 41)]
    choices = number_choices(pairs, "")
    assert len(choices) == 25 and choices[-1].value == 40 and choices[0].value == 1
    assert [c.value for c in number_choices(pairs, "3")] == [3, 13, 23, 30, 31, 32, 33, 34,
                                                            35, 36, 37, 38, 39]


# -- every game ----------------------------------------------------------------------------


def _random_states(kind: str, games: int = 4, plies: int = 150) -> list[tuple[Any, str]]:
    game = engine.GAMES[kind]
    found = []
    for seed in range(games):
        rng = random.Random(seed)
        players = [f"p{i}" for i in range(game.min_players)]
        state = game.new_game(players, seed)
        for _ in range(plies):
            to_act = game.to_act(state)
            if not to_act:
                break
            found.append((state, to_act[0]))
            legal = game.legal_actions(state, to_act[0])
            state, _ = game.apply(state, to_act[0], rng.choice(legal))
    return found


@pytest.mark.parametrize("kind", toy_game.kinds())
def test_every_legal_action_has_a_friendly_form(kind: str) -> None:
    """Chaining autocomplete from the first option to the last rebuilds exactly the
    legal actions: nothing legal is unreachable and nothing offered is illegal."""
    game = engine.GAMES[kind]
    assert game.verbs, f"{kind} declares no verbs"
    for state, player in _random_states(kind):
        legal = set(game.legal_actions(state, player))
        built: set[str] = set()
        offered: set[str] = set()   # built by autocomplete alone (no fixed choices)
        own = game.view(state, player)
        for verb in game.verbs:
            partial: list[dict[str, str]] = [{}]
            for arg in verb.args:
                values = ([v for _, v in arg.choices] if arg.choices else None)
                if values is None and partial:   # labelled from the caller's own view
                    shown = verb.candidates(legal, arg.name, partial[0])
                    labels = game.choice_labels(own, arg.kind, shown)
                    assert len(labels) == len(shown) and all(
                        str(label).startswith(value) for label, value in zip(
                            labels, shown, strict=True)), (kind, arg.name, labels)
                partial = [{**p, arg.name: v} for p in partial
                           for v in (values or verb.candidates(legal, arg.name, p))]
            actions = {verb.notation(p) for p in partial}
            built |= actions
            if verb.args and not any(a.choices for a in verb.args):
                offered |= actions
        assert legal <= built, f"{kind}: no friendly form for {sorted(legal - built)[:5]}"
        assert offered <= legal, f"{kind}: offered {sorted(offered - legal)[:5]}"


@pytest.mark.parametrize("kind", toy_game.kinds())
def test_the_group_is_built_from_the_declaration(kind: str) -> None:
    game = engine.GAMES[kind]
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    group = GameCommands(bot).groups[kind]
    assert group.name == kind and group.guild_only and len(group.description) <= 100
    for verb in game.verbs:
        command = group.get_command(verb.name)
        assert isinstance(command, app_commands.Command), verb.name
        assert re.fullmatch(r"[a-z0-9_-]{1,32}", verb.name)
        assert 1 <= len(command.description) <= 100
        params = {p.display_name: p for p in command.parameters}
        assert list(params) == [a.name for a in verb.args]          # the declared order
        for arg in verb.args:
            param = params[arg.name]
            assert param.required and 1 <= len(param.description) <= 100
            if arg.kind == NUMBER:
                assert param.type is discord.AppCommandOptionType.integer
                assert (param.min_value, param.max_value) == (arg.low, arg.high)
            else:
                assert param.type is discord.AppCommandOptionType.string
                assert param.max_value == arg.longest      # a string option: its length
            if arg.choices:
                assert [c.value for c in param.choices] == [v for _, v in arg.choices]
                assert not param.autocomplete
            else:
                assert param.autocomplete, (verb.name, arg.name)
        assert python_name(verb.name).isidentifier()
    payload = group.to_dict(bot.tree)
    assert payload["name"] == kind and len(payload["options"]) <= 25
