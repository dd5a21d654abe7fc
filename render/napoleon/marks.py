"""What the Napoleonic Wars map shows each render: every country's name, reinforcement
badge, counters and contested mark, and what the events did: an arrow per move (numbered
in order, along the sea lanes from England), dashed retreats, and tags for reinforcements
placed and armies destroyed."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping

from render.common import (
    GOLD,
    LABEL_STROKE,
    TEXT,
    Canvas,
    Colour,
    Point,
    clean_text,
    lighten,
    path_arrow,
    path_length,
    tag,
    token,
    trim_path,
)
from render.napoleon.backdrop import _sabres
from render.napoleon.events import _Move, _Turn
from render.napoleon.geography import _Country
from render.napoleon.layout import (
    ESSENTIAL,
    MAX_ARROWS,
    ORDER_TEXT,
    SIDE_COLOURS,
    SIDES,
    TAG_SIZE,
    TOKEN_GAP,
    TOKEN_R,
    TOKEN_TEXT,
)
from render.napoleon.view import _Place

#: A country's name sits this far above its point (its counters below, clear of its halo).
NAME_RISE = 14


def _token_xy(place: _Place, side: str) -> Point:
    """Where ``side``'s counter sits in a country (both sides: side by side)."""
    x, y = place.country.at
    y += 15
    both = place.french > 0 and place.allies > 0
    if not both:
        return x, y
    gap = TOKEN_GAP + (6 if place.contested else 0)
    return (x - gap, y) if side == "french" else (x + gap, y)



def _move_path(places: Mapping[str, _Place], m: _Move, shift: float) -> list[Point]:
    """The route of a move: token to token, or along the sea lane from England."""
    src, dst = places[m.src], places[m.dst]
    side = m.side or "allies"
    a = _token_xy(src, side) if src.armies(side) else (src.country.at[0], src.country.at[1] + 15)
    b = _token_xy(dst, side) if dst.armies(side) else (dst.country.at[0], dst.country.at[1] + 15)
    lane = dst.country.lane if m.src == "england" and not m.retreat else ()
    if lane:
        pts = [a, *lane, b]
    else:
        dx, dy = b[0] - a[0], b[1] - a[1]
        d = max(1.0, math.hypot(dx, dy))
        ox, oy = -dy / d * shift, dx / d * shift
        pts = [(a[0] + ox, a[1] + oy), (b[0] + ox, b[1] + oy)]
    start = TOKEN_R - 4 if src.armies(side) else 8
    end = TOKEN_R + 3 if dst.armies(side) else 12
    if path_length(pts) <= start + end + 10:
        return []
    return trim_path(pts, start, end)


Box = tuple[float, float, float, float]
#: A move's label: its arrow's points, colour, count and order number.
MoveLabel = tuple[list[Point], Colour, str, str]


def _moves(c: Canvas, places: Mapping[str, _Place], turn: _Turn) -> list[MoveLabel]:
    """Arrows for the moves and retreats; returns their labels (the arrow, colour, count
    and order number) to place (:func:`place_move_labels`) and draw over the counters."""
    labels: list[MoveLabel] = []
    pairs: dict[frozenset[str], int] = {}
    skipped = max(0, len(turn.moves) - MAX_ARROWS)  # a huge digest: its last moves only
    every = turn.moves[skipped:] + turn.retreats[-MAX_ARROWS:]
    for m in every:
        key = frozenset((m.src, m.dst))
        pairs[key] = pairs.get(key, 0) + 1
    seen: dict[frozenset[str], int] = {}
    numbered = len(turn.moves) > 1
    for i, m in enumerate(every):
        key = frozenset((m.src, m.dst))
        k = seen.get(key, 0)
        seen[key] = k + 1
        shift = (k - (pairs[key] - 1) / 2) * 12
        if m.src > m.dst:
            shift = -shift
        pts = _move_path(places, m, shift)
        if not pts:
            continue
        colour = lighten(SIDE_COLOURS.get(m.side or "", (150, 150, 150)), 0.18)
        if m.retreat:  # dashed
            path_arrow(c, pts, colour, 3.5, head=15.0, spread=1.7, outline=3, dash=(9, 5))
        else:
            path_arrow(c, pts, colour, 4.5, head=15.0, spread=1.7, outline=3.5)
        order = str(skipped + i + 1) if numbered and not m.retreat else ""
        count = str(m.count) if m.count else ""
        # from England the label sits near the landing, past the open sea
        labels.append((pts if m.src != "england" else pts[::-1], colour, count, order))
    return labels


