"""The leak audit of game records: a record exported mid-game tells only what is public.

``store.history.export`` writes a game's portable record (:mod:`engine.record`). While the
game runs, the record must hold public information only: no dice seed or salt, no game
seed, no private event, no position fingerprint, no final position, and no action text
that names a secret card (Napoleonic Wars' ``discard <card>`` is exported as
``"action": None, "hidden": "discard"``). Once the game is over the record is complete,
and :mod:`engine.verify` accepts it.

For the games with hidden information (Napoleonic Wars, Battlecards), random games are
played through a real store (random legal actions, never a resignation), with the
lobby's secret dice drawn deterministically (so each run plays the same games), and the
record is exported after every action. A card (its name, and its id as a whole word) is
*held* once it appeared in a player's own view and not in the public one, or in an event
told to one player alone; it is *secret* while it has not appeared in the public view, a
public event or the narration of one. No secret card, nor the dice secret, may appear
anywhere in the exported JSON. Short games are then played to the end (a resignation
past a cap) and their complete records verified.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import AsyncIterator, Callable, Mapping, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import db.lobby
import engine
from db import Store
from engine import public_events
from engine import record as game_record
from engine import verify as verifier
from tests.properties import private_parts, strings

A, B = "111111111111111111", "222222222222222222"
GUILD = "555555555555555555"
NAMES = {A: "Alice", B: "Bob"}
#: The Discord interaction ids that seat each player (mixed into the committed dice).
CONTRIBUTIONS = {A: "333333333333333333", B: "444444444444444444"}
#: Mid-game audits: (kind, seed, actions), each stopped after that many actions (or at
#: its end, which is not audited: its record is complete).
MID_GAMES = [(kind, seed, actions) for kind, actions in (("napoleon", 250), ("battlecards", 120))
             for seed in (1, 2, 3)]
#: Games played to the end with the kind's short options: (kind, seed, cap). Past the
#: cap the player to act resigns (the first two end by themselves, the others so).
FULL_GAMES = [("napoleon", 4, 500), ("battlecards", 4, 800),
              ("napoleon", 5, 60), ("battlecards", 5, 60)]
#: A full game's record is audited at every this many actions.
FULL_EXPORT_EVERY = 10
#: A card id as it appears in text: a run of lower/upper-case letters, digits and dashes.
WORD = re.compile(r"[\w-]+")
_channels = itertools.count(810_000_000_000_000_000)


def fixed_secrets() -> Callable[[], tuple[str, str]]:
    """A stand-in for ``db.lobby.draw_secret``: each lobby's dice secret (seed, salt),
    drawn in order, so a test plays the same games every run."""
    drawn = itertools.count(1)

    def draw() -> tuple[str, str]:
        n = next(drawn)
        return f"{n:02x}" + "5e" * 31, f"{n:02x}" + "a1" * 15

    return draw


@pytest.fixture
async def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Store]:
    monkeypatch.setattr(db.lobby, "draw_secret", fixed_secrets())
    opened = await Store.open(str(tmp_path / "records.db"))
    try:
        yield opened
    finally:
        await opened.close()


# -- what is secret -------------------------------------------------------------------------


def card_parts(value: Any) -> tuple[set[str], set[str]]:
    """The card names and ids in a piece of a view or an event: every ``name`` and the
    text under ``card``/``cards``; the ``id`` of every object that has a ``name``."""
    names: set[str] = set()
    ids: set[str] = set()

    def walk(item: Any) -> None:
        if isinstance(item, dict):
            for key, inner in item.items():
                if key == "name" and isinstance(inner, str):
                    names.add(inner)
                    if isinstance(item.get("id"), str):
                        ids.add(item["id"])
                elif key in ("card", "cards"):
                    if isinstance(inner, str):
                        names.add(inner)
                    elif isinstance(inner, list):
                        names.update(x for x in inner if isinstance(x, str))
                walk(inner)
        elif isinstance(item, list):
            for inner in item:
                walk(inner)

    walk(value)
    return names, ids


@dataclass
class Secrets:
    """The cards held privately so far, and everything said in public so far."""

    game: engine.Game[Any]
    public_text: list[str] = field(default_factory=list)
    public_words: set[str] = field(default_factory=set)
    held_names: dict[str, set[str]] = field(default_factory=lambda: {A: set(), B: set()})
    held_ids: dict[str, set[str]] = field(default_factory=lambda: {A: set(), B: set()})

    def learn(self, state: Any, events: list[dict[str, Any]]) -> None:
        public = self.game.view(state, None)
        told = public_events(events)
        said = [*strings(public), *strings(told), *self.game.narrate(told, NAMES)]
        self.public_text += said
        for text in said:
            self.public_words.update(WORD.findall(text))
        for p in (A, B):
            mine = [e for e in events if e.get("private_to") == p]
            mine += private_parts(public, self.game.view(state, p))
            names, ids = card_parts(mine)
            self.held_names[p] |= names
            self.held_ids[p] |= ids

    def secret(self, player: str) -> tuple[set[str], set[str]]:
        """The names and ids ``player`` holds that were never public."""
        everyone = "\n".join(self.public_text)
        return ({n for n in self.held_names[player] if n not in everyone},
                {i for i in self.held_ids[player] if i not in self.public_words})

    def forbidden(self) -> tuple[set[str], set[str]]:
        (names_a, ids_a), (names_b, ids_b) = self.secret(A), self.secret(B)
        return names_a | names_b, ids_a | ids_b


def leaks(value: Any, names: Set[str], ids: Set[str], others: Set[str] = frozenset()
          ) -> list[str]:
    """The forbidden things a JSON value shows once serialised: ``names`` and ``others``
    anywhere in its text (``\\u`` escaped or not), ``ids`` as whole words."""
    text = json.dumps(value) + "\n" + json.dumps(value, ensure_ascii=False)
    words = set(WORD.findall(text))
    return sorted({n for n in {*names, *others} if n in text} | (set(ids) & words))


# -- the audit ------------------------------------------------------------------------------


@dataclass
class Audit:
    """What the audit looked at."""

    exports: int = 0
    name_checks: int = 0
    #: Positions where some card was secret, and where a player's own view showed it
    #: (proof the search finds a secret where it is).
    secret_positions: int = 0
    own_found: int = 0
    #: Napoleon discards exported as hidden, and complete records (built mid-game, as the
    #: store would once the game is over) in which the search found the secret.
    hidden_discards: int = 0
    complete_flagged: int = 0


def check_public_export(data: dict[str, Any], record: Any, played: list[str],
                        where: str) -> None:
    """The structural guarantees of a record exported while the game runs."""
    assert data["complete"] is False, where
    assert data["status"] == "active", where
    dice = data["dice"]
    assert dice["scheme"] == game_record.SCHEME, where
    assert dice["seed"] is None and dice["salt"] is None, f"{where}: the dice secret shows"
    assert dice["commitment"] == game_record.commitment(record.dice["seed"],
                                                        record.dice["salt"]), where
    assert data["game_seed"] is None, f"{where}: the game seed shows"
    assert data["final_position"] is None, f"{where}: the final position shows"
    assert data["outcome"] is None, where
    assert [a["seq"] for a in data["actions"]] == list(range(1, len(played) + 1)), where
    for item, action in zip(data["actions"], played, strict=True):
        assert "position" not in item, f"{where}: action {item['seq']} has a fingerprint"
        private = [e for e in item["events"] if "private_to" in e]
        assert not private, f"{where}: action {item['seq']} exports private events {private}"
        if item["action"] is None:
            assert item["hidden"] == action.split()[0], where
        else:
            assert not (data["kind"] == "napoleon" and action.startswith("discard ")), \
                f"{where}: action {item['seq']} shows the discarded card"
            assert "hidden" not in item and item["action"] == action, where
    verdict = verifier.verify(verifier.read(json.dumps(data)))
    assert verdict.ok is None, f"{where}: a running game's record was checked: {verdict}"


async def complete_now(store: Store, record: Any) -> dict[str, Any]:
    """The record the store would write if the game were over now (a negative control:
    it holds the private events, the seed and the final position)."""
    entries = await store.history.actions_between(record.id, 1, record.version)
    return game_record.build(
        engine.get_game(record.kind), game_id=record.id, status=record.status,
        options=record.options, seats=record.seats, rated=True, dice=record.dice,
        origin=record.origin, seed=record.seed, entries=entries,
        started_at=record.timing.get("started_at"), finished_at=None, exported_at=0.0,
        complete=True)


async def play(store: Store, kind: str, seed: int, options: Mapping[str, Any], actions: int,
               export_every: int, audit: Audit) -> tuple[Any, list[str], Secrets]:
    """Play a random game for up to ``actions`` actions, auditing its export; returns the
    game's record, the actions played and what was secret."""
    game = engine.get_game(kind)
    record = await store.lobby.open(kind, GUILD, str(next(_channels)), A, dict(options))
    await store.lobby.join(record.id, B, CONTRIBUTIONS[B])
    record = await store.lobby.start(record.id, A, contribution=CONTRIBUTIONS[A])
    assert record.dice["scheme"] == game_record.SCHEME          # committed dice
    dice_secret = {record.dice["seed"], record.dice["salt"], str(record.seed)}
    rng = random.Random(seed * 7919 + len(kind))
    state = store.load_state(record)
    secrets = Secrets(game)
    secrets.learn(state, [])
    played: list[str] = []
    for step in range(actions + 1):
        if step:
            if game.outcome(state) is not None:
                break
            player = rng.choice(game.to_act(state))
            choice = rng.choice([a for a in game.legal_actions(state, player)
                                 if a != "resign"])
            move = await store.apply_action(record.id, player, choice)
            state, record = move.state, move.record
            played.append(choice)
            secrets.learn(state, list(move.events))
        if game.outcome(state) is not None or (step % export_every and step != actions):
            continue
        where = f"{kind} seed {seed} step {step}"
        names, ids = secrets.forbidden()
        exported, data = await store.history.export(record.id)
        assert exported.version == len(played), where
        check_public_export(data, record, played, where)
        leaked = leaks(data, names, ids, dice_secret)
        assert not leaked, f"{where}: the record shows secrets {leaked}"
        audit.exports += 1
        audit.name_checks += len(names) + len(ids) + len(dice_secret)
        if names or ids:
            audit.secret_positions += 1
            if any(leaks(game.view(state, p), *secrets.secret(p)) for p in (A, B)):
                audit.own_found += 1
        if kind == "napoleon" and played and played[-1].startswith("discard"):
            item = data["actions"][-1]
            assert item["action"] is None and item["hidden"] == "discard", where
            audit.hidden_discards += 1
            card = played[-1].split()[1]
            if card in ids:         # the discarded card is still secret: a full record tells
                full = await complete_now(store, record)
                shown = leaks(full, names, ids)
                assert card in shown, f"{where}: the search missed {card} in a full record"
                assert played[-1] in json.dumps(full), where
                audit.complete_flagged += 1
    return record, played, secrets


