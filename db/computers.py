"""Which seats of a game the computer plays, as the store keeps it.

A computer seat has its own player id, ``cpu-1``, ``cpu-2`` … (never a Discord
snowflake, so it is never pinged, sent a direct message or shown a hand). A human's
seat can also pass to the computer when their clock runs out, if the table chose that
at creation; the seat keeps the human's id and the human takes it back by moving.

All of it lives in the game's ``timing`` object (the hosting facts beside the rules):

- ``computers``: seat id -> level (``engine.search.LEVELS``), every seat the computer
  plays now;
- ``computer_level``: the level the table chose, for seats added later and takeovers;
- ``takeover``: whether a timed-out seat goes to the computer (else the safe default);
- ``computer_streak``: computer actions since a human last acted, the brake that stops
  a game of computers alone from running for ever (:data:`MAX_COMPUTER_STREAK`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from engine.search import DEFAULT_LEVEL, LEVELS

_SEAT = re.compile(r"cpu-([1-9])")

#: Computer actions in a row, with no human acting in between, after which the game is
#: closed: only computers were playing it, and some games need not end on their own.
MAX_COMPUTER_STREAK = 3000


def computer_seat(number: int) -> str:
    """The player id of the ``number``-th computer seat (1-based)."""
    return f"cpu-{int(number)}"


def is_computer_seat(player: str) -> bool:
    """Whether ``player`` is a computer's own seat (not a human's taken-over seat)."""
    return _SEAT.fullmatch(player) is not None


def computer_name(player: str) -> str | None:
    """"Computer 2" for ``cpu-2``; None for anyone else."""
    match = _SEAT.fullmatch(player)
    return f"Computer {match[1]}" if match else None


def next_computer_seat(seats: Iterable[str]) -> str:
    """The first computer seat id not taken yet."""
    taken = set(seats)
    number = 1
    while computer_seat(number) in taken:
        number += 1
    return computer_seat(number)


def level_of(name: object) -> str:
    """A level's name checked, None for the default (ValueError names the ones there
    are)."""
    if name is None:
        return DEFAULT_LEVEL
    if not isinstance(name, str) or name not in LEVELS:
        raise ValueError(f"There is no computer level {name!r}: "
                         f"{', '.join(LEVELS)}.")
    return name


def computers(timing: Mapping[str, Any]) -> dict[str, str]:
    """Seat id -> level of every seat the computer plays now."""
    found = timing.get("computers") or {}
    return {str(k): str(v) for k, v in found.items() if str(v) in LEVELS} \
        if isinstance(found, Mapping) else {}


def table_level(timing: Mapping[str, Any]) -> str:
    level = timing.get("computer_level")
    return level if isinstance(level, str) and level in LEVELS else DEFAULT_LEVEL


def takeover(timing: Mapping[str, Any]) -> bool:
    return timing.get("takeover") is True


def humans(seats: Iterable[str]) -> list[str]:
    return [s for s in seats if not is_computer_seat(s)]