#: Where along its arrow a move's label may go, best first (from England: reversed).
_ALONG = (0.5, 0.4, 0.6, 0.32, 0.68, 0.25, 0.75, 0.18, 0.82)



def place_label(spots: list[Point], size: tuple[float, float], taken: list[Box]) -> Point:
    """The first of ``spots`` where a ``size`` label covers none of ``taken`` (else the one
    where it covers least); its box joins ``taken``."""
    best, least, chosen = spots[0], math.inf, (0.0, 0.0, 0.0, 0.0)
    hw, hh = size[0] / 2 + 2, size[1] / 2 + 2
    xs, ys = [p[0] for p in spots], [p[1] for p in spots]
    reach = (min(xs) - hw, min(ys) - hh, max(xs) + hw, max(ys) + hh)
    near = [o for o in taken if o[0] < reach[2] and reach[0] < o[2] and o[1] < reach[3]
            and reach[1] < o[3]]  # only what some spot could cover
    for x, y in spots:
        box = (x - hw, y - hh, x + hw, y + hh)
        covered = 0.0
        for o in near:
            w = min(box[2], o[2]) - max(box[0], o[0])
            if w > 0:
                h = min(box[3], o[3]) - max(box[1], o[1])
                if h > 0:
                    covered += w * h
                    if covered >= least:
                        break
        if covered < least:
            best, least, chosen = (x, y), covered, box
        if not covered:
            break
    taken.append(chosen)
    return best


def place_move_labels(c: Canvas, labels: list[MoveLabel],
                      taken: list[Box]) -> list[tuple[Point, Colour, str, str]]:
    """Each move's label at the spot along its arrow that covers least of ``taken``."""
    out = []
    for pts, colour, count, order in labels:
        size = _move_label_size(c, count, order)
        if not size[0]:
            continue
        along = _along(pts)
        spots = [along(t)[0] for t in _ALONG]
        for t in _ALONG:  # then beside the arrow rather than on it
            (x, y), (nx, ny) = along(t)
            spots += [(x + nx * side, y + ny * side) for side in (15, -15, 27, -27, 40, -40)]
        out.append((place_label(spots, size, taken), colour, count, order))
    return out


def _along(pts: list[Point]) -> Callable[[float], tuple[Point, Point]]:
    """The point ``t`` of the way along ``pts`` and the unit normal to its segment there
    (the lengths measured once)."""
    segs = [(a, b, math.dist(a, b)) for a, b in itertools.pairwise(pts)]
    total = sum(seg[2] for seg in segs)

    def at(t: float) -> tuple[Point, Point]:
        d = total * t
        for a, b, length in segs:
            if length >= d and length > 0:
                ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
                return (a[0] + ux * d, a[1] + uy * d), (-uy, ux)
            d -= length
        return pts[-1], (0.0, 0.0)

    return at


def _move_label_size(c: Canvas, count: str, order: str) -> tuple[float, float]:
    cw = c.text_width(count, 13, bold=True) + 12 if count else 0
    return (cw + (20.0 if order else 0), 20.0) if count or order else (0.0, 0.0)


def tag_size(c: Canvas, label: str) -> tuple[float, float]:
    return c.text_width(label, TAG_SIZE, bold=True) + 10, 18.0


def occupied(c: Canvas, places: Mapping[str, _Place]) -> list[Box]:
    """What a label must not cover: each country's name and badge, its counters."""
    boxes = []
    for place_ in places.values():
        x, y = place_.country.at
        half = _name_half(c, place_.country.name, place_.country.id)
        ny = y - NAME_RISE
        boxes.append((x - half - 2, ny - ESSENTIAL * 0.7, x + half + 25, ny + ESSENTIAL * 0.7))
        for side in SIDES:
            if place_.armies(side) > 0:
                tx, ty = _token_xy(place_, side)
                boxes.append((tx - TOKEN_R, ty - TOKEN_R, tx + TOKEN_R, ty + TOKEN_R))
    return boxes


_NAME_HALVES: dict[tuple[str, str], float] = {}


def _name_half(c: Canvas, name: str, cid: str) -> float:
    """Half the width of a country's name as drawn (the map's names: measured once)."""
    key = (name, cid)
    half = _NAME_HALVES.get(key)
    if half is None:
        half = c.text_width(clean_text(name, 40) or cid, ESSENTIAL, bold=True) / 2
        if len(_NAME_HALVES) < 256:
            _NAME_HALVES[key] = half
    return half


