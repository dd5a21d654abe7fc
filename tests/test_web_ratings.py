"""The web companion's leaderboards and players' pages (web/, over db/ratings.py), on both
backends: a listed server's page shows the top of each game's leaderboard, the full board
pages and switches period, a player's page shows their results and rating charts (PNG,
drawn once); an unlisted server shows none of it (the same 404 as its games' list); names
are the kept ones only ("former member" otherwise, never an id), escaped; garbage in the
address is a 404 or is clamped, never a 500; the read-only store serves it all.
"""

from __future__ import annotations

import asyncio
import html
import io
import itertools
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer
from PIL import Image

from db import Store
from db.ratings import MIN_GAMES, PAGE_SIZE
from db.records import GameRecord
from tests.browser import save_screenshot
from tests.clocks import FakeClock
from web.app import RateLimiter, WebApp, WebSettings
from web.model import FORMER_MEMBER, seconds_text

#: The Race test game (tests/fakegame.py): ``step 3`` to a target of 5 wins in two moves.
pytestmark = pytest.mark.usefixtures("race")

A, B, C, D = ("111111111111111111", "222222222222222222", "333333333333333333",
              "444444444444444444")
GUILD, OTHER_GUILD = "555555555555555555", "666666666666666666"
NAMES = {A: "Alice", B: "Bob", C: "Carol"}            # D keeps no name: a former member
HOSTILE = "<script>alert('x')</script>"
_channels = itertools.count(900_000_000_000_000_000)


# -- helpers ---------------------------------------------------------------------------------


async def started(store: Store, players: tuple[str, ...], *, guild: str = GUILD,
                  computers: int = 0, rated: bool = True) -> GameRecord:
    record = await store.lobby.open("race", guild, str(next(_channels)), players[0],
                                    {"target": 5}, rated=rated, computers=computers)
    for p in players[1:]:
        await store.lobby.join(record.id, p)
    return await store.lobby.start(record.id, players[0], seed=1)


async def win(store: Store, winner: str, loser: str, *, guild: str = GUILD,
              rated: bool = True) -> GameRecord:
    """A game of Race ``winner`` (moving first) wins against ``loser``."""
    game = await started(store, (winner, loser), guild=guild, rated=rated)
    for player, action in ((winner, "step 3"), (loser, "step 1"), (winner, "step 3")):
        record = (await store.apply_action(game.id, player, action)).record
    assert record.status == "finished"
    return record


async def beaten_by_a_computer(store: Store, player: str) -> str:
    """A rated game ``player`` loses to a computer seat; the computer's rating identity."""
    game = await started(store, (player,), computers=1)
    computer = game.seats[1]
    for who, action in ((player, "step 1"), (computer, "step 3"), (player, "step 1"),
                        (computer, "step 3")):
        move = await store.apply_action(game.id, who, action, by_computer=who == computer)
    assert move.record.status == "finished"
    return f"computer:{game.timing['computer_level']}"


def assert_secure(response: aiohttp.ClientResponse) -> None:
    csp = response.headers.get("Content-Security-Policy", "")
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert response.headers.get("X-Content-Type-Options") == "nosniff"
    assert response.headers.get("Referrer-Policy") == "no-referrer"


def text_of(page: str) -> str:
    """What a page shows as text (tags and their attributes left out)."""
    return html.unescape(re.sub(r"<[^>]*>", " ", page))


def table_rows(page: str) -> list[list[str]]:
    """Each row of the page's tables' bodies, as the text of its cells."""
    rows = []
    for body in re.findall(r"<tbody>(.*?)</tbody>", page, re.S):
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
            rows.append([" ".join(text_of(c).split())
                         for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)])
    return rows


@dataclass
class Site:
    store: Store
    app: WebApp
    client: TestClient
    clock: FakeClock

    async def get(self, path: str) -> tuple[int, str]:
        response = await self.client.get(path)
        assert_secure(response)
        return response.status, await response.text()


