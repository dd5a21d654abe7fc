"""What the sharding test (tests/test_e2e_shards.py) and benchmark (tests/bench_shards.py)
share: real bot processes (``python bot.py``, as ``make run``) on shards of the loopback
Discord double, and telling them apart.

Which process made a request: the double records each REST request's client end
(``RequestRecord.peer``); :func:`socket_owner` finds the process that holds that socket
(Linux ``/proc``), while the connection is open. :class:`Attribution` does it for every
request, as the double receives it.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:      # (pytest imports the double as ``discord_double``, scripts as
    # ``tests.discord_double``: only names are needed here)
    from tests.discord_double import DiscordDouble, RequestRecord

REPO = Path(__file__).resolve().parents[1]
#: Settings a developer's shell may carry that must not leak into a test's bot.
_NOT_INHERITED = ("DATABASE_URL", "DATABASE_PATH", "DEV_GUILD_ID", "SHARD_COUNT", "SHARD_IDS",
                  "DISCORD_GATEWAY_URL", "BACKUP_DIR", "WARHOST_LEASE_SECONDS")
#: The last line of every turn digest: ``-# Conqueror #12 · moves 31–35``.
MARKER = re.compile(r"-# (.+?) #(\d+) · (?:the game begins|move (\d+)|moves (\d+)–(\d+))$")


def digest_span(content: str) -> tuple[int, int, int] | None:
    """(game id, first move, last move) a digest's marker tells; the opening is
    (id, 1, 0). None for any other message."""
    match = MARKER.search(content or "")
    if match is None:
        return None
    game_id = int(match[2])
    if match[3]:
        return game_id, int(match[3]), int(match[3])
    if match[4]:
        return game_id, int(match[4]), int(match[5])
    return game_id, 1, 0


def shard_of(guild_id: str | int, shard_count: int) -> int:
    """The shard Discord sends a guild's events to."""
    return (int(guild_id) >> 22) % shard_count


@dataclass
class Life:
    """One run of a bot process: its pid, and when (``time.monotonic``) it ran."""

    pid: int
    began: float
    ended: float | None = None


