"""The toy sixth game (tests/toy_game) through the loopback Discord with the real bot, as a
game registered at run time: nothing of the bot was written for it.

A whole game to its winner on the shared e2e driver (tests/e2e_driver.py): ``/game new
kind:toy``, Join, Start; every action through ``/play`` or the ``/toy`` group the bot
built from the game's declared verbs (raids by ``/toy raid seat: slot:``), each checked
against the engine run alongside: the store, the mover's private answer, one turn digest
with the board when the turn or the decision passes (the raided player is asked off-turn
with the game's prompt); ``/hand`` privately; autocomplete labelled from the caller's own
view; ``/game rules`` without a rules doc; ``/game hint`` from the computer player, which
has no heuristics for this game.
No card in a hand ever reaches anyone who may not know it.

Where it runs: a game registered at run time lives in this process only. The bot draws
boards and searches computer moves in worker processes that import ``render`` and
``engine`` afresh, where the toy game does not exist, so this world runs them in threads
of this process (``RENDER_WORKERS=0``, ``COMPUTER_WORKERS=0``: the same ``render.render``
and ``engine.search.choose``). ``/game new`` offers it like any other game: the bot makes
its kind choices from ``engine.GAMES`` when it loads its extensions, after the toy game
is registered. A sixth game shipped as packages (``engine/<kind>/``, ``render/<kind>``)
is discovered before the bot starts, in every process.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from discord_double import DiscordDouble, Message, Reply
from e2e_driver import HiddenMatch, Secrets
from e2e_world import World, deal_seeds, new_world

from engine import public_events
from engine.search import heuristic_action
from tests.toy_game import GAME, KIND
from tests.toy_game.board import WIDTH
from tests.toy_game.state import CARDS

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", KIND, "hand"]
PEOPLE = ("alice", "bob", "carol", "dave")
PLAYERS = ["alice", "bob", "carol"]
SEED = 2024
ROUNDS = 6


@pytest_asyncio.fixture
async def world(toy: Any, discord_double: DiscordDouble, start_bot: Any,
                tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    made = new_world(discord_double, start_bot, tmp_path, PEOPLE, COMMANDS,
                     deal_seeds(monkeypatch, SEED), RENDER_WORKERS="0", COMPUTER_WORKERS="0")
    await made.start()
    return made


def entry(view: dict[str, Any], player: str) -> dict[str, Any]:
    [found] = [e for e in view["players"] if e["id"] == player]
    return found


class CardSecrets(Secrets):
    """Each card (every card has a name of its own) in a hand or stash that was never
    shown to everyone (a card played, then shuffled back and drawn, was); a raided player
    knows which of theirs the raider took."""

    def own(self, state: Any, player: str) -> set[str]:
        mine = entry(GAME.view(state, player), player)
        return {c["name"] for c in [*mine["hand"], *mine["stash"]]}

    def shown(self, state: Any, events: list[dict[str, Any]]) -> set[str]:
        shown = public_events(events)
        public = json.dumps([GAME.view(state, None), shown, GAME.narrate(shown)],
                            ensure_ascii=False)
        return {card.name for card in CARDS.values() if card.name in public}

    def step(self, state: Any, events: list[dict[str, Any]]) -> None:
        for e in events:
            if e["type"] == "lost":
                self.known[e["player"]].add(e["card"])
        super().step(state, events)


class ToyMatch(HiddenMatch):
    game = GAME
    secrets_class = CardSecrets

    def check_private(self, reply: Reply, player: str, events: list[dict[str, Any]]) -> None:
        # a card drawn, or lost to a raider: to the mover alone (the raider's by DM)
        self.private_lines(reply, player, events, lambda mine: GAME.narrate(mine, {}))

    def check_off_turn(self, board: Message, state: Any) -> None:
        view = GAME.view(state, None)
        assert view["phase"] == "raid" and view["prompt"][1:40] in board.content, board.content

    def check_image(self, size: tuple[int, int]) -> None:
        assert size[0] == WIDTH

    async def check_autocomplete(self) -> None:
        """The one to act is offered their own legal choices, labelled from their own view;
        a player who may not act is offered nothing."""
        player = self.acting
        name = self.name(player)
        legal = GAME.legal_actions(self.state, player)
        hand = {str(c["slot"]): c["name"] for c in entry(GAME.view(self.state, player),
                                                         player)["hand"]}
        verb = "block" if GAME.view(self.state, None)["phase"] == "raid" else "play"
        cards = await self.choices(name, f"toy {verb}", "card")
        assert [v for _, v in cards] == [a.split()[1] for a in legal
                                         if a.startswith(f"{verb} ")]
        for label, value in cards:
            assert label.startswith(f"{value} · ") and hand[value] in label
        raid = next(v for v in GAME.verbs if v.name == "raid")
        seats = await self.choices(name, "toy raid", "seat")
        assert [v for _, v in seats] == raid.candidates(legal, "seat")
        for label, value in seats:
            assert label.startswith(f"{value} · ") and "points" in label
        if seats:
            slots = await self.offered(name, "toy raid", "slot", seat=seats[0][1])
            assert slots == raid.candidates(legal, "slot", {"seat": seats[0][1]})
        for other in self.players:
            if other not in GAME.to_act(self.state):
                assert await self.offered(self.name(other), "toy play", "card") == []
                assert await self.offered(self.name(other), "play", "action") == []
        self.audit.look()


def chooser(state: Any, n: int) -> tuple[str, str]:
    """Who acts and what: raids and stashes often enough to be seen, blocks and yields by
    turns, else the computer player's own choice."""
    [player] = GAME.to_act(state)
    legal = GAME.legal_actions(state, player)
    rng = random.Random(n)
    if GAME.view(state, None)["phase"] == "raid":
        blocks = [a for a in legal if a.startswith("block")]
        return player, rng.choice(blocks) if blocks and n % 2 else "yield"
    for verb, chance in (("raid", 0.35), ("stash", 0.2)):
        mine = [a for a in legal if a.startswith(verb)]
        if mine and rng.random() < chance:
            return player, rng.choice(mine)
    return player, heuristic_action(GAME, state, player)


