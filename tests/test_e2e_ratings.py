"""Ratings in Discord: ``/leaderboard``, ``/stats``, ``/game stats`` and ``/game new
rated:false`` through the loopback double with the real bot, after real games.

The games are short games of the toy sixth game (tests/toy_game, three rounds), played to
their end through ``/play``: the winner plays a card with each action, the loser passes.
Its boards are drawn in threads of this process (``RENDER_WORKERS=0``), where the toy game
is registered. Every answer is read as Discord received it (the double checks Discord's
limits on each), and compared with what ``store.ratings`` says.

Beside them, :func:`cogs.names.member_name` against a fake server, and the wording of
these answers at their limits.
"""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
import pytest_asyncio
from discord_double import DiscordDouble, Reply, Table
from e2e_driver import answered_once, check_png
from e2e_world import World, deal_seeds, game_id_of, new_world

import cogs.names as names
from cogs import wording
from db import ratings as rated
from db.ratings import KindRecord, KindStats, Leaderboard, PlayerStats, Ranked, Share
from db.standings import computer_label
from render.chart import HEIGHT, WIDTH
from tests.toy_game import GAME, KIND

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", KIND, "stats", "leaderboard"]
PEOPLE = ("alice", "bob", "carol", "dave")
SEED = 2024


@pytest_asyncio.fixture
async def world(toy: Any, discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.setattr(names, "_MEMBERS", {})      # ids repeat from one double to the next
    monkeypatch.setattr(names, "_NAMES", {})
    made = new_world(discord_double, start_bot, tmp_path, PEOPLE, COMMANDS,
                     deal_seeds(monkeypatch, SEED), RENDER_WORKERS="0", COMPUTER_WORKERS="0")
    await made.start()
    return made


async def play_toy(world: World, table: Table, winner: str, loser: str, *,
                   rated: bool = True) -> int:
    """A three-round toy game to its end through ``/play``: ``winner`` (the host, first
    to act) plays a card with each action, ``loser`` passes. The game's number."""
    extra: dict[str, Any] = {} if rated else {"rated": False}
    opened = await table.slash(winner, "game new", kind=KIND, options="rounds=3", **extra)
    assert not opened.ephemeral, opened.describe()
    said = field(embed_of(opened), "Rated")           # the lobby says whether it is rated
    assert said.startswith("no: a friendly game" if not rated else "yes"), said
    game_id = game_id_of(opened)
    await table.click(loser, "Join", message=opened.message)
    await table.click(winner, "Start", message=opened.message)
    first = world.uid(winner)
    for _ in range(100):
        record = await world.store.get(game_id)
        if record.status != "active":
            break
        state = GAME.load(record.state or "")
        [acting] = GAME.to_act(state)
        action = "play 1" if acting == first else "pass"
        moved = await table.slash(world.name(acting), "play", action=action)
        assert moved.ephemeral and (moved.content or "").startswith("✅"), moved.describe()
    record = await world.store.get(game_id)
    assert record.status == "finished" and record.timing.get("rated", True) is rated
    outcome = GAME.outcome(GAME.load(record.state or ""))
    assert outcome is not None and list(outcome.winners) == [first]
    return game_id


def embed_of(reply: Reply) -> dict[str, Any]:
    [embed] = reply.message.embeds
    return embed


def field(embed: dict[str, Any], name: str) -> str:
    found = [f["value"] for f in embed.get("fields") or [] if f["name"] == name]
    assert found, (name, [f["name"] for f in embed.get("fields") or []])
    return str(found[0])


def num(value: float) -> str:
    """A rating as the bot shows it: one decimal, a true minus sign."""
    return f"{value:.1f}".replace("-", "−")


def row(r: Ranked, name: str) -> str:
    return (f"**#{r.rank}** {name} — **{num(r.score)}** · μ {num(r.mu)} ± {r.sigma:.1f} · "
            f"{wording.plural(r.games, 'game')} · {wording.plural(r.wins, 'win')}")


def buttons(reply_or_message: Any) -> dict[str, bool]:
    """Label -> disabled, of a message's buttons."""
    message = getattr(reply_or_message, "message", reply_or_message)
    return {b["label"]: bool(b.get("disabled")) for b in message.buttons}


async def forged(world: World, table: Table, name: str, template: dict[str, Any],
                 option: str, value: Any) -> Reply:
    """A command as a modified client could send it: ``template`` (a command's data, as
    once sent) with ``option``'s value replaced."""
    data = copy.deepcopy(template)
    [found] = [o for o in data["options"] if o["name"] == option]
    found["value"] = value
    dd = world.dd
    reply = dd.new_interaction(type=2, user=dd.resolve_user(name), channel=table.channel,
                               data=data, name=data["name"])
    return await dd.send_interaction(reply)


# -- through Discord ---------------------------------------------------------------------------


async def test_before_any_game_every_answer_says_what_to_do(world: World) -> None:
    table = world.dd.table()
    empty = await table.slash("alice", "leaderboard", kind=KIND)
    answered_once(empty)
    assert empty.ephemeral and "finish 3 rated games of Toy Raid" in (empty.content or "")
    recent = await table.slash("alice", "leaderboard", kind=KIND, period="30d")
    assert recent.ephemeral and "last 30 days" in (recent.content or "")
    mine = await table.slash("alice", "stats")
    assert mine.ephemeral and (mine.content or "").startswith("You have no finished games")
    assert mine.attachments == [] and mine.message.embeds == []
    theirs = await table.slash("alice", "stats", player="bob", kind=KIND, share=True)
    assert not theirs.ephemeral
    assert theirs.content == "bob has no finished Toy Raid games on this server yet."
    assert theirs.message.pings == []
    kinds = await table.slash("alice", "game stats", kind=KIND)
    assert kinds.ephemeral and "No game of Toy Raid has finished" in (kinds.content or "")

    # a bot is no player; an unknown game (past the client's choices) is refused clearly
    robot = await table.slash("alice", "stats", player=world.dd.bot_user)
    assert robot.ephemeral and "Bots have no statistics" in (robot.content or "")
    unknown = await forged(world, table, "alice", empty.payload["data"], "kind", "chess")
    assert unknown.ephemeral and "no game called 'chess'" in (unknown.content or "")
    forever = await forged(world, table, "alice", recent.payload["data"], "period", "forever")
    assert forever.ephemeral and "period" in (forever.content or "")
    stats_kind = await forged(world, table, "alice", theirs.payload["data"], "kind", "chess")
    assert stats_kind.ephemeral and "no game called" in (stats_kind.content or "")

    # /help still fits Discord's limits with the new commands
    shown = await table.slash("alice", "help")
    answered_once(shown)
    assert "**/stats**" in (shown.content or "") and "**/leaderboard**" in (shown.content or "")
    game_line = next(line for line in (shown.content or "").splitlines()
                     if line.startswith("**/game**"))
    assert " stats" in game_line
    assert (shown.content or "").rstrip().endswith("every command")     # nothing cut off
    assert world.dd.rejections == []


async def test_ratings_after_real_games(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    table = world.dd.table()
    guild = world.dd.guild.id
    alice, bob, carol = (world.uid(n) for n in ("alice", "bob", "carol"))
    for _ in range(3):
        await play_toy(world, table, "alice", "bob")
    await play_toy(world, table, "carol", "bob")

    # /leaderboard: public, the winner first, the numbers the store has
    board = await world.store.ratings.leaderboard(guild, KIND)
    assert [r.player for r in board.rows] == [alice, bob] and board.total == 2
    assert carol not in [r.player for r in board.rows]      # one rated game: not yet
    shown = await table.slash("dave", "leaderboard", kind=KIND)
    answered_once(shown)
    assert not shown.ephemeral and shown.message.pings == []
    embed = embed_of(shown)
    assert embed["title"] == "🏆 Toy Raid leaderboard — all time"
    lines = embed["description"].splitlines()
    assert lines == [row(board.rows[0], "alice"), row(board.rows[1], "bob")]
    assert "3 games · 3 wins" in lines[0] and "4 games · 0 wins" in lines[1]
    assert "carol" not in embed["description"]          # one rated game: not yet
    assert "3 rated games to appear" in embed["footer"]["text"]
    assert shown.message.buttons == []                   # one page
    before = embed["description"]

    # over the last 30 days: the games in them and the change since
    recent = await table.slash("dave", "leaderboard", kind=KIND, period="30d")
    first = embed_of(recent)["description"].splitlines()[0]
    assert first.startswith("**#1** alice") and "3 in 30 days, +" in first
    assert embed_of(recent)["title"].endswith("last 30 days")

    # /stats: private unless shared; games, wins, rank, a chart
    mine = await table.slash("alice", "stats", share=False)
    answered_once(mine)
    assert mine.ephemeral and mine.message.visible_to == alice
    stats = embed_of(mine)
    assert stats["title"] == "📊 alice — all games on this server"
    assert "**3** finished games · **3** wins (100%)" in stats["description"]
    assert "Win streak: **3** now · best **3**" in stats["description"]
    assert "Favourite game: **Toy Raid**" in stats["description"]
    assert "Average time per decision: **" in stats["description"]
    assert "Time-outs: **0**" in stats["description"]
    a = board.rows[0]
    assert field(stats, "Toy Raid") == (f"**{num(a.score)}** · μ {num(a.mu)} ± {a.sigma:.1f}\n"
                                        f"**#1** of 2 · 3 rated games, 3 wins")
    assert stats["image"]["url"].endswith("/rating.png")     # the attachment, in the embed
    assert [a.filename for a in mine.attachments] == ["rating.png"]
    assert check_png(mine.message) == (WIDTH, HEIGHT)
    theirs = await table.slash("dave", "stats", player="bob", kind=KIND, share=True)
    assert not theirs.ephemeral and theirs.message.pings == []
    bobs = embed_of(theirs)
    assert bobs["title"] == "📊 bob — Toy Raid on this server"
    assert "**4** finished games · **0** wins (0%)" in bobs["description"]
    assert "**#2** of 2" in field(bobs, "Toy Raid")
    newcomer = await table.slash("dave", "stats", player="carol")
    assert "unranked: 2 more rated games" in field(embed_of(newcomer), "Toy Raid")

    # /game stats: the first seat won every game; an interval, and a word on few games
    kinds = await table.slash("dave", "game stats", kind=KIND)
    answered_once(kinds)
    assert kinds.ephemeral
    seats = field(embed_of(kinds), "Win share by seat · 2 players")
    found = await world.store.ratings.kind_stats(guild, KIND)
    low, _ = found.seats[0].interval
    assert seats.splitlines() == [f"Seat 1 of 2: 100% (95%: {round(100 * low)}–100%) of 4",
                                  f"Seat 2 of 2: 0% (95%: 0–{round(100 * (1 - low))}%) of 4"]
    description = embed_of(kinds)["description"]
    assert "Finished games: **4** on this server · **4** on every server" in description
    assert "intervals are wide" in description
    shared = await table.slash("dave", "game stats", kind=KIND, everywhere=True, share=True)
    assert not shared.ephemeral and "every server" in embed_of(shared)["title"]

    # a friendly game: its lobby says so, and no rating moves
    await play_toy(world, table, "bob", "alice", rated=False)
    again = await table.slash("dave", "leaderboard", kind=KIND)
    assert embed_of(again)["description"] == before
    mine = await table.slash("alice", "stats")
    assert "**4** finished games · **3** wins (75%)" in embed_of(mine)["description"]
    assert "Win streak: **0** now · best **3**" in embed_of(mine)["description"]

    # a computer level is rated as itself, and listed beside the board
    opened = await table.slash("alice", "game new", kind=KIND, options="rounds=3", bots=1,
                               level="easy")
    await table.click("alice", "Start", message=opened.message)
    await table.slash("alice", "game resign")
    assert (await world.store.get(game_id_of(opened))).status == "finished"
    with_bots = await table.slash("dave", "leaderboard", kind=KIND)
    board = await world.store.ratings.leaderboard(guild, KIND)
    [easy] = board.computers
    assert field(embed_of(with_bots), "Computer levels") == f"🤖 easy {num(easy.score)}"
    assert "computer:" not in embed_of(with_bots)["description"]

    # pages: anyone may turn them; each press edits the message
    monkeypatch.setattr(rated, "PAGE_SIZE", 1)
    paged = await table.slash("dave", "leaderboard", kind=KIND)
    message = paged.message
    assert embed_of(paged)["description"].startswith("**#1** alice")
    assert "Page 1 of 2" in embed_of(paged)["footer"]["text"]
    assert buttons(paged) == {"◀": True, "▶": False}
    assert message.custom_ids == [f"warhost:lb:{KIND}:all:0:p", f"warhost:lb:{KIND}:all:1:n"]
    turned = await table.click("carol", "▶", message=message)
    assert not turned.errors and turned.response_type == 6      # the message itself
    [shown_now] = message.embeds
    assert shown_now["description"].startswith("**#2** bob")
    assert "Page 2 of 2" in shown_now["footer"]["text"]
    assert buttons(message) == {"◀": False, "▶": True}
    await table.click("bob", "◀", message=message)
    assert message.embeds[0]["description"].startswith("**#1** alice")
    ahead = await table.slash("dave", "leaderboard", kind=KIND)       # its ▶ shows #2

    # bob leaves the server: shown as a former member, never by name or id (on the web
    # pages too: the name kept for them is dropped)
    await world.store.web.save_names(guild, {bob: "bob"})
    del world.dd.guild.members[bob]
    names._MEMBERS.clear()          # what was known of bob a moment ago is forgotten
    world.dd.strict = False         # Discord's "Unknown Member" is how the bot learns it
    await table.click("dave", "▶", message=message)
    text = message.text
    assert message.embeds[0]["description"].startswith("**#2** former member — **")
    assert "bob" not in text and bob not in text
    assert await world.store.web.names(guild, [bob]) == {}
    gone = await table.slash("dave", "stats", player="carol")
    assert "bob" not in gone.text and "former" not in gone.text

    # the board shrinks under a page (bob's data deleted): ▶ past its end shows the last
    await world.store.privacy.forget_user(bob)
    last = await table.click("dave", "▶", message=ahead.message)
    assert not last.errors
    assert ahead.message.embeds[0]["description"].startswith("**#1** alice")
    assert ahead.message.buttons == []                 # a single page now
    # the only request Discord refused: bob, looked up once after he left
    assert [(r.method, r.path.rsplit("/", 1)[1], r.status) for r in world.dd.rejections] == [
        ("GET", bob, 404)]


# -- the helpers, alone ----------------------------------------------------------------------


class FakeGuild:
    """What :func:`cogs.names.member_name` uses of a server: its member cache and a
    fetch, which may fail."""

    id = 77

    def __init__(self, members: dict[int, str], *, cached: dict[int, str] | None = None,
                 error: Exception | None = None) -> None:
        self.members = members
        self.cached = cached or {}
        self.error = error
        self.fetched: list[int] = []

    def get_member(self, user_id: int) -> Any:
        name = self.cached.get(user_id)
        return None if name is None else SimpleNamespace(display_name=name)

    async def fetch_member(self, user_id: int) -> Any:
        self.fetched.append(user_id)
        if self.error is not None:
            raise self.error
        if user_id not in self.members:
            raise discord.NotFound(SimpleNamespace(status=404, reason="Not Found"),
                                   {"code": 10007, "message": "Unknown Member"})
        return SimpleNamespace(display_name=self.members[user_id])


async def test_member_name_says_who_is_still_a_member(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(names, "_MEMBERS", {})
    monkeypatch.setattr(names, "_NAMES", {})
    clock = [1000.0]
    monkeypatch.setattr(names, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    client: Any = None
    guild: Any = FakeGuild({1: "Ann"}, cached={3: "Cached Cy"})
    assert await names.member_name(client, guild, "3") == "Cached Cy"   # no fetch
    assert await names.member_name(client, guild, "1") == "Ann"
    assert await names.member_name(client, guild, "2") is None          # left
    assert await names.member_name(client, guild, "deleted-abc") is None
    assert await names.member_name(client, guild, "computer:hard") is None
    assert guild.fetched == [1, 2]
    # answers are kept a few minutes, then asked again
    guild.members = {2: "Back Bo"}
    assert await names.member_name(client, guild, "1") == "Ann"
    assert await names.member_name(client, guild, "2") is None
    assert guild.fetched == [1, 2]
    clock[0] += names.MEMBER_TTL + 1
    assert await names.member_name(client, guild, "1") is None
    assert await names.member_name(client, guild, "2") == "Back Bo"
    # Discord failing: the name seen last in that server, else nothing; nothing kept
    failing: Any = FakeGuild({}, error=discord.HTTPException(
        SimpleNamespace(status=500, reason="Server Error"), "oops"))
    names._keep_name(names._name_key(failing.id, "5"), "Seen Sue")
    assert await names.member_name(client, failing, "5") == "Seen Sue"
    assert await names.member_name(client, failing, "6") is None
    assert await names.member_name(client, failing, "5") == "Seen Sue"
    assert failing.fetched == [5, 6, 5]
    # bounded, and forgotten with a user's data
    monkeypatch.setattr(names, "_MEMBERS_MAX", 3)
    many: Any = FakeGuild({n: f"p{n}" for n in range(10, 20)})
    for n in range(10, 20):
        await names.member_name(client, many, str(n))
    assert len(names._MEMBERS) == 3
    names.forget_names("19")
    assert ("77", "19") not in names._MEMBERS and ("77", "19") not in names._NAMES


def test_durations_changes_and_names_read_well() -> None:
    assert [wording.duration_text(s) for s in (0.2, 40.4, 125, 720, 2 * 3600 + 14 * 60 + 5,
                                                3 * 86400 + 4 * 3600, 86400)] == [
        "under 1 s", "40 s", "2 min 5 s", "12 min", "2 h 14 min", "3 d 4 h", "1 d"]
    assert [wording.change_text(c) for c in (1.24, -0.8, 0.01)] == ["+1.2", "−0.8", "±0.0"]
    assert [wording.rating_number(v) for v in (27.34, -5.21, -0.04)] == ["27.3", "−5.2", "0.0"]
    assert computer_label("computer:hard") == "🤖 Computer (hard)"
    assert wording.rated_name("123", {}) == wording.FORMER_MEMBER
    assert wording.rated_name("123", {"123": "**bold**"}) == "\\*\\*bold\\*\\*"
    assert wording.side_label("french") == "French" and wording.side_label("Romans") == "Romans"
    assert wording.side_label("north_sea") == "North Sea"


def test_game_stats_show_sides_title_cased_and_split_by_table_size() -> None:
    stats = KindStats(
        kind="napoleon", guild_games=6, all_games=40, everywhere=False, decided=6,
        seats=(Share("Seat 1 of 2", 4, 3), Share("Seat 2 of 2", 4, 1),
               Share("Seat 1 of 3", 2, 1), Share("Seat 2 of 3", 2, 1), Share("Seat 3 of 3", 2, 0)),
        sides=(Share("french", 5, 3), Share("german", 5, 2)),
        rounds_median=12.5, rounds_mean=12.25, days_median=3.5)
    embed = wording.kind_stats_embed(stats, "Napoleon")
    fields = {f.name: f.value for f in embed.fields}
    assert fields["Win share by seat · 2 players"].splitlines()[0] == \
        "Seat 1 of 2: 75% (95%: 30–95%) of 4"
    assert len(fields["Win share by seat · 3 players"].splitlines()) == 3
    assert fields["Win share by side"].splitlines() == [
        wording.share_text(Share("french", 5, 3), "French"),
        wording.share_text(Share("german", 5, 2), "German")]
    assert fields["Win share by side"].startswith("French: 60% (95%: ")
    text = embed.description or ""
    assert "Rounds: median **12.5** · mean **12.2**" in text
    assert "median **3 d 12 h**" in text and "intervals are wide" in text
    many = KindStats(kind="x", guild_games=500, all_games=500, everywhere=True, decided=500,
                     seats=tuple(Share(f"Seat {s} of {n}", 100, 30) for n in range(2, 9)
                                 for s in range(1, n + 1)),
                     sides=tuple(Share(f"side_{i}_" + "x" * 60, 10, 5) for i in range(80)),
                     rounds_median=None, rounds_mean=None, days_median=None)
    big = wording.kind_stats_embed(many, "X")
    assert "wide" not in (big.description or "")
    assert len(big) <= 6000 and len(big.fields) <= 25
    assert all(len(str(f.value)) <= 1024 for f in big.fields)


def test_a_full_page_of_long_names_fits_discord() -> None:
    rows = tuple(Ranked(i + 1, str(1000 + i), 30.123 - i, 1.5, 1234, 999, 0.0, 55, -12.34)
                 for i in range(10))
    board = Leaderboard("g", "toy", "30d", rows, 4321, 0,
                        computers=(Ranked(0, "computer:hard", 30, 2, 9, 5, 0.0),
                                   Ranked(0, "computer:easy", 20, 2, 9, 5, 0.0)))
    long = {str(1000 + i): "𝕎" * 100 + " @everyone" for i in range(10)}
    embed = wording.leaderboard_embed(board, "Toy Raid", long, 10)
    assert len(embed) <= 6000 and len(embed.description or "") <= 4096
    assert "Page 1 of 433" in (embed.footer.text or "")
    [bots] = embed.fields
    assert bots.value.startswith("🤖 easy 14.0 · hard 24.0")
    assert "55 in 30 days, −12.3" in (embed.description or "")
    stats = PlayerStats(
        player="1", guild_id="g", kind=None, games=9999, wins=5000, current_streak=3,
        best_streak=40, favourite="toy", kinds=tuple(
            KindRecord(f"kind{i}", 25.0, 3.0, 2, 1, None, 9) for i in range(40)),
        average_decision=8040.0, timeouts=2, chart_kind="toy", history=((1.0, 25.0, 8.0),))
    embed = wording.player_stats_embed(stats, "x" * 300, {"toy": "Toy Raid"}, image="r.png")
    assert len(embed) <= 6000 and len(embed.fields) <= 25 and len(embed.title or "") <= 256
    assert "unranked: 1 more rated game" in embed.fields[0].value
    assert "**2 h 14 min**" in (embed.description or "")
