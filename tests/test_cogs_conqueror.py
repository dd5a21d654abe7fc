"""cogs/conqueror.py: notation building and square autocomplete from legal actions."""

from __future__ import annotations

import pytest

import engine
from cogs import conqueror as cq

GAME = engine.get_game("conqueror")
A, B = "111111111111111111", "222222222222222222"


def test_notation_builders() -> None:
    assert cq.move_notation("b2", "c3", 3) == "move b2 c3 3"
    assert cq.move_notation(" B2 ", "C3", 1) == "move b2 c3 1"
    assert cq.recruit_notation(2) == "recruit 2"
    assert cq.fort_notation("C3") == "fort c3"
    assert cq.raze_notation(" c3") == "raze c3"
    assert cq.convert_notation("lumber") == "convert lumber"
    assert cq.convert_notation("AP") == "convert ap"
    assert cq.END == "end"


@pytest.mark.parametrize("square", ["z9", "b2 c3", "🏰", "a" * 20, "", "-1"])
def test_garbage_squares_reach_the_engine_and_are_refused_clearly(square: str) -> None:
    state = GAME.new_game([A, B], 3)
    with pytest.raises(engine.IllegalAction) as refused:
        GAME.apply(state, A, cq.move_notation(square, "b2", 1))
    assert str(refused.value)
    with pytest.raises(engine.IllegalAction):
        GAME.apply(state, A, cq.fort_notation(square))


def test_built_notation_is_accepted_by_the_engine() -> None:
    state = GAME.new_game([A, B], 3)
    legal = GAME.legal_actions(state, A)
    src = cq.move_sources(legal)[0]
    dst = cq.move_targets(legal, src)[0]
    count = cq.move_counts(legal, src, dst)[0]
    action = cq.move_notation(src, dst, count)
    assert action in legal
    moved, _ = GAME.apply(state, A, action)
    ended, _ = GAME.apply(moved, A, cq.END)
    assert GAME.current_turn(ended) == B


LEGAL = ["move a1 b1 1", "move a1 a2 1", "move a1 b2 1", "move c3 c4 2", "move c3 c4 1",
         "move c3 d4 1", "recruit 1", "fort c3", "fort b2", "raze e5", "convert ap", "end"]


def test_move_sources_in_first_seen_order() -> None:
    assert cq.move_sources(LEGAL) == ["a1", "c3"]


def test_move_targets_depend_on_from() -> None:
    assert cq.move_targets(LEGAL, "a1") == ["b1", "a2", "b2"]
    assert cq.move_targets(LEGAL, " C3 ") == ["c4", "d4"]
    assert cq.move_targets(LEGAL, "f6") == []
    assert cq.move_targets(LEGAL, None) == ["b1", "a2", "b2", "c4", "d4"]
    assert cq.move_targets(LEGAL, "") == ["b1", "a2", "b2", "c4", "d4"]


def test_move_counts() -> None:
    assert cq.move_counts(LEGAL, "c3", "c4") == [1, 2]
    assert cq.move_counts(LEGAL, "a1", "c4") == []


def test_fort_and_raze_squares() -> None:
    assert cq.squares_for(LEGAL, "fort") == ["c3", "b2"]
    assert cq.squares_for(LEGAL, "raze") == ["e5"]
    assert cq.squares_for(["end"], "fort") == []


def test_square_choices_filter_what_was_typed() -> None:
    choices = cq.square_choices(["a1", "b2", "c3"], "B")
    assert [c.value for c in choices] == ["b2"]
    assert cq.square_choices(["a1"], "garbage🙂") == []


def test_sources_from_a_real_opening() -> None:
    state = GAME.new_game([A, B], 3)
    assert cq.move_sources(GAME.legal_actions(state, A)) == ["a1"]
    assert cq.move_sources(GAME.legal_actions(state, B)) == []  # not B's turn


def test_cog_commands_and_limits() -> None:
    import discord
    from discord.ext import commands

    cog = cq.ConquerorCog(commands.Bot(command_prefix="!", intents=discord.Intents.none()))
    group = cog.__cog_app_commands_group__
    assert group is not None and group.name == "conqueror"
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
