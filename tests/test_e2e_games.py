"""End to end: whole games through the loopback Discord double, checked move by move.

The real bot (``bot.create_bot``) runs against the double; scripted players open lobbies
with ``/game new``, take seats with the Join button, start with Start, and play every move
as an interaction (``/play action:...`` or the friendly ``/conqueror ...`` forms). Beside
the bot, each test runs its own copy of the engine from the seed the bot's store dealt,
applies the same actions, and after every move compares:

* the stored position and version with the engine copy (one log entry per move),
* the mover's private confirmation (dice included) with the engine's own events,
* the channel: nothing mid-turn, then one turn digest when the turn passes (or the game
  ends) with every action's narration in order, the board PNG (decodes, full size) and a
  ping of exactly whoever acts next.

The computer player (``engine.conqueror.ai``) picks the moves, so games reach a winner.
Seeds are pinned (see :data:`SEEDS`) so the file's running time is stable; nothing here
depends on a particular seed.
"""

from __future__ import annotations

import asyncio
import copy
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from discord_double import ClientRefused, Message, Reply
from e2e_driver import Match, check_board, computer, unmention
from e2e_world import World, is_recap, new_messages, world_fixture
from PIL import Image

import render
from engine import IllegalAction
from engine.conqueror import GAME
from engine.conqueror.ai import choose_action

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "conqueror"]
#: The size of every Conqueror board image (whatever the renderer draws at).
BOARD_SIZE = Image.open(io.BytesIO(render.render(
    "conqueror", GAME.view(GAME.new_game(["1", "2"], 1), None)))).size
PEOPLE = ("alice", "bob", "carol", "dave", "erin")
#: Seeds dealt by the bot's store, by number of players: typical games (194 actions for two
#: players, 265 for four; medians are about 200 and 310). Any seed works; pinned so the
#: file's running time does not vary from run to run.
SEEDS = {2: 20250101, 3: 7, 4: 11}
#: No Conqueror game between computer players comes near this many actions.
MAX_ACTIONS = 2000


# -- the world: a double, a bot (restartable on the same database), people --------------------

#: Until a test calls ``seeded``, the store deals real random seeds.
world = world_fixture(people=PEOPLE, commands=COMMANDS)


@pytest.fixture
def seeded(world: World) -> Callable[[int], None]:
    """``seeded(n)`` makes the store deal the next game from ``SEEDS[n]``."""
    def use(players: int) -> None:
        world.dealer.seed = SEEDS[players]

    return use


# -- checking what the bot posted ------------------------------------------------------------


def engine_refusal(state: Any, player: str, action: str) -> str:
    """The engine's message refusing ``action`` (fails if the engine would accept it)."""
    try:
        GAME.apply(state, player, action)
    except IllegalAction as exc:
        return str(exc)
    raise AssertionError(f"the engine accepts {action!r} from {player}")


def dice_lines(events: list[dict[str, Any]]) -> list[str]:
    """The dice of these events, as the narration must show them."""
    shown = []
    for e in events:
        if e.get("type") == "discover":
            shown.append(f"{e['square']} is discovered: rolled {', '.join(map(str, e['rolls']))}")
        elif e.get("type") == "battle" and e.get("defender_rolls"):
            shown.append(f"defender rolls {', '.join(map(str, e['defender_rolls']))}")
            shown.append(f"attacker rolls {e['attacker_roll']}")
    return shown


def check_conqueror_board(board: Message, ping: list[str]) -> None:
    """A board (see ``e2e_driver.check_board``) of the full Conqueror size."""
    assert check_board(board, ping) == BOARD_SIZE


def expect_filter(legal: list[str], typed: str) -> list[str]:
    """What autocomplete must offer: legal actions containing what was typed, at most 25."""
    needle = " ".join(typed.lower().split())
    return [a for a in legal if needle in a.lower()][:25]


def friendly_form(action: str) -> tuple[str, dict[str, Any]]:
    """The ``/conqueror`` command and options for a canonical action."""
    words = action.split()
    verb = words[0]
    if verb == "move":
        return "conqueror move", {"from": words[1], "to": words[2], "count": int(words[3])}
    if verb == "recruit":
        return "conqueror recruit", {"count": int(words[1])}
    if verb in ("fort", "raze"):
        return f"conqueror {verb}", {"square": words[1]}
    if verb == "convert":
        return "conqueror convert", {"what": words[1]}
    if verb == "end":
        return "conqueror end", {}
    raise ValueError(action)


