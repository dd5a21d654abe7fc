"""Antiquity's Maneuver fields: how far units reach, what a city's defence is, and the
maneuvers themselves (move, fight, found, conquer, abandon) with the checks that refuse them.

:mod:`engine.antiquity.rules` lists and applies them from here (its ``_do`` has checked
that the nation stands on a Maneuver field and that the regions named are in play); its
view shows a city's :func:`defence`. Every function reads or changes the state it is given
(a copy, when applying) and appends what happened to ``events``.
"""

from __future__ import annotations

from collections import deque
from functools import cache

from engine.antiquity import constants as C
from engine.antiquity.board import (
    INDEX,
    PROVINCES,
    SEAS,
    coasts,
    in_play,
    is_province,
    nation_name,
    neighbours,
    provinces_in_play,
    region_name,
    seas_in_play,
    shore,
)
from engine.antiquity.state import AntiquityState
from engine.core import Event, IllegalAction
from engine.narration import counted
from engine.notation import Action


def range_of(state: AntiquityState, nation: str, legion: bool) -> int:
    if legion:
        return 1 + state.has(nation, "wheel") + state.has(nation, "roads")
    return 1 + state.has(nation, "sailing") + state.has(nation, "navigation")


def _stops(state: AntiquityState, nation: str, region: str) -> bool:
    """A unit entering ``region`` must stop there."""
    if state.others(region, nation):
        return True
    owner = state.cities.get(region)
    return is_province(region) and owner is not None and owner != nation


def reachable(state: AntiquityState, nation: str,
              src: str) -> dict[str, list[str]]:
    """Destination -> shortest path (regions after ``src``) for units leaving ``src``,
    in map order."""
    legion = is_province(src)
    reach = range_of(state, nation, legion)
    deep_ok = state.has(nation, "navigation")
    n = state.n
    parent: dict[str, str] = {src: src}
    dist = {src: 0}
    queue = deque([src])
    while queue:
        u = queue.popleft()
        if dist[u] >= reach or (u != src and _stops(state, nation, u)):
            continue
        for v in neighbours(u, n):
            if v in parent or (not legion and SEAS[v].deep and not deep_ok):
                continue
            parent[v], dist[v] = u, dist[u] + 1
            queue.append(v)
    out: dict[str, list[str]] = {}
    for dst in sorted(parent, key=INDEX.__getitem__):
        if dst == src:
            continue
        path = [dst]
        while parent[path[-1]] != src:
            path.append(parent[path[-1]])
        out[dst] = path[::-1]
    return out


def defence(state: AntiquityState, province: str) -> int | None:
    """The defence strength of the city in ``province`` (None: no city)."""
    owner = state.cities.get(province)
    if owner is None:
        return None
    return (3 if province in state.temples else 1) + units_at(state, owner, province) + (
        1 if state.has(owner, "monarchy") else 0)


def units_at(state: AntiquityState, nation: str, province: str) -> int:
    """The nation's units at ``province``: its legions there and its galleys on its
    coasts."""
    return state.count(province, nation) + sum(
        state.count(s, nation) for s in coasts(province, state.n))


def galleys_at(state: AntiquityState, nation: str, province: str) -> int:
    return sum(state.count(s, nation) for s in coasts(province, state.n))


def fresh_units(state: AntiquityState, nation: str, region: str) -> int:
    return state.count(region, nation) - state.moved.get(region, 0)


def _can_pay(state: AntiquityState, nation: str, cost: dict[str, int]) -> bool:
    return all(state.resources[nation][r] >= k for r, k in cost.items())


def found_problem(state: AntiquityState, nation: str, p: str) -> str | None:
    name = PROVINCES[p].name
    owner = state.cities.get(p)
    if owner is not None:
        whose = "your" if owner == nation else f"the {nation_name(owner)}'"
        return f"{name} already holds {whose} city {PROVINCES[p].city}."
    if not (state.count(p, nation) or galleys_at(state, nation, p)):
        return (f"You need a legion in {name} or a galley in a sea on its coast to found "
                "a city there.")
    blockers = state.others(p, nation)
    if blockers:
        return (f"The {nation_name(blockers[0])} have legions in {name}: no city can be "
                "founded there under their eyes.")
    if not state.stones(nation):
        return ("You have no city stone left (25 cities): `abandon` one of your cities "
                "first.")
    if not _can_pay(state, nation, C.FOUND_COST):
        return "Founding a city costs 1 marble, 1 iron and 1 gold."
    return None


