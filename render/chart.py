"""A player's rating over time as a small PNG chart, drawn on :mod:`render.common`.

:func:`rating_chart` draws one :class:`RatingPoint` per rated game (the openskill rating
after it): the mean ``mu`` as a gold line with a marker at each game, the band
``mu ± sigma`` as a solid dim gold, and the conservative rating ``mu − 3·sigma`` as a
dashed blue line, under a title and a subtitle, with 4-6 round numbers up the side and
3-5 dates (UTC) along the bottom. Games are spaced by time; when they all finished within
:data:`MIN_TIME_SPAN` of each other (or there is one) they are spaced evenly by game
number instead.

Nothing a caller passes can break it: points with a NaN or infinite value are skipped,
absurd values are clamped, identical values get a padded axis, a long series is thinned
to what the plot's pixels can show, and text is cleaned and shortened with an ellipsis to
fit. The same points always give the same bytes.

Like the boards, the chart is drawn at its final size on a fast :class:`Canvas` (the
plot itself, a long line and band that would only fill the shared mask cache, is a layer
drawn supersampled and pasted), and saved in its own fixed palette
``render/palettes/chart.txt``. That palette is not picked by ``python -m tests.boards``
(which draws game boards only): it is :func:`palette_colours`, the chart's few colours
and the blends between the pairs that touch, written by ``python -m render.chart``.

Pure: plain data in, PNG bytes out; no Discord, asyncio or database.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from PIL import Image

from render.common import (
    ACCENT,
    BACKGROUND,
    BOX_LINE,
    MUTED,
    PALETTE_DIR,
    PANEL,
    RGB,
    SEAT_COLOURS,
    TEXT,
    Canvas,
    Point,
    clean_text,
    essential_size,
    lighten,
    load_palette,
    mix,
)

__all__ = ["HEIGHT", "KIND", "MIN_TIME_SPAN", "WIDTH", "RatingPoint", "palette_colours",
           "rating_chart"]

#: The palette file's name (``render/palettes/chart.txt``).
KIND = "chart"
#: The chart's size at ``scale=1``.
WIDTH, HEIGHT = 800, 400
#: Games spread over less time than this are spaced evenly by game number, not by time.
MIN_TIME_SPAN = 3 * 86_400.0

# --- colours ---------------------------------------------------------------------------

PLOT: RGB = PANEL  # the plot area
GRID: RGB = BOX_LINE
LINE: RGB = ACCENT  # mu
BAND: RGB = mix(PANEL, ACCENT, 0.16)  # mu ± sigma
LOW: RGB = lighten(SEAT_COLOURS[1], 0.25)  # mu − 3 sigma

# --- layout at scale 1 ---------------------------------------------------------------------

MARGIN = 16
TITLE_Y, TITLE_SIZE = 12, 26
SUB_Y = 48
PLOT_TOP, PLOT_BOTTOM = 80, HEIGHT - 40
PLOT_RIGHT = WIDTH - MARGIN
#: Space inside the plot between its edges and the outermost data (markers stay whole).
INNER = 12
LINE_WIDTH = 3
MARKER_R, LAST_R = 4, 6
#: Markers at every game only while they are at least this far apart on average (px).
MARKER_SPACING = 12
#: Long series are thinned to at most two points (lowest and highest) per this many px.
BUCKET_PX = 2
#: Longest title and subtitle considered (characters), before fitting to the width.
TEXT_LIMIT = 120
#: Values are clamped to this magnitude (ratings are tens; this only tames nonsense).
MAX_VALUE = 1e12
#: Times are clamped to 1970..9000 (datetime handles years 1..9999).
MIN_AT, MAX_AT = 0.0, 221_845_392_000.0

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class RatingPoint:
    """A player's rating right after one rated game."""

    at: float  # epoch seconds (UTC) when the game finished
    mu: float  # rating after that game (openskill mu, starts at 25)
    sigma: float  # its uncertainty (starts at 25/3)


