"""The Mediterranean from the shared map data (``engine/antiquity/data/map.toml``): names,
cities, resources, borders, coasts, the player count each region joins at, nation
colours, and the drawing positions ``at`` on a 1000 x 560 sketch, stretched to the map's
box; and where a region's city, name, counters and marks go."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from render.antiquity.layout import (
    BLOB_R,
    CITY_DY,
    CITY_R,
    ESSENTIAL,
    LEGEND_SIZE,
    MAP_FILE,
    MAP_H,
    MAP_W,
    MAP_X,
    MAP_Y,
    NEUTRAL_NATION,
    PLACE,
    PLACE_STROKE,
    UNIT_H,
)
from render.common import RGB, Box, Point, as_int, font


@dataclass(frozen=True)
class _Region:
    id: str
    name: str
    sea: bool
    players: int
    at: Point  # final pixels
    city: str = ""
    resource: str = ""
    coasts: tuple[str, ...] = ()
    deep: bool = False


@dataclass(frozen=True)
class _Nation:
    id: str
    name: str
    adjective: str
    colour: RGB


@dataclass(frozen=True)
class _Map:
    provinces: dict[str, _Region]
    seas: dict[str, _Region]
    nations: dict[str, _Nation]
    order: tuple[str, ...]
    land: tuple[tuple[str, str], ...]
    sea_borders: tuple[tuple[str, str], ...]

    def region(self, rid: Any) -> _Region | None:
        if not isinstance(rid, str):
            return None
        return self.provinces.get(rid) or self.seas.get(rid)


def _px(p: Any) -> Point:
    """A sketch point ``[x, y]`` (1000 x 560) in final pixels: stretched a little taller
    than the sketch, so that Italy and Greece have room for their counters."""
    x, y = 500.0, 300.0
    if (isinstance(p, list | tuple) and len(p) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in p)):
        x, y = float(p[0]), float(p[1])
    return (MAP_X + 16 + (x - 30) * (MAP_W - 32) / 925,
            MAP_Y + 26 + (y - 80) * (MAP_H - 56) / 455)


def _colour(value: Any) -> RGB:
    if isinstance(value, str) and len(value) == 7 and value.startswith("#"):
        try:
            raw = bytes.fromhex(value[1:])
            return raw[0], raw[1], raw[2]
        except ValueError:
            pass
    return NEUTRAL_NATION


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    out = []
    for pair in value if isinstance(value, list) else []:
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair):
            out.append((pair[0], pair[1]))
    return tuple(out)


@lru_cache(maxsize=1)
def game_map() -> _Map:
    """The map (read once from map.toml), in map order."""
    with MAP_FILE.open("rb") as fh:
        data = tomllib.load(fh)
    provinces: dict[str, _Region] = {}
    for pid, raw in (data.get("provinces") or {}).items():
        if isinstance(raw, Mapping):
            coasts = raw.get("coasts") or []
            provinces[pid] = _Region(
                pid, str(raw.get("name") or pid.title()), False, as_int(raw.get("players"), 2),
                _px(raw.get("at")), str(raw.get("city") or ""), str(raw.get("resource") or ""),
                tuple(c for c in coasts if isinstance(c, str)))
    seas: dict[str, _Region] = {}
    land, sea = data.get("land"), data.get("sea")
    for sid, raw in (data.get("seas") or {}).items():
        if isinstance(raw, Mapping):
            seas[sid] = _Region(sid, str(raw.get("name") or sid.title()), True,
                                as_int(raw.get("players"), 2), _px(raw.get("at")),
                                deep=bool(raw.get("deep")))
            land = land if land is not None else raw.get("land")  # an old file's layout
            sea = sea if sea is not None else raw.get("sea")
    nations: dict[str, _Nation] = {}
    for nid, raw in (data.get("nations") or {}).items():
        if isinstance(raw, Mapping):
            nations[nid] = _Nation(nid, str(raw.get("name") or nid.title()),
                                   str(raw.get("adjective") or raw.get("name") or nid),
                                   _colour(raw.get("color")))
    order = tuple(n for n in data.get("nation_order") or nations if n in nations)
    return _Map(provinces, seas, nations, order,
                tuple(p for p in _pairs(land) if p[0] in provinces and p[1] in provinces),
                tuple(p for p in _pairs(sea) if p[0] in seas and p[1] in seas))


def _city_xy(region: _Region) -> Point:
    return region.at[0], region.at[1] + CITY_DY


#: Seas whose counters (and name) sit a little off their map point, clear of the coasts.
SEA_SHIFT: dict[str, Point] = {"tyrrhenum": (16.0, 2.0), "aegaeum": (12.0, 0.0)}


def _sea_xy(region: _Region) -> Point:
    dx, dy = SEA_SHIFT.get(region.id, (0.0, 0.0))
    return region.at[0] + dx, region.at[1] + dy



# --- where names, counters and marks go ------------------------------------------------------
#
# Place names are drawn at the phone-first size (``PLACE``), so on this crowded map they are
# laid out once per set of regions in play, each clear of every city, every other name and
# every row of counters: a province's name below, above or beside its city with its legions
# in rows beside it, a sea's name near its point with its galleys in rows under it. Each
# region tries its candidate spots in order of preference and takes the one overlapping
# least (three rounds, each region placed again with all others fixed).

_LEGIONS_PER_ROW = 2
_GALLEYS_PER_ROW = 3
_ROW_GAP = 3.0  # between counters in a row, and between rows


@dataclass(frozen=True)
class _Spot:
    """Where a region's things go: its name (centre, "mm", and box), its counter rows
    ``(x, y, direction)`` (the row starts at ``x`` and runs right for 1, left for -1, or is
    centred on ``x`` for 0) and the point for its fight bursts and "+n" tags."""

    label: Point
    box: Box
    rows: tuple[tuple[float, float, int], ...]
    mark: Point


def place_name(region: _Region) -> str:
    """A region's name on the map: its city (provinces), its name without "Mare" (seas).
    Each is a name the commands accept (``move 2 Roma tyrrhenum``)."""
    if region.sea:
        for prefix in ("Mare ", "Oceanus "):
            if region.name.startswith(prefix) and len(region.name) > len(prefix):
                return region.name[len(prefix):]
        return region.name
    return region.city or region.name


@lru_cache(maxsize=256)
def _text_box(text: str, bold: bool) -> Box:
    """The box of a place name drawn centred ("mm") on (0, 0), stroke included."""
    left, top, right, bottom = font(PLACE, bold).getbbox(text, anchor="mm")
    s = PLACE_STROKE
    return (left - s, top - s, right + s, bottom + s)


def place_box(region: _Region, at: Point) -> Box:
    """The box of ``region``'s name drawn centred on ``at``."""
    left, top, right, bottom = _text_box(place_name(region), not region.sea)
    return (at[0] + left, at[1] + top, at[0] + right, at[1] + bottom)