def conquer_problem(state: AntiquityState, nation: str, p: str) -> str | None:
    """Why the city in ``p`` cannot be conquered at all (None: it can, with enough)."""
    name = PROVINCES[p].name
    owner = state.cities.get(p)
    if owner is None:
        return f"There is no city in {name} to conquer (`found` one)."
    if owner == nation:
        return f"{PROVINCES[p].city} in {name} is already your city."
    if state.city_count(owner) <= 1:
        return (f"{PROVINCES[p].city} is the {nation_name(owner)}' last city: a nation's "
                "last city cannot be conquered.")
    if not state.stones(nation):
        return ("You have no city stone left (25 cities): `abandon` one of your cities "
                "first.")
    strength = defence(state, p)
    assert strength is not None
    have = units_at(state, nation, p)
    if have < strength:
        return (f"{PROVINCES[p].city} has strength {strength}; you have "
                f"{counted(have, 'unit')} there.")
    return None


def conquer_range(state: AntiquityState, nation: str, p: str) -> range:
    """The legion counts ``conquer p <legions>`` accepts (the rest galleys)."""
    strength = defence(state, p) or 0
    legions = state.count(p, nation)
    galleys = galleys_at(state, nation, p)
    return range(max(0, strength - galleys), min(legions, strength) + 1)


@cache
def _next_door(src: str, n: int, deep_ok: bool) -> list[str]:
    """:func:`_destinations` with range 1 (a unit stops nowhere before its first step):
    the map alone decides it. Read it only."""
    return sorted((v for v in neighbours(src, n) if deep_ok or not SEAS[v].deep),
                  key=INDEX.__getitem__)


def _destinations(src: str, n: int, reach: int, deep_ok: bool,
                  stops: set[str]) -> list[str]:
    """The keys of :func:`reachable` (map order) without their paths, for units with
    range ``reach`` (``deep_ok``: galleys may enter deep seas; legions always may, as
    no province is a sea); ``stops`` are the regions where they must stop
    (:func:`_stops`, worked out once; with range 1 they play no part). Read it only."""
    if reach == 1:
        return _next_door(src, n, deep_ok)
    dist = {src: 0}
    queue = deque([src])
    while queue:
        u = queue.popleft()
        d = dist[u]
        if d >= reach or (u != src and u in stops):
            continue
        for v in neighbours(u, n):
            if v in dist or (not deep_ok and SEAS[v].deep):
                continue
            dist[v] = d + 1
            queue.append(v)
    del dist[src]
    return sorted(dist, key=INDEX.__getitem__)


#: "move 1 src dst", "move 2 src dst", ... by (src, dst): made once per pair of regions
#: (the map bounds them), not again in every Maneuver listing.
_MOVE_TEXTS: dict[tuple[str, str], list[str]] = {}


def _move_texts(src: str, dst: str, k: int) -> list[str]:
    """The texts of moving 1 to ``k`` units from ``src`` to ``dst``."""
    texts = _MOVE_TEXTS.get((src, dst))
    if texts is None or len(texts) < k:
        texts = _MOVE_TEXTS[src, dst] = [f"move {i} {src} {dst}"
                                         for i in range(1, max(k, 8) + 1)]
    return texts[:k]


@cache
def _shores(n: int) -> dict[str, tuple[str, ...]]:
    """Every sea's :func:`shore` with ``n`` players."""
    return {s: shore(s, n) for s in SEAS}


@cache
def _in_play(n: int) -> frozenset[str]:
    return frozenset((*provinces_in_play(n), *seas_in_play(n)))


