"""The Antiquity image's static layers, drawn once per set of regions in play and cached:
seas as the cells nearest each sea's position, land blobs joined by land bridges, coasts,
land borders, the legend and the caption of the regions not in play (greyed), framed beside
the wheel (its fields and their names: ``wheel._wheel``, recorded where they are each
render) and the boxes of the log and the panels. The map's names are drawn each render
(``board``), over the arrows."""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image

from render.antiquity.geography import _city_xy, city_boxes, game_map, layout_key, legend_box, spots
from render.antiquity.layout import (
    BLOB_R,
    BORDER,
    BRIDGE_W,
    CITY_R,
    COAST,
    DEEP,
    HEADER_H,
    LAND,
    LAND_OUT,
    LEGEND_SIZE,
    LOG_BOX,
    MAP_H,
    MAP_W,
    MAP_X,
    MAP_Y,
    OUT_LABEL,
    SCALE,
    SEA,
    SEA_EDGE,
    SEA_LABEL,
    SEA_OUT,
    SHORE,
    SHORE_OUT,
    STRAIT_W,
    WHEEL_BOX,
    WIDTH,
    M,
    image_height,
)
from render.antiquity.wheel import _wheel
from render.common import (
    BACKGROUND,
    BOX_FILL,
    BOX_LINE,
    Canvas,
    Point,
    darken,
    dashed_line,
    font,
    rounded_mask,
)


def _clip(poly: list[Point], a: float, b: float, c: float) -> list[Point]:
    """``poly`` cut to the half-plane ``a*x + b*y <= c`` (Sutherland-Hodgman)."""
    out: list[Point] = []
    for i, p in enumerate(poly):
        q = poly[(i + 1) % len(poly)]
        fp, fq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            out.append((p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t))
    return out


@lru_cache(maxsize=1)
def sea_cells() -> dict[str, tuple[Point, ...]]:
    """Each sea's cell: the part of the map nearer its position than any other sea's."""
    seas = game_map().seas
    box = [(MAP_X, MAP_Y), (MAP_X + MAP_W, MAP_Y), (MAP_X + MAP_W, MAP_Y + MAP_H),
           (MAP_X, MAP_Y + MAP_H)]
    out = {}
    for sid, s in seas.items():
        poly: list[Point] = list(box)
        sx, sy = s.at
        for oid, o in seas.items():
            if oid == sid or len(poly) < 3:
                continue
            ox, oy = o.at
            poly = _clip(poly, ox - sx, oy - sy, (ox * ox + oy * oy - sx * sx - sy * sy) / 2)
        out[sid] = tuple(poly)
    return out


STRAITS = frozenset({frozenset(("campania", "sicilia")), frozenset(("baetica", "mauretania")),
                     frozenset(("asia", "thracia"))})


def _bridge_width(a: str, b: str) -> float:
    return STRAIT_W if frozenset((a, b)) in STRAITS else BRIDGE_W


def _local(p: Point) -> Point:
    return p[0] - MAP_X, p[1] - MAP_Y


def _out_of_play_caption(in_play: frozenset[str]) -> tuple[Point, list[str]] | None:
    """Where the grey regions' caption goes (on grey sea, clear of every name and city,
    near the middle of the regions not in play), and its lines; None if all are in play or
    there is no room."""
    gm = game_map()
    out = [r for rid, r in (*gm.provinces.items(), *gm.seas.items()) if rid not in in_play]
    if not out:
        return None
    playing = [r.players for rid, r in (*gm.provinces.items(), *gm.seas.items())
               if rid in in_play]
    n = max(playing, default=0)
    lines = ["Not in play", f"with {n} nations" if n else "at this table"]
    w = max(font(LEGEND_SIZE + 1).getlength(line) for line in lines) + 6
    h = 2 * (LEGEND_SIZE + 5) + 4
    taken = [spot.box for spot in spots(layout_key(in_play)).values()]
    taken += [b for pid, p in gm.provinces.items() if pid in in_play for b in city_boxes(p)]
    taken.append(legend_box())
    mx = sum(r.at[0] for r in out) / len(out)
    my = sum(r.at[1] for r in out) / len(out)
    seas = list(gm.seas.values())

    def grey(x: float, y: float) -> bool:
        near = min(seas, key=lambda s: (s.at[0] - x) ** 2 + (s.at[1] - y) ** 2)
        return near.id not in in_play and all(
            math.dist((x, y), p.at) > BLOB_R + 4 for pid, p in gm.provinces.items()
            if pid in in_play)

    points = sorted(((mx + dx, my + dy) for dx in range(-160, 161, 16)
                     for dy in range(-120, 121, 12)),
                    key=lambda p: (math.dist(p, (mx, my)), p))
    for x, y in points:
        box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        if (box[0] < MAP_X + 4 or box[2] > MAP_X + MAP_W - 4 or box[1] < MAP_Y + 4
                or box[3] > MAP_Y + MAP_H - 4):
            continue
        if not all(grey(px, py) for px in (box[0], box[2]) for py in (box[1], box[3])):
            continue
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
               for b in taken):
            continue
        return (x, y), lines
    return None


