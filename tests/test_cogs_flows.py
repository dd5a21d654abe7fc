"""The cogs' callbacks against a real Store, with a minimal stand-in for the interaction.

These check what each path sends (public or ephemeral, who is pinged, when the board
is posted) without any network; the end-to-end test through the Discord double lives
in test_e2e_conqueror.py.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

import engine
import render
from cogs import game as g
from cogs import help as help_cog
from cogs import interactions, moves, outbox, wording
from cogs import lobby as lobby_ui
from cogs.outbox import Announcer
from cogs.verbs import GameCommands, complete
from db import Store

A, B, C = "111111111111111111", "222222222222222222", "333333333333333333"
BOT_ID = 444444444444444444
GUILD, CHANNEL = "900000000000000001", "900000000000000002"
_ids = itertools.count(500000000000000000)


@dataclass
class Sent:
    # "response", "followup", "edit", "message_edit", "original" (the deferred answer,
    # edited), "channel" (a channel message, e.g. a turn digest), "dm"
    via: str
    content: str | None
    kwargs: dict[str, Any]

    @property
    def ephemeral(self) -> bool:
        return bool(self.kwargs.get("ephemeral"))

    @property
    def pinged(self) -> list[int]:
        allowed = self.kwargs.get("allowed_mentions")
        if not isinstance(allowed, discord.AllowedMentions) or allowed.users in (False, True):
            return []
        return [u.id for u in allowed.users]  # type: ignore[union-attr]


@dataclass
class Outbox:
    sent: list[Sent] = field(default_factory=list)

    def public(self) -> list[Sent]:
        return [s for s in self.sent
                if not s.ephemeral and s.via in ("response", "followup", "channel")]

    def ephemeral(self) -> list[Sent]:
        return [s for s in self.sent if s.ephemeral]

    def files(self) -> list[discord.File]:
        return [s.kwargs["file"] for s in self.sent if "file" in s.kwargs]


class FakeResponse:
    def __init__(self, box: Outbox) -> None:
        self.box = box
        self.done = False
        self.deferred_ephemeral = False

    def is_done(self) -> bool:
        return self.done

    async def send_message(self, content: str | None = None, **kwargs: Any) -> None:
        assert not self.done, "answered twice"
        self.done = True
        self.box.sent.append(Sent("response", content, kwargs))

    async def edit_message(self, **kwargs: Any) -> None:
        assert not self.done, "answered twice"
        self.done = True
        self.box.sent.append(Sent("edit", None, kwargs))

    async def defer(self, **kwargs: Any) -> None:
        assert not self.done, "answered twice"
        self.done = True
        self.deferred_ephemeral = bool(kwargs.get("ephemeral"))


class FakeFollowup:
    def __init__(self, box: Outbox, response: FakeResponse) -> None:
        self.box = box
        self.response = response

    async def send(self, content: str | None = None, **kwargs: Any) -> None:
        assert self.response.done, "followup before the response"
        self.box.sent.append(Sent("followup", content, kwargs))


class FakePartialMessage:
    def __init__(self, box: Outbox, message_id: int) -> None:
        self.box = box
        self.id = message_id

    async def edit(self, **kwargs: Any) -> None:
        self.box.sent.append(Sent("message_edit", None, {"id": self.id, **kwargs}))

    async def pin(self, **kwargs: Any) -> None:
        self.box.sent.append(Sent("pin", None, {"id": self.id}))


class FakeChannel:
    """A channel (or DM) the announcer sends to; remembers what it was sent."""

    def __init__(self, box: Outbox, via: str) -> None:
        self.box = box
        self.via = via
        self.id = next(_ids)
        self.messages: list[Any] = []

    async def send(self, content: str | None = None, **kwargs: Any) -> Any:
        self.box.sent.append(Sent(self.via, content, kwargs))
        message = SimpleNamespace(id=next(_ids), content=content or "",
                                  author=SimpleNamespace(id=BOT_ID))
        self.messages.append(message)
        return message

    def get_partial_message(self, message_id: int) -> FakePartialMessage:
        return FakePartialMessage(self.box, message_id)

    async def history(self, **kwargs: Any) -> AsyncIterator[Any]:
        for message in self.messages:
            yield message


class FakeClient:
    def __init__(self, store: Store, box: Outbox) -> None:
        self.store = store
        self.box = box
        self.user = SimpleNamespace(id=BOT_ID)
        self.channel = FakeChannel(box, "channel")
        self.dms: dict[int, FakeChannel] = {}
        self.announcer = Announcer(self, store)  # type: ignore[arg-type]

    def get_user(self, user_id: int) -> Any:
        dm = self.dms.setdefault(user_id, FakeChannel(self.box, "dm"))
        return SimpleNamespace(id=user_id, dm_channel=dm, display_name=f"User{user_id}")

    def get_channel(self, channel_id: int) -> None:
        return None

    def get_guild(self, guild_id: int) -> Any:
        return FakeGuild() if guild_id == int(GUILD) else None

    def get_partial_messageable(self, channel_id: int, **kwargs: Any) -> FakeChannel:
        return self.channel


class FakeGuild:
    id = int(GUILD)
    name = "Test Server"

    def get_member(self, user_id: int) -> Any:
        return SimpleNamespace(display_name=f"Name{str(user_id)[:1]}")


def interaction(client: FakeClient, user: str, *, manage_channels: bool = False,
                namespace: dict[str, Any] | None = None) -> Any:
    response = FakeResponse(client.box)
    inter = SimpleNamespace(
        id=next(_ids), user=SimpleNamespace(id=int(user), display_name=f"U{user[:1]}"),
        guild_id=int(GUILD), channel_id=int(CHANNEL), guild=FakeGuild(), client=client,
        response=response, followup=FakeFollowup(client.box, response),
        permissions=discord.Permissions(manage_channels=manage_channels),
        # what a real interaction carries: the channel, and the bot's permissions in it
        channel=SimpleNamespace(id=int(CHANNEL), type=discord.ChannelType.text),
        app_permissions=discord.Permissions.all(),
        namespace=SimpleNamespace(**(namespace or {})), command=None,
        application_id=BOT_ID, token="interaction-token")

    async def original_response() -> Any:
        return SimpleNamespace(id=next(_ids))

    async def edit_original_response(content: str | None = None, **kwargs: Any) -> None:
        assert response.done, "edited before answering"
        client.box.sent.append(Sent("original", content,
                                    {**kwargs, "ephemeral": response.deferred_ephemeral}))

    inter.original_response = original_response
    inter.edit_original_response = edit_original_response
    return inter


def race_game() -> Any:
    """The db engineer's tiny test game (it has private events, unlike Conqueror)."""
    try:
        from tests.fakegame import GAME
    except ImportError:
        from fakegame import GAME  # type: ignore[no-redef]
    return GAME


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(str(tmp_path / "flows.db"))
    yield opened
    await opened.close()


