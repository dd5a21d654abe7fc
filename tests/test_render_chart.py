"""The rating chart (render/chart.py): a valid PNG of the right size for any input, the
same bytes for the same input, a line that goes where the ratings go, and its palette."""

from __future__ import annotations

import io
import math
import random
import statistics
import time

import pytest
from PIL import Image, ImageChops, ImageStat

import render
from render.chart import (
    HEIGHT,
    LINE,
    MIN_TIME_SPAN,
    PLOT_BOTTOM,
    PLOT_TOP,
    WIDTH,
    RatingPoint,
    palette_colours,
    rating_chart,
)
from render.common import PALETTE_DIR, capture_images

DAY = 86_400.0
T0 = 1_700_000_000.0  # 14 Nov 2023


def _walk(n: int, seed: int = 1, step: float = 2.5 * DAY, drift: float = 0.3) -> list[RatingPoint]:
    rng = random.Random(seed)
    mu, sigma, out = 25.0, 25 / 3, []
    for i in range(n):
        mu += rng.gauss(drift, 1.2)
        sigma = max(0.8, sigma * 0.94)
        out.append(RatingPoint(T0 + i * step, mu, sigma))
    return out


def _image(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def _chart(points: list[RatingPoint], title: str = "Alice · Conqueror",
           subtitle: str = "μ 27.4 ± 2.1 · 14 games", scale: int = 1) -> Image.Image:
    image = _image(rating_chart(points, title=title, subtitle=subtitle, scale=scale))
    assert image.format == "PNG"
    assert image.size == (WIDTH * scale, HEIGHT * scale)
    return image


def test_a_chart_is_a_palette_png_of_its_size() -> None:
    image = _chart(_walk(50))
    assert image.size == (800, 400)
    assert image.mode == "P"  # in the chart's fixed palette, like the boards
    assert _chart(_walk(50), scale=2).size == (1600, 800)


def test_the_same_points_give_the_same_bytes() -> None:
    points = _walk(40)
    first = rating_chart(points, title="Alice · Conqueror", subtitle="μ 27.4 ± 2.1")
    again = rating_chart(list(points), title="Alice · Conqueror", subtitle="μ 27.4 ± 2.1")
    assert first == again
    assert rating_chart(list(reversed(points)), title="Alice · Conqueror",
                        subtitle="μ 27.4 ± 2.1") == first  # drawn by time, whatever the order


NAN, INF = math.nan, math.inf
EDGE_CASES = {
    "no points": [],
    "one point": [RatingPoint(T0, 25.0, 25 / 3)],
    "two points": _walk(2),
    "2000 points": _walk(2000, step=3 * 3600),
    "nan and inf skipped": [RatingPoint(T0, 25, 8), RatingPoint(NAN, 26, 7),
                            RatingPoint(T0 + DAY, INF, 7), RatingPoint(T0 + 2 * DAY, 27, NAN),
                            RatingPoint(T0 + 5 * DAY, 28, -INF), RatingPoint(T0 + 6 * DAY, 29, 6)],
    "nothing usable": [RatingPoint(NAN, NAN, NAN), RatingPoint(INF, -INF, INF)],
    "huge and negative": [RatingPoint(-1e300, 1e300, 1e299), RatingPoint(0, -1e15, 5),
                          RatingPoint(1e18, -3.5, -2.0), RatingPoint(T0, 1e-300, 0)],
    "identical values": [RatingPoint(T0 + i * DAY, 25.0, 0.0) for i in range(10)],
    "all at one moment": [RatingPoint(T0, 25 + i, 3) for i in range(6)],
    "years apart": _walk(30, step=40 * DAY),
    "tiny differences": [RatingPoint(T0 + i * DAY, 25 + i * 1e-12, 1e-13) for i in range(5)],
}


@pytest.mark.parametrize("points", EDGE_CASES.values(), ids=EDGE_CASES.keys())
def test_every_edge_case_draws_a_valid_png(points: list[RatingPoint]) -> None:
    image = _chart(points)
    assert len(image.getcolors(256) or []) > 3  # something was drawn


@pytest.mark.parametrize("title", [
    "🎲🐉 Zoë 🏰 · Conqueror 👑",
    "Bartholomew the Bold " * 20,
    "W" * 500,
    "i" * 500,
    "line\nbreak\tand\u200bcontrols\x00",
    "",
])
def test_any_title_fits_and_keeps_the_size(title: str) -> None:
    image = _chart(_walk(12), title=title, subtitle=title).convert("RGB")
    right_margin = image.crop((WIDTH - 12, 0, WIDTH, PLOT_TOP))
    assert right_margin.getcolors(1) is not None  # nothing ran into the right margin


def test_a_long_title_is_cut_with_an_ellipsis() -> None:
    short = _chart(_walk(12), title="Bartholomew").convert("RGB")
    long = _chart(_walk(12), title="Bartholomew " + "the Bold " * 40).convert("RGB")
    band = (0, 0, WIDTH, 44)
    assert long.size == short.size
    assert ImageChops.difference(long.crop(band), short.crop(band)).getbbox() is not None
    ink = ImageChops.difference(long.crop(band), Image.new("RGB", (WIDTH, 44),
                                                          long.getpixel((2, 2))))
    bbox = ink.getbbox()
    assert bbox is not None and bbox[2] > WIDTH * 0.8  # uses the width, then stops


def test_bad_scales_are_refused() -> None:
    for scale in (0, 5, -1, True, 1.5):
        with pytest.raises(ValueError, match="scale"):
            rating_chart([], title="x", scale=scale)  # type: ignore[arg-type]


def _line_rows(image: Image.Image, x0: int, x1: int) -> list[int]:
    """The rows of the line colour's pixels in columns x0..x1 of the plot."""
    rgb = image.convert("RGB")
    rows = []
    for y in range(PLOT_TOP, PLOT_BOTTOM):
        for x in range(x0, x1):
            if rgb.getpixel((x, y)) == LINE:
                rows.append(y)
    return rows


def _line_columns(image: Image.Image) -> tuple[int, int]:
    rgb = image.convert("RGB").crop((0, PLOT_TOP, WIDTH, PLOT_BOTTOM))
    mask = Image.eval(ImageChops.difference(rgb, Image.new("RGB", rgb.size, LINE))
                      .convert("L"), lambda v: 255 if v == 0 else 0)
    box = mask.getbbox()
    assert box is not None, "no pixel in the line's colour"
    return box[0], box[2]


@pytest.mark.parametrize("rising", [True, False])
def test_the_line_goes_where_the_ratings_go(rising: bool) -> None:
    points = [RatingPoint(T0 + i * DAY, 20 + (i if rising else -i) * 0.8, 2.0) for i in range(30)]
    image = _chart(points)
    left, right = _line_columns(image)
    tenth = (right - left) // 10
    start = statistics.mean(_line_rows(image, left, left + tenth))
    end = statistics.mean(_line_rows(image, right - tenth, right))
    if rising:
        assert end < start - 50  # higher on the right (smaller y)
    else:
        assert end > start + 50


def test_games_are_spaced_by_time_unless_they_share_a_moment() -> None:
    mus = [24.0, 27.0, 26.0]

    def chart(times: list[float]) -> bytes:
        return rating_chart([RatingPoint(t, mu, 2) for t, mu in zip(times, mus, strict=True)],
                            title="x")

    # by time: the middle game near the start or near the end makes a different picture
    assert chart([T0, T0 + DAY, T0 + 10 * DAY]) != chart([T0, T0 + 9 * DAY, T0 + 10 * DAY])
    # within MIN_TIME_SPAN: evenly by game number (and labelled so), whatever the seconds
    close = MIN_TIME_SPAN / 10
    assert chart([T0, T0 + 1, T0 + 2]) == chart([T0, T0 + close, T0 + 2 * close])


def test_the_empty_chart_differs_from_a_one_point_chart() -> None:
    empty = _chart([])
    one = _chart([RatingPoint(T0, 25, 25 / 3)])
    assert ImageChops.difference(empty.convert("RGB"), one.convert("RGB")).getbbox() is not None
    assert _chart(EDGE_CASES["nothing usable"]).tobytes() == empty.tobytes()


def test_two_thousand_games_draw_fast() -> None:
    points = _walk(2000, step=3 * 3600)
    rating_chart(points, title="Alice", subtitle="2000 games")  # fonts, caches
    times = []
    for _ in range(3):      # CPU time: wall time failed under load (0.21 s, two cores busy)
        start = time.process_time()
        rating_chart(points, title="Alice", subtitle="2000 games")
        times.append(time.process_time() - start)
    assert min(times) < 0.1  # measured about 21 ms


def test_the_chart_is_not_a_game() -> None:
    assert "chart" not in render.kinds()
    with pytest.raises(ValueError):
        render.renderer("chart")


def test_the_palette_file_is_the_charts_palette() -> None:
    lines = (PALETTE_DIR / "chart.txt").read_text(encoding="utf-8").splitlines()
    assert [x for x in lines if x.startswith("#") and len(x) == 7] == palette_colours(), \
        "the chart's colours changed: run python -m render.chart"
    assert len(palette_colours()) <= 256


def test_the_palette_loses_nothing_visible() -> None:
    """The PNG in the fixed palette is the drawing itself, within a little anti-aliasing."""
    with capture_images() as drawn:
        png = rating_chart(_walk(50), title="Alice · Conqueror", subtitle="μ 27.4 ± 2.1")
    diff = ImageChops.difference(_image(png).convert("RGB"), drawn[0])
    assert max(ImageStat.Stat(diff).mean) < 2  # measured 1.2 (blue), 0.6 (red, green)
    extrema = diff.getextrema()
    assert all(isinstance(e, tuple) and e[1] < 24 for e in extrema)  # measured 11


def test_a_board_enlarged_in_another_thread_leaves_a_chart_its_size() -> None:
    """Drawing settings are per thread: the web pages draw 2x frames and charts in
    threads at the same moment."""
    import threading

    from render.common.canvas import enlarged

    inside, leave = threading.Event(), threading.Event()

    def hold_enlarged() -> None:
        with enlarged(2):
            inside.set()
            leave.wait(10)

    other = threading.Thread(target=hold_enlarged)
    other.start()
    try:
        assert inside.wait(10)
        png = rating_chart([RatingPoint(T0 + i * DAY, 25 + i, 8 - i / 10) for i in range(5)],
                           title="t")
    finally:
        leave.set()
        other.join()
    assert Image.open(io.BytesIO(png)).size == (800, 400)
