"""The Antiquity map each render: cities (a disc ringed in its resource's colour, filled in
the owner's), legions beside them and galleys under their sea's name, and what the events
did: an arrow per move, bursts for fights, rings for cities conquered, founded or given a
temple, "+n" for units armed, a cross for a city abandoned."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from render.antiquity.events import _Turn
from render.antiquity.geography import _city_xy, _galley_xy, _Region, _sea_xy, game_map
from render.antiquity.layout import (
    ARROW_HEAD,
    ARROW_SPREAD,
    CITY_R,
    ESSENTIAL,
    MAP_W,
    MAP_X,
    MAX_ARROWS,
    NAME_SIZE,
    RESOURCE_COLOURS,
    RESOURCE_LETTERS,
    UNIT_H,
)
from render.antiquity.view import _nation_colour, _Place
from render.common import (
    DANGER,
    GOLD,
    RGB,
    Canvas,
    Colour,
    Point,
    burst,
    lighten,
    path_arrow,
    path_length,
    point_along,
    tag,
    text_on,
    trim_path,
)


def _unit_width(c: Canvas, label: str) -> float:
    return max(UNIT_H, c.text_width(label, ESSENTIAL, bold=True) + 8)


def _legion(c: Canvas, centre: Point, colour: RGB, label: str) -> None:
    w = _unit_width(c, label)
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
    w = _unit_width(c, label) + 6
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


def _unit_row(c: Canvas, place: _Place, order: Sequence[str]) -> list[tuple[Point, str, str]]:
    """Where each nation's counter goes: beside the city (legions) or under the sea's name
    (galleys); (centre, nation, label) in nation order."""
    units = sorted(place.units.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order
                                                        else len(order), kv[0]))
    if not units:
        return []
    labels = [(nid, str(n)) for nid, n in units[:6]]
    widths = [_unit_width(c, label) + (6 if place.region.sea else 0) for _, label in labels]
    gap = 3.0
    sea = place.region.sea
    per_row = 3 if sea else 2
    rows = [list(zip(labels[i:i + per_row], widths[i:i + per_row], strict=True))
            for i in range(0, len(labels), per_row)]
    ax, ay = _galley_xy(place.region) if sea else _city_xy(place.region)
    out: list[tuple[Point, str, str]] = []
    for row, chunk in enumerate(rows):
        total = sum(w for _, w in chunk) + gap * (len(chunk) - 1)
        if sea:  # rows under the sea's name, centred
            x = ax - total / 2
            y = ay + row * (UNIT_H + 3)
        else:  # rows beside the city (on its left near the map's right edge), centred on it
            left_side = ax + CITY_R + 4 + total > MAP_X + MAP_W - 4
            x = ax - CITY_R - 4 - total if left_side else ax + CITY_R + 4
            y = ay + (row - (len(rows) - 1) / 2) * (UNIT_H + 3)
        for (nid, label), w in chunk:
            out.append(((x + w / 2, y), nid, label))
            x += w + gap
    return out


def _anchor(place: _Place) -> Point:
    """Where a move's arrow starts or ends in a region."""
    return _galley_xy(place.region) if place.region.sea else _city_xy(place.region)


def _moves(c: Canvas, places: Mapping[str, _Place], turn: _Turn) -> list[tuple[Point, Colour,
                                                                                   str]]:
    """Arrows for the moves; returns their count labels to draw over everything."""
    labels: list[tuple[Point, Colour, str]] = []
    gm = game_map()
    seen: dict[tuple[str, ...], int] = {}
    for m in turn.moves[-MAX_ARROWS:]:
        pts: list[Point] = []
        for rid in m.path:
            place = places.get(rid)
            region = gm.region(rid)
            if region is None:
                continue
            pts.append(_anchor(place) if place is not None else
                       (_galley_xy(region) if region.sea else _city_xy(region)))
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
            labels.append((point_along(pts, 0.5), colour, str(m.count)))
    return labels


def _beside_name(c: Canvas, region: _Region, side: int) -> Point:
    """A point just left (``side`` -1) or right (1) of a sea's name."""
    x, y = _sea_xy(region)
    half = c.text_width(region.name + (" (deep)" if region.deep else ""), NAME_SIZE) / 2
    return x + side * (half + 13), y + 6


def _draw_map(c: Canvas, places: Mapping[str, _Place], turn: _Turn,
              order: Sequence[str]) -> None:
    gm = game_map()
    marks: dict[str, list[tuple[str, str | None]]] = {}
    for kind, rid, nid in turn.marks:
        marks.setdefault(rid, []).append((kind, nid))
    # rings under the cities: conquered (red), founded and temples (gold), abandoned
    for rid, kinds in marks.items():
        place = places.get(rid)
        if place is None:
            continue
        x, y = _city_xy(place.region)
        done = {k for k, _ in kinds}
        if "conquer" in done:
            c.circle((x, y), CITY_R + 5.5, outline=DANGER, width=3.2)
        elif "found" in done or "temple" in done:
            c.circle((x, y), CITY_R + 5.5, outline=GOLD, width=3)
    labels = _moves(c, places, turn)
    for place in places.values():
        if not place.region.sea:
            owner = _nation_colour(place.owner) if place.owner is not None else None
            _city(c, _city_xy(place.region), place.region.resource, owner, place.temple)
    for place in places.values():
        for centre, nid, label in _unit_row(c, place, order):
            if place.region.sea:
                _galley(c, centre, _nation_colour(nid), label)
            else:
                _legion(c, centre, _nation_colour(nid), label)
    # what else the turn did, over the counters
    for rid, kinds in marks.items():
        place = places.get(rid)
        region = gm.region(rid)
        if region is None:
            continue
        x, y = _city_xy(region)
        for kind, _ in kinds[:1]:
            if kind == "abandon" and place is not None:
                c.line([(x - 7, y - 7), (x + 7, y + 7)], fill=DANGER, width=3, round_caps=True)
                c.line([(x - 7, y + 7), (x + 7, y - 7)], fill=DANGER, width=3, round_caps=True)
        if any(k == "conquer" for k, _ in kinds):
            burst(c, (x - CITY_R - 4, y - CITY_R - 4), 7.5)
    for rid, lost in turn.fights.items():
        region = gm.region(rid)
        if region is None:
            continue
        if region.sea:
            x, y = _beside_name(c, region, -1)
        else:
            cx, cy = _city_xy(region)
            x, y = cx - CITY_R - 12, cy
        burst(c, (x, y), 8.5)
        if lost:
            tag(c, (x, y + 15), f"-{lost}", DANGER)
    stacked: dict[str, int] = {}
    for (_, rid), n in turn.armed.items():
        region = gm.region(rid)
        if region is None:
            continue
        k = stacked.get(rid, 0)
        stacked[rid] = k + 1
        if region.sea:
            x, y = _beside_name(c, region, 1)
        else:
            cx, cy = _city_xy(region)
            x, y = cx - CITY_R - 12, cy - 14
        tag(c, (x, y + 17 * k), f"+{n}", (36, 120, 64))
    for centre, colour, label in labels:
        tag(c, centre, label, (16, 17, 22), colour)

