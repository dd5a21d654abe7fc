"""A simple, fast, deterministic automatic player for Antiquity (tests, time-outs and the
balance simulation; docs/games/antiquity.md).

It reads only the public view and the legal actions (plus the static map and the price
list). On the wheel it scores every field it can reach: production is worth what the nation
lacks for its next temples, know-hows, legions and cities; Temple is worth the temples it
can afford; Know-how the Scholars (first buys) it can afford; Arming the units it needs;
a Maneuver the cities it can found or conquer now and the ground it can gain toward them.
Steps it must pay for count against a field. Inside an action field it takes the best
single action again and again (each one spends resources or units, so the field always
ends) and closes with ``end``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from engine.antiquity import constants as C
from engine.antiquity.board import LAND, SEA_NEIGHBOURS

View = Mapping[str, Any]
RESOURCES = ("marble", "iron", "gold")
#: Know-hows in the order the player wants them once nobody is left to beat to them.
WISHLIST = ("wheel", "monarchy", "currency", "sailing", "democracy", "roads", "navigation",
            "philosophy")
NEEDS = {"roads": "wheel", "navigation": "sailing"}
FAR = 99


def choose_action(game: Any, state: Any, player: str) -> str:
    """The action ``player`` takes now (always one of ``legal_actions``)."""
    legal = game.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do")
    if len(legal) == 1:
        return str(legal[0])
    view = game.view(state, player)
    me = next(n for n in view["nations"] if n["id"] == view["turn"])
    ctx = _Context(view, me)
    if view["phase"] == "wheel":
        return _wheel(ctx, legal)
    choice = _act(ctx, view.get("field"), legal)
    if choice in legal:
        return choice
    return "end" if "end" in legal else str(legal[0])


# -- what the player sees --------------------------------------------------------------------

class _Context:
    """The view digested once per call."""

    def __init__(self, view: View, me: Mapping[str, Any]) -> None:
        self.view = view
        self.me = me
        self.nation: str = me["id"]
        self.provinces: dict[str, Mapping[str, Any]] = {p["id"]: p for p in view["provinces"]}
        self.seas: dict[str, Mapping[str, Any]] = {s["id"]: s for s in view["seas"]}
        self.knowhow: set[str] = set(me["knowhow"])
        self.stock = {r: int(me[r]) for r in RESOURCES}
        self.mine = [p for p in view["provinces"] if p["owner"] == self.nation]
        self.cities_of: dict[str, int] = {}
        for p in view["provinces"]:
            if p["owner"]:
                self.cities_of[p["owner"]] = self.cities_of.get(p["owner"], 0) + 1
        self.range_legion = 1 + ("wheel" in self.knowhow) + ("roads" in self.knowhow)
        self.range_galley = 1 + ("sailing" in self.knowhow) + ("navigation" in self.knowhow)
        self.target: int = int(view["target"])

    # production of one resource
    def production(self, resource: str) -> int:
        amount = sum(3 if p["temple"] else 1 for p in self.mine if p["resource"] == resource)
        if resource == "marble" and "democracy" in self.knowhow:
            amount += C.DEMOCRACY_BONUS
        if resource == "gold" and "currency" in self.knowhow:
            amount += C.CURRENCY_BONUS
        return amount

    def legions_at(self, province: str, nation: str | None = None) -> int:
        return int(self.provinces[province]["legions"].get(nation or self.nation, 0))

    def galleys_at(self, sea: str, nation: str | None = None) -> int:
        return int(self.seas[sea]["galleys"].get(nation or self.nation, 0))

    def foreign_legions(self, province: str) -> int:
        return sum(int(n) for k, n in self.provinces[province]["legions"].items()
                   if k != self.nation)

    def units_at(self, province: str, nation: str | None = None) -> int:
        """Legions in the province and galleys on its coast."""
        who = nation or self.nation
        p = self.provinces[province]
        return int(p["legions"].get(who, 0)) + sum(
            int(self.seas[s]["galleys"].get(who, 0)) for s in p["coasts"] if s in self.seas)

    def can_found(self) -> bool:
        return all(self.stock[r] >= 1 for r in RESOURCES) and self.me["stones"] > 0

    def empty_sites(self) -> list[str]:
        return [pid for pid, p in self.provinces.items()
                if p["owner"] is None and not self.foreign_legions(pid)]

    def targets(self) -> dict[str, int]:
        """Enemy cities worth attacking, with the units it takes (their defence)."""
        out = {}
        for pid, p in self.provinces.items():
            owner = p["owner"]
            if owner is None or owner == self.nation or self.cities_of.get(owner, 0) <= 1:
                continue
            defence = p.get("defence")
            if defence is None:
                continue
            out[pid] = int(defence)
        return out

    def sea_ok(self, sea: str) -> bool:
        return not self.seas[sea]["deep"] or "navigation" in self.knowhow


def _distances(sources: Iterable[str], graph: Mapping[str, Iterable[str]],
               allowed: Mapping[str, Any], ok: Any = None) -> dict[str, int]:
    """Steps from every region of ``allowed`` to the nearest source (breadth first)."""
    dist: dict[str, int] = {}
    queue: deque[str] = deque()
    for s in sources:
        if s in allowed and (ok is None or ok(s)):
            dist[s] = 0
            queue.append(s)
    while queue:
        r = queue.popleft()
        for n in graph.get(r, ()):
            if n in allowed and n not in dist and (ok is None or ok(n)):
                dist[n] = dist[r] + 1
                queue.append(n)
    return dist


# -- the wheel -----------------------------------------------------------------------------

def _steps(view: View, me: Mapping[str, Any], field: str) -> int:
    wheel = list(view["wheel"])
    if me["wheel"] is None:
        return 0
    return (wheel.index(field) - wheel.index(me["wheel"])) % len(wheel)


def _wheel(ctx: _Context, legal: list[str]) -> str:
    best: tuple[float, int, str] | None = None
    wheel = list(ctx.view["wheel"])
    for action in legal:
        if not action.startswith("go "):
            continue
        field = action[3:]
        steps = _steps(ctx.view, ctx.me, field)
        paid = max(0, steps - 3)
        score = _field_value(ctx, field, paid) - 2.5 * paid
        key = (score, -wheel.index(field), action)
        if best is None or key[:2] > best[:2]:
            best = key
    return best[2] if best is not None else legal[0]


def _wants(ctx: _Context) -> dict[str, float]:
    """What the nation wants of each resource for its next plans."""
    untempled = sum(1 for p in ctx.mine if not p["temple"])
    temples = min(untempled, int(ctx.view["temples_left"]))
    free_first = [k for k in WISHLIST if k not in ctx.view["first_knowhow"]
                  and k not in ctx.knowhow and NEEDS.get(k, k) in ctx.knowhow | {k}]
    sites = len(ctx.empty_sites())
    want = {
        "marble": C.TEMPLE_COST * min(temples, 2) + (2 if sites else 0),
        "iron": C.LEGION_COST * 2 + (2 if sites else 0),
        "gold": (C.FIRST_COST if free_first else C.KNOWHOW_COST) + (2 if sites else 0),
    }
    return want


def _field_value(ctx: _Context, field: str, paid: int) -> float:
    stock = dict(ctx.stock)
    # the steps paid come out of the largest pile
    for _ in range(paid):
        r = max(RESOURCES, key=lambda x: (stock[x], ("marble", "iron", "gold").index(x)))
        stock[r] -= 1
    if field in RESOURCES:
        amount = ctx.production(field)
        lack = max(0.0, _wants(ctx)[field] - stock[field])
        return min(amount, lack) * 2.0 + amount * 0.6
    if field == "temple":
        return _temple_value(ctx, stock)
    if field == "knowhow":
        return _knowhow_value(ctx, stock)
    if field == "arming":
        return _arming_value(ctx, stock)
    return _maneuver_value(ctx, stock)


def _temple_value(ctx: _Context, stock: Mapping[str, int]) -> float:
    untempled = sum(1 for p in ctx.mine if not p["temple"])
    n = min(untempled, stock["marble"] // C.TEMPLE_COST, int(ctx.view["temples_left"]))
    return 7.0 * n


def _knowhow_value(ctx: _Context, stock: Mapping[str, int]) -> float:
    gold = stock["gold"]
    value = 0.0
    for k in WISHLIST:
        if k in ctx.knowhow or (k in NEEDS and NEEDS[k] not in ctx.knowhow):
            continue
        first = k not in ctx.view["first_knowhow"]
        cost = C.FIRST_COST if first else C.KNOWHOW_COST
        if cost > gold:
            continue
        if first:
            gold -= cost
            value += 9.0 + (4.0 if k == "philosophy" else 0.0)
        elif k in ("wheel", "monarchy", "currency"):
            gold -= cost
            value += 2.0
    return value


def _arming_value(ctx: _Context, stock: Mapping[str, int]) -> float:
    iron = stock["iron"] - (1 if ctx.empty_sites() else 0)
    n = max(0, iron // C.LEGION_COST)
    if not n:
        return 0.0
    units = int(ctx.me["legions"]) + int(ctx.me["galleys"])
    want = 3 + len(ctx.mine) // 2
    return 2.0 * min(n, max(0, want - units)) + 0.5 * min(n, 3)


def _maneuver_value(ctx: _Context, stock: Mapping[str, int]) -> float:
    value = 0.0
    sites = set(ctx.empty_sites())
    founds = min(stock[r] for r in RESOURCES)
    reach = _reach(ctx)
    if founds and ctx.me["stones"] > 0:
        value += 8.0 * min(founds, len(sites & reach))
    for pid, defence in ctx.targets().items():
        if _available_near(ctx, pid) >= defence:
            value += 9.0 + (5.0 if ctx.provinces[pid]["temple"] else 0.0)
    if value == 0.0 and (ctx.me["legions"] or ctx.me["galleys"]):
        value = 1.0
    return value


def _reach(ctx: _Context) -> set[str]:
    """Provinces where the nation could stand (legion) or touch (galley) after one move."""
    out: set[str] = set()
    legions = [pid for pid in ctx.provinces if ctx.legions_at(pid)]
    dist = _distances(legions, LAND, ctx.provinces)
    out.update(pid for pid, d in dist.items() if d <= ctx.range_legion)
    fleets = [s for s in ctx.seas if ctx.galleys_at(s)]
    sdist = _distances(fleets, SEA_NEIGHBOURS, ctx.seas, ctx.sea_ok)
    for pid, p in ctx.provinces.items():
        if any(sdist.get(s, FAR) <= ctx.range_galley for s in p["coasts"]):
            out.add(pid)
    return out


def _available_near(ctx: _Context, pid: str) -> int:
    """Own units at or within one move of a province (a rough count)."""
    dist = _distances([pid], LAND, ctx.provinces)
    total = sum(ctx.legions_at(q) for q, d in dist.items() if d <= ctx.range_legion)
    coasts = [s for s in ctx.provinces[pid]["coasts"] if s in ctx.seas]
    sdist = _distances(coasts, SEA_NEIGHBOURS, ctx.seas, ctx.sea_ok)
    total += sum(ctx.galleys_at(s) for s, d in sdist.items() if d <= ctx.range_galley)
    return total


# -- inside a field ------------------------------------------------------------------------

def _act(ctx: _Context, field: str | None, legal: list[str]) -> str:
    if field == "temple":
        return _pick_temple(ctx, legal)
    if field == "knowhow":
        return _pick_knowhow(ctx, legal)
    if field == "arming":
        return _pick_arming(ctx, legal)
    if field in ("maneuver1", "maneuver2"):
        return _pick_maneuver(ctx, legal)
    return "end"


def _pick_temple(ctx: _Context, legal: list[str]) -> str:
    options = [a.split()[1] for a in legal if a.startswith("temple ")]
    if not options:
        return "end"
    # the richest source first: production the nation lacks most
    want = _wants(ctx)

    def key(pid: str) -> tuple[float, int]:
        p = ctx.provinces[pid]
        threat = _threat(ctx, pid)
        return (want[p["resource"]] - ctx.stock[p["resource"]] - 3 * threat, -_order(ctx, pid))
    return f"temple {max(options, key=key)}"


def _order(ctx: _Context, pid: str) -> int:
    return list(ctx.provinces).index(pid)


def _threat(ctx: _Context, pid: str) -> int:
    """Enemy legions next to or in a province."""
    total = 0
    for q in (pid, *LAND.get(pid, ())):
        if q in ctx.provinces:
            total += ctx.foreign_legions(q)
    return total


def _pick_knowhow(ctx: _Context, legal: list[str]) -> str:
    options = {a.split()[1] for a in legal if a.startswith("learn ")}
    gold = ctx.stock["gold"]
    for k in WISHLIST:
        if k in options and k not in ctx.view["first_knowhow"]:
            return f"learn {k}"
    if gold >= C.KNOWHOW_COST + 2:
        for k in ("wheel", "monarchy", "currency"):
            if k in options:
                return f"learn {k}"
    return "end"


def _pick_arming(ctx: _Context, legal: list[str]) -> str:
    units = int(ctx.me["legions"]) + int(ctx.me["galleys"])
    want = 3 + len(ctx.mine) // 2
    sites = ctx.empty_sites()
    reserve = 1 if sites else 0
    if ctx.stock["iron"] - reserve < C.LEGION_COST or units >= want + 4:
        return "end"
    legions = [a.split()[1] for a in legal if a.startswith("legion ")]
    galleys = [a.split()[1] for a in legal if a.startswith("galley ")]
    # a galley for a new sea (Navigator) when that is cheap and close
    seas_held = {s for s in ctx.seas if ctx.galleys_at(s)}
    nav = [s for s in galleys if s not in seas_held]
    if nav and len(seas_held) < max(C.NAVIGATOR_SEAS) and int(ctx.me["galleys"]) < 2 + len(
            seas_held) and ctx.stock["iron"] - reserve >= C.GALLEY_COST:
        return f"galley {nav[0]}"
    if legions:
        site_dist = _distances(sites, LAND, ctx.provinces)

        def key(pid: str) -> tuple[float, int]:
            return (3 * _threat(ctx, pid) - site_dist.get(pid, FAR) - ctx.legions_at(pid),
                    -_order(ctx, pid))
        return f"legion {max(legions, key=key)}"
    if galleys and ctx.stock["iron"] - reserve >= C.GALLEY_COST:
        return f"galley {galleys[0]}"
    return "end"


def _pick_maneuver(ctx: _Context, legal: list[str]) -> str:
    conquers = [a for a in legal if a.startswith("conquer ")]
    if conquers:
        def ckey(a: str) -> tuple[int, int, int]:
            _, pid, n = a.split()
            p = ctx.provinces[pid]
            return (int(p["temple"]), int(n), -_order(ctx, pid))
        return max(conquers, key=ckey)
    founds = [a.split()[1] for a in legal if a.startswith("found ")]
    if founds:
        want = _wants(ctx)

        def fkey(pid: str) -> tuple[float, int]:
            r = ctx.provinces[pid]["resource"]
            return (want[r] - ctx.stock[r] - ctx.production(r), -_order(ctx, pid))
        return f"found {max(founds, key=fkey)}"
    move = _pick_move(ctx, legal)
    return move or "end"


def _pick_move(ctx: _Context, legal: list[str]) -> str | None:
    moves: dict[tuple[str, str], list[int]] = {}
    for a in legal:
        if a.startswith("move "):
            _, n, src, dst = a.split()
            moves.setdefault((src, dst), []).append(int(n))
    if not moves:
        return None
    sites = ctx.empty_sites()
    targets = ctx.targets()
    # legion goals: empty sites, then enemy cities
    land_goal = _distances(sites + list(targets), LAND, ctx.provinces)
    seas_held = {s for s in ctx.seas if ctx.galleys_at(s)}
    coast_seas = [s for pid in sites for s in ctx.provinces[pid]["coasts"] if s in ctx.seas]
    sea_goal = _distances(coast_seas, SEA_NEIGHBOURS, ctx.seas, ctx.sea_ok)
    best: tuple[float, int, str] | None = None
    for (src, dst), counts in moves.items():
        if src in ctx.provinces:
            here = ctx.legions_at(src)
            moved = int(ctx.provinces[src].get("moved", 0))
            spare = here - moved
            garrison = 1 if ctx.provinces[src]["owner"] == ctx.nation and _threat(
                ctx, src) else 0
            gain = land_goal.get(src, FAR) - land_goal.get(dst, FAR)
            if gain <= 0 or spare - garrison <= 0:
                continue
            if dst in targets:
                need = max(1, targets[dst] - ctx.units_at(dst))
                score = 6.0 + gain
            elif dst in sites:
                need = 1 if not ctx.legions_at(dst) else 0
                if not need:
                    continue
                score = 5.0 + gain
            else:
                need = 1
                score = 1.0 + gain
            n = min(spare - garrison, need)
        else:
            here = ctx.galleys_at(src)
            moved = int(ctx.seas[src].get("moved", 0))
            spare = here - moved
            if spare <= 0:
                continue
            new_sea = dst not in seas_held and here - (moved if moved else 0) >= 1
            gain = sea_goal.get(src, FAR) - sea_goal.get(dst, FAR)
            if new_sea and here >= 2:
                score, n = 4.0, 1
            elif gain > 0:
                score, n = 3.0 + gain, 1
            else:
                continue
        pick = min(counts, key=lambda c: (abs(c - n), c))
        key = (score, -_order_region(ctx, dst), f"move {pick} {src} {dst}")
        if best is None or key[:2] > best[:2]:
            best = key
    return best[2] if best is not None else None


def _order_region(ctx: _Context, rid: str) -> int:
    if rid in ctx.provinces:
        return _order(ctx, rid)
    return 100 + list(ctx.seas).index(rid)
