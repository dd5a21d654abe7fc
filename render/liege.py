"""The Liège board: a 10x10 (or 8x8) grid, a1 bottom-left, and a player panel.

Drawn from the public view dict only (``docs/games/liege-interface.md``): each player's
home edge tinted in their colour with their two highlighted squares bracketed; pieces as
counters in the owner's colour with a drawn icon (Rifle, Machine Gun, Mortar, Armored
Vehicle), Trenches as neutral earthworks, Generals as gold-starred discs (inside a Trench
or riding an Armored Vehicle when they are); facing arrows on Machine Guns and Mortars,
damage bursts, and small marks on pieces that fought or are new this turn. A selected
piece's range is washed blue.

On top, what ``events`` did (every public event since the last image, e.g. a whole
turn): a gold trail and arrow for every General move and piece shift, both sides of every
fight (attackers solid red, defenders dashed white, an arrow from -> to), every blast area
hatched by kind with the shot from the firer, every purchase framed in dashed gold, a red
cross where a piece was destroyed and a dashed arrow where a General fell back; the panel
tells the turn in a "THIS TURN" box. Without usable events the view's last fight, blast
and move are drawn instead.

The panel shows the round, phase, who must act, every player's credits, lives, limits
left and Missile / Mustard Gas prices and the damage-token pool; the shop's prices run
under the board with a key to the marks. Text a player needs to decide (the status line,
credits, limits left, damage tokens left) is marked with its role and drawn at least
:func:`render.common.min_essential_size` tall, so it stays readable on a phone.
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
    MAX_EVENTS,
    MUTED,
    NEUTRAL,
    PANEL,
    PANEL_HIGHLIGHT,
    RGB,
    TEXT,
    Canvas,
    Colour,
    Players,
    Point,
    arrow,
    as_int,
    burst,
    clean_text,
    coin_icon,
    darken,
    dashed_rect,
    drawable_events,
    heart,
    lighten,
    load_palette,
    min_essential_size,
    mix,
    note_actor,
    pill,
    seat_colour,
    star_points,
    with_alpha,
)

WIDTH, HEIGHT = 1100, 840
SCALE = 2  # sprites and static layers are drawn this many times larger, then reduced
KIND = "liege"

FILES = "abcdefghij"
SIZES = range(4, 11)  # the engine uses 10 and 8; anything else falls back to 10

# Board geometry (final pixels): the board is the same size whatever the grid.
BOARD_PX = 680
BOARD_X, BOARD_Y = 46, 26
FRAME_PAD = 10
SHOP_Y = BOARD_Y + BOARD_PX + 44  # the shop strip under the board
SHOP_HEIGHT = 48
KEY_Y = SHOP_Y + SHOP_HEIGHT + 22  # and the key under that

# Side panel.
PANEL_X0, PANEL_X1 = 766, 1084

# The game's constants the panel needs (the War Stats Table; the view carries the rest).
START_LIVES = 3
DAMAGE_TOKENS = 5
BASE_PRICES = {"rifle": 20, "mg": 130, "mortar": 160, "av": 210, "trench": 40,
               "grenade": 80, "missile": 30, "gas": 40}
LIMITS = {"trench": 3, "grenade": 3, "missile": 2, "gas": 2}
PIECE_TYPES = ("rifle", "mg", "mortar", "av", "trench")
FACINGS = ("n", "e", "s", "w")
NAMES = {"rifle": "Rifle", "mg": "Machine Gun", "mortar": "Mortar", "av": "Armored Vehicle",
         "trench": "Trench", "grenade": "Grenade", "missile": "Missile", "gas": "Mustard Gas",
         "general": "General"}
SHORT = {"rifle": "Rifle", "mg": "MG", "mortar": "Mortar", "av": "AV", "trench": "Trench",
         "grenade": "Grenade", "missile": "Missile", "gas": "Gas"}

GROUND: tuple[RGB, RGB] = ((84, 82, 68), (74, 72, 60))
FRAME: RGB = (17, 18, 22)
ICON: RGB = (247, 242, 229)  # the light silhouettes on counters
GOLD: RGB = (250, 204, 72)
EARTH: RGB = (122, 92, 58)
RANGE: RGB = (92, 206, 255)
DEFENDER: RGB = (240, 240, 246)
BLAST_COLOURS: dict[str, RGB] = {"grenade": (255, 138, 36), "missile": (238, 52, 44),
                                 "gas": (186, 214, 48)}
PHASES = (("general", "General"), ("deploy", "Deploy"), ("move", "Move"), ("fight", "Fight"))


# --- view access (tolerant: a missing or odd field never crashes a render) ---------------


class _Board:
    """Geometry of an ``n`` x ``n`` grid inside the fixed board area."""

    def __init__(self, size: Any) -> None:
        n = as_int(size, 10)
        self.n = n if n in SIZES else 10
        self.cell = BOARD_PX / self.n
        self.files = FILES[: self.n]

    def coords(self, name: Any) -> tuple[int, int] | None:
        """(file index, rank index) of a square name, or None."""
        if not isinstance(name, str) or not 2 <= len(name) <= 3:
            return None
        f, r = name[0].lower(), name[1:]
        if f not in self.files or not r.isascii() or not r.isdigit() or r[0] == "0":
            return None
        rank = int(r)
        if not 1 <= rank <= self.n:
            return None
        return self.files.index(f), rank - 1

    def box(self, name: Any) -> tuple[float, float, float, float] | None:
        xy = self.coords(name)
        if xy is None:
            return None
        return self.box_at(*xy)

    def box_at(self, fi: int, ri: int) -> tuple[float, float, float, float]:
        x = BOARD_X + fi * self.cell
        y = BOARD_Y + (self.n - 1 - ri) * self.cell
        return x, y, x + self.cell, y + self.cell

    def centre(self, name: Any) -> Point | None:
        b = self.box(name)
        return None if b is None else ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)

    def home(self, side: Any) -> list[tuple[int, int]]:
        """The (file, rank) indexes of a side's home edge."""
        last = self.n - 1
        if side == "south":
            return [(f, 0) for f in range(self.n)]
        if side == "north":
            return [(f, last) for f in range(self.n)]
        if side == "west":
            return [(0, r) for r in range(self.n)]
        if side == "east":
            return [(last, r) for r in range(self.n)]
        return []


def _squares(board: _Board, value: Any, limit: int = 200) -> list[str]:
    """The valid, distinct square names in a list (lower case, in order)."""
    out: list[str] = []
    if isinstance(value, list):
        for s in value[:limit]:
            if board.coords(s) is not None and s.lower() not in out:
                out.append(s.lower())
    return out


