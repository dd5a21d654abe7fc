"""The Battlecards table: two placemats (German above, British below) and the battle between.

Drawn from the public part of the view dict only (``docs/games/battlecards-interface.md``).
The board image is posted to the channel, so the renderer never reads a player's ``hand``,
``kept`` or ``stack_cards`` (present only in that player's own view): it draws the reserve
hand, kept cards and deployed stacks as card backs with their counts, whoever the viewer.

Each placemat shows the player's name, side and state (turn, acts now, winner), victory
points toward the target as a bar, the three deployed stacks (Ground, Air, Sea), the
reserve hand and kept cards fanned, the arsenal deck and discard pile, and the
battlecards won. In the middle: the conflict deck and the face-up top of its discard
pile, the last shots with their Action Numbers, the battlecard in play (or the card being
resolved, or the outcome), and either the units revealed in the battle, face up with
their values, or the Battlecard List between battles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image

from render.common import (
    ACCENT,
    BACKGROUND,
    DANGER,
    FAINT,
    MUTED,
    PANEL,
    RGB,
    TEXT,
    Box,
    Canvas,
    Colour,
    Players,
    Point,
    Run,
    as_int,
    burst,
    clean_text,
    darken,
    dashed_rect,
    encode_png,
    lighten,
    pill,
    progress_bar,
    star_points,
    text_runs,
    with_alpha,
)

WIDTH, HEIGHT = 1100, 900
SCALE = 2
M = 14  # the outer margin

# Layout (final pixels).
STATUS_BOX: Box = (M, 52, WIDTH - M, 90)
MAT_H = 160
TOP_MAT_Y = 98
MID_Y0, MID_Y1 = TOP_MAT_Y + MAT_H + 10, HEIGHT - 16 - MAT_H - 10
BOTTOM_MAT_Y = MID_Y1 + 10
LEFT_X0, LEFT_X1 = M, 262  # the conflict deck and the last shots
RIGHT_X0, RIGHT_X1 = 274, WIDTH - M  # the battle
HEADER_H = 78  # the card in play
BAND_GAP = 8
BAND_H = (MID_Y1 - MID_Y0 - HEADER_H - 2 * BAND_GAP) / 2
CONFLICT_H = 150
BAND_TAB = 26  # the side's label along a band's left edge
#: The bands of revealed units: the top (German) player's, then the bottom one's.
BANDS: tuple[Box, Box] = (
    (RIGHT_X0, MID_Y0 + HEADER_H + BAND_GAP, RIGHT_X1, MID_Y0 + HEADER_H + BAND_GAP + BAND_H),
    (RIGHT_X0, MID_Y1 - BAND_H, RIGHT_X1, MID_Y1))

FORCES = ("ground", "air", "sea")
FORCE_NAMES = {"ground": "Ground", "air": "Air", "sea": "Sea", "leader": "Leader"}
PHASES = (("setup", "Setup"), ("draw", "Draw"), ("resolve", "Resolve"), ("decide", "Decide"),
          ("battle", "Battle"), ("withdraw", "Withdraw"))
FIRING_PHASES = (1, 2, 3, 4)
DEFAULT_TARGET = 38
MAX_SHOTS = 6  # rows of the last-shots list
PNG_BUDGET = 240_000  # bytes; a larger image is re-encoded in 256 colours
# Revealed units per detail level (0 full, 1 compact, 2 tiny): rows in a side's band and
# the narrowest and widest card.
CARD_ROWS = (1, 2, 3)
CARD_MIN_W = (106.0, 96.0, 70.0)
CARD_MAX_W = (150.0, 130.0, 110.0)

# Face-up cards: parchment with dark ink.
FACE: RGB = (238, 232, 216)
FACE_EDGE: RGB = (150, 140, 118)
INK: RGB = (36, 34, 30)
INK_MUTED: RGB = (112, 106, 94)
INK_FAINT: RGB = (176, 168, 150)
GOLD: RGB = (236, 176, 40)
HIT: RGB = (214, 58, 48)
MISS: RGB = (96, 100, 110)
CONFLICT_BACK: RGB = (92, 74, 48)
CONFLICT_MARK: RGB = (214, 178, 98)


@dataclass(frozen=True)
class Style:
    """A side's palette: the placemat, its card backs and its face-up card headers."""

    key: str
    label: str
    mat: RGB
    mat_edge: RGB
    stripe: tuple[RGB, RGB, RGB]  # the placemat's accent stripe (outer, middle, inner)
    back: RGB  # arsenal card backs
    back_edge: RGB
    back_line: RGB
    back_ring: RGB
    back_core: RGB
    head: RGB  # face-up unit card header
    head_line: RGB
    head_text: RGB
    bar: RGB  # victory points
    chip: RGB  # unit references
    chip_edge: RGB


GERMAN = Style(
    "german", "German", mat=(60, 64, 59), mat_edge=(92, 98, 90),
    stripe=((18, 18, 18), (232, 228, 220), (172, 34, 32)),
    back=(98, 104, 94), back_edge=(20, 20, 20), back_line=(112, 119, 108),
    back_ring=(232, 228, 220), back_core=(172, 34, 32),
    head=(74, 79, 71), head_line=(172, 34, 32), head_text=(240, 238, 232),
    bar=(206, 56, 46), chip=(80, 86, 78), chip_edge=(206, 60, 50))
BRITISH = Style(
    "british", "British", mat=(88, 80, 56), mat_edge=(128, 116, 84),
    stripe=((28, 40, 80), (214, 198, 150), (28, 40, 80)),
    back=(34, 50, 94), back_edge=(200, 184, 138), back_line=(44, 62, 110),
    back_ring=(200, 184, 138), back_core=(28, 40, 80),
    head=(34, 50, 94), head_line=(200, 184, 138), head_text=(244, 238, 220),
    bar=(96, 146, 226), chip=(38, 56, 104), chip_edge=(206, 190, 140))
OTHER = Style(
    "other", "", mat=(52, 55, 62), mat_edge=(80, 84, 94),
    stripe=((30, 30, 34), (150, 150, 150), (30, 30, 34)),
    back=(80, 82, 90), back_edge=(30, 30, 34), back_line=(92, 94, 102),
    back_ring=(170, 170, 176), back_core=(60, 62, 70),
    head=(80, 82, 90), head_line=(150, 150, 156), head_text=(240, 240, 240),
    bar=(160, 160, 166), chip=(80, 82, 90), chip_edge=(170, 170, 176))
STYLES = {"german": GERMAN, "british": BRITISH}


# --- view access (tolerant: a missing or odd field never crashes a render) ---------------


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _maps(value: Any, limit: int = 200) -> list[Mapping[str, Any]]:
    """The mappings in a list (at most ``limit``)."""
    if not isinstance(value, list):
        return []
    return [v for v in value[:limit] if isinstance(v, Mapping)]


def _count(value: Any) -> int:
    return max(0, as_int(value))


def _style(side: Any) -> Style:
    return STYLES.get(side, OTHER) if isinstance(side, str) else OTHER


