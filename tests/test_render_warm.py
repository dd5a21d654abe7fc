"""A board worker draws every game before its first board, so that first board costs about
what any other does (issue 30: it cost 7-45 times a warm one, paid once per worker and game).

Nothing here is timed: the work a board does is counted instead, as the drawings its caches
had to make (a static layer, a sprite, a word, a shape's mask: each a miss of its cache).
A fresh worker's first board of each game, at every table size, must build no static layer
(a map, a backdrop: the costly part of a cold board) and make at most twice the drawings of
the next board, plus a few (a new position has new words)."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import cogs.boards
import engine
import render
from cogs.boards import Boards, warm_positions
from render.common import cache_sizes
from tests.boards import random_view, same_picture

#: Caches of whole static layers (maps, backdrops, their layouts): never built for a first
#: board once a worker has warmed up.
LAYERS = ("_backdrop", "_map_layer", "spots", "_static_room", "_layout", "game_map",
          "countries", "_tile", "_BACKDROPS", "sea_cells", "_land_points")
#: The leeway on top of twice the second board's drawings (new words and numbers).
SLACK = 12


def _render_caches() -> Iterator[tuple[str, Any]]:
    """Every render cache (functools caches and drawing caches), by name."""
    for name, module in list(sys.modules.items()):
        if not (name == "render" or name.startswith("render.")) or module is None:
            continue
        for attr, obj in vars(module).items():
            info = getattr(obj, "cache_info", None)
            if (callable(info) and getattr(obj, "__module__", None) == name) \
                    or type(obj).__name__ == "DrawingCache":
                yield f"{name}.{attr}", obj


def _caches() -> dict[str, int]:
    """Every render cache's misses so far, by name."""
    return {name: obj.cache_info().misses if hasattr(obj, "cache_info") else obj.misses
            for name, obj in _render_caches()}


def _filled() -> dict[str, int]:
    """How many things each render cache holds, by name."""
    return {name: obj.cache_info().currsize if hasattr(obj, "cache_info") else len(obj._items)
            for name, obj in _render_caches()}


def _work(kind: str, view: dict[str, Any]) -> dict[str, int]:
    """The drawings one board made, by cache (those it had to make only)."""
    before = _caches()
    render.render(kind, view, None, {"x0": "Zed Zimmermann"})
    after = _caches()
    return {k: n - before.get(k, 0) for k, n in after.items() if n - before.get(k, 0)}


def first_and_second_boards() -> dict[str, list[tuple[dict[str, int], dict[str, int]]]]:
    """In this process: for every game and table size, the work of a first board of a new
    game and of a board of another new game (what any board costs a warm worker)."""
    out: dict[str, list[tuple[dict[str, int], dict[str, int]]]] = {}
    for kind, game in engine.GAMES.items():
        for count in range(game.min_players, game.max_players + 1):
            first = _work(kind, random_view(kind, count, 99, 30))
            second = _work(kind, random_view(kind, count, 98, 30))
            out.setdefault(kind, []).append((first, second))
    return out


def worker_report() -> tuple[dict[str, int], dict[str, tuple[int, int]],
                             dict[str, list[tuple[dict[str, int], dict[str, int]]]]]:
    """Run in a board worker: its caches as the initializer left them, then its boards'
    work."""
    filled, shared = _filled(), cache_sizes()
    return filled, shared, first_and_second_boards()


def _layer(name: str) -> bool:
    return name.rsplit(".", 1)[-1] in LAYERS


def _drawings(work: dict[str, int]) -> int:
    # fitting and measuring text draws nothing; a glyph check is a lookup
    return sum(n for k, n in work.items()
               if not k.endswith(("._text_length", "._fitted", ".has_glyph", "._text_box",
                                  ".unit_width")))


@pytest.fixture(scope="module")
def report() -> Any:
    async def ask() -> Any:
        boards = Boards(workers=1)
        try:
            pool = boards._executor()
            assert pool is not None
            return await asyncio.get_running_loop().run_in_executor(pool, worker_report)
        finally:
            await boards.close()

    return asyncio.run(ask())