# -- a game with its engine copy alongside --------------------------------------------------


class ConquerorMatch(Match):
    """One game at one table, with the engine run alongside from the store's seed."""

    game = GAME
    line_cut = None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.dice = 0              # narrated dice lines checked

    @classmethod
    async def open(cls, world: World, table: Any, names: list[str], *,  # type: ignore[override]
                   options: str | None = None) -> ConquerorMatch:
        match = await super().open(world, table, names, options=options)
        assert match.opening is not None and "The game begins" in match.opening.content
        return match

    def friendly_form(self, action: str) -> tuple[str, dict[str, Any]]:
        return friendly_form(action)

    def check_image(self, size: tuple[int, int]) -> None:
        assert size == BOARD_SIZE

    def check_answer(self, reply: Reply, player: str, action: str,
                     events: list[dict[str, Any]], lines: list[str]) -> None:
        super().check_answer(reply, player, action, events, lines)
        for line in dice_lines(events):               # the dice, as the engine rolled them
            assert line in (reply.content or "")
            self.dice += 1

    async def forged(self, name: str, template: dict[str, Any], value: Any, *,
                     engine_says: str) -> Reply:
        """``template`` (a command's data, as once sent) with its last option's value
        replaced: what a modified client could send past the Discord client's checks."""
        data = copy.deepcopy(template)
        leaf = data
        while leaf.get("options") and leaf["options"][-1].get("options") is not None:
            leaf = leaf["options"][-1]
        leaf["options"][-1]["value"] = value
        before = await self.record()
        dd = self.world.dd
        reply = dd.new_interaction(type=2, user=dd.resolve_user(name),
                                   channel=self.table.channel, data=data, name=data["name"])
        reply.summary = f"(forged) {str(value)[:20]}"
        await dd.send_interaction(reply)
        return await self.unchanged(reply, before, engine_says=engine_says)

    async def check_autocomplete(self, typed: str = "", *,
                                 people: tuple[str, ...] = PEOPLE) -> None:
        """Everyone at the table sees only their own legal actions (nobody else: [])."""
        for name in people:
            pid = self.uid(name)
            legal = (GAME.legal_actions(self.state, pid)
                     if pid in GAME.to_act(self.state) else [])
            offered = await self.table.autocomplete(name, "play", "action", typed=typed)
            assert len(offered) <= 25
            assert [c.value for c in offered] == expect_filter(legal, typed)
            assert [c.name for c in offered] == [c.value for c in offered]

    async def play_to_the_end(self, *, autocomplete: bool = False) -> int:
        """Computer-chosen moves until someone wins; alternates /play and /conqueror."""
        turn = None

        async def each_turn(player: str, action: str) -> None:
            nonlocal turn
            assert player == GAME.current_turn(self.state)
            if autocomplete and player != turn:
                await self.check_autocomplete()
                await self.check_autocomplete(action.split()[0],
                                              people=(self.world.name(player),))
            turn = player

        return await self.play_until_over(computer(GAME, choose_action), before=each_turn,
                                          friendly=lambda n: n % 2 == 1, limit=MAX_ACTIONS)

    async def check_finished(self) -> None:
        """The result is announced, the game is finished and no longer playable."""
        outcome = await self.check_over()
        [winner] = outcome.winners
        for name in ("alice", "bob", "erin"):
            refused = await self.refused(name, "play", {"action": "end"})
            assert "no game in this channel" in (refused.content or "")
        await self.refused(self.world.name(winner), "conqueror end")
        assert await self.table.autocomplete(self.world.name(winner), "play", "action") == []


# -- whole games ------------------------------------------------------------------------------


async def test_a_complete_two_player_game(world: World, seeded: Any) -> None:
    """Lobby, every move through interactions, autocomplete each turn, the win."""
    seeded(2)
    match = await ConquerorMatch.open(world, world.dd.table(), ["alice", "bob"])
    moves = await match.play_to_the_end(autocomplete=True)
    await match.check_finished()
    turns = sum(1 for e in await world.store.history.log(match.game_id, limit=10_000)
                if e.action == "end")
    assert moves >= 20 and match.boards == turns + 2   # start, every turn, the result
    assert match.dice > 0


