"""Time for games that last weeks: time controls, deadlines, reminders, quiet hours.

Pure functions of epoch seconds (no clock is read here: callers pass ``now``), so the
store, the scheduler and the tests agree on every instant.

* A **time control** gives each decision a fixed allowance (``24h`` per move) or draws
  on a bank that grows by an increment after each decision (``3d+12h``, Fischer-style).
* **Vacations** pause a player's clock and reminders: time inside one does not count.
* **Reminders** come every ``interval`` of un-paused time after a decision began (or
  after the last reminder), up to a limit; one that falls in the player's quiet hours
  waits for them to end.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

MINUTE, HOUR, DAY, WEEK = 60.0, 3600.0, 86400.0, 604800.0
_UNITS = {"m": MINUTE, "min": MINUTE, "h": HOUR, "d": DAY, "w": WEEK}
_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(min|m|h|d|w)")

#: How often a player is reminded, unless the channel or the player says otherwise.
DEFAULT_REMINDER_EVERY = 12 * HOUR
#: Reminders per decision before Warhost stops (with a note in the channel).
DEFAULT_REMINDER_LIMIT = 3
#: Timeouts after which a player is removed from the game, unless the table chose.
DEFAULT_MAX_TIMEOUTS = 3
#: Vacation days a player may take per server in any 365 days.
VACATION_DAYS_PER_YEAR = 30
#: Shortest and longest allowances accepted (a minute is for trying it out).
MIN_DURATION, MAX_DURATION = MINUTE, 365 * DAY

Interval = tuple[float, float]


class ClockError(ValueError):
    """Text that is not a duration, time control, time zone or quiet-hours range."""


def parse_duration(text: str) -> float:
    """``"1d12h"`` -> 129600.0 seconds (units m, h, d, w; at least a minute, at most a year)."""
    squeezed = "".join(str(text).lower().split())
    if not squeezed or len(squeezed) > 30:
        raise ClockError(f"`{str(text)[:30]}` is not a duration: write it like `12h`, "
                         "`2d` or `1d12h`.")
    total, at = 0.0, 0
    for match in _PART.finditer(squeezed):
        if match.start() != at:
            break
        total += float(match[1]) * _UNITS[match[2]]
        at = match.end()
    if at != len(squeezed) or total == 0:
        raise ClockError(f"`{squeezed}` is not a duration: write it like `12h`, `2d` or "
                         "`1d12h` (m, h, d and w are minutes, hours, days and weeks).")
    if not MIN_DURATION <= total <= MAX_DURATION:
        raise ClockError("A duration must be from 1 minute to 365 days.")
    return total


def describe_duration(seconds: float) -> str:
    """``129600`` -> ``"1d 12h"`` (days, hours and minutes that are not zero)."""
    seconds = max(0, round(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [f"{v}{u}" for v, u in ((days, "d"), (hours, "h"), (minutes, "m")) if v]
    return " ".join(parts) or "0m"


@dataclass(frozen=True)
class TimeControl:
    """How much time a player has per decision.

    ``per_move``: every decision gets this long. Otherwise ``bank`` is what each player
    starts with, and ``increment`` is added after each of their decisions. A player out
    of time is skipped with the game's safe default; after ``max_timeouts`` of those
    (0: never) they are removed as if they had resigned.
    """

    per_move: float | None = None
    bank: float | None = None
    increment: float = 0.0
    max_timeouts: int = DEFAULT_MAX_TIMEOUTS

    @classmethod
    def parse(cls, text: str | None, max_timeouts: int = DEFAULT_MAX_TIMEOUTS
              ) -> TimeControl | None:
        """``"24h"`` (per move), ``"3d+12h"`` (bank plus increment), ``"none"``/empty."""
        raw = " ".join(str(text or "").lower().split())
        if raw in ("", "none", "off", "no"):
            return None
        if not 0 <= max_timeouts <= 20:
            raise ClockError("Timeouts before removal must be from 0 (never) to 20.")
        if "+" in raw:
            bank, _, increment = raw.partition("+")
            return cls(bank=parse_duration(bank),
                       increment=parse_duration(increment) if increment.strip() else 0.0,
                       max_timeouts=max_timeouts)
        return cls(per_move=parse_duration(raw), max_timeouts=max_timeouts)

    def describe(self) -> str:
        if self.per_move is not None:
            text = f"{describe_duration(self.per_move)} per move"
        else:
            text = f"{describe_duration(self.bank or 0)} bank"
            if self.increment:
                text += f" + {describe_duration(self.increment)} per move"
        if self.max_timeouts:
            text += f"; removed after {self.max_timeouts} timeouts"
        return text

    def to_json(self) -> dict[str, Any]:
        return {"per_move": self.per_move, "bank": self.bank, "increment": self.increment,
                "max_timeouts": self.max_timeouts}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> TimeControl | None:
        if not data:
            return None
        return cls(per_move=data.get("per_move"), bank=data.get("bank"),
                   increment=float(data.get("increment") or 0.0),
                   max_timeouts=int(data.get("max_timeouts", DEFAULT_MAX_TIMEOUTS)))


# -- pauses (vacations) --------------------------------------------------------------------


def paused_between(intervals: Iterable[Interval], start: float, end: float) -> float:
    """Seconds of ``[start, end]`` covered by the (possibly overlapping) ``intervals``."""
    total, reach = 0.0, start
    for a, b in sorted(intervals):
        a, b = max(a, reach), min(b, end)
        if b > a:
            total += b - a
            reach = b
    return total


def after_active(start: float, active: float, intervals: Iterable[Interval]) -> float:
    """The instant at which ``active`` seconds of un-paused time have passed since ``start``."""
    t, left = start, max(0.0, active)
    for a, b in sorted(intervals):
        if b <= t:
            continue
        if a > t:
            if a - t >= left:
                break
            left -= a - t
        t = max(t, b)
    return t + left


def paused_at(intervals: Iterable[Interval], t: float) -> Interval | None:
    """The pause ``t`` falls in, if any (the latest-ending one)."""
    found = [(a, b) for a, b in intervals if a <= t < b]
    return max(found, key=lambda x: x[1]) if found else None


# -- quiet hours -------------------------------------------------------------------------


@dataclass(frozen=True)
class QuietHours:
    """A daily window (minutes after local midnight; may wrap past midnight) in a zone."""

    zone: str
    start: int
    end: int

    @classmethod
    def parse(cls, text: str, zone: str) -> QuietHours | None:
        """``"22:00-07:30"`` in ``zone``; ``"none"`` or empty for no quiet hours."""
        raw = "".join(str(text or "").lower().split())
        if raw in ("", "none", "off", "no"):
            return None
        # [0-9], not \d: \d also matches `²`, which int() refuses.
        match = re.fullmatch(r"([0-9]{1,2})(?::([0-9]{2}))?-([0-9]{1,2})(?::([0-9]{2}))?", raw)
        if match is None:
            raise ClockError("Write quiet hours like `22:00-07:00` (24-hour clock, your time).")
        h1, m1, h2, m2 = (int(g or 0) for g in match.groups())
        if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59:
            raise ClockError("Quiet hours must be times of day from 00:00 to 23:59.")
        start, end = h1 * 60 + m1, h2 * 60 + m2
        if start == end:
            raise ClockError("Quiet hours must start and end at different times.")
        return cls(check_zone(zone), start, end)

    def describe(self) -> str:
        return (f"{self.start // 60:02d}:{self.start % 60:02d}–{self.end // 60:02d}:"
                f"{self.end % 60:02d} ({self.zone})")

    def _covers(self, minute: int) -> bool:
        if self.start < self.end:
            return self.start <= minute < self.end
        return minute >= self.start or minute < self.end

    def next_allowed(self, t: float) -> float:
        """``t`` if it is outside the quiet hours, else the instant they end."""
        zone = ZoneInfo(self.zone)
        local = datetime.fromtimestamp(t, zone)
        minute = local.hour * 60 + local.minute
        if not self._covers(minute):
            return t
        day = local.replace(hour=0, minute=0, second=0, microsecond=0)
        end = day + timedelta(minutes=self.end)
        if end.timestamp() <= t:
            end += timedelta(days=1)
        # Rebuild through the zone (a wall-clock time across a DST change).
        end = datetime(end.year, end.month, end.day, self.end // 60, self.end % 60,
                       tzinfo=zone)
        return max(t, end.timestamp())


#: Common abbreviations that are not zone names themselves, and the zone each means.
ZONE_ABBREVIATIONS: dict[str, str] = {
    "PST": "America/Los_Angeles", "PDT": "America/Los_Angeles",
    "MDT": "America/Denver", "CST": "America/Chicago", "CDT": "America/Chicago",
    "EDT": "America/New_York", "AKST": "America/Anchorage", "BST": "Europe/London",
    "IST": "Asia/Kolkata", "CEST": "Europe/Paris", "EEST": "Europe/Athens",
    "MSK": "Europe/Moscow", "JST": "Asia/Tokyo", "KST": "Asia/Seoul",
    "AEST": "Australia/Sydney", "AEDT": "Australia/Sydney", "AWST": "Australia/Perth",
    "NZST": "Pacific/Auckland", "NZDT": "Pacific/Auckland", "BRT": "America/Sao_Paulo",
    "SGT": "Asia/Singapore", "HKT": "Asia/Hong_Kong", "WIB": "Asia/Jakarta",
}
#: What the time zone autocomplete offers before anything is typed.
COMMON_ZONES = ("UTC", "Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Moscow",
                "America/New_York", "America/Chicago", "America/Denver",
                "America/Los_Angeles", "America/Sao_Paulo", "Asia/Kolkata", "Asia/Shanghai",
                "Asia/Tokyo", "Australia/Sydney", "Pacific/Auckland")
#: The regions of today's zone names (the others are old aliases, offered after them).
_REGIONS = ("Africa/", "America/", "Antarctica/", "Arctic/", "Asia/", "Atlantic/",
            "Australia/", "Europe/", "Indian/", "Pacific/")


def _zone_key(text: str) -> str:
    return " ".join(text.casefold().replace("_", " ").split())


@functools.cache
def zone_names() -> tuple[str, ...]:
    """Every IANA time zone name (from tzdata), sorted; computed once."""
    return tuple(sorted(available_timezones() - {"localtime", "Factory"}))


@functools.cache
def _zone_index() -> tuple[dict[str, str], tuple[tuple[str, str, tuple[str, ...], bool], ...]]:
    """(folded name -> name, and per name: (name, its key, its parts' keys, current))."""
    names = zone_names()
    folded = {_zone_key(n): n for n in names}
    rows = tuple((n, _zone_key(n), tuple(_zone_key(p) for p in n.split("/")),
                  n == "UTC" or n.startswith(_REGIONS)) for n in names)
    return folded, rows


def find_zones(typed: str | None, limit: int = 25) -> list[tuple[str, str]]:
    """Time zones matching what was typed, best first, as (label, zone name): the name
    itself, a common abbreviation (``PST``), then names whose city starts with it
    (``paris``, ``new y``), then whose region does, then names containing it, today's
    names before old aliases; case and ``_`` versus space do not matter. At most
    ``limit``; labels at most 100 characters."""
    needle = _zone_key(str(typed or "")[:100])
    if not needle:
        return [(z, z) for z in COMMON_ZONES if z in set(zone_names())][:limit]
    folded, rows = _zone_index()
    found: dict[str, tuple[tuple[int, int, str], str]] = {}
    exact = folded.get(needle)
    if exact is not None:
        found[exact] = ((0, 0, exact), exact)
    alias = ZONE_ABBREVIATIONS.get(needle.upper())
    if alias is not None and alias not in found:
        found[alias] = ((1, 0, alias), f"{alias} ({needle.upper()})")
    for name, key, parts, current in rows:
        if name in found:
            continue
        if parts[-1].startswith(needle):
            rank = 2            # the city (or the name itself): "paris", "new y"
        elif any(p.startswith(needle) for p in parts):
            rank = 3            # a region: "europe", "america/"
        elif needle in key:
            rank = 4
        else:
            continue
        found[name] = ((rank, 0 if current else 1, name), name)
    best = sorted(found.items(), key=lambda item: item[1][0])[:max(0, limit)]
    return [(label[:100], name) for name, (_, label) in best]


def check_zone(name: str) -> str:
    """An IANA time zone name (``Europe/Paris``, ``UTC``), checked; written in any case,
    with spaces for ``_`` (``new york`` is not enough: ``america/new york`` is), or a
    common abbreviation (``PST``)."""
    text = str(name or "").strip()
    if not text or len(text) > 60 or ".." in text or text.startswith("/"):
        raise ClockError("Give a time zone like `Europe/Paris`, `America/New_York` or `UTC`.")
    folded, _ = _zone_index()
    known = folded.get(_zone_key(text)) or ZONE_ABBREVIATIONS.get(text.upper())
    if known is not None:
        return known
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        shown = " ".join(text.replace("`", "'").split())[:40]
        raise ClockError(f"`{shown}` is not a time zone I know; try one like "
                         "`Europe/Paris`, `America/New_York` or `UTC` (start typing and "
                         "pick one from the list).") from None
    return text


# -- deadlines and reminders ---------------------------------------------------------------


def allowance(control: TimeControl, bank_left: float | None) -> float:
    """How much un-paused time the current decision may take."""
    if control.per_move is not None:
        return control.per_move
    return max(0.0, bank_left if bank_left is not None else (control.bank or 0.0))


def deadline(control: TimeControl | None, began: float, bank_left: float | None,
             pauses: Iterable[Interval]) -> float | None:
    """When a decision that began at ``began`` runs out of time (None: no time control)."""
    if control is None:
        return None
    return after_active(began, allowance(control, bank_left), pauses)


def bank_after(control: TimeControl, bank_left: float | None, began: float, ended: float,
               pauses: Iterable[Interval]) -> float:
    """A bank after a decision from ``began`` to ``ended``: spent time off, increment on."""
    spent = max(0.0, ended - began - paused_between(pauses, began, ended))
    start = bank_left if bank_left is not None else (control.bank or 0.0)
    return max(0.0, start - spent) + control.increment


@dataclass(frozen=True)
class Reminding:
    """A player's reminders for the decision that began at ``began``."""

    began: float
    sent: int = 0
    last: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"began": self.began, "sent": self.sent, "last": self.last}

    @classmethod
    def of(cls, data: Any, began: float) -> Reminding:
        """The stored state if it is for this decision, else a fresh one."""
        if isinstance(data, Mapping) and data.get("began") == began:
            return cls(began, int(data.get("sent", 0)), data.get("last"))
        return cls(began)


def next_reminder(state: Reminding, every: float, limit: int,
                  pauses: Iterable[Interval], quiet: QuietHours | None) -> float | None:
    """When the next reminder (or, once ``limit`` were sent, the note that reminders
    stop) is due; None when even that note has gone. After downtime only one is sent,
    since each counts from the last one actually sent."""
    if state.sent > limit:
        return None
    anchor = state.last if state.last is not None else state.began
    due = after_active(anchor, every, pauses)
    if quiet is not None and state.sent < limit:
        due = quiet.next_allowed(due)
    return due
