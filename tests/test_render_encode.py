"""A board's PNG maps to its game's palette only what was drawn (``Canvas._palette_png``):
the base layer's indices are kept, regions pasted back and whole pictures keep theirs, and
only the cells something was drawn in are mapped again. That must give exactly the bytes
of mapping the whole finished picture (``encode_png``), board after board of real play:
a renderer that put colour down without the canvas knowing would show here.

Napoleon's tinted maps are also made from one another (``derive_base``) and Antiquity's
names-and-cities overlay is keyed per item: the boards below run through both."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
import render
from render.common import capture_images, encode_png, load_palette

NAMES = {f"p{i}": f"Player {i}" for i in range(1, 7)}


def _boards(kind: str, seed: int, count: int) -> list[tuple[Any, Any]]:
    """Successive boards of a seeded random game at the largest table, one each time the
    players to act change, with that turn's public events."""
    game = engine.GAMES[kind]
    rng = random.Random(seed)
    state = game.new_game([f"p{i}" for i in range(1, game.max_players + 1)], seed)
    boards: list[tuple[Any, Any]] = []
    turn: list[dict[str, Any]] = []
    for _ in range(600):
        to_act = game.to_act(state)
        if not to_act or len(boards) >= count:
            break
        state, events = game.apply(state, to_act[0],
                                   rng.choice(game.legal_actions(state, to_act[0])))
        turn += [e for e in events if "private_to" not in e]
        if game.to_act(state) != to_act:
            boards.append((game.view(state, None), turn or None))
            turn = []
    return boards


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
def test_palette_png_of_what_was_drawn_is_the_whole_pictures(kind: str) -> None:
    palette = load_palette(kind)
    assert palette is not None
    for view, events in _boards(kind, 31, 12):
        with capture_images() as images:
            png = render.render(kind, view, events, NAMES)
        assert png == encode_png(images[-1], palette)