async def test_a_complete_four_player_game(world: World, seeded: Any) -> None:
    seeded(4)
    table = world.dd.table()
    match = await ConquerorMatch.open(world, table, ["alice", "bob", "carol", "dave"])
    moves = await match.play_to_the_end()
    await match.check_finished()
    outcome = GAME.outcome(match.state)
    assert outcome is not None and len(outcome.standings) == 4
    result = table.last_message(lambda m: bool(m.attachments) and not is_recap(m))
    assert "Standings: " + " · ".join(
        f"{i}. <@{p}>" for i, p in enumerate(outcome.standings, 1)) in result.content
    eliminated = [line for m in table.messages for line in m.content.splitlines()
                  if "is out of the game" in line]
    assert len(eliminated) == 3
    assert moves >= 20 and match.dice > 0


# -- autocomplete -------------------------------------------------------------------------------


async def test_autocomplete_offers_only_the_callers_legal_actions(world: World,
                                                                  seeded: Any) -> None:
    seeded(2)
    table = world.dd.table()
    match = await ConquerorMatch.open(world, table, ["alice", "bob"])
    await match.check_autocomplete()
    # advance (through the store, quickly) to a position with more than 25 legal actions
    store = world.store
    for _ in range(MAX_ACTIONS):
        player = match.acting
        if len(GAME.legal_actions(match.state, player)) > 25:
            break
        action = choose_action(GAME, match.state, player)
        result = await store.apply_action(match.game_id, player, action)
        match.state, match.version = result.state, result.seq
    player = match.acting
    legal = GAME.legal_actions(match.state, player)
    assert len(legal) > 25
    name = world.name(player)
    offered = await table.autocomplete(name, "play", "action", typed="")
    assert [c.value for c in offered] == legal[:25]
    for typed in ("move", "  MOVE   ", "end", "e", "zzz", "💥", "x" * 150):
        await match.check_autocomplete(typed)
    # the friendly forms draw on the same legal actions
    sources = list(dict.fromkeys(a.split()[1] for a in legal if a.startswith("move ")))
    got = await table.autocomplete(name, "conqueror move", "from", typed="")
    assert [c.value for c in got] == sources[:25]
    src = sources[0]
    got = await table.autocomplete(name, "conqueror move", "to", typed="", **{"from": src})
    assert [c.value for c in got] == list(dict.fromkeys(
        a.split()[2] for a in legal if a.startswith(f"move {src} ")))
    other = next(n for n in PEOPLE if n != name)
    assert await table.autocomplete(other, "conqueror move", "from", typed="") == []


# -- who may act, and what they may type ----------------------------------------------------


async def test_out_of_turn_non_player_and_spectator_change_nothing(world: World,
                                                                   seeded: Any) -> None:
    seeded(3)
    table = world.dd.table()
    match = await ConquerorMatch.open(world, table, ["alice", "bob", "carol"])
    alice, bob, carol = (match.uid(n) for n in ("alice", "bob", "carol"))
    # carol resigns at once (allowed out of turn) and stays to watch: a seated spectator
    resigned = await table.slash("carol", "game resign")
    expected, events = GAME.apply(match.state, carol, "resign")
    await match.adopt(resigned, carol, "resign", expected, events)
    assert "carol" not in [world.name(p) for p in GAME.to_act(match.state)]
    await match.send("move a1 b2 1", friendly=True)

    waiting = engine_refusal(match.state, bob, "end")
    assert "not your turn" in waiting
    public = len(table.messages)
    early = await match.refused("bob", "play", {"action": "end"}, engine_says=waiting)
    # the engine names alice by id; the bot shows a mention (pinging nobody)
    assert f"<@{alice}>" in (early.content or "") and early.message.pings == []
    for name in ("bob", "dave", "carol"):     # out of turn, not seated, seated but out
        pid = match.uid(name)
        expect = engine_refusal(match.state, pid, "end")
        await match.refused(name, "play", {"action": "end"}, engine_says=expect)
        await match.refused(name, "conqueror end", engine_says=expect)
        await match.refused(name, "conqueror convert", {"what": "ap"})
        await match.refused(name, "conqueror recruit", {"count": 1})
        await match.refused(name, "conqueror move", {"from": "b2", "to": "c3", "count": 1})
        await match.refused(name, "play", {"action": "move a1 a2 1"},
                            engine_says=engine_refusal(match.state, pid, "move a1 a2 1"))
        assert await table.autocomplete(name, "play", "action") == []
        assert await table.autocomplete(name, "play", "action", typed="end") == []
        assert await table.autocomplete(name, "conqueror move", "from") == []
    for name in ("dave", "erin", "carol"):    # nobody outside the game can resign from it
        await match.refused(name, "game resign",
                            engine_says=engine_refusal(match.state, match.uid(name), "resign"))
        refused = await match.refused(name, "game abort")
        assert "Only the host" in (refused.content or "")
    assert len(table.messages) == public      # none of that reached the channel
    await match.send("end")
    assert match.acting == bob                   # carol, out, is skipped
    await match.check_autocomplete()