def legal(state: AntiquityState, nation: str) -> list[str]:
    """Every maneuver ``nation`` may make now (``end`` aside), in the notation's spelling.

    The checks are those of :func:`found_problem`, :func:`conquer_problem` and
    :func:`reachable`, with what they share (city counts, the regions that stop a unit,
    where the nation has units) worked out once for the whole list."""
    n = state.n
    provinces = provinces_in_play(n)
    playing = _in_play(n)
    units = state.units
    cities = state.cities
    order = state.nations
    # One pass over the units: the regions (in play) holding the nation's units, the
    # regions where someone else's units stand (a unit must stop there, as in a province
    # with someone else's city), and the provinces where the nation has a unit in the
    # province or on its coast: founding and conquering need one (a city's defence is
    # at least 1).
    legion_reach = range_of(state, nation, True)
    galley_reach = range_of(state, nation, False)
    # with range 1 a unit stops nowhere before its first step: no stops to know
    far = legion_reach > 1 or galley_reach > 1
    own: list[str] = []
    stops = {p for p, owner in cities.items() if owner != nation} if far else set()
    present: set[str] = set()
    shores = _shores(n)
    for r, here in units.items():
        if here.get(nation, 0):
            if r in playing:
                own.append(r)
            if r in PROVINCES:
                present.add(r)
            else:
                present.update(shores[r])
        if far and (len(here) > 1 or nation not in here) and any(
                nat != nation and here.get(nat, 0) for nat in order):
            stops.add(r)
    own.sort(key=INDEX.__getitem__)  # map order: provinces, then seas
    out = []
    moved = state.moved
    deep_ok = state.has(nation, "navigation")
    for src in own:
        fresh = units[src][nation] - moved.get(src, 0)
        if fresh <= 0:
            continue
        legion = src in PROVINCES
        for dst in _destinations(src, n, legion_reach if legion else galley_reach,
                                 legion or deep_ok, stops):
            out += _move_texts(src, dst, fresh)
    for r in own:
        here = units[r]
        out += [f"fight {r} {o}" for o in order if o != nation and here.get(o, 0)]
    count: dict[str, int] = {}
    for owner in cities.values():
        count[owner] = count.get(owner, 0) + 1
    stones = C.STONES - count.get(nation, 0)
    near = [p for p in provinces if p in present]
    if stones and _can_pay(state, nation, C.FOUND_COST):
        none: dict[str, int] = {}
        for p in near:
            if p in cities:
                continue
            here = units.get(p, none)
            if not any(nat != nation and here.get(nat, 0) for nat in order):
                out.append(f"found {p}")
    if stones:
        for p in near:
            held = cities.get(p)
            if held is None or held == nation or count[held] <= 1:
                continue
            strength = defence(state, p)
            assert strength is not None
            if units_at(state, nation, p) >= strength:
                out += [f"conquer {p} {k}" for k in conquer_range(state, nation, p)]
    if not stones and count.get(nation, 0) > 1:
        out += [f"abandon {p}" for p in state.cities_of(nation)]
    return out


def move(state: AntiquityState, nation: str, action: Action,
         events: list[Event]) -> None:
    src, dst = action.args
    k = action.count
    n = state.n
    for r in (src, dst):
        if not in_play(r, n):
            raise IllegalAction(f"{region_name(r)} is not in play with {n} players.")
    if is_province(src) != is_province(dst):
        raise IllegalAction("Legions march over land and galleys sail the seas: "
                            f"{region_name(src)} and {region_name(dst)} are not both "
                            "provinces or both seas.")
    unit = "legion" if is_province(src) else "galley"
    have = state.count(src, nation)
    fresh = fresh_units(state, nation, src)
    if k > fresh:
        if not have:
            raise IllegalAction(f"You have no {unit}s in {region_name(src)}.")
        moved = state.moved.get(src, 0)
        detail = f" ({moved} already moved this action)" if moved else ""
        raise IllegalAction(f"You have only {counted(fresh, unit)} in {region_name(src)} "
                            f"that can move{detail}.")
    if src == dst:
        raise IllegalAction("Move to another region.")
    paths = reachable(state, nation, src)
    if dst not in paths:
        reach = range_of(state, nation, unit == "legion")
        extra = ""
        if unit == "galley" and SEAS[dst].deep and not state.has(nation, "navigation"):
            extra = f"; {SEAS[dst].name} is deep sea (Navigation only)"
        raise IllegalAction(f"{region_name(dst)} is out of reach of your {unit}s in "
                            f"{region_name(src)} (range {reach}; units stop where "
                            f"other nations' units or cities are{extra}).")
    state.add(src, nation, -k)
    state.add(dst, nation, k)
    state.moved[dst] = state.moved.get(dst, 0) + k
    events.append({"type": "move", "nation": nation, "player": state.player_of(nation),
                   "unit": unit, "count": k, "from": src, "to": dst,
                   "path": paths[dst]})


def found(state: AntiquityState, nation: str, p: str, events: list[Event]) -> None:
    problem = found_problem(state, nation, p)
    if problem:
        raise IllegalAction(problem)
    res = state.resources[nation]
    for r, k in C.FOUND_COST.items():
        res[r] -= k
    state.cities[p] = nation
    events.append({"type": "found", "nation": nation, "player": state.player_of(nation),
                   "province": p})


