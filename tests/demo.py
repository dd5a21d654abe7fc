"""``make demo``: watch Warhost play a game, with no Discord account at all.

    python -m tests.demo [--out demo-out] [--seed N | --seed random]

Starts the loopback Discord double (tests/discord_double/) on 127.0.0.1, then the real bot
through ``bot.create_bot`` (the factory ``make run`` uses) pointed at it by
``DISCORD_API_BASE``, with a fake token and a throwaway database. Two simulated players,
alice and bob, open a Conqueror lobby, join with the button and play a whole game, each
move chosen by the computer player (``engine.conqueror.ai``) and sent as a slash command,
until one of them wins. The channel is printed as a transcript in the order things
happened (each message as it was posted; an edit, like the lobby turning into the game's
status, as a line where it happened), every board image the bot posted is written to
``demo-out/001-board.png``, ``002-board.png``, ... in the order they were posted, and the
animated recap of the finished game to ``demo-out/recap.gif``.

Nothing leaves the machine: every socket and DNS lookup that is not loopback is refused.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bot as warhost
from engine.conqueror import GAME
from engine.conqueror.ai import choose_action
from tests.discord_double import DiscordDouble, Reply, Table, launch_bot, loopback_only, pointed_at

#: The game the demo plays unless told otherwise: a short one, with fights and a base siege.
DEFAULT_SEED = 1
PLAYERS = ("alice", "bob")
#: A computer game ends long before this; past it the demo ends with a resignation.
MAX_ACTIONS = 1500
OUT_DIR = Path("demo-out")
_BOARD_FILE = re.compile(r"^\d{3}-board\.png$")
#: Where the animated recap a finished game ends with is saved, in ``out_dir``.
RECAP_FILE = "recap.gif"


@dataclass
class DemoResult:
    """What a demo run produced."""

    transcript: str
    boards: list[Path] = field(default_factory=list)
    recap: Path | None = None
    winner: str | None = None
    actions: int = 0
    seconds: float = 0.0


@contextlib.contextmanager
def dealt_from(seed: int | None) -> Iterator[None]:
    """Make the bot's store deal the next games from ``seed`` (None: at random, as usual).

    The store deals a game's seed with ``db.lobby.deal`` (from its committed dice); only
    that reference is replaced.
    """
    if seed is None:
        yield
        return
    import db.lobby

    real = db.lobby.deal
    db.lobby.deal = lambda secret, contributions: seed
    try:
        yield
    finally:
        db.lobby.deal = real


def friendly(action: str) -> tuple[str, dict[str, Any]]:
    """The ``/conqueror`` form of a canonical action."""
    words = action.split()
    if words[0] == "move":
        return "conqueror move", {"from": words[1], "to": words[2], "count": int(words[3])}
    if words[0] == "recruit":
        return "conqueror recruit", {"count": int(words[1])}
    if words[0] in ("fort", "raze"):
        return f"conqueror {words[0]}", {"square": words[1]}
    if words[0] == "convert":
        return "conqueror convert", {"what": words[1]}
    return "conqueror end", {}


async def play_game(table: Table, store: Any, game_id: int) -> tuple[int, str | None]:
    """Computer-chosen moves from the player to act until someone wins."""
    dd = table.dd
    actions = 0
    while True:
        record = await store.get(game_id)
        state = store.load_state(record)
        outcome = GAME.outcome(state)
        if outcome is not None:
            return actions, outcome.winners[0] if outcome.winners else None
        player = GAME.current_turn(state)
        assert player is not None
        name = dd.users[player].name
        if actions >= MAX_ACTIONS:      # never seen; ends the demo rather than running on
            await table.slash(name, "game resign")
            continue
        action = choose_action(GAME, state, player)
        # recruits and conversions through the friendly /conqueror forms, the rest via /play
        if action.split()[0] in ("recruit", "convert", "fort"):
            command, options = friendly(action)
            reply = await table.invoke(name, command, options)
        else:
            reply = await table.slash(name, "play", action=action)
        if not reply.complete:      # deferred: on a busy machine the answer lands later
            await reply.wait(timeout=30)
        if not (reply.content or "").startswith("✅"):      # a refusal, told privately
            raise RuntimeError(f"the bot refused {name}'s {action!r}: {reply.content}")
        actions += 1


def posted_in_order(table: Table) -> list[Any]:
    """The table's messages as first posted, in the order they were posted (an edited
    message, like the lobby that becomes the game's status, as it was then)."""
    shown = [m.versions()[0] for m in table.dd.messages.values() if m.channel is table.channel]
    return [message for _, message in sorted(shown, key=lambda item: item[0])]