@pytest.fixture
async def site(store: Store, clock: FakeClock) -> AsyncIterator[Site]:
    """The web app over the test's store (SQLite and PostgreSQL), behind a test client."""
    app = WebApp(store, WebSettings(rate_per_minute=1e6))
    client = TestClient(TestServer(app.app))
    await client.start_server()
    try:
        yield Site(store, app, client, clock)
    finally:
        await client.close()
        await app.stop()


async def three_wins(site: Site) -> str:
    """Alice beats Bob three times (both ranked: Alice first), Dave (no kept name) beats
    Carol once, and Bob loses to the computer: the computer's identity."""
    for _ in range(MIN_GAMES):
        site.clock.advance(3600)
        await win(site.store, A, B)
    site.clock.advance(3600)
    await win(site.store, D, C)
    site.clock.advance(3600)
    bot = await beaten_by_a_computer(site.store, B)
    await site.store.web.save_names(GUILD, NAMES)
    return bot


# -- the server's page ---------------------------------------------------------------------


async def test_a_listed_servers_page_shows_each_games_leaderboard(site: Site) -> None:
    bot = await three_wins(site)
    routes = (f"/s/{GUILD}", f"/s/{GUILD}/leaderboard/race", f"/s/{GUILD}/player/{A}",
              f"/s/{GUILD}/player/{A}/chart.png?kind=race")
    for path in routes:                     # not listed: nothing at all, as before
        status, text = await site.get(path)
        assert status == 404 and "Not found" in text, path
    await site.store.web.set_listed(GUILD, True, "The Table")
    status, page = await site.get(f"/s/{GUILD}")
    assert status == 200
    assert "Leaderboards" in page and "<h3>Race</h3>" in page
    board = await site.store.ratings.leaderboard(GUILD, "race")
    alice, bob = board.rows
    assert (alice.player, bob.player) == (A, B)
    assert table_rows(page) == [
        ["1", "Alice", f"{alice.score:.1f} {alice.mu:.1f} ± {alice.sigma:.1f}", "3", "3"],
        ["2", "Bob", f"{bob.score:.1f} {bob.mu:.1f} ± {bob.sigma:.1f}", "4", "0"]]
    ranked = page[page.index('id="leaderboards"'):]
    assert ranked.index("Alice") < ranked.index("Bob")
    assert f'href="/s/{GUILD}/player/{A}"' in page and f'href="/s/{GUILD}/player/{B}"' in page
    assert f'href="/s/{GUILD}/leaderboard/race"' in page
    level = bot.removeprefix("computer:")
    (computer,) = board.computers
    assert f"🤖 Computer ({level})</a> <span class=\"nowrap\">{computer.score:.1f} " in page
    assert f'href="/s/{GUILD}/player/{bot}"' in page
    assert "Carol" not in text_of(ranked)                    # one game: not listed
    assert f"/s/{GUILD}/player/{C}" not in page and f"/s/{GUILD}/player/{D}" not in page
    assert "<script" not in page.replace('<script src="/static/app.js', "")
    # another server's board is its own
    await site.store.web.set_listed(OTHER_GUILD, True, "Elsewhere")
    status, other = await site.get(f"/s/{OTHER_GUILD}")
    assert status == 200 and "Leaderboards" not in other and "Alice" not in other
    await site.store.web.set_listed(GUILD, False)
    for path in routes:
        assert (await site.get(path))[0] == 404, path


# -- the full leaderboard ------------------------------------------------------------------