def abandon(state: AntiquityState, nation: str, p: str, events: list[Event]) -> None:
    if state.cities.get(p) != nation:
        raise IllegalAction(f"{PROVINCES[p].city} in {PROVINCES[p].name} is not your "
                            "city.")
    if state.stones(nation):
        raise IllegalAction(f"You still have {counted(state.stones(nation), 'city stone')}"
                            ": a city is abandoned only to free a stone when all 25 "
                            "are on the board.")
    if state.city_count(nation) <= 1:
        raise IllegalAction("You cannot abandon your last city.")
    temple = p in state.temples
    del state.cities[p]
    state.temples.discard(p)
    events.append({"type": "abandon", "nation": nation, "player": state.player_of(nation),
                   "province": p, "temple": temple})


def lose(state: AntiquityState, region: str, nation: str, k: int) -> None:
    """Remove ``k`` of ``nation``'s units in ``region`` (units that moved go first)."""
    if not k:
        return
    state.add(region, nation, -k)
    if nation == state.turn and region in state.moved:
        left = max(0, state.moved[region] - k)
        if left:
            state.moved[region] = left
        else:
            del state.moved[region]


def fight(state: AntiquityState, nation: str, action: Action,
          events: list[Event]) -> None:
    r, other = action.args
    n = state.n
    if not in_play(r, n):
        raise IllegalAction(f"{region_name(r)} is not in play with {n} players.")
    if other not in state.nations:
        raise IllegalAction(f"The {nation_name(other)} are not in this game.")
    if other == nation:
        raise IllegalAction("You cannot fight yourself.")
    unit = "legion" if is_province(r) else "galley"
    mine, theirs = state.count(r, nation), state.count(r, other)
    if not mine:
        raise IllegalAction(f"You have no {unit}s in {region_name(r)}.")
    if not theirs:
        raise IllegalAction(f"The {nation_name(other)} have no {unit}s in "
                            f"{region_name(r)}.")
    losses = min(mine, theirs)
    lose(state, r, nation, losses)
    lose(state, r, other, losses)
    events.append({"type": "fight", "nation": nation, "player": state.player_of(nation),
                   "other": other, "other_player": state.player_of(other), "region": r,
                   "unit": unit, "losses": losses})


def conquer(state: AntiquityState, nation: str, action: Action,
            events: list[Event]) -> bool:
    """Conquer the city ``action`` names; True if a temple fell with it (the rules award a
    General for that)."""
    p = action.args[0]
    legions = action.count
    problem = conquer_problem(state, nation, p)
    if problem:
        raise IllegalAction(problem)
    strength = defence(state, p)
    assert strength is not None
    allowed = conquer_range(state, nation, p)
    if legions not in allowed:
        have_l = state.count(p, nation)
        have_g = galleys_at(state, nation, p)
        raise IllegalAction(
            f"{PROVINCES[p].city} has strength {strength}: remove "
            f"{counted(strength, 'unit')}, "
            f"{allowed.start} to {allowed.stop - 1} of them legions (you have "
            f"{counted(have_l, 'legion')} in {PROVINCES[p].name} and "
            f"{counted(have_g, 'galley')} on its coast).")
    owner = state.cities[p]
    n = state.n
    lose(state, p, nation, legions)
    galleys: dict[str, int] = {}
    seas = coasts(p, n)
    for _ in range(strength - legions):
        s = max(seas, key=lambda x: state.count(x, nation))
        lose(state, s, nation, 1)
        galleys[s] = galleys.get(s, 0) + 1
    lost_l = state.count(p, owner)
    lose(state, p, owner, lost_l)
    lost_g: dict[str, int] = {}
    for s in seas:
        k = state.count(s, owner)
        if k:
            lose(state, s, owner, k)
            lost_g[s] = k
    temple = p in state.temples
    state.temples.discard(p)
    state.cities[p] = nation
    events.append({"type": "conquer", "nation": nation, "player": state.player_of(nation),
                   "defender": owner, "defender_player": state.player_of(owner),
                   "province": p, "strength": strength, "legions": legions,
                   "galleys": {s: galleys[s] for s in seas if s in galleys},
                   "temple": temple,
                   "defender_losses": {"legions": lost_l, "galleys": lost_g}})
    return temple

