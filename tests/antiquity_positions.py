"""A brute-force reference for Antiquity's legal actions, for tests/test_engine_movegen.py.

It is written from the contract (docs/games/antiquity.md) and reads only the public view,
the map file and the tunable numbers, never the engine's own helpers: movement enumerates
every walk a unit could take step by step (instead of the engine's breadth-first search),
and defence is counted from the seed's formula. Its lists must equal the engine's, order
included (the engine's order: wheel steps 1..7, then regions in map order).
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from engine.antiquity import constants as C

MAP = Path(__file__).resolve().parent.parent / "engine" / "antiquity" / "data" / "map.toml"
WHEEL = ("marble", "temple", "maneuver1", "knowhow", "gold", "iron", "arming", "maneuver2")
KNOWHOW = ("wheel", "roads", "sailing", "navigation", "currency", "monarchy", "democracy",
           "philosophy")
NEEDS = {"roads": "wheel", "navigation": "sailing"}


@cache
def _map() -> tuple[dict[str, Any], dict[str, Any], set[frozenset[str]]]:
    data = tomllib.loads(MAP.read_text("utf-8"))
    links = {frozenset(pair) for pair in [*data["land"], *data["sea"]]}
    return data["provinces"], data["seas"], links


def _linked(a: str, b: str) -> bool:
    return frozenset((a, b)) in _map()[2]


def _units(view: dict[str, Any], region: str) -> dict[str, int]:
    for p in view["provinces"]:
        if p["id"] == region:
            return dict(p["legions"])
    for s in view["seas"]:
        if s["id"] == region:
            return dict(s["galleys"])
    raise KeyError(region)


def _destinations(view: dict[str, Any], me: dict[str, Any], src: str) -> set[str]:
    """Every region a unit in ``src`` can end a move in: all walks of 1..range steps along
    borders of its own kind, never through a region where it would have to stop."""
    provinces, seas, _ = _map()
    owners = {p["id"]: p["owner"] for p in view["provinces"]}
    legion = src in provinces
    know = set(me["knowhow"])
    reach = 1 + (("wheel" in know) + ("roads" in know) if legion
                 else ("sailing" in know) + ("navigation" in know))
    pool = [p["id"] for p in view["provinces"]] if legion else [s["id"] for s in view["seas"]]

    def stops(region: str) -> bool:
        others = any(k != me["id"] and v for k, v in _units(view, region).items())
        foreign_city = legion and owners[region] not in (None, me["id"])
        return others or foreign_city

    found: set[str] = set()

    def walk(at: str, left: int, seen: frozenset[str]) -> None:
        for nxt in pool:
            if nxt in seen or not _linked(at, nxt):
                continue
            if not legion and seas[nxt]["deep"] and "navigation" not in know:
                continue
            found.add(nxt)
            if left > 1 and not stops(nxt):
                walk(nxt, left - 1, seen | {nxt})

    walk(src, reach, frozenset({src}))
    return found


def _defence(view: dict[str, Any], province: dict[str, Any]) -> int:
    owner = province["owner"]
    nation = next(n for n in view["nations"] if n["id"] == owner)
    galleys = sum(s["galleys"].get(owner, 0) for s in view["seas"]
                  if s["id"] in province["coasts"])
    return ((3 if province["temple"] else 1) + province["legions"].get(owner, 0) + galleys
            + ("monarchy" in nation["knowhow"]))


def antiquity_reference(game: Any, state: Any, player: str) -> list[str]:
    view = game.view(state, None)
    if not isinstance(player, str) or view["phase"] == "over" or player not in view["to_act"]:
        return []
    me = next(n for n in view["nations"] if n["player"] == player)
    have = {r: me[r] for r in ("marble", "iron", "gold")}
    if view["phase"] == "wheel":
        if me["wheel"] is None:
            return [f"go {f}" for f in WHEEL]
        start = WHEEL.index(me["wheel"])
        return [f"go {WHEEL[(start + steps) % 8]}" for steps in range(1, 8)
                if max(0, steps - 3) <= sum(have.values())]
    field = view["field"]
    provinces = view["provinces"]
    mine = [p for p in provinces if p["owner"] == me["id"]]
    out: list[str] = []
    if field == "temple" and have["marble"] >= C.TEMPLE_COST and view["temples_left"]:
        out += [f"temple {p['id']}" for p in mine if not p["temple"]]
    elif field == "arming":
        if have["iron"] >= C.LEGION_COST and me["legions"] < C.LEGIONS:
            out += [f"legion {p['id']}" for p in mine]
        if have["iron"] >= C.GALLEY_COST and me["galleys"] < C.GALLEYS:
            out += [f"galley {s['id']}" for s in view["seas"]
                    if any(s["id"] in p["coasts"] for p in mine)]
    elif field == "knowhow":
        for k in KNOWHOW:
            cost = C.KNOWHOW_COST if k in view["first_knowhow"] else C.FIRST_COST
            if (k not in me["knowhow"] and NEEDS.get(k, k) in (*me["knowhow"], k)
                    and have["gold"] >= cost):
                out.append(f"learn {k}")
    elif field in ("maneuver1", "maneuver2"):
        out += _maneuvers(view, me, have)
    return [*out, "end"]


def _maneuvers(view: dict[str, Any], me: dict[str, Any], have: dict[str, int]) -> list[str]:
    regions = [*view["provinces"], *view["seas"]]
    order = {r["id"]: i for i, r in enumerate(regions)}
    out = []
    for region in regions:
        units = _units(view, region["id"]).get(me["id"], 0)
        fresh = units - region["moved"]
        if fresh > 0:
            for dst in sorted(_destinations(view, me, region["id"]), key=order.__getitem__):
                out += [f"move {k} {region['id']} {dst}" for k in range(1, fresh + 1)]
    for region in regions:
        units = _units(view, region["id"])
        if units.get(me["id"]):
            out += [f"fight {region['id']} {o}" for o in
                    [n["id"] for n in view["nations"]] if o != me["id"] and units.get(o)]
    cities = sum(1 for p in view["provinces"] if p["owner"] == me["id"])
    for p in view["provinces"]:
        galleys = sum(s["galleys"].get(me["id"], 0) for s in view["seas"]
                      if s["id"] in p["coasts"])
        legions = p["legions"].get(me["id"], 0)
        if p["owner"] is None:
            others = any(k != me["id"] and v for k, v in p["legions"].items())
            if ((legions or galleys) and not others and me["stones"]
                    and all(have[r] >= k for r, k in C.FOUND_COST.items())):
                out.append(f"found {p['id']}")
    for p in view["provinces"]:
        owner = p["owner"]
        if owner in (None, me["id"]) or not me["stones"]:
            continue
        if sum(1 for q in view["provinces"] if q["owner"] == owner) <= 1:
            continue
        strength = _defence(view, p)
        galleys = sum(s["galleys"].get(me["id"], 0) for s in view["seas"]
                      if s["id"] in p["coasts"])
        legions = p["legions"].get(me["id"], 0)
        if legions + galleys >= strength:
            out += [f"conquer {p['id']} {k}" for k in range(strength + 1)
                    if k <= legions and strength - k <= galleys]
    if not me["stones"] and cities > 1:
        out += [f"abandon {p['id']}" for p in view["provinces"] if p["owner"] == me["id"]]
    return out