async def test_the_full_leaderboard_pages_and_switches_period(site: Site) -> None:
    players = [f"7000000000000000{n:02d}" for n in range(PAGE_SIZE + 2)]
    for _ in range(MIN_GAMES):
        site.clock.advance(3600)
        for first, second in zip(players[::2], players[1::2], strict=True):
            await win(site.store, first, second)
    await site.store.web.save_names(GUILD, {p: f"P{n}" for n, p in enumerate(players)})
    await site.store.web.set_listed(GUILD, True, "The Table")
    base = f"/s/{GUILD}/leaderboard/race"

    status, first_page = await site.get(base)
    assert status == 200
    rows = table_rows(first_page)
    assert [r[0] for r in rows] == [str(n) for n in range(1, PAGE_SIZE + 1)]
    assert "Page 1 of 2" in first_page and f'href="{base}?page=2"' in first_page
    assert 'rel="prev"' not in first_page and "12 players" in first_page
    status, second_page = await site.get(f"{base}?page=2")
    assert [r[0] for r in table_rows(second_page)] == ["11", "12"]
    assert f'rel="prev" href="{base}"' in second_page and 'rel="next"' not in second_page
    board = await site.store.ratings.leaderboard(GUILD, "race", offset=PAGE_SIZE)
    names = {p: f"P{n}" for n, p in enumerate(players)}
    assert [r[1] for r in table_rows(second_page)] == [names[r.player] for r in board.rows]
    # clamped, whatever the page number says
    for query, shown in (("page=99", 2), ("page=3", 2), ("page=0", 1), ("page=-1", 1),
                         ("page=abc", 1), ("page=%EF%BC%92", 1), ("page=1e1", 1),
                         ("page=" + "9" * 40, 1), ("page=999999999", 2), ("page=", 1),
                         ("page=2&page=x", 2),
                         ("period=forever&page=2", 2), ("period=%00", 1),
                         ("page=%ZZ", 1), ("period=" + "x" * 3000, 1)):
        status, text = await site.get(f"{base}?{query}")
        assert status == 200, query
        assert f"Page {shown} of 2" in text, query

    # the last 30 days: only the two who played since
    site.clock.advance(31 * 86400)
    await win(site.store, players[1], players[0])
    status, recent = await site.get(f"{base}?period=30d")
    assert status == 200 and "Page 1 of 1" in recent
    rows = table_rows(recent)
    assert [r[1] for r in rows] == ["P0", "P1"]             # P0 still rated higher
    changes = [r[5].split() for r in rows]                  # the change, games in it
    assert [c[1] for c in changes] == ["1", "1"]
    assert changes[0][0].startswith("-") and changes[1][0].startswith("+")
    assert '<a href="/s/555555555555555555/leaderboard/race?period=30d" aria-current="page">' \
        in recent
    status, whole = await site.get(f"{base}?period=all&page=2")
    assert status == 200 and "Page 2 of 2" in whole and "30 days" not in text_of(
        whole).split("Last 30 days")[1]

    # a kind nobody plays here: an empty board; an unknown kind: 404
    status, empty = await site.get(f"/s/{GUILD}/leaderboard/conqueror")
    assert status == 200 and f"Nobody has {MIN_GAMES} rated games yet" in empty
    for kind in ("nope", "RACE", "race%00", "..", "%3Cscript%3E", "x" * 300):
        status, text = await site.get(f"/s/{GUILD}/leaderboard/{kind}")
        assert status == 404 and "Traceback" not in text, kind


# -- a player's page -----------------------------------------------------------------------


