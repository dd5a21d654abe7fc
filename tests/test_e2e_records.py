"""End to end: committed dice and game records through the loopback Discord double.

The lobby message shows the commitment before anyone joins; the ids Discord gave the
Join and Start interactions are what the game's dice are mixed from; a spectator's
``/game export`` mid-game holds no secret; the final digest reveals a seed and salt whose
SHA-256 is the commitment posted; the export after the end checks out with
``engine.verify``; ``/game new from:`` starts a game at a point of that record, and
refuses garbage, another game's position, an oversized file and options it cannot use,
each with a message and no lobby opened.
"""

from __future__ import annotations

import hashlib
import json
import re

from discord_double import Reply, Table
from e2e_world import World, game_id_of, world_fixture

import engine
from engine.origins import MAX_FROM_BYTES
from engine.record import mixed_seed
from engine.verify import read, verify

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "liege"]
PEOPLE = ("alice", "bob", "carol", "dave")
#: The store deals from its committed dice (no chosen seed).
world = world_fixture(people=PEOPLE, commands=COMMANDS)
GAME = engine.get_game("liege")
HEX64 = re.compile(r"`([0-9a-f]{64})`")


def field(message_embeds: list[dict[str, object]], name: str) -> str:
    for embed in message_embeds:
        for f in embed.get("fields") or []:  # type: ignore[attr-defined]
            if f.get("name") == name:
                return str(f.get("value"))
    raise AssertionError(f"no field {name!r} in {message_embeds}")


async def play_some(world: World, table: Table, game_id: int, count: int) -> None:
    for _ in range(count):
        state = world.store.load_state(await world.store.get(game_id))
        player = GAME.to_act(state)[0]
        reply = await table.slash(world.name(player), "play",
                                  action=GAME.legal_actions(state, player)[0])
        assert (reply.content or "").startswith("✅"), reply.describe()


def exported(reply: Reply) -> dict[str, object]:
    [attachment] = reply.attachments
    assert attachment.filename.startswith("warhost-liege-")
    return read(attachment.data)


async def test_dice_are_committed_mixed_revealed_and_checkable(world: World) -> None:
    table = world.dd.table()
    opened = await table.slash("alice", "game new", kind="liege")
    posted = HEX64.search(field(opened.message.embeds, "Dice"))
    assert posted is not None, opened.message.embeds
    promised = posted.group(1)
    game_id = game_id_of(opened)
    joined = await table.click("bob", "Join")
    begun = await table.click("alice", "Start")
    record = await world.store.get(game_id)
    assert record.dice["commitment"] == promised
    # the host's share is the Start interaction's id, each player's their Join's
    assert record.dice["mixed"] == [[world.uid("alice"), begun.id],
                                    [world.uid("bob"), joined.id]]
    assert record.seed == mixed_seed(record.dice["seed"], [begun.id, joined.id])
    secret, salt = record.dice["seed"], record.dice["salt"]

    await play_some(world, table, game_id, 6)
    mid = await table.slash("carol", "game export")
    assert mid.ephemeral
    data = exported(mid)
    assert data["complete"] is False and len(data["actions"]) == 6  # type: ignore[arg-type]
    assert "public facts only" in (mid.content or "")
    seen = json.dumps(data) + "".join(m.text for m in table.all_messages)
    assert secret not in seen and salt not in seen

    await table.slash("bob", "game resign")
    final = [m for m in table.messages if salt in m.text]
    assert final, "the final digest reveals the seed"
    text = final[0].text
    assert secret in text and promised[:16] in text
    assert hashlib.sha256(f"warhost-dice-1:{secret}:{salt}".encode()).hexdigest() == promised

    done = await table.slash("carol", "game export", game=game_id, share=True)
    assert not done.ephemeral
    data = exported(done)
    verdict = verify(data)
    assert verdict.ok is True, verdict.lines
    assert "engine.verify" in (done.content or "")

    # a new game from action 4 of that record, in another channel
    elsewhere = world.dd.table()
    body = done.attachments[0].data
    started = await elsewhere.slash("carol", "game new", kind="liege",
                                    **{"from": ("game.json", body), "at": 4})
    assert started.ephemeral and "is open" in (started.content or "")
    lobby = elsewhere.messages[-1]
    assert "action 4 of" in field(lobby.embeds, "Starts from")
    assert "no:" in field(lobby.embeds, "Rated")
    await elsewhere.click("dave", "Join")
    await elsewhere.click("carol", "Start")
    copy = await world.store.get(int(lobby.embeds[0]["title"].rsplit("#", 1)[1]))
    state = world.store.load_state(copy)
    assert GAME.players(state) == [world.uid("carol"), world.uid("dave")]
    assert copy.timing["rated"] is False and copy.origin["from"] == "record"


async def test_from_refuses_what_it_cannot_start_from(world: World) -> None:
    table = world.dd.table()
    napoleon = engine.get_game("napoleon")
    position = napoleon.dump(napoleon.new_game(["1", "2"], 5)).encode()
    cases = [
        ({"from": ("junk.bin", b"\x00\x01garbage")}, "neither a game record nor"),
        ({"from": ("n.json", position)}, "Napoleonic Wars position, not"),
        ({"from": ("big.json", b" " * (MAX_FROM_BYTES + 1))}, "MB"),
        ({"at": 3}, "attach the record in `from:`"),
        ({"from": ("n.json", position), "options": "size=8"}, "leave `options` out"),
    ]
    for options, said in cases:
        reply = await table.slash("alice", "game new", kind="liege", **options)
        assert reply.ephemeral, reply.describe()
        assert said in reply.text, (said, reply.text)
    assert not [m for m in table.messages if m.embeds], "no lobby was opened"
    assert await world.store.active_in_channel(str(table.channel.id)) is None