def rating_chart(points: Sequence[RatingPoint], *, title: str, subtitle: str = "",
                 scale: int = 1) -> bytes:
    """PNG bytes: ``points`` (in any order; drawn by time) as a rating chart
    :data:`WIDTH` x :data:`HEIGHT` times ``scale`` (1-4, every line and letter drawn at
    that size). With no usable point it says "No rated games yet"."""
    if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= 4:
        raise ValueError(f"scale must be an int from 1 to 4, not {scale!r}")
    k = scale
    series = _usable(points)
    c = Canvas(WIDTH * k, HEIGHT * k)
    label = essential_size(WIDTH * k)
    legend_w = _legend(c, k, label * 0.95, draw=False) if series else 0.0
    title_text = _shorten(c, title, TITLE_SIZE * k, (WIDTH - 2 * MARGIN) * k, bold=True)
    c.text((MARGIN * k, TITLE_Y * k), title_text, TITLE_SIZE * k, TEXT, bold=True)
    sub_width = (WIDTH - 2 * MARGIN) * k - (legend_w + 24 * k if legend_w else 0)
    c.text((MARGIN * k, SUB_Y * k), _shorten(c, subtitle, label, sub_width), label, MUTED,
           role="score")
    if not series:
        box = (MARGIN * k, PLOT_TOP * k, PLOT_RIGHT * k, PLOT_BOTTOM * k)
        c.rect(box, fill=PLOT)
        c.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), "No rated games yet",
               label * 1.3, MUTED, anchor="mm")
        return c.png(load_palette(KIND))
    _legend(c, k, label * 0.95, draw=True)
    _plot(c, k, series, label)
    return c.png(load_palette(KIND))


# --- the data ------------------------------------------------------------------------------


def _usable(points: Sequence[RatingPoint]) -> list[tuple[float, float, float]]:
    """(at, mu, sigma) of every point whose values are numbers and finite, clamped to
    sane ranges (sigma made non-negative), sorted by time (stably: equal times keep
    their order)."""
    out = []
    for p in points:
        try:
            at, mu, sigma = float(p.at), float(p.mu), abs(float(p.sigma))
        except (AttributeError, TypeError, ValueError, OverflowError):
            continue
        if not (math.isfinite(at) and math.isfinite(mu) and math.isfinite(sigma)):
            continue
        out.append((min(max(at, MIN_AT), MAX_AT), min(max(mu, -MAX_VALUE), MAX_VALUE),
                    min(sigma, MAX_VALUE)))
    out.sort(key=lambda p: p[0])
    return out


def _shorten(c: Canvas, text: str, size: float, width: float, bold: bool = False) -> str:
    """``text`` cleaned (see :func:`render.common.clean_text`) and cut with an ellipsis to
    at most ``width`` px."""
    cleaned = clean_text(text, limit=TEXT_LIMIT + 1)
    if len(cleaned) > TEXT_LIMIT:
        cleaned = cleaned[:TEXT_LIMIT].rstrip() + "…"
    return c.fit(cleaned, size, width, bold)


# --- the y axis ------------------------------------------------------------------------------


def _y_ticks(lo: float, hi: float) -> tuple[list[float], float]:
    """4-6 round values covering ``lo``..``hi`` (the first at or below ``lo``, the last at
    or above ``hi``) and their step: the tightest such axis, ties to more ticks."""
    base = math.floor(math.log10((hi - lo) / 5))
    best: tuple[tuple[float, float, int], float, int, int] | None = None
    for exp in range(base - 1, base + 3):
        for mantissa in (1.0, 2.0, 2.5, 5.0):
            step = mantissa * 10.0 ** exp
            first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
            count = last - first + 1
            key = (0.0 if 4 <= count <= 6 else abs(count - 5.0), (last - first) * step, -count)
            if best is None or key < best[0]:
                best = (key, step, first, last)
    assert best is not None
    _, step, first, last = best
    return [i * step for i in range(first, last + 1)], step


def _y_range(series: list[tuple[float, float, float]]) -> tuple[float, float]:
    """The values the axis must show: every band and conservative rating, at least one
    rating point tall (a flat series is centred in a padded axis)."""
    lo = min(mu - 3 * sigma for _, mu, sigma in series)
    hi = max(mu + sigma for _, mu, sigma in series)
    least = max(1.0, max(abs(lo), abs(hi)) * 1e-6)
    if hi - lo < least:
        mid = (hi + lo) / 2
        lo, hi = mid - least / 2, mid + least / 2
    return lo, hi


