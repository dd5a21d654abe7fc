"""The one path from a Discord interaction to a move: :func:`submit`.

Every slash command, button and friendly ``/<kind>`` command that makes a move calls
:func:`submit`, which takes each interaction once (:class:`RecentIds`), notes when it was
sent (:class:`SentClock`, so a move chosen for an earlier turn is refused), defers the
interaction privately (:func:`acknowledge`, so a saved move can be answered for 15
minutes, across a restart, and noted, so a restart before the move is saved answers
it too), and makes the move through ``Store.apply_action``, which
saves it with its announcements in one transaction. Then the outbox delivers them and,
if a computer seat must act next, the computer players are set thinking.
"""

from __future__ import annotations

import logging
import time

import discord

from cogs.computers import computers_of
from cogs.interactions import conclude, defer, reply_error
from cogs.names import remember
from cogs.outbox import announcer_of, deliver
from cogs.wording import humanize_ids
from db import GameRecord, MoveResult, Store, StoreError
from db.computers import computers
from db.pending import MOVE
from engine import IllegalAction

log = logging.getLogger("warhost.cogs")


class SentClock:
    """When an interaction was sent, in this machine's clock.

    Discord stamps every interaction id with its own clock; this machine's may differ.
    The smallest ``received - stamped`` seen lately is that difference plus the fastest
    delivery, so ``stamped + that`` never comes after the interaction was received.
    """

    WINDOW = 64

    def __init__(self) -> None:
        self._offsets: list[float] = []

    def sent_at(self, interaction_id: int, received: float) -> float:
        stamped = discord.utils.snowflake_time(interaction_id).timestamp()
        self._offsets.append(received - stamped)
        del self._offsets[:-self.WINDOW]
        return min(received, stamped + min(self._offsets))


class RecentIds:
    """Interaction ids this process has taken on (a bounded memory): a gateway that
    delivers one interaction twice gets it handled once, and Discord sees one answer."""

    LIMIT = 10_000

    def __init__(self) -> None:
        self._ids: dict[int, None] = {}

    def claim(self, interaction_id: int) -> bool:
        """True the first time ``interaction_id`` is seen, False after."""
        if interaction_id in self._ids:
            return False
        self._ids[interaction_id] = None
        while len(self._ids) > self.LIMIT:
            del self._ids[next(iter(self._ids))]
        return True


async def acknowledge(interaction: discord.Interaction) -> bool:
    """Defer privately before touching the game, so a saved move can always be answered
    (a deferred interaction's token stays valid for 15 minutes, across a restart).

    False when the interaction can no longer be answered (Discord's 3 seconds are up):
    then the move must not be made, since its player was shown that it failed.
    """
    if interaction.response.is_done():
        return True
    try:
        # noted in the store meanwhile: a restart before the move is saved answers it
        await defer(interaction, kind=MOVE)
    except discord.HTTPException as exc:
        if exc.code == 40060:          # already answered: a re-delivery of this interaction
            return True
        log.warning("Could not acknowledge interaction %s (%s); its action is not made",
                    interaction.id, exc)
        return False
    return True


async def submit(interaction: discord.Interaction, store: Store, game: int | GameRecord,
                 action: str, *, expect_version: int | None = None) -> MoveResult | None:
    """Apply ``action`` for the interaction's user, then deliver what it made due.

    The interaction is deferred (privately) first; the store saves the move together
    with its announcements (the mover's answer, private notes, the turn digest), and
    the bot's :class:`cogs.outbox.Announcer` delivers them. Returns the
    :class:`db.MoveResult`, or None when the action was refused (the user was told why,
    privately, and the game is unchanged).
    """
    received = time.time()
    seen = getattr(interaction.client, "recent_interactions", None)
    if isinstance(seen, RecentIds) and not seen.claim(interaction.id):
        # The same interaction delivered again (a gateway replay): its first delivery
        # answers it, and Discord accepts only one answer, so stay quiet.
        log.info("Interaction %s was delivered again; ignored", interaction.id)
        return None
    player = str(interaction.user.id)
    remember(interaction.user, interaction.guild_id)
    clock = getattr(interaction.client, "sent_clock", None)
    sent_at = (clock.sent_at(interaction.id, received) if isinstance(clock, SentClock)
               else received)
    # On the store's clock (the one decisions are timed by): as long before its now.
    sent_at = store.now() - (received - sent_at)
    if not await acknowledge(interaction):
        return None
    seats: tuple[str, ...] = ()
    announcer = announcer_of(interaction.client)
    try:
        record = game if isinstance(game, GameRecord) else await store.get(game)
        seats = record.seats
        passes = announcer.passes(record.id) if announcer is not None else 0
        result = await store.apply_action(
            record.id, player, action, request_id=str(interaction.id), sent_at=sent_at,
            reply_to={"application_id": str(interaction.application_id),
                      "token": interaction.token, "interaction_id": str(interaction.id)},
            expect_version=expect_version,
            # what delivering its news needs, read in the move's own transaction
            prefetch=store.outbox.delivery if announcer is not None else None)
    except (IllegalAction, StoreError) as exc:
        await reply_error(interaction, humanize_ids(str(exc), seats))
        await conclude(interaction)
        return None
    if result.duplicate:
        # The same interaction delivered twice (a gateway replay): the first delivery
        # answers it (its announcements are saved and delivered), so stay quiet.
        await conclude(interaction)
        log.info("Interaction %s was delivered again; its move %s stands", interaction.id,
                 result.seq)
        return result
    # The transaction that saved the move's answer concluded its deferral too (a trigger).
    store.pending.saved(interaction.id)
    await deliver(interaction.client, record.id, interaction, read=result.delivery,
                  read_after=passes)
    computers_move(interaction.client, result.record)
    return result


def computers_move(client: discord.Client, record: GameRecord) -> None:
    """Set the computer thinking at once if ``record`` waits for a seat it plays (the
    scheduler would find it too, but only at its next pass)."""
    if record.status != "active" or not any(p in computers(record.timing)
                                            for p in record.decisions):
        return
    players = computers_of(client)
    if players is not None:
        players.request(record.id)
