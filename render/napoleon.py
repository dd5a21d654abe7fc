"""The Napoleonic Wars board: a stylised map of Europe under a two-sided header.

Drawn from the public view dict only (``engine.napoleon``'s ``view``) and the shared map
data (``engine/napoleon/data/map.toml``: each country's name, borders, coast, and the
drawing keys ``at``, ``shape`` and ``lane``). The 17 countries are shapes that touch where
they share a land border (dark border lines; coasts are light shore lines, so a landlocked
country is one with no shore), with dashed sea lanes from England to an anchor on every
coastal country's shore. Each country carries its name, its reinforcement value (a small
gold badge) and its armies as counters in each side's colour (French blue, Allies red); a
country is tinted in its controller's colour, striped in both where it is contested (and
marked with crossed sabres). The battle being fought is framed in gold, with the cards
played so far under the map.

On top, what ``events`` did (every public event since the last image, e.g. a whole
turn): an arrow per move in the mover's colour (numbered in order when there are
several; moves from England follow the sea lanes), dashed arrows for retreats, "+n" tags
for reinforcements, a red "x n" where armies were destroyed, and every battle fought
framed in red with its forces written out under the map ("French 12+2+5=19 vs Allies
10+1+3=14": armies + cards + the defender's 1 + the die).

The header shows the round, both sides (player name, cards in hand: only how many, the
score and the counters left in the pool), whose turn it is and what must be decided, the
deck and the discards, and the winner when the game is over. Text a player needs to
decide (the status line, the round, the country names and army counts, the hands, the
scores, the battle results) is marked with its role and drawn at least
:func:`render.common.min_essential_size` tall, so it stays readable on a phone.
"""

from __future__ import annotations

import itertools
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops, ImageDraw

from render.common import (
    ACCENT,
    BACKGROUND,
    DANGER,
    FAINT,
    MAX_EVENTS,
    MUTED,
    PANEL,
    PANEL_HIGHLIGHT,
    RGB,
    TEXT,
    Canvas,
    Colour,
    Point,
    as_int,
    clean_text,
    darken,
    dashed_line,
    display_name,
    drawable_events,
    lighten,
    load_palette,
    min_essential_size,
    pill,
    text_runs,
    token,
)

WIDTH, HEIGHT = 800, 1130
SCALE = 4  # the static map is drawn this many times larger, then reduced
KIND = "napoleon"

MAP_FILE = Path(__file__).resolve().parent.parent / "engine" / "napoleon" / "data" / "map.toml"

# The map: the 1000 x 1000 sketch of map.toml, scaled into a square under the header.
MAP_X, MAP_Y, MAP_SIZE = 10, 194, 780
MAP_K = MAP_SIZE / 1000
BOTTOM_Y = MAP_Y + MAP_SIZE + 8  # the panel under the map

SIDES = ("french", "allies")
SIDE_COLOURS: dict[str, RGB] = {"french": (52, 116, 232), "allies": (218, 56, 56)}
SIDE_NAMES = {"french": "French", "allies": "Allies"}
SIDE_TITLES = {"french": "FRENCH EMPIRE", "allies": "ALLIES"}

SEA: RGB = (27, 43, 63)
SHALLOW: RGB = (38, 62, 88)
LANE: RGB = (92, 128, 160)
LAND: RGB = (108, 101, 80)
BORDER: RGB = (28, 26, 22)
SHORE: RGB = (170, 196, 214)
GOLD: RGB = (250, 204, 72)
LABEL_STROKE: RGB = (18, 18, 22)
BOX_FILL: RGB = (32, 35, 42)
BOX_LINE: RGB = (58, 62, 72)

BORDER_W = 2.6  # a land border's line (final pixels)
TINT_ALPHA = 112  # a controlled country's tint over the land colour
TOKEN_R = 16.5
TOKEN_TEXT = 18.0
ORDER_TEXT = 11.0  # a move's order number
MAX_ARROWS = 40  # the most moves (and retreats) drawn from one set of events
TOKEN_GAP = 19.0  # a counter's centre from the block's middle when both sides are there

#: Essential text (the status line, names, counts, hands, scores) is at least this tall:
#: 8 px on a phone that shows the image 390 px wide.
ESSENTIAL = float(math.ceil(min_essential_size(WIDTH)))

PHASES = {"discard": "discards", "move": "moves", "choose": "picks the next battle",
          "cards": "plays battle cards", "retreat": "retreats", "over": "game over"}


# --- the map data ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Country:
    id: str
    name: str
    reinforcement: int
    coastal: bool
    borders: tuple[str, ...]
    at: Point  # the middle of its label and counters (final pixels)
    shape: tuple[Point, ...]  # its outline (final pixels)
    lane: tuple[Point, ...]  # the sea lane from England, ending at its port


def _px(p: Any) -> Point | None:
    """A sketch point ``[x, y]`` in final pixels, or None if it is not one."""
    if (isinstance(p, list | tuple) and len(p) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in p)):
        return MAP_X + float(p[0]) * MAP_K, MAP_Y + float(p[1]) * MAP_K
    return None


