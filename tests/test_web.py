"""The web companion's server side (web/, db/web.py), without a browser.

The store's side on both backends: public ids, display names, server listings, personal
links (signed, expiring, revocable, gone with a privacy deletion) and the read-only open
the web processes use. Then the HTTP server: its security headers on every answer, plain
error pages without details, its request budget, escaping of hostile names, replay frames
drawn from the replayed log (once each), live events, tokens kept out of the logs; the
page model; and ``python -m web``'s refusals.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import html
import itertools
import json
import logging
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

import engine
import render
from db import Store, StoreError, schema_pg
from db.backend import is_postgres
from db.records import BY_UNDO, GameRecord
from db.replay import opening, replay
from db.schema import SCHEMA_VERSION
from db.web import LINK_DAYS, NAME_LIMIT, LinkRefused
from engine import public_events
from engine.verify import read, verify
from tests import databases
from tests.boards import same_picture
from tests.clocks import T0, FakeClock
from web import pages
from web.app import RateLimiter, WebApp, WebSettings, redact
from web.model import Names, page_data

REPO = Path(__file__).resolve().parents[1]
A, B, C, D = ("111111111111111111", "222222222222222222", "333333333333333333",
              "444444444444444444")
GUILD, OTHER_GUILD = "555555555555555555", "666666666666666666"
PUBLIC_ID = re.compile(r"[0-9a-f]{24}")
NAMES = {A: "Alice", B: "Bob", C: "Carol", D: "Dave"}
_channels = itertools.count(700_000_000_000_000_000)


# -- helpers ---------------------------------------------------------------------------------


async def new_game(store: Store, kind: str = "conqueror", players: tuple[str, ...] = (A, B),
                   *, start: bool = True, seed: int = 1, computers: int = 0,
                   guild: str | None = GUILD) -> GameRecord:
    """A game opened in a channel of its own, its players seated (and started)."""
    record = await store.lobby.open(kind, guild, str(next(_channels)), players[0],
                                    computers=computers)
    for player in players[1:]:
        record = await store.lobby.join(record.id, player)
    if start:
        record = await store.lobby.start(record.id, players[0], seed=seed)
    return record


async def play(store: Store, game_id: int, moves: int, seed: int = 0) -> GameRecord:
    """``moves`` random legal actions (never a resignation) by whoever acts."""
    rng = random.Random(seed)
    for _ in range(moves):
        record = await store.get(game_id)
        game = engine.get_game(record.kind)
        state = store.load_state(record)
        if game.outcome(state) is not None:
            break
        player = rng.choice(game.to_act(state))
        actions = [a for a in game.legal_actions(state, player) if a != "resign"]
        await store.apply_action(game_id, player, rng.choice(actions))
    return await store.get(game_id)


def assert_secure(response: aiohttp.ClientResponse) -> None:
    """The headers every answer carries, whatever its status."""
    csp = response.headers.get("Content-Security-Policy", "")
    assert "default-src 'none'" in csp, (response.status, dict(response.headers))
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert response.headers.get("X-Content-Type-Options") == "nosniff"
    assert response.headers.get("Referrer-Policy") == "no-referrer"


def tampered(token: str, index: int) -> str:
    """``token`` with the character at ``index`` replaced by another of base64url's that
    changes the decoded bytes (not only the unused low bits of a last character)."""
    char = token[index]
    replacement = "A" if char not in "ABCD" else "w"
    return token[:index] + replacement + token[index + 1:]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(key: bytes, claims: dict[str, Any]) -> str:
    payload = json.dumps(claims, separators=(",", ":")).encode()
    return f"{b64(payload)}.{b64(hmac.new(key, payload, hashlib.sha256).digest())}"


async def next_event(response: aiohttp.ClientResponse,
                     timeout: float = 3.0) -> tuple[str, Any]:
    """The next named server-sent event (``retry:`` and heartbeats skipped)."""
    while True:
        chunk = await asyncio.wait_for(response.content.readuntil(b"\n\n"), timeout)
        if not chunk:
            raise EOFError("the stream ended")
        fields: dict[str, str] = {}
        for line in chunk.decode().splitlines():
            if not line or line.startswith(":"):
                continue
            key, _, value = line.partition(":")
            fields[key] = value.strip()
        if "event" in fields:
            return fields["event"], json.loads(fields.get("data") or "null")


async def until(condition: Any, timeout: float = 2.0) -> float:
    """Wait for ``condition()``; how long it took (AssertionError past ``timeout``)."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"not within {timeout} s")
        await asyncio.sleep(0.02)
    return time.monotonic() - start


@dataclass
class Site:
    store: Store
    app: WebApp
    client: TestClient
    clock: FakeClock
    path: Path


@pytest.fixture
async def site(tmp_path: Path, clock: FakeClock) -> AsyncIterator[Site]:
    """A SQLite store with the web app over it, behind aiohttp's test client."""
    path = tmp_path / "w.db"
    store = await Store.open(str(path), clock=clock)
    app = WebApp(store, WebSettings(rate_per_minute=1e6))
    client = TestClient(TestServer(app.app))
    await client.start_server()
    try:
        yield Site(store, app, client, clock, path)
    finally:
        await client.close()
        await app.stop()
        await store.close()


# -- db/web.py, both backends ----------------------------------------------------------------

def test_every_postgresql_migration_splits_into_statements() -> None:
    """An apostrophe in a migration's comment once opened a quote that never closed, and
    no new PostgreSQL database could be opened (the web's migration 6)."""
    for number, script in enumerate(schema_pg.MIGRATIONS):
        statements = schema_pg.split_statements(script)
        assert statements, number
    assert any("web_guilds" in s for s in schema_pg.split_statements(schema_pg.MIGRATIONS[5]))


