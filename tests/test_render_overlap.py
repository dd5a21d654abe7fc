"""Boards whose every label can be read: over crowded positions from random play of every
game (the most players, every variant, early and late), no two lines of text overlap and
no opaque shape drawn after a label covers it.

The board records, while a ``TextLog`` is active, each text's ink box and each opaque
shape in drawing order, in final-image pixels (``render.common.overlap``): a label drawn
on top of a disk is fine, a marker drawn over a label hides it. A piece's own parts (one
stamp) and shapes drawn in a label's own ``Canvas.group`` are designed together and may
cover each other.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
import render
from render.common import Canvas, TextLog, capture_images
from render.common.overlap import covers, hidden_texts, off_image, overlapping_texts
from render.common.text import DrawnShape
from tests import toy_game
from tests.properties import public_views

KINDS = toy_game.kinds()
NAMES = {f"{900 + i}": n for i, n in enumerate(
    ["alice", "Bartholomew-Maximilian", "carol", "Dmitri Ivanovich", "eve", "Ferdinand"])}
#: At most this many boards are checked from one game (evenly spread over it, its first
#: and last included), each at least ``EVERY`` actions from the next when the game is long;
#: a game is played for at most ``LONGEST`` actions.
BOARDS = 12
EVERY = 35
LONGEST = 420
SEEDS = (1, 2, 3)


def crowded_positions(kind: str, seed: int, players: int, options: dict[str, Any] | None,
                      every: int = EVERY) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Public views spread over one random game (its opening and its last position among
    them), each with the public events of the actions just before it: one every ``every``
    actions, or more often in a short game (at least ``BOARDS`` of them when it lasts that
    many actions)."""
    game = engine.GAMES[kind]
    ids = [f"{900 + i}" for i in range(players)]
    state = game.new_game(ids, seed, options) if options else game.new_game(ids, seed)
    out = public_views(game, state, random.Random(seed * 7919 + players), LONGEST,
                       recent=24)
    step = max(1, min(every, len(out) // BOARDS))
    return out[::step] + ([out[-1]] if (len(out) - 1) % step else [])


def setups(kind: str) -> list[tuple[int, dict[str, Any] | None]]:
    game = engine.GAMES[kind]
    counts = sorted({game.max_players, game.min_players})
    variants: list[dict[str, Any] | None] = [None, *[dict(v) for v in game.facts.variants]]
    return [(n, v) for n in counts for v in variants]


def problems(kind: str, view: dict[str, Any], events: list[dict[str, Any]]) -> list[str]:
    with TextLog() as log, capture_images() as images:
        render.render(kind, view, events or None, NAMES)
    height = images[-1].height if images else 0
    found = [f"{a.text!r} {a.box} overlaps {b.text!r} {b.box}"
             for a, b in overlapping_texts(log)]
    found += [f"{d.text!r} {d.box} is hidden under a {s.kind} {s.box} drawn after it"
              for d, s in hidden_texts(log)]
    if height:
        found += [f"{d.text!r} {d.box} runs off the {log.width}x{height} image"
                  for d in off_image(log, height)]
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_no_label_overlaps_another_or_hides_under_a_marker(kind: str) -> None:
    checked = 0
    failures: list[str] = []
    for players, options in setups(kind):
        for seed in SEEDS:
            for i, (view, events) in enumerate(crowded_positions(kind, seed, players, options)):
                checked += 1
                for problem in problems(kind, view, events):
                    failures.append(f"{players}p {options or ''} seed {seed} #{i}: {problem}")
    assert checked >= 12
    assert not failures, f"{kind}: {len(failures)} problems in {checked} boards:\n" + \
        "\n".join(failures[:40])


# --- the recording itself ----------------------------------------------------------------


def _board(draw: Any) -> TextLog:
    with TextLog() as log:
        c = Canvas(200, 100)
        draw(c)
        c.png()
    return log


def test_a_text_box_is_where_its_ink_is() -> None:
    log = _board(lambda c: c.text((100, 50), "Liege", 20, anchor="mm"))
    (d,) = log.drawn
    assert d.box is not None
    x0, y0, x1, y1 = d.box
    assert 70 < x0 < 80 < 120 < x1 < 130 and 38 < y0 < 44 and 56 < y1 < 62


def test_two_texts_that_touch_overlap_and_two_apart_do_not() -> None:
    log = _board(lambda c: (c.text((10, 10), "BATTLE", 20), c.text((60, 10), "Round 10", 20)))
    assert [(a.text, b.text) for a, b in overlapping_texts(log)] == [("BATTLE", "Round 10")]
    log = _board(lambda c: (c.text((10, 10), "BATTLE", 20), c.text((120, 10), "Round", 20)))
    assert overlapping_texts(log) == []


def test_a_marker_drawn_after_a_label_hides_it_but_not_one_drawn_before() -> None:
    def after(c: Canvas) -> None:
        c.text((100, 50), "Paris", 16, anchor="mm")
        c.circle((100, 50), 8, fill=(200, 0, 0))

    def before(c: Canvas) -> None:
        c.circle((100, 50), 30, fill=(200, 0, 0))
        c.text((100, 50), "Paris", 16, anchor="mm")

    assert [d.text for d, _ in hidden_texts(_board(after))] == ["Paris"]
    assert hidden_texts(_board(before)) == []


def test_a_faint_shape_or_one_of_the_labels_group_does_not_hide_it() -> None:
    def faint(c: Canvas) -> None:
        c.text((100, 50), "Paris", 16, anchor="mm")
        c.rect((80, 40, 120, 60), fill=(200, 0, 0, 60))

    def grouped(c: Canvas) -> None:
        with c.group("badge"):
            c.text((100, 50), "7", 16, anchor="mm")
            c.circle((100, 50), 14, outline=(250, 250, 250), width=2)

    assert hidden_texts(_board(faint)) == []
    assert hidden_texts(_board(grouped)) == []


def test_words_stamped_across_a_pieces_own_words_are_its_design() -> None:
    def stamped(c: Canvas, group: bool) -> None:
        with c.group("card"):
            c.text((100, 50), "HMS Rodney", 16, anchor="mm")
        with c.group("card" if group else "another card"):
            c.text((100, 52), "DESTROYED", 10, anchor="mm")

    assert overlapping_texts(_board(lambda c: stamped(c, True))) == []
    assert len(overlapping_texts(_board(lambda c: stamped(c, False)))) == 1


def test_a_stamped_piece_is_recorded_where_it_is_pasted() -> None:
    def piece(c: Canvas, p: tuple[float, float]) -> None:
        c.circle(p, 10, fill=(30, 90, 200))
        c.text(p, "3", 12, anchor="mm")

    def draw(c: Canvas) -> None:
        c.text((140, 50), "Vienna", 14, anchor="mm")
        c.stamp(("piece", 3), (150.3, 52), 11, piece)

    for _ in range(2):  # drawn, then pasted from the cache: recorded the same
        log = _board(draw)
        three = next(d for d in log.drawn if d.text == "3")
        assert three.box is not None and 144 < three.box[0] < 150 < three.box[2] < 157
        assert [d.text for d, _ in hidden_texts(log)] == ["Vienna"]  # the piece covers it


def test_lines_rings_and_polygons_cover_only_what_they_cross() -> None:
    line = DrawnShape("line", (0, 0, 100, 100), 4)
    assert covers(line, (45, 45, 55, 55)) and not covers(line, (70, 10, 90, 20))
    ring = DrawnShape("ring", (0, 0, 100, 100), 3)
    assert covers(ring, (45, -5, 55, 5)) and not covers(ring, (40, 40, 60, 60))
    triangle = DrawnShape("polygon", (0, 0, 100, 0, 0, 100))
    assert covers(triangle, (10, 10, 20, 20)) and not covers(triangle, (70, 70, 90, 90))


def test_nothing_is_recorded_without_a_log() -> None:
    c = Canvas(50, 50)
    assert TextLog.active is None
    c.text((5, 5), "x", 12)
    c.circle((20, 20), 5, fill=(0, 0, 0))
    with TextLog() as log:
        pass
    assert log.drawn == [] and log.shapes == []


# --- the recap's caption band -----------------------------------------------------------


@pytest.mark.parametrize("width", [640, 390, 240, 96])
def test_the_recap_band_never_overlaps_itself(width: int) -> None:
    from PIL import Image

    import render.recap as recap

    titles = [f"{engine.GAMES[k].name} #12345" for k in sorted(engine.GAMES)]
    titles += ["", "#7", "The Grand Campaign of the Northern Alliance against the Southern "
               "League of Free Cities #123456"]
    captions = ["", "Turn 12 · Ada", "Turn 999 · **Bartholomew-Maximilian the Bold** moves "
                "`move 3 france spain` and a very long tail of words " * 2]
    checked = 0
    for title in titles:
        for caption in captions:
            band = recap._Band(width, max(12, round(width * recap.BAND)), title, 120)
            image = Image.new("RGB", (width, band.total))
            with TextLog() as log:
                band.draw(image, 0, 118, caption)
            log.width = width
            checked += 1
            assert not overlapping_texts(log, tolerance=0.5), (title, caption)
            assert not off_image(log, band.total, tolerance=0.5), (title, caption)
            assert all("`" not in d.text and "**" not in d.text for d in log.drawn)
    assert checked == len(titles) * len(captions)