def _number(value: float, step: float) -> str:
    """A tick's label: as many digits as the step needs, "−" for minus."""
    if value == 0:
        value = 0.0  # no "-0"
    biggest = max(abs(value), step)
    if biggest >= 1e6 or step < 1e-4:
        digits = max(2, math.floor(math.log10(biggest)) - math.floor(math.log10(step)) + 2)
        text = f"{value:.{digits}g}"
    else:
        decimals = max(0, -math.floor(math.log10(step) + 1e-9))
        if abs(round(step * 10 ** decimals) - step * 10 ** decimals) > 1e-6:
            decimals += 1  # 2.5, 0.25...
        text = f"{value:.{decimals}f}"
    return text.replace("-", "−")


# --- the x axis ------------------------------------------------------------------------------

_DAY = 86_400
_DAY_STEPS = (1, 2, 3, 4, 5, 7, 10, 14, 21)
_MONTH_STEPS = (1, 2, 3, 4, 6)
_YEAR_STEPS = (1, 2, 3, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000)
#: Every how many games the evenly spaced axis is labelled (3-5 labels from 3 games on).
_GAME_STEPS = (1, 2, 3, 4, 5, *(round(m * 10 ** e) for e in range(1, 10) for m in (1, 2, 2.5, 5)))


def _date(t: float) -> datetime:
    return _EPOCH + timedelta(seconds=t)


