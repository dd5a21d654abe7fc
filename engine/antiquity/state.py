"""Antiquity's state and its position format.

The position format is JSON text, the server's storage and also meant to be written by hand
(tests do): every field is optional and takes a fresh game's default, and anything wrong is
refused with a message that says what and where. Everything in Antiquity is public.

    {
      "format": "warhost.antiquity/1",
      "players": ["a", "b", "c"],          # seat order (default p1, p2, ... one per nation)
      "nations": ["greeks", "romans", "carthaginians"],
                                           # each seat's nation: with n seats, the first n
                                           # of the nation order, in any order (default:
                                           # that order)
      "rounds": 60,                        # the round limit (default ROUNDS)
      "round": 1,
      "turn": "greeks",                    # the nation whose turn it is (default seat 1's)
      "phase": "wheel",                    # wheel | action | over
      "field": null,                       # in phase action: the field taken (never a
                                           # production field: production ends the turn)
      "cities": {"attica": "greeks"},      # province -> owner (default: every nation's
                                           # 3 home cities)
      "temples": ["attica"],               # provinces whose city has a temple (default none)
      "legions": {"attica": {"greeks": 2}},  # province -> nation -> count (default: one
                                           # legion in each home province)
      "galleys": {"aegaeum": {"greeks": 1}},  # sea -> nation -> count (default none)
      "resources": {"greeks": {"marble": 1, "iron": 1, "gold": 2}},
                                           # default START, plus SEAT_GOLD gold per seat
                                           # after the first; a missing resource: its default
      "knowhow": {"greeks": ["monarchy"]}, # default none (Roads needs Wheel, Navigation
                                           # needs Sailing)
      "first": {"monarchy": "greeks"},     # who bought each know-how first (default: for a
                                           # know-how someone holds, the first such nation in
                                           # seat order)
      "wheel": {"greeks": "marble"},       # marker positions (default null: not placed yet)
      "personalities": {"greeks": {"king": 0, "citizen": 0, "scholar": 1,
                                   "navigator": 0, "general": 0}},   # default 0
      "moved": {"aegaeum": 1},             # in a Maneuver: units of the nation to act that
                                           # already moved, by region (default none)
      "out": ["romans"],                   # nations that resigned, in order (default none)
      "winners": null,                     # phase over: the winning nations
      "result": null                       # phase over: target | rounds | resigned
    }

Checks: ids are known (`unknown region 'atlantis'`), regions and nations are in play for the
player count (Syria joins at 5 players), counts are whole numbers within the limits (15
legions, 12 galleys, 25 city stones per nation, a bank of 15 temples), a temple stands in a
city, know-hows are held once with their prerequisites, and the phase agrees with the field.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from engine.antiquity import constants as C
from engine.antiquity.board import (
    INDEX,
    NATION_ORDER,
    NATIONS,
    PROVINCES,
    RESOURCES,
    SEAS,
    in_play,
    is_province,
    provinces_in_play,
    region_players,
    seas_in_play,
)
from engine.core import Dice, bounded, json_object, parse_position, position_fields

FORMAT = "warhost.antiquity/1"
PHASES = ("wheel", "action", "over")
RESULTS = ("target", "rounds", "resigned")

#: The action wheel, clockwise.
WHEEL = ("marble", "temple", "maneuver1", "knowhow", "gold", "iron", "arming", "maneuver2")
FIELD_NAMES = {"marble": "Marble", "temple": "Temple", "maneuver1": "Maneuver I",
               "knowhow": "Know-how", "gold": "Gold", "iron": "Iron", "arming": "Arming",
               "maneuver2": "Maneuver II"}
PRODUCTION = ("marble", "iron", "gold")
MANEUVERS = ("maneuver1", "maneuver2")

KNOWHOW = ("wheel", "roads", "sailing", "navigation", "currency", "monarchy", "democracy",
           "philosophy")
KNOWHOW_NAMES = {k: k.capitalize() for k in KNOWHOW}
KNOWHOW_EFFECTS = {
    "wheel": "+1 legion range", "roads": "+1 legion range", "sailing": "+1 galley range",
    "navigation": "+1 galley range, deep seas", "currency": f"+{C.CURRENCY_BONUS} gold on Gold",
    "monarchy": "+1 city defence", "democracy": f"+{C.DEMOCRACY_BONUS} marble on Marble",
    "philosophy": "one more Scholar"}
NEEDS = {"roads": "wheel", "navigation": "sailing"}

PERSONALITIES = ("king", "citizen", "scholar", "navigator", "general")

MAX_RESOURCE = 9999
MAX_ROUNDS = 999
MAX_POINTS = 99


@dataclass(frozen=True)
class Seat:
    """A seat as the platform's shared helpers see it."""

    id: str
    nation: str
    out: bool = False