@lru_cache(maxsize=1024)
def unit_width(label: str, sea: bool) -> float:
    """A counter's width (legions; galleys are a little wider)."""
    return max(UNIT_H, font(ESSENTIAL, True).getlength(label) + 8) + (6 if sea else 0)


def row_boxes(row: tuple[float, float, int], widths: list[float]) -> list[Box]:
    """The boxes of the counters ``widths`` wide in ``row``."""
    x, y, d = row
    total = sum(widths) + _ROW_GAP * (len(widths) - 1)
    left = x if d > 0 else x - total if d < 0 else x - total / 2
    out = []
    for w in widths:
        out.append((left, y - UNIT_H / 2, left + w, y + UNIT_H / 2))
        left += w + _ROW_GAP
    return out


def _row_box(row: tuple[float, float, int], n: int, sea: bool) -> Box:
    """The box ``n`` two-digit counters take in ``row`` (what a row keeps free)."""
    boxes = row_boxes(row, [unit_width("10", sea)] * n)
    return (boxes[0][0], boxes[0][1], boxes[-1][2], boxes[-1][3])


def _overlap(a: Box, b: Box) -> float:
    if a[0] >= b[2] or b[0] >= a[2] or a[1] >= b[3] or b[1] >= a[3]:
        return 0.0
    return (min(a[2], b[2]) - max(a[0], b[0])) * (min(a[3], b[3]) - max(a[1], b[1]))


