"""Starting a game from a position or from a point of a game record (``/game new from:``).

A file is read as a record (``docs/records.md``) when it says it is one, else as the
game's own position format. A record is checked first (:mod:`engine.verify`), so a game
never starts from a record that does not replay, and only a finished game's record will
do: a game under way keeps its seed and hidden cards secret. Pure: the caller reads the
file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import engine
from engine.core import Game, IllegalAction
from engine.record import FORMAT, opening, replay
from engine.verify import MAX_RECORD_BYTES, Unreadable, entries_of, read, verify

#: The largest file ``from:`` reads (bytes): more than any record of a long game.
MAX_FROM_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class StartingPoint:
    """Where a new game starts: the position (the game's format, its original player
    ids in it), how many players it seats, and a line saying where it came from."""

    position: str
    players: int
    source: str          # "position" or "record"
    note: str

    def to_origin(self) -> dict[str, Any]:
        """What the store keeps of it (``GameRecord.origin``)."""
        return {"from": self.source, "note": self.note, "source": self.position,
                "players": self.players}


def _other_kind(game: Game[Any], text: str) -> str | None:
    """The name of another game whose position ``text`` is, if any."""
    for other in engine.GAMES.values():
        if other.kind == game.kind:
            continue
        try:
            other.load(text)
        except (IllegalAction, ValueError, TypeError, RecursionError):
            continue
        return other.name
    return None


def starting_point(game: Game[Any], data: bytes, at: int | None = None,
                   name: str = "the file") -> StartingPoint:
    """Where a ``game`` started from the file ``data`` would begin: a position, or the
    position after action ``at`` of a record (default: the last one before the game
    ended). Raises :class:`IllegalAction` with a message for the player."""
    if len(data) > MAX_FROM_BYTES:
        raise IllegalAction(f"{name} is {len(data) / 1_048_576:.1f} MB; Warhost starts games "
                            f"from files up to {MAX_FROM_BYTES // 1_048_576} MB.")
    if data[:2] == b"\x1f\x8b" or FORMAT.encode() in data[:4096]:
        return _from_record(game, data, at, name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise IllegalAction(f"{name} is not text: attach a game record (`/game export`) "
                            f"or a {game.name} position (JSON).") from None
    if at is not None:
        raise IllegalAction("`at:` picks a point of a game record; a position file starts "
                            "where it is.")
    try:
        state = game.load(text)
    except IllegalAction as exc:
        other = _other_kind(game, text)
        if other is not None:
            raise IllegalAction(f"That is a {other} position, not {game.name}: choose "
                                f"`kind:{other}`.") from None
        raise IllegalAction(f"{name} is neither a game record nor a {game.name} position: "
                            f"{str(exc)[:300]}") from None
    if game.outcome(state) is not None:
        raise IllegalAction("That position is already over: there is nothing to play.")
    players = game.players(state)
    if not game.min_players <= len(players) <= game.max_players or \
            len(set(players)) != len(players):
        raise IllegalAction(f"That position has {len(players)} players; {game.name} seats "
                            f"{game.min_players}-{game.max_players} different players.")
    return StartingPoint(game.dump(state), len(players), "position",
                         f"Started from a {game.name} position ({name[:60]}).")


def _from_record(game: Game[Any], data: bytes, at: int | None, name: str) -> StartingPoint:
    try:
        record = read(data[: MAX_RECORD_BYTES + 1])
    except Unreadable as exc:
        raise IllegalAction(f"{name} is not a game record Warhost can read: {exc}.") from None
    kind = record.get("kind")
    if kind != game.kind:
        other = engine.GAMES.get(kind) if isinstance(kind, str) else None
        raise IllegalAction(f"That is a record of {other.name if other else 'another game'}, "
                            f"not {game.name}" + (f": choose `kind:{other.name}`."
                                                  if other else "."))
    if not record.get("complete"):
        raise IllegalAction("That record is of a game still under way (exported before it "
                            "ended), so it holds no dice seed and no hidden cards to start "
                            "from. Export it again once the game is over.")
    verdict = verify(record)
    if not verdict.ok:
        problem = verdict.lines[-1].lstrip("✗ ") if verdict.lines else "it does not check"
        raise IllegalAction(f"That record does not check out (at {verdict.where}): "
                            f"{problem[:300]}")
    entries = entries_of(record)
    origin = record.get("origin") or {}
    state = opening(game, record["seats"], record["game_seed"], record["options"],
                    origin.get("position"))
    states = {0: state}
    for step in replay(game, state, entries):
        states[step.entry.seq] = step.after
    last = len(entries)
    if at is None:
        at = next((s for s in range(last, -1, -1) if game.outcome(states[s]) is None), 0)
    if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= last:
        raise IllegalAction(f"`at:` must be an action number from 0 (the start) to {last}.")
    if game.outcome(states[at]) is not None:
        raise IllegalAction(f"After action {at} the game is already over; choose an earlier "
                            "point.")
    players = game.players(states[at])
    return StartingPoint(game.dump(states[at]), len(players), "record",
                         f"Started from action {at} of {game.name} #{record.get('id')}.")


def describe(origin: dict[str, Any]) -> str:
    """The line a game started from a position shows (empty for a game dealt afresh)."""
    note = origin.get("note") if isinstance(origin, dict) else None
    return str(note) if note else ""
