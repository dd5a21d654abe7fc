"""The Antiquity map each render: the arrows of the moves, every place's name over them,
cities (a disc ringed in its resource's colour, filled in the owner's), legions beside them
and galleys by their sea's name, and what the events did: bursts for fights, rings for
cities conquered, founded or given a temple, "+n" for units armed, a cross for a city
abandoned, each move's count. Names are where ``geography.spots`` put them; counters, marks
and counts each take the first place that covers no name, city, counter or mark (a
:class:`_Room` of what is taken)."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import lru_cache, partial

from render.antiquity.events import _Turn
from render.antiquity.geography import (
    _city_xy,
    _Region,
    _Spot,
    city_boxes,
    game_map,
    layout_key,
    place_name,
    row_boxes,
    spots,
    unit_width,
)
from render.antiquity.layout import (
    ARROW_HEAD,
    ARROW_SPREAD,
    CITY_R,
    DEEP,
    ESSENTIAL,
    MAP_H,
    MAP_W,
    MAP_X,
    MAP_Y,
    MAX_ARROWS,
    PLACE,
    PLACE_STROKE,
    RESOURCE_COLOURS,
    RESOURCE_LETTERS,
    SEA,
    SEA_NAME,
    UNIT_H,
)
from render.antiquity.view import _nation_colour, _Place
from render.common import (
    DANGER,
    GOLD,
    LABEL_STROKE,
    RGB,
    TEXT,
    Box,
    Canvas,
    Colour,
    Point,
    burst,
    darken,
    lighten,
    path_arrow,
    path_length,
    point_along,
    tag,
    text_on,
    trim_path,
)


def _legion(c: Canvas, centre: Point, colour: RGB, label: str) -> None:
    w = unit_width(label, False)
    c.stamp(("legion", colour, label), centre, w / 2 + 3,
            lambda cv, p: _draw_legion(cv, p, colour, label, w))


def _draw_legion(c: Canvas, centre: Point, colour: RGB, label: str, w: float) -> None:
    x, y = centre
    h = UNIT_H
    c.rect((x - w / 2 + 0.8, y - h / 2 + 1.2, x + w / 2 + 0.8, y + h / 2 + 1.2),
           fill=(0, 0, 0, 110), radius=4)
    c.rect((x - w / 2, y - h / 2, x + w / 2, y + h / 2), fill=colour,
           outline=(245, 242, 234), width=1.4, radius=4)
    fg = text_on(colour)
    c.text((x, y + 0.5), label, ESSENTIAL, fill=fg, bold=True, anchor="mm", role="count")


def _galley(c: Canvas, centre: Point, colour: RGB, label: str) -> None:
    w = unit_width(label, True)
    c.stamp(("galley", colour, label), centre, w / 2 + 3,
            lambda cv, p: _draw_galley(cv, p, colour, label, w))


def _hull(x: float, y: float, w: float, h: float) -> list[Point]:
    return [(x - w / 2, y - h / 2), (x + w / 2, y - h / 2), (x + w / 2 - 5, y + h / 2),
            (x - w / 2 + 5, y + h / 2)]


def _draw_galley(c: Canvas, centre: Point, colour: RGB, label: str, w: float) -> None:
    x, y = centre
    c.polygon(_hull(x + 0.8, y + 1.2, w, UNIT_H), fill=(0, 0, 0, 110))
    c.polygon(_hull(x, y, w, UNIT_H), fill=colour, outline=(245, 242, 234), width=1.4)
    c.text((x, y), label, ESSENTIAL, fill=text_on(colour), bold=True, anchor="mm",
           role="count")


def _city(c: Canvas, centre: Point, resource: str, owner: RGB | None, temple: bool) -> None:
    c.stamp(("city", resource, owner, temple), centre, CITY_R + 8,
            lambda cv, p: _draw_city(cv, p, resource, owner, temple))


def _temple_glyph(c: Canvas, centre: Point, s: float, colour: Colour, dark: Colour) -> None:
    """A small temple: a pediment on columns."""
    x, y = centre
    c.polygon([(x - s, y - s * 0.35), (x, y - s), (x + s, y - s * 0.35)], fill=colour,
              outline=dark, width=0.8)
    c.rect((x - s * 0.85, y - s * 0.3, x + s * 0.85, y + s * 0.85), fill=dark)
    for k in (-0.6, 0, 0.6):
        c.rect((x + s * k - s * 0.14, y - s * 0.2, x + s * k + s * 0.14, y + s * 0.6),
               fill=colour)
    c.rect((x - s * 0.95, y + s * 0.6, x + s * 0.95, y + s * 0.9), fill=colour)


def _draw_city(c: Canvas, centre: Point, resource: str, owner: RGB | None,
               temple: bool) -> None:
    x, y = centre
    ring = RESOURCE_COLOURS.get(resource, (200, 200, 200))
    c.circle((x + 0.6, y + 1), CITY_R + 0.5, fill=(0, 0, 0, 100))
    fill = owner if owner is not None else (56, 50, 36)
    c.circle((x, y), CITY_R, fill=fill, outline=ring, width=2.4)
    letter = RESOURCE_LETTERS.get(resource, "?")
    fg = text_on(owner) if owner is not None else ring
    c.text((x, y + 0.5), letter, 10.5, fill=fg, bold=True, anchor="mm")
    if temple:
        _temple_glyph(c, (x + CITY_R * 0.95, y - CITY_R * 0.95), 5.5, (250, 240, 210),
                      (40, 34, 24))


class _Room:
    """Boxes taken on the map (names, cities, counters, marks), bucketed in 64-pixel cells so
    that a new box is quickly tested against those near it."""

    CELL = 64

    def __init__(self, boxes: Sequence[Box] = ()) -> None:
        self.cells: dict[tuple[int, int], list[Box]] = {}
        for b in boxes:
            self.add(b)

    def copy(self) -> _Room:
        room = _Room()
        room.cells = {k: list(v) for k, v in self.cells.items()}
        return room

    def _keys(self, b: Box) -> list[tuple[int, int]]:
        n = self.CELL
        return [(i, j) for i in range(int(b[0] // n), int(b[2] // n) + 1)
                for j in range(int(b[1] // n), int(b[3] // n) + 1)]

    def add(self, b: Box) -> None:
        for k in self._keys(b):
            self.cells.setdefault(k, []).append(b)

    def clash(self, b: Box) -> float:
        """How much ``b`` overlaps what is taken (0: it is free)."""
        total = 0.0
        seen: set[int] = set()
        for k in self._keys(b):
            for o in self.cells.get(k, ()):
                if id(o) in seen:
                    continue
                seen.add(id(o))
                w = min(b[2], o[2]) - max(b[0], o[0])
                h = min(b[3], o[3]) - max(b[1], o[1])
                if w > 0 and h > 0:
                    total += w * h
        return total

    def free(self, b: Box) -> bool:
        """Whether ``b`` overlaps nothing taken."""
        n = self.CELL
        for i in range(int(b[0] // n), int(b[2] // n) + 1):
            for j in range(int(b[1] // n), int(b[3] // n) + 1):
                for o in self.cells.get((i, j), ()):
                    if b[0] < o[2] and o[0] < b[2] and b[1] < o[3] and o[1] < b[3]:
                        return False
        return True

    def best(self, boxes: Sequence[Box]) -> int:
        """The index of the first free box of ``boxes`` (else the least covered)."""
        for i, b in enumerate(boxes):
            if self.free(b):
                return i
        return min(range(len(boxes)), key=lambda i: (self.clash(boxes[i]), i))


@lru_cache(maxsize=8)
def _static_room(in_play: frozenset[str]) -> _Room:
    """The names and cities of the regions in play (what no counter or mark may cover)."""
    gm = game_map()
    where = spots(in_play)
    boxes = [spot.box for spot in where.values()]
    boxes += [b for pid, p in gm.provinces.items() if pid in in_play for b in city_boxes(p)]
    return _Room(boxes)


def _fallback_rows(place: _Place, spot: _Spot) -> list[tuple[float, float, int]]:
    """More rows of counters, further out, for when the region's own rows are full."""
    step = UNIT_H + 3
    if place.region.sea:
        x, y, _ = spot.rows[0]
        below = y > spot.label[1]
        out = [(x, y + (k if below else -k) * step, 0) for k in (2, 3)]
        return out + [(x, spot.box[1] - 3 - UNIT_H / 2 - k * step, 0) if below else
                      (x, spot.box[3] + 3 + UNIT_H / 2 + k * step, 0) for k in (0, 1)]
    cx, cy = _city_xy(place.region)
    out = []
    for k in (1, -1, 2, -2):
        out += [(cx + CITY_R + 4, cy + k * step, 1), (cx - CITY_R - 4, cy + k * step, -1)]
    return out


