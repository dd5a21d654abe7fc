"""The store's side of the web companion (:mod:`web`): what its pages read, and the
few things the bot writes for it.

Read by the web processes (which never write): a game by its public id, the display
names of its players, a server's listing, the current generation of a personal link.
Written by the bot only: display names (as players join and start games), personal
links issued and revoked (``/game web``), a server's listing (``/web settings``).

A personal link is signed, not stored: ``<payload>.<signature>``, the payload naming
the game's public id, the user, the link's generation and when it expires; the
signature an HMAC-SHA256 under a key the database holds (made by the migration, so
every bot and web process shares it). Revoking moves the user's generation for that
game on, which every link given out before no longer matches. The token is the
capability: it is never logged (see ``web.app``'s access log) nor stored.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from db.archive import archived_entries
from db.core import StoreCore
from db.ratings import PEOPLE
from db.records import (
    ANNOUNCEMENT_COLUMNS,
    GAME_COLUMNS,
    Announcement,
    GameRecord,
    LogEntry,
    StoreError,
    announcement_from_row,
    as_discord_id,
    as_game_id,
    game_from_row,
)

#: How long a personal link works (``WEB_LINK_DAYS`` overrides it in the bot).
LINK_DAYS = 14.0
#: Longest display name kept (Discord allows 32; a little room for nicknames' emoji).
NAME_LIMIT = 64
#: Longest token looked at: anything longer is refused before any work.
TOKEN_LIMIT = 400
#: The public id's shape: 24 hex digits (older rows, made in PostgreSQL: 32).
PUBLIC_ID_CHARS = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class Link:
    """What a valid personal link gives: the game and whose view."""

    record: GameRecord
    user_id: str
    expires_at: float


class LinkRefused(Exception):
    """A personal link that does not (or no longer) work; the message says why, in
    words fit for the page (never which part of the signature failed)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def plausible_public_id(text: object) -> bool:
    """Whether ``text`` could be a public id at all (checked before any database read)."""
    return (isinstance(text, str) and 16 <= len(text) <= 40
            and all(c in PUBLIC_ID_CHARS for c in text))


