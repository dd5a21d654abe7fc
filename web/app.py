"""The web companion's HTTP server (aiohttp): read-only pages of games.

================================  ==========================================================
``/g/<public id>``                a game's page: board, who acts, seats, turns, replay
``/g/<id>/state.json``            the same as data, with the page's parts (the live update)
``/g/<id>/frame/<v>.png``         the board at version ``v`` (``0``: the start)
``/g/<id>/events``                server-sent events: each new version of the game
``/p/<token>`` (and the same)     a personal link: the page with that seat's private view
``/s/<guild id>``                 a server's games and leaderboards, when its admins list it
``/s/<id>/leaderboard/<kind>``    a game's whole leaderboard there (``period``, ``page``)
``/s/<id>/player/<user id>``      a player's results there (or ``computer:<level>``'s)
``/s/<id>/player/<u>/chart.png``  their rating chart in one game (``?kind=``)
``/static/app.js``, ``.css``      the page's script and style
================================  ==========================================================

Run it in the bot (``WEB_PORT``) or alone (``python -m web``); see ``docs/web.md``. It
never writes to the database. Every response carries a strict Content-Security-Policy;
errors are plain pages without details; each client address has a request budget; a
personal link's token never reaches a log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

import engine
from db import GameRecord, Store
from db.ratings import PAGE_SIZE
from db.records import StoreError
from db.standings import is_computer_identity
from db.web import LINK_DAYS, LinkRefused
from render.chart import RatingPoint, rating_chart
from web import pages
from web.frames import Draw, Frames, made_once
from web.live import LOOK_EVERY, Watcher
from web.model import (
    Names,
    board_data,
    one_decimal,
    page_data,
    pages_of,
    plausible_player,
    player_data,
    player_name,
)

log = logging.getLogger("warhost.web")

STATIC = Path(__file__).with_name("static")
#: The only files served from ``static/``, with their types.
STATIC_FILES = {"app.js": "text/javascript; charset=utf-8",
                "app.css": "text/css; charset=utf-8"}

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}

#: A page's data is made again after this long even without a move (clocks, names).
PAGE_TTL = 30.0
#: Pages' data kept (by game, version and viewer).
PAGES_KEPT = 256
#: Game records (``record.json``) kept made.
RECORDS_KEPT = 16
#: A quiet event stream says it is alive this often (proxies close idle connections).
HEARTBEAT = 20.0
#: Requests per minute per client address, and how many may come at once.
RATE_PER_MINUTE = 600
RATE_BURST = 120
#: Event streams one address may hold open.
STREAMS_PER_ADDRESS = 16
#: Players shown at the top of each game's leaderboard on a server's page.
TOP = 10
#: Rating charts kept (by server, player, game and the games they were drawn from).
CHARTS_KEPT = 128
#: A game kind as it may appear in an address.
_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}")
#: Frame numbers: ASCII digits only, no more than a game could have.
_VERSION = re.compile(r"[0-9]{1,7}")
_TOKEN_PATH = re.compile(r"/p/[^/?#]+")


def redact(path: str) -> str:
    """A request path fit for a log: a personal link's token replaced."""
    return _TOKEN_PATH.sub("/p/<token>", path)


