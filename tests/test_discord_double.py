"""The loopback Discord double, proven with a throwaway bot on the real discord.py client.

Every test starts the double on 127.0.0.1 (network access to anything else is blocked),
starts a genuine ``discord.ext.commands.Bot`` against it and asserts on the payloads the
double recorded from discord.py.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import re
import time
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands
from discord_double import (
    BotError,
    ClientRefused,
    DiscordDouble,
    DoubleTimeout,
    NetworkBlocked,
    Reply,
)
from PIL import Image

pytest_plugins = ["discord_double.fixtures"]

ACTIONS = [f"move {col}{row}" for col in "abcdefgh" for row in range(1, 6)] + ["muster", "pass"]
BOARD_SIZE = (64, 48)
_game_ids = itertools.count(100)


def board_png() -> bytes:
    img = Image.new("RGB", BOARD_SIZE, (30, 90, 40))
    for x in range(0, BOARD_SIZE[0], 8):
        for y in range(0, BOARD_SIZE[1], 8):
            if (x + y) // 8 % 2:
                img.putpixel((x, y), (250, 250, 250))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


class JoinButton(discord.ui.DynamicItem[discord.ui.Button], template=r"tbl:join:(?P<game>[0-9]+)"):
    """A persistent button: works for any bot instance that registered the template."""

    def __init__(self, game: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Join", style=discord.ButtonStyle.primary, custom_id=f"tbl:join:{game}"
            )
        )
        self.game = game

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> JoinButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        instance = interaction.client.instance  # type: ignore[attr-defined]
        await interaction.response.send_message(
            f"{interaction.user.mention} joined game {self.game} (bot instance {instance})",
            allowed_mentions=discord.AllowedMentions.none(),
        )


class RenameModal(discord.ui.Modal, title="Rename your army"):
    name: discord.ui.TextInput[RenameModal] = discord.ui.TextInput(
        label="New name", custom_id="rename:name", max_length=32
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"Your army is now {self.name.value}")


class ColourView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="colour",
        placeholder="Colour",
        options=[discord.SelectOption(label=c.title(), value=c) for c in ("red", "green", "blue")],
    )
    async def colour(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        await interaction.response.edit_message(content=f"Picked {select.values[0]}", view=None)


def make_bot(guild_id: int, instance: int = 1) -> commands.Bot:
    """The throwaway bot: one of each thing the real bot will do."""
    bot = commands.Bot(
        command_prefix="!",
        intents=discord.Intents.default(),
        guild_ready_timeout=0.05,
        help_command=None,
    )
    bot.instance = instance  # type: ignore[attr-defined]
    guild = discord.Object(guild_id)

    game = app_commands.Group(name="game", description="Game lobby")

    @game.command(name="new", description="Open a lobby")
    @app_commands.describe(kind="Which game", seats="How many players")
    @app_commands.choices(
        kind=[
            app_commands.Choice(name="Conqueror", value="conqueror"),
            app_commands.Choice(name="Skirmish", value="skirmish"),
        ]
    )
    async def game_new(
        interaction: discord.Interaction,
        kind: app_commands.Choice[str],
        seats: app_commands.Range[int, 2, 4] = 2,
    ) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(JoinButton(next(_game_ids)))
        await interaction.response.send_message(
            f"{kind.name} lobby, {seats} seats, opened by {interaction.user.mention}", view=view
        )

    bot.tree.add_command(game)

    @bot.tree.command(description="Play an action")
    async def play(interaction: discord.Interaction, action: str) -> None:
        await interaction.response.send_message(f"You play {action}", ephemeral=True)

    @play.autocomplete("action")
    async def play_actions(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.user.name == "mallory":  # not seated: nothing to offer, no error
            return []
        matches = [a for a in ACTIONS if a.startswith(current)]
        return [app_commands.Choice(name=a, value=a) for a in matches][:25]

    @bot.tree.command(description="Autocomplete that forgets Discord's limit of 25")
    async def greedy(interaction: discord.Interaction, action: str) -> None:
        await interaction.response.send_message(action)

    @greedy.autocomplete("action")
    async def greedy_actions(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=a, value=a) for a in ACTIONS]

    @bot.tree.command(description="Show the board")
    async def board(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"Turn 1 - {interaction.user.mention} to move",
            file=discord.File(io.BytesIO(board_png()), filename="board.png"),
        )

    @bot.tree.command(description="Think, then answer")
    async def slow(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.05)
        await interaction.followup.send("done thinking")
        await interaction.followup.send("a private note", ephemeral=True)

    @bot.tree.command(description="Tell a player it is their turn")
    async def announce(
        interaction: discord.Interaction, who: discord.Member, loud: bool = True
    ) -> None:
        assert interaction.channel is not None
        mentions = discord.AllowedMentions(users=loud, roles=False, everyone=False)
        await interaction.channel.send(f"{who.mention}, it is your turn", allowed_mentions=mentions)  # type: ignore[union-attr]
        await interaction.response.send_message(f"told {who.display_name}", ephemeral=True)

    @bot.tree.command(description="Guild-only secret", guild=guild)
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("only you can see this", ephemeral=True)

    @bot.tree.command(description="Answers twice (a bug)", guild=guild)
    async def twice(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("first")
        try:
            await interaction.followup.send("second, as a follow-up")
            await interaction.response.send_message("third")  # raises: already responded
        except discord.InteractionResponded:
            await interaction.followup.send("refused by discord.py itself", ephemeral=True)

    @bot.tree.command(description="Rename your army (a form)")
    async def rename(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(RenameModal())

    @bot.tree.command(description="Pick a colour")
    async def pick(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Pick a colour", view=ColourView())

    @bot.tree.command(description="Write, read back and edit the response")
    async def draft(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("draft")
        fetched = await interaction.original_response()
        await interaction.edit_original_response(content=f"final (was {fetched.content!r})")

    @bot.tree.command(description="Remind a player by DM")
    async def remind(interaction: discord.Interaction, who: discord.Member) -> None:
        await who.send("psst, it is your turn")
        await interaction.response.send_message(f"reminded {who.name}", ephemeral=True)

    @bot.listen()
    async def on_message(message: discord.Message) -> None:
        if message.author != bot.user:
            bot.seen.append((message.author.name, message.content))  # type: ignore[attr-defined]

    bot.seen = []  # type: ignore[attr-defined]

    async def setup_hook() -> None:
        bot.add_dynamic_items(JoinButton)
        await bot.tree.sync()
        await bot.tree.sync(guild=guild)

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    return bot


@pytest.fixture
async def game_table(discord_double: DiscordDouble, start_bot: Any) -> Any:
    dd = discord_double
    for name in ("alice", "bob", "carol", "mallory"):
        dd.add_user(name)
    running = await start_bot(make_bot(int(dd.guild.id)))
    table = dd.table(channel="games")
    table.running = running
    return table


# ---------------------------------------------------------------------------------------------


async def test_login_sync_and_rest_shapes(discord_double: DiscordDouble, start_bot: Any) -> None:
    dd = discord_double
    bot = make_bot(int(dd.guild.id))
    await start_bot(bot)

    # login: GET /users/@me then GET /oauth2/applications/@me, then the gateway
    paths = [(r.method, r.route) for r in dd.requests]
    assert paths[0] == ("GET", "/api/v{version}/users/@me")
    assert paths[1] == ("GET", "/api/v{version}/oauth2/applications/@me")
    assert bot.user is not None and str(bot.user.id) == dd.application_id
    assert bot.application_id == int(dd.application_id)
    assert dd.identify_count == 1 and dd.latest_session is not None
    identify = next(f for f in dd.gateway_frames_received if f["op"] == 2)
    assert identify["d"]["token"] == dd.token
    assert identify["d"]["intents"] == discord.Intents.default().value

    # bulk sync: global and guild, ids assigned as snowflake strings
    global_names = {c["name"] for c in dd.global_commands.values()}
    guild_names = {c["name"] for c in dd.guild_commands[dd.guild.id].values()}
    assert global_names == {
        "game",
        "play",
        "greedy",
        "board",
        "slow",
        "announce",
        "rename",
        "pick",
        "draft",
        "remind",
    }
    assert guild_names == {"secret", "twice"}
    game = dd.command("game")
    assert re.fullmatch(r"\d{17,20}", game["id"]) and game["application_id"] == dd.application_id
    (new,) = game["options"]
    assert new["type"] == 1 and new["name"] == "new"
    kind, seats = new["options"]
    assert kind["required"] and [c["value"] for c in kind["choices"]] == ["conqueror", "skirmish"]
    assert seats["type"] == 4 and seats["min_value"] == 2 and seats["max_value"] == 4
    assert dd.command("play")["options"][0]["autocomplete"] is True
    assert dd.command("secret")["guild_id"] == dd.guild.id

    # discord.py read our answers back: ids match what it holds
    synced = await bot.tree.fetch_commands()
    assert {c.name: str(c.id) for c in synced} == {
        c["name"]: c["id"] for c in dd.global_commands.values()
    }

    # every REST answer carried the rate-limit headers
    for r in dd.requests:
        for header in (
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
            "X-RateLimit-Reset-After",
            "X-RateLimit-Bucket",
        ):
            assert header in r.response_headers, (r, header)

    # the raw wire format: Content-Type exactly application/json (no charset)
    async with aiohttp.ClientSession() as session:
        async with session.get(
            f"{dd.api_base}/users/@me", headers={"Authorization": f"Bot {dd.token}"}
        ) as resp:
            assert resp.headers["Content-Type"] == "application/json"
            assert (await resp.json())["id"] == dd.application_id
        async with session.get(f"{dd.api_base}/users/@me") as resp:
            assert resp.status == 401
        async with session.get(
            f"{dd.api_base}/gateway/bot", headers={"Authorization": f"Bot {dd.token}"}
        ) as resp:
            assert (await resp.json())["url"] == dd.gateway_url
    dd.rejections.clear()  # the unauthorised probe above


async def test_ephemeral_reply_is_recorded_as_ephemeral(game_table: Any) -> None:
    table = game_table
    reply = await table.slash("alice", "secret")  # a guild command: routed by data.guild_id
    assert reply.response_type == 4
    assert reply.ephemeral and reply.content == "only you can see this"
    assert reply.callbacks[0]["data"]["flags"] & 64
    msg = reply.original
    assert msg.flags & 64 and msg.visible_to == table.user("alice").id
    assert msg.interaction is reply and msg.type == 20
    assert reply.payload["data"]["guild_id"] == table.guild.id
    # not part of the channel everyone sees, only alice's view
    assert msg not in table.messages
    assert msg in table.visible_to("alice") and msg not in table.visible_to("bob")


async def test_file_reply_is_a_decodable_png_with_text_intact(game_table: Any) -> None:
    table = game_table
    reply = await table.slash("bob", "board")
    msg = reply.message
    assert not msg.ephemeral
    assert msg.content == f"Turn 1 - <@{table.user('bob').id}> to move"
    (att,) = msg.attachments
    assert att.filename == "board.png" and att.is_png and att.content_type == "image/png"
    image = att.image()
    assert image.format == "PNG" and image.size == BOARD_SIZE
    assert att.data == board_png()
    # multipart on the wire: payload_json + files[0]
    callback = next(r for r in table.dd.requests if r.route.endswith("/callback"))
    assert [u.field for u in callback.uploads] == ["files[0]"]
    assert callback.json["data"]["attachments"] == [{"id": 0, "filename": "board.png"}]
    # discord.py sees the same message when it fetches the response
    assert msg in table.messages
    assert "[file] board.png (image/png, 64x48" in table.transcript()


async def test_defer_then_follow_up(game_table: Any) -> None:
    table = game_table
    reply = await table.slash("carol", "slow")
    assert reply.response_type == 5 and reply.deferred and reply.complete
    # the first follow-up after a deferral replaces the "thinking" message ...
    assert reply.original.content == "done thinking" and not reply.original.loading
    assert not reply.original.ephemeral
    # ... later ones are new messages, with their own ephemeral flag
    (extra,) = reply.followups
    assert await reply.wait_for_followup(timeout=1) is extra
    assert extra.content == "a private note" and extra.ephemeral
    assert extra.visible_to == table.user("carol").id
    assert [m.content for m in table.messages] == ["done thinking"]
    callback = next(r for r in table.dd.requests if r.route.endswith("/callback"))
    assert callback.query == {"with_response": "1"}
    assert callback.response["interaction"]["response_message_loading"] is True


async def test_autocomplete_returns_at_most_25_choices(game_table: Any) -> None:
    table = game_table
    choices = await table.autocomplete("alice", "play", "action", typed="mo")
    assert len(choices) == 25
    assert all(c.name.startswith("mo") and c.value == c.name for c in choices)
    narrow = await table.autocomplete("alice", "play", "action", typed="move c")
    assert [c.value for c in narrow] == [f"move c{i}" for i in range(1, 6)]
    # the interaction carried exactly one focused option, typed as the user typed it
    ac = table.replies[-1]
    assert ac.type == 4 and ac.callbacks[0]["type"] == 8
    assert ac.payload["data"]["options"] == [
        {"type": 3, "name": "action", "value": "move c", "focused": True}
    ]
    # someone who may not act gets an empty list, not an error
    assert await table.autocomplete("mallory", "play", "action", typed="mo") == []
    # the chosen value then goes through as a normal slash command
    reply = await table.slash("alice", "play", action=narrow[0].value)
    assert reply.content == "You play move c1" and reply.ephemeral


async def test_more_than_25_choices_is_rejected_like_discord(game_table: Any) -> None:
    table = game_table
    table.dd.strict = False
    with pytest.raises(BotError, match="Must be 25 or fewer"):
        await table.autocomplete("alice", "greedy", "action", typed="")
    (rejected,) = table.dd.rejections
    assert rejected.status == 400 and rejected.response["code"] == 50035
    assert "choices" in json.dumps(rejected.response["errors"])


async def test_dynamic_button_survives_a_bot_restart(
    discord_double: DiscordDouble, start_bot: Any
) -> None:
    dd = discord_double
    for name in ("alice", "bob", "carol"):
        dd.add_user(name)
    first = await start_bot(make_bot(int(dd.guild.id), instance=1))
    table = dd.table(channel="lobby")

    lobby = await table.slash("alice", "game new", kind="conqueror", seats=3)
    assert lobby.content.startswith("Conqueror lobby, 3 seats")
    (custom_id,) = lobby.message.custom_ids
    assert re.fullmatch(r"tbl:join:\d+", custom_id)
    sub = lobby.payload["data"]["options"][0]
    assert sub["type"] == 1 and sub["name"] == "new"
    assert sub["options"] == [
        {"type": 3, "name": "kind", "value": "conqueror"},
        {"type": 4, "name": "seats", "value": 3},
    ]

    joined = await table.click("bob", "Join")
    assert joined.payload["data"] == {"custom_id": custom_id, "component_type": 2}
    assert joined.payload["message"]["id"] == lobby.message.id
    assert (
        joined.content == f"<@{table.user('bob').id}> joined game {custom_id[9:]} (bot instance 1)"
    )
    assert joined.message.mentions == []  # AllowedMentions.none(): nobody pinged

    await first.stop()
    # discord.py closes the socket (with 4000, so the session stays resumable, as on Discord)
    await dd.wait_until(lambda: not any(s.connected for s in dd.sessions.values()), timeout=2)
    with pytest.raises(BotError, match="no bot is connected"):
        await table.click("carol", "Join")

    await start_bot(make_bot(int(dd.guild.id), instance=2))
    assert dd.identify_count == 2
    late = await table.click("carol", "Join", message=lobby.message)
    assert (
        late.content == f"<@{table.user('carol').id}> joined game {custom_id[9:]} (bot instance 2)"
    )


async def test_channel_message_records_mentions(game_table: Any) -> None:
    table = game_table
    bob = table.user("bob")
    reply = await table.slash("alice", "announce", who="bob")
    assert reply.content == "told bob" and reply.ephemeral
    option = reply.payload["data"]["options"][0]
    assert option == {"type": 6, "name": "who", "value": bob.id}
    assert reply.payload["data"]["resolved"]["users"][bob.id]["username"] == "bob"

    msg = table.messages[-1]
    assert msg.interaction is None and msg.kind == "channel" and msg.author.bot
    assert msg.content == f"<@{bob.id}>, it is your turn"
    assert msg.allowed_mentions == {"parse": ["users"], "replied_user": True}
    assert msg.mentions == [bob.id] and msg.pings == [bob.id]

    await table.slash("alice", "announce", who=bob, loud=False)
    quiet = table.messages[-1]
    assert quiet.content_mentions == [bob.id] and quiet.mentions == [] and quiet.pings == []
    assert "@bob, it is your turn" in table.transcript()


async def test_double_acknowledgement_is_refused(game_table: Any) -> None:
    table = game_table
    reply = await table.slash("alice", "twice")
    assert reply.content == "first"
    assert [m.content for m in reply.followups] == [
        "second, as a follow-up",
        "refused by discord.py itself",
    ]


async def test_client_side_checks_like_the_discord_client(game_table: Any) -> None:
    table = game_table
    with pytest.raises(ClientRefused, match="seats"):
        await table.slash("alice", "game new", kind="conqueror", seats=9)
    with pytest.raises(ClientRefused, match="required"):
        await table.slash("alice", "game new")
    with pytest.raises(ClientRefused, match="choices"):
        await table.slash("alice", "game new", kind="chess")
    with pytest.raises(ClientRefused, match="needs a subcommand"):
        await table.slash("alice", "game")
    with pytest.raises(ClientRefused, match="not a synced command"):
        await table.slash("alice", "nope")
    with pytest.raises(ClientRefused, match="no option"):
        await table.slash("alice", "play", action="x", extra=1)
    with pytest.raises(ClientRefused, match="sees no component"):
        await table.click("alice", "Join")
    # choice names work like clicking the choice in the client
    reply = await table.slash("alice", "game new", kind="Skirmish")
    assert reply.content.startswith("Skirmish lobby, 2 seats")


async def test_gateway_resume_after_a_dropped_connection(game_table: Any) -> None:
    table = game_table
    dd = table.dd
    session = dd.latest_session
    await dd.drop_connection()
    await dd.wait_until(
        lambda: session.resumes == 1 and session.connected, timeout=5, what="the client to RESUME"
    )
    assert any(
        f["op"] == 6 and f["d"]["session_id"] == session.id for f in dd.gateway_frames_received
    )
    assert dd.identify_count == 1  # resumed, not re-identified
    reply = await table.slash("alice", "secret")
    assert reply.content == "only you can see this"


async def test_transcript_threads_and_waiting(game_table: Any) -> None:
    table = game_table
    await table.slash("alice", "game new", kind="conqueror")
    await table.click("bob", "Join")
    await table.slash("bob", "secret")
    text = table.transcript()
    assert text.splitlines()[0] == "--- #games ---"
    assert "> alice uses /game new kind:conqueror" in text
    assert "Warhost: Conqueror lobby, 2 seats, opened by @alice" in text
    assert "[Join]" in text and "> bob clicks [Join]" in text
    assert "Warhost (only bob sees this): only you can see this" in text
    assert "only bob" not in table.transcript(include_ephemeral=False)

    # another channel (a thread) has its own history
    thread = table.thread("game-2")
    reply = await thread.slash("carol", "board")
    assert reply.message.channel is thread.channel and thread.channel.is_thread
    assert reply.payload["channel"]["type"] == 11
    assert [m.content for m in thread.messages] == [reply.content]
    assert reply.message not in table.messages

    # waiting helpers never hang
    with pytest.raises(DoubleTimeout):
        await table.wait_for_message(timeout=0.05)
    waiter = asyncio.create_task(table.wait_for_message(lambda m: bool(m.attachments), timeout=5))
    await asyncio.sleep(0)
    board = await table.slash("alice", "board")
    assert (await waiter) is board.message
    done: Reply = await table.dd.wait_for_response(board, timeout=1)
    assert done.complete


async def test_no_network_beyond_the_loopback(discord_double: DiscordDouble) -> None:
    assert discord_double.api_base == discord.http.Route.BASE
    assert discord_double.api_base.startswith("http://127.0.0.1:")
    assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == discord_double.gateway_url
    start = time.monotonic()
    async with aiohttp.ClientSession() as session:
        with pytest.raises((NetworkBlocked, aiohttp.ClientConnectorError)):
            await session.get("https://discord.com/api/v10/gateway")
    assert time.monotonic() - start < 2


async def test_modal_and_select_menu(game_table: Any) -> None:
    table = game_table
    opened = await table.slash("alice", "rename")
    assert opened.response_type == 9 and opened.messages == []
    assert opened.modal["title"] == "Rename your army"
    with pytest.raises(ClientRefused, match="only the user"):
        await table.submit_modal("bob", opened, **{"New name": "Blue Horde"})
    submitted = await table.submit_modal("alice", opened, **{"New name": "Blue Horde"})
    assert submitted.type == 5 and submitted.content == "Your army is now Blue Horde"
    (row,) = submitted.payload["data"]["components"]
    assert row["components"][0]["custom_id"] == "rename:name"
    assert row["components"][0]["value"] == "Blue Horde"

    menu = await table.slash("bob", "pick")
    with pytest.raises(ClientRefused, match="no option"):
        await table.select("bob", "Colour", ["purple"])
    picked = await table.select("bob", "Colour", "Green")  # by label, like a click in the client
    assert picked.payload["data"] == {
        "custom_id": "colour",
        "component_type": 3,
        "values": ["green"],
    }
    assert picked.response_type == 7  # UPDATE_MESSAGE edits the message the menu sat on
    assert picked.original is menu.message
    assert menu.message.content == "Picked green" and menu.message.components == []
    assert menu.message.history[0]["content"] == "Pick a colour" and menu.message.edited
    # each version in order: as posted, then after the edit (which happened later)
    [(posted, first), (edited, now)] = menu.message.versions()
    assert (first.content, now.content) == ("Pick a colour", "Picked green") and posted < edited
    assert now is menu.message and not first.edited and first.components
    story = table.transcript(as_posted=True)
    assert story.index("Pick a colour") < story.index("clicks") < story.index(
        "(edits its message): Picked green")
    assert "Pick a colour" not in table.transcript()       # by default: as it is now


async def test_edit_original_response_and_direct_messages(game_table: Any) -> None:
    table = game_table
    reply = await table.slash("alice", "draft")
    assert reply.content == "final (was 'draft')"
    assert [h["content"] for h in reply.original.history] == ["draft"]
    routes = [(r.method, r.route.rsplit("/", 1)[-1]) for r in table.dd.requests[-3:]]
    assert routes == [("POST", "callback"), ("GET", "{message_id}"), ("PATCH", "{message_id}")]

    told = await table.slash("alice", "remind", who="bob")
    assert told.content == "reminded bob"
    dm = table.dd.dm_table("bob")
    assert dm.channel.is_dm and [m.content for m in dm.messages] == ["psst, it is your turn"]
    assert any(r.route.endswith("/users/@me/channels") for r in table.dd.requests)


async def test_user_messages_respect_the_message_content_intent(game_table: Any) -> None:
    table = game_table
    bot = table.running.bot
    await table.say("alice", "hello table")
    await table.say("bob", f"{table.dd.bot_user.mention} hello bot")
    await table.dd.wait_until(lambda: len(bot.seen) == 2, timeout=2, what="MESSAGE_CREATE")
    # without the privileged intent, content only arrives when the bot is mentioned
    assert bot.seen == [("alice", ""), ("bob", f"<@{table.dd.bot_user.id}> hello bot")]


async def test_interactions_arriving_together(game_table: Any) -> None:
    table = game_table
    lobby = await table.slash("alice", "game new", kind="conqueror")
    replies = await asyncio.gather(
        table.click("bob", "Join"), table.click("carol", "Join"), table.slash("alice", "board")
    )
    assert [r.user.name for r in replies] == ["bob", "carol", "alice"]
    assert all(r.complete for r in replies)
    assert replies[0].content.startswith(f"<@{table.user('bob').id}> joined")
    assert replies[1].content.startswith(f"<@{table.user('carol').id}> joined")
    assert replies[2].message.attachments[0].image().size == BOARD_SIZE
    assert {r.source_message for r in replies[:2]} == {lobby.message}


async def test_rate_limit_headers_count_down_and_429() -> None:
    async with DiscordDouble(rate_limit=2, rate_limit_window=30) as dd:
        url = f"{dd.api_base}/channels/{dd.guild.text_channels()[0].id}"
        auth = {"Authorization": f"Bot {dd.token}"}
        async with aiohttp.ClientSession() as session:
            seen = []
            for _ in range(3):
                async with session.get(url, headers=auth) as resp:
                    seen.append((resp.status, resp.headers["X-RateLimit-Remaining"]))
                    body = await resp.json()
            assert seen == [(200, "1"), (200, "0"), (429, "0")]
            assert body["retry_after"] > 0 and body["global"] is False
            assert resp.headers["Via"] and float(resp.headers["X-RateLimit-Reset-After"]) > 0
