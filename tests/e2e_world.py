"""What the per-game end-to-end tests share: the bot started against the Discord double on
a fresh database, with the games it deals seeded by the test."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from discord_double import DiscordDouble

import bot as warhost
from db import Store
from engine.verbs import NUMBER


class World:
    """The double, the running bot and the dealer of its games' seeds."""

    def __init__(self, dd: DiscordDouble, running: Any, dealer: SimpleNamespace) -> None:
        self.dd = dd
        self.running = running
        self.dealer = dealer

    @property
    def store(self) -> Store:
        store = self.running.bot.store
        assert isinstance(store, Store)
        return store

    def uid(self, name: str) -> str:
        return self.dd.resolve_user(name).id

    def name(self, user_id: str) -> str:
        return self.dd.users[user_id].name


def deal_seeds(monkeypatch: pytest.MonkeyPatch, seed: int) -> SimpleNamespace:
    """Make the store deal games from ``dealer.seed`` (only its own ``secrets`` is replaced);
    a test may set another seed on the returned dealer before it starts a game."""
    import db.lobby

    dealer = SimpleNamespace(seed=seed)
    monkeypatch.setattr(db.lobby, "secrets", SimpleNamespace(randbits=lambda bits: dealer.seed))
    return dealer


async def start_world(dd: DiscordDouble, start_bot: Any, tmp_path: Path, people: Iterable[str],
                      commands: list[str], dealer: SimpleNamespace) -> World:
    """The real bot (``bot.create_bot``, as ``make run``) on a fresh database in ``tmp_path``."""
    dd.quiet_period = 0.005
    for name in people:
        dd.add_user(name)
    config = warhost.Config.from_env({
        "DISCORD_TOKEN": dd.token, "DISCORD_API_BASE": dd.api_base,
        "DATABASE_PATH": str(tmp_path / "warhost.db"), "DEV_GUILD_ID": dd.guild.id,
        "RATE_LIMITS": "off",       # scripted players play faster than people may
    }, None)
    return World(dd, await start_bot(warhost.create_bot(config), commands=commands), dealer)


def is_recap(message: Any) -> bool:
    """The animated recap a finished game ends with (tests of turn digests skip it)."""
    return str(getattr(message, "content", "") or "").endswith("· recap")


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
