"""Phone-first boards: what a player needs to decide is readable on a phone.

Discord shows an image about 390 px wide on a phone. On every game's image, the text
that says whose turn it is, the counts on the board, the scores and resources, how many
cards each hand holds, and the text a player reads to choose a move (the names of the
places a move names, a unit's name and values, the lines of a list of recent actions or
shots) must be at least 8 px tall at that width: a font size of at least
``8 * width / 390`` pixels on the image itself. Renderers mark such text with a
``role`` (``render.common.ESSENTIAL_ROLES``); this test renders positions from random
play of every game kind and measures every marked line against the image's width.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
import render
from render.common import ESSENTIAL_ROLES, TextLog, min_essential_size
from tests import toy_game
from tests.properties import public_views

#: Every game's image and the toy sixth game's (registered by tests/conftest.py); the roles
#: each must show are the game's own ``facts.board_shows`` (a game with hands shows hand
#: counts).
KINDS = toy_game.kinds()


def positions(kind: str, seed: int, samples: int = 6) -> list[tuple[dict[str, Any],
                                                                   list[dict[str, Any]]]]:
    """Public views from one random game, each with the public events of the actions
    just before it (what a turn digest would mark)."""
    game = engine.GAMES[kind]
    players = [f"{900 + i}" for i in range(game.max_players)][:max(game.min_players,
                                                                     min(game.max_players, 3))]
    along = public_views(game, game.new_game(players, seed), random.Random(seed), 400,
                         recent=40)
    return (along[::60] + ([along[-1]] if (len(along) - 1) % 60 else []))[:samples]


@pytest.mark.parametrize("kind", KINDS)
def test_essential_text_is_readable_on_a_phone(kind: str) -> None:
    wanted = engine.GAMES[kind].facts.board_shows
    seen: set[str] = set()
    for seed in (1, 2):
        for view, events in positions(kind, seed):
            with TextLog() as log:
                render.render(kind, view, events or None, {"900": "alice", "901": "bob",
                                                           "902": "carol"})
            assert log.width > 0
            smallest = min_essential_size(log.width)
            for drawn in log.drawn:
                if drawn.role is None:
                    continue
                assert drawn.role in ESSENTIAL_ROLES, drawn
                seen.add(drawn.role)
                assert drawn.size >= smallest - 1e-9, (
                    f"{kind}: {drawn.role} text {drawn.text!r} is {drawn.size:.1f} px on a "
                    f"{log.width} px image: {drawn.size * 390 / log.width:.1f} px on a phone "
                    f"(needs 8)")
    assert wanted <= seen, f"{kind} never drew {sorted(wanted - seen)}"


def test_the_rule_itself() -> None:
    # 8 px at 390 wide: a 1000-px image needs 20.5-px text, a 780-px one 16 px
    assert min_essential_size(390) == 8
    assert min_essential_size(1000) == pytest.approx(20.51, abs=0.01)
    assert min_essential_size(780) == 16


def test_the_roles_include_what_a_move_is_chosen_from() -> None:
    assert ESSENTIAL_ROLES == ("turn", "count", "score", "hand", "place", "unit", "log")
    # every game with a board of its own shows some of it (the toy game draws no places)
    for kind in engine.GAMES:
        assert engine.GAMES[kind].facts.board_shows <= set(ESSENTIAL_ROLES), kind
        assert engine.GAMES[kind].facts.board_shows & {"place", "unit", "log"}, kind
