"""Two bot processes on two shards share one PostgreSQL database, and one of them dies.

The loopback Discord double runs here; two real bot processes (``python bot.py``, as
systemd would start them) connect to it with ``SHARD_COUNT=2`` and ``SHARD_IDS=0`` /
``SHARD_IDS=1``, both on one fresh PostgreSQL schema, with short leases
(``WARHOST_LEASE_SECONDS=3``). Two servers sit on different shards, two Conqueror games
in each; scripted players play all four at once through the real commands (``/game new``,
the Join and Start buttons, ``/play``), each move chosen by the engine's computer player
from the position the test reads out of the database.

Then the shard-1 process is SIGKILLed at an engineered moment: its player's ``end`` has
been saved and answered (the "✅" reply), and the turn digest's ``POST`` is on its way to
the channel (the double drops it, as if the process died just before sending). The
digest is left pending, under the dead process's delivery lease. While shard 1 is down
its server's commands fail (as on Discord: no other shard gets them), shard 0 plays on,
and once the lease expires shard 0's announcer delivers the dead process's digest (it
looks in the channel first: nothing is posted twice). Then shard 1 is started again and
every game plays on.

At the end, for every game: the log is exactly the moves whose players were told "✅",
in order (nothing acknowledged lost, nothing extra); ``verify()`` replays it to the
stored position; every announcement is delivered; the turn digests in its channel tell
each move once, in order, with no digest twice (across processes). Every interaction
was answered by the process running its server's shard at the time (the double records
each request's connection, and /proc tells which process holds it).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from discord_double import BotError, DiscordDouble, FakeGuild, Reply, loopback_only
from shards import Attribution, BotProcess, can_attribute, digest_span, shard_of

from cogs.outbox import RETRY_EVERY
from db import DIGEST, Store
from engine.conqueror import GAME
from engine.conqueror.ai import choose_action
from tests import databases

pytestmark = pytest.mark.postgres_only

SHARDS = 2
LEASE = 3.0
PLAYERS = ("alice", "bob", "carol", "dave")
#: Moves per game before the kill, and after the restart.
BEFORE, AFTER = 10, 6


class Match:
    """One Conqueror game in its own channel, played through the double."""

    def __init__(self, dd: DiscordDouble, guild: FakeGuild, channel: str,
                 players: tuple[str, str]) -> None:
        self.dd = dd
        self.table = dd.table(guild=guild, channel=channel)
        self.shard = shard_of(guild.id, SHARDS)
        self.players = players
        self.names = {dd.resolve_user(n).id: n for n in players}
        self.game_id = 0
        #: (interaction id, action) of every move its player was told was made, in order.
        self.acknowledged: list[tuple[str, str]] = []

    async def open(self) -> None:
        host, guest = self.players
        opened = await self.table.slash(host, "game new", kind="conqueror")
        await self.table.click(guest, "Join", message=opened.message)
        await self.table.click(host, "Start", message=opened.message)
        self.game_id = int(opened.message.embeds[0]["title"].rsplit("#", 1)[1])

    async def move(self, store: Store, *, end: bool = False) -> Reply | None:
        """One ``/play`` by whoever must act (``end``: end the turn if they may); None
        once the game is over."""
        state = store.load_state(await store.get(self.game_id))
        if GAME.outcome(state) is not None:
            return None
        player = GAME.to_act(state)[0]
        action = ("end" if end and "end" in GAME.legal_actions(state, player)
                  else choose_action(GAME, state, player))
        reply = await self.table.invoke(self.names[player], "play", {"action": action},
                                        timeout=20)
        assert (reply.content or "").startswith("✅"), reply.describe()
        self.acknowledged.append((reply.id, action))
        return reply

    async def play(self, store: Store, moves: int) -> None:
        for _ in range(moves):
            if await self.move(store) is None:
                return

    def digests(self) -> list[tuple[int, int]]:
        """The (first, last) move spans of this game's digests in its channel, in order."""
        spans = []
        for message in self.table.messages:
            if message.author is not self.dd.bot_user:
                continue
            span = digest_span(message.content)
            if span is not None and span[0] == self.game_id:
                spans.append(span[1:])
        return spans


