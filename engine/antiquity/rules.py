"""Antiquity's rules (docs/games/antiquity.md explains them and the product's rulings).

Nations found cities around the Mediterranean: each turn a nation moves its marker on the
action wheel and takes that field's action (produce, build temples, arm, buy know-how or
maneuver). Conquest follows the seed page exactly. Personalities are the victory points.
Nothing is hidden and nothing is left to chance but the deal of nations at set-up.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from engine.antiquity import constants as C
from engine.antiquity import narration
from engine.antiquity import state as st
from engine.antiquity.board import (
    INDEX,
    NATION_ORDER,
    NATIONS,
    PROVINCES,
    RESOURCES,
    SEAS,
    coasts,
    in_play,
    is_province,
    neighbours,
    provinces_in_play,
    region_name,
    seas_in_play,
    shore,
)
from engine.antiquity.notation import VERBS, parse
from engine.antiquity.state import (
    FIELD_NAMES,
    KNOWHOW,
    KNOWHOW_NAMES,
    MANEUVERS,
    NEEDS,
    PERSONALITIES,
    PRODUCTION,
    WHEEL,
    AntiquityState,
)
from engine.core import JSON, Dice, Event, Game, IllegalAction, Option, Outcome, seated_player
from engine.notation import Action

ROUND_CHOICES = tuple(sorted({*C.ROUND_CHOICES, C.ROUNDS}))
#: Automatic payment for wheel steps: the resource held most, ties in this order.
PAY_ORDER = ("gold", "iron", "marble")

REASONS = {
    "rounds": "The last round is over: most personalities win (then most cities, temples, "
              "resources).",
    "resigned": "Every other nation resigned.",
}


def target(n: int) -> int:
    return C.TARGET[n]


def _units(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def nation_name(nation: str) -> str:
    return NATIONS[nation].name


class Antiquity(Game[AntiquityState]):
    kind = "antiquity"
    name = "Antiquity"
    min_players = 2
    max_players = len(NATION_ORDER)
    summary = ("Nations of the ancient Mediterranean found cities, build temples, arm "
               "legions and galleys and conquer: turn the action wheel and be the first to "
               "gather enough personalities.")
    options = (Option("rounds", C.ROUNDS,
                      "Rounds before the game ends on personalities, cities and temples.",
                      ROUND_CHOICES),)
    verbs = VERBS
    positions = st
    narrator = narration

    # -- set-up ------------------------------------------------------------------------

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> AntiquityState:
        self.check_players(players)
        resolved = self.resolve_options(options)
        return self.start(players, seed, int(resolved["rounds"]))

    def start(self, players: list[str], seed: int, rounds: int) -> AntiquityState:
        """A fresh game with any round limit; nations dealt to the seats from ``seed``."""
        nations = Dice.from_seed(seed).shuffle(list(NATION_ORDER[:len(players)]))
        return st.fresh(list(players), nations, rounds)

    # -- queries -----------------------------------------------------------------------

    def players(self, state: AntiquityState) -> list[str]:
        return list(state.players)

    def current_turn(self, state: AntiquityState) -> str | None:
        return None if state.over else state.player_of(state.turn)

    def to_act(self, state: AntiquityState) -> list[str]:
        return [] if state.over else [state.player_of(state.turn)]

    def outcome(self, state: AntiquityState) -> Outcome | None:
        if not state.over or state.winners is None or state.result is None:
            return None
        winners = [nat for nat in state.nations if nat in state.winners]
        playing = sorted(state.active(), key=lambda nat: (
            nat not in winners, *(-v for v in self.rank_key(state, nat))))
        standings = [*playing, *reversed(state.out)]
        if state.result == "target":
            reason = (f"The {' and '.join(nation_name(w) for w in winners)} gathered "
                      f"{target(state.n)} personalities by the end of their turn.")
        else:
            reason = REASONS[state.result]
        return Outcome(tuple(state.player_of(w) for w in winners),
                       tuple(state.player_of(nat) for nat in standings), reason)

    def rank_key(self, state: AntiquityState, nation: str) -> tuple[int, int, int, int]:
        """Personalities, then cities, temples and resources (the round limit's order)."""
        return (state.points(nation), state.city_count(nation), state.temple_count(nation),
                state.total_resources(nation))

    # -- the rules' helpers ------------------------------------------------------------

    def wheel_options(self, state: AntiquityState, nation: str) -> list[tuple[str, int, int]]:
        """(field, steps, cost) for every field the nation may move its marker to."""
        here = state.wheel[nation]
        if here is None:
            return [(f, 0, 0) for f in WHEEL]
        start = WHEEL.index(here)
        have = state.total_resources(nation)
        out = []
        for steps in range(1, C.MAX_STEPS + 1):
            cost = max(0, steps - C.FREE_STEPS)
            if cost <= have:
                out.append((WHEEL[(start + steps) % len(WHEEL)], steps, cost))
        return out

    def range_of(self, state: AntiquityState, nation: str, legion: bool) -> int:
        if legion:
            return 1 + state.has(nation, "wheel") + state.has(nation, "roads")
        return 1 + state.has(nation, "sailing") + state.has(nation, "navigation")

    def _stops(self, state: AntiquityState, nation: str, region: str) -> bool:
        """A unit entering ``region`` must stop there."""
        if state.others(region, nation):
            return True
        owner = state.cities.get(region)
        return is_province(region) and owner is not None and owner != nation

    def reachable(self, state: AntiquityState, nation: str,
                  src: str) -> dict[str, list[str]]:
        """Destination -> shortest path (regions after ``src``) for units leaving ``src``,
        in map order."""
        legion = is_province(src)
        reach = self.range_of(state, nation, legion)
        deep_ok = state.has(nation, "navigation")
        n = state.n
        parent: dict[str, str] = {src: src}
        dist = {src: 0}
        queue = deque([src])
        while queue:
            u = queue.popleft()
            if dist[u] >= reach or (u != src and self._stops(state, nation, u)):
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

    def defence(self, state: AntiquityState, province: str) -> int | None:
        """The defence strength of the city in ``province`` (None: no city)."""
        owner = state.cities.get(province)
        if owner is None:
            return None
        return (3 if province in state.temples else 1) + self._at(state, owner, province) + (
            1 if state.has(owner, "monarchy") else 0)

    def _at(self, state: AntiquityState, nation: str, province: str) -> int:
        """The nation's units at ``province``: its legions there and its galleys on its
        coasts."""
        return state.count(province, nation) + sum(
            state.count(s, nation) for s in coasts(province, state.n))

    def _galleys_at(self, state: AntiquityState, nation: str, province: str) -> int:
        return sum(state.count(s, nation) for s in coasts(province, state.n))

    def knowhow_cost(self, state: AntiquityState, knowhow: str) -> int:
        return C.KNOWHOW_COST if knowhow in state.first else C.FIRST_COST

    def fresh_units(self, state: AntiquityState, nation: str, region: str) -> int:
        return state.count(region, nation) - state.moved.get(region, 0)

    def _can_pay(self, state: AntiquityState, nation: str, cost: dict[str, int]) -> bool:
        return all(state.resources[nation][r] >= k for r, k in cost.items())

    def _found_problem(self, state: AntiquityState, nation: str, p: str) -> str | None:
        name = PROVINCES[p].name
        owner = state.cities.get(p)
        if owner is not None:
            whose = "your" if owner == nation else f"the {nation_name(owner)}'"
            return f"{name} already holds {whose} city {PROVINCES[p].city}."
        if not (state.count(p, nation) or self._galleys_at(state, nation, p)):
            return (f"You need a legion in {name} or a galley in a sea on its coast to found "
                    "a city there.")
        blockers = state.others(p, nation)
        if blockers:
            return (f"The {nation_name(blockers[0])} have legions in {name}: no city can be "
                    "founded there under their eyes.")
        if not state.stones(nation):
            return ("You have no city stone left (25 cities): `abandon` one of your cities "
                    "first.")
        if not self._can_pay(state, nation, C.FOUND_COST):
            return "Founding a city costs 1 marble, 1 iron and 1 gold."
        return None

    def _conquer_problem(self, state: AntiquityState, nation: str, p: str) -> str | None:
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
        strength = self.defence(state, p)
        assert strength is not None
        have = self._at(state, nation, p)
        if have < strength:
            return (f"{PROVINCES[p].city} has strength {strength}; you have "
                    f"{_units(have, 'unit')} there.")
        return None

    def conquer_range(self, state: AntiquityState, nation: str, p: str) -> range:
        """The legion counts ``conquer p <legions>`` accepts (the rest galleys)."""
        strength = self.defence(state, p) or 0
        legions = state.count(p, nation)
        galleys = self._galleys_at(state, nation, p)
        return range(max(0, strength - galleys), min(legions, strength) + 1)

    # -- legal actions -----------------------------------------------------------------

    def legal_actions(self, state: AntiquityState, player: str) -> list[str]:
        if not isinstance(player, str) or state.over:
            return []
        nation = state.nation_of(player)
        if nation is None or nation != state.turn:
            return []
        if state.phase == "wheel":
            return [f"go {f}" for f, _, _ in self.wheel_options(state, nation)]
        fld = state.field
        res = state.resources[nation]
        out: list[str] = []
        n = state.n
        if fld == "temple":
            if res["marble"] >= C.TEMPLE_COST and state.temples_left() > 0:
                out += [f"temple {p}" for p in state.cities_of(nation)
                        if p not in state.temples]
        elif fld == "arming":
            mine = state.cities_of(nation)
            if res["iron"] >= C.LEGION_COST and state.legions_of(nation) < C.LEGIONS:
                out += [f"legion {p}" for p in mine]
            if res["iron"] >= C.GALLEY_COST and state.galleys_of(nation) < C.GALLEYS:
                near = {s for p in mine for s in coasts(p, n)}
                out += [f"galley {s}" for s in seas_in_play(n) if s in near]
        elif fld == "knowhow":
            for k in KNOWHOW:
                if (k not in state.knowhow[nation] and NEEDS.get(k, k) in
                        (*state.knowhow[nation], k)
                        and res["gold"] >= self.knowhow_cost(state, k)):
                    out.append(f"learn {k}")
        elif fld in MANEUVERS:
            out += self._maneuvers(state, nation)
        out.append("end")
        return out

    def _maneuvers(self, state: AntiquityState, nation: str) -> list[str]:
        n = state.n
        regions = [*provinces_in_play(n), *seas_in_play(n)]
        out = []
        for src in regions:
            fresh = self.fresh_units(state, nation, src)
            if fresh <= 0:
                continue
            for dst in self.reachable(state, nation, src):
                out += [f"move {k} {src} {dst}" for k in range(1, fresh + 1)]
        for r in regions:
            if state.count(r, nation):
                out += [f"fight {r} {o}" for o in state.others(r, nation)]
        for p in provinces_in_play(n):
            if p not in state.cities and self._found_problem(state, nation, p) is None:
                out.append(f"found {p}")
        for p in provinces_in_play(n):
            owner = state.cities.get(p)
            if owner is not None and owner != nation and self._conquer_problem(
                    state, nation, p) is None:
                out += [f"conquer {p} {k}" for k in self.conquer_range(state, nation, p)]
        if not state.stones(nation) and state.city_count(nation) > 1:
            out += [f"abandon {p}" for p in state.cities_of(nation)]
        return out

    # -- applying actions --------------------------------------------------------------

    def apply(self, state: AntiquityState, player: str,
              action: str) -> tuple[AntiquityState, list[Event]]:
        text = self.normalise(action)
        seat = seated_player(state.seats, player, state.over)
        nation = seat.nation
        parsed = parse(text)
        new = state.copy()
        events: list[Event] = []
        if parsed.verb == "resign":
            self._resign(new, nation, events)
            return new, events
        if nation != state.turn:
            raise IllegalAction(f"It is not your turn: the {nation_name(state.turn)} "
                                f"({state.player_of(state.turn)}) are playing. "
                                f"{self.prompt(state)}.")
        ends = self._do(new, nation, parsed, events)
        self._personalities(new, events)
        if ends:
            self._end_turn(new, events)
        return new, events

    def _wrong_time(self, state: AntiquityState, action: Action) -> IllegalAction:
        verb = action.verb
        if state.phase == "wheel":
            return IllegalAction(f"First move your marker on the wheel: `go <field>`. "
                                 f"{self.prompt(state)}.")
        if verb == "go":
            return IllegalAction(f"You already took {FIELD_NAMES[state.field or '']} this "
                                 f"turn: finish it, then `end`. {self.prompt(state)}.")
        home = {"temple": "the Temple field", "legion": "the Arming field",
                "galley": "the Arming field", "learn": "the Know-how field"}.get(
            verb, "a Maneuver field")
        return IllegalAction(f"`{verb}` belongs to {home}; you took "
                             f"{FIELD_NAMES[state.field or '']} this turn. "
                             f"{self.prompt(state)}.")

    def _do(self, state: AntiquityState, nation: str, action: Action,
            events: list[Event]) -> bool:
        """Check and carry out ``action`` on ``state`` (a copy); True if the turn ends."""
        verb = action.verb
        player = state.player_of(nation)
        base = {"nation": nation, "player": player}
        if verb == "go":
            if state.phase != "wheel":
                raise self._wrong_time(state, action)
            return self._go(state, nation, action.args[0], events)
        if state.phase != "action":
            raise self._wrong_time(state, action)
        fld = state.field
        wanted = {"temple": ("temple",), "legion": ("arming",), "galley": ("arming",),
                  "learn": ("knowhow",), "end": WHEEL}.get(verb, MANEUVERS)
        if fld not in wanted:
            raise self._wrong_time(state, action)
        if verb == "end":
            return True
        n = state.n
        if verb in ("temple", "legion", "found", "abandon", "conquer"):
            p = action.args[0]
            if not is_province(p):
                raise IllegalAction(f"{region_name(p)} is a sea: {verb} needs a province.")
            if not in_play(p, n):
                raise IllegalAction(f"{region_name(p)} is not in play with {n} players.")
        if verb == "galley":
            s = action.args[0]
            if is_province(s):
                raise IllegalAction(f"{region_name(s)} is a province: galleys are placed in a "
                                    "sea.")
            if not in_play(s, n):
                raise IllegalAction(f"{region_name(s)} is not in play with {n} players.")
        res = state.resources[nation]
        if verb == "temple":
            p = action.args[0]
            city = PROVINCES[p].city
            if state.cities.get(p) != nation:
                raise IllegalAction(f"{city} in {PROVINCES[p].name} is not your city.")
            if p in state.temples:
                raise IllegalAction(f"{city} already has a temple.")
            if not state.temples_left():
                raise IllegalAction("The bank has no temple left.")
            if res["marble"] < C.TEMPLE_COST:
                raise IllegalAction(f"A temple costs {C.TEMPLE_COST} marble; you have "
                                    f"{res['marble']}.")
            res["marble"] -= C.TEMPLE_COST
            state.temples.add(p)
            events.append({"type": "temple", **base, "province": p})
        elif verb in ("legion", "galley"):
            r = action.args[0]
            legion = verb == "legion"
            cost = C.LEGION_COST if legion else C.GALLEY_COST
            if legion and state.cities.get(r) != nation:
                raise IllegalAction(f"Legions are raised in provinces with your city; "
                                    f"{PROVINCES[r].name} has none.")
            if not legion and not any(state.cities.get(p) == nation
                                      for p in shore(r, n)):
                raise IllegalAction(f"Galleys are built in a sea on the coast of your city; "
                                    f"{SEAS[r].name} has none.")
            have = state.legions_of(nation) if legion else state.galleys_of(nation)
            limit = C.LEGIONS if legion else C.GALLEYS
            if have >= limit:
                raise IllegalAction(f"All your {limit} {verb}s are on the board.")
            if res["iron"] < cost:
                raise IllegalAction(f"A {verb} costs {cost} iron; you have {res['iron']}.")
            res["iron"] -= cost
            state.add(r, nation, 1)
            events.append({"type": "arm", **base, "unit": verb, "region": r})
        elif verb == "learn":
            self._learn(state, nation, action.args[0], events)
        elif verb == "move":
            self._move(state, nation, action, events)
        elif verb == "fight":
            self._fight(state, nation, action, events)
        elif verb == "found":
            p = action.args[0]
            problem = self._found_problem(state, nation, p)
            if problem:
                raise IllegalAction(problem)
            for r, k in C.FOUND_COST.items():
                res[r] -= k
            state.cities[p] = nation
            events.append({"type": "found", **base, "province": p})
        elif verb == "conquer":
            self._conquer(state, nation, action, events)
        elif verb == "abandon":
            p = action.args[0]
            if state.cities.get(p) != nation:
                raise IllegalAction(f"{PROVINCES[p].city} in {PROVINCES[p].name} is not your "
                                    "city.")
            if state.stones(nation):
                raise IllegalAction(f"You still have {_units(state.stones(nation), 'city stone')}"
                                    ": a city is abandoned only to free a stone when all 25 "
                                    "are on the board.")
            if state.city_count(nation) <= 1:
                raise IllegalAction("You cannot abandon your last city.")
            temple = p in state.temples
            del state.cities[p]
            state.temples.discard(p)
            events.append({"type": "abandon", **base, "province": p, "temple": temple})
        return False

    def _go(self, state: AntiquityState, nation: str, fld: str, events: list[Event]) -> bool:
        options = {f: (steps, cost) for f, steps, cost in self.wheel_options(state, nation)}
        here = state.wheel[nation]
        if fld not in options:
            if fld == here:
                raise IllegalAction(f"Your marker is on {FIELD_NAMES[fld]}: move it 1 to "
                                    f"{C.MAX_STEPS} fields on.")
            assert here is not None
            steps = (WHEEL.index(fld) - WHEEL.index(here)) % len(WHEEL)
            cost = steps - C.FREE_STEPS
            raise IllegalAction(f"{FIELD_NAMES[fld]} is {steps} steps away: that costs "
                                f"{_units(cost, 'resource')} and you have "
                                f"{state.total_resources(nation)}.")
        steps, cost = options[fld]
        res = state.resources[nation]
        paid: dict[str, int] = {}
        for _ in range(cost):
            r = max(PAY_ORDER, key=lambda k: res[k])
            res[r] -= 1
            paid[r] = paid.get(r, 0) + 1
        state.wheel[nation] = fld
        player = state.player_of(nation)
        events.append({"type": "go", "nation": nation, "player": player, "field": fld,
                       "from": here, "steps": steps,
                       "paid": {r: paid[r] for r in RESOURCES if r in paid}})
        if fld in PRODUCTION:
            amount = sum(C.TEMPLE_YIELD if p in state.temples else C.CITY_YIELD
                         for p in state.cities_of(nation) if PROVINCES[p].resource == fld)
            if fld == "marble" and state.has(nation, "democracy"):
                amount += C.DEMOCRACY_BONUS
            if fld == "gold" and state.has(nation, "currency"):
                amount += C.CURRENCY_BONUS
            res[fld] = min(st.MAX_RESOURCE, res[fld] + amount)
            events.append({"type": "produce", "nation": nation, "player": player,
                           "resource": fld, "amount": amount})
            return True
        state.phase, state.field = "action", fld
        state.moved = {}
        return False

    def _learn(self, state: AntiquityState, nation: str, k: str, events: list[Event]) -> None:
        name = KNOWHOW_NAMES[k]
        if k in state.knowhow[nation]:
            raise IllegalAction(f"You already know {name}.")
        need = NEEDS.get(k)
        if need and need not in state.knowhow[nation]:
            raise IllegalAction(f"{name} needs {KNOWHOW_NAMES[need]} first.")
        cost = self.knowhow_cost(state, k)
        gold = state.resources[nation]["gold"]
        if gold < cost:
            raise IllegalAction(f"{name} costs {cost} gold; you have {gold}.")
        first = k not in state.first
        state.resources[nation]["gold"] -= cost
        held = set(state.knowhow[nation]) | {k}
        state.knowhow[nation] = [x for x in KNOWHOW if x in held]
        player = state.player_of(nation)
        events.append({"type": "learn", "nation": nation, "player": player, "knowhow": k,
                       "cost": cost, "first": first})
        if first:
            state.first[k] = nation
            self._award(state, nation, "scholar", 1, events)
        if k == "philosophy":
            self._award(state, nation, "scholar", 1, events)

    def _move(self, state: AntiquityState, nation: str, action: Action,
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
        fresh = self.fresh_units(state, nation, src)
        if k > fresh:
            if not have:
                raise IllegalAction(f"You have no {unit}s in {region_name(src)}.")
            moved = state.moved.get(src, 0)
            detail = f" ({moved} already moved this action)" if moved else ""
            raise IllegalAction(f"You have only {_units(fresh, unit)} in {region_name(src)} "
                                f"that can move{detail}.")
        if src == dst:
            raise IllegalAction("Move to another region.")
        paths = self.reachable(state, nation, src)
        if dst not in paths:
            reach = self.range_of(state, nation, unit == "legion")
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

    def _lose(self, state: AntiquityState, region: str, nation: str, k: int) -> None:
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

    def _fight(self, state: AntiquityState, nation: str, action: Action,
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
        self._lose(state, r, nation, losses)
        self._lose(state, r, other, losses)
        events.append({"type": "fight", "nation": nation, "player": state.player_of(nation),
                       "other": other, "other_player": state.player_of(other), "region": r,
                       "unit": unit, "losses": losses})

    def _conquer(self, state: AntiquityState, nation: str, action: Action,
                 events: list[Event]) -> None:
        p = action.args[0]
        legions = action.count
        problem = self._conquer_problem(state, nation, p)
        if problem:
            raise IllegalAction(problem)
        strength = self.defence(state, p)
        assert strength is not None
        allowed = self.conquer_range(state, nation, p)
        if legions not in allowed:
            have_l = state.count(p, nation)
            have_g = self._galleys_at(state, nation, p)
            raise IllegalAction(
                f"{PROVINCES[p].city} has strength {strength}: remove "
                f"{_units(strength, 'unit')}, "
                f"{allowed.start} to {allowed.stop - 1} of them legions (you have "
                f"{_units(have_l, 'legion')} in {PROVINCES[p].name} and "
                f"{_units(have_g, 'galley')} on its coast).")
        owner = state.cities[p]
        n = state.n
        self._lose(state, p, nation, legions)
        galleys: dict[str, int] = {}
        seas = coasts(p, n)
        for _ in range(strength - legions):
            s = max(seas, key=lambda x: state.count(x, nation))
            self._lose(state, s, nation, 1)
            galleys[s] = galleys.get(s, 0) + 1
        lost_l = state.count(p, owner)
        self._lose(state, p, owner, lost_l)
        lost_g: dict[str, int] = {}
        for s in seas:
            k = state.count(s, owner)
            if k:
                self._lose(state, s, owner, k)
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
        if temple:
            self._award(state, nation, "general", 1, events)

    # -- personalities, turns and the end ---------------------------------------------

    def _award(self, state: AntiquityState, nation: str, kind: str, k: int,
               events: list[Event]) -> None:
        state.personalities[nation][kind] = min(st.MAX_POINTS,
                                                state.personalities[nation][kind] + k)
        events.append({"type": "personality", "nation": nation,
                       "player": state.player_of(nation), "kind": kind, "count": k,
                       "total": state.points(nation)})

    def _personalities(self, state: AntiquityState, events: list[Event]) -> None:
        """Kings, Citizens and Navigators due to any nation still playing."""
        for nat in state.active():
            for kind, have, steps in (
                    ("king", state.city_count(nat), C.KING_CITIES),
                    ("citizen", state.temple_count(nat), C.CITIZEN_TEMPLES),
                    ("navigator", state.seas_of(nat), C.NAVIGATOR_SEAS)):
                due = sum(1 for t in steps if have >= t)
                if due > state.personalities[nat][kind]:
                    self._award(state, nat, kind, due - state.personalities[nat][kind],
                                events)

    def _end_turn(self, state: AntiquityState, events: list[Event]) -> None:
        nation = state.turn
        state.moved, state.field = {}, None
        state.phase = "wheel"
        if state.points(nation) >= target(state.n):
            self._finish(state, [nation], "target", events)
            return
        self._advance(state, events)

    def _advance(self, state: AntiquityState, events: list[Event]) -> None:
        """Hand the turn to the next nation still playing (a new round after the last
        seat; the game ends after the last round)."""
        count = len(state.nations)
        i = state.seat_of(state.turn)
        for step in range(1, count + 1):
            j = (i + step) % count
            if state.nations[j] not in state.out:
                break
        if j <= i:
            if state.round >= state.rounds:
                self._finish_rounds(state, events)
                return
            state.round += 1
        state.turn = state.nations[j]
        state.phase, state.field, state.moved = "wheel", None, {}
        events.append({"type": "turn", "nation": state.turn,
                       "player": state.player_of(state.turn), "round": state.round})

    def _finish_rounds(self, state: AntiquityState, events: list[Event]) -> None:
        active = state.active()
        best = max(self.rank_key(state, nat) for nat in active)
        self._finish(state, [nat for nat in active if self.rank_key(state, nat) == best],
                     "rounds", events)

    def _finish(self, state: AntiquityState, winners: list[str], result: str,
                events: list[Event]) -> None:
        state.phase, state.field, state.moved = "over", None, {}
        state.winners, state.result = list(winners), result
        outcome = self.outcome(state)
        assert outcome is not None
        events.append({"type": "victory", "nation": winners[0] if len(winners) == 1 else None,
                       "nations": list(winners), "winners": list(outcome.winners),
                       "result": result, "reason": outcome.reason,
                       "points": {nat: state.points(nat) for nat in state.nations}})

    def _resign(self, state: AntiquityState, nation: str, events: list[Event]) -> None:
        state.out.append(nation)
        events.append({"type": "resign", "nation": nation, "player": state.player_of(nation)})
        active = state.active()
        if len(active) == 1:
            self._finish(state, active, "resigned", events)
        elif state.turn == nation:
            self._advance(state, events)

    # -- the clock -----------------------------------------------------------------------

    def timeout_action(self, state: AntiquityState, player: str) -> str | None:
        """The first production field reachable for free (first turn: Gold); in an action,
        `end`."""
        if not isinstance(player, str) or player not in self.to_act(state):
            return None
        if state.phase == "action":
            return "end"
        here = state.wheel[state.turn]
        if here is None:
            return "go gold"
        start = WHEEL.index(here)
        ahead = [WHEEL[(start + s) % len(WHEEL)] for s in range(1, C.FREE_STEPS + 1)]
        return f"go {next((f for f in ahead if f in PRODUCTION), ahead[0])}"

    def reversible(self, before: AntiquityState, after: AntiquityState,
                   events: list[Event]) -> bool:
        """Everything is deterministic and public: any action may be taken back except a
        resignation and the end of the game."""
        if any(e.get("type") == "resign" for e in events):
            return False
        return super().reversible(before, after, events)

    # -- words -----------------------------------------------------------------------------

    def prompt(self, state: AntiquityState) -> str:
        """One public sentence: what the nation to act must decide."""
        if state.over:
            return "The game is over"
        who = f"The {nation_name(state.turn)}"
        if state.phase == "wheel":
            if state.wheel[state.turn] is None:
                return (f"{who} place their marker on any field of the wheel, free "
                        "(`go gold`)")
            return (f"{who} move their marker on the wheel (`go <field>`): 1-"
                    f"{C.FREE_STEPS} steps free, each further step costs a resource")
        fld = state.field
        if fld == "temple":
            return f"{who} build temples ({C.TEMPLE_COST} marble each: `temple <province>`), " \
                   "then `end`"
        if fld == "arming":
            return (f"{who} arm legions and galleys (`legion <province>`, `galley <sea>`), "
                    "then `end`")
        if fld == "knowhow":
            return f"{who} buy know-how with gold (`learn <know-how>`), then `end`"
        return (f"{who} maneuver: `move`, `fight`, `found`, `conquer` as they wish, "
                "then `end`")

    # -- views and the position format ---------------------------------------------------

    def view(self, state: AntiquityState, player: str | None) -> JSON:
        outcome = self.outcome(state)
        n = state.n
        acting = None if state.over else state.turn
        nations = []
        for seat, (pid, nat) in enumerate(zip(state.players, state.nations, strict=True)):
            res = state.resources[nat]
            nations.append({
                "id": nat, "name": NATIONS[nat].name, "adjective": NATIONS[nat].adjective,
                "player": pid, "color": NATIONS[nat].color, "seat": seat,
                "out": nat in state.out, "marble": res["marble"], "iron": res["iron"],
                "gold": res["gold"], "wheel": state.wheel[nat],
                "knowhow": list(state.knowhow[nat]),
                "personalities": {k: state.personalities[nat][k] for k in PERSONALITIES},
                "points": state.points(nat), "cities": state.city_count(nat),
                "temples": state.temple_count(nat), "stones": state.stones(nat),
                "legions": state.legions_of(nat), "galleys": state.galleys_of(nat),
                "seas": state.seas_of(nat)})

        def counts(r: str) -> dict[str, int]:
            here = state.units.get(r, {})
            return {nat: here[nat] for nat in state.nations if here.get(nat)}

        moving = state.phase == "action" and state.field in MANEUVERS
        provinces = []
        for p in provinces_in_play(n):
            prov = PROVINCES[p]
            provinces.append({
                "id": p, "name": prov.name, "city": prov.city, "resource": prov.resource,
                "owner": state.cities.get(p), "temple": p in state.temples,
                "legions": counts(p), "coasts": list(coasts(p, n)),
                "defence": self.defence(state, p),
                "moved": state.moved.get(p, 0) if moving else 0})
        seas = [{"id": s, "name": SEAS[s].name, "deep": SEAS[s].deep, "galleys": counts(s),
                 "moved": state.moved.get(s, 0) if moving else 0} for s in seas_in_play(n)]
        options = []
        if state.phase == "wheel" and acting is not None:
            options = [{"field": f, "steps": steps, "cost": cost}
                       for f, steps, cost in self.wheel_options(state, acting)]
        return {
            "kind": self.kind,
            "viewer": player,
            "round": state.round,
            "rounds": state.rounds,
            "target": target(n),
            "turn": acting,
            "phase": state.phase,
            "field": state.field,
            "to_act": self.to_act(state),
            "prompt": self.prompt(state),
            "nations": nations,
            # one line per seat for the platform's status (a player id and public stats)
            "players": [{"id": e["player"], "nation": e["name"], "personalities": e["points"],
                         "cities": e["cities"], "temples": e["temples"], "out": e["out"]}
                        for e in nations],
            "provinces": provinces,
            "seas": seas,
            "wheel": list(WHEEL),
            "wheel_names": dict(FIELD_NAMES),
            "wheel_options": options,
            "temples_left": state.temples_left(),
            "first_knowhow": {k: state.first[k] for k in KNOWHOW if k in state.first},
            "knowhow_costs": {k: self.knowhow_cost(state, k) for k in KNOWHOW},
            "outcome": outcome.to_json() if outcome else None,
        }

    def choice_labels(self, view: JSON, kind: str, values: list[str]) -> list[str]:
        """``phoenicia · Tyros (Phoenician, temple)``, ``maneuver1 · Maneuver I (2 steps,
        free)``, ``syriacum · Mare Syriacum``, ``monarchy · Monarchy (7 gold)``, from
        ``view`` alone."""
        return narration.labels(view, kind, values)


__all__ = ["Antiquity", "target"]
