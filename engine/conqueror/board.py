"""Conqueror's 6x6 board: square names, neighbours, quadrants and home corners."""

from __future__ import annotations

FILES = "abcdef"
RANKS = "123456"
SQUARES: tuple[str, ...] = tuple(f + r for r in RANKS for f in FILES)
_SQUARE_SET = frozenset(SQUARES)

#: Home corners in seat order, by number of players.
BASES: dict[int, tuple[str, ...]] = {
    2: ("a1", "f6"),
    3: ("a1", "f6", "f1"),
    4: ("a1", "f6", "f1", "a6"),
}


def is_square(name: str) -> bool:
    return name in _SQUARE_SET


def coords(square: str) -> tuple[int, int]:
    """(file index, rank index), both 0-5."""
    return FILES.index(square[0]), RANKS.index(square[1])


def square_at(file: int, rank: int) -> str:
    return FILES[file] + RANKS[rank]


def _neighbours(square: str) -> tuple[str, ...]:
    f, r = coords(square)
    return tuple(
        square_at(f + df, r + dr)
        for dr in (-1, 0, 1)
        for df in (-1, 0, 1)
        if (df or dr) and 0 <= f + df < 6 and 0 <= r + dr < 6
    )


#: King-move neighbours of every square.
NEIGHBOURS: dict[str, tuple[str, ...]] = {s: _neighbours(s) for s in SQUARES}


def adjacent(a: str, b: str) -> bool:
    return b in NEIGHBOURS.get(a, ())


def quadrant(square: str) -> int:
    """0-3: the 3x3 quadrant holding ``square`` (a1-c3, d1-f3, a4-c6, d4-f6)."""
    f, r = coords(square)
    return (f // 3) + 2 * (r // 3)


#: King-move distance between any two squares (the AI asks it thousands of times a turn).
DISTANCE: dict[str, dict[str, int]] = {
    a: {b: max(abs(coords(a)[0] - coords(b)[0]), abs(coords(a)[1] - coords(b)[1]))
        for b in SQUARES}
    for a in SQUARES
}

QUADRANTS: dict[int, tuple[str, ...]] = {
    q: tuple(s for s in SQUARES if quadrant(s) == q) for q in range(4)
}
