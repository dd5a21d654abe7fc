"""Liège's cached pictures: a piece on its counter, a General, a blast's overlay (RGBA, one
cell square), and the static backdrop: the board's frame and squares, home edges and
highlighted squares, coordinates and the key under the board."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from PIL import Image

from render.common import (
    ACCENT,
    BACKGROUND,
    DANGER,
    MUTED,
    NEUTRAL,
    RGB,
    Canvas,
    DrawingCache,
    arrow,
    burst,
    darken,
    dashed_rect,
    essential_size,
    lighten,
    mix,
    star_points,
    with_alpha,
)
from render.liege.icons import (
    COUNTER_ICONS,
    _counter,
    _facing_tab,
    av_icon,
    general_icon,
    mg_icon,
    mortar_icon,
    rifle_icon,
    trench_icon,
)
from render.liege.layout import (
    BOARD_PX,
    BOARD_X,
    BOARD_Y,
    DEFENDER,
    FACINGS,
    FRAME,
    FRAME_PAD,
    GROUND,
    HEIGHT,
    ICON,
    KEY_Y,
    RANGE,
    SCALE,
    WIDTH,
    _Board,
    _counter_box,
)
from render.liege.marks import _lost_mark, _sparkle, _swords


@lru_cache(maxsize=160)
def _piece_sprite(kind: str, colour: RGB, cell: int, facing: str | None,
                  general: RGB | None) -> Image.Image:
    """One piece on a transparent cell: a counter with its icon, or a trench."""
    c = Canvas(cell, cell, (0, 0, 0, 0), scale=SCALE, mode="RGBA")
    cx = cy = cell / 2
    if kind == "trench":
        m = cell * 0.07
        trench_icon(c, (m, m + cell * 0.04, cell - m, cell - m - cell * 0.02))
        if general is not None:
            general_icon(c, (cx, cy + cell * 0.03), cell * 0.23, general)
        return c.finish()
    box = _counter_box(cell)
    _counter(c, box, colour)
    outline = darken(colour, 0.62)
    icon = COUNTER_ICONS.get(kind)
    r = cell * 0.32
    flip = facing == "w"
    if kind == "rifle":
        rifle_icon(c, (cx, cy), r * 0.98, ICON, outline, flip)
    elif kind == "mg":
        mg_icon(c, (cx, cy), r * 0.92, ICON, outline, flip)
    elif kind == "mortar":
        mortar_icon(c, (cx, cy), r * 0.95, ICON, outline, flip)
    elif kind == "av":
        av_icon(c, (cx, cy + cell * 0.03), r * 0.98, ICON, outline, flip,
                track=darken(colour, 0.7))
    elif icon is None:  # an unknown piece: a question mark
        c.text((cx, cy), "?", cell * 0.4, fill=ICON, bold=True, anchor="mm")
    if facing in FACINGS and kind in ("mg", "mortar"):
        _facing_tab(c, box, facing, colour, cell * 0.1 - 1)
    if general is not None and kind == "av":  # the General rides in the vehicle
        gr = cell * 0.2
        general_icon(c, (box[2] - gr * 0.55, box[1] + gr * 0.55), gr, general, shadow=False)
    return c.finish()


@lru_cache(maxsize=16)
def _general_sprite(colour: RGB, cell: int) -> Image.Image:
    c = Canvas(cell, cell, (0, 0, 0, 0), scale=SCALE, mode="RGBA")
    general_icon(c, (cell / 2, cell / 2), cell * 0.38, colour)
    return c.finish()


_BACKDROPS = DrawingCache(4)


def _backdrop(size: int, homes: tuple[tuple[str, RGB, tuple[str, ...]], ...]) -> Image.Image:
    """Background, frame, squares, coordinates, home edges, highlighted squares and the key
    (RGB, final size), cached; the coordinates (essential text) are recorded anew each
    time it is used."""
    return _BACKDROPS.get((size, homes), lambda: _draw_backdrop(size, homes))


def _draw_backdrop(size: int,
                   homes: tuple[tuple[str, RGB, tuple[str, ...]], ...]) -> Image.Image:
    board = _Board(size)
    n, cell = board.n, board.cell
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=SCALE, record=True)
    pad = FRAME_PAD
    outer = (BOARD_X - pad, BOARD_Y - pad, BOARD_X + BOARD_PX + pad, BOARD_Y + BOARD_PX + pad)
    c.rect(outer, fill=FRAME, radius=12)
    c.rect(outer, outline=(58, 62, 72), width=1.5, radius=12)
    # home edges: a coloured bar in the frame beside each one
    for side, colour, _ in homes:
        bar = {"south": (BOARD_X, BOARD_Y + BOARD_PX + 3, BOARD_X + BOARD_PX,
                         BOARD_Y + BOARD_PX + pad - 2),
               "north": (BOARD_X, BOARD_Y - pad + 2, BOARD_X + BOARD_PX, BOARD_Y - 3),
               "west": (BOARD_X - pad + 2, BOARD_Y, BOARD_X - 3, BOARD_Y + BOARD_PX),
               "east": (BOARD_X + BOARD_PX + 3, BOARD_Y, BOARD_X + BOARD_PX + pad - 2,
                        BOARD_Y + BOARD_PX)}.get(side)
        if bar is not None:
            c.rect(bar, fill=colour, radius=2.5)
    for fi in range(n):
        for ri in range(n):
            x0, y0, x1, y1 = board.box_at(fi, ri)
            c.rect((x0, y0, x1, y1), fill=GROUND[(fi + ri) % 2])
    tints: dict[tuple[int, int], list[tuple[str, RGB]]] = {}
    for side, colour, _ in homes:
        for sq in board.home(side):
            tints.setdefault(sq, []).append((side, colour))
    for (fi, ri), owners in tints.items():
        box = board.box_at(fi, ri)
        if len(owners) == 1:
            c.rect(box, fill=with_alpha(owners[0][1], 62))
            continue
        # a corner shared by two home edges: split along the diagonal through their corner
        x0, y0, x1, y1 = box
        edges = {"south": ((x0, y1), (x1, y1)), "north": ((x0, y0), (x1, y0)),
                 "west": ((x0, y0), (x0, y1)), "east": ((x1, y0), (x1, y1))}
        (s1, c1), (s2, c2) = owners[:2]
        e1, e2 = edges[s1], edges[s2]
        shared = next((p for p in e1 if p in e2), None)
        if shared is None:  # opposite edges (only on odd seatings): share the square
            c.rect(box, fill=with_alpha(mix(c1, c2, 0.5), 62))
            continue
        far = (x0 + x1 - shared[0], y0 + y1 - shared[1])
        c.polygon([e1[0], e1[1], far], fill=with_alpha(c1, 62))
        c.polygon([e2[0], e2[1], far], fill=with_alpha(c2, 62))
    for _, colour, highlights in homes:
        for name in highlights:
            b = board.box(name)
            if b is None:
                continue
            x0, y0, x1, y1 = b
            c.rect(b, fill=with_alpha(colour, 70))
            c.polygon(star_points(((x0 + x1) / 2, (y0 + y1) / 2), cell * 0.3, cell * 0.13),
                      fill=with_alpha(lighten(colour, 0.3), 90))
            arm, m, w = cell * 0.26, cell * 0.07, max(2.0, cell * 0.045)
            light = lighten(colour, 0.35)
            for cx, cy, sx, sy in ((x0 + m, y0 + m, 1, 1), (x1 - m, y0 + m, -1, 1),
                                   (x0 + m, y1 - m, 1, -1), (x1 - m, y1 - m, -1, -1)):
                c.line([(cx + sx * arm, cy), (cx, cy), (cx, cy + sy * arm)], fill=light,
                       width=w)
    # the grid
    for i in range(n + 1):
        x = BOARD_X + i * cell
        y = BOARD_Y + i * cell
        c.line([(x, BOARD_Y), (x, BOARD_Y + BOARD_PX)], fill=(44, 44, 38), width=1)
        c.line([(BOARD_X, y), (BOARD_X + BOARD_PX, y)], fill=(44, 44, 38), width=1)
    _coordinates(c, board)
    _key_strip(c, KEY_Y)
    return c.finish()


def _coordinates(c: Canvas, board: _Board) -> None:
    """The files and ranks around the board: the squares' names a move uses, at the phone
    size like all essential text."""
    size = essential_size(WIDTH)
    pad = FRAME_PAD
    for fi, f in enumerate(board.files):
        x = BOARD_X + (fi + 0.5) * board.cell
        c.text((x, BOARD_Y + BOARD_PX + pad + 13), f, size, fill=MUTED, bold=True,
               anchor="mm", role="place")
    for ri in range(board.n):
        y = BOARD_Y + (board.n - 1 - ri + 0.5) * board.cell
        c.text((BOARD_X - pad - 15, y), str(ri + 1), size, fill=MUTED, bold=True, anchor="mm",
               role="place")


def _key_strip(c: Canvas, y: float) -> None:
    """A one-line key to the board's marks, under the board (centred on ``y``)."""
    s = 9  # half an icon

    def general(x: float) -> None:
        general_icon(c, (x + s, y), s, NEUTRAL, shadow=False)

    def damaged(x: float) -> None:
        burst(c, (x + s, y), s + 1)

    def new(x: float) -> None:
        c.rect((x, y - s, x + 2 * s, y + s), fill=NEUTRAL, radius=4)
        dashed_rect(c, (x, y - s, x + 2 * s, y + s), ACCENT, 2, 4, 2.5)
        _sparkle(c, (x + s, y), 6.5)

    def fought(x: float) -> None:
        _swords(c, (x + s, y), s, (52, 54, 62), (220, 220, 226))

    def attackers(x: float) -> None:
        c.rect((x, y - s, x + 2 * s, y + s), outline=DANGER, width=3)

    def defenders(x: float) -> None:
        dashed_rect(c, (x + 1, y - s + 1, x + 2 * s - 1, y + s - 1), DEFENDER, 2.5, 5, 3)

    def in_range(x: float) -> None:
        c.rect((x, y - s, x + 2 * s, y + s), fill=mix(GROUND[0], RANGE, 0.3),
               outline=RANGE, width=2)

    def moved(x: float) -> None:
        c.rect((x, y - s, x + 2 * s, y + s), outline=ACCENT, width=2.5)
        arrow(c, (x + 2, y + s - 3), (x + 2 * s - 2, y - s + 3), ACCENT, width=2.2, head=7)

    def lost(x: float) -> None:
        c.rect((x, y - s, x + 2 * s, y + s), fill=GROUND[0], radius=3)
        _lost_mark(c, (x, y - s, x + 2 * s, y + s))

    items: list[tuple[Callable[[float], None], str]] = [
        (general, "General"), (damaged, "Damaged"), (new, "Placed"), (moved, "Moved"),
        (attackers, "Attackers"), (defenders, "Defenders"), (fought, "Fought"),
        (lost, "Lost"), (in_range, "Range")]
    x0, x1 = BOARD_X - FRAME_PAD, BOARD_X + BOARD_PX + FRAME_PAD
    size = 13.5
    while True:  # as big as fits on one line
        widths = [2 * s + 5 + c.text_width(label, size) for _, label in items]
        if size <= 10 or sum(widths) + 8 * (len(items) - 1) <= x1 - x0:
            break
        size -= 0.5
    gap = (x1 - x0 - sum(widths)) / (len(items) - 1)
    x: float = x0
    for (draw, label), w in zip(items, widths, strict=True):
        draw(x)
        c.text((x + 2 * s + 5, y), label, size, fill=MUTED, anchor="lm")
        x += w + gap

