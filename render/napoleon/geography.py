"""The map of Europe from the shared map data (``engine/napoleon/data/map.toml``): each
country's name, reinforcement value, borders, coast and the drawing keys ``at``, ``shape``
and ``lane``, scaled from the 1000 x 1000 sketch into the map's square."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from render.common import Point, as_int
from render.napoleon.layout import MAP_FILE, MAP_K, MAP_SIZE, MAP_X, MAP_Y


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