def _points(value: Any) -> tuple[Point, ...]:
    pts = [_px(p) for p in value] if isinstance(value, list) else []
    return tuple(p for p in pts if p is not None)


@lru_cache(maxsize=1)
def countries() -> dict[str, _Country]:
    """The map's countries by id, in map order (read once from map.toml)."""
    with MAP_FILE.open("rb") as fh:
        data = tomllib.load(fh)
    out: dict[str, _Country] = {}
    for cid, raw in (data.get("countries") or {}).items():
        if not isinstance(raw, Mapping):
            continue
        at = _px(raw.get("at")) or (MAP_X + MAP_SIZE / 2, MAP_Y + MAP_SIZE / 2)
        shape = _points(raw.get("shape"))
        if len(shape) < 3:  # no outline: a small octagon round the label
            shape = tuple((at[0] + 48 * math.cos(i * math.pi / 4),
                           at[1] + 36 * math.sin(i * math.pi / 4)) for i in range(8))
        borders = raw.get("borders") or []
        out[cid] = _Country(
            cid, str(raw.get("name") or cid.title()), as_int(raw.get("reinforcement")),
            bool(raw.get("coastal")), tuple(b for b in borders if isinstance(b, str)), at,
            shape, _points(raw.get("lane")))
    return out


def _edges(shape: Sequence[Point]) -> list[tuple[Point, Point]]:
    return [(shape[i], shape[(i + 1) % len(shape)]) for i in range(len(shape))]


def _edge_owners() -> dict[frozenset[Point], list[str]]:
    owners: dict[frozenset[Point], list[str]] = {}
    for cid, country in countries().items():
        for a, b in _edges(country.shape):
            owners.setdefault(frozenset((a, b)), []).append(cid)
    return owners


def land_borders() -> set[frozenset[str]]:
    """The pairs of countries whose drawn shapes share an edge (for the tests)."""
    return {frozenset(ids) for ids in _edge_owners().values() if len(set(ids)) == 2}


# --- the static layer ------------------------------------------------------------------


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


def _rounded_mask(w: int, h: int, r: int) -> Image.Image:
    mask = Image.new("L", (w * 4, h * 4), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w * 4 - 1, h * 4 - 1), radius=r * 4, fill=255)
    return mask.reduce(4)


@lru_cache(maxsize=1)
def _backdrop() -> Image.Image:
    """Background, the map in its frame and the panels' boxes (RGB, final size)."""
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=2)
    c.rect((MAP_X - 3, MAP_Y - 3, MAP_X + MAP_SIZE + 3, MAP_Y + MAP_SIZE + 3), fill=(14, 16, 20),
           radius=14)
    image = c.finish()
    image.paste(_map_layer(), (MAP_X, MAP_Y), _rounded_mask(MAP_SIZE, MAP_SIZE, 12))
    return image


# --- tints (cached per country) ----------------------------------------------------------


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


@lru_cache(maxsize=8)
def _tinted(tints: tuple[tuple[str, str | None], ...]) -> Image.Image:
    """The backdrop with these countries tinted (``(id, side or "contested")`` pairs):
    successive boards of a game mostly share one, so it is kept."""
    image = _backdrop().copy()
    for cid, kind in tints:
        if kind is not None:
            tile, pos = _tint(cid, kind)
            image.paste(tile, pos, tile)
    return image


# --- reading the view -------------------------------------------------------------------


@dataclass
class _Place:
    """One country's state in the view (tolerant: odd fields are zero)."""

    country: _Country
    french: int = 0
    allies: int = 0
    control: str | None = None
    contested: bool = False
    moved: int = 0

    def armies(self, side: str) -> int:
        return self.french if side == "french" else self.allies if side == "allies" else 0


def _places(view: Mapping[str, Any]) -> dict[str, _Place]:
    land = countries()
    places = {cid: _Place(c) for cid, c in land.items()}
    raw = view.get("countries")
    for entry in raw[:64] if isinstance(raw, list) else []:
        if not isinstance(entry, Mapping):
            continue
        cid = entry.get("id")
        if not isinstance(cid, str) or cid not in places:
            continue
        place = places[cid]
        place.french = max(0, min(999, as_int(entry.get("french"))))
        place.allies = max(0, min(999, as_int(entry.get("allies"))))
        control = entry.get("control")
        place.control = control if control in SIDES else None
        place.contested = bool(entry.get("contested")) or (place.french > 0 and place.allies > 0)
        place.moved = max(0, min(999, as_int(entry.get("moved"))))
    return places


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _side(value: Any) -> str | None:
    return value if value in SIDES else None


def _country_id(value: Any) -> str | None:
    return value if isinstance(value, str) and value in countries() else None


