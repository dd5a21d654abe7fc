"""A simple, fast, deterministic automatic player for Antiquity (tests, time-outs and the
balance simulation; docs/games/antiquity.md).

It reads only what the public view shows (the state, all of it public, digested by
engine/antiquity/digest.py) and the legal actions (plus the static map and the price list
in constants.py). On the wheel it scores every field it can reach, in resources:

- production is worth what it yields, more when the nation lacks that resource for its
  next plans (a temple, a first know-how, a city to found, a few units);
- Temple, Know-how and Arming are worth what the nation can afford to do there now
  (temples, Scholars, the units its threatened cities and its plans need), with a bonus
  for every personality within reach;
- a Maneuver is worth the cities it can found or conquer now and, failing that, a fleet
  spreading toward the next Navigator;

and steps that must be paid for count against a field. Inside a field it takes the best
single action again and again (each one spends resources or units, so every field ends),
then ``end``. In a Maneuver it conquers what it can (temple cities first), founds on the
sites it stands on, then sends spare units toward empty sites and weak enemy cities, always
leaving a legion in a city that an enemy could take next turn.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from engine.antiquity import constants as C
from engine.antiquity.digest import FAR, RESOURCES, Context
from engine.antiquity.state import WHEEL, AntiquityState

#: Know-hows in the order the player wants to be first to buy them (Philosophy gives two
#: Scholars to its first buyer).
WISHLIST = ("philosophy", "monarchy", "wheel", "currency", "democracy", "sailing", "roads",
            "navigation")
NEEDS = {"roads": "wheel", "navigation": "sailing"}
#: A personality, in resources.
POINT = 8.0
#: Resources in hand from which a nation stops saving and goes to war.
WAR_CHEST = 15
#: The largest random nudge to a field's score when the caller passes an ``rng``.
JITTER = 2.0
#: What a city of the leader (the rival with the most personalities, ahead of the nation
#: or near the target) is worth as a target over any other city, in resources, and more
#: for every personality of its lead over the nation.
LEADER_BONUS = 6.0
LEADER_LEAD = 2.0
#: What a city or a temple adds to a rival's standing, in personalities.
STANDING = 0.25
#: Cities whose bonus (see _leader) is below minus this are spared: not war targets, not
#: marched on, not conquered.
SPARE_WEAK = 1.0
#: Personalities behind the nation past which a rival's cities are no less a target.
LEADER_FLOOR = 2
#: Personalities short of the target from which the leader is fought even by a nation
#: that is still expanding.
LEADER_ALARM = 2


def choose_among(game: Any, state: Any, player: str, legal: list[str]) -> str:
    """:func:`choose_action` given ``legal_actions`` already listed (the search's hook,
    :func:`engine.search.heuristic_action`, so a play-out step lists them once)."""
    return choose_action(game, state, player, legal=legal)


def choose_action(game: Any, state: Any, player: str, rng: random.Random | None = None,
                  legal: list[str] | None = None) -> str:
    """The action ``player`` takes now (always one of ``legal_actions``).

    Without ``rng`` the choice depends on the position alone. The balance simulation passes
    a seeded ``rng``: field scores on the wheel then get a small random nudge (up to
    ``JITTER`` resources), so that games from different seeds differ although the only
    chance in the rules is the deal of nations.

    ``legal``: ``game.legal_actions(state, player)`` when the caller has just listed it
    (the list is not changed), so that it is not listed twice; else it is listed here."""
    if legal is None:
        legal = game.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do")
    if len(legal) == 1:
        return str(legal[0])
    # what game.view gives, less what only the screen needs
    ctx = Context.of_state(state)
    if state.phase == "wheel":
        choice = _wheel(ctx, legal, rng)
    else:
        choice = _act(ctx, state.field, legal)
    if choice in legal:
        return choice
    return "end" if "end" in legal else str(legal[0])  # pragma: no cover - a safety net


# -- the wheel -----------------------------------------------------------------------------

def _wheel(ctx: Context, legal: list[str], rng: random.Random | None = None) -> str:
    wheel = WHEEL
    here = ctx.wheel_at
    start = None if here is None else wheel.index(here)
    free = C.FREE_STEPS
    best: tuple[float, int] | None = None
    choice = legal[0]
    for action in legal:
        if not action.startswith("go "):
            continue
        field = action[3:]
        steps = 0 if start is None else (wheel.index(field) - start) % len(wheel)
        paid = max(0, steps - free)
        score = _field_value(ctx, field, paid) - 1.5 * paid
        if rng is not None:
            score += rng.uniform(0.0, JITTER)
        key = (score, -steps)
        if best is None or key > best:  # the first of the best
            best, choice = key, action
    return choice


def _goals(ctx: Context) -> dict[str, int]:
    """The resources the nation's next plans call for: a temple, a first know-how, a city
    to found and a few units."""
    if ctx._goals is not None:
        return ctx._goals
    want = {"marble": 0, "iron": 0, "gold": 0}
    untempled = len(ctx.mine) - ctx.temple_count
    if untempled and ctx.temples_left:
        want["marble"] += C.TEMPLE_COST
    if _first_buys(ctx):
        want["gold"] += C.FIRST_COST
    if ctx.empty_sites() and ctx.stones > 0:
        for r in RESOURCES:
            want[r] += C.FOUND_COST[r]
    want["iron"] += C.LEGION_COST * min(4, _units_wanted(ctx))
    ctx._goals = want
    return want


def _first_buys(ctx: Context) -> list[str]:
    """Know-hows nobody has bought that the nation may buy (once per decision; read it
    only)."""
    known: list[str] | None = ctx.cache.get("first_buys")
    if known is None:
        known = ctx.cache["first_buys"] = [
            k for k in WISHLIST if k not in ctx.first and k not in ctx.knowhow
            and (k not in NEEDS or NEEDS[k] in ctx.knowhow)]
    return known


def _stock_after(ctx: Context, paid: int) -> Mapping[str, int]:
    """The stock once ``paid`` wheel steps are paid, each from the largest pile (marble,
    iron, gold first on a tie), worked out once per decision and number of steps (each
    from the one a step fewer); read only."""
    stocks = ctx.stocks
    stock = stocks.get(paid)
    if stock is None:
        stock = dict(ctx.stock if paid == 0 else _stock_after(ctx, paid - 1))
        if paid > 0:
            marble, iron, gold = stock["marble"], stock["iron"], stock["gold"]
            # max() over (marble, iron, gold): the first of the largest
            if marble >= iron and marble >= gold:
                stock["marble"] -= 1
            elif iron >= gold:
                stock["iron"] -= 1
            else:
                stock["gold"] -= 1
        stocks[paid] = stock
    return stock


def _field_value(ctx: Context, field: str, paid: int) -> float:
    """What taking ``field`` now is worth, in resources."""
    stock = ctx.stock if paid == 0 else _stock_after(ctx, paid)  # (read only)
    if field in RESOURCES:
        amount = ctx.production(field)
        lack = max(0, _goals(ctx)[field] - stock[field])
        return amount + 0.8 * min(amount, lack)
    if field == "temple":
        return _temple_value(ctx, stock)
    if field == "knowhow":
        return _knowhow_value(ctx, stock)
    if field == "arming":
        return _arming_value(ctx, stock)
    return _maneuver_value(ctx, stock)


def _next_threshold(have: int, thresholds: Iterable[int]) -> int | None:
    for t in thresholds:
        if t > have:
            return t
    return None


def _temple_value(ctx: Context, stock: Mapping[str, int]) -> float:
    temples = ctx.temple_count
    n = min(len(ctx.mine) - temples, stock["marble"] // C.TEMPLE_COST, ctx.temples_left)
    if not n:
        return 0.0
    value = (C.TEMPLE_COST + 2.0) * n
    nxt = _next_threshold(temples, C.CITIZEN_TEMPLES)
    if nxt is not None and temples + n >= nxt:
        value += POINT
    return value


def _knowhow_value(ctx: Context, stock: Mapping[str, int]) -> float:
    gold = stock["gold"]
    value = 0.0
    for k in _first_buys(ctx):
        if gold >= C.FIRST_COST:
            gold -= C.FIRST_COST
            value += C.FIRST_COST + POINT * (2 if k == "philosophy" else 1) - 4.0
    for k in WISHLIST:
        if k in ctx.knowhow or k not in ctx.first:
            continue
        if (k not in NEEDS or NEEDS[k] in ctx.knowhow) and gold >= C.KNOWHOW_COST and _useful(
                ctx, k):
            gold -= C.KNOWHOW_COST
            value += C.KNOWHOW_COST + POINT - 4.0 if k == "philosophy" else 2.0
    return value


def _useful(ctx: Context, k: str) -> bool:
    """A know-how worth its price to a later buyer (Philosophy: a Scholar to everyone)."""
    if k == "philosophy":
        return True
    if k == "currency":
        return ctx.production("gold") >= 2
    if k == "democracy":
        return ctx.production("marble") >= 2
    if k == "monarchy":
        exposures = ctx.exposures()
        return any(exposures[p] for p in ctx.mine)
    return k == "wheel"


def _units_wanted(ctx: Context) -> int:
    """Units to buy: what exposed cities lack, a few for expansion, and in war what the
    next conquest takes."""
    cached: int | None = ctx.cache.get("units_wanted")
    if cached is not None:  # asked by the production, Arming and goal scores alike
        return cached
    exposures = ctx.exposures()
    defence = sum(min(2, exposures[p]) for p in ctx.mine)
    units = ctx.legion_count + ctx.galley_count
    spread = max(0, 3 + len(ctx.mine) // 3 - units)
    war = 0
    target = _war_target(ctx)
    if target is not None:
        war = max(0, _defence(ctx, target) + 1 - _available_near(ctx, target))
    wanted = defence + spread + _navigator_gap(ctx) + war + min(2, len(_landing_seas(ctx)))
    ctx.cache["units_wanted"] = wanted
    return wanted


def _landing_seas(ctx: Context) -> dict[str, int]:
    """Seas where a new galley would stand on the coast of empty sites no own unit reaches
    yet (islands above all), with how many such sites each touches (worked out once per
    decision; the callers only read it)."""
    if "landing" in ctx.cache:
        known: dict[str, int] = ctx.cache["landing"]
        return known
    reach = _reach(ctx)
    coasts = ctx.coast_lists
    placeable: set[str] = set()
    for p in ctx.mine:
        placeable.update(coasts[p])
    out: dict[str, int] = {}
    for pid in ctx.empty_sites():
        if pid in reach:
            continue
        for sea in coasts[pid]:
            if sea in placeable:
                out[sea] = out.get(sea, 0) + 1
    ctx.cache["landing"] = out
    return out


def _at_war(ctx: Context) -> bool:
    """Expansion is over (no empty site left), the nation is sitting on resources or a
    rival is close to the target and ahead of it."""
    if not ctx.empty_sites() or sum(ctx.stock.values()) >= WAR_CHEST:
        return True
    leader, _ = _leader(ctx)
    return leader is not None and ctx.cache["leader_points"] >= C.TARGET[ctx.n] - LEADER_ALARM


def _leader(ctx: Context) -> tuple[str | None, dict[str, float]]:
    """The rival to stop, and what a city of each rival is worth as a target over a city
    of a rival level with the nation (in resources): the rival with the most
    personalities (on a tie the most cities and temples, then the first in seat order) is
    the leader when it is ahead of the nation or within ``LEADER_ALARM`` of the target,
    and its cities are worth ``LEADER_BONUS`` more; every rival's cities are worth
    ``LEADER_LEAD`` more for every personality its standing is ahead of the nation's (less
    for every one behind, down to ``LEADER_FLOOR``; never less with a single rival),
    where a standing is the personalities plus ``STANDING`` for every city and temple (so
    that an early lead in cities counts before anyone has a personality).
    Worked out once per decision."""
    known: tuple[str | None, dict[str, float]] | None = ctx.cache.get("leader")
    if known is not None:
        return known
    state = ctx.state
    me = ctx.nation
    personalities = state.personalities
    best: tuple[int, int, str] | None = None
    tally: dict[str, int] = {}
    for owner in ctx.cities.values():
        tally[owner] = tally.get(owner, 0) + 1
    for p in ctx.temples:
        holder = ctx.cities.get(p)
        if holder is not None:
            tally[holder] = tally.get(holder, 0) + 1
    mine = sum(personalities[me].values())
    mine_standing = mine + STANDING * tally.get(me, 0)
    bonus: dict[str, float] = {}
    active = state.active()
    # with a single rival there is nobody else to fight: it is never spared
    floor = LEADER_FLOOR if len(active) > 2 else 0
    for nat in active:
        if nat == me:
            continue
        points = sum(personalities[nat].values())
        standing = points + STANDING * tally.get(nat, 0)
        bonus[nat] = LEADER_LEAD * max(-floor, standing - mine_standing)
        key = (points, tally.get(nat, 0), nat)
        if best is None or key[:2] > best[:2]:
            best = key
    leader: str | None = None
    top = 0
    if best is not None:
        top = best[0]
        if top > mine or top >= C.TARGET[ctx.n] - LEADER_ALARM:
            leader = best[2]
            bonus[leader] += LEADER_BONUS
    ctx.cache["leader_points"] = top
    known = ctx.cache["leader"] = (leader, bonus)
    return known


def _war_target(ctx: Context) -> str | None:
    """At war: the enemy city to take next (close, weak, with a temple if possible, the
    leader's above all: see :func:`_leader`)."""
    if "war" in ctx.cache:
        cached: str | None = ctx.cache["war"]
        return cached
    best: tuple[float, int, str] | None = None
    if _at_war(ctx):
        _, bonus = _leader(ctx)
        cities = ctx.cities
        bases = ctx.mine
        dist = ctx.land_steps(bases)
        coast = {s for b in bases for s in ctx.coast_lists[b]}
        sea_dist = ctx.sea_steps(coast)
        for pid, defence in ctx.targets().items():
            steps = min([dist.get(pid, FAR)] + [sea_dist.get(c, FAR) for c in ctx.coasts(pid)])
            if steps >= FAR:
                continue
            score = 6.0 - defence - 1.5 * steps + (POINT if pid in ctx.temples else 0)
            extra = bonus.get(cities[pid], 0.0)
            if extra < -SPARE_WEAK:
                continue
            score += extra
            key = (score, -ctx.order_of(pid), pid)
            if best is None or key[:2] > best[:2]:
                best = key
    choice = best[2] if best is not None else None
    ctx.cache["war"] = choice
    return choice


def _navigator_gap(ctx: Context) -> int:
    """Galleys still to place for the next Navigator (0 when none is in sight; worked out
    once per decision)."""
    gap: int | None = ctx.cache.get("navigator_gap")
    if gap is None:
        held = ctx.sea_count
        nxt = _next_threshold(held, C.NAVIGATOR_SEAS)
        gap = 0 if nxt is None or nxt - held > 3 or ctx.galley_count >= C.GALLEYS else (
            nxt - held)
        ctx.cache["navigator_gap"] = gap
    return gap


def _arming_value(ctx: Context, stock: Mapping[str, int]) -> float:
    iron = stock["iron"] - (C.FOUND_COST["iron"] if ctx.empty_sites() else 0)
    n = max(0, iron // min(C.LEGION_COST, C.GALLEY_COST))
    useful = min(n, _units_wanted(ctx))
    if not useful:
        return 0.0
    value = (C.LEGION_COST + 1.0) * useful
    gap = _navigator_gap(ctx)
    if gap and n >= gap and gap <= len(_new_seas(ctx)):
        value += POINT / 2
    return value


def _new_seas(ctx: Context) -> list[str]:
    """Seas where the nation may place a galley and has none."""
    out = []
    for p in ctx.mine:
        for s in ctx.coasts(p):
            if not ctx.galleys_at(s) and s not in out:
                out.append(s)
    return out


def _maneuver_value(ctx: Context, stock: Mapping[str, int]) -> float:
    value = 0.0
    cost = C.FOUND_COST
    founds = min(stock["marble"] // max(1, cost["marble"]), stock["iron"] // max(1, cost["iron"]),
                 stock["gold"] // max(1, cost["gold"]))
    if founds and ctx.stones > 0:
        n = min(founds, _sites_in_reach(ctx))
        value += 6.0 * n
        nxt = _next_threshold(len(ctx.mine), C.KING_CITIES)
        if n and nxt is not None and len(ctx.mine) + n >= nxt:
            value += POINT
    for term in _conquests(ctx):
        value += term
    if value == 0.0 and _navigator_gap(ctx) and ctx.galley_count > ctx.sea_count:
        value = 2.0
    return value


def _sites_in_reach(ctx: Context) -> int:
    """Empty sites an own unit could stand on or touch after one move (both Maneuver
    fields ask: worked out once per decision)."""
    known: int | None = ctx.cache.get("sites_in_reach")
    if known is None:
        known = ctx.cache["sites_in_reach"] = len(set(ctx.empty_sites()) & _reach(ctx))
    return known


def _conquests(ctx: Context) -> list[float]:
    """What each enemy city the nation has the units near to conquer is worth, in
    :meth:`Context.targets` order (both Maneuver fields ask: worked out once)."""
    known: list[float] | None = ctx.cache.get("conquests")
    if known is None:
        near = _units_near(ctx)
        _, bonus = _leader(ctx)
        cities = ctx.cities
        # a defence is at least 1: a city no unit can reach is no conquest (nor worth its
        # defence worked out)
        known = ctx.cache["conquests"] = [
            5.0 + (POINT if pid in ctx.temples else 0.0)
            + max(0.0, bonus.get(cities[pid], 0.0) / 2)
            for pid in ctx.target_sites() if (n := near.get(pid, 0)) and n >= _defence(ctx, pid)
            and bonus.get(cities[pid], 0.0) >= -SPARE_WEAK]
    return known


def _reach(ctx: Context) -> set[str]:
    """Provinces where the nation could stand (legion) or touch (galley) after one move
    (worked out once per decision; the callers only read it)."""
    if "reach" in ctx.cache:
        known: set[str] = ctx.cache["reach"]
        return known
    out: set[str] = set()
    for pid, legions in ctx.army.items():
        if legions:
            out.update(ctx.moves_from(pid))
    for sid in ctx.fleet:
        out.update(ctx.shores_reached(sid))
    ctx.cache["reach"] = out
    return out


def _available_near(ctx: Context, pid: str) -> int:
    """Own units that are at a province or could get there in one move."""
    return _units_near(ctx).get(pid, 0)


def _units_near(ctx: Context) -> dict[str, int]:
    """:func:`_available_near` of every province, worked out once per decision from the
    units' side: a province's legions count where they can get in one move (all of them
    where they stand, elsewhere the spare ones), and a fleet counts once for every
    province on the shore of a sea it can get to. (Where a legion can get is within its
    range by land, so nothing is missed by not starting from the province.)"""
    known: dict[str, int] | None = ctx.cache.get("near")
    if known is not None:
        return known
    total: dict[str, int] = {}
    for q, legions in ctx.army.items():
        if not legions:
            continue
        spare = _spare_legions(ctx, q)
        for dst in ctx.moves_from(q):
            n = legions if dst == q else spare
            if n:
                total[dst] = total.get(dst, 0) + n
    for sid, galleys in ctx.fleet.items():
        if not galleys:
            continue
        for dst in ctx.shores_reached(sid):
            total[dst] = total.get(dst, 0) + galleys
    ctx.cache["near"] = total
    return total


def _defence(ctx: Context, pid: str) -> int:
    """The defence of a province known to hold a city."""
    strength = ctx.defence(pid)
    assert strength is not None
    return strength


def _spare_legions(ctx: Context, pid: str) -> int:
    """Legions that may leave a province without exposing an own city there (once per
    province and decision)."""
    known = ctx.spare
    if pid in known:
        return known[pid]
    n = ctx.army.get(pid, 0)
    spare = n
    own = ctx.cities.get(pid) == ctx.nation
    if own and ctx.exposed(pid) == 0 and n:
        # leaving would drop the defence by n: keep what the enemy could match
        margin = _defence(ctx, pid) - ctx.power().get(pid, 0) - 1
        spare = max(0, min(n, margin)) if len(ctx.mine) > 1 else n
    elif own and len(ctx.mine) > 1:
        spare = 0
    known[pid] = spare
    return spare


# -- inside a field ------------------------------------------------------------------------

def _act(ctx: Context, field: str | None, legal: list[str]) -> str:
    if field == "temple":
        return _pick_temple(ctx, legal)
    if field == "knowhow":
        return _pick_knowhow(ctx, legal)
    if field == "arming":
        return _pick_arming(ctx, legal)
    if field in ("maneuver1", "maneuver2"):
        return _pick_maneuver(ctx, legal)
    return "end"


def _pick_temple(ctx: Context, legal: list[str]) -> str:
    options = [a.split()[1] for a in legal if a.startswith("temple ")]
    if not options:
        return "end"
    want = _goals(ctx)
    rank = {"marble": 2, "gold": 1, "iron": 0}

    def key(pid: str) -> tuple[int, int, int, int]:
        r = ctx.resource[pid]
        return (-ctx.exposed(pid), int(want[r] > ctx.stock[r]), rank[r], -ctx.order_of(pid))
    return f"temple {max(options, key=key)}"


def _pick_knowhow(ctx: Context, legal: list[str]) -> str:
    options = {a.split()[1] for a in legal if a.startswith("learn ")}
    for k in WISHLIST:
        if k in options and k not in ctx.first:
            return f"learn {k}"
    for k in WISHLIST:
        if k in options and _useful(ctx, k):
            return f"learn {k}"
    return "end"


def _pick_arming(ctx: Context, legal: list[str]) -> str:
    reserve = C.FOUND_COST["iron"] if ctx.empty_sites() else 0
    iron = ctx.stock["iron"] - reserve
    if _units_wanted(ctx) <= 0:
        return "end"
    legions = [a.split()[1] for a in legal if a.startswith("legion ")]
    galleys = [a.split()[1] for a in legal if a.startswith("galley ")]
    # first the cities an enemy could take next turn, temples first
    if iron >= C.LEGION_COST:
        exposed = [pid for pid in legions if ctx.exposed(pid)]
        if exposed:
            pid = max(exposed, key=lambda q: (q in ctx.temples, -ctx.exposed(q),
                                              -ctx.order_of(q)))
            return f"legion {pid}"
    # then a galley on the coast of empty sites out of reach (islands)
    if iron >= C.GALLEY_COST:
        landing = _landing_seas(ctx)
        spots = [g for g in galleys if landing.get(g)]
        if spots:
            return f"galley {max(spots, key=lambda g: (landing[g], -ctx.order_of(g)))}"
    # then a galley in a new sea, while a Navigator is in sight
    if iron >= C.GALLEY_COST and _navigator_gap(ctx):
        fresh = [s for s in galleys if not ctx.galleys_at(s)]
        if fresh:
            return f"galley {fresh[0]}"
    # at war, units where they are closest to the next conquest
    target = _war_target(ctx)
    if target is not None:
        on_coast = [g for g in galleys if g in ctx.coasts(target)]
        if on_coast and iron >= C.GALLEY_COST:
            return f"galley {on_coast[0]}"
        if legions and iron >= C.LEGION_COST:
            dist = ctx.land[target]
            pid = min(legions, key=lambda q: (dist.get(q, FAR), ctx.order_of(q)))
            if dist.get(pid, FAR) < FAR:
                return f"legion {pid}"
    # then legions where they are closest to an empty site
    if iron >= C.LEGION_COST and legions:
        sites = ctx.empty_sites()
        if sites:
            dist = ctx.land_steps(sites)
            pid = min(legions, key=lambda q: (dist.get(q, FAR), ctx.legions_at(q),
                                              ctx.order_of(q)))
            if dist.get(pid, FAR) < FAR:
                return f"legion {pid}"
        if galleys and iron >= C.GALLEY_COST:
            return f"galley {galleys[0]}"
        return f"legion {legions[0]}"
    if galleys and iron >= C.GALLEY_COST:
        return f"galley {galleys[0]}"
    return "end"


def _pick_maneuver(ctx: Context, legal: list[str]) -> str:
    leader, bonus = _leader(ctx)
    conquers = [a for a in legal if a.startswith("conquer ")
                and bonus.get(ctx.cities.get(a.split()[1], ""), 0.0) >= -SPARE_WEAK]
    if conquers:

        def ckey(a: str) -> tuple[int, int, int, int]:
            _, pid, n = a.split()
            return (int(ctx.cities.get(pid) == leader), int(pid in ctx.temples), int(n),
                    -ctx.order_of(pid))
        return max(conquers, key=ckey)
    founds = [a.split()[1] for a in legal if a.startswith("found ")]
    if founds:
        want = _goals(ctx)

        def fkey(pid: str) -> tuple[int, int, int]:
            r = ctx.resource[pid]
            return (want[r] - ctx.stock[r] - ctx.production(r), -ctx.power().get(pid, 0),
                    -ctx.order_of(pid))
        return f"found {max(founds, key=fkey)}"
    for a in legal:
        if a.startswith("fight "):
            _, region, other = a.split()
            if region in ctx.provinces and region not in ctx.cities:
                mine = ctx.legions_at(region)
                theirs = ctx.legions_at(region, other)
                if mine > theirs:
                    return a
    return _pick_move(ctx, legal) or "end"


@lru_cache(maxsize=8192)
def _move_parts(action: str) -> tuple[str, str, int]:
    """A move's (from, to, count), read once per text (a few thousand come up)."""
    _, count, src, dst = action.split()
    return src, dst, int(count)


def _pick_move(ctx: Context, legal: list[str]) -> str | None:
    moves: dict[tuple[str, str], list[int]] = {}
    for a in legal:
        if a.startswith("move "):
            src, dst, count = _move_parts(a)
            moves.setdefault((src, dst), []).append(count)
    if not moves:
        return None
    touched = ctx.fleet_shores()
    army = ctx.army
    sites = [pid for pid in ctx.empty_sites() if pid not in army and pid not in touched]
    near = _units_near(ctx)
    _, bonus = _leader(ctx)
    cities = ctx.cities
    targets = {pid: d - ctx.units_at(pid) for pid in ctx.target_sites()
               if (n := near.get(pid, 0)) and bonus.get(cities[pid], 0.0) >= -SPARE_WEAK
               and n >= (d := _defence(ctx, pid))}
    targets = {pid: need for pid, need in targets.items() if need > 0}
    war = _war_target(ctx)
    if war is not None and war not in targets:
        need = _defence(ctx, war) - ctx.units_at(war)
        if need > 0:
            targets[war] = need
    goals = sites + list(targets)
    # the steps to the goals by land (by sea) only where a legion (a galley) may move
    provinces = ctx.provinces
    by_land = any(src in provinces for src, _ in moves)
    land_goal = ctx.land_steps(goals) if by_land else {}
    goal_seas: set[str] = set()
    sea_goal: dict[str, int] = {}
    if not by_land or any(src not in provinces for src, _ in moves):
        goal_seas = {s for pid in goals for s in ctx.coast_lists[pid]}
        sea_goal = ctx.sea_steps(goal_seas)
    navigating = _navigator_gap(ctx) > 0
    best: tuple[tuple[float, int], str] | None = None
    for (src, dst), counts in moves.items():
        if src in ctx.provinces:
            spare = min(_spare_legions(ctx, src),
                        ctx.legions_at(src) - ctx.moved.get(src, 0))
            gain = land_goal.get(src, FAR) - land_goal.get(dst, FAR)
            if gain <= 0 or spare <= 0:
                continue
            if dst in targets:
                need, score = targets[dst], 6.0 + gain
            elif dst in sites:
                need, score = 1, 5.0 + gain
            else:
                need, score = 1, 1.0 + gain
        else:
            here = ctx.galleys_at(src)
            spare = here - ctx.moved.get(src, 0)
            if spare <= 0:
                continue
            gain = sea_goal.get(src, FAR) - sea_goal.get(dst, FAR)
            if gain > 0:
                need, score = 1, (5.5 if dst in goal_seas else 1.0) + gain
                hit = [targets[t] for t in targets if dst in ctx.coasts(t)]
                if hit:
                    need = max(hit)
            elif navigating and not ctx.galleys_at(dst) and here >= 2:
                need, score = 1, 3.0
            else:
                continue
        rank = (score, -ctx.order_of(dst))
        if best is None or rank > best[0]:
            n = min(spare, need)
            pick = min(counts, key=lambda c: (abs(c - n), c))
            best = (rank, f"move {pick} {src} {dst}")
    return best[1] if best is not None else None


# -- for the search (engine/search.py) ---------------------------------------------------

#: Steps a search play-out takes before :func:`evaluate` scores the position: about two
#: turns of each nation (a turn is a wheel move, a few actions and `end`).
PLAYOUT_STEPS = 16
#: How sharply a lead in personalities turns into a share of the win (softmax temperature).
_TEMPERATURE = 1.2


def _progress(have: int, thresholds: tuple[int, ...]) -> float:
    """How far ``have`` is from the last threshold passed to the next one, in [0, 1)."""
    last = 0
    for t in thresholds:
        if have < t:
            return (have - last) / (t - last)
        last = t
    return 0.0


def _nation_score(state: AntiquityState, nation: str) -> float:
    """Personalities, and the way to the next ones, in personalities."""
    cities = state.city_count(nation)
    temples = state.temple_count(nation)
    seas = state.seas_of(nation)
    score = float(state.points(nation))
    score += 0.8 * _progress(cities, C.KING_CITIES)
    score += 0.8 * _progress(temples, C.CITIZEN_TEMPLES)
    score += 0.5 * _progress(seas, C.NAVIGATOR_SEAS)
    score += 0.06 * cities + 0.05 * temples + 0.04 * len(state.knowhow[nation])
    units = state.legions_of(nation) + state.galleys_of(nation)
    score += 0.02 * units + 0.03 * state.total_resources(nation)
    return score


def evaluate(game: Any, state: AntiquityState) -> dict[str, float]:
    """Each player's share of a win, in [0, 1], summing to 1: a softmax of personalities
    and the progress toward the next King (cities), Citizen (temples) and Navigator
    (seas), with a little for know-hows, units and resources; near the target the lead
    counts for more."""
    outcome = game.outcome(state)
    if outcome is not None:
        return {p: (1.0 / len(outcome.winners) if p in outcome.winners else 0.0)
                for p in state.players}
    active = state.active()
    scores = {nat: _nation_score(state, nat) for nat in active}
    goal = C.TARGET[state.n]
    # the nearer anyone is to the target, the less time the others have to catch up
    closeness = max(scores.values()) / goal
    temperature = _TEMPERATURE * max(0.35, 1.0 - closeness)
    top = max(scores.values())
    weights = {nat: math.exp((v - top) / temperature) for nat, v in scores.items()}
    total = sum(weights.values())
    return {state.player_of(nat): weights.get(nat, 0.0) / total for nat in state.nations}
