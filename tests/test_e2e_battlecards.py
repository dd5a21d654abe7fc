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

import re
from typing import Any

from discord_double import Message, Reply
from e2e_driver import (
    HiddenMatch,
    Secrets,
    check_commands_elsewhere,
    check_friendly_forms,
    computer,
)
from e2e_world import World, world_fixture
from properties import strings

from cogs import battlecards as bc
from cogs import wording
from engine import public_events
from engine.battlecards import GAME
from engine.battlecards.ai import choose_action

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "battlecards", "hand"]
PEOPLE = ("alice", "bob", "carol")
SEED = 20260101
SEEDS_TRIED = 100
MAX_ACTIONS = 400
#: What the chosen game must show: a DM (cards drawn by the player not acting), a scout
#: report, a kept card played, a withdrawal and a shot fired by hand (bob: auto-fire off).
WANTED = {"dm", "scout_report", "kept_played", "withdraw", "fire"}

world = world_fixture(people=PEOPLE, commands=COMMANDS, seed=SEED)


# -- choosing the game --------------------------------------------------------------------------


#: Who acts and what (the automatic player); in the set-up both deploy, by turns.
chooser = computer(GAME, choose_action)


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


def own_cards(state: Any, player: str) -> set[str]:
    """The names of every card in ``player``'s hand, stacks and kept cards."""
    me = bc.player_entry(GAME.view(state, player), player)
    assert me is not None
    cards = [*me["hand"], *me["kept"], *(c for cs in me["stack_cards"].values() for c in cs)]
    return {c["name"] for c in cards}


class CardSecrets(Secrets):
    """What is still secret, and who knows what (scouted), as the game goes."""

    def own(self, state: Any, player: str) -> set[str]:
        return own_cards(state, player)

    def shown(self, state: Any, events: list[dict[str, Any]]) -> set[str]:
        # the engine's leak tests count the units revealed in a battle and the kept cards
        # played as public from then on; so do we
        public = public_events(events)
        shown = strings(GAME.view(state, None)) | strings(public)
        for e in public:
            if e["type"] == "battle_start":
                shown |= {u["name"] for u in e["units"]}
            if e["type"] == "kept_played":
                shown.add(e["card"])
        return shown

    def step(self, state: Any, events: list[dict[str, Any]]) -> None:
        for e in events:
            if e["type"] == "scout_report":
                self.known[e["private_to"]] |= set(e["cards"])
        super().step(state, events)


# -- one game -----------------------------------------------------------------------------------


class BattlecardsMatch(HiddenMatch):
    game = GAME
    line_cut = 300
    secrets_class = CardSecrets

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.long_digests = self.cut_digests = 0

    def friendly_form(self, action: str) -> tuple[str, dict[str, Any]]:
        return friendly_form(action)

    def check_private(self, reply: Reply, player: str, events: list[dict[str, Any]]) -> None:
        # the mover's own private events under "Only you can see this", in the game's
        # private words
        if self.private_lines(reply, player, events, lambda mine: bc.private_narration(mine, {})):
            assert "Only you can see this" in reply.text
        else:
            assert "Only you can see this" not in reply.text
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

    def check_told(self, board: Message) -> None:
        # every line of the turn, in the content or (a long turn) in the embed
        told = [line for line in self.untold if line[:300] in board.text]
        self.long_digests += bool(board.embeds)
        if len(told) < len(self.untold):      # past even the embed: the middle is cut
            assert "more lines: `/game log`" in board.text, board.text
            self.cut_digests += 1

    def check_off_turn(self, board: Message, state: Any) -> None:
        prompt = GAME.view(state, None)["prompt"]       # an off-turn decision: named and said
        assert prompt[1:].rstrip(".") in board.content

    def battles_won(self) -> list[str]:
        """How each won battle was narrated."""
        return [line for _, _, events in self.applied for e in public_events(events)
                if e["type"] == "battle_won"
                for line in GAME.narrate([e], wording.mentions(self.players))]

    async def check_autocomplete(self, player: str) -> None:
        """Before ``player`` acts: /play and the slot choices are theirs alone."""
        other = next(p for p in self.players if p != player)
        legal = GAME.legal_actions(self.state, player)
        assert [v for _, v in await self.choices(self.name(player), "play", "action")] == \
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
        deploys = await self.choices(self.name(player), "battlecards deploy", "slot")
        assert [v for _, v in deploys] == bc.firsts(legal, "deploy")
        for label, slot in deploys:
            assert label.startswith(f"{slot} · {entry['hand'][int(slot) - 1]['name']} (")
        kept = await self.choices(self.name(player), "battlecards play", "kept")
        assert [v for _, v in kept] == bc.firsts(legal, "play")
        for label, slot in kept:
            assert label.startswith(f"{slot} · {entry['kept'][int(slot) - 1]['name']}: ")
        for first in bc.firsts(legal, "fire"):
            units = await self.choices(self.name(player), "battlecards fire", "target",
                                       unit=first)
            assert [v for _, v in units] == bc.seconds(legal, "fire", first)
        self.audit.look()


