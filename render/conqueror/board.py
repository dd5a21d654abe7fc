"""The Conqueror board's drawing: the cached tiles and backdrop, keeps, forts, crossed
swords, and what a turn did (arrows per move with their order, recruits, forts built or
razed, or without events the view's last move)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from render.common import (
    ACCENT,
    BACKGROUND,
    DANGER,
    MUTED,
    RGB,
    Canvas,
    Colour,
    DrawingCache,
    Players,
    Point,
    arrow,
    as_int,
    darken,
    dashed_rect,
    essential_size,
    lighten,
    mapping,
    tower_icon,
    with_alpha,
)
from render.conqueror.events import _Move
from render.conqueror.layout import (
    BOARD_SIZE,
    BOARD_X,
    BOARD_Y,
    CELL,
    FILES,
    FRAME,
    HEIGHT,
    QGAP,
    RANKS,
    SCALE,
    TILE,
    TILE_COLOURS,
    TOKEN_R,
    WIDTH,
    _sq,
    _tile_box,
    _token_centre,
)


@lru_cache(maxsize=16)
def _tile(resource: str) -> Image.Image:
    """The background of one square (rounded, on the frame's colour, final size), cached."""
    fill = TILE_COLOURS.get(resource, TILE_COLOURS["blank"])
    c = Canvas(TILE, TILE, fill, scale=SCALE)
    if resource == "hidden":
        # fog: fine diagonal hatching and a faint question mark
        step = 9
        for k in range(-TILE, TILE, step):
            c.line([(k, TILE), (k + TILE, 0)], fill=lighten(fill, 0.06), width=2)
        c.text((TILE / 2, TILE / 2 + 1), "?", 40, fill=lighten(fill, 0.14), bold=True,
               anchor="mm")
    else:
        # lit from the top: a light upper edge and a darker lower one
        c.rect((0, 0, TILE, 4), fill=with_alpha(lighten(fill, 0.5), 50))
        c.rect((0, TILE - 5, TILE, TILE), fill=with_alpha(darken(fill, 0.5), 60))
        if resource == "blank":
            for px, py in ((22, 70), (70, 26), (76, 76), (30, 30)):
                c.line([(px - 4, py), (px - 1, py - 6)], fill=darken(fill, 0.18), width=2)
                c.line([(px + 1, py), (px + 1, py - 7)], fill=darken(fill, 0.18), width=2)
                c.line([(px + 5, py), (px + 3, py - 5)], fill=darken(fill, 0.18), width=2)
        elif resource == "base":
            mortar = darken(fill, 0.2)
            for row in range(0, TILE, 14):
                c.line([(0, row), (TILE, row)], fill=mortar, width=1.5)
                off = 0 if (row // 14) % 2 == 0 else 14
                for col in range(off, TILE, 28):
                    c.line([(col, row), (col, row + 14)], fill=mortar, width=1.5)
    c.rect((0, 0, TILE, TILE), outline=with_alpha(lighten(fill, 0.3), 70), width=1.5,
           radius=9)
    img = c.image.convert("RGBA")
    mask = Image.new("L", img.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, img.size[0] - 1, img.size[1] - 1),
                                           radius=9 * SCALE, fill=255)
    img.putalpha(mask)
    # composed onto the board's frame (what is under every square): pasted opaque, fast
    tile = Image.new("RGB", (TILE, TILE), FRAME)
    small = img.reduce(SCALE)
    tile.paste(small, (0, 0), small)
    return tile


_BACKDROPS = DrawingCache(2)


def _backdrop() -> Image.Image:
    """Background, board frame, coordinates and all 36 hidden tiles, cached (RGB); the
    coordinates (essential text) are recorded anew each time it is used."""
    return _BACKDROPS.get("backdrop", _draw_backdrop)


def _draw_backdrop() -> Image.Image:
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=SCALE, record=True)
    pad = 9
    c.rect((BOARD_X - pad, BOARD_Y - pad, BOARD_X + BOARD_SIZE + pad,
            BOARD_Y + BOARD_SIZE + pad), fill=FRAME, radius=14)
    c.rect((BOARD_X - pad, BOARD_Y - pad, BOARD_X + BOARD_SIZE + pad,
            BOARD_Y + BOARD_SIZE + pad), outline=(58, 62, 72), width=1.5, radius=14)
    _coordinates(c)
    return c.finish()


