"""What Antiquity's automatic player sees: the public view digested once per decision.

:class:`Context` wraps a nation's view (engine/antiquity/ai.py reads nothing else) and
answers the questions the player's scoring asks again and again: where its units can get
in one move, which enemy cities can be conquered, how many units an enemy could bring to a
city next turn. The map's distance tables behind it are computed once per set of regions
in play and cached.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from engine.antiquity import constants as C
from engine.antiquity.board import (
    LAND,
    PROVINCES,
    SEA_NEIGHBOURS,
    SEAS,
    SHORE,
    coasts,
    provinces_in_play,
    seas_in_play,
)
from engine.antiquity.state import KNOWHOW, MANEUVERS, WHEEL, AntiquityState

View = Mapping[str, Any]
RESOURCES = ("marble", "iron", "gold")
#: Steps to a region out of reach.
FAR = 99


def distances(sources: Iterable[str], graph: Mapping[str, Iterable[str]],
              allowed: Mapping[str, Any], ok: Callable[[str], bool] | None = None,
              limit: int = FAR) -> dict[str, int]:
    """Steps from every region of ``allowed`` to the nearest source (breadth first)."""
    dist: dict[str, int] = {}
    queue: deque[str] = deque()
    for s in sources:
        if s in allowed and s not in dist:
            dist[s] = 0
            queue.append(s)
    while queue:
        r = queue.popleft()
        if dist[r] >= limit:
            continue
        for n in graph.get(r, ()):
            if n in allowed and n not in dist and (ok is None or ok(n)):
                dist[n] = dist[r] + 1
                queue.append(n)
    return dist


Table = dict[str, dict[str, int]]


@cache
def _land_table(provinces: tuple[str, ...]) -> Table:
    """Land steps between every two provinces in play."""
    allowed = dict.fromkeys(provinces)
    return {p: distances([p], LAND, allowed) for p in provinces}


@cache
def _sea_table(seas: tuple[str, ...], navigation: bool) -> Table:
    """Sea steps between every two seas in play (deep seas only with Navigation)."""
    allowed = dict.fromkeys(seas)

    def ok(sea: str) -> bool:
        return navigation or not SEAS[sea].deep
    return {s: distances([s], SEA_NEIGHBOURS, allowed, ok) for s in seas}


@cache
def _shores(provinces: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """The provinces in play on each sea's shore."""
    inside = set(provinces)
    return {s: tuple(p for p in SHORE[s] if p in inside) for s in SHORE}


@cache
def _province_facts(n: int) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """Each province in play with ``n`` players: its id, resource and coast (in play)."""
    return tuple((p, PROVINCES[p].resource, coasts(p, n)) for p in provinces_in_play(n))


@cache
def _sea_facts(n: int) -> tuple[tuple[str, bool], ...]:
    """Each sea in play with ``n`` players, and whether it is deep."""
    return tuple((s, SEAS[s].deep) for s in seas_in_play(n))


def player_view(state: AntiquityState) -> dict[str, Any]:
    """The parts of :meth:`engine.antiquity.rules.Antiquity.view` the player reads (see
    :func:`_player_view`)."""
    return _player_view(state)[0]


