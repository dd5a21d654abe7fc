"""Deleting a user's data (``Store.privacy.forget_user``): their lobbies left, their running games
resigned through the one move path, every game that names them rewritten with a
placeholder that still replays move for move, their settings, vacations, follows and
messages deleted, nothing of anyone else touched, the log's append-only guard back."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

import engine
from db import Store, StoreError
from db.privacy import PLACEHOLDER_PREFIX, renamer, snowflake
from tests import databases, toy_game
from tests.fakegame import GAME as RACE
from tests.fakegame import Race, RaceState

T0 = 1_800_000_000.0
A, B, C, D = ("111111111111111111", "222222222222222222", "333333333333333333",
              "444444444444444444")
PLACEHOLDER = re.compile(rf"{PLACEHOLDER_PREFIX}[0-9a-f]{{8}}")


class SortedRace(Race):
    """A race seated in the order of the players' ids: renaming one reorders the seats,
    so a rewritten log would no longer replay (the rewrite must be refused)."""

    kind = "sortedrace"
    name = "Sorted race"

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> RaceState:
        return super().new_game(sorted(players), seed, options)


@pytest.fixture(autouse=True)
def games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", RACE)
    monkeypatch.setitem(engine.GAMES, "sortedrace", SortedRace())


@pytest.fixture
async def store(database: str) -> AsyncIterator[Store]:
    s = await Store.open(database, clock=lambda: T0)
    yield s
    await s.close()


def everything(database: str) -> str:
    """Every row of every table, as one text."""
    return "\n".join(databases.snapshot(database))


async def race(store: Store, players: tuple[str, ...], channel: str, *,
               kind: str = "race", target: int = 1000000) -> int:
    record = await store.lobby.open(kind, "g1", channel, players[0], {"target": target})
    for p in players[1:]:
        await store.lobby.join(record.id, p)
    await store.lobby.start(record.id, players[0], seed=7)
    return record.id


async def play(store: Store, game_id: int, moves: int) -> None:
    """``moves`` actions by whoever is to act (rolls, so private events are made too)."""
    for _ in range(moves):
        record = await store.get(game_id)
        state = store.load_state(record)
        to_act = RACE.to_act(state)
        if not to_act:
            return
        await store.apply_action(game_id, to_act[0], "roll")


# -- the pieces ------------------------------------------------------------------------------


def test_only_whole_ids_are_renamed() -> None:
    rename = renamer(A, "deleted-0badcafe")
    text = f'{{"{A}": 1, "x": "{A}1", "y": "9{A}", "z": "<@{A}> won", "w": [{A}]}}'
    assert rename(text) == ('{"deleted-0badcafe": 1, "x": "' + A + '1", "y": "9' + A
                            + '", "z": "<@deleted-0badcafe> won", "w": [deleted-0badcafe]}')


@pytest.mark.parametrize("bad", ["", "abc", "12 34", "1" * 21, "-5", True, None, "%"])
def test_only_snowflakes_can_be_forgotten(bad: Any) -> None:
    with pytest.raises(StoreError):
        snowflake(bad)
    assert snowflake(123) == "123"


# -- what is held ----------------------------------------------------------------------------


async def test_held_about_counts_what_names_the_user(store: Store) -> None:
    finished = await race(store, (A, B), "c1", target=5)
    await play(store, finished, 20)
    running = await race(store, (A, C), "c2")
    await play(store, running, 3)
    await store.lobby.open("race", "g1", "c3", A)
    watched = await race(store, (B, C), "c4")
    await store.hosting.follow(watched, A)
    await store.hosting.set_player_settings(A, dm_reminders=True)
    await store.hosting.start_vacation("g1", A, 2)
    held = await store.privacy.held_about(A)
    assert (held.games, held.open_games, held.settings, held.vacations, held.following,
            held.ratings) == (3, 2, True, 1, 1, 1)
    ours = [e for g in (finished, running) for e in await store.history.log(g, 100)
            if e.player == A]
    assert held.moves == len(ours) > 0
    assert held.waiting == len([a for a in await store.outbox.pending()
                                if a.recipient == A]) > 0
    assert held.anything
    nobody = await store.privacy.held_about(D)
    assert not nobody.anything and nobody.games == 0


# -- forgetting ------------------------------------------------------------------------------


async def test_forgetting_rewrites_every_game_and_deletes_the_rest(
        store: Store, database: str) -> None:
    finished = await race(store, (A, B), "c1", target=5)
    await play(store, finished, 20)
    assert (await store.get(finished)).status == "finished"
    running = await race(store, (A, B, C), "c2")
    await play(store, running, 7)
    two = await race(store, (C, A), "c3")                 # ends when A resigns
    await play(store, two, 2)
    lobby = await store.lobby.open("race", "g1", "c4", A)
    await store.lobby.join(lobby.id, D)
    alone = await store.lobby.open("race", "g1", "c5", A)
    watched = await race(store, (B, D), "c6")
    await store.hosting.follow(watched, A)
    await store.hosting.follow(watched, C)
    await store.hosting.set_player_settings(A, dm_reminders=True)
    await store.hosting.set_player_settings(B, dm_reminders=True)
    await store.hosting.start_vacation("g1", A, 2)
    await store.hosting.start_vacation("g1", B, 2)
    await play(store, watched, 2)                         # copies of the digest for A and C
    b_rows = [line for line in databases.snapshot(database) if B in line and A not in line]

    forgotten = await store.privacy.forget_user(A)

    assert A not in everything(database)                  # nowhere, in any table
    assert [r.id for r in forgotten.left] == [lobby.id, alone.id]
    assert sorted(forgotten.resigned) == [running, two]
    assert sorted(forgotten.anonymised) == sorted([finished, running, two, alone.id])
    assert forgotten.failed == () and forgotten.deleted >= 4
    # the lobby: D hosts it now; the empty one was aborted
    after_lobby = await store.get(lobby.id)
    assert after_lobby.seats == (D,) and after_lobby.host_id == D
    assert (await store.get(alone.id)).status == "aborted"
    # every game still replays, with one placeholder per game, the same everywhere in it
    names = set()
    for game_id in (finished, running, two):
        assert await store.history.verify(game_id)
        record = await store.get(game_id)
        [name] = [s for s in record.seats if PLACEHOLDER.fullmatch(s)]
        names.add(name)
        log = await store.history.log(game_id, 1000)
        assert {e.player for e in log} <= set(record.seats)
        assert any(e.player == name for e in log)          # moves anonymised, not removed
    assert len(names) == 3
    assert (await store.get(two)).status == "finished"
    # the three-player race goes on without A's seat
    record = await store.get(running)
    state = store.load_state(record)
    assert record.status == "active" and RACE.current_turn(state) in (B, C)
    await play(store, running, 5)
    assert await store.history.verify(running)
    # nobody else's data changed (B's rows that did not name A are all still there)
    now = databases.snapshot(database)
    assert await store.hosting.player_settings(B) != await store.hosting.player_settings(A)
    assert (await store.hosting.player_settings(A)).dm_reminders is False
    assert (await store.hosting.vacation("g1", B))[0] is not None
    assert await store.hosting.following(watched, C)
    assert not await store.hosting.following(watched, A)
    still = [line for line in b_rows if line.startswith(("players", "vacations", "followers"))]
    assert still and all(line in now for line in still)


async def test_the_log_stays_append_only_after_a_rewrite(store: Store,
                                                         database: str) -> None:
    game_id = await race(store, (A, B), "c1", target=5)
    await play(store, game_id, 20)
    await store.privacy.forget_user(A)
    with pytest.raises(databases.RAW_ERRORS):
        databases.raw(database, "UPDATE actions SET player = 'x' WHERE game_id = ?",
                      (game_id,))
    with pytest.raises(databases.RAW_ERRORS):
        databases.raw(database, "DELETE FROM actions WHERE game_id = ?", (game_id,))


async def test_forgetting_twice_does_nothing_more(store: Store, database: str) -> None:
    game_id = await race(store, (A, B), "c1", target=5)
    await play(store, game_id, 20)
    await store.privacy.forget_user(A)
    before = everything(database)
    again = await store.privacy.forget_user(A)
    assert again.anonymised == () and again.resigned == () and again.deleted == 0
    assert everything(database) == before


async def test_a_rewrite_that_would_not_replay_is_refused_and_changes_nothing(
        store: Store, database: str) -> None:
    broken = await race(store, (A, B), "c1", kind="sortedrace", target=5)
    await play(store, broken, 20)
    fine = await race(store, (A, C), "c2", target=5)
    await play(store, fine, 20)
    await store.hosting.set_player_settings(A, dm_reminders=True)
    before = (await store.get(broken), await store.history.log(broken, 1000),
              await store.outbox.digests(broken))

    forgotten = await store.privacy.forget_user(A)

    assert forgotten.failed == (broken,) and forgotten.anonymised == (fine,)
    after = (await store.get(broken), await store.history.log(broken, 1000),
             await store.outbox.digests(broken))
    assert after == before and after[0].seats == (A, B)    # left exactly as it was
    assert await store.history.verify(broken) and await store.history.verify(fine)
    assert not (await store.privacy.held_about(A)).settings      # the rest was still deleted


async def test_a_game_whose_log_is_not_all_in_the_actions_table_is_left_alone(
        store: Store, database: str) -> None:
    """An archived game keeps its log elsewhere: rewriting only its row would break it."""
    game_id = await race(store, (A, B), "c1", target=5)
    await play(store, game_id, 20)
    databases.raw(database, "UPDATE games SET version = version + 1 WHERE id = ?", (game_id,))
    before = (await store.get(game_id), await store.history.log(game_id, 1000))
    forgotten = await store.privacy.forget_user(A)
    assert forgotten.failed == (game_id,) and forgotten.anonymised == ()
    assert (await store.get(game_id), await store.history.log(game_id, 1000)) == before


async def test_an_archived_game_is_rewritten_in_its_archive(database: str) -> None:
    from db.archive import archive_problems

    store = await Store.open(database, clock=lambda: T0)
    try:
        game_id = await race(store, (A, B), "c1", target=5)
        await play(store, game_id, 20)
        for item in await store.outbox.pending(limit=1000):
            await store.outbox.mark_delivered(item.id, "m")
        assert await store.archive.archive(game_id)
        assert await store.archive.read(game_id) is not None       # the log lives in archives

        forgotten = await store.privacy.forget_user(A)

        assert forgotten.anonymised == (game_id,) and forgotten.failed == ()
        record = await store.get(game_id)
        archive = await store.archive.read(game_id)
        assert archive is not None
        [name] = [s for s in record.seats if PLACEHOLDER.fullmatch(s)]
        assert {e.player for e in archive.entries} == {name, B}
        assert archive_problems(RACE, record, archive) == []    # replays, same events
        assert A not in everything(database)
    finally:
        await store.close()


@pytest.mark.parametrize("kind", toy_game.kinds())   # every game, and the toy sixth one
async def test_every_game_replays_after_a_player_is_forgotten_mid_game(
        store: Store, database: str, kind: str) -> None:
    game = engine.GAMES[kind]
    players = (A, B, C)[:max(2, game.min_players)]
    record = await store.lobby.open(kind, "g1", "c1", players[0])
    for p in players[1:]:
        await store.lobby.join(record.id, p)
    await store.lobby.start(record.id, players[0], seed=11)
    rng = random.Random(kind)
    for _ in range(30):
        state = store.load_state(await store.get(record.id))
        if game.outcome(state) is not None:
            break
        player = rng.choice(game.to_act(state))
        await store.apply_action(record.id, player, rng.choice(game.legal_actions(state,
                                                                                  player)))
    forgotten = await store.privacy.forget_user(B)
    assert forgotten.anonymised == (record.id,) and forgotten.failed == ()
    assert B not in everything(database)
    assert await store.history.problems(record.id) == []
