"""Napoleonic Wars through the loopback Discord with the real discord.py client: a whole
game to its result, every action through ``/napoleon`` (built from the game's declared
verbs) or ``/play``, with the engine run alongside.

Checked on every action: the store holds exactly the engine's position; the channel gets
one digest when the turn passes or the decision moves (the defender asked for cards and
the loser asked where to retreat are mentioned on the other player's turn); every battle
reaches the channel with its forces, cards and dice; and no card still in a hand ever
reaches anyone but its owner: not a channel message, a DM, another player's answer or
another player's autocomplete.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from discord_double import DiscordDouble, Reply, Table
from e2e_world import World, deal_seeds, friendly_form, is_recap, start_world

from cogs import wording
from db import GameRecord
from engine import public_events
from engine.napoleon import GAME
from engine.napoleon.ai import choose_action

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "napoleon", "hand"]
PEOPLE = ("alice", "bob", "carol")
SEED = 1805
MAX_ACTIONS = 1500
ROUNDS = 10


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    return deal_seeds(monkeypatch, SEED)


@pytest.fixture
async def world(discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
                seeded: SimpleNamespace) -> World:
    return await start_world(discord_double, start_bot, tmp_path, PEOPLE, COMMANDS, seeded)


def entry(view: dict[str, Any], player: str) -> dict[str, Any]:
    [found] = [e for e in view["players"] if e["id"] == player]
    return found


class Secrets:
    """The names of cards in each hand that have never been shown to everyone."""

    def __init__(self, players: list[str]) -> None:
        self.players = players
        self.ever_public: set[str] = set()
        self.secret: dict[str, set[str]] = {p: set() for p in players}
        self.all_secret: set[str] = set()

    def step(self, state: Any, events: list[dict[str, Any]]) -> None:
        shown = public_events(events)
        public = json.dumps([GAME.view(state, None), shown, GAME.narrate(shown)],
                            ensure_ascii=False)
        for p in self.players:
            for card in entry(GAME.view(state, p), p)["hand"]:
                if card["name"] in public:
                    self.ever_public.add(card["name"])
        for p in self.players:
            self.secret[p] = {c["name"] for c in entry(GAME.view(state, p), p)["hand"]
                              } - self.ever_public
            self.all_secret |= self.secret[p]

    def forbidden(self, audience: str | None) -> set[str]:
        return set().union(*(self.secret[q] for q in self.players if q != audience))


class Audit:
    """Every message, answer and autocomplete the double saw, against the secrets."""

    def __init__(self, dd: DiscordDouble, secrets: Secrets) -> None:
        self.dd = dd
        self.secrets = secrets
        self.seen: dict[str, int] = {}
        self.seen_choices: set[str] = set()
        self.dm_of = {dd.dm_channel(name).id: dd.resolve_user(name).id for name in PEOPLE}
        self.checked = {"public": 0, "private": 0, "autocomplete": 0}

    def look(self) -> None:
        for m in list(self.dd.messages.values()):
            if self.seen.get(m.id) == len(m.payloads):
                continue
            self.seen[m.id] = len(m.payloads)
            audience = self.dm_of.get(m.channel.id, m.visible_to)
            text = m.text + json.dumps(m.payloads, ensure_ascii=False)
            leaked = {n for n in self.secrets.forbidden(audience) if n in text}
            assert not leaked, f"{leaked} leaked to {audience or 'everyone'}: {m!r}"
            self.checked["private" if audience else "public"] += 1
        for reply in list(self.dd.interactions.values()):
            if reply.id in self.seen_choices or reply.choices is None:
                continue
            self.seen_choices.add(reply.id)
            text = " ".join(f"{c.name} {c.value}" for c in reply.choices)
            leaked = {n for n in self.secrets.forbidden(reply.user.id) if n in text}
            assert not leaked, f"{leaked} offered to {reply.user.name}"
            self.checked["autocomplete"] += 1


class Match:
    def __init__(self, world: World, table: Table, record: GameRecord) -> None:
        self.world = world
        self.table = table
        self.game_id = record.id
        self.players = list(record.seats)
        assert record.state is not None
        self.state = GAME.load(record.state)
        self.version = record.version
        self.secrets = Secrets(self.players)
        self.secrets.step(self.state, [])
        self.audit = Audit(world.dd, self.secrets)
        self.seen = len(table.messages)
        self.untold: list[str] = []
        self.battles: list[dict[str, Any]] = []
        self.off_turn: dict[str, int] = {}
        self.sent: dict[str, int] = {}

    @classmethod
    async def open(cls, world: World, table: Table) -> Match:
        opened = await table.slash("alice", "game new", kind="napoleon",
                                   options=f"rounds={ROUNDS}")
        assert not opened.ephemeral, opened.describe()
        lobby = opened.message
        game_id = int(lobby.embeds[0]["title"].rsplit("#", 1)[1])
        await table.click("bob", "Join", message=lobby)
        seen = len(table.messages)
        await table.click("alice", "Start", message=lobby)
        record = await world.store.get(game_id)
        assert record.status == "active" and record.options == {"rounds": ROUNDS}
        match = cls(world, table, record)
        [board] = [m for m in table.messages[seen:] if not m.ephemeral and not is_recap(m)]
        assert board.attachments and board.attachments[0].is_png
        assert board.pings == [world.uid("alice")]          # the French move first
        match.seen = len(table.messages)
        match.audit.look()
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
        return reply

    async def adopt(self, reply: Reply, player: str, action: str, expected: Any,
                    events: list[dict[str, Any]]) -> None:
        record = await self.world.store.get(self.game_id)
        assert record.version == self.version + 1, reply.describe()
        assert record.state == GAME.dump(expected)
        assert record.status == ("finished" if GAME.outcome(expected) else "active")
        self.secrets.step(expected, events)
        self.audit.look()

        assert reply.ephemeral and (reply.content or "").startswith("✅"), reply.describe()
        lines = wording.narration_lines(GAME, self.players, player, action, events)
        self.untold.extend(lines)
        mine = [e for e in events if e.get("private_to") == player]
        if mine:                                 # the cards one draws: to the drawer alone
            assert reply.message.visible_to == player
            stripped = [{k: v for k, v in e.items() if k != "private_to"} for e in mine]
            for line in GAME.narrate(stripped, {}):
                assert line[:200] in reply.text
        self.battles.extend(e for e in events if e["type"] == "battle")

        public = [m for m in self.table.messages[self.seen:]
                  if not m.ephemeral and not is_recap(m)]
        self.seen = len(self.table.messages)
        before, after = GAME.to_act(self.state), GAME.to_act(expected)
        turn_after = GAME.current_turn(expected)
        outcome = GAME.outcome(expected)
        if outcome is not None or before != after or \
                GAME.current_turn(self.state) != turn_after:
            [board] = public
            assert board.attachments and board.attachments[0].is_png
            told = "\n".join(m.text for m in public)
            for line in self.untold:
                assert line[:200] in told, (line, told)
            self.untold = []
            if outcome is None:
                assert sorted(board.pings) == sorted(after), board.content
                if after and after[0] != turn_after:
                    # asked on the other player's turn: mentioned, with the game's prompt
                    prompt = GAME.view(expected, None)["prompt"]
                    assert prompt[1:40] in board.content, board.content
                    phase = GAME.view(expected, None)["phase"]
                    self.off_turn[phase] = self.off_turn.get(phase, 0) + 1
        else:
            assert public == []
        self.state = expected
        self.version = record.version

    async def offered(self, name: str, command: str, option: str, **options: Any
                      ) -> list[tuple[str, str]]:
        choices = await self.table.autocomplete(name, command, option, typed="", **options)
        assert len(choices) <= 25
        return [(c.name, str(c.value)) for c in choices]

    async def check_autocomplete(self, player: str) -> None:
        """What ``player`` is offered is theirs, legal, and labelled; others get nothing."""
        other = next(p for p in self.players if p != player)
        legal = GAME.legal_actions(self.state, player)
        move = next(v for v in GAME.verbs if v.name == "move")
        sources = move.candidates(legal, "from")
        offered = await self.offered(self.name(player), "napoleon move", "from")
        assert [v for _, v in offered] == sources[:25]
        for label, value in offered:
            assert label.startswith(f"{value} · ")
        if sources:
            src = sources[0]
            targets = await self.offered(self.name(player), "napoleon move", "to",
                                         **{"from": src})
            assert [v for _, v in targets] == move.candidates(legal, "to", {"from": src})
            dst = targets[0][1]
            counts = await self.offered(self.name(player), "napoleon move", "count",
                                        **{"from": src, "to": dst})
            legal_counts = move.candidates(legal, "count", {"from": src, "to": dst})
            assert {v for _, v in counts} <= set(legal_counts)
            assert counts[-1][1] == legal_counts[-1]            # "all of them" is offered
            # typing part of a name completes it
            typed = await self.table.autocomplete(self.name(player), "napoleon move", "from",
                                                  typed=src[:3])
            assert src in [str(c.value) for c in typed]
        cards = await self.offered(self.name(player), "napoleon play", "card")
        assert [v for _, v in cards] == [a.split()[1] for a in legal
                                         if a.startswith("play ")][:25]
        hand = {c["id"]: c["name"] for c in entry(GAME.view(self.state, player),
                                                  player)["hand"]}
        for label, value in cards:
            assert hand[value] in label
        if other not in GAME.to_act(self.state):
            assert await self.offered(self.name(other), "napoleon move", "from") == []
            assert await self.offered(self.name(other), "napoleon play", "card") == []
            assert await self.offered(self.name(other), "play", "action") == []
        assert await self.offered("carol", "napoleon discard", "card") == []
        self.audit.look()


async def test_a_whole_game_to_its_result(world: World) -> None:
    table = world.dd.table()
    alice, bob = world.uid("alice"), world.uid("bob")
    match = await Match.open(world, table)

    # /hand: alice's own cards, to her alone; carol has none; the channel hears nothing
    before = len(table.messages)
    shown = await table.slash("alice", "hand")
    assert shown.ephemeral and shown.message.visible_to == alice
    for card in entry(GAME.view(match.state, alice), alice)["hand"]:
        assert card["name"] in shown.message.text
    none = await table.slash("carol", "hand")
    assert none.ephemeral and "no hand" in (none.content or "")
    assert len(table.messages) == before
    match.audit.look()

    # a move refused with the engine's reason leaves the game as it was
    wrong = await table.invoke("alice", "napoleon move",
                               {"from": "france", "to": "england", "count": 1})
    assert wrong.ephemeral and "England" in (wrong.content or "")
    assert (await world.store.get(match.game_id)).version == match.version
    out_of_turn = await table.invoke("bob", "napoleon end", {})
    assert out_of_turn.ephemeral and not (out_of_turn.content or "").startswith("✅")

    n, turn = 0, None
    while GAME.outcome(match.state) is None:
        assert n < MAX_ACTIONS
        [player] = GAME.to_act(match.state)
        action = choose_action(GAME, match.state, player)
        if player != turn or action.startswith(("play", "discard", "retreat")):
            if n < 400 or action.startswith(("play", "discard", "retreat")):
                await match.check_autocomplete(player)
            turn = player
        await match.send(player, action, friendly=n % 2 == 0)
        n += 1
        if n % 60 == 0:                                  # /hand stays in step
            for name, pid in (("alice", alice), ("bob", bob)):
                hand = await table.slash(name, "hand")
                for card in entry(GAME.view(match.state, pid), pid)["hand"]:
                    assert card["name"] in hand.message.text
            match.audit.look()

    outcome = GAME.outcome(match.state)
    assert outcome is not None
    result = table.last_message(lambda m: bool(m.attachments) and not is_recap(m))
    [winner] = outcome.winners
    assert f"<@{winner}> wins" in result.content
    record = await world.store.get(match.game_id)
    assert record.status == "finished" and await world.store.history.verify(match.game_id)

    # battles were fought, told with forces, cards and dice, and asked off-turn questions
    assert len(match.battles) >= 3
    channel = "\n".join(m.text for m in table.messages)
    for battle in match.battles:
        [line] = GAME.narrate([battle], wording.mentions(match.players))
        assert line[:200] in channel
    assert match.off_turn.get("cards", 0) >= 1
    assert {"move", "end", "ready"} <= set(match.sent)
    assert len(match.secrets.all_secret) >= 5
    assert match.audit.checked["autocomplete"] >= 30 and match.audit.checked["public"] >= 20

    # after the game: log and status name no secret either
    for name in PEOPLE:
        for command in ("game log", "game status"):
            await table.slash(name, command)
    match.audit.look()


async def test_napoleon_commands_elsewhere(world: World) -> None:
    table = world.dd.table()
    assert await table.autocomplete("alice", "napoleon move", "from") == []
    await table.slash("alice", "game new", kind="conqueror")
    await table.click("bob", "Join")
    await table.click("alice", "Start")
    other = await table.invoke("alice", "napoleon end", {})
    assert other.ephemeral and "/play" in (other.content or "")
    assert await table.autocomplete("alice", "napoleon move", "from") == []
