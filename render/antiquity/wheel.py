"""The Antiquity action wheel: its eight fields clockwise from the top (drawn once), every
nation's marker with its initial on its field, the nation to act ringed in gold, and its
move this turn as an arc outside the wheel."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from render.antiquity.events import _Turn
from render.antiquity.layout import (
    ARC_R,
    ARROW_HEAD,
    ARROW_SPREAD,
    FIELD_COLOURS,
    FIELD_LABELS,
    FIELD_NAMES,
    FIELDS,
    MARKER_R,
    WHEEL_BOX,
    WHEEL_C,
    WHEEL_HUB,
    WHEEL_IN,
    WHEEL_LABEL_R,
    WHEEL_OUT,
)
from render.antiquity.view import _field, _nation_colour, _nation_name, _NationView
from render.common import (
    BOX_LINE,
    GOLD,
    MUTED,
    RGB,
    TEXT,
    Canvas,
    Point,
    darken,
    lighten,
    path_arrow,
    text_on,
    trim_path,
)


def _angle(i: int) -> float:
    """The middle of wheel field ``i`` (radians; 0 is the top, clockwise)."""
    return math.radians(-90 + i * 45)


def _polar(r: float, a: float) -> Point:
    return WHEEL_C[0] + r * math.cos(a), WHEEL_C[1] + r * math.sin(a)


def _wedge(i: int, r0: float, r1: float) -> list[Point]:
    a0, a1 = _angle(i) - math.pi / 8, _angle(i) + math.pi / 8
    steps = 12
    outer = [_polar(r1, a0 + (a1 - a0) * k / steps) for k in range(steps + 1)]
    inner = [_polar(r0, a1 - (a1 - a0) * k / steps) for k in range(steps + 1)]
    return outer + inner


def _wheel(c: Canvas) -> None:
    """The wheel's fields, names and hub (static)."""
    for i, fid in enumerate(FIELDS):
        c.polygon(_wedge(i, WHEEL_IN, WHEEL_OUT), fill=darken(FIELD_COLOURS[fid], 0.25),
                  outline=(20, 21, 26), width=2)
    for i, fid in enumerate(FIELDS):
        # the side fields' names run across the wheel's radius: a little further out
        x, y = _polar(WHEEL_LABEL_R + (5 if i % 4 == 2 else 0), _angle(i))
        c.text((x, y), FIELD_LABELS.get(fid, FIELD_NAMES[fid]), 10.5, fill=TEXT, bold=True,
               anchor="mm", stroke=1.6, stroke_fill=darken(FIELD_COLOURS[fid], 0.6))
    c.circle(WHEEL_C, WHEEL_HUB, fill=(24, 26, 31), outline=BOX_LINE, width=1.5)


def _marker(c: Canvas, centre: Point, colour: RGB, initial: str, current: bool) -> None:
    c.stamp(("marker", colour, initial, current), centre, MARKER_R + 5,
            lambda cv, p: _draw_marker(cv, p, colour, initial, current))


def _draw_marker(c: Canvas, centre: Point, colour: RGB, initial: str, current: bool) -> None:
    x, y = centre
    if current:
        c.circle((x, y), MARKER_R + 3.5, fill=GOLD)
    c.circle((x + 0.5, y + 1), MARKER_R, fill=(0, 0, 0, 110))
    c.circle((x, y), MARKER_R, fill=colour, outline=(245, 242, 234), width=1.3)
    c.text((x, y + 0.5), initial, 10.5, fill=text_on(colour), bold=True, anchor="mm")


def _marker_slots(i: int, k: int) -> list[Point]:
    """Where ``k`` markers sit in field ``i``: up to three on an outer arc, then an inner."""
    a = _angle(i)
    out: list[Point] = []
    rows = [(77.0, 0.29), (54.0, 0.39)]
    for row in range(2):
        n = min(3, k - 3 * row)
        if n <= 0:
            break
        r, step = rows[row]
        for j in range(n):
            out.append(_polar(r, a + (j - (n - 1) / 2) * step))
    return out


def _arc(c: Canvas, start: int, end: int, colour: RGB) -> None:
    """A move on the wheel: an arrow outside it, clockwise from field ``start`` to ``end``
    (one cached sprite per move and colour)."""
    c.stamp(("arc", start, end, colour), WHEEL_C, ARC_R + 8,
            lambda cv, p: _draw_arc(cv, p, start, end, colour))


def _draw_arc(c: Canvas, centre: Point, start: int, end: int, colour: RGB) -> None:
    steps = (end - start) % 8 or 8
    a0, a1 = _angle(start), _angle(start) + steps * math.pi / 4
    n = max(4, steps * 8)
    pts = [(centre[0] + ARC_R * math.cos(a0 + (a1 - a0) * k / n),
            centre[1] + ARC_R * math.sin(a0 + (a1 - a0) * k / n)) for k in range(n + 1)]
    path_arrow(c, trim_path(pts, 4, 2), colour, 3, head=ARROW_HEAD, spread=ARROW_SPREAD,
               outline=3, whole=True)  # one mask: the same arc every time


def _draw_wheel(c: Canvas, view: Mapping[str, Any], nations: list[_NationView],
                turn: _Turn, current: str | None) -> None:
    taken = _field(view.get("field"))
    if taken is not None and current is not None:
        i = FIELDS.index(taken)
        c.polygon(_wedge(i, WHEEL_IN, WHEEL_OUT), outline=GOLD, width=3)
    if turn.goes:  # the last move on the wheel (the markers show where the others went)
        nid, src, dst = turn.goes[-1]
        colour = lighten(_nation_colour(nid), 0.2)
        if src is None:
            c.circle(_polar(ARC_R, _angle(FIELDS.index(dst))), 4, fill=colour)
        else:
            _arc(c, FIELDS.index(src), FIELDS.index(dst), colour)
    by_field: dict[str, list[_NationView]] = {}
    for n in nations:
        fid = _field(n.raw.get("wheel"))
        if fid is not None:
            by_field.setdefault(fid, []).append(n)
    for fid, here in by_field.items():
        slots = _marker_slots(FIELDS.index(fid), len(here))
        for n, slot in zip(here, slots, strict=False):
            _marker(c, slot, n.colour, n.initial, n.id == current)
    if current is not None:
        colour = _nation_colour(current)
        c.circle(WHEEL_C, WHEEL_HUB - 6, fill=colour, outline=GOLD, width=2)
        c.text((WHEEL_C[0], WHEEL_C[1] + 0.5), _nation_name(current)[:1].upper(), 22,
               fill=text_on(colour), bold=True, anchor="mm")
    x0, y0 = WHEEL_BOX[0] + 8, WHEEL_BOX[1] + 12
    c.text((x0, y0), "WHEEL", 10.5, fill=MUTED, bold=True, anchor="lm")
    c.text((WHEEL_BOX[2] - 8, y0), "1-3 free", 10.5, fill=MUTED, anchor="rm")
    c.text((WHEEL_BOX[2] - 8, WHEEL_BOX[3] - 12), "+1 res./step", 10.5, fill=MUTED,
           anchor="rm")

