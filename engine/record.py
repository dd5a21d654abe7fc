"""A game's portable record, and the committed dice it is dealt from.

The record is the game: its kind, options and seats, how its dice were chosen, and every
logged action in order (``docs/records.md`` documents the JSON). The store writes it
(``/game export``), :mod:`engine.verify` checks it and ``/game new from:`` starts a game
from any point of it. Everything here is pure: no clock, no randomness, no I/O.

Committed dice (scheme :data:`SCHEME`): when a lobby opens, the bot draws a secret
``seed`` and a ``salt`` (hex text) and posts ``commitment(seed, salt)``. When the game
starts, each seat's *contribution* (the id Discord gave the interaction that seated the
player, which nobody can choose after seeing the commitment) is mixed in:
``mixed_seed(seed, contributions)`` is the number the game's dice generator is seeded
with. The seed and salt are revealed when the game ends, and anyone can redo both sums.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine.core import Event, Game

JSONObject = dict[str, Any]

#: The record format's tag and version (``docs/records.md``).
FORMAT = "warhost-record"
VERSION = 1
#: The committed-dice scheme: how the commitment and the game's seed are computed.
SCHEME = "warhost-dice-1"
#: A game whose seed was not committed (it began before commitments, or a tool chose it).
UNCOMMITTED = "none"
#: The largest seed a game's dice generator is given (63 bits).
MAX_SEED = 2**63 - 1

#: Origins of logged actions: the player, their clock running out, the computer (its own
#: seat, or a human's it took over), or an undo (its event lists the moves taken back).
BY_PLAYER = "player"
BY_TIMEOUT = "timeout"
BY_UNDO = "undo"
BY_COMPUTER = "computer"
ORIGINS = (BY_PLAYER, BY_TIMEOUT, BY_UNDO, BY_COMPUTER)


@dataclass(frozen=True)
class LogEntry:
    """One accepted action. ``action`` is the text as the player gave it."""

    seq: int
    player: str
    action: str
    events: list[dict[str, Any]]
    created_at: float
    #: Who made it (one of :data:`ORIGINS`).
    origin: str = BY_PLAYER


@dataclass(frozen=True)
class Step:
    """One logged action replayed: the positions around it and what it did."""

    entry: LogEntry
    before: Any
    after: Any
    #: What the engine (or, for an undo, the platform) says it did, replayed now.
    events: list[Event] = field(default_factory=list)


# -- the committed dice ---------------------------------------------------------------------


def canonical(value: Any) -> str:
    """The one JSON spelling the sums below hash (sorted keys, no spaces, UTF-8 kept)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def commitment(seed: str, salt: str) -> str:
    """The commitment to a secret ``seed`` and ``salt``: SHA-256 (hex) of the text
    ``warhost-dice-1:<seed>:<salt>``."""
    return hashlib.sha256(f"{SCHEME}:{seed}:{salt}".encode()).hexdigest()


def mixed_seed(seed: str, contributions: Sequence[str]) -> int:
    """The game's dice seed: the first 8 bytes (big-endian, top bit cleared) of the SHA-256
    of the canonical JSON ``["warhost-dice-1", seed, [contribution, ...]]``, one
    contribution per seat in seat order (``""`` for a seat that made none: a computer).
    Player ids are not hashed, so anonymising a player leaves the sum intact."""
    text = canonical([SCHEME, seed, [str(c) for c in contributions]])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") & MAX_SEED


def is_hex(value: object, length: int) -> bool:
    """``value`` is ``length`` lower-case hex digits."""
    return (isinstance(value, str) and len(value) == length
            and all(c in "0123456789abcdef" for c in value))


# -- replaying a log ------------------------------------------------------------------------


def undo_event(undone: Sequence[int]) -> Event:
    """The one event of an undo entry."""
    return {"type": "undo", "undone": list(undone)}


def undone_by(entry: LogEntry) -> list[int]:
    """The moves an undo entry took back ([] for any other entry)."""
    if entry.origin != BY_UNDO or not entry.events:
        return []
    undone = entry.events[0].get("undone")
    if not isinstance(undone, list):
        return []
    return [s for s in undone if isinstance(s, int) and not isinstance(s, bool)]


def opening(game: Game[Any], seats: Sequence[str], seed: int, options: Mapping[str, Any],
            position: str | None = None) -> Any:
    """The position a game starts at: dealt from ``seed``, or, for a game started from a
    ``position`` (its seats already in it), that position with fresh dice from ``seed``."""
    if position is None:
        return game.new_game(list(seats), seed, dict(options))
    return game.reseed(game.load(position), seed)


def replay(game: Game[Any], start: Any, entries: Iterable[LogEntry]) -> Iterator[Step]:
    """Every entry of a log from the position ``start``, in order, with the positions
    before and after it. An undo entry takes the game back to the position before the
    first move it lists.

    Raises :class:`engine.IllegalAction` if the engine refuses a logged action, and
    ValueError for an undo that names moves it cannot take back.
    """
    state = start
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


