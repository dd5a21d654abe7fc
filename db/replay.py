"""Replaying a stored game's log: every position it went through, undos included.

The log is the game: its opening (dealt from its seed, or the position it started from)
then every accepted action in order. The replay itself belongs to the record format
(:mod:`engine.record`), which a game record is checked with too; this module opens a
stored game and says what a player may take back. Pure: no database, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from db.records import BY_COMPUTER, BY_PLAYER, BY_TIMEOUT, BY_UNDO, GameRecord, LogEntry
from engine import record as game_record
from engine.core import RESIGN, Game
from engine.record import Step as Step
from engine.record import undo_event as undo_event
from engine.record import undone_by as undone_by


def opening(game: Game[Any], record: GameRecord) -> Any:
    """The position ``record``'s game started at (its seed and options, or the position
    it was started from)."""
    return game_record.opening(game, record.seats, record.seed, record.options,
                               record.origin.get("position"))


def replay(game: Game[Any], record: GameRecord, entries: Iterable[LogEntry]) -> Iterator[Step]:
    """Every entry of ``record``'s log, in order, with the positions before and after it.

    Raises :class:`engine.IllegalAction` if the engine refuses a logged action, and
    ValueError for an undo that names moves it cannot take back.
    """
    return game_record.replay(game, opening(game, record), entries)


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
