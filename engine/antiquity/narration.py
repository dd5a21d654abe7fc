"""Antiquity's events told as short lines, and the labels of autocomplete choices
(docs/games/antiquity.md). Everything in Antiquity is public."""

from __future__ import annotations

from typing import Any

from engine.antiquity.board import NATIONS, PROVINCES, RESOURCES, region_name
from engine.antiquity.state import FIELD_NAMES, KNOWHOW_NAMES, WHEEL
from engine.core import Event
from engine.narration import Namer, counted, listing, narrate_public

PERSONALITY_NAMES = {"king": "King", "citizen": "Citizen", "scholar": "Scholar",
                     "navigator": "Navigator", "general": "General"}


def narrate(events: list[Event], names: dict[str, str]) -> list[str]:
    return narrate_public(events, names, _line)


def _nation(nat: object) -> str:
    n = NATIONS.get(str(nat))
    return n.name if n else str(nat)


def _who(event: Event, who: Namer, key: str = "nation", player: str = "player") -> str:
    name = _nation(event.get(key))
    pid = event.get(player)
    return f"{name} ({who(pid)})" if pid else name


def _city(p: object) -> str:
    prov = PROVINCES.get(str(p))
    return f"{prov.city} ({prov.name})" if prov else str(p)


def _paid(paid: Any) -> str:
    if not isinstance(paid, dict) or not paid:
        return "free"
    # in resource order, whatever order a stored event's keys come back in
    return "paying " + listing([f"{paid[r]} {r}" for r in RESOURCES if paid.get(r)])


def _line(e: Event, who: Namer) -> str | None:
    kind = e.get("type")
    if kind == "turn":
        return f"Round {e.get('round')}: {_who(e, who)} to play."
    if kind == "go":
        fld = FIELD_NAMES.get(str(e.get("field")), str(e.get("field")))
        if e.get("from") is None:
            return f"{_who(e, who)} start on {fld}."
        return (f"{_who(e, who)} move {counted(e.get('steps'), 'step')} to {fld} "
                f"({_paid(e.get('paid'))}).")
    if kind == "produce":
        return f"{_who(e, who)} produce {e.get('amount')} {e.get('resource')}."
    if kind == "temple":
        return f"{_who(e, who)} build a temple in {_city(e.get('province'))}."
    if kind == "arm":
        return f"{_who(e, who)} arm a {e.get('unit')} in {region_name(str(e.get('region')))}."
    if kind == "learn":
        k = KNOWHOW_NAMES.get(str(e.get("knowhow")), str(e.get("knowhow")))
        first = ", the first to do so" if e.get("first") else ""
        return f"{_who(e, who)} learn {k} for {e.get('cost')} gold{first}."
    if kind == "move":
        return (f"{_who(e, who)} move {counted(e.get('count'), str(e.get('unit', 'unit')))} "
                f"from {region_name(str(e.get('from')))} to {region_name(str(e.get('to')))}.")
    if kind == "fight":
        return (f"{_who(e, who)} fight the {_nation(e.get('other'))} in "
                f"{region_name(str(e.get('region')))}: each side loses "
                f"{counted(e.get('losses'), str(e.get('unit', 'unit')))}.")
    if kind == "found":
        return f"{_who(e, who)} found {_city(e.get('province'))}."
    if kind == "conquer":
        parts = []
        legions = e.get("legions") or 0
        galleys = sum((e.get("galleys") or {}).values())
        if legions:
            parts.append(counted(legions, "legion"))
        if galleys:
            parts.append(counted(galleys, "galley"))
        temple = "; the temple falls" if e.get("temple") else ""
        prov = PROVINCES.get(str(e.get("province")))
        city = prov.city if prov else str(e.get("province"))
        return (f"{_who(e, who)} conquer {city} from the {_nation(e.get('defender'))} with "
                f"{listing(parts) or 'no units'}{temple}.")
    if kind == "abandon":
        temple = " and its temple" if e.get("temple") else ""
        return f"{_who(e, who)} abandon {_city(e.get('province'))}{temple}."
    if kind == "personality":
        title = PERSONALITY_NAMES.get(str(e.get("kind")), str(e.get("kind")))
        k = e.get("count", 1)
        gain = f"a {title}" if k == 1 else f"{k} {title}s"
        total = e.get("total")
        return (f"{_who(e, who)} gain {gain} ({total} "
                f"{'personality' if total == 1 else 'personalities'} in all).")
    if kind == "resign":
        return f"{_who(e, who)} resign."
    if kind == "victory":
        nations = [_nation(n) for n in e.get("nations") or []]
        winners = [who(p) for p in e.get("winners") or []]
        names = listing([f"{n} ({w})" for n, w in zip(nations, winners, strict=False)])
        verb = "win" if len(nations) > 0 else "nobody wins"
        return f"{names} {verb}! {e.get('reason', '')}".strip()
    return None


# -- autocomplete labels -----------------------------------------------------------------

def _by_id(items: Any) -> dict[str, dict[str, Any]]:
    return {str(x.get("id")): x for x in items or [] if isinstance(x, dict)}


def labels(view: dict[str, Any], kind: str, values: list[str]) -> list[str]:
    nations = _by_id(view.get("nations"))
    provinces = _by_id(view.get("provinces"))
    seas = _by_id(view.get("seas"))

    def province(v: str) -> str:
        p = provinces.get(v)
        if p is None:
            return v
        owner = p.get("owner")
        if owner:
            nat = nations.get(str(owner), {})
            who = str(nat.get("adjective") or nat.get("name") or owner)
        else:
            who = f"free site, {p.get('resource', '')}".rstrip(", ")
        temple = ", temple" if p.get("temple") else ""
        return f"{v} · {p.get('city', v)} ({who}{temple})"

    def sea(v: str) -> str:
        s = seas.get(v)
        if s is None:
            return v
        return f"{v} · {s.get('name', v)}{' (deep)' if s.get('deep') else ''}"

    out = []
    for v in values:
        if kind == "province":
            out.append(province(v))
        elif kind == "sea":
            out.append(sea(v))
        elif kind == "region":
            out.append(province(v) if v in provinces else sea(v))
        elif kind == "field":
            option = next((o for o in view.get("wheel_options") or []
                           if isinstance(o, dict) and o.get("field") == v), None)
            name = FIELD_NAMES.get(v, v)
            if option is None or v not in WHEEL:
                out.append(f"{v} · {name}" if v in WHEEL else v)
            elif not option.get("steps"):
                out.append(f"{v} · {name} (first turn, free)")
            else:
                steps, cost = option.get("steps"), option.get("cost")
                price = "free" if not cost else counted(cost, "resource")
                out.append(f"{v} · {name} ({counted(steps, 'step')}, {price})")
        elif kind == "knowhow":
            cost = (view.get("knowhow_costs") or {}).get(v)
            name = KNOWHOW_NAMES.get(v, v)
            out.append(f"{v} · {name} ({cost} gold)" if cost is not None else f"{v} · {name}")
        elif kind == "nation":
            nat = nations.get(v)
            out.append(f"{v} · {nat.get('name', v)} ({nat.get('player')})" if nat else v)
        else:
            out.append(v)
    return out


__all__ = ["labels", "narrate"]
