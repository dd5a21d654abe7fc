"""The Napoleonic Wars board's static layers, drawn once and cached: the sea, lanes, land,
borders, shores, ports and key; the framed map; and each country's tints (a side's
colour, or both sides' stripes where contested) and outlines."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw

from render.common import (
    BACKGROUND,
    DANGER,
    GOLD,
    MUTED,
    RGB,
    Canvas,
    Colour,
    Point,
    dashed_line,
    derive_base,
    rounded_mask,
)
from render.napoleon.geography import _edge_owners, _edges, countries
from render.napoleon.layout import (
    BORDER,
    BORDER_W,
    HEIGHT,
    LAND,
    LANE,
    MAP_SIZE,
    MAP_X,
    MAP_Y,
    SCALE,
    SEA,
    SHALLOW,
    SHORE,
    SIDE_COLOURS,
    TINT_ALPHA,
    WIDTH,
)


def _anchor(c: Canvas, centre: Point, r: float, colour: Colour) -> None:
    """A small anchor: a port."""
    x, y = centre
    w = max(1.0, r * 0.24)
    c.circle((x, y), r * 1.25, fill=(18, 30, 46, 220))
    c.circle((x, y - r * 0.62), r * 0.2, outline=colour, width=w)
    c.line([(x, y - r * 0.42), (x, y + r * 0.72)], fill=colour, width=w)
    c.line([(x - r * 0.36, y - r * 0.2), (x + r * 0.36, y - r * 0.2)], fill=colour, width=w)
    c.line([(x - r * 0.7, y + r * 0.18), (x - r * 0.5, y + r * 0.55), (x, y + r * 0.75),
            (x + r * 0.5, y + r * 0.55), (x + r * 0.7, y + r * 0.18)], fill=colour, width=w)


def _sabres(c: Canvas, centre: Point, r: float) -> None:
    """Crossed sabres on a dark disc: a contested country."""
    c.stamp(("sabres", r), centre, r * 1.2, lambda cv, p: _draw_sabres(cv, p, r))


def _draw_sabres(c: Canvas, centre: Point, r: float) -> None:
    x, y = centre
    c.circle((x + 0.6, y + 1), r * 1.02, fill=(0, 0, 0, 110))
    c.circle((x, y), r, fill=(40, 26, 26), outline=GOLD, width=max(1.0, r * 0.13))
    steel, hilt = (238, 240, 246), GOLD
    for sgn in (-1, 1):
        # a curved blade from the lower corner to the opposite upper one
        base = (x - sgn * r * 0.55, y + r * 0.55)
        tip = (x + sgn * r * 0.6, y - r * 0.62)
        mid = ((base[0] + tip[0]) / 2 - sgn * r * 0.12, (base[1] + tip[1]) / 2 - r * 0.1)
        c.line([base, mid, tip], fill=steel, width=max(1.0, r * 0.17), round_caps=True)
        gx, gy = x - sgn * r * 0.36, y + r * 0.36
        c.line([(gx - r * 0.2, gy - sgn * r * 0.2 * -1), (gx + r * 0.2, gy + sgn * r * 0.2 * -1)],
               fill=hilt, width=max(1.0, r * 0.16), round_caps=True)


@lru_cache(maxsize=1)
def _map_layer() -> Image.Image:
    """The sea, the lanes, the land, its borders and shores, the ports and the key (RGB,
    the map's square at final size)."""
    c = Canvas(MAP_SIZE, MAP_SIZE, SEA, scale=SCALE)
    ox, oy = MAP_X, MAP_Y

    def local(pts: Sequence[Point]) -> list[Point]:
        return [(x - ox, y - oy) for x, y in pts]

    land = countries()
    for country in land.values():  # shallow water along every shore
        c.polygon(local(country.shape), outline=SHALLOW, width=14)
    lanes = [country.lane for country in land.values() if len(country.lane) >= 2]
    for lane in lanes:
        dashed_line(c, local(lane), LANE, 1.8, 7, 6, round_caps=True)
    for country in land.values():
        c.polygon(local(country.shape), fill=LAND)
    owners = _edge_owners()
    for country in land.values():
        for a, b in _edges(country.shape):
            if len(owners[frozenset((a, b))]) == 1:
                c.line(local([a, b]), fill=SHORE, width=1.6, round_caps=True)
    for key, ids in owners.items():
        if len(ids) > 1:
            a, b = tuple(key)
            c.line(local([a, b]), fill=BORDER, width=BORDER_W, round_caps=True)
    for lane in lanes:
        _anchor(c, local([lane[-1]])[0], 6.5, SHORE)
    _key(c, (14, MAP_SIZE - 48))
    return c.finish()


def _key(c: Canvas, origin: Point) -> None:
    """A key to the map's marks, in the sea at its lower left."""
    x, y = origin
    size = 12.5
    dashed_line(c, [(x, y), (x + 26, y)], LANE, 1.8, 7, 6, round_caps=True)
    _anchor(c, (x + 36, y), 6, SHORE)
    c.text((x + 48, y), "sea lane from England to a port", size, fill=MUTED, anchor="lm")
    y += 24
    c.rect((x, y - 7, x + 26, y + 7), fill=LAND, outline=SHORE, width=1.2)
    c.line([(x + 13, y - 7), (x + 13, y + 7)], fill=BORDER, width=BORDER_W)
    c.text((x + 32, y), "land border", size, fill=MUTED, anchor="lm")
    bx = x + 124
    c.circle((bx + 8, y), 8.5, fill=(40, 30, 8), outline=GOLD, width=1.3)
    c.text((bx + 8, y + 0.5), "2", 10.5, fill=GOLD, bold=True, anchor="mm")
    c.text((bx + 22, y), "reinforcements", size, fill=MUTED, anchor="lm")
    sx = bx + 130
    _draw_sabres(c, (sx + 8, y), 8.5)
    c.text((sx + 22, y), "contested", size, fill=MUTED, anchor="lm")



@lru_cache(maxsize=1)
def _backdrop() -> Image.Image:
    """Background, the map in its frame and the panels' boxes (RGB, final size)."""
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=2)
    c.rect((MAP_X - 3, MAP_Y - 3, MAP_X + MAP_SIZE + 3, MAP_Y + MAP_SIZE + 3), fill=(14, 16, 20),
           radius=14)
    image = c.finish()
    image.paste(_map_layer(), (MAP_X, MAP_Y), rounded_mask(MAP_SIZE, MAP_SIZE, 12))
    return image


