"""The Antiquity board: the Mediterranean, the action wheel and a panel per nation.

Drawn from the public view dict only (``engine.antiquity``'s ``view``), the events and the
shared map data (``engine/antiquity/data/map.toml``: names, cities, resources, borders,
coasts, the player count each region joins at, nation colours and the drawing positions
``at`` on a 1000 x 560 sketch, stretched here to the map's box).

The map: seas are the cells nearest each sea's position (deep seas darker), land provinces
are blobs joined by land bridges where they share a border (a dotted border link between
their cities; short dashes run from each coast toward its seas). Each city site is a disc
ringed in its resource's colour with the resource's letter (M, I, G), filled in the owner's
nation colour, with a small temple above it when it has one and its name under it.
Legions stand beside their city as square counters and galleys under their sea's name as
hull-shaped counters, one per nation, in the nation's colour with the count. Regions not
in play for this table (the view lists only those in play) are greyed and left unnamed.

Under the map: the action wheel (8 fields clockwise from the top, every nation's marker
with its initial on its field, the nation to act ringed in gold, its move this turn as an
arc outside the wheel) beside the last turn in words, then a panel per nation in seat
order: name and player, personalities against the target, resources, cities, temples,
legions and galleys, know-hows. On top: the round, whose turn it is, the prompt, and the
winner once the game is over.

What ``events`` did (every public event since the last image, a whole turn) is marked on
the map: an arrow per move along its path, red bursts for fights, a red ring for a
conquered city, gold rings for cities founded and temples built, "+n" for units armed, a
cross for a city abandoned; production and know-hows bought are tagged on the panels.
Text a player needs to decide (the status line, the round, unit counts, resources,
points) is marked with its role and drawn at least
:func:`render.common.min_essential_size` tall, so it stays readable on a phone.
"""

from __future__ import annotations

import itertools
import math
import tomllib
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

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
    DrawnText,
    Point,
    TextLog,
    as_int,
    burst,
    clean_text,
    darken,
    dashed_line,
    display_name,
    drawable_events,
    lighten,
    load_palette,
    min_essential_size,
    pill,
    text_on,
    text_runs,
)

KIND = "antiquity"
WIDTH = 780
SCALE = 4  # static layers are drawn this many times larger, then reduced

MAP_FILE = Path(__file__).resolve().parent.parent / "engine" / "antiquity" / "data" / "map.toml"

#: Essential text (status line, round, counts, resources, points) is at least this tall:
#: 8 px on a phone that shows the image 390 px wide.
ESSENTIAL = float(math.ceil(min_essential_size(WIDTH)))

# layout (final pixels)
M = 8  # outer margin
HEADER_H = 84
MAP_X, MAP_Y, MAP_W, MAP_H = M, M + HEADER_H, WIDTH - 2 * M, 544
LOWER_Y = MAP_Y + MAP_H + 8  # the wheel and the log
LOWER_H = 284
WHEEL_BOX = (M, LOWER_Y, M + 290, LOWER_Y + LOWER_H)
LOG_BOX = (M + 298, LOWER_Y, WIDTH - M, LOWER_Y + LOWER_H)
PANELS_Y = LOWER_Y + LOWER_H + 8
PANEL_W = (WIDTH - 2 * M - 8) / 2
PANEL_H = 92
PANEL_GAP = 8
MAX_NATIONS = 6

# the map's look
SEA: RGB = (40, 74, 110)
DEEP: RGB = (22, 42, 70)
SEA_OUT: RGB = (44, 47, 54)  # a sea not in play
SEA_EDGE: RGB = (70, 104, 140)
LAND: RGB = (122, 110, 78)
LAND_OUT: RGB = (66, 66, 68)  # a province not in play
SHORE: RGB = (176, 196, 206)
SHORE_OUT: RGB = (84, 86, 92)
BORDER: RGB = (58, 50, 34)
COAST: RGB = (150, 190, 214)
SEA_LABEL: RGB = (150, 186, 218)
LABEL_STROKE: RGB = (18, 18, 22)
GOLD: RGB = (250, 204, 72)
BOX_FILL: RGB = (32, 35, 42)
BOX_LINE: RGB = (58, 62, 72)
BLOB_R = 25.0  # a province's land blob
BRIDGE_W = 36.0  # a land border's land bridge
STRAIT_W = 9.0  # ... across a strait
CITY_R = 10.0
CITY_DY = -4.0  # the city disc above the province's point
UNIT_H = 19.0  # a unit counter's height
NAME_SIZE = 10.5

RESOURCES = ("marble", "iron", "gold")
RESOURCE_COLOURS: dict[str, RGB] = {"marble": (232, 228, 218), "iron": (150, 170, 190),
                                    "gold": (246, 196, 52)}
RESOURCE_LETTERS = {"marble": "M", "iron": "I", "gold": "G"}

FIELDS = ("marble", "temple", "maneuver1", "knowhow", "gold", "iron", "arming", "maneuver2")
FIELD_NAMES = {"marble": "Marble", "temple": "Temple", "maneuver1": "Maneuver I",
               "knowhow": "Know-how", "gold": "Gold", "iron": "Iron", "arming": "Arming",
               "maneuver2": "Maneuver II"}
FIELD_LABELS = {"maneuver1": "Man. I", "maneuver2": "Man. II"}
FIELD_COLOURS: dict[str, RGB] = {
    "marble": (150, 148, 140), "temple": (170, 140, 84), "maneuver1": (150, 70, 60),
    "knowhow": (70, 100, 160), "gold": (176, 140, 40), "iron": (96, 108, 124),
    "arming": (120, 60, 70), "maneuver2": (150, 70, 60)}