def position_hash(game: Game[Any], state: Any) -> str:
    """A short fingerprint of a position (16 hex digits of the SHA-256 of its dump, without
    what the seats remember: :meth:`~engine.core.Game.forget`): what a complete record
    keeps after each action, so a change shows where it begins."""
    return hashlib.sha256(game.dump(game.forget(state)).encode()).hexdigest()[:16]


def rename_players(text: str, mapping: Mapping[str, str]) -> str:
    """A position's JSON text with every string (value or key) that is one of
    ``mapping``'s player ids replaced by its new id, in one pass (so a mapping may swap
    two ids). Exact for positions whose player ids appear nowhere else in them, as
    Discord ids and ``p1``-style ids do not."""

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return mapping.get(value, value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {mapping.get(k, k): walk(v) for k, v in value.items()}
        return value

    return canonical(walk(json.loads(text)))


# -- writing a record ---------------------------------------------------------------------


def iso(timestamp: float | None) -> str | None:
    """Epoch seconds as ISO 8601 UTC text with milliseconds (``2026-11-26T01:02:03.456Z``)."""
    if timestamp is None:
        return None
    moment = datetime.fromtimestamp(float(timestamp), UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def dice_section(dice: Mapping[str, Any], seats: Sequence[str], complete: bool) -> JSONObject:
    """The record's ``dice``: the commitment and contributions, and once the game is over
    the seed and salt; for a game without a commitment, a note saying so."""
    if dice.get("scheme") != SCHEME:
        note = ("The dice seed was chosen by the tool that started this game, not "
                "committed to." if dice.get("chosen") else
                "This game began before Warhost committed to its dice, so they cannot be "
                "proved fair; the replay can still be checked.")
        return {"scheme": UNCOMMITTED, "note": note}
    mixed = dice.get("mixed")
    if isinstance(mixed, list):
        pairs = [(str(p), str(c)) for p, c in mixed]
    else:
        given = dice.get("contributions") or {}
        pairs = [(p, str(given.get(p, ""))) for p in seats]
    return {"scheme": SCHEME, "commitment": dice.get("commitment"),
            "committed_at": iso(dice.get("committed_at")),
            "contributions": [{"player": p, "value": c} for p, c in pairs],
            "mixed": isinstance(mixed, list),
            "seed": dice.get("seed") if complete else None,
            "salt": dice.get("salt") if complete else None}



def build(game: Game[Any], *, game_id: int, status: str, options: Mapping[str, Any],
          seats: Sequence[str], rated: bool, dice: Mapping[str, Any],
          origin: Mapping[str, Any], seed: int, entries: Sequence[LogEntry],
          started_at: float | None, finished_at: float | None, exported_at: float,
          complete: bool) -> JSONObject:
    """A game's record (``docs/records.md``). ``complete``: the game is over, so the record
    holds everything (the seed, private events, each position's fingerprint, the final
    position); otherwise public information only. ``dice`` and ``origin`` are what the
    store keeps of them; ``entries`` the whole log."""
    actions: list[JSONObject] = []
    outcome = final = None
    if complete:
        start = opening(game, seats, seed, options, origin.get("position"))
        state = start
        hashes: dict[int, str] = {}
        for step in replay(game, start, entries):
            hashes[step.entry.seq] = position_hash(game, step.after)
            state = step.after
        result = game.outcome(state)
        outcome = None if result is None else result.to_json()
        final = game.dump(state)
    for entry in entries:
        item: JSONObject = {"seq": entry.seq, "player": entry.player, "origin": entry.origin,
                            "at": iso(entry.created_at)}
        if complete:
            item.update(action=entry.action, events=list(entry.events),
                        position=hashes[entry.seq])
        else:
            shown = entry.action if entry.origin == BY_UNDO else \
                game.public_action(entry.action, entry.events)
            item["action"] = shown
            if shown is None:
                item["hidden"] = (entry.action.split() or ["?"])[0].lower()[:20]
            item["events"] = [e for e in entry.events if "private_to" not in e]
        actions.append(item)
    from_section = None
    if origin:
        from_section = {"from": origin.get("from"), "note": origin.get("note", ""),
                        "position": origin.get("position") if complete else None}
    return {
        "format": FORMAT, "version": VERSION, "kind": game.kind, "game": game.name,
        "rules": game.rules_version, "id": game_id, "status": status, "complete": complete,
        "options": dict(options), "seats": list(seats), "rated": rated,
        "origin": from_section, "dice": dice_section(dice, seats, complete),
        "game_seed": seed if complete else None,
        "started_at": iso(started_at), "finished_at": iso(finished_at),
        "exported_at": iso(exported_at), "actions": actions,
        "outcome": outcome, "final_position": final,
    }