def _outside(b: Box) -> float:
    """How much of ``b`` lies off the map (a little inside its edge)."""
    x0, y0, x1, y1 = MAP_X + 3, MAP_Y + 3, MAP_X + MAP_W - 3, MAP_Y + MAP_H - 3
    area = (b[2] - b[0]) * (b[3] - b[1])
    return area - _overlap(b, (x0, y0, x1, y1))


def city_boxes(region: _Region) -> tuple[Box, Box]:
    """What a city covers: its disc, and the temple over its top right corner."""
    x, y = _city_xy(region)
    return ((x - CITY_R - 1.5, y - CITY_R - 1.5, x + CITY_R + 1.5, y + CITY_R + 1.5),
            (x + 3, y - CITY_R - 6.5, x + CITY_R + 6, y - CITY_R + 0.5))


def legend_box() -> Box:
    """The map's legend, in its bottom-left corner."""
    return (MAP_X + 6, MAP_Y + MAP_H - 6 - 2 * (LEGEND_SIZE + 4),
            MAP_X + 6 + 214, MAP_Y + MAP_H - 4)


@dataclass(frozen=True)
class _Choice:
    spot: _Spot
    hard: tuple[Box, ...]  # must stay clear of everything else
    soft: tuple[Box, ...]  # rarely used rows and marks: better clear

    @property
    def bounds(self) -> Box:
        boxes = (*self.hard, *self.soft)
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                max(b[3] for b in boxes))


def _inside(x: float, box: Box) -> float:
    """``x`` moved so that a name with ``box`` (around 0) centred on it stays on the map."""
    return min(max(x, MAP_X + 4 - box[0]), MAP_X + MAP_W - 4 - box[2])


def _province_choices(region: _Region) -> list[_Choice]:
    cx, cy = _city_xy(region)
    box = _text_box(place_name(region), True)
    w, h = box[2] - box[0], box[3] - box[1]
    r = CITY_R
    right, left = (cx + r + 4, cy, 1), (cx - r - 4, cy, -1)
    above_row, below_row = (cx, cy - r - 5 - UNIT_H / 2, 0), (cx, cy + r + 4 + UNIT_H / 2, 0)
    out: list[_Choice] = []

    def add(label: Point, rows: list[tuple[float, float, int]], mark: Point) -> None:
        label = (_inside(label[0], box), label[1])
        lb = (label[0] + box[0], label[1] + box[1], label[0] + box[2], label[1] + box[3])
        spot = _Spot(label, lb, tuple(rows), mark)
        hard = (lb, _row_box(rows[0], 1, False))
        soft = tuple(_row_box(row, _LEGIONS_PER_ROW, False) for row in rows)
        out.append(_Choice(spot, hard, soft))

    mid = (box[1] + box[3]) / 2  # the box's middle below the anchor
    for e in (0.0, 5.0, 10.0):
        for dx in (0.0, -w * 0.3, w * 0.3, -w * 0.45, w * 0.45):
            below = (cx + dx, cy + r + 3 + h / 2 - mid + e)
            above = (cx + dx, cy - r - 6 - h / 2 - mid - e)
            for first, second in ((right, left), (left, right)):
                add(below, [first, second, above_row], (cx - first[2] * (r + 10), cy - r - 9))
                add(above, [first, second, below_row], (cx - first[2] * (r + 10), cy + r + 6))
    for e in (0.0, -7.0, 7.0, -14.0, 14.0):
        for side in (1, -1):
            label = (cx + side * (r + 5 + w / 2), cy + e - mid)
            x = cx - side * (r + 4)
            rows = [(x, cy, -side), (x, cy + UNIT_H + _ROW_GAP, -side),
                    (x, cy - UNIT_H - _ROW_GAP, -side)]
            add(label, rows, (cx + side * (r + 8), cy - side * e - r - 12))
    return out