def _coordinates(c: Canvas) -> None:
    """The files and ranks around the board: the squares' names a move uses."""
    size = max(18.0, essential_size(WIDTH))
    pad = 9
    for i, f in enumerate(FILES):
        x = BOARD_X + i * CELL + (QGAP if i >= 3 else 0) + CELL / 2
        c.text((x, BOARD_Y + BOARD_SIZE + pad + 13), f, size, fill=MUTED, bold=True,
               anchor="mm", role="place")
    for i, r in enumerate(RANKS):
        row = 5 - i
        y = BOARD_Y + row * CELL + (QGAP if row >= 3 else 0) + CELL / 2
        c.text((BOARD_X - pad - 16, y), r, size, fill=MUTED, bold=True, anchor="mm",
               role="place")


# --- pieces on the board -------------------------------------------------------------


def _keep(c: Canvas, box: tuple[float, float, float, float], colour: Colour,
          ruined: bool = False) -> None:
    """A castle keep filling ``box``: two towers, a crenellated wall and a gate."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    tw = w * 0.3
    m = h * 0.14  # merlon height
    wall = y0 + h * 0.3
    outline = darken(colour, 0.55)
    pts: list[Point] = [(x0, y1), (x0, y0)]
    pts += [(x0 + tw / 3, y0), (x0 + tw / 3, y0 + m), (x0 + 2 * tw / 3, y0 + m),
            (x0 + 2 * tw / 3, y0), (x0 + tw, y0), (x0 + tw, wall)]
    seg = (w - 2 * tw) / 5
    for i in range(5):
        sx = x0 + tw + i * seg
        top = wall if i % 2 == 0 else wall - m
        if i % 2:
            pts += [(sx, wall - m), (sx + seg, wall - m), (sx + seg, wall)]
        else:
            pts += [(sx, top), (sx + seg, top)]
    if ruined:  # the right tower broken off in jagged steps
        pts += [(x1 - tw, wall - m * 0.2), (x1 - tw * 0.7, wall + m * 0.9),
                (x1 - tw * 0.45, wall + m * 0.2), (x1 - tw * 0.2, wall + m * 1.6),
                (x1, wall + m * 1.1)]
    else:
        pts += [(x1 - tw, y0), (x1 - 2 * tw / 3, y0), (x1 - 2 * tw / 3, y0 + m),
                (x1 - tw / 3, y0 + m), (x1 - tw / 3, y0), (x1, y0)]
    pts.append((x1, y1))
    c.polygon([(x + 2, y + 3) for x, y in pts], fill=(0, 0, 0, 90))
    c.polygon(pts, fill=colour, outline=outline, width=2)
    # shading on the left tower, windows, gate
    c.rect((x0 + 1.5, y0 + m + 1, x0 + tw * 0.32, y1 - 1.5),
           fill=with_alpha(lighten(colour, 0.6), 70))
    for tx in (x0 + tw / 2, x1 - tw / 2):
        if ruined and tx > x0 + w / 2:
            continue
        c.rect((tx - w * 0.025, y0 + h * 0.32, tx + w * 0.025, y0 + h * 0.5), fill=outline)
    gw = w * 0.24
    gx = x0 + w / 2
    gate_top = y1 - h * 0.42
    c.rect((gx - gw / 2, gate_top + gw / 2, gx + gw / 2, y1), fill=outline)
    c.ellipse((gx - gw / 2, gate_top, gx + gw / 2, gate_top + gw), fill=outline)
    if ruined:
        for rx, ry, rr in ((x1 - tw * 0.3, y1 - 3, 4), (x1 + 3, y1 - 2, 3),
                           (x1 - tw * 0.75, y1 - 2, 3)):
            c.circle((rx, ry), rr, fill=lighten(colour, 0.15), outline=outline, width=1)


def _palisade(c: Canvas, box: tuple[float, float, float, float], colour: Colour) -> None:
    """A fort: a stake wall just inside the square's edge."""
    x0, y0, x1, y1 = box
    inset = 4
    dark = darken(colour, 0.5)
    c.rect((x0 + inset, y0 + inset, x1 - inset, y1 - inset), outline=dark, width=7, radius=8)
    c.rect((x0 + inset + 0.5, y0 + inset + 0.5, x1 - inset - 0.5, y1 - inset - 0.5),
           outline=colour, width=5, radius=8)
    # stake tips along the top edge
    n = 7
    span = (x1 - x0 - 2 * inset - 12)
    for i in range(n):
        sx = x0 + inset + 6 + span * (i + 0.5) / n
        c.polygon([(sx - 3.5, y0 + inset + 1), (sx, y0 + inset - 5), (sx + 3.5, y0 + inset + 1)],
                  fill=colour, outline=dark, width=1)