def _forces(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for f in value[:6]:
        if f in FORCES and f not in out:
            out.append(f)
    return out


def _stat(value: Any) -> str:
    """A card value: the number, or "–" for N/A (anything that is not a number)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "–"
    return str(max(-99, min(99, value)))


def _ref(value: Any) -> str:
    return clean_text(value, limit=4).upper() or "?"


class _Table:
    """Who sits where: the German player's mat above, the British one below."""

    def __init__(self, view: Mapping[str, Any], names: Mapping[str, str] | None) -> None:
        self.players = Players(view, names)
        ps = self.players.players[:2]
        german = [p for p in ps if p.get("side") == "german"]
        others = [p for p in ps if p.get("side") != "german"]
        order = german + others
        self.top: Mapping[str, Any] | None = order[0] if order else None
        self.bottom: Mapping[str, Any] | None = order[1] if len(order) > 1 else None

    def style(self, pid: Any) -> Style:
        p = self.players.get(pid)
        return _style(p.get("side")) if p is not None else OTHER

    def name(self, pid: Any) -> str:
        return self.players.name(pid)


# --- icons ----------------------------------------------------------------------------------


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
    """A card back with a soft shadow, rotated ``angle`` degrees clockwise (RGBA, scaled).

    ``side`` is a style key, or "conflict" for the conflict deck's back."""
    pad = 3
    c = Canvas(w + 2 * pad, h + 2 * pad, (0, 0, 0, 0), scale=SCALE, mode="RGBA")
    c.rect((pad + 1, pad + 2, pad + w + 1, pad + h + 2), fill=(0, 0, 0, 90), radius=w * 0.1)
    _draw_back(c, (pad, pad, pad + w, pad + h), None if side == "conflict" else
               STYLES.get(side, OTHER))
    if angle:
        return c.image.rotate(-angle, resample=Image.Resampling.BICUBIC, expand=True)
    return c.image


def _paste_centred(c: Canvas, image: Image.Image, centre: Point) -> None:
    c.paste(image, (centre[0] - image.width / (2 * SCALE), centre[1] - image.height / (2 * SCALE)))


def _badge(c: Canvas, centre: Point, n: int, fill: Colour = (22, 22, 26),
           ring: Colour = TEXT, size: float = 15) -> None:
    """A round count badge."""
    label = str(n)
    r = max(size * 0.78, c.text_width(label, size, bold=True) / 2 + 5)
    x, y = centre
    c.rect((x - r, y - size * 0.78, x + r, y + size * 0.78), fill=fill, outline=ring, width=1.5,
           radius=size * 0.78)
    c.text((x, y + 0.5), label, size, fill=TEXT, bold=True, anchor="mm")


def _pile(c: Canvas, box: Box, count: int, side: str, badge: bool = True) -> None:
    """A face-down pile of ``count`` cards in ``box`` (its top card); an empty slot if none."""
    x0, y0, x1, y1 = box
    w, h = round(x1 - x0), round(y1 - y0)
    if count <= 0:
        dashed_rect(c, (x0 + 2, y0 + 2, x1 - 2, y1 - 2), (120, 122, 130, 150), 1.5, 6, 4)
        if badge:
            _badge(c, (x1 - 6, y1 - 8), 0, fill=(40, 42, 48), ring=FAINT)
        return
    layers = min(count, 5)
    sprite = _back_sprite(side, w, h)
    step = 2.5
    for i in range(layers - 1, -1, -1):
        c.paste(sprite, (x0 - 3 + i * step, y0 - 3 - i * step))
    if badge:
        _badge(c, (x1 - 6, y1 - 8), count)


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


# --- face-up cards -------------------------------------------------------------------------


def _phase_boxes(c: Canvas, x: float, y: float, size: float, fires: set[int], current: Any,
                 dim: bool, gap: float = 3) -> float:
    """Firing phases 1-4 as small boxes: filled where the unit fires, the current one gold."""
    for i, ph in enumerate(FIRING_PHASES):
        bx = x + i * (size + gap)
        box = (bx, y, bx + size, y + size)
        now = current == ph
        if ph in fires:
            fill: Colour = GOLD if now and not dim else (70, 68, 62)
            fg: Colour = INK if now and not dim else (245, 240, 228)
            c.rect(box, fill=fill, radius=size * 0.22)
        else:
            c.rect(box, fill=(226, 219, 200) if not dim else (150, 150, 150), radius=size * 0.22)
            fg = INK_FAINT if not dim else (120, 120, 120)
        if now and not dim:
            c.rect((bx - 2, y - 2, bx + size + 2, y + size + 2), outline=(200, 120, 0),
                   width=2, radius=size * 0.3)
        c.text((bx + size / 2, y + size / 2 + 0.5), str(ph), size * 0.68, fill=fg, bold=True,
               anchor="mm")
    return len(FIRING_PHASES) * (size + gap) - gap


def _unit_values(card: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    return _mapping(card.get("attack")), _mapping(card.get("defense"))


def _fires(card: Mapping[str, Any]) -> set[int]:
    raw = card.get("phases")
    if not isinstance(raw, list):
        return set()
    return {p for p in raw[:8] if as_int(p, -1) in FIRING_PHASES}


def _unit_card(c: Canvas, box: Box, unit: Mapping[str, Any], style: Style, phase: Any,
               level: int, shot: str | None) -> None:
    """A revealed unit, face up: level 0 full, 1 compact, 2 tiny.

    ``shot`` is "hit" or "miss" when a last shot targeted it."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    card = _mapping(unit.get("card"))
    status = unit.get("status")
    destroyed = status == "destroyed"
    withdrawn = status == "withdrawn"
    kind = card.get("type")
    kind = kind if kind in FORCE_ICONS else card.get("stack")
    face, ink, muted = (FACE, INK, INK_MUTED) if not destroyed else (
        (128, 128, 130), (62, 62, 66), (92, 92, 96))
    head = style.head if not destroyed else (86, 86, 90)
    head_text = style.head_text if not destroyed else (170, 170, 174)
    rad = 7 if level == 0 else 5
    hh = (24, 19, 15)[level]
    c.rect((x0 + 1.5, y0 + 2.5, x1 + 1.5, y1 + 2.5), fill=(0, 0, 0, 90), radius=rad)
    c.rect(box, fill=face, outline=FACE_EDGE if not destroyed else (90, 90, 94), width=1,
           radius=rad)
    c.rect((x0, y0, x1, y0 + hh), fill=head, radius=rad)
    c.rect((x0, y0 + hh - rad, x1, y0 + hh), fill=head)
    c.rect((x0, y0 + hh, x1, y0 + hh + 2), fill=style.head_line if not destroyed else (70, 70, 74))
    isz = (8.0, 6.5, 5.5)[level]
    force_icon(c, kind, (x0 + 6 + isz, y0 + hh / 2 + 0.5), isz, head_text)
    ref = _ref(unit.get("ref"))
    rsz = (14, 12, 11)[level]
    c.text((x1 - 7, y0 + hh / 2 + 0.5), ref, rsz, fill=head_text, bold=True, anchor="rm")
    fires = _fires(card)
    name = clean_text(card.get("name"), limit=60) or "Unit"
    attack, defense = _unit_values(card)
    bonus = as_int(unit.get("bonus"))
    support = _mapping(card.get("support"))
    pad = (8, 6, 5)[level]
    if level == 0:
        label = FORCE_NAMES.get(kind, "") if isinstance(kind, str) else ""
        left = x0 + 10 + 2 * isz
        room = x1 - 10 - c.text_width(ref, rsz, bold=True) - left
        if label and c.text_width(label.upper(), 9.5, bold=True) <= room:
            c.text((left, y0 + hh / 2 + 0.5), label.upper(), 9.5, fill=with_alpha(head_text, 190),
                   bold=True, anchor="lm")
        lines = c.wrap(name, 12.5, w - 2 * pad, 2, bold=True)
        for i, line in enumerate(lines):
            c.text((x0 + pad, y0 + hh + 15 + i * 15), line, 12.5, fill=ink, bold=True,
                   anchor="lm")
        py = y0 + hh + 41
        c.text((x0 + pad, py + 8), "PHASE", 8.5, fill=muted, bold=True, anchor="lm")
        _phase_boxes(c, x1 - pad - (4 * 16 + 9), py, 16, fires, phase, destroyed)
        ty = py + 26
        _stat_table(c, x0 + pad, x1 - pad, ty, attack, defense, (16, 17), ink, muted, 14,
                    destroyed)
        fy = y1 - 13
        if support:
            _support(c, x0 + pad, fy, support, ink, muted, 10.5)
        if bonus:
            pill(c, x1 - pad, fy - 9, f"+{bonus} ATK", GOLD if not destroyed else (110, 110, 110),
                 size=10.5, height=18, text=INK)
    elif level == 1:
        _phase_boxes(c, x1 - pad - c.text_width(ref, rsz, bold=True) - 4 * 11 - 12,
                     y0 + (hh - 10) / 2, 10, fires, phase, destroyed, gap=2)
        room = w - 2 * pad
        if bonus:
            room = pill(c, x1 - 3, y0 + hh + 4, f"+{bonus}", GOLD if not destroyed else
                        (110, 110, 110), size=9.5, height=14, text=INK) - x0 - pad - 3
        c.text((x0 + pad, y0 + hh + 11), c.fit(name, 10.5, room, bold=True), 10.5,
               fill=ink, bold=True, anchor="lm")
        _stat_table(c, x0 + pad, x1 - pad, y0 + hh + 22, attack, defense, (12, 12.5), ink, muted,
                    11.5, destroyed)
    else:
        if phase in fires and not destroyed:
            c.circle((x1 - 9 - c.text_width(ref, rsz, bold=True) - 5, y0 + hh / 2), 3.5,
                     fill=GOLD)
        room = w - 2 * pad
        if bonus:
            room = pill(c, x1 - 3, y0 + hh + 3, f"+{bonus}", GOLD if not destroyed else
                        (110, 110, 110), size=8.5, height=12, text=INK) - x0 - pad - 3
        c.text((x0 + pad, y0 + hh + 9.5), c.fit(name, 9.5, room, bold=True), 9.5,
               fill=ink, bold=True, anchor="lm")
        atk = "/".join(_stat(attack.get(f)) for f in FORCES)
        dfn = "/".join(_stat(defense.get(f)) for f in FORCES)
        sy = y0 + hh + 21.5
        c.text((x0 + pad, sy), atk, 9.5, fill=ink, bold=True, anchor="lm")
        dx = x0 + pad + c.text_width(atk, 9.5, bold=True) + 5
        c.text((dx, sy), c.fit(dfn, 9.5, x1 - pad - dx), 9.5, fill=muted, anchor="lm")
    if shot == "hit" and not destroyed:
        burst(c, (x1 - 4, y0 + hh + 6), (11, 9, 7)[level])
    if destroyed:
        k = 4.0 if level == 0 else 3.0
        c.line([(x0 + 6, y0 + 6), (x1 - 6, y1 - 6)], fill=with_alpha(DANGER, 230), width=k)
        c.line([(x1 - 6, y0 + 6), (x0 + 6, y1 - 6)], fill=with_alpha(DANGER, 230), width=k)
        _stamp(c, box, "DESTROYED", DANGER, level)
    elif withdrawn:
        c.rect(box, fill=with_alpha(BACKGROUND, 150), radius=rad)
        _stamp(c, box, "↩ WITHDRAWN", (86, 128, 186), level)


def _stamp(c: Canvas, box: Box, label: str, colour: RGB, level: int) -> None:
    x0, y0, x1, y1 = box
    size = (11.0, 9.5, 8.0)[level]
    while size > 6 and c.text_width(label, size, bold=True) + 12 > x1 - x0 - 4:
        size -= 0.5
    tw = c.text_width(label, size, bold=True) + 12
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2 + (8 if level == 0 else 4)
    hh = size + 8
    c.rect((cx - tw / 2, cy - hh / 2, cx + tw / 2, cy + hh / 2), fill=darken(colour, 0.35),
           outline=lighten(colour, 0.3), width=1.5, radius=4)
    c.text((cx, cy + 0.5), label, size, fill=(255, 246, 240), bold=True, anchor="mm")


def _stat_table(c: Canvas, x0: float, x1: float, y: float, attack: Mapping[str, Any],
                defense: Mapping[str, Any], rows: tuple[float, float], ink: Colour,
                muted: Colour, size: float, dim: bool) -> None:
    """Attack and defense against Ground / Air / Sea under three type icons."""
    label_w = size * 2.35
    colw = (x1 - x0 - label_w) / 3
    top_h, row_h = rows
    for i, f in enumerate(FORCES):
        cx = x0 + label_w + colw * (i + 0.5)
        force_icon(c, f, (cx, y + top_h / 2 - 1), size * 0.42, muted)
    for r, (label, values) in enumerate((("ATK", attack), ("DEF", defense))):
        yy = y + top_h + row_h * (r + 0.5)
        if r == 0:
            c.rect((x0 - 3, yy - row_h / 2 + 0.5, x1 + 3, yy + row_h / 2 - 0.5),
                   fill=(226, 218, 198) if not dim else (118, 118, 120), radius=3)
        c.text((x0, yy), label, size * 0.66, fill=muted, bold=True, anchor="lm")
        for i, f in enumerate(FORCES):
            cx = x0 + label_w + colw * (i + 0.5)
            text = _stat(values.get(f))
            c.text((cx, yy + 0.5), text, size, fill=ink if text != "–" else muted, bold=True,
                   anchor="mm")


def _support(c: Canvas, x: float, y: float, support: Mapping[str, Any], ink: Colour,
             muted: Colour, size: float) -> None:
    """"SUPPORT +1" and the icons of the forces it helps."""
    bonus = as_int(support.get("bonus"))
    c.text((x, y), "SUP", size * 0.85, fill=muted, bold=True, anchor="lm")
    x += c.text_width("SUP", size * 0.85, bold=True) + 4
    label = f"+{bonus}" if bonus >= 0 else str(bonus)
    c.text((x, y), label, size, fill=ink, bold=True, anchor="lm")
    x += c.text_width(label, size, bold=True) + 6
    for f in _forces(support.get("to"))[:3]:
        force_icon(c, f, (x + size * 0.5, y), size * 0.5, ink)
        x += size * 1.3


def _conflict_face(c: Canvas, box: Box, card: Mapping[str, Any]) -> None:
    """A face-up conflict card: its Action Number, name and kind."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    c.rect((x0 + 1.5, y0 + 2.5, x1 + 1.5, y1 + 2.5), fill=(0, 0, 0, 90), radius=7)
    c.rect(box, fill=FACE, outline=FACE_EDGE, width=1, radius=7)
    an = as_int(card.get("action_number"), 0)
    _action_number(c, (x0 + 17, y0 + 17), 12, an)
    kind = clean_text(card.get("kind"), limit=16).replace("_", " ").upper()
    if kind:
        c.text((x1 - 7, y0 + 17), c.fit(kind, 9, w - 44, bold=True), 9, fill=INK_MUTED,
               bold=True, anchor="rm")
    name = clean_text(card.get("name"), limit=60) or "?"
    lines = c.wrap(name, 12, w - 14, 3, bold=True)
    for i, line in enumerate(lines):
        c.text((x0 + 7, y0 + 42 + i * 15), line, 12, fill=INK, bold=True, anchor="lm")
    ty = y0 + 42 + len(lines) * 15
    text = clean_text(card.get("text"), limit=120)
    room = int((y1 - 6 - ty) // 11.5)
    if text and room > 0:
        for i, line in enumerate(c.wrap(text, 9.5, w - 14, room)):
            c.text((x0 + 7, ty + i * 11.5), line, 9.5, fill=INK_MUTED, anchor="lm")


def _action_number(c: Canvas, centre: Point, r: float, n: int, fill: Colour = INK,
                   fg: Colour = FACE) -> None:
    c.circle(centre, r, fill=fill)
    c.text((centre[0], centre[1] + 0.5), str(n) if n else "?", r * 1.15, fill=fg, bold=True,
           anchor="mm")


# --- the placemats -------------------------------------------------------------------------


def _state_pill(view: Mapping[str, Any], pid: Any, winners: set[str],
                over: bool) -> tuple[str, Colour, Colour] | None:
    if over:
        return ("WINNER", ACCENT, (30, 30, 34)) if pid in winners else None
    to_act = view.get("to_act")
    acting = isinstance(to_act, list) and pid in to_act
    turn = pid is not None and pid == view.get("turn")
    if acting:
        return ("ACTS NOW", ACCENT, (30, 30, 34))
    if turn:
        return ("TURN", (74, 78, 90), TEXT)
    return None


def _mat(c: Canvas, view: Mapping[str, Any], table: _Table, p: Mapping[str, Any] | None,
         y0: float, facing_down: bool, winners: set[str], over: bool) -> None:
    x0, x1 = M, WIDTH - M
    y1 = y0 + MAT_H
    if p is None:
        c.rect((x0, y0, x1, y1), fill=PANEL, radius=12)
        c.text(((x0 + x1) / 2, (y0 + y1) / 2), "Empty seat", 16, fill=FAINT, bold=True,
               anchor="mm")
        return
    pid = p.get("id")
    style = _style(p.get("side"))
    c.rect((x0, y0, x1, y1), fill=style.mat, outline=style.mat_edge, width=1.5, radius=12)
    # the accent stripe along the edge that faces the table's middle
    sy = y1 - 9 if facing_down else y0 + 3
    for i, colour in enumerate(style.stripe if facing_down else style.stripe[::-1]):
        c.rect((x0 + 18, sy + i * 2, x1 - 18, sy + i * 2 + 2), fill=colour)
    state = _state_pill(view, pid, winners, over)
    if state is not None and state[0] != "TURN":
        c.rect((x0, y0, x1, y1), outline=state[1], width=2.5, radius=12)

    # who: name, side, state, victory points, auto-fire
    ix0, ix1 = x0 + 16, x0 + 262
    ty = y0 + 30
    right: float = ix1
    if state is not None:
        right = pill(c, right, ty - 11, state[0], state[1], size=11.5, text=state[2]) - 5
    c.text((ix0, ty), c.fit(table.name(pid), 20, right - ix0 - 4, bold=True), 20, fill=TEXT,
           bold=True, anchor="lm")
    target = as_int(view.get("victory_target"), DEFAULT_TARGET)
    target = target if target > 0 else DEFAULT_TARGET
    vp = as_int(p.get("vp"))
    vy = y0 + 64
    c.text((ix0, vy), "VICTORY POINTS", 10.5, fill=lighten(style.mat, 0.55), bold=True,
           anchor="lm")
    c.text((ix1, vy + 1), f" / {target}", 13, fill=lighten(style.mat, 0.55), bold=True,
           anchor="rm")
    c.text((ix1 - c.text_width(f" / {target}", 13, bold=True), vy + 1), str(vp), 19, fill=TEXT,
           bold=True, anchor="rm")
    bar = vp_bar_box(y0)
    progress_bar(c, bar, vp / target, style.bar, darken(style.mat, 0.45), ticks=target // 5,
                 tick=with_alpha(lighten(style.mat, 0.12), 220))
    auto = p.get("autofire")
    won = len(_maps(p.get("battlecards_won")))
    info = f"{won} battle{'s' if won != 1 else ''} won"
    if isinstance(auto, bool):
        info += " · auto-fire " + ("on" if auto else "off")
    ix: float = ix0
    if style.label:
        ix = pill(c, ix0, y1 - 34, style.label.upper(), darken(style.mat, 0.35), size=10.5,
                  height=20, align="left", text=lighten(style.stripe[1], 0.1)) + 8
    c.text((ix, y1 - 24), c.fit(info, 12.5, ix1 - ix), 12.5, fill=lighten(style.mat, 0.6),
           anchor="lm")
    c.line([(ix1 + 13, y0 + 20), (ix1 + 13, y1 - 20)], fill=darken(style.mat, 0.3), width=1.5)

    label = lighten(style.mat, 0.55)
    top = y0 + 22
    # the three deployed stacks
    stacks = _mapping(p.get("stacks"))
    sx = ix1 + 30
    c.text((sx, top), "DEPLOYED", 10.5, fill=label, bold=True, anchor="lm")
    pw, ph = 58, 80
    for i, f in enumerate(FORCES):
        bx = sx + i * 76
        _pile(c, (bx, top + 18, bx + pw, top + 18 + ph), _count(stacks.get(f)), style.key)
        force_icon(c, f, (bx + 9, top + ph + 36), 7.5, TEXT)
        c.text((bx + 20, top + ph + 36), FORCE_NAMES[f], 12, fill=TEXT, bold=True, anchor="lm")
    # the reserve hand and kept cards, fanned
    hx = sx + 3 * 76 + 10
    c.text((hx, top), "RESERVE", 10.5, fill=label, bold=True, anchor="lm")
    hand = _count(p.get("hand_count"))
    _fan(c, (hx + 56, top + 62), 46, 64, hand, style.key)
    c.text((hx + 56, top + ph + 36), f"{hand} in hand", 12, fill=TEXT, bold=True, anchor="mm")
    kx = hx + 128
    c.text((kx, top), "KEPT", 10.5, fill=label, bold=True, anchor="lm")
    kept = _count(p.get("kept_count"))
    _fan(c, (kx + 40, top + 62), 46, 64, kept, "conflict", most=5, span=18.0)
    c.text((kx + 40, top + ph + 36), f"{kept} kept", 12, fill=TEXT, bold=True, anchor="mm")
    # the arsenal deck and its discard pile (destroyed units)
    ax = kx + 94
    c.text((ax, top), "ARSENAL", 10.5, fill=label, bold=True, anchor="lm")
    _pile(c, (ax + 2, top + 26, ax + 48, top + 90), _count(p.get("arsenal_count")), style.key)
    c.text((ax + 25, top + ph + 36), "Deck", 12, fill=TEXT, bold=True, anchor="mm")
    discard = len(_maps(p.get("discard"), 10_000)) if isinstance(p.get("discard"), list) else 0
    dx = ax + 64
    _discard_pile(c, (dx, top + 26, dx + 46, top + 90), discard)
    c.text((dx + 23, top + ph + 36), "Lost", 12, fill=TEXT, bold=True, anchor="mm")
    # battlecards won
    wx = dx + 66
    c.line([(wx - 10, y0 + 20), (wx - 10, y1 - 20)], fill=darken(style.mat, 0.3), width=1.5)
    _won_list(c, (wx, top, x1 - 14, y1 - 14), _maps(p.get("battlecards_won")), style, label)


def vp_bar_box(mat_y: float) -> Box:
    """The victory-point bar of the placemat whose top is at ``mat_y``."""
    return (M + 16, mat_y + 79, M + 262, mat_y + 99)


def _discard_pile(c: Canvas, box: Box, count: int) -> None:
    """The arsenal discard pile: face-up destroyed units, drawn as a grey stack."""
    x0, y0, x1, y1 = box
    if count <= 0:
        dashed_rect(c, (x0 + 2, y0 + 2, x1 - 2, y1 - 2), (120, 122, 130, 150), 1.5, 6, 4)
        _badge(c, (x1 - 6, y1 - 8), 0, fill=(40, 42, 48), ring=FAINT)
        return
    for i in range(min(count, 4) - 1, -1, -1):
        ox, oy = i * 2.5, -i * 2.5
        c.rect((x0 + ox, y0 + oy, x1 + ox, y1 + oy), fill=(150, 146, 136), outline=(80, 78, 72),
               width=1, radius=5)
    c.rect((x0 + 6, y0 + 8, x1 - 6, y0 + 20), fill=(112, 108, 100), radius=2)
    c.line([(x0 + 8, y0 + 28), (x1 - 8, y1 - 14)], fill=with_alpha(DANGER, 200), width=2.5)
    c.line([(x1 - 8, y0 + 28), (x0 + 8, y1 - 14)], fill=with_alpha(DANGER, 200), width=2.5)
    _badge(c, (x1 - 6, y1 - 8), count)


def _won_list(c: Canvas, box: Box, won: list[Mapping[str, Any]], style: Style,
              label: Colour) -> None:
    x0, y0, x1, y1 = box
    total = sum(max(0, as_int(b.get("vp"))) for b in won)
    c.text((x0, y0), "BATTLES WON", 10.5, fill=label, bold=True, anchor="lm")
    if won:
        c.text((x1, y0), f"{total} VP", 10.5, fill=label, bold=True, anchor="rm")
    if not won:
        c.text((x0, y0 + 30), "None yet", 12.5, fill=label, anchor="lm")
        return
    row_h = 21.0
    rows = int((y1 - y0 - 14) // row_h)
    shown = won if len(won) <= rows else won[: rows - 1]
    for i, b in enumerate(shown):
        ry = y0 + 14 + i * row_h
        c.rect((x0, ry, x1, ry + row_h - 3), fill=darken(style.mat, 0.3), radius=4)
        c.rect((x0, ry, x0 + 4, ry + row_h - 3), fill=_style(b.get("aggressor")).bar, radius=2)
        vp = f"{max(0, as_int(b.get('vp')))}"
        c.text((x1 - 6, ry + (row_h - 3) / 2 + 0.5), vp, 12, fill=GOLD, bold=True, anchor="rm")
        room = x1 - x0 - 20 - c.text_width(vp, 12, bold=True)
        name = clean_text(b.get("name"), limit=50) or "Battle"
        c.text((x0 + 10, ry + (row_h - 3) / 2 + 0.5), c.fit(name, 11.5, room), 11.5, fill=TEXT,
               anchor="lm")
    if len(shown) < len(won):
        ry = y0 + 14 + len(shown) * row_h
        c.text((x0 + 10, ry + 8), f"+{len(won) - len(shown)} more", 11.5, fill=label, bold=True,
               anchor="lm")


# --- the middle of the table ----------------------------------------------------------------


def _conflict_panel(c: Canvas, view: Mapping[str, Any], y0: float) -> float:
    x0, x1 = LEFT_X0, LEFT_X1
    y1 = y0 + CONFLICT_H
    c.rect((x0, y0, x1, y1), fill=PANEL, radius=10)
    conflict = _mapping(view.get("conflict"))
    deck = _count(conflict.get("deck_count"))
    discards = _count(conflict.get("discard_count"))
    c.text((x0 + 12, y0 + 16), "CONFLICT DECK", 11, fill=MUTED, bold=True, anchor="lm")
    c.text((x0 + 120, y0 + 16), f"DISCARD · {discards}", 11, fill=MUTED, bold=True, anchor="lm")
    _pile(c, (x0 + 20, y0 + 36, x0 + 90, y0 + 134), deck, "conflict")
    top = conflict.get("discard_top")
    face = (x0 + 120, y0 + 34, x1 - 12, y0 + 136)
    if isinstance(top, Mapping):
        _conflict_face(c, face, top)
    else:
        dashed_rect(c, face, (120, 122, 130, 150), 1.5, 6, 4)
        c.text(((face[0] + face[2]) / 2, (face[1] + face[3]) / 2), "empty", 12, fill=FAINT,
               anchor="mm")
    return y1


def _shots_panel(c: Canvas, view: Mapping[str, Any], table: _Table,
                 units: dict[tuple[Any, str], Mapping[str, Any]], y0: float, y1: float) -> None:
    x0, x1 = LEFT_X0, LEFT_X1
    c.rect((x0, y0, x1, y1), fill=PANEL, radius=10)
    shots = _maps(view.get("last_shots"), 1000)
    c.text((x0 + 12, y0 + 16), "LAST SHOTS", 11, fill=MUTED, bold=True, anchor="lm")
    if len(shots) > MAX_SHOTS:
        c.text((x1 - 12, y0 + 16), f"latest {MAX_SHOTS} of {len(shots)}", 11, fill=MUTED,
               anchor="rm")
    if not shots:
        c.text((x0 + 12, y0 + 44), "No shots fired", 13, fill=FAINT, anchor="lm")
        return
    row_h = min(42.0, (y1 - y0 - 32) / MAX_SHOTS)
    for i, shot in enumerate(shots[-MAX_SHOTS:]):
        ry = y0 + 30 + i * row_h
        if i:
            c.line([(x0 + 10, ry - 1), (x1 - 10, ry - 1)], fill=(52, 56, 66), width=1)
        cy = ry + 12
        x = _ref_chip(c, x0 + 10, cy, shot.get("shooter"), table.style(shot.get("shooter_owner")))
        c.text((x + 9, cy), "→", 13, fill=MUTED, bold=True, anchor="mm")
        x = _ref_chip(c, x + 18, cy, shot.get("target"), table.style(shot.get("target_owner")))
        an = as_int(shot.get("action_number"), 0)
        c.rect((x + 10, cy - 12, x + 32, cy + 12), fill=FACE, outline=FACE_EDGE, width=1,
               radius=3)
        c.text((x + 21, cy + 0.5), str(an) if an else "?", 14, fill=INK, bold=True, anchor="mm")
        atk, dfn = shot.get("attack"), shot.get("defense")
        window = _window(atk, dfn)
        if window:
            c.text((x + 38, cy + 0.5), window, 11, fill=MUTED, anchor="lm")
        hit = shot.get("hit") is True
        pill(c, x1 - 10, cy - 9, "HIT" if hit else "MISS", HIT if hit else MISS, size=10.5,
             height=18, text=TEXT)
        shooter = units.get((shot.get("shooter_owner"), _ref(shot.get("shooter"))))
        target = units.get((shot.get("target_owner"), _ref(shot.get("target"))))
        if shooter is not None or target is not None:
            a = clean_text(_mapping((shooter or {}).get("card")).get("name"), 40) or "?"
            b = clean_text(_mapping((target or {}).get("card")).get("name"), 40) or "?"
            c.text((x0 + 12, ry + 30), c.fit(f"{a} → {b}", 10.5, x1 - x0 - 24), 10.5,
                   fill=MUTED, anchor="lm")


def _window(attack: Any, defense: Any) -> str:
    """The Action Numbers that hit: above the defense, at most the attack."""
    if isinstance(attack, bool) or isinstance(defense, bool) or not (
            isinstance(attack, int) and isinstance(defense, int)):
        return ""
    lo, hi = max(1, defense + 1), min(10, attack)
    if lo > hi:
        return "no hit"
    return f"hit on {lo}" if lo == hi else f"hit on {lo}–{hi}"


def _ref_chip(c: Canvas, x: float, cy: float, ref: Any, style: Style) -> float:
    label = _ref(ref)
    w = max(30.0, c.text_width(label, 12, bold=True) + 12)
    c.rect((x, cy - 10, x + w, cy + 10), fill=style.chip, outline=style.chip_edge, width=1.5,
           radius=4)
    c.text((x + w / 2, cy + 0.5), label, 12, fill=TEXT, bold=True, anchor="mm")
    return x + w


def _firing_track(c: Canvas, x1: float, cy: float, phase: Any, rnd: int) -> None:
    """Right-aligned at ``x1``: "ROUND n" and the firing phases 1-4, then Withdraw."""
    items = [(str(p), p) for p in FIRING_PHASES] + [("Withdraw", "withdraw")]
    widths = [max(26.0, c.text_width(label, 13, bold=True) + 16) for label, _ in items]
    x = x1 - sum(widths) - 4 * (len(items) - 1)
    c.text((x, cy - 22), "FIRING PHASE", 10, fill=MUTED, bold=True, anchor="lm")
    if rnd:
        c.text((x1, cy - 22), f"COMBAT ROUND {rnd}", 10, fill=MUTED, bold=True, anchor="rm")
    for (label, key), w in zip(items, widths, strict=True):
        lit = phase == key
        c.rect((x, cy - 12, x + w, cy + 12), fill=GOLD if lit else (54, 58, 70), radius=6)
        c.text((x + w / 2, cy + 0.5), label, 13, fill=INK if lit else MUTED, bold=True,
               anchor="mm")
        x += w + 4


def _is_battlecard(card: Mapping[str, Any]) -> bool:
    return card.get("kind") == "battle" or "vp" in card or "forces" in card


def _header(c: Canvas, view: Mapping[str, Any], table: _Table, battle: Mapping[str, Any],
            outcome: Mapping[str, Any] | None) -> None:
    """The card in play across the top of the battle area (or the outcome)."""
    runs: list[Run]
    x0, y0, x1 = RIGHT_X0, MID_Y0, RIGHT_X1
    y1 = y0 + HEADER_H
    current = _mapping(view.get("current"))
    card = _mapping(battle.get("card")) or current
    if outcome is not None:
        c.rect((x0, y0, x1, y1), fill=(54, 48, 30), outline=ACCENT, width=2, radius=10)
        winners = [w for w in outcome.get("winners") or [] if isinstance(w, str)][:2]
        runs = []
        for i, winner in enumerate(winners):
            label = table.style(winner).label
            runs += [("" if not i else " and ", TEXT, None), (table.name(winner), TEXT, 340.0),
                     (f" ({label})" if label else "", TEXT, None)]
        runs.append((" win" + ("s" if len(winners) == 1 else "") if winners else "A draw",
                     TEXT, None))
        c.text((x0 + 18, y0 + 16), "GAME OVER", 11, fill=ACCENT, bold=True, anchor="lm")
        text_runs(c, x0 + 18, y0 + 40, runs, 22, x1 - 18, bold=True)
        reason = clean_text(outcome.get("reason"), limit=160)
        c.text((x0 + 18, y0 + 63), c.fit(reason, 13, x1 - x0 - 36), 13, fill=MUTED, anchor="lm")
        return
    if not card:
        c.rect((x0, y0, x1, y1), fill=PANEL, radius=10)
        c.text((x0 + 18, y0 + 16), "IN PLAY", 11, fill=MUTED, bold=True, anchor="lm")
        c.text((x0 + 18, y0 + 42), "No battle in progress", 18, fill=FAINT, bold=True,
               anchor="lm")
        last = _mapping(view.get("last_move"))
        action = clean_text(last.get("action"), limit=40)
        if action:
            text_runs(c, x0 + 18, y0 + 64, [("Last move: ", MUTED, None),
                                            (table.name(last.get("player")), MUTED, 300.0),
                                            (f" · {action}", MUTED, None)], 13, x1 - 18)
        return
    if not _is_battlecard(card):  # a conflict card being resolved
        c.rect((x0, y0, x1, y1), fill=PANEL, radius=10)
        c.rect((x0 + 10, y0 + 9, x0 + 70, y1 - 9), fill=FACE, outline=FACE_EDGE, width=1,
               radius=5)
        _action_number(c, (x0 + 40, y0 + HEADER_H / 2), 16, as_int(card.get("action_number")))
        kind = clean_text(card.get("kind"), limit=16).replace("_", " ").upper()
        c.text((x0 + 86, y0 + 16), "RESOLVING" + (f" · {kind}" if kind else ""), 11,
               fill=MUTED, bold=True, anchor="lm")
        c.text((x0 + 86, y0 + 38), c.fit(clean_text(card.get("name"), 60) or "?", 19,
                                         x1 - x0 - 100, bold=True), 19, fill=TEXT, bold=True,
               anchor="lm")
        text = clean_text(card.get("text"), limit=160)
        c.text((x0 + 86, y0 + 61), c.fit(text, 13, x1 - x0 - 100), 13, fill=MUTED, anchor="lm")
        return
    aggressor_side = card.get("aggressor")
    style = _style(aggressor_side)
    c.rect((x0, y0, x1, y1), fill=(44, 44, 40), outline=(120, 108, 72), width=1.5, radius=10)
    c.rect((x0, y0, x0 + 12, y1), fill=style.head, radius=10)
    c.rect((x0 + 6, y0, x0 + 12, y1), fill=style.head)
    c.rect((x0 + 12, y0, x0 + 14, y1), fill=style.head_line)
    # VP seal
    vp = max(0, as_int(card.get("vp")))
    sx = x0 + 54
    c.circle((sx, y0 + HEADER_H / 2), 27, fill=darken(GOLD, 0.45))
    c.circle((sx, y0 + HEADER_H / 2), 24.5, fill=GOLD)
    c.text((sx, y0 + HEADER_H / 2 - 5), str(vp), 20, fill=INK, bold=True, anchor="mm")
    c.text((sx, y0 + HEADER_H / 2 + 12), "VP", 9.5, fill=INK, bold=True, anchor="mm")
    tx = x0 + 92
    in_battle = bool(battle)
    phase = battle.get("phase")
    track_w = 0.0
    if in_battle:
        track_w = 4 * 30 + c.text_width("Withdraw", 13, bold=True) + 16 + 16 + 20
        _firing_track(c, x1 - 14, y0 + 48, phase, as_int(battle.get("round")))
    room = x1 - tx - track_w - 14
    state = "BATTLE" if in_battle else "BATTLECARD DRAWN"
    special = clean_text(card.get("special"), limit=80)
    c.text((tx, y0 + 16), c.fit(state + (f" · {special}" if special else ""), 11, room,
                                bold=True), 11, fill=ACCENT if special else MUTED, bold=True,
           anchor="lm")
    # the name, then the forces that may fight
    forces = _forces(card.get("forces"))
    forces_w = sum(24 + c.text_width(FORCE_NAMES[f], 12, bold=True) for f in forces)
    name = clean_text(card.get("name"), limit=60) or "Battle"
    name = c.fit(name, 21, max(60.0, room - forces_w - 10), bold=True)
    y = y0 + 38
    c.text((tx, y), name, 21, fill=TEXT, bold=True, anchor="lm")
    x = tx + c.text_width(name, 21, bold=True) + 12
    for f in forces:
        w = 20 + c.text_width(FORCE_NAMES[f], 12, bold=True)
        c.rect((x, y - 10, x + w, y + 10), fill=(70, 68, 58), radius=10)
        force_icon(c, f, (x + 11, y), 6.5, TEXT)
        c.text((x + 20, y + 0.5), FORCE_NAMES[f], 12, fill=TEXT, bold=True, anchor="lm")
        x += w + 4
    # who attacks whom
    agg = battle.get("aggressor") if in_battle else None
    dfd = battle.get("defender") if in_battle else None
    side_label = style.label or "?"
    fg = lighten(style.bar, 0.2)
    runs = [(f"{side_label} aggressor", fg, None)]
    if agg is not None:
        runs = [(table.name(agg), fg, room * 0.36), (f" ({side_label}) attacks ", fg, None),
                (table.name(dfd), fg, room * 0.36)]
    text_runs(c, tx, y0 + 62, runs, 13, tx + room, bold=True)


def _band(c: Canvas, box: Box, p: Mapping[str, Any] | None, units: list[Mapping[str, Any]],
          style: Style, phase: Any, shots: Mapping[tuple[Any, str], str],
          name: str, role: str) -> None:
    """One side's revealed units, face up, with a side tab on the left."""
    x0, y0, x1, y1 = box
    c.rect(box, fill=darken(style.mat, 0.25), radius=10)
    tab = BAND_TAB
    c.rect((x0, y0, x0 + tab, y1), fill=style.head, radius=10)
    c.rect((x0 + tab - 8, y0, x0 + tab, y1), fill=style.head)
    c.rect((x0 + tab, y0, x0 + tab + 2, y1), fill=style.head_line)
    _vertical_label(c, (x0 + tab / 2, (y0 + y1) / 2), f"{style.label.upper() or 'SIDE'} · {role}",
                    style.head_text)
    if p is None:
        return
    if not units:
        ax0, ax1 = x0 + BAND_TAB + 10, x1 - 8
        c.text(((ax0 + ax1) / 2, (y0 + y1) / 2), "No units revealed", 15,
               fill=lighten(style.mat, 0.35), bold=True, anchor="mm")
        return
    n = len(units)
    level, boxes = card_boxes(box, n)
    shown = units if n <= len(boxes) else units[: len(boxes) - 1]
    for u, b in zip(shown, boxes, strict=False):
        key = (u.get("owner"), _ref(u.get("ref")))
        _unit_card(c, b, u, style, phase, level, shots.get(key))
    if len(shown) < n:
        bx0, by0, bx1, by1 = boxes[-1]
        dashed_rect(c, boxes[-1], lighten(style.mat, 0.3), 1.5, 6, 4)
        c.text(((bx0 + bx1) / 2, (by0 + by1) / 2), f"+{n - len(shown)} more", 13,
               fill=lighten(style.mat, 0.5), bold=True, anchor="mm")


def card_boxes(band: Box, n: int) -> tuple[int, list[Box]]:
    """How ``n`` revealed units are laid out in a side's ``band``: the detail level (0 full,
    1 compact, 2 tiny) and the card boxes, in order. When they cannot all fit, the boxes
    fill the band and the last one holds "+N more"."""
    x0, y0, x1, y1 = band
    ax0, ay0, ax1, ay1 = x0 + BAND_TAB + 10, y0 + 8, x1 - 8, y1 - 8
    gap = 7.0
    aw, ah = ax1 - ax0, ay1 - ay0
    level = 2
    for candidate in (0, 1):  # the largest cards that fit
        if n <= _columns(aw, gap, candidate) * CARD_ROWS[candidate]:
            level = candidate
            break
    rows = CARD_ROWS[level]
    cols = max(1, min(_columns(aw, gap, level), math.ceil(max(1, n) / rows)))
    cw = min(CARD_MAX_W[level], (aw - gap * (cols - 1)) / cols)
    ch = (ah - gap * (rows - 1)) / rows
    boxes: list[Box] = []
    for i in range(min(n, cols * rows)):
        r, col = divmod(i, cols)
        bx, by = ax0 + col * (cw + gap), ay0 + r * (ch + gap)
        boxes.append((bx, by, bx + cw, by + ch))
    return level, boxes


def _columns(width: float, gap: float, level: int) -> int:
    return max(1, int((width + gap) // (CARD_MIN_W[level] + gap)))


@lru_cache(maxsize=16)
def _vertical_text(text: str, size: float, colour: RGB) -> Image.Image:
    """``text`` turned to read bottom-up (RGBA, at drawing scale)."""
    w = Canvas(1, 1, (0, 0, 0, 0), scale=SCALE, mode="RGBA").text_width(text, size, bold=True)
    c = Canvas(math.ceil(w) + 4, math.ceil(size * 1.5), (0, 0, 0, 0), scale=SCALE, mode="RGBA")
    c.text((2, size * 0.75), text, size, fill=colour, bold=True, anchor="lm")
    return c.image.rotate(90, expand=True)


def _vertical_label(c: Canvas, centre: Point, text: str, colour: RGB) -> None:
    _paste_centred(c, _vertical_text(text, 10.5, colour), centre)


def _battle_list(c: Canvas, view: Mapping[str, Any], table: _Table, box: Box) -> None:
    """The Battlecard List reference card: every battle, its VP and where it is."""
    x0, y0, x1, y1 = box
    c.rect(box, fill=PANEL, radius=10)
    entries = _maps(view.get("battlecard_list"), 40)
    c.text((x0 + 14, y0 + 16), "BATTLECARD LIST", 11, fill=MUTED, bold=True, anchor="lm")
    if not entries:
        c.text((x0 + 14, y0 + 46), "No battles listed", 14, fill=FAINT, anchor="lm")
        return
    remaining = [e for e in entries if e.get("status") in ("in deck", "in play")]
    c.text((x1 - 14, y0 + 16), f"{len(remaining)} of {len(entries)} still to fight · "
           f"{sum(max(0, as_int(e.get('vp'))) for e in remaining)} VP", 11, fill=MUTED,
           anchor="rm")
    cols = 4
    rows = max(1, math.ceil(len(entries) / cols))
    gap = 6.0
    gx0, gy0, gx1, gy1 = x0 + 10, y0 + 30, x1 - 10, y1 - 10
    tw = (gx1 - gx0 - gap * (cols - 1)) / cols
    th = min(76.0, (gy1 - gy0 - gap * (rows - 1)) / rows)
    for i, e in enumerate(entries):
        r, col = divmod(i, cols)
        bx, by = gx0 + col * (tw + gap), gy0 + r * (th + gap)
        _battle_tile(c, (bx, by, bx + tw, by + th), e, table)


def _battle_tile(c: Canvas, box: Box, e: Mapping[str, Any], table: _Table) -> None:
    x0, y0, x1, y1 = box
    h = y1 - y0
    status = e.get("status")
    style = _style(e.get("aggressor"))
    won_by = e.get("won_by")
    done = status in ("won", "discarded")
    fill = (48, 52, 62) if not done else (36, 38, 45)
    outline: Colour = (66, 70, 82)
    if status == "in play":
        outline = ACCENT
    elif status == "won" and won_by is not None:
        outline = table.style(won_by).bar
    c.rect(box, fill=fill, outline=outline, width=1.5 if status in ("in play", "won") else 1,
           radius=6)
    c.rect((x0, y0, x0 + 5, y1), fill=style.head_line if style is not OTHER else FAINT,
           radius=2)
    fg = TEXT if not done else MUTED
    name = clean_text(e.get("name"), limit=50) or "Battle"
    vp = f"{max(0, as_int(e.get('vp')))} VP"
    small = h < 44
    ny = y0 + (11 if small else 14)
    c.text((x1 - 7, ny), vp, 11.5, fill=GOLD if not done else FAINT, bold=True, anchor="rm")
    room = x1 - x0 - 22 - c.text_width(vp, 11.5, bold=True)
    c.text((x0 + 12, ny), c.fit(name, 12, room, bold=True), 12, fill=fg, bold=True,
           anchor="lm")
    if status == "discarded":
        c.line([(x0 + 12, ny + 1), (x0 + 12 + c.text_width(c.fit(name, 12, room, bold=True), 12,
                                                             bold=True), ny + 1)],
               fill=MUTED, width=1.2)
    sy = y1 - (10 if small else 14)
    x = x0 + 12
    for f in _forces(e.get("forces")):
        force_icon(c, f, (x + 6, sy), 6, MUTED if not done else FAINT)
        x += 17
    label = {"in deck": "in deck", "in play": "IN PLAY", "discarded": "discarded"}.get(
        status if isinstance(status, str) else "", "")
    colour: Colour = MUTED
    if status == "won":
        colour = lighten(table.style(won_by).bar, 0.15)
        label = "won"
        if won_by is not None:  # the name right-aligned on its own (it may be right-to-left)
            who = c.fit(table.name(won_by), 11, max(10.0, x1 - x - 50), bold=True)
            c.text((x1 - 7, sy), who, 11, fill=colour, bold=True, anchor="rm")
            label = "won · "
            x1 -= c.text_width(who, 11, bold=True)
    elif status == "in play":
        colour = ACCENT
    elif status == "discarded":
        colour = FAINT
    c.text((x1 - 7, sy), c.fit(label, 11, x1 - x - 12, bold=status != "in deck"), 11,
           fill=colour, bold=status != "in deck", anchor="rm")


# --- the header rows ------------------------------------------------------------------------


def _title(c: Canvas, view: Mapping[str, Any], over: bool) -> None:
    c.text((M, 32), "BATTLECARDS", 24, fill=TEXT, bold=True, anchor="ls")
    x = M + c.text_width("BATTLECARDS", 24, bold=True) + 12
    c.text((x, 32), "Western Front", 15, fill=MUTED, bold=True, anchor="ls")
    rnd = as_int(view.get("round"))
    right: float = WIDTH - M
    if rnd:
        c.text((right, 32), f"Turn {rnd}", 17, fill=MUTED, bold=True, anchor="rs")
        right -= c.text_width(f"Turn {rnd}", 17, bold=True) + 18
    phase = "over" if over else view.get("phase")
    items = PHASES if phase != "over" else (("over", "Game over"),)
    widths = [c.text_width(label, 12.5, bold=True) + 16 for _, label in items]
    x = right - sum(widths) - 5 * (len(items) - 1)
    for (key, label), w in zip(items, widths, strict=True):
        lit = key == phase
        fill: Colour = (ACCENT if key != "over" else DANGER) if lit else (50, 54, 65)
        fg: Colour = ((30, 30, 34) if key != "over" else TEXT) if lit else MUTED
        c.rect((x, 14, x + w, 36), fill=fill, radius=11)
        c.text((x + w / 2, 25.5), label, 12.5, fill=fg, bold=True, anchor="mm")
        x += w + 5


def _status(c: Canvas, view: Mapping[str, Any], table: _Table, over: bool) -> None:
    x0, y0, x1, y1 = STATUS_BOX
    cy = (y0 + y1) / 2
    c.rect(STATUS_BOX, fill=(32, 35, 42), outline=(58, 62, 72), width=1, radius=10)
    prompt = clean_text(view.get("prompt"), limit=160)
    to_act = view.get("to_act")
    actors = [a for a in to_act[:2] if isinstance(a, str)] if isinstance(to_act, list) else []
    turn = view.get("turn")
    x = x0 + 14
    if over:  # the final score
        runs: list[Run] = [("Final score: ", ACCENT, None)]
        for i, p in enumerate(p for p in (table.top, table.bottom) if p is not None):
            runs += [(" · " if i else "", MUTED, None), (table.name(p.get("id")), TEXT, 300.0),
                     (f" {as_int(p.get('vp'))} VP", TEXT, None)]
        if len(runs) == 1:
            runs = [(prompt or "The game is over", ACCENT, None)]
        text_runs(c, x, cy, runs, 16, x1 - 14, bold=True)
        return
    for a in actors:
        style = table.style(a)
        c.circle((x + 7, cy), 7, fill=style.bar, outline=(240, 238, 230), width=1.5)
        x += 18
    runs = []
    for i, a in enumerate(actors):
        runs += [(" and " if i else "", TEXT, None), (table.name(a), TEXT, 220.0)]
    runs.append((" must act" + (f": {prompt}" if prompt else "") if actors else
                 prompt or "Waiting", TEXT, None))
    tail_w = 0.0
    if isinstance(turn, str) and turn not in actors:  # whose turn it is, if someone else acts
        name = c.fit(table.name(turn), 13, 160, bold=True)
        tail_w = c.text_width(name + "'s turn", 13, bold=True) + 20
        text_runs(c, x1 - tail_w + 6, cy, [(name, MUTED, None), ("'s turn", MUTED, None)], 13,
                  x1 - 14, bold=True)
    text_runs(c, x, cy, runs, 16, x1 - 14 - tail_w, bold=True)


# --- the whole image --------------------------------------------------------------------------


@lru_cache(maxsize=2)
def _backdrop() -> Image.Image:
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=SCALE)
    # a felt table top under the middle
    c.rect((M - 4, MID_Y0 - 4, WIDTH - M + 4, MID_Y1 + 4), fill=(33, 38, 36), radius=14)
    return c.image


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of a Battlecards view. ``view`` is never modified; ``events`` are not
    needed (the view carries the last shots). Only public fields are read: never a
    player's ``hand``, ``kept`` or ``stack_cards``."""
    del events
    table = _Table(view, names)
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=SCALE)
    c.image.paste(_backdrop())
    outcome_raw = view.get("outcome")
    outcome = outcome_raw if isinstance(outcome_raw, Mapping) else None
    over = outcome is not None or view.get("phase") == "over"
    winners = {w for w in (outcome or {}).get("winners") or [] if isinstance(w, str)}

    _title(c, view, over)
    _status(c, view, table, over)
    _mat(c, view, table, table.top, TOP_MAT_Y, True, winners, over)
    _mat(c, view, table, table.bottom, BOTTOM_MAT_Y, False, winners, over)

    battle = _mapping(view.get("battle"))
    raw_units = _maps(battle.get("units"), 400)
    units = {(u.get("owner"), _ref(u.get("ref"))): u for u in raw_units}
    # the middle: left the conflict deck and the last shots, right the battle
    y = _conflict_panel(c, view, MID_Y0)
    _shots_panel(c, view, table, units, y + 8, MID_Y1)
    _header(c, view, table, battle, outcome)
    body_y = MID_Y0 + HEADER_H + BAND_GAP
    if battle:
        shots: dict[tuple[Any, str], str] = {}
        for s in _maps(view.get("last_shots"), 1000):
            key = (s.get("target_owner"), _ref(s.get("target")))
            if s.get("hit") is True:
                shots[key] = "hit"
            else:
                shots.setdefault(key, "miss")
        phase = battle.get("phase")
        aggressor = battle.get("aggressor")
        for p, band in zip((table.top, table.bottom), BANDS, strict=True):
            pid = p.get("id") if p is not None else None
            mine = [u for u in raw_units if pid is not None and u.get("owner") == pid]
            role = "ATTACKER" if pid == aggressor else "DEFENDER"
            _band(c, band, p, mine,
                  _style(p.get("side")) if p is not None else OTHER, phase, shots,
                  table.name(pid), role)
    else:
        _battle_list(c, view, table, (RIGHT_X0, body_y, RIGHT_X1, MID_Y1))
    image = c.finish()
    png = encode_png(image)
    if len(png) > PNG_BUDGET:  # a crowded table: 256 colours look the same at a third the size
        png = encode_png(image, colours=256)
    return png