def _sea_choices(region: _Region) -> list[_Choice]:
    sx, sy = _sea_xy(region)
    box = _text_box(place_name(region), False)
    out = []
    steps = [(dx, dy) for dy in range(-45, 46, 9) for dx in range(-60, 61, 12)]
    steps.sort(key=lambda p: (abs(p[0]) / 2 + abs(p[1]), p))
    for dx, dy in steps:
        x, y = _inside(sx + dx, box), sy + dy
        lb = (x + box[0], y + box[1], x + box[2], y + box[3])
        for below in (True, False):  # the galleys under the name, or over it
            step = UNIT_H + _ROW_GAP
            first = lb[3] + _ROW_GAP + UNIT_H / 2 if below else lb[1] - _ROW_GAP - UNIT_H / 2
            rows = ((x, first, 0), (x, first + (step if below else -step), 0))
            mark = (lb[0] - 12, y)
            spot = _Spot((x, y), lb, rows, mark)
            hard = (lb, _row_box(rows[0], 2, True))
            soft = (_row_box(rows[0], _GALLEYS_PER_ROW, True), _row_box(rows[1], 2, True))
            out.append(_Choice(spot, hard, soft))
    return out


@lru_cache(maxsize=1)
def _land_points() -> tuple[Point, ...]:
    return tuple(p.at for p in game_map().provinces.values())


def _land_cost(b: Box) -> float:
    """How far ``b`` reaches onto land (a sea's name and galleys belong on water)."""
    total = 0.0
    for x, y in _land_points():
        if x < b[0] - BLOB_R or x > b[2] + BLOB_R or y < b[1] - BLOB_R or y > b[3] + BLOB_R:
            continue
        dx = max(b[0] - x, 0.0, x - b[2])
        dy = max(b[1] - y, 0.0, y - b[3])
        d = math.hypot(dx, dy)
        if d < BLOB_R:
            total += (BLOB_R - d) * 200
    return total


#: What a pixel of overlap costs: with a name or a first counter, and with a further row.
HARD, SOFT = 1000.0, 0.3


def _gap(p: Point, b: Box) -> float:
    """How far ``b`` is from a city's disc around ``p``."""
    dx = max(b[0] - p[0], 0.0, p[0] - b[2])
    dy = max(b[1] - p[1], 0.0, p[1] - b[3])
    return max(0.0, math.hypot(dx, dy) - CITY_R)


def _stray(region: _Region, choice: _Choice, points: dict[bool, list[tuple[str, Point]]]
           ) -> float:
    """How much ``choice`` would seem to name another region: its name (and a sea's galleys)
    nearer another city than its own, or in another sea's cell."""
    total = 0.0
    b = choice.spot.box
    probes = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)]
    if region.sea:
        x, y, _ = choice.spot.rows[0]
        probes.append((x, y))
    for px, py in probes:
        own = math.inf
        best = math.inf
        for rid, (x, y) in points[region.sea]:
            d = (x - px) ** 2 + (y - py) ** 2
            if rid == region.id:
                own = d
            elif d < best:
                best = d
        if best < own:
            total += 5000
    return total


def layout_key(in_play: Iterable[str]) -> frozenset[str]:
    """The regions in play at the smallest table that has all of ``in_play``: what names are
    laid out for (a handful of layouts, however odd the view)."""
    gm = game_map()
    n = max((r.players for r in map(gm.region, in_play) if r is not None), default=2)
    return frozenset(rid for rid, r in (*gm.provinces.items(), *gm.seas.items())
                     if r.players <= n)