class RedactedAccessLogger(AbstractAccessLogger):
    """One line per request, personal links' tokens left out."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse,
            time: float) -> None:
        self.logger.info("%s %s %s %d %.1fms", request.remote, request.method,
                         redact(request.path), response.status, time * 1000)


@dataclass(frozen=True)
class WebSettings:
    """The companion's settings (``docs/web.md``)."""

    port: int | None = None
    host: str = "127.0.0.1"
    #: The address people open (``https://warhost.example``): the bot's link buttons.
    public_url: str | None = None
    #: Take the client's address from ``X-Forwarded-For`` (behind a reverse proxy).
    trust_proxy: bool = False
    rate_per_minute: float = RATE_PER_MINUTE
    live_every: float = LOOK_EVERY
    #: How long a personal link from ``/game web`` works, in days.
    link_days: float = LINK_DAYS

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WebSettings:
        """Read ``WEB_PORT``, ``WEB_HOST``, ``WEB_URL``, ``WEB_TRUST_PROXY``,
        ``WEB_RATE_PER_MINUTE``, ``WEB_LINK_DAYS``; ValueError says which one is wrong."""
        env = os.environ if env is None else env
        port_text = (env.get("WEB_PORT") or "").strip()
        port = None
        if port_text:
            if not (port_text.isascii() and port_text.isdigit()
                    and 0 <= int(port_text) < 65536):
                raise ValueError(f"WEB_PORT must be a port number (1-65535; 0 takes any free "
                                 f"one), not {port_text!r}.")
            port = int(port_text)
        url = (env.get("WEB_URL") or "").strip().rstrip("/") or None
        if url is not None and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", url):
            raise ValueError(f"WEB_URL must be an http(s) address like https://warhost.example, "
                             f"not {url!r}.")
        rate_text = (env.get("WEB_RATE_PER_MINUTE") or "").strip()
        try:
            rate = float(rate_text) if rate_text else RATE_PER_MINUTE
        except ValueError:
            raise ValueError("WEB_RATE_PER_MINUTE must be a number.") from None
        if not math.isfinite(rate) or rate <= 0:
            raise ValueError("WEB_RATE_PER_MINUTE must be above 0.")
        days_text = (env.get("WEB_LINK_DAYS") or "").strip()
        try:
            days = float(days_text) if days_text else LINK_DAYS
        except ValueError:
            days = -1.0
        if not math.isfinite(days) or not 0 < days <= 365:
            raise ValueError(f"WEB_LINK_DAYS must be a number of days from 0 to 365, not "
                             f"{days_text!r}.")
        trust = (env.get("WEB_TRUST_PROXY") or "").strip().lower() in ("1", "true", "yes", "on")
        return cls(port=port, host=(env.get("WEB_HOST") or "127.0.0.1").strip(),
                   public_url=url, trust_proxy=trust, rate_per_minute=rate, link_days=days)


@dataclass
class _Bucket:
    tokens: float
    at: float
    streams: int = 0


@dataclass
class _Page:
    """A page's data at one version for one viewer, and what made it."""

    data: dict[str, Any]
    names: dict[str, str]
    entries: list[Any]
    made: float
    json_text: str = ""
    html: dict[str, str] = field(default_factory=dict)