class _Sides:
    """Who plays which side, their names and their public numbers."""

    def __init__(self, view: Mapping[str, Any], names: Mapping[str, str] | None) -> None:
        raw = view.get("players")
        players = [p for p in (raw if isinstance(raw, list) else [])[:8]
                   if isinstance(p, Mapping)]
        self.entry: dict[str, Mapping[str, Any]] = {}
        self.pid: dict[str, str | None] = {}
        self.name: dict[str, str] = {}
        self.side_of: dict[str, str] = {}
        for i, p in enumerate(players):
            side = _side(p.get("side"))
            if side is None and i < 2 and SIDES[i] not in self.entry:
                side = SIDES[i]  # players[0] is French, players[1] the Allies
            if side is None or side in self.entry:
                continue
            pid = p.get("id")
            self.entry[side] = p
            self.pid[side] = pid if isinstance(pid, str) else None
            self.name[side] = display_name(names, pid, i + 1)
            if isinstance(pid, str):
                self.side_of[pid] = side
        for side in SIDES:
            self.entry.setdefault(side, {})
            self.pid.setdefault(side, None)
            self.name.setdefault(side, SIDE_NAMES[side])

    def hand(self, side: str) -> int:
        """How many cards ``side`` holds: the public count only (never the cards)."""
        return max(0, min(99, as_int(self.entry[side].get("hand_count"))))

    def side(self, who: Any) -> str | None:
        """The side of a player id (or a side name)."""
        if who in SIDES:
            return str(who)
        return self.side_of.get(who) if isinstance(who, str) else None


# --- what the events did ------------------------------------------------------------------


@dataclass(frozen=True)
class _Move:
    side: str | None
    src: str
    dst: str
    count: int
    retreat: bool = False


@dataclass(frozen=True)
class _Battle:
    country: str
    attacker: str | None
    defender: str | None
    armies: tuple[int, int]  # french, allies
    bonus: tuple[int, int]
    dice: tuple[int, int]
    force: tuple[int, int]
    losses: tuple[int, int]
    winner: str | None


@dataclass
class _Turn:
    moves: list[_Move] = field(default_factory=list)
    battles: list[_Battle] = field(default_factory=list)
    placed: dict[tuple[str, str], int] = field(default_factory=dict)  # (side, country) -> n
    lost: dict[str, int] = field(default_factory=dict)  # reinforcements beyond the pool
    destroyed: list[tuple[str | None, str, int]] = field(default_factory=list)
    marches: list[tuple[str | None, str]] = field(default_factory=list)
    retreats: list[_Move] = field(default_factory=list)
    cards: list[tuple[str, str]] = field(default_factory=list)  # (country, "Name +2") played

    def __bool__(self) -> bool:
        return bool(self.moves or self.battles or self.placed or self.destroyed
                    or self.marches or self.retreats or self.cards)


def _pair(value: Any, lo: int = 0, hi: int = 999) -> tuple[int, int]:
    m = value if isinstance(value, Mapping) else {}
    return (max(lo, min(hi, as_int(m.get("french")))), max(lo, min(hi, as_int(m.get("allies")))))


def _read_events(events: Any) -> _Turn:
    """The drawable facts in ``events``: private, unknown and malformed events are skipped."""
    turn = _Turn()
    for e in drawable_events(events, MAX_EVENTS):
        kind = e["type"]
        if kind in ("move", "retreat"):
            src, dst = _country_id(e.get("from")), _country_id(e.get("to"))
            if src is None or dst is None or src == dst:
                continue
            move = _Move(_side(e.get("side")), src, dst, max(0, min(999, as_int(e.get("count")))),
                         kind == "retreat")
            (turn.retreats if move.retreat else turn.moves).append(move)
        elif kind == "battle":
            cid = _country_id(e.get("country"))
            if cid is None:
                continue
            turn.battles.append(_Battle(
                cid, _side(e.get("attacker")), _side(e.get("defender")), _pair(e.get("armies")),
                _pair(e.get("bonus"), -99, 99), _pair(e.get("dice"), 0, 99),
                _pair(e.get("force"), -999, 999), _pair(e.get("losses")),
                _side(e.get("winner"))))
        elif kind == "reinforce":
            side = _side(e.get("side"))
            placed = e.get("placed")
            if side is None:
                continue
            for cid, n in placed.items() if isinstance(placed, Mapping) else ():
                if _country_id(cid) is not None and as_int(n) > 0:
                    key = (side, cid)
                    turn.placed[key] = min(999, turn.placed.get(key, 0) + as_int(n))
            lost = as_int(e.get("lost"))
            if lost > 0:
                turn.lost[side] = min(999, turn.lost.get(side, 0) + lost)
        elif kind == "destroyed":
            cid = _country_id(e.get("country"))
            if cid is not None:
                turn.destroyed.append((_side(e.get("side")), cid,
                                       max(0, min(999, as_int(e.get("count"))))))
        elif kind == "card":
            cid, card = _country_id(e.get("country")), e.get("card")
            if cid is not None and isinstance(card, Mapping):
                name = clean_text(card.get("name") or card.get("id"), limit=30)
                bonus = as_int(card.get("bonus"))
                turn.cards.append((cid, f"{name} {bonus:+d}" if bonus else name))
        elif kind == "march":
            cid = _country_id(e.get("country"))
            if cid is not None:
                turn.marches.append((_side(e.get("side")), cid))
    return turn


