"""Sample boards for every game kind, shared by the picture-quality tests, the palette
maker and the benchmarks: positions reached by seeded random play, each with the public
events of its last few actions (what a turn digest's board marks).

    python -m tests.boards           # makes render/palettes/<kind>.txt for every kind

A game's fixed palette (see ``render.common.load_palette``) is 256 colours picked once,
by octree, from many of its boards drawn at final size: its flat colours and the blends
its anti-aliased edges make. Run this after changing a renderer's colours.
"""

from __future__ import annotations

import io
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

import engine
import render
from render.common import PALETTE_DIR, capture_images


@dataclass(frozen=True)
class Board:
    label: str
    view: dict[str, Any]
    events: list[dict[str, Any]] | None
    names: dict[str, str]


def same_picture(png: bytes, other: bytes) -> bool:
    """Whether two PNGs show the same picture: size, mode, palette and every pixel.

    Boards drawn in different processes or along different paths are compared this way,
    not byte for byte: the deflate stream is one of many encodings of the same rows, and
    nothing a player sees depends on which one a process wrote."""
    if png == other:
        return True
    first, second = Image.open(io.BytesIO(png)), Image.open(io.BytesIO(other))
    return (first.size == second.size and first.mode == second.mode
            and first.getpalette() == second.getpalette()
            and first.tobytes() == second.tobytes())


def played(kind: str, players: int, seed: int, plies: int,
           marked: int = 0) -> tuple[Any, list[dict[str, Any]]]:
    """A game of ``kind`` after ``plies`` seeded random actions, and the events of its last
    ``marked`` actions."""
    game = engine.GAMES[kind]
    rng = random.Random(seed)
    state = game.new_game([f"p{i}" for i in range(1, players + 1)], seed)
    recent: list[list[dict[str, Any]]] = []
    for _ in range(plies):
        to_act = game.to_act(state)
        if not to_act:
            break
        player = to_act[0]
        state, events = game.apply(state, player, rng.choice(game.legal_actions(state, player)))
        recent = ([*recent, list(events)])[-marked:] if marked else []
    return state, [e for batch in recent for e in batch]


def random_view(kind: str, players: int, seed: int, moves: int) -> dict[str, Any]:
    """The public view of a game of ``kind`` (players ``x0``, ``x1``...) after ``moves``
    seeded random moves: a position no warm-up drew."""
    from cogs.boards import play_randomly

    game = engine.GAMES[kind]
    state = game.new_game([f"x{i}" for i in range(players)], seed)
    return game.view(play_randomly(game, state, random.Random(seed), moves), None)


def game_boards(kind: str, seed: int, count: int,
                plies: int = 2000) -> list[tuple[dict[str, Any], list[dict[str, Any]] | None]]:
    """A game's successive digest boards, as play makes them: (public view, the turn's
    public events) each time the players to act change, at the largest table, seeded
    random play; at most ``count`` of them."""
    game = engine.GAMES[kind]
    rng = random.Random(seed)
    state = game.new_game([f"p{i}" for i in range(1, game.max_players + 1)], seed)
    boards: list[tuple[dict[str, Any], list[dict[str, Any]] | None]] = []
    turn: list[dict[str, Any]] = []
    for _ in range(plies):
        to_act = game.to_act(state)
        if not to_act or len(boards) >= count:
            break
        state, events = game.apply(state, to_act[0],
                                   rng.choice(game.legal_actions(state, to_act[0])))
        turn += [e for e in events if "private_to" not in e]
        if game.to_act(state) != to_act:
            boards.append((game.view(state, None), turn or None))
            turn = []
    return boards


def sample_boards(kind: str, seeds: range = range(3)) -> list[Board]:
    """The opening, a middle game marking a turn and a crowded late game, per player
    count and seed."""
    game = engine.GAMES[kind]
    out = []
    for players in range(game.min_players, game.max_players + 1):
        names = {f"p{i}": name for i, name in
                 enumerate(("Ada", "Bartholomew the Bold", "Chen", "Dagny Ødegård",
                            "Émile", "Farah"), 1)}
        for seed in seeds:
            for label, plies, marked in (("opening", 0, 0), ("middle", 40, 6),
                                         ("crowded", 150, 10)):
                state, events = played(kind, players, seed, plies, marked)
                out.append(Board(f"{kind} {players}p seed {seed} {label}",
                                 game.view(state, None), events or None, names))
    return out


def make_palette(kind: str) -> list[str]:
    """256 colours that draw ``kind``'s boards (hex), picked from its sample boards."""
    with capture_images() as images:
        for board in sample_boards(kind, range(4)):
            render.render(kind, board.view, board.events, board.names)
    width = max(im.width for im in images)
    sheet = Image.new("RGB", (width, sum(im.height for im in images)))
    y = 0
    for im in images:
        sheet.paste(im, (0, y))
        y += im.height
    quantized = sheet.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    flat = quantized.getpalette() or []
    used = sorted({c for _, c in quantized.getcolors(256) or []})
    return [f"#{flat[3 * i]:02x}{flat[3 * i + 1]:02x}{flat[3 * i + 2]:02x}" for i in used]


def main() -> None:
    PALETTE_DIR.mkdir(exist_ok=True)
    for kind in engine.GAMES:
        colours = make_palette(kind)
        path = PALETTE_DIR / f"{kind}.txt"
        path.write_text(f"# {kind}: the fixed palette of its boards (made by "
                        f"python -m tests.boards)\n" + "\n".join(colours) + "\n",
                        encoding="utf-8")
        print(f"{path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}: "
              f"{len(colours)} colours", file=sys.stderr)


if __name__ == "__main__":
    main()
