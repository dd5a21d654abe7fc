"""The Battlecards table, drawn phone first: one column, 800 x 1100, large essentials.

Drawn from the public part of the view dict only (``docs/games/battlecards-interface.md``).
The board image is posted to the channel, so the renderer never reads a player's ``hand``,
``kept`` or ``stack_cards`` (present only in that player's own view): it draws the reserve
hand, kept cards and deployed stacks as card backs with their counts, whoever the viewer.

From the top: the title row (the turn and the phase), the status bar (who must act and
what they decide), the German player's placemat, the middle of the table, the British
player's placemat. A placemat shows the player's name, side and state (acts now, winner),
victory points toward the target (a number and a bar), then a row of counts: the Ground,
Air and Sea stacks, the reserve hand and kept cards, the arsenal deck and discard pile
(lost units) and the battlecards won. The middle of the table: a header with the
battlecard being fought (or drawn, or the card being resolved, or a battle finished since
the last board, or the outcome); below it the units revealed in the battle, face up with
their values, or else a report of a battle fought since the last board, or else the
Battlecard List; at the bottom the conflict deck with its face-up discard and the shots.

``events`` are every public event since the last board (a turn digest): their shots are
listed (with the Action Numbers drawn) and mark the units they hit, and a battle that
began and ended within them is reported (name, winner, victory points, every unit's
fate). Without usable events the view's ``last_shots`` are shown.

What a player needs to decide (the status line, turn and phase, victory points, every
count, the battle in play) is marked with its role and drawn at least
:func:`render.common.min_essential_size` tall (16.4 px at this width: 8 px on a phone).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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
    drawable_events,
    lighten,
    load_palette,
    min_essential_size,
    pill,
    progress_bar,
    star_points,
    text_runs,
    with_alpha,
)

WIDTH, HEIGHT = 800, 1100
SCALE = 2  # sprites and static layers are drawn this many times larger, then reduced
KIND = "battlecards"
M = 12  # the outer margin
#: The size of essential text: at least 8 px once Discord shrinks the image to a phone.
BIG = max(17.0, float(math.ceil(min_essential_size(WIDTH))))  # 17 px at 800 wide

# Layout (final pixels), top to bottom.
STATUS_BOX: Box = (M, 50, WIDTH - M, 116)
MAT_H = 158
TOP_MAT_Y = 124
BOTTOM_MAT_Y = HEIGHT - M - MAT_H
MID_Y0, MID_Y1 = TOP_MAT_Y + MAT_H + 8, BOTTOM_MAT_Y - 8
HEADER_H = 96
HEADER_BOX: Box = (M, MID_Y0, WIDTH - M, MID_Y0 + HEADER_H)
STRIP_H = 150  # the conflict deck and the shots
STRIP_Y0 = MID_Y1 - STRIP_H
CONFLICT_BOX: Box = (M, STRIP_Y0, M + 236, MID_Y1)
SHOTS_BOX: Box = (M + 244, STRIP_Y0, WIDTH - M, MID_Y1)
#: Between the header and the strip: the battle's units, a battle report or the list.
BODY_BOX: Box = (M, MID_Y0 + HEADER_H + 8, WIDTH - M, STRIP_Y0 - 8)
BAND_GAP = 8
BAND_H = (BODY_BOX[3] - BODY_BOX[1] - BAND_GAP) / 2
BAND_TAB = 26  # the side's label along a band's left edge
#: The bands of revealed units: the top (German) player's, then the bottom one's.
BANDS: tuple[Box, Box] = (
    (M, BODY_BOX[1], WIDTH - M, BODY_BOX[1] + BAND_H),
    (M, BODY_BOX[3] - BAND_H, WIDTH - M, BODY_BOX[3]))

FORCES = ("ground", "air", "sea")
FORCE_NAMES = {"ground": "Ground", "air": "Air", "sea": "Sea", "leader": "Leader"}
PHASE_NAMES = {"setup": "Setup", "draw": "Draw", "resolve": "Resolve", "decide": "Decide",
               "battle": "Battle", "withdraw": "Withdraw", "over": "Game over"}
FIRING_PHASES = (1, 2, 3, 4)
DEFAULT_TARGET = 38
SHOT_ROWS = 5  # rows of the shots list
MAX_EVENTS = 5000  # events read (the latest)
# Revealed units per detail level (0 full, 1 compact, 2 tiny): rows in a side's band and
# the narrowest and widest card.
CARD_ROWS = (1, 2, 3)
CARD_MIN_W = (112.0, 96.0, 76.0)
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
WITHDRAWN: RGB = (86, 128, 186)
CONFLICT_BACK: RGB = (92, 74, 48)
CONFLICT_MARK: RGB = (214, 178, 98)
SOFT: RGB = (214, 210, 200)  # secondary text that still matters (the prompt)
ELLIPSIS = "…"


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


def _number(n: int) -> str:
    """A count as drawn: at most three digits."""
    return str(n) if n <= 999 else "999+"


def _stat(value: Any) -> str:
    """A card value: the number, or "–" for N/A (anything that is not a number)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "–"
    return str(max(-99, min(99, value)))


def _ref(value: Any) -> str:
    return clean_text(value, limit=4).upper() or "?"


