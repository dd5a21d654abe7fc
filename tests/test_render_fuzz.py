"""Every renderer draws a real view with any one value in it replaced by something odd.

A view reaches a renderer from storage, the web companion and older records, so a value
of the wrong type must give a picture, never an exception (an exception would leave a
move without its board)."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest

import engine
import render
from engine import search

ODD: list[Any] = [None, "x", -1, 10**12, [], {}, 3.5, True, [None], {"a": None}, "ü" * 50,
                  float("nan")]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if path:
        yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:4]):
            yield from _paths(inner, (*path, index))


def _replaced(view: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(view)
    inner: Any = out
    for step in path[:-1]:
        inner = inner[step]
    inner[path[-1]] = value
    return out


def _mid_game_view(kind: str, seed: int, plies: int) -> dict[str, Any]:
    game = engine.GAMES[kind]
    state = game.new_game(["p1", "p2"], seed)
    for _ in range(plies):
        actors = game.to_act(state)
        if not actors or game.outcome(state) is not None:
            break
        state, _ = game.apply(state, actors[0],
                              search.heuristic_action(game, state, actors[0]))
    view = game.view(state, None)
    assert isinstance(view, dict)
    return view


# Found by this fuzzing: a dict as a Conqueror resource, a list as a Liège player's id, a
# list as a Battlecards unit's type (each raised TypeError: unhashable).
FOUND = [("conqueror", ("board", "c2", "resource"), {"a": None}),
         ("liege", ("players", 0, "id"), [None]),
         ("battlecards", ("battle", "units", 0, "card", "type"), [])]


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
def test_a_view_with_one_odd_value_still_draws(kind: str) -> None:
    rng = random.Random(kind)
    drawn = 0
    for seed, plies in ((1, 12), (2, 45)):
        view = _mid_game_view(kind, seed, plies)
        paths = list(_paths(view))
        for path in rng.sample(paths, min(30, len(paths))):
            png = render.render(kind, _replaced(view, path, rng.choice(ODD)), None, None)
            assert png.startswith(b"\x89PNG")
            drawn += 1
    assert drawn >= 30


@pytest.mark.parametrize(("kind", "path", "value"), FOUND)
def test_the_odd_values_that_once_raised_now_draw(kind: str, path: tuple[Any, ...],
                                                  value: Any) -> None:
    for seed, plies in ((1, 12), (2, 45), (3, 80)):
        view = _mid_game_view(kind, seed, plies)
        try:
            odd = _replaced(view, path, value)
        except (KeyError, IndexError, TypeError):
            continue                    # this position has no such value
        assert render.render(kind, odd, None, None).startswith(b"\x89PNG")
        return
    pytest.fail(f"no position of {kind} has {path}")
