"""A bot killed at any moment never leaves a game silent, and tells every move once.

The real bot runs as its own process (``python bot.py``, as ``make run``) against the
Discord double; two players play Conqueror through slash commands. Again and again the
test SIGKILLs the bot at a chosen moment between saving a move and announcing it (just
before it answers the mover, just after; just before it posts the turn digest, just
after the digest reached the channel but before the bot could note it; or at a random
instant) and starts a new process on the same database. At the end:

* every announcement the store saved has been delivered;
* every turn digest is in the channel exactly once, and together they tell every
  accepted move once, in order (their ``moves a-b`` markers tile the log);
* every interaction whose move was saved got its answer (the deferred reply, edited);
  no interaction whose move was not saved was told it was;
* the saved game replays from its log (``verify``).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from discord_double import BotError, DiscordDouble, DoubleTimeout, Reply, loopback_only

from db import Store
from engine.conqueror import GAME
from engine.conqueror.ai import choose_action

REPO = Path(__file__).resolve().parents[1]
#: Kills per run, and where: (hook, method, route suffix) for the moments around a send.
KILLS = 15
MOMENTS = {
    "before the answer": ("before", "PATCH", "/messages/{message_id}"),
    "after the answer": ("after", "PATCH", "/messages/{message_id}"),
    "before the digest": ("before", "POST", "/channels/{channel_id}/messages"),
    "after the digest reached the channel": ("after", "POST", "/channels/{channel_id}/messages"),
}
MARKER = re.compile(r"-# Conqueror #(\d+) · (?:the game begins|move (\d+)|moves (\d+)–(\d+))$")


class BotProcess:
    """``python bot.py`` against the double, restartable on the same database."""

    def __init__(self, dd: DiscordDouble, tmp: Path) -> None:
        self.dd = dd
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills: list[str] = []
        self.restarting: asyncio.Task[None] | None = None
        self.env = {**os.environ, "PYTHONPATH": str(REPO), "DISCORD_TOKEN": dd.token,
                    "DISCORD_API_BASE": dd.api_base, "DEV_GUILD_ID": dd.guild.id,
                    "DATABASE_PATH": str(tmp / "warhost.db"), "LOG_LEVEL": "INFO",
                    "RATE_LIMITS": "off", "BOARD_WARMUP": "off"}

    async def start(self) -> None:
        before = self.dd.identify_count
        self.starts += 1
        log = (self.tmp / f"bot-{self.starts}.log").open("wb")
        self.proc = subprocess.Popen([sys.executable, str(REPO / "bot.py")], cwd=self.tmp,
                                     env=self.env, stdout=log, stderr=subprocess.STDOUT)
        proc = self.proc
        await self.dd.wait_until(
            lambda: proc.poll() is not None or (
                self.dd.identify_count > before and self.dd.latest_session is not None
                and self.dd.latest_session.guilds_sent and self.dd.latest_session.connected),
            timeout=60, what="the bot process to connect")
        assert proc.poll() is None, self.output()
        await self.dd.wait_for_commands(["game", "play", "conqueror"], timeout=60)

    @property
    def alive(self) -> bool:
        """Up, and not in the middle of being restarted."""
        return (self.proc is not None and self.proc.poll() is None
                and (self.restarting is None or self.restarting.done()))

    def kill(self, moment: str) -> None:
        """SIGKILL now; a new process is started in the background."""
        assert self.proc is not None and self.proc.poll() is None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.kills.append(moment)
        self.restarting = asyncio.get_running_loop().create_task(self.start())

    async def settled(self) -> None:
        if self.restarting is not None:
            await self.restarting
            self.restarting = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def output(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:]
                         for p in sorted(self.tmp.glob("bot-*.log")))


@pytest.fixture
async def double() -> AsyncIterator[DiscordDouble]:
    with loopback_only():
        async with DiscordDouble(in_process_bot=False, default_timeout=20) as dd:
            yield dd


async def test_a_bot_killed_between_saving_and_telling_never_leaves_a_game_silent(
        double: DiscordDouble, tmp_path: Path) -> None:
    dd = double
    rng = random.Random(8)
    for name in ("alice", "bob"):
        dd.add_user(name)
    bot = BotProcess(dd, tmp_path)
    await bot.start()
    table = dd.table()
    try:
        opened = await table.slash("alice", "game new", kind="conqueror")
        await table.click("bob", "Join", message=opened.message)
        await table.click("alice", "Start", message=opened.message)
        store = await Store.open(str(tmp_path / "warhost.db"))
        game_id = int(opened.message.embeds[0]["title"].rsplit("#", 1)[1])
        names = {dd.resolve_user(n).id: n for n in ("alice", "bob")}

        armed: dict[str, Any] = {}

        order = [*MOMENTS, "at a random instant"]

        def arm() -> None:
            moment = order[len(bot.kills) % len(order)]     # each moment in turn
            armed.clear()
            armed.update(moment=moment, skip=rng.randrange(0, 3))

        async def hook(when: str, record: Any) -> bool:
            moment = armed.get("moment")
            if moment not in MOMENTS or not bot.alive:
                return False
            hook_when, method, suffix = MOMENTS[moment]
            if when != hook_when or record.method != method or not record.route.endswith(
                    suffix) or "/interactions/" in record.path:
                return False
            if armed["skip"] > 0:
                armed["skip"] -= 1
                return False
            armed.clear()
            bot.kill(moment)
            return when == "before"          # dropped: it never reached Discord

        async def before(record: Any) -> bool:
            return await hook("before", record)

        async def after(record: Any) -> None:
            await hook("after", record)

        dd.before_request = before
        dd.after_request = after
        replies: dict[str, Reply] = {}
        arm()
        moves = 0
        while len(bot.kills) < KILLS:
            await bot.settled()
            state = store.load_state(await store.get(game_id))
            if GAME.outcome(state) is not None:
                break
            player = GAME.current_turn(state)
            assert player is not None
            action = choose_action(GAME, state, player)
            sent = asyncio.create_task(table.invoke(names[player], "play", {"action": action},
                                                    expect_response=False, timeout=15))
            if armed.get("moment") == "at a random instant":
                await asyncio.sleep(rng.uniform(0.002, 0.03))
                if bot.alive:
                    armed.clear()
                    bot.kill("at a random instant")
            try:
                reply = await sent
            except (BotError, DoubleTimeout):
                continue                 # never reached a bot: nothing can have been saved
            replies[reply.id] = reply
            moves += 1
            if not armed:
                arm()
        dd.before_request = None
        dd.after_request = None
        await bot.settled()

        # everything saved is delivered in the end (the new process catches up)
        async def all_delivered() -> bool:
            return not await store.outbox.pending(game_id)

        for _ in range(300):
            if await all_delivered():
                break
            await asyncio.sleep(0.1)
        assert await all_delivered(), bot.output()

        record = await store.get(game_id)
        log = await store.history.log(game_id, limit=100_000)
        assert len(log) == record.version and await store.history.verify(game_id)

        # each digest once; together they tell moves 1..digest_seq once, in order
        covered: list[tuple[int, int]] = []
        for message in table.messages:
            if message.author is not dd.bot_user:
                continue
            match = MARKER.search(message.content)
            if match is None:
                continue
            assert int(match[1]) == game_id
            if match[2]:
                covered.append((int(match[2]), int(match[2])))
            elif match[3]:
                covered.append((int(match[3]), int(match[4])))
            else:
                covered.append((1, 0))
        assert covered[0] == (1, 0), covered                     # the opening, once
        assert len(covered) == len(set(covered)), f"a digest posted twice: {covered}"
        expected = 1
        for first, last in covered[1:]:
            assert first == expected, covered
            expected = last + 1
        assert expected - 1 == record.digest_seq

        # every saved move's interaction got its answer; no unsaved one claims success
        applied = {e.seq: e for e in log}
        saved_requests = {r.id for r in replies.values()
                          if any(e.action == r.payload["data"]["options"][0]["value"]
                                 for e in applied.values())}
        answered = {r.id for r in replies.values() if (r.content or "").startswith("✅")}
        import sqlite3
        with sqlite3.connect(tmp_path / "warhost.db") as conn:
            requests = {row[0] for row in conn.execute(
                "SELECT request_id FROM actions WHERE game_id = ?", (game_id,))}
        assert answered == requests & set(replies), (answered ^ (requests & set(replies)))
        assert saved_requests >= answered
        assert all(len([m for m in r.messages if not m.deleted]) <= 1 for r in replies.values())
        assert len(bot.kills) == KILLS and moves > KILLS, bot.kills
        assert set(bot.kills) >= set(MOMENTS), bot.kills
        await store.close()
    finally:
        bot.stop()
