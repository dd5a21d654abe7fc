"""What the store hands back, the errors it raises, and how its rows map to them.

Every :class:`StoreError` message is shown to the Discord user as it is, so each one
says what went wrong and what to do about it. The row mapping (the column lists and
the functions reading a row into a record) lives here, beside the records, so the
store's core and its services read rows the one same way.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.notation import MAX_DIGITS, is_number

# A logged action and its origins belong to the record format; the store hands them on.
from engine.record import BY_COMPUTER as BY_COMPUTER
from engine.record import BY_PLAYER as BY_PLAYER
from engine.record import BY_TIMEOUT as BY_TIMEOUT
from engine.record import BY_UNDO as BY_UNDO
from engine.record import LogEntry as LogEntry
from engine.record import canonical

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
    #: The unguessable id of the game's web page (``/g/<public_id>``); not the row id.
    public_id: str = ""
    #: The committed dice (see :mod:`engine.record`): ``scheme``, ``commitment``, the
    #: secret ``seed`` and ``salt`` (never shown before the game ends), ``committed_at``,
    #: each seat's ``contributions`` and, once started, the ``mixed`` pairs. Empty for a
    #: game from before commitments.
    dice: dict[str, Any] = field(default_factory=dict)
    #: Where a game started from another position came from: ``from`` ("position" or
    #: "record"), a ``note`` for players, the ``source`` position text as given and, once
    #: started, the ``position`` with the seats in it. Empty for a game dealt afresh.
    origin: dict[str, Any] = field(default_factory=dict)

    @property
    def is_open(self) -> bool:
        """In the lobby or under way (the channel is taken)."""
        return self.status in OPEN_STATUSES




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
    #: What delivering the game's announcements needs, read in the move's transaction
    #: when asked for (``prefetch``).
    delivery: Delivery | None = None


@dataclass(frozen=True)
class Delivery:
    """What delivering a game's pending announcements needs, read at one moment: the
    game, its undelivered announcements (oldest first), and the logged actions they
    tell (``entries``, by seq: those from the oldest one told to the newest)."""

    record: GameRecord
    pending: tuple[Announcement, ...]
    entries: dict[int, LogEntry]

    def between(self, first: int, last: int) -> list[LogEntry] | None:
        """The actions ``first``..``last``, oldest first; None unless all are here."""
        try:
            return [self.entries[seq] for seq in range(first, last + 1)]
        except KeyError:
            return None


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


# -- rows -------------------------------------------------------------------------------

#: A row as a database driver hands it back.
Row = Sequence[Any]

#: The columns of a game row, in the order :func:`game_from_row` reads them.
GAME_COLUMNS = ("id, kind, guild_id, channel_id, host_id, status, seats, seed, options, "
                "state, version, lobby_message_id, created_at, updated_at, digest_seq, "
                "decisions, timing, nudges, wake_at, public_id, dice, origin")
#: The columns of a log row, in the order :func:`entries_from_rows` reads them.
LOG_COLUMNS = "seq, player, action, events, created_at, origin"
#: The columns of an announcement row, in the order :func:`announcement_from_row` reads.
ANNOUNCEMENT_COLUMNS = ("id, game_id, seq, kind, recipient, payload, secret, created_at, "
                        "delivered_at, message_id")
#: The SQL condition of a game that holds its channel (in the lobby or under way).
OPEN_SQL = "status IN ('lobby', 'active')"


def canonical_json(value: Any) -> str:
    """The one JSON spelling the store writes (sorted keys, no spaces, no NaN): the
    record format's, so what the store saves and what a record hashes agree."""
    return canonical(value)


def new_public_id() -> str:
    """A game's web id: 96 random bits, as 24 hex digits (nobody can guess a game's page
    from another's, and the row id says nothing about it)."""
    return secrets.token_hex(12)


def game_from_row(row: Row) -> GameRecord:
    """A game row (:data:`GAME_COLUMNS`) as a record."""
    return GameRecord(
        id=int(row[0]), kind=row[1], guild_id=row[2], channel_id=row[3], host_id=row[4],
        status=row[5], seats=tuple(json.loads(row[6])), seed=int(row[7]),
        options=json.loads(row[8]), state=row[9], version=int(row[10]),
        lobby_message_id=row[11], created_at=float(row[12]), updated_at=float(row[13]),
        digest_seq=int(row[14]), decisions=json.loads(row[15]), timing=json.loads(row[16]),
        nudges=json.loads(row[17]), wake_at=None if row[18] is None else float(row[18]),
        public_id=row[19] or "", dice=json.loads(row[20] or "{}"),
        origin=json.loads(row[21] or "{}"))


def entries_from_rows(rows: Iterable[Row]) -> list[LogEntry]:
    """Log rows (:data:`LOG_COLUMNS`) as entries, in the given order."""
    return [LogEntry(int(r[0]), r[1], r[2], json.loads(r[3]), float(r[4]), r[5]) for r in rows]


def announcement_from_row(row: Row) -> Announcement:
    """An announcement row (:data:`ANNOUNCEMENT_COLUMNS`) as a record."""
    return Announcement(
        id=int(row[0]), game_id=int(row[1]), seq=int(row[2]), kind=row[3], recipient=row[4],
        payload=json.loads(row[5]), secret=row[6], created_at=float(row[7]),
        delivered_at=None if row[8] is None else float(row[8]), message_id=row[9])


# -- what callers pass in ------------------------------------------------------------------


def as_game_id(value: Any) -> int:
    """Game ids are ints; digits 0-9 in text (from a custom_id, say) are accepted too
    (other scripts' digits and superscripts, ``#٣`` or ``#²``, name no game)."""
    if isinstance(value, str):
        text = value.strip().lstrip("#")
        if is_number(text) and len(text) <= MAX_DIGITS:
            return int(text)
        raise NotFound(f"There is no game #{text if len(text) <= 20 else text[:19] + '…'}.")
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotFound(f"There is no game #{value}.")
    return value


def as_discord_id(value: Any, what: str) -> str:
    """Discord snowflakes arrive as int or str; the store keeps text."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value) == "":
        raise StoreError(f"Internal error: {what} must be a Discord id, not {value!r}.")
    return str(value)
