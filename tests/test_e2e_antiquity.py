"""Antiquity through the loopback Discord with the real discord.py client: a whole
three-player game to its winner, every action through ``/antiquity`` (built from the game's
declared verbs) or ``/play``, with the engine run alongside.

Checked on every action: the store holds exactly the engine's position; the channel gets
one digest, with the board, when the turn passes to the next nation (and nothing while a
nation is still taking its field's action), and that digest tells every line of the turn;
the next player is mentioned. Autocomplete on wheel fields, provinces and seas offers the
legal choices to the player to act, labelled, and nothing to anyone else.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from discord_double import DiscordDouble, Reply, Table
from e2e_world import World, deal_seeds, friendly_form, is_recap, start_world

from cogs import wording
from db import GameRecord
from engine.antiquity import GAME
from engine.antiquity.ai import choose_action

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "antiquity"]
PEOPLE = ("alice", "bob", "carol", "dave", "erin", "frank", "grace")
SEATED = ("alice", "bob", "carol")
SEED = 333
MAX_ACTIONS = 3000


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    return deal_seeds(monkeypatch, SEED)


@pytest.fixture
async def world(discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
                seeded: SimpleNamespace) -> World:
    return await start_world(discord_double, start_bot, tmp_path, PEOPLE, COMMANDS, seeded)


class Match:
    def __init__(self, world: World, table: Table, record: GameRecord) -> None:
        self.world = world
        self.table = table
        self.game_id = record.id
        self.players = list(record.seats)
        assert record.state is not None
        self.state = GAME.load(record.state)
        self.version = record.version
        self.seen = len(table.messages)
        self.untold: list[str] = []
        self.digests = 0
        self.sent: dict[str, int] = {}
        self.events: dict[str, int] = {}
        self.told: list[str] = []

    @classmethod
    async def open(cls, world: World, table: Table) -> Match:
        opened = await table.slash("alice", "game new", kind="antiquity")
        assert not opened.ephemeral, opened.describe()
        lobby = opened.message
        game_id = int(lobby.embeds[0]["title"].rsplit("#", 1)[1])
        for name in SEATED[1:]:
            await table.click(name, "Join", message=lobby)
        seen = len(table.messages)
        await table.click("alice", "Start", message=lobby)
        record = await world.store.get(game_id)
        assert record.status == "active" and len(record.seats) == 3
        match = cls(world, table, record)
        [board] = [m for m in table.messages[seen:] if not m.ephemeral and not is_recap(m)]
        assert board.attachments and board.attachments[0].is_png
        assert board.pings == GAME.to_act(match.state)      # seat 1 is asked first
        match.seen = len(table.messages)
        return match

    def name(self, player: str) -> str:
        return self.world.name(player)

    async def send(self, player: str, action: str, *, friendly: bool) -> Reply:
        expected, events = GAME.apply(self.state, player, action)
        if friendly:
            command, options = friendly_form(GAME, action)
            reply = await self.table.invoke(self.name(player), command, options)
        else:
            reply = await self.table.slash(self.name(player), "play", action=action)
        await self.adopt(reply, player, action, expected, events)
        verb = action.split()[0]
        self.sent[verb] = self.sent.get(verb, 0) + 1
        for event in events:
            self.events[event["type"]] = self.events.get(event["type"], 0) + 1
        return reply

    async def adopt(self, reply: Reply, player: str, action: str, expected: Any,
                    events: list[dict[str, Any]]) -> None:
        record = await self.world.store.get(self.game_id)
        assert record.version == self.version + 1, reply.describe()
        assert record.state == GAME.dump(expected)
        assert record.status == ("finished" if GAME.outcome(expected) else "active")
        assert reply.ephemeral and (reply.content or "").startswith("✅"), reply.describe()
        assert not any("private_to" in e for e in events)     # nothing is hidden here
        lines = wording.narration_lines(GAME, self.players, player, action, events)
        self.untold.extend(lines)

        public = [m for m in self.table.messages[self.seen:]
                  if not m.ephemeral and not is_recap(m)]
        self.seen = len(self.table.messages)
        outcome = GAME.outcome(expected)
        if outcome is not None or GAME.current_turn(self.state) != GAME.current_turn(expected):
            [board] = public
            assert board.attachments and board.attachments[0].is_png
            told = "\n".join(m.text for m in public)
            for line in self.untold:
                assert line[:200] in told, (line, "\n".join(told.splitlines()[:4]))
            self.told.append(told)
            self.untold = []
            self.digests += 1
            if outcome is None:
                assert board.pings == GAME.to_act(expected), board.content
        else:
            assert public == [], [m.content for m in public]
        self.state = expected
        self.version = record.version

    async def offered(self, name: str, command: str, option: str, **options: Any
                      ) -> list[tuple[str, str]]:
        choices = await self.table.autocomplete(name, command, option, typed="", **options)
        assert len(choices) <= 25
        return [(c.name, str(c.value)) for c in choices]

    async def check_autocomplete(self, player: str) -> None:
        """What the player to act is offered is legal and labelled; others get nothing."""
        legal = GAME.legal_actions(self.state, player)
        me = self.name(player)
        for command, arg in (("go", "field"), ("move", "from"), ("found", "province"),
                             ("temple", "province"), ("legion", "province"),
                             ("galley", "sea"), ("learn", "knowhow")):
            verb = next(v for v in GAME.verbs if v.name == command)
            offered = await self.offered(me, f"antiquity {command}", arg)
            assert [v for _, v in offered] == verb.candidates(legal, arg)[:25], command
            for label, value in offered:
                assert label.startswith(value), (label, value)
        move = next(v for v in GAME.verbs if v.name == "move")
        sources = move.candidates(legal, "from")
        if sources:
            src = sources[0]
            targets = await self.offered(me, "antiquity move", "to", **{"from": src})
            assert [v for _, v in targets] == move.candidates(legal, "to", {"from": src})[:25]
            typed = await self.table.autocomplete(me, "antiquity move", "from", typed=src[:3])
            assert src in [str(c.value) for c in typed]
        for other in SEATED:
            if self.world.uid(other) not in GAME.to_act(self.state):
                assert await self.offered(other, "antiquity go", "field") == []
                assert await self.offered(other, "antiquity move", "from") == []
                assert await self.offered(other, "play", "action") == []
        assert await self.offered("dave", "antiquity go", "field") == []


async def test_a_whole_three_player_game_to_its_winner(world: World) -> None:
    table = world.dd.table()
    match = await Match.open(world, table)
    first = GAME.to_act(match.state)[0]
    others = [world.uid(n) for n in SEATED if world.uid(n) != first]

    # out of turn, a stranger and nonsense: refused with a reason, the game unchanged
    wrong = await table.invoke(world.name(others[0]), "antiquity go", {"field": "gold"})
    assert wrong.ephemeral and not (wrong.content or "").startswith("✅")
    stranger = await table.invoke("dave", "antiquity go", {"field": "gold"})
    assert stranger.ephemeral and not (stranger.content or "").startswith("✅")
    garbage = await table.slash(world.name(first), "play", action="conquer atlantis 99")
    assert garbage.ephemeral and not (garbage.content or "").startswith("✅")
    assert (await world.store.get(match.game_id)).version == match.version

    n, turn = 0, None
    while GAME.outcome(match.state) is None:
        assert n < MAX_ACTIONS
        [player] = GAME.to_act(match.state)
        action = choose_action(GAME, match.state, player)
        if player != turn or action.startswith(("conquer", "found")):
            if n < 90 or action.startswith("conquer"):
                await match.check_autocomplete(player)
            turn = player
        await match.send(player, action, friendly=n % 2 == 0)
        n += 1

    outcome = GAME.outcome(match.state)
    assert outcome is not None
    result = table.last_message(lambda m: bool(m.attachments) and not is_recap(m))
    for winner in outcome.winners:
        assert f"<@{winner}>" in result.content
    record = await world.store.get(match.game_id)
    assert record.status == "finished" and await world.store.history.verify(match.game_id)

    # the whole game was played: every field used, cities founded, turns told one by one
    assert {"go", "end"} <= set(match.sent)
    assert match.events.get("found", 0) >= 3, match.events
    assert match.events.get("conquer", 0) >= 3 and match.events.get("temple", 0) >= 1
    assert match.events.get("produce", 0) >= 10
    assert match.digests >= 3 * 8
    view = GAME.view(match.state, None)
    assert max(n["points"] for n in view["nations"]) >= view["target"] or \
        view["round"] >= view["rounds"]

    # every digest is still in the channel, and every conquest was told there
    channel = "\n".join(m.text for m in table.messages)
    for batch in match.told:
        assert batch in channel
    assert channel.count(" conquer ") >= match.events["conquer"]

    # after the game: the log and the status still answer
    for name in PEOPLE:
        for command in ("game log", "game status"):
            answer = await table.slash(name, command)
            assert answer.ephemeral


async def test_antiquity_commands_elsewhere(world: World) -> None:
    table = world.dd.table()
    assert await table.autocomplete("alice", "antiquity go", "field") == []
    await table.slash("alice", "game new", kind="conqueror")
    await table.click("bob", "Join")
    await table.click("alice", "Start")
    other = await table.invoke("alice", "antiquity end", {})
    assert other.ephemeral and "/play" in (other.content or "")
    assert await table.autocomplete("alice", "antiquity go", "field") == []


async def test_six_nations_seat_start_and_read_well(world: World) -> None:
    """Warhost's first six-seat game: the lobby lists six seats, a seventh is refused, the
    opening board goes out, and /game status gives every seat its nation and points."""
    table = world.dd.table()
    opened = await table.slash("alice", "game new", kind="antiquity")
    lobby = opened.message
    for name in ("bob", "carol", "dave", "erin", "frank"):
        await table.click(name, "Join", message=lobby)
    full = await table.click("grace", "Join", message=lobby)
    assert full.ephemeral and "6" in (full.content or ""), full.describe()
    seats = [f for f in lobby.embeds[0]["fields"] if f["name"].startswith("Seats")]
    assert seats and seats[0]["name"] == "Seats (6/6)"
    assert len(seats[0]["value"].splitlines()) == 6
    seen = len(table.messages)
    await table.click("alice", "Start", message=lobby)
    [board] = [m for m in table.messages[seen:] if not m.ephemeral and not is_recap(m)]
    assert board.attachments and board.attachments[0].is_png
    game_id = int(lobby.embeds[0]["title"].rsplit("#", 1)[1])
    record = await world.store.get(game_id)
    assert record.state is not None
    view = GAME.view(GAME.load(record.state), None)
    assert len(view["nations"]) == 6
    status = await table.slash("erin", "game status")
    text = status.text
    for nation in view["nations"]:
        assert nation["name"] in text, text
    assert len([line for line in text.splitlines() if "<@" in line]) >= 6
