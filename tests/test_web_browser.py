"""The web companion's pages in a real browser: Debian's Chromium, headless, on a 390x844
phone (tests/browser.py), against ``web.app.WebApp`` serving a store on 127.0.0.1.

What a person does with the pages, and what they must see: the replay stepped by its
buttons and the arrow keys (each older board loads); a move reaching an open page by
itself; a personal link showing that seat's hand while the public page shows none of it,
and a revoked link refused; every game's page fitting a phone (no sideways scroll, no
tiny text, fingertip-sized buttons; screenshots in tests/artifacts/web/); players' names
shown as text however hostile; and the Content-Security-Policy enforced with nothing
breaking it. Selenium blocks, so every browser call runs in a thread
(:func:`asyncio.to_thread`) while the server goes on serving on the test's event loop.
Without Chromium the tests are skipped, and the run's summary says so.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

import engine
import web.app
from db import GameRecord, Store
from engine import public_events
from tests.browser import new_driver, save_screenshot
from web.app import WebApp, WebSettings

try:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:       # no selenium: the driver fixture skips every test and says why
    pass

T = TypeVar("T")

GUILD = "310000000000000001"
#: Players: distinct 18-digit user ids.
USERS = tuple(f"41000000000000000{i}" for i in range(1, 7))
KINDS = ("conqueror", "liege", "battlecards", "napoleon", "antiquity")
#: The longest a move may take to reach an open page (the watcher looks every 0.05 s).
LIVE_LIMIT = 3.0

_channels = itertools.count(510000000000000001)


async def run(fn: Callable[..., T], *args: Any) -> T:
    """A blocking browser call, off the event loop the server runs on."""
    return await asyncio.to_thread(fn, *args)


def wait_js(driver: Any, script: str, timeout: float = 5.0, what: str = "") -> Any:
    """Wait (polling every 20 ms) until ``script`` returns something truthy; return it."""
    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(
        lambda d: d.execute_script(script), what or script)


@dataclass
class Site:
    """A store with games, served by the web companion on a free port."""

    store: Store
    app: WebApp
    url: str
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    async def game(self, kind: str, players: int = 2, moves: int = 6, seed: int = 11,
                   names: dict[str, str] | None = None) -> GameRecord:
        """A started game of ``kind`` after ``moves`` random legal moves."""
        seats = USERS[:players]
        record = await self.store.lobby.open(kind, GUILD, str(next(_channels)), seats[0])
        for user in seats[1:]:
            await self.store.lobby.join(record.id, user)
        await self.store.lobby.start(record.id, seats[0], seed=seed)
        await self.store.web.save_names(GUILD, names or {
            u: f"Player {i}" for i, u in enumerate(seats, 1)})
        for _ in range(moves):
            await self.move(record.id)
        return await self.store.get(record.id)

    async def move(self, game_id: int) -> GameRecord:
        """One random legal move (never a resignation) by whoever must act."""
        record = await self.store.get(game_id)
        game = engine.get_game(record.kind)
        state = self.store.load_state(record)
        assert game.outcome(state) is None, "the game ended; play fewer moves"
        player = game.to_act(state)[0]
        actions = [a for a in game.legal_actions(state, player) if a != "resign"]
        await self.store.apply_action(game_id, player, self.rng.choice(actions))
        return await self.store.get(game_id)


@pytest.fixture
async def site(driver: Any, tmp_path: Path,
               monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Site]:
    # A quick heartbeat: an event stream notices its page is gone within 0.2 s (else the
    # server's shutdown waits for it, seconds per test).
    monkeypatch.setattr(web.app, "HEARTBEAT", 0.2)
    store = await Store.open(str(tmp_path / "web.db"))
    app = WebApp(store, WebSettings(port=0, live_every=0.05, rate_per_minute=60000))
    try:
        await app.start()
        yield Site(store, app, f"http://127.0.0.1:{app.port}")
        await run(driver.get, "about:blank")
        for _ in range(100):                    # a closed page lets go of its stream
            if not app.watcher.watched:
                break
            await asyncio.sleep(0.02)
        assert app.watcher.watched == 0, "closed pages still hold their event streams"
    finally:
        await run(driver.get, "about:blank")
        await app.stop()
        await store.close()


# -- the board and the replay ------------------------------------------------------------------

BOARD = """
const img = document.getElementById("board"), slider = document.getElementById("replay-slider");
return {src: new URL(img.getAttribute("src"), location.href).pathname,
        current: new URL(img.currentSrc || "about:blank").pathname,
        loaded: img.complete && img.naturalWidth > 0, width: img.naturalWidth,
        slider: slider.value, max: slider.max,
        caption: document.getElementById("caption").textContent,
        label: document.getElementById("replay-label").textContent};