def _fort_badge(c: Canvas, box: tuple[float, float, float, float], colour: Colour) -> None:
    _, y0, x1, _ = box
    centre = (x1 - 16, y0 + 17)
    c.circle(centre, 13, fill=(20, 21, 26, 235), outline=colour, width=2)
    tower_icon(c, (centre[0], centre[1] + 1), 7, colour)


def _swords(c: Canvas, centre: Point, r: float) -> None:
    """Crossed swords on a red disc: a battle."""
    x, y = centre
    c.circle((x + 1, y + 2), r + 1, fill=(0, 0, 0, 120))
    c.circle((x, y), r, fill=DANGER, outline=(255, 240, 236), width=2)
    k = r * 0.8
    steel, grip = (250, 250, 252), (236, 188, 96)
    for ux, uy in ((-0.7071, -0.7071), (0.7071, -0.7071)):  # tips to upper left / right
        px, py = -uy, ux  # across the blade
        tip = (x + ux * k, y + uy * k)
        guard = (x - ux * k * 0.45, y - uy * k * 0.45)
        pommel = (x - ux * k * 0.85, y - uy * k * 0.85)
        bw = r * 0.11
        shoulder = (tip[0] - ux * bw * 2.5, tip[1] - uy * bw * 2.5)
        c.polygon([(guard[0] + px * bw, guard[1] + py * bw),
                   (shoulder[0] + px * bw, shoulder[1] + py * bw), tip,
                   (shoulder[0] - px * bw, shoulder[1] - py * bw),
                   (guard[0] - px * bw, guard[1] - py * bw)], fill=steel)
        c.line([guard, pommel], fill=grip, width=r * 0.15)
        gw = r * 0.26
        c.line([(guard[0] + px * gw, guard[1] + py * gw),
                (guard[0] - px * gw, guard[1] - py * gw)], fill=steel, width=r * 0.13)
        c.circle(pommel, r * 0.09, fill=steel)


# --- what this turn did, on the board ----------------------------------------------------

#: Arrows sharing two squares are drawn this far apart (centre to centre).
ARROW_SPACING = 22.0


