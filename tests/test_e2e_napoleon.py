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
from collections import Counter
from typing import Any

from discord_double import Message, Reply
from e2e_driver import HiddenMatch, Secrets, check_commands_elsewhere, computer
from e2e_world import World, world_fixture

from cogs import wording
from engine import public_events
from engine.napoleon import GAME
from engine.napoleon.ai import choose_action

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "napoleon", "hand"]
PEOPLE = ("alice", "bob", "carol")
SEED = 1805
MAX_ACTIONS = 1500
ROUNDS = 10

world = world_fixture(people=PEOPLE, commands=COMMANDS, seed=SEED)


def entry(view: dict[str, Any], player: str) -> dict[str, Any]:
    [found] = [e for e in view["players"] if e["id"] == player]
    return found


class HandSecrets(Secrets):
    """The names of cards in each hand that have never been shown to everyone."""

    def own(self, state: Any, player: str) -> set[str]:
        return {c["name"] for c in entry(GAME.view(state, player), player)["hand"]}

    def shown(self, state: Any, events: list[dict[str, Any]]) -> set[str]:
        shown = public_events(events)
        public = json.dumps([GAME.view(state, None), shown, GAME.narrate(shown)],
                            ensure_ascii=False)
        return {name for p in self.players for name in self.own(state, p) if name in public}


class NapoleonMatch(HiddenMatch):
    game = GAME
    line_cut = 200
    secrets_class = HandSecrets

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.off_turn_phases: Counter[str] = Counter()

    def check_private(self, reply: Reply, player: str, events: list[dict[str, Any]]) -> None:
        # the cards one draws: to the drawer alone
        self.private_lines(reply, player, events, lambda mine: GAME.narrate(mine, {}))

    def check_off_turn(self, board: Message, state: Any) -> None:
        # asked on the other player's turn: mentioned, with the game's prompt
        view = GAME.view(state, None)
        assert view["prompt"][1:40] in board.content, board.content
        self.off_turn_phases[view["phase"]] += 1

    def battles(self) -> list[dict[str, Any]]:
        return [e for _, _, events in self.applied for e in events if e["type"] == "battle"]

    async def check_autocomplete(self, player: str) -> None:
        """What ``player`` is offered is theirs, legal, and labelled; others get nothing."""
        other = next(p for p in self.players if p != player)
        legal = GAME.legal_actions(self.state, player)
        move = next(v for v in GAME.verbs if v.name == "move")
        sources = move.candidates(legal, "from")
        offered = await self.choices(self.name(player), "napoleon move", "from")
        assert [v for _, v in offered] == sources[:25]
        for label, value in offered:
            assert label.startswith(f"{value} · ")
        if sources:
            src = sources[0]
            targets = await self.choices(self.name(player), "napoleon move", "to",
                                         **{"from": src})
            assert [v for _, v in targets] == move.candidates(legal, "to", {"from": src})
            dst = targets[0][1]
            counts = await self.choices(self.name(player), "napoleon move", "count",
                                        **{"from": src, "to": dst})
            legal_counts = move.candidates(legal, "count", {"from": src, "to": dst})
            assert {v for _, v in counts} <= set(legal_counts)
            assert counts[-1][1] == legal_counts[-1]            # "all of them" is offered
            # typing part of a name completes it
            typed = await self.table.autocomplete(self.name(player), "napoleon move", "from",
                                                  typed=src[:3])
            assert src in [str(c.value) for c in typed]
        cards = await self.choices(self.name(player), "napoleon play", "card")
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
    match = await NapoleonMatch.open(world, table, ["alice", "bob"], options=f"rounds={ROUNDS}")
    assert (await match.record()).options == {"rounds": ROUNDS}
    assert match.opening is not None and match.opening.pings == [alice]  # the French first

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

    turn = None
    decisions = ("play", "discard", "retreat")

    async def autocomplete_now_and_then(player: str, action: str) -> None:
        nonlocal turn
        assert GAME.to_act(match.state) == [player]
        if player != turn or action.startswith(decisions):
            if match.n < 400 or action.startswith(decisions):
                await match.check_autocomplete(player)
            turn = player

    async def hands_in_step(n: int) -> None:
        if n % 60 == 0:                                  # /hand stays in step
            for name, pid in (("alice", alice), ("bob", bob)):
                hand = await table.slash(name, "hand")
                for card in entry(GAME.view(match.state, pid), pid)["hand"]:
                    assert card["name"] in hand.message.text
            match.audit.look()

    await match.play_until_over(computer(GAME, choose_action), before=autocomplete_now_and_then,
                                after=hands_in_step, limit=MAX_ACTIONS)
    outcome = await match.check_over()
    assert len(outcome.winners) == 1

    # battles were fought, told with forces, cards and dice, and asked off-turn questions
    battles = match.battles()
    assert len(battles) >= 3
    channel = "\n".join(m.text for m in table.messages)
    for battle in battles:
        [line] = GAME.narrate([battle], wording.mentions(match.players))
        assert line[:200] in channel
    assert match.off_turn_phases.get("cards", 0) >= 1
    assert {"move", "end", "ready"} <= set(match.sent)
    assert len(match.secrets.all_secret) >= 5
    assert match.audit.checked["autocomplete"] >= 30 and match.audit.checked["public"] >= 20

    # after the game: log and status name no secret either
    await match.check_log_and_status(PEOPLE)


async def test_napoleon_commands_elsewhere(world: World) -> None:
    await check_commands_elsewhere(world.dd.table(), "napoleon end", {},
                                   [("napoleon move", "from")])