# --- on the map --------------------------------------------------------------------------


def _token_xy(place: _Place, side: str) -> Point:
    """Where ``side``'s counter sits in a country (both sides: side by side)."""
    x, y = place.country.at
    y += 15
    both = place.french > 0 and place.allies > 0
    if not both:
        return x, y
    gap = TOKEN_GAP + (6 if place.contested else 0)
    return (x - gap, y) if side == "french" else (x + gap, y)


def _arrow_path(c: Canvas, pts: Sequence[Point], colour: Colour, width: float,
                dashed: bool = False) -> None:
    """A thick arrow along ``pts`` (the tip at the last point), outlined for contrast."""
    if len(pts) < 2:
        return
    (ax, ay), (ex, ey) = pts[-2], pts[-1]
    length = math.hypot(ex - ax, ey - ay)
    if length < 1:
        return
    ux, uy = (ex - ax) / length, (ey - ay) / length
    head = min(15.0, length * 0.7)
    hw = width * 1.7
    bx, by = ex - ux * head, ey - uy * head
    head_pts = [(ex, ey), (bx - uy * hw, by + ux * hw), (bx + uy * hw, by - ux * hw)]
    shaft = [*pts[:-1], (bx + ux, by + uy)]
    shadow = (10, 10, 14, 200)
    if dashed:
        dashed_line(c, shaft, shadow, width + 3, 9, 5, round_caps=True)
        dashed_line(c, shaft, colour, width, 9, 5, round_caps=True)
    else:  # segment by segment: small masks, where one long path would need a huge one
        for fill, w in ((shadow, width + 3.5), (colour, width)):
            for a, b in itertools.pairwise(shaft):
                c.line([a, b], fill=fill, width=w, round_caps=True)
    c.polygon(head_pts, fill=shadow, outline=shadow, width=3)
    c.polygon(head_pts, fill=colour)


def _trim(pts: list[Point], start: float, end: float) -> list[Point]:
    """``pts`` with ``start`` pixels cut from its beginning and ``end`` from its end."""
    def cut(path: list[Point], d: float) -> list[Point]:
        while len(path) >= 2 and d > 0:
            (ax, ay), (bx, by) = path[0], path[1]
            seg = math.hypot(bx - ax, by - ay)
            if seg > d:
                t = d / seg
                return [(ax + (bx - ax) * t, ay + (by - ay) * t), *path[1:]]
            d -= seg
            path = path[1:]
        return path
    out = cut(list(pts), start)
    return list(reversed(cut(list(reversed(out)), end)))


def _path_length(pts: Sequence[Point]) -> float:
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(pts))


def _point_along(pts: Sequence[Point], t: float) -> Point:
    d = _path_length(pts) * t
    for a, b in itertools.pairwise(pts):
        seg = math.hypot(b[0] - a[0], b[1] - a[1])
        if seg >= d and seg > 0:
            return a[0] + (b[0] - a[0]) * d / seg, a[1] + (b[1] - a[1]) * d / seg
        d -= seg
    return pts[-1]


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
    if _path_length(pts) <= start + end + 10:
        return []
    return _trim(pts, start, end)


def _moves(c: Canvas, places: Mapping[str, _Place], turn: _Turn) -> list[tuple[Point, Colour,
                                                                                   str, str]]:
    """Arrows for the moves and retreats; returns their labels (where, colour, count and
    order number) to draw over the counters."""
    labels: list[tuple[Point, Colour, str, str]] = []
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
        _arrow_path(c, pts, colour, 4.5 if not m.retreat else 3.5, dashed=m.retreat)
        order = str(skipped + i + 1) if numbered and not m.retreat else ""
        labels.append((_point_along(pts, 0.5 if m.src != "england" else 0.82), colour,
                       str(m.count) if m.count else "", order))
    return labels


def _move_label(c: Canvas, centre: Point, colour: Colour, count: str, order: str) -> None:
    """How many armies moved (a pill on the arrow), led by the move's order number in a
    gold disc when the turn made several."""
    if not count and not order:
        return
    cw = c.text_width(count, 13, bold=True) + 12 if count else 0
    w = cw + (20.0 if order else 0)
    c.stamp(("move-label", tuple(colour), count, order), centre, w / 2 + 2,
            lambda cv, p: _draw_move_label(cv, p, colour, count, order, cw))


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
    w = c.text_width(label, 12.5, bold=True) + 10
    c.stamp(("tag", label, tuple(fill), tuple(fg)), centre, w / 2 + 2,
            lambda cv, p: _draw_tag(cv, p, label, fill, fg, w))


