"""A board's PNG maps to its game's palette only what was drawn (``Canvas._palette_png``):
the base layer's indices are kept, regions pasted back and whole pictures keep theirs, and
only the cells something was drawn in are mapped again. That must give exactly the bytes
of mapping the whole finished picture (``encode_png``), board after board of real play:
a renderer that put colour down without the canvas knowing would show here.

Napoleon's tinted maps are also made from one another (``derive_base``) and Antiquity's
names-and-cities overlay is keyed per item: the boards below run through both."""

from __future__ import annotations

import pytest

import engine
import render
from render.common import capture_images, encode_png, load_palette
from tests.boards import game_boards, same_picture

NAMES = {f"p{i}": f"Player {i}" for i in range(1, 7)}


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
def test_palette_png_of_what_was_drawn_is_the_whole_pictures(kind: str) -> None:
    palette = load_palette(kind)
    assert palette is not None
    for view, events in game_boards(kind, 31, 12):
        with capture_images() as images:
            png = render.render(kind, view, events, NAMES)
        assert same_picture(png, encode_png(images[-1], palette))