def _key(owner: Any, ref: Any) -> tuple[str | None, str]:
    """A battle unit's key: its owner's id (None unless a string) and its reference."""
    return (owner if isinstance(owner, str) else None, _ref(ref))


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
        lines = _clip(c, name, 12.5, w - 2 * pad, 2, bold=True)
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
    lines = _clip(c, name, 12, w - 14, 3, bold=True)
    for i, line in enumerate(lines):
        c.text((x0 + 7, y0 + 42 + i * 15), line, 12, fill=INK, bold=True, anchor="lm")
    ty = y0 + 42 + len(lines) * 15
    text = _long_text(card.get("text"), limit=160)
    room = int((y1 - 6 - ty) // 11.5)
    if text and room > 0:
        for i, line in enumerate(_clip(c, text, 9.5, w - 14, room)):
            c.text((x0 + 7, ty + i * 11.5), line, 9.5, fill=INK_MUTED, anchor="lm")


def _action_number(c: Canvas, centre: Point, r: float, n: int, fill: Colour = INK,
                   fg: Colour = FACE) -> None:
    c.circle(centre, r, fill=fill)
    c.text((centre[0], centre[1] + 0.5), str(n) if n else "?", r * 1.15, fill=fg, bold=True,
           anchor="mm")


# --- the placemats -------------------------------------------------------------------------




# --- text that wraps at word boundaries ---------------------------------------------------


def clip_words(text: str, measure: Callable[[str], float], max_width: float,
               max_lines: int = 1) -> list[str]:
    """``text`` wrapped into at most ``max_lines`` lines no wider than ``max_width``.

    Lines break between words. When the text does not fit, the last line ends with an
    ellipsis after the last whole word that fits (trailing punctuation dropped); only a
    single word wider than a whole line is cut inside (and ellipsised). ``measure`` gives
    a string's width, so this is pure: ``clip_words(s, len, 20, 2)`` counts characters.
    """
    words = text.split()
    if not words or max_lines <= 0 or max_width <= 0:
        return []
    lines: list[str] = []
    i = 0
    cut = False
    while i < len(words) and len(lines) < max_lines:
        line = words[i]
        i += 1
        if measure(line) > max_width:  # one word wider than the line: cut inside it
            lines.append(_cut_chars(line, measure, max_width))
            cut = True
            break
        while i < len(words) and measure(f"{line} {words[i]}") <= max_width:
            line = f"{line} {words[i]}"
            i += 1
        lines.append(line)
    if cut:
        return lines
    if i < len(words):  # the text goes on: end the last line with an ellipsis
        kept = lines[-1].split(" ")
        while kept:
            candidate = " ".join(kept).rstrip(",;:.-–—") + ELLIPSIS
            if measure(candidate) <= max_width:
                lines[-1] = candidate
                break
            kept.pop()
        else:
            lines[-1] = ELLIPSIS if measure(ELLIPSIS) <= max_width else ""
    return [line for line in lines if line]


def _cut_chars(word: str, measure: Callable[[str], float], max_width: float) -> str:
    """The longest start of ``word`` that fits ``max_width`` with an ellipsis."""
    lo, hi = 0, len(word)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if measure(word[:mid] + ELLIPSIS) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    if lo == 0:
        return ELLIPSIS if measure(ELLIPSIS) <= max_width else ""
    return word[:lo] + ELLIPSIS


def _clip(c: Canvas, text: str, size: float, max_width: float, max_lines: int = 1,
          bold: bool = False) -> list[str]:
    return clip_words(text, lambda s: c.text_width(s, size, bold), max_width, max_lines)


def _long_text(value: Any, limit: int = 400) -> str:
    """Card text cleaned for drawing; a text past ``limit`` characters is cut at a word
    boundary and ellipsised (never inside a word)."""
    text = clean_text(value, limit=limit + 1)
    if len(text) <= limit:
        return text
    head = text[:limit]
    if " " in head:
        head = head[: head.rindex(" ")]
    return head.rstrip(",;:.-–—") + ELLIPSIS


# --- what the events since the last board tell ------------------------------------------------


@dataclass
class _Fought:
    """A unit seen in a battle reported from the events: its owner, ref, name and fate
    ("destroyed", "withdrawn" or "" for a unit that stayed to the end)."""

    owner: Any
    ref: str
    name: str
    fate: str = ""


@dataclass
class _Finished:
    """A battle won within the events."""

    card: str
    winner: Any
    vp: int
    total_vp: int | None
    how: str  # "" (fought out), "uncontested", "stalemate" or "evacuation"
    aggressor: Any
    units: list[_Fought] = field(default_factory=list)
    shots: list[Mapping[str, Any]] = field(default_factory=list)


@dataclass
class _Digest:
    """The public events since the last board, read."""

    shots: list[Mapping[str, Any]] = field(default_factory=list)
    battle_shots: list[Mapping[str, Any]] = field(default_factory=list)  # since a start
    finished: _Finished | None = None
    news: Mapping[str, Any] | None = None  # a battle declined, ignored or not yet allowed


def _public(events: Any) -> list[Mapping[str, Any]]:
    """The usable public events (the newest, when there are too many)."""
    return drawable_events(events, MAX_EVENTS, newest=True)


def read_events(events: Any) -> _Digest:
    """What ``events`` tell the board (odd or private events are skipped, never trusted)."""
    evs = _public(events)
    digest = _Digest()
    last_start = news_at = -1
    for i, e in enumerate(evs):
        kind = e.get("type")
        if kind == "shot":
            digest.shots.append(e)
        elif kind == "battle_start":
            last_start = i
        elif kind in ("declined", "battle_ignored", "prerequisites_unmet"):
            digest.news, news_at = e, i
    digest.battle_shots = [e for e in evs[last_start + 1:] if e.get("type") == "shot"]
    won = [i for i, e in enumerate(evs) if e.get("type") == "battle_won"]
    if won:
        k = won[-1]
        previous = won[-2] if len(won) > 1 else -1
        starts = [i for i in range(previous + 1, k) if evs[i].get("type") == "battle_start"]
        digest.finished = _finished(evs, starts[-1] if starts else previous + 1, k)
        if news_at < k:  # a battle was won since: that is the news
            digest.news = None
    return digest


def _finished(evs: list[Mapping[str, Any]], first: int, k: int) -> _Finished:
    """The battle won by ``evs[k]``, from the events ``evs[first:k]``."""
    won = evs[k]
    span = evs[first:k]
    units: dict[tuple[str | None, str], _Fought] = {}

    def seen(owner: Any, ref: Any, name: Any) -> _Fought | None:
        key = _key(owner, ref)
        if ref is None or len(units) >= 400:
            return units.get(key)
        if key not in units:
            units[key] = _Fought(key[0], key[1], clean_text(name, limit=60))
        elif not units[key].name:
            units[key].name = clean_text(name, limit=60)
        return units[key]

    how = ""
    aggressor: Any = None
    shots: list[Mapping[str, Any]] = []
    for e in span:
        kind = e.get("type")
        if kind == "battle_start":
            aggressor = e.get("aggressor")
            raw = e.get("units")
            for u in raw[:400] if isinstance(raw, list) else []:
                if isinstance(u, Mapping):
                    seen(u.get("owner"), u.get("ref"), u.get("name"))
        elif kind == "shot":
            shots.append(e)
            seen(e.get("shooter_owner"), e.get("shooter"), e.get("shooter_name"))
            target = seen(e.get("target_owner"), e.get("target"), e.get("target_name"))
            if target is not None and e.get("hit") is True:
                target.fate = "destroyed"
        elif kind == "withdraw":
            u = seen(e.get("player"), e.get("ref"), e.get("name"))
            if u is not None and u.fate != "destroyed":
                u.fate = "withdrawn"
        elif kind == "support":
            seen(e.get("player"), e.get("from"), e.get("from_name"))
            seen(e.get("player"), e.get("to"), e.get("to_name"))
        elif kind == "kept_played":
            seen(e.get("player"), e.get("ref"), e.get("unit"))
        elif kind == "stalemate":
            how = "stalemate"
            aggressor = e.get("player")
            for u in units.values():
                if u.owner == aggressor and not u.fate:
                    u.fate = "withdrawn"
        elif kind == "evacuation":
            how = "evacuation"
        elif kind == "walkover":
            how = "uncontested"
    total = won.get("total_vp")
    return _Finished(card=clean_text(won.get("card"), limit=60) or "Battle",
                     winner=won.get("player"), vp=max(0, as_int(won.get("vp"))),
                     total_vp=as_int(total) if isinstance(total, int) else None, how=how,
                     aggressor=aggressor, units=list(units.values()), shots=shots)


def pick_shots(shots: Sequence[Mapping[str, Any]], rows: int) -> list[Mapping[str, Any]]:
    """At most ``rows`` of ``shots``, in order: every hit first (the latest if too many),
    then the latest misses."""
    if len(shots) <= rows:
        return list(shots)
    hits = [i for i, s in enumerate(shots) if s.get("hit") is True][-rows:]
    misses = [i for i, s in enumerate(shots) if s.get("hit") is not True]
    chosen = set(hits) | set(misses[len(misses) - (rows - len(hits)):] if rows > len(hits)
                             else [])
    return [shots[i] for i in sorted(chosen)]


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


def vp_bar_box(mat_y: float) -> Box:
    """The victory-point bar of the placemat whose top is at ``mat_y``."""
    off = _mat_offset(mat_y)
    return (M + 16, mat_y + off + 50, WIDTH - M - 16, mat_y + off + 62)


def _mat_offset(mat_y: float) -> float:
    """The bottom placemat's content sits lower: its stripe runs along its top edge."""
    return 0.0 if mat_y == TOP_MAT_Y else 6.0


#: A slot of a placemat's row of counts: what it draws, its label, the count, the role.
Slot = tuple[str, str, int, str]


def _mat(c: Canvas, view: Mapping[str, Any], table: _Table, p: Mapping[str, Any] | None,
         y0: float, winners: set[str], over: bool) -> None:
    x0, x1 = M, WIDTH - M
    y1 = y0 + MAT_H
    if p is None:
        c.rect((x0, y0, x1, y1), fill=PANEL, radius=12)
        c.text(((x0 + x1) / 2, (y0 + y1) / 2), "Empty seat", BIG, fill=FAINT, bold=True,
               anchor="mm")
        return
    facing_down = y0 == TOP_MAT_Y
    off = _mat_offset(y0)
    pid = p.get("id")
    style = _style(p.get("side"))
    c.rect((x0, y0, x1, y1), fill=style.mat, outline=style.mat_edge, width=1.5, radius=12)
    # the accent stripe along the edge that faces the table's middle
    sy = y1 - 9 if facing_down else y0 + 3
    for i, colour in enumerate(style.stripe if facing_down else style.stripe[::-1]):
        c.rect((x0 + 18, sy + i * 2, x1 - 18, sy + i * 2 + 2), fill=colour)
    state = _state_pill(view, pid, winners, over)
    if state is not None and state[0] != "TURN":
        c.rect((x0, y0, x1, y1), outline=state[1], width=3, radius=12)

    # the top row: name and side, state, victory points
    cy = y0 + off + 26
    target = as_int(view.get("victory_target"), DEFAULT_TARGET)
    target = target if target > 0 else DEFAULT_TARGET
    vp = as_int(p.get("vp"))
    tail = f" / {target} VP"
    tail_w = c.text_width(tail, BIG, bold=True)
    c.text((x1 - 16, cy + 1), tail, BIG, fill=lighten(style.mat, 0.6), bold=True, anchor="rm",
           role="score")
    vp_x = x1 - 16 - tail_w
    c.text((vp_x, cy), str(vp), 30, fill=TEXT, bold=True, anchor="rm", role="score")
    right = vp_x - c.text_width(str(vp), 30, bold=True) - 14
    if state is not None:
        right = pill(c, right, cy - 14, state[0], state[1], size=BIG, height=28,
                     text=state[2], role="turn") - 12
    auto = p.get("autofire")
    won = len(_maps(p.get("battlecards_won")))
    parts = [style.label.upper(), f"{won} WON"]
    if isinstance(auto, bool):
        parts.append("AUTO-FIRE " + ("ON" if auto else "OFF"))
    tag = " · ".join(part for part in parts if part)
    tag_w = c.text_width(tag, 11, bold=True) + 16 if tag else 0.0
    name = c.fit(table.name(pid), 22, max(20.0, right - (x0 + 16) - tag_w - 10), bold=True)
    c.text((x0 + 16, cy), name, 22, fill=TEXT, bold=True, anchor="lm")
    if tag:
        pill(c, x0 + 16 + c.text_width(name, 22, bold=True) + 10, cy - 10, tag,
             darken(style.mat, 0.35), size=11, height=20, align="left",
             text=lighten(style.stripe[1], 0.1))
    progress_bar(c, vp_bar_box(y0), vp / target, style.bar, darken(style.mat, 0.45),
                 ticks=target // 5, tick=with_alpha(lighten(style.mat, 0.12), 220))

    # the row of counts
    stacks = _mapping(p.get("stacks"))
    discard = p.get("discard")
    slots: list[list[Slot]] = [
        [(f"stack {f}", FORCE_NAMES[f], _count(stacks.get(f)), "count") for f in FORCES],
        [("hand", "Hand", _count(p.get("hand_count")), "hand"),
         ("kept", "Kept", _count(p.get("kept_count")), "count")],
        [("deck", "Deck", _count(p.get("arsenal_count")), "count"),
         ("lost", "Lost", len(discard[:10_000]) if isinstance(discard, list) else 0, "count")]]
    _slot_row(c, (x0 + 16, y0 + off + 74, x1 - 16, y0 + off + 138), slots, style)


SLOT_ART = {"hand": 62.0}  # the art's width (a fan is wider than a pile)
PILE_W, PILE_H = 40.0, 56.0
ART_GAP = 15.0  # from a slot's art to its count (a tall pile leans 10 px to the right)
COUNT_SIZE = 24.0


def _slot_row(c: Canvas, box: Box, groups: list[list[Slot]], style: Style) -> None:
    """Each slot: its cards (a pile or a fan) and, beside them, the count over the label.
    The groups are spread over the row with a thin rule between them."""
    x0, y0, x1, y1 = box

    def width(slot: Slot) -> float:
        kind, label, n, _ = slot
        return SLOT_ART.get(kind, PILE_W) + ART_GAP + max(
            c.text_width(_number(n), COUNT_SIZE, bold=True), c.text_width(label, 13))

    widths = [[width(s) for s in g] for g in groups]
    slots = sum(len(g) for g in groups)
    spare = max(0.0, (x1 - x0) - sum(sum(w) for w in widths))
    gap = spare / max(1, slots - 1 + (len(groups) - 1))  # a rule counts as one more gap
    x = x0
    muted = lighten(style.mat, 0.55)
    for gi, (group, ws) in enumerate(zip(groups, widths, strict=True)):
        if gi:
            c.line([(x, y0 + 2), (x, y1 - 2)], fill=darken(style.mat, 0.3), width=1.5)
            x += gap
        for slot, w in zip(group, ws, strict=True):
            kind, label, n, role = slot
            art = SLOT_ART.get(kind, PILE_W)
            _slot_art(c, kind, (x, y0 + (y1 - y0 - PILE_H) / 2), art, n, style)
            tx = x + art + ART_GAP
            c.text((tx, y0 + 20), _number(n), COUNT_SIZE, fill=TEXT if n else muted, bold=True,
                   anchor="lm", role=role)
            c.text((tx, y0 + 46), label, 13, fill=muted, anchor="lm")
            x += w + gap


def _slot_art(c: Canvas, kind: str, xy: Point, art_w: float, n: int, style: Style) -> None:
    x, y = xy
    box = (x, y, x + PILE_W, y + PILE_H)
    if kind.startswith("stack "):
        _pile(c, box, n, style.key)
        force = kind.split(" ", 1)[1]
        cx, cy = x + PILE_W / 2, y + PILE_H / 2
        if n:
            c.circle((cx, cy), 12, fill=(20, 20, 24, 225), outline=with_alpha(TEXT, 200),
                     width=1.2)
            force_icon(c, force, (cx, cy), 7.5, TEXT)
        else:
            force_icon(c, force, (cx, cy), 8, (120, 122, 130))
    elif kind == "hand":
        _fan(c, (x + art_w / 2, y + PILE_H / 2 + 2), 30, 44, n, style.key, most=7, span=30.0)
    elif kind == "kept":
        _pile(c, box, n, "conflict")
    elif kind == "deck":
        _pile(c, box, n, style.key)
    else:
        _discard_pile(c, box, n)


def _discard_pile(c: Canvas, box: Box, count: int) -> None:
    """The arsenal discard pile: face-up destroyed units, drawn as a grey stack."""
    x0, y0, x1, y1 = box
    if count <= 0:
        dashed_rect(c, (x0 + 2, y0 + 2, x1 - 2, y1 - 2), (120, 122, 130, 150), 1.5, 6, 4)
        return
    for i in range(min(count, 4) - 1, -1, -1):
        ox, oy = i * 2.5, -i * 2.5
        c.rect((x0 + ox, y0 + oy, x1 + ox, y1 + oy), fill=(150, 146, 136), outline=(80, 78, 72),
               width=1, radius=5)
    c.rect((x0 + 6, y0 + 7, x1 - 6, y0 + 17), fill=(112, 108, 100), radius=2)
    c.line([(x0 + 8, y0 + 24), (x1 - 8, y1 - 10)], fill=with_alpha(DANGER, 200), width=2.5)
    c.line([(x1 - 8, y0 + 24), (x0 + 8, y1 - 10)], fill=with_alpha(DANGER, 200), width=2.5)


# --- the middle of the table: the header ------------------------------------------------------


def _is_battlecard(card: Mapping[str, Any]) -> bool:
    return card.get("kind") == "battle" or "vp" in card or "forces" in card


def _find_battlecard(view: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The battlecard called ``name``: from the battlecards won, else the Battlecard List."""
    for p in _maps(view.get("players"), 8):
        for card in _maps(p.get("battlecards_won"), 40):
            if clean_text(card.get("name"), limit=60) == name:
                return card
    for entry in _maps(view.get("battlecard_list"), 40):
        if clean_text(entry.get("name"), limit=60) == name:
            return entry
    return {}


def _header_frame(c: Canvas, box: Box, style: Style, fill: Colour, edge: Colour) -> None:
    x0, y0, _, y1 = box
    c.rect(box, fill=fill, outline=edge, width=1.5, radius=10)
    c.rect((x0, y0, x0 + 12, y1), fill=style.head, radius=10)
    c.rect((x0 + 6, y0, x0 + 12, y1), fill=style.head)
    c.rect((x0 + 12, y0, x0 + 14, y1), fill=style.head_line)


def _vp_seal(c: Canvas, centre: Point, vp: int) -> None:
    x, y = centre
    c.circle((x, y), 31, fill=darken(GOLD, 0.45))
    c.circle((x, y), 28, fill=GOLD)
    c.text((x, y - 5), str(vp), 24, fill=INK, bold=True, anchor="mm", role="score")
    c.text((x, y + 14), "VP", 11, fill=INK, bold=True, anchor="mm")


def _forces_row(c: Canvas, x: float, cy: float, forces: list[str], max_x: float) -> float:
    """The forces a battle calls, as pills with their icons; returns where the row ends."""
    for f in forces:
        w = 32 + c.text_width(FORCE_NAMES[f], BIG, bold=True)
        if x + w > max_x:
            break
        c.rect((x, cy - 14, x + w, cy + 14), fill=(74, 72, 62), radius=14)
        force_icon(c, f, (x + 15, cy), 8, TEXT)
        c.text((x + 27, cy + 0.5), FORCE_NAMES[f], BIG, fill=TEXT, bold=True, anchor="lm",
               role="turn")
        x += w + 6
    return x


def _battle_header(c: Canvas, table: _Table, card: Mapping[str, Any], state: str,
                   right_w: float) -> tuple[float, float]:
    """The left part of a battle's header (seal, state line, name, forces); returns the
    left and right edges of the room it leaves to the right."""
    x0, y0, x1, _ = HEADER_BOX
    style = _style(card.get("aggressor"))
    _header_frame(c, HEADER_BOX, style, (44, 44, 40), (120, 108, 72))
    _vp_seal(c, (x0 + 52, y0 + HEADER_H / 2), max(0, as_int(card.get("vp"))))
    tx = x0 + 94
    room = x1 - 14 - right_w - tx - (16 if right_w else 0)
    special = _long_text(card.get("special"))
    line = state + (f" · {special}" if special else "")
    for text in _clip(c, line, 12, room, 1, bold=True):
        c.text((tx, y0 + 17), text, 12, fill=ACCENT if special else MUTED, bold=True,
               anchor="lm")
    name = clean_text(card.get("name"), limit=60) or "Battle"
    c.text((tx, y0 + 46), c.fit(name, 24, room, bold=True), 24, fill=TEXT, bold=True,
           anchor="lm", role="turn")
    _forces_row(c, tx, y0 + 78, _forces(card.get("forces")), tx + room)
    return tx + room + 16, x1 - 14


def _firing_track(c: Canvas, x1: float, cy: float, phase: Any) -> None:
    """Right-aligned at ``x1``: the firing phases 1-4, then Withdraw, the current one gold."""
    items = [(str(p), p) for p in FIRING_PHASES] + [("Withdraw", "withdraw")]
    widths = [max(32.0, c.text_width(label, BIG, bold=True) + 16) for label, _ in items]
    x = x1 - sum(widths) - 4 * (len(items) - 1)
    for (label, key), w in zip(items, widths, strict=True):
        lit = phase == key
        c.rect((x, cy - 15, x + w, cy + 15), fill=GOLD if lit else (54, 58, 70), radius=7)
        c.text((x + w / 2, cy + 0.5), label, BIG, fill=INK if lit else MUTED, bold=True,
               anchor="mm", role="turn")
        x += w + 4


def _track_width(c: Canvas) -> float:
    return 4 * (32 + 4) + c.text_width("Withdraw", BIG, bold=True) + 16


def _header(c: Canvas, view: Mapping[str, Any], table: _Table, battle: Mapping[str, Any],
            outcome: Mapping[str, Any] | None, digest: _Digest) -> None:
    """Across the top of the middle: the outcome, the battle being fought or decided, the
    card being resolved, a battle won since the last board, or what happened instead."""
    y0 = HEADER_BOX[1]
    current = _mapping(view.get("current"))
    card = _mapping(battle.get("card")) or current
    if outcome is not None:
        _outcome_header(c, table, outcome)
    elif battle:
        track_w = _track_width(c)
        rnd = as_int(battle.get("round"))
        rx0, rx1 = _battle_header(c, table, card, "BATTLE" + (f" · ROUND {rnd}" if rnd else ""),
                                  track_w)
        c.text((rx1, y0 + 17), "FIRING PHASE", 12, fill=MUTED, bold=True, anchor="rm")
        _firing_track(c, rx1, y0 + 46, battle.get("phase"))
        agg, dfd = battle.get("aggressor"), battle.get("defender")
        runs: list[Run] = [(table.name(agg), lighten(table.style(agg).bar, 0.25), None),
                           (" attacks ", MUTED, None),
                           (table.name(dfd), lighten(table.style(dfd).bar, 0.25), None)]
        _runs_right(c, rx0, rx1, y0 + 78, runs, 15)
    elif card and _is_battlecard(card):  # drawn: the aggressor decides
        right_w = 200.0
        rx0, rx1 = _battle_header(c, table, card, "BATTLECARD DRAWN", right_w)
        side = _style(card.get("aggressor"))
        aggressor = next((p.get("id") for p in (table.top, table.bottom)
                          if p is not None and p.get("side") == card.get("aggressor")), None)
        c.text((rx1, y0 + 17), "AGGRESSOR", 12, fill=MUTED, bold=True, anchor="rm")
        who = table.name(aggressor) if aggressor is not None else (side.label or "?")
        c.text((rx1, y0 + 46), c.fit(who, 20, rx1 - rx0, bold=True), 20,
               fill=lighten(side.bar, 0.25), bold=True, anchor="rm")
        c.text((rx1, y0 + 78), "attack or decline", 15, fill=MUTED, anchor="rm")
    elif card:
        _resolving_header(c, card)
    elif digest.finished is not None:
        _finished_header(c, view, table, digest.finished)
    else:
        _idle_header(c, view, table, digest)


def _runs_right(c: Canvas, x0: float, x1: float, cy: float, runs: list[Run],
                size: float) -> None:
    """``runs`` on one line, right-aligned at ``x1`` (cut to start at ``x0`` at most)."""
    width = sum(c.text_width(t, size, bold=True) for t, _, _ in runs)
    start = max(x0, x1 - width)
    caps: list[Run] = [(t, col, (x1 - x0) * 0.45 if i % 2 == 0 else None)
                       for i, (t, col, _) in enumerate(runs)]
    text_runs(c, start, cy, caps, size, x1, bold=True)


def _outcome_header(c: Canvas, table: _Table, outcome: Mapping[str, Any]) -> None:
    x0, y0, x1, _ = HEADER_BOX
    c.rect(HEADER_BOX, fill=(54, 48, 30), outline=ACCENT, width=2.5, radius=10)
    winners = [w for w in outcome.get("winners") or [] if isinstance(w, str)][:2]
    runs: list[Run] = []
    for i, winner in enumerate(winners):
        label = table.style(winner).label
        runs += [("" if not i else " and ", TEXT, None), (table.name(winner), TEXT, 380.0),
                 (f" ({label})" if label else "", TEXT, None)]
    runs.append((" win" + ("s" if len(winners) == 1 else "") if winners else "A draw",
                 TEXT, None))
    c.text((x0 + 18, y0 + 17), "GAME OVER", 12, fill=ACCENT, bold=True, anchor="lm")
    text_runs(c, x0 + 18, y0 + 47, runs, 26, x1 - 18, bold=True, role="turn")
    reason = _long_text(outcome.get("reason"), limit=200)
    for line in _clip(c, reason, 15, x1 - x0 - 36, 1):
        c.text((x0 + 18, y0 + 79), line, 15, fill=SOFT, anchor="lm")


def _resolving_header(c: Canvas, card: Mapping[str, Any]) -> None:
    """A conflict card being resolved: its Action Number, name and effect."""
    x0, y0, x1, y1 = HEADER_BOX
    c.rect(HEADER_BOX, fill=PANEL, radius=10)
    c.rect((x0 + 10, y0 + 10, x0 + 70, y1 - 10), fill=FACE, outline=FACE_EDGE, width=1,
           radius=6)
    _action_number(c, (x0 + 40, y0 + HEADER_H / 2), 17, as_int(card.get("action_number")))
    tx = x0 + 86
    kind = clean_text(card.get("kind"), limit=16).replace("_", " ").upper()
    c.text((tx, y0 + 17), "RESOLVING" + (f" · {kind}" if kind else ""), 12, fill=MUTED,
           bold=True, anchor="lm")
    name = clean_text(card.get("name"), 60) or "?"
    c.text((tx, y0 + 46), c.fit(name, 24, x1 - tx - 14, bold=True), 24, fill=TEXT, bold=True,
           anchor="lm", role="turn")
    for line in _clip(c, _long_text(card.get("text")), 15, x1 - tx - 14, 1):
        c.text((tx, y0 + 78), line, 15, fill=SOFT, anchor="lm")


HOW = {"": "BATTLE WON", "uncontested": "BATTLE WON · UNCONTESTED",
       "stalemate": "BATTLE WON · STALEMATE", "evacuation": "BATTLE WON · EVACUATION"}


def _finished_header(c: Canvas, view: Mapping[str, Any], table: _Table,
                     fin: _Finished) -> None:
    """A battle won since the last board: its card, and who won how many points."""
    card = dict(_find_battlecard(view, fin.card))
    card.update(name=fin.card, vp=fin.vp)
    right_w = 230.0
    rx0, rx1 = _battle_header(c, table, card, HOW.get(fin.how, "BATTLE WON"), right_w)
    y0 = HEADER_BOX[1]
    style = table.style(fin.winner)
    c.text((rx1, y0 + 17), "WON BY", 12, fill=MUTED, bold=True, anchor="rm")
    c.text((rx1, y0 + 46), c.fit(table.name(fin.winner), 22, rx1 - rx0, bold=True), 22,
           fill=lighten(style.bar, 0.25), bold=True, anchor="rm")
    gain = f"+{fin.vp} VP" + (f" · {fin.total_vp} in all" if fin.total_vp is not None else "")
    c.text((rx1, y0 + 78), c.fit(gain, BIG, rx1 - rx0, bold=True), BIG, fill=GOLD, bold=True,
           anchor="rm", role="score")


def _idle_header(c: Canvas, view: Mapping[str, Any], table: _Table, digest: _Digest) -> None:
    x0, y0, x1, _ = HEADER_BOX
    c.rect(HEADER_BOX, fill=PANEL, radius=10)
    c.text((x0 + 18, y0 + 17), "IN PLAY", 12, fill=MUTED, bold=True, anchor="lm")
    c.text((x0 + 18, y0 + 46), "No battle in progress", 24, fill=FAINT, bold=True,
           anchor="lm")
    news = digest.news
    runs: list[Run] = []
    if news is not None:
        card = clean_text(news.get("card"), limit=60) or "A battle"
        kind = news.get("type")
        if kind == "declined":
            runs = [(table.name(news.get("player")), SOFT, 300.0),
                    (f" declined {card}", SOFT, None)]
        elif kind == "battle_ignored":
            runs = [(f"{card} ignored: no forces on either side", SOFT, None)]
        else:
            runs = [(f"{card} cannot be fought yet: discarded", SOFT, None)]
    else:
        last = _mapping(view.get("last_move"))
        action = clean_text(last.get("action"), limit=40)
        if action:
            runs = [("Last move: ", MUTED, None), (table.name(last.get("player")), MUTED, 300.0),
                    (f" · {action}", MUTED, None)]
    if runs:
        text_runs(c, x0 + 18, y0 + 78, runs, 15, x1 - 18)


# --- the middle of the table: the body ----------------------------------------------------


def _band(c: Canvas, box: Box, p: Mapping[str, Any] | None, units: list[Mapping[str, Any]],
          style: Style, phase: Any, shots: Mapping[tuple[str | None, str], str], role: str) -> None:
    """One side's revealed units, face up, with a side tab on the left."""
    x0, y0, x1, y1 = box
    _band_frame(c, box, style, f"{style.label.upper() or 'SIDE'} · {role}")
    if p is None:
        return
    if not units:
        ax0, ax1 = x0 + BAND_TAB + 10, x1 - 8
        c.text(((ax0 + ax1) / 2, (y0 + y1) / 2), "No units revealed", BIG,
               fill=lighten(style.mat, 0.35), bold=True, anchor="mm")
        return
    n = len(units)
    level, boxes = card_boxes(box, n)
    shown = units if n <= len(boxes) else units[: len(boxes) - 1]
    for u, b in zip(shown, boxes, strict=False):
        key = _key(u.get("owner"), u.get("ref"))
        _unit_card(c, b, u, style, phase, level, shots.get(key))
    if len(shown) < n:
        bx0, by0, bx1, by1 = boxes[-1]
        dashed_rect(c, boxes[-1], lighten(style.mat, 0.3), 1.5, 6, 4)
        c.text(((bx0 + bx1) / 2, (by0 + by1) / 2), f"+{n - len(shown)} more", 15,
               fill=lighten(style.mat, 0.5), bold=True, anchor="mm")


def _band_frame(c: Canvas, box: Box, style: Style, label: str) -> None:
    x0, y0, _, y1 = box
    c.rect(box, fill=darken(style.mat, 0.25), radius=10)
    tab = BAND_TAB
    c.rect((x0, y0, x0 + tab, y1), fill=style.head, radius=10)
    c.rect((x0 + tab - 8, y0, x0 + tab, y1), fill=style.head)
    c.rect((x0 + tab, y0, x0 + tab + 2, y1), fill=style.head_line)
    _vertical_label(c, (x0 + tab / 2, (y0 + y1) / 2), label, style.head_text)


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
    """``text`` turned to read bottom-up (RGBA, final size)."""
    w = Canvas(1, 1, (0, 0, 0, 0), scale=SCALE, mode="RGBA").text_width(text, size, bold=True)
    c = Canvas(math.ceil(w) + 4, math.ceil(size * 1.5), (0, 0, 0, 0), scale=SCALE, mode="RGBA")
    c.text((2, size * 0.75), text, size, fill=colour, bold=True, anchor="lm")
    return c.finish().rotate(90, expand=True)


def _vertical_label(c: Canvas, centre: Point, text: str, colour: RGB) -> None:
    _paste_centred(c, _vertical_text(text, 10.5, colour), centre)


#: The order of a report's units: the destroyed first, then the withdrawn, then the rest.
FATE_ORDER = {"destroyed": 0, "withdrawn": 1}


def _report(c: Canvas, box: Box, table: _Table, fin: _Finished) -> None:
    """A battle fought since the last board: every unit seen in it and its fate."""
    x0, y0, x1, y1 = box
    c.rect(box, fill=PANEL, radius=10)
    hits = sum(1 for s in fin.shots if s.get("hit") is True)
    lost = sum(1 for u in fin.units if u.fate == "withdrawn")
    summary = f"{len(fin.shots)} shot{'s' if len(fin.shots) != 1 else ''} · {hits} hit" + \
        ("s" if hits != 1 else "") + (f" · {lost} withdrawn" if lost else "")
    c.text((x1 - 14, y0 + 17), summary, 13, fill=MUTED, bold=True, anchor="rm")
    room = x1 - x0 - 42 - c.text_width(summary, 13, bold=True)
    runs: list[Run] = [("BATTLE REPORT · ", MUTED, None), (fin.card, TEXT, None),
                       (f" · {fin.vp} VP", GOLD, None)]
    text_runs(c, x0 + 14, y0 + 17, runs, 13, x0 + 14 + room, bold=True)
    band_h = (y1 - y0 - 34 - 8 - BAND_GAP) / 2
    for i, p in enumerate((table.top, table.bottom)):
        by0 = y0 + 34 + i * (band_h + BAND_GAP)
        band = (x0 + 6, by0, x1 - 6, by0 + band_h)
        pid = p.get("id") if p is not None else None
        style = _style(p.get("side")) if p is not None else OTHER
        role = "WON" if pid is not None and pid == fin.winner else "LOST"
        _band_frame(c, band, style, f"{style.label.upper() or 'SIDE'} · {role}")
        mine = sorted((u for u in fin.units if pid is not None and u.owner == pid),
                      key=lambda u: FATE_ORDER.get(u.fate, 2))
        _fought_grid(c, band, mine, style)


def _fought_grid(c: Canvas, band: Box, units: list[_Fought], style: Style) -> None:
    """A side's units in two columns (down the first, then the second): large rows when
    few, else smaller ones and "+N more" when they still do not fit."""
    x0, y0, x1, y1 = band
    ax0, ay0, ax1, ay1 = x0 + BAND_TAB + 10, y0 + 7, x1 - 8, y1 - 7
    if not units:
        c.text(((ax0 + ax1) / 2, (ay0 + ay1) / 2), "No units seen", 15,
               fill=lighten(style.mat, 0.35), bold=True, anchor="mm")
        return
    cols = 2

    def rows_of(row_h: float, gap: float) -> int:
        return max(1, int((ay1 - ay0 + gap) // (row_h + gap)))

    big, small = (34.0, 6.0, 16.0), (25.0, 4.0, 14.0)  # row height, gap, font size
    row_h, gap, size = big if len(units) <= cols * rows_of(big[0], big[1]) else small
    rows = rows_of(row_h, gap)
    cw = (ax1 - ax0 - gap * (cols - 1)) / cols
    cells = cols * rows
    shown = units if len(units) <= cells else units[: cells - 1]
    for i, u in enumerate(shown):
        col, r = divmod(i, rows)
        bx, by = ax0 + col * (cw + gap), ay0 + r * (row_h + gap)
        _fought_chip(c, (bx, by, bx + cw, by + row_h), u, style, size)
    if len(shown) < len(units):
        col, r = divmod(len(shown), rows)
        bx, by = ax0 + col * (cw + gap), ay0 + r * (row_h + gap)
        c.text((bx + 8, by + row_h / 2), f"+{len(units) - len(shown)} more", size,
               fill=lighten(style.mat, 0.5), bold=True, anchor="lm")


def _fought_chip(c: Canvas, box: Box, u: _Fought, style: Style, size: float) -> None:
    x0, y0, x1, y1 = box
    cy = (y0 + y1) / 2
    destroyed = u.fate == "destroyed"
    c.rect(box, fill=darken(style.mat, 0.45) if not destroyed else (40, 38, 38), radius=5)
    x = _ref_chip(c, x0 + 5, cy, u.ref, style, size - 1)
    right = x1 - 6
    if u.fate:
        label, colour = ("DESTROYED", HIT) if destroyed else ("WITHDRAWN", WITHDRAWN)
        right = pill(c, right, cy - size * 0.62, label, colour, size=size * 0.75,
                     height=size * 1.25, text=TEXT) - 6
    name = c.fit(u.name or "?", size, right - x - 8)
    c.text((x + 8, cy), name, size, fill=TEXT if not destroyed else MUTED, anchor="lm")
    if destroyed:
        c.line([(x + 8, cy + 1), (x + 8 + c.text_width(name, size), cy + 1)], fill=MUTED,
               width=1.2)


def _battle_list(c: Canvas, view: Mapping[str, Any], table: _Table, box: Box) -> None:
    """The Battlecard List reference card: every battle, its VP and where it is."""
    x0, y0, x1, y1 = box
    c.rect(box, fill=PANEL, radius=10)
    entries = _maps(view.get("battlecard_list"), 40)
    c.text((x0 + 14, y0 + 17), "BATTLECARD LIST", 13, fill=MUTED, bold=True, anchor="lm")
    if not entries:
        c.text((x0 + 14, y0 + 50), "No battles listed", 15, fill=FAINT, anchor="lm")
        return
    remaining = [e for e in entries if e.get("status") in ("in deck", "in play")]
    c.text((x1 - 14, y0 + 17), f"{len(remaining)} of {len(entries)} to fight · "
           f"{sum(max(0, as_int(e.get('vp'))) for e in remaining)} VP", 13, fill=MUTED,
           bold=True, anchor="rm")
    cols = 4
    rows = max(1, math.ceil(len(entries) / cols))
    gap = 6.0
    gx0, gy0, gx1, gy1 = x0 + 8, y0 + 32, x1 - 8, y1 - 8
    tw = (gx1 - gx0 - gap * (cols - 1)) / cols
    th = min(90.0, (gy1 - gy0 - gap * (rows - 1)) / rows)
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
    c.rect(box, fill=fill, outline=outline, width=2 if status in ("in play", "won") else 1,
           radius=6)
    c.rect((x0, y0, x0 + 5, y1), fill=style.head_line if style is not OTHER else FAINT,
           radius=2)
    fg = TEXT if not done else MUTED
    name = clean_text(e.get("name"), limit=50) or "Battle"
    vp = f"{max(0, as_int(e.get('vp')))}"
    c.text((x1 - 8, y0 + 14), vp, 16, fill=GOLD if not done else FAINT, bold=True,
           anchor="rm")
    room = x1 - x0 - 26 - c.text_width(vp, 16, bold=True)
    lines = _clip(c, name, 13.5, room, 2 if h >= 56 else 1, bold=True)
    for i, line in enumerate(lines):
        ly = y0 + 14 + i * 16
        c.text((x0 + 12, ly), line, 13.5, fill=fg, bold=True, anchor="lm")
        if status == "discarded":
            c.line([(x0 + 12, ly + 1), (x0 + 12 + c.text_width(line, 13.5, bold=True), ly + 1)],
                   fill=MUTED, width=1.2)
    sy = y1 - (10 if h < 44 else 13)
    x = x0 + 12
    for f in _forces(e.get("forces")):
        force_icon(c, f, (x + 6, sy), 6.5, MUTED if not done else FAINT)
        x += 18
    label = {"in deck": "in deck", "in play": "IN PLAY", "discarded": "discarded"}.get(
        status if isinstance(status, str) else "", "")
    colour: Colour = MUTED
    if status == "won":
        colour = lighten(table.style(won_by).bar, 0.15)
        label = "won"
        if won_by is not None:  # the name right-aligned on its own (it may be right-to-left)
            who = c.fit(table.name(won_by), 12.5, max(10.0, x1 - x - 50), bold=True)
            c.text((x1 - 8, sy), who, 12.5, fill=colour, bold=True, anchor="rm")
            label = "won · "
            x1 -= c.text_width(who, 12.5, bold=True)
    elif status == "in play":
        colour = ACCENT
    elif status == "discarded":
        colour = FAINT
    c.text((x1 - 8, sy), c.fit(label, 12.5, x1 - x - 12, bold=status != "in deck"), 12.5,
           fill=colour, bold=status != "in deck", anchor="rm")


# --- the middle of the table: the conflict deck and the shots ----------------------------------


def _conflict_panel(c: Canvas, view: Mapping[str, Any]) -> None:
    x0, y0, x1, y1 = CONFLICT_BOX
    c.rect(CONFLICT_BOX, fill=PANEL, radius=10)
    conflict = _mapping(view.get("conflict"))
    deck = _count(conflict.get("deck_count"))
    discards = _count(conflict.get("discard_count"))
    c.text((x0 + 12, y0 + 15), "CONFLICT", 12, fill=MUTED, bold=True, anchor="lm")
    c.text((x0 + 94, y0 + 15), f"DISCARD · {discards}", 12, fill=MUTED, bold=True,
           anchor="lm")
    _pile(c, (x0 + 16, y0 + 34, x0 + 72, y0 + 112), deck, "conflict")
    c.text((x0 + 44, y0 + 132), _number(deck), 22, fill=TEXT if deck else MUTED, bold=True,
           anchor="mm", role="count")
    top = conflict.get("discard_top")
    face = (x0 + 92, y0 + 30, x1 - 10, y1 - 10)
    if isinstance(top, Mapping):
        _conflict_face(c, face, top)
    else:
        dashed_rect(c, face, (120, 122, 130, 150), 1.5, 6, 4)
        c.text(((face[0] + face[2]) / 2, (face[1] + face[3]) / 2), "empty", 13, fill=FAINT,
               anchor="mm")


def _shots_panel(c: Canvas, table: _Table, shots: list[Mapping[str, Any]], fresh: bool,
                 units: dict[tuple[str | None, str], Mapping[str, Any]]) -> None:
    """The shots since the last board (``fresh``), or else the view's last shots: who shot
    whom, the Action Number drawn, and hit or miss."""
    x0, y0, x1, y1 = SHOTS_BOX
    c.rect(SHOTS_BOX, fill=PANEL, radius=10)
    c.text((x0 + 12, y0 + 15), "SHOTS SINCE LAST BOARD" if fresh else "LAST SHOTS", 12,
           fill=MUTED, bold=True, anchor="lm")
    if not shots:
        c.text(((x0 + x1) / 2, (y0 + y1) / 2 + 8), "No shots fired", BIG, fill=FAINT,
               bold=True, anchor="mm")
        return
    hits = sum(1 for s in shots if s.get("hit") is True)
    tail = f"{hits} hit{'s' if hits != 1 else ''}"
    c.text((x1 - 12, y0 + 15), tail, 14, fill=lighten(HIT, 0.2) if hits else MUTED, bold=True,
           anchor="rm")
    head = f"{len(shots)} fired · "
    c.text((x1 - 12 - c.text_width(tail, 14, bold=True), y0 + 15), head, 14, fill=MUTED,
           bold=True, anchor="rm")
    shown = pick_shots(shots, SHOT_ROWS)
    row_h = (y1 - y0 - 32) / SHOT_ROWS
    for i, shot in enumerate(shown):
        ry = y0 + 30 + i * row_h
        if i:
            c.line([(x0 + 10, ry), (x1 - 10, ry)], fill=(52, 56, 66), width=1)
        _shot_row(c, (x0 + 10, ry, x1 - 10, ry + row_h), shot, table, units)
    if len(shown) < len(shots):
        c.text((x0 + 12 + c.text_width("SHOTS SINCE LAST BOARD" if fresh else "LAST SHOTS",
                                       12, bold=True) + 8, y0 + 15),
               f"({len(shown)} shown)", 12, fill=FAINT, anchor="lm")


def _shot_row(c: Canvas, box: Box, shot: Mapping[str, Any], table: _Table,
              units: dict[tuple[str | None, str], Mapping[str, Any]]) -> None:
    x0, y0, x1, y1 = box
    cy = (y0 + y1) / 2
    x = _ref_chip(c, x0, cy, shot.get("shooter"), table.style(shot.get("shooter_owner")))
    c.text((x + 9, cy), "→", 14, fill=MUTED, bold=True, anchor="mm")
    x = _ref_chip(c, x + 18, cy, shot.get("target"), table.style(shot.get("target_owner")))
    an = as_int(shot.get("action_number"), 0)
    c.rect((x + 8, cy - 11, x + 32, cy + 11), fill=FACE, outline=FACE_EDGE, width=1, radius=3)
    c.text((x + 20, cy + 0.5), str(an) if an else "?", 15, fill=INK, bold=True, anchor="mm")
    x += 38
    hit = shot.get("hit") is True
    right = pill(c, x1, cy - 10, "HIT" if hit else "MISS", HIT if hit else MISS, size=12,
                 height=20, text=TEXT) - 8
    window = _window(shot.get("attack"), shot.get("defense"))
    if window:
        c.text((right, cy), window, 12, fill=MUTED, anchor="rm")
        right -= c.text_width(window, 12) + 10
    a = _unit_name(shot, "shooter", units)
    b = _unit_name(shot, "target", units)
    if a or b:
        c.text((x, cy), c.fit(f"{a or '?'} → {b or '?'}", 12, right - x), 12, fill=SOFT,
               anchor="lm")


def _unit_name(shot: Mapping[str, Any], who: str,
               units: dict[tuple[str | None, str], Mapping[str, Any]]) -> str:
    """A shot's shooter or target by name: from the event, else from the battle's units."""
    name = clean_text(shot.get(f"{who}_name"), limit=40)
    if name:
        return name
    unit = units.get(_key(shot.get(f"{who}_owner"), shot.get(who)))
    return clean_text(_mapping((unit or {}).get("card")).get("name"), 40) if unit else ""


def _window(attack: Any, defense: Any) -> str:
    """The Action Numbers that hit: above the defense, at most the attack."""
    if isinstance(attack, bool) or isinstance(defense, bool) or not (
            isinstance(attack, int) and isinstance(defense, int)):
        return ""
    lo, hi = max(1, defense + 1), min(10, attack)
    if lo > hi:
        return "no hit"
    return f"hits {lo}" if lo == hi else f"hits {lo}–{hi}"


def _ref_chip(c: Canvas, x: float, cy: float, ref: Any, style: Style,
              size: float = 13) -> float:
    """A unit's reference (G1, A2) on its side's colours; returns the chip's right edge."""
    label = _ref(ref)
    h = size * 1.55
    w = max(size * 2.6, c.text_width(label, size, bold=True) + 12)
    c.rect((x, cy - h / 2, x + w, cy + h / 2), fill=style.chip, outline=style.chip_edge,
           width=1.5, radius=4)
    c.text((x + w / 2, cy + 0.5), label, size, fill=TEXT, bold=True, anchor="mm")
    return x + w


# --- the title and the status bar ---------------------------------------------------------------


def _title(c: Canvas, view: Mapping[str, Any], over: bool) -> None:
    c.text((M + 2, 34), "BATTLECARDS", 22, fill=TEXT, bold=True, anchor="ls")
    x = M + 2 + c.text_width("BATTLECARDS", 22, bold=True) + 10
    c.text((x, 34), "Western Front", 14, fill=MUTED, bold=True, anchor="ls")
    rnd = as_int(view.get("round"))
    right: float = WIDTH - M
    if rnd:
        c.text((right, 28), f"Turn {rnd}", 20, fill=TEXT, bold=True, anchor="rm", role="turn")
        right -= c.text_width(f"Turn {rnd}", 20, bold=True) + 12
    phase = "over" if over else view.get("phase")
    label = PHASE_NAMES.get(phase) if isinstance(phase, str) else None
    if label:
        fill: Colour = DANGER if phase == "over" else ACCENT
        pill(c, right, 14, label, fill, size=BIG, height=28,
             text=TEXT if phase == "over" else (30, 30, 34), role="turn")


def _status(c: Canvas, view: Mapping[str, Any], table: _Table, over: bool,
            outcome: Mapping[str, Any] | None) -> None:
    """Who must act (or the final score), then what they must decide."""
    x0, y0, x1, _ = STATUS_BOX
    c.rect(STATUS_BOX, fill=(32, 35, 42), outline=(58, 62, 72), width=1, radius=10)
    top, bottom = y0 + 21, y0 + 47
    prompt = _long_text(view.get("prompt"), limit=200)
    x = x0 + 14
    if over:  # the final score
        runs: list[Run] = [("Final score: ", ACCENT, None)]
        for i, p in enumerate(p for p in (table.top, table.bottom) if p is not None):
            runs += [(" · " if i else "", MUTED, None), (table.name(p.get("id")), TEXT, 260.0),
                     (f" {as_int(p.get('vp'))} VP", TEXT, None)]
        text_runs(c, x, top, runs, 19, x1 - 14, bold=True, role="score")
        reason = _long_text(_mapping(outcome).get("reason"), limit=200) or prompt
        for line in _clip(c, reason or "The game is over", BIG, x1 - x0 - 28):
            c.text((x, bottom), line, BIG, fill=SOFT, anchor="lm", role="turn")
        return
    to_act = view.get("to_act")
    actors = [a for a in to_act[:2] if isinstance(a, str)] if isinstance(to_act, list) else []
    turn = view.get("turn")
    for a in actors:
        c.circle((x + 8, top), 8, fill=table.style(a).bar, outline=(240, 238, 230), width=1.5)
        x += 22
    tail_w = 0.0
    if isinstance(turn, str) and turn not in actors:  # whose turn it is, if someone else acts
        name = c.fit(table.name(turn), BIG, 200, bold=True)
        tail_w = c.text_width(name + "'s turn", BIG, bold=True) + 16
        text_runs(c, x1 - 14 - tail_w + 16, top, [(name, MUTED, None), ("'s turn", MUTED, None)],
                  BIG, x1 - 14, bold=True, role="turn")
    runs = []
    for i, a in enumerate(actors):
        runs += [(" and " if i else "", TEXT, None), (table.name(a), TEXT, 230.0)]
    runs.append((" must act" if actors else "Waiting", TEXT, None))
    text_runs(c, x, top, runs, 19, x1 - 14 - tail_w, bold=True, role="turn")
    for line in _clip(c, prompt, BIG, x1 - x0 - 28):
        c.text((x0 + 14, bottom), line, BIG, fill=SOFT, anchor="lm", role="turn")


# --- the whole image --------------------------------------------------------------------------


@lru_cache(maxsize=2)
def _backdrop() -> Image.Image:
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=SCALE)
    # a felt table top under the middle
    c.rect((M - 5, MID_Y0 - 4, WIDTH - M + 5, MID_Y1 + 4), fill=(33, 38, 36), radius=14)
    return c.finish()


def _hit_marks(shots: list[Mapping[str, Any]]) -> dict[tuple[str | None, str], str]:
    """Which units the shots hit or missed, by (owner, ref)."""
    marks: dict[tuple[str | None, str], str] = {}
    for s in shots:
        key = _key(s.get("target_owner"), s.get("target"))
        if s.get("hit") is True:
            marks[key] = "hit"
        else:
            marks.setdefault(key, "miss")
    return marks


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of a Battlecards view, marking what ``events`` (the public events since
    the last board) did. ``view`` and ``events`` are never modified. Only public fields are
    read: never a player's ``hand``, ``kept`` or ``stack_cards``, nor a private event."""
    table = _Table(view, names)
    digest = read_events(events)
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, base=_backdrop())
    outcome_raw = view.get("outcome")
    outcome = outcome_raw if isinstance(outcome_raw, Mapping) else None
    over = outcome is not None or view.get("phase") == "over"
    winners = {w for w in (outcome or {}).get("winners") or [] if isinstance(w, str)}

    _title(c, view, over)
    _status(c, view, table, over, outcome)
    _mat(c, view, table, table.top, TOP_MAT_Y, winners, over)
    _mat(c, view, table, table.bottom, BOTTOM_MAT_Y, winners, over)

    battle = _mapping(view.get("battle"))
    raw_units = _maps(battle.get("units"), 400)
    units = {_key(u.get("owner"), u.get("ref")): u for u in raw_units}
    last_shots = _maps(view.get("last_shots"), 1000)
    fresh = bool(digest.shots)
    shots = digest.shots if fresh else last_shots
    _header(c, view, table, battle, outcome, digest)
    if battle:
        marks = _hit_marks(digest.battle_shots if fresh else last_shots)
        phase = battle.get("phase")
        aggressor = battle.get("aggressor")
        for p, band in zip((table.top, table.bottom), BANDS, strict=True):
            pid = p.get("id") if p is not None else None
            mine = [u for u in raw_units if pid is not None and u.get("owner") == pid]
            role = "ATTACKER" if pid == aggressor else "DEFENDER"
            _band(c, band, p, mine, _style(p.get("side")) if p is not None else OTHER, phase,
                  marks, role)
    elif digest.finished is not None and (digest.finished.units or digest.finished.shots):
        _report(c, BODY_BOX, table, digest.finished)
    else:
        _battle_list(c, view, table, BODY_BOX)
    _conflict_panel(c, view)
    _shots_panel(c, table, shots, fresh, units)
    return c.png(load_palette(KIND))