def _zero_resources() -> dict[str, int]:
    return dict.fromkeys(RESOURCES, 0)


@dataclass
class AntiquityState:
    players: list[str]
    nations: list[str]                    # each seat's nation, seat order
    rounds: int
    round: int
    turn: str                             # a nation
    phase: str
    field: str | None
    cities: dict[str, str]                # province -> nation
    temples: set[str]                     # provinces
    units: dict[str, dict[str, int]]      # region -> nation -> count (no zeros)
    resources: dict[str, dict[str, int]]  # nation -> resource -> count
    knowhow: dict[str, list[str]]         # nation -> know-hows, in KNOWHOW order
    first: dict[str, str]                 # know-how -> nation that bought it first
    wheel: dict[str, str | None]          # nation -> field
    personalities: dict[str, dict[str, int]]
    #: region -> units of the nation to act that already moved in this Maneuver
    moved: dict[str, int] = dataclasses.field(default_factory=dict)
    out: list[str] = dataclasses.field(default_factory=list)         # nations, in resigning order
    winners: list[str] | None = None                     # nations
    result: str | None = None

    def copy(self) -> AntiquityState:
        # every field set directly (no __init__): a copy is made for every move applied
        new = object.__new__(AntiquityState)
        new.__dict__.update(
            players=self.players.copy(), nations=self.nations.copy(), rounds=self.rounds,
            round=self.round, turn=self.turn, phase=self.phase, field=self.field,
            cities=self.cities.copy(), temples=self.temples.copy(),
            units={r: v.copy() for r, v in self.units.items()},
            resources={n: v.copy() for n, v in self.resources.items()},
            knowhow={n: v.copy() for n, v in self.knowhow.items()}, first=self.first.copy(),
            wheel=self.wheel.copy(),
            personalities={n: v.copy() for n, v in self.personalities.items()},
            moved=self.moved.copy(), out=self.out.copy(),
            winners=None if self.winners is None else self.winners.copy(),
            result=self.result)
        return new

    def fork(self) -> AntiquityState:
        """A copy for a move to change (apply makes one for every move): as :meth:`copy`,
        but each region's unit counts, each nation's personalities and know-hows are shared
        with this state, as only :meth:`add`, :meth:`award` and a new know-how list (rules'
        _learn) change them, and they replace them rather than write into them."""
        new = object.__new__(AntiquityState)
        new.__dict__.update(
            players=self.players.copy(), nations=self.nations.copy(), rounds=self.rounds,
            round=self.round, turn=self.turn, phase=self.phase, field=self.field,
            cities=self.cities.copy(), temples=self.temples.copy(),
            units=self.units.copy(),
            resources={n: v.copy() for n, v in self.resources.items()},
            knowhow=self.knowhow.copy(), first=self.first.copy(),
            wheel=self.wheel.copy(), personalities=self.personalities.copy(),
            moved=self.moved.copy(), out=self.out.copy(),
            winners=None if self.winners is None else self.winners.copy(),
            result=self.result)
        return new

    # -- who -------------------------------------------------------------------------

    @property
    def dice(self) -> Dice:
        """Antiquity rolls no dice (the deal at set-up is the only chance): an idle
        generator, so the platform's checks of what chance decided see nothing move."""
        return Dice(0)

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def seats(self) -> list[Seat]:
        return [Seat(p, nat, nat in self.out)
                for p, nat in zip(self.players, self.nations, strict=True)]

    def player_of(self, nation: str) -> str:
        return self.players[self.nations.index(nation)]

    def nation_of(self, player: object) -> str | None:
        if isinstance(player, str) and player in self.players:
            return self.nations[self.players.index(player)]
        return None

    def seat_of(self, nation: str) -> int:
        return self.nations.index(nation)

    def active(self) -> list[str]:
        """Nations still playing, in seat order."""
        return [nat for nat in self.nations if nat not in self.out]

    # -- the board -------------------------------------------------------------------

    def count(self, region: str, nation: str) -> int:
        return self.units.get(region, {}).get(nation, 0)

    def add(self, region: str, nation: str, k: int) -> None:
        # a new dict for the region, never written into: a fork shares the old one
        here = dict(self.units.get(region, ()))
        total = here.get(nation, 0) + k
        if total < 0:
            raise AssertionError(f"negative units of {nation} in {region}")
        if total:
            here[nation] = total
        else:
            here.pop(nation, None)
        if here:
            self.units[region] = here
        else:
            self.units.pop(region, None)

    def award(self, nation: str, kind: str, count: int) -> None:
        """Set the nation's count of a personality (a new dict: a fork shares the old)."""
        held = dict(self.personalities[nation])
        held[kind] = count
        self.personalities[nation] = held

    def others(self, region: str, nation: str) -> list[str]:
        """Other nations with units in ``region`` (seat order)."""
        here = self.units.get(region, {})
        return [nat for nat in self.nations if nat != nation and here.get(nat, 0)]

    def cities_of(self, nation: str) -> list[str]:
        return [p for p in provinces_in_play(self.n) if self.cities.get(p) == nation]

    def city_count(self, nation: str) -> int:
        return sum(1 for owner in self.cities.values() if owner == nation)

    def temple_count(self, nation: str) -> int:
        return sum(1 for p in self.temples if self.cities.get(p) == nation)

    def stones(self, nation: str) -> int:
        """City stones still in the nation's supply."""
        return C.STONES - self.city_count(nation)

    def temples_left(self) -> int:
        return C.TEMPLES - len(self.temples)

    def legions_of(self, nation: str) -> int:
        return sum(v.get(nation, 0) for r, v in self.units.items() if is_province(r))

    def galleys_of(self, nation: str) -> int:
        return sum(v.get(nation, 0) for r, v in self.units.items() if not is_province(r))

    def seas_of(self, nation: str) -> int:
        """Different seas holding the nation's galleys."""
        return sum(1 for r, v in self.units.items() if not is_province(r) and v.get(nation))

    def tallies(self, legions: bool = True) -> dict[str, list[int]]:
        """Every nation's [cities, temples, legions, galleys, seas] in one pass over the
        board: what city_count, temple_count, legions_of, galleys_of and seas_of give one
        nation at a time (a view or the personality check needs all of them). Without
        ``legions`` the legions are left at 0 (the provinces' units are not read)."""
        out = {nat: [0, 0, 0, 0, 0] for nat in self.nations}
        for owner in self.cities.values():
            if owner in out:
                out[owner][0] += 1
        cities = self.cities
        for p in self.temples:
            holder = cities.get(p)
            if holder is not None and holder in out:
                out[holder][1] += 1
        for r, here in self.units.items():
            if r in PROVINCES:
                if not legions:
                    continue
                for nat, k in here.items():
                    if nat in out:
                        out[nat][2] += k
            else:
                for nat, k in here.items():
                    if nat in out:
                        out[nat][3] += k
                        if k:
                            out[nat][4] += 1
        return out

    def points(self, nation: str) -> int:
        return sum(self.personalities[nation].values())

    def has(self, nation: str, knowhow: str) -> bool:
        return knowhow in self.knowhow[nation]

    def total_resources(self, nation: str) -> int:
        return sum(self.resources[nation].values())


