"""The animated end-of-game recap (render/recap.py): one GIF frame per Frame, always."""

from __future__ import annotations

import io
import pickle
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from typing import Any

import pytest
from PIL import Image

import engine
import render
import render.recap as recap
from engine.search import heuristic_action
from render.common import load_palette
from render.recap import FRAME_MS, LAST_FRAME_MS, MAX_WIDTH, MIN_WIDTH, Frame, recap_animation
from tests.boards import played

NAMES = {"p1": "Ada", "p2": "Bartholomew the Bold", "p3": "Chen", "p4": "Dagny Ødegård"}


@lru_cache(maxsize=8)
def game_frames(kind: str, seed: int = 1, limit: int = 24) -> tuple[Frame, ...]:
    """A game of ``kind`` played by its heuristic (``engine.search``: the game's own
    ``ai.py`` where it has one), one Frame per turn (the view at the turn's end, the
    turn's public events, "Turn n · name"), at most ``limit`` turns."""
    game = engine.GAMES[kind]
    state = game.new_game(["p1", "p2"], seed)
    frames: list[Frame] = []
    events: list[dict[str, Any]] = []
    mover = game.current_turn(state)
    for _ in range(2000):
        if not game.to_act(state) or len(frames) >= limit:
            break
        player = game.to_act(state)[0]
        state, new = game.apply(state, player, heuristic_action(game, state, player))
        events += engine.public_events(new)
        if game.current_turn(state) != mover or not game.to_act(state):
            frames.append(Frame(game.view(state, None), events,
                                f"Turn {len(frames) + 1} · {NAMES.get(mover or '', '?')}"))
            events, mover = [], game.current_turn(state)
    return tuple(frames)


@lru_cache(maxsize=1)
def opening() -> Frame:
    state, _ = played("conqueror", 2, 0, 0)
    return Frame(engine.GAMES["conqueror"].view(state, None), None, "Opening")


def decoded(gif: bytes) -> Iterator[tuple[Image.Image, dict[str, Any]]]:
    """Each frame of ``gif`` as a viewer shows it (RGB), with its info (duration...)."""
    with Image.open(io.BytesIO(gif)) as im:
        assert im.format == "GIF"
        for n in range(getattr(im, "n_frames", 1)):
            im.seek(n)
            yield im.convert("RGB"), {str(k): v for k, v in im.info.items()}


def n_frames(gif: bytes) -> int:
    with Image.open(io.BytesIO(gif)) as im:
        assert im.format == "GIF"
        return int(getattr(im, "n_frames", 1))


def size_of(gif: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(gif)) as im:
        return im.size


@pytest.fixture
def composed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Image.Image, bytes]]:
    """What recap_animation's last attempt composed: each frame's palette indices ("L")
    and the colour table, to compare the decoded GIF with."""
    seen: list[tuple[Image.Image, bytes]] = []
    real = recap._composed

    def spy(*args: Any, **kwargs: Any) -> Iterator[tuple[Image.Image, bytes]]:
        seen.clear()
        for item in real(*args, **kwargs):
            seen.append(item)
            yield item

    monkeypatch.setattr(recap, "_composed", spy)
    return seen


def as_rgb(indices: Image.Image, table: bytes) -> Image.Image:
    image = Image.frombytes("P", indices.size, indices.tobytes())
    image.putpalette(table)
    return image.convert("RGB")


# --- one frame per Frame --------------------------------------------------------------------


@pytest.mark.parametrize("count", [1, 2, 7])
def test_one_gif_frame_per_frame(count: int) -> None:
    frames = [Frame(opening().view, None, f"Turn {i + 1} · Ada") for i in range(count)]
    gif = recap_animation("conqueror", frames, NAMES, title="Ada vs Bartholomew")
    assert gif[:6] == b"GIF89a"
    assert n_frames(gif) == count
    assert size_of(gif)[0] == MAX_WIDTH


