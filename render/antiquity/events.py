"""What the events did on an Antiquity board (every public event since the last image, a
whole turn): moves along their paths, fights, conquests, cities founded and abandoned,
temples, units armed, production and know-hows, and the log's lines in words. Unknown and
malformed events are skipped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from render.antiquity.geography import game_map, place_name
from render.antiquity.layout import (
    FIELD_NAMES,
    KNOWHOW_NAMES,
    KNOWHOWS,
    MAX_COUNT,
    PERSONALITIES,
    RESOURCES,
)
from render.antiquity.view import _field, _nation_colour, _nation_name
from render.common import (
    ACCENT,
    MAX_EVENTS,
    MUTED,
    TEXT,
    Colour,
    as_int,
    as_str,
    bounded,
    drawable_events,
    lighten,
    mapping,
)


@dataclass(frozen=True)
class _Move:
    nation: str | None
    unit: str
    count: int
    path: tuple[str, ...]  # from, then every region entered


@dataclass(frozen=True)
class _Line:
    """A line of the log: its runs of text, whose action it tells (``nation``: its name is
    the first run) and whether it heads a nation's turn ("Round 23 · Romans to play")."""

    runs: tuple[tuple[str, Colour], ...]
    nation: str | None = None
    heading: bool = False


@dataclass
class _Turn:
    moves: list[_Move] = field(default_factory=list)
    marks: list[tuple[str, str, str | None]] = field(default_factory=list)  # kind, region, nation
    armed: dict[tuple[str | None, str], int] = field(default_factory=dict)  # (nation, region)
    fights: dict[str, int] = field(default_factory=dict)  # region -> units lost (both sides)
    goes: list[tuple[str | None, str | None, str]] = field(default_factory=list)
    produced: dict[str, list[str]] = field(default_factory=dict)  # nation -> ["+3 gold"]
    learnt: dict[str, set[str]] = field(default_factory=dict)  # nation -> know-hows
    lines: list[_Line] = field(default_factory=list)  # the log


def _region_id(value: Any) -> str | None:
    return value if game_map().region(value) is not None else None


def _who(nid: Any) -> tuple[str, Colour]:
    return _nation_name(nid), lighten(_nation_colour(nid), 0.3)


def _rname(rid: str | None) -> str:
    """A region as the map names it (a city, a sea without "Mare")."""
    region = game_map().region(rid)
    return "?" if region is None else place_name(region)


def _read_events(events: Any) -> _Turn:
    """The drawable facts in ``events``: unknown and malformed events are skipped."""
    turn = _Turn()
    gm = game_map()

    def line(nid: str | None, *rest: str) -> None:
        turn.lines.append(_Line((_who(nid), (" " + " ".join(rest), TEXT)), nid)
                          if nid is not None else _Line(((" ".join(rest), TEXT),)))

    for e in drawable_events(events, MAX_EVENTS):
        kind, nid = e["type"], as_str(e.get("nation"))
        if kind == "turn":
            rnd = as_int(e.get("round"))
            who, colour = _who(nid)
            turn.lines.append(_Line(((f"Round {min(rnd, 999)} · " if rnd > 0 else "", MUTED),
                                     (who, colour), (" to play", MUTED)), nid, heading=True))
        elif kind == "go":
            fid = _field(e.get("field"))
            if fid is None:
                continue
            turn.goes.append((nid, _field(e.get("from")), fid))
            steps = bounded(e.get("steps"))
            paid = mapping(e.get("paid"))
            cost = ", ".join(f"{bounded(n)} {r}" for r, n in paid.items()
                             if r in RESOURCES and bounded(n) > 0)
            extra = f" ({steps} step{'s' if steps != 1 else ''}" if steps else " ("
            extra += (f", paid {cost})" if cost else ", free)") if steps else "first move)"
            line(nid, "→", FIELD_NAMES[fid] + extra)
        elif kind == "produce":
            res = e.get("resource")
            amount = bounded(e.get("amount"))
            if res in RESOURCES and nid is not None:
                turn.produced.setdefault(nid, []).append(f"+{amount} {res}")
                line(nid, f"produced {amount} {res}")
        elif kind in ("temple", "found", "abandon"):
            rid = _region_id(e.get("province"))
            if rid is None:
                continue
            turn.marks.append((kind, rid, nid))
            verb = {"temple": "built a temple in", "found": "founded",
                    "abandon": "abandoned"}[kind]
            line(nid, verb, _rname(rid))
        elif kind == "arm":
            rid = _region_id(e.get("region"))
            if rid is None:
                continue
            key = (nid, rid)
            turn.armed[key] = min(MAX_COUNT, turn.armed.get(key, 0) + 1)
        elif kind == "learn":
            kid = e.get("knowhow")
            if kid not in KNOWHOWS:
                continue
            if nid is not None:
                turn.learnt.setdefault(nid, set()).add(str(kid))
            first = ", first: a Scholar" if e.get("first") else ""
            line(nid, f"learnt {KNOWHOW_NAMES[str(kid)]} ({bounded(e.get('cost'))} gold{first})")
        elif kind == "move":
            src = _region_id(e.get("from"))
            route = e.get("path")
            hops = [str(r) for r in (route[:12] if isinstance(route, list) else [])
                     if _region_id(r) is not None]
            dst = _region_id(e.get("to"))
            if not hops and dst is not None:
                hops = [dst]
            if src is None or not hops or hops[-1] == src:
                continue
            origin = gm.region(src)
            unit = "galley" if e.get("unit") == "galley" or (origin is not None and origin.sea) \
                else "legion"
            moved = bounded(e.get("count"))
            turn.moves.append(_Move(nid, unit, moved, (src, *hops)))
            line(nid, f"moved {moved} {unit}{'s' if moved != 1 else ''} {_rname(src)} → "
                      f"{_rname(hops[-1])}")
        elif kind == "fight":
            rid = _region_id(e.get("region"))
            if rid is None:
                continue
            losses = bounded(e.get("losses"))
            turn.fights[rid] = min(MAX_COUNT, turn.fights.get(rid, 0) + losses)
            line(nid, f"fought the {_nation_name(e.get('other'))} in {_rname(rid)}: "
                      f"{losses} lost each")
        elif kind == "conquer":
            rid = _region_id(e.get("province"))
            if rid is None:
                continue
            turn.marks.append(("conquer", rid, nid))
            temple = ", temple destroyed" if e.get("temple") else ""
            line(nid, f"conquered {_rname(rid)} from the {_nation_name(e.get('defender'))} "
                      f"(strength {bounded(e.get('strength'))}{temple})")
        elif kind == "personality":
            pkind = e.get("kind")
            if pkind in PERSONALITIES:
                line(nid, f"gained a {str(pkind).title()} ({bounded(e.get('total'))} "
                          "personalities)")
        elif kind == "victory":
            winner = e.get("nation")
            if isinstance(winner, str):
                # never shortened under the winner's own turn: the name is the news
                turn.lines.append(_Line((_who(winner), (" win!", TEXT))))
            else:
                turn.lines.append(_Line((("The game is over.", ACCENT),)))
        elif kind == "resign":
            line(nid, "resigned")
    # units armed, one line per nation
    armed: dict[str | None, list[str]] = {}
    for (nid, rid), n in turn.armed.items():
        region = gm.region(rid)
        unit = "galley" if region is not None and region.sea else "legion"
        armed.setdefault(nid, []).append(f"{n} {unit}{'s' if n != 1 else ''} in {_rname(rid)}")
    for nid, parts in armed.items():
        line(nid, "armed " + ", ".join(parts))
    return turn