def _move_arrows(c: Canvas, moves: list[_Move], board: Mapping[str, Mapping[str, Any]],
                 players: Players) -> list[tuple[list[Point], RGB, int]]:
    """An arrow per move in the mover's colour; returns where each order badge may go
    (the best spot first, see :func:`place_badges`).

    Arrows between the same two squares (either way) are spread side by side, so a stack
    moved there and back, or twice, shows two arrows."""
    pairs: dict[tuple[str, str], int] = {}
    for m in moves:
        key = (min(m.src, m.dst), max(m.src, m.dst))
        pairs[key] = pairs.get(key, 0) + 1
    seen: dict[tuple[str, str], int] = {}
    badges: list[tuple[list[Point], RGB, int]] = []
    for number, m in enumerate(moves, 1):
        key = (min(m.src, m.dst), max(m.src, m.dst))
        k = seen.get(key, 0)
        seen[key] = k + 1
        a = _token_centre(key[0], str(board.get(key[0], {}).get("resource")))
        b = _token_centre(key[1], str(board.get(key[1], {}).get("resource")))
        if a is None or b is None:
            continue
        dx, dy = b[0] - a[0], b[1] - a[1]
        d = max(1.0, (dx * dx + dy * dy) ** 0.5)
        ux, uy = dx / d, dy / d
        shift = (k - (pairs[key] - 1) / 2) * ARROW_SPACING  # across the shared line
        ox, oy = -uy * shift, ux * shift
        if m.src != key[0]:
            a, b = b, a
            ux, uy = -ux, -uy
        a = (a[0] + ox, a[1] + oy)
        b = (b[0] + ox, b[1] + oy)
        start_gap = TOKEN_R - 8 if as_int(board.get(m.src, {}).get("soldiers")) else 10
        end_gap = TOKEN_R + 3 if as_int(board.get(m.dst, {}).get("soldiers")) else 16
        if d <= start_gap + end_gap + 12:
            continue
        start = (a[0] + ux * start_gap, a[1] + uy * start_gap)
        end = (b[0] - ux * end_gap, b[1] - uy * end_gap)
        colour = players.colour(m.player)
        width = 6.5 if pairs[key] > 1 else 7.5
        arrow(c, start, end, lighten(colour, 0.12), width)
        head = min(20.0, (d - start_gap - end_gap) * 0.6)
        shaft = d - start_gap - end_gap - head
        along = 0.45 if pairs[key] == 1 else 0.2 + 0.6 * k / (pairs[key] - 1)
        spots = [(start[0] + ux * shaft * t, start[1] + uy * shaft * t)
                 for t in (along, *(t for t in BADGE_ALONG if t != along))]
        # last, beside the arrow rather than on it
        spots += [(x - uy * side, y + ux * side) for side in (16, -16, 30, -30)
                  for x, y in spots[:5]]
        badges.append((spots, colour, number))
    return badges


#: Where else along its arrow an order badge may go when its spot is taken.
BADGE_ALONG = (0.45, 0.3, 0.6, 0.2, 0.7, 0.1, 0.8)


def badge_radius(number: int) -> float:
    return 10.5 if number < 10 else 12.5


def place_badges(badges: list[tuple[list[Point], RGB, int]],
                 taken: list[tuple[float, float, float, float]]) -> list[tuple[Point, RGB, int]]:
    """Each order badge at the first spot along its arrow that covers no other badge and
    none of the ``taken`` boxes (recruit tags), else where it covers least."""
    placed: list[tuple[Point, RGB, int]] = []
    boxes = list(taken)
    for spots, colour, number in badges:
        r = badge_radius(number) + 2
        best, least = spots[0], math.inf
        xs, ys = [p[0] for p in spots], [p[1] for p in spots]
        near = [o for o in boxes if o[0] < max(xs) + r and min(xs) - r < o[2]
                and o[1] < max(ys) + r and min(ys) - r < o[3]]  # what some spot could cover
        for x, y in spots:
            box = (x - r, y - r, x + r, y + r)
            covered = sum(max(0.0, min(box[2], o[2]) - max(box[0], o[0]))
                          * max(0.0, min(box[3], o[3]) - max(box[1], o[1])) for o in near)
            if covered < least:
                best, least = (x, y), covered
            if not covered:
                break
        boxes.append((best[0] - r, best[1] - r, best[0] + r, best[1] + r))
        placed.append((best, colour, number))
    return placed


def _order_badge(c: Canvas, centre: Point, colour: RGB, number: int) -> None:
    """A small numbered disc on an arrow: the order of the turn's moves."""
    label = str(number) if number < 100 else "…"
    r = badge_radius(number)
    c.circle((centre[0] + 0.8, centre[1] + 1.2), r + 1, fill=(0, 0, 0, 120))
    c.circle(centre, r, fill=(24, 25, 30), outline=lighten(colour, 0.15), width=2.2)
    c.text((centre[0], centre[1] + 0.5), label, 13, fill=(250, 248, 240), bold=True,
           anchor="mm")


