"""What the store hands back, and the errors it raises.

Every :class:`StoreError` message is shown to the Discord user as it is, so each one
says what went wrong and what to do about it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


class StoreClosed(StoreError):
    """The store was closed: the bot is shutting down (not a failure worth a traceback)."""


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
    #: The last version the channel's turn digest has told of.
    digest_seq: int = 0
    #: When each player's current decision began (epoch seconds): a move sent before
    #: then was chosen for an earlier decision and is refused.
    decisions: dict[str, float] = field(default_factory=dict)
    #: The time control (``control``), each player's bank and timeouts so far.
    timing: dict[str, Any] = field(default_factory=dict)
    #: Reminders sent, per player, for their current decision (see db.clocks.Reminding).
    nudges: dict[str, Any] = field(default_factory=dict)
    #: When the scheduler must look at this game again (None: nothing to wait for).
    wake_at: float | None = None

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
    #: Who made it: the player (``player``), their clock running out (``timeout``), the
    #: computer (``computer``), or an ``undo`` entry (its event lists the moves it took
    #: back).
    origin: str = "player"


#: Origins of logged actions.
BY_PLAYER = "player"
BY_TIMEOUT = "timeout"
BY_UNDO = "undo"
#: A computer chose it: a computer's own seat, or a human's seat it took over.
BY_COMPUTER = "computer"


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
    #: Ids of the announcements this action made due (saved in its transaction).
    announcements: tuple[int, ...] = ()


#: Kinds of announcement: the channel's turn digest, the answer to the interaction that
#: made the move, and a player's private events (a direct message).
DIGEST = "digest"
REPLY = "reply"
PRIVATE = "private"
#: A channel message made by the platform (a reminder, reminders stopping).
NOTICE = "notice"
#: A notice's type: the game was closed because only computers were left playing it.
COMPUTERS_ONLY = "computers_only"
#: A notice's type: a player's clock ran out and the computer took their seat over.
TAKEOVER = "takeover"
#: A direct message made by the platform (a reminder for a player who opted in).
DIRECT = "direct"
#: A turn digest sent by direct message to a spectator who follows the game.
FOLLOW = "follow"
#: Refresh the game's status message (edited in place).
STATUS = "status"
#: The animated recap of a finished game.
RECAP = "recap"


@dataclass(frozen=True)
class Announcement:
    """Something the players must be told about a saved move, until it is delivered.

    Saved in the same transaction as the move (so a crash can never lose it) and
    marked delivered once sent (so a restart sends what is left, at least once).
    ``payload`` is JSON made by the store; ``secret`` is the interaction token of a
    reply (never logged; cleared on delivery).
    """

    id: int
    game_id: int
    seq: int
    kind: str
    recipient: str | None
    payload: dict[str, Any]
    secret: str | None
    created_at: float
    delivered_at: float | None = None
    message_id: str | None = None


@dataclass(frozen=True)
class PlayerSettings:
    """A player's own settings, on every server."""

    user_id: str
    timezone: str | None = None
    quiet_start: int | None = None
    quiet_end: int | None = None
    dm_reminders: bool = False
    reminder_every: float | None = None


@dataclass(frozen=True)
class ChannelSettings:
    """A channel's settings, chosen by the server's admins (None: Warhost's default)."""

    channel_id: str
    reminder_every: float | None = None
    reminder_limit: int | None = None


@dataclass(frozen=True)
class Vacation:
    """A player's vacation on one server, from ``starts_at`` to ``ends_at``."""

    id: int
    guild_id: str
    user_id: str
    starts_at: float
    ends_at: float