def _unit_row(place: _Place, spot: _Spot, order: Sequence[str],
              room: _Room | None = None) -> list[tuple[Box, str, str]]:
    """Where each nation's counter goes, in the region's rows of counters (beside the city,
    under the sea's name), a counter that would cover a name, a city or another counter
    moving on to the next row: (box, nation, label) in nation order. The boxes are added
    to ``room``."""
    units = sorted(place.units.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order
                                                        else len(order), kv[0]))
    if not units:
        return []
    sea = place.region.sea
    left = [(nid, str(n)) for nid, n in units[:6]]
    per_row = 3 if sea else 2
    out: list[tuple[Box, str, str]] = []
    rows = [*spot.rows, *_fallback_rows(place, spot)]
    for row in rows:
        if not left:
            break
        chunk = left[:per_row]
        boxes = row_boxes(row, [unit_width(label, sea) for _, label in chunk])
        kept = []
        for box, item in zip(boxes, chunk, strict=True):
            if room is None or room.free(box):
                out.append((box, *item))
                kept.append(item)
                if room is not None:
                    room.add(box)
        left = [item for item in left if item not in kept]
    for item in left:  # no room anywhere: where it covers least
        assert room is not None
        w = unit_width(item[1], sea)
        options = [row_boxes(row, [w])[0] for row in rows]
        box = options[room.best(options)]
        out.append((box, *item))
        room.add(box)
    return out