# --- tints (cached per country) ----------------------------------------------------------

#: The outlines of a battle fought (red) and of the battle being fought (gold): colour, width.
FOUGHT: tuple[RGB, float] = (DANGER, 3.5)
FIGHTING: tuple[RGB, float] = (GOLD, 4.5)


def _bbox(pts: Sequence[Point]) -> tuple[int, int, int, int]:
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return (math.floor(min(xs)) - 1, math.floor(min(ys)) - 1, math.ceil(max(xs)) + 2,
            math.ceil(max(ys)) + 2)


@lru_cache(maxsize=32)
def _interior(cid: str) -> tuple[Image.Image, tuple[int, int]]:
    """A country's inside, short of its border lines: a coverage mask at final size and
    where its top-left corner goes."""
    shape = countries()[cid].shape
    x0, y0, x1, y1 = _bbox(shape)
    ss = 4
    mask = Image.new("L", ((x1 - x0) * ss, (y1 - y0) * ss), 0)
    draw = ImageDraw.Draw(mask)
    pts = [((x - x0) * ss, (y - y0) * ss) for x, y in shape]
    draw.polygon(pts, fill=255)
    draw.line([*pts, pts[0]], fill=0, width=round(BORDER_W * ss), joint="curve")
    return mask.reduce(ss), (x0, y0)