async def test_garbage_and_unicode_get_a_clear_ephemeral_error(world: World,
                                                               seeded: Any) -> None:
    seeded(2)
    table = world.dd.table()
    match = await ConquerorMatch.open(world, table, ["alice", "bob"])
    alice = match.uid("alice")
    junk = [
        "💥💥💥", "🙂", "move 🙂 b2 1",                         # emoji
        "\u202emove a1 b2 1", "مرحبا", "move a1 b2 ١",          # RTL override, Arabic
        "e\u200bnd", "end\u200b", "\u200b",                       # zero-width space
        "move a1 b2 １", "ｅｎｄ", "ｍｏｖｅ a1 b2 1",             # fullwidth
        "\x00", "move a1 b2 -1", "move a1 a1 1", "end end",
        "move a1 b2 99999999999999999999", "recruit 99999999999999999999",
        "x" * 200, "'; DROP TABLE games; --", "<@&1> @everyone",
    ]
    for text in junk:
        await match.refused("alice", "play", {"action": text},
                            engine_says=engine_refusal(match.state, alice, text))
    # the Discord client itself refuses what is out of the options' ranges
    for command, options in (("play", {"action": "x" * 5000}),
                             ("conqueror recruit", {"count": 7}),
                             ("conqueror recruit", {"count": 10**15}),
                             ("conqueror move", {"from": "a1", "to": "b2", "count": 10**15}),
                             ("conqueror move", {"from": "a1" * 20, "to": "b2", "count": 1})):
        with pytest.raises(ClientRefused):
            await table.invoke("alice", command, options)
    # a forged payload past the client still meets a clear refusal from the bot
    template = (await match.refused("alice", "play", {"action": "zzz"})).payload["data"]
    for text in ("x" * 5000, "move a1 b2 1" + " " * 4000 + "1", "💥" * 3000):
        await match.forged("alice", template, text, engine_says=engine_refusal(
            match.state, alice, text))
    recruit = (await match.refused("alice", "conqueror recruit", {"count": 6})).payload["data"]
    for count in (10**15, 2**63, 10**40, -5, 0):
        await match.forged("alice", recruit, count, engine_says=engine_refusal(
            match.state, alice, f"recruit {count}"))
    move = (await match.refused("alice", "conqueror move",
                                {"from": "a1", "to": "b2", "count": 6})).payload["data"]
    for count in (10**15, 2**63, 0):
        await match.forged("alice", move, count, engine_says=engine_refusal(
            match.state, alice, f"move a1 b2 {count}"))
    # and the game goes on: the real move still works
    await match.send("move a1 b2 1")
    assert world.dd.rejections == []


# -- restarts ---------------------------------------------------------------------------------


async def test_a_restart_mid_game_continues_it_and_old_buttons_work(world: World,
                                                                    seeded: Any) -> None:
    seeded(2)
    table = world.dd.table()
    match = await ConquerorMatch.open(world, table, ["alice", "bob"])
    for _ in range(12):
        await match.send(choose_action(GAME, match.state, match.acting))
    side = world.dd.table(channel="side-room")
    lobby = (await side.slash("carol", "game new", kind="conqueror")).message

    await world.restart()                    # a new bot process, the same database file
    assert world.running.bot.store is not None

    # the game goes on exactly where it was, its board and turn intact
    status = await table.slash("erin", "game status")
    assert f"round {GAME.view(match.state, None)['round']}" in (status.content or "")
    for i in range(12):
        await match.send(choose_action(GAME, match.state, match.acting), friendly=i % 2 == 0)
    await match.check_autocomplete()
    assert await world.store.history.verify(match.game_id)
    # the lobby's buttons, posted by the old bot, work for the new one
    joined = await side.click("dave", "Join", message=lobby)
    assert joined.response_type == 7 and not joined.errors
    assert f"<@{world.uid('dave')}>" in lobby.embeds[0]["fields"][0]["value"]
    seen = len(side.messages)
    await side.click("carol", "Start", message=lobby)
    [board] = new_messages(side, seen)
    check_conqueror_board(board, [world.uid("carol")])
    side_game = await world.store.active_in_channel(side.channel.id)
    assert side_game is not None and side_game.seats == (world.uid("carol"), world.uid("dave"))
    # a second restart, and the first game still finishes through interactions
    await world.restart()
    await match.play_to_the_end()
    await match.check_finished()