@lru_cache(maxsize=8)
def spots(in_play: frozenset[str]) -> dict[str, _Spot]:
    """Where each region in play puts its name, counters and marks (see above)."""
    gm = game_map()
    regions = [*(p for pid, p in gm.provinces.items() if pid in in_play),
               *(s for sid, s in gm.seas.items() if sid in in_play)]
    anchors = {r.id: _sea_xy(r) if r.sea else _city_xy(r) for r in regions}
    discs = {r.id: city_boxes(r) for r in regions if not r.sea}
    legend = legend_box()

    def close(a: str, b: str, dx: float = 240, dy: float = 180) -> bool:
        return abs(anchors[a][0] - anchors[b][0]) < dx and abs(anchors[a][1] - anchors[b][1]) < dy

    neighbours = {r.id: [o.id for o in regions if o.id != r.id and close(r.id, o.id)]
                  for r in regions}
    # each region's spots with what they cost alone (preference, land, the map's edge, the
    # cities and the legend), cheapest first
    ranked: dict[str, list[tuple[float, _Choice]]] = {}
    points = {
        False: [(r.id, anchors[r.id]) for r in regions if not r.sea],
        True: [(sid, sea.at) for sid, sea in gm.seas.items()],  # the seas' cells
    }
    for r in regions:
        fixed = [legend, *(b for o in discs if close(r.id, o, 160, 140) for b in discs[o])]
        step = 0.5 if r.sea else 2.0
        scored = []
        for i, choice in enumerate(_sea_choices(r) if r.sea else _province_choices(r)):
            total = i * step
            if not r.sea:  # a name close to its city
                total += 4 * _gap(anchors[r.id], choice.spot.box)
            if r.sea:
                total += _land_cost(choice.hard[0]) + _land_cost(choice.hard[1])
            u = choice.bounds
            near = [ob for ob in fixed if u[0] < ob[2] and ob[0] < u[2] and u[1] < ob[3]
                    and ob[1] < u[3]]
            for b in choice.hard:
                total += (_outside(b) + sum(_overlap(b, ob) for ob in near)) * HARD
            for b in choice.soft:
                total += (_outside(b) + sum(_overlap(b, ob) for ob in near)) * SOFT
            total += _stray(r, choice, points)
            scored.append((total, choice))
        scored.sort(key=lambda sc: sc[0])
        ranked[r.id] = scored
    chosen: dict[str, _Choice] = {}

    bounds: dict[int, Box] = {}

    def clash(choice: _Choice, others: list[_Choice]) -> float:
        total = 0.0
        mine = bounds.get(id(choice)) or bounds.setdefault(id(choice), choice.bounds)
        for c in others:
            theirs = bounds.get(id(c)) or bounds.setdefault(id(c), c.bounds)
            if (mine[2] <= theirs[0] or theirs[2] <= mine[0] or mine[3] <= theirs[1]
                    or theirs[3] <= mine[1]):
                continue
            for b in choice.hard:
                for ob in c.hard:
                    total += _overlap(b, ob) * HARD
                for ob in c.soft:
                    total += _overlap(b, ob) * SOFT
            for b in choice.soft:
                for ob in c.hard:
                    total += _overlap(b, ob) * SOFT
        return total

    for _ in range(3):
        for r in regions:
            others = [chosen[o] for o in neighbours[r.id] if o in chosen]
            best, best_cost = ranked[r.id][0][1], math.inf
            for alone, choice in ranked[r.id]:
                if alone >= best_cost:
                    break  # this and every later spot cost more even when clear
                total = alone + clash(choice, others)
                if total < best_cost:
                    best, best_cost = choice, total
            chosen[r.id] = best
    return {rid: c.spot for rid, c in chosen.items()}
