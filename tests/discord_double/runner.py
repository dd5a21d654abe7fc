"""Run a real, unmodified discord.py bot against the double (no pytest needed).

pytest users want the fixtures in ``fixtures.py``; a demo script does::

    async with DiscordDouble() as dd:
        with loopback_only(), pointed_at(dd):
            running = await launch_bot(dd, make_my_bot())
            ...
            await running.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterable, Iterator
from typing import Any

from .models import BotError
from .server import DiscordDouble

LOOPBACK_HOSTS = {"127.0.0.1", "::1", "localhost", "::ffff:127.0.0.1"}


@contextlib.contextmanager
def pointed_at(dd: DiscordDouble) -> Iterator[None]:
    """Point the unmodified discord.py at the double (REST base + gateway), then restore."""
    import discord.gateway
    import discord.http
    import yarl

    route_cls = discord.http.Route
    ws_cls = discord.gateway.DiscordWebSocket
    old_base, old_gateway = route_cls.BASE, ws_cls.DEFAULT_GATEWAY
    route_cls.BASE = dd.api_base
    ws_cls.DEFAULT_GATEWAY = yarl.URL(dd.gateway_url)
    try:
        yield
    finally:
        route_cls.BASE = old_base
        ws_cls.DEFAULT_GATEWAY = old_gateway


class NetworkBlocked(OSError):
    """Something tried to reach a host other than the loopback double."""


@contextlib.contextmanager
def loopback_only() -> Iterator[None]:
    """Refuse every DNS lookup and socket connection that is not to the loopback interface."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def check(host: Any) -> None:
        if (
            isinstance(host, str | bytes)
            and (host.decode() if isinstance(host, bytes) else host) in LOOPBACK_HOSTS
        ):
            return
        raise NetworkBlocked(
            f"network access to {host!r} blocked: tests talk to the loopback double only"
        )

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            check(address[0])
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            check(address[0])
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None:
            check(host)
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    try:
        yield
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo


class RunningBot:
    """A bot started with ``bot.start(token)`` in a task, connected to the double."""

    def __init__(self, dd: DiscordDouble, bot: Any, task: asyncio.Task[None]) -> None:
        self.dd = dd
        self.bot = bot
        self.task = task

    @property
    def running(self) -> bool:
        return not self.task.done()

    async def stop(self, timeout: float = 10.0) -> None:
        """``bot.close()`` and wait for ``bot.start()`` to return; re-raises its error, if any."""
        if not self.bot.is_closed():
            await self.bot.close()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), timeout)
        except TimeoutError:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            raise BotError(f"bot.start() did not return within {timeout}s of bot.close()") from None

    def __repr__(self) -> str:
        return f"<RunningBot {self.bot!r} running={self.running}>"


async def launch_bot(
    dd: DiscordDouble,
    bot: Any,
    *,
    token: str | None = None,
    commands: bool | Iterable[str] = True,
    ready: bool = False,
    timeout: float | None = None,
) -> RunningBot:
    """Start ``bot`` against ``dd`` (already ``pointed_at``) and wait until it can be played.

    Waits for: the gateway session (READY + every GUILD_CREATE sent); then, if ``commands``,
    for synced commands (True: any; or these names) - commands synced by an earlier bot
    instance count, as on Discord; then, if ``ready``, for ``bot.wait_until_ready()``.
    """
    before = dd.identify_count
    task = asyncio.create_task(bot.start(token or dd.token), name="discord-double: bot.start")
    running = RunningBot(dd, bot, task)
    try:
        await dd.wait_until(
            lambda: task.done() or (dd.identify_count > before and _connected(dd)),
            timeout=timeout,
            what="the bot to log in and connect to the gateway",
        )
        if task.done():
            task.result()
            raise BotError("bot.start() returned before the bot connected")
        if commands:
            await dd.wait_for_commands(None if commands is True else commands, timeout=timeout)
        if ready:
            await asyncio.wait_for(bot.wait_until_ready(), timeout or dd.default_timeout)
    except BaseException:
        with contextlib.suppress(Exception):
            await running.stop(timeout=5.0)
        raise
    return running


def _connected(dd: DiscordDouble) -> bool:
    s = dd.latest_session
    return s is not None and s.guilds_sent and s.connected
