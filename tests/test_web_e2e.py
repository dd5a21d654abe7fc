"""The web companion served by the real bot (``WEB_PORT``), driven through the loopback
Discord: the "View on the web" button under every digest and on the status message,
``/game web`` (a personal link to the caller alone, revocable), ``/web settings`` (admins
only) and the server's page; and a whole Napoleonic Wars game whose every public page,
its data and its event stream are audited, move by move, for cards no one may see, while
each player's personal page shows their own hand.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import aiohttp
import pytest
from discord_double import Message
from discord_double.models import walk_components
from discord_double.table import ClientRefused
from e2e_driver import Audit, computer
from e2e_world import World, world_fixture
from test_e2e_napoleon import NapoleonMatch, entry

from engine.napoleon import GAME
from engine.napoleon.ai import choose_action

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "napoleon", "hand", "web"]
PEOPLE = ("alice", "bob", "carol", "erin")
SEED = 1812
WEB_URL = "https://warhost.example"
MANAGE_GUILD = 1 << 5


def make_erin_admin(dd: Any) -> None:
    dd.add_role("admins", permissions=MANAGE_GUILD, members=["erin"])


world = world_fixture(people=PEOPLE, commands=COMMANDS, seed=SEED, prepare=make_erin_admin,
                      WEB_PORT="0", WEB_URL=WEB_URL, WEB_RATE_PER_MINUTE="1000000")


#: The same bot with no web pages configured.
plain_world = world_fixture(people=PEOPLE, commands=COMMANDS, seed=SEED,
                            prepare=make_erin_admin, name="plain_world")


def link_buttons(message: Message) -> list[str]:
    return [c["url"] for c in walk_components(message.components)
            if c.get("type") == 2 and c.get("style") == 5]


class WebReader:
    """Reads the bot's pages as a browser would (the bot's real port stands in for
    WEB_URL's host)."""

    def __init__(self, world: World, session: aiohttp.ClientSession) -> None:
        self.world = world
        self.session = session
        self.base = f"http://127.0.0.1:{world.running.bot.web.port}"

    def local(self, url: str) -> str:
        assert url.startswith(WEB_URL + "/"), url
        return self.base + url[len(WEB_URL):]

    async def get(self, url: str) -> tuple[int, str]:
        async with self.session.get(self.local(url)) as response:
            return response.status, await response.text()

    async def hello(self, url: str) -> str:
        """The first event of a page's stream."""
        async with self.session.get(self.local(url) + "/events") as response:
            assert response.headers["Content-Type"].startswith("text/event-stream")
            text = ""
            while "event: hello" not in text or not text.endswith("\n\n"):
                text += (await asyncio.wait_for(response.content.readany(), 5)).decode()
            return text


async def test_buttons_links_and_the_server_page(world: World) -> None:
    table = world.dd.table()
    alice, bob = world.uid("alice"), world.uid("bob")
    match = await NapoleonMatch.open(world, table, ["alice", "bob"], options="rounds=10")
    record = await match.record()
    assert re.fullmatch(r"[0-9a-f]{24}", record.public_id)
    page = f"{WEB_URL}/g/{record.public_id}"
    # the opening digest and the status message carry the button to the public page
    digest = table.last_message(lambda m: not m.ephemeral and bool(m.attachments))
    assert link_buttons(digest) == [page]
    status = world.dd.messages[record.lobby_message_id]
    assert link_buttons(status) == [page]
    # and so does the next digest, after a move
    mover = GAME.to_act(match.state)[0]
    await match.send(choose_action(GAME, match.state, mover), player=mover)
    assert link_buttons(table.last_message(lambda m: not m.ephemeral)) == [page]

    async with aiohttp.ClientSession() as session:
        web = WebReader(world, session)
        status_code, html = await web.get(page)
        assert status_code == 200 and "Napoleonic Wars" in html
        # players' display names were kept when they joined and started
        assert "alice" in html and "bob" in html

        # /game web: a personal link, to the caller alone; it shows their hand
        reply = await table.slash("alice", "game web")
        assert reply.ephemeral and reply.message.visible_to == alice
        [personal] = [u for u in link_buttons(reply.message) if "/p/" in u]
        assert personal not in json.dumps([m.payloads for m in table.messages
                                           if not m.ephemeral])
        code, mine = await web.get(personal)
        assert code == 200 and "Your view" in mine
        for card in entry(GAME.view(match.state, alice), alice)["hand"]:
            assert card["name"] in mine
        # bob asks for his: a different link, his hand, not alice's secrets
        [bobs] = [u for u in link_buttons((await table.slash("bob", "game web")).message)
                  if "/p/" in u]
        code, his = await web.get(bobs)
        assert code == 200
        for card in entry(GAME.view(match.state, bob), bob)["hand"]:
            assert card["name"] in his
        # a spectator gets the public page only
        spectator = await table.slash("carol", "game web")
        assert "/p/" not in spectator.message.text and page in spectator.message.text

        # revoking: the old link stops working, a new one works
        revoked = await table.slash("alice", "game web", revoke=True)
        assert revoked.ephemeral and "stopped working" in revoked.message.text
        code, refused = await web.get(personal)
        assert code == 403 and "revoked" in refused and "Your view" not in refused
        [fresh] = [u for u in link_buttons((await table.slash("alice", "game web")).message)
                   if "/p/" in u]
        assert (await web.get(fresh))[0] == 200

        # the server's page: off until an admin turns it on; a player may not
        server_page = f"{WEB_URL}/s/{world.dd.guild.id}"
        assert (await web.get(server_page))[0] == 404
        with pytest.raises(ClientRefused, match="needs permissions"):
            await table.slash("alice", "web settings", listing="on")   # Discord hides it
        assert (await web.get(server_page))[0] == 404
        asked = await table.slash("erin", "web settings")          # no option: how it is
        assert asked.ephemeral and "is off" in asked.message.text
        allowed = await table.slash("erin", "web settings", listing="on")
        assert allowed.ephemeral and server_page in allowed.message.text
        code, listing = await web.get(server_page)
        assert code == 200 and f"/g/{record.public_id}" in listing and "/p/" not in listing
        asked = await table.slash("erin", "web settings")
        assert f"is on: {server_page}" in asked.message.text
        await table.slash("erin", "web settings", listing="off")
        assert (await web.get(server_page))[0] == 404