async def test_public_ids_are_random_hex_and_found_only_by_themselves(
        store: Store, tmp_path: Path) -> None:
    records = [await new_game(store, start=i % 2 == 0) for i in range(6)]
    ids = [r.public_id for r in records]
    assert all(PUBLIC_ID.fullmatch(p) for p in ids), ids
    assert len(set(ids)) == len(ids)
    for record in records:
        found = await store.web.game(record.public_id)
        assert found is not None and found.id == record.id
        assert record.public_id not in {str(record.id), format(record.id, "024x"),
                                        format(record.id, "024d")}
    # Not derived from the row id: the same row ids in another database get other ids.
    other = await Store.open(str(tmp_path / "other.db"))
    try:
        again = [await new_game(other, start=i % 2 == 0) for i in range(6)]
    finally:
        await other.close()
    assert [r.id for r in again] == [r.id for r in records]
    assert not set(ids) & {r.public_id for r in again}
    numbers = sorted(int(p, 16) for p in ids)
    assert all(b - a > 1000 for a, b in itertools.pairwise(numbers))   # not a counter
    pid = ids[0]
    for garbage in ("", "²³", "²" * 24, "٠" * 24, "0" * 10_000, "f" * 10_000,
                    "' OR 1=1 --", f"{pid}' OR '1'='1", "%", "_" * 24, "0" * 24,
                    pid.upper(), pid[:-1], pid + "0", f" {pid}", pid + "\x00",
                    str(records[0].id), "1; DROP TABLE games"):
        assert await store.web.game(garbage) is None, garbage
    assert await store.web.game(pid) is not None          # nothing was dropped