KNOWHOWS = ("wheel", "roads", "sailing", "navigation", "currency", "monarchy", "democracy",
            "philosophy")
KNOWHOW_NAMES = {k: k.title() for k in KNOWHOWS}
KNOWHOW_TAGS = {"wheel": "Wheel", "roads": "Roads", "sailing": "Sail", "navigation": "Navig",
                "currency": "Curr", "monarchy": "Mon", "democracy": "Dem",
                "philosophy": "Phil"}
PERSONALITIES = ("king", "citizen", "scholar", "navigator", "general")
PERSONALITY_TAGS = {"king": "K", "citizen": "C", "scholar": "S", "navigator": "N",
                    "general": "G"}

MAX_ARROWS = 40
MAX_COUNT = 999
NEUTRAL_NATION: RGB = (150, 150, 150)


# --- the map data ----------------------------------------------------------------------


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


def _galley_xy(region: _Region) -> Point:
    """The middle of a sea's row of galley counters (under its name)."""
    x, y = _sea_xy(region)
    return x, y + 17


# --- the static layer --------------------------------------------------------------------


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


@lru_cache(maxsize=8)
def _map_layer(in_play: frozenset[str]) -> Image.Image:
    """Seas, land, borders, coasts and names, for the regions in play (others greyed)."""
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
    # names: seas (light), cities (under their discs)
    for sid, s in gm.seas.items():
        if sid not in in_play:
            continue
        name = s.name + (" (deep)" if s.deep else "")
        w = c.text_width(name, NAME_SIZE)
        sx, sy = _sea_xy(s)
        x = min(max(sx, MAP_X + w / 2 + 4), MAP_X + MAP_W - w / 2 - 4)
        c.text(_local((x, sy)), name, NAME_SIZE, fill=SEA_LABEL, anchor="mm", stroke=2,
               stroke_fill=darken(DEEP if s.deep else SEA, 0.35))
    for pid, p in gm.provinces.items():
        if not playing(pid):
            continue
        x, y = _city_xy(p)
        name = p.city or p.name
        half = c.text_width(name, NAME_SIZE, bold=True) / 2
        x = min(max(x, MAP_X + half + 3), MAP_X + MAP_W - half - 3)
        c.text(_local((x, y + CITY_R + 8)), name, NAME_SIZE, fill=TEXT, bold=True,
               anchor="mm", stroke=2.2, stroke_fill=LABEL_STROKE)
    return c.finish()


def _rounded_mask(w: int, h: int, r: int) -> Image.Image:
    mask = Image.new("L", (w * 4, h * 4), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w * 4 - 1, h * 4 - 1), radius=r * 4, fill=255)
    return mask.reduce(4)


WHEEL_C = ((WHEEL_BOX[0] + WHEEL_BOX[2]) / 2, (WHEEL_BOX[1] + WHEEL_BOX[3]) / 2)
WHEEL_OUT, WHEEL_IN, WHEEL_HUB = 124.0, 36.0, 31.0
WHEEL_LABEL_R = 105.0
MARKER_R = 9.5
ARC_R = 134.0


def _angle(i: int) -> float:
    """The middle of wheel field ``i`` (radians; 0 is the top, clockwise)."""
    return math.radians(-90 + i * 45)


def _polar(r: float, a: float) -> Point:
    return WHEEL_C[0] + r * math.cos(a), WHEEL_C[1] + r * math.sin(a)


def _wedge(i: int, r0: float, r1: float) -> list[Point]:
    a0, a1 = _angle(i) - math.pi / 8, _angle(i) + math.pi / 8
    steps = 12
    outer = [_polar(r1, a0 + (a1 - a0) * k / steps) for k in range(steps + 1)]
    inner = [_polar(r0, a1 - (a1 - a0) * k / steps) for k in range(steps + 1)]
    return outer + inner


def _wheel(c: Canvas) -> None:
    """The wheel's fields, names and hub (static)."""
    for i, fid in enumerate(FIELDS):
        c.polygon(_wedge(i, WHEEL_IN, WHEEL_OUT), fill=darken(FIELD_COLOURS[fid], 0.25),
                  outline=(20, 21, 26), width=2)
    for i, fid in enumerate(FIELDS):
        # the side fields' names run across the wheel's radius: a little further out
        x, y = _polar(WHEEL_LABEL_R + (5 if i % 4 == 2 else 0), _angle(i))
        c.text((x, y), FIELD_LABELS.get(fid, FIELD_NAMES[fid]), 10.5, fill=TEXT, bold=True,
               anchor="mm", stroke=1.6, stroke_fill=darken(FIELD_COLOURS[fid], 0.6))
    c.circle(WHEEL_C, WHEEL_HUB, fill=(24, 26, 31), outline=BOX_LINE, width=1.5)


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
    image.paste(_map_layer(in_play), (MAP_X, MAP_Y), _rounded_mask(MAP_W, MAP_H, 11))
    return image


