"""A loopback Discord (REST + gateway on 127.0.0.1) for end-to-end tests of the real bot.

See README.md in this directory.
"""

from .models import (
    Attachment,
    BotError,
    Choice,
    DoubleTimeout,
    FakeChannel,
    FakeGuild,
    FakeRole,
    FakeUser,
    Message,
    Reply,
)
from .runner import NetworkBlocked, RunningBot, launch_bot, loopback_only, pointed_at
from .server import DiscordDouble, RequestRecord
from .table import ClientRefused, Table

__all__ = [
    "Attachment",
    "BotError",
    "Choice",
    "ClientRefused",
    "DiscordDouble",
    "DoubleTimeout",
    "FakeChannel",
    "FakeGuild",
    "FakeRole",
    "FakeUser",
    "Message",
    "NetworkBlocked",
    "Reply",
    "RequestRecord",
    "RunningBot",
    "Table",
    "launch_bot",
    "loopback_only",
    "pointed_at",
]
