"""Check a game record: ``python -m engine.verify record.json``.

It checks that the revealed seed and salt match the commitment posted in the lobby, that
the game's dice seed follows from them and the players' contributions, then replays
every action through the rules and compares what each did (its events, dice included,
and the position it led to) with what the record says, and finally the outcome and the
final position. It stops at the first thing that does not match and says where.

Exit status: 0 every check passed; 1 the record does not match (tampered, or another
version of the rules); 2 not a record this can read; 3 nothing to check yet (a game
still under way, whose seed is secret until it ends).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from engine.core import Game, IllegalAction
from engine.record import (
    BY_UNDO,
    FORMAT,
    ORIGINS,
    SCHEME,
    VERSION,
    LogEntry,
    canonical,
    commitment,
    is_hex,
    mixed_seed,
    opening,
    position_hash,
    replay,
    undone_by,
)

#: The largest record file this reads (bytes, after gunzip).
MAX_RECORD_BYTES = 64 * 1024 * 1024


class Unreadable(ValueError):
    """Not a record this version of Warhost can read; the message says why."""


@dataclass
class Verdict:
    """What checking a record found. ``ok``: True all matched, False something did not
    (``where`` says what: ``dice``, ``action 17``, ``outcome``...), None nothing to check
    yet. ``lines`` tell it for a person, one check per line."""

    ok: bool | None
    where: str | None = None
    lines: list[str] = field(default_factory=list)

    def fail(self, where: str, line: str) -> Verdict:
        self.ok, self.where = False, where
        self.lines.append(f"✗ {line}")
        return self


def read(data: bytes | str) -> dict[str, Any]:
    """A record's JSON object from a file's bytes (gzip accepted); :class:`Unreadable`
    if it is not one."""
    if isinstance(data, bytes):
        if data[:2] == b"\x1f\x8b":
            try:
                with gzip.GzipFile(fileobj=io.BytesIO(data)) as packed:
                    data = packed.read(MAX_RECORD_BYTES + 1)
            except (OSError, EOFError) as exc:
                raise Unreadable(f"a damaged gzip file ({exc})") from None
        if len(data) > MAX_RECORD_BYTES:
            raise Unreadable("larger than any record Warhost writes")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Unreadable("not UTF-8 text") from None
    try:
        value = json.loads(data)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise Unreadable(f"not JSON ({exc})") from None
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise Unreadable(f'not a Warhost game record (no "format": "{FORMAT}")')
    if value.get("version") != VERSION:
        raise Unreadable(f"record format version {value.get('version')!r}; this Warhost "
                         f"reads version {VERSION}")
    return value


def game_of(record: dict[str, Any]) -> Game[Any]:
    kind = record.get("kind")
    game = engine.GAMES.get(kind) if isinstance(kind, str) else None
    if game is None:
        raise Unreadable(f"a record of an unknown game ({str(kind)[:40]!r})")
    return game


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise Unreadable(f"{what} must be text")
    return value


def entries_of(record: dict[str, Any]) -> list[LogEntry]:
    """A complete record's actions as log entries; :class:`Unreadable` if malformed."""
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise Unreadable('"actions" must be a list')
    entries = []
    for n, item in enumerate(actions, start=1):
        if not isinstance(item, dict):
            raise Unreadable(f"action {n} is not an object")
        if item.get("seq") != n:
            raise Unreadable(f"action {n} has seq {item.get('seq')!r}")
        origin = item.get("origin", "player")
        events = item.get("events", [])
        if origin not in ORIGINS or not isinstance(events, list):
            raise Unreadable(f"action {n} has a bad origin or events")
        entries.append(LogEntry(n, _text(item.get("player"), f"action {n}'s player"),
                                _text(item.get("action"), f"action {n}'s text"),
                                events, 0.0, origin))
    return entries