def save_boards(table: Table, out_dir: Path) -> tuple[list[Path], Path | None]:
    """Every board image posted at the table, as ``out_dir/NNN-board.png`` in the order
    they were posted (edits add none), and the animated recap as ``out_dir/recap.gif``
    (None when there was none)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.iterdir():
        if _BOARD_FILE.match(old.name) or old.name == RECAP_FILE:
            old.unlink()
    written: list[Path] = []
    recap: Path | None = None
    for message in posted_in_order(table):
        for attachment in message.attachments:
            if attachment.is_png:
                path = out_dir / f"{len(written) + 1:03d}-board.png"
                path.write_bytes(attachment.data)
                written.append(path)
            elif attachment.data[:6] in (b"GIF87a", b"GIF89a") or \
                    attachment.filename.endswith(".gif"):
                recap = out_dir / RECAP_FILE
                recap.write_bytes(attachment.data)
    return written, recap


def pretty(transcript: str, boards: list[Path], *, speakers: tuple[str, ...] = (),
           colour: bool = False, recap: Path | None = None) -> str:
    """The double's transcript, tidied: each board line names the file it was saved as
    (so does the recap's), and the second and later lines of a multi-line embed field
    stay indented under it."""
    files = iter(boards)
    heads = ("> ", "--- ", "  ", *(f"{name}:" for name in speakers),
             *(f"{name} (" for name in speakers))
    lines = []
    for line in transcript.splitlines():
        if not line.strip():
            continue
        if not line.startswith(heads):
            line = " " * 8 + line                 # the rest of a multi-line embed text
        if "[file] " in line and ".png" in line:
            saved = next(files, None)
            if saved is not None:
                line = f"{line}  ->  {saved}"
        elif "[file] " in line and ".gif" in line and recap is not None:
            line = f"{line}  ->  {recap}"
        if colour:
            if line.startswith("> "):
                line = f"\033[1;36m{line}\033[0m"          # players: bold cyan
            elif "sees this)" in line.split(":", 1)[0]:
                line = f"\033[2m{line}\033[0m"             # ephemeral: dim
            elif "[file]" in line:
                line = f"\033[33m{line}\033[0m"            # files: yellow
            elif "Game over" in line:
                line = f"\033[1;32m{line}\033[0m"          # the result: bold green
        lines.append(line)
    return "\n".join(lines)


async def main(out_dir: Path = OUT_DIR, *, seed: int | None = DEFAULT_SEED,
               echo: Callable[[str], Any] = print, colour: bool = False) -> DemoResult:
    """Run the demo; the transcript goes to ``echo``, the boards to ``out_dir``."""
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="warhost-demo-") as tmp, loopback_only():
        async with DiscordDouble(guild_name="Warhost Demo", channel_name="war-room") as dd:
            for name in PLAYERS:
                dd.add_user(name)
            dd.add_user("carol")                            # watches
            config = warhost.Config.from_env({
                "DISCORD_TOKEN": dd.token,                  # a fake token the double accepts
                "DISCORD_API_BASE": dd.api_base,            # the only switch to the double
                "DATABASE_PATH": str(Path(tmp) / "demo.db"),
                "DEV_GUILD_ID": dd.guild.id,
                "RATE_LIMITS": "off",                       # alice and bob play at machine speed
            }, None)
            echo(f"Warhost demo: the real bot, a pretend Discord at {dd.url}, simulated "
                 f"players {' and '.join(PLAYERS)}. No account, no network.\n")
            with pointed_at(dd), dealt_from(seed):
                bot = warhost.create_bot(config)
                running = await launch_bot(dd, bot, commands=["game", "play", "conqueror"])
                try:
                    table = dd.table()
                    game_id = await open_game(table)
                    actions, winner_id = await play_game(table, bot.store, game_id)
                finally:
                    await running.stop()
            boards, recap = save_boards(table, out_dir)
            # the story in order: each message as posted, each edit where it happened
            text = table.transcript(include_autocomplete=True, as_posted=True)
            winner = dd.users[winner_id].name if winner_id else None
            speakers = tuple(u.name for u in dd.users.values())
    result = DemoResult(transcript=pretty(text, boards, speakers=speakers, recap=recap),
                        boards=boards, recap=recap, winner=winner, actions=actions,
                        seconds=time.perf_counter() - began)
    (out_dir / "transcript.txt").write_text(result.transcript + "\n", encoding="utf-8")
    echo(pretty(text, boards, speakers=speakers, colour=colour, recap=recap))
    echo("")
    recap_note = f", the animated recap in {recap}" if recap else ""
    echo(f"{winner or 'Nobody'} won after {actions} actions. {len(boards)} board images in "
         f"{out_dir}/ ({boards[0].name} ... {boards[-1].name}){recap_note}, the transcript "
         f"in {out_dir / 'transcript.txt'}. ({result.seconds:.1f}s)")
    return result


async def open_game(table: Table) -> int:
    """alice opens a lobby, bob joins with the button, alice starts; shows a few extras."""
    opened: Reply = await table.slash("alice", "game new", kind="conqueror")
    title = opened.message.embeds[0]["title"]
    game_id = int(title.rsplit("#", 1)[1])
    await table.click("bob", "Join")
    await table.click("alice", "Start")
    await table.slash("bob", "play", action="end")          # out of turn: only bob sees why
    await table.slash("carol", "game status")               # a spectator looks (ephemeral)
    await table.autocomplete("alice", "play", "action", typed="")   # what alice may do
    return game_id


def cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.demo", description=__doc__.split(
        "\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=OUT_DIR,
                        help="where the board images go (default: demo-out)")
    parser.add_argument("--seed", default=str(DEFAULT_SEED),
                        help="which game to deal, or 'random' (default: %(default)s)")
    args = parser.parse_args(argv)
    seed = None if args.seed == "random" else int(args.seed)
    logging.getLogger("discord").setLevel(logging.ERROR)   # no voice-support warnings
    colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    asyncio.run(main(args.out, seed=seed, colour=colour))
    return 0


if __name__ == "__main__":
    sys.exit(cli())
