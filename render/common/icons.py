"""Small pieces drawn the same way on every board: coins, woodpiles, towers, counters,
stars, damage bursts and hearts. Each is a cached sprite (:meth:`Canvas.stamp`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from render.common.canvas import Canvas, Point
from render.common.palette import DANGER, Colour, darken, lighten, text_on


def coin_icon(canvas: Canvas, centre: Point, r: float) -> None:
    """A gold coin."""
    canvas.stamp(("coin", r), centre, r * 1.35, lambda c, p: _coin(c, p, r))


def _coin(canvas: Canvas, centre: Point, r: float) -> None:
    x, y = centre
    canvas.circle((x + r * 0.12, y + r * 0.15), r, fill=(0, 0, 0, 70))
    canvas.circle((x, y), r, fill=(196, 140, 28), outline=(122, 84, 10), width=max(1, r * 0.12))
    canvas.circle((x, y), r * 0.7, fill=(246, 200, 72), outline=(214, 160, 40),
                  width=max(1, r * 0.08))
    canvas.circle((x - r * 0.22, y - r * 0.22), r * 0.2, fill=(255, 240, 180, 200))


def logs_icon(canvas: Canvas, centre: Point, r: float) -> None:
    """A small woodpile: three logs seen end-on."""
    canvas.stamp(("logs", r), centre, r * 1.6, lambda c, p: _logs(c, p, r))


def _logs(canvas: Canvas, centre: Point, r: float) -> None:
    x, y = centre
    lr = r * 0.44
    d = r * 0.47
    logs = ((x, y - d * 0.85), (x - d, y + d * 0.75), (x + d, y + d * 0.75))
    bark = (120, 74, 36)
    dark = (70, 40, 16)
    depth = (-lr * 0.9, -lr * 0.55)
    for cx, cy in logs:  # the bark sides, running back to the upper left
        canvas.polygon([(cx, cy - lr), (cx + depth[0], cy - lr + depth[1]),
                        (cx + depth[0] - lr * 0.2, cy + lr + depth[1]), (cx, cy + lr)],
                       fill=bark, outline=dark, width=r * 0.06)
    for cx, cy in logs:
        canvas.circle((cx, cy), lr, fill=(222, 178, 112), outline=dark, width=r * 0.07)
        canvas.circle((cx, cy), lr * 0.55, outline=(176, 124, 66), width=r * 0.05)
        canvas.circle((cx, cy), lr * 0.15, fill=(150, 100, 50))


def tower_icon(canvas: Canvas, centre: Point, r: float, colour: Colour,
               outline: Colour = (20, 20, 24)) -> None:
    """A small crenellated tower (a fort)."""
    canvas.stamp(("tower", r, tuple(colour), tuple(outline)), centre, r * 1.4,
                 lambda c, p: _tower(c, p, r, colour, outline))


def _tower(canvas: Canvas, centre: Point, r: float, colour: Colour, outline: Colour) -> None:
    x, y = centre
    w = r * 1.1
    top = y - r * 0.55
    merlon = w / 5
    pts: list[Point] = [(x - w / 2, y + r), (x - w / 2, top - merlon)]
    for i in range(5):
        mx = x - w / 2 + i * merlon
        high = i % 2 == 0
        pts.append((mx, top - merlon if high else top))
        pts.append((mx + merlon, top - merlon if high else top))
    pts += [(x + w / 2, top - merlon), (x + w / 2, y + r)]
    canvas.polygon(pts, fill=colour, outline=outline, width=max(1, r * 0.12))
    canvas.rect((x - w * 0.16, y + r * 0.3, x + w * 0.16, y + r), fill=outline)


def token(canvas: Canvas, centre: Point, r: float, colour: Sequence[int], label: str,
          text_size: float, role: str | None = "count") -> None:
    """A round counter in ``colour`` with a big bold label (a stack of pieces)."""
    c = tuple(colour[:3])
    canvas.stamp(("token", r, c, label, text_size, role), centre,
                 r * 1.2 + text_size * 0.1,
                 lambda cv, p: _token(cv, p, r, c, label, text_size, role))


def _token(canvas: Canvas, centre: Point, r: float, c: tuple[int, ...], label: str,
           text_size: float, role: str | None) -> None:
    x, y = centre
    canvas.circle((x + r * 0.06, y + r * 0.12), r * 1.02, fill=(0, 0, 0, 110))
    canvas.circle((x, y), r, fill=darken(c, 0.35))
    canvas.circle((x, y - r * 0.05), r * 0.9, fill=c)
    canvas.circle((x, y), r, outline=(245, 242, 234), width=max(1.5, r * 0.09))
    fg = text_on(c)
    canvas.text((x, y + r * 0.02), label, text_size, fill=fg, bold=True, anchor="mm",
                stroke=max(1, text_size * 0.06),
                stroke_fill=darken(c, 0.55) if fg == (255, 255, 255) else lighten(c, 0.4),
                role=role)

def star_points(centre: Point, outer: float, inner: float, points: int = 5,
                rotation: float = -math.pi / 2) -> list[Point]:
    """The outline of a ``points``-pointed star (first tip straight up by default)."""
    x, y = centre
    out: list[Point] = []
    for i in range(points * 2):
        r = outer if i % 2 == 0 else inner
        a = rotation + i * math.pi / points
        out.append((x + r * math.cos(a), y + r * math.sin(a)))
    return out


def burst(canvas: Canvas, centre: Point, r: float, fill: Colour = DANGER,
          core: Colour = (24, 18, 18), outline: Colour = (16, 12, 12), spikes: int = 9) -> None:
    """A jagged explosion badge: a spiky ``fill`` star around a dark ``core`` (damage)."""
    canvas.stamp(("burst", r, tuple(fill), tuple(core), tuple(outline), spikes), centre,
                 r * 1.15, lambda c, p: _burst(c, p, r, fill, core, outline, spikes))


def _burst(canvas: Canvas, centre: Point, r: float, fill: Colour, core: Colour,
           outline: Colour, spikes: int) -> None:
    canvas.polygon(star_points(centre, r, r * 0.58, spikes, rotation=-math.pi / 2 + 0.2),
                   fill=fill, outline=outline, width=max(1, r * 0.12))
    canvas.polygon(star_points(centre, r * 0.52, r * 0.3, spikes, rotation=-math.pi / 2),
                   fill=core)


def heart(canvas: Canvas, centre: Point, r: float, fill: Colour,
          outline: Colour | None = None) -> None:
    """A heart about ``2r`` wide (a life)."""
    canvas.stamp(("heart", r, tuple(fill), None if outline is None else tuple(outline)),
                 centre, r * 1.4, lambda c, p: _heart(c, p, r, fill, outline))


def _heart(canvas: Canvas, centre: Point, r: float, fill: Colour,
           outline: Colour | None) -> None:
    x, y = centre
    lobe = r * 0.52
    pts = [(x - r * 0.98, y - r * 0.18), (x, y + r * 0.95), (x + r * 0.98, y - r * 0.18)]
    if outline is not None:
        grow = max(1.0, r * 0.14)
        canvas.circle((x - lobe * 0.92, y - r * 0.3), lobe + grow, fill=outline)
        canvas.circle((x + lobe * 0.92, y - r * 0.3), lobe + grow, fill=outline)
        canvas.polygon([(x - r * 0.98 - grow, y - r * 0.18), (x, y + r * 0.95 + grow * 1.4),
                        (x + r * 0.98 + grow, y - r * 0.18)], fill=outline)
    canvas.circle((x - lobe * 0.92, y - r * 0.3), lobe, fill=fill)
    canvas.circle((x + lobe * 0.92, y - r * 0.3), lobe, fill=fill)
    canvas.polygon(pts, fill=fill)