async def test_a_players_page_shows_their_stats_ranks_and_chart(site: Site) -> None:
    bot = await three_wins(site)
    await win(site.store, A, C, rated=False)                # a friendly game counts too
    await site.store.web.set_listed(GUILD, True, "The Table")
    status, page = await site.get(f"/s/{GUILD}/player/{A}")
    assert status == 200
    shown = " ".join(text_of(page).split())
    stats = await site.store.ratings.player(GUILD, A)
    assert "Alice" in shown and "Games 4" in shown and "Wins 4 (100%)" in shown
    assert "Current streak 4 wins" in shown and "Best streak 4 wins" in shown
    assert "Favourite game Race" in shown and "Time-outs 0" in shown
    assert f"Time per decision {seconds_text(stats.average_decision)}" in shown
    (race,) = stats.kinds
    assert table_rows(page) == [
        ["Race", f"{race.score:.1f} {race.mu:.1f} ± {race.sigma:.1f}", "3", "3", "#1 of 2"]]
    assert f'href="/s/{GUILD}/leaderboard/race"' in page
    charts = re.findall(r'<img src="([^"]+)"', page)
    assert len(charts) == 1 and charts[0].startswith(
        f"/s/{GUILD}/player/{A}/chart.png?kind=race&amp;v=3-")

    at_once = await asyncio.gather(*(site.client.get(html.unescape(charts[0]))
                                     for _ in range(5)))
    chart = at_once[0]
    assert chart.status == 200 and chart.content_type == "image/png"
    assert chart.headers["Cache-Control"] == "public, max-age=3600"
    assert_secure(chart)
    png = await chart.read()
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.size == (1600, 800)
    assert all([await r.read() == png for r in at_once])
    assert site.app.charts_drawn == 1                       # drawn once for all five
    again = await site.client.get(f"/s/{GUILD}/player/{A}/chart.png?kind=race&v=other")
    assert await again.read() == png and site.app.charts_drawn == 1      # then kept
    # a new game: a new chart (and a new address for it on the page)
    await win(site.store, A, B)
    status, later = await site.get(f"/s/{GUILD}/player/{A}")
    assert re.findall(r'<img src="([^"]+)"', later)[0] != charts[0]
    newer = await (await site.client.get(f"/s/{GUILD}/player/{A}/chart.png?kind=race")).read()
    assert newer != png and site.app.charts_drawn == 2

    # Bob: ranked second, no win, lost to the computer; the computer's own page
    status, bobs = await site.get(f"/s/{GUILD}/player/{B}")
    assert status == 200 and "#2 of 2" in bobs and "Wins 0" in " ".join(text_of(bobs).split())
    status, computer = await site.get(f"/s/{GUILD}/player/{bot}")
    assert status == 200
    assert f"🤖 Computer ({bot.removeprefix('computer:')})" in text_of(computer)
    assert "not ranked" in computer and "Games 1" in " ".join(text_of(computer).split())
    chart = await site.client.get(f"/s/{GUILD}/player/{bot}/chart.png?kind=race")
    assert chart.status == 200 and (await chart.read()).startswith(b"\x89PNG")
    # Carol: two games, one friendly; rated once, not ranked yet
    status, carols = await site.get(f"/s/{GUILD}/player/{C}")
    assert status == 200 and "not yet" in carols and "Games 2" in " ".join(
        text_of(carols).split())
    # charts only of a game the player is rated in
    for query in ("kind=conqueror", "kind=nope", "", "kind=", "kind=RACE", "kind=%00",
                  "kind=" + "r" * 500):
        response = await site.client.get(f"/s/{GUILD}/player/{A}/chart.png?{query}")
        assert response.status == 404, query


