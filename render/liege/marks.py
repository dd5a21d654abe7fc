"""The marks drawn on the Liège board each render: under the pieces (blast areas, trails),
over them (where moves ended, fights, purchases, losses, shots, Generals falling back)."""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image

from render.common import (
    ACCENT,
    DANGER,
    Canvas,
    Colour,
    Point,
    arrow,
    dashed_rect,
    lighten,
    star_points,
    with_alpha,
)
from render.liege.events import _Marks
from render.liege.icons import WEAPON_ICONS
from render.liege.layout import BLAST_COLOURS, DEFENDER, SCALE, _Board, _counter_box


@lru_cache(maxsize=8)
def _blast_sprite(kind: str, cell: int) -> Image.Image:
    """A translucent, hatched overlay for one square of a blast."""
    colour = BLAST_COLOURS.get(kind, BLAST_COLOURS["missile"])
    c = Canvas(cell, cell, with_alpha(colour, 70), scale=SCALE, mode="RGBA")
    line = with_alpha(lighten(colour, 0.15), 190)
    step = cell / 6
    if kind == "gas":  # drifting dots
        for i in range(7):
            for j in range(7):
                ox = (j % 2) * step / 2
                c.circle((i * step + ox, j * step), cell * 0.035, fill=line)
    else:
        k = -float(cell)
        while k < cell:
            c.line([(k, cell), (k + cell, 0)], fill=line, width=max(1.5, cell * 0.03))
            if kind == "missile":  # cross-hatched
                c.line([(k, 0), (k + cell, cell)], fill=line, width=max(1.5, cell * 0.03))
            k += step
    c.rect((0, 0, cell, cell), outline=with_alpha(colour, 230), width=2)
    return c.finish()


def _swords(c: Canvas, centre: Point, r: float, fill: Colour, steel: Colour) -> None:
    """Two crossed swords on a disc (a fight)."""
    x, y = centre
    c.circle((x, y), r, fill=fill, outline=steel, width=max(1.0, r * 0.12))
    k = r * 0.62
    for sx in (-1, 1):
        c.line([(x - sx * k, y + k), (x + sx * k, y - k)], fill=steel, width=max(1.0, r * 0.2))
        gx, gy = x - sx * k * 0.45, y + k * 0.45
        c.line([(gx - k * 0.3, gy - sx * sx * k * 0.3), (gx + k * 0.3, gy + k * 0.3)],
               fill=steel, width=max(1.0, r * 0.16))


def _sparkle(c: Canvas, centre: Point, r: float) -> None:
    """A small four-pointed sparkle (new this turn)."""
    c.polygon(star_points(centre, r * 1.25, r * 0.5, 4), fill=(20, 20, 24, 200))
    c.polygon(star_points(centre, r, r * 0.32, 4), fill=(255, 250, 214))


def _outline(c: Canvas, box: tuple[float, float, float, float], colour: Colour, width: float,
             inset: float = 0, dashed: bool = False) -> None:
    x0, y0, x1, y1 = box
    b = (x0 + inset, y0 + inset, x1 - inset, y1 - inset)
    if dashed:
        dashed_rect(c, b, (10, 10, 14, 200), width + 2.5, dash=9, gap=5)
        dashed_rect(c, b, colour, width, dash=9, gap=5)
    else:
        c.rect(b, outline=(10, 10, 14, 200), width=width + 2.5)
        c.rect((b[0] + 1.25, b[1] + 1.25, b[2] - 1.25, b[3] - 1.25), outline=colour, width=width)


def _toward(a: Point, b: Point, start_gap: float, end_gap: float) -> tuple[Point, Point] | None:
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy)
    if d < start_gap + end_gap + 8:
        return None
    return ((a[0] + dx / d * start_gap, a[1] + dy / d * start_gap),
            (b[0] - dx / d * end_gap, b[1] - dy / d * end_gap))