def image_height(nations: int) -> int:
    """The image's height for a table of ``nations`` (one row of panels per two)."""
    rows = max(1, min(3, (max(1, nations) + 1) // 2))
    return round(PANELS_Y + rows * (PANEL_H + PANEL_GAP) - PANEL_GAP + M)


# --- reading the view ---------------------------------------------------------------------


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _count(value: Any) -> int:
    return max(0, min(MAX_COUNT, as_int(value)))


@dataclass
class _NationView:
    """One nation's public state (tolerant: odd fields are zero)."""

    id: str
    name: str
    colour: RGB
    player: str | None
    player_name: str
    seat: int
    out: bool
    raw: Mapping[str, Any]

    def num(self, key: str) -> int:
        return _count(self.raw.get(key))

    @property
    def initial(self) -> str:
        return (self.name[:1] or "?").upper()


def _nations(view: Mapping[str, Any], names: Mapping[str, str] | None) -> list[_NationView]:
    gm = game_map()
    raw = view.get("nations")
    out: list[_NationView] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw[:MAX_NATIONS] if isinstance(raw, list) else []):
        if not isinstance(entry, Mapping):
            continue
        nid = entry.get("id")
        if not isinstance(nid, str) or nid in seen:
            continue
        seen.add(nid)
        known = gm.nations.get(nid)
        name = known.name if known else (clean_text(entry.get("name"), 24) or clean_text(nid, 24)
                                         or "?")
        colour = known.colour if known else NEUTRAL_NATION
        pid = entry.get("player")
        seat = as_int(entry.get("seat"), i)
        out.append(_NationView(nid, name, colour, pid if isinstance(pid, str) else None,
                               display_name(names, pid, seat + 1), seat,
                               bool(entry.get("out")), entry))
    return out


def _nation_colour(nid: Any) -> RGB:
    known = game_map().nations.get(nid) if isinstance(nid, str) else None
    return known.colour if known else NEUTRAL_NATION


def _nation_name(nid: Any) -> str:
    known = game_map().nations.get(nid) if isinstance(nid, str) else None
    return known.name if known else (clean_text(nid, 20) or "?")


@dataclass
class _Place:
    region: _Region
    owner: str | None = None
    temple: bool = False
    units: dict[str, int] = field(default_factory=dict)  # nation -> legions or galleys


def _places(view: Mapping[str, Any]) -> dict[str, _Place]:
    """Every region in play (as the view lists them) with its city and units."""
    gm = game_map()
    places: dict[str, _Place] = {}
    for key, table, units in (("provinces", gm.provinces, "legions"),
                              ("seas", gm.seas, "galleys")):
        raw = view.get(key)
        for entry in raw[:64] if isinstance(raw, list) else []:
            if not isinstance(entry, Mapping):
                continue
            rid = entry.get("id")
            if not isinstance(rid, str) or rid not in table or rid in places:
                continue
            place = _Place(table[rid])
            owner = entry.get("owner")
            place.owner = owner if isinstance(owner, str) and owner else None
            place.temple = bool(entry.get("temple")) and place.owner is not None
            counts = entry.get("units") if units not in entry else entry.get(units)
            for nid, n in counts.items() if isinstance(counts, Mapping) else ():
                if isinstance(nid, str) and _count(n) > 0:
                    place.units[nid] = _count(n)
            places[rid] = place
    return places


# --- what the events did --------------------------------------------------------------------


@dataclass(frozen=True)
class _Move:
    nation: str | None
    unit: str
    count: int
    path: tuple[str, ...]  # from, then every region entered


@dataclass
class _Turn:
    moves: list[_Move] = field(default_factory=list)
    marks: list[tuple[str, str, str | None]] = field(default_factory=list)  # kind, region, nation
    armed: dict[tuple[str | None, str], int] = field(default_factory=dict)  # (nation, region)
    fights: dict[str, int] = field(default_factory=dict)  # region -> units lost (both sides)
    goes: list[tuple[str | None, str | None, str]] = field(default_factory=list)
    produced: dict[str, list[str]] = field(default_factory=dict)  # nation -> ["+3 gold"]
    learnt: dict[str, set[str]] = field(default_factory=dict)  # nation -> know-hows
    lines: list[list[tuple[str, Colour]]] = field(default_factory=list)  # the log


def _region_id(value: Any) -> str | None:
    return value if game_map().region(value) is not None else None


def _field(value: Any) -> str | None:
    return value if isinstance(value, str) and value in FIELDS else None


def _who(nid: Any) -> tuple[str, Colour]:
    return _nation_name(nid), lighten(_nation_colour(nid), 0.3)


def _rname(rid: str | None) -> str:
    region = game_map().region(rid)
    if region is None:
        return "?"
    return region.city or region.name if not region.sea else region.name


def _read_events(events: Any) -> _Turn:
    """The drawable facts in ``events``: unknown and malformed events are skipped."""
    turn = _Turn()
    gm = game_map()

    def line(nid: Any, *rest: str) -> None:
        turn.lines.append([_who(nid), (" " + " ".join(rest), TEXT)] if nid is not None
                          else [(" ".join(rest), TEXT)])

    for e in drawable_events(events, MAX_EVENTS):
        kind, nid = e["type"], e.get("nation")
        nid = nid if isinstance(nid, str) else None
        if kind == "turn":
            rnd = as_int(e.get("round"))
            who, colour = _who(nid)
            turn.lines.append([(f"Round {min(rnd, 999)} · " if rnd > 0 else "", MUTED),
                               (who, colour), (" to play", MUTED)])
        elif kind == "go":
            fid = _field(e.get("field"))
            if fid is None:
                continue
            turn.goes.append((nid, _field(e.get("from")), fid))
            steps = _count(e.get("steps"))
            paid = _mapping(e.get("paid"))
            cost = ", ".join(f"{_count(n)} {r}" for r, n in paid.items()
                             if r in RESOURCES and _count(n) > 0)
            extra = f" ({steps} step{'s' if steps != 1 else ''}" if steps else " ("
            extra += (f", paid {cost})" if cost else ", free)") if steps else "first move)"
            line(nid, "→", FIELD_NAMES[fid] + extra)
        elif kind == "produce":
            res = e.get("resource")
            amount = _count(e.get("amount"))
            if res in RESOURCES and nid is not None:
                turn.produced.setdefault(nid, []).append(f"+{amount} {res}")
                line(nid, f"produced {amount} {res}")
        elif kind in ("temple", "found", "abandon"):
            rid = _region_id(e.get("province"))
            if rid is None:
                continue
            turn.marks.append((kind, rid, nid))
            verb = {"temple": "built a temple in", "found": "founded",
                    "abandon": "abandoned"}[kind]
            line(nid, verb, _rname(rid))
        elif kind == "arm":
            rid = _region_id(e.get("region"))
            if rid is None:
                continue
            key = (nid, rid)
            turn.armed[key] = min(MAX_COUNT, turn.armed.get(key, 0) + 1)
        elif kind == "learn":
            kid = e.get("knowhow")
            if kid not in KNOWHOWS:
                continue
            if nid is not None:
                turn.learnt.setdefault(nid, set()).add(str(kid))
            first = ", first: a Scholar" if e.get("first") else ""
            line(nid, f"learnt {KNOWHOW_NAMES[str(kid)]} ({_count(e.get('cost'))} gold{first})")
        elif kind == "move":
            src = _region_id(e.get("from"))
            route = e.get("path")
            hops = [str(r) for r in (route[:12] if isinstance(route, list) else [])
                     if _region_id(r) is not None]
            dst = _region_id(e.get("to"))
            if not hops and dst is not None:
                hops = [dst]
            if src is None or not hops or hops[-1] == src:
                continue
            origin = gm.region(src)
            unit = "galley" if e.get("unit") == "galley" or (origin is not None and origin.sea) \
                else "legion"
            moved = _count(e.get("count"))
            turn.moves.append(_Move(nid, unit, moved, (src, *hops)))
            line(nid, f"moved {moved} {unit}{'s' if moved != 1 else ''} {_rname(src)} → "
                      f"{_rname(hops[-1])}")
        elif kind == "fight":
            rid = _region_id(e.get("region"))
            if rid is None:
                continue
            losses = _count(e.get("losses"))
            turn.fights[rid] = min(MAX_COUNT, turn.fights.get(rid, 0) + losses)
            line(nid, f"fought the {_nation_name(e.get('other'))} in {_rname(rid)}: "
                      f"{losses} lost each")
        elif kind == "conquer":
            rid = _region_id(e.get("province"))
            if rid is None:
                continue
            turn.marks.append(("conquer", rid, nid))
            temple = ", temple destroyed" if e.get("temple") else ""
            line(nid, f"conquered {_rname(rid)} from the {_nation_name(e.get('defender'))} "
                      f"(strength {_count(e.get('strength'))}{temple})")
        elif kind == "personality":
            pkind = e.get("kind")
            if pkind in PERSONALITIES:
                line(nid, f"gained a {str(pkind).title()} ({_count(e.get('total'))} "
                          "personalities)")
        elif kind == "victory":
            winner = e.get("nation")
            if isinstance(winner, str):
                line(winner, "win!")
            else:
                turn.lines.append([("The game is over.", ACCENT)])
        elif kind == "resign":
            line(nid, "resigned")
    # units armed, one line per nation
    armed: dict[str | None, list[str]] = {}
    for (nid, rid), n in turn.armed.items():
        region = gm.region(rid)
        unit = "galley" if region is not None and region.sea else "legion"
        armed.setdefault(nid, []).append(f"{n} {unit}{'s' if n != 1 else ''} in {_rname(rid)}")
    for nid, parts in armed.items():
        line(nid, "armed " + ", ".join(parts))
    return turn


# --- on the map ---------------------------------------------------------------------------


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
    out: list[tuple[Point, str, str]] = []
    if place.region.sea:
        cx, cy = _galley_xy(place.region)
        per_row = 3
        for row in range(0, len(labels), per_row):
            chunk = list(zip(labels[row:row + per_row], widths[row:row + per_row], strict=True))
            total = sum(w for _, w in chunk) + gap * (len(chunk) - 1)
            x = cx - total / 2
            y = cy + (row // per_row) * (UNIT_H + 3)
            for (nid, label), w in chunk:
                out.append(((x + w / 2, y), nid, label))
                x += w + gap
        return out
    x0, y0 = _city_xy(place.region)
    per_row = 2
    rows = (len(labels) + per_row - 1) // per_row
    for row in range(rows):
        chunk = list(zip(labels[row * per_row:(row + 1) * per_row],
                         widths[row * per_row:(row + 1) * per_row], strict=True))
        total = sum(w for _, w in chunk) + gap * (len(chunk) - 1)
        left_side = x0 + CITY_R + 4 + total > MAP_X + MAP_W - 4
        x = x0 - CITY_R - 4 - total if left_side else x0 + CITY_R + 4
        y = y0 + (row - (rows - 1) / 2) * (UNIT_H + 3)
        for (nid, label), w in chunk:
            out.append(((x + w / 2, y), nid, label))
            x += w + gap
    return out


def _anchor(place: _Place) -> Point:
    """Where a move's arrow starts or ends in a region."""
    return _galley_xy(place.region) if place.region.sea else _city_xy(place.region)


def _arrow_path(c: Canvas, pts: Sequence[Point], colour: Colour, width: float,
                whole: bool = False) -> None:
    """A thick arrow along ``pts`` (the tip at the last point), outlined for contrast."""
    if len(pts) < 2:
        return
    (ax, ay), (ex, ey) = pts[-2], pts[-1]
    length = math.hypot(ex - ax, ey - ay)
    if length < 1:
        return
    ux, uy = (ex - ax) / length, (ey - ay) / length
    head = min(13.0, length * 0.7)
    hw = width * 1.8
    bx, by = ex - ux * head, ey - uy * head
    head_pts = [(ex, ey), (bx - uy * hw, by + ux * hw), (bx + uy * hw, by - ux * hw)]
    shaft = [*pts[:-1], (bx + ux, by + uy)]
    shadow = (10, 10, 14, 200)
    for fill, w in ((shadow, width + 3), (colour, width)):
        if whole:  # one mask for the whole path (an arc on the wheel: the same every time)
            c.line(shaft, fill=fill, width=w, round_caps=True)
            continue
        for a, b in itertools.pairwise(shaft):  # small masks, where one would be huge
            c.line([a, b], fill=fill, width=w, round_caps=True)
    c.polygon(head_pts, fill=shadow, outline=shadow, width=3)
    c.polygon(head_pts, fill=colour)


def _trim(pts: list[Point], start: float, end: float) -> list[Point]:
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
    return sum(math.dist(a, b) for a, b in itertools.pairwise(pts))


def _point_along(pts: Sequence[Point], t: float) -> Point:
    d = _path_length(pts) * t
    for a, b in itertools.pairwise(pts):
        seg = math.dist(a, b)
        if seg >= d and seg > 0:
            return a[0] + (b[0] - a[0]) * d / seg, a[1] + (b[1] - a[1]) * d / seg
        d -= seg
    return pts[-1]


def _tag(c: Canvas, centre: Point, label: str, fill: Colour, fg: Colour = TEXT,
         size: float = 12) -> None:
    """A small pill centred on ``centre``."""
    w = c.text_width(label, size, bold=True) + 10
    c.stamp(("tag", label, tuple(fill), tuple(fg), size), centre, w / 2 + 2,
            lambda cv, p: _draw_tag(cv, p, label, fill, fg, w, size))


def _draw_tag(c: Canvas, centre: Point, label: str, fill: Colour, fg: Colour, w: float,
              size: float) -> None:
    x, y = centre
    h = size + 5
    c.rect((x - w / 2, y - h / 2, x + w / 2, y + h / 2), fill=fill, outline=(14, 14, 18),
           width=1.2, radius=h / 2)
    c.text((x, y + 0.5), label, size, fill=fg, bold=True, anchor="mm")


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
        pts = _trim(pts, CITY_R + 2, CITY_R + 4)
        if len(pts) < 2 or _path_length(pts) < 8:
            continue
        colour = lighten(_nation_colour(m.nation), 0.2)
        _arrow_path(c, pts, colour, 3.5)
        if m.count:
            labels.append((_point_along(pts, 0.5), colour, str(m.count)))
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
            _tag(c, (x, y + 15), f"-{lost}", DANGER)
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
        _tag(c, (x, y + 17 * k), f"+{n}", (36, 120, 64))
    for centre, colour, label in labels:
        _tag(c, centre, label, (16, 17, 22), colour)


# --- the wheel ------------------------------------------------------------------------------


def _marker(c: Canvas, centre: Point, colour: RGB, initial: str, current: bool) -> None:
    c.stamp(("marker", colour, initial, current), centre, MARKER_R + 5,
            lambda cv, p: _draw_marker(cv, p, colour, initial, current))


def _draw_marker(c: Canvas, centre: Point, colour: RGB, initial: str, current: bool) -> None:
    x, y = centre
    if current:
        c.circle((x, y), MARKER_R + 3.5, fill=GOLD)
    c.circle((x + 0.5, y + 1), MARKER_R, fill=(0, 0, 0, 110))
    c.circle((x, y), MARKER_R, fill=colour, outline=(245, 242, 234), width=1.3)
    c.text((x, y + 0.5), initial, 10.5, fill=text_on(colour), bold=True, anchor="mm")


def _marker_slots(i: int, k: int) -> list[Point]:
    """Where ``k`` markers sit in field ``i``: up to three on an outer arc, then an inner."""
    a = _angle(i)
    out: list[Point] = []
    rows = [(77.0, 0.29), (54.0, 0.39)]
    for row in range(2):
        n = min(3, k - 3 * row)
        if n <= 0:
            break
        r, step = rows[row]
        for j in range(n):
            out.append(_polar(r, a + (j - (n - 1) / 2) * step))
    return out


def _arc(c: Canvas, start: int, end: int, colour: RGB) -> None:
    """A move on the wheel: an arrow outside it, clockwise from field ``start`` to ``end``
    (one cached sprite per move and colour)."""
    c.stamp(("arc", start, end, colour), WHEEL_C, ARC_R + 8,
            lambda cv, p: _draw_arc(cv, p, start, end, colour))


def _draw_arc(c: Canvas, centre: Point, start: int, end: int, colour: RGB) -> None:
    steps = (end - start) % 8 or 8
    a0, a1 = _angle(start), _angle(start) + steps * math.pi / 4
    n = max(4, steps * 8)
    pts = [(centre[0] + ARC_R * math.cos(a0 + (a1 - a0) * k / n),
            centre[1] + ARC_R * math.sin(a0 + (a1 - a0) * k / n)) for k in range(n + 1)]
    _arrow_path(c, _trim(pts, 4, 2), colour, 3, whole=True)


def _draw_wheel(c: Canvas, view: Mapping[str, Any], nations: list[_NationView],
                turn: _Turn, current: str | None) -> None:
    taken = _field(view.get("field"))
    if taken is not None and current is not None:
        i = FIELDS.index(taken)
        c.polygon(_wedge(i, WHEEL_IN, WHEEL_OUT), outline=GOLD, width=3)
    if turn.goes:  # the last move on the wheel (the markers show where the others went)
        nid, src, dst = turn.goes[-1]
        colour = lighten(_nation_colour(nid), 0.2)
        if src is None:
            c.circle(_polar(ARC_R, _angle(FIELDS.index(dst))), 4, fill=colour)
        else:
            _arc(c, FIELDS.index(src), FIELDS.index(dst), colour)
    by_field: dict[str, list[_NationView]] = {}
    for n in nations:
        fid = _field(n.raw.get("wheel"))
        if fid is not None:
            by_field.setdefault(fid, []).append(n)
    for fid, here in by_field.items():
        slots = _marker_slots(FIELDS.index(fid), len(here))
        for n, slot in zip(here, slots, strict=False):
            _marker(c, slot, n.colour, n.initial, n.id == current)
    if current is not None:
        colour = _nation_colour(current)
        c.circle(WHEEL_C, WHEEL_HUB - 6, fill=colour, outline=GOLD, width=2)
        c.text((WHEEL_C[0], WHEEL_C[1] + 0.5), _nation_name(current)[:1].upper(), 22,
               fill=text_on(colour), bold=True, anchor="mm")
    x0, y0 = WHEEL_BOX[0] + 8, WHEEL_BOX[1] + 12
    c.text((x0, y0), "WHEEL", 10.5, fill=MUTED, bold=True, anchor="lm")
    c.text((WHEEL_BOX[2] - 8, y0), "1-3 free", 10.5, fill=MUTED, anchor="rm")
    c.text((WHEEL_BOX[2] - 8, WHEEL_BOX[3] - 12), "+1 res./step", 10.5, fill=MUTED,
           anchor="rm")


# --- the header, the log and the panels ---------------------------------------------------------


def _status(view: Mapping[str, Any], nations: list[_NationView]) -> tuple[str | None, str]:
    """The nation to act and what it does now."""
    current = view.get("turn")
    current = current if isinstance(current, str) else None
    if current is None:
        to_act = view.get("to_act")
        actor = to_act[0] if isinstance(to_act, list) and to_act else None
        current = next((n.id for n in nations if n.player is not None and n.player == actor),
                       None)
    phase = view.get("phase")
    taken = _field(view.get("field"))
    if phase == "action" and taken is not None:
        doing = f"takes {FIELD_NAMES[taken]}"
    elif phase == "action":
        doing = "takes its action"
    elif phase == "wheel":
        doing = "moves on the wheel"
    else:
        doing = "to play"
    return current, doing


def _winners(view: Mapping[str, Any], nations: list[_NationView]) -> list[_NationView]:
    outcome = _mapping(view.get("outcome"))
    winners = outcome.get("winners")
    ids = [w for w in winners if isinstance(w, str)] if isinstance(winners, list) else []
    return [n for n in nations if (n.player is not None and n.player in ids) or n.id in ids]


def _header(c: Canvas, view: Mapping[str, Any], nations: list[_NationView],
            current: str | None, doing: str, over: bool) -> None:
    x0, x1 = M + 12, WIDTH - M - 12
    y = M + 16
    c.text((x0, y), "ANTIQUITY", 14, fill=MUTED, bold=True, anchor="lm")
    rnd, rounds = as_int(view.get("round")), as_int(view.get("rounds"))
    label = ""
    if rnd > 0:
        label = f"Round {min(rnd, 999)}" + (f" / {min(rounds, 999)}" if rounds > 0 else "")
        c.text((x1, y), label, ESSENTIAL, fill=TEXT, bold=True, anchor="rm", role="turn")
    target = as_int(view.get("target"))
    if target > 0:
        tx = x0 + c.text_width("ANTIQUITY", 14, bold=True) + 18
        c.text((tx, y), f"First to {min(target, 99)} personalities wins", 13, fill=MUTED,
               anchor="lm")
    y = M + 40
    if over:
        winners = _winners(view, nations)
        if winners:
            runs: list[tuple[str, Colour, float | None]] = [("Winner: ", ACCENT, None)]
            for i, n in enumerate(winners):
                runs.append(((", " if i else "") + n.name, lighten(n.colour, 0.3), None))
                runs.append((f" ({n.player_name})", ACCENT, 200))
            text_runs(c, x0, y, runs, ESSENTIAL, x1, bold=True, role="turn")
        else:
            c.text((x0, y), "Game over", ESSENTIAL, fill=ACCENT, bold=True, anchor="lm",
                   role="turn")
        reason = clean_text(_mapping(view.get("outcome")).get("reason"), limit=160)
        if reason:
            c.text((x0, y + 22), c.fit(reason, 13, x1 - x0), 13, fill=MUTED, anchor="lm")
        return
    nation = next((n for n in nations if n.id == current), None)
    if nation is None:
        c.text((x0, y), "Waiting", ESSENTIAL, fill=MUTED, bold=True, anchor="lm", role="turn")
    else:
        c.circle((x0 + 7, y), 7, fill=nation.colour, outline=(240, 238, 230), width=1.5)
        runs = [(nation.name, lighten(nation.colour, 0.35), None),
                (" (", TEXT, None), (nation.player_name, TEXT, 220), (f") {doing}", TEXT, None)]
        text_runs(c, x0 + 20, y, runs, ESSENTIAL, x1, bold=True, role="turn")
    prompt = clean_text(view.get("prompt"), limit=200)
    if prompt:
        c.text((x0, y + 24), c.fit(prompt, ESSENTIAL, x1 - x0), ESSENTIAL, fill=MUTED,
               anchor="lm", role="turn")


def _log(c: Canvas, turn: _Turn) -> None:
    x0, y0, x1, y1 = LOG_BOX
    c.text((x0 + 12, y0 + 14), "LAST TURN", 10.5, fill=MUTED, bold=True, anchor="lm")
    size, step = 13.0, 18.0
    room = int((y1 - y0 - 30) // step)
    lines = turn.lines
    if not lines:
        c.text((x0 + 12, y0 + 36), "Nothing yet.", size, fill=FAINT, anchor="lm")
        return
    shown = lines[-room:] if len(lines) > room else lines
    y: float = y0 + 36
    if len(lines) > room:
        shown = lines[-(room - 1):]
        c.text((x0 + 12, y), f"… {len(lines) - len(shown)} earlier", size, fill=FAINT,
               anchor="lm")
        y += step
    for runs in shown:
        text_runs(c, x0 + 12, y, [(t, col, None) for t, col in runs], size, x1 - 10)
        y += step


def _icon(c: Canvas, kind: str, centre: Point) -> None:
    c.stamp(("icon", kind), centre, 9, lambda cv, p: _draw_icon(cv, p, kind))


def _draw_icon(c: Canvas, centre: Point, kind: str) -> None:
    x, y = centre
    if kind in RESOURCE_COLOURS:
        colour = RESOURCE_COLOURS[kind]
        if kind == "gold":
            c.circle((x, y), 6.5, fill=colour, outline=(120, 84, 10), width=1.2)
            c.circle((x, y), 3.8, outline=(200, 150, 30), width=1)
        elif kind == "iron":
            c.polygon([(x - 7, y + 4.5), (x - 4, y - 4.5), (x + 4, y - 4.5), (x + 7, y + 4.5)],
                      fill=colour, outline=(50, 60, 72), width=1.2)
        else:
            c.rect((x - 6.5, y - 5.5, x + 6.5, y + 5.5), fill=colour, outline=(120, 116, 108),
                   width=1.2, radius=1.5)
            c.line([(x - 3, y - 3), (x + 1, y + 2)], fill=(170, 166, 156), width=1)
    elif kind == "city":
        c.circle((x, y), 6.5, fill=(210, 200, 180), outline=(60, 54, 40), width=1.4)
    elif kind == "temple":
        _temple_glyph(c, (x, y + 1), 7, (240, 230, 200), (40, 34, 24))
    elif kind == "legion":
        c.rect((x - 6.5, y - 6.5, x + 6.5, y + 6.5), fill=(200, 200, 206),
               outline=(40, 40, 46), width=1.2, radius=2)
    elif kind == "galley":
        c.polygon(_hull(x, y, 15, 10), fill=(200, 200, 206), outline=(40, 40, 46), width=1.2)


def _panel(c: Canvas, box: tuple[float, float, float, float], n: _NationView,
           view: Mapping[str, Any], current: str | None, over: bool, winner: bool,
           turn: _Turn, target: int) -> None:
    x0, y0, x1, y1 = box
    now = not over and n.id == current
    fill = PANEL_HIGHLIGHT if now else PANEL
    c.rect(box, fill=n.colour if not n.out else FAINT, radius=10)
    c.rect((x0 + 6, y0, x1, y1), fill=fill, radius=10)
    c.rect((x0 + 6, y0, x0 + 16, y1), fill=fill)
    if now:
        c.rect(box, outline=GOLD, width=2, radius=10)
    # row 1: name, player, points
    right = x1 - 8
    points = n.num("points")
    score = f"{points}/{target}" if target > 0 else str(points)
    sw = c.text_width(score, ESSENTIAL, bold=True)
    c.text((right, y0 + 14), score, ESSENTIAL, fill=ACCENT if winner else TEXT, bold=True,
           anchor="rm", role="score")
    right -= sw + 6
    if winner:
        right = pill(c, right, y0 + 5, "WINNER", ACCENT, size=10.5, height=18) - 5
    elif n.out:
        right = pill(c, right, y0 + 5, "OUT", DANGER, size=10.5, height=18) - 5
    elif now:
        right = pill(c, right, y0 + 5, "TURN", GOLD, size=10.5, height=18) - 5
    nx = x0 + 14
    runs: list[tuple[str, Colour, float | None]] = [
        (n.name, lighten(n.colour, 0.35), None), ("  ", TEXT, None),
        (n.player_name, TEXT, None)]
    text_runs(c, nx, y0 + 14, runs, 14, right - 4, bold=True)
    # row 2: resources, then production this turn
    y = y0 + 37
    x = nx + 6
    for res in RESOURCES:
        _icon(c, res, (x, y))
        value = str(n.num(res))
        c.text((x + 10, y), value, ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role="score")
        x += 10 + c.text_width(value, ESSENTIAL, bold=True) + 16
    made = turn.produced.get(n.id)
    if made:
        _tag(c, (x + 22, y), made[-1], (36, 120, 64), size=11)
    # personalities by kind (only those held)
    pers = _mapping(n.raw.get("personalities"))
    held = [f"{PERSONALITY_TAGS[k]}{_count(pers.get(k))}" for k in PERSONALITIES
            if _count(pers.get(k)) > 0]
    if held:
        text = " ".join(held)
        c.text((x1 - 8, y), c.fit(text, 12, 120), 12, fill=MUTED, bold=True, anchor="rm")
    # row 3: cities, temples, legions, galleys
    y = y0 + 59
    x = nx + 6
    for kind, key in (("city", "cities"), ("temple", "temples"), ("legion", "legions"),
                      ("galley", "galleys")):
        _icon(c, kind, (x, y))
        value = str(n.num(key))
        c.text((x + 11, y), value, ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role="count")
        x += 11 + c.text_width(value, ESSENTIAL, bold=True) + 16
    stones = n.raw.get("stones")
    if isinstance(stones, int) and not isinstance(stones, bool):
        c.text((x1 - 8, y), f"{_count(stones)} stones left", 11.5, fill=MUTED, anchor="rm")
    # row 4: know-hows
    y = y0 + 80
    known = n.raw.get("knowhow")
    kinds = [k for k in KNOWHOWS if isinstance(known, list) and k in known]
    new = turn.learnt.get(n.id, set())
    x = nx
    if not kinds:
        c.text((x, y), "no know-how", 11, fill=FAINT, anchor="lm")
    for k in kinds:
        label = KNOWHOW_TAGS[k]
        w = c.text_width(label, 10.5, bold=True) + 10
        if x + w > x1 - 6:
            break
        colour = GOLD if k in new else (70, 80, 104)
        c.rect((x, y - 8, x + w, y + 8), fill=colour, radius=8)
        c.text((x + w / 2, y + 0.5), label, 10.5, fill=text_on(colour), bold=True, anchor="mm")
        x += w + 4


#: Panels drawn lately (a nation's panel rarely changes from one board to the next): its
#: image and the text it drew, by everything it shows.
_PANELS: OrderedDict[Hashable, tuple[Image.Image, tuple[DrawnText, ...]]] = OrderedDict()
PANEL_CACHE = 96


def _panel_key(n: _NationView, now: bool, over: bool, winner: bool, turn: _Turn,
               target: int) -> Hashable:
    pers = _mapping(n.raw.get("personalities"))
    known = n.raw.get("knowhow")
    stones = n.raw.get("stones")
    return (n.id, n.name, n.colour, n.player_name, n.out, now, over, winner, target,
            tuple(n.num(k) for k in ("points", *RESOURCES, "cities", "temples", "legions",
                                     "galleys")),
            tuple(_count(pers.get(k)) for k in PERSONALITIES),
            tuple(k for k in KNOWHOWS if isinstance(known, list) and k in known),
            _count(stones) if isinstance(stones, int) and not isinstance(stones, bool) else None,
            tuple(turn.produced.get(n.id, [])[-1:]), tuple(sorted(turn.learnt.get(n.id, ()))))


def _panels(c: Canvas, view: Mapping[str, Any], nations: list[_NationView],
            current: str | None, over: bool, turn: _Turn) -> None:
    winners = {n.id for n in _winners(view, nations)} if over else set()
    target = as_int(view.get("target"))
    w, h = math.ceil(PANEL_W), math.ceil(PANEL_H)
    for i, n in enumerate(nations[:MAX_NATIONS]):
        col, row = i % 2, i // 2
        x0 = M + col * (PANEL_W + 8)
        y0 = PANELS_Y + row * (PANEL_H + PANEL_GAP)
        args = (n, view, current, over, n.id in winners, turn, target)
        if not c.fast:  # reference quality: drawn in place
            _panel(c, (x0, y0, x0 + PANEL_W, y0 + PANEL_H), *args)
            continue
        key = _panel_key(n, not over and n.id == current, over, n.id in winners, turn, target)
        cached = _PANELS.get(key)
        if cached is None:
            outer, log = TextLog.active, TextLog()
            TextLog.active = log
            try:
                pc = Canvas(w, h, BACKGROUND)
                _panel(pc, (0, 0, PANEL_W, PANEL_H), *args)
            finally:
                TextLog.active = outer
            cached = (pc.image, tuple(log.drawn))
            _PANELS[key] = cached
            if len(_PANELS) > PANEL_CACHE:
                _PANELS.popitem(last=False)
        else:
            _PANELS.move_to_end(key)
        image, texts = cached
        if TextLog.active is not None:
            TextLog.active.drawn.extend(texts)
        c.paste(image, (x0, y0))


# --- the whole image -------------------------------------------------------------------------


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of an Antiquity view marking what ``events`` did (see the module's
    docstring). ``view``, ``events`` and ``names`` are never modified."""
    view = view if isinstance(view, Mapping) else {}
    gm = game_map()
    nations = _nations(view, names)
    places = _places(view)
    turn = _read_events(events)
    phase = view.get("phase")
    over = phase == "over" or isinstance(view.get("outcome"), Mapping)
    current, doing = _status(view, nations)
    if over:
        current = None
    rows = max(1, min(3, (len(nations) + 1) // 2))
    c = Canvas(WIDTH, image_height(rows * 2), BACKGROUND,
               base=_backdrop(frozenset(places), rows))
    order = [*gm.order, *(n.id for n in nations if n.id not in gm.order)]
    _draw_map(c, places, turn, order)
    _draw_wheel(c, view, nations, turn, current)
    _header(c, view, nations, current, doing, over)
    _log(c, turn)
    _panels(c, view, nations, current, over, turn)
    return c.png(load_palette(KIND))


__all__ = ["ESSENTIAL", "WIDTH", "game_map", "image_height", "render", "sea_cells"]
