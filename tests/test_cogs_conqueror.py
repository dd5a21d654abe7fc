"""Conqueror's declared verbs: notation building and autocomplete from legal actions
(the generic mechanism of engine/verbs.py and cogs/verbs.py, on a real game)."""

from __future__ import annotations

from functools import partial

import pytest

import engine
from cogs import choices as autocomplete
from cogs import verbs as cv
from engine.conqueror.notation import VERBS
from engine.verbs import notation, verb_named

GAME = engine.get_game("conqueror")
A, B = "111111111111111111", "222222222222222222"

N = partial(notation, VERBS)
MOVE = verb_named(VERBS, "move")


def move_sources(legal: list[str]) -> list[str]:
    return MOVE.candidates(legal, "from")


def move_targets(legal: list[str], src: str | None) -> list[str]:
    return MOVE.candidates(legal, "to", {"from": src})


def move_counts(legal: list[str], src: str, dst: str) -> list[int]:
    return [int(c) for c in MOVE.candidates(legal, "count", {"from": src, "to": dst})]


def squares_for(legal: list[str], verb: str) -> list[str]:
    return verb_named(VERBS, verb).candidates(legal, "square")


def test_notation_builders() -> None:
    assert N("move", "b2", "c3", 3) == "move b2 c3 3"
    assert N("move", " B2 ", "C3", 1) == "move b2 c3 1"
    assert N("recruit", 2) == "recruit 2"
    assert N("fort", "C3") == "fort c3"
    assert N("raze", " c3") == "raze c3"
    assert N("convert", "lumber") == "convert lumber"
    assert N("convert", "AP") == "convert ap"
    assert "end" == "end"


@pytest.mark.parametrize("square", ["z9", "b2 c3", "🏰", "a" * 20, "", "-1"])
def test_garbage_squares_reach_the_engine_and_are_refused_clearly(square: str) -> None:
    state = GAME.new_game([A, B], 3)
    with pytest.raises(engine.IllegalAction) as refused:
        GAME.apply(state, A, N("move", square, "b2", 1))
    assert str(refused.value)
    with pytest.raises(engine.IllegalAction):
        GAME.apply(state, A, N("fort", square))


def test_built_notation_is_accepted_by_the_engine() -> None:
    state = GAME.new_game([A, B], 3)
    legal = GAME.legal_actions(state, A)
    src = move_sources(legal)[0]
    dst = move_targets(legal, src)[0]
    count = move_counts(legal, src, dst)[0]
    action = N("move", src, dst, count)
    assert action in legal
    moved, _ = GAME.apply(state, A, action)
    ended, _ = GAME.apply(moved, A, "end")
    assert GAME.current_turn(ended) == B


LEGAL = ["move a1 b1 1", "move a1 a2 1", "move a1 b2 1", "move c3 c4 2", "move c3 c4 1",
         "move c3 d4 1", "recruit 1", "fort c3", "fort b2", "raze e5", "convert ap", "end"]


def test_move_sources_in_first_seen_order() -> None:
    assert move_sources(LEGAL) == ["a1", "c3"]


def test_move_targets_depend_on_from() -> None:
    assert move_targets(LEGAL, "a1") == ["b1", "a2", "b2"]
    assert move_targets(LEGAL, " C3 ") == ["c4", "d4"]
    assert move_targets(LEGAL, "f6") == []
    assert move_targets(LEGAL, None) == ["b1", "a2", "b2", "c4", "d4"]
    assert move_targets(LEGAL, "") == ["b1", "a2", "b2", "c4", "d4"]


def test_move_counts() -> None:
    assert move_counts(LEGAL, "c3", "c4") == [1, 2]
    assert move_counts(LEGAL, "a1", "c4") == []


def test_fort_and_raze_squares() -> None:
    assert squares_for(LEGAL, "fort") == ["c3", "b2"]
    assert squares_for(LEGAL, "raze") == ["e5"]
    assert squares_for(["end"], "fort") == []


def test_square_choices_filter_what_was_typed() -> None:
    choices = autocomplete.labelled_choices([(v, v) for v in ["a1", "b2", "c3"]], "B")
    assert [c.value for c in choices] == ["b2"]
    assert autocomplete.labelled_choices([("a1", "a1")], "garbage🙂") == []


def test_sources_from_a_real_opening() -> None:
    state = GAME.new_game([A, B], 3)
    assert move_sources(GAME.legal_actions(state, A)) == ["a1"]
    assert move_sources(GAME.legal_actions(state, B)) == []  # not B's turn


def test_cog_commands_and_limits() -> None:
    import discord
    from discord.ext import commands

    cog = cv.GameCommands(commands.Bot(command_prefix="!", intents=discord.Intents.none()))
    group = cog.groups["conqueror"]
    assert group.name == "conqueror" and group.guild_only
    names = sorted(c.name for c in group.commands)
    assert names == ["convert", "end", "fort", "move", "raze", "recruit"]
    move = group.get_command("move")
    assert move is not None
    params = {p.display_name: p for p in move.parameters}  # type: ignore[union-attr]
    assert set(params) == {"from", "to", "count"}
    assert params["count"].min_value == 1 and params["count"].max_value == 6
    assert params["from"].autocomplete and params["to"].autocomplete
    convert = group.get_command("convert")
    assert [c.value for c in convert.parameters[0].choices] == ["lumber", "ap"]  # type: ignore
