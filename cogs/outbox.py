"""Delivering what the players must be told, at least once and in practice exactly once.

The store saves an :class:`db.Announcement` in the same transaction as every move that
makes one due (``Store.apply_action``): the answer to the mover's interaction, each
player's private events, and the channel's **turn digest** (everything done since the
last digest, one board marking all of it, and a mention of exactly who must act now).
:class:`Announcer` delivers them, in order per game, and marks each one delivered.
Nothing here decides *whether* to announce, nor words anything: :mod:`cogs.wording`
composes every text; this module sends it.

A crash can come between the commit and the send, or between the send and the mark.
So on start-up (and after a failed send) a pending channel message or DM is first
looked for among the bot's recent messages (each carries a marker line, e.g.
``-# Conqueror #12 · moves 31-35``, and is sent with an enforced nonce); only if it is
not there is it sent. An interaction's answer is an edit of its deferred response,
which is idempotent, made with the interaction's token while that is valid (Discord
gives 15 minutes); after that the digest in the channel is what the mover sees.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import discord

import engine
from cogs.boards import board_key, boards_of
from cogs.names import fallback_name, names_for
from cogs.weblinks import link_view
from cogs.wording import (
    NO_MENTIONS,
    Digest,
    clip,
    digest_events,
    digest_marker,
    digest_text,
    notice_text,
    outcome_lines,
    ping,
    private_marker,
    private_text,
    reminder_dm_text,
    reply_text,
    status_embed,
    where_line,
)
from cogs.workers import Background
from db import (
    DIGEST,
    PRIVATE,
    REPLY,
    Announcement,
    Delivery,
    GameRecord,
    LogEntry,
    NotFound,
    Store,
    StoreClosed,
    StoreError,
)
from db.records import DIRECT, FOLLOW, NOTICE, RECAP, STATUS
from db.replay import effective
from engine.notation import is_number

log = logging.getLogger("warhost.announce")


#: How far back (seconds before it was saved) a pending message is looked for.
LOOKBACK = 120


#: Pages of 100 messages searched for a pending message's marker.
LOOKUP_PAGES = 3


#: Seconds between retries of deliveries that failed (Discord down, rate limits).
RETRY_EVERY = 20.0


#: Seconds a fresh announcement is left to the process that saved it before another
#: process's delivery pass takes it on (when several share the database).
SWEEP_GRACE = 5.0


#: Announcements read per sweep of every game's, and games delivered at once by a sweep
#: (after a restart with many games' news waiting, one game after another took minutes).
SWEEP_PAGE = 500
SWEEP_GAMES_AT_ONCE = 8


#: Deliveries given up after this many failures (and logged), so one bad channel
#: cannot block a game's later announcements for ever.
MAX_ATTEMPTS = 8


class Gone(Exception):
    """A delivery that can never succeed (no such channel, no permission, DMs closed)."""


class Announcer:
    """Delivers the store's pending announcements; one per bot (``bot.announcer``)."""

    def __init__(self, client: discord.Client, store: Store, *,
                 retry_every: float = RETRY_EVERY,
                 lease: tuple[str, float] | None = None) -> None:
        self.client = client
        self.store = store
        # with other processes on the database, look at least once a lease, so what a
        # dead process left pending is taken over about a lease after its death
        self.retry_every = retry_every if lease is None else min(retry_every, lease[1])
        #: (this process's name, seconds): with other bot processes on the database, a
        #: game's announcements are delivered by whichever holds its lease; what a dead
        #: process left pending is taken over once its lease expires.
        self.lease = lease
        self._locks: dict[int, asyncio.Lock] = {}
        #: Announcements whose send may have reached Discord: look before sending again.
        self._uncertain: set[int] = set()
        self._failures: dict[int, int] = {}
        self._drawing: set[asyncio.Task[bytes | None]] = set()
        #: Delivery passes made per game: a move's prefetched read (``Delivery``) is
        #: used only if no pass of its game came between the read and its own.
        self._passes: dict[int, int] = {}
        #: The game being delivered's read: its logged actions, so that no
        #: announcement reads them again.
        self._reads: dict[int, Delivery] = {}
        self._loop = Background("warhost-announcer", self._run)

    # lifecycle

    def start(self) -> None:
        """Deliver what an earlier run left undelivered, then keep retrying failures."""
        self._loop.start()

    async def close(self) -> None:
        await self._loop.stop()

    async def _run(self) -> None:
        first = True
        while True:
            try:
                await self.deliver_all(recovering=first)
                first = False
            except asyncio.CancelledError:
                raise
            except StoreClosed:
                return                  # shutting down
            except Exception:
                log.exception("Delivering pending announcements failed")
            await asyncio.sleep(self.retry_every)

    async def deliver_all(self, *, recovering: bool = False) -> None:
        """Every game's pending announcements, several games at once (each game's in
        order), sweep after sweep while a sweep finds a full page of them and delivers
        some. ``recovering``: this process did not send them, so any of them may
        already be in Discord: look first."""
        seen: set[int] = set()
        gate = asyncio.Semaphore(SWEEP_GAMES_AT_ONCE)

        async def one(game_id: int) -> None:
            async with gate:
                await self.deliver(game_id)

        while True:
            pending = await self.store.outbox.pending(limit=SWEEP_PAGE)
            full = len(pending) >= SWEEP_PAGE
            if self.lease is not None and not recovering:
                # With other processes on the database, what was saved a moment ago is
                # being delivered by the process that saved it: leave it to that one.
                settled = self.store.now() - SWEEP_GRACE
                pending = [a for a in pending if a.created_at <= settled]
            if recovering or self.lease is not None:
                # Not sent by us (a crash, or another process that died mid-way): any
                # of them may already be in Discord, so look first.
                self._uncertain.update(a.id for a in pending if a.id not in seen)
            fresh = [a for a in pending if a.id not in seen]
            seen.update(a.id for a in pending)
            games = list(dict.fromkeys(a.game_id for a in fresh))
            for game_id, outcome in zip(games, await asyncio.gather(
                    *(one(g) for g in games), return_exceptions=True), strict=True):
                if isinstance(outcome, asyncio.CancelledError):
                    raise outcome
                if isinstance(outcome, BaseException):
                    log.error("Delivering game %s's announcements failed", game_id,
                              exc_info=outcome)
            if not full or not fresh:
                return          # all of them seen (what failed waits for the next pass)

    # one game

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def passes(self, game_id: int) -> int:
        """Delivery passes of the game finished so far (see :meth:`deliver`'s ``read``)."""
        return self._passes.get(game_id, 0)

    async def deliver(self, game_id: int,
                      interaction: discord.Interaction | None = None, *,
                      read: Delivery | None = None, read_after: int | None = None) -> None:
        """Send a game's pending announcements in order; stop at the first that fails
        for now (it is retried later, and what follows it waits, keeping the order).

        ``read``: the game's pending announcements as the move that made them read
        them, in its transaction, when the game had had ``read_after`` passes
        (:meth:`passes`). Used only if no pass came between (else it could be stale, and
        an announcement sent twice); otherwise they are read here.
        """
        async with self._lock(game_id), self._leased(game_id) as mine:
            if not mine:
                return              # another process is delivering this game's news
            try:
                if read is None or read_after != self.passes(game_id) or (
                        self.lease is not None and read.pending and self.store.now()
                        - max(a.created_at for a in read.pending) > SWEEP_GRACE / 2):
                    read = await self.store.outbox.read_delivery(game_id)
            except StoreClosed:
                return                  # shutting down: the next start delivers them
            except NotFound:
                return                  # the game is gone (its news with it)
            except StoreError:
                log.exception("Reading game %s's announcements failed", game_id)
                return
            self._reads[game_id] = read
            try:
                await self._deliver_read(read, interaction)
            finally:
                del self._reads[game_id]
                # Counted once its marks are written: a move that read its news while
                # this pass was under way (and so read what this pass sent) sees the
                # count moved and reads again.
                self._passes[game_id] = self.passes(game_id) + 1

    async def _deliver_read(self, read: Delivery,
                            interaction: discord.Interaction | None) -> None:
        """:meth:`deliver`'s sending: each of ``read.pending`` in order, then one write
        marking every one sent (a crash before it leaves them pending, and the next
        start looks for each before sending it again)."""
        done: list[tuple[int, str | None]] = []
        try:
            await self._send_each(read, interaction, done)
        finally:
            if done:
                try:
                    await self.store.outbox.mark_all_delivered(done)
                except StoreClosed:
                    pass
                except StoreError:
                    log.exception("Could not mark announcements %s delivered",
                                  [item_id for item_id, _ in done])
                    # sent, still pending: the next pass looks before sending again
                    self._uncertain.update(item_id for item_id, _ in done)
                else:
                    for item_id, _ in done:
                        self._uncertain.discard(item_id)
                        self._failures.pop(item_id, None)

    async def _send_each(self, read: Delivery, interaction: discord.Interaction | None,
                         done: list[tuple[int, str | None]]) -> None:
        game_id = read.record.id
        pending = list(read.pending)
        record = read.record if pending else None
        web = getattr(self.client, "web", None)
        if pending and web is not None:
            web.watcher.poke()      # a move was saved: the game's open pages hear now
        if record is not None and len(pending) > 1 and boards_of(self.client).cache_size:
            self._start_boards(record, pending[1:])
        newest_status = max((a.id for a in pending if a.kind == STATUS), default=None)
        for item in pending:
            assert record is not None
            try:
                if item.kind == STATUS and item.id != newest_status:
                    message_id = None       # a later refresh shows the game as it is
                else:
                    message_id = await self._deliver_one(record, item, interaction)
            except StoreClosed:
                return              # shutting down: the next start delivers the rest
            except Gone as exc:
                log.warning("Announcement %s of game %s cannot be delivered: %s",
                            item.id, game_id, exc)
                message_id = None
            except (TimeoutError, discord.HTTPException, OSError) as exc:
                if self._failed(item):
                    log.error("Giving up announcement %s of game %s after %d tries: %s",
                              item.id, game_id, MAX_ATTEMPTS, exc)
                    message_id = None
                else:
                    log.warning("Announcement %s of game %s failed (%s); will retry",
                                item.id, game_id, exc)
                    return
            except Exception:
                if self._failed(item):
                    log.exception("Giving up announcement %s of game %s", item.id,
                                  game_id)
                    message_id = None
                else:
                    log.exception("Announcement %s of game %s failed; will retry",
                                  item.id, game_id)
                    return
            done.append((item.id, message_id))

    @contextlib.asynccontextmanager
    async def _leased(self, game_id: int) -> AsyncIterator[bool]:
        """Whether this process may deliver the game's announcements now (always, when
        it is the only process on the database)."""
        if self.lease is None:
            yield True
            return
        holder, ttl = self.lease
        name = f"deliver:{game_id}"
        try:
            mine = await self.store.leases.take(name, holder, ttl)
        except StoreClosed:
            mine = False
        except StoreError:
            log.exception("Could not take the delivery lease of game %s", game_id)
            mine = False
        try:
            yield mine
        finally:
            if mine:
                with contextlib.suppress(StoreError):
                    await self.store.leases.release(name, holder)

    def _failed(self, item: Announcement) -> bool:
        """Count a failure; True once it is time to give up."""
        self._uncertain.add(item.id)
        count = self._failures.get(item.id, 0) + 1
        self._failures[item.id] = count
        return count >= MAX_ATTEMPTS

    async def _deliver_one(self, record: GameRecord, item: Announcement,
                           interaction: discord.Interaction | None) -> str | None:
        if item.kind == REPLY:
            return await self._reply(record, item, interaction)
        send = {PRIVATE: self._private, DIGEST: self._digest, FOLLOW: self._follow,
                NOTICE: self._notice, DIRECT: self._direct, STATUS: self._status,
                RECAP: self._recap}.get(item.kind)
        if send is None:
            raise Gone(f"unknown kind {item.kind!r}")
        return await send(record, item)

    # the three kinds

    async def _between(self, record: GameRecord, first: int, last: int) -> list[LogEntry]:
        """The game's logged actions ``first``..``last``: from the delivery's read when
        it holds them, else read now."""
        read = self._reads.get(record.id)
        entries = None if read is None else read.between(first, last)
        if entries is None:
            entries = await self.store.history.actions_between(record.id, first, last)
        return entries

    async def _entry(self, record: GameRecord, seq: int) -> LogEntry:
        entries = await self._between(record, seq, seq)
        if not entries:
            raise Gone(f"move {seq} is not in the log")
        return entries[0]

    async def _reply(self, record: GameRecord, item: Announcement,
                     interaction: discord.Interaction | None) -> str | None:
        game = engine.get_game(record.kind)
        content, long = reply_text(game, record, await self._entry(record, item.seq),
                                   item.payload)
        embeds = [] if long is None else [discord.Embed(description=long,
                                                        colour=discord.Colour.dark_gold())]
        if interaction is not None and str(interaction.id) == item.payload.get(
                "interaction_id"):
            await interaction.edit_original_response(content=content, embeds=embeds,
                                                     allowed_mentions=NO_MENTIONS)
            return None
        expires = float(item.payload.get("expires_at", 0))
        app_id = str(item.payload.get("application_id", ""))
        if not item.secret or not is_number(app_id) or time.time() >= expires:
            raise Gone("its interaction token has expired; the digest tells the channel")
        # The interaction's webhook; "@original" names its deferred response.
        webhook: Any = discord.Webhook.partial(int(app_id), item.secret, client=self.client)
        try:
            await webhook.edit_message("@original", content=content, embeds=embeds,
                                       allowed_mentions=NO_MENTIONS)
        except discord.NotFound as exc:
            raise Gone("Discord no longer knows the interaction") from exc
        return None

    async def _private(self, record: GameRecord, item: Announcement) -> str | None:
        assert item.recipient is not None
        game = engine.get_game(record.kind)
        channel_name, guild_name = self._where(record)
        text = private_text(game, record, await self._entry(record, item.seq), item.recipient,
                            where_line(record, channel_name, guild_name))
        if text is None or not is_number(item.recipient):
            return None
        channel = await self._dm_channel(item.recipient)
        marker = private_marker(game, record.id, item.seq)
        return await self._send_once(channel, item, marker, text, None, [])

    async def _digest(self, record: GameRecord, item: Announcement) -> str | None:
        channel = self.client.get_partial_messageable(
            int(record.channel_id), guild_id=int(record.guild_id) if record.guild_id else None)
        return await self._digest_to(channel, record, item, can_embed=self._can_embed(record))

    async def _follow(self, record: GameRecord, item: Announcement) -> str | None:
        """A copy of a turn digest for a spectator who follows the game (public only)."""
        channel = await self._dm_channel(item.recipient)
        channel_name, guild_name = self._where(record)
        return await self._digest_to(channel, record, item, can_embed=True,
                                     where=where_line(record, channel_name, guild_name))

    async def _digest_to(self, channel: discord.abc.Messageable, record: GameRecord,
                         item: Announcement, *, can_embed: bool,
                         where: str | None = None) -> str | None:
        game = engine.get_game(record.kind)
        first = int(item.payload.get("first", 1))
        last = int(item.payload.get("last", 0))
        entries = await self._between(record, first, last) if last >= first else []
        digest = digest_text(game, record, item.payload, entries, can_embed=can_embed)
        marker = digest_marker(game, record.id, first, last)
        if where is not None:   # a follower's copy: where it is from, and nobody pinged
            digest = Digest(clip(f"👀 {where}\n{digest.content}", 1990), digest.embed,
                            [])

        async def board() -> discord.File | None:
            try:
                png = await self._board(record, item, entries)
            except Exception:
                log.exception("Drawing the board of game %s failed", record.id)
                return None
            if png is None:
                return None
            return discord.File(io.BytesIO(png),
                                filename=f"{record.kind}-{record.id}-{max(last, 0)}.png")

        embed = None if digest.embed is None else discord.Embed(
            description=digest.embed, colour=discord.Colour.dark_gold())
        return await self._send_once(channel, item, marker, digest.content, board,
                                     digest.to_ping, embed, link_view(self.client, record))

    async def _dm_channel(self, recipient: str | None) -> discord.abc.Messageable:
        if recipient is None or not is_number(recipient):
            raise Gone(f"no such user {recipient!r}")
        try:
            user = self.client.get_user(int(recipient)) or \
                await self.client.fetch_user(int(recipient))
            return user.dm_channel or await user.create_dm()
        except discord.NotFound as exc:
            raise Gone("no such user") from exc

    async def _notice(self, record: GameRecord, item: Announcement) -> str | None:
        """A reminder in the game's channel, or the note that reminders stop."""
        game = engine.get_game(record.kind)
        text, ping = notice_text(game, record, item.payload)
        marker = f"-# {game.name} #{record.id} · note {item.id}"
        channel = self.client.get_partial_messageable(
            int(record.channel_id), guild_id=int(record.guild_id) if record.guild_id else None)
        return await self._send_once(channel, item, marker, f"{text}\n{marker}", None, ping)

    async def _direct(self, record: GameRecord, item: Announcement) -> str | None:
        """A reminder by direct message, for a player who asked for those."""
        game = engine.get_game(record.kind)
        channel_name, guild_name = self._where(record)
        text = reminder_dm_text(game, record, item.payload,
                                where_line(record, channel_name, guild_name))
        marker = f"-# {game.name} #{record.id} · reminder {item.id}"
        channel = await self._dm_channel(item.recipient)
        return await self._send_once(channel, item, marker, f"{text}\n{marker}", None, [])

    async def _status(self, record: GameRecord, item: Announcement) -> str | None:
        """Edit the game's status message (its lobby message) to show the game now:
        the board, who must act and until when, and the last turn (as they are now, so
        :meth:`deliver` makes only the newest of several waiting refreshes)."""
        if record.lobby_message_id is None:
            return None         # no message to keep (a game not opened by /game new)
        record = await self.store.get(record.id)
        if record.state is None or record.lobby_message_id is None:
            return None
        game = engine.get_game(record.kind)
        state = self.store.load_state(record)
        facts = await self.store.hosting.clock_facts(record)
        latest = await self.store.outbox.latest_digest(record.id)
        first, last, entries = 1, record.version, []
        if latest is not None:
            first = int(latest.payload.get("first", 1))
            last = int(latest.payload.get("last", 0))
            if last >= first:
                entries = await self.store.history.actions_between(record.id, first, last)
        names = await names_for(self.client, record.guild_id, record.seats)
        png = await boards_of(self.client).png(
            record.kind, game.view(state, None), digest_events(entries) or None, names,
            key=board_key(record.id, first, max(last, 0), names))
        embed = status_embed(game, record, state, facts, entries)
        filename = f"{record.kind}-{record.id}-status.png"
        embed.set_image(url=f"attachment://{filename}")
        channel = self.client.get_partial_messageable(
            int(record.channel_id), guild_id=int(record.guild_id) if record.guild_id else None)
        attachment = discord.File(io.BytesIO(png), filename=filename)
        message = channel.get_partial_message(int(record.lobby_message_id))
        try:
            await message.edit(content=None, embed=embed, attachments=[attachment],
                               view=link_view(self.client, record),
                               allowed_mentions=NO_MENTIONS)
        except discord.NotFound:
            attachment = discord.File(io.BytesIO(png), filename=filename)  # deleted: repost
        except discord.Forbidden as exc:
            raise Gone(f"cannot edit the status message ({exc.text})") from exc
        else:
            if item.seq == 0:
                await self._pin(message)
            return record.lobby_message_id
        try:
            sent = await channel.send(embed=embed, file=attachment,
                                      allowed_mentions=NO_MENTIONS,
                                      **_with_view(link_view(self.client, record)))
        except discord.Forbidden as exc:
            raise Gone(f"missing permission ({exc.text})") from exc
        await self.store.lobby.set_message(record.id, str(sent.id))
        await self._pin(sent)
        return str(sent.id)

    async def _pin(self, message: discord.PartialMessage | discord.Message) -> None:
        """Pin the status message where the bot may (and say nothing where it may not)."""
        try:
            await message.pin(reason="Warhost: the game's status")
        except discord.HTTPException as exc:
            log.info("Could not pin status message %s (%s)", message.id, exc)

    async def _recap(self, record: GameRecord, item: Announcement) -> str | None:
        """The finished game as an animation (one frame per turn) with the standings."""
        from render.recap import Frame

        record, steps = await self.store.history.replay_steps(record.id)
        game = engine.get_game(record.kind)
        after = {step.entry.seq: step.after for step in steps}
        by_seq = {step.entry.seq: step.entry for step in steps}
        names = await names_for(self.client, record.guild_id, record.seats)
        frames = []
        for digest in await self.store.outbox.digests(record.id):
            first = int(digest.payload.get("first", 1))
            last = int(digest.payload.get("last", 0))
            if last < first or last not in after:
                continue
            turn = [by_seq[i] for i in range(first, last + 1) if i in by_seq]
            kept = effective(turn) or turn
            actors = list(dict.fromkeys(e.player for e in kept))
            caption = ", ".join(names.get(a, fallback_name(a)) for a in actors[:3])
            frames.append(Frame(game.view(after[last], None), digest_events(turn) or None,
                                caption))
        if not frames:
            raise Gone("the game has no turns to show")
        marker = f"-# {game.name} #{record.id} · recap"
        outcome = game.outcome(after[max(after)]) if after else None
        lines = [f"📜 **{game.name} #{record.id}**, the whole game in {len(frames)} turns."]
        lines.extend(outcome_lines(record.seats, None if outcome is None
                                   else outcome.to_json())[1:])
        channel = self.client.get_partial_messageable(
            int(record.channel_id), guild_id=int(record.guild_id) if record.guild_id else None)

        async def animation() -> discord.File | None:
            try:
                data = await boards_of(self.client).recap(record.kind, frames, names,
                                                          f"{game.name} #{record.id}")
            except Exception:
                log.exception("Drawing the recap of game %s failed", record.id)
                return None
            return discord.File(io.BytesIO(data), filename=f"{record.kind}-{record.id}-recap.gif")

        return await self._send_once(channel, item, marker,
                                     "\n".join([*lines, marker]), animation, [])

    async def _board(self, record: GameRecord, item: Announcement,
                     entries: list[LogEntry] | None = None) -> bytes | None:
        """The PNG of a digest's board (drawn once: see :class:`cogs.boards.Boards`)."""
        view = item.payload.get("view")
        if not isinstance(view, dict):
            return None
        first = int(item.payload.get("first", 1))
        last = int(item.payload.get("last", 0))
        if entries is None:
            entries = await self._between(record, first, last) if last >= first else []
        names = await names_for(self.client, record.guild_id, record.seats)
        return await boards_of(self.client).png(record.kind, view,
                                                digest_events(entries) or None, names,
                                                key=board_key(record.id, first, last, names))

    def _start_boards(self, record: GameRecord, pending: Sequence[Announcement]) -> None:
        """Start drawing the digests' boards now, so they are drawn while the mover's
        answer goes out; the digest then picks its board up already made."""
        for item in pending:
            if item.kind == DIGEST:
                task = asyncio.create_task(self._board(record, item))
                self._drawing.add(task)
                task.add_done_callback(self._board_drawn)

    def _board_drawn(self, task: asyncio.Task[bytes | None]) -> None:
        self._drawing.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: the digest draws again and reports a failure

    def _can_embed(self, record: GameRecord) -> bool:
        """Whether the bot may show embeds in the game's channel (as far as it knows)."""
        channel = self.client.get_channel(int(record.channel_id))
        guild = getattr(channel, "guild", None)
        me = getattr(guild, "me", None)
        if channel is None or me is None or not hasattr(channel, "permissions_for"):
            return False
        try:
            return bool(channel.permissions_for(me).embed_links)
        except Exception:
            return False

    async def _send_once(self, channel: discord.abc.Messageable, item: Announcement,
                         marker: str, content: str,
                         make_file: Callable[[], Awaitable[discord.File | None]] | None,
                         to_ping: Sequence[str], embed: discord.Embed | None = None,
                         view: discord.ui.View | None = None) -> str | None:
        """Send ``content`` (with the file ``make_file`` draws, if any) unless a message
        with ``marker`` is already there."""
        if item.id in self._uncertain:
            found = await self._find(channel, marker, item.created_at)
            if found is not None:
                log.info("Announcement %s was already delivered (message %s)", item.id, found)
                return found
        attached = await make_file() if make_file is not None else None
        self._uncertain.add(item.id)      # from here on, the message may exist
        try:
            kwargs: dict[str, Any] = {"allowed_mentions": ping(to_ping),
                                      "nonce": f"wh{item.id}"}
            if attached is not None:
                kwargs["file"] = attached
            if embed is not None:
                kwargs["embed"] = embed
            kwargs.update(_with_view(view))
            message = await channel.send(content, **kwargs)
        except discord.Forbidden as exc:
            raise Gone(f"missing permission ({exc.text})") from exc
        except discord.NotFound as exc:
            raise Gone(f"the channel is gone ({exc.text})") from exc
        return str(message.id)

    async def _find(self, channel: discord.abc.Messageable, marker: str,
                    since: float) -> str | None:
        """The id of a message of ours ending with ``marker``, sent since ``since``."""
        me = self.client.user
        if me is None:
            return None
        start = datetime.fromtimestamp(max(0.0, since - LOOKBACK), tz=UTC)
        after = discord.Object(discord.utils.time_snowflake(start))
        try:
            async for message in channel.history(limit=100 * LOOKUP_PAGES, after=after,
                                                 oldest_first=True):
                if message.author.id == me.id and message.content.endswith(marker):
                    return str(message.id)
        except discord.Forbidden:
            log.warning("Cannot read the history of channel %s to check a delivery; "
                        "sending (the enforced nonce still guards against a double)",
                        getattr(channel, "id", "?"))
        return None

    def _where(self, record: GameRecord) -> tuple[str | None, str | None]:
        channel = self.client.get_channel(int(record.channel_id))
        guild = self.client.get_guild(int(record.guild_id)) if record.guild_id else None
        return getattr(channel, "name", None), guild.name if guild else None


def _with_view(view: discord.ui.View | None) -> dict[str, Any]:
    """``view=`` for a send, or nothing (a send given ``view=None`` refuses it)."""
    return {} if view is None else {"view": view}


def announcer_of(client: discord.Client) -> Announcer | None:
    announcer = getattr(client, "announcer", None)
    return announcer if isinstance(announcer, Announcer) else None


async def deliver(client: discord.Client, game_id: int,
                  interaction: discord.Interaction | None = None, *,
                  read: Delivery | None = None, read_after: int | None = None) -> None:
    """Deliver a game's pending announcements now (the retry loop catches failures);
    ``read``, ``read_after``: see :meth:`Announcer.deliver`."""
    announcer = announcer_of(client)
    if announcer is None:
        log.warning("No announcer: game %s's announcements wait for the next start", game_id)
        return
    await announcer.deliver(game_id, interaction, read=read, read_after=read_after)


async def deliver_all(client: discord.Client) -> None:
    """Deliver every game's pending announcements now (after a change that touches many
    games, a vacation say)."""
    announcer = announcer_of(client)
    if announcer is not None:
        await announcer.deliver_all()