@lru_cache(maxsize=128)
def _tint(cid: str, kind: str) -> tuple[Image.Image, tuple[int, int]]:
    """An RGBA tile washing a country in a side's colour (``kind`` a side) or in both
    sides' stripes (``"contested"``), and where it goes."""
    mask, pos = _interior(cid)
    w, h = mask.size
    if kind == "contested":
        ss = 4
        stripes = Image.new("L", (w * ss, h * ss), 0)
        draw = ImageDraw.Draw(stripes)
        period = 18 * ss
        for k in range(-h * ss, w * ss + h * ss, period):
            draw.polygon([(k, 0), (k + period / 2, 0), (k + period / 2 - h * ss, h * ss),
                          (k - h * ss, h * ss)], fill=255)
        band = stripes.reduce(ss)
        colour = Image.new("RGB", (w, h), SIDE_COLOURS["french"])
        colour.paste(SIDE_COLOURS["allies"], (0, 0, w, h), band)
        alpha = mask.point(lambda v: v * 150 // 255)
    else:
        colour = Image.new("RGB", (w, h), SIDE_COLOURS.get(kind, (150, 150, 150)))
        alpha = mask.point(lambda v: v * TINT_ALPHA // 255)
    tile = colour.convert("RGBA")
    tile.putalpha(alpha)
    return tile, pos


@lru_cache(maxsize=64)
def _outline(cid: str, colour: RGB, width: float) -> tuple[Image.Image, tuple[int, int]]:
    """A country's outline drawn just inside its edge (RGBA tile, and where it goes)."""
    mask, pos = _interior(cid)
    inner = mask.copy()
    shape = countries()[cid].shape
    ss = 4
    w, h = mask.size
    ring = Image.new("L", (w * ss, h * ss), 0)
    pts = [((x - pos[0]) * ss, (y - pos[1]) * ss) for x, y in shape]
    ImageDraw.Draw(ring).line([*pts, pts[0]], fill=255, width=round(width * 2 * ss),
                              joint="curve")
    band = ImageChops.multiply(ring.reduce(ss), inner)
    tile = Image.new("RGBA", (w, h), colour)
    tile.putalpha(band)
    return tile, pos


#: The backdrops with tints kept (by their tints), the least recently used first.
TINTED = 8
_TINTED: OrderedDict[tuple[tuple[str, str | None], ...], Image.Image] = OrderedDict()


def _tinted(tints: tuple[tuple[str, str | None], ...]) -> Image.Image:
    """The backdrop with these countries tinted (``(id, side or "contested")`` pairs):
    successive boards of a game mostly share one, so it is kept. A new one is made from
    the kept one that differs in the fewest countries, drawing again only around those
    (the same pixels as tinting the bare backdrop)."""
    kept = _TINTED.get(tints)
    if kept is not None:
        _TINTED.move_to_end(tints)
        return kept
    want = {cid: kind for cid, kind in tints if kind is not None}
    best: tuple[float, tuple[tuple[str, str | None], ...] | None, set[str]] = \
        (math.inf, None, set())
    for other in reversed(_TINTED):
        had = {cid: kind for cid, kind in other if kind is not None}
        changed = {cid for cid in want.keys() | had.keys() if want.get(cid) != had.get(cid)}
        if len(changed) < best[0]:
            best = (len(changed), other, changed)
    if best[1] is None:  # a worker's first: every country's tiles made now, once
        for cid in countries():
            _outline(cid, *FOUGHT)
            _outline(cid, *FIGHTING)
            for side in (*SIDE_COLOURS, "contested"):
                _tint(cid, side)
        image = _backdrop().copy()
        for cid, kind in want.items():
            tile, pos = _tint(cid, kind)
            image.paste(tile, pos, tile)
    else:
        parent = _TINTED[best[1]]
        image = parent.copy()
        boxes = _disjoint([_tile_box(cid) for cid in best[2]])
        backdrop = _backdrop()
        for box in boxes:  # the bare backdrop there, then every tint over it, in order
            image.paste(backdrop.crop(box), box[:2])
        for cid, kind in want.items():
            tile, pos = _tint(cid, kind)
            tbox = (pos[0], pos[1], pos[0] + tile.width, pos[1] + tile.height)
            for box in boxes:
                x0, y0 = max(box[0], tbox[0]), max(box[1], tbox[1])
                x1, y1 = min(box[2], tbox[2]), min(box[3], tbox[3])
                if x0 < x1 and y0 < y1:
                    part = tile.crop((x0 - pos[0], y0 - pos[1], x1 - pos[0], y1 - pos[1]))
                    image.paste(part, (x0, y0), part)
        derive_base(image, parent, boxes)
    _TINTED[tints] = image
    while len(_TINTED) > TINTED:
        _TINTED.popitem(last=False)
    return image


def _tile_box(cid: str) -> tuple[int, int, int, int]:
    """Where a country's tint tiles go (every kind of tint is the same size)."""
    mask, pos = _interior(cid)
    return (pos[0], pos[1], pos[0] + mask.width, pos[1] + mask.height)


def _disjoint(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """``boxes`` with the overlapping ones merged into their bounds (none overlap)."""
    out: list[tuple[int, int, int, int]] = []
    for box in boxes:
        while True:
            for i, other in enumerate(out):
                if box[0] < other[2] and other[0] < box[2] and box[1] < other[3] \
                        and other[1] < box[3]:
                    box = (min(box[0], other[0]), min(box[1], other[1]),
                           max(box[2], other[2]), max(box[3], other[3]))
                    del out[i]
                    break
            else:
                break
        out.append(box)
    return out
