"""Replaying a game's log: every position it went through, undos included.

The log is the game: its seed and options, then every accepted action in order. An
``undo`` entry takes the game back to the position before the first move it lists, so
a replay keeps each position it passes through. Pure: no database, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from db.records import BY_COMPUTER, BY_PLAYER, BY_TIMEOUT, BY_UNDO, LogEntry
from engine.core import RESIGN, Event, Game


@dataclass(frozen=True)
class Step:
    """One logged action replayed: the positions around it and what it did."""

    entry: LogEntry
    before: Any
    after: Any
    #: What the engine (or, for an undo, the platform) says it did, replayed now.
    events: list[Event]


def undo_event(undone: Sequence[int]) -> Event:
    """The one event of an undo entry."""
    return {"type": "undo", "undone": list(undone)}


def undone_by(entry: LogEntry) -> list[int]:
    """The moves an undo entry took back ([] for any other entry)."""
    if entry.origin != BY_UNDO or not entry.events:
        return []
    undone = entry.events[0].get("undone")
    return [int(s) for s in undone] if isinstance(undone, list) else []


def replay(game: Game[Any], seats: Sequence[str], seed: int, options: dict[str, Any],
           entries: Iterable[LogEntry]) -> Iterator[Step]:
    """Every entry of a log, in order, with the positions before and after it.

    Raises :class:`engine.IllegalAction` if the engine refuses a logged action, and
    ValueError for an undo that names moves it cannot take back.
    """
    state = game.new_game(list(seats), seed, dict(options))
    positions: dict[int, Any] = {0: state}
    for entry in entries:
        if entry.origin == BY_UNDO:
            undone = undone_by(entry)
            if not undone or min(undone) - 1 not in positions:
                raise ValueError(f"undo at {entry.seq} names moves {undone} it cannot take back")
            after, events = positions[min(undone) - 1], [undo_event(undone)]
        else:
            after, events = game.apply(state, entry.player, entry.action)
        positions[entry.seq] = after
        yield Step(entry, state, after, events)
        state = after


@dataclass(frozen=True)
class Undoable:
    """What the player may take back now: their newest actions first, and what stops
    the list going further back (a sentence for the player), if anything."""

    seqs: tuple[int, ...]
    actions: tuple[str, ...]
    stop: str | None


def undoable(game: Game[Any], steps: Sequence[Step], player: str, turn_began: int) -> Undoable:
    """The actions ``player`` may undo: their own, since the turn began (``turn_began``:
    the last move before it), newest first, up to the first one that rolled dice, drew
    or revealed a card, told anyone anything privately, or was not theirs."""
    skipped: set[int] = set()
    seqs: list[int] = []
    actions: list[str] = []
    stop: str | None = None
    for step in reversed(steps):
        entry = step.entry
        if entry.seq in skipped:
            continue
        if entry.origin == BY_UNDO:
            skipped.update(undone_by(entry))
            continue
        if entry.seq <= turn_began:
            stop = "your turn began there"
            break
        if entry.player != player:
            stop = "another player acted after that"
            break
        if entry.origin == BY_TIMEOUT:
            stop = "that was played for you when your time ran out"
            break
        if entry.origin == BY_COMPUTER:
            stop = "the computer played that for you"
            break
        if game.normalise(entry.action) == RESIGN:
            stop = "a resignation cannot be taken back"
            break
        if not game.reversible(step.before, step.after, entry.events):
            stop = "it rolled dice or drew or revealed a card"
            break
        assert entry.origin == BY_PLAYER
        seqs.append(entry.seq)
        actions.append(entry.action)
    return Undoable(tuple(seqs), tuple(actions), stop)


def effective(entries: Iterable[LogEntry]) -> list[LogEntry]:
    """``entries`` without the moves later undone within them, nor the undo entries."""
    listed = list(entries)
    gone: set[int] = set()
    for entry in listed:
        gone.update(undone_by(entry))
    return [e for e in listed if e.seq not in gone and e.origin != BY_UNDO]