def _draw_tag(c: Canvas, centre: Point, label: str, fill: Colour, fg: Colour, w: float) -> None:
    x, y = centre
    c.rect((x - w / 2, y - 9, x + w / 2, y + 9), fill=fill, outline=(14, 14, 18), width=1.2,
           radius=9)
    c.text((x, y + 0.5), label, 12.5, fill=fg, bold=True, anchor="mm")


def _draw_country(c: Canvas, place: _Place, mover: str | None) -> None:
    """A country's name, reinforcement badge, counters and contested mark."""
    country = place.country
    x, y = country.at
    name = clean_text(country.name, 40) or country.id
    ny = y - 12
    c.text((x, ny), name, ESSENTIAL, fill=TEXT, bold=True, anchor="mm", stroke=2.5,
           stroke_fill=LABEL_STROKE, role="count")
    half = c.text_width(name, ESSENTIAL, bold=True) / 2
    _reinforcement_badge(c, (x + half + 13, ny), country.reinforcement)
    for side in SIDES:
        n = place.armies(side)
        if n <= 0:
            continue
        tx, ty = _token_xy(place, side)
        token(c, (tx, ty), TOKEN_R, SIDE_COLOURS[side], str(n), TOKEN_TEXT)
        if side == mover and place.moved > 0:  # beside the counter, on its outer side
            label = f"{min(place.moved, n)} moved"
            half = c.text_width(label, 12.5, bold=True) / 2 + 5
            right = side == "allies" and place.french > 0
            _tag(c, (tx + (TOKEN_R + 3 + half) * (1 if right else -1), ty), label,
                 (48, 50, 58), (214, 214, 220))
    if place.french > 0 and place.allies > 0:
        _sabres(c, (x, y + 15), 10)


# --- the header and the panel under the map ---------------------------------------------------


def _phase_line(view: Mapping[str, Any], sides: _Sides) -> tuple[str | None, str, str]:
    """Who must answer now (their side), their name, and what they do."""
    to_act = view.get("to_act")
    actor = to_act[0] if isinstance(to_act, list) and to_act else None
    side = sides.side(actor) or _side(view.get("turn"))
    phase = view.get("phase")
    doing = PHASES.get(phase if isinstance(phase, str) else "", "to play")
    if side is None:
        return None, "", "Waiting"
    return side, sides.name[side], doing


def _winner_sides(view: Mapping[str, Any], sides: _Sides) -> list[str]:
    outcome = view.get("outcome")
    winners = outcome.get("winners") if isinstance(outcome, Mapping) else None
    out: list[str] = []
    for w in winners if isinstance(winners, list) else []:
        side = sides.side(w)
        if side is not None and side not in out:
            out.append(side)
    return out


def _side_card(c: Canvas, box: tuple[float, float, float, float], side: str, sides: _Sides,
               view: Mapping[str, Any], over: bool, winners: list[str]) -> None:
    x0, y0, x1, y1 = box
    colour = SIDE_COLOURS[side]
    to_act = view.get("to_act")
    acting = not over and isinstance(to_act, list) and sides.pid[side] in to_act \
        and sides.pid[side] is not None
    turn = not over and view.get("turn") == side
    c.rect(box, fill=colour, radius=10)
    c.rect((x0 + 6, y0, x1, y1), fill=PANEL_HIGHLIGHT if turn or acting else PANEL, radius=10)
    c.rect((x0 + 6, y0, x0 + 16, y1), fill=PANEL_HIGHLIGHT if turn or acting else PANEL)
    if acting:
        c.rect(box, outline=lighten(colour, 0.2), width=2, radius=10)
    right = x1 - 10
    if side in winners:
        right = pill(c, right, y0 + 8, "WINNER", ACCENT) - 6
    elif acting:
        right = pill(c, right, y0 + 8, "TO ACT", colour) - 6
    elif turn:
        right = pill(c, right, y0 + 8, "TURN", darken(colour, 0.3), text=TEXT) - 6
    nx = x0 + 18
    c.text((nx, y0 + 14), SIDE_TITLES[side], 11.5, fill=lighten(colour, 0.35), bold=True,
           anchor="lm")
    c.text((nx, y0 + 35), c.fit(sides.name[side], 19, right - nx if right < x1 - 20 else
                                x1 - nx - 10, bold=True), 19, fill=TEXT, bold=True,
           anchor="lm")
    # the public numbers: cards in hand (how many), score, counters left in the pool
    scores = _mapping(view.get("scores"))
    pool = _mapping(view.get("pool"))
    stats = (("Hand", sides.hand(side), "hand"),
             ("Score", max(0, min(999, as_int(scores.get(side)))), "score"),
             ("Pool", max(0, min(999, as_int(pool.get(side)))), "score"))
    row = y1 - 17
    x = nx
    for label, value, role in stats:
        c.text((x, row + 1), label, 13, fill=MUTED, anchor="lm")
        x += c.text_width(label, 13) + 5
        c.text((x, row), str(value), ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role=role)
        x += c.text_width(str(value), ESSENTIAL, bold=True) + 16


