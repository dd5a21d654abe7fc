"""Battlecards icons and card backs: a tank, an aircraft, a warship and a star for the forces,
and face-down cards (an arsenal card in its side's colours, or a conflict card) as cached
sprites, stacked in piles or fanned like a hand."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from PIL import Image

from render.battlecards.layout import CONFLICT_BACK, CONFLICT_MARK, OTHER, SCALE, STYLES, Style
from render.common import Box, Canvas, Colour, Point, dashed_rect, lighten, star_points, with_alpha


def tank_icon(c: Canvas, centre: Point, r: float, fill: Colour) -> None:
    """A tank in profile, gun to the right (Ground)."""
    x, y = centre
    c.rect((x - r, y + r * 0.08, x + r, y + r * 0.62), fill=fill, radius=r * 0.27)
    c.polygon([(x - r * 0.86, y + r * 0.14), (x - r * 0.68, y - r * 0.2),
               (x + r * 0.72, y - r * 0.2), (x + r * 0.9, y + r * 0.14)], fill=fill)
    c.rect((x - r * 0.42, y - r * 0.58, x + r * 0.3, y - r * 0.12), fill=fill, radius=r * 0.12)
    c.line([(x + r * 0.2, y - r * 0.38), (x + r * 1.05, y - r * 0.42)], fill=fill,
           width=max(1.0, r * 0.16))


def plane_icon(c: Canvas, centre: Point, r: float, fill: Colour) -> None:
    """An aircraft seen from above, nose up (Air)."""
    x, y = centre
    c.ellipse((x - r * 0.15, y - r * 0.98, x + r * 0.15, y + r * 0.9), fill=fill)
    c.polygon([(x - r * 0.14, y - r * 0.34), (x + r * 0.14, y - r * 0.34),
               (x + r * 1.02, y + r * 0.02), (x + r * 1.02, y + r * 0.24),
               (x - r * 1.02, y + r * 0.24), (x - r * 1.02, y + r * 0.02)], fill=fill)
    c.polygon([(x - r * 0.08, y + r * 0.58), (x + r * 0.08, y + r * 0.58),
               (x + r * 0.46, y + r * 0.78), (x + r * 0.46, y + r * 0.92),
               (x - r * 0.46, y + r * 0.92), (x - r * 0.46, y + r * 0.78)], fill=fill)


def ship_icon(c: Canvas, centre: Point, r: float, fill: Colour) -> None:
    """A warship in profile (Sea)."""
    x, y = centre
    c.polygon([(x - r * 1.04, y + r * 0.1), (x + r * 1.04, y + r * 0.1),
               (x + r * 0.78, y + r * 0.56), (x - r * 0.82, y + r * 0.56)], fill=fill)
    c.rect((x - r * 0.5, y - r * 0.22, x + r * 0.34, y + r * 0.12), fill=fill)
    c.rect((x - r * 0.26, y - r * 0.56, x + r * 0.06, y - r * 0.2), fill=fill)
    c.rect((x + r * 0.12, y - r * 0.46, x + r * 0.3, y - r * 0.2), fill=fill)
    c.line([(x - r * 0.1, y - r * 0.56), (x - r * 0.1, y - r * 0.9)], fill=fill,
           width=max(1.0, r * 0.09))
    for gx, d in ((x - r * 0.62, -1), (x + r * 0.52, 1)):
        c.line([(gx, y - r * 0.02), (gx + d * r * 0.38, y - r * 0.12)], fill=fill,
               width=max(1.0, r * 0.11))


def leader_icon(c: Canvas, centre: Point, r: float, fill: Colour) -> None:
    """A star (a Leader or General)."""
    c.polygon(star_points(centre, r * 1.02, r * 0.42), fill=fill)


FORCE_ICONS: dict[str, Callable[[Canvas, Point, float, Colour], None]] = {
    "ground": tank_icon, "air": plane_icon, "sea": ship_icon, "leader": leader_icon}


def force_icon(c: Canvas, kind: Any, centre: Point, r: float, fill: Colour) -> None:
    draw = FORCE_ICONS.get(kind) if isinstance(kind, str) else None
    if draw is None:
        c.text(centre, "?", r * 1.6, fill=fill, bold=True, anchor="mm")
    else:
        draw(c, centre, r, fill)


# --- card backs (cached sprites) ----------------------------------------------------------


def _hatch(c: Canvas, box: Box, step: float, colour: Colour, width: float) -> None:
    """Diagonal lines (rising to the right) filling ``box``."""
    x0, y0, x1, y1 = box
    s = x0 + y0 + step / 2
    while s < x1 + y1:
        xa, xb = max(x0, s - y1), min(x1, s - y0)
        if xb > xa:
            c.line([(xa, s - xa), (xb, s - xb)], fill=colour, width=width)
        s += step


def _draw_back(c: Canvas, box: Box, style: Style | None) -> None:
    """A card back: an arsenal card of ``style``'s side, or a conflict card (None)."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    rad = w * 0.1
    if style is None:
        fill, edge, line, ring, core = (CONFLICT_BACK, (40, 30, 18), lighten(CONFLICT_BACK, 0.08),
                                        CONFLICT_MARK, (60, 46, 28))
    else:
        fill, edge, line = style.back, style.back_edge, style.back_line
        ring, core = style.back_ring, style.back_core
    c.rect(box, fill=edge, radius=rad)
    inner = (x0 + w * 0.07, y0 + w * 0.07, x1 - w * 0.07, y1 - w * 0.07)
    c.rect(inner, fill=fill, radius=rad * 0.6)
    _hatch(c, (inner[0] + 2, inner[1] + 2, inner[2] - 2, inner[3] - 2), w * 0.16, line,
           max(1.0, w * 0.05))
    c.rect(inner, outline=with_alpha(ring, 170), width=max(1.0, w * 0.025), radius=rad * 0.6)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if style is None:  # a compass star
        c.circle((cx, cy), w * 0.27, fill=core, outline=ring, width=max(1.0, w * 0.035))
        c.polygon(star_points((cx, cy), w * 0.24, w * 0.07, 4), fill=ring)
    else:  # a roundel in the side's colours
        c.circle((cx, cy), w * 0.25, fill=edge)
        c.circle((cx, cy), w * 0.2, fill=ring)
        c.circle((cx, cy), w * 0.13, fill=core)
        c.polygon([(cx, cy - w * 0.07), (cx + w * 0.07, cy), (cx, cy + w * 0.07),
                   (cx - w * 0.07, cy)], fill=ring)


