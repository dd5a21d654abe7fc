"""Drawing helpers the boards share: rows of pips, arrows, dashed lines, pills and tags,
progress bars, runs of text and the line of players who acted."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from render.common.canvas import Box, Canvas, Point
from render.common.palette import TEXT, Colour, lighten, text_on, with_alpha
from render.common.view import Players


def pips(canvas: Canvas, x: float, y: float, filled: int, total: int, size: float,
         colour: Colour, empty: Colour, gap: float = 3) -> float:
    """A row of ``total`` rounded pips, ``filled`` of them in ``colour``; returns the width."""
    width = total * size + (total - 1) * gap if total > 0 else 0

    def draw(c: Canvas, centre: Point) -> None:
        left, top = centre[0] - width / 2, centre[1] - size / 2
        for i in range(total):
            px = left + i * (size + gap)
            c.rect((px, top, px + size, top + size), fill=colour if i < filled else empty,
                   radius=size * 0.3)

    centre = (x + width / 2, y + size / 2)
    if 0 < total <= 64:
        canvas.stamp(("pips", filled, total, size, tuple(colour), tuple(empty), gap),
                     centre, max(width, size) / 2 + 1, draw)
    elif total > 64:  # too long a row to be worth keeping as a sprite
        draw(canvas, centre)
    return width

def arrow(canvas: Canvas, start: Point, end: Point, colour: Colour, width: float = 7,
          head: float = 20, shadow: Colour = (12, 12, 16, 200)) -> None:
    """A thick arrow from ``start`` to ``end`` (the tip), outlined for contrast."""
    sx, sy = start
    ex, ey = end
    dx, dy = ex - sx, ey - sy
    length = (dx * dx + dy * dy) ** 0.5
    if length < 1:
        return
    ux, uy = dx / length, dy / length
    head = min(head, length * 0.6)
    hw = width * 1.6
    bx, by = ex - ux * head, ey - uy * head
    head_pts = [(ex, ey), (bx - uy * hw, by + ux * hw), (bx + uy * hw, by - ux * hw)]
    canvas.line([start, (bx, by)], fill=shadow, width=width + 4, round_caps=True)
    canvas.polygon(head_pts, fill=shadow, outline=shadow, width=3)
    canvas.line([start, (bx + ux, by + uy)], fill=colour, width=width, round_caps=True)
    canvas.polygon(head_pts, fill=colour)

def dashed_line(canvas: Canvas, points: Sequence[Point], colour: Colour, width: float = 2,
                dash: float = 8, gap: float = 5, round_caps: bool = False) -> None:
    """A polyline drawn in dashes, each segment dashed from its start (so stretches that
    several lines share draw the same dashes)."""
    for a, b in itertools.pairwise(points):
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        if length <= 0:
            continue
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        pos = 0.0
        while pos < length:
            end = min(length, pos + dash)
            canvas.line([(a[0] + ux * pos, a[1] + uy * pos), (a[0] + ux * end, a[1] + uy * end)],
                        fill=colour, width=width, round_caps=round_caps)
            pos = end + gap


def dashed_rect(canvas: Canvas, box: Box, colour: Colour, width: float = 2,
                dash: float = 8, gap: float = 5) -> None:
    """A rectangle outline drawn in dashes (square corners)."""
    x0, y0, x1, y1 = box
    dashed_line(canvas, [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], colour, width,
                dash, gap)


def seat_card(canvas: Canvas, box: Box, edge_colour: Colour, fill: Colour, edge: float = 6,
              corner: float = 16) -> None:
    """A player's (or side's) card in a panel: ``fill`` with an ``edge`` px strip of
    ``edge_colour`` down its left side; the fill's left corners are square up to ``corner``
    px from the box's left, the card's outer corners round."""
    x0, y0, x1, y1 = box
    canvas.rect(box, fill=edge_colour, radius=10)
    canvas.rect((x0 + edge, y0, x1, y1), fill=fill, radius=10)
    canvas.rect((x0 + edge, y0, x0 + corner, y1), fill=fill)


def pill(canvas: Canvas, x: float, top: float, label: str, fill: Colour, size: float = 12,
         height: float = 21, align: str = "right", text: Colour | None = None,
         role: str | None = None) -> float:
    """A small rounded label; ``x`` is its right edge (or left with ``align="left"``).

    Returns the other edge (the left edge for right-aligned pills, else the right).
    """
    w = canvas.text_width(label, size, bold=True) + height * 0.66
    x0 = x - w if align == "right" else x
    canvas.rect((x0, top, x0 + w, top + height), fill=fill, radius=height / 2)
    canvas.text((x0 + w / 2, top + height / 2 + 0.5), label, size,
                fill=text if text is not None else text_on(fill[:3]), bold=True, anchor="mm",
                role=role)
    return x0 if align == "right" else x0 + w


def progress_bar(canvas: Canvas, box: Box, fraction: float, fill: Colour, track: Colour,
                 ticks: int = 0, tick: Colour | None = None) -> float:
    """A rounded bar ``fraction`` (clamped to 0..1) full, on a ``track``; returns the fill's
    right edge. ``ticks`` > 1 marks the track in that many equal parts."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    canvas.rect(box, fill=track, radius=h / 2)
    frac = 0.0 if not isinstance(fraction, int | float) or math.isnan(fraction) else fraction
    frac = max(0.0, min(1.0, frac))
    right = x0 + (x1 - x0) * frac
    if frac > 0:
        canvas.rect((x0, y0, max(right, x0 + h), y1), fill=fill, radius=h / 2)
        canvas.rect((x0 + h * 0.35, y0 + h * 0.18, max(right, x0 + h) - h * 0.35,
                     y0 + h * 0.36), fill=with_alpha(lighten(fill[:3], 0.35), 150),
                    radius=h * 0.1)
    if 1 < ticks <= (x1 - x0) / 4 and tick is not None:
        for i in range(1, ticks):
            tx = x0 + (x1 - x0) * i / ticks
            canvas.line([(tx, y0 + h * 0.2), (tx, y1 - h * 0.2)], fill=tick, width=1)
    return right