# -- the tests ----------------------------------------------------------------------------------


async def test_a_whole_game_keeps_every_secret(world: World) -> None:
    table = world.dd.table()
    alice, bob = world.uid("alice"), world.uid("bob")
    world.dealer.seed = pick_seed([alice, bob])
    match = await BattlecardsMatch.open(world, table, ["alice", "bob"])
    assert match.opening is not None
    assert "see your cards with `/hand`" in match.opening.content   # both deploy first

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
    await match.send("autofire off", player=bob, friendly=True)
    assert not GAME.view(match.state, None)["players"][1]["autofire"]

    turn: str | None = None

    async def autocomplete_now_and_then(player: str, action: str) -> None:
        nonlocal turn
        if player != turn or action.startswith(("deploy", "play", "fire")):
            await match.check_autocomplete(player)
            turn = player

    async def hands_in_step(n: int) -> None:
        if n % 15 == 0:                               # /hand stays in step
            for name, pid in (("alice", alice), ("bob", bob)):
                hand = await table.slash(name, "hand")
                assert hand.ephemeral and hand.message.visible_to == pid
                for card in bc.player_entry(GAME.view(match.state, pid), pid)["hand"]:  # type: ignore
                    assert card["name"] in hand.message.text
            match.audit.look()

    await match.play_until_over(chooser, before=autocomplete_now_and_then, after=hands_in_step,
                                friendly=lambda n: n % 2 == 1, limit=MAX_ACTIONS)
    outcome = await match.check_over()
    assert len(outcome.winners) == 1
    # every battle reached the channel: its result is in a digest
    channel_text = "\n".join(m.text for m in table.messages)
    battles_won = match.battles_won()
    assert battles_won and all(line in channel_text for line in battles_won)
    assert match.long_digests >= 1 and match.cut_digests == 0   # long turns fit the embed

    # the game showed what it was chosen for, and the audit saw all of it
    assert {"fire", "play", "withdraw", "scout"} <= set(match.sent)
    assert match.off_turn >= 2
    assert all(match.audit.private_lines.get(p) for p in (alice, bob))
    assert match.audit.checked["dm"] >= 1 and match.audit.checked["ephemeral"] >= 20
    assert match.audit.checked["public"] >= 20 and match.audit.checked["autocomplete"] >= 20
    assert len(match.secrets.all_secret) >= 20

    # /game log, /game status and /game board, after the game, name no secret either
    await match.check_log_and_status(PEOPLE)


async def test_game_log_status_and_board_during_a_game_show_nothing_private(
        world: World) -> None:
    table = world.dd.table()
    match = await BattlecardsMatch.open(world, table, ["alice", "bob"])
    n = 0
    while n < 40 and GAME.outcome(match.state) is None:
        player, action = chooser(match.state, n)
        await match.send(action, player=player, friendly=n % 3 == 0)
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
    await check_commands_elsewhere(table, "battlecards draw", {},
                                   [("battlecards deploy", "slot"),
                                    ("battlecards withdraw", "unit")])
    hand = await table.slash("alice", "hand")
    assert hand.ephemeral and "Conqueror has no hidden hands" in (hand.content or "")


def test_friendly_forms_cover_every_verb() -> None:
    check_friendly_forms(GAME, friendly_form, (
        "deploy 2", "scout sea", "fire g1 a2", "support s1 g1", "play 1 g1", "withdraw g1",
        "autofire off", "draw", "emergency", "done", "attack", "decline", "pass", "stay"))
    assert re.fullmatch(r"[a-z ]+", bc.NO_HAND.lower().replace(":", "").replace(".", ""))
