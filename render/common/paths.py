"""Paths on a board: polylines trimmed at their ends, measured, and drawn as thick
outlined arrows (a move along a route, a march on a wheel)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from render.common.canvas import Canvas, Point
from render.common.palette import Colour
from render.common.widgets import dashed_line

#: The dark outline under a path arrow, for contrast on any ground.
ARROW_SHADOW: Colour = (10, 10, 14, 200)


def trim_path(pts: Sequence[Point], start: float, end: float) -> list[Point]:
    """``pts`` with ``start`` pixels cut from its beginning and ``end`` from its end."""
    def cut(path: list[Point], d: float) -> list[Point]:
        while len(path) >= 2 and d > 0:
            (ax, ay), (bx, by) = path[0], path[1]
            seg = math.hypot(bx - ax, by - ay)
            if seg > d:
                t = d / seg
                return [(ax + (bx - ax) * t, ay + (by - ay) * t), *path[1:]]
            d -= seg
            path = path[1:]
        return path
    out = cut(list(pts), start)
    return list(reversed(cut(list(reversed(out)), end)))


def path_length(pts: Sequence[Point]) -> float:
    return sum(math.dist(a, b) for a, b in itertools.pairwise(pts))


def point_along(pts: Sequence[Point], t: float) -> Point:
    """The point ``t`` (0..1) of the way along ``pts``."""
    d = path_length(pts) * t
    for a, b in itertools.pairwise(pts):
        seg = math.dist(a, b)
        if seg >= d and seg > 0:
            return a[0] + (b[0] - a[0]) * d / seg, a[1] + (b[1] - a[1]) * d / seg
        d -= seg
    return pts[-1]


def path_arrow(c: Canvas, pts: Sequence[Point], colour: Colour, width: float, head: float,
               spread: float, outline: float, whole: bool = False,
               dash: tuple[float, float] | None = None) -> None:
    """A thick arrow along ``pts`` (the tip at the last point), outlined ``outline`` wider
    in a dark shadow for contrast. Its head is at most ``head`` long and ``spread`` times
    ``width`` wide each side.

    The shaft is drawn segment by segment (small masks, where one long path would need a
    huge one), or in one piece if ``whole`` (a path drawn the same way every time), or in
    dashes (``dash`` = dash and gap lengths)."""
    if len(pts) < 2:
        return
    (ax, ay), (ex, ey) = pts[-2], pts[-1]
    length = math.hypot(ex - ax, ey - ay)
    if length < 1:
        return
    ux, uy = (ex - ax) / length, (ey - ay) / length
    head = min(head, length * 0.7)
    hw = width * spread
    bx, by = ex - ux * head, ey - uy * head
    head_pts = [(ex, ey), (bx - uy * hw, by + ux * hw), (bx + uy * hw, by - ux * hw)]
    shaft = [*pts[:-1], (bx + ux, by + uy)]
    for fill, w in ((ARROW_SHADOW, width + outline), (colour, width)):
        if dash is not None:
            dashed_line(c, shaft, fill, w, dash[0], dash[1], round_caps=True)
        elif whole:
            c.line(shaft, fill=fill, width=w, round_caps=True)
        else:
            for a, b in itertools.pairwise(shaft):
                c.line([a, b], fill=fill, width=w, round_caps=True)
    c.polygon(head_pts, fill=ARROW_SHADOW, outline=ARROW_SHADOW, width=3)
    c.polygon(head_pts, fill=colour)
