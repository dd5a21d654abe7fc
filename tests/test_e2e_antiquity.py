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

from e2e_driver import Match, check_commands_elsewhere, computer, digest_after
from e2e_world import World, game_id_of, world_fixture

from engine.antiquity import GAME
from engine.antiquity.ai import choose_action

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "antiquity"]
PEOPLE = ("alice", "bob", "carol", "dave", "erin", "frank", "grace")
SEATED = ("alice", "bob", "carol")
SEED = 333
MAX_ACTIONS = 3000

world = world_fixture(people=PEOPLE, commands=COMMANDS, seed=SEED)


class AntiquityMatch(Match):
    game = GAME
    line_cut = 200

    async def check_autocomplete(self, player: str) -> None:
        """What the player to act is offered is legal and labelled; others get nothing."""
        legal = GAME.legal_actions(self.state, player)
        me = self.name(player)
        for command, arg in (("go", "field"), ("move", "from"), ("found", "province"),
                             ("temple", "province"), ("legion", "province"),
                             ("galley", "sea"), ("learn", "knowhow")):
            verb = next(v for v in GAME.verbs if v.name == command)
            offered = await self.choices(me, f"antiquity {command}", arg)
            assert [v for _, v in offered] == verb.candidates(legal, arg)[:25], command
            for label, value in offered:
                assert label.startswith(value), (label, value)
        move = next(v for v in GAME.verbs if v.name == "move")
        sources = move.candidates(legal, "from")
        if sources:
            src = sources[0]
            targets = await self.offered(me, "antiquity move", "to", **{"from": src})
            assert targets == move.candidates(legal, "to", {"from": src})[:25]
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
    match = await AntiquityMatch.open(world, table, list(SEATED))
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

    turn = None

    async def autocomplete_now_and_then(player: str, action: str) -> None:
        nonlocal turn
        if player != turn or action.startswith(("conquer", "found")):
            if match.n < 90 or action.startswith("conquer"):
                await match.check_autocomplete(player)
            turn = player

    await match.play_until_over(computer(GAME, choose_action),
                                before=autocomplete_now_and_then, limit=MAX_ACTIONS)
    await match.check_over()

    # the whole game was played: every field used, cities founded, turns told one by one
    assert {"go", "end"} <= set(match.sent)
    assert match.events.get("found", 0) >= 3, match.events
    assert match.events.get("conquer", 0) >= 3 and match.events.get("temple", 0) >= 1
    assert match.events.get("produce", 0) >= 10
    assert len(match.told) >= 3 * 8
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
    await check_commands_elsewhere(world.dd.table(), "antiquity end", {},
                                   [("antiquity go", "field")])


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
    board = digest_after(table, seen)
    assert board.attachments[0].is_png
    record = await world.store.get(game_id_of(opened))
    assert record.state is not None
    view = GAME.view(GAME.load(record.state), None)
    assert len(view["nations"]) == 6
    status = await table.slash("erin", "game status")
    text = status.text
    for nation in view["nations"]:
        assert nation["name"] in text, text
    assert len([line for line in text.splitlines() if "<@" in line]) >= 6