async def test_garbage_in_a_players_address_is_a_404_never_a_500(site: Site) -> None:
    await three_wins(site)
    await win(site.store, B, C, guild=OTHER_GUILD)
    await site.store.web.set_listed(GUILD, True, "The Table")
    _, unknown = await site.get(f"/s/{GUILD}/player/999999999999999999")
    for player in ("999999999999999999", "1", "0", C + "0"):    # no results: one answer
        status, text = await site.get(f"/s/{GUILD}/player/{player}")
        assert status == 404 and "No results here" in text and text == unknown, player
    for player in ("abc", "1" * 21, "-1", "computer:", "computer:HARD", "computer:%3Cb%3E",
                   "deleted-1", "deleted-aaaaaaaaaaaa", "%00", "%EF%BC%91%EF%BC%92",
                   "1%20", "..", "computer:" + "a" * 40, "x" * 3000):
        for suffix in ("", "/chart.png?kind=race"):
            status, text = await site.get(f"/s/{GUILD}/player/{player}{suffix}")
            assert status == 404 and "Traceback" not in text, (player, suffix)
    # Bob's page on a server he did not play on says no more than a stranger's
    await site.store.web.set_listed(OTHER_GUILD, True, "Elsewhere")
    status, there = await site.get(f"/s/{OTHER_GUILD}/player/{A}")
    status_unknown, nobody = await site.get(f"/s/{OTHER_GUILD}/player/999999999999999999")
    assert status == status_unknown == 404 and there == nobody
    assert (await site.get(f"/s/{OTHER_GUILD}/player/{B}"))[0] == 200
    for guild in ("abc", "1" * 30, "%EF%BC%95", "777777777777777777"):
        for path in (f"/s/{guild}/leaderboard/race", f"/s/{guild}/player/{A}",
                     f"/s/{guild}/player/{A}/chart.png?kind=race"):
            status, text = await site.get(path)
            assert status == 404 and "Not found" in text, path


# -- names ---------------------------------------------------------------------------------


async def test_a_player_without_a_kept_name_is_a_former_member(site: Site) -> None:
    for _ in range(MIN_GAMES):
        site.clock.advance(3600)
        await win(site.store, D, A)
    await site.store.web.save_names(GUILD, NAMES)
    await site.store.web.set_listed(GUILD, True, "The Table")
    for path in (f"/s/{GUILD}", f"/s/{GUILD}/leaderboard/race", f"/s/{GUILD}/player/{D}"):
        status, page = await site.get(path)
        assert status == 200, path
        shown = text_of(page)
        assert FORMER_MEMBER in shown and D not in shown, path
        assert "Alice" in shown or path.endswith(D), path
    assert table_rows((await site.get(f"/s/{GUILD}"))[1])[0][1] == FORMER_MEMBER
    # a deletion: Dave's results stay as a placeholder's, never on a leaderboard
    await site.store.privacy.forget_user(D)
    status, page = await site.get(f"/s/{GUILD}/leaderboard/race")
    assert status == 200 and "deleted-" not in page and D not in page
    assert (await site.get(f"/s/{GUILD}/player/{D}"))[0] == 404


async def test_hostile_names_are_escaped_on_the_ratings_pages(site: Site) -> None:
    await three_wins(site)
    await site.store.web.save_names(GUILD, {A: HOSTILE, B: 'Tom & "Jerry" <b>co</b>'})
    await site.store.web.set_listed(GUILD, True, "<script>alert('guild')</script>")
    chart_path = f"/s/{GUILD}/player/{A}/chart.png?kind=race"
    for path in (f"/s/{GUILD}", f"/s/{GUILD}/leaderboard/race", f"/s/{GUILD}/player/{A}",
                 f"/s/{GUILD}/player/{B}", f"/s/{GUILD}/leaderboard/race?period=30d"):
        status, page = await site.get(path)
        assert status == 200, path
        assert "<script>alert" not in page and "<b>co</b>" not in page, path
        assert html.escape("<script>alert('guild')</script>", quote=True) in page, path
        if "player" not in path or path.endswith(A):
            assert html.escape(HOSTILE, quote=True) in page, path
        assert " style=" not in page and "<script>" not in page, path
    assert html.escape('Tom & "Jerry" <b>co</b>', quote=True) in \
        (await site.get(f"/s/{GUILD}/player/{B}"))[1]
    chart = await site.client.get(chart_path)
    assert chart.status == 200


# -- the read-only store -------------------------------------------------------------------