@lru_cache(maxsize=8)
def _map_layer(in_play: frozenset[str]) -> Image.Image:
    """Seas, land, borders, coasts and the legend, for the regions in play (others greyed)."""
    gm = game_map()
    c = Canvas(MAP_W, MAP_H, SEA_OUT, scale=SCALE)
    cells = sea_cells()
    for sid, s in gm.seas.items():
        fill = (DEEP if s.deep else SEA) if sid in in_play else SEA_OUT
        pts = [_local(p) for p in cells[sid]]
        if len(pts) >= 3:
            c.polygon(pts, fill=fill)
    for sid in gm.seas:  # the seas' edges, faint
        pts = [_local(p) for p in cells[sid]]
        if len(pts) >= 3 and sid in in_play:
            c.polygon(pts, outline=SEA_EDGE, width=1.2)

    def playing(pid: str) -> bool:
        return pid in in_play

    # land: a shore first (a little larger), then the land, greyed where not in play
    for stage in ("shore", "land"):
        for grey in (True, False):
            for a, b in gm.land:
                if (not (playing(a) and playing(b))) != grey:
                    continue
                w = _bridge_width(a, b) + (4 if stage == "shore" else 0)
                colour = (SHORE_OUT if grey else SHORE) if stage == "shore" else \
                    (LAND_OUT if grey else LAND)
                c.line([_local(gm.provinces[a].at), _local(gm.provinces[b].at)], fill=colour,
                       width=w, round_caps=True)
            for pid, p in gm.provinces.items():
                if playing(pid) == grey:
                    continue
                r = BLOB_R + (2 if stage == "shore" else 0)
                colour = (SHORE_OUT if grey else SHORE) if stage == "shore" else \
                    (LAND_OUT if grey else LAND)
                c.circle(_local(p.at), r, fill=colour)
    # coasts: short dashes from a province toward each of its seas in play
    for pid, p in gm.provinces.items():
        if not playing(pid):
            continue
        for sid in p.coasts:
            sea = gm.seas.get(sid)
            if sea is None or sid not in in_play:
                continue
            (x0, y0), (x1, y1) = p.at, sea.at
            d = math.hypot(x1 - x0, y1 - y0)
            if d < BLOB_R + 20:
                continue
            ux, uy = (x1 - x0) / d, (y1 - y0) / d
            end = min(d - 16, BLOB_R + 22)
            dashed_line(c, [_local((x0 + ux * (BLOB_R + 3), y0 + uy * (BLOB_R + 3))),
                            _local((x0 + ux * end, y0 + uy * end))], COAST, 1.6, 4, 3)
    # land borders: dotted links between the cities
    for a, b in gm.land:
        if not (playing(a) and playing(b)):
            continue
        pa, pb = _city_xy(gm.provinces[a]), _city_xy(gm.provinces[b])
        d = math.dist(pa, pb)
        if d <= 2 * CITY_R + 6:
            continue
        ux, uy = (pb[0] - pa[0]) / d, (pb[1] - pa[1]) / d
        first = (pa[0] + ux * (CITY_R + 3), pa[1] + uy * (CITY_R + 3))
        last = (pb[0] - ux * (CITY_R + 3), pb[1] - uy * (CITY_R + 3))
        dashed_line(c, [_local(first), _local(last)], BORDER, 2.2, 3, 3.5, round_caps=True)
    # the legend, bottom left: what the darker seas and the grey regions are
    x0, _, _, y1 = legend_box()
    lines = ["Darker sea: deep (Navigation only)"]
    if any(rid not in in_play for rid in (*gm.provinces, *gm.seas)):
        lines.append("Grey: not in play at this table")
    for i, line in enumerate(reversed(lines)):
        c.text(_local((x0, y1 - 2 - i * (LEGEND_SIZE + 4))), line, LEGEND_SIZE, fill=SEA_LABEL,
               anchor="ld", stroke=2, stroke_fill=darken(SEA, 0.4))
    # and on the grey part itself, where there is room
    caption = _out_of_play_caption(in_play)
    if caption is not None:
        (x, y), lines = caption
        for i, line in enumerate(lines):
            c.text(_local((x, y + (i - (len(lines) - 1) / 2) * (LEGEND_SIZE + 5))), line,
                   LEGEND_SIZE + 1, fill=OUT_LABEL, anchor="mm")
    return c.finish()


@lru_cache(maxsize=8)
def _backdrop(in_play: frozenset[str], rows: int) -> Image.Image:
    """Background, the header's box, the map, the wheel, the log's box and the panels'
    boxes (RGB, final size)."""
    height = image_height(rows * 2)
    c = Canvas(WIDTH, height, BACKGROUND, scale=2)
    c.rect((M, M, WIDTH - M, M + HEADER_H - 6), fill=BOX_FILL, outline=BOX_LINE, width=1,
           radius=10)
    c.rect((MAP_X - 3, MAP_Y - 3, MAP_X + MAP_W + 3, MAP_Y + MAP_H + 3), fill=(14, 16, 20),
           radius=13)
    c.rect(WHEEL_BOX, fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    c.rect(LOG_BOX, fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    _wheel(c)
    image = c.finish()
    image.paste(_map_layer(in_play), (MAP_X, MAP_Y), rounded_mask(MAP_W, MAP_H, 11))
    return image