@dataclass
class BotProcess:
    """``python bot.py`` on some shards of the double, against one database; it can be
    SIGKILLed and started again (a new pid, the same shards)."""

    dd: DiscordDouble
    workdir: Path
    database: str
    shard_ids: str
    shard_count: int = 2
    name: str = "bot"
    lease_seconds: float = 3.0
    log_level: str = "INFO"
    extra_env: dict[str, str] = field(default_factory=dict)
    #: False: an unsharded bot (no SHARD_COUNT), as a small server runs it; its one
    #: session is shard 0 of 1 (``shard_ids="0"``, ``shard_count=1``).
    sharded: bool = True
    #: Arguments to Python before ``bot.py`` (``-m cProfile -o FILE`` to profile it).
    python_args: tuple[str, ...] = ()
    proc: subprocess.Popen[bytes] | None = None
    lives: list[Life] = field(default_factory=list)

    @property
    def shards(self) -> list[int]:
        out: list[int] = []
        for part in self.shard_ids.split(","):
            low, _, high = part.partition("-")
            out.extend(range(int(low), int(high or low) + 1))
        return out

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}
        env.update({
            "PYTHONPATH": str(REPO), "DISCORD_TOKEN": self.dd.token,
            "DISCORD_API_BASE": self.dd.api_base,
            "SHARD_COUNT": str(self.shard_count), "SHARD_IDS": self.shard_ids,
            "WARHOST_LEASE_SECONDS": f"{self.lease_seconds:g}",
            "RENDER_WORKERS": "0", "LOG_LEVEL": self.log_level,
            "BOARD_WARMUP": "off",      # seconds of drawing at each start (its own tests)
            "RATE_LIMITS": "off",       # scripted players play faster than people may
            "MAX_OPEN_GAMES": "0",
        })
        if not self.sharded:
            del env["SHARD_COUNT"], env["SHARD_IDS"]
        if self.database.startswith(("postgresql://", "postgres://")):
            env["DATABASE_URL"] = self.database
        else:
            env["DATABASE_PATH"] = self.database
        env.update(self.extra_env)
        return env

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def log_path(self) -> Path:
        return self.workdir / f"{self.name}-{len(self.lives)}.log"

    async def start(self, timeout: float = 60) -> None:
        """Start the process and wait until each of its shards is connected with its
        guilds (a failure to start says what the process printed)."""
        assert not self.alive, "already running"
        before = self.dd.identify_count
        self.lives.append(Life(0, time.monotonic()))
        with self.log_path.open("wb") as sink:
            self.proc = subprocess.Popen([sys.executable, *self.python_args,
                                          str(REPO / "bot.py")],
                                         cwd=self.workdir, env=self.env(), stdout=sink,
                                         stderr=subprocess.STDOUT)
        self.lives[-1].pid = self.proc.pid
        proc, shards = self.proc, self.shards

        def up() -> bool:
            if proc.poll() is not None:
                return True
            return all(any(s.shard == (k, self.shard_count) and s.identify_number > before
                           and s.guilds_sent and s.connected
                           for s in self.dd.sessions.values()) for k in shards)

        await self.dd.wait_until(up, timeout=timeout, what=f"{self.name} to connect")
        assert proc.poll() is None, f"{self.name} exited at start:\n{self.output()}"

    def kill(self) -> None:
        """SIGKILL: no goodbye, no cleanup, as a crash or the OOM killer."""
        assert self.proc is not None and self.proc.poll() is None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.lives[-1].ended = time.monotonic()

    async def stop(self, timeout: float = 15) -> int | None:
        """SIGTERM (as systemd stops it), waited for without blocking the double; a
        process that does not stop in ``timeout`` is killed. Returns its exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            deadline = time.monotonic() + timeout
            while self.proc.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.lives[-1].ended = time.monotonic()
        return self.proc.returncode

    def pid_at(self, moment: float) -> int | None:
        """The pid that ran at ``moment`` (``time.monotonic``), if any."""
        for life in self.lives:
            if life.began <= moment and (life.ended is None or moment < life.ended):
                return life.pid
        return None

    def output(self, tail: int = 4000) -> str:
        return "\n".join(f"--- {p.name}\n" + p.read_text(errors="replace")[-tail:]
                         for p in sorted(self.workdir.glob(f"{self.name}-*.log")))


def _tcp_inode(local_port: int, remote_port: int) -> str | None:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) < 10:
                continue
            if (int(parts[1].rsplit(":", 1)[1], 16) == local_port
                    and int(parts[2].rsplit(":", 1)[1], 16) == remote_port):
                return parts[9]
    return None


def socket_owner(peer: tuple[str, int] | None, server_port: int,
                 pids: Iterable[int]) -> int | None:
    """Which of ``pids`` holds the client end ``peer`` of a connection to
    ``server_port`` on this machine (None: none of them, or not Linux)."""
    if peer is None:
        return None
    inode = _tcp_inode(peer[1], server_port)
    if inode is None or inode == "0":
        return None
    wanted = f"socket:[{inode}]"
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == wanted:
                    return pid
            except OSError:
                continue
    return None


def can_attribute() -> bool:
    """Whether requests can be traced to processes here (Linux /proc)."""
    return Path("/proc/net/tcp").exists()


class Attribution:
    """Notes which bot process made each REST request the double receives (by the pid
    holding the request's connection), then hands the request to ``then`` (a test's
    own ``before_request``, e.g. one that kills a process at a chosen moment)."""

    def __init__(self, dd: DiscordDouble, bots: Iterable[BotProcess]) -> None:
        self.dd = dd
        self.bots = list(bots)
        self.pids: dict[int, int | None] = {}
        self.then: Callable[[RequestRecord], Awaitable[bool]] | None = None
        dd.before_request = self._before

    async def _before(self, record: RequestRecord) -> bool:
        alive = [b.pid for b in self.bots if b.alive]
        self.pids[id(record)] = socket_owner(record.peer, self.dd.port, alive)
        if self.then is not None:
            return await self.then(record)
        return False

    def pid_of(self, record: RequestRecord) -> int | None:
        return self.pids.get(id(record))

    def message_senders(self) -> dict[str, int | None]:
        """Message id -> the pid that created it (``POST /channels/{id}/messages``)."""
        out: dict[str, int | None] = {}
        for record in self.dd.requests:
            if (record.method == "POST" and record.route.endswith("/channels/{channel_id}/messages")
                    and record.status == 200 and isinstance(record.response, dict)):
                out[str(record.response.get("id"))] = self.pid_of(record)
        return out


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process (and its reaped children) has used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(x) for x in fields[11:15]) / ticks


def postgres_pids() -> list[int]:
    """The PostgreSQL server processes on this machine (readable in /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() in ("postgres", "postmaster"):
                out.append(int(entry.name))
        except OSError:
            continue
    return out


def cpu_of(pids: Iterable[int]) -> float:
    return sum(proc_cpu_seconds(p) for p in pids)


def machine_jiffies() -> tuple[float, float, float]:
    """Jiffies of the whole machine so far: (busy, all, stolen by the hypervisor)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0, 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    steal = fields[7] if len(fields) > 7 else 0
    total = sum(fields[:8])
    return total - idle, total, steal


def own_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of the process itself (not its children)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, theirs, ...): a bot's board and
    computer workers, which a forkserver starts as its own children."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out