"""


def board_at(driver: Any, path: str, caption: str, timeout: float = 8.0) -> dict[str, Any]:
    """Wait until the board shows (and has loaded) the frame at ``path`` with a caption
    starting ``caption``; the board's state then."""
    def ready(d: Any) -> Any:
        s = d.execute_script(BOARD)
        good = (s["src"] == path and s["current"] == path and s["loaded"]
                and s["caption"].startswith(caption))
        return s if good else False

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.02).until(ready)
    except Exception:
        raise AssertionError(f"the board never showed {path} captioned {caption!r}: "
                             f"{driver.execute_script(BOARD)}") from None


async def test_replay_steps_back_and_forth_by_buttons_and_keys(driver: Any, site: Site) -> None:
    record = await site.game("conqueror", moves=6)
    v, frames = record.version, f"/g/{record.public_id}/frame"
    assert v >= 4
    await run(driver.get, f"{site.url}/g/{record.public_id}")
    first = await run(board_at, driver, f"{frames}/{v}.png", f"Move {v}: ")
    assert first["width"] > 0 and first["slider"] == first["max"] == str(v)
    assert "latest position" in first["label"]

    def click(button: str) -> Callable[[], None]:
        return lambda: driver.find_element(By.ID, button).click()

    def key(name: str) -> Callable[[], None]:
        return lambda: ActionChains(driver).send_keys(name).perform()

    steps = [(click("replay-prev"), v - 1), (key(Keys.ARROW_LEFT), v - 2),
             (click("replay-next"), v - 1), (key(Keys.ARROW_RIGHT), v),
             (click("replay-first"), 0), (key(Keys.ARROW_RIGHT), 1), (click("replay-last"), v)]
    captions = {v: first["caption"]}
    for act, want in steps:
        await run(act)
        caption = "The start of the game." if want == 0 else f"Move {want}: "
        shown = await run(board_at, driver, f"{frames}/{want}.png", caption)
        assert shown["slider"] == str(want) and shown["max"] == str(v)
        assert shown["width"] > 0                   # the older board is a real image
        if want == v:
            assert "latest position" in shown["label"]
        else:
            assert f"move {want} of {v}" in shown["label"]
        captions.setdefault(want, shown["caption"])
        assert shown["caption"] == captions[want]
    assert len(set(captions.values())) == len(captions)   # each move has its own caption
    link = await run(driver.find_element(By.ID, "board-link").get_attribute, "href")
    assert link.endswith(f"{frames}/{v}.png")


# -- live updates ------------------------------------------------------------------------------

WATCH = """
window.updates = [];
new MutationObserver(() => window.updates.push([document.body.dataset.version, Date.now()]))
  .observe(document.body, {attributes: true, attributeFilter: ["data-version"]});
return true;
"""


async def test_a_move_reaches_the_open_page_by_itself(driver: Any, site: Site) -> None:
    record = await site.game("liege", moves=4)
    v, frames = record.version, f"/g/{record.public_id}/frame"
    await run(driver.get, f"{site.url}/g/{record.public_id}")
    await run(board_at, driver, f"{frames}/{v}.png", f"Move {v}: ")
    await run(wait_js, driver, "return window.warhostStream && "
              "window.warhostStream.readyState === 1", 5.0, "the event stream opens")
    assert await run(driver.find_element(By.ID, "changed").is_displayed) is False
    await run(driver.execute_script, WATCH)
    latencies = []
    for _ in range(3):
        record = await site.move(record.id)
        applied = time.time() * 1000
        v = record.version
        await run(wait_js, driver, f"return document.body.dataset.version === '{v}' && "
                  "document.getElementById('changed').offsetParent !== null && "
                  "document.getElementById('changed').textContent.length > 0",
                  LIVE_LIMIT, f"version {v} reaches the page")
        updates = await run(driver.execute_script, "return window.updates")
        latencies.append(dict(updates)[str(v)] - applied)
        changed = await run(driver.find_element(By.ID, "changed").get_attribute, "textContent")
        assert changed.startswith("New move: ")
        # following the latest position, the board shows the new move
        shown = await run(board_at, driver, f"{frames}/{v}.png", f"Move {v}: ")
        assert shown["max"] == shown["slider"] == str(v)
    assert await run(driver.execute_script,
                     "return document.querySelectorAll('#log-list li.turn.new').length") >= 1
    print(f"live update latency (apply -> page), ms: "
          f"{', '.join(f'{ms:.0f}' for ms in latencies)}")
    assert max(latencies) < LIVE_LIMIT * 1000

    # Looking back at an older move, a new one updates the page but not the board shown.
    await run(driver.find_element(By.ID, "replay-prev").click)
    await run(board_at, driver, f"{frames}/{v - 1}.png", f"Move {v - 1}: ")
    record = await site.move(record.id)
    await run(wait_js, driver, f"return document.body.dataset.version === '{record.version}'",
              LIVE_LIMIT, "the next move reaches the page")
    shown = await run(driver.execute_script, BOARD)
    assert shown["src"] == f"{frames}/{v - 1}.png"
    assert (shown["slider"], shown["max"]) == (str(v - 1), str(record.version))