@lru_cache(maxsize=128)
def _back_sprite(side: str, w: int, h: int, angle: int = 0) -> Image.Image:
    """A card back with a soft shadow, rotated ``angle`` degrees clockwise (RGBA, final size).

    ``side`` is a style key, or "conflict" for the conflict deck's back."""
    pad = 3
    c = Canvas(w + 2 * pad, h + 2 * pad, (0, 0, 0, 0), scale=SCALE, mode="RGBA")
    c.rect((pad + 1, pad + 2, pad + w + 1, pad + h + 2), fill=(0, 0, 0, 90), radius=w * 0.1)
    _draw_back(c, (pad, pad, pad + w, pad + h), None if side == "conflict" else
               STYLES.get(side, OTHER))
    if angle:  # turned at drawing scale, then reduced: smooth edges
        return c.image.rotate(-angle, resample=Image.Resampling.BICUBIC,
                              expand=True).reduce(SCALE)
    return c.finish()


def _paste_centred(c: Canvas, image: Image.Image, centre: Point) -> None:
    c.paste(image, (centre[0] - image.width / 2, centre[1] - image.height / 2))


def _pile(c: Canvas, box: Box, count: int, side: str) -> None:
    """A face-down pile of ``count`` cards in ``box`` (its top card; at most five layers,
    leaning up and right); an empty slot if none. Its count is drawn beside it."""
    x0, y0, x1, y1 = box
    w, h = round(x1 - x0), round(y1 - y0)
    if count <= 0:
        dashed_rect(c, (x0 + 2, y0 + 2, x1 - 2, y1 - 2), (120, 122, 130, 150), 1.5, 6, 4)
        return
    layers = min(count, 5)
    sprite = _back_sprite(side, w, h)
    step = 2.5
    for i in range(layers - 1, -1, -1):
        c.paste(sprite, (x0 - 3 + i * step, y0 - 3 - i * step))


def _fan(c: Canvas, centre: Point, w: int, h: int, count: int, side: str, most: int = 7,
         span: float = 28.0) -> None:
    """``count`` face-down cards fanned like a hand: at most ``most`` drawn, the outer two
    ``span`` degrees apart."""
    cx, cy = centre
    if count <= 0:
        dashed_rect(c, (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), (120, 122, 130, 150),
                    1.5, 6, 4)
        return
    n = min(count, most)
    spread = min(9.0, span / (n - 1)) if n > 1 else 0.0
    pivot = cy + h * 1.6
    radius = h * 1.6
    for i in range(n):
        angle = (i - (n - 1) / 2) * spread
        a = math.radians(angle)
        centre_i = (cx + radius * math.sin(a), pivot - radius * math.cos(a))
        _paste_centred(c, _back_sprite(side, w, h, round(angle)), centre_i)

