"""The leak audit of the web pages: no hidden card reaches a page that may not show it.

For the games with hidden information (Napoleonic Wars, Battlecards), random games are
played through the store (random legal actions, never a resignation), and after every
step each page is fetched: the public page, its ``state.json``, the first event of its
live stream, its frame of the current version, and each player's personal page, data
and frame. A card name is *held* by a player once it appeared in their own view and not
in the public one, or in an event told to them alone; it is forbidden on public output
while it never appeared in the public view, in a public event or in the narration of
one, and forbidden on another player's personal page unless that player saw it too.

Frames are drawn by a stand-in that returns what it was given (so a frame's bytes say
exactly which view it was drawn from, and are searched like the pages), and now and then
by the real renderer, whose PNG must be byte for byte the public view's (drawn at twice
the channel's size, :func:`render.render_large`).
"""

from __future__ import annotations

import asyncio
import html
import itertools
import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

import engine
import render
from db import Store
from engine import public_events
from tests.boards import same_picture
from tests.properties import private_parts, strings
from web.app import WebApp, WebSettings

A, B = "111111111111111111", "222222222222222222"
GUILD = "555555555555555555"
NAMES = {A: "Alice", B: "Bob"}
#: (kind, seed, actions): 60-150 actions each, a few seeds per game.
GAMES = [(kind, seed, 60 + (seed * 37) % 91)
         for kind in ("napoleon", "battlecards") for seed in (1, 2, 3)]
#: The real renderer is checked at every this many steps (and at the last one).
REAL_FRAME_EVERY = 45
_channels = itertools.count(800_000_000_000_000_000)


async def stand_in_draw(kind: str, view: dict[str, Any], events: Any,
                        names: Any) -> bytes:
    return drawn(kind, view, events, names)


def drawn(kind: str, view: Any, events: Any, names: Any) -> bytes:
    """What the stand-in draws: its arguments, as canonical JSON."""
    return json.dumps([kind, view, events, names], sort_keys=True,
                      ensure_ascii=False).encode()


def card_names(value: Any) -> set[str]:
    """The card names in a piece of a view or an event: every ``name``, and the text
    under ``card`` or ``cards``."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "name" and isinstance(item, str):
                found.add(item)
            elif key in ("card", "cards"):
                if isinstance(item, str):
                    found.add(item)
                elif isinstance(item, list):
                    found.update(x for x in item if isinstance(x, str))
            found |= card_names(item)
    elif isinstance(value, list):
        for item in value:
            found |= card_names(item)
    return found


@dataclass
class Audit:
    """What the audit looked at."""

    payloads: int = 0
    name_checks: int = 0
    #: Steps where a player's own page showed a card name forbidden elsewhere (proof
    #: that the search finds a name where it is: the check is not vacuous).
    own_found: int = 0
    real_frames: int = 0
    steps: int = 0

    def check(self, where: str, text: str, forbidden: set[str]) -> None:
        self.payloads += 1
        self.name_checks += len(forbidden)
        leaked = sorted(name for name in forbidden if name in text)
        assert not leaked, f"{where} shows hidden cards {leaked}"


@dataclass
class Web:
    store: Store
    app: WebApp
    client: TestClient
    real: TestClient


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Web]:
    store = await Store.open(str(tmp_path / "leaks.db"))
    settings = WebSettings(rate_per_minute=1e9)
    app = WebApp(store, settings, draw=stand_in_draw)
    real = WebApp(store, settings)                   # the real renderer, in a thread
    client = TestClient(TestServer(app.app))
    real_client = TestClient(TestServer(real.app))
    await client.start_server()
    await real_client.start_server()
    try:
        yield Web(store, app, client, real_client)
    finally:
        await client.close()
        await real_client.close()
        await app.stop()
        await real.stop()
        await store.close()


async def text_of(client: TestClient, path: str) -> str:
    response = await client.get(path)
    assert response.status == 200, path
    return await response.text()


async def hello_of(client: TestClient, path: str) -> str:
    response = await client.get(path)
    assert response.status == 200, path
    text = ""
    try:
        while "event: hello" not in text:
            chunk = await asyncio.wait_for(response.content.readuntil(b"\n\n"), 3)
            assert chunk, "the stream ended before its hello"
            text += chunk.decode()
    finally:
        response.close()
    return text


def page_text(page: str) -> str:
    """A page's text as a reader sees it (entities resolved), markup included."""
    return html.unescape(page)


def json_text(body: str) -> str:
    """Every string a JSON document holds, one a line."""
    return "\n".join(strings(json.loads(body)))