async def test_a_page_left_for_another_lets_go_of_its_event_stream(site: Site) -> None:
    record = await site.game("conqueror", moves=2)
    page = f"{site.url}/g/{record.public_id}"
    cached = await run(lambda: new_driver(back_forward_cache=True))   # as phones have it
    try:
        await run(cached.get, page)
        await run(wait_js, cached, "return window.warhostStream && "
                  "window.warhostStream.readyState === 1", 5.0, "the event stream opens")
        assert site.app.watcher.watched == 1
        await run(cached.get, site.url + "/")
        for _ in range(50):
            if not site.app.watcher.watched:
                break
            await asyncio.sleep(0.02)
        assert site.app.watcher.watched == 0, "the page left behind still holds its stream"
        # back again (from the cache): the page follows the game once more
        await run(cached.back)
        record = await site.move(record.id)
        await run(wait_js, cached,
                  f"return document.body.dataset.version === '{record.version}'",
                  LIVE_LIMIT, "a move reaches the page come back")
    finally:
        await run(cached.quit)


# -- personal links ----------------------------------------------------------------------------


def hand_texts(view: dict[str, Any], user: str) -> set[str]:
    """The names and texts of ``user``'s cards in a view."""
    found: set[str] = set()
    for seat in view.get("players") or ():
        if str(seat.get("id")) == user:
            for card in seat.get("hand") or ():
                found.update(str(card[k]) for k in ("name", "text") if card.get(k))
    return found


async def test_a_personal_link_shows_the_hand_and_the_public_page_does_not(
        driver: Any, site: Site) -> None:
    record = await site.game("napoleon", moves=6, seed=5)
    me, other = record.seats
    game = engine.get_game("napoleon")
    state = site.store.load_state(record)
    public = json.dumps(game.view(state, None), ensure_ascii=False)
    entries, _ = await site.store.web.log(record)
    told = json.dumps([public_events(list(e.events)) for e in entries], ensure_ascii=False)
    mine = game.view(state, me)
    names = [str(c["name"]) for p in mine["players"] if p["id"] == me for c in p["hand"]]
    assert names, "the seat should hold cards"
    secret = {t for t in hand_texts(mine, me) if t not in public and t not in told}
    assert secret, "some of the hand should be private"
    theirs = {t for t in hand_texts(game.view(state, other), other)
              if t not in public and t not in told}

    token, _ = await site.store.web.issue_link(record.id, me)
    await run(driver.get, f"{site.url}/p/{token}")
    private = await run(driver.find_element, By.ID, "private")
    assert await run(private.is_displayed)
    text = await run(lambda: private.text)
    for name in names:
        assert name in text
    page = await run(lambda: driver.page_source)
    assert not {t for t in theirs if t in page}, "the other seat's hand is on my page"

    for path in (f"/g/{record.public_id}", f"/g/{record.public_id}/state.json"):
        await run(driver.get, site.url + path)
        page = await run(lambda: driver.page_source)
        leaked = sorted(t for t in secret | theirs if t in page)
        assert not leaked, f"{path} shows private cards: {leaked}"
        assert "Your view" not in page
    assert not await run(driver.find_elements, By.ID, "private")

    # Revoked while open: the next move tells the page, which reloads into a refusal.
    await run(driver.get, f"{site.url}/p/{token}")
    await run(wait_js, driver, "return window.warhostStream && "
              "window.warhostStream.readyState === 1", 5.0, "the event stream opens")
    await site.store.web.revoke_links(record.id, me)
    await site.move(record.id)
    await run(wait_js, driver, "return document.title.startsWith('This link does not work')",
              5.0, "the revoked page reloads into a refusal")
    for _ in range(2):                    # the page the stream reloaded, then a fresh load
        status = await run(driver.execute_script,
                           "return performance.getEntriesByType('navigation')[0].responseStatus")
        assert status == 403
        heading = await run(driver.find_element(By.TAG_NAME, "h1").get_attribute, "textContent")
        assert heading == "This link does not work"
        assert "revoked" in await run(driver.find_element(By.TAG_NAME, "main").get_attribute,
                                      "textContent")
        page = await run(lambda: driver.page_source)
        assert not [n for n in names if n in page] and "HTTP 403" in page
        assert not await run(driver.find_elements, By.ID, "private")
        await run(driver.get, f"{site.url}/p/{token}")