async def test_a_running_games_record_shows_no_secret(store: Store) -> None:
    audit = Audit()
    for kind, seed, actions in MID_GAMES:
        await play(store, kind, seed, {}, actions, 1, audit)
    print(f"\nrecord leak audit: {audit.exports} exports of {len(MID_GAMES)} games, "
          f"{audit.name_checks} secret checks, {audit.secret_positions} positions with "
          f"secrets, {audit.hidden_discards} hidden discards, {audit.complete_flagged} "
          "complete records flagged")
    assert audit.exports >= 600
    assert audit.secret_positions >= 0.9 * audit.exports        # there was plenty to hide
    assert audit.own_found >= 0.9 * audit.secret_positions    # and the search finds it
    assert audit.name_checks >= 10 * audit.exports
    assert audit.hidden_discards >= 5           # the redaction was exercised
    assert audit.complete_flagged >= 5          # and without it the audit would fail


@pytest.mark.parametrize(("kind", "seed", "cap"), FULL_GAMES)
async def test_a_finished_games_record_is_complete_and_verifies(
        store: Store, kind: str, seed: int, cap: int) -> None:
    game = engine.get_game(kind)
    audit = Audit()
    record, played, secrets = await play(store, kind, seed, game.facts.short_game, cap,
                                         FULL_EXPORT_EVERY, audit)
    assert audit.exports >= 5
    assert (record.status == "finished") is (cap > 100), "the game ended unexpectedly"
    if record.status != "finished":
        player = game.to_act(store.load_state(record))[0]
        move = await store.apply_action(record.id, player, "resign")
        record = move.record
        played.append("resign")
    assert record.status == "finished"
    exported, data = await store.history.export(record.id)
    assert exported.status == "finished"
    assert data["complete"] is True and data["status"] == "finished"
    assert data["dice"]["seed"] == record.dice["seed"]
    assert data["dice"]["salt"] == record.dice["salt"]
    assert data["game_seed"] == record.seed
    assert data["final_position"] == game.dump(store.load_state(record))
    assert data["outcome"] is not None
    assert [a["action"] for a in data["actions"]] == played
    assert all("hidden" not in a and a["position"] for a in data["actions"])
    assert any("private_to" in e for a in data["actions"] for e in a["events"])
    # The complete record holds what the public one may not: the audit would flag it.
    _, ids = secrets.forbidden()
    assert ids, "no card stayed secret to the end"
    dice_secret = {record.dice["seed"], record.dice["salt"]}
    assert set(leaks(data, set(), ids, dice_secret)) == ids | dice_secret
    verdict = verifier.verify(verifier.read(json.dumps(data)))
    assert verdict.ok is True, verdict.lines


