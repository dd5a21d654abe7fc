"""Warhost's persistence: games and their move logs in SQLite (the embedded default, via
aiosqlite) or PostgreSQL (via asyncpg, for servers that outgrow one machine).

:meth:`Store.apply_action` is the one path through which every move is made.
"""

from db.records import (
    DIGEST,
    PRIVATE,
    REPLY,
    Announcement,
    ChannelBusy,
    Delivery,
    GameRecord,
    LogEntry,
    MoveResult,
    NotFound,
    StoreClosed,
    StoreError,
)
from db.store import Store

__all__ = ["DIGEST", "PRIVATE", "REPLY", "Announcement", "ChannelBusy", "Delivery", "GameRecord",
           "LogEntry", "MoveResult", "NotFound", "Store", "StoreClosed", "StoreError"]
