"""Large boards for the web pages (:func:`render.render_large`): twice the size, every
line and letter drawn at that size, and the same picture as the channel's board."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image, ImageChops, ImageStat

import engine
import render

KINDS = ("conqueror", "liege", "battlecards", "napoleon", "antiquity")
PLAYERS = ["111111111111111111", "222222222222222222", "333333333333333333"]


def position(kind: str) -> tuple[dict, list]:
    game = engine.get_game(kind)
    players = PLAYERS[:max(2, game.min_players)]
    state = game.new_game(players, 11, game.resolve_options({}))
    rng = random.Random(5)
    events: list = []
    for _ in range(25):
        if game.outcome(state) is not None:
            break
        player = game.to_act(state)[0]
        legal = [a for a in game.legal_actions(state, player) if a != "resign"]
        state, events = game.apply(state, player, rng.choice(legal))
    return game.view(state, None), engine.public_events(events)


@pytest.mark.parametrize("kind", KINDS)
def test_a_large_board_is_the_same_board_twice_as_big(kind: str) -> None:
    view, events = position(kind)
    names = {p: f"Player {i}" for i, p in enumerate(PLAYERS, 1)}
    small = Image.open(io.BytesIO(render.render(kind, view, events, names))).convert("RGB")
    large = Image.open(io.BytesIO(render.render_large(kind, view, events, names)))
    assert large.size == (small.width * 2, small.height * 2)
    # brought back down, it is the channel's board (up to antialiasing and 256 colours)
    down = large.convert("RGB").reduce(2)
    diff = ImageStat.Stat(ImageChops.difference(down, small)).mean
    assert max(diff) < 6, diff
    # and it has detail the small one lacks: not the small image blown up
    blown = small.resize(large.size, Image.Resampling.BICUBIC)
    assert max(ImageStat.Stat(ImageChops.difference(large.convert("RGB"), blown)).mean) > 0.5