def _date_ticks(t0: float, t1: float) -> list[float]:
    """3-5 round dates (UTC midnights: every few days, first days of months, New Year's
    days) within ``t0``..``t1``, or as near that count as the span allows."""
    d0, d1 = _date(t0), _date(t1)
    first_day, last_day = math.ceil(t0 / _DAY), math.floor(t1 / _DAY)
    month0 = d0.year * 12 + d0.month - 1 + (0 if (d0.day, d0.hour, d0.minute, d0.second,
                                                  d0.microsecond) == (1, 0, 0, 0, 0) else 1)
    month1 = d1.year * 12 + d1.month - 1
    year0 = d0.year + (0 if (d0.month, d0.day, d0.hour, d0.minute, d0.second,
                             d0.microsecond) == (1, 1, 0, 0, 0, 0) else 1)
    year1 = d1.year
    candidates: list[tuple[str, int, int, int]] = []  # (unit, step, first index, last index)
    for step in _DAY_STEPS:
        candidates.append(("day", step, -(-first_day // step), last_day // step))
    for step in _MONTH_STEPS:
        candidates.append(("month", step, -(-month0 // step), month1 // step))
    for step in _YEAR_STEPS:
        candidates.append(("year", step, -(-year0 // step), year1 // step))
    fitting = [c for c in candidates if 3 <= c[3] - c[2] + 1 <= 5]
    if fitting:
        unit, step, i0, i1 = fitting[0]
    else:  # too short or too long for 3: the most ticks up to 5
        unit, step, i0, i1 = max((c for c in candidates if c[3] - c[2] + 1 <= 5),
                                 key=lambda c: c[3] - c[2])
    out = []
    for i in range(i0, i1 + 1):
        n = i * step
        if unit == "day":
            when = _EPOCH + timedelta(days=n)
        elif unit == "month":
            when = datetime(n // 12, n % 12 + 1, 1, tzinfo=UTC)
        else:
            when = datetime(n, 1, 1, tzinfo=UTC)
        out.append((when - _EPOCH).total_seconds())
    return out


def _date_label(t: float, with_year: bool) -> str:
    d = _date(t)
    return f"{d.day} {_MONTHS[d.month - 1]}" + (f" {d.year}" if with_year else "")


# --- drawing ---------------------------------------------------------------------------------


def _legend(c: Canvas, k: int, size: float, draw: bool) -> float:
    """The key (line: μ, band: μ ± σ, dashes: μ − 3σ) right-aligned on the subtitle's
    row; returns its width."""
    swatch, gap, sep = 18 * k, 6 * k, 16 * k
    items = (("line", "μ"), ("band", "μ ± σ"), ("low", "μ − 3σ"))
    widths = [swatch + gap + c.text_width(text, size) for _, text in items]
    total = sum(widths) + sep * (len(items) - 1)
    if not draw:
        return total
    x = PLOT_RIGHT * k - total
    y = SUB_Y * k + size * 0.6
    for (what, text), w in zip(items, widths, strict=True):
        if what == "line":
            c.rect((x, y - LINE_WIDTH * k / 2, x + swatch, y + LINE_WIDTH * k / 2), fill=LINE)
        elif what == "band":
            c.rect((x, y - 6 * k, x + swatch, y + 6 * k), fill=BAND)
        else:
            for dx in (0, 7 * k, 14 * k):
                c.rect((x + dx, y - k, x + dx + 4 * k, y + k), fill=LOW)
        c.text((x + swatch + gap, y), text, size, MUTED, anchor="lm")
        x += w + sep
    return total


def _thinned(xs: list[float], series: list[tuple[float, float, float]],
             bucket: float) -> list[int]:
    """The indices worth drawing: all of a short series; of a long one, the lowest and
    highest mu in every ``bucket`` pixels (in order), and the first and last."""
    if len(series) <= 2 * (xs[-1] - xs[0]) / bucket + 2:
        return list(range(len(series)))
    keep = {0, len(series) - 1}
    for _, group in itertools.groupby(range(len(series)), key=lambda i: int(xs[i] // bucket)):
        members = list(group)
        keep.add(min(members, key=lambda i: series[i][1]))
        keep.add(max(members, key=lambda i: series[i][1]))
    return sorted(keep)


def _dashed(c: Canvas, pts: Sequence[Point], colour: RGB, width: float, dash: float,
            gap: float) -> None:
    """A polyline in dashes that run on along it (its corners do not restart them)."""
    on, left = True, dash
    piece: list[Point] = []
    for (ax, ay), (bx, by) in itertools.pairwise(pts):
        length = math.hypot(bx - ax, by - ay)
        done = 0.0
        while length - done > 1e-9:
            run = min(left, length - done)
            if on and not piece:
                piece.append((ax + (bx - ax) * done / length, ay + (by - ay) * done / length))
            done += run
            left -= run
            if on:
                piece.append((ax + (bx - ax) * done / length, ay + (by - ay) * done / length))
            if left <= 1e-9:
                if on:
                    c.line(piece, colour, width)
                    piece = []
                on = not on
                left = dash if on else gap
    if len(piece) >= 2:
        c.line(piece, colour, width)


def _plot(c: Canvas, k: int, series: list[tuple[float, float, float]], label: float) -> None:
    """The axes' labels on ``c`` and the plot (grid, band, lines, markers) as a layer
    pasted into it."""
    ticks, step = _y_ticks(*_y_range(series))
    labels = [_number(v, step) for v in ticks]
    label_w = min(140 * k, max(c.text_width(t, label) for t in labels))
    left = round(MARGIN * k + label_w + 10 * k)
    top, bottom, right = PLOT_TOP * k, PLOT_BOTTOM * k, PLOT_RIGHT * k
    w, h = right - left, bottom - top
    pad = INNER * k

    def y_of(v: float) -> float:
        return pad + (ticks[-1] - v) / (ticks[-1] - ticks[0]) * (h - 2 * pad)

    for v, text in zip(ticks, labels, strict=True):
        c.text((left - 8 * k, top + y_of(v)), c.fit(text, label, 140 * k), label, MUTED,
               anchor="rm")

    # the x axis: by time, or evenly by game number
    t0, t1 = series[0][0], series[-1][0]
    by_time = t1 - t0 >= MIN_TIME_SPAN
    n = len(series)
    if by_time:
        xs = [pad + (t - t0) / (t1 - t0) * (w - 2 * pad) for t, _, _ in series]
        with_year = _date(t0).year != _date(t1).year or t1 - t0 > 300 * _DAY
        x_ticks = [(pad + (t - t0) / (t1 - t0) * (w - 2 * pad), _date_label(t, with_year))
                   for t in _date_ticks(t0, t1)]
    elif n == 1:
        xs = [w / 2]
        x_ticks = [(w / 2, _date_label(t0, False))]
    else:
        xs = [pad + i / (n - 1) * (w - 2 * pad) for i in range(n)]
        every = next(s for s in _GAME_STEPS if n // s <= 5)
        x_ticks = [(xs[g - 1], f"Game {g}") for g in range(every, n + 1, every)]
    for x, text in x_ticks:
        tw = c.text_width(text, label)
        cx = min(max(left + x, MARGIN * k + tw / 2), right - tw / 2)
        c.text((cx, bottom + 8 * k), text, label, MUTED, anchor="ma")

    grid_x = [x for x, _ in x_ticks] if by_time else []
    c.paste(_layer(w, h, k, series, xs, y_of, grid_x, [y_of(v) for v in ticks]), (left, top))


def _layer(w: int, h: int, k: int, series: list[tuple[float, float, float]],
           xs: list[float], y_of: Callable[[float], float], grid_x: list[float],
           grid_y: list[float]) -> Image.Image:
    """The plot, ``w`` x ``h``: the band, the grid over it, the conservative rating, the
    line and the markers, drawn supersampled (a layer of its own: one long line and band
    each time, which the shared mask cache would only fill up with)."""
    layer = Canvas(w, h, PLOT, scale=max(2, 4 // k))
    kept = [(xs[i], series[i][1], series[i][2]) for i in _thinned(xs, series, BUCKET_PX * k)]
    if len(kept) == 1:
        x, mu, sigma = kept[0]
        layer.rect((x - 14 * k, y_of(mu + sigma), x + 14 * k, y_of(mu - sigma)), fill=BAND)
        low = [(x - 22 * k, y_of(mu - 3 * sigma)), (x + 22 * k, y_of(mu - 3 * sigma))]
    else:
        layer.polygon([(x, y_of(mu + s)) for x, mu, s in kept]
                      + [(x, y_of(mu - s)) for x, mu, s in reversed(kept)], fill=BAND)
        low = [(x, y_of(mu - 3 * s)) for x, mu, s in kept]
    hair = 1 / layer.scale
    for y in grid_y:
        layer.rect((0, math.floor(y), w, math.floor(y) + k - hair), fill=GRID)
    for x in grid_x:
        layer.rect((math.floor(x), 0, math.floor(x) + k - hair, h), fill=GRID)
    _dashed(layer, low, LOW, 2 * k, 7 * k, 5 * k)
    line = [(x, y_of(mu)) for x, mu, _ in kept]
    if len(line) >= 2:
        layer.line(line, LINE, LINE_WIDTH * k)
    if len(series) <= (w - 2 * INNER * k) / (MARKER_SPACING * k) + 1:
        for x, y in line[:-1]:
            layer.circle((x, y), (MARKER_R + 1.5) * k, fill=PLOT)
            layer.circle((x, y), MARKER_R * k, fill=LINE)
    layer.circle(line[-1], (LAST_R + 2) * k, fill=PLOT)
    layer.circle(line[-1], LAST_R * k, fill=LINE)
    return layer.finish()


# --- the palette ------------------------------------------------------------------------------


def palette_colours() -> list[str]:
    """The chart's fixed palette (hex): its colours, then the blends of each pair that
    touch (anti-aliased edges), more steps where the eye sees them (text, the line)."""
    fine = ((TEXT, BACKGROUND), (MUTED, BACKGROUND), (MUTED, PLOT), (LINE, PLOT), (LINE, BAND))
    coarse = ((TEXT, PLOT), (GRID, PLOT), (GRID, BAND), (BAND, PLOT), (LOW, PLOT), (LOW, BAND),
              (LOW, GRID), (LINE, LOW), (LINE, GRID), (LINE, BACKGROUND), (BAND, BACKGROUND),
              (LOW, BACKGROUND), (PLOT, BACKGROUND), (GRID, BACKGROUND))
    colours = [BACKGROUND, PLOT, GRID, BAND, LOW, LINE, MUTED, TEXT]
    for pairs, steps in ((fine, 16), (coarse, 8)):
        for a, b in pairs:
            colours += [mix(b, a, i / steps) for i in range(1, steps)]
    unique = list(dict.fromkeys(colours))
    assert len(unique) <= 256
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in unique]


def main() -> None:
    """Writes ``render/palettes/chart.txt`` (run after changing the chart's colours)."""
    path = PALETTE_DIR / f"{KIND}.txt"
    colours = palette_colours()
    path.write_text(f"# {KIND}: the fixed palette of the rating chart (made by "
                    f"python -m render.chart)\n" + "\n".join(colours) + "\n", encoding="utf-8")
    print(f"{path}: {len(colours)} colours")


if __name__ == "__main__":
    main()