# -- interactions arriving together ---------------------------------------------------------


async def test_two_interactions_at_once_exactly_one_applies(world: World,
                                                            seeded: Any) -> None:
    seeded(2)
    table = world.dd.table()
    match = await ConquerorMatch.open(world, table, ["alice", "bob"])
    alice = match.uid("alice")

    async def race(name: str, a: tuple[str, dict[str, Any]],
                   b: tuple[str, dict[str, Any]], actions: tuple[str, str]) -> None:
        """Send both at once; exactly one applies, the other is judged on the new state."""
        before_state = match.state
        player = match.uid(name)
        replies = await asyncio.gather(table.invoke(name, *a), table.invoke(name, *b))
        # both were sent before the bot had answered either
        assert max(r.seq for r in replies) < min(m.seq for r in replies for m in r.messages)
        [entry] = await world.store.history.log(match.game_id, limit=1)
        assert entry.seq == match.version + 1
        if actions[0] == actions[1]:   # the same move twice: the one answered ✅ won
            won = 0 if (replies[0].content or "").startswith("✅") else 1
        else:
            won = actions.index(entry.action)
        winner, loser = replies[won], replies[1 - won]
        expected, events = GAME.apply(before_state, player, actions[won])
        await match.adopt(winner, player, actions[won], expected, events)
        assert loser.ephemeral and all(m.ephemeral for m in loser.messages)
        assert unmention(loser.content or "") == engine_refusal(
            match.state, player, actions[1 - won])

    # two different moves of the same single soldier: only one can go
    await race("alice", ("play", {"action": "move a1 b2 1"}),
               ("play", {"action": "move a1 b1 1"}), ("move a1 b2 1", "move a1 b1 1"))
    # two ends, one from /play and one from /conqueror: the second is now out of turn
    await race("alice", ("play", {"action": "end"}), ("conqueror end", {}), ("end", "end"))
    assert match.acting == match.uid("bob")
    # the very same move twice, as two interactions
    await race("bob", ("play", {"action": "move f6 e5 1"}),
               ("play", {"action": "move f6 e5 1"}), ("move f6 e5 1", "move f6 e5 1"))

    # a duplicate delivery of one interaction (same id, same token) applies once, and the
    # bot does not answer it again (Discord would refuse a second answer)
    first = await table.slash("bob", "play", action="end")
    expected, events = GAME.apply(match.state, match.uid("bob"), "end")
    await match.adopt(first, match.uid("bob"), "end", expected, events)
    answered = len(first.callbacks)
    again = await world.dd.send_interaction(first)
    assert again is first
    assert len(first.callbacks) == answered and not first.errors
    record = await match.record()
    assert record.version == match.version and record.state == GAME.dump(match.state)
    # ...and delivered twice at the same moment, before either was answered
    fresh = world.dd.new_interaction(type=2, user=world.dd.resolve_user("alice"),
                                     channel=table.channel,
                                     data=copy.deepcopy(first.payload["data"]), name="play")
    await asyncio.gather(world.dd.send_interaction(fresh), world.dd.send_interaction(fresh))
    await world.dd.wait_until(lambda: fresh.callbacks, what="the bot to answer the move")
    [entry] = await world.store.history.log(match.game_id, limit=1)
    assert (entry.seq, entry.player, entry.action) == (match.version + 1, alice, "end")
    match.state, _ = GAME.apply(match.state, alice, "end")
    match.version += 1
    record = await match.record()
    assert record.version == match.version and record.state == GAME.dump(match.state)
    assert len(fresh.callbacks) == 1 and not fresh.errors
    assert not world.dd.rejections  # nothing the bot sent was refused
    assert await world.store.history.verify(match.game_id)


# -- several tables -----------------------------------------------------------------------------