def _header(c: Canvas, view: Mapping[str, Any], sides: _Sides) -> None:
    x0, x1 = MAP_X, MAP_X + MAP_SIZE
    outcome = view.get("outcome") if isinstance(view.get("outcome"), Mapping) else None
    over = outcome is not None or view.get("phase") == "over"
    winners = _winner_sides(view, sides)
    # title, deck, round
    c.text((x0 + 2, 24), "NAPOLEONIC WARS", 16, fill=MUTED, bold=True, anchor="lm")
    rnd, rounds = as_int(view.get("round")), as_int(view.get("rounds"))
    label = ""
    if rnd > 0:
        label = f"Round {min(rnd, 999)}" + (f" / {min(rounds, 999)}" if rounds > 0 else "")
        c.text((x1 - 2, 24), label, ESSENTIAL, fill=TEXT, bold=True, anchor="rm", role="turn")
    deck = f"Deck {max(0, min(999, as_int(view.get('deck_count'))))}  ·  " \
           f"Discards {max(0, min(999, as_int(view.get('discard_count'))))}"
    dx = x0 + 2 + c.text_width("NAPOLEONIC WARS", 16, bold=True) + 24
    room = x1 - 2 - c.text_width(label, ESSENTIAL, bold=True) - 20 - dx
    if room > 60:
        c.text((dx, 24), c.fit(deck, 15, room), 15, fill=MUTED, anchor="lm")
    # the two sides
    top, bottom = 46, 122
    mid = (x0 + x1) / 2
    _side_card(c, (x0, top, mid - 4, bottom), "french", sides, view, over, winners)
    _side_card(c, (mid + 4, top, x1, bottom), "allies", sides, view, over, winners)
    # who must decide what
    top, bottom = 130, 186
    c.rect((x0, top, x1, bottom), fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    tx, tw = x0 + 14, x1 - x0 - 28
    if over:
        names = [f"{SIDE_NAMES[s]} ({sides.name[s]})" for s in winners]
        head = ("Winner: " + ", ".join(names)) if names else "Game over: no winner"
        c.text((tx, top + 18), c.fit(head, ESSENTIAL, tw, bold=True), ESSENTIAL, fill=ACCENT,
               bold=True, anchor="lm", role="turn")
        reason = clean_text(outcome.get("reason") if outcome else "", limit=160)
        c.text((tx, top + 41), c.fit(reason or "The game is over.", 14, tw), 14, fill=MUTED,
               anchor="lm")
        return
    side, name, doing = _phase_line(view, sides)
    if side is None:
        c.text((tx, top + 18), doing, ESSENTIAL, fill=MUTED, bold=True, anchor="lm",
               role="turn")
    else:
        colour = SIDE_COLOURS[side]
        c.circle((tx + 8, top + 18), 8, fill=colour, outline=(240, 238, 230), width=1.5)
        runs = [(name, TEXT, tw * 0.55), (f" ({SIDE_NAMES[side]}) {doing}", TEXT, None)]
        text_runs(c, tx + 22, top + 18, runs, ESSENTIAL, x1 - 14, bold=True, role="turn")
    prompt = clean_text(view.get("prompt"), limit=160)
    if prompt:
        c.text((tx, top + 41), c.fit(prompt, 14, tw), 14, fill=MUTED, anchor="lm")


def _force(b: _Battle, i: int) -> str:
    """One side's force in a battle, written out: armies + cards + defence + die = total."""
    armies, bonus, die, force = b.armies[i], b.bonus[i], b.dice[i], b.force[i]
    defence = force - armies - bonus - die
    parts = [str(armies)]
    for extra in (bonus, defence):
        if extra:
            parts.append(f"{extra:+d}")
    parts.append(f"+{die}")
    return "".join(parts) + f"={force}"


def _card_names(view: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    battle = view.get("battle")
    cards = battle.get("cards") if isinstance(battle, Mapping) else None
    out: list[tuple[str, str | None]] = []
    for card in cards[:12] if isinstance(cards, list) else []:
        if not isinstance(card, Mapping):
            continue
        name = clean_text(card.get("name") or card.get("id"), limit=30)
        bonus = as_int(card.get("bonus"))
        label = f"{name} {bonus:+d}" if bonus else name
        out.append((label, _side(card.get("side"))))
    return out


Run = tuple[str, Colour, float | None]
Line = tuple[list[Run], float, str | None]  # runs, font size, role


def _side_text(side: str | None, text: str) -> Run:
    colour = lighten(SIDE_COLOURS[side], 0.3) if side is not None else TEXT
    return text, colour, None


def _battle_line(b: _Battle) -> Line:
    """A battle fought: both forces written out, and who won."""
    runs: list[Run] = [(f"⚔ {countries()[b.country].name}  ", TEXT, None)]
    for i, side in enumerate(SIDES):
        if i:
            runs.append((" vs ", MUTED, None))
        runs.append(_side_text(side, f"{SIDE_NAMES[side]} {_force(b, i)}"))
    if b.winner is not None:
        runs.append((f"  {SIDE_NAMES[b.winner]} win", ACCENT, None))
    return runs, ESSENTIAL, "turn"


#: Lines for the panel under the map: (priority, order, line); the most important that fit
#: are drawn, in order.
Ranked = tuple[int, int, Line]


def _current_battle(view: Mapping[str, Any], turn: _Turn) -> list[Ranked]:
    """The battle being fought: both forces so far and the cards played, or, once it is
    fought, its result and where the loser may go."""
    battle = _mapping(view.get("battle"))
    cid = _country_id(battle.get("country"))
    if cid is None:
        return []
    names = countries()
    out: list[Ranked] = []
    fought = [b for b in turn.battles if b.country == cid]
    if battle.get("step") == "retreat" and fought:
        out.append((0, 0, _battle_line(fought[-1])))
    else:
        attacker, defender = _side(battle.get("attacker")), _side(battle.get("defender"))
        armies = _pair(battle.get("armies"))
        runs: list[Run] = [(f"⚔ Battle of {names[cid].name}: ", TEXT, None)]
        for i, side in enumerate(SIDES):
            if i:
                runs.append((" vs ", MUTED, None))
            role = " attack" if side == attacker else " defend +1" if side == defender else ""
            runs.append(_side_text(side, f"{SIDE_NAMES[side]} {armies[i]}{role}"))
        out.append((0, 0, (runs, ESSENTIAL, "turn")))
        played = _card_names(view)
        cards: list[Run] = [("Cards played: ", MUTED, None)]
        for j, (label, owner) in enumerate(played):
            cards.append(((", " if j else "") + label, lighten(SIDE_COLOURS[owner], 0.35)
                          if owner else TEXT, None))
        if not played:
            cards.append(("none yet", FAINT, None))
        out.append((1, 1, (cards, 15, None)))
    retreats = battle.get("retreats")
    options = [names[r].name for r in retreats[:17] if _country_id(r) is not None] \
        if isinstance(retreats, list) else []
    if battle.get("step") == "retreat" and options:
        loser = _side(battle.get("loser"))
        who = f"{SIDE_NAMES[loser]} retreat" if loser else "Retreat"
        out.append((1, 2, ([(f"{who} from {names[cid].name} to: " + ", ".join(options),
                             TEXT, None)], 15, None)))
    return out


def _battles_fought(view: Mapping[str, Any], turn: _Turn) -> list[Ranked]:
    """Each battle the events fought (the newest first in importance), and the losses of
    the last one."""
    current = _country_id(_mapping(view.get("battle")).get("country"))
    shown = [b for b in turn.battles if not (b.country == current and b is turn.battles[-1]
                                             and _mapping(view.get("battle")).get("step")
                                             == "retreat")]
    out: list[Ranked] = []
    for i, b in enumerate(shown[-6:]):
        out.append((2 + len(shown[-6:]) - i, 10 + i, _battle_line(b)))
    if turn.battles:
        b = turn.battles[-1]
        played = [label for cid, label in turn.cards if cid == b.country][-4:]
        text = (f"{countries()[b.country].name}: "
                + (f"cards {', '.join(played)} · " if played else "")
                + f"losses French {b.losses[0]}, Allies {b.losses[1]}"
                + " · force = armies + cards + 1 defending + die")
        out.append((4, 20, ([(text, MUTED, None)], 13.5, None)))
    return out


def _happenings(view: Mapping[str, Any], turn: _Turn,
                places: Mapping[str, _Place]) -> list[Ranked]:
    """Moves, reinforcements, retreats and losses in words, the battles still to fight, and
    the armies on the map."""
    names = countries()
    words: list[str] = []
    for side in SIDES:
        moves = [m for m in turn.moves if m.side == side]
        if moves:
            n = sum(m.count for m in moves)
            words.append(f"{SIDE_NAMES[side]} moved {n} in {len(moves)} "
                         + ("move" if len(moves) == 1 else "moves"))
    for who, cid in turn.marches[:2]:
        words.append(f"{SIDE_NAMES.get(who or '', '?')} forced march: {names[cid].name}")
    for r in turn.retreats[:3]:
        words.append(f"{SIDE_NAMES.get(r.side or '', '?')} fell back {names[r.src].name} → "
                     f"{names[r.dst].name}")
    for who, cid, n in turn.destroyed[:2]:
        words.append(f"{SIDE_NAMES.get(who or '', '?')} lost {n} in {names[cid].name}")
    for side in SIDES:
        placed = sum(n for (s, _), n in turn.placed.items() if s == side)
        if placed or turn.lost.get(side):
            words.append(f"{SIDE_NAMES[side]} +{placed} reinforcements"
                         + (f" ({turn.lost[side]} lost: pool empty)" if turn.lost.get(side)
                            else ""))
    out: list[Ranked] = []
    line = ""
    for w in words:
        if line and len(line) + len(w) > 78:
            out.append((6 + len(out), 30 + len(out), ([(line, TEXT, None)], 15, None)))
            line = ""
        line = f"{line} · {w}" if line else w
    if line:
        out.append((6 + len(out), 30 + len(out), ([(line, TEXT, None)], 15, None)))
    left = view.get("battles_left")
    current = _mapping(view.get("battle")).get("country")
    pending = [names[cid].name for cid in left[:17] if _country_id(cid) is not None
               and cid != current] if isinstance(left, list) else []
    if pending:
        out.append((1, 5, ([("Battles still to fight: " + ", ".join(pending), (255, 170, 150),
                             None)], 15, None)))
    outcome = view.get("outcome")
    if isinstance(outcome, Mapping) or view.get("phase") == "over":
        scores = _mapping(view.get("scores"))
        final = " · ".join(f"{SIDE_NAMES[s]} {max(0, min(999, as_int(scores.get(s))))}"
                           for s in SIDES)
        out.append((0, 0, ([("Final scores (reinforcement value held): " + final, TEXT,
                             None)], 15, None)))
    totals = []
    for side in SIDES:
        armies = sum(p.armies(side) for p in places.values())
        held = sum(1 for p in places.values() if p.control == side)
        totals.append(f"{SIDE_NAMES[side]} {armies} armies, {held} "
                      + ("country" if held == 1 else "countries"))
    out.append((20, 90, ([("On the map: " + " · ".join(totals), MUTED, None)], 14, None)))
    return out


def _bottom(c: Canvas, view: Mapping[str, Any], turn: _Turn,
            places: Mapping[str, _Place]) -> None:
    """The panel under the map: the battle being fought, the battles just fought, then
    what else happened: the most important lines that fit, in order."""
    x0, x1 = MAP_X, MAP_X + MAP_SIZE
    top, bottom = BOTTOM_Y, HEIGHT - 10
    c.rect((x0, top, x1, bottom), fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    ranked = (_current_battle(view, turn) + _battles_fought(view, turn)
              + _happenings(view, turn, places))
    room: float = bottom - top - 12
    chosen: list[Ranked] = []
    for item in sorted(ranked, key=lambda r: (r[0], r[1])):
        _, _, (_, size, role) = item
        step = size + (11 if role else 8)
        if step <= room:
            chosen.append(item)
            room -= step
    y: float = top + 8
    for _, _, (runs, size, role) in sorted(chosen, key=lambda r: r[1]):
        step = size + (11 if role else 8)
        text_runs(c, x0 + 14, y + step / 2, runs, size, x1 - 14, bold=role is not None,
                  role=role)
        y += step


# --- the whole image -----------------------------------------------------------------------


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of a Napoleonic Wars view marking what ``events`` did (see the module's
    docstring). ``view``, ``events`` and ``names`` are never modified."""
    places = _places(view)
    sides = _Sides(view, names)
    turn = _read_events(events)
    # control: tints; contested: both sides' stripes (one cached base per pattern)
    tints = tuple((cid, "contested" if place.contested else place.control)
                  for cid, place in places.items() if place.contested or place.control)
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, base=_tinted(tints))
    # battles fought (red frames), the battle being fought (a gold frame)
    battle = view.get("battle") if isinstance(view.get("battle"), Mapping) else None
    current = _country_id(battle.get("country")) if battle is not None else None
    for cid in dict.fromkeys(b.country for b in turn.battles):
        if cid != current:
            tile, pos = _outline(cid, DANGER, 3.5)
            c.paste(tile, pos)
    if current is not None:
        tile, pos = _outline(current, GOLD, 4.5)
        c.paste(tile, pos)

    labels = _moves(c, places, turn)
    mover = _side(view.get("turn"))
    for place in places.values():
        _draw_country(c, place, mover)
    # what the turn left behind: reinforcements placed, armies destroyed
    for (side, cid), n in turn.placed.items():
        tx, ty = _token_xy(places[cid], side)
        _tag(c, (tx + TOKEN_R + 3, ty + TOKEN_R - 4), f"+{n}", (36, 120, 64))
    for _, cid, n in turn.destroyed:  # left of the counters
        place = places[cid]
        x, y = place.country.at
        label = f"✕ {n}" if n else "✕"
        left = x - (TOKEN_GAP + 6 if place.french and place.allies else 0) - TOKEN_R
        _tag(c, (left - 6 - c.text_width(label, 12.5, bold=True) / 2, y + 15), label, DANGER)
    for centre, colour, count, order in labels:
        _move_label(c, centre, colour, count, order)
    if current is not None:
        x, y = places[current].country.at
        _tag(c, (x, y - 33), "BATTLE", GOLD, (30, 24, 6))

    _header(c, view, sides)
    _bottom(c, view, turn, places)
    return c.png(load_palette(KIND))


__all__ = ["HEIGHT", "WIDTH", "countries", "land_borders", "render"]

