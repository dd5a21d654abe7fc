"""Antiquity's rules (docs/games/antiquity.md explains them and the product's rulings).

Nations found cities around the Mediterranean: each turn a nation moves its marker on the
action wheel and takes that field's action (produce, build temples, arm, buy know-how or
maneuver). Conquest follows the seed page exactly. Personalities are the victory points.
Nothing is hidden and nothing is left to chance but the deal of nations at set-up.
The Maneuver fields' rules (reach, move, fight, found, conquer, abandon) are in
:mod:`engine.antiquity.maneuver`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine.antiquity import constants as C
from engine.antiquity import maneuver, narration
from engine.antiquity import state as st
from engine.antiquity.board import (
    NATION_ORDER,
    NATIONS,
    PROVINCES,
    RESOURCES,
    SEAS,
    coasts,
    in_play,
    is_province,
    nation_name,
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
from engine.core import (
    JSON,
    Dice,
    Event,
    Game,
    GameFacts,
    IllegalAction,
    Option,
    Outcome,
)
from engine.narration import counted
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


#: Each wheel field's `go` text.
_GO = {f: f"go {f}" for f in WHEEL}

#: :func:`engine.antiquity.notation.parse`, remembered: an action text always parses to
#: the same (immutable) action, and play repeats a few thousand texts.
_parse = lru_cache(maxsize=4096)(parse)


#: The fields where each verb may be played (the rest: the Maneuvers).
_FIELDS_OF: dict[str, tuple[str, ...]] = {
    "temple": ("temple",), "legion": ("arming",), "galley": ("arming",),
    "learn": ("knowhow",), "end": WHEEL}


def _seated(state: AntiquityState, player: str) -> str:
    """The acting player's nation, refused as :func:`engine.core.seated_player` refuses
    (read without building every seat)."""
    nation = state.nation_of(player)
    if nation is None:
        raise IllegalAction("You are not playing in this game.")
    if state.over:
        raise IllegalAction("This game is over.")
    if nation in state.out:
        raise IllegalAction("You are out of this game.")
    return nation


class Antiquity(Game[AntiquityState]):
    kind = "antiquity"
    name = "Antiquity"
    #: 2: the map of issue 31 (Judaea from 4 players, Cyprus at 6, Sinai gold and
    #: Alexandreia iron, Massalia marble; at 5 players the Iberians instead of the
    #: Phoenicians, whose home joins at 6). A 5-player game stored before it cannot load.
    rules_version = 2
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
    #: What the generic tests hold Antiquity to. No dice and no secrets: everything but
    #: the end of the game may be undone (``go`` and ``end`` may end it).
    facts = GameFacts(
        decisions=frozenset({"wheel", "temple", "arming", "knowhow", "maneuver"}),
        decision_seeds=8,
        fixed_undo={"move": True, "fight": True, "found": True, "conquer": True,
                    "abandon": True, "temple": True, "legion": True, "galley": True,
                    "learn": True},
        board_shows=frozenset({"turn", "score", "count", "place"}),
        short_game={"rounds": 30})

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

    def decision(self, state: AntiquityState) -> str:
        """Finer than the view's phase: in the action phase, the wheel's field (both
        Maneuver fields are one decision)."""
        if state.phase == "action":
            return "maneuver" if state.field in ("maneuver1", "maneuver2") else str(state.field)
        return str(state.phase)

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
        free, size = C.FREE_STEPS, len(WHEEL)
        return [(WHEEL[(start + steps) % size], steps, cost)
                for steps in range(1, C.MAX_STEPS + 1)
                if (cost := max(0, steps - free)) <= have]

    def knowhow_cost(self, state: AntiquityState, knowhow: str) -> int:
        return C.KNOWHOW_COST if knowhow in state.first else C.FIRST_COST

    # -- legal actions -----------------------------------------------------------------

    def legal_actions(self, state: AntiquityState, player: str) -> list[str]:
        if not isinstance(player, str) or state.over:
            return []
        nation = state.nation_of(player)
        if nation is None or nation != state.turn:
            return []
        if state.phase == "wheel":
            return [_GO[f] for f, _, _ in self.wheel_options(state, nation)]
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
            out += maneuver.legal(state, nation)
        out.append("end")
        return out

    # -- applying actions --------------------------------------------------------------

    def apply(self, state: AntiquityState, player: str,
              action: str) -> tuple[AntiquityState, list[Event]]:
        text = self.normalise(action)
        nation = _seated(state, player)
        parsed = _parse(text)
        new = state.fork()
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
        if fld not in _FIELDS_OF.get(verb, MANEUVERS):
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
            maneuver.move(state, nation, action, events)
        elif verb == "fight":
            maneuver.fight(state, nation, action, events)
        elif verb == "found":
            maneuver.found(state, nation, action.args[0], events)
        elif verb == "conquer":
            if maneuver.conquer(state, nation, action, events):  # a temple fell
                self._award(state, nation, "general", 1, events)
        elif verb == "abandon":
            maneuver.abandon(state, nation, action.args[0], events)
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
                                f"{counted(cost, 'resource')} and you have "
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
            # (the cities are all in play, so this is the sum over cities_of)
            amount = sum(C.TEMPLE_YIELD if p in state.temples else C.CITY_YIELD
                         for p, owner in state.cities.items()
                         if owner == nation and PROVINCES[p].resource == fld)
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
        # a new list, never written into: a fork (AntiquityState.fork) shares the old one
        state.knowhow[nation] = [x for x in KNOWHOW if x in held]
        player = state.player_of(nation)
        events.append({"type": "learn", "nation": nation, "player": player, "knowhow": k,
                       "cost": cost, "first": first})
        if first:
            state.first[k] = nation
            self._award(state, nation, "scholar", 1, events)
        if k == "philosophy":
            self._award(state, nation, "scholar", 1, events)

    # -- personalities, turns and the end ---------------------------------------------

    def _award(self, state: AntiquityState, nation: str, kind: str, k: int,
               events: list[Event]) -> None:
        state.award(nation, kind, min(st.MAX_POINTS, state.personalities[nation][kind] + k))
        events.append({"type": "personality", "nation": nation,
                       "player": state.player_of(nation), "kind": kind, "count": k,
                       "total": state.points(nation)})

    def _personalities(self, state: AntiquityState, events: list[Event]) -> None:
        """Kings, Citizens and Navigators due to any nation still playing."""
        # every nation's cities, temples and seas held (awards change no count), counted
        # in plain loops: this runs after every move
        cities = state.cities
        held_cities: dict[str, int] = {}
        for owner in cities.values():
            held_cities[owner] = held_cities.get(owner, 0) + 1
        temples: dict[str | None, int] = {}
        for p in state.temples:
            holder = cities.get(p)
            temples[holder] = temples.get(holder, 0) + 1
        seas: dict[str, int] = {}
        for r, here in state.units.items():
            if r not in PROVINCES:
                for nat, k in here.items():
                    if k:
                        seas[nat] = seas.get(nat, 0) + 1
        # (kind, its counts, its thresholds), read anew: simulate.py may change them
        kinds = (("king", held_cities, C.KING_CITIES), ("citizen", temples, C.CITIZEN_TEMPLES),
                 ("navigator", seas, C.NAVIGATOR_SEAS))
        out = state.out
        for nat in state.nations:
            if nat in out:
                continue
            held = state.personalities[nat]
            for kind, counts, steps in kinds:
                have = counts.get(nat, 0)
                due = 0
                for t in steps:
                    if have >= t:
                        due += 1
                if due > held[kind]:
                    self._award(state, nat, kind, due - held[kind], events)

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
        # One pass over the board for every nation's counts, and the units of each region
        # read straight from the state: a view is built for every move the computer
        # player weighs.
        tallies = state.tallies()
        nations = []
        for seat, (pid, nat) in enumerate(zip(state.players, state.nations, strict=True)):
            res = state.resources[nat]
            cities, temples, legions, galleys, seas_held = tallies[nat]
            held = state.personalities[nat]
            nations.append({
                "id": nat, "name": NATIONS[nat].name, "adjective": NATIONS[nat].adjective,
                "player": pid, "color": NATIONS[nat].color, "seat": seat,
                "out": nat in state.out, "marble": res["marble"], "iron": res["iron"],
                "gold": res["gold"], "wheel": state.wheel[nat],
                "knowhow": list(state.knowhow[nat]),
                "personalities": {k: held[k] for k in PERSONALITIES},
                "points": sum(held.values()), "cities": cities,
                "temples": temples, "stones": C.STONES - cities,
                "legions": legions, "galleys": galleys, "seas": seas_held})

        order = state.nations
        units = state.units
        none: dict[str, int] = {}

        def counts(r: str) -> dict[str, int]:
            here = units.get(r)
            return {nat: here[nat] for nat in order if here.get(nat)} if here else {}

        moving = state.phase == "action" and state.field in MANEUVERS
        moved = state.moved if moving else none
        provinces = []
        for p in provinces_in_play(n):
            prov = PROVINCES[p]
            owner = state.cities.get(p)
            shore_seas = coasts(p, n)
            strength = None
            if owner is not None:  # maneuver.defence, inlined
                strength = ((3 if p in state.temples else 1) + units.get(p, none).get(owner, 0)
                            + sum(units.get(c, none).get(owner, 0) for c in shore_seas)
                            + (1 if "monarchy" in state.knowhow[owner] else 0))
            provinces.append({
                "id": p, "name": prov.name, "city": prov.city, "resource": prov.resource,
                "owner": owner, "temple": p in state.temples,
                "legions": counts(p), "coasts": list(shore_seas),
                "defence": strength,
                "moved": moved.get(p, 0)})
        seas = [{"id": s, "name": SEAS[s].name, "deep": SEAS[s].deep, "galleys": counts(s),
                 "moved": moved.get(s, 0)} for s in seas_in_play(n)]
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
