"""The world every end-to-end test plays in: the loopback Discord double, the real bot
(``bot.create_bot``, as ``make run``) on a fresh database, the people at its tables and
the seeds its store deals. The game driver built on it is in ``tests/e2e_driver.py``.

What it offers:

* :class:`World` — the double (``dd``), the running bot (``running``, ``store``), its
  ``config`` and ``clock``, the seed ``dealer``; ``uid(name)`` / ``name(user_id)``;
  ``start()``, ``restart()`` (a new bot on the same database file) and ``run_due()`` (one
  scheduler pass, and what it sent delivered).
* :func:`world_fixture` — a module's ``world`` fixture in one line:
  ``world = world_fixture(people=PEOPLE, commands=COMMANDS, seed=SEED)``.
* :func:`start_world` / :func:`new_world` — the same as a coroutine, for tests that start
  a world themselves (other settings, a clock, roles); :func:`world_config` — the bot's
  configuration pointed at the double (``RATE_LIMITS=off`` unless told otherwise).
* :func:`deal_seeds` — make the store deal games from ``dealer.seed``.
* :class:`Clock` — real time from wherever the test set it, moved forward when told.
* Lobbies and reading the channel: :func:`open_game` (``/game new``, Join, Start),
  :func:`game_id_of`, :func:`public_after`, :func:`new_messages`, :func:`is_recap`,
  :func:`dms`.
* :func:`friendly_form` — the ``/<kind>`` command and options that make an action, from
  the game's declared verbs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import pytest_asyncio
from discord_double import DiscordDouble, Message, Reply, Table

import bot as warhost
from db import Store
from engine.verbs import NUMBER

#: How long an interaction must be quiet to count as done. 5 ms instead of the double's
#: default 20 ms halves the time of whole games.
QUIET_PERIOD = 0.005


class Clock:
    """The bot's clock: it runs at real speed (so an interaction is seen after it was
    sent, as on Discord) from wherever the test set it, and jumps when told to."""

    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.offset = t - time.time()

    def __call__(self) -> float:
        return time.time() + self.offset

    @property
    def t(self) -> float:
        return self()

    @t.setter
    def t(self, value: float) -> None:
        self.offset = value - time.time()

    def advance(self, seconds: float) -> None:
        self.offset += seconds


class World:
    """The double, the running bot and the dealer of its games' seeds.

    Built by :func:`start_world`; ``World(dd, running, dealer)`` wraps a bot started
    elsewhere (it cannot ``restart`` then).
    """

    def __init__(self, dd: DiscordDouble, running: Any = None,
                 dealer: SimpleNamespace | None = None, *, start_bot: Any = None,
                 config: warhost.Config | None = None, commands: Any = True,
                 clock: Clock | None = None, people: Iterable[str] = ()) -> None:
        self.dd = dd
        self.people = tuple(people)
        self.running = running
        self.dealer = dealer if dealer is not None else SimpleNamespace(seed=None)
        self.start_bot = start_bot
        self.config = config
        self.commands = commands
        self.clock = clock

    async def start(self) -> None:
        """A new bot on ``config`` (and ``clock``), its commands synced."""
        assert self.start_bot is not None and self.config is not None
        extra = {} if self.clock is None else {"clock": self.clock}
        self.running = await self.start_bot(warhost.create_bot(self.config, **extra),
                                            commands=self.commands)

    async def restart(self) -> None:
        """Shut the bot down and start a brand new one on the same database file."""
        await self.running.stop()
        assert self.running.bot.store is None          # the old store is closed
        await self.start()

    async def run_due(self) -> None:
        """One scheduler pass now, and wait until what it sent has arrived."""
        await self.running.bot.scheduler.run_due()
        await self.running.bot.announcer.deliver_all()

    @property
    def store(self) -> Store:
        store = self.running.bot.store
        assert isinstance(store, Store)
        return store

    def uid(self, name: str) -> str:
        return self.dd.resolve_user(name).id

    def name(self, user_id: str) -> str:
        return self.dd.users[user_id].name


def deal_seeds(monkeypatch: pytest.MonkeyPatch, seed: int | None) -> SimpleNamespace:
    """Make the store deal games from ``dealer.seed`` instead of its committed dice (their
    records then fail the dice check: a test of the commitment deals real ones); a test
    may set another seed on the returned dealer before it starts a game. While the seed
    is None the store deals from the commitment, as in play."""
    import db.lobby

    dealer = SimpleNamespace(seed=seed)
    real = db.lobby.deal

    def deal(secret: str, contributions: list[str]) -> int:
        return real(secret, contributions) if dealer.seed is None else dealer.seed

    monkeypatch.setattr(db.lobby, "deal", deal)
    return dealer


def world_config(dd: DiscordDouble, tmp_path: Path, **settings: str | None) -> warhost.Config:
    """The bot's configuration against the double, its database in ``tmp_path``.

    ``settings`` are more environment variables; ``RATE_LIMITS`` is ``off`` (scripted
    players play faster than people may) and ``BOARD_WARMUP`` ``off`` unless given:
    ``RATE_LIMITS=None`` leaves the bot's own default, as any setting given None is left
    out.
    """
    env: dict[str, str | None] = {
        "DISCORD_TOKEN": dd.token, "DISCORD_API_BASE": dd.api_base,
        "DATABASE_PATH": str(tmp_path / "warhost.db"), "DEV_GUILD_ID": dd.guild.id,
        # each test's fresh workers would spend seconds warming every game's boards up
        # before their first (tests/test_render_warm*.py hold the warm-up itself)
        "RATE_LIMITS": "off", "BOARD_WARMUP": "off", **settings}
    return warhost.Config.from_env({k: v for k, v in env.items() if v is not None}, None)


async def start_world(dd: DiscordDouble, start_bot: Any, tmp_path: Path, people: Iterable[str],
                      commands: Any, dealer: SimpleNamespace | None = None, *,
                      clock: Clock | None = None, **settings: str | None) -> World:
    """The real bot on a fresh database in ``tmp_path``, ``people`` added to the double's
    server, ``commands`` (names, or True: any) synced; see :func:`world_config` for
    ``settings``."""
    world = new_world(dd, start_bot, tmp_path, people, commands, dealer, clock=clock,
                      **settings)
    await world.start()
    return world


def new_world(dd: DiscordDouble, start_bot: Any, tmp_path: Path, people: Iterable[str],
              commands: Any, dealer: SimpleNamespace | None = None, *,
              clock: Clock | None = None, **settings: str | None) -> World:
    """:func:`start_world` without starting the bot (``await world.start()`` does), for a
    test that changes the world's configuration first."""
    dd.quiet_period = QUIET_PERIOD
    people = tuple(people)
    for name in people:
        dd.add_user(name)
    return World(dd, None, dealer, start_bot=start_bot, config=world_config(
        dd, tmp_path, **settings), commands=commands, clock=clock, people=people)


