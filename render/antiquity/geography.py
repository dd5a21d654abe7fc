"""The Mediterranean from the shared map data (``engine/antiquity/data/map.toml``): names,
cities, resources, borders, coasts, the player count each region joins at, nation
colours, and the drawing positions ``at`` on a 1000 x 560 sketch, stretched to the map's
box; and where a region's city, name and galleys go."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from render.antiquity.layout import CITY_DY, MAP_FILE, MAP_H, MAP_W, MAP_X, MAP_Y, NEUTRAL_NATION
from render.common import RGB, Point, as_int


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
