"""The Antiquity action wheel: its eight fields clockwise from the top (their wedges drawn
once, with the backdrop), every nation's marker with its initial on its field, the nation
to act ringed in gold, its move this turn as an arc outside the wheel, and over them all
each field's name (what ``go <field>`` takes) at the phone minimum.

Each field's name sits as far out in its wedge as it fits; the markers take the rest of the
wedge, never a name's place: in rows of three, two and one below the name (a field at the
top, the bottom or a diagonal), or in two rows either side of it (the fields at the sides,
whose names run along the wedge). Where they go is worked out once (:func:`_layout`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from render.antiquity.events import _Turn
from render.antiquity.layout import (
    ARC_R,
    ARROW_HEAD,
    ARROW_SPREAD,
    FIELD_COLOURS,
    FIELD_LINES,
    FIELD_NAME,
    FIELD_NAME_STROKE,
    FIELD_NAMES,
    FIELDS,
    MARKER_R,
    MARKER_STEP,
    MAX_NATIONS,
    WHEEL_BOX,
    WHEEL_C,
    WHEEL_HUB,
    WHEEL_IN,
    WHEEL_OUT,
)
from render.antiquity.view import _field, _nation_colour, _nation_name, _NationView
from render.common import (
    BOX_LINE,
    GOLD,
    MUTED,
    RGB,
    TEXT,
    Box,
    Canvas,
    Point,
    TextLog,
    content_key,
    darken,
    font,
    lighten,
    path_arrow,
    text_on,
    trim_path,
)

#: Between the two lines of a field's name (centre to centre).
LINE_STEP = FIELD_NAME + 1
#: A name keeps this far inside its wedge and the wheel's rim.
NAME_MARGIN = 3.0
#: A name beside the level axis keeps this far from it (from the name across it).
AXIS_GAP = 5.0
#: A marker (its gold ring too, on the nation to act) keeps this far from a name's ink.
NAME_CLEARANCE = 4.5
#: The wheel is turned so that no field sits square at the top: every field's name then
#: lies along one of the wheel's two axes, where a wedge is widest for a line of text.
TURN = -112.5
#: The most markers in a row.
ROW = 3
ROW_STEP = 2 * MARKER_R + 3  # rows clear of each other however they are centred


def _angle(i: int) -> float:
    """The middle of wheel field ``i`` (radians clockwise from the right; field 0, Marble,
    is just left of the top)."""
    return math.radians(TURN + i * 45)


def _polar(r: float, a: float) -> Point:
    return WHEEL_C[0] + r * math.cos(a), WHEEL_C[1] + r * math.sin(a)


def _wedge(i: int, r0: float, r1: float) -> list[Point]:
    a0, a1 = _angle(i) - math.pi / 8, _angle(i) + math.pi / 8
    steps = 12
    outer = [_polar(r1, a0 + (a1 - a0) * k / steps) for k in range(steps + 1)]
    inner = [_polar(r0, a1 - (a1 - a0) * k / steps) for k in range(steps + 1)]
    return outer + inner


def _wheel(c: Canvas) -> None:
    """The wheel's fields, their names and the hub: static, drawn once with the backdrop
    (the markers never cover a name: see :func:`_layout`; :func:`_record_names` tells
    the TextLog where the names are)."""
    for i, fid in enumerate(FIELDS):
        c.polygon(_wedge(i, WHEEL_IN, WHEEL_OUT), fill=darken(FIELD_COLOURS[fid], 0.25),
                  outline=(20, 21, 26), width=2)
    c.circle(WHEEL_C, WHEEL_HUB, fill=(24, 26, 31), outline=BOX_LINE, width=1.5)
    for i, fid in enumerate(FIELDS):
        stroke = darken(FIELD_COLOURS[fid], 0.6)
        for centre, text in _layout(i).lines:
            # (its role is recorded with where it is, by _record_names)
            c.text(centre, text, FIELD_NAME, fill=TEXT, bold=True, anchor="mm",
                   stroke=FIELD_NAME_STROKE, stroke_fill=stroke)


def _record_names() -> None:
    """The fields' names, drawn with the backdrop, recorded in the active TextLog (if any)
    where they are, as drawn now: before the markers, the arc and the highlight, which
    must leave them clear."""
    log = TextLog.active
    if log is None:
        return
    for i in range(len(FIELDS)):
        field = _layout(i)
        for (_, text), box in zip(field.lines, field.boxes, strict=True):
            log.add_text("place", text, FIELD_NAME, box)


# --- where names and markers go ---------------------------------------------------------


@dataclass(frozen=True)
class _Field:
    """A field's name (each line's centre and text, and its ink as the TextLog records
    it) and, for 1 to :data:`MAX_NATIONS` markers, where each goes."""

    lines: tuple[tuple[Point, str], ...]
    boxes: tuple[Box, ...]
    slots: tuple[tuple[Point, ...], ...]  # slots[k - 1]: k markers


@lru_cache(maxsize=2 * len(FIELDS))
def _ink_offsets(text: str) -> tuple[int, int, int, int]:
    box = font(round(FIELD_NAME), True).getbbox(text, anchor="mm",
                                                 stroke_width=round(FIELD_NAME_STROKE))
    return int(box[0]), int(box[1]), int(box[2]), int(box[3])


def _ink(text: str, centre: Point) -> Box:
    """The box :meth:`Canvas.text` records for a line of a name centred on ``centre``."""
    left, top, right, bottom = _ink_offsets(text)
    x, y = round(centre[0]), round(centre[1])
    return (x + left, y + top, x + right, y + bottom)


def _edge_distance(i: int, p: Point) -> float:
    """How far ``p`` is inside wedge ``i`` (from the nearer of its two edges; < 0 outside)."""
    x, y = p[0] - WHEEL_C[0], p[1] - WHEEL_C[1]
    a0, a1 = _angle(i) - math.pi / 8, _angle(i) + math.pi / 8
    return min(math.cos(a0) * y - math.sin(a0) * x, math.sin(a1) * x - math.cos(a1) * y)


def _box_distance(p: Point, box: Box) -> float:
    dx = max(box[0] - p[0], 0.0, p[0] - box[2])
    dy = max(box[1] - p[1], 0.0, p[1] - box[3])
    return math.hypot(dx, dy)


def _name_fits(i: int, boxes: Sequence[Box]) -> bool:
    for b in boxes:
        for p in ((b[0], b[1]), (b[2], b[1]), (b[0], b[3]), (b[2], b[3])):
            r = math.dist(p, WHEEL_C)
            if r > WHEEL_OUT - NAME_MARGIN or r < WHEEL_IN + NAME_MARGIN:
                return False
            if _edge_distance(i, p) < NAME_MARGIN:
                return False
    return True


def _name_at(i: int, centre: Point) -> tuple[tuple[tuple[Point, str], ...], tuple[Box, ...]]:
    texts = FIELD_LINES.get(FIELDS[i], (FIELD_NAMES[FIELDS[i]],))
    x, y = centre
    lines = tuple(((round(x), round(y + (j - (len(texts) - 1) / 2) * LINE_STEP)), t)
                  for j, t in enumerate(texts))
    return lines, tuple(_ink(t, p) for p, t in lines)


def _slot_fits(i: int, p: Point, boxes: Sequence[Box]) -> bool:
    r = math.dist(p, WHEEL_C)
    return (r - MARKER_R >= WHEEL_IN + 1 and r + MARKER_R <= WHEEL_OUT - 4
            and _edge_distance(i, p) >= MARKER_R + 1
            and all(_box_distance(p, b) >= MARKER_R + NAME_CLEARANCE for b in boxes))


def _place_name(i: int) -> tuple[tuple[tuple[Point, str], ...], tuple[Box, ...]]:
    """Field ``i``'s name as far out as it fits: on the field's middle in a field beside the
    upright axis (short names), along the level axis in one beside that (long names),
    moved off it only as far as the hub asks."""
    a = _angle(i)
    if abs(math.cos(a)) < abs(math.sin(a)):  # beside the upright axis: on the middle
        starts: list[Point] = [WHEEL_C]
        out = (math.cos(a), math.sin(a))
    else:  # beside the level axis: along it, further off only if it must
        side = 1 if math.sin(a) > 0 else -1
        starts = [(WHEEL_C[0], WHEEL_C[1] + side * s) for s in range(round(WHEEL_OUT))]
        out = (1.0 if math.cos(a) > 0 else -1.0, 0.0)
    for x0, y0 in starts:
        for t in range(round(WHEEL_OUT) * 2, 0, -1):
            lines, boxes = _name_at(i, (x0 + t / 2 * out[0], y0 + t / 2 * out[1]))
            if _name_fits(i, boxes) and all(
                    min(abs(b[1] - WHEEL_C[1]), abs(b[3] - WHEEL_C[1])) >= AXIS_GAP
                    for b in boxes):
                return lines, boxes
    raise AssertionError(f"field {i}'s name does not fit")


def _rows(i: int, boxes: Sequence[Box]) -> list[tuple[float, float, float]]:
    """Rows of markers across the field (y, and the first and last x a marker's centre may
    take), from the name toward the rest of the wedge."""
    top, bottom = min(b[1] for b in boxes), max(b[3] for b in boxes)
    mid = _polar((WHEEL_IN + WHEEL_OUT) / 2, _angle(i))
    down = mid[1] > (top + bottom) / 2
    y = bottom + MARKER_R + NAME_CLEARANCE if down else top - MARKER_R - NAME_CLEARANCE
    out = []
    while abs(y - WHEEL_C[1]) < WHEEL_OUT:
        xs = [WHEEL_C[0] + k / 2 for k in range(-2 * round(WHEEL_OUT), 2 * round(WHEEL_OUT))
              if _slot_fits(i, (WHEEL_C[0] + k / 2, y), boxes)]
        if xs:
            out.append((y, min(xs), max(xs)))
        elif out:
            break
        y += ROW_STEP if down else -ROW_STEP
    return out


def _fill(rows: Sequence[tuple[float, float, float]], k: int) -> list[Point]:
    """``k`` markers in ``rows``: each row as full as it holds (at most :data:`ROW`), centred
    in it."""
    out: list[Point] = []
    left = k
    for y, x0, x1 in rows:
        n = min(left, ROW, int((x1 - x0) // MARKER_STEP) + 1)
        mid = (x0 + x1) / 2
        out += [(mid + (j - (n - 1) / 2) * MARKER_STEP, y) for j in range(n)]
        left -= n
        if not left:
            break
    return out


@lru_cache(maxsize=len(FIELDS))
def _layout(i: int) -> _Field:
    """Field ``i``'s name as far out as it fits, and its markers' slots in rows in the rest
    of its wedge."""
    lines, boxes = _place_name(i)
    rows = _rows(i, boxes)
    slots = tuple(tuple(_fill(rows, k)) for k in range(1, MAX_NATIONS + 1))
    for k, ps in enumerate(slots, 1):
        assert len(ps) == k and all(_slot_fits(i, p, boxes) for p in ps), (i, k)
    return _Field(lines, boxes, slots)


def _marker_slots(i: int, k: int) -> list[Point]:
    """Where ``k`` markers sit in field ``i`` (at most :data:`MAX_NATIONS`), clear of its
    name."""
    if k <= 0:
        return []
    return list(_layout(i).slots[min(k, MAX_NATIONS) - 1])


# --- drawing -------------------------------------------------------------------------------


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


def _arc_points(start: int, end: int, centre: Point) -> list[Point]:
    steps = (end - start) % 8 or 8
    a0, a1 = _angle(start), _angle(start) + steps * math.pi / 4
    n = max(4, steps * 8)
    return [(centre[0] + ARC_R * math.cos(a0 + (a1 - a0) * k / n),
             centre[1] + ARC_R * math.sin(a0 + (a1 - a0) * k / n)) for k in range(n + 1)]


def _arc(c: Canvas, start: int, end: int, colour: RGB) -> None:
    """A move on the wheel: an arrow outside it, clockwise from field ``start`` to ``end``,
    drawn in place: its shapes' masks are cached by geometry, whatever the colour (a
    sprite per move and colour cost a 4x drawing of the whole arc for each new one)."""
    _draw_arc(c, WHEEL_C, start, end, colour)


def _draw_arc(c: Canvas, centre: Point, start: int, end: int, colour: RGB) -> None:
    pts = _arc_points(start, end, centre)
    path_arrow(c, trim_path(pts, 4, 2), colour, 3, head=ARROW_HEAD, spread=ARROW_SPREAD,
               outline=3, whole=True)  # one mask: the same arc every time


def _draw_wheel(c: Canvas, view: Mapping[str, Any], nations: list[_NationView],
                turn: _Turn, current: str | None) -> None:
    """The wheel's markers, the last move on it and the nation to play: drawn once per look,
    then pasted (see :meth:`Canvas.reuse`)."""
    _record_names()  # (drawn with the backdrop)
    key = ("antiquity wheel", content_key(view.get("field")), current, tuple(turn.goes[-1:]),
           tuple((n.id, n.colour, n.initial, content_key(n.raw.get("wheel")))
                 for n in nations))
    c.reuse(key, WHEEL_BOX, lambda: _wheel_marks(c, view, nations, turn, current))


def _wheel_marks(c: Canvas, view: Mapping[str, Any], nations: list[_NationView],
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
        c.text((WHEEL_C[0], WHEEL_C[1] + 0.5), _nation_name(current)[:1].upper(), 24,
               fill=text_on(colour), bold=True, anchor="mm")
    x0, y0 = WHEEL_BOX[0] + 8, WHEEL_BOX[1] + 12
    c.text((x0, y0), "WHEEL", 10.5, fill=MUTED, bold=True, anchor="lm")
    c.text((WHEEL_BOX[2] - 8, y0), "1-3 free", 10.5, fill=MUTED, anchor="rm")
    c.text((WHEEL_BOX[2] - 8, WHEEL_BOX[3] - 12), "+1 res./step", 10.5, fill=MUTED,
           anchor="rm")