async def test_the_read_only_store_serves_the_ratings_pages(database: str,
                                                            clock: FakeClock) -> None:
    store = await Store.open(database, clock=clock)
    try:
        for _ in range(MIN_GAMES):
            await win(store, A, B)
        await store.web.save_names(GUILD, NAMES)
        await store.web.set_listed(GUILD, True, "The Table")
    finally:
        await store.close()
    ro = await Store.open(database, readonly=True, clock=clock)
    app = WebApp(ro, WebSettings(rate_per_minute=1e6))
    try:
        async with TestClient(TestServer(app.app)) as client:
            for path in (f"/s/{GUILD}", f"/s/{GUILD}/leaderboard/race?period=30d",
                         f"/s/{GUILD}/player/{A}", f"/s/{GUILD}/player/{B}/chart.png?kind=race"):
                response = await client.get(path)
                assert response.status == 200, path
            assert "Alice" in await (await client.get(f"/s/{GUILD}")).text()
    finally:
        await app.stop()
        await ro.close()


async def test_the_ratings_pages_share_the_request_budget(site: Site) -> None:
    await site.store.web.set_listed(GUILD, True, "The Table")
    site.app.limiter = RateLimiter(60, burst=3)
    for path in (f"/s/{GUILD}", f"/s/{GUILD}/leaderboard/race", f"/s/{GUILD}/player/{A}"):
        assert (await site.client.get(path)).status in (200, 404)
    for path in (f"/s/{GUILD}/leaderboard/race", f"/s/{GUILD}/player/{A}/chart.png?kind=race"):
        response = await site.client.get(path)
        assert response.status == 429 and response.headers["Retry-After"] == "60"
        assert_secure(response)


# -- a phone (tests/browser.py; skipped without Chromium) ------------------------------------

FITS = """
const img = document.querySelector("figure.chart img");
return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
        bodyWidth: document.body.scrollWidth,
        chart: img ? [img.complete, img.naturalWidth, img.getBoundingClientRect().width] : null,
        small: Array.from(document.querySelectorAll("body *")).filter((el) =>
          Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim())
          && parseFloat(getComputedStyle(el).fontSize) < 12).map((el) => el.tagName)};
"""


async def test_the_ratings_pages_fit_a_phone(driver: Any, tmp_path: Path,
                                             clock: FakeClock) -> None:
    store = await Store.open(str(tmp_path / "phone.db"), clock=clock)
    app = WebApp(store, WebSettings(port=0, rate_per_minute=60000))
    try:
        long_name = "W" * 64                    # the longest name kept, without a space
        for _ in range(MIN_GAMES):
            clock.advance(86400)
            await win(store, A, B)
            await win(store, C, D)
        await store.web.save_names(GUILD, {A: long_name, B: "Bob", C: "Carol"})
        await store.web.set_listed(GUILD, True, "A server with a rather long name " * 3)
        await app.start()
        url = f"http://127.0.0.1:{app.port}"
        for path, shot in ((f"/s/{GUILD}", "ratings-server"),
                           (f"/s/{GUILD}/leaderboard/race?period=30d", "ratings-board"),
                           (f"/s/{GUILD}/player/{A}", "ratings-player")):
            await asyncio.to_thread(driver.get, url + path)
            if "player" in path:
                await asyncio.to_thread(
                    driver.execute_script, "document.querySelector('figure.chart img')"
                    ".scrollIntoView()")
                await asyncio.sleep(0.5)
            found = await asyncio.to_thread(driver.execute_script, FITS)
            await asyncio.to_thread(save_screenshot, driver, shot)
            assert found["innerWidth"] == 390, found
            assert found["scrollWidth"] <= found["innerWidth"], (path, found)
            assert found["bodyWidth"] <= found["innerWidth"], (path, found)
            assert not found["small"], (path, found)
            if "player" in path:
                complete, natural, shown = found["chart"]
                assert complete and natural == 1600 and shown <= 390, found
        log = await asyncio.to_thread(driver.get_log, "browser")
        assert not [e for e in log if e["level"] == "SEVERE"
                    and "/favicon.ico " not in e["message"]], log
    finally:
        await asyncio.to_thread(driver.get, "about:blank")
        await app.stop()
        await store.close()
