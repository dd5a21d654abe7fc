"""Game records and committed dice, in the engine alone (``engine.record``,
``engine.verify``, ``engine.origins``; the format is ``docs/records.md``).

A finished game is played with random legal actions from a seed mixed, as the bot does,
from a secret and two players' contributions; its record must check out, and changing
any one thing in it (an action, a die, the seed, a contribution, the outcome) must make
``verify`` fail at exactly that place.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.origins import MAX_FROM_BYTES, starting_point
from engine.record import (
    BY_UNDO,
    SCHEME,
    LogEntry,
    build,
    commitment,
    mixed_seed,
    rename_players,
    undo_event,
)
from engine.verify import Unreadable, main, read, verify

SECRET = "5e" * 32
SALT = "a1" * 16
SEATS = ["111111111111111111", "222222222222222222"]
CONTRIBUTIONS = ["1311111111111111111", "1322222222222222222"]


def committed(contributions: list[str] = CONTRIBUTIONS) -> dict[str, Any]:
    """The store's dice of a started game (the secret, its commitment, the mix)."""
    return {"scheme": SCHEME, "seed": SECRET, "salt": SALT, "committed_at": 1.8e9,
            "commitment": commitment(SECRET, SALT),
            "mixed": [[p, c] for p, c in zip(SEATS, contributions, strict=True)]}


def play(kind: str, seed: int, limit: int = 4000, rng_seed: int = 1,
         stop: int | None = None) -> tuple[list[LogEntry], Any]:
    """A random game (ended by a resignation if it runs past ``limit``; stopped after
    ``stop`` actions if given)."""
    game = engine.get_game(kind)
    state = game.new_game(SEATS, seed, dict(game.facts.short_game))
    rng = random.Random(rng_seed)
    entries: list[LogEntry] = []
    while game.outcome(state) is None and (stop is None or len(entries) < stop):
        player = game.to_act(state)[0]
        action = rng.choice(game.legal_actions(state, player)) if len(entries) < limit \
            else "resign"
        state, events = game.apply(state, player, action)
        entries.append(LogEntry(len(entries) + 1, player, action, events,
                                1.8e9 + len(entries)))
    return entries, state


def record_of(kind: str, entries: list[LogEntry], *, complete: bool = True,
              dice: dict[str, Any] | None = None, seed: int | None = None) -> dict[str, Any]:
    game = engine.get_game(kind)
    return build(game, game_id=7, status="finished" if complete else "active",
                 options=dict(game.facts.short_game), seats=SEATS, rated=True,
                 dice=committed() if dice is None else dice, origin={},
                 seed=mixed_seed(SECRET, CONTRIBUTIONS) if seed is None else seed,
                 entries=entries, started_at=1.8e9, finished_at=1.9e9, exported_at=1.9e9,
                 complete=complete)


def round_trip(record: dict[str, Any]) -> dict[str, Any]:
    return read(json.dumps(record).encode())


@pytest.fixture(scope="module")
def liege() -> dict[str, Any]:
    """A finished Liège game's record: dice in its events."""
    entries, state = play("liege", mixed_seed(SECRET, CONTRIBUTIONS))
    assert engine.get_game("liege").outcome(state) is not None
    return record_of("liege", entries)


#: Where Liège's events keep die results: a fight round's ``attack`` and ``defense``
#: rolls, a blast's ``roll`` per piece.
DICE_KEYS = ("attack", "defense", "roll")


def dice_in(record: dict[str, Any]) -> Iterator[tuple[int, Any, Any]]:
    """Every die result of a record: (action seq, the container holding it, its key or
    index)."""
    def walk(value: Any, seq: int) -> Iterator[tuple[int, Any, Any]]:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in DICE_KEYS and isinstance(item, int) and not isinstance(item, bool):
                    yield seq, value, key
                elif key in DICE_KEYS and isinstance(item, list) and item and \
                        all(isinstance(v, int) for v in item):
                    yield seq, item, 0
                else:
                    yield from walk(item, seq)
        elif isinstance(value, list):
            for item in value:
                yield from walk(item, seq)
    for action in record["actions"]:
        yield from walk(action["events"], action["seq"])


# -- the commitment ---------------------------------------------------------------------