def _player_view(state: AntiquityState) -> tuple[dict[str, Any], Regions]:
    """The parts of :meth:`engine.antiquity.rules.Antiquity.view` the player reads (the
    same values under the same keys), built straight from the state: the full view
    spends most of its time on what only the board image and the bot show.

    Nations: id, out, resources, wheel, knowhow and the board counts. Provinces: id,
    resource, owner, temple, legions, coasts (a tuple), defence and moved. Seas: id,
    deep, galleys and moved. tests/test_antiquity_player_view.py holds it to the view.

    With it, the regions indexed for the nation to act (what a :class:`Context` would
    work out from the view again), from the same loops."""
    n = state.n
    regions = Regions(state.turn)
    order = state.nations
    units = state.units
    cities = state.cities
    temples = state.temples
    knowhow = state.knowhow
    tallies = state.tallies()
    nations = []
    for nat in order:
        res = state.resources[nat]
        held, temple_count, legions, galleys, seas_held = tallies[nat]
        nations.append({
            "id": nat, "out": nat in state.out, "marble": res["marble"],
            "iron": res["iron"], "gold": res["gold"], "wheel": state.wheel[nat],
            "knowhow": list(knowhow[nat]), "cities": held, "temples": temple_count,
            "stones": C.STONES - held, "legions": legions, "galleys": galleys,
            "seas": seas_held})
    none: dict[str, int] = {}
    moved = state.moved if state.phase == "action" and state.field in MANEUVERS else none
    provinces = []
    for p, resource, shore_seas in _province_facts(n):
        owner = cities.get(p)
        here = units.get(p)
        strength = None
        if owner is not None:  # as maneuver.defence
            strength = (3 if p in temples else 1) + (here.get(owner, 0) if here else 0) + (
                1 if "monarchy" in knowhow[owner] else 0)
            for c in shore_seas:
                fleet = units.get(c)
                if fleet:
                    strength += fleet.get(owner, 0)
        entry = {
            "id": p, "resource": resource, "owner": owner, "temple": p in temples,
            "legions": {nat: here[nat] for nat in order if here.get(nat)} if here else {},
            "coasts": shore_seas, "defence": strength, "moved": moved.get(p, 0)}
        provinces.append(entry)
        regions.add_province(entry)
    seas = []
    for s, deep in _sea_facts(n):
        here = units.get(s)
        entry = {
            "id": s, "deep": deep,
            "galleys": {nat: here[nat] for nat in order if here.get(nat)} if here else {},
            "moved": moved.get(s, 0)}
        seas.append(entry)
        regions.add_sea(entry)
    first = state.first
    return {
        "turn": None if state.over else state.turn, "phase": state.phase,
        "field": state.field, "wheel": WHEEL, "target": C.TARGET[n],
        "temples_left": C.TEMPLES - len(temples),
        "first_knowhow": {k: first[k] for k in KNOWHOW if k in first},
        "nations": nations, "provinces": provinces, "seas": seas}, regions


class Regions:
    """A view's provinces and seas indexed for one nation: by id, its cities, every
    owner's city count and its own units in every region."""

    def __init__(self, nation: str) -> None:
        self.nation = nation
        self.provinces: dict[str, Mapping[str, Any]] = {}
        self.mine: list[Mapping[str, Any]] = []
        self.cities_of: dict[str, int] = {}
        self.army: dict[str, int] = {}
        self.seas: dict[str, Mapping[str, Any]] = {}
        self.fleet: dict[str, int] = {}

    @classmethod
    def of_view(cls, view: View, nation: str) -> Regions:
        regions = cls(nation)
        for p in view["provinces"]:
            regions.add_province(p)
        for sea in view["seas"]:
            regions.add_sea(sea)
        return regions

    def add_province(self, p: Mapping[str, Any]) -> None:
        pid = p["id"]
        self.provinces[pid] = p
        owner = p["owner"]
        if owner == self.nation:
            self.mine.append(p)
        if owner:
            self.cities_of[owner] = self.cities_of.get(owner, 0) + 1
        self.army[pid] = int(p["legions"].get(self.nation, 0))

    def add_sea(self, sea: Mapping[str, Any]) -> None:
        sid = sea["id"]
        self.seas[sid] = sea
        self.fleet[sid] = int(sea["galleys"].get(self.nation, 0))


NearLists = dict[tuple[str, int], list[str]]


class _Static:
    """What a Context needs of the regions in play alone, made once per set of them (the
    map does not change): map order, the distance tables, each sea's shore, and the
    caches of :func:`_near` lists asked again and again. Read only."""

    def __init__(self, provinces: tuple[str, ...], seas: tuple[str, ...]) -> None:
        self.order = {r: i for i, r in enumerate([*provinces, *seas])}
        self.land = _land_table(provinces)
        self.shore = _shores(provinces)
        self.sea_tables = {True: _sea_table(seas, True), False: _sea_table(seas, False)}
        self.land_near: NearLists = {}
        self.sea_near: dict[bool, NearLists] = {True: {}, False: {}}


@cache
def _static(provinces: tuple[str, ...], seas: tuple[str, ...]) -> _Static:
    return _Static(provinces, seas)


def _near(known: NearLists, table: Table, region: str, limit: int) -> list[str]:
    """The regions at most ``limit`` steps from ``region`` in ``table``, in its order."""
    near = known.get((region, limit))
    if near is None:
        near = known[region, limit] = [q for q, d in table[region].items() if d <= limit]
    return near