def recruit_tag_width(c: Canvas, count: int) -> float:
    return c.text_width(f"+{count}", 16, bold=True) + 14


def recruit_tag_box(c: Canvas, box: tuple[float, float, float, float],
                    count: int) -> tuple[float, float, float, float]:
    return (box[0] + 3, box[1] + 4, box[0] + 3 + recruit_tag_width(c, count), box[1] + 28)


def _recruit_tag(c: Canvas, box: tuple[float, float, float, float], count: int,
                 colour: RGB) -> None:
    """"+N" on a base's top-left corner: soldiers recruited this turn."""
    x0, y0 = box[0], box[1]
    label = f"+{count}"
    w = recruit_tag_width(c, count)
    c.rect((x0 + 3, y0 + 4, x0 + 3 + w, y0 + 28), fill=(20, 21, 26, 235),
           outline=lighten(colour, 0.2), width=2, radius=12)
    c.text((x0 + 3 + w / 2, y0 + 16.5), label, 16, fill=(250, 248, 240), bold=True,
           anchor="mm")


def _fort_change(c: Canvas, box: tuple[float, float, float, float], built: bool,
                 colour: RGB) -> None:
    """A dashed frame: gold round a fort built this turn, grey with a struck-out tower
    where one was razed or captured."""
    x0, y0, x1, y1 = box
    frame = (x0 - 1, y0 - 1, x1 + 1, y1 + 1)
    dashed_rect(c, frame, (12, 12, 16, 200), 5, dash=11, gap=7)
    dashed_rect(c, frame, ACCENT if built else (206, 206, 212), 3, dash=11, gap=7)
    if not built:
        centre = (x1 - 16, y0 + 17)
        c.circle(centre, 13, fill=(20, 21, 26, 235), outline=(150, 150, 156), width=2)
        tower_icon(c, (centre[0], centre[1] + 1), 7, darken(colour, 0.2))
        c.line([(centre[0] - 9, centre[1] + 9), (centre[0] + 9, centre[1] - 9)], fill=DANGER,
               width=3, round_caps=True)


def _last_move_marks(c: Canvas, view: Mapping[str, Any], board: Mapping[str, Mapping[str, Any]],
                     battles: set[str]) -> None:
    """Without events: the view's last move, as a gold arrow and frames."""
    last = mapping(view.get("last_move"))
    src, dst = _sq(last.get("from")), _sq(last.get("to"))
    src_box = _tile_box(src) if src is not None else None
    dst_box = _tile_box(dst) if dst is not None else None
    if src_box is not None and src != dst:
        sx0, sy0, sx1, sy1 = src_box
        c.rect((sx0 + 1, sy0 + 1, sx1 - 1, sy1 - 1), outline=with_alpha(ACCENT, 150), width=2,
               radius=9)
    if dst_box is not None and dst not in battles:
        c.rect((dst_box[0] - 2, dst_box[1] - 2, dst_box[2] + 2, dst_box[3] + 2),
               outline=ACCENT, width=4, radius=11)
    if src is not None and dst is not None and src != dst:
        a = _token_centre(src, str(board.get(src, {}).get("resource")))
        b = _token_centre(dst, str(board.get(dst, {}).get("resource")))
        if a is not None and b is not None:
            dx, dy = b[0] - a[0], b[1] - a[1]
            d = max(1.0, (dx * dx + dy * dy) ** 0.5)
            start_gap = TOKEN_R - 6 if as_int(board.get(src, {}).get("soldiers")) else 0
            end_gap = TOKEN_R + 3 if as_int(board.get(dst, {}).get("soldiers")) else 12
            if d > start_gap + end_gap + 12:
                start = (a[0] + dx / d * start_gap, a[1] + dy / d * start_gap)
                end = (b[0] - dx / d * end_gap, b[1] - dy / d * end_gap)
                arrow(c, start, end, ACCENT)