def test_the_commitment_and_the_seed_are_the_documented_sums() -> None:
    assert commitment(SECRET, SALT) == hashlib.sha256(
        f"warhost-dice-1:{SECRET}:{SALT}".encode()).hexdigest()
    text = '["warhost-dice-1","' + SECRET + '",["' + '","'.join(CONTRIBUTIONS) + '"]]'
    digest = hashlib.sha256(text.encode()).digest()
    assert mixed_seed(SECRET, CONTRIBUTIONS) == int.from_bytes(digest[:8], "big") & (2**63 - 1)
    # every input moves the seed
    assert mixed_seed(SECRET, CONTRIBUTIONS[::-1]) != mixed_seed(SECRET, CONTRIBUTIONS)
    assert mixed_seed(SECRET, [CONTRIBUTIONS[0], ""]) != mixed_seed(SECRET, CONTRIBUTIONS)
    assert mixed_seed("5f" * 32, CONTRIBUTIONS) != mixed_seed(SECRET, CONTRIBUTIONS)


def test_a_finished_record_checks_out(liege: dict[str, Any]) -> None:
    verdict = verify(round_trip(liege))
    assert verdict.ok is True, verdict.lines
    assert verdict.where is None
    assert any("match the commitment" in line for line in verdict.lines)
    assert any(f"all {len(liege['actions'])} actions replay" in line for line in verdict.lines)
    assert liege["dice"]["seed"] == SECRET and liege["dice"]["salt"] == SALT
    assert liege["game_seed"] == mixed_seed(SECRET, CONTRIBUTIONS)
    assert liege["outcome"]["winners"]


# -- tampering: each change is found where it was made ---------------------------------------


