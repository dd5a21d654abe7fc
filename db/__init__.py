"""Warhost's persistence: games and their move logs in SQLite (via aiosqlite).

:meth:`Store.apply_action` is the one path through which every move is made.
"""

from db.records import (
    DIGEST,
    PRIVATE,
    REPLY,
    Announcement,
    ChannelBusy,
    GameRecord,
    LogEntry,
    MoveResult,
    NotFound,
    StoreError,
)
from db.store import Store

__all__ = ["DIGEST", "PRIVATE", "REPLY", "Announcement", "ChannelBusy", "GameRecord", "LogEntry",
           "MoveResult", "NotFound", "Store", "StoreError"]
