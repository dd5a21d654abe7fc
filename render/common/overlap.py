"""Whether a board's text can be read: no two lines of text overlap, and no opaque shape
drawn after a line of text covers it (what ``tests/test_render_overlap.py`` checks).

Reads a :class:`~render.common.text.TextLog` recorded while a board was drawn: each text's
ink box and each opaque shape, in drawing order, in final-image pixels. A shape drawn
*before* a text (a panel, a disk the label sits on) never hides it; a shape drawn after it
does, unless both belong to one group (:meth:`Canvas.group`, or one stamp: a piece's own
parts); two texts of one group may overlap too (a stamp printed across a card's words).
``tolerance`` pixels at every edge are forgiven (anti-aliasing, a glyph's overhang).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from render.common.text import Box, DrawnShape, DrawnText, TextLog

#: Pixels forgiven at each edge of a text's box.
TOLERANCE = 1.5


def _shrunk(box: Box, by: float) -> Box | None:
    x0, y0, x1, y1 = box[0] + by, box[1] + by, box[2] - by, box[3] - by
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _boxes_meet(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(box: Box, x: float, y: float) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _segment_point(ax: float, ay: float, bx: float, by: float, px: float,
                   py: float) -> float:
    """The distance from (px, py) to the segment a-b."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(ax + t * dx - px, ay + t * dy - py)


def _segments_cross(p: Sequence[float], q: Sequence[float]) -> bool:
    (ax, ay, bx, by), (cx, cy, dx, dy) = p, q

    def side(x0: float, y0: float, x1: float, y1: float, x: float, y: float) -> float:
        return (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)

    d1, d2 = side(cx, cy, dx, dy, ax, ay), side(cx, cy, dx, dy, bx, by)
    d3, d4 = side(ax, ay, bx, by, cx, cy), side(ax, ay, bx, by, dx, dy)
    return d1 * d2 < 0 and d3 * d4 < 0


def _edges(box: Box) -> list[tuple[float, float, float, float]]:
    x0, y0, x1, y1 = box
    return [(x0, y0, x1, y0), (x1, y0, x1, y1), (x1, y1, x0, y1), (x0, y1, x0, y0)]


def _segment_box(ax: float, ay: float, bx: float, by: float, box: Box) -> float:
    """The distance from the segment a-b to ``box`` (0 when they meet)."""
    if _inside(box, ax, ay) or _inside(box, bx, by):
        return 0.0
    if any(_segments_cross((ax, ay, bx, by), e) for e in _edges(box)):
        return 0.0
    corners = [(box[0], box[1]), (box[2], box[1]), (box[2], box[3]), (box[0], box[3])]
    near = min(_segment_point(ax, ay, bx, by, x, y) for x, y in corners)
    for x, y in ((ax, ay), (bx, by)):
        cx, cy = min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])
        near = min(near, math.hypot(x - cx, y - cy))
    return near


def _in_polygon(xs: Sequence[float], ys: Sequence[float], x: float, y: float) -> bool:
    inside = False
    n = len(xs)
    for i in range(n):
        j = i - 1
        if (ys[i] > y) != (ys[j] > y):
            cross = xs[j] + (y - ys[j]) * (xs[i] - xs[j]) / (ys[i] - ys[j])
            if x < cross:
                inside = not inside
    return inside


def _ellipse_meets(box: Box, ellipse: Sequence[float], grow: float = 0) -> bool:
    """Whether ``box`` meets the ellipse inscribed in ``ellipse`` (grown by ``grow``)."""
    ex0, ey0, ex1, ey1 = ellipse
    cx, cy = (ex0 + ex1) / 2, (ey0 + ey1) / 2
    rx, ry = (ex1 - ex0) / 2 + grow, (ey1 - ey0) / 2 + grow
    if rx <= 0 or ry <= 0:
        return False
    px, py = min(max(cx, box[0]), box[2]), min(max(cy, box[1]), box[3])
    return ((px - cx) / rx) ** 2 + ((py - cy) / ry) ** 2 < 1


def _inside_ellipse(box: Box, ellipse: Sequence[float], shrink: float) -> bool:
    """Whether all of ``box`` lies inside the ellipse shrunk by ``shrink``."""
    ex0, ey0, ex1, ey1 = ellipse
    cx, cy = (ex0 + ex1) / 2, (ey0 + ey1) / 2
    rx, ry = (ex1 - ex0) / 2 - shrink, (ey1 - ey0) / 2 - shrink
    if rx <= 0 or ry <= 0:
        return False
    return all(((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 < 1
               for x in (box[0], box[2]) for y in (box[1], box[3]))


def covers(shape: DrawnShape, box: Box) -> bool:
    """Whether ``shape`` covers any of ``box``."""
    if not _boxes_meet(shape.box, box):
        return False
    c = shape.coords
    if shape.kind == "box":
        return True
    if shape.kind == "ellipse":
        return _ellipse_meets(box, c)
    if shape.kind == "ring":
        w = shape.width / 2
        return _ellipse_meets(box, c, w) and not _inside_ellipse(box, c, w)
    xs, ys = c[::2], c[1::2]
    if shape.kind == "line":
        half = shape.width / 2
        return any(_segment_box(xs[i], ys[i], xs[i + 1], ys[i + 1], box) < half
                   for i in range(len(xs) - 1))
    # a polygon
    if any(_inside(box, x, y) for x, y in zip(xs, ys, strict=True)):
        return True
    if any(_in_polygon(xs, ys, x, y) for x in (box[0], box[2]) for y in (box[1], box[3])):
        return True
    return any(_segment_box(xs[i - 1], ys[i - 1], xs[i], ys[i], box) == 0
               for i in range(len(xs)))


def _texts(log: TextLog, tolerance: float) -> list[tuple[DrawnText, Box]]:
    out = []
    for d in log.drawn:
        if d.box is None or not d.text.strip():
            continue
        box = _shrunk(d.box, tolerance)
        if box is not None:
            out.append((d, box))
    return out


def overlapping_texts(log: TextLog,
                      tolerance: float = TOLERANCE) -> list[tuple[DrawnText, DrawnText]]:
    """The pairs of lines of text whose ink boxes overlap (by more than ``tolerance``),
    unless both belong to one group (words printed over a piece's own words on purpose: a
    "DESTROYED" stamp across a unit card)."""
    texts = sorted(_texts(log, tolerance), key=lambda t: t[1][0])
    found = []
    for (a, abox), (b, bbox) in itertools.combinations(texts, 2):
        if bbox[0] >= abox[2] or (a.groups & b.groups):
            continue
        if _boxes_meet(abox, bbox):
            found.append((a, b))
    return found


def hidden_texts(log: TextLog,
                 tolerance: float = TOLERANCE) -> list[tuple[DrawnText, DrawnShape]]:
    """Each line of text and an opaque shape drawn after it over it (not of its group)."""
    found = []
    shapes = sorted(log.shapes, key=lambda s: s.order)
    for d, box in _texts(log, tolerance):
        for shape in shapes:
            if shape.order <= d.order or (shape.groups & d.groups):
                continue
            if covers(shape, box):
                found.append((d, shape))
                break
    return found


def off_image(log: TextLog, height: int, tolerance: float = TOLERANCE) -> list[DrawnText]:
    """The lines of text that run off a ``log.width`` by ``height`` image."""
    return [d for d, box in _texts(log, tolerance)
            if box[0] < 0 or box[1] < 0 or box[2] > log.width or box[3] > height]