class Context:
    """The view digested once per call."""

    @classmethod
    def of_state(cls, state: AntiquityState) -> Context:
        """The Context of the nation to act, from :func:`player_view` (the regions
        indexed in the same loops that build it)."""
        view, regions = _player_view(state)
        me = next(n for n in view["nations"] if n["id"] == view["turn"])
        return cls(view, me, regions)

    def __init__(self, view: View, me: Mapping[str, Any],
                 regions: Regions | None = None) -> None:
        """``regions``: the view's regions already indexed for ``me`` (else done here)."""
        self.view = view
        self.me = me
        nation: str = me["id"]
        self.nation = nation
        if regions is None or regions.nation != nation:
            regions = Regions.of_view(view, nation)
        # by id, the own cities, everyone's city count and the own units of every region
        # (read in most of the scoring loops)
        self.provinces = regions.provinces
        self.mine = regions.mine
        self.cities_of = regions.cities_of
        self.army = regions.army
        self.seas = regions.seas
        self.fleet = regions.fleet
        key = tuple(self.provinces)
        seas = tuple(self.seas)
        static = _static(key, seas)
        self.order = static.order
        self.knowhow: set[str] = set(me["knowhow"])
        self.stock = {r: int(me[r]) for r in RESOURCES}
        self.knowhow_of = {n["id"]: set(n["knowhow"]) for n in view["nations"]}
        self.active = [n["id"] for n in view["nations"] if not n["out"]]
        self.target: int = int(view["target"])
        self._power: dict[str, int] | None = None
        self._sites: list[str] | None = None
        self._goals: dict[str, int] | None = None
        self._targets: dict[str, int] | None = None
        self._moves: dict[str, dict[str, int]] = {}
        self.cache: dict[str, Any] = {}
        self.land = static.land
        self.shore = static.shore
        self.sea_tables = static.sea_tables
        self._land_near = static.land_near
        self._sea_near = static.sea_near
        self._coasts: dict[str, list[str]] = {}
        self._exposed: dict[str, int] = {}
        self._free: dict[str, bool] = {}

    def sea_table(self, nation: str) -> Table:
        return self.sea_tables["navigation" in self.knowhow_of[nation]]

    def land_near(self, pid: str, limit: int) -> list[str]:
        """Provinces at most ``limit`` land steps from ``pid`` (a shared list: read it
        only)."""
        return _near(self._land_near, self.land, pid, limit)

    def sea_near(self, nation: str, sea: str, limit: int) -> list[str]:
        """Seas at most ``limit`` steps from ``sea`` for ``nation`` (read it only)."""
        navigation = "navigation" in self.knowhow_of[nation]
        return _near(self._sea_near[navigation], self.sea_tables[navigation], sea, limit)

    def range_of(self, nation: str, legion: bool) -> int:
        k = self.knowhow_of[nation]
        if legion:
            return 1 + ("wheel" in k) + ("roads" in k)
        return 1 + ("sailing" in k) + ("navigation" in k)

    def production(self, resource: str) -> int:
        amount = sum(C.TEMPLE_YIELD if p["temple"] else C.CITY_YIELD
                     for p in self.mine if p["resource"] == resource)
        if resource == "marble" and "democracy" in self.knowhow:
            amount += C.DEMOCRACY_BONUS
        if resource == "gold" and "currency" in self.knowhow:
            amount += C.CURRENCY_BONUS
        return amount

    def legions_at(self, province: str, nation: str | None = None) -> int:
        if not nation:
            return self.army[province]
        return int(self.provinces[province]["legions"].get(nation, 0))

    def galleys_at(self, sea: str, nation: str | None = None) -> int:
        if not nation:
            return self.fleet[sea]
        return int(self.seas[sea]["galleys"].get(nation, 0))

    def coasts(self, province: str) -> list[str]:
        """The seas in play on the province's coast (read it only)."""
        known = self._coasts.get(province)
        if known is None:
            known = self._coasts[province] = [
                s for s in self.provinces[province]["coasts"] if s in self.seas]
        return known

    def foreign_legions(self, province: str) -> int:
        return sum(int(n) for k, n in self.provinces[province]["legions"].items()
                   if k != self.nation)

    def units_at(self, province: str, nation: str | None = None) -> int:
        """Legions in the province and galleys on its coast."""
        who = nation or self.nation
        if who == self.nation:
            fleet = self.fleet
            return self.army[province] + sum(fleet[s] for s in self.coasts(province))
        return self.legions_at(province, who) + sum(
            self.galleys_at(s, who) for s in self.coasts(province))

    def empty_sites(self) -> list[str]:
        """City sites nobody holds and no other nation's legion blocks."""
        if self._sites is None:
            self._sites = [pid for pid, p in self.provinces.items()
                           if p["owner"] is None
                           and (not p["legions"] or not self.foreign_legions(pid))]
        return self._sites

    def targets(self) -> dict[str, int]:
        """Enemy cities that may be conquered, with their defence (worked out once; the
        callers only read it)."""
        if self._targets is not None:
            return self._targets
        out = {}
        for pid, p in self.provinces.items():
            owner = p["owner"]
            if owner in (None, self.nation) or self.cities_of.get(owner, 0) <= 1:
                continue
            if p.get("defence") is not None:
                out[pid] = int(p["defence"])
        self._targets = out
        return out

    def sea_ok(self, nation: str) -> Callable[[str], bool]:
        navigation = "navigation" in self.knowhow_of[nation]
        return lambda sea: navigation or not self.seas[sea]["deep"]

    def power(self) -> dict[str, int]:
        """For every province, the most units one enemy could bring there next turn."""
        if self._power is None:
            best: dict[str, int] = {}
            for enemy in self.active:
                if enemy == self.nation:
                    continue
                for pid, n in self._reach_counts(enemy).items():
                    if n > best.get(pid, 0):
                        best[pid] = n
            self._power = best
        return self._power

    def _reach_counts(self, nation: str) -> dict[str, int]:
        out: dict[str, int] = {}
        legion_range = self.range_of(nation, True)
        for pid, p in self.provinces.items():
            n = int(p["legions"].get(nation, 0))
            if n:
                for q in self.land_near(pid, legion_range):
                    out[q] = out.get(q, 0) + n
        galley_range = self.range_of(nation, False)
        for sid, s in self.seas.items():
            n = int(s["galleys"].get(nation, 0))
            if n:
                touched: set[str] = set()
                for t in self.sea_near(nation, sid, galley_range):
                    touched.update(self.shore[t])
                for q in touched:
                    out[q] = out.get(q, 0) + n
        return out

    def exposed(self, pid: str) -> int:
        """Units one of the own cities lacks to be safe next turn (0: safe)."""
        known = self._exposed.get(pid)
        if known is not None:
            return known
        p = self.provinces[pid]
        if len(self.mine) <= 1 or p.get("defence") is None:
            lack = 0
        else:
            lack = max(0, self.power().get(pid, 0) - int(p["defence"]) + 1)
        self._exposed[pid] = lack
        return lack

    def free(self, region: str) -> bool:
        """May own units pass through ``region`` (no other nation's units, nor a legion
        through another nation's city)?"""
        known = self._free.get(region)
        if known is not None:
            return known
        if region in self.provinces:
            p = self.provinces[region]
            free = (p["owner"] in (None, self.nation)
                    and all(k == self.nation for k, n in p["legions"].items() if n))
        else:
            free = all(k == self.nation for k, n in self.seas[region]["galleys"].items() if n)
        self._free[region] = free
        return free

    def moves_from(self, region: str) -> dict[str, int]:
        """Where own units in ``region`` can get in one move, with the steps (stops
        included; a rough copy of the rules' movement)."""
        if region in self._moves:
            return self._moves[region]
        legion = region in self.provinces
        graph = LAND if legion else SEA_NEIGHBOURS
        allowed: Mapping[str, Any] = self.provinces if legion else self.seas
        limit = self.range_of(self.nation, legion)
        navigation = "navigation" in self.knowhow
        dist = {region: 0}
        queue: deque[str] = deque([region])
        while queue:
            r = queue.popleft()
            if dist[r] >= limit or (r != region and not self.free(r)):
                continue
            for n in graph.get(r, ()):
                if n in allowed and n not in dist and (
                        legion or navigation or not self.seas[n]["deep"]):
                    dist[n] = dist[r] + 1
                    queue.append(n)
        self._moves[region] = dist
        return dist

    def order_of(self, region: str) -> int:
        return self.order.get(region, FAR)