def test_changing_one_die_fails_at_that_action(liege: dict[str, Any]) -> None:
    found = list(dice_in(liege))
    assert len(found) > 10
    for n in range(0, len(found), max(1, len(found) // 5)):
        seq = found[n][0]
        tampered = copy.deepcopy(liege)
        _, container, key = list(dice_in(tampered))[n]
        container[key] = container[key] % 6 + 1
        verdict = verify(round_trip(tampered))
        assert verdict.ok is False and verdict.where == f"action {seq}", verdict.lines
        assert "the record says" in verdict.lines[-1]


def test_changing_one_action_fails_at_that_action(liege: dict[str, Any]) -> None:
    game = engine.get_game("liege")
    actions = liege["actions"]
    changed = 0
    for index in range(3, len(actions), max(1, len(actions) // 6)):
        original = actions[index]["action"]
        tampered = copy.deepcopy(liege)
        tampered["actions"][index]["action"] = "end" if original != "end" else "pass"
        verdict = verify(round_trip(tampered))
        assert verdict.ok is False, (index, verdict.lines)
        assert verdict.where == f"action {index + 1}", (original, verdict.lines)
        changed += 1
    assert changed >= 5 and game.kind == "liege"


@pytest.mark.parametrize("what", ["seed", "salt", "commitment"])
def test_changing_the_revealed_seed_fails_at_the_dice(liege: dict[str, Any], what: str) -> None:
    tampered = copy.deepcopy(liege)
    value = tampered["dice"][what]
    tampered["dice"][what] = ("0" if value[0] != "0" else "1") + value[1:]
    verdict = verify(round_trip(tampered))
    assert verdict.ok is False and verdict.where == "dice"
    assert "do not match the commitment" in verdict.lines[-1]


def test_changing_a_contribution_or_the_game_seed_fails_at_the_dice(
        liege: dict[str, Any]) -> None:
    tampered = copy.deepcopy(liege)
    tampered["dice"]["contributions"][1]["value"] = "1399999999999999999"
    verdict = verify(round_trip(tampered))
    assert verdict.ok is False and verdict.where == "dice"
    assert "does not follow" in verdict.lines[-1]
    # a forger who also fixes the game seed is caught by the replay's first die instead
    tampered["game_seed"] = mixed_seed(SECRET, [CONTRIBUTIONS[0], "1399999999999999999"])
    verdict = verify(round_trip(tampered))
    assert verdict.ok is False and verdict.where is not None
    assert verdict.where.startswith("action ") or verdict.where == "start"


def test_changing_the_outcome_or_final_position_fails_there(liege: dict[str, Any]) -> None:
    tampered = copy.deepcopy(liege)
    tampered["outcome"]["winners"] = [w for w in SEATS if w not in liege["outcome"]["winners"]]
    verdict = verify(round_trip(tampered))
    assert verdict.ok is False and verdict.where == "outcome"
    tampered = copy.deepcopy(liege)
    tampered["final_position"] = tampered["final_position"].replace('"round":', '"round": ')
    verdict = verify(round_trip(tampered))
    assert verdict.ok is False and verdict.where == "final position"


def test_an_undo_that_takes_back_dice_is_refused(liege: dict[str, Any]) -> None:
    seq = next(s for s, _, _ in dice_in(liege))
    tampered = copy.deepcopy(liege)
    actions = tampered["actions"][:seq]
    actions.append({"seq": seq + 1, "player": actions[-1]["player"], "origin": BY_UNDO,
                    "action": "undo", "events": [undo_event([seq])],
                    "at": actions[-1]["at"]})
    tampered["actions"] = actions
    verdict = verify(round_trip(tampered))
    assert verdict.ok is False and verdict.where == f"action {seq + 1}"
    assert "rolled dice" in verdict.lines[-1]


# -- what a record holds ------------------------------------------------------------------------


def test_a_record_of_a_game_under_way_has_nothing_to_replay() -> None:
    entries, _ = play("liege", mixed_seed(SECRET, CONTRIBUTIONS), stop=40)
    record = record_of("liege", entries, complete=False)
    text = json.dumps(record)
    assert SECRET not in text and SALT not in text
    assert record["game_seed"] is None and record["final_position"] is None
    assert all("position" not in a for a in record["actions"])
    verdict = verify(round_trip(record))
    assert verdict.ok is None and "secret until it ends" in verdict.lines[-1]
    assert commitment(SECRET, SALT) in verdict.lines[-1]


def test_a_game_without_a_commitment_still_replays() -> None:
    entries, _ = play("liege", 99)
    record = record_of("liege", entries, dice={}, seed=99)
    assert record["dice"]["scheme"] == "none"
    assert "before Warhost committed" in record["dice"]["note"]
    verdict = verify(round_trip(record))
    assert verdict.ok is True
    assert any("no commitment" in line for line in verdict.lines)


def test_a_discarded_card_is_hidden_from_the_public_record() -> None:
    game = engine.get_game("napoleon")
    secret_discard = [{"type": "discard", "side": "french", "hand_count": 7},
                      {"type": "discarded", "private_to": "x", "card": {"id": "f3"}}]
    assert game.public_action("discard f3", secret_discard) is None
    played = [{"type": "card", "card": {"id": "f3", "name": "Guard"}}]
    assert game.public_action("play f3", played) == "play f3"
    assert game.public_action("play f4", played) is None
    assert game.public_action("move 2 france spain", []) == "move 2 france spain"
    assert engine.get_game("liege").public_action("END", []) == "end"


def test_renaming_players_swaps_ids_in_one_pass() -> None:
    text = json.dumps({"players": ["a1", "b2"], "hands": {"a1": [1], "b2": [2]},
                       "turn": "b2", "note": "a1b2"})
    swapped = json.loads(rename_players(text, {"a1": "b2", "b2": "a1"}))
    assert swapped == {"players": ["b2", "a1"], "hands": {"b2": [1], "a1": [2]},
                       "turn": "a1", "note": "a1b2"}


# -- the command line ---------------------------------------------------------------------------


def test_verify_from_the_command_line(liege: dict[str, Any], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(liege))
    assert main([str(good)]) == 0
    assert "checks out" in capsys.readouterr().out
    bad = copy.deepcopy(liege)
    bad["dice"]["salt"] = "0" * 32
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert main([str(tmp_path / "bad.json")]) == 1
    assert "stops matching at: dice" in capsys.readouterr().out
    (tmp_path / "junk.json").write_bytes(b"\x00\xffnot json")
    assert main([str(tmp_path / "junk.json")]) == 2
    assert main([str(tmp_path / "missing.json")]) == 2
    entries, _ = play("liege", 5, stop=10)
    (tmp_path / "running.json").write_text(json.dumps(record_of("liege", entries,
                                                                 complete=False)))
    assert main([str(tmp_path / "running.json")]) == 3


@pytest.mark.parametrize("text", [b"", b"{", b"[]", b'{"format": "warhost-record"}',
                                  b'{"format": "warhost-record", "version": 1, "kind": 5}',
                                  "\u2603".encode() * 10])
def test_garbage_is_never_a_record(text: bytes) -> None:
    try:
        record = read(text)
    except Unreadable:
        return
    verdict = verify(record)
    assert verdict.ok is False and verdict.where == "record"


# -- starting from a position or a record ------------------------------------------------------


def test_starting_from_a_record_point(liege: dict[str, Any]) -> None:
    game = engine.get_game("liege")
    data = json.dumps(liege).encode()
    point = starting_point(game, data, 30, "liege.json")
    assert point.source == "record" and point.players == 2
    assert "action 30 of" in point.note
    entries = [LogEntry(a["seq"], a["player"], a["action"], a["events"], 0.0)
               for a in liege["actions"][:30]]
    state = game.new_game(SEATS, liege["game_seed"], liege["options"])
    for entry in entries:
        state, _ = game.apply(state, entry.player, entry.action)
    assert point.position == game.dump(state)
    default = starting_point(game, data)
    assert game.outcome(game.load(default.position)) is None
    assert "action " + str(len(liege["actions"]) - 1) in default.note


@pytest.mark.parametrize(("make", "said"), [
    (lambda r: b"garbage \x00\x01", "neither a game record nor"),
    (lambda r: json.dumps({**r, "complete": False}).encode(), "still under way"),
    (lambda r: json.dumps({**r, "kind": "napoleon"}).encode(), "record of Napoleonic Wars"),
    (lambda r: json.dumps({**r, "game_seed": r["game_seed"] ^ 1}).encode(),
     "does not check out"),
    (lambda r: b" " * (MAX_FROM_BYTES + 1), "MB"),
])
def test_starting_from_a_bad_file_is_refused_clearly(liege: dict[str, Any], make: Any,
                                                     said: str) -> None:
    with pytest.raises(engine.IllegalAction, match=said):
        starting_point(engine.get_game("liege"), make(liege))


def test_points_outside_a_record_are_refused(liege: dict[str, Any]) -> None:
    game = engine.get_game("liege")
    data = json.dumps(liege).encode()
    with pytest.raises(engine.IllegalAction, match="must be an action number"):
        starting_point(game, data, len(liege["actions"]) + 1)
    with pytest.raises(engine.IllegalAction, match="already over"):
        starting_point(game, data, len(liege["actions"]))


def test_a_position_of_another_game_names_that_game() -> None:
    napoleon = engine.get_game("napoleon")
    text = napoleon.dump(napoleon.new_game(SEATS, 3)).encode()
    with pytest.raises(engine.IllegalAction, match="Napoleonic Wars position, not"):
        starting_point(engine.get_game("liege"), text)
    point = starting_point(napoleon, text, None, "n.json")
    assert point.source == "position" and point.players == 2
    with pytest.raises(engine.IllegalAction, match="`at:` picks a point"):
        starting_point(napoleon, text, 3)


def test_reseeding_restarts_the_dice_and_keeps_a_game_without_them() -> None:
    liege = engine.get_game("liege")
    state = liege.new_game(SEATS, 4)
    state.dice.forced.extend([6, 6])
    fresh = liege.reseed(state, 99)
    assert fresh.dice.state == 99 and fresh.dice.forced == []
    assert state.dice.forced == [6, 6]                  # the original is untouched
    antiquity = engine.get_game("antiquity")
    dealt = antiquity.new_game(SEATS, 4)
    assert antiquity.dump(antiquity.reseed(dealt, 99)) == antiquity.dump(dealt)


@pytest.mark.parametrize("kind", ["battlecards", "napoleon"])
def test_a_record_written_before_the_seats_remembered_still_checks_out(kind: str) -> None:
    """Battlecards and Napoleon positions now carry what each seat remembers (issue 31);
    a record exported before holds positions without it. Its fingerprints and final
    position (the dump without the memory) still verify; a changed one still fails."""
    game = engine.get_game(kind)
    for rng_seed in range(40):   # a finished game whose final position remembers something
        entries, state = play(kind, mixed_seed(SECRET, CONTRIBUTIONS), rng_seed=rng_seed)
        if game.outcome(state) is not None and game.dump(game.forget(state)) != game.dump(state):
            break
    else:
        raise AssertionError("no random game ended with a memory")
    old = record_of(kind, entries)
    old["final_position"] = game.dump(game.forget(state))
    # what a writer without the memory fingerprinted: the dump as it was then
    position = game.new_game(SEATS, mixed_seed(SECRET, CONTRIBUTIONS),
                             dict(game.facts.short_game))
    for entry, item in zip(entries, old["actions"], strict=True):
        position, _ = game.apply(position, entry.player, entry.action)
        then = game.dump(game.forget(position))
        assert not {'"known"', '"deck_from"', '"seen"'} & set(then.replace(":", " ").split())
        assert item["position"] == hashlib.sha256(then.encode()).hexdigest()[:16]
    verdict = verify(round_trip(old))
    assert verdict.ok is True, verdict.lines
    current = record_of(kind, entries)
    assert current["final_position"] == game.dump(state)          # the memory is kept
    assert verify(round_trip(current)).ok is True
    tampered = copy.deepcopy(old)
    tampered["final_position"] = game.dump(game.forget(state)).replace('"round":', '"round": ')
    assert verify(round_trip(tampered)).where == "final position"