def _mapping(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _square(board: _Board, value: Any) -> str | None:
    return value.lower() if board.coords(value) is not None else None


# --- icons (drawn on any canvas around a centre, ``r`` is about half their width) -------


def _tf(centre: Point, r: float, angle: float = 0.0,
        flip: bool = False) -> Callable[[Sequence[Point]], list[Point]]:
    """Maps unit points (x right, y down, about -1..1) to canvas points."""
    cx, cy = centre
    ca, sa = math.cos(angle), math.sin(angle)

    def f(pts: Sequence[Point]) -> list[Point]:
        out = []
        for u, v in pts:
            if flip:
                u = -u
            out.append((cx + (u * ca - v * sa) * r, cy + (u * sa + v * ca) * r))
        return out

    return f


def _thick(c: Canvas, pts: Sequence[Point], fill: Colour, outline: Colour, width: float,
           edge: float) -> None:
    """A line with an outline: ``width`` wide inside, ``edge`` more on each side."""
    c.line(list(pts), fill=outline, width=width + 2 * edge, round_caps=True)
    c.line(list(pts), fill=fill, width=width, round_caps=True)


def rifle_icon(c: Canvas, centre: Point, r: float, fill: Colour, outline: Colour,
               flip: bool = False) -> None:
    """A bayoneted rifle, slanting up to the right."""
    t = _tf((centre[0] + r * 0.04, centre[1] + r * 0.05), r, -0.62, flip)
    body = [(-1.02, -0.08), (-0.46, -0.16), (0.22, -0.16), (0.24, -0.08), (0.80, -0.08),
            (0.83, -0.15), (0.87, -0.08), (1.22, -0.02), (0.87, 0.06), (0.22, 0.06),
            (0.22, 0.10), (0.04, 0.10), (-0.02, 0.36), (-0.20, 0.36), (-0.18, 0.12),
            (-0.44, 0.12), (-0.94, 0.40), (-1.06, 0.36)]
    c.polygon(t(body), fill=fill, outline=outline, width=max(1.0, r * 0.07))
    # the sling and the bolt
    c.line(t([(-0.78, 0.27), (0.42, 0.09)]), fill=outline, width=max(1.0, r * 0.05))
    c.circle(t([(0.06, -0.22)])[0], r * 0.07, fill=fill, outline=outline,
             width=max(1.0, r * 0.05))


def mg_icon(c: Canvas, centre: Point, r: float, fill: Colour, outline: Colour,
            flip: bool = False) -> None:
    """A water-cooled machine gun on its tripod, muzzle to the right."""
    t = _tf(centre, r, 0.0, flip)
    ew = max(1.0, r * 0.06)
    leg = r * 0.11
    for foot in ((-0.72, 0.80), (0.52, 0.80), (-0.05, 0.86)):
        _thick(c, t([(-0.12, 0.0), foot]), fill, outline, leg, ew)
    c.polygon(t([(-0.34, -0.38), (0.58, -0.38), (0.58, 0.06), (-0.34, 0.06)]), fill=fill,
              outline=outline, width=ew)  # the water jacket
    for u in (-0.14, 0.08, 0.30, 0.50):
        c.line(t([(u, -0.36), (u, 0.04)]), fill=outline, width=max(1.0, r * 0.05))
    c.polygon(t([(0.58, -0.22), (0.96, -0.22), (0.96, -0.10), (0.58, -0.10)]), fill=fill,
              outline=outline, width=ew)  # the barrel
    c.polygon(t([(0.90, -0.28), (1.06, -0.28), (1.06, -0.04), (0.90, -0.04)]), fill=fill,
              outline=outline, width=ew)  # the muzzle
    c.polygon(t([(-0.84, -0.42), (-0.34, -0.42), (-0.34, 0.12), (-0.84, 0.12)]), fill=fill,
              outline=outline, width=ew)  # the receiver
    _thick(c, t([(-0.86, -0.30), (-1.04, -0.30)]), fill, outline, r * 0.09, ew)
    c.polygon(t([(-0.66, 0.12), (-0.40, 0.12), (-0.40, 0.40), (-0.66, 0.40)]), fill=fill,
              outline=outline, width=ew)  # the ammunition box


def mortar_icon(c: Canvas, centre: Point, r: float, fill: Colour, outline: Colour,
                flip: bool = False) -> None:
    """A mortar tube on its base plate and bipod, pointing up to the right."""
    t = _tf(centre, r, 0.0, flip)
    ew = max(1.0, r * 0.06)
    a = math.radians(58)
    dx, dy = math.cos(a), -math.sin(a)
    px, py = -dy, dx
    bx, by = -0.52, 0.60  # the base of the tube
    length, half = 1.55, 0.17
    tube = [(bx + px * half, by + py * half), (bx + dx * length + px * half,
                                               by + dy * length + py * half),
            (bx + dx * length - px * half, by + dy * length - py * half),
            (bx - px * half, by - py * half)]
    mid = (bx + dx * length * 0.62, by + dy * length * 0.62)
    for foot in ((0.34, 0.84), (0.70, 0.80)):
        _thick(c, t([mid, foot]), fill, outline, r * 0.09, ew)
    c.polygon(t([(-1.0, 0.66), (-0.08, 0.66), (-0.16, 0.86), (-0.92, 0.86)]), fill=fill,
              outline=outline, width=ew)  # the base plate
    c.polygon(t(tube), fill=fill, outline=outline, width=ew)
    mx, my = bx + dx * length, by + dy * length
    rim = half * 1.35
    c.polygon(t([(mx + px * rim - dx * 0.14, my + py * rim - dy * 0.14),
                 (mx + px * rim, my + py * rim), (mx - px * rim, my - py * rim),
                 (mx - px * rim - dx * 0.14, my - py * rim - dy * 0.14)]),
              fill=fill, outline=outline, width=ew)
    c.line(t([(mid[0] + 0.05, mid[1] + 0.18), (0.52, 0.46)]), fill=outline,
           width=max(1.0, r * 0.06))
    c.circle(t([mid])[0], r * 0.1, fill=fill, outline=outline, width=ew)


def av_icon(c: Canvas, centre: Point, r: float, fill: Colour, outline: Colour,
            flip: bool = False, track: Colour | None = None) -> None:
    """An armored vehicle: tracks, hull, turret and gun, gun to the right."""
    t = _tf(centre, r, 0.0, flip)
    ew = max(1.0, r * 0.06)
    dark = track if track is not None else outline
    # tracks: a long rounded band with road wheels
    c.rect(_bbox(t([(-1.0, 0.14), (1.0, 0.70)])), fill=dark, radius=r * 0.27)
    for u in (-0.66, -0.22, 0.22, 0.66):
        wx, wy = t([(u, 0.42)])[0]
        c.circle((wx, wy), r * 0.17, fill=fill, outline=dark, width=ew)
        c.circle((wx, wy), r * 0.05, fill=dark)
    c.polygon(t([(-0.94, 0.16), (-0.74, -0.16), (0.70, -0.16), (0.96, 0.16)]), fill=fill,
              outline=outline, width=ew)  # the hull
    c.line(t([(0.32, -0.40), (1.10, -0.40)]), fill=outline, width=r * 0.15 + 2 * ew)
    c.line(t([(0.32, -0.40), (1.08, -0.40)]), fill=fill, width=r * 0.15)  # the gun
    c.polygon(t([(-0.46, -0.16), (-0.38, -0.58), (0.22, -0.58), (0.38, -0.16)]), fill=fill,
              outline=outline, width=ew)  # the turret
    c.circle(t([(-0.10, -0.64)])[0], r * 0.1, fill=fill, outline=outline, width=ew)


def _bbox(pts: Sequence[Point]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def general_icon(c: Canvas, centre: Point, r: float, colour: Colour,
                 shadow: bool = True) -> None:
    """A General: a disc in ``colour`` ringed in gold with a big gold star."""
    x, y = centre
    dark = darken(colour, 0.5)
    if shadow:
        c.circle((x + r * 0.06, y + r * 0.12), r * 1.04, fill=(0, 0, 0, 110))
    c.circle((x, y), r, fill=darken(GOLD, 0.45))
    c.circle((x, y), r * 0.93, fill=GOLD)
    c.circle((x, y), r * 0.78, fill=dark)
    c.circle((x, y - r * 0.03), r * 0.73, fill=colour)
    c.polygon(star_points((x, y + r * 0.04), r * 0.64, r * 0.27), fill=GOLD,
              outline=(48, 32, 6), width=max(1.0, r * 0.1))


def trench_icon(c: Canvas, box: tuple[float, float, float, float]) -> None:
    """An earthwork filling ``box``: a zig-zag trench between rows of sandbags."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    c.rect((x0 + w * 0.03, y0 + h * 0.06, x1 + w * 0.02, y1 + h * 0.05), fill=(0, 0, 0, 100),
           radius=w * 0.18)
    c.rect(box, fill=EARTH, outline=darken(EARTH, 0.5), width=max(1.0, w * 0.025),
           radius=w * 0.18)
    c.rect((x0 + w * 0.06, y0 + h * 0.06, x1 - w * 0.06, y0 + h * 0.22),
           fill=lighten(EARTH, 0.14), radius=w * 0.08)
    # the dug channel: a dark zig-zag
    mid = y0 + h * 0.52
    zig = [(x0 + w * 0.08, mid)]
    for i in range(1, 6):
        zig.append((x0 + w * (0.08 + 0.168 * i), mid + (-1) ** i * h * 0.12))
    c.line(zig, fill=darken(EARTH, 0.55), width=h * 0.2, round_caps=True)
    c.line(zig, fill=darken(EARTH, 0.72), width=h * 0.09, round_caps=True)
    # sandbags along the top and bottom lips
    bag = (218, 196, 146)
    seam = darken(bag, 0.45)
    bw, bh = w * 0.2, h * 0.13
    for row, offset in ((y0 + h * 0.1, 0.0), (y1 - h * 0.1 - bh, 0.5)):
        for i in range(4):
            bx = x0 + w * 0.09 + (i + offset) * bw * 1.02
            if bx + bw > x1 - w * 0.05:
                continue
            c.rect((bx, row, bx + bw, row + bh), fill=bag, outline=seam,
                   width=max(1.0, w * 0.018), radius=bh * 0.45)


def grenade_icon(c: Canvas, centre: Point, r: float, fill: Colour = (112, 132, 78),
                 outline: Colour = (26, 30, 20)) -> None:
    """A "pineapple" hand grenade."""
    x, y = centre
    ew = max(1.0, r * 0.09)
    c.rect((x - r * 0.2, y - r * 0.86, x + r * 0.24, y - r * 0.5), fill=(170, 170, 176),
           outline=outline, width=ew)
    c.line([(x + r * 0.22, y - r * 0.8), (x + r * 0.62, y - r * 0.36)], fill=(170, 170, 176),
           width=r * 0.14)  # the lever
    c.circle((x - r * 0.42, y - r * 0.72), r * 0.2, outline=(200, 200, 206), width=ew)
    c.ellipse((x - r * 0.6, y - r * 0.56, x + r * 0.6, y + r * 0.96), fill=fill,
              outline=outline, width=ew)
    for k in (-0.25, 0.2, 0.62):
        c.line([(x - r * 0.56, y + r * k), (x + r * 0.56, y + r * k)], fill=outline,
               width=ew * 0.9)
    c.line([(x, y - r * 0.54), (x, y + r * 0.94)], fill=outline, width=ew * 0.9)


def missile_icon(c: Canvas, centre: Point, r: float, fill: Colour = (214, 218, 226),
                 outline: Colour = (30, 30, 36), accent: Colour = DANGER) -> None:
    """A finned rocket flying up to the right."""
    t = _tf(centre, r, -math.pi / 4)
    ew = max(1.0, r * 0.08)
    c.polygon(t([(-0.92, -0.14), (-1.2, -0.1), (-1.2, 0.1), (-0.92, 0.14)]),
              fill=(255, 176, 56))  # the flame
    for side in (-1, 1):
        c.polygon(t([(-0.3, side * 0.24), (-0.98, side * 0.66), (-0.9, side * 0.16)]),
                  fill=accent, outline=outline, width=ew)
    c.polygon(t([(-0.92, -0.27), (0.36, -0.27), (1.08, 0.0), (0.36, 0.27), (-0.92, 0.27)]),
              fill=fill, outline=outline, width=ew)
    c.polygon(t([(0.36, -0.27), (1.08, 0.0), (0.36, 0.27)]), fill=accent, outline=outline,
              width=ew)


def gas_icon(c: Canvas, centre: Point, r: float, fill: Colour = (196, 214, 70),
             outline: Colour = (60, 70, 14)) -> None:
    """A cloud of mustard gas."""
    x, y = centre
    puffs = ((-0.5, 0.18, 0.42), (0.0, -0.12, 0.55), (0.52, 0.14, 0.44), (0.06, 0.34, 0.44))
    ew = max(1.0, r * 0.1)
    for px, py, pr in puffs:
        c.circle((x + px * r, y + py * r), pr * r + ew, fill=outline)
    for px, py, pr in puffs:
        c.circle((x + px * r, y + py * r), pr * r, fill=fill)
    c.circle((x - r * 0.14, y - r * 0.28), r * 0.18, fill=lighten(fill, 0.4))


WEAPON_ICONS: dict[str, Callable[..., None]] = {"grenade": grenade_icon,
                                                "missile": missile_icon, "gas": gas_icon}
COUNTER_ICONS: dict[str, Callable[..., None]] = {"rifle": rifle_icon, "mg": mg_icon,
                                                 "mortar": mortar_icon, "av": av_icon}


def _counter(c: Canvas, box: tuple[float, float, float, float], colour: Colour) -> None:
    """A square wargame counter in ``colour`` (opaque colours only: used in sprites)."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    rad = w * 0.16
    c.rect((x0 + w * 0.03, y0 + w * 0.06, x1 + w * 0.03, y1 + w * 0.06), fill=(0, 0, 0, 110),
           radius=rad)
    c.rect(box, fill=darken(colour, 0.5), radius=rad)
    c.rect((x0 + w * 0.04, y0 + w * 0.04, x1 - w * 0.04, y1 - w * 0.06), fill=colour,
           radius=rad * 0.8)
    c.rect((x0 + w * 0.1, y0 + w * 0.06, x1 - w * 0.1, y0 + w * 0.13),
           fill=lighten(colour, 0.22), radius=w * 0.04)


def _facing_tab(c: Canvas, box: tuple[float, float, float, float], facing: str,
                colour: Colour, reach: float) -> None:
    """A bold arrowhead on the counter's ``facing`` edge, reaching ``reach`` beyond it."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    direction = {"n": (0.0, -1.0), "e": (1.0, 0.0), "s": (0.0, 1.0), "w": (-1.0, 0.0)}[facing]
    dx, dy = direction
    px, py = -dy, dx
    edge = w / 2
    base = edge - w * 0.16
    tip = edge + reach
    half = w * 0.22
    pts = [(cx + dx * tip, cy + dy * tip), (cx + dx * base + px * half, cy + dy * base + py * half),
           (cx + dx * base - px * half, cy + dy * base - py * half)]
    c.polygon(pts, fill=ICON, outline=darken(colour, 0.65), width=max(1.5, w * 0.04))


# --- cached sprites (RGBA, final size, one cell square) ---------------------------


def _counter_box(cell: float) -> tuple[float, float, float, float]:
    m = cell * 0.1
    return m, m, cell - m, cell - m


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


@lru_cache(maxsize=4)
def _backdrop(size: int, homes: tuple[tuple[str, RGB, tuple[str, ...]], ...]) -> Image.Image:
    """Background, frame, squares, coordinates, home edges, highlighted squares and the key
    (RGB, final size)."""
    board = _Board(size)
    n, cell = board.n, board.cell
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=SCALE)
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
    for fi, f in enumerate(board.files):
        x = BOARD_X + (fi + 0.5) * cell
        c.text((x, BOARD_Y + BOARD_PX + pad + 12), f, 17, fill=MUTED, bold=True, anchor="mm")
    for ri in range(n):
        y = BOARD_Y + (n - 1 - ri + 0.5) * cell
        c.text((BOARD_X - pad - 14, y), str(ri + 1), 17, fill=MUTED, bold=True, anchor="mm")
    _key_strip(c, KEY_Y)
    return c.finish()


# --- what happened: from the events, else from the view ------------------------------------

#: At most this many events are read (a turn has a few dozen; hostile input stays cheap).
#: Colours of the "THIS TURN" lines by what they tell.
LINE_FIGHT: RGB = (255, 170, 150)
LINE_LOSS: RGB = (255, 196, 120)


@dataclass(frozen=True)
class _Step:
    """A General's or a piece's move; ``src`` None when it was placed (no trail)."""

    player: str | None
    src: str | None
    dst: str


@dataclass(frozen=True)
class _Fight:
    attacker: str | None
    defender: str | None
    src: str | None
    dst: str | None
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    winner: str | None  # "attacker", "defender" or None (unknown)


@dataclass(frozen=True)
class _Blast:
    kind: str
    src: str | None
    target: str | None
    squares: tuple[str, ...]


@dataclass
class _Marks:
    """What the board marks and the panel tells: from the events (a whole turn) or, with
    none usable, from the view's last fight, blast and move."""

    steps: list[_Step] = field(default_factory=list)
    fights: list[_Fight] = field(default_factory=list)
    blasts: list[_Blast] = field(default_factory=list)
    placed: list[str] = field(default_factory=list)  # pieces bought and placed
    lost: list[str] = field(default_factory=list)  # squares where a piece was destroyed
    retreats: list[tuple[str, str]] = field(default_factory=list)  # Generals falling back
    actors: list[str] = field(default_factory=list)  # who acted, in order of first action
    lines: list[tuple[int, str, Colour]] = field(default_factory=list)  # priority, text
    ended: bool = False
    from_events: bool = False

    def __bool__(self) -> bool:
        return bool(self.steps or self.fights or self.blasts or self.placed or self.lost
                    or self.retreats or self.lines or self.ended)

    def acted(self, player: Any) -> str | None:
        return note_actor(self.actors, player)


def _unit_squares(board: _Board, value: Any) -> tuple[str, ...]:
    """The squares of a fight side: a list of names or of {"square": name} entries."""
    if not isinstance(value, list):
        return ()
    names = [u.get("square") if isinstance(u, Mapping) else u for u in value[:40]]
    return tuple(_squares(board, names))


def _piece_name(kind: Any) -> str:
    if kind == "general":
        return "General"
    return SHORT.get(kind, "Piece") if isinstance(kind, str) else "Piece"


def _marks_from_events(events: Any, board: _Board, players: Players) -> _Marks:
    """The marks of ``events``: private, unknown and malformed events are skipped."""
    m = _Marks(from_events=True)
    shifts: list[int] = []  # where the pieces' moves are told
    for e in drawable_events(events, MAX_EVENTS):
        kind = e["type"]
        who = e.get("player")
        src, dst = _square(board, e.get("from")), _square(board, e.get("to"))
        if kind == "general_placed":
            square = _square(board, e.get("square"))
            if square is not None:
                m.steps.append(_Step(m.acted(who), None, square))
                m.lines.append((3, f"General placed on {square}", TEXT))
        elif kind in ("general_move", "shift"):
            if src is None or dst is None or src == dst:
                continue
            m.steps.append(_Step(m.acted(who), src, dst))
            piece = "General" if kind == "general_move" else _piece_name(e.get("piece"))
            if kind == "shift":
                shifts.append(len(m.lines))
            m.lines.append((2 if kind == "general_move" else 3, f"{piece} {src} → {dst}", TEXT))
        elif kind == "turn":
            square = _square(board, e.get("square"))
            facing = e.get("to")
            if square is not None and facing in FACINGS:
                m.acted(who)
                m.lines.append((4, f"{_piece_name(e.get('piece'))} {square} turned "
                                   f"{str(facing).upper()}", TEXT))
        elif kind == "buy":
            square = _square(board, e.get("square"))
            if square is not None:
                m.acted(who)
                m.placed.append(square)
                m.lines.append((2, f"Bought {_piece_name(e.get('piece'))} on {square}", TEXT))
        elif kind in BLAST_COLOURS:
            target = _square(board, e.get("target"))
            squares = tuple(_squares(board, e.get("squares"), 25))
            if target is None and not squares:
                continue
            m.acted(who)
            m.blasts.append(_Blast(kind, _square(board, e.get("from")), target, squares))
            hit = _blast_losses(board, kind, e, m.lost)
            m.lines.append((1, f"{SHORT[kind]} at {target or '?'}: {hit}",
                            lighten(BLAST_COLOURS[kind], 0.35)))
        elif kind == "fight":
            fight = _Fight(_str(e.get("attacker")), _str(e.get("defender")), src, dst,
                           _unit_squares(board, e.get("attackers")),
                           _unit_squares(board, e.get("defenders")), _winner(e.get("winner")))
            if fight.dst is None and not fight.attackers and not fight.defenders:
                continue
            m.acted(fight.attacker)
            m.fights.append(fight)
            won = fight.attacker if fight.winner == "attacker" else (
                fight.defender if fight.winner == "defender" else None)
            where = f"{src or '?'} → {dst or '?'}"
            m.lines.append((1, f"Fight {where}" + (f": {players.name(won)} won" if won
                                                     else ""), LINE_FIGHT))
        elif kind == "casualty":
            square = _square(board, e.get("square"))
            result = e.get("result")
            if square is None or not isinstance(result, str) or result == "life lost":
                continue  # (not an action of the loser's: a single candidate is automatic)
            if result in ("destroyed", "vehicle destroyed"):
                m.lost.append(square)
            text = {"destroyed": "destroyed", "vehicle destroyed": "AV destroyed",
                    "damaged": "damaged", "prices raised": "prices +20"}.get(result)
            if text is not None:
                m.lines.append((2, f"{_piece_name(e.get('piece'))} {square} {text}", LINE_LOSS))
        elif kind == "life_lost":
            square, back = _square(board, e.get("square")), _square(board, e.get("to"))
            if square is not None and back is not None and square != back:
                m.retreats.append((square, back))
            lives = e.get("lives")
            left = f" ({as_int(lives)} left)" if isinstance(lives, int) else ""
            if isinstance(who, str):
                m.lines.append((1, f"{players.name(who)} loses a life{left}", LINE_LOSS))
        elif kind == "eliminated":
            if isinstance(who, str):
                m.lines.append((0, f"{players.name(who)} is out", LINE_FIGHT))
        elif kind == "edge_win":
            if isinstance(who, str):
                m.lines.append((0, f"{players.name(who)} holds the far edge", ACCENT))
        elif kind == "end_turn":
            if m.acted(who) is not None:
                m.ended = True
                bonus = as_int(e.get("bonus"))
                if bonus > 0:
                    m.lines.append((3, f"Forward bonus +{bonus}c", ACCENT))
        elif kind in ("skip", "done"):
            m.acted(who)
    if len(shifts) > 2:  # told once, where the first was
        m.lines[shifts[0]] = (3, f"{len(shifts)} pieces moved", TEXT)
        for i in reversed(shifts[1:]):
            del m.lines[i]
    return m


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _winner(value: Any) -> str | None:
    return value if value in ("attacker", "defender") else None


def _blast_losses(board: _Board, kind: str, e: Mapping[str, Any], lost: list[str]) -> str:
    """What a weapon did, in words; adds the squares of destroyed pieces to ``lost``."""
    destroyed = damaged = 0
    key = {"grenade": "rolls", "missile": "destroyed", "gas": "effects"}[kind]
    entries = e.get(key)
    for entry in entries[:25] if isinstance(entries, list) else []:
        if not isinstance(entry, Mapping):
            continue
        square = _square(board, entry.get("square"))
        gone = (kind == "missile" or (kind == "grenade" and entry.get("survived") is False)
                or (kind == "gas" and entry.get("result") == "destroyed"))
        if gone:
            destroyed += 1
            if square is not None:
                lost.append(square)
        elif kind == "gas" and entry.get("result") == "damaged":
            damaged += 1
    parts = []
    if destroyed:
        parts.append(f"{destroyed} destroyed")
    if damaged:
        parts.append(f"{damaged} damaged")
    return ", ".join(parts) or "no losses"


def _marks_from_view(view: Mapping[str, Any], board: _Board) -> _Marks:
    """The last fight, blast and move the view carries (images without events)."""
    m = _Marks()
    fight = _mapping(view.get("last_fight"))
    ends = None
    if fight is not None:
        f = _Fight(_str(fight.get("attacker")), _str(fight.get("defender")),
                   _square(board, fight.get("from")), _square(board, fight.get("to")),
                   _unit_squares(board, fight.get("attackers")),
                   _unit_squares(board, fight.get("defenders")), _winner(fight.get("winner")))
        m.fights.append(f)
        ends = (f.src, f.dst)
    blast = _mapping(view.get("blast"))
    if blast is not None:
        kind = blast.get("kind")
        m.blasts.append(_Blast(kind if kind in BLAST_COLOURS else "missile", None,
                               _square(board, blast.get("target")),
                               tuple(_squares(board, blast.get("squares"), 25))))
    last = _mapping(view.get("last_move")) or {}
    src, dst = _square(board, last.get("from")), _square(board, last.get("to"))
    if dst is not None and (src, dst) != ends:  # an attack shows as the fight
        m.steps.append(_Step(_str(last.get("player")), src if src != dst else None, dst))
    return m


# --- marks drawn per render ---------------------------------------------------------------


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


# --- the panel ------------------------------------------------------------------------------

#: Essential text (the status line, credits, limits left, damage tokens) is at least this
#: tall: 8 px on a phone that shows the image 390 px wide.
ESSENTIAL = float(math.ceil(min_essential_size(WIDTH)))
STATUS_TOP, STATUS_HEIGHT = 56, 100
CARDS_TOP = STATUS_TOP + STATUS_HEIGHT + 10
POOL_HEIGHT = 36
BOX_FILL: RGB = (32, 35, 42)
BOX_LINE: RGB = (58, 62, 72)


def _status_line(view: Mapping[str, Any], players: Players) -> tuple[str, str, Any]:
    """Who must act now and what they do (name, the rest), and that player's id."""
    phase = view.get("phase")
    turn = view.get("turn")
    to_act = view.get("to_act")
    actor = to_act[0] if isinstance(to_act, list) and to_act else turn
    if actor is None:
        return "", "Waiting", None
    rest = {
        "setup": "places the General",
        "general": "moves the General",
        "deploy": "deploys",
        "move": "moves resources",
        "fight": "attacks or ends",
        "casualty": "chooses a casualty",
    }.get(phase if isinstance(phase, str) else "", "to play")
    return players.name(actor), rest, actor


def _player_card(c: Canvas, top: float, height: float, p: Mapping[str, Any], name: str,
                 colour: RGB, turn: bool, acting: bool, winner: bool) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    out = bool(p.get("out"))
    card = PANEL_HIGHLIGHT if turn or acting else PANEL
    c.rect((x0, top, x1, top + height), fill=colour if not out else darken(colour, 0.45),
           radius=10)
    c.rect((x0 + 7, top, x1, top + height), fill=card, radius=10)
    c.rect((x0 + 7, top, x0 + 20, top + height), fill=card)
    if acting or turn:
        c.rect((x0, top, x1, top + height), outline=colour, width=2 if acting else 1.5,
               radius=10)
    # name row: status and side on the right
    right: float = x1 - 10
    if out:
        right = pill(c, right, top + 9, "OUT", (104, 106, 116)) - 6
    elif winner:
        right = pill(c, right, top + 9, "WINNER", ACCENT) - 6
    elif acting:
        right = pill(c, right, top + 9, "ACTS NOW" if not turn else "TO PLAY", colour) - 6
    elif turn:
        right = pill(c, right, top + 9, "TURN", darken(colour, 0.35), text=TEXT) - 6
    side = clean_text(p.get("side"), limit=8).upper()
    if side:
        right = pill(c, right, top + 9, side, (60, 64, 76), size=11, text=MUTED) - 6
    nx = x0 + 20
    c.text((nx, top + 20), c.fit(name, 20, right - nx - 4, bold=True), 20,
           fill=TEXT if not out else MUTED, bold=True, anchor="lm")
    # credits, lives, where the General is
    row = top + 20 + (height - 20) * 0.38
    coin_icon(c, (nx + 10, row), 10)
    credits = str(max(-99999, min(99999, as_int(p.get("credits")))))
    c.text((nx + 25, row), credits, ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role="score")
    lives = max(0, min(START_LIVES, as_int(p.get("lives"))))
    hx = max(nx + 104, nx + 25 + c.text_width(credits, ESSENTIAL, bold=True) + 18)
    for i in range(START_LIVES):
        heart(c, (hx + i * 23, row + 0.5), 9.5,
              (236, 74, 84) if i < lives else (70, 72, 82), outline=(24, 24, 28))
    gx = hx + 3 * 23 + 4
    general = p.get("general")
    where = clean_text(general, limit=3) if isinstance(general, str) else ""
    if where and not out and gx + 60 < x1:
        general_icon(c, (gx + 10, row), 10, colour, shadow=False)
        c.text((gx + 25, row), where, 18, fill=TEXT, bold=True, anchor="lm")
        vx = gx + 31 + c.text_width(where, 18, bold=True)
        if vx + 20 < x1 - 4:
            if p.get("in_vehicle"):
                _mini_icon(c, "av", (vx + 10, row), 10, colour)
            elif p.get("in_trench"):
                _mini_icon(c, "trench", (vx + 11, row), 11, colour)
    # limits left (and the Missile / Gas prices, raised by lost Mortars)
    row = top + height - 19
    left = _mapping(p.get("left")) or {}
    prices = _mapping(p.get("prices")) or {}
    x: float = nx
    for kind in ("trench", "grenade", "missile", "gas"):
        n = max(0, min(99, as_int(left.get(kind), 0)))
        if kind == "trench":
            trench_icon(c, (x, row - 8, x + 21, row + 8))
        else:
            WEAPON_ICONS[kind](c, (x + 10, row), 10)
        c.text((x + 24, row), str(n), ESSENTIAL, fill=TEXT if n else FAINT, bold=True,
               anchor="lm", role="count")
        x += 24 + c.text_width(str(n), ESSENTIAL, bold=True)
        if kind in ("missile", "gas"):
            price = max(0, min(9999, as_int(prices.get(kind), BASE_PRICES[kind])))
            raised = price > BASE_PRICES[kind]
            label = f"{price}c" + ("↑" if raised else "")
            if raised:
                w = c.text_width(label, 12, bold=True) + 9
                c.rect((x + 4, row - 10, x + 4 + w, row + 10), fill=(120, 44, 30),
                       outline=(255, 140, 90), width=1, radius=6)
                c.text((x + 4 + w / 2, row + 0.5), label, 12, fill=(255, 196, 150), bold=True,
                       anchor="mm")
                x += w + 4
            else:
                c.text((x + 4, row + 1), label, 13, fill=MUTED, anchor="lm")
                x += c.text_width(label, 13) + 4
        x += 11
    if out:
        c.rect((x0, top, x1, top + height), fill=with_alpha(BACKGROUND, 120), radius=10)


def _phase_track(c: Canvas, x: float, y: float, phase: Any) -> None:
    """General > Deploy > Move > Fight, the current one lit."""
    current = "fight" if phase == "casualty" else phase
    for key, label in PHASES:
        lit = key == current
        w = c.text_width(label, 13, bold=True) + 16
        c.rect((x, y - 11, x + w, y + 11), fill=ACCENT if lit else (50, 54, 65), radius=11)
        c.text((x + w / 2, y + 0.5), label, 13, fill=(30, 30, 34) if lit else MUTED, bold=True,
               anchor="mm")
        x += w + 5


def _status(c: Canvas, view: Mapping[str, Any], players: Players,
            outcome: Mapping[str, Any] | None) -> None:
    """The phase and who must act now (or who won), in a box under the title."""
    x0, x1 = PANEL_X0, PANEL_X1
    top = STATUS_TOP
    c.rect((x0, top, x1, top + STATUS_HEIGHT), fill=BOX_FILL, outline=BOX_LINE, width=1,
           radius=10)
    phase = view.get("phase")
    tw = x1 - x0 - 28
    if outcome is not None or phase == "over":
        winners = [players.name(w) for w in (outcome or {}).get("winners") or []
                   if isinstance(w, str)][:4]
        label = ("Winner: " if len(winners) == 1 else "Winners: ") + ", ".join(winners) \
            if winners else "No winner"
        c.text((x0 + 14, top + 24), c.fit(label, ESSENTIAL, tw, bold=True), ESSENTIAL,
               fill=ACCENT, bold=True, anchor="lm", role="turn")
        reason = clean_text((outcome or {}).get("reason"), limit=200) or "Game over."
        for i, line in enumerate(c.wrap(reason, 15, tw, 3)):
            c.text((x0 + 14, top + 51 + i * 19), line, 15, fill=MUTED, anchor="lm")
        return
    if phase == "setup":
        c.text((x0 + 14, top + 21), "SETUP", 14, fill=MUTED, bold=True, anchor="lm")
    else:
        _phase_track(c, x0 + 12, top + 21, phase)
    who, rest, actor = _status_line(view, players)
    fg = (255, 170, 150) if phase == "casualty" else TEXT
    if actor is not None:
        c.circle((x0 + 23, top + 52), 9.5, fill=players.colour(actor),
                 outline=(240, 238, 230), width=1.5)
        c.text((x0 + 40, top + 52), c.fit(who, ESSENTIAL, x1 - x0 - 54, bold=True), ESSENTIAL,
               fill=fg, bold=True, anchor="lm", role="turn")
    c.text((x0 + 14 if actor is None else x0 + 40, top + 52 if actor is None else top + 80),
           c.fit(rest, ESSENTIAL, x1 - x0 - 54), ESSENTIAL, fill=fg, anchor="lm", role="turn")


def _panel(c: Canvas, view: Mapping[str, Any], players: Players, board: _Board,
           marks: _Marks) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    outcome = _mapping(view.get("outcome"))
    c.text((x0, 44), "BATTLE OF LIÈGE", 24, fill=TEXT, bold=True, anchor="ls")
    rnd = as_int(view.get("round"), 0)
    if rnd:
        c.text((x1, 44), f"Round {min(rnd, 9999)}", 17, fill=MUTED, bold=True, anchor="rs")
    _status(c, view, players, outcome)

    # player cards
    turn = view.get("turn")
    to_act = view.get("to_act")
    acting = {a for a in to_act if isinstance(a, str)} if isinstance(to_act, list) else set()
    winners_set = {w for w in (outcome or {}).get("winners") or [] if isinstance(w, str)}
    shown = players.players[:4]
    y: float = CARDS_TOP
    card_h = 104 if len(shown) > 3 else 110
    gap = 8
    over = outcome is not None or view.get("phase") == "over"
    for i, p in enumerate(shown):
        pid = p.get("id")
        seat = as_int(p.get("seat"), i + 1)
        _player_card(c, y, card_h, p, players.name(pid), seat_colour(seat),
                     turn=not over and pid == turn, acting=not over and pid in acting,
                     winner=pid in winners_set)
        y += card_h + gap

    # what happened this turn (or the last fight / blast / move), then the damage tokens
    pool_top = HEIGHT - 14 - POOL_HEIGHT
    _pool(c, view, pool_top)
    _happened(c, view, players, board, marks, y, pool_top - 10)


def _pool(c: Canvas, view: Mapping[str, Any], y: float) -> float:
    x0, x1 = PANEL_X0, PANEL_X1
    left = max(0, min(DAMAGE_TOKENS, as_int(view.get("damage_tokens_left"), DAMAGE_TOKENS)))
    mid = y + POOL_HEIGHT / 2
    c.rect((x0, y, x1, y + POOL_HEIGHT), fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    c.text((x0 + 14, mid), "DAMAGE", 13, fill=MUTED, bold=True, anchor="lm")
    x = x0 + 90
    for i in range(DAMAGE_TOKENS):
        centre = (x + i * 30 + 12, mid)
        if i < left:
            burst(c, centre, 12.5)
        else:
            burst(c, centre, 12.5, fill=(72, 74, 82), core=(44, 46, 52), outline=(30, 31, 36))
    c.text((x1 - 12, mid), f"{left}/{DAMAGE_TOKENS}", ESSENTIAL, fill=TEXT if left else FAINT,
           bold=True, anchor="rm", role="score")
    return y + POOL_HEIGHT


def _shop(c: Canvas, view: Mapping[str, Any], players: Players) -> None:
    """Prices (the viewer's, else those of the player to move) in a strip under the board."""
    source = players.get(view.get("viewer")) or players.get(view.get("turn"))
    if source is None and players.players:
        source = players.players[0]
    prices = _mapping(source.get("prices")) if source is not None else None
    prices = prices or {}
    x0, x1 = BOARD_X - FRAME_PAD, BOARD_X + BOARD_PX + FRAME_PAD
    y0, y1 = SHOP_Y, SHOP_Y + SHOP_HEIGHT
    c.rect((x0, y0, x1, y1), fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    order = ("rifle", "mg", "mortar", "av", "trench", "grenade", "missile", "gas")
    colw = (x1 - x0 - 12) / len(order)
    cy = (y0 + y1) / 2
    for i, kind in enumerate(order):
        cx = x0 + 8 + i * colw
        _mini_icon(c, kind, (cx + 15, cy), 13, NEUTRAL)
        price = max(0, min(9999, as_int(prices.get(kind), BASE_PRICES[kind])))
        raised = price > BASE_PRICES[kind]
        c.text((cx + 34, cy - 9), SHORT[kind], 12, fill=MUTED, anchor="lm")
        c.text((cx + 34, cy + 9), f"{price}c" + ("↑" if raised else ""), 16,
               fill=(255, 150, 110) if raised else TEXT, bold=True, anchor="lm")


def _mini_icon(c: Canvas, kind: str, centre: Point, r: float, colour: RGB) -> None:
    """A piece's or weapon's icon for the panel: counters in ``colour``."""
    x, y = centre
    if kind in COUNTER_ICONS:
        box = (x - r, y - r, x + r, y + r)
        c.rect(box, fill=colour, outline=darken(colour, 0.5), width=1, radius=r * 0.3)
        COUNTER_ICONS[kind](c, (x, y), r * 0.74, ICON, darken(colour, 0.6))
    elif kind == "trench":
        trench_icon(c, (x - r, y - r * 0.8, x + r, y + r * 0.8))
    elif kind == "general":
        general_icon(c, (x, y), r, colour, shadow=False)
    elif kind in WEAPON_ICONS:
        WEAPON_ICONS[kind](c, (x, y), r * 0.95)


def _who(c: Canvas, x: float, y: float, pids: list[str], players: Players, max_x: float,
         size: float = 18) -> None:
    """Coloured dots and names of the players who acted, on one line centred on ``y``."""
    shown = pids[:4]
    for i, pid in enumerate(shown):
        if max_x - x < 40:
            break
        c.circle((x + 7, y), 7, fill=players.colour(pid), outline=(240, 238, 230), width=1.2)
        x += 19
        rest = len(shown) - i - 1
        room = (max_x - x) / (rest + 1) - (14 if rest else 0)
        name = c.fit(players.name(pid), size, max(20.0, room), bold=True)
        c.text((x, y), name, size, fill=TEXT, bold=True, anchor="lm")
        x += c.text_width(name, size, bold=True) + 14


def _happened(c: Canvas, view: Mapping[str, Any], players: Players, board: _Board,
              marks: _Marks, y: float, limit: float) -> float:
    """"THIS TURN" from the events (else the view's last fight, blast or move) in a box
    from ``y``; returns its bottom."""
    x0, x1 = PANEL_X0, PANEL_X1
    tx, tw = x0 + 14, x1 - x0 - 28
    step, size = 23, 16
    if marks.from_events:
        title = "THIS TURN"
        lines = list(marks.lines) or ([(0, "Ended the turn", TEXT)] if marks.ended else [])
        room = max(0, int((limit - y - 56) // step))
        if len(lines) > room:  # keep the most important, in the order they happened
            keep = sorted(range(len(lines)), key=lambda i: (lines[i][0], i))[:room]
            lines = [lines[i] for i in sorted(keep)]
        body = [(text, colour) for _, text, colour in lines]
        actors = marks.actors
        outline: Colour = BOX_LINE
    else:
        title, body, outline = _last_action(view, players, board)
        actors = []
        if not body:
            return y
        body = body[:max(0, int((limit - y - 33) // step))]
    head = 41 if actors else 18
    bottom = y + head + step * len(body) + 15
    if not body and not actors:
        bottom = y + 56
    if bottom > limit:
        return y
    c.rect((x0, y, x1, bottom), fill=BOX_FILL, outline=outline, width=1.5, radius=10)
    c.text((tx, y + 17), title, 13, fill=MUTED, bold=True, anchor="lm")
    if actors:
        _who(c, tx, y + 41, actors, players, x1 - 12)
    elif not body:
        c.text((tx, y + 41), "Nothing yet", 16, fill=FAINT, anchor="lm")
    for i, (text, colour) in enumerate(body):
        c.text((tx, y + head + 24 + i * step), c.fit(text, size, tw), size, fill=colour,
               anchor="lm")
    return bottom


def _last_action(view: Mapping[str, Any], players: Players,
                 board: _Board) -> tuple[str, list[tuple[str, Colour]], Colour]:
    """Without events: the view's last fight (else blast, else move) in words."""
    fight = _mapping(view.get("last_fight"))
    move = _mapping(view.get("last_move"))
    blast = _mapping(view.get("blast"))
    if fight is not None:
        att, dfn = fight.get("attacker"), fight.get("defender")
        src, dst = _square(board, fight.get("from")), _square(board, fight.get("to"))
        won = fight.get("winner")
        winner = att if won == "attacker" else dfn if won == "defender" else None
        n_att = len(_unit_squares(board, fight.get("attackers")))
        n_def = len(_unit_squares(board, fight.get("defenders")))
        return "LAST FIGHT", [
            (f"{players.name(att)} {src or '?'} → {players.name(dfn)} {dst or '?'}", TEXT),
            (f"{n_att} v {n_def}" + (f" · {players.name(winner)} won" if winner else ""),
             LINE_FIGHT)], DANGER
    if blast is not None:
        kind = blast.get("kind")
        target = _square(board, blast.get("target"))
        colour = BLAST_COLOURS.get(kind if isinstance(kind, str) else "", DANGER)
        return "LAST BLAST", [(f"{NAMES.get(kind, 'Blast') if isinstance(kind, str) else 'Blast'}"
                               f" at {target or '?'}", TEXT)], colour
    if move is not None:
        action = clean_text(move.get("action"), limit=60)
        return "LAST MOVE", [(f"{players.name(move.get('player'))}: {action}", TEXT)], ACCENT
    return "", [], BOX_LINE


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


# --- the whole image --------------------------------------------------------------------------


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of a Liège view marking what ``events`` did (see the module's docstring).
    ``view``, ``events`` and ``names`` are never modified."""
    board = _Board(view.get("size"))
    cell = board.cell
    icell = round(cell)
    players = Players(view, names)
    marks = _marks_from_events(events, board, players)
    if not marks:
        marks = _marks_from_view(view, board)

    homes = []
    for p in players.players[:6]:
        side = p.get("side")
        if side in ("south", "north", "west", "east"):
            homes.append((side, players.colour(p.get("id")),
                          tuple(_squares(board, p.get("highlights"), 4))))
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, base=_backdrop(board.n, tuple(homes)))

    # what is on the board
    pieces: dict[str, Mapping[str, Any]] = {}
    raw = view.get("pieces")
    for piece in raw[: board.n * board.n * 2] if isinstance(raw, list) else []:
        if isinstance(piece, Mapping):
            sq = _square(board, piece.get("square"))
            if sq is not None:
                pieces[sq] = piece
    generals: dict[str, Any] = {}  # square -> player id, for every General on the board
    for p in players.players:
        sq = _square(board, p.get("general"))
        if sq is not None and not p.get("out"):
            generals.setdefault(sq, p.get("id"))
    for sq, piece in pieces.items():
        inside = piece.get("general_inside")
        if isinstance(inside, str) and piece.get("type") in ("av", "trench"):
            generals[sq] = inside

    # under the pieces: a selected piece's range, blasts, the trails of moves
    selected = _mapping(view.get("selected"))
    sel_sq = _square(board, selected.get("square")) if selected else None
    in_range = _squares(board, selected.get("range")) if selected else []
    for sq in in_range:
        b = board.box(sq)
        assert b is not None
        c.rect(b, fill=with_alpha(RANGE, 72))
        c.rect((b[0] + 1.5, b[1] + 1.5, b[2] - 1.5, b[3] - 1.5), outline=with_alpha(RANGE, 170),
               width=2)
    _draw_under(c, marks, board)

    # the pieces
    for sq, piece in pieces.items():
        b = board.box(sq)
        assert b is not None
        kind = piece.get("type")
        kind = kind if kind in PIECE_TYPES else "unknown"
        owner = piece.get("owner")
        colour = players.colour(owner) if kind != "trench" else NEUTRAL
        facing = piece.get("facing")
        facing = facing if facing in FACINGS and kind in ("mg", "mortar") else None
        inside = generals.get(sq) if kind in ("av", "trench") else None
        g_colour = players.colour(inside) if inside is not None else None
        c.paste(_piece_sprite(kind, colour, icell, facing, g_colour), b[:2])
    for sq, pid in generals.items():
        if sq in pieces and pieces[sq].get("type") in ("av", "trench"):
            continue
        b = board.box(sq)
        assert b is not None
        c.paste(_general_sprite(players.colour(pid), icell), b[:2])

    # small marks on pieces: fought (dimmed, swords), new (sparkle), damaged (burst)
    for sq, piece in pieces.items():
        b = board.box(sq)
        assert b is not None
        m = _counter_box(cell)[0]
        bx0, by0, bx1, by1 = b[0] + m, b[1] + m, b[2] - m, b[3] - m
        if piece.get("fought") and piece.get("type") != "trench":
            c.rect((bx0, by0, bx1, by1), fill=(16, 16, 20, 70), radius=cell * 0.13)
            _swords(c, (bx1 - cell * 0.04, by1 - cell * 0.04), cell * 0.13, (40, 42, 48, 235),
                    (222, 222, 228))
        if piece.get("new"):
            _sparkle(c, (bx0 + cell * 0.05, by0 + cell * 0.05), cell * 0.12)
        if piece.get("damaged"):
            burst(c, (bx0 + cell * 0.07, by1 - cell * 0.07), cell * 0.19)

    # on top: the selected piece, then what happened
    if sel_sq is not None:
        b = board.box(sel_sq)
        assert b is not None
        c.rect((b[0] - 1, b[1] - 1, b[2] + 1, b[3] + 1), outline=(10, 10, 14, 200), width=5)
        c.rect((b[0], b[1], b[2], b[3]), outline=RANGE, width=3)
    occupied = set(pieces) | set(generals)
    new = {sq for sq, piece in pieces.items() if piece.get("new")}
    _draw_over(c, marks, board, occupied, new)

    _shop(c, view, players)
    _panel(c, view, players, board, marks)
    return c.png(load_palette(KIND))
