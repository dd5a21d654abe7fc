"""Where things are on the Liège board and the panel beside it, the game's constants the
panel needs, the colours, and the geometry of an ``n`` x ``n`` grid (reading square
names)."""

from __future__ import annotations

from typing import Any

from render.common import RGB, Point, as_int

WIDTH, HEIGHT = 1100, 858
SCALE = 2  # sprites and static layers are drawn this many times larger, then reduced
KIND = "liege"

FILES = "abcdefghij"
SIZES = range(4, 11)  # the engine uses 10 and 8; anything else falls back to 10

# Board geometry (final pixels): the board is the same size whatever the grid.
BOARD_PX = 680
BOARD_X, BOARD_Y = 46, 26
FRAME_PAD = 10
SHOP_Y = BOARD_Y + BOARD_PX + 40  # the shop strip under the board
SHOP_HEIGHT = 72  # two rows: names and prices at the phone size
KEY_Y = SHOP_Y + SHOP_HEIGHT + 20  # and the key under that

# Side panel.
PANEL_X0, PANEL_X1 = 766, 1084

# The game's constants the panel needs (the War Stats Table; the view carries the rest).
START_LIVES = 3
DAMAGE_TOKENS = 5
BASE_PRICES = {"rifle": 20, "mg": 130, "mortar": 160, "av": 210, "trench": 40,
               "grenade": 80, "missile": 30, "gas": 40}
LIMITS = {"trench": 3, "grenade": 3, "missile": 2, "gas": 2}
PIECE_TYPES = ("rifle", "mg", "mortar", "av", "trench")
FACINGS = ("n", "e", "s", "w")
NAMES = {"rifle": "Rifle", "mg": "Machine Gun", "mortar": "Mortar", "av": "Armored Vehicle",
         "trench": "Trench", "grenade": "Grenade", "missile": "Missile", "gas": "Mustard Gas",
         "general": "General"}
SHORT = {"rifle": "Rifle", "mg": "MG", "mortar": "Mortar", "av": "AV", "trench": "Trench",
         "grenade": "Grenade", "missile": "Missile", "gas": "Gas"}

GROUND: tuple[RGB, RGB] = ((84, 82, 68), (74, 72, 60))
FRAME: RGB = (17, 18, 22)
ICON: RGB = (247, 242, 229)  # the light silhouettes on counters
EARTH: RGB = (122, 92, 58)
RANGE: RGB = (92, 206, 255)
DEFENDER: RGB = (240, 240, 246)
BLAST_COLOURS: dict[str, RGB] = {"grenade": (255, 138, 36), "missile": (238, 52, 44),
                                 "gas": (186, 214, 48)}
PHASES = (("general", "General"), ("deploy", "Deploy"), ("move", "Move"), ("fight", "Fight"))


# The panel.
STATUS_TOP, STATUS_HEIGHT = 56, 100
CARDS_TOP = STATUS_TOP + STATUS_HEIGHT + 10
POOL_HEIGHT = 36


class _Board:
    """Geometry of an ``n`` x ``n`` grid inside the fixed board area."""

    def __init__(self, size: Any) -> None:
        n = as_int(size, 10)
        self.n = n if n in SIZES else 10
        self.cell = BOARD_PX / self.n
        self.files = FILES[: self.n]

    def coords(self, name: Any) -> tuple[int, int] | None:
        """(file index, rank index) of a square name, or None."""
        if not isinstance(name, str) or not 2 <= len(name) <= 3:
            return None
        f, r = name[0].lower(), name[1:]
        if f not in self.files or not r.isascii() or not r.isdigit() or r[0] == "0":
            return None
        rank = int(r)
        if not 1 <= rank <= self.n:
            return None
        return self.files.index(f), rank - 1

    def box(self, name: Any) -> tuple[float, float, float, float] | None:
        xy = self.coords(name)
        if xy is None:
            return None
        return self.box_at(*xy)

    def box_at(self, fi: int, ri: int) -> tuple[float, float, float, float]:
        x = BOARD_X + fi * self.cell
        y = BOARD_Y + (self.n - 1 - ri) * self.cell
        return x, y, x + self.cell, y + self.cell

    def centre(self, name: Any) -> Point | None:
        b = self.box(name)
        return None if b is None else ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)

    def home(self, side: Any) -> list[tuple[int, int]]:
        """The (file, rank) indexes of a side's home edge."""
        last = self.n - 1
        if side == "south":
            return [(f, 0) for f in range(self.n)]
        if side == "north":
            return [(f, last) for f in range(self.n)]
        if side == "west":
            return [(0, r) for r in range(self.n)]
        if side == "east":
            return [(last, r) for r in range(self.n)]
        return []


def _squares(board: _Board, value: Any, limit: int = 200) -> list[str]:
    """The valid, distinct square names in a list (lower case, in order)."""
    out: list[str] = []
    if isinstance(value, list):
        for s in value[:limit]:
            if board.coords(s) is not None and s.lower() not in out:
                out.append(s.lower())
    return out


def _square(board: _Board, value: Any) -> str | None:
    return value.lower() if board.coords(value) is not None else None


def _counter_box(cell: float) -> tuple[float, float, float, float]:
    m = cell * 0.1
    return m, m, cell - m, cell - m
