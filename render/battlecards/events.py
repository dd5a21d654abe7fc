"""What the public events since the last Battlecards board tell: the shots fired (those of
the battle in play, too), a battle begun and won within them with every unit's fate, and
a battle declined, ignored or not yet allowed. Odd or private events are skipped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from render.battlecards.layout import MAX_EVENTS
from render.battlecards.table import _key
from render.common import as_int, clean_text, drawable_events


@dataclass
class _Fought:
    """A unit seen in a battle reported from the events: its owner, ref, name and fate
    ("destroyed", "withdrawn" or "" for a unit that stayed to the end)."""

    owner: Any
    ref: str
    name: str
    fate: str = ""


@dataclass
class _Finished:
    """A battle won within the events."""

    card: str
    winner: Any
    vp: int
    total_vp: int | None
    how: str  # "" (fought out), "uncontested", "stalemate" or "evacuation"
    aggressor: Any
    units: list[_Fought] = field(default_factory=list)
    shots: list[Mapping[str, Any]] = field(default_factory=list)


@dataclass
class _Digest:
    """The public events since the last board, read."""

    shots: list[Mapping[str, Any]] = field(default_factory=list)
    battle_shots: list[Mapping[str, Any]] = field(default_factory=list)  # since a start
    finished: _Finished | None = None
    news: Mapping[str, Any] | None = None  # a battle declined, ignored or not yet allowed


def _public(events: Any) -> list[Mapping[str, Any]]:
    """The usable public events (the newest, when there are too many)."""
    return drawable_events(events, MAX_EVENTS, newest=True)


def read_events(events: Any) -> _Digest:
    """What ``events`` tell the board (odd or private events are skipped, never trusted)."""
    evs = _public(events)
    digest = _Digest()
    last_start = news_at = -1
    for i, e in enumerate(evs):
        kind = e.get("type")
        if kind == "shot":
            digest.shots.append(e)
        elif kind == "battle_start":
            last_start = i
        elif kind in ("declined", "battle_ignored", "prerequisites_unmet"):
            digest.news, news_at = e, i
    digest.battle_shots = [e for e in evs[last_start + 1:] if e.get("type") == "shot"]
    won = [i for i, e in enumerate(evs) if e.get("type") == "battle_won"]
    if won:
        k = won[-1]
        previous = won[-2] if len(won) > 1 else -1
        starts = [i for i in range(previous + 1, k) if evs[i].get("type") == "battle_start"]
        digest.finished = _finished(evs, starts[-1] if starts else previous + 1, k)
        if news_at < k:  # a battle was won since: that is the news
            digest.news = None
    return digest


def _finished(evs: list[Mapping[str, Any]], first: int, k: int) -> _Finished:
    """The battle won by ``evs[k]``, from the events ``evs[first:k]``."""
    won = evs[k]
    span = evs[first:k]
    units: dict[tuple[str | None, str], _Fought] = {}

    def seen(owner: Any, ref: Any, name: Any) -> _Fought | None:
        key = _key(owner, ref)
        if ref is None or len(units) >= 400:
            return units.get(key)
        if key not in units:
            units[key] = _Fought(key[0], key[1], clean_text(name, limit=60))
        elif not units[key].name:
            units[key].name = clean_text(name, limit=60)
        return units[key]

    how = ""
    aggressor: Any = None
    shots: list[Mapping[str, Any]] = []
    for e in span:
        kind = e.get("type")
        if kind == "battle_start":
            aggressor = e.get("aggressor")
            raw = e.get("units")
            for u in raw[:400] if isinstance(raw, list) else []:
                if isinstance(u, Mapping):
                    seen(u.get("owner"), u.get("ref"), u.get("name"))
        elif kind == "shot":
            shots.append(e)
            seen(e.get("shooter_owner"), e.get("shooter"), e.get("shooter_name"))
            target = seen(e.get("target_owner"), e.get("target"), e.get("target_name"))
            if target is not None and e.get("hit") is True:
                target.fate = "destroyed"
        elif kind == "withdraw":
            u = seen(e.get("player"), e.get("ref"), e.get("name"))
            if u is not None and u.fate != "destroyed":
                u.fate = "withdrawn"
        elif kind == "support":
            seen(e.get("player"), e.get("from"), e.get("from_name"))
            seen(e.get("player"), e.get("to"), e.get("to_name"))
        elif kind == "kept_played":
            seen(e.get("player"), e.get("ref"), e.get("unit"))
        elif kind == "stalemate":
            how = "stalemate"
            aggressor = e.get("player")
            for u in units.values():
                if u.owner == aggressor and not u.fate:
                    u.fate = "withdrawn"
        elif kind == "evacuation":
            how = "evacuation"
        elif kind == "walkover":
            how = "uncontested"
    total = won.get("total_vp")
    return _Finished(card=clean_text(won.get("card"), limit=60) or "Battle",
                     winner=won.get("player"), vp=max(0, as_int(won.get("vp"))),
                     total_vp=as_int(total) if isinstance(total, int) else None, how=how,
                     aggressor=aggressor, units=list(units.values()), shots=shots)


def pick_shots(shots: Sequence[Mapping[str, Any]], rows: int) -> list[Mapping[str, Any]]:
    """At most ``rows`` of ``shots``, in order: every hit first (the latest if too many),
    then the latest misses."""
    if len(shots) <= rows:
        return list(shots)
    hits = [i for i, s in enumerate(shots) if s.get("hit") is True][-rows:]
    misses = [i for i, s in enumerate(shots) if s.get("hit") is not True]
    chosen = set(hits) | set(misses[len(misses) - (rows - len(hits)):] if rows > len(hits)
                             else [])
    return [shots[i] for i in sorted(chosen)]