@pytest.mark.parametrize("kind", render.kinds())
def test_a_played_game_turn_by_turn(kind: str, composed: list[tuple[Image.Image, bytes]]
                                    ) -> None:
    frames = game_frames(kind)
    assert len(frames) >= 8
    gif = recap_animation(kind, frames, NAMES, title=f"{kind} recap")
    assert len(gif) <= 8_000_000
    assert n_frames(gif) == len(frames) == len(composed)
    # every frame decodes to exactly what was composed: the delta frames (changed
    # rectangle, unchanged pixels transparent) rebuild each whole board
    for (shown, _), (indices, table) in zip(decoded(gif), composed, strict=True):
        assert shown.tobytes() == as_rgb(indices, table).tobytes()


def test_identical_views_still_give_one_frame_each(composed: list[tuple[Image.Image, bytes]]
                                                   ) -> None:
    same = Frame(opening().view, None, "Same")
    gif = recap_animation("conqueror", [same] * 5, title="Again")
    assert n_frames(gif) == 5
    shown = [im.tobytes() for im, _ in decoded(gif)]
    assert len(set(shown)) == 5  # the band's n/N (and progress bar) tells them apart


def test_even_pixel_identical_frames_are_kept() -> None:
    """The writer never merges frames, whatever they hold (the band normally differs)."""
    still = Image.new("L", (8, 8), 3)
    table = bytes(768)
    gif, written = recap._encode(iter([(still, table)] * 4), 4, 10_000)
    assert gif is not None and written == len(gif)
    assert n_frames(gif) == 4
    assert [info["duration"] for _, info in decoded(gif)] == [FRAME_MS] * 3 + [LAST_FRAME_MS]


def test_durations_and_loop() -> None:
    frames = [Frame(opening().view, None, f"Turn {i + 1}") for i in range(3)]
    gif = recap_animation("conqueror", frames)
    infos = [info for _, info in decoded(gif)]
    assert [info["duration"] for info in infos] == [FRAME_MS, FRAME_MS, LAST_FRAME_MS]
    assert infos[0]["loop"] == 0  # forever
    single = recap_animation("conqueror", frames[:1])
    assert [info["duration"] for _, info in decoded(single)] == [LAST_FRAME_MS]


def test_frames_use_the_kinds_fixed_palette() -> None:
    kind = "liege"
    gif = recap_animation(kind, game_frames(kind)[:4], NAMES)
    fixed = load_palette(kind)
    assert fixed is not None
    flat = fixed.getpalette() or []
    allowed = {tuple(flat[i:i + 3]) for i in range(0, 768, 3)}
    for shown, _ in decoded(gif):
        colours = shown.getcolors(256)
        assert colours is not None
        assert {c for _, c in colours} <= allowed


# --- size -------------------------------------------------------------------------------------


def test_drawn_smaller_to_fit_max_bytes() -> None:
    frames = game_frames("conqueror")[:10]
    full = recap_animation("conqueror", frames, NAMES)
    limit = len(full) // 3
    small = recap_animation("conqueror", frames, NAMES, max_bytes=limit)
    assert len(small) <= limit
    assert n_frames(small) == len(frames)
    assert MIN_WIDTH <= size_of(small)[0] < size_of(full)[0]
    for shown, _ in decoded(small):  # every frame still decodes
        assert shown.size == size_of(small)


def test_impossible_sizes_raise() -> None:
    frames = [opening()] * 3
    with pytest.raises(ValueError, match="cannot fit"):
        recap_animation("conqueror", frames, max_bytes=500)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError):
            recap_animation("conqueror", frames, max_bytes=bad)  # type: ignore[arg-type]


# --- bad input --------------------------------------------------------------------------------


def test_no_frames_raise() -> None:
    with pytest.raises(ValueError):
        recap_animation("conqueror", [])


def test_unknown_kind_raises() -> None:
    for kind in ("nope", "recap", "common", ""):
        with pytest.raises(ValueError):
            recap_animation(kind, [opening()])