async def audit_game(web: Web, kind: str, seed: int, actions: int, audit: Audit) -> None:
    store, game = web.store, engine.get_game(kind)
    record = await store.lobby.open(kind, GUILD, str(next(_channels)), A)
    await store.lobby.join(record.id, B)
    record = await store.lobby.start(record.id, A, seed=seed)
    tokens = {p: (await store.web.issue_link(record.id, p))[0] for p in (A, B)}
    base = f"/g/{record.public_id}"
    rng = random.Random(seed * 1009 + len(kind))
    public_seen: set[str] = set()       # every public string so far (views, events, words)
    held: dict[str, set[str]] = {A: set(), B: set()}
    state = store.load_state(record)

    def learn_public(view: Any, events: list[dict[str, Any]]) -> None:
        public_seen.update(strings(view), strings(events))
        public_seen.update(game.narrate(events, NAMES))

    learn_public(game.view(state, None), [])
    for step in range(actions + 1):
        if step:
            if game.outcome(state) is not None:
                break
            player = rng.choice(game.to_act(state))
            choices = [a for a in game.legal_actions(state, player) if a != "resign"]
            move = await store.apply_action(record.id, player, rng.choice(choices))
            state, record = move.state, move.record
            events = list(move.events)
            learn_public(game.view(state, None), public_events(events))
            for p in (A, B):
                held[p] |= card_names([e for e in events if e.get("private_to") == p])
        public = game.view(state, None)
        for p in (A, B):
            held[p] |= card_names(private_parts(public, game.view(state, p)))
        everyone = "\n".join(public_seen)
        secret = {p: {n for n in held[p] if n not in everyone} for p in (A, B)}
        hidden = secret[A] | secret[B]
        audit.steps += 1

        where = f"{kind} seed {seed} step {step}"
        audit.check(f"{where}: the public page",
                    page_text(await text_of(web.client, base)), hidden)
        audit.check(f"{where}: the public state.json",
                    json_text(await text_of(web.client, f"{base}/state.json")), hidden)
        audit.check(f"{where}: the public stream's hello",
                    await hello_of(web.client, f"{base}/events"), hidden)
        version = record.version
        marks = public_events(list(move.events)) if step else []
        frame = await (await web.client.get(f"{base}/frame/{version}.png")).read()
        assert frame == drawn(kind, public, marks or None, NAMES), f"{where}: public frame"
        audit.check(f"{where}: the public frame", frame.decode(), hidden)

        for p, other in ((A, B), (B, A)):
            mine = f"/p/{tokens[p]}"
            not_theirs = secret[other] - held[p]
            page = page_text(await text_of(web.client, mine))
            audit.check(f"{where}: {NAMES[p]}'s page", page, not_theirs)
            audit.check(f"{where}: {NAMES[p]}'s state.json",
                        json_text(await text_of(web.client, f"{mine}/state.json")),
                        not_theirs)
            own = await (await web.client.get(f"{mine}/frame/{version}.png")).read()
            assert own == drawn(kind, game.view(state, p), marks or None, NAMES)
            audit.check(f"{where}: {NAMES[p]}'s frame", own.decode(), not_theirs)
            if any(name in page for name in secret[p]):
                audit.own_found += 1

        if step % REAL_FRAME_EVERY == 0 or step == actions or game.outcome(state) is not None:
            png = await (await web.real.get(f"{base}/frame/{version}.png")).read()
            assert same_picture(png, render.render_large(kind, public, marks or None, NAMES)), where
            audit.payloads += 1
            audit.real_frames += 1


async def test_no_hidden_card_reaches_a_page_that_may_not_show_it(web: Web) -> None:
    await web.store.web.save_names(GUILD, NAMES)
    assert {kind for kind, _, _ in GAMES} == {"napoleon", "battlecards"}
    assert all(60 <= actions <= 150 for _, _, actions in GAMES)
    audit = Audit()
    for kind, seed, actions in GAMES:
        await audit_game(web, kind, seed, actions, audit)
    print(f"\nleak audit: {audit.payloads} payloads over {audit.steps} positions of "
          f"{len(GAMES)} games ({audit.real_frames} real frames), {audit.name_checks} "
          f"hidden-name checks; own pages showed their hidden cards at {audit.own_found} "
          "positions")
    assert audit.steps >= 500
    assert audit.payloads >= 10 * audit.steps
    assert audit.name_checks >= 20 * audit.steps           # there was plenty to hide
    assert audit.own_found >= audit.steps                  # and the search finds it
    assert audit.real_frames >= 2 * len(GAMES)


def test_the_audit_finds_a_hidden_card_where_it_is() -> None:
    """The audit's own parts: a hand is private, a name in text is found."""
    game = engine.get_game("napoleon")
    state = game.new_game([A, B], 1, {})
    public, mine = game.view(state, None), game.view(state, A)
    hand = card_names(private_parts(public, mine))
    assert hand and not hand & strings(public)
    audit = Audit()
    name = sorted(hand)[0]
    with pytest.raises(AssertionError, match="hidden cards"):
        audit.check("a page", page_text(f"<li>{html.escape(name)}</li>"), hand)
    audit.check("a page", page_text("<li>nothing here</li>"), hand)
    assert audit.payloads == 2
    assert card_names([{"cards": ["X", 3], "card": "Y", "hand": [{"name": "Z"}]}]) == {
        "X", "Y", "Z"}
