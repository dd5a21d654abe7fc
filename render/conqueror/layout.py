"""Where things are on the Conqueror board: the image's sizes, the grid's geometry (a1
bottom-left, like chess, with a wider gutter between the quadrants), the tiles' colours,
and reading square names and the view's board."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.common import RGB, Point

WIDTH, HEIGHT = 1000, 700
SCALE = 2  # sprites and static layers are drawn this many times larger, then reduced
KIND = "conqueror"

FILES = "abcdef"
RANKS = "123456"

# Board geometry (final pixels). A slightly wider gutter splits the four quadrants.
CELL = 104
INSET = 3  # half the gap between tiles
QGAP = 6  # extra gutter between quadrants
BOARD_X, BOARD_Y = 42, 22
BOARD_SIZE = 6 * CELL + QGAP
TILE = CELL - 2 * INSET
TOKEN_R = 29
BASE_HEALTH = 5

# Side panel.
PANEL_X0, PANEL_X1 = 696, 982

TILE_COLOURS: dict[str, RGB] = {
    "hidden": (44, 49, 60),
    "blank": (112, 106, 88),
    "gold": (150, 118, 44),
    "lumber": (58, 104, 58),
    "base": (84, 88, 99),
    "ruin": (62, 62, 66),
}
FRAME: RGB = (17, 18, 22)


def _square_xy(name: Any) -> tuple[float, float] | None:
    """Top-left corner of a square's cell, or None for a name that is not a square."""
    if not isinstance(name, str) or len(name) != 2:
        return None
    f, r = name[0].lower(), name[1]
    if f not in FILES or r not in RANKS:
        return None
    fi, ri = FILES.index(f), RANKS.index(r)
    row = 5 - ri  # rank 6 at the top
    x = BOARD_X + fi * CELL + (QGAP if fi >= 3 else 0)
    y = BOARD_Y + row * CELL + (QGAP if row >= 3 else 0)
    return x, y


def _tile_box(name: Any) -> tuple[float, float, float, float] | None:
    xy = _square_xy(name)
    if xy is None:
        return None
    x, y = xy
    return x + INSET, y + INSET, x + CELL - INSET, y + CELL - INSET


def _token_centre(name: str, resource: str) -> Point | None:
    box = _tile_box(name)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    if resource in ("base", "ruin"):
        return (x0 + x1) / 2, y0 + TILE * 0.62
    return (x0 + x1) / 2, (y0 + y1) / 2 + 2


def _sq(value: Any) -> str | None:
    """``value`` as a lower-case square name, or None if it is not one."""
    return value.lower() if _square_xy(value) is not None else None


def _board(view: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The view's squares by lower-case name (odd entries dropped)."""
    raw = view.get("board")
    board: dict[str, Mapping[str, Any]] = {}
    for k, v in raw.items() if isinstance(raw, Mapping) else ():
        name = _sq(k)
        if name is not None and isinstance(v, Mapping):
            board.setdefault(name, v)
    return board
