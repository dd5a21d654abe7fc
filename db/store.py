"""The store as the bot uses it: the core and the services around it, assembled.

:class:`Store` is :class:`db.core.StoreCore` (connections, transactions, reading games,
and the one move path, :meth:`~db.core.StoreCore.apply_action`) with each service at
its own attribute:

=========================  =========================================================
``store.lobby``            open, join, leave, seat computers, reorder, start, abort
``store.history``          a game's log (archived or not), replays, integrity checks
``store.outbox``           the announcements moves saved, until they are delivered
``store.hosting``          the scheduler's look at a game, vacations, settings, follows
``store.archive``          compacting finished games' logs
``store.privacy``          what is held about a user, and deleting it
``store.leases``           jobs that one process of several runs
``store.limits``           open games per server, lobbies that expire
``store.web``              what the web pages read; names, links and listings for them
``store.ratings``          ratings, leaderboards, players' and games' statistics
``store.server_settings``  each server's settings (/settings), values processes share
``store.pending``          interactions deferred and not yet answered
=========================  =========================================================

Each service depends on the core (the privacy service on the lobby too, the hosting
and limits services on the server settings); the core depends on none of them.
"""

from __future__ import annotations

from collections.abc import Callable

from db.archive import Archiving
from db.backend import PostgresBackend, SQLiteBackend
from db.core import StoreCore
from db.history import History
from db.hosting import Hosting
from db.leases import Leases
from db.limits import Limits
from db.lobby import Lobby
from db.outbox import Outbox
from db.pending import Pending
from db.privacy import Privacy
from db.ratings import Ratings
from db.server_settings import ServerSettings
from db.web import WebData


class Store(StoreCore):
    """Warhost's games, persisted. Create with ``await Store.open(path_or_url)``."""

    def __init__(self, backend: SQLiteBackend | PostgresBackend,
                 clock: Callable[[], float] | None = None) -> None:
        super().__init__(backend, clock)
        self.server_settings = ServerSettings(self)
        self.lobby = Lobby(self)
        self.history = History(self)
        self.outbox = Outbox(self)
        self.hosting = Hosting(self, self.server_settings)
        self.archive = Archiving(self)
        self.privacy = Privacy(self, self.lobby)
        self.leases = Leases(self)
        self.limits = Limits(self, self.server_settings)
        self.web = WebData(self)
        self.ratings = Ratings(self)
        self.pending = Pending(self)