#: One piece of a :func:`text_runs` line: its text, colour, and the most width it may take
#: (None: whatever is left).
Run = tuple[str, Colour, float | None]


def text_runs(canvas: Canvas, x: float, y: float, runs: Sequence[Run], size: float,
              max_x: float, bold: bool = False, role: str | None = None) -> float:
    """Pieces of one line drawn one after another from ``x`` (vertically centred on ``y``),
    each cut to fit; returns where the line ends.

    Drawing a display name as its own run keeps the font's bidirectional layout inside
    it: a right-to-left name beside English words stays in one piece instead of
    reordering the whole line."""
    for text, colour, cap in runs:
        left = max_x - x
        room = left if cap is None else min(left, cap)
        if room <= 0:
            break
        fitted = canvas.fit(text, size, room, bold)
        canvas.text((x, y), fitted, size, fill=colour, bold=bold, anchor="lm", role=role)
        x += canvas.text_width(fitted, size, bold)
        if fitted != text and room == left:  # the line is full (not just this run's cap)
            break
    return x


def tag(canvas: Canvas, centre: Point, label: str, fill: Colour, fg: Colour = TEXT,
        size: float = 12, height: float | None = None) -> None:
    """A small outlined pill centred on ``centre`` (units placed or lost, a count on an
    arrow); ``height`` is ``size + 5`` unless given."""
    w = canvas.text_width(label, size, bold=True) + 10
    h = size + 5 if height is None else height
    canvas.stamp(("tag", label, tuple(fill), tuple(fg), size, h), centre, w / 2 + 2,
                 lambda c, p: _tag(c, p, label, fill, fg, w, size, h), extent_y=h / 2 + 2)


def _tag(canvas: Canvas, centre: Point, label: str, fill: Colour, fg: Colour, w: float,
         size: float, h: float) -> None:
    x, y = centre
    canvas.rect((x - w / 2, y - h / 2, x + w / 2, y + h / 2), fill=fill, outline=(14, 14, 18),
                width=1.2, radius=h / 2)
    canvas.text((x, y + 0.5), label, size, fill=fg, bold=True, anchor="mm")


def who_line(canvas: Canvas, x: float, y: float, pids: Sequence[str], players: Players,
             max_x: float, size: float = 18) -> None:
    """Coloured dots and names of the players who acted (at most four), on one line
    centred on ``y``."""
    shown = pids[:4]
    for i, pid in enumerate(shown):
        if max_x - x < 40:
            break
        canvas.circle((x + 7, y), 7, fill=players.colour(pid), outline=(240, 238, 230),
                      width=1.2)
        x += 19
        rest = len(shown) - i - 1
        room = (max_x - x) / (rest + 1) - (14 if rest else 0)
        name = canvas.fit(players.name(pid), size, max(20.0, room), bold=True)
        canvas.text((x, y), name, size, fill=TEXT, bold=True, anchor="lm")
        x += canvas.text_width(name, size, bold=True) + 14