async def test_other_channels_and_threads_run_their_own_games(world: World) -> None:
    general = world.dd.table()
    thread = general.thread("rematch")
    war_room = world.dd.table(channel="war-room")
    matches = [
        await ConquerorMatch.open(world, general, ["alice", "bob"]),
        await ConquerorMatch.open(world, thread, ["carol", "dave"]),
        await ConquerorMatch.open(world, war_room, ["bob", "erin", "alice"]),
    ]
    assert len({m.game_id for m in matches}) == 3
    busy = await thread.slash("alice", "game new", kind="conqueror")
    assert busy.ephemeral and "already has a game" in (busy.content or "")
    listed = await general.slash("erin", "game list")
    assert all(f"#{m.game_id}" in (listed.content or "") for m in matches)
    for i in range(30):                       # interleaved: each table keeps its own game
        match = matches[i % 3]
        await match.send(choose_action(GAME, match.state, match.acting), friendly=i % 2 == 0)
    for match in matches:
        assert await world.store.history.verify(match.game_id)
        record = await match.record()
        assert record.state == GAME.dump(match.state)
    # a move in the wrong channel is judged against that channel's game
    outsider = matches[1].acting
    assert outsider not in matches[0].players
    refused = await matches[0].refused(world.name(outsider), "play", {"action": "end"})
    assert unmention(refused.content or "") == engine_refusal(matches[0].state, outsider, "end")
    aborted = await thread.slash("carol", "game abort")
    assert not aborted.ephemeral
    assert (await matches[1].record()).status == "aborted"
    assert (await matches[0].record()).status == "active"
    await matches[0].send(choose_action(GAME, matches[0].state, matches[0].acting))


# -- make demo --------------------------------------------------------------------------------


async def test_the_demo_plays_a_whole_game(tmp_path: Path) -> None:
    """``make demo`` (``python -m tests.demo``): its own double, the real bot, a winner."""
    from tests import demo

    shown: list[str] = []
    out = tmp_path / "demo-out"
    result = await demo.main(out, echo=shown.append)
    assert result.winner in ("alice", "bob") and result.actions > 10
    assert [p.name for p in result.boards] == [
        f"{i:03d}-board.png" for i in range(1, len(result.boards) + 1)]
    assert len(result.boards) > result.actions // 10
    for path in result.boards:
        with Image.open(path) as image:
            assert (image.format, image.size) == ("PNG", BOARD_SIZE)
    printed = "\n".join(shown)
    assert result.transcript in printed
    assert f"🏆 **Game over** — @{result.winner} wins!" in result.transcript
    assert f"Game over: @{result.winner} wins!" in result.transcript
    assert "> alice uses /game new kind:conqueror" in result.transcript
    assert "> bob clicks [Join]" in result.transcript
    assert "Warhost (only bob sees this): It is not your turn" in result.transcript
    assert f"->  {result.boards[-1]}" in result.transcript
    assert (out / "transcript.txt").read_text(encoding="utf-8").strip() == result.transcript
    assert f"{result.winner} won after {result.actions} actions" in printed
    # the story in order: the lobby as posted first, the result last
    lines = result.transcript.splitlines()
    assert lines[1] == "> alice uses /game new kind:conqueror"
    assert lines[2] == "Warhost:" and "Press **Join** to take a seat" in "\n".join(lines[2:6])
    assert "Game over" not in "\n".join(lines[:lines.index("> alice clicks [Start]")])
    assert lines.index("> bob clicks [Join]") < lines.index("> alice clicks [Start]")
    assert "Seats (2/4)" in next(x for x in lines if "(edits its message)" in x)
    ending = "\n".join(lines[-12:])
    assert "Standings: 1. @" in ending and "Game over" in "\n".join(lines[-30:])
    assert result.transcript.index("The game begins") < result.transcript.index(
        f"🏆 **Game over** — @{result.winner} wins!")
    # the boards in the order they were posted: the opening board first, the final last
    first, final = (Image.open(result.boards[i]) for i in (0, -1))
    with first, final:
        assert first.tobytes() != final.tobytes()
    assert f"{result.boards[0]}" in next(x for x in lines if "conqueror-1-0.png" in x)
    # the animated recap, saved
    assert result.recap == out / "recap.gif" and result.recap.read_bytes()[:6] == b"GIF89a"
    with Image.open(result.recap) as recap:
        assert recap.format == "GIF" and getattr(recap, "n_frames", 1) > 1
    assert f"->  {result.recap}" in result.transcript