def test_recap_is_not_a_game_kind() -> None:
    assert "recap" not in render.kinds()
    with pytest.raises(ValueError):
        render.renderer("recap")


def test_hostile_captions_and_titles() -> None:
    frames = [Frame(opening().view, None, "line\nbreak 🎲 " + "x" * 500),
              Frame(opening().view, None, ""),
              Frame(opening().view, None, None)]  # type: ignore[arg-type]
    gif = recap_animation("conqueror", frames, {"p1": "\u202eevil"}, title="🏆" * 200)
    assert n_frames(gif) == 3


def test_boards_of_other_sizes_and_kinds_without_a_palette(monkeypatch: pytest.MonkeyPatch,
                                                           composed: list[Any]) -> None:
    """A board of a different size is fitted into the first's frame; a kind with no fixed
    palette yet gets the first frame's colours."""
    def fake(view: dict[str, Any], events: Any, names: Any) -> bytes:
        image = Image.new("RGB", tuple(view["size"]), tuple(view["colour"]))
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        return buf.getvalue()

    monkeypatch.setattr(render, "renderer", lambda kind: fake)
    frames = [Frame({"size": [400, 300], "colour": [200, 30, 30]}),
              Frame({"size": [300, 600], "colour": [30, 200, 30]}),
              Frame({"size": [1600, 300], "colour": [30, 30, 200]})]
    gif = recap_animation("paletteless", frames)
    assert size_of(gif)[0] == 400
    assert n_frames(gif) == 3
    for (shown, _), (indices, table) in zip(decoded(gif), composed, strict=True):
        assert shown.size == (400, 300 + max(12, round(400 * recap.BAND)))
        assert shown.tobytes() == as_rgb(indices, table).tobytes()


# --- runs in a process pool ------------------------------------------------------------------


def test_picklable_and_runs_in_a_process_pool() -> None:
    assert pickle.loads(pickle.dumps(recap_animation)) is recap_animation
    frame = opening()
    assert pickle.loads(pickle.dumps(frame)) == frame
    with ProcessPoolExecutor(max_workers=1) as pool:
        gif = pool.submit(recap_animation, "conqueror", [frame, frame], NAMES,
                          title="pool").result(timeout=60)
    assert n_frames(gif) == 2


LONG_TITLE = ("The Grand Campaign of the Northern Alliance against the Southern League of "
              "Free Cities, Season Three #123456")


@pytest.mark.parametrize("title", [
    *(f"{engine.GAMES[k].name} #12345" for k in sorted(engine.GAMES)), LONG_TITLE])
@pytest.mark.parametrize("width", [MAX_WIDTH, 390, 240])
def test_the_whole_title_is_shown_and_readable(title: str, width: int) -> None:
    from render.common import font, min_essential_size

    band = recap._Band(width, max(12, round(width * recap.BAND)), title, 10)
    shown = band.title or " ".join(band.title_lines)
    assert shown == title, "the title is cut"
    size = band.size if band.title else band.title_size
    assert size >= min(band.size, min_essential_size(width)) - 1e-9
    for line in [band.title] if band.title else band.title_lines:
        assert font(size).getlength(line) <= width - 2 * band.pad
    assert band.total >= band.height + len(band.title_lines) * size


def test_the_battlecards_title_is_not_cut_in_the_gif() -> None:
    title = f"{engine.GAMES['battlecards'].name} #42"
    frames = [Frame(opening().view, None, "Turn 1 · Ada")]
    short = Image.open(io.BytesIO(recap_animation("conqueror", frames, NAMES, title="#42")))
    full = Image.open(io.BytesIO(recap_animation("conqueror", frames, NAMES, title=title)))
    assert full.height > short.height  # a row of its own under the caption
    band = recap._Band(full.width, max(12, round(full.width * recap.BAND)), title, 1)
    assert band.title_lines == [title]