async def test_a_whole_toy_game_to_its_winner(world: World) -> None:
    bot = world.running.bot
    assert bot.boards.workers == 0 and bot.computers.workers == 0   # in this process
    table = world.dd.table()
    alice, dave = world.uid("alice"), world.uid("dave")
    match = await ToyMatch.open(world, table, PLAYERS, options=f"rounds={ROUNDS}")
    assert (await match.record()).options == {"rounds": ROUNDS, "target": 20}
    assert match.opening is not None and match.opening.pings == [alice]

    # /hand: alice's own cards, to her alone; dave plays no part; the channel hears nothing
    before = len(table.messages)
    shown = await table.slash("alice", "hand")
    assert shown.ephemeral and shown.message.visible_to == alice
    for card in entry(GAME.view(match.state, alice), alice)["hand"]:
        assert card["name"] in shown.message.text and card["text"] in shown.message.text
    none = await table.slash("dave", "hand")
    assert none.ephemeral and "no hand" in (none.content or "")
    assert len(table.messages) == before
    match.audit.look()

    # its quick rules, with no rules doc: the summary and the options
    rules = await table.slash("dave", "game rules", kind=KIND)
    assert rules.ephemeral and GAME.summary in rules.message.text, rules.describe()
    assert "rounds" in rules.message.text and "target" in rules.message.text

    # the computer player's hint, searched with no heuristics of the game's own
    hint = await table.slash("alice", "game hint")
    assert hint.ephemeral and "the computer would play" in (hint.content or "")
    suggested = (hint.content or "").split("**`")[1].split("`**")[0]
    assert suggested in GAME.legal_actions(match.state, alice)
    assert (await match.record()).version == 0 and dave not in GAME.players(match.state)

    # refused: out of turn, and a raid on one's own seat; nothing changes
    await match.refused("bob", "toy pass")
    await match.refused("alice", "toy raid", {"seat": "1", "slot": 1})

    async def look_now_and_then(player: str, action: str) -> None:
        if match.n % 3 == 0 or action.startswith(("raid", "block", "yield")):
            await match.check_autocomplete()

    async def hands_in_step(n: int) -> None:
        if n % 10 == 0:                                  # /hand stays in step
            for name in PLAYERS:
                pid = world.uid(name)
                hand = await table.slash(name, "hand")
                for card in entry(GAME.view(match.state, pid), pid)["hand"]:
                    assert card["name"] in hand.message.text
            match.audit.look()

    await match.play_until_over(chooser, before=look_now_and_then, after=hands_in_step,
                                friendly=lambda n: n % 2 == 1)
    outcome = await match.check_over()
    assert set(outcome.standings) == {world.uid(n) for n in PLAYERS}

    # raids were made with /toy raid, answered off-turn both ways; cards were drawn
    assert match.sent["raid"] >= 2 and match.off_turn == match.sent["raid"]
    assert match.sent["yield"] >= 1 and match.sent["block"] >= 1
    friendly_raids = [r for r in world.dd.interactions.values()
                      if r.name == "toy raid" and (r.content or "").startswith("✅")]
    assert friendly_raids
    assert match.events["drew"] >= 3 and match.events["stash"] >= 1
    assert len(match.secrets.all_secret) >= 6
    assert match.audit.checked["autocomplete"] >= 10 and match.audit.checked["dm"] >= 1

    # after the game: log and status name no secret either
    for name in PEOPLE:
        for command in ("game log", "game status"):
            await table.slash(name, command)
    match.audit.look()
