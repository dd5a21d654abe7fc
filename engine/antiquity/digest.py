"""What Antiquity's automatic player sees: the public board digested once per decision.

:class:`Context` reads the state (everything in Antiquity is public; engine/antiquity/ai.py
reads nothing else) straight from its tables, not through view-shaped dicts, and answers
the questions the player's scoring asks again and again: where its units can get in one
move, which enemy cities can be conquered, how many units an enemy could bring to a city
next turn. The map's facts and distance tables behind it are computed once per player
count and cached.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Container, Iterable, Mapping
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
    neighbours,
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
    """The parts of :meth:`engine.antiquity.rules.Antiquity.view` the player's scoring
    reads (the same values under the same keys), built straight from the state: the full
    view spends most of its time on what only the board image and the bot show.

    Nations: id, out, resources, wheel, knowhow and the board counts. Provinces: id,
    resource, owner, temple, legions, coasts (a tuple), defence and moved. Seas: id,
    deep, galleys and moved. tests/test_antiquity_player_view.py holds it to the view;
    :class:`Context` reads the same facts from the state directly."""
    n = state.n
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
    moved = _moved(state)
    provinces = []
    for p, resource, shore_seas in _province_facts(n):
        here = units.get(p)
        provinces.append({
            "id": p, "resource": resource, "owner": cities.get(p), "temple": p in temples,
            "legions": {nat: here[nat] for nat in order if here.get(nat)} if here else {},
            "coasts": shore_seas, "defence": defence(state, p, shore_seas),
            "moved": moved.get(p, 0)})
    seas = []
    for s, deep in _sea_facts(n):
        here = units.get(s)
        seas.append({
            "id": s, "deep": deep,
            "galleys": {nat: here[nat] for nat in order if here.get(nat)} if here else {},
            "moved": moved.get(s, 0)})
    first = state.first
    return {
        "turn": None if state.over else state.turn, "phase": state.phase,
        "field": state.field, "wheel": WHEEL, "target": C.TARGET[n],
        "temples_left": C.TEMPLES - len(temples),
        "first_knowhow": {k: first[k] for k in KNOWHOW if k in first},
        "nations": nations, "provinces": provinces, "seas": seas}


_NONE: dict[str, int] = {}


def _moved(state: AntiquityState) -> Mapping[str, int]:
    """Units of the nation to act that already moved, by region (only in a Maneuver)."""
    return state.moved if state.phase == "action" and state.field in MANEUVERS else _NONE


def defence(state: AntiquityState, p: str, shore_seas: Iterable[str]) -> int | None:
    """A city's defence as maneuver.defence counts it (None: no city); ``shore_seas``:
    the seas in play on its coast."""
    owner = state.cities.get(p)
    if owner is None:
        return None
    units = state.units
    here = units.get(p)
    strength = (3 if p in state.temples else 1) + (here.get(owner, 0) if here else 0) + (
        1 if "monarchy" in state.knowhow[owner] else 0)
    for c in shore_seas:
        fleet = units.get(c)
        if fleet:
            strength += fleet.get(owner, 0)
    return strength


NearLists = dict[tuple[str, int], list[str]]


class _Static:
    """What a Context needs of the regions in play alone, made once per player count (the
    map does not change): the regions in map order, each province's resource and coast,
    the deep seas, the distance tables, each sea's shore, and the caches of :func:`_near`
    lists asked again and again. Read only."""

    def __init__(self, n: int) -> None:
        facts = _province_facts(n)
        sea_facts = _sea_facts(n)
        provinces = tuple(p for p, _, _ in facts)
        seas = tuple(s for s, _ in sea_facts)
        #: the regions in play, in map order (a Mapping, for distances' ``allowed``)
        self.provinces: dict[str, None] = dict.fromkeys(provinces)
        self.seas: dict[str, None] = dict.fromkeys(seas)
        self.resource = {p: r for p, r, _ in facts}
        #: the seas in play on each province's coast (the view's "coasts")
        self.coasts = {p: c for p, _, c in facts}
        #: the same, as lists (Context.coasts)
        self.coast_lists = {p: [s for s in c if s in self.seas] for p, _, c in facts}
        self.deep = frozenset(s for s, deep in sea_facts if deep)
        #: each region's neighbours of its kind in play, in map order
        self.next = {r: neighbours(r, n) for r in [*provinces, *seas]}
        self.order = {r: i for i, r in enumerate([*provinces, *seas])}
        self.land = _land_table(provinces)
        self.shore = _shores(provinces)
        self.sea_tables = {True: _sea_table(seas, True), False: _sea_table(seas, False)}
        self.land_near: NearLists = {}
        self.sea_near: dict[bool, NearLists] = {True: {}, False: {}}
        self.shores_near: dict[tuple[str, int, bool], tuple[str, ...]] = {}


@cache
def _static(n: int) -> _Static:
    return _Static(n)


@cache
def _first_steps(region: str, n: int, deep_ok: bool) -> dict[str, int]:
    """:meth:`Context.moves_from` with range 1 (shared: read it only)."""
    dist = {region: 0}
    for r in neighbours(region, n):
        if deep_ok or r not in SEAS or not SEAS[r].deep:
            dist[r] = 1
    return dist


def _near(known: NearLists, table: Table, region: str, limit: int) -> list[str]:
    """The regions at most ``limit`` steps from ``region`` in ``table``, in its order."""
    near = known.get((region, limit))
    if near is None:
        near = known[region, limit] = [q for q, d in table[region].items() if d <= limit]
    return near


class Context:
    """What the nation to act sees, read straight from the state (all of it public) and
    digested once per decision. The state is only read."""

    @classmethod
    def of_state(cls, state: AntiquityState) -> Context:
        """The Context of the nation to act."""
        return cls(state)

    def __init__(self, state: AntiquityState) -> None:
        nation = state.turn
        self.state = state
        self.nation = nation
        self.n = state.n
        static = _static(self.n)
        self.provinces = static.provinces
        self.seas = static.seas
        self.resource = static.resource
        self.order = static.order
        self.land = static.land
        self.shore = static.shore
        self.sea_tables = static.sea_tables
        self._land_near = static.land_near
        self._sea_near = static.sea_near
        self._shores_near = static.shores_near
        #: the seas in play on each province's coast (shared lists: read them only)
        self.coast_lists = self._coasts = static.coast_lists
        self._deep = static.deep
        self._next = static.next
        self._coast_tuples = static.coasts
        # the board, read only: province -> owner, temples, region -> nation -> count
        self.cities = state.cities
        self.temples = state.temples
        self.units = state.units
        self.moved = _moved(state)
        # the own cities (in the state's order: every reader sums, counts or tests them)
        # and the own units by region, read in most of the scoring loops
        self.mine = [p for p, owner in state.cities.items() if owner == nation]
        army: dict[str, int] = {}
        fleet: dict[str, int] = {}
        provinces = self.provinces
        for r, here in state.units.items():
            if nation in here and (k := here[nation]):
                if r in provinces:
                    army[r] = k
                else:
                    fleet[r] = k
        #: the own legions and galleys by region (regions without any left out)
        self.army = army
        self.fleet = fleet
        self.knowhow: set[str] = set(state.knowhow[nation])
        res = state.resources[nation]
        self.stock = {r: res[r] for r in RESOURCES}
        #: every nation's know-hows (short lists: tested in place)
        self.knowhow_of: Mapping[str, list[str]] = state.knowhow
        self.first = state.first
        self.temples_left = C.TEMPLES - len(state.temples)
        self.wheel_at = state.wheel[nation]
        self._power: dict[str, int] | None = None
        self._sites: list[str] | None = None
        self._goals: dict[str, int] | None = None
        self._targets: dict[str, int] | None = None
        self._target_sites: list[str] | None = None
        self._moves: dict[str, dict[str, int]] = {}
        self._shores_reached: dict[str, set[str]] = {}
        self._fleet_shores: set[str] | None = None
        self.cache: dict[str, Any] = {}
        #: the legions free to leave each province, by province (ai._spare_legions)
        self.spare: dict[str, int] = {}
        #: the stock after paying for n wheel steps, by n (ai._stock_after)
        self.stocks: dict[int, dict[str, int]] = {}
        self._production: dict[str, int] = {}
        self._temple_count: int | None = None
        self._defence: dict[str, int | None] = {}
        self._exposed: dict[str, int] = {}
        self._all_exposed = False
        self._free: dict[str, bool] = {}

    @property
    def temple_count(self) -> int:
        """The own cities with a temple."""
        if self._temple_count is None:
            temples = self.temples
            self._temple_count = sum(1 for p in self.mine if p in temples)
        return self._temple_count

    @property
    def stones(self) -> int:
        """City stones left in the own supply."""
        return C.STONES - len(self.mine)

    @property
    def legion_count(self) -> int:
        return sum(self.army.values())

    @property
    def galley_count(self) -> int:
        return sum(self.fleet.values())

    @property
    def sea_count(self) -> int:
        """Seas holding own galleys."""
        return len(self.fleet)

    def defence(self, pid: str) -> int | None:
        """The city's defence (None: no city), as maneuver.defence counts it (worked out
        once per city and decision)."""
        known = self._defence.get(pid, -1)
        if known != -1:
            return known
        owner = self.cities.get(pid)
        if owner is None:
            strength = None
        else:
            units = self.units
            here = units.get(pid)
            strength = (3 if pid in self.temples else 1) + (
                here.get(owner, 0) if here else 0) + (
                1 if "monarchy" in self.knowhow_of[owner] else 0)
            for c in self._coast_tuples[pid]:
                fleet = units.get(c)
                if fleet:
                    strength += fleet.get(owner, 0)
        self._defence[pid] = strength
        return strength

    def sea_table(self, nation: str) -> Table:
        return self.sea_tables["navigation" in self.knowhow_of[nation]]

    def land_near(self, pid: str, limit: int) -> list[str]:
        """Provinces at most ``limit`` land steps from ``pid`` (a shared list: read it
        only)."""
        return _near(self._land_near, self.land, pid, limit)

    def range_of(self, nation: str, legion: bool) -> int:
        k = self.knowhow_of[nation]
        if legion:
            return 1 + ("wheel" in k) + ("roads" in k)
        return 1 + ("sailing" in k) + ("navigation" in k)

    def production(self, resource: str) -> int:
        """What the resource's field would yield now (once per resource and decision)."""
        known = self._production.get(resource)
        if known is not None:
            return known
        temples, of = self.temples, self.resource
        amount = sum(C.TEMPLE_YIELD if p in temples else C.CITY_YIELD
                     for p in self.mine if of[p] == resource)
        if resource == "marble" and "democracy" in self.knowhow:
            amount += C.DEMOCRACY_BONUS
        if resource == "gold" and "currency" in self.knowhow:
            amount += C.CURRENCY_BONUS
        self._production[resource] = amount
        return amount

    def legions_at(self, province: str, nation: str | None = None) -> int:
        if not nation:
            return self.army.get(province, 0)
        here = self.units.get(province)
        return here.get(nation, 0) if here else 0

    def galleys_at(self, sea: str, nation: str | None = None) -> int:
        if not nation:
            return self.fleet.get(sea, 0)
        here = self.units.get(sea)
        return here.get(nation, 0) if here else 0

    def coasts(self, province: str) -> list[str]:
        """The seas in play on the province's coast (read it only)."""
        return self._coasts[province]

    def foreign_legions(self, province: str) -> int:
        here = self.units.get(province)
        if not here:
            return 0
        return sum(n for k, n in here.items() if k != self.nation)

    def units_at(self, province: str, nation: str | None = None) -> int:
        """Legions in the province and galleys on its coast."""
        who = nation or self.nation
        if who == self.nation:
            fleet = self.fleet
            return self.army.get(province, 0) + sum(
                fleet.get(s, 0) for s in self._coasts[province])
        return self.legions_at(province, who) + sum(
            self.galleys_at(s, who) for s in self._coasts[province])

    def empty_sites(self) -> list[str]:
        """City sites nobody holds and no other nation's legion blocks."""
        if self._sites is None:
            cities, units = self.cities, self.units
            self._sites = [pid for pid in self.provinces
                           if pid not in cities
                           and (pid not in units or not self.foreign_legions(pid))]
        return self._sites

    def target_sites(self) -> list[str]:
        """Enemy cities that may be conquered (their owner holds another), in map order
        (worked out once; the callers only read it)."""
        if self._target_sites is None:
            cities, nation = self.cities, self.nation
            cities_of: dict[str, int] = {}
            for held in cities.values():
                cities_of[held] = cities_of.get(held, 0) + 1
            sites = [pid for pid, owner in cities.items()
                     if owner != nation and cities_of[owner] > 1]
            sites.sort(key=self.order.__getitem__)
            self._target_sites = sites
        return self._target_sites

    def targets(self) -> dict[str, int]:
        """:meth:`target_sites` with their defence (worked out once; the callers only read
        it)."""
        if self._targets is None:
            defence = self.defence
            self._targets = {pid: defence(pid) or 0 for pid in self.target_sites()}
        return self._targets

    def power(self) -> dict[str, int]:
        """For every province, the most units one enemy could bring there next turn."""
        if self._power is None:
            best: dict[str, int] | None = None
            for enemy in self.state.active():
                if enemy == self.nation:
                    continue
                counts = self._reach_counts(enemy)
                if best is None:  # every count is positive: the first enemy's are the best
                    best = counts
                    continue
                for pid, n in counts.items():
                    if n > best.get(pid, 0):
                        best[pid] = n
            self._power = {} if best is None else best
        return self._power

    def _reach_counts(self, nation: str) -> dict[str, int]:
        out: dict[str, int] = {}
        legion_range = self.range_of(nation, True)
        galley_range = self.range_of(nation, False)
        navigation = "navigation" in self.knowhow_of[nation]
        provinces = self.provinces
        for r, here in self.units.items():
            n = here.get(nation, 0)
            if not n:
                continue
            if r in provinces:
                for q in self.land_near(r, legion_range):
                    out[q] = out.get(q, 0) + n
            else:
                for q in self._sea_shores(r, galley_range, navigation):
                    out[q] = out.get(q, 0) + n
        return out

    def _sea_shores(self, sea: str, limit: int, navigation: bool) -> tuple[str, ...]:
        """The provinces on the shore of every sea at most ``limit`` steps from ``sea``
        (deep seas only with Navigation): the map alone decides it, so it is kept with
        the map's tables (read it only)."""
        known = self._shores_near.get((sea, limit, navigation))
        if known is None:
            touched: dict[str, None] = {}
            for t in _near(self._sea_near[navigation], self.sea_tables[navigation], sea, limit):
                touched.update(dict.fromkeys(self.shore[t]))
            known = self._shores_near[sea, limit, navigation] = tuple(touched)
        return known

    def exposed(self, pid: str) -> int:
        """Units one of the own cities lacks to be safe next turn (0: safe)."""
        known = self._exposed.get(pid)
        if known is None:
            known = self._exposed[pid] = (
                self._lack(pid, self.power()) if len(self.mine) > 1 else 0)
        return known

    def exposures(self) -> Mapping[str, int]:
        """:meth:`exposed` of every own city (worked out once; read it only)."""
        if not self._all_exposed:
            known = self._exposed
            if len(self.mine) > 1:
                power = self.power()
                for pid in self.mine:
                    if pid not in known:
                        known[pid] = self._lack(pid, power)
            else:
                for pid in self.mine:
                    known[pid] = 0
            self._all_exposed = True
        return self._exposed

    def _lack(self, pid: str, power: Mapping[str, int]) -> int:
        """:meth:`exposed` with more than one own city."""
        threat = power.get(pid, 0)
        if not threat:  # a city's defence is at least 1: safe from no one
            return 0
        strength = self.defence(pid)
        return 0 if strength is None else max(0, threat - strength + 1)

    def free(self, region: str) -> bool:
        """May own units pass through ``region`` (no other nation's units, nor a legion
        through another nation's city)?"""
        known = self._free.get(region)
        if known is not None:
            return known
        here = self.units.get(region)
        free = not here or all(k == self.nation for k, n in here.items() if n)
        if region in self.provinces and self.cities.get(region) not in (None, self.nation):
            free = False
        self._free[region] = free
        return free

    def moves_from(self, region: str) -> dict[str, int]:
        """Where own units in ``region`` can get in one move, with the steps (stops
        included; a rough copy of the rules' movement)."""
        known = self._moves.get(region)
        if known is not None:
            return known
        legion = region in self.provinces
        graph = self._next
        limit = self.range_of(self.nation, legion)
        blocked = () if legion or "navigation" in self.knowhow else self._deep
        if limit == 1:  # the first step stops nowhere: the map alone decides it
            dist = _first_steps(region, self.n, blocked == ())
            self._moves[region] = dist
            return dist
        free = self.free
        dist = {region: 0}
        frontier = [region]
        for step in range(1, limit + 1):
            reached = []
            for r in frontier:
                if r != region and not free(r):
                    continue
                for n in graph[r]:
                    if n not in dist and n not in blocked:
                        dist[n] = step
                        reached.append(n)
            frontier = reached
        self._moves[region] = dist
        return dist

    def shores_reached(self, sea: str) -> set[str]:
        """The provinces on the shore of every sea own galleys in ``sea`` can get to in one
        move (worked out once per sea and decision; read it only)."""
        known = self._shores_reached.get(sea)
        if known is None:
            known = self._shores_reached[sea] = set()
            shore = self.shore
            for t in self.moves_from(sea):
                known.update(shore[t])
        return known

    def land_steps(self, sources: Iterable[str]) -> dict[str, int]:
        """:func:`distances` by land from ``sources`` over the provinces in play (the
        same steps), walking the map's in-play neighbour lists."""
        return self._steps(sources, self.provinces, ())

    def sea_steps(self, sources: Iterable[str]) -> dict[str, int]:
        """:func:`distances` by sea from ``sources`` over the seas in play, deep ones only
        with the own Navigation (the same steps)."""
        return self._steps(sources, self.seas,
                           () if "navigation" in self.knowhow else self._deep)

    def _steps(self, sources: Iterable[str], allowed: Mapping[str, Any],
               blocked: Container[str]) -> dict[str, int]:
        graph = self._next
        dist: dict[str, int] = {}
        frontier = []
        for s in sources:
            if s in allowed and s not in dist:
                dist[s] = 0
                frontier.append(s)
        step = 0
        while frontier:
            step += 1
            reached = []
            for r in frontier:
                for n in graph[r]:
                    if n not in dist and n not in blocked:
                        dist[n] = step
                        reached.append(n)
            frontier = reached
        return dist

    def fleet_shores(self) -> set[str]:
        """The provinces with an own galley on their coast (once per decision; read it
        only)."""
        if self._fleet_shores is None:
            shore = self.shore
            self._fleet_shores = {p for s in self.fleet for p in shore[s]}
        return self._fleet_shores

    def order_of(self, region: str) -> int:
        return self.order.get(region, FAR)