def start_resources(seat: int) -> dict[str, int]:
    out = {r: C.START.get(r, 0) for r in RESOURCES}
    out["gold"] += seat * C.SEAT_GOLD
    return out


def fresh(players: list[str], nations: list[str], rounds: int) -> AntiquityState:
    """The start of a game: every nation's home cities and legions, START resources."""
    cities = {h: nat for nat in nations for h in NATIONS[nat].home}
    units: dict[str, dict[str, int]] = {}
    for nat in nations:
        for h in NATIONS[nat].home:
            units.setdefault(h, {})[nat] = 1
    return AntiquityState(
        players=list(players), nations=list(nations), rounds=rounds, round=1,
        turn=nations[0], phase="wheel", field=None,
        cities={p: cities[p] for p in sorted(cities, key=INDEX.__getitem__)}, temples=set(),
        units=units, resources={nat: start_resources(i) for i, nat in enumerate(nations)},
        knowhow={nat: [] for nat in nations}, first={}, wheel=dict.fromkeys(nations),
        personalities={nat: dict.fromkeys(PERSONALITIES, 0) for nat in nations})


# -- the position format ---------------------------------------------------------------

def _by_map(d: dict[str, Any]) -> list[str]:
    return sorted(d, key=INDEX.__getitem__)


def dump(state: AntiquityState) -> str:
    order = state.nations

    def units(provinces: bool) -> dict[str, dict[str, int]]:
        out = {}
        for r in _by_map(state.units):
            if is_province(r) == provinces:
                here = state.units[r]
                out[r] = {nat: here[nat] for nat in order if here.get(nat)}
        return out

    data: dict[str, Any] = {
        "format": FORMAT,
        "players": list(state.players),
        "nations": list(state.nations),
        "rounds": state.rounds,
        "round": state.round,
        "turn": state.turn,
        "phase": state.phase,
        "field": state.field,
        "cities": {p: state.cities[p] for p in _by_map(state.cities)},
        "temples": _by_map(dict.fromkeys(state.temples)),
        "legions": units(True),
        "galleys": units(False),
        "resources": {nat: {r: state.resources[nat][r] for r in RESOURCES} for nat in order},
        "knowhow": {nat: list(state.knowhow[nat]) for nat in order},
        "first": {k: state.first[k] for k in KNOWHOW if k in state.first},
        "wheel": {nat: state.wheel[nat] for nat in order},
        "personalities": {nat: {k: state.personalities[nat][k] for k in PERSONALITIES}
                          for nat in order},
        "moved": {r: state.moved[r] for r in _by_map(state.moved) if state.moved[r]},
        "out": list(state.out),
        "winners": None if state.winners is None else list(state.winners),
        "result": state.result,
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def load(text: str) -> AntiquityState:
    """Parse and check a position; any problem raises :class:`IllegalAction`."""
    return parse_position(text, "Antiquity", _load)


FIELDS = ("format", "players", "nations", "rounds", "round", "turn", "phase", "field",
          "cities", "temples", "legions", "galleys", "resources", "knowhow", "first", "wheel",
          "personalities", "moved", "out", "winners", "result")


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{where} must be a list")
    return value


def _nation(value: Any, nations: list[str], where: str) -> str:
    if not isinstance(value, str) or value not in NATIONS:
        raise ValueError(f"{where}: unknown nation {value!r} (nations: "
                         f"{', '.join(NATION_ORDER)})")
    if value not in nations:
        raise ValueError(f"{where}: the {NATIONS[value].name} do not play in a "
                         f"{len(nations)}-player game (nations: {', '.join(nations)})")
    return value


def _region(value: Any, n: int, where: str, kind: str = "region") -> str:
    known = PROVINCES if kind == "province" else SEAS if kind == "sea" else INDEX
    if not isinstance(value, str) or value not in known:
        what = "region" if kind == "region" else kind
        if isinstance(value, str) and value in INDEX:
            other = "sea" if kind == "province" else "province"
            raise ValueError(f"{where}: {value!r} is a {other}, not a {what}")
        raise ValueError(f"{where}: unknown {what} {value!r}")
    if not in_play(value, n):
        raise ValueError(f"{where}: {value} is not in play with {n} players (it joins at "
                         f"{region_players(value)})")
    return value


def _field(value: Any, where: str) -> str:
    if value not in WHEEL:
        raise ValueError(f"{where}: {value!r} is not a wheel field ({', '.join(WHEEL)})")
    return str(value)


def _counts(data: dict[str, Any], key: str, nations: list[str], known: tuple[str, ...],
            what: str, high: int, into: dict[str, dict[str, int]]) -> None:
    """Read ``key``, nation -> name -> count (each name one of ``known``, each count from 0
    to ``high``), into ``into``."""
    raw = json_object(data.get(key, {}), key)
    for nat, counts in raw.items():
        _nation(nat, nations, key)
        for name, k in json_object(counts, f"{key}.{nat}").items():
            if name not in known:
                raise ValueError(f"{key}.{nat}: unknown {what} {name!r} "
                                 f"({', '.join(known)})")
            into[nat][name] = bounded(k, 0, high, f"{key}.{nat}.{name}")


def _load(text: str) -> AntiquityState:
    data = position_fields(text, FORMAT, FIELDS)

    # seats
    if "nations" in data:
        nations = _list(data["nations"], "nations")
        if not 2 <= len(nations) <= len(NATION_ORDER):
            raise ValueError(f"nations: 2 to {len(NATION_ORDER)} nations, not {len(nations)}")
    else:
        raw_players = data.get("players", ["p1", "p2"])
        count = len(raw_players) if isinstance(raw_players, list) else 2
        nations = list(NATION_ORDER[:max(2, min(count, len(NATION_ORDER)))])
    n = len(nations)
    playing = list(NATION_ORDER[:n])
    for i, nat in enumerate(nations):
        _nation(nat, playing, f"nations[{i}]")
    if len(set(nations)) != n:
        raise ValueError("nations: a nation can take only one seat")
    players = _list(data.get("players", [f"p{i + 1}" for i in range(n)]), "players")
    if len(players) != n:
        raise ValueError(f"players: {len(players)} players for {n} nations")
    if not all(isinstance(p, str) and p for p in players):
        raise ValueError("players must be non-empty strings")
    if len(set(players)) != n:
        raise ValueError("players: a player cannot take two seats")

    state = fresh(list(players), list(nations), C.ROUNDS)
    state.rounds = bounded(data.get("rounds", C.ROUNDS), 1, MAX_ROUNDS, "rounds")
    state.round = bounded(data.get("round", 1), 1, state.rounds, "round")

    # cities and temples
    if "cities" in data:
        state.cities = {}
        for p, owner in json_object(data["cities"], "cities").items():
            _region(p, n, "cities", "province")
            state.cities[p] = _nation(owner, nations, f"cities.{p}")
        state.cities = {p: state.cities[p] for p in _by_map(state.cities)}
    for nat in nations:
        if state.city_count(nat) > C.STONES:
            raise ValueError(f"cities: the {NATIONS[nat].name} own {state.city_count(nat)} "
                             f"cities but have only {C.STONES} city stones")
    temples = _list(data.get("temples", []), "temples")
    for i, p in enumerate(temples):
        _region(p, n, f"temples[{i}]", "province")
        if p not in state.cities:
            raise ValueError(f"temples[{i}]: {p} has no city to hold a temple")
    if len(set(temples)) != len(temples):
        raise ValueError("temples: a city holds one temple at most")
    if len(temples) > C.TEMPLES:
        raise ValueError(f"temples: {len(temples)} temples, the bank has only {C.TEMPLES}")
    state.temples = set(temples)

    # units
    units: dict[str, dict[str, int]] = {}
    for key, kind, limit in (("legions", "province", C.LEGIONS), ("galleys", "sea", C.GALLEYS)):
        if key not in data:
            units.update({r: v for r, v in state.units.items()
                          if is_province(r) == (kind == "province")})
            continue
        for r, here in json_object(data[key], key).items():
            _region(r, n, key, kind)
            for nat, k in json_object(here, f"{key}.{r}").items():
                _nation(nat, nations, f"{key}.{r}")
                if bounded(k, 0, limit, f"{key}.{r}.{nat}"):
                    units.setdefault(r, {})[nat] = k
    state.units = units
    for nat in nations:
        for what, have, limit in (("legions", state.legions_of(nat), C.LEGIONS),
                                  ("galleys", state.galleys_of(nat), C.GALLEYS)):
            if have > limit:
                raise ValueError(f"{what}: the {NATIONS[nat].name} have {have} on the board, "
                                 f"more than their {limit}")

    # per nation
    _counts(data, "resources", nations, RESOURCES, "resource", MAX_RESOURCE,
            state.resources)
    raw = json_object(data.get("knowhow", {}), "knowhow")
    for nat, held in raw.items():
        _nation(nat, nations, "knowhow")
        got = _list(held, f"knowhow.{nat}")
        for i, k in enumerate(got):
            if k not in KNOWHOW:
                raise ValueError(f"knowhow.{nat}[{i}]: unknown know-how {k!r} "
                                 f"({', '.join(KNOWHOW)})")
        if len(set(got)) != len(got):
            raise ValueError(f"knowhow.{nat}: a know-how is held once")
        for k in got:
            if k in NEEDS and NEEDS[k] not in got:
                raise ValueError(f"knowhow.{nat}: {k} needs {NEEDS[k]}")
        state.knowhow[nat] = [k for k in KNOWHOW if k in got]
    raw = json_object(data.get("first", {}), "first")
    for k, nat in raw.items():
        if k not in KNOWHOW:
            raise ValueError(f"first: unknown know-how {k!r}")
        _nation(nat, nations, f"first.{k}")
        if k not in state.knowhow[nat]:
            raise ValueError(f"first.{k}: the {NATIONS[nat].name} do not hold {k}")
        state.first[k] = nat
    for k in KNOWHOW:
        if k not in state.first:
            holder = next((nat for nat in nations if k in state.knowhow[nat]), None)
            if holder is not None:
                state.first[k] = holder
    raw = json_object(data.get("wheel", {}), "wheel")
    for nat, f in raw.items():
        _nation(nat, nations, "wheel")
        state.wheel[nat] = None if f is None else _field(f, f"wheel.{nat}")
    _counts(data, "personalities", nations, PERSONALITIES, "personality", MAX_POINTS,
            state.personalities)
    out = _list(data.get("out", []), "out")
    for i, nat in enumerate(out):
        _nation(nat, nations, f"out[{i}]")
    if len(set(out)) != len(out):
        raise ValueError("out: a nation resigns once")
    state.out = list(out)

    # the turn
    phase = data.get("phase", "wheel")
    if phase not in PHASES:
        raise ValueError(f"phase: {phase!r} is not one of {', '.join(PHASES)}")
    state.phase = phase
    active = state.active()
    state.turn = _nation(data.get("turn", active[0] if active else nations[0]), nations,
                         "turn")
    if phase != "over" and state.turn in state.out:
        raise ValueError(f"turn: the {NATIONS[state.turn].name} resigned")
    if phase != "over" and len(active) < 2:
        raise ValueError("out: a game still running needs two nations still playing")
    fld = data.get("field")
    if phase == "action":
        if fld is None:
            raise ValueError("field: phase action needs the field taken this turn")
        fld = _field(fld, "field")
        if fld in PRODUCTION:
            raise ValueError(f"field: {fld} produces and ends the turn at once; there is no "
                             "action phase for it")
        if state.wheel[state.turn] != fld:
            if "wheel" in data and state.turn in data["wheel"]:
                raise ValueError(f"wheel.{state.turn}: the marker stands on the field taken "
                                 f"({fld})")
            state.wheel[state.turn] = fld
    elif fld is not None:
        raise ValueError(f"field: only phase action has a field, not phase {phase}")
    state.field = fld
    moved: dict[str, int] = {}
    for r, k in json_object(data.get("moved", {}), "moved").items():
        _region(r, n, "moved")
        if bounded(k, 0, state.count(r, state.turn), f"moved.{r} (units of the "
                f"{NATIONS[state.turn].name} there)"):
            moved[r] = k
    if moved and fld not in MANEUVERS:
        raise ValueError("moved: units are marked as moved only during a Maneuver")
    state.moved = moved

    # the end
    winners = data.get("winners")
    result = data.get("result")
    if winners is not None:
        winners = _list(winners, "winners")
        for i, nat in enumerate(winners):
            _nation(nat, nations, f"winners[{i}]")
        if not winners:
            raise ValueError("winners: at least one nation")
    if result is not None and result not in RESULTS:
        raise ValueError(f"result: {result!r} is not one of {', '.join(RESULTS)}")
    if (phase == "over") != (winners is not None) or (phase == "over") != (result is not None):
        raise ValueError("a finished game (phase over), and only one, has winners and a "
                         "result")
    state.winners = winners
    state.result = result
    return state


__all__ = ["FORMAT", "KNOWHOW", "PERSONALITIES", "WHEEL", "AntiquityState", "Seat", "dump",
           "fresh", "load", "seas_in_play"]