def _anchor(region: _Region, spot: _Spot | None) -> Point:
    """Where a move's arrow starts or ends in a region: its city, or its galleys' row."""
    if region.sea and spot is not None:
        return spot.rows[0][0], spot.rows[0][1]
    return region.at if region.sea else _city_xy(region)


def _tag_boxes(c: Canvas, centres: Sequence[Point], label: str) -> list[Box]:
    """The boxes of a :func:`tag` (12 px) centred on each of ``centres``, a pixel to spare."""
    half = (c.text_width(label, 12, bold=True) + 10) / 2 + 2
    return [(x - half, y - 10.5, x + half, y + 10.5) for x, y in centres]


#: Sixteen directions, the nearest to horizontal first.
_DIRECTIONS = sorted(((math.cos(k * math.pi / 8), math.sin(k * math.pi / 8)) for k in range(16)),
                     key=lambda d: (round(abs(d[1]), 6), d))


def _around(centre: Point, spot: _Spot | None) -> list[Point]:
    """Where a region's marks may go: its own mark's point first, then around it."""
    x, y = centre
    out = [spot.mark] if spot is not None else []
    for d in (24.0, 36.0, 50.0, 64.0, 80.0, 100.0):
        out += [(x + d * cx, y + d * cy) for cx, cy in _DIRECTIONS]
    # clear of the map's edge (a mark is at most about 20 px wide each side, 26 below)
    return [(px, py) for px, py in out if MAP_X + 22 <= px <= MAP_X + MAP_W - 22
            and MAP_Y + 12 <= py <= MAP_Y + MAP_H - 28] or [centre]


def _moves(c: Canvas, turn: _Turn, where: Mapping[str, _Spot],
           room: _Room) -> list[tuple[Point, Colour, str]]:
    """Arrows for the moves; returns their count labels to draw over everything, each where
    it covers no name, city, counter or other count (taken in ``room``)."""
    labels: list[tuple[Point, Colour, str]] = []
    gm = game_map()
    seen: dict[tuple[str, ...], int] = {}
    for m in turn.moves[-MAX_ARROWS:]:
        pts: list[Point] = []
        for rid in m.path:
            region = gm.region(rid)
            if region is None:
                continue
            pts.append(_anchor(region, where.get(rid)))
        k = seen.get(m.path, 0)
        seen[m.path] = k + 1
        if k:  # the same route again: shifted aside
            pts = [(x + 5 * k, y + 5 * k) for x, y in pts]
        pts = trim_path(pts, CITY_R + 2, CITY_R + 4)
        if len(pts) < 2 or path_length(pts) < 8:
            continue
        colour = lighten(_nation_colour(m.nation), 0.2)
        path_arrow(c, pts, colour, 3.5, head=ARROW_HEAD, spread=ARROW_SPREAD, outline=3)
        if m.count:
            label = str(m.count)
            mid = point_along(pts, 0.5)
            options = [point_along(pts, t) for t in (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)]
            options += _around(mid, None)
            boxes = _tag_boxes(c, options, label)
            i = room.best(boxes)
            room.add(boxes[i])
            labels.append((options[i], colour, label))
    return labels


def _name(at: Point, region: _Region, c: Canvas) -> None:
    """A place's name (cities bold, seas light), at the phone-first size."""
    if region.sea:
        c.text(at, place_name(region), PLACE, fill=SEA_NAME, anchor="mm",
               stroke=PLACE_STROKE, stroke_fill=darken(DEEP if region.deep else SEA, 0.35),
               role="place")
    else:
        c.text(at, place_name(region), PLACE, fill=TEXT, bold=True, anchor="mm",
               stroke=PLACE_STROKE, stroke_fill=LABEL_STROKE, role="place")


