"""End to end: Battlecards through the loopback Discord double, secrets above all.

The real bot runs against the double. alice (German) and bob (British) open a lobby with
``/game new kind:battlecards``, join and start with the buttons, and the engine's
automatic players (``engine.battlecards.ai``) choose every action, sent by turns through
``/play`` and the ``/battlecards`` friendly forms. Beside the bot the test runs its own
copy of the engine from the store's seed and, after every action, compares the stored
position, the log, the public narration, the private messages and the board with it.

The leak audit: after every action, each player's secrets are the card names in their
own view (hand, stacks, kept cards) that have never been public (the engine's leak tests
count the units revealed in a battle and the kept cards played as public from then on;
so do we). Every message the double recorded — channel messages and their edits, embeds,
ephemeral replies, direct messages — and every autocomplete answer is checked against
its audience: nothing public names a secret; nothing alice sees names one of bob's
(except what her own scouting showed her), and the other way round.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from discord_double import DiscordDouble, Message, Reply, Table
from e2e_world import World, deal_seeds, is_recap, start_world

from cogs import battlecards as bc
from cogs import wording
from db import GameRecord
from engine import public_events
from engine.battlecards import GAME
from engine.battlecards.ai import choose_action
from engine.verbs import verb_named

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "battlecards", "hand"]
PEOPLE = ("alice", "bob", "carol")
SEED = 20260101
SEEDS_TRIED = 100
MAX_ACTIONS = 400
#: What the chosen game must show: a DM (cards drawn by the player not acting), a scout
#: report, a kept card played, a withdrawal and a shot fired by hand (bob: auto-fire off).
WANTED = {"dm", "scout_report", "kept_played", "withdraw", "fire"}


# -- the world ----------------------------------------------------------------------------------


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    return deal_seeds(monkeypatch, SEED)


@pytest.fixture
async def world(discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
                seeded: SimpleNamespace) -> World:
    return await start_world(discord_double, start_bot, tmp_path, PEOPLE, COMMANDS, seeded)


# -- choosing the game --------------------------------------------------------------------------


def chooser(state: Any, n: int) -> tuple[str, str]:
    """Who acts and what (the automatic player); in the set-up both deploy, by turns."""
    acting = GAME.to_act(state)
    player = acting[n % len(acting)]
    return player, choose_action(GAME, state, player)


def features(players: list[str], seed: int) -> tuple[set[str], int]:
    """What a game from ``seed`` shows (bob's auto-fire off) and how many actions."""
    state = GAME.new_game(players, seed)
    state, _ = GAME.apply(state, players[1], "autofire off")
    found: set[str] = set()
    n = 0
    while GAME.outcome(state) is None and n < MAX_ACTIONS:
        player, action = chooser(state, n)
        state, events = GAME.apply(state, player, action)
        found.add(action.split()[0])
        for e in events:
            found.add(e["type"])
            if e.get("private_to") not in (None, player):
                found.add("dm")
        n += 1
    return found, n


def pick_seed(players: list[str]) -> int:
    for seed in range(SEED, SEED + SEEDS_TRIED):
        found, n = features(players, seed)
        if found >= WANTED and n < 120:
            return seed
    raise AssertionError("no seed shows every feature")


def friendly_form(action: str) -> tuple[str, dict[str, Any]]:
    """The ``/battlecards`` command and options for a canonical action."""
    verb, *args = action.split()
    if verb == "deploy":
        return "battlecards deploy", {"slot": args[0]}
    if verb == "scout":
        return "battlecards scout", {"stack": args[0]}
    if verb == "fire":
        return "battlecards fire", {"unit": args[0], "target": args[1]}
    if verb == "support":
        return "battlecards support", {"supporter": args[0], "unit": args[1]}
    if verb == "play":
        return "battlecards play", {"kept": args[0], "unit": args[1]}
    if verb == "withdraw":
        return "battlecards withdraw", {"unit": args[0]}
    if verb == "autofire":
        return "battlecards autofire", {"setting": args[0]}
    if verb in ("draw", "emergency", "done", "attack", "decline", "pass", "stay"):
        return f"battlecards {verb}", {}
    raise ValueError(action)


# -- secrets ------------------------------------------------------------------------------------


def strings(value: Any, out: set[str] | None = None) -> set[str]:
    out = set() if out is None else out
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            strings(v, out)
    elif isinstance(value, list):
        for v in value:
            strings(v, out)
    return out


def own_cards(state: Any, player: str) -> set[str]:
    """The names of every card in ``player``'s hand, stacks and kept cards."""
    me = bc.player_entry(GAME.view(state, player), player)
    assert me is not None
    cards = [*me["hand"], *me["kept"], *(c for cs in me["stack_cards"].values() for c in cs)]
    return {c["name"] for c in cards}


class Secrets:
    """What is still secret, and who knows what, as the game goes."""

    def __init__(self, players: list[str]) -> None:
        self.players = players
        self.ever_public: set[str] = set()
        self.known: dict[str, set[str]] = {p: set() for p in players}  # scouted
        self.secret: dict[str, set[str]] = {p: set() for p in players}
        self.all_secret: set[str] = set()               # ever secret, for the record

    def step(self, state: Any, events: list[dict[str, Any]]) -> None:
        public = public_events(events)
        self.ever_public |= strings(GAME.view(state, None)) | strings(public)
        for e in public:
            if e["type"] == "battle_start":
                self.ever_public |= {u["name"] for u in e["units"]}
            if e["type"] == "kept_played":
                self.ever_public.add(e["card"])
        for e in events:
            if e["type"] == "scout_report":
                self.known[e["private_to"]] |= set(e["cards"])
        for p in self.players:
            self.secret[p] = own_cards(state, p) - self.ever_public
            self.all_secret |= self.secret[p]

    def forbidden(self, audience: str | None) -> set[str]:
        """Names ``audience`` (a player, or None: everyone) must not see now."""
        if audience is None:
            return set().union(*self.secret.values())
        return set().union(*(self.secret[q] - self.known.get(audience, set())
                             for q in self.players if q != audience))


class Audit:
    """Checks everything the double recorded since the last look against the secrets."""

    def __init__(self, dd: DiscordDouble, secrets: Secrets) -> None:
        self.dd = dd
        self.secrets = secrets
        self.seen_payloads: dict[str, int] = {}
        self.seen_interactions: set[str] = set()
        self.dm_of = {dd.dm_channel(name).id: dd.resolve_user(name).id for name in PEOPLE}
        self.checked = {"public": 0, "ephemeral": 0, "dm": 0, "autocomplete": 0}
        self.private_lines: dict[str, list[str]] = {p: [] for p in secrets.players}

    def audience(self, m: Message) -> str | None:
        if m.channel.id in self.dm_of:
            return self.dm_of[m.channel.id]
        return m.visible_to

    def look(self) -> None:
        for m in list(self.dd.messages.values()):
            done = self.seen_payloads.get(m.id, -1)
            if done >= len(m.payloads) and done >= 0:
                continue
            self.seen_payloads[m.id] = len(m.payloads)
            audience = self.audience(m)
            text = m.text + json.dumps(m.payloads, ensure_ascii=False) + json.dumps(
                m.history, ensure_ascii=False)
            leaked = {name for name in self.secrets.forbidden(audience) if name in text}
            assert not leaked, f"{leaked} leaked to {audience or 'everyone'}: {m!r}"
            kind = ("dm" if m.channel.id in self.dm_of
                    else "ephemeral" if m.visible_to else "public")
            self.checked[kind] += 1
            if audience is not None and "Only you can see this" in m.content:
                self.private_lines[audience].append(m.content)
        for reply in list(self.dd.interactions.values()):
            if reply.id in self.seen_interactions or reply.choices is None:
                continue
            self.seen_interactions.add(reply.id)
            forbidden = self.secrets.forbidden(reply.user.id)
            text = " ".join(f"{c.name} {c.value}" for c in reply.choices)
            leaked = {name for name in forbidden if name in text}
            assert not leaked, f"{leaked} offered to {reply.user.name}"
            self.checked["autocomplete"] += 1


# -- one game -----------------------------------------------------------------------------------


def mention_map(players: list[str]) -> dict[str, str]:
    return {p: f"<@{p}>" for p in players}


def check_board(board: Message, ping: list[str]) -> None:
    assert not board.ephemeral
    [png] = board.attachments
    assert png.filename.endswith(".png") and png.is_png
    assert png.image().format == "PNG"
    assert sorted(board.pings) == sorted(ping), board.content
    for p in ping:
        assert f"<@{p}>" in board.content


AppChoice = tuple[str, str]


class Match:
    def __init__(self, world: World, table: Table, record: GameRecord) -> None:
        self.world = world
        self.table = table
        self.game_id = record.id
        self.players = list(record.seats)
        assert record.state is not None
        self.state = GAME.new_game(self.players, record.seed)
        assert GAME.dump(self.state) == record.state
        self.version = record.version
        self.secrets = Secrets(self.players)
        self.secrets.step(self.state, [])
        self.audit = Audit(world.dd, self.secrets)
        self.n = 0
        self.sent: dict[str, int] = {}
        self.decisions = 0
        self.untold: list[str] = []         # narration the next digest must carry
        self.seen = len(table.messages)
        self.battles_won: list[str] = []    # how each won battle was narrated
        self.long_digests = self.cut_digests = 0

    @classmethod
    async def open(cls, world: World, table: Table) -> Match:
        opened = await table.slash("alice", "game new", kind="battlecards")
        assert not opened.ephemeral, opened.describe()
        lobby = opened.message
        game_id = int(lobby.embeds[0]["title"].rsplit("#", 1)[1])
        await table.click("bob", "Join", message=lobby)
        seen = len(table.messages)
        await table.click("alice", "Start", message=lobby)
        record = await world.store.get(game_id)
        assert record.status == "active"
        match = cls(world, table, record)
        [board] = [m for m in table.messages[seen:] if not m.ephemeral and not is_recap(m)]
        match.seen = len(table.messages)
        check_board(board, match.players)                   # both deploy in the set-up
        assert "see your cards with `/hand`" in board.content
        match.audit.look()
        return match

    def name(self, user_id: str) -> str:
        return self.world.name(user_id)

    async def record(self) -> GameRecord:
        return await self.world.store.get(self.game_id)

    async def send(self, player: str, action: str, *, friendly: bool) -> Reply:
        expected, events = GAME.apply(self.state, player, action)
        name = self.name(player)
        if friendly:
            command, options = friendly_form(action)
            reply = await self.table.invoke(name, command, options)
        else:
            reply = await self.table.slash(name, "play", action=action)
        await self.adopt(reply, player, action, expected, events)
        self.sent[action.split()[0]] = self.sent.get(action.split()[0], 0) + 1
        return reply

    async def adopt(self, reply: Reply, player: str, action: str, expected: Any,
                    events: list[dict[str, Any]]) -> None:
        record = await self.record()
        assert record.version == self.version + 1, reply.describe()
        assert record.state == GAME.dump(expected)
        [entry] = await self.world.store.history.log(self.game_id, limit=1)
        assert (entry.seq, entry.player) == (record.version, player)
        assert entry.events == events
        assert record.status == ("finished" if GAME.outcome(expected) else "active")
        # secrets first: everything recorded so far, against what is secret now
        self.secrets.step(expected, events)
        self.audit.look()

        # the mover's own answer: private, their action's public lines and, under "Only
        # you can see this", their private events in the game's private words
        lines = wording.narration_lines(GAME, self.players, player, action, events)
        assert reply.ephemeral and (reply.content or "").startswith("✅"), reply.describe()
        assert [m for m in reply.messages if not m.ephemeral] == []
        for line in lines:
            assert line[:300] in reply.text
        assert all(m.pings == [] for m in reply.messages)
        mine = [e for e in events if e.get("private_to") == player]
        if mine:
            assert reply.message.visible_to == player
            assert "Only you can see this" in reply.text
            stripped = [{k: v for k, v in e.items() if k != "private_to"} for e in mine]
            for line in bc.private_narration(stripped, {}):
                assert line[:300] in reply.text
        else:
            assert "Only you can see this" not in reply.text
        self.untold.extend(lines)
        for e in public_events(events):
            if e["type"] == "battle_won":
                self.battles_won.extend(GAME.narrate([e], mention_map(self.players)))
        # someone else's: by direct message, naming the game and where it is played
        for other in {e.get("private_to") for e in events} - {player, None}:
            dm = self.world.dd.dm_channel(self.name(other))
            last = [m for m in self.world.dd.messages.values() if m.channel.id == dm.id][-1]
            theirs = [{k: v for k, v in e.items() if k != "private_to"}
                      for e in events if e.get("private_to") == other]
            assert bc.private_narration(theirs, {})[0] in last.content
            assert "Only you can see this" in last.content
            assert f"Battlecards: World Conflict #{self.game_id}" in last.content or \
                f"#{self.game_id}" in last.content
            assert f"/channels/{self.table.channel.guild.id}/{self.table.channel.id}" in \
                last.content

        # the channel: one digest when the turn passes, the decision moves or it ends
        public = [m for m in self.table.messages[self.seen:]
                  if not m.ephemeral and not is_recap(m)]
        self.seen = len(self.table.messages)
        boards = [m for m in public if m.attachments]
        assert len(public) == len(boards)
        before, after = GAME.to_act(self.state), GAME.to_act(expected)
        turn_before, turn_after = GAME.current_turn(self.state), GAME.current_turn(expected)
        outcome = GAME.outcome(expected)
        if outcome is not None or set(before) != set(after) or turn_before != turn_after \
                or action == "resign":
            [board] = boards
            # every line of the turn, in the content or (a long turn) in the embed
            told = [line for line in self.untold if line[:300] in board.text]
            self.long_digests += bool(board.embeds)
            if len(told) < len(self.untold):      # past even the embed: the middle is cut
                assert "more lines: `/game log`" in board.text, board.text
                self.cut_digests += 1
            self.untold = []
        if outcome is not None:
            check_board(board, list(outcome.winners))
        elif set(before) != set(after) or turn_before != turn_after:
            check_board(board, after)
            if after != [turn_after]:               # an off-turn decision: named and said
                prompt = GAME.view(expected, None)["prompt"]
                assert prompt[1:].rstrip(".") in board.content
                self.decisions += 1
        else:
            assert boards == []

        self.state = expected
        self.version = record.version

    async def offered(self, name: str, command: str, option: str, **options: Any
                      ) -> list[AppChoice]:
        choices = await self.table.autocomplete(name, command, option, typed="", **options)
        assert len(choices) <= 25
        return [(c.name, str(c.value)) for c in choices]

    async def check_autocomplete(self, player: str) -> None:
        """Before ``player`` acts: /play and the slot choices are theirs alone."""
        other = next(p for p in self.players if p != player)
        legal = GAME.legal_actions(self.state, player)
        assert [v for _, v in await self.offered(self.name(player), "play", "action")] == \
            legal[:25]
        if other not in GAME.to_act(self.state):
            assert await self.offered(self.name(other), "play", "action") == []
            assert await self.offered(self.name(other), "battlecards deploy", "slot") == []
            assert await self.offered(self.name(other), "battlecards play", "kept") == []
        assert await self.offered("carol", "play", "action") == []
        assert await self.offered("carol", "battlecards deploy", "slot") == []
        mine = GAME.view(self.state, player)
        entry = bc.player_entry(mine, player)
        assert entry is not None
        deploys = await self.offered(self.name(player), "battlecards deploy", "slot")
        assert [v for _, v in deploys] == bc.firsts(legal, "deploy")
        for label, slot in deploys:
            assert label.startswith(f"{slot} · {entry['hand'][int(slot) - 1]['name']} (")
        kept = await self.offered(self.name(player), "battlecards play", "kept")
        assert [v for _, v in kept] == bc.firsts(legal, "play")
        for label, slot in kept:
            assert label.startswith(f"{slot} · {entry['kept'][int(slot) - 1]['name']}: ")
        for first in bc.firsts(legal, "fire"):
            units = await self.offered(self.name(player), "battlecards fire", "target",
                                       unit=first)
            assert [v for _, v in units] == bc.seconds(legal, "fire", first)
        self.audit.look()


# -- the tests ----------------------------------------------------------------------------------


async def test_a_whole_game_keeps_every_secret(world: World) -> None:
    table = world.dd.table()
    alice, bob = world.uid("alice"), world.uid("bob")
    world.dealer.seed = pick_seed([alice, bob])
    match = await Match.open(world, table)

    # /hand: alice's cards, only to her; carol has none; nothing public was said
    before = len(table.messages)
    shown = await table.slash("alice", "hand")
    assert shown.ephemeral and shown.message.visible_to == alice
    text = shown.message.text
    for name in match.secrets.secret[alice]:
        assert name in text
    assert not {n for n in match.secrets.secret[bob] if n in text}
    same = await table.slash("alice", "battlecards hand")
    assert same.message.text == text
    none = await table.slash("carol", "hand")
    assert none.ephemeral and bc.NO_HAND in (none.content or "")
    assert not none.message.embeds
    assert len(table.messages) == before
    match.audit.look()

    # bob fires his own units
    await match.send(bob, "autofire off", friendly=True)
    assert not GAME.view(match.state, None)["players"][1]["autofire"]

    turn: str | None = None
    while GAME.outcome(match.state) is None:
        assert match.n < MAX_ACTIONS
        player, action = chooser(match.state, match.n)
        if player != turn or action.startswith(("deploy", "play", "fire")):
            await match.check_autocomplete(player)
            turn = player
        await match.send(player, action, friendly=match.n % 2 == 1)
        match.n += 1
        if match.n % 15 == 0:                               # /hand stays in step
            for name, pid in (("alice", alice), ("bob", bob)):
                hand = await table.slash(name, "hand")
                assert hand.ephemeral and hand.message.visible_to == pid
                for card in bc.player_entry(GAME.view(match.state, pid), pid)["hand"]:  # type: ignore
                    assert card["name"] in hand.message.text
            match.audit.look()

    outcome = GAME.outcome(match.state)
    assert outcome is not None
    result = table.last_message(lambda m: bool(m.attachments) and not is_recap(m))
    [winner] = outcome.winners
    assert f"🏆 **Game over** — <@{winner}> wins!" in result.content
    # every battle reached the channel: its result is in a digest
    channel_text = "\n".join(m.text for m in table.messages)
    assert match.battles_won and all(line in channel_text for line in match.battles_won)
    assert match.long_digests >= 1 and match.cut_digests == 0   # long turns fit the embed
    record = await match.record()
    assert record.status == "finished" and await world.store.history.verify(match.game_id)

    # the game showed what it was chosen for, and the audit saw all of it
    assert {"fire", "play", "withdraw", "scout"} <= set(match.sent)
    assert match.decisions >= 2
    assert all(match.audit.private_lines[p] for p in (alice, bob))
    assert match.audit.checked["dm"] >= 1 and match.audit.checked["ephemeral"] >= 20
    assert match.audit.checked["public"] >= 20 and match.audit.checked["autocomplete"] >= 20
    assert len(match.secrets.all_secret) >= 20

    # /game log, /game status and /game board, after the game, name no secret either
    for name in PEOPLE:
        for command in ("game log", "game status"):
            await table.slash(name, command)
    match.audit.look()


async def test_game_log_status_and_board_during_a_game_show_nothing_private(
        world: World) -> None:
    table = world.dd.table()
    match = await Match.open(world, table)
    n = 0
    while n < 40 and GAME.outcome(match.state) is None:
        player, action = chooser(match.state, n)
        await match.send(player, action, friendly=n % 3 == 0)
        n += 1
    for name in PEOPLE:
        log = await table.slash(name, "game log")
        assert log.ephemeral and "deploy" in (log.content or "")
        status = await table.slash(name, "game status")
        assert status.ephemeral and "hand count" in (status.content or "")  # counts only
    board = await table.slash("carol", "game board")
    assert [m for m in board.messages if m.attachments]
    match.audit.look()
    assert match.audit.checked["ephemeral"] >= 6


async def test_battlecards_commands_elsewhere(world: World) -> None:
    table = world.dd.table()
    none = await table.slash("alice", "hand")
    assert none.ephemeral and "no game in this channel" in (none.content or "")
    assert await table.autocomplete("alice", "battlecards deploy", "slot") == []
    await table.slash("alice", "game new", kind="conqueror")
    await table.click("bob", "Join")
    await table.click("alice", "Start")
    other = await table.slash("alice", "battlecards draw")
    assert other.ephemeral and "/play" in (other.content or "")
    hand = await table.slash("alice", "hand")
    assert hand.ephemeral and "Conqueror has no hidden hands" in (hand.content or "")
    assert await table.autocomplete("alice", "battlecards deploy", "slot") == []
    assert await table.autocomplete("alice", "battlecards withdraw", "unit") == []


def test_friendly_forms_cover_every_verb() -> None:
    import discord
    from discord.ext import commands

    from cogs.verbs import GameCommands

    group = GameCommands(commands.Bot(command_prefix="!", intents=discord.Intents.none())
                         ).groups["battlecards"]
    for action in ("deploy 2", "scout sea", "fire g1 a2", "support s1 g1", "play 1 g1",
                   "withdraw g1", "autofire off", "draw", "emergency", "done", "attack",
                   "decline", "pass", "stay"):
        command, options = friendly_form(action)
        found = group.get_command(command.removeprefix("battlecards "))
        assert found is not None
        assert {p.display_name for p in found.parameters} == set(options)  # type: ignore
        verb = verb_named(GAME.verbs, command.removeprefix("battlecards "))
        assert verb.notation(options) == action
    with pytest.raises(ValueError):
        friendly_form("resign")
    assert re.fullmatch(r"[a-z ]+", bc.NO_HAND.lower().replace(":", "").replace(".", ""))