def _first_difference(said: Any, got: Any, where: str = "") -> str:
    """Where two JSON values first differ, in words."""
    if isinstance(said, dict) and isinstance(got, dict):
        for key in sorted(set(said) | set(got)):
            if key not in said or key not in got or canonical(said[key]) != canonical(got[key]):
                if key in said and key in got:
                    return _first_difference(said[key], got[key], f"{where}.{key}")
                return f"{where}.{key}: the record says {_short(said.get(key))}, the " \
                       f"replay gives {_short(got.get(key))}"
    if isinstance(said, list) and isinstance(got, list):
        for i, (a, b) in enumerate(zip(said, got, strict=False)):
            if canonical(a) != canonical(b):
                return _first_difference(a, b, f"{where}[{i}]")
        if len(said) != len(got):
            return f"{where}: the record has {len(said)} items, the replay {len(got)}"
    return f"{where or 'value'}: the record says {_short(said)}, the replay gives {_short(got)}"


def _short(value: Any) -> str:
    text = canonical(value) if value is not None else "nothing"
    return text if len(text) <= 80 else text[:77] + "…"


def check_dice(record: dict[str, Any], verdict: Verdict) -> int | None:
    """Check the commitment and the seed's derivation; the game's seed, or None (failed)."""
    dice = record.get("dice")
    seed = record.get("game_seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        verdict.fail("dice", '"game_seed" is missing or not a 63-bit whole number')
        return None
    if not isinstance(dice, dict) or dice.get("scheme") != SCHEME:
        note = dice.get("note") if isinstance(dice, dict) else None
        verdict.lines.append(f"· no commitment: {note or 'the dice were not committed to'} "
                             "Only the replay is checked.")
        return seed
    secret, salt, promised = dice.get("seed"), dice.get("salt"), dice.get("commitment")
    if not (is_hex(secret, 64) and is_hex(salt, 32) and is_hex(promised, 64)):
        verdict.fail("dice", "the seed, salt or commitment is missing or malformed")
        return None
    assert isinstance(secret, str) and isinstance(salt, str)
    if commitment(secret, salt) != promised:
        verdict.fail("dice", "the revealed seed and salt do not match the commitment "
                             f"{promised} posted in the lobby")
        return None
    verdict.lines.append(f"✓ the revealed seed and salt match the commitment {promised[:16]}…")
    given = dice.get("contributions")
    if not isinstance(given, list) or not all(
            isinstance(c, dict) and isinstance(c.get("player"), str)
            and isinstance(c.get("value"), str) for c in given):
        verdict.fail("dice", "the contributions are missing or malformed")
        return None
    if [c["player"] for c in given] != record.get("seats"):
        verdict.fail("dice", "the contributions are not one per seat, in seat order")
        return None
    if mixed_seed(secret, [c["value"] for c in given]) != seed:
        verdict.fail("dice", "the game's seed does not follow from the revealed seed and "
                             f"the {len(given)} contributions (one of them, the seed or "
                             "the game seed was changed)")
        return None
    made = sum(1 for c in given if c["value"])
    verdict.lines.append(f"✓ the game's seed follows from it and {made} player "
                         f"contribution{'s' if made != 1 else ''}")
    return seed


def _check_undo(game: Game[Any], steps: dict[int, Any], entry: LogEntry) -> str | None:
    """Why Warhost would never have allowed this undo, or None."""
    for seq in undone_by(entry):
        step = steps.get(seq)
        if step is None or step.entry.player != entry.player:
            return f"it takes back move #{seq}, which was not {entry.player}'s"
        if step.entry.origin != "player" or not game.reversible(step.before, step.after,
                                                                 step.events):
            return (f"it takes back move #{seq}, which rolled dice, drew or revealed a "
                    "card, or was not the player's own choice")
    return None


def verify(record: dict[str, Any]) -> Verdict:
    """Check a record read by :func:`read` (see the module's description)."""
    verdict = Verdict(ok=True)
    try:
        game = game_of(record)
        if record.get("rules") != game.rules_version:
            verdict.lines.append(f"· recorded with rules version {record.get('rules')!r}; "
                                 f"this Warhost plays version {game.rules_version}")
        if not record.get("complete"):
            n = len(record.get("actions") or [])
            found = record.get("dice")
            dice: dict[str, Any] = found if isinstance(found, dict) else {}
            promised = dice.get("commitment") if dice.get("scheme") == SCHEME else None
            verdict.ok = None
            verdict.lines.append(
                f"· game #{record.get('id')} is {record.get('status')} ({n} actions so far): "
                "its seed stays secret until it ends, so there is nothing to replay yet."
                + (f" Its commitment is {promised}." if promised else ""))
            return verdict
        seats = record.get("seats")
        options = record.get("options")
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats) \
                or not isinstance(options, dict):
            raise Unreadable('"seats" must be a list of player ids and "options" an object')
        entries = entries_of(record)
        origin = record.get("origin")
        start_at = origin.get("position") if isinstance(origin, dict) else None
        if start_at is not None and not isinstance(start_at, str):
            raise Unreadable("the origin's position must be text")
    except Unreadable as exc:
        return verdict.fail("record", f"not a record this can check: {exc}")
    seed = check_dice(record, verdict)
    if seed is None:
        return verdict
    try:
        start = opening(game, seats, seed, options, start_at)
    except (IllegalAction, ValueError, TypeError) as exc:
        return verdict.fail("start", f"the game cannot be set up from the record ({exc})")
    said = {e.seq: e for e in entries}
    positions = {i["seq"]: i.get("position") for i in record["actions"]}
    done: dict[int, Any] = {}
    state = start
    try:
        for step in replay(game, start, entries):
            entry = step.entry
            label = f"action #{entry.seq} ({entry.player}: {entry.action[:60]})"
            if entry.origin == BY_UNDO:
                why = _check_undo(game, done, entry)
                if why:
                    return verdict.fail(f"action {entry.seq}", f"{label}: {why}")
            recorded = said[entry.seq].events
            if canonical(recorded) != canonical(step.events):
                return verdict.fail(f"action {entry.seq}", f"{label}: "
                                    + _first_difference(recorded, step.events, "events"))
            if positions.get(entry.seq) != position_hash(game, step.after):
                return verdict.fail(f"action {entry.seq}", f"{label}: the position it led "
                                    "to is not the one the record says")
            done[entry.seq] = step
            state = step.after
    except IllegalAction as exc:
        bad = len(done) + 1
        return verdict.fail(f"action {bad}", f"action #{bad}: the rules refuse it ({exc})")
    except (ValueError, TypeError, KeyError) as exc:
        bad = len(done) + 1
        return verdict.fail(f"action {bad}", f"action #{bad} cannot be replayed ({exc})")
    verdict.lines.append(f"✓ all {len(entries)} actions replay exactly (dice, cards and "
                         "positions)")
    outcome = game.outcome(state)
    got = None if outcome is None else outcome.to_json()
    if canonical(record.get("outcome")) != canonical(got):
        return verdict.fail("outcome", _first_difference(record.get("outcome"), got,
                                                         "outcome"))
    # a record written before the game kept its seats' memory holds the position without it
    if record.get("final_position") not in (game.dump(state), game.dump(game.forget(state))):
        return verdict.fail("final position", "the final position is not the one the "
                                              "replay reaches")
    if record.get("status") == "finished" and outcome is None:
        return verdict.fail("outcome", "the record says the game finished, but the replay "
                                       "does not end it")
    verdict.lines.append("✓ the outcome and the final position match"
                         + (f": {outcome.reason}" if outcome else " (no result: aborted)"))
    return verdict


def main(argv: Sequence[str] | None = None) -> int:
    paragraphs = (__doc__ or "").strip().split("\n\n")
    parser = argparse.ArgumentParser(
        prog="warhost-verify", description=paragraphs[1].replace("\n", " "),
        epilog=paragraphs[2].replace("\n", " "))
    parser.add_argument("record", help="a game record from /game export (.json or .json.gz)")
    try:
        path = parser.parse_args(argv).record
    except SystemExit as stop:       # --help (0) or a usage error (2): said, not raised
        return int(stop.code or 0)
    try:
        record = read(Path(path).read_bytes())
    except OSError as exc:
        print(f"Cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except Unreadable as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return 2
    verdict = verify(record)
    title = f"{record.get('game', record.get('kind'))} #{record.get('id')}"
    print(title)
    for line in verdict.lines:
        print(line)
    if verdict.ok is None:
        return 3
    print("The record checks out." if verdict.ok else f"It stops matching at: {verdict.where}.")
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    sys.exit(main())