def test_a_started_worker_has_drawn_every_game(report: Any) -> None:
    filled, shared, _ = report
    for kind in engine.GAMES:
        layers = [k for k in filled if k.startswith(f"render.{kind}.") and _layer(k)]
        assert layers, f"{kind} has no static layer cache to check"
        assert all(filled[k] > 0 for k in layers), {k: filled[k] for k in layers}
    assert filled["render.common.text.font"] > 0 and filled["render.common.png.load_palette"] \
        == len(engine.GAMES)
    assert all(size > 0 for size, _ in (shared["masks"], shared["texts"], shared["stamps"],
                                        shared["regions"]))


def test_a_workers_first_board_costs_at_most_twice_the_next(report: Any) -> None:
    _, _, boards = report
    assert set(boards) == set(engine.GAMES)
    for kind, sizes in boards.items():
        for count, (first, second) in enumerate(sizes, engine.GAMES[kind].min_players):
            built = [k for k in first if _layer(k)]
            assert not built, f"{kind} at {count}: the first board built {built}"
            assert _drawings(first) <= 2 * _drawings(second) + SLACK, (kind, count, first,
                                                                      second)


def test_every_position_the_warm_up_draws_comes_from_the_engine() -> None:
    for kind, game in engine.GAMES.items():
        views = warm_positions(kind)
        assert len(views) == 3 * (game.max_players - game.min_players + 1)
        assert all(isinstance(v, dict) and v for v in views)
    assert warm_positions("no_such_game") == []


def test_a_failing_renderer_does_not_stop_the_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(view: Any, events: Any, names: Any) -> bytes:
        raise RuntimeError("a renderer's bug")

    kind = next(iter(engine.GAMES))
    monkeypatch.setattr(sys.modules[render.renderer(kind).__module__], "render", broken)
    drawn = cogs.boards.warm_up([kind, "no_such_game"])
    assert drawn == {kind: 0, "no_such_game": 0}
    # a renderer a test registers for a while is not warmed up (nor one that replaces
    # render.render)
    monkeypatch.setattr(render, "render", broken)
    monkeypatch.setitem(render._REGISTERED, "toy_warm", broken)
    drawn = cogs.boards.warm_up()
    assert "toy_warm" not in drawn and drawn[kind] == 0
    assert all(n > 0 for k, n in drawn.items() if k != kind)


def test_drawing_in_threads_nothing_is_warmed_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Boards(workers=0).start() draws nothing: a warm-up in the bot's own process would
    hold its interpreter for seconds at each start."""
    calls: list[Any] = []
    monkeypatch.setattr(cogs.boards, "warm_up", lambda *a, **k: calls.append(a) or {})
    Boards(workers=0).start()
    assert calls == [] and not any(t.name == "board warm-up" for t in threading.enumerate())


@pytest.fixture
def strict_reuse() -> Any:
    """Every region a board keeps must hold all it drew (checked as it is drawn)."""
    from render.common.canvas import STRICT_REUSE

    STRICT_REUSE[0] = True
    try:
        yield
    finally:
        STRICT_REUSE[0] = False


@pytest.mark.parametrize("kind", list(engine.GAMES))
def test_a_board_is_the_same_drawn_cold_or_from_the_caches(kind: str, strict_reuse: Any) -> None:
    """What the caches paste back (regions, panels, stamps) is exactly what drawing gives,
    pixels and recorded text alike: each sample board (every table size, two seeds, from
    the opening to a crowded late game) drawn with empty caches, then again from them."""
    from render.common import TextLog, clear_caches
    from tests.boards import sample_boards

    def drawn(board: Any) -> tuple[bytes, list[Any]]:
        with TextLog() as log:
            png = render.render(kind, board.view, board.events, board.names)
        return png, [(d.role, d.text, d.size, d.box, d.order, d.groups) for d in log.drawn] + \
            [(s.kind, s.coords, s.width, s.order, s.groups) for s in log.shapes]

    for board in sample_boards(kind, range(2)):
        clear_caches()
        cold_png = render.render(kind, board.view, board.events, board.names)
        warm_png = render.render(kind, board.view, board.events, board.names)
        clear_caches()
        cold, warm = drawn(board), drawn(board)
        assert all(same_picture(cold_png, png) for png in (warm_png, cold[0], warm[0])), \
            board.label
        assert cold[1] == warm[1], board.label
