"""The web companion in a real browser, through the real bot and the loopback Discord: a
player taps "View on the web" under a digest (the button's address, on the bot's own
port), reads the board on a phone, scrubs back through the game, and watches the next
move, played with ``/play`` in the channel, arrive on the open page; their personal link
(``/game web``) shows their hand, and the public page does not.
"""

from __future__ import annotations

from typing import Any

from discord_double.models import walk_components
from e2e_world import World, world_fixture
from selenium.webdriver.common.by import By
from test_e2e_napoleon import NapoleonMatch, entry
from test_web_browser import BOARD, board_at, run, wait_js

from engine.napoleon import GAME
from engine.napoleon.ai import choose_action
from tests import browser as browsers

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "help", "napoleon", "hand"]
PEOPLE = ("alice", "bob")
WEB_URL = "https://warhost.example"

world = world_fixture(people=PEOPLE, commands=COMMANDS, seed=1815, WEB_PORT="0",
                      WEB_URL=WEB_URL, WEB_RATE_PER_MINUTE="100000")


def button_url(message: Any, label: str) -> str:
    [url] = [c["url"] for c in walk_components(message.components)
             if c.get("type") == 2 and c.get("label") == label]
    return str(url)


async def test_from_a_digest_to_a_live_page_on_a_phone(world: World, driver: Any) -> None:
    table = world.dd.table()
    alice = world.uid("alice")
    match = await NapoleonMatch.open(world, table, ["alice", "bob"], options="rounds=10")
    for _ in range(6):
        mover = GAME.to_act(match.state)[0]
        await match.send(choose_action(GAME, match.state, mover), player=mover)
    digest = table.last_message(lambda m: not m.ephemeral and bool(m.attachments))
    tapped = button_url(digest, "View on the web")
    local = f"http://127.0.0.1:{world.running.bot.web.port}"
    page = local + tapped.removeprefix(WEB_URL)
    record = await match.record()
    frames = f"/g/{record.public_id}/frame"

    # the page, as a phone shows it: the latest board, no sideways scroll
    await run(driver.get, page)
    v = record.version
    await run(board_at, driver, f"{frames}/{v}.png", f"Move {v}: ")
    fits = await run(driver.execute_script, "return document.documentElement.scrollWidth <= "
                     "window.innerWidth && window.innerWidth <= 400")
    assert fits
    # scrub back two moves and forward one
    await run(driver.find_element(By.ID, "replay-prev").click)
    await run(driver.find_element(By.ID, "replay-prev").click)
    await run(board_at, driver, f"{frames}/{v - 2}.png", f"Move {v - 2}: ")
    await run(driver.find_element(By.ID, "replay-next").click)
    await run(board_at, driver, f"{frames}/{v - 1}.png", f"Move {v - 1}: ")
    await run(driver.find_element(By.ID, "replay-last").click)
    await run(board_at, driver, f"{frames}/{v}.png", f"Move {v}: ")
    await run(wait_js, driver, "return window.warhostStream && "
              "window.warhostStream.readyState === 1", 5.0, "the event stream opens")
    browsers.save_screenshot(driver, "napoleon-from-discord-phone")

    # the next move, played in the channel, reaches the open page by itself
    mover = GAME.to_act(match.state)[0]
    await match.send(choose_action(GAME, match.state, mover), player=mover)
    v = (await match.record()).version
    await run(wait_js, driver, f"return document.body.dataset.version === '{v}' && "
              "document.getElementById('changed').textContent.startsWith('New move')",
              3.0, f"move {v} reaches the page")
    await run(board_at, driver, f"{frames}/{v}.png", f"Move {v}: ")
    shown = await run(driver.execute_script, BOARD)
    assert shown["max"] == str(v)

    # alice's personal link shows her hand; the public page names none of its cards
    reply = await table.slash("alice", "game web")
    personal = local + button_url(reply.message, "Open my view").removeprefix(WEB_URL)
    hand = [c["name"] for c in entry(GAME.view(match.state, alice), alice)["hand"]]
    public = GAME.view(match.state, None)
    secret = [name for name in hand if name not in str(public)]
    await run(driver.get, personal)
    mine = await run(lambda: driver.find_element(By.ID, "private").text)
    for name in hand:
        assert name in mine
    await run(driver.get, page)
    source = await run(lambda: driver.page_source)
    for name in secret:
        assert name not in source
    assert await run(lambda: driver.find_elements(By.ID, "private")) == []