def _lost_mark(c: Canvas, box: tuple[float, float, float, float]) -> None:
    """A red cross where a piece was destroyed."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    k = w * 0.24
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    for sx in (-1, 1):
        line = [(cx - k, cy - sx * k), (cx + k, cy + sx * k)]
        c.line(line, fill=(12, 12, 16, 190), width=w * 0.13 + 3, round_caps=True)
        c.line(line, fill=DANGER, width=w * 0.13, round_caps=True)


def _draw_under(c: Canvas, marks: _Marks, board: _Board) -> None:
    """Marks under the pieces: blast areas and the trails moves left."""
    icell = round(board.cell)
    for blast in marks.blasts:
        for sq in blast.squares:
            b = board.box(sq)
            assert b is not None
            c.paste(_blast_sprite(blast.kind, icell), b[:2])
    for step in marks.steps:
        b = board.box(step.src) if step.src is not None else None
        if b is not None and step.src != step.dst:
            c.rect((b[0] + 3, b[1] + 3, b[2] - 3, b[3] - 3), fill=with_alpha(ACCENT, 30))
            c.rect((b[0] + 3, b[1] + 3, b[2] - 3, b[3] - 3), outline=with_alpha(ACCENT, 150),
                   width=2.5)


def _draw_over(c: Canvas, marks: _Marks, board: _Board, occupied: set[str],
               new: set[str]) -> None:
    """Marks over the pieces: where moves ended, fights, purchases, losses, targets."""
    cell = board.cell
    fight_ends = {(f.src, f.dst) for f in marks.fights}
    for step in marks.steps:
        b = board.box(step.dst)
        assert b is not None
        c.rect((b[0] + 1, b[1] + 1, b[2] - 1, b[3] - 1), outline=(10, 10, 14, 180), width=5)
        c.rect((b[0] + 1.5, b[1] + 1.5, b[2] - 1.5, b[3] - 1.5), outline=ACCENT, width=3)
    for sq in dict.fromkeys(marks.placed):
        b = board.box(sq)
        assert b is not None
        _outline(c, b, ACCENT, 2.5, inset=2.5, dashed=True)
        if sq in occupied and sq not in new:
            m = _counter_box(cell)[0]
            _sparkle(c, (b[0] + m + cell * 0.05, b[1] + m + cell * 0.05), cell * 0.12)
    for sq in dict.fromkeys(marks.lost):
        b = board.box(sq)
        assert b is not None
        if sq not in occupied:
            _lost_mark(c, b)
    for fight in marks.fights:
        for sq in fight.defenders:
            b = board.box(sq)
            assert b is not None
            _outline(c, b, DEFENDER, 2.5, inset=4, dashed=True)
        for sq in fight.attackers:
            b = board.box(sq)
            assert b is not None
            _outline(c, b, DANGER, 3.5, inset=3.5)
    for fight in marks.fights:
        a, t = board.centre(fight.src), board.centre(fight.dst)
        if a is not None and t is not None:
            seg = _toward(a, t, cell * 0.18, cell * 0.24)
            if seg is not None:
                arrow(c, seg[0], seg[1], DANGER, width=max(3.5, cell * 0.07), head=cell * 0.3)
        if t is not None:
            _swords(c, (t[0] + cell * 0.32, t[1] - cell * 0.32), cell * 0.15, DANGER,
                    (255, 244, 240))
    for step in marks.steps:
        if step.src is None or (step.src, step.dst) in fight_ends:
            continue
        a, t = board.centre(step.src), board.centre(step.dst)
        if a is not None and t is not None:
            seg = _toward(a, t, cell * 0.18, cell * 0.26)
            if seg is not None:
                arrow(c, seg[0], seg[1], ACCENT, width=max(3.0, cell * 0.06), head=cell * 0.28)
    for src, dst in marks.retreats:  # a General falling back after a lost fight
        a, t = board.centre(src), board.centre(dst)
        if a is not None and t is not None:
            seg = _toward(a, t, cell * 0.1, cell * 0.4)
            if seg is not None:
                (sx, sy), (ex, ey) = seg
                d = math.hypot(ex - sx, ey - sy)
                k = max(0.0, 1 - cell * 0.2 / d)
                neck = (sx + (ex - sx) * k, sy + (ey - sy) * k)
                width = max(2.0, cell * 0.045)
                _dashed_line(c, seg[0], neck, DEFENDER, width)
                arrow(c, neck, seg[1], DEFENDER, width=width, head=cell * 0.2)
    for blast in marks.blasts:
        t = board.centre(blast.target)
        if t is None:
            continue
        colour = BLAST_COLOURS[blast.kind]
        a = board.centre(blast.src)
        if a is not None:  # the shot: a thin dashed line from the firer
            seg = _toward(a, t, cell * 0.3, cell * 0.24)
            if seg is not None:
                _dashed_line(c, seg[0], seg[1], colour, max(2.0, cell * 0.035))
        if blast.target in occupied:  # a badge in the corner, clear of the piece
            b = board.box(blast.target)
            assert b is not None
            t = (b[0] + cell * 0.2, b[3] - cell * 0.2)
            r = cell * 0.17
        else:
            r = cell * 0.2
        c.circle(t, r, fill=(16, 16, 20, 220), outline=colour, width=2)
        WEAPON_ICONS[blast.kind](c, t, r * 0.75)


def _dashed_line(c: Canvas, a: Point, b: Point, colour: Colour, width: float) -> None:
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length <= 0:
        return
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    dash, gap = width * 3.2, width * 2.2
    pos = 0.0
    while pos < length:
        end = min(length, pos + dash)
        seg = [(a[0] + ux * pos, a[1] + uy * pos), (a[0] + ux * end, a[1] + uy * end)]
        c.line(seg, fill=(12, 12, 16, 200), width=width + 2.5, round_caps=True)
        c.line(seg, fill=colour, width=width, round_caps=True)
        pos = end + gap

