"""The fast drawing pipeline draws what the slow, high-quality one draws.

Every renderer's board (sample positions of every kind, openings to crowded late games,
with a turn's events marked) is drawn twice: the fast way (final size, cached masks and
sprites, the game's fixed palette) and at reference quality (everything supersampled 4x
with blending, lossless RGB). They must agree:
- per pixel: mean absolute difference at most MAX_MEAN_DIFF (of 255) per channel. Edges of
  text and shapes differ a little (the fast way draws hinted text at final size);
- seen from arm's length (both reduced 4x): at most MAX_BLURRED_DIFF, which a missing,
  misplaced or recoloured piece, label or panel would break;
- equally sharp: the mean edge strength of the fast image within SHARPNESS of the
  reference's (not blurrier, and not jagged).
"""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops, ImageFilter, ImageStat

import engine
import render
from render.common import capture_images, load_palette, reference_quality
from tests.boards import Board, sample_boards

MAX_MEAN_DIFF = 8.0
MAX_BLURRED_DIFF = 4.5  # measured 1.4-3.2; a board with one half shifted by 7 px: 10.8
SHARPNESS = (0.9, 1.3)

BOARDS = [b for kind in engine.GAMES for b in sample_boards(kind, range(1))]


def _mean(image: Image.Image) -> float:
    means = ImageStat.Stat(image).mean
    return sum(means) / len(means)


def _sharpness(image: Image.Image) -> float:
    return _mean(image.convert("L").filter(ImageFilter.FIND_EDGES))


def _both(kind: str, board: Board) -> tuple[Image.Image, Image.Image]:
    png = render.render(kind, board.view, board.events, board.names)
    fast = Image.open(io.BytesIO(png))
    assert fast.mode == "P"  # the fixed palette
    with reference_quality(), capture_images() as drawn:
        render.render(kind, board.view, board.events, board.names)
    return fast.convert("RGB"), drawn[0]


@pytest.mark.parametrize("board", BOARDS, ids=[b.label for b in BOARDS])
def test_the_fast_board_looks_like_the_reference(board: Board) -> None:
    kind = board.label.split()[0]
    fast, ref = _both(kind, board)
    assert fast.size == ref.size
    diff = _mean(ImageChops.difference(fast, ref))
    small = (fast.width // 4, fast.height // 4)
    blurred = _mean(ImageChops.difference(fast.reduce(4).resize(small),
                                          ref.reduce(4).resize(small)))
    sharp = _sharpness(fast) / _sharpness(ref)
    assert diff <= MAX_MEAN_DIFF, f"mean difference {diff:.2f}"
    assert blurred <= MAX_BLURRED_DIFF, f"difference at arm's length {blurred:.2f}"
    assert SHARPNESS[0] <= sharp <= SHARPNESS[1], f"sharpness ratio {sharp:.3f}"


def test_the_comparison_catches_a_misplaced_piece() -> None:
    """The yardstick is not blind: the same board with a shifted copy differs."""
    board = next(b for b in BOARDS if b.label.startswith("conqueror") and "crowded" in b.label)
    fast, ref = _both("conqueror", board)
    shifted = Image.new("RGB", fast.size)
    shifted.paste(fast.crop((0, 0, 500, 700)), (6, 4))
    shifted.paste(fast.crop((500, 0, 1000, 700)), (500, 0))
    small = (fast.width // 4, fast.height // 4)
    blurred = _mean(ImageChops.difference(shifted.reduce(4).resize(small),
                                          ref.reduce(4).resize(small)))
    assert blurred > MAX_BLURRED_DIFF


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
def test_every_game_has_a_fixed_palette_that_draws_its_boards(kind: str) -> None:
    palette = load_palette(kind)
    assert palette is not None, f"run `python -m tests.boards` to make {kind}'s palette"
    # its boards, drawn at final size, lose almost nothing in its palette
    board = next(b for b in BOARDS if b.label.startswith(kind) and "crowded" in b.label)
    with capture_images() as drawn:
        render.render(kind, board.view, board.events, board.names)
    rgb = drawn[0]
    mapped = rgb.quantize(palette=palette, dither=Image.Dither.NONE).convert("RGB")
    assert _mean(ImageChops.difference(rgb, mapped)) < 2.5


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
def test_boards_are_small_palette_pngs(kind: str) -> None:
    game = engine.GAMES[kind]
    for board in sample_boards(kind, range(2)):
        png = render.render(kind, board.view, board.events, board.names)
        image = Image.open(io.BytesIO(png))
        image.load()  # a valid PNG: decodes completely
        assert image.mode == "P" and len(png) <= 150_000, (board.label, len(png))
    assert game.kind == kind