def _city_in_group(rid: str, at: Point, resource: str, owner: RGB | None, temple: bool,
                   c: Canvas) -> None:
    with c.group(("city", rid)):  # a city and the cross on it when abandoned
        _city(c, at, resource, owner, temple)


def _draw_map(c: Canvas, places: Mapping[str, _Place], turn: _Turn,
              order: Sequence[str]) -> None:
    key = layout_key(places)  # the regions in play for this table
    where = spots(key)
    room = _static_room(key).copy()
    marks: dict[str, list[tuple[str, str | None]]] = {}
    for kind, rid, nid in turn.marks:
        marks.setdefault(rid, []).append((kind, nid))
    # rings under the cities: conquered (red), founded and temples (gold), abandoned
    for rid, kinds in marks.items():
        place = places.get(rid)
        if place is None or place.region.sea:
            continue
        x, y = _city_xy(place.region)
        done = {k for k, _ in kinds}
        if "conquer" in done:
            c.circle((x, y), CITY_R + 5.5, outline=DANGER, width=3.2)
        elif "found" in done or "temple" in done:
            c.circle((x, y), CITY_R + 5.5, outline=GOLD, width=3)
    counters = [(place, box, nid, label) for rid, place in places.items() if rid in where
                for box, nid, label in _unit_row(place, where[rid], order, room)]
    labels = _moves(c, turn, where, room)
    # the places' names and the cities look the same from board to board: patches kept
    # (see Canvas.overlay), drawn again only where a ring or an arrow lies under them
    items: list[Callable[[Canvas], None]] = []
    keys: list[Hashable] = []  # what each depends on besides the layout
    for rid, place in places.items():
        spot = where.get(rid)
        if spot is not None:
            items.append(partial(_name, spot.label, place.region))
            keys.append(("name", rid))
    for rid, place in places.items():
        if place.region.sea:
            continue
        owner = _nation_colour(place.owner) if place.owner is not None else None
        keys.append((rid, place.region.resource, owner, place.temple))
        items.append(partial(_city_in_group, rid, _city_xy(place.region),
                             place.region.resource, owner, place.temple))
    c.overlay(("antiquity names and cities", key), items, keys)
    for rid, place in places.items():  # a cross on a city abandoned
        if place.region.sea or not any(k == "abandon" for k, _ in marks.get(rid, ())):
            continue
        x, y = _city_xy(place.region)
        with c.group(("city", rid)):
            c.line([(x - 7, y - 7), (x + 7, y + 7)], fill=DANGER, width=3, round_caps=True)
            c.line([(x - 7, y + 7), (x + 7, y - 7)], fill=DANGER, width=3, round_caps=True)
    for place, box, nid, label in counters:
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        if place.region.sea:
            _galley(c, centre, _nation_colour(nid), label)
        else:
            _legion(c, centre, _nation_colour(nid), label)
    # what else the turn did, over the counters, each clear of names, cities and counters
    for rid, kinds in marks.items():
        place = places.get(rid)
        if place is None or rid not in where or not any(k == "conquer" for k, _ in kinds):
            continue
        options = _around(_city_xy(place.region), where[rid])
        boxes = [(x - 10, y - 10, x + 10, y + 10) for x, y in options]
        i = room.best(boxes)
        room.add(boxes[i])
        burst(c, options[i], 7.5)
    for rid, lost in turn.fights.items():
        place = places.get(rid)
        if place is None or rid not in where:
            continue
        centre = _anchor(place.region, where[rid])
        options = _around(centre, where[rid])
        whole = [(x - 16, y - 11, x + 16, y + 26) for x, y in options]  # the burst, its tag
        i = room.best(whole)
        if not room.free(whole[i]) or math.dist(options[i], centre) > 52:
            near = [p for p in options if math.dist(p, centre) <= 52] or options[:1]
            alone = [(x - 11, y - 11, x + 11, y + 11) for x, y in near]  # the burst alone
            j = room.best(alone)
            if room.free(alone[j]):  # no room for the tag near: the log tells the losses
                options, whole, i, lost = near, alone, j, 0
        room.add(whole[i])
        x, y = options[i]
        with c.group(("fight", rid)):
            burst(c, (x, y), 8.5)
            if lost:
                tag(c, (x, y + 15), f"-{lost}", DANGER)
    for (_, rid), n in turn.armed.items():
        place = places.get(rid)
        if place is None or rid not in where:
            continue
        label = f"+{n}"
        options = _around(_anchor(place.region, where[rid]), where[rid])
        boxes = _tag_boxes(c, options, label)
        i = room.best(boxes)
        room.add(boxes[i])
        tag(c, options[i], label, (36, 120, 64))
    for centre, colour, label in labels:
        tag(c, centre, label, (16, 17, 22), colour)