@pytest.fixture
async def double() -> AsyncIterator[DiscordDouble]:
    with loopback_only():
        async with DiscordDouble(in_process_bot=False, default_timeout=20) as dd:
            yield dd


async def _until(check: Any, *, timeout: float, what: str, every: float = 0.05) -> None:
    """Poll an async ``check`` until it is true."""
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(every)


async def test_two_sharded_processes_share_postgresql_and_survive_a_kill(
        double: DiscordDouble, database: str, tmp_path: Path) -> None:
    began = time.monotonic()
    dd = double
    guilds = [dd.add_guild(f"Shard {k} server", channels=("war-1", "war-2"), shard=(k, SHARDS))
              for k in range(SHARDS)]
    assert [shard_of(g.id, SHARDS) for g in guilds] == [0, 1]
    for name in PLAYERS:
        dd.add_user(name)
    bots = [BotProcess(dd, tmp_path, database, str(k), SHARDS, name=f"shard{k}",
                       lease_seconds=LEASE) for k in range(SHARDS)]
    tracker = Attribution(dd, bots)
    store: Store | None = None
    try:
        # both start at once on the empty schema (the first to take the lock migrates)
        await asyncio.gather(*(bot.start() for bot in bots))
        await dd.wait_for_commands(["game", "play", "conqueror"], timeout=30)
        store = await Store.open(database)
        matches = [Match(dd, g, channel, pair) for g in guilds
                   for channel, pair in (("war-1", PLAYERS[:2]), ("war-2", PLAYERS[2:]))]
        await asyncio.gather(*(m.open() for m in matches))
        assert len({m.game_id for m in matches}) == 4

        # -- both shards play at once
        await asyncio.gather(*(m.play(store, BEFORE) for m in matches))

        # -- shard 1's process dies after saving and answering a move, before its digest
        survivor, victim = bots
        ours = [m for m in matches if m.shard == 0]
        theirs = [m for m in matches if m.shard == 1]
        target = theirs[0]
        killed = asyncio.Event()
        kill: dict[str, Any] = {}

        async def kill_before_digest(record: Any) -> bool:
            if (killed.is_set() or record.method != "POST"
                    or not record.path.endswith(f"/channels/{target.table.channel.id}/messages")
                    or (can_attribute() and tracker.pid_of(record) != victim.pid)):
                return False
            kill.update(pid=victim.pid, at=time.monotonic())
            victim.kill()
            killed.set()
            return True                 # dropped: it never reached Discord

        tracker.then = kill_before_digest
        stop = asyncio.Event()
        moved_meanwhile = [0]

        async def shard0_plays_on() -> None:
            while not stop.is_set():
                done = await asyncio.gather(*(m.move(store) for m in ours))
                moved_meanwhile[0] += sum(r is not None for r in done)

        carrying_on = asyncio.create_task(shard0_plays_on())
        for _ in range(20):             # ends turns until one's digest is on its way
            await target.move(store, end=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(killed.wait(), 3)
            if killed.is_set():
                break
        assert killed.is_set(), "no digest of shard 1's game was ever posted by shard 1"
        tracker.then = None
        assert store is not None
        kill["seq"] = (await store.get(target.game_id)).version
        victim_holder = await store.leases.holder(f"deliver:{target.game_id}")
        assert victim_holder is not None and f":{kill['pid']}:" in victim_holder, victim_holder
        pending = await store.outbox.pending(target.game_id)
        assert any(a.kind == DIGEST and a.seq == kill["seq"] for a in pending), pending
        # the acknowledged move is saved
        assert target.acknowledged[-1][0] in {
            str(r[0]) for r in databases.raw(
                database, "SELECT request_id FROM actions WHERE game_id = ?",
                (target.game_id,))}

        # shard 1's server gets no answers while it is down (Discord sends its events
        # to no other shard)
        await dd.wait_until(lambda: not any(s.connected for s in dd.sessions.values()
                                            if s.shard == (1, SHARDS)),
                            timeout=10, what="shard 1's gateway to drop")
        with pytest.raises(BotError):
            await theirs[1].table.invoke(theirs[1].players[0], "game status", {}, timeout=5)

        # the survivor takes over the dead process's pending digest once its lease
        # expires, at its next delivery pass (one a lease, with other processes around)
        async def delivered() -> bool:
            return not await store.outbox.pending(target.game_id)

        await _until(delivered, timeout=LEASE + RETRY_EVERY + 15,
                     what="the survivor to deliver the dead process's digest")
        took_over = time.monotonic() - kill["at"]
        stop.set()
        await carrying_on
        assert moved_meanwhile[0] > 0, "shard 0 did not play on while shard 1 was down"
        senders = tracker.message_senders()
        [taken] = [m for m in target.table.messages
                   if (digest_span(m.content) or (0, 0, 0))[::2] == (target.game_id,
                                                                     kill["seq"])]
        if can_attribute():
            assert senders[taken.id] == survivor.pid, (senders.get(taken.id), survivor.pid)
        assert LEASE - 0.5 <= took_over <= 2 * LEASE + 3, took_over

        # -- shard 1 comes back and every game plays on
        await victim.start()
        await asyncio.gather(*(m.play(store, AFTER) for m in matches))

        # -- nothing lost, nothing twice
        async def all_delivered() -> bool:
            return not await store.outbox.pending()

        await _until(all_delivered, timeout=30, what="every announcement to be delivered")
        for m in matches:
            logged = [(str(r[0]), str(r[1])) for r in databases.raw(
                database, "SELECT request_id, action FROM actions WHERE game_id = ? "
                "ORDER BY seq", (m.game_id,))]
            assert logged == m.acknowledged, (m.game_id, logged, m.acknowledged)
            assert await store.history.verify(m.game_id), m.game_id
            record = await store.get(m.game_id)
            spans = m.digests()
            assert len(spans) == len(set(spans)), f"game {m.game_id}: a digest twice {spans}"
            assert spans[0] == (1, 0), spans
            expected = 1
            for first, last in spans[1:]:
                assert first == expected, (m.game_id, spans)
                expected = last + 1
            assert expected - 1 == record.digest_seq, (m.game_id, spans, record.digest_seq)

        # -- every interaction was answered by its shard's process, then running
        if can_attribute():
            callbacks: dict[str, list[int | None]] = {}
            for record in dd.requests:
                if record.route.endswith("/callback") and "/interactions/" in record.path:
                    iid = record.path.split("/interactions/", 1)[1].split("/", 1)[0]
                    callbacks.setdefault(iid, []).append(tracker.pid_of(record))
            checked = 0
            for reply in dd.interactions.values():
                guild = reply.channel.guild
                if guild is None or guild not in guilds:
                    continue
                bot = bots[shard_of(guild.id, SHARDS)]
                expected_pid = bot.pid_at(reply.dispatched_at)
                got = callbacks.get(reply.id, [])
                assert got and set(got) == {expected_pid}, (reply.name, got, expected_pid)
                checked += 1
            assert checked >= 4 * (3 + BEFORE + AFTER)

        for bot in (survivor, victim):
            assert "Traceback" not in bot.log_path.read_text(errors="replace"), bot.output()
        senders = tracker.message_senders()
        others = sum(         # digests delivered by the process of the other shard
            1 for m in matches for message in m.table.messages
            if (digest_span(message.content) or (0,))[0] == m.game_id
            and senders.get(message.id) not in [life.pid for life in bots[m.shard].lives])
        print(f"\nshards: 4 games, {sum(len(m.acknowledged) for m in matches)} moves; "
              f"killed shard 1 at move {kill['seq']} of game #{target.game_id}; the "
              f"survivor delivered its digest {took_over:.1f} s later; shard 0 made "
              f"{moved_meanwhile[0]} moves meanwhile; {others} digests delivered by the "
              f"other shard's process; wall {time.monotonic() - began:.1f} s")
    finally:
        if store is not None:
            await store.close()
        codes = [await bot.stop() for bot in bots]
    assert codes == [0, 0], [bot.output() for bot in bots]


def test_the_double_puts_a_guild_on_the_shard_asked_for() -> None:
    dd = DiscordDouble()
    for count in (1, 2, 3, 5):
        for shard in range(count):
            guild = dd.add_guild(f"s{shard}/{count}", shard=(shard, count))
            assert shard_of(guild.id, count) == shard
    ids = [int(g) for g in dd.guilds]
    assert len(set(ids)) == len(ids)
    with pytest.raises(ValueError):
        dd.add_guild("nowhere", shard=(2, 2))
