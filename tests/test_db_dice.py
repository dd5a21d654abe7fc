"""Committed dice and game records through the store (both backends).

The lobby commits to its dice before anyone joins; each join's contribution and the
start's are mixed in, in seat order; nothing secret reaches an announcement before the
end, and the final digest reveals a seed and salt that match the commitment; an export
holds public facts only while the game runs and checks out once it is over, also after a
player's data was deleted; a game from a position seats its players, is never rated and
its record checks out too.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine
from db import Store, StoreError
from engine.origins import starting_point
from engine.record import SCHEME, commitment, mixed_seed
from engine.verify import read, verify

A, B, C = "111111111111111111", "222222222222222222", "333333333333333333"
GUILD, CHANNEL = "555555555555555555", "666666666666666666"
JOIN_B, START_A = "1300000000000000002", "1300000000000000009"


async def announcements(store: Store, game_id: int) -> list[tuple[str, dict[str, Any]]]:
    async with store.reading() as conn:
        rows = await conn.execute_fetchall(
            "SELECT kind, payload FROM announcements WHERE game_id = ? ORDER BY id",
            (game_id,))
    return [(str(kind), json.loads(payload)) for kind, payload in rows]


async def play_out(store: Store, game_id: int, limit: int = 3000) -> int:
    """Random legal actions until the game ends (a resignation past ``limit``)."""
    record = await store.get(game_id)
    game = engine.get_game(record.kind)
    rng = random.Random(game_id)
    n = 0
    while record.status == "active":
        state = store.load_state(record)
        player = game.to_act(state)[0]
        action = rng.choice(game.legal_actions(state, player)) if n < limit else "resign"
        record = (await store.apply_action(game_id, player, action)).record
        n += 1
    return n


async def started(store: Store, kind: str = "liege", channel: str = CHANNEL) -> int:
    game = engine.get_game(kind)
    lobby = await store.lobby.open(kind, GUILD, channel, A, dict(game.facts.short_game))
    await store.lobby.join(lobby.id, B, contribution=JOIN_B)
    return (await store.lobby.start(lobby.id, A, contribution=START_A)).id


async def test_the_lobby_commits_before_anyone_joins_and_mixes_every_seat(
        store: Store) -> None:
    lobby = await store.lobby.open("liege", GUILD, CHANNEL, A, computers=0)
    dice = lobby.dice
    assert dice["scheme"] == SCHEME
    assert dice["commitment"] == commitment(dice["seed"], dice["salt"])
    assert len(dice["seed"]) == 64 and len(dice["salt"]) == 32
    other = await store.lobby.open("liege", GUILD, "777777777777777777", A)
    assert other.dice["seed"] != dice["seed"]          # a fresh secret per lobby
    # a join's contribution is kept; garbage is not a contribution; leaving drops it
    joined = await store.lobby.join(lobby.id, B, contribution="not a snowflake")
    assert B not in joined.dice["contributions"]
    await store.lobby.leave(lobby.id, B)
    joined = await store.lobby.join(lobby.id, B, contribution=JOIN_B)
    assert joined.dice["contributions"] == {B: JOIN_B}
    begun = await store.lobby.start(lobby.id, A, contribution=START_A)
    assert begun.dice["mixed"] == [[A, START_A], [B, JOIN_B]]
    assert begun.dice["commitment"] == dice["commitment"]      # the one posted
    assert begun.seed == mixed_seed(dice["seed"], [START_A, JOIN_B])


async def test_a_computer_seat_contributes_nothing(store: Store) -> None:
    lobby = await store.lobby.open("liege", GUILD, CHANNEL, A, computers=1)
    begun = await store.lobby.start(lobby.id, A, contribution=START_A)
    assert begun.dice["mixed"] == [[A, START_A], [lobby.seats[1], ""]]
    assert begun.seed == mixed_seed(begun.dice["seed"], [START_A, ""])


async def test_nothing_secret_is_announced_before_the_end_and_the_end_reveals_it(
        store: Store) -> None:
    game_id = await started(store)
    record = await store.get(game_id)
    secret, salt = record.dice["seed"], record.dice["salt"]
    game = engine.get_game("liege")
    state = store.load_state(record)
    for _ in range(30):
        player = game.to_act(state)[0]
        state = (await store.apply_action(game_id, player,
                                          game.legal_actions(state, player)[0])).state
    _, mid = await store.history.export(game_id)
    said = json.dumps(await announcements(store, game_id)) + json.dumps(mid)
    assert secret not in said and salt not in said and str(record.seed) not in said
    await play_out(store, game_id)
    made = await announcements(store, game_id)
    finals = [p for kind, p in made if kind == "digest" and p.get("outcome")]
    assert len(finals) == 1
    revealed = finals[0]["dice"]
    assert revealed == {"scheme": SCHEME, "commitment": record.dice["commitment"],
                        "seed": secret, "salt": salt}
    assert commitment(revealed["seed"], revealed["salt"]) == revealed["commitment"]
    assert all("dice" not in p for kind, p in made if kind == "digest" and not p.get("outcome"))


async def test_an_export_is_public_until_the_end_then_checks_out(store: Store) -> None:
    game_id = await started(store)
    _, mid = await store.history.export(game_id)
    assert mid["complete"] is False and mid["game_seed"] is None
    assert mid["dice"]["seed"] is None and mid["dice"]["commitment"]
    assert mid["dice"]["contributions"] == [{"player": A, "value": START_A},
                                            {"player": B, "value": JOIN_B}]
    assert verify(read(json.dumps(mid))).ok is None
    await play_out(store, game_id)
    record, data = await store.history.export(game_id)
    assert data["complete"] is True and data["status"] == "finished"
    assert data["game_seed"] == record.seed
    verdict = verify(read(json.dumps(data)))
    assert verdict.ok is True, verdict.lines
    # an archived game exports the same record (its log is read from the archive)
    async with store.transaction() as conn:      # as if the outbox had sent everything
        await conn.execute("UPDATE announcements SET delivered_at = 1 WHERE game_id = ?",
                           (game_id,))
    assert await store.archive.archive(game_id)
    _, again = await store.history.export(game_id)
    assert {k: v for k, v in again.items() if k != "exported_at"} == \
        {k: v for k, v in data.items() if k != "exported_at"}


async def test_a_lobby_has_no_record_and_an_old_game_says_it_had_no_commitment(
        store: Store) -> None:
    lobby = await store.lobby.open("liege", GUILD, CHANNEL, A)
    with pytest.raises(StoreError, match="has not started"):
        await store.history.export(lobby.id)
    await store.lobby.join(lobby.id, B)
    # a game from before commitments: its dice column is empty
    async with store.transaction() as conn:
        await conn.execute("UPDATE games SET dice = '{}' WHERE id = ?", (lobby.id,))
    await store.lobby.start(lobby.id, A)
    await play_out(store, lobby.id)
    _, data = await store.history.export(lobby.id)
    assert data["dice"]["scheme"] == "none" and "before Warhost" in data["dice"]["note"]
    verdict = verify(read(json.dumps(data)))
    assert verdict.ok is True and any("no commitment" in x for x in verdict.lines)


async def test_a_deleted_players_game_still_checks_out(store: Store) -> None:
    game_id = await started(store)
    await play_out(store, game_id)
    await store.privacy.forget_user(B)
    record, data = await store.history.export(game_id)
    assert B not in json.dumps(data) and B not in json.dumps(record.dice)
    verdict = verify(read(json.dumps(data)))
    assert verdict.ok is True, verdict.lines


async def test_a_game_from_a_record_point_seats_its_players_and_is_unrated(
        store: Store) -> None:
    first = await started(store)
    await play_out(store, first)
    _, data = await store.history.export(first)
    game = engine.get_game("liege")
    point = starting_point(game, json.dumps(data).encode(), 20, "first.json")
    lobby = await store.lobby.open("liege", GUILD, "888888888888888888", C,
                                   origin=point.to_origin())
    assert lobby.timing["rated"] is False
    with pytest.raises(StoreError, match="position for 2 players; 1 seated"):
        await store.lobby.start(lobby.id, C)
    await store.lobby.join(lobby.id, A, contribution=JOIN_B)
    with pytest.raises(StoreError, match="full"):
        await store.lobby.join(lobby.id, B)
    begun = await store.lobby.start(lobby.id, C, contribution=START_A)
    state = store.load_state(begun)
    assert game.players(state) == [C, A]
    assert "source" not in begun.origin         # the first game's players are not kept
    # the position is the record's, with the new seats and fresh dice
    original = game.load(point.position)
    renamed = point.position.replace(data["seats"][0], "x").replace(data["seats"][1], "y")
    assert game.dump(state).replace(C, "x").replace(A, "y").replace(
        json.dumps(state.dice.to_json(), separators=(",", ":"), sort_keys=True), "") == \
        renamed.replace(json.dumps(original.dice.to_json(), separators=(",", ":"),
                                   sort_keys=True), "")
    assert state.dice.state != original.dice.state
    await play_out(store, begun.id)
    _, again = await store.history.export(begun.id)
    assert again["rated"] is False and again["origin"]["from"] == "record"
    assert "action 20 of" in again["origin"]["note"]
    verdict = verify(read(json.dumps(again)))
    assert verdict.ok is True, verdict.lines
    async with store.reading() as conn:
        rows = await conn.execute_fetchall(
            "SELECT rated FROM game_results WHERE game_id = ?", (begun.id,))
    assert rows and all(not r[0] for r in rows)


async def test_a_lobby_from_a_position_seats_no_more_than_it(store: Store) -> None:
    game = engine.get_game("liege")
    position = game.dump(game.new_game(["p1", "p2"], 3)).encode()
    origin = starting_point(game, position, None, "p.json").to_origin()
    with pytest.raises(engine.IllegalAction, match="at most 1 computers"):
        await store.lobby.open("liege", GUILD, CHANNEL, A, origin=origin, computers=2)
    lobby = await store.lobby.open("liege", GUILD, CHANNEL, A, origin=origin, computers=1)
    with pytest.raises(StoreError, match=r"full \(2/2"):
        await store.lobby.add_computer(lobby.id, A)
    begun = await store.lobby.start(lobby.id, A, contribution=START_A)
    assert engine.get_game("liege").players(store.load_state(begun)) == list(lobby.seats)