class RateLimiter:
    """A token bucket per client address (idle ones forgotten)."""

    def __init__(self, per_minute: float, burst: int = RATE_BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(max(burst, 1))
        self.clock = clock
        self.buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def bucket(self, address: str) -> _Bucket:
        now = self.clock()
        found = self.buckets.get(address)
        if found is None:
            found = self.buckets[address] = _Bucket(self.burst, now)
        else:
            found.tokens = min(self.burst, found.tokens + (now - found.at) * self.rate)
            found.at = now
            self.buckets.move_to_end(address)
        while len(self.buckets) > 10000:
            oldest = next(iter(self.buckets))
            if self.buckets[oldest].streams:
                break
            del self.buckets[oldest]
        return found

    def allow(self, address: str) -> bool:
        found = self.bucket(address)
        if found.tokens < 1:
            return False
        found.tokens -= 1
        return True


class WebApp:
    """The companion over one store: its routes, caches and live watcher."""

    def __init__(self, store: Store, settings: WebSettings | None = None, *,
                 draw: Draw | None = None) -> None:
        self.store = store
        self.settings = settings or WebSettings()
        self.frames = Frames(draw)
        self.watcher = Watcher(store.web.versions, self.settings.live_every)
        self.limiter = RateLimiter(self.settings.rate_per_minute)
        self._pages: OrderedDict[tuple[Any, ...], _Page] = OrderedDict()
        #: Game records made (a finished game's replays its whole log), newest last.
        self._records: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._static = {name: (STATIC / name).read_bytes() for name in STATIC_FILES}
        self._charts: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._charting: dict[Any, asyncio.Future[bytes]] = {}
        #: Rating charts actually drawn (not served from the cache), for tests.
        self.charts_drawn = 0
        self._runner: web.AppRunner | None = None
        #: The port it listens on once started (the one asked for, or the one given).
        self.port: int | None = None
        self.app = self._make_app()

    # -- the application ---------------------------------------------------------------

    def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard], client_max_size=4096)
        app.router.add_get("/", self.landing)
        app.router.add_get("/healthz", self.health)
        app.router.add_get("/favicon.ico", self.no_icon)
        app.router.add_get("/static/{name}", self.static)
        for prefix, key in (("/g/{public_id}", "public_id"), ("/p/{token}", "token")):
            app.router.add_get(prefix, self.game_page)
            app.router.add_get(prefix + "/state.json", self.state_json)
            app.router.add_get(prefix + "/frame/{frame}", self.frame)
            app.router.add_get(prefix + "/events", self.events)
            app.router.add_get(prefix + "/record.json", self.record_json)
            del key
        app.router.add_get("/s/{guild_id}", self.server_page)
        app.router.add_get("/s/{guild_id}/leaderboard/{kind}", self.leaderboard_page)
        app.router.add_get("/s/{guild_id}/player/{player}", self.player_page)
        app.router.add_get("/s/{guild_id}/player/{player}/chart.png", self.player_chart)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def start(self) -> None:
        """Listen on the settings' host and port (0: any free port, see :attr:`port`)."""
        # handler_cancellation: a page that goes away ends its event stream at once
        runner = web.AppRunner(self.app, access_log_class=RedactedAccessLogger,
                               access_log=logging.getLogger("warhost.web.access"),
                               shutdown_timeout=1.0, handle_signals=False,
                               handler_cancellation=True)
        await runner.setup()
        site = web.TCPSite(runner, self.settings.host, self.settings.port or 0)
        await site.start()
        self._runner = runner
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self.settings.port
        log.info("Web pages at http://%s:%s/", self.settings.host, self.port)

    async def stop(self) -> None:
        await self.watcher.close()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _on_shutdown(self, app: web.Application) -> None:
        await self.watcher.close()

    # -- the guard: headers, errors, budgets --------------------------------------------

    def client(self, request: web.Request) -> str:
        if self.settings.trust_proxy:
            # the address the nearest proxy saw: the last one added (any before it may
            # have been written by the client itself)
            forwarded = request.headers.get("X-Forwarded-For", "")
            nearest = forwarded.split(",")[-1].strip()
            if nearest:
                return nearest[:64]
        return request.remote or "?"

    @web.middleware
    async def _guard(self, request: web.Request,
                     handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                     ) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            response: web.StreamResponse = self.plain(405, "Not allowed",
                                                      "These pages can only be read.")
        elif not self.limiter.allow(self.client(request)):
            response = self.plain(429, "Slow down",
                                  "Too many requests from your address; wait a minute.")
            response.headers["Retry-After"] = "60"
        else:
            try:
                response = await handler(request)
            except web.HTTPNotFound:
                response = self.plain(404, "Not found",
                                      "There is no page here. Check the link you were given.")
            except web.HTTPMethodNotAllowed:
                response = self.plain(405, "Not allowed", "These pages can only be read.")
            except LinkRefused as exc:
                response = self.plain(403, "This link does not work", str(exc))
            except web.HTTPException as exc:
                response = self.plain(exc.status, exc.reason, "This request cannot be served.")
            except StoreError:
                log.exception("Web request %s failed on the database", redact(request.path))
                response = self.plain(503, "Try again soon",
                                      "The game database is busy or away; try again soon.")
            except (asyncio.CancelledError, ConnectionResetError):
                raise
            except Exception:
                log.exception("Web request %s failed", redact(request.path))
                response = self.plain(500, "Something went wrong",
                                      "This page could not be made. Try again later.")
        if not response.prepared:
            response.headers.update(SECURITY_HEADERS)
        return response

    @staticmethod
    def plain(status: int, heading: str, text: str) -> web.Response:
        return web.Response(status=status, text=pages.plain_page(status, heading, text),
                            content_type="text/html", charset="utf-8",
                            headers={"Cache-Control": "no-store"})

    # -- simple routes -------------------------------------------------------------------

    async def landing(self, request: web.Request) -> web.Response:
        return web.Response(text=pages.landing_page(), content_type="text/html",
                            charset="utf-8")

    async def health(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n", headers={"Cache-Control": "no-store"})

    async def no_icon(self, request: web.Request) -> web.Response:
        """No icon (a browser asks for one on every first visit): nothing, not a 404."""
        return web.Response(status=204, headers={"Cache-Control": "public, max-age=604800"})

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC_FILES:
            raise web.HTTPNotFound()
        return web.Response(body=self._static[name], headers={
            "Content-Type": STATIC_FILES[name], "Cache-Control": "public, max-age=86400"})

    # -- a game -------------------------------------------------------------------------

    async def game_of(self, request: web.Request) -> tuple[GameRecord, str | None, str]:
        """The game a request is about, whose view (None: the public one) and the base
        path of its page; 404 for an unknown game, :class:`LinkRefused` for a bad link."""
        token = request.match_info.get("token")
        if token is not None:
            link = await self.store.web.check_link(token)
            return link.record, link.user_id, f"/p/{token}"
        public_id = request.match_info.get("public_id", "")
        record = await self.store.web.game(public_id)
        if record is None:
            raise web.HTTPNotFound()
        return record, None, f"/g/{public_id}"

    async def page(self, record: GameRecord, viewer: str | None) -> _Page:
        """The page's data for ``viewer`` at the game's version (made once per version,
        and again after :data:`PAGE_TTL` for the clocks)."""
        # the seats too: a deletion renames a player without a new version
        key = (record.id, record.public_id, record.version, record.status, record.seats,
               viewer)
        now = time.monotonic()
        found = self._pages.get(key)
        if found is not None and now - found.made < PAGE_TTL:
            self._pages.move_to_end(key)
            return found
        entries, digests = await self.store.web.log(record)
        known = await self.store.web.names(record.guild_id, record.seats)
        names = Names(record.seats, known)
        game = engine.get_game(record.kind)
        state = self.store.load_state(record) if record.state is not None else None
        facts = await self.store.hosting.clock_facts(record)
        # narrating a long game takes milliseconds of CPU: not on the event loop
        data = await asyncio.to_thread(page_data, game, record, state, entries, digests,
                                       names, facts, viewer)
        made = _Page(data, names.mapping(), entries, now)
        self._pages[key] = made
        while len(self._pages) > PAGES_KEPT:
            self._pages.popitem(last=False)
        return made

    async def game_page(self, request: web.Request) -> web.Response:
        record, viewer, base = await self.game_of(request)
        made = await self.page(record, viewer)
        text = made.html.get(base)
        if text is None:
            text = made.html[base] = pages.game_page(made.data, base)
        return web.Response(text=text, content_type="text/html", charset="utf-8",
                            headers={"Cache-Control": "no-cache" if viewer is None
                                     else "private, no-store"})

    async def state_json(self, request: web.Request) -> web.Response:
        record, viewer, _ = await self.game_of(request)
        made = await self.page(record, viewer)
        if not made.json_text:
            made.json_text = json.dumps({**made.data, "parts": pages.parts(made.data)},
                                        ensure_ascii=False, separators=(",", ":"))
        return web.Response(text=made.json_text, content_type="application/json",
                            charset="utf-8", headers={"Cache-Control": "no-cache"
                                                      if viewer is None else "private, no-store"})

    async def record_json(self, request: web.Request) -> web.Response:
        """The game's record (``docs/records.md``), the same for every viewer: public
        facts only while it runs, everything once it is over."""
        record, _, _ = await self.game_of(request)
        if record.state is None:
            raise web.HTTPNotFound()
        key = (record.id, record.version, record.status, record.seats)
        body = self._records.get(key)
        if body is None:
            try:
                _, data = await self.store.history.export(record.id)
            except StoreError:
                raise web.HTTPNotFound() from None
            body = json.dumps(data, ensure_ascii=False, indent=1).encode()
            self._records[key] = body
            while len(self._records) > RECORDS_KEPT:
                self._records.popitem(last=False)
        name = f"warhost-{record.kind}-{record.id}.json"
        return web.Response(body=body, content_type="application/json", charset="utf-8",
                            headers={"Content-Disposition": f"attachment; filename=\"{name}\"",
                                     "Cache-Control": "no-cache"})

    async def frame(self, request: web.Request) -> web.Response:
        record, viewer, _ = await self.game_of(request)
        name = request.match_info["frame"]
        number = name.removesuffix(".png")
        if not name.endswith(".png") or not _VERSION.fullmatch(number):
            raise web.HTTPNotFound()
        version = int(number)
        if record.state is None or version > record.version:
            raise web.HTTPNotFound()
        made = await self.page(record, viewer)
        key = Frames.key(record, version, viewer, made.names)
        png = self.frames.cached(key)
        if png is None:
            positions = await self.frames.positions(record, made.entries)
            png = await self.frames.frame(record, positions, version, viewer, made.names)
        return web.Response(body=png, content_type="image/png", headers={
            "Cache-Control": "public, max-age=3600" if viewer is None
            else "private, max-age=3600"})

    async def events(self, request: web.Request) -> web.StreamResponse:
        record, viewer, _ = await self.game_of(request)
        bucket = self.limiter.bucket(self.client(request))
        if bucket.streams >= STREAMS_PER_ADDRESS:
            return self.plain(429, "Too many open pages",
                              "Close some of this server's pages and reload.")
        response = web.StreamResponse(headers={
            **SECURITY_HEADERS, "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"})
        await response.prepare(request)
        bucket.streams += 1
        queue = self.watcher.subscribe(record.id, (record.version, record.status))
        try:
            await response.write(b"retry: 1000\n\n")
            await response.write(self._event("hello", record.version, record.status))
            while True:
                try:
                    version, status = await asyncio.wait_for(queue.get(), HEARTBEAT)
                except TimeoutError:
                    await response.write(b": alive\n\n")
                    continue
                if viewer is not None:
                    try:
                        await self.store.web.check_link(request.match_info["token"])
                    except LinkRefused:
                        await response.write(b"event: gone\ndata: {}\n\n")
                        break
                await response.write(self._event("move", version, status))
        except ConnectionResetError:
            return response                 # the page went away
        finally:                            # also when the server shuts down (cancelled)
            bucket.streams -= 1
            self.watcher.unsubscribe(record.id, queue)
        with contextlib.suppress(ConnectionResetError):
            await response.write_eof()
        return response

    @staticmethod
    def _event(name: str, version: int, status: str) -> bytes:
        data = json.dumps({"version": version, "status": status})
        return f"event: {name}\ndata: {data}\n\n".encode()

    # -- a server ------------------------------------------------------------------------

    async def listed(self, request: web.Request) -> tuple[str, str]:
        """The server a request is about and its page's title: 404 unless its admins
        list it (``/web settings listing:on``), the same 404 for every page under it."""
        guild = request.match_info["guild_id"]
        if not (guild.isascii() and guild.isdigit() and len(guild) <= 21):
            raise web.HTTPNotFound()
        title = await self.store.web.listing(guild)
        if title is None:
            raise web.HTTPNotFound()
        return guild, title

    async def server_page(self, request: web.Request) -> web.Response:
        guild, title = await self.listed(request)
        records = await self.store.web.guild_games(guild)
        known = await self.store.web.names(guild, {p for r in records for p in r.seats})
        games = []
        for record in records:
            names = Names(record.seats, known)
            status_text = {"active": "running", "finished": "finished"}.get(record.status,
                                                                            record.status)
            games.append({"public_id": record.public_id, "number": record.id,
                          "name": engine.get_game(record.kind).name,
                          "status": record.status, "status_text": status_text,
                          "players": [names.of(p) for p in record.seats],
                          "updated": record.updated_at})
        boards = [await self.store.ratings.leaderboard(guild, kind, limit=TOP)
                  for kind in await self.store.web.rated_kinds(guild)]
        rated = await self.store.web.names(guild, {r.player for b in boards for r in b.rows})
        shown = [board_data(b, _game_name(b.kind), rated) for b in boards]
        return web.Response(text=pages.server_page(title, games, shown, guild),
                            content_type="text/html", charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    # -- ratings -------------------------------------------------------------------------

    async def leaderboard_page(self, request: web.Request) -> web.Response:
        guild, title = await self.listed(request)
        kind = request.match_info["kind"]
        if kind not in engine.GAMES:
            raise web.HTTPNotFound()
        period = "30d" if request.query.get("period") == "30d" else "all"
        page = _number(request.query.get("page"))
        board = await self.store.ratings.leaderboard(
            guild, kind, period=period, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE)
        last = pages_of(board.total)
        if page > last:         # past the end (or the board shrank): its last page
            board = await self.store.ratings.leaderboard(
                guild, kind, period=period, offset=(last - 1) * PAGE_SIZE, limit=PAGE_SIZE)
        known = await self.store.web.names(guild, [r.player for r in board.rows])
        data = board_data(board, _game_name(kind), known)
        return web.Response(text=pages.leaderboard_page(title, guild, data),
                            content_type="text/html", charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    async def name_of(self, guild: str, player: str) -> str:
        if is_computer_identity(player):
            return player_name(player, {})
        return player_name(player, await self.store.web.names(guild, [player]))

    async def player_page(self, request: web.Request) -> web.Response:
        guild, title = await self.listed(request)
        player = request.match_info["player"]
        if not plausible_player(player):
            raise web.HTTPNotFound()
        stats = await self.store.ratings.player(guild, player)
        if not stats.games:
            return self.plain(404, "No results here",
                              "There are no finished games of this player on this server.")
        data = player_data(stats, await self.name_of(guild, player),
                           {kind: game.name for kind, game in engine.GAMES.items()})
        return web.Response(text=pages.player_page(title, guild, data),
                            content_type="text/html", charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    async def player_chart(self, request: web.Request) -> web.Response:
        guild, title = await self.listed(request)
        player = request.match_info["player"]
        kind = request.query.get("kind", "")
        if not plausible_player(player) or not _KIND.fullmatch(kind):
            raise web.HTTPNotFound()
        stats = await self.store.ratings.player(guild, player, kind)
        if not stats.kinds or not stats.history:
            raise web.HTTPNotFound()
        name = await self.name_of(guild, player)
        record = stats.kinds[0]
        count = len(stats.history)
        chart_title = f"{name} · {_game_name(kind)}"
        subtitle = (f"{title} · {count} rated {'game' if count == 1 else 'games'} · "
                    f"rating {one_decimal(record.score)}")
        key = (guild, player, kind, stats.history[-1], count, chart_title, subtitle)
        png = self._charts.get(key)
        if png is not None:
            self._charts.move_to_end(key)
        else:
            points = [RatingPoint(at, mu, sigma) for at, mu, sigma in stats.history]

            async def drawn() -> bytes:
                made = await asyncio.to_thread(rating_chart, points, title=chart_title,
                                               subtitle=subtitle, scale=2)
                self.charts_drawn += 1
                self._charts[key] = made
                while len(self._charts) > CHARTS_KEPT:
                    self._charts.popitem(last=False)
                return made

            png = await made_once(self._charting, key, drawn)
        return web.Response(body=png, content_type="image/png",
                            headers={"Cache-Control": "public, max-age=3600"})


def _game_name(kind: str) -> str:
    game = engine.GAMES.get(kind)
    return game.name if game is not None else kind


def _number(text: str | None) -> int:
    """A page number from a query (1 for anything but a plain, sane number)."""
    if text is None or not (text.isascii() and text.isdigit()) or len(text) > 9:
        return 1
    return max(1, int(text))