def moved_tags(c: Canvas, places: Mapping[str, _Place], mover: str | None,
               taken: list[Box]) -> list[tuple[Point, str]]:
    """"n moved" beside the mover's counters: on the outer side if it is free."""
    out = []
    for place_ in places.values():
        if mover is None or place_.moved <= 0:
            continue
        n = place_.armies(mover)
        if n <= 0:
            continue
        tx, ty = _token_xy(place_, mover)
        label = f"{min(place_.moved, n)} moved"
        size = tag_size(c, label)
        half = size[0] / 2
        right = mover == "allies" and place_.french > 0
        out_x = TOKEN_R + 3 + half
        sides = (1, -1) if right else (-1, 1)
        spots = [(tx + out_x * sides[0], ty), (tx + out_x * sides[1], ty),
                 (tx, ty + TOKEN_R + 11), (tx + out_x * sides[0], ty + 14)]
        out.append((place_label(spots, size, taken), label))
    return out


def _move_label(c: Canvas, centre: Point, colour: Colour, count: str, order: str) -> None:
    """How many armies moved (a pill on the arrow), led by the move's order number in a
    gold disc when the turn made several."""
    if not count and not order:
        return
    cw = c.text_width(count, 13, bold=True) + 12 if count else 0
    w = cw + (20.0 if order else 0)
    c.stamp(("move-label", tuple(colour), count, order), centre, w / 2 + 2,
            lambda cv, p: _draw_move_label(cv, p, colour, count, order, cw), extent_y=12)


def _draw_move_label(c: Canvas, centre: Point, colour: Colour, count: str, order: str,
                     cw: float) -> None:
    x, y = centre
    ow = 20.0 if order else 0
    w = cw + ow
    left = x - w / 2
    c.rect((left, y - 10, left + w, y + 10), fill=(16, 17, 22, 235), outline=colour,
           width=1.6, radius=10)
    if order:
        c.circle((left + 10, y), 8, fill=GOLD)
        c.text((left + 10, y + 0.5), order, ORDER_TEXT if len(order) < 2 else ORDER_TEXT - 1.5,
               fill=(30, 24, 6), bold=True, anchor="mm")
    if count:
        c.text((left + ow + cw / 2 - (2 if order else 0), y + 0.5), count, 13, fill=TEXT,
               bold=True, anchor="mm")


def _reinforcement_badge(c: Canvas, centre: Point, value: int) -> None:
    label = str(max(0, min(99, value)))
    c.stamp(("reinf", label), centre, 11,
            lambda cv, p: _draw_reinforcement(cv, p, label))


def _draw_reinforcement(c: Canvas, centre: Point, label: str) -> None:
    x, y = centre
    c.circle((x + 0.5, y + 1), 9.5, fill=(0, 0, 0, 110))
    c.circle((x, y), 9, fill=(40, 30, 8), outline=GOLD, width=1.4)
    c.text((x, y + 0.5), label, 11.5, fill=GOLD, bold=True, anchor="mm")


def _tag(c: Canvas, centre: Point, label: str, fill: Colour, fg: Colour = TEXT) -> None:
    """A small pill (reinforcements placed, armies destroyed) centred on ``centre``."""
    tag(c, centre, label, fill, fg, size=TAG_SIZE, height=18)


def _draw_country(c: Canvas, place: _Place) -> None:
    """A country's name, reinforcement badge, counters and contested mark."""
    _country_label(place.country, c)
    _country_pieces(c, place)


def _country_label(country: _Country, c: Canvas) -> None:
    """A country's name and reinforcement badge (the same on every board)."""
    x, y = country.at
    name = clean_text(country.name, 40) or country.id
    ny = y - NAME_RISE
    c.text((x, ny), name, ESSENTIAL, fill=TEXT, bold=True, anchor="mm", stroke=2.5,
           stroke_fill=LABEL_STROKE, role="place")
    half = c.text_width(name, ESSENTIAL, bold=True) / 2
    _reinforcement_badge(c, (x + half + 13, ny), country.reinforcement)


def _country_pieces(c: Canvas, place: _Place) -> None:
    """A country's counters and contested mark."""
    x, y = place.country.at
    for side in SIDES:
        n = place.armies(side)
        if n <= 0:
            continue
        tx, ty = _token_xy(place, side)
        token(c, (tx, ty), TOKEN_R, SIDE_COLOURS[side], str(n), TOKEN_TEXT)
    if place.french > 0 and place.allies > 0:
        _sabres(c, (x, y + 15), 10)