async def test_personal_links_work_until_forged_expired_or_revoked(
        store: Store, clock: FakeClock) -> None:
    record = await new_game(store)
    token, expires = await store.web.issue_link(record.id, A)
    assert expires == pytest.approx(T0 + LINK_DAYS * 86400, abs=1)
    link = await store.web.check_link(token)
    assert (link.record.id, link.user_id) == (record.id, A)
    assert A not in token and record.public_id not in token        # not readable as is

    payload, _, signature = token.partition(".")
    refused = [
        tampered(token, 5), tampered(token, len(payload) // 2),          # the payload
        tampered(token, len(payload) + 1), tampered(token, len(token) - 10),  # signature
        token[:-3], token[:len(payload)], token[:len(payload) + 1], payload,
        f"{payload}.", f".{signature}", token.replace(".", ""), token + "." + signature,
        "x" * 11, "²" * 40, "a.b" * 200, "",
    ]
    for bad in refused:
        with pytest.raises(LinkRefused, match="not a Warhost link"):
            await store.web.check_link(bad)
    key = await store.web.key()
    claims = {"g": record.public_id, "u": A, "n": 0, "e": int(T0 + 86400)}
    assert (await store.web.check_link(sign(key, claims))).user_id == A   # the format
    with pytest.raises(LinkRefused):                                      # another key
        await store.web.check_link(sign(hashlib.sha256(b"other").digest(), claims))
    with pytest.raises(LinkRefused):                                      # no seat
        await store.web.check_link(sign(key, {**claims, "u": C}))
    with pytest.raises(LinkRefused):                                      # next generation
        await store.web.check_link(sign(key, {**claims, "n": 1}))
    with pytest.raises(LinkRefused, match="gone"):                        # no such game
        await store.web.check_link(sign(key, {**claims, "g": "0" * 24}))
    with pytest.raises(StoreError, match="no seat"):
        await store.web.issue_link(record.id, C)

    # Revoked: the old link fails, a new one works; the other player's is untouched.
    other, _ = await store.web.issue_link(record.id, B)
    await store.web.revoke_links(record.id, A)
    with pytest.raises(LinkRefused, match="revoked"):
        await store.web.check_link(token)
    fresh, _ = await store.web.issue_link(record.id, A)
    assert fresh != token
    assert (await store.web.check_link(fresh)).user_id == A
    assert (await store.web.check_link(other)).user_id == B

    # Expired: a moment before it works, a moment after it does not.
    clock.advance(LINK_DAYS * 86400 - 5)
    assert (await store.web.check_link(fresh)).user_id == A
    clock.advance(10)
    with pytest.raises(LinkRefused, match="expired"):
        await store.web.check_link(fresh)


async def test_every_other_spelling_of_a_link_is_refused(store: Store) -> None:
    record = await new_game(store)
    token, _ = await store.web.issue_link(record.id, A)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    accepted = []
    for index in (len(token) - 1, token.index(".") - 1):
        for char in alphabet.replace(token[index], ""):
            spelled = token[:index] + char + token[index + 1:]
            with contextlib.suppress(LinkRefused):
                await store.web.check_link(spelled)
                accepted.append(spelled)
    for suffix in ("=", "==", "==="):
        with contextlib.suppress(LinkRefused):
            await store.web.check_link(token + suffix)
            accepted.append(token + suffix)
    assert accepted == []


async def test_names_are_kept_per_server_and_servers_listed_on_request(store: Store) -> None:
    assert await store.web.names(GUILD, [A, B]) == {}
    await store.web.save_names(GUILD, {A: "Alice", B: "Bob"})
    await store.web.save_names(OTHER_GUILD, {A: "Ally"})
    await store.web.save_names(None, {A: "Alice in DMs"})
    assert await store.web.names(GUILD, [A, B, C]) == {A: "Alice", B: "Bob"}
    assert await store.web.names(OTHER_GUILD, [A, B]) == {A: "Ally"}
    assert await store.web.names(None, [A]) == {A: "Alice in DMs"}
    assert await store.web.names(GUILD, []) == {}
    await store.web.save_names(GUILD, {A: "Alicia", C: "x" * 100})       # upserts
    assert await store.web.names(GUILD, [A, B, C]) == {A: "Alicia", B: "Bob",
                                                       C: "x" * NAME_LIMIT}
    await store.web.save_names(GUILD, {"1'; DELETE FROM player_names; --": "Mallory"})
    assert await store.web.names(GUILD, [A, "1'; DELETE FROM player_names; --"]) == {
        A: "Alicia", "1'; DELETE FROM player_names; --": "Mallory"}
    with pytest.raises(StoreError):
        await store.web.save_names(GUILD, {"": "Nobody"})

    assert await store.web.listing(GUILD) is None
    await store.web.set_listed(GUILD, True, "The Table")
    assert await store.web.listing(GUILD) == "The Table"
    assert await store.web.listing(OTHER_GUILD) is None
    await store.web.set_listed(GUILD, True, "")
    assert await store.web.listing(GUILD) == "A Discord server"
    await store.web.set_listed(GUILD, False, "The Table")
    assert await store.web.listing(GUILD) is None


async def test_forgetting_a_user_deletes_their_names_and_kills_their_links(
        store: Store, database: str) -> None:
    record = await new_game(store)
    await store.web.save_names(GUILD, {A: "Alice", B: "Bob"})
    await store.web.save_names(OTHER_GUILD, {B: "Bobby"})
    token_b, _ = await store.web.issue_link(record.id, B)
    token_a, _ = await store.web.issue_link(record.id, A)
    await store.privacy.forget_user(B)
    assert await store.web.names(GUILD, [A, B]) == {A: "Alice"}
    assert await store.web.names(OTHER_GUILD, [B]) == {}
    with pytest.raises(LinkRefused):
        await store.web.check_link(token_b)
    assert (await store.web.check_link(token_a)).user_id == A
    assert databases.raw(database, "SELECT count(*) FROM web_links WHERE user_id = ?",
                         (B,))[0][0] == 0
    assert databases.raw(database, "SELECT count(*) FROM player_names WHERE user_id = ?",
                         (B,))[0][0] == 0


# -- the read-only open ----------------------------------------------------------------------


async def test_a_readonly_open_refuses_a_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    with pytest.raises(StoreError, match=r"no database .* Start the bot"):
        await Store.open(str(missing), readonly=True)
    assert not missing.exists()
    assert list(tmp_path.iterdir()) == []


async def test_a_readonly_open_refuses_another_schema_version(database: str) -> None:
    with pytest.raises(StoreError, match=r"schema version 0|no database"):   # none yet
        await Store.open(database, readonly=True)
    store = await Store.open(database)
    await store.close()
    for version in (SCHEMA_VERSION - 1, SCHEMA_VERSION + 1):
        if is_postgres(database):
            databases.raw(database, "UPDATE warhost_schema SET version = ?", (version,))
        else:
            databases.raw(database, f"PRAGMA user_version = {version:d}")
        with pytest.raises(StoreError, match=f"schema version {version}.*Start the bot"):
            await Store.open(database, readonly=True)


async def test_a_readonly_store_reads_and_never_writes(database: str, tmp_path: Path) -> None:
    store = await Store.open(database)
    record = await new_game(store)
    record = await play(store, record.id, 4)
    await store.web.save_names(GUILD, {A: "Alice"})
    await store.web.set_listed(GUILD, True, "The Table")
    token, _ = await store.web.issue_link(record.id, A)
    await store.close()
    sqlite = not is_postgres(database)
    rows_before = everything(database)
    before = (Path(database).read_bytes(), os.stat(database).st_mtime_ns) if sqlite else None

    ro = await Store.open(database, readonly=True)
    try:
        found = await ro.web.game(record.public_id)
        assert found is not None and found.version == record.version
        assert (await ro.web.check_link(token)).user_id == A
        assert await ro.web.names(GUILD, [A, B]) == {A: "Alice"}
        assert await ro.web.listing(GUILD) == "The Table"
        entries, digests = await ro.web.log(found)
        assert len(entries) == record.version and digests
        writes = [lambda: ro.web.save_names(GUILD, {B: "Bob"}),
                  lambda: ro.web.set_listed(GUILD, False),
                  lambda: ro.web.issue_link(record.id, B),
                  lambda: ro.web.revoke_links(record.id, A),
                  lambda: ro.lobby.open("conqueror", GUILD, "999999999999999999", A),
                  lambda: ro.lobby.abort(record.id)]
        for write in writes:
            with pytest.raises(StoreError):
                await write()
        assert await ro.web.names(GUILD, [A, B]) == {A: "Alice"}
        assert (await ro.web.check_link(token)).user_id == A
    finally:
        await ro.close()
    assert everything(database) == rows_before
    if sqlite:
        assert before is not None
        assert (Path(database).read_bytes(), os.stat(database).st_mtime_ns) == before
        con = sqlite3.connect(database)
        try:
            assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            con.close()


def everything(database: str) -> list[str]:
    """Every row of the store's tables, the web's own included."""
    rows = databases.snapshot(database)
    for table in ("player_names", "web_links", "web_keys", "web_guilds"):
        rows += sorted(repr(tuple(r)) for r in databases.raw(database, f"SELECT * FROM {table}"))
    return rows


@pytest.mark.sqlite_only
async def test_a_readonly_open_leaves_the_journal_mode_alone(tmp_path: Path) -> None:
    path = tmp_path / "rollback.db"
    store = await Store.open(str(path))
    record = await new_game(store)
    await store.close()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    con.close()
    before = path.read_bytes()
    ro = await Store.open(str(path), readonly=True)
    try:
        assert (await ro.web.game(record.public_id)) is not None
        with pytest.raises(StoreError):
            await ro.web.save_names(GUILD, {A: "Alice"})
    finally:
        await ro.close()
    assert path.read_bytes() == before
    assert not Path(f"{path}-wal").exists()
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        con.close()


# -- HTTP: headers, errors, refusals ---------------------------------------------------------


async def test_a_game_page_and_its_parts_answer_with_strict_headers(site: Site) -> None:
    record = await play(site.store, (await new_game(site.store)).id, 3)
    await site.store.web.save_names(GUILD, NAMES)
    base = f"/g/{record.public_id}"
    for path, kind in ((base, "text/html"), (f"{base}/state.json", "application/json"),
                       (f"{base}/frame/0.png", "image/png"),
                       (f"{base}/frame/{record.version}.png", "image/png"),
                       ("/", "text/html"), ("/healthz", "text/plain"),
                       ("/static/app.js", "text/javascript"), ("/static/app.css", "text/css")):
        response = await site.client.get(path)
        body = await response.read()
        assert response.status == 200, path
        assert response.content_type == kind, path
        assert_secure(response)
        assert body
    icon = await site.client.get("/favicon.ico")
    assert icon.status == 204
    assert_secure(icon)
    page = await (await site.client.get(base)).text()
    assert "Alice" in page and "Bob" in page and "Conqueror" in page
    assert f'src="{base}/frame/{record.version}.png"' in page
    assert "<script>" not in page and " style=" not in page      # nothing inline
    png = await (await site.client.get(f"{base}/frame/{record.version}.png")).read()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    data = await (await site.client.get(f"{base}/state.json")).json()
    assert data["version"] == record.version and data["viewer"] is None
    assert data["private"] is None and set(data["parts"]) >= {"now", "seats-list", "log-list"}


async def test_unknown_pages_and_bad_frame_numbers_are_plain_404s(site: Site) -> None:
    record = await play(site.store, (await new_game(site.store)).id, 2)
    lobby = await new_game(site.store, start=False)
    base = f"/g/{record.public_id}"
    paths = ["/g/" + "0" * 24, "/g/" + "0" * 24 + "/state.json", "/g/not-a-game",
             "/g/" + "f" * 5000, "/g/%C2%B2%C2%B3", "/nope", "/static/../db/web.py",
             "/static/nope.js", f"{base}/nope", "/s/" + "0" * 24,
             f"/g/{lobby.public_id}/frame/0.png", "/g/%27%20OR%201%3D1"]
    paths += [f"{base}/frame/{name}" for name in (
        "-1.png", "-1", "99999999.png", "99999999", "%C2%B2.png", "%C2%B2", "1.png.png",
        "1", "1.PNG", "1.jpg", f"{record.version + 1}.png", "9999999.png", ".png", " 1.png",
        "0x1.png", "1e2.png", "%EF%BC%91.png")]
    for path in paths:
        response = await site.client.get(path)
        text = await response.text()
        assert response.status == 404, path
        assert response.content_type == "text/html", path
        assert_secure(response)
        assert "Not found" in text and "Traceback" not in text, path
        assert "<script" not in text
    assert (await site.client.get(f"/g/{lobby.public_id}")).status == 200


async def test_only_get_is_allowed(site: Site) -> None:
    record = await new_game(site.store)
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        for path in (f"/g/{record.public_id}", "/", "/nope", f"/g/{record.public_id}/events"):
            response = await site.client.request(method, path, data=b"x=1")
            assert response.status == 405, (method, path)
            assert_secure(response)
            assert "only be read" in await response.text()
    assert (await site.client.get(f"/g/{record.public_id}")).status == 200


async def test_refused_personal_links_answer_403_saying_why(site: Site) -> None:
    record = await play(site.store, (await new_game(site.store)).id, 2)
    token, _ = await site.store.web.issue_link(record.id, A)
    for suffix in ("", "/state.json", "/frame/0.png"):
        assert (await site.client.get(f"/p/{token}{suffix}")).status == 200
    payload, _, signature = token.partition(".")
    forged = f"{payload}.{b64(hashlib.sha256(b'forged').digest())}"
    cases = [(forged, "not a Warhost link"), (tampered(token, 7), "not a Warhost link"),
             ("garbage", "not a Warhost link"), ("x" * 2000, "not a Warhost link")]
    for bad, why in cases:
        for suffix in ("", "/state.json", "/frame/0.png", "/events"):
            response = await site.client.get(f"/p/{bad}{suffix}")
            text = await response.text()
            assert response.status == 403, (bad[:20], suffix)
            assert_secure(response)
            assert why in text and "This link does not work" in text
            assert signature not in text
    await site.store.web.revoke_links(record.id, A)
    response = await site.client.get(f"/p/{token}")
    assert response.status == 403 and "revoked" in await response.text()
    assert_secure(response)
    fresh, _ = await site.store.web.issue_link(record.id, A)
    assert (await site.client.get(f"/p/{fresh}")).status == 200
    site.clock.advance(LINK_DAYS * 86400 + 1)
    response = await site.client.get(f"/p/{fresh}")
    assert response.status == 403 and "expired" in await response.text()
    assert_secure(response)
    assert (await site.client.get(f"/g/{record.public_id}")).status == 200


async def test_a_server_page_lists_running_and_finished_games_once_listed(site: Site) -> None:
    store = site.store
    running = await play(store, (await new_game(store)).id, 2)
    finished = await new_game(store)
    finished = (await store.apply_action(finished.id, A, "resign")).record
    assert finished.status == "finished"
    lobby = await new_game(store, start=False)
    aborted = await store.lobby.abort((await new_game(store)).id)
    elsewhere = await new_game(store, guild=OTHER_GUILD)
    token, _ = await store.web.issue_link(running.id, A)
    await store.web.save_names(GUILD, NAMES)

    assert (await site.client.get(f"/s/{GUILD}")).status == 404
    await store.web.set_listed(GUILD, True, "The Table")
    response = await site.client.get(f"/s/{GUILD}")
    page = await response.text()
    assert response.status == 200
    assert_secure(response)
    assert "The Table" in page and "Alice" in page and "Bob" in page
    links = re.findall(r'href="(/[^"]*)"', page)
    games = [link for link in links if link.startswith("/g/")]
    assert sorted(games) == sorted([f"/g/{running.public_id}", f"/g/{finished.public_id}"])
    assert page.index(running.public_id) < page.index(finished.public_id)   # running first
    for hidden in (lobby, aborted, elsewhere):
        assert hidden.public_id not in page
    assert "/p/" not in page and token not in page and token.partition(".")[0] not in page
    assert "running" in page and "finished" in page
    for bad in ("abc", "²³", "1" * 30, OTHER_GUILD, f"{GUILD}%20"):
        response = await site.client.get(f"/s/{bad}")
        assert response.status == 404, bad
        assert_secure(response)
    await store.web.set_listed(GUILD, False)
    assert (await site.client.get(f"/s/{GUILD}")).status == 404


async def test_a_forgotten_players_link_stops_working_over_http(site: Site) -> None:
    await site.store.web.save_names(GUILD, NAMES)
    record = await play(site.store, (await new_game(site.store)).id, 2)
    token, _ = await site.store.web.issue_link(record.id, B)
    assert (await site.client.get(f"/p/{token}")).status == 200
    await site.store.privacy.forget_user(B)
    for suffix in ("", "/state.json", "/frame/0.png", "/events"):
        response = await site.client.get(f"/p/{token}{suffix}")
        assert response.status == 403, suffix
    page = await (await site.client.get(f"/g/{record.public_id}")).text()
    assert "Bob" not in page and "Alice" in page       # resigned: a new version, a new page


async def test_a_forgotten_players_name_leaves_a_finished_games_page_at_once(
        site: Site) -> None:
    await site.store.web.save_names(GUILD, NAMES)
    record = await new_game(site.store)
    record = (await site.store.apply_action(record.id, A, "resign")).record
    base = f"/g/{record.public_id}"
    assert "Bob" in await (await site.client.get(base)).text()
    await site.store.privacy.forget_user(B)
    assert B not in (await site.store.get(record.id)).seats          # anonymised
    page = await (await site.client.get(base)).text()
    data = await (await site.client.get(f"{base}/state.json")).text()
    assert "Bob" not in page and "Bob" not in data


async def test_requests_beyond_the_budget_get_429_with_retry_after(site: Site) -> None:
    record = await new_game(site.store)
    site.app.limiter = RateLimiter(60, burst=5)
    for _ in range(5):
        assert (await site.client.get(f"/g/{record.public_id}")).status == 200
    for path in (f"/g/{record.public_id}", "/healthz", "/nope"):
        response = await site.client.get(path)
        assert response.status == 429, path
        assert_secure(response)
        assert int(response.headers["Retry-After"]) > 0
        assert "Slow down" in await response.text()


async def test_each_forwarded_address_has_its_own_budget_behind_a_proxy(site: Site) -> None:
    app = WebApp(site.store, WebSettings(trust_proxy=True))
    app.limiter = RateLimiter(60, burst=2)
    async with TestClient(TestServer(app.app)) as client:
        first = {"X-Forwarded-For": "203.0.113.1, 10.0.0.1"}
        statuses = [(await client.get("/healthz", headers=first)).status for _ in range(3)]
        assert statuses == [200, 200, 429]
        other = {"X-Forwarded-For": "203.0.113.2"}
        assert (await client.get("/healthz", headers=other)).status == 200
        # what a client writes itself, before the proxy's own entry, buys it nothing
        forged = [(await client.get("/healthz", headers={
            "X-Forwarded-For": f"198.51.100.{n}, 203.0.113.2"})).status for n in range(3)]
        assert forged == [200, 429, 429]
    await app.stop()


async def test_a_failing_handler_gives_a_plain_500_without_details(
        site: Site, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    record = await new_game(site.store)

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(WebApp, "page", broken)
    for suffix in ("", "/state.json", "/frame/0.png"):
        response = await site.client.get(f"/g/{record.public_id}{suffix}")
        text = await response.text()
        assert response.status == 500, suffix
        assert response.content_type == "text/html"
        assert_secure(response)
        assert "Something went wrong" in text
        for detail in ("secret detail", "RuntimeError", "Traceback", "web/app.py", "line "):
            assert detail not in text
    assert "secret detail" in caplog.text          # the admin's log has it

    async def busy(*args: Any, **kwargs: Any) -> Any:
        raise StoreError("database detail at /srv/warhost.db")

    monkeypatch.setattr(site.store.web, "game", busy)
    response = await site.client.get(f"/g/{record.public_id}")
    text = await response.text()
    assert response.status == 503
    assert_secure(response)
    assert "database detail" not in text and "/srv" not in text


# -- personal links' tokens stay out of the logs ---------------------------------------------


def test_redact_replaces_a_token_in_any_path() -> None:
    token = "eyJnIjoiYSJ9.c2lnbmF0dXJl-_x"
    for suffix in ("", "/", "/state.json", "/frame/3.png", "/events"):
        assert redact(f"/p/{token}{suffix}") == f"/p/<token>{suffix}"
    assert redact("/g/0123456789abcdef01234567") == "/g/0123456789abcdef01234567"
    assert redact("/s/555555555555555555") == "/s/555555555555555555"
    assert token not in redact(f"/p/{token}/p/{token}")


async def test_a_personal_links_token_never_reaches_a_log_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    store = await Store.open(str(tmp_path / "w.db"))
    record = await play(store, (await new_game(store)).id, 2)
    token, _ = await store.web.issue_link(record.id, A)
    payload, _, signature = token.partition(".")
    app = WebApp(store, WebSettings(port=0, rate_per_minute=1e6))
    await app.start()
    root = f"http://127.0.0.1:{app.port}"
    try:
        async with aiohttp.ClientSession() as http:
            for suffix in ("", "/state.json", "/frame/0.png", f"/frame/{record.version}.png"):
                async with http.get(f"{root}/p/{token}{suffix}") as response:
                    assert response.status == 200, suffix
                    await response.read()
            async with http.get(f"{root}/p/{token}/events") as stream:
                assert (await next_event(stream))[0] == "hello"
                await store.web.revoke_links(record.id, A)
                await play(store, record.id, 1)
                assert (await next_event(stream))[0] == "gone"
            for suffix in ("", "/state.json", "/events"):
                async with http.get(f"{root}/p/{token}{suffix}") as response:
                    assert response.status == 403
    finally:
        await app.stop()
        await store.close()
    access = [r.getMessage() for r in caplog.records if r.name == "warhost.web.access"]
    assert sum("/p/<token>" in line for line in access) >= 7, access    # logged, redacted
    for part in (token, payload, signature, signature[:16]):
        assert part not in caplog.text
        for r in caplog.records:
            assert part not in r.getMessage(), (r.name, r.getMessage())


# -- escaping --------------------------------------------------------------------------------


HOSTILE = {A: "<script>alert(1)</script>", B: "{{7*7}}",
           C: '"><img src=x onerror=alert(1)>', D: "Tom & \"Jerry\" O'Neil &amp; <b>co</b>"}


def assert_escaped(page: str) -> None:
    lowered = page.lower()
    assert "<script>alert" not in lowered and "<img src=x" not in lowered
    assert "<b>co</b>" not in page
    for name in HOSTILE.values():
        assert html.escape(name, quote=True) in page, name
    assert '"Jerry"' not in page and "{{7*7}}" in page


async def test_hostile_names_are_escaped_on_every_page(site: Site) -> None:
    record = await new_game(site.store, players=(A, B, C, D))
    record = await play(site.store, record.id, 8)
    await site.store.web.save_names(GUILD, HOSTILE)
    await site.store.web.set_listed(GUILD, True, "<script>alert('guild')</script>")
    token, _ = await site.store.web.issue_link(record.id, C)
    for path in (f"/g/{record.public_id}", f"/p/{token}"):
        page = await (await site.client.get(path)).text()
        assert_escaped(page)
    personal = await (await site.client.get(f"/p/{token}")).text()
    assert f"{html.escape(HOSTILE[C], quote=True)}&#x27;s view" in personal
    listing = await (await site.client.get(f"/s/{GUILD}")).text()
    assert_escaped(listing)
    assert "<script>alert('guild')" not in listing
    assert html.escape("<script>alert('guild')</script>", quote=True) in listing
    for path in (f"/g/{record.public_id}/state.json", f"/p/{token}/state.json"):
        response = await site.client.get(path)
        data = json.loads(await response.text())
        assert [s["name"] for s in data["seats"]] == [HOSTILE[p] for p in (A, B, C, D)]
        for part in data["parts"].values():
            assert "<script>alert" not in part and "<img src=x" not in part
    data = json.loads(await (await site.client.get(f"/p/{token}/state.json")).text())
    assert data["viewer"] == HOSTILE[C]


# -- replay frames ---------------------------------------------------------------------------


async def test_each_frame_is_the_public_board_of_that_version_from_the_replayed_log(
        site: Site) -> None:
    store = site.store
    record = await new_game(store, seed=7)
    await store.web.save_names(GUILD, {A: "Alice", B: "Bob"})
    await store.apply_action(record.id, A, "convert ap")
    await store.apply_action(record.id, A, "undo")                 # version 2: an undo
    record = await play(store, record.id, 5, seed=3)
    game = engine.get_game(record.kind)
    entries, _ = await store.web.log(record)
    assert [e.seq for e in entries] == list(range(1, record.version + 1))
    assert entries[1].origin == BY_UNDO
    states = {0: opening(game, record)}
    marks: dict[int, Any] = {0: None}
    for step in replay(game, record, entries):
        states[step.entry.seq] = step.after
        marks[step.entry.seq] = (None if step.entry.origin == BY_UNDO
                                 else public_events(list(step.entry.events)) or None)
    names = {A: "Alice", B: "Bob"}
    assert game.dump(states[record.version]) == record.state      # the replay is the game
    # Frames are the channel's boards drawn at twice the size (render.render_large).
    for version in range(record.version + 1):
        response = await site.client.get(f"/g/{record.public_id}/frame/{version}.png")
        assert response.status == 200
        expected = render.render_large(record.kind, game.view(states[version], None),
                                       marks[version], names)
        assert same_picture(await response.read(), expected), version
    start = render.render_large(record.kind, game.view(
        game.new_game(list(record.seats), record.seed, dict(record.options)), None), None, names)
    assert same_picture(
        await (await site.client.get(f"/g/{record.public_id}/frame/0.png")).read(), start)
    assert same_picture(
        await (await site.client.get(f"/g/{record.public_id}/frame/2.png")).read(), start)


async def test_a_frame_is_drawn_once_however_many_ask(site: Site) -> None:
    calls: list[tuple[str, int]] = []

    async def slow_draw(kind: str, view: dict[str, Any], events: Any, names: Any) -> bytes:
        calls.append((kind, len(json.dumps(view))))
        await asyncio.sleep(0.2)
        return b"PNG:" + json.dumps([kind, view, events, names], sort_keys=True).encode()

    record = await play(site.store, (await new_game(site.store)).id, 3)
    token, _ = await site.store.web.issue_link(record.id, A)
    app = WebApp(site.store, WebSettings(rate_per_minute=1e6), draw=slow_draw)
    async with TestClient(TestServer(app.app)) as client:
        path = f"/g/{record.public_id}/frame/2.png"
        bodies = await asyncio.gather(*(_body(client, path) for _ in range(8)))
        assert len(set(bodies)) == 1 and len(calls) == 1 and app.frames.drawn == 1
        for _ in range(3):
            assert await _body(client, path) == bodies[0]
        assert app.frames.drawn == 1 and len(calls) == 1
        await _body(client, f"/g/{record.public_id}/frame/1.png")
        assert app.frames.drawn == 2
        mine = await _body(client, f"/p/{token}/frame/2.png")        # another viewer
        assert app.frames.drawn == 3 and mine != bodies[0]
        await _body(client, f"/p/{token}/frame/2.png")
        assert app.frames.drawn == 3 == len(calls)
    await app.stop()


async def _body(client: TestClient, path: str) -> bytes:
    response = await client.get(path)
    assert response.status == 200, path
    return await response.read()


# -- live events -----------------------------------------------------------------------------


async def test_a_move_reaches_an_open_page_within_a_second(site: Site) -> None:
    record = await new_game(site.store)
    assert site.app.settings.live_every == 0.25
    stream = await site.client.get(f"/g/{record.public_id}/events")
    assert stream.status == 200 and stream.content_type == "text/event-stream"
    assert_secure(stream)
    assert await next_event(stream) == ("hello", {"version": 0, "status": "active"})
    assert site.app.watcher.watched == 1
    latencies = []
    for i in range(4):
        await asyncio.sleep(0.1 + 0.07 * i)          # land at different points of a look
        start = time.monotonic()
        moved = await play(site.store, record.id, 1, seed=i)
        name, data = await next_event(stream)
        latencies.append(time.monotonic() - start)
        assert (name, data) == ("move", {"version": moved.version, "status": "active"})
    print(f"live latency: max {max(latencies):.3f} s over {len(latencies)} moves")
    assert max(latencies) < 1.0, latencies
    finished = (await site.store.apply_action(record.id, A, "resign")).record
    assert await next_event(stream) == ("move", {"version": finished.version,
                                                  "status": "finished"})
    stream.close()
    await until(lambda: site.app.watcher.watched == 0)


async def test_a_revoked_links_stream_is_told_it_is_gone_at_the_next_move(site: Site) -> None:
    record = await new_game(site.store)
    token, _ = await site.store.web.issue_link(record.id, A)
    mine = await site.client.get(f"/p/{token}/events")
    public = await site.client.get(f"/g/{record.public_id}/events")
    assert (await next_event(mine))[0] == "hello" and (await next_event(public))[0] == "hello"
    moved = await play(site.store, record.id, 1)
    assert await next_event(mine) == ("move", {"version": moved.version, "status": "active"})
    await next_event(public)
    await site.store.web.revoke_links(record.id, A)
    moved = await play(site.store, record.id, 1, seed=1)
    assert await next_event(mine) == ("gone", {})
    assert await asyncio.wait_for(mine.content.read(), 2) == b""      # and it ends
    assert await next_event(public) == ("move", {"version": moved.version, "status": "active"})
    await until(lambda: site.app.watcher.watched == 1)
    public.close()
    await until(lambda: site.app.watcher.watched == 0)


async def test_closed_streams_are_let_go_at_once_on_the_real_server(tmp_path: Path) -> None:
    store = await Store.open(str(tmp_path / "w.db"))
    record = await new_game(store)
    app = WebApp(store, WebSettings(port=0, rate_per_minute=1e6))
    await app.start()
    statuses = []
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(20):                  # a reader reloading the page
                async with http.get(f"http://127.0.0.1:{app.port}/g/{record.public_id}"
                                    "/events") as stream:
                    statuses.append(stream.status)
                    if stream.status == 200:
                        await next_event(stream)
                    stream.close()
        let_go = True
        try:
            await until(lambda: app.watcher.watched == 0, timeout=2.0)
        except AssertionError:
            let_go = False
    finally:
        await app.stop()
        await store.close()
    assert statuses == [200] * 20 and let_go


# -- the page model --------------------------------------------------------------------------


async def model_of(store: Store, record: GameRecord, viewer: str | None = None
                   ) -> dict[str, Any]:
    record = await store.get(record.id)
    entries, digests = await store.web.log(record)
    names = Names(record.seats, await store.web.names(record.guild_id, record.seats))
    state = store.load_state(record) if record.state is not None else None
    facts = await store.hosting.clock_facts(record)
    return page_data(engine.get_game(record.kind), record, state, entries, digests, names,
                     facts, viewer)


async def test_the_page_model_of_a_finished_a_lobby_and_a_computer_game(site: Site) -> None:
    store = site.store
    await store.web.save_names(GUILD, NAMES)
    record = await play(store, (await new_game(store)).id, 3)
    running = await model_of(store, record)
    assert running["status"] == "active" and running["outcome"] is None
    assert running["to_act"] and set(running["to_act"]) <= {"Alice", "Bob"}
    assert [s["name"] for s in running["seats"]] == ["Alice", "Bob"]
    assert [s["v"] for s in running["steps"]] == [1, 2, 3]

    loser = engine.get_game("conqueror").to_act(store.load_state(record))[0]
    await store.apply_action(record.id, loser, "resign")
    finished = await model_of(store, record)
    winner = NAMES[B if loser == A else A]
    assert finished["status"] == "finished" and finished["to_act"] == []
    assert finished["outcome"]["winners"] == [winner]
    assert not any(s["acting"] for s in finished["seats"])
    page = pages.game_page(finished, f"/g/{record.public_id}")
    assert f"Game over: <strong>{winner}</strong> wins" in page
    assert (await site.client.get(f"/g/{record.public_id}")).status == 200
    assert winner in await (await site.client.get(f"/g/{record.public_id}")).text()

    lobby = await new_game(store, start=False)
    data = await model_of(store, lobby)
    assert data["status"] == "lobby" and data["outcome"] is None and data["to_act"] == []
    assert data["steps"] == [] and [s["name"] for s in data["seats"]] == ["Alice", "Bob"]
    page = await (await site.client.get(f"/g/{lobby.public_id}")).text()
    assert 'class="board"' not in page and "/frame/" not in page
    assert 'id="replay"' not in page
    assert "has not started yet" in page

    computers = await new_game(store, players=(A,), computers=2)
    data = await model_of(store, computers)
    assert [s["name"] for s in data["seats"]] == ["Alice", "Computer 1", "Computer 2"]
    assert [s["computer"] for s in data["seats"]] == [False, True, True]
    assert Names((A, "cpu-3"), {}).of("cpu-3") == "Computer 3"
    assert Names((A, B), {}).of(B) == "Seat 2"                  # no name kept: the seat

    token, _ = await store.web.issue_link(record.id, A)
    mine = await model_of(store, record, A)
    assert mine["viewer"] == "Alice" and mine["private"] is not None
    assert (await site.client.get(f"/p/{token}")).status == 200


# -- python -m web ---------------------------------------------------------------------------


def web_process_env(tmp_path: Path, **values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("WEB_", "DATABASE_")) and k != "LOG_LEVEL"}
    return {**env, "PYTHONPATH": str(REPO), **values}


def test_python_m_web_refuses_to_start_without_a_database(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    done = subprocess.run([sys.executable, "-m", "web"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60,
                          env=web_process_env(tmp_path, DATABASE_PATH=str(missing),
                                              WEB_PORT="0"))
    assert done.returncode == 1, done.stderr
    assert "Start the bot" in done.stderr and str(missing) in done.stderr
    assert "Traceback" not in done.stderr
    assert not missing.exists()


@pytest.mark.parametrize("port", ["abc", "70000", "-1", "8o80", "²"])
def test_python_m_web_refuses_a_bad_web_port(tmp_path: Path, port: str) -> None:
    done = subprocess.run([sys.executable, "-m", "web"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60,
                          env=web_process_env(tmp_path, DATABASE_PATH=str(tmp_path / "w.db"),
                                              WEB_PORT=port))
    assert done.returncode == 2, done.stderr
    assert "WEB_PORT" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "w.db").exists()


async def test_python_m_web_serves_a_bots_database_read_only(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    store = await Store.open(str(path))
    record = await play(store, (await new_game(store)).id, 3)
    await store.web.save_names(GUILD, NAMES)
    await store.close()
    before = path.read_bytes()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "web", cwd=tmp_path, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=web_process_env(tmp_path, DATABASE_PATH=str(path), WEB_PORT="0"))
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        async with aiohttp.ClientSession() as http:
            url = f"http://127.0.0.1:{found[1]}/g/{record.public_id}"
            async with http.get(url) as response:
                assert response.status == 200
                assert "Alice" in await response.text()
            async with http.get(f"{url}/frame/{record.version}.png") as response:
                assert response.status == 200
                assert (await response.read()).startswith(b"\x89PNG")
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)
        code = await asyncio.wait_for(proc.wait(), 20)
    assert code == 0
    assert path.read_bytes() == before


# -- the dice and the record (docs/records.md) -----------------------------------------------


async def test_a_games_page_shows_its_dice_and_serves_its_record(site: Site) -> None:
    store = site.store
    lobby = await store.lobby.open("liege", GUILD, str(next(_channels)), A)
    await store.lobby.join(lobby.id, B, contribution="1300000000000000001")
    record = await store.lobby.start(lobby.id, A, contribution="1300000000000000002")
    secret, salt = record.dice["seed"], record.dice["salt"]
    promised = record.dice["commitment"]
    record = await play(store, record.id, 5)
    base = f"/g/{record.public_id}"
    page = await (await site.client.get(base)).text()
    state = await (await site.client.get(base + "/state.json")).text()
    assert promised in page and promised in state and "record.json" in page
    assert secret not in page + state and salt not in page + state
    response = await site.client.get(base + "/record.json")
    assert response.status == 200
    assert response.headers["Content-Disposition"] == \
        f'attachment; filename="warhost-liege-{record.id}.json"'
    body = await response.read()
    assert secret.encode() not in body and salt.encode() not in body
    running = read(body)
    assert running["complete"] is False and len(running["actions"]) == record.version
    assert verify(running).ok is None
    # the end reveals the seed on the page, and the record then checks out
    await store.apply_action(record.id, B, "resign")
    page = await (await site.client.get(base)).text()
    assert secret in page and salt in page
    finished = read(await (await site.client.get(base + "/record.json")).read())
    assert verify(finished).ok is True
    assert finished["dice"]["seed"] == secret
    # a lobby and an unknown game have no record
    other = await new_game(store, start=False)
    assert (await site.client.get(f"/g/{other.public_id}/record.json")).status == 404
    assert (await site.client.get("/g/" + "0" * 24 + "/record.json")).status == 404
