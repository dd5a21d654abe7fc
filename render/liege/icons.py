"""Liège's icons, drawn on any canvas around a centre (``r`` is about half their width):
the pieces (Rifle, Machine Gun, Mortar, Armored Vehicle, Trench, General), the weapons
(Grenade, Missile, Mustard Gas), and the counters the pieces stand on."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from render.common import DANGER, GOLD, Canvas, Colour, Point, darken, lighten, star_points
from render.liege.layout import EARTH, ICON


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