async def test_a_whole_game_audited_on_the_web(world: World) -> None:
    """Every public page, its data and its stream, after every move, name no card a
    player holds unseen; each personal page shows its own hand and no one else's secrets;
    an open stream hears of each move well within a second."""
    table = world.dd.table()
    alice, bob = world.uid("alice"), world.uid("bob")
    match = await NapoleonMatch.open(world, table, ["alice", "bob"], options="rounds=10")
    record = await match.record()
    page = f"{WEB_URL}/g/{record.public_id}"
    links = {}
    for name, pid in (("alice", alice), ("bob", bob)):
        [links[pid]] = [u for u in link_buttons((await table.slash(name, "game web")).message)
                        if "/p/" in u]
    audited = {"html": 0, "json": 0, "stream": 0, "personal": 0}
    latencies: list[float] = []

    async with aiohttp.ClientSession() as session:
        web = WebReader(world, session)
        events = await session.get(web.local(page) + "/events")
        buffer = ""

        async def next_version() -> int:
            nonlocal buffer
            while True:
                match_ = re.search(r"event: move\ndata: (\{.*?\})\n\n", buffer)
                if match_:
                    buffer = buffer[match_.end():]
                    return int(json.loads(match_.group(1))["version"])
                buffer += (await asyncio.wait_for(events.content.readany(), 5)).decode()

        def check(text: str, audience: str | None, what: str) -> None:
            leaked = {name for name in match.secrets.forbidden(audience) if name in text}
            assert not leaked, f"{leaked} leaked to {audience or 'everyone'} on {what}"

        async def audit_pages(n: int) -> None:
            sent = time.perf_counter()
            version = (await match.record()).version
            while await next_version() < version:
                pass
            latencies.append(time.perf_counter() - sent)
            personal = n % 3 == 0       # every third move: the personal pages too
            readers = [(page, None)] + ([(links[alice], alice), (links[bob], bob)]
                                        if personal else [])
            for url, audience in readers:
                code, html = await web.get(url)
                assert code == 200
                check(html, audience, url)
                code, data = await web.get(url + "/state.json")
                assert code == 200 and json.loads(data)["version"] == version
                check(data, audience, url + "/state.json")
                audited["html" if audience is None else "personal"] += 1
                audited["json"] += 1
            check(await web.hello(page), None, "the event stream")
            audited["stream"] += 1
            # each personal page shows its own hand
            for pid in (alice, bob) if personal else ():
                _, mine = await web.get(links[pid])
                for card in entry(GAME.view(match.state, pid), pid)["hand"]:
                    assert card["name"] in mine

        try:
            await match.play_until_over(computer(GAME, choose_action), after=audit_pages)
        finally:
            events.close()
    match.audit.look()            # and Discord's own payloads, as the other tests do
    assert isinstance(match.audit, Audit)
    assert audited["html"] >= 20 and audited["personal"] >= 12
    latencies.sort()
    median = latencies[len(latencies) // 2]
    print(f"web pages audited: {audited}; a move reached the open stream in "
          f"{median * 1000:.0f} ms median, {latencies[-1] * 1000:.0f} ms at most")
    assert latencies[-1] < 1.0


async def test_without_web_pages_discord_says_how_to_turn_them_on(plain_world: World) -> None:
    table = plain_world.dd.table()
    match = await NapoleonMatch.open(plain_world, table, ["alice", "bob"], options="rounds=10")
    assert plain_world.running.bot.web is None                    # nothing listens
    for message in table.messages:                               # no link buttons anywhere
        assert link_buttons(message) == []
    for who, command, options in (("alice", "game web", {}),
                                  ("erin", "web settings", {"listing": "on"})):
        reply = await table.slash(who, command, **options)
        assert reply.ephemeral and "WEB_PORT and WEB_URL" in reply.message.text
    # revoking needs no pages: it works (and says so) all the same
    revoked = await table.slash("alice", "game web", revoke=True)
    assert "stopped working" in revoked.message.text
    assert await plain_world.store.web.listing(plain_world.dd.guild.id) is None
    # names are kept only for pages: none here
    record = await match.record()
    assert await plain_world.store.web.names(record.guild_id, record.seats) == {}