class WebData:
    """``store.web``: see the module's docstring."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core
        self._key: bytes | None = None

    # -- reads (web processes) ---------------------------------------------------------

    async def game(self, public_id: str) -> GameRecord | None:
        """The game whose page is ``/g/<public_id>`` (None for any other text)."""
        if not plausible_public_id(public_id):
            return None
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE public_id = ?", (public_id,)))
        return game_from_row(rows[0]) if rows else None

    async def log(self, record: GameRecord) -> tuple[list[LogEntry], list[Announcement]]:
        """A game's whole log (archived or not) and its turn digests, oldest first."""
        async with self.core.reading(snapshot=True) as conn:
            entries = await self.core.log_of(conn, record.id)
            if not entries and record.version:
                entries = list(await archived_entries(conn, record.id) or [])
            rows = await conn.execute_fetchall(
                f"SELECT {ANNOUNCEMENT_COLUMNS} FROM announcements WHERE game_id = ? AND "
                "kind = 'digest' ORDER BY id", (record.id,))
        return entries, [announcement_from_row(r) for r in rows]

    async def versions(self, game_ids: Iterable[int]) -> dict[int, tuple[int, str]]:
        """Each game's version and status now (games that are gone are left out): what
        the live pages watch."""
        ids = [int(g) for g in game_ids]
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT id, version, status FROM games WHERE id IN ({marks})", ids)
        return {int(r[0]): (int(r[1]), str(r[2])) for r in rows}

    async def names(self, guild_id: str | None, user_ids: Iterable[str]) -> dict[str, str]:
        """The display names kept for ``user_ids`` on that server (those with none are
        left out)."""
        ids = [str(u) for u in user_ids]
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT user_id, name FROM player_names WHERE guild_id = ? AND user_id "
                f"IN ({marks})", (guild_id or "", *ids))
        return {str(r[0]): str(r[1]) for r in rows}

    async def listing(self, guild_id: str) -> str | None:
        """The server's name when its admins list its games on a page, else None."""
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT listed, name FROM web_guilds WHERE guild_id = ?", (str(guild_id),)))
        return (str(rows[0][1]) or "A Discord server") if rows and rows[0][0] else None

    async def guild_games(self, guild_id: str, limit: int = 50) -> list[GameRecord]:
        """A server's games for its page: the running ones, then the newest finished."""
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE guild_id = ? AND status IN "
                "('active', 'finished') ORDER BY (status = 'active') DESC, updated_at DESC "
                "LIMIT ?", (str(guild_id), int(limit)))
        return [game_from_row(r) for r in rows]

    async def rated_kinds(self, guild_id: str) -> list[str]:
        """The game kinds people have ratings in on a server (its leaderboards), the
        kind with the most rated people first."""
        async with self.core.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT kind, COUNT(*) FROM ratings WHERE guild_id = ? AND {PEOPLE} "
                "GROUP BY kind ORDER BY COUNT(*) DESC, kind", (str(guild_id),))
        return [str(r[0]) for r in rows]

    async def key(self) -> bytes:
        """The key that signs personal links (read once per process)."""
        if self._key is None:
            async with self.core.reading() as conn:
                rows = list(await conn.execute_fetchall(
                    "SELECT secret FROM web_keys WHERE id = 1"))
            if not rows:
                raise StoreError("The database has no key for personal web links; start "
                                 "the bot once to bring the database up to date.")
            self._key = bytes.fromhex(str(rows[0][0]))
        return self._key

    async def check_link(self, token: str) -> Link:
        """The game and user a personal link stands for; :class:`LinkRefused` for a
        forged, damaged, expired or revoked one."""
        if not isinstance(token, str) or not 10 < len(token) <= TOKEN_LIMIT:
            raise LinkRefused("This link is not a Warhost link.")
        payload_text, _, signature = token.partition(".")
        try:
            payload = _unb64(payload_text)
            given = _unb64(signature)
        except (binascii.Error, ValueError):
            raise LinkRefused("This link is not a Warhost link.") from None
        if _b64(payload) != payload_text or _b64(given) != signature:
            # one spelling per link: base64's unused low bits and padding do not count
            raise LinkRefused("This link is not a Warhost link.")
        wanted = hmac.new(await self.key(), payload, hashlib.sha256).digest()
        if not hmac.compare_digest(given, wanted):
            raise LinkRefused("This link is not a Warhost link.")
        try:
            claims = json.loads(payload)
            public_id, user, generation, expires = (
                str(claims["g"]), str(claims["u"]), int(claims["n"]), float(claims["e"]))
        except (ValueError, KeyError, TypeError):
            raise LinkRefused("This link is not a Warhost link.") from None
        if expires <= self.core.now():
            raise LinkRefused("This link has expired. Ask for a new one with /game web in "
                              "the game's channel.")
        record = await self.game(public_id)
        if record is None:
            raise LinkRefused("This game is gone.")
        async with self.core.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT generation FROM web_links WHERE game_id = ? AND user_id = ?",
                (record.id, user)))
        if not rows or int(rows[0][0]) != generation or user not in record.seats:
            raise LinkRefused("This link was revoked. Ask for a new one with /game web in "
                              "the game's channel.")
        return Link(record, user, expires)

    # -- writes (the bot) --------------------------------------------------------------

    async def forget_names(self, guild_id: str, user_ids: Iterable[str]) -> int:
        """Drop the kept names of users who left the server (its pages then show them as
        former members); how many were dropped."""
        users = [as_discord_id(u, "user_id") for u in dict.fromkeys(user_ids)]
        if not users:
            return 0
        marks = ", ".join("?" for _ in users)
        async with self.core.transaction() as conn:
            cursor = await conn.execute(
                f"DELETE FROM player_names WHERE guild_id = ? AND user_id IN ({marks})",
                (guild_id, *users))
        return max(0, cursor.rowcount)

    async def save_names(self, guild_id: str | None, names: Mapping[str, str]) -> None:
        """Keep players' display names for the pages (only those that changed are
        written)."""
        now = self.core.now()
        kept = {as_discord_id(u, "user_id"): str(n)[:NAME_LIMIT] for u, n in names.items()}
        if not kept:
            return
        known = await self.names(guild_id, kept)
        changed = {u: n for u, n in kept.items() if known.get(u) != n}
        if not changed:
            return
        async with self.core.transaction() as conn:
            for user, name in changed.items():
                await conn.execute(
                    "INSERT INTO player_names (guild_id, user_id, name, updated_at) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
                    "name = excluded.name, updated_at = excluded.updated_at",
                    (guild_id or "", user, name, now))

    async def issue_link(self, game_id: int, user_id: str,
                         days: float = LINK_DAYS) -> tuple[str, float]:
        """A personal link's token for ``user_id``'s seat in the game, and when it
        expires. Refused for anyone without a seat."""
        game_id = as_game_id(game_id)
        user = as_discord_id(user_id, "user_id")
        now = self.core.now()
        async with self.core.transaction() as conn:
            record = await self.core.fetch(conn, game_id)
            if user not in record.seats:
                raise StoreError("You have no seat in this game, so there is no private "
                                 "view to link to; its public page is for you.")
            await conn.execute(
                "INSERT INTO web_links (game_id, user_id, generation, updated_at) "
                "VALUES (?, ?, 0, ?) ON CONFLICT (game_id, user_id) DO NOTHING",
                (game_id, user, now))
            rows = list(await conn.execute_fetchall(
                "SELECT generation FROM web_links WHERE game_id = ? AND user_id = ?",
                (game_id, user)))
        expires = float(int(now + days * 86400))
        payload = json.dumps({"g": record.public_id, "u": user, "n": int(rows[0][0]),
                              "e": int(expires)}, separators=(",", ":")).encode()
        signature = hmac.new(await self.key(), payload, hashlib.sha256).digest()
        return f"{_b64(payload)}.{_b64(signature)}", expires

    async def revoke_links(self, game_id: int, user_id: str) -> None:
        """Every personal link ``user_id`` was given for the game stops working."""
        game_id = as_game_id(game_id)
        user = as_discord_id(user_id, "user_id")
        async with self.core.transaction() as conn:
            await conn.execute(
                "INSERT INTO web_links (game_id, user_id, generation, updated_at) "
                "VALUES (?, ?, 1, ?) ON CONFLICT (game_id, user_id) DO UPDATE SET "
                "generation = web_links.generation + 1, updated_at = excluded.updated_at",
                (game_id, user, self.core.now()))

    async def set_listed(self, guild_id: str, listed: bool, name: str = "") -> None:
        """Turn a server's page (its list of games) on or off; ``name`` heads it."""
        guild = as_discord_id(guild_id, "guild_id")
        async with self.core.transaction() as conn:
            await conn.execute(
                "INSERT INTO web_guilds (guild_id, listed, name, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
                "listed = excluded.listed, name = excluded.name, "
                "updated_at = excluded.updated_at",
                (guild, int(bool(listed)), str(name)[:100], self.core.now()))
