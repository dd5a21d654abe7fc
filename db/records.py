"""What the store hands back, and the errors it raises.

Every :class:`StoreError` message is shown to the Discord user as it is, so each one
says what went wrong and what to do about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Game statuses, in the only order a game goes through them ("aborted" may follow
#: "lobby" or "active").
LOBBY = "lobby"
ACTIVE = "active"
FINISHED = "finished"
ABORTED = "aborted"
STATUSES = (LOBBY, ACTIVE, FINISHED, ABORTED)
OPEN_STATUSES = (LOBBY, ACTIVE)


class StoreError(Exception):
    """A request the store refuses; the message is meant for the user, as is."""


class ChannelBusy(StoreError):
    """The channel already has a game in its lobby or under way."""


class NotFound(StoreError):
    """No game has that id."""


@dataclass(frozen=True)
class GameRecord:
    """One row of the games table. ``state`` is the engine's dump text (None in the lobby)."""

    id: int
    kind: str
    guild_id: str | None
    channel_id: str
    host_id: str
    status: str
    seats: tuple[str, ...]
    seed: int
    options: dict[str, Any]
    state: str | None
    version: int
    lobby_message_id: str | None
    created_at: float
    updated_at: float

    @property
    def is_open(self) -> bool:
        """In the lobby or under way (the channel is taken)."""
        return self.status in OPEN_STATUSES


@dataclass(frozen=True)
class LogEntry:
    """One accepted action. ``action`` is the text as the player gave it."""

    seq: int
    player: str
    action: str
    events: list[dict[str, Any]]
    created_at: float


@dataclass(frozen=True)
class MoveResult:
    """What :meth:`db.Store.apply_action` did.

    ``record`` and ``state`` are the game as it is now (for a duplicate, that may be
    after later moves too); ``events`` and ``seq`` belong to this action.
    """

    record: GameRecord
    state: Any
    events: list[dict[str, Any]]
    seq: int
    duplicate: bool