# -- a phone -----------------------------------------------------------------------------------

PHONE_CHECK = """
const out = {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
             clientWidth: document.documentElement.clientWidth, small: [], targets: [],
             sticking: []};
const shown = (el) => {
  const st = getComputedStyle(el);
  return st.display !== "none" && st.visibility !== "hidden" && el.getClientRects().length > 0;
};
const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
  + (typeof el.className === "string" && el.className
     ? "." + el.className.split(" ").join(".") : "");
for (const el of document.body.querySelectorAll("*")) {
  if (!shown(el)) continue;
  const r = el.getBoundingClientRect();
  if (r.width > 0 && (r.right > window.innerWidth + 0.5 || r.left < -0.5))
    out.sticking.push([describe(el), Math.round(r.left), Math.round(r.right)]);
  const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own) continue;
  const size = parseFloat(getComputedStyle(el).fontSize);
  if (size < 12) out.small.push([describe(el), size, el.textContent.trim().slice(0, 40)]);
}
for (const el of document.querySelectorAll("button, input[type=range]")) {
  if (!shown(el)) continue;
  const r = el.getBoundingClientRect();
  const slider = el.tagName === "INPUT";
  if (r.height < 44 || (!slider && r.width < 44))
    out.targets.push([describe(el), Math.round(r.width), Math.round(r.height)]);
}
out.buttons = document.querySelectorAll("button").length;
return out;
"""


def phone_problems(driver: Any) -> tuple[dict[str, Any], list[str]]:
    found = driver.execute_script(PHONE_CHECK)
    problems = []
    if not found["innerWidth"] == found["clientWidth"] == 390:
        problems.append(f"the page is not laid out at the phone's width: {found}")
    if found["scrollWidth"] > found["innerWidth"]:
        problems.append(f"sideways scroll: {found['scrollWidth']} > {found['innerWidth']}")
    if found["sticking"]:
        problems.append(f"elements past the screen's edge: {found['sticking'][:8]}")
    if found["small"]:
        problems.append(f"text under 12px: {found['small'][:8]}")
    if found["targets"]:
        problems.append(f"controls under 44px: {found['targets']}")
    return found, problems


@pytest.mark.parametrize("kind", KINDS)
async def test_every_game_fits_a_phone(driver: Any, site: Site, kind: str) -> None:
    record = await site.game(kind, moves=5, seed=3)
    token, _ = await site.store.web.issue_link(record.id, record.seats[0])
    for path, shot in ((f"/g/{record.public_id}", f"{kind}-phone"),
                       (f"/p/{token}", f"{kind}-phone-private")):
        await run(driver.get, site.url + path)
        await run(board_at, driver, f"{path}/frame/{record.version}.png",
                  f"Move {record.version}: ")
        found, problems = await run(phone_problems, driver)
        assert found["buttons"] == 4                 # the replay's four buttons were checked
        await run(save_screenshot, driver, shot)
        assert not problems, f"{kind} at {path.split('/')[1]}: " + "; ".join(problems)


# -- hostile names -----------------------------------------------------------------------------

HOSTILE = ("<script>alert(1)</script>", "{{7*7}}", "<img src=x onerror=alert(2)>")
INJECTED = """
return {scripts: Array.from(document.scripts).map((s) => s.src),
        images: Array.from(document.images).map((i) => i.id),
        seats: Array.from(document.querySelectorAll(".seat-name")).map((e) => e.textContent),
        text: document.body.innerText, title: document.title};
"""


def no_alert(driver: Any) -> bool:
    try:
        driver.switch_to.alert  # noqa: B018 (the property raises when there is none)
    except NoAlertPresentException:
        return True
    return False


