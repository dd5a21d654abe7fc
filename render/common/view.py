"""Tolerant readers of a game's view dict and events: a missing or odd field never crashes
a render, it reads as nothing (zero, empty, None) instead."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.common.palette import NEUTRAL, RGB, seat_colour
from render.common.text import clean_text, display_name


def as_int(value: Any, default: int = 0) -> int:
    """``value`` if it is a real int (not a bool), else ``default``."""
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return value



def as_str(value: Any) -> str | None:
    """``value`` if it is a str (a player id, a side), else None."""
    return value if isinstance(value, str) else None


def bounded(value: Any, lo: int = 0, hi: int = 999, default: int = 0) -> int:
    """``value`` as an int (see :func:`as_int`) kept within ``lo``..``hi``."""
    return max(lo, min(hi, as_int(value, default)))


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def optional_mapping(value: Any) -> Mapping[str, Any] | None:
    """``value`` if it is a mapping (even an empty one), else None: for a field whose
    presence means something (an outcome, a last fight)."""
    return value if isinstance(value, Mapping) else None


def mappings(value: Any, limit: int | None = None) -> list[Mapping[str, Any]]:
    """The mappings in a list (of its first ``limit`` entries); none if it is not a list."""
    if not isinstance(value, list):
        return []
    return [v for v in value[:limit] if isinstance(v, Mapping)]


def is_over(view: Mapping[str, Any]) -> bool:
    """Whether the game is over: the view has an ``outcome`` or is in its "over" phase."""
    return optional_mapping(view.get("outcome")) is not None or view.get("phase") == "over"


def winner_ids(outcome: Mapping[str, Any] | None) -> list[str]:
    """The player ids among an outcome's ``winners``, in order (none without an outcome)."""
    winners = mapping(outcome).get("winners")
    return [w for w in winners if isinstance(w, str)] if isinstance(winners, list) else []


def first_to_act(view: Mapping[str, Any], default: Any = None) -> Any:
    """The first of the view's ``to_act`` list, ``default`` if it has none."""
    to_act = view.get("to_act")
    return to_act[0] if isinstance(to_act, list) and to_act else default


def round_label(view: Mapping[str, Any]) -> str:
    """"Round 3 / 10" from the view's ``round`` and ``rounds`` ("" before the first)."""
    rnd, rounds = as_int(view.get("round")), as_int(view.get("rounds"))
    if rnd <= 0:
        return ""
    return f"Round {min(rnd, 999)}" + (f" / {min(rounds, 999)}" if rounds > 0 else "")


class Players:
    """Seats, colours and cleaned display names of a view's ``players`` list.

    Tolerant of odd views: entries that are not mappings are skipped, a missing seat is
    the entry's position, an unknown id is drawn grey and named by its cleaned id.
    """

    def __init__(self, view: Mapping[str, Any], names: Mapping[str, str] | None) -> None:
        raw = view.get("players")
        self.players: list[Mapping[str, Any]] = [
            p for p in (raw if isinstance(raw, list) else []) if isinstance(p, Mapping)]
        self.by_id: dict[str, Mapping[str, Any]] = {}
        self.names: dict[str, str] = {}
        self.seats: dict[str, int] = {}
        for i, p in enumerate(self.players):
            pid = p.get("id")
            seat = as_int(p.get("seat"), i + 1)
            if isinstance(pid, str) and pid not in self.by_id:
                self.by_id[pid] = p
                self.seats[pid] = seat
                self.names[pid] = display_name(names, pid, seat)

    def get(self, pid: Any) -> Mapping[str, Any] | None:
        return self.by_id.get(pid) if isinstance(pid, str) else None

    def seat(self, pid: Any) -> int | None:
        return self.seats.get(pid) if isinstance(pid, str) else None

    def colour(self, pid: Any) -> RGB:
        return seat_colour(self.seat(pid)) if pid is not None else NEUTRAL

    def name(self, pid: Any) -> str:
        if isinstance(pid, str) and pid in self.names:
            return self.names[pid]
        return clean_text(pid) or "?"

# --- the events a board marks ------------------------------------------------------------

#: A board reads at most this many events (a turn digest's worth and more): hostile input
#: cannot make drawing slow.
MAX_EVENTS = 500


def drawable_events(events: Any, limit: int = MAX_EVENTS,
                    newest: bool = False) -> list[Mapping[str, Any]]:
    """The events a board may draw from: public (no ``private_to``) mappings with a text
    ``type``, at most ``limit`` of them (the first, or the ``newest``); anything else,
    including a non-list, is skipped rather than trusted."""
    if not isinstance(events, list | tuple):
        return []
    window = events[-limit:] if newest else events[:limit]
    return [e for e in window if isinstance(e, Mapping) and "private_to" not in e
            and isinstance(e.get("type"), str)]


def note_actor(actors: list[str], player: Any) -> str | None:
    """Add ``player`` (if it is an id) to ``actors``, kept in order of first action, and
    return it (None for anything that is not an id)."""
    if isinstance(player, str):
        if player not in actors:
            actors.append(player)
        return player
    return None