@pytest.fixture
def box() -> Outbox:
    return Outbox()


@pytest.fixture
def client(store: Store, box: Outbox) -> FakeClient:
    return FakeClient(store, box)


@pytest.fixture(autouse=True)
def fake_render(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []

    def fake(kind: str, view: dict[str, Any], events: Any = None, names: Any = None) -> bytes:
        calls.append((kind, view, events, names))
        return b"\x89PNG fake"

    monkeypatch.setattr(render, "render", fake, raising=False)
    return calls


@pytest.fixture
def bot() -> commands.Bot:
    return commands.Bot(command_prefix="!", intents=discord.Intents.none())


async def started_game(store: Store, seats: tuple[str, ...] = (A, B), kind: str = "conqueror",
                       seed: int = 11) -> int:
    record = await store.lobby.open(kind, GUILD, CHANNEL, seats[0])
    for seat in seats[1:]:
        await store.lobby.join(record.id, seat)
    await store.lobby.start(record.id, seats[0], seed=seed)
    for opening in await store.outbox.pending(record.id):   # as if already told
        await store.outbox.mark_delivered(opening.id, None)
    return record.id


# -- submit ----------------------------------------------------------------------------------


async def test_illegal_action_is_ephemeral_and_changes_nothing(store: Store, client: FakeClient,
                                                               box: Outbox) -> None:
    game_id = await started_game(store)
    before = await store.get(game_id)
    result = await moves.submit(interaction(client, A), store, game_id, "move a1 f6 1")
    assert result is None
    assert box.public() == []
    [reply] = box.ephemeral()
    assert reply.content and "Traceback" not in reply.content
    assert (await store.get(game_id)).version == before.version


async def test_out_of_turn_and_outsiders_are_told_why(store: Store, client: FakeClient,
                                                      box: Outbox) -> None:
    game_id = await started_game(store)
    assert await moves.submit(interaction(client, B), store, game_id, "end") is None
    assert await moves.submit(interaction(client, C), store, game_id, "end") is None
    assert len(box.ephemeral()) == 2 and box.public() == []


@pytest.mark.parametrize("garbage", ["", "  ", "💣 " * 50, "move a1 b2 99999999999999999999",
                                     "x" * 5000, "\x00\ud800", "move a1 b2 -1"])
async def test_garbage_is_refused_politely(store: Store, client: FakeClient, box: Outbox,
                                           garbage: str) -> None:
    game_id = await started_game(store)
    assert await moves.submit(interaction(client, A), store, game_id, garbage) is None
    [reply] = box.ephemeral()
    assert reply.content and len(reply.content) <= 2000


async def test_move_within_a_turn_is_confirmed_privately(store: Store, client: FakeClient,
                                                         box: Outbox) -> None:
    game_id = await started_game(store)
    box.sent.clear()                                      # the opening digest
    result = await moves.submit(interaction(client, A), store, game_id, "move a1 b2 1")
    assert result is not None and not result.duplicate
    assert box.public() == []                             # nothing for the channel yet
    [said] = box.ephemeral()
    assert said.via == "original"                          # the deferred answer, edited
    assert said.content is not None and f"<@{A}> moves 1 from a1 to b2" in said.content
    assert "rolled" in said.content                         # the die is shown
    assert said.kwargs["allowed_mentions"] == wording.NO_MENTIONS
    assert box.files() == []


async def test_end_of_turn_posts_one_digest_and_pings_only_the_next_player(
        store: Store, client: FakeClient, box: Outbox,
        fake_render: list[tuple[Any, ...]]) -> None:
    game_id = await started_game(store)
    box.sent.clear()
    await moves.submit(interaction(client, A), store, game_id, "move a1 b2 1")
    await moves.submit(interaction(client, A), store, game_id, "end")
    [digest] = box.public()                              # one message for the whole turn
    assert digest.via == "channel"
    text = digest.content or ""
    assert text.index("moves 1 from a1 to b2") < text.index("ends their turn")
    assert "file" in digest.kwargs and digest.kwargs["file"].filename.endswith(".png")
    assert digest.pinged == [int(B)] and f"<@{B}>" in text
    assert text.endswith("-# Conqueror #1 · moves 1–2")
    kind, view, events, names = fake_render[-1]
    assert kind == "conqueror" and view["viewer"] is None       # the public view
    assert names == {A: "Name1", B: "Name2"}     # display names (members), not mentions
    assert [e["type"] for e in events if e["type"] in ("move", "end_turn")] == [
        "move", "end_turn"]                      # every action of the turn, in order
    assert all("private_to" not in e for e in events)
    mover = [s for s in box.ephemeral() if s.via == "original"]
    assert len(mover) == 2 and "summary of this turn" in (mover[-1].content or "")


async def test_resign_ends_the_game_with_the_result(store: Store, client: FakeClient,
                                                    box: Outbox) -> None:
    game_id = await started_game(store)
    await moves.submit(interaction(client, B), store, game_id, "resign")  # out of turn is fine
    assert (await store.get(game_id)).status == "finished"
    *_, board, recap = box.public()
    assert board.via == "channel" and board.pinged == [int(A)]     # the winner
    assert "Game over" in (board.content or "") and f"<@{A}>" in (board.content or "")
    assert "file" in board.kwargs
    # then the whole game as an animation, with the standings, pinging nobody
    assert (recap.content or "").endswith("-# Conqueror #1 · recap") and recap.pinged == []
    assert f"1. <@{A}>" in (recap.content or "")
    assert recap.kwargs["file"].filename == "conqueror-1-recap.gif"


async def test_duplicate_request_is_not_applied_twice(store: Store, client: FakeClient,
                                                      box: Outbox) -> None:
    game_id = await started_game(store)
    inter = interaction(client, A)
    await moves.submit(inter, store, game_id, "move a1 b2 1")
    inter.response.done = True
    again = await moves.submit(inter, store, game_id, "move a1 b2 1")
    assert again is not None and again.duplicate
    assert (await store.get(game_id)).version == 1


async def test_a_failing_renderer_does_not_claim_the_game_is_unchanged(
        store: Store, client: FakeClient, box: Outbox, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: Any) -> bytes:
        raise OSError("font missing")

    monkeypatch.setattr(render, "render", broken, raising=False)
    game_id = await started_game(store)
    box.sent.clear()
    with caplog.at_level(logging.ERROR):
        assert await moves.submit(interaction(client, A), store, game_id, "end") is not None
    [note] = box.ephemeral()
    assert (note.content or "").startswith("✅") and "unchanged" not in (note.content or "")
    [digest] = box.public()                         # the turn is still told, without a board
    assert "file" not in digest.kwargs and digest.pinged == [int(B)]
    assert "font missing" in caplog.text
    assert await store.outbox.pending(game_id) == []


async def test_private_events_go_only_to_their_player(store: Store, client: FakeClient,
                                                      box: Outbox,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", race_game())
    game_id = await started_game(store, kind="race")
    await moves.submit(interaction(client, A), store, game_id, "roll")
    for sent in box.public():
        assert "luck" not in (sent.content or "")
    [private] = box.ephemeral()
    assert "Only you" in (private.content or "") and "luck" in (private.content or "")


async def test_private_events_of_another_player_go_by_dm_naming_the_game(
        store: Store, client: FakeClient, box: Outbox,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", race_game())
    game_id = await started_game(store, kind="race")
    result = await store.apply_action(game_id, A, "roll")     # no interaction: e.g. a timer
    await outbox.deliver(client, game_id)  # type: ignore[arg-type]
    [dm] = [s for s in box.sent if s.via == "dm"]
    text = dm.content or ""
    assert "luck" in text and f"#{game_id}" in text and f"<#{CHANNEL}>" in text
    assert "Test Server" in text
    assert f"https://discord.com/channels/{GUILD}/{CHANNEL}" in text
    assert client.dms.keys() == {int(A)} and result.seq == 1


# -- lobby -------------------------------------------------------------------------------------


async def test_lobby_from_new_to_start(store: Store, client: FakeClient, box: Outbox,
                                       bot: commands.Bot) -> None:
    cog = g.GameCog(bot)
    await cog.new.callback(cog, interaction(client, A), "conqueror")  # type: ignore[arg-type]
    [lobby] = box.public()
    assert lobby.via == "response"
    view = lobby.kwargs["view"]
    ids = [item.custom_id for item in view.children]
    record = await store.active_in_channel(CHANNEL)
    assert record is not None and record.seats == (A,) and record.lobby_message_id
    assert ids == [lobby_ui.lobby_custom_id(a, record.id) for a in ("join", "leave", "start",
                                                                 "addbot")]

    box.sent.clear()
    await lobby_ui.LobbyButton("join", record.id).callback(interaction(client, B))
    [edit] = box.sent
    assert edit.via == "edit"
    seats = {f.name: f.value for f in edit.kwargs["embed"].fields}["Seats (2/4)"]
    assert f"<@{B}>" in seats

    box.sent.clear()
    await lobby_ui.LobbyButton("start", record.id).callback(interaction(client, B))
    [refused] = box.sent
    assert refused.ephemeral and "host" in (refused.content or "")

    box.sent.clear()
    await lobby_ui.LobbyButton("join", record.id).callback(interaction(client, B))
    assert box.sent[0].ephemeral and "already" in (box.sent[0].content or "")

    box.sent.clear()
    await lobby_ui.LobbyButton("start", record.id).callback(interaction(client, A))
    edit, board, status, pin = box.sent
    assert edit.via == "edit" and edit.kwargs["view"] is None
    assert board.via == "channel" and "file" in board.kwargs and board.pinged == [int(A)]
    assert "The game begins" in (board.content or "")
    # the lobby message becomes the game's status message, with the board, and is pinned
    assert status.via == "message_edit" and status.kwargs["id"] == int(record.lobby_message_id)
    assert status.kwargs["view"] is None and len(status.kwargs["attachments"]) == 1
    assert f"<@{A}>" in (status.kwargs["embed"].description or "")
    assert (pin.via, pin.kwargs["id"]) == ("pin", int(record.lobby_message_id))
    assert (await store.get(record.id)).status == "active"


async def test_slash_join_and_leave_edit_the_lobby_message(store: Store, client: FakeClient,
                                                           box: Outbox,
                                                           bot: commands.Bot) -> None:
    cog = g.GameCog(bot)
    record = await store.lobby.open("conqueror", GUILD, CHANNEL, A)
    await store.lobby.set_message(record.id, "777")
    await cog.join.callback(cog, interaction(client, C))  # type: ignore[arg-type]
    kinds = [s.via for s in box.sent]
    assert kinds == ["response", "message_edit"]               # answer first, then tidy up
    assert box.sent[0].ephemeral and box.sent[1].kwargs["id"] == 777
    box.sent.clear()
    await cog.leave.callback(cog, interaction(client, C))  # type: ignore[arg-type]
    assert (await store.get(record.id)).seats == (A,)


async def test_second_game_in_a_channel_is_refused(store: Store, client: FakeClient,
                                                   box: Outbox, bot: commands.Bot) -> None:
    cog = g.GameCog(bot)
    await cog.new.callback(cog, interaction(client, A), "conqueror")  # type: ignore[arg-type]
    box.sent.clear()
    inter = interaction(client, B)
    with pytest.raises(Exception) as busy:
        await cog.new.callback(cog, inter, "conqueror")  # type: ignore[arg-type]
    # the tree's error handler turns it into an ephemeral message
    await interactions.report_app_command_error(inter, app_commands.CommandInvokeError(
        cog.new, busy.value))  # type: ignore[arg-type]
    [reply] = box.sent
    assert reply.ephemeral and "already has a game" in (reply.content or "")


async def test_commands_without_a_game_say_so(store: Store, client: FakeClient, box: Outbox,
                                              bot: commands.Bot) -> None:
    cog = g.GameCog(bot)
    for command in (cog.join, cog.leave, cog.start, cog.status, cog.board, cog.log_,
                    cog.resign, cog.abort):
        await command.callback(cog, interaction(client, A))  # type: ignore[arg-type]
    assert len(box.sent) == 8
    assert all(s.ephemeral and s.content == interactions.NO_GAME for s in box.sent)


async def test_abort_needs_the_host_or_manage_channels(store: Store, client: FakeClient,
                                                       box: Outbox, bot: commands.Bot) -> None:
    cog = g.GameCog(bot)
    game_id = await started_game(store)
    await cog.abort.callback(cog, interaction(client, B))  # type: ignore[arg-type]
    assert box.sent[-1].ephemeral and (await store.get(game_id)).status == "active"
    await cog.abort.callback(cog, interaction(client, C, manage_channels=True))  # type: ignore
    assert (await store.get(game_id)).status == "aborted"
    assert "aborted" in (box.public()[-1].content or "")


async def test_status_log_and_board(store: Store, client: FakeClient, box: Outbox,
                                    bot: commands.Bot) -> None:
    cog = g.GameCog(bot)
    game_id = await started_game(store)
    await moves.submit(interaction(client, A), store, game_id, "move a1 b2 1")
    box.sent.clear()
    await cog.status.callback(cog, interaction(client, A))  # type: ignore[arg-type]
    await cog.log_.callback(cog, interaction(client, B))  # type: ignore[arg-type]
    status, log = box.sent
    assert status.ephemeral and "round 1" in (status.content or "")
    assert "You may:" in (status.content or "") and "`end`" in (status.content or "")
    assert log.ephemeral and f"`#1` <@{A}> moves 1 from a1 to b2" in (log.content or "")
    box.sent.clear()
    await cog.board.callback(cog, interaction(client, C))  # type: ignore[arg-type]
    [board] = box.sent
    assert board.ephemeral and "file" in board.kwargs and board.pinged == []   # looking is free
    box.sent.clear()
    await cog.board.callback(cog, interaction(client, C), True)  # type: ignore[arg-type]
    [shared] = box.sent
    assert not shared.ephemeral and "file" in shared.kwargs and shared.pinged == []
    box.sent.clear()
    await cog.status.callback(cog, interaction(client, A), True)  # type: ignore[arg-type]
    [status] = box.sent
    assert not status.ephemeral and "You may:" not in (status.content or "")


async def test_list_and_rules_and_help(store: Store, client: FakeClient, box: Outbox,
                                       bot: commands.Bot) -> None:
    cog = g.GameCog(bot)
    await cog.list_.callback(cog, interaction(client, A))  # type: ignore[arg-type]
    await started_game(store)
    await cog.list_.callback(cog, interaction(client, A))  # type: ignore[arg-type]
    await cog.rules.callback(cog, interaction(client, A), "conqueror")  # type: ignore
    await bot.add_cog(cog)
    helper = help_cog.HelpCog(bot)
    await bot.add_cog(helper)
    await helper.help_.callback(helper, interaction(client, A))  # type: ignore[arg-type]
    empty, listed, rules, help_ = box.sent
    assert all(s.ephemeral for s in (empty, listed, rules, help_))
    assert "No games" in (empty.content or "")
    assert f"<#{CHANNEL}>" in (listed.content or "") and "Conqueror" in (listed.content or "")
    embed = rules.kwargs["embed"]
    assert embed.title == "Conqueror — quick rules" and len(embed.fields) >= 4
    assert "docs/" not in str(embed.to_dict()) and ".md" not in str(embed.to_dict())
    assert "/play" in (help_.content or "") and "/game new" in (help_.content or "")
    assert "`/game rules` — " in str(help_.kwargs["embed"].to_dict())


# -- autocomplete -------------------------------------------------------------------------------


async def test_play_autocomplete_lists_only_the_callers_actions(store: Store, client: FakeClient,
                                                                bot: commands.Bot) -> None:
    cog = g.GameCog(bot)
    complete = cog.play_autocomplete
    assert await complete(interaction(client, A), "") == []        # no game yet
    await started_game(store)
    mine = await complete(interaction(client, A), "")
    assert [c.value for c in mine] == ["move a1 b1 1", "move a1 a2 1", "move a1 b2 1",
                                       "convert ap", "end"]
    assert [c.value for c in await complete(interaction(client, A), "B2")] == ["move a1 b2 1"]
    assert await complete(interaction(client, B), "") == []        # not B's turn
    assert await complete(interaction(client, C), "") == []        # not playing
    assert await complete(interaction(client, A), "\x00" * 300) == []


async def test_autocomplete_never_raises(store: Store, client: FakeClient, bot: commands.Bot,
                                         caplog: pytest.LogCaptureFixture) -> None:
    cog = g.GameCog(bot)
    await started_game(store)
    await store.close()                                            # every query now fails
    with caplog.at_level(logging.ERROR):
        assert await cog.play_autocomplete(interaction(client, A), "") == []


async def test_conqueror_square_autocomplete(store: Store, client: FakeClient,
                                             bot: commands.Bot) -> None:
    group = GameCommands(bot).groups["conqueror"]
    await started_game(store)
    sources = await complete(group, "move", "from")(interaction(client, A), "")
    assert [c.value for c in sources] == ["a1"]
    targets = await complete(group, "move", "to")(
        interaction(client, A, namespace={"from": "a1"}), "")
    assert sorted(c.value for c in targets) == ["a2", "b1", "b2"]
    assert await complete(group, "move", "to")(
        interaction(client, A, namespace={"from": "f6"}), "") == []
    counts = await complete(group, "move", "count")(
        interaction(client, A, namespace={"from": "a1", "to": "b2"}), "")
    assert counts and all(isinstance(c.value, int) for c in counts)
    assert await complete(group, "fort", "square")(interaction(client, A), "") == []
    assert await complete(group, "move", "from")(interaction(client, B), "") == []


async def test_conqueror_commands_go_through_submit(store: Store, client: FakeClient,
                                                    box: Outbox, bot: commands.Bot) -> None:
    group = GameCommands(bot).groups["conqueror"]
    game_id = await started_game(store)

    async def run(name: str, **values: Any) -> None:
        command = group.get_command(name)
        assert isinstance(command, app_commands.Command)
        await command.callback(interaction(client, A), **values)  # type: ignore[call-arg]

    await run("move", from_="A1", to="b2", count=1)
    await run("recruit", count=6)
    await run("convert", what="ap")
    await run("end")
    entries = await store.history.log(game_id)
    assert [e.action for e in entries] == ["move a1 b2 1", "convert ap", "end"]
    assert box.ephemeral()[0].content                      # recruiting 6 with no gold: refused


async def test_conqueror_commands_refuse_other_games(store: Store, client: FakeClient,
                                                     box: Outbox, bot: commands.Bot,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", race_game())
    end = GameCommands(bot).groups["conqueror"].get_command("end")
    assert isinstance(end, app_commands.Command)
    await started_game(store, kind="race")
    await end.callback(interaction(client, A))  # type: ignore[call-arg]
    [reply] = box.sent
    assert reply.ephemeral and "/play" in (reply.content or "")


# -- the error handler -------------------------------------------------------------------------


async def test_unexpected_errors_are_logged_not_shown(client: FakeClient, box: Outbox,
                                                      bot: commands.Bot,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    cog = g.GameCog(bot)
    inter = interaction(client, A)
    error = app_commands.CommandInvokeError(cog.play, RuntimeError("db path /secret"))
    with caplog.at_level(logging.ERROR):
        await interactions.report_app_command_error(inter, error)
    [reply] = box.sent
    assert reply.ephemeral and reply.content == "Something went wrong; the game is unchanged."
    assert "db path /secret" in caplog.text


async def test_expected_errors_show_their_message(client: FakeClient, box: Outbox,
                                                  bot: commands.Bot) -> None:
    cog = g.GameCog(bot)
    inter = interaction(client, A)
    inter.response.done = True                                 # already answered: follow up
    error = app_commands.CommandInvokeError(cog.play, engine.IllegalAction("No gold."))
    await interactions.report_app_command_error(inter, error)
    [reply] = box.sent
    assert reply.via == "followup" and reply.ephemeral and reply.content == "No gold."


# -- delivery after a crash ----------------------------------------------------------------


async def test_a_restarted_bot_sends_what_was_left_and_never_twice(
        store: Store, client: FakeClient, box: Outbox) -> None:
    game_id = await started_game(store)
    await store.apply_action(game_id, A, "move a1 b2 1")
    await store.apply_action(game_id, A, "end")            # saved; the bot died before telling
    [digest, _status] = await store.outbox.pending(game_id)
    # ...or it had posted the digest and died before noting it: the marker is in the channel
    marker = "-# Conqueror #1 · moves 1–2"
    already = SimpleNamespace(id=123, content=f"earlier text\n{marker}",
                              author=SimpleNamespace(id=BOT_ID))
    client.channel.messages.append(already)
    restarted = Announcer(client, store)  # type: ignore[arg-type]
    await restarted.deliver_all(recovering=True)
    assert box.sent == []                                  # found, not sent again
    assert (await store.outbox.get(digest.id)).message_id == "123"
    # a digest that never went out is sent by the next process
    client.channel.messages.clear()
    await store.apply_action(game_id, B, "end")
    await Announcer(client, store).deliver_all(recovering=True)  # type: ignore[arg-type]
    [sent] = box.public()
    assert sent.content is not None and sent.content.endswith("-# Conqueror #1 · move 3")
    assert sent.pinged == [int(A)] and await store.outbox.pending() == []


async def test_a_failed_send_is_retried_and_looked_for_first(
        store: Store, client: FakeClient, box: Outbox) -> None:
    game_id = await started_game(store)
    calls = []
    real_send = client.channel.send

    async def flaky(content: str | None = None, **kwargs: Any) -> Any:
        calls.append(content)
        message = await real_send(content, **kwargs)     # it reached Discord...
        if len(calls) == 1:
            raise discord.HTTPException(SimpleNamespace(status=500, reason="boom"),
                                        "server error")  # ...but the answer was lost
        return message

    client.channel.send = flaky  # type: ignore[method-assign]
    await store.apply_action(game_id, A, "end")
    await client.announcer.deliver(game_id)
    assert len(calls) == 1 and len(await store.outbox.pending(game_id)) == 2
    await client.announcer.deliver_all()                   # the retry finds it, sends nothing
    assert len(calls) == 1 and await store.outbox.pending(game_id) == []
    assert len(box.public()) == 1


async def test_a_moves_own_read_of_its_news_is_used_only_if_no_delivery_came_between(
        store: Store, client: FakeClient, box: Outbox) -> None:
    """The move reads what delivering it needs in its own transaction; a delivery pass
    of the game after that read (the retry loop, another move) may have sent those
    already, so then they are read again, and nothing goes out twice."""
    game_id = await started_game(store)
    announcer = client.announcer
    await announcer.deliver(game_id)                         # the opening
    box.sent.clear()
    before = announcer.passes(game_id)
    move = await store.apply_action(game_id, A, "end", prefetch=store.outbox.delivery)
    assert move.delivery is not None and len(move.delivery.pending) == 2
    await announcer.deliver_all()                            # a pass comes between
    assert announcer.passes(game_id) == before + 1
    assert len(box.public()) == 1
    await announcer.deliver(game_id, read=move.delivery, read_after=before)
    assert len(box.public()) == 1                            # the stale read was not used
    # a fresh read is used as it is: no statement reads the announcements again
    move = await store.apply_action(game_id, B, "end", prefetch=store.outbox.delivery)
    reads = []
    real_read = store.outbox.read_delivery

    async def counted(game: int) -> Any:
        reads.append(game)
        return await real_read(game)

    store.outbox.read_delivery = counted  # type: ignore[method-assign]
    await announcer.deliver(game_id, read=move.delivery,
                            read_after=announcer.passes(game_id))
    assert reads == [] and len(box.public()) == 2
    assert await store.outbox.pending(game_id) == []


async def test_a_move_that_reads_its_news_while_a_delivery_is_under_way_reads_again(
        store: Store, client: FakeClient, box: Outbox) -> None:
    """A pass of the game is sending when a move reads its news: the move's read holds
    what that pass is sending, so it must not be used once the pass is over."""
    game_id = await started_game(store)
    await store.apply_action(game_id, A, "end")              # news for a pass to send
    sending, release = asyncio.Event(), asyncio.Event()
    real_send = client.channel.send

    async def held(content: str | None = None, **kwargs: Any) -> Any:
        sending.set()
        await release.wait()
        return await real_send(content, **kwargs)

    client.channel.send = held  # type: ignore[method-assign]
    under_way = asyncio.create_task(client.announcer.deliver(game_id))
    await sending.wait()                                     # the pass is mid-send
    before = client.announcer.passes(game_id)
    move = await store.apply_action(game_id, B, "end", prefetch=store.outbox.delivery)
    assert move.delivery is not None and len(move.delivery.pending) == 4   # both turns
    release.set()
    await under_way
    client.channel.send = real_send  # type: ignore[method-assign]
    await client.announcer.deliver(game_id, read=move.delivery, read_after=before)
    digests = [m.content for m in box.public()]
    assert len(digests) == 2 and digests[0] != digests[1]    # each turn's digest once
    assert await store.outbox.pending(game_id) == []


async def test_a_sweep_delivers_page_after_page_and_several_games_at_once(
        store: Store, client: FakeClient, box: Outbox,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After a restart with many games' news waiting, the sweep goes on to the next page
    at once (not 20 s later) and delivers a few games side by side, each in order."""
    import cogs.outbox

    monkeypatch.setattr(cogs.outbox, "SWEEP_PAGE", 3)
    games = []
    for n in range(5):
        record = await store.lobby.open("conqueror", GUILD, str(9000 + n), A)
        await store.lobby.join(record.id, B)
        await store.lobby.start(record.id, A, seed=n)
        games.append(record.id)
    assert len(await store.outbox.pending()) == 10            # an opening and a status each
    at_once, most = 0, 0
    real_send = client.channel.send

    async def slow(content: str | None = None, **kwargs: Any) -> Any:
        nonlocal at_once, most
        at_once += 1
        most = max(most, at_once)
        await asyncio.sleep(0.05)
        at_once -= 1
        return await real_send(content, **kwargs)

    client.channel.send = slow  # type: ignore[method-assign]
    await client.announcer.deliver_all(recovering=True)
    assert await store.outbox.pending() == []
    posted = [m.content for m in box.public()]
    assert sorted(int(text.rsplit("#", 1)[1].split()[0]) for text in posted) == games
    assert most > 1                                          # games side by side


async def test_the_sweep_reads_undelivered_news_by_its_own_index(store: Store) -> None:
    async with store.reading() as conn:
        if conn.dialect != "sqlite":
            pytest.skip("SQLite's plan")
        plan = await conn.execute_fetchall(
            "EXPLAIN QUERY PLAN SELECT id FROM announcements WHERE delivered_at IS NULL "
            "ORDER BY id LIMIT 500")
    assert "USING INDEX announcements_undelivered" in str(plan)     # not the whole table


def test_a_turn_too_long_for_one_message_keeps_its_start_and_end() -> None:
    from cogs.wording import DIGEST_LIMIT, fit_digest

    body = [f"line {i} " + "x" * 80 for i in range(60)]
    text = fit_digest("HEAD", body, "FOOTER", "-# marker")
    assert len(text) <= DIGEST_LIMIT
    lines = text.splitlines()
    assert lines[0] == "HEAD" and lines[-2:] == ["FOOTER", "-# marker"]
    assert lines[1].startswith("line 0 ") and lines[-3].startswith("line 59 ")
    kept = [line for line in lines if line.startswith("line ")]
    assert f"… {60 - len(kept)} more lines: `/game log` has them all." in lines
    short = fit_digest("HEAD", body[:3], "FOOTER", "-# marker")
    assert short == "\n".join(["HEAD", *body[:3], "FOOTER", "-# marker"])