async def test_hostile_names_are_shown_as_text(driver: Any, site: Site) -> None:
    names = dict(zip(USERS, HOSTILE, strict=False))
    record = await site.game("conqueror", players=3, moves=5, names=names)
    token, _ = await site.store.web.issue_link(record.id, USERS[0])

    async def check(path: str) -> dict[str, Any]:
        assert await run(no_alert, driver), "an alert opened"
        seen = await run(driver.execute_script, INJECTED)
        assert seen["seats"] == list(HOSTILE)
        assert [s.partition("?")[0] for s in seen["scripts"]] == [
            f"{site.url}/static/app.js"], "a <script> came out of a name"
        assert seen["images"] == ["board"], "an <img> came out of a name"
        assert "49" not in seen["seats"] and "{{7*7}}" in seen["text"]
        for name in HOSTILE:                 # as text, in the log and who acts too
            assert seen["text"].count(name) >= 2, (name, path)
        return seen

    public = f"/g/{record.public_id}"
    await run(driver.get, site.url + public)
    await run(board_at, driver, f"{public}/frame/{record.version}.png", f"Move {record.version}")
    await check(public)
    # a live update writes the page's parts again, in place
    await run(wait_js, driver, "return window.warhostStream && "
              "window.warhostStream.readyState === 1", 5.0, "the event stream opens")
    record = await site.move(record.id)
    await run(wait_js, driver, f"return document.body.dataset.version === '{record.version}'",
              LIVE_LIMIT, "the move reaches the page")
    await check(public)

    await run(driver.get, f"{site.url}/p/{token}")
    seen = await check(f"/p/{token}")
    assert seen["title"].startswith(f"Conqueror #{record.id} · {HOSTILE[0]}'s view")
    private = await run(driver.find_element(By.ID, "private").get_attribute, "textContent")
    assert f"shows {HOSTILE[0]}'s own view" in private


# -- the Content-Security-Policy ---------------------------------------------------------------

INLINE = """
window.violations = [];
document.addEventListener("securitypolicyviolation",
                          (e) => window.violations.push(e.effectiveDirective));
const s = document.createElement("script");
s.textContent = "window.inlineRan = true;";
document.head.appendChild(s);
return true;
"""


async def test_the_pages_keep_their_content_security_policy(driver: Any, site: Site) -> None:
    record = await site.game("battlecards", moves=4)
    token, _ = await site.store.web.issue_link(record.id, record.seats[1])
    for path in (f"/g/{record.public_id}", f"/p/{token}"):
        await run(driver.get, site.url + path)
        await run(board_at, driver, f"{path}/frame/{record.version}.png",
                  f"Move {record.version}: ")
        await run(wait_js, driver, "return window.warhostStream && "
                  "window.warhostStream.readyState === 1", 5.0, "the event stream opens")
        await run(driver.find_element(By.ID, "replay-prev").click)
        await run(board_at, driver, f"{path}/frame/{record.version - 1}.png",
                  f"Move {record.version - 1}: ")
        record = await site.move(record.id)
        await run(wait_js, driver,
                  f"return document.body.dataset.version === '{record.version}'",
                  LIVE_LIMIT, "the move reaches the page")
    await run(driver.get, f"{site.url}/g/{'0' * 24}")           # a 404 page, styled
    await run(driver.get, site.url + "/")
    log = await run(driver.get_log, "browser")
    csp = [e for e in log if "Content Security Policy" in e["message"]
           or "Refused to" in e["message"]]
    assert not csp, f"the pages break their own policy: {csp}"
    # The 404 is asked for on purpose, and the server has no /favicon.ico (which the
    # browser asks for by itself); any other error in the console is a fault.
    errors = [e for e in log if e["level"] == "SEVERE" and "/g/0000" not in e["message"]
              and "/favicon.ico " not in e["message"]]
    assert not errors, f"errors in the browser's console: {errors}"

    # ... and the policy is in force: an inline script is refused, and reported.
    await run(driver.get, f"{site.url}/g/{record.public_id}")
    await run(driver.execute_script, INLINE)
    violations = await run(wait_js, driver, "return window.violations.length && "
                           "window.violations", 3.0, "the inline script is refused")
    assert "script-src-elem" in violations
    assert await run(driver.execute_script, "return window.inlineRan === undefined")
    log = await run(driver.get_log, "browser")
    assert any("Content Security Policy" in e["message"] for e in log)