def world_fixture(*, people: Iterable[str], commands: Any, seed: int | None = None,
                  clock: float | None = None,
                  prepare: Callable[[DiscordDouble], None] | None = None,
                  name: str = "world", **settings: str | None) -> Any:
    """A test module's world fixture in one line: ``world = world_fixture(people=...)``.

    It deals games from ``seed`` (``world.dealer.seed`` may be changed; None: real random
    seeds), gives the bot a :class:`Clock` started at ``clock`` if given, calls
    ``prepare(dd)`` (roles, channels) before the bot starts, and passes ``settings`` to
    :func:`world_config`. ``name`` is the fixture's name.
    """
    people = tuple(people)

    @pytest_asyncio.fixture(name=name)
    async def world(discord_double: DiscordDouble, start_bot: Any, tmp_path: Path,
                    monkeypatch: pytest.MonkeyPatch) -> World:
        made = new_world(discord_double, start_bot, tmp_path, people, commands,
                         deal_seeds(monkeypatch, seed),
                         clock=None if clock is None else Clock(clock), **settings)
        if prepare is not None:
            prepare(discord_double)
        await made.start()
        return made

    return world


# -- lobbies and the channel ----------------------------------------------------------------


def game_id_of(opened: Reply) -> int:
    """The game number in the title of the lobby ``/game new`` opened."""
    return int(opened.message.embeds[0]["title"].rsplit("#", 1)[1])


async def open_game(table: Table, kind: str, players: list[str], **extra: Any) -> int:
    """``/game new kind:<kind>`` by the first player (with ``extra`` options), Join for the
    others, Start by the first: the new game's number."""
    reply = await table.slash(players[0], "game new", kind=kind, **extra)
    for name in players[1:]:
        await table.click(name, "Join")
    await table.click(players[0], "Start")
    return game_id_of(reply)


def is_recap(message: Any) -> bool:
    """The animated recap a finished game ends with (tests of turn digests skip it)."""
    return str(getattr(message, "content", "") or "").endswith("· recap")


def public_after(table: Table, seen: int) -> list[Message]:
    """What everyone sees at the table after its first ``seen`` messages."""
    return [m for m in table.messages[seen:] if not m.ephemeral]


def new_messages(table: Table, seen: int) -> list[Message]:
    """:func:`public_after`, less a finished game's recap: the turn digests and notices."""
    return [m for m in public_after(table, seen) if not is_recap(m)]


def dms(dd: DiscordDouble, name: str) -> list[Message]:
    """The direct messages the bot sent ``name``."""
    return dd.channel_messages(dd.dm_channel(name))


def friendly_form(game: Any, action: str) -> tuple[str, dict[str, Any]]:
    """The ``/<kind>`` command and options that make ``action``, from the game's declared
    verbs (ValueError if no verb makes it)."""
    for verb in game.verbs:
        words = verb.matches(action)
        if words is None:
            continue
        options: dict[str, Any] = {}
        for token, word in zip(verb.tokens, words, strict=True):
            if token.startswith("{"):
                arg = verb.arg(token[1:-1])
                options[arg.name] = int(word) if arg.kind == NUMBER else word
        return f"{game.kind} {verb.name}", options
    raise ValueError(action)