def test_the_search_finds_a_secret_where_it_is() -> None:
    """The audit's own parts: a hand is private and held; its names and ids are found in
    a record, its ids only as whole words."""
    game = engine.get_game("napoleon")
    state = game.new_game([A, B], 1, {})
    secrets = Secrets(game)
    secrets.learn(state, [])
    names, ids = secrets.secret(A)
    assert names and ids and not names & set(secrets.public_text)
    name, cid = sorted(names)[0], sorted(ids)[0]
    record: dict[str, Any] = {"complete": False, "actions": [
        {"seq": 1, "action": None, "hidden": "discard", "events": []}]}
    assert not leaks(record, names, ids)
    record["actions"][0]["events"] = [{"type": "discarded", "card": {"name": name}}]
    assert leaks(record, names, ids) == [name]
    record["actions"][0].update(events=[], action=f"discard {cid}")
    assert leaks(record, names, ids) == [cid]
    record["actions"][0]["action"] = f"discard {cid}x"          # not the word itself
    assert not leaks(record, names, ids)
    assert leaks({"note": "Blücher"}, {"Blücher"}, set()) == ["Blücher"]
    assert leaks({"dice": {"seed": "ab" * 32}}, set(), set(), {"ab" * 32})
    assert card_parts([{"cards": ["X", 3], "card": "Y", "hand": [{"id": "z", "name": "Z"}]}]
                      ) == ({"X", "Y", "Z"}, {"z"})

