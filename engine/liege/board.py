"""Liège's square board (10x10 or 8x8): square names, seats, forward, ranges and blasts.

Squares are named like a chessboard: files ``a``.. left to right, ranks ``1``.. bottom to
top, so ``a1`` is bottom-left. Everything here is pure geometry, cached per board size.
"""

from __future__ import annotations

from functools import cache

FILES = "abcdefghij"
SIZES = (10, 8)

#: Seats in seat order: 2 players are south and north; 3-4 add west, then east.
SIDES = ("south", "north", "west", "east")
#: (file step, rank step) toward each side's opposite edge.
FORWARD: dict[str, tuple[int, int]] = {
    "south": (0, 1), "north": (0, -1), "west": (1, 0), "east": (-1, 0)}
#: Facing letter of each side's forward direction.
FORWARD_FACING = {"south": "n", "north": "s", "west": "e", "east": "w"}
FACINGS: dict[str, tuple[int, int]] = {"n": (0, 1), "e": (1, 0), "s": (0, -1), "w": (-1, 0)}
KING = tuple((df, dr) for dr in (-1, 0, 1) for df in (-1, 0, 1) if df or dr)
TWO_KING_STEPS = tuple((df, dr) for dr in range(-2, 3) for df in range(-2, 3) if df or dr)


class Board:
    """The geometry of one board size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.squares: tuple[str, ...] = tuple(
            FILES[f] + str(r + 1) for r in range(size) for f in range(size))
        self.index = {s: i for i, s in enumerate(self.squares)}
        #: (file, rank) of every square, both from 0.
        self._coords: dict[str, tuple[int, int]] = {
            s: (FILES.index(s[0]), int(s[1:]) - 1) for s in self.squares}
        self.neighbours: dict[str, tuple[str, ...]] = {
            s: self._offsets(s, KING) for s in self.squares}
        self.plus: dict[str, tuple[str, ...]] = {
            s: (s, *self._offsets(s, ((0, 1), (1, 0), (0, -1), (-1, 0))))
            for s in self.squares}
        self.block: dict[str, tuple[str, ...]] = {
            s: tuple(sorted((s, *self.neighbours[s]), key=self.index.__getitem__))
            for s in self.squares}
        #: Squares at most two king steps away (not the square itself), in board order:
        #: where a General inside its Armored Vehicle may go.
        self.near2: dict[str, tuple[str, ...]] = {
            s: tuple(self.sort(list(self._offsets(s, TWO_KING_STEPS)))) for s in self.squares}
        # progress() for every side and square, computed once: deployment checks ask for
        # it square by square many times a move.
        self._progress: dict[str, dict[str, int]] = {
            side: {s: self._measure_progress(side, s) for s in self.squares}
            for side in SIDES}

    def is_square(self, name: str) -> bool:
        return name in self.index

    def coords(self, square: str) -> tuple[int, int]:
        """(file, rank), both from 0."""
        known = self._coords.get(square)
        return (FILES.index(square[0]), int(square[1:]) - 1) if known is None else known

    @cache  # noqa: B019 - boards live for the whole process (one per size)
    def gaps_from(self, square: str) -> dict[str, int]:
        """King-move distance from ``square`` to every square of this board (read only)."""
        f, r = self._coords[square]
        return {s: max(abs(f - g), abs(r - q)) for s, (g, q) in self._coords.items()}

    def at(self, f: int, r: int) -> str | None:
        if 0 <= f < self.size and 0 <= r < self.size:
            return FILES[f] + str(r + 1)
        return None

    def _offsets(self, square: str, offsets: tuple[tuple[int, int], ...]) -> tuple[str, ...]:
        f, r = self.coords(square)
        return tuple(s for df, dr in offsets if (s := self.at(f + df, r + dr)) is not None)

    def step(self, square: str, direction: tuple[int, int]) -> str | None:
        f, r = self.coords(square)
        return self.at(f + direction[0], r + direction[1])

    def sort(self, squares: set[str] | list[str]) -> list[str]:
        return sorted(squares, key=self.index.__getitem__)

    # -- seats ----------------------------------------------------------------------

    def highlights(self, side: str) -> tuple[str, str]:
        """The two middle squares of a side's home edge."""
        lo, hi = self.size // 2 - 1, self.size // 2
        last = self.size - 1
        pairs = {"south": ((lo, 0), (hi, 0)), "north": ((lo, last), (hi, last)),
                 "west": ((0, lo), (0, hi)), "east": ((last, lo), (last, hi))}
        a, b = pairs[side]
        first, second = self.at(*a), self.at(*b)
        assert first is not None and second is not None
        return first, second

    def progress(self, side: str, square: str) -> int:
        """How far ``square`` is from the side's home edge (0 on it, size-1 on the far edge)."""
        known = self._progress[side].get(square)
        return self._measure_progress(side, square) if known is None else known

    def _measure_progress(self, side: str, square: str) -> int:
        f, r = self.coords(square)
        last = self.size - 1
        return {"south": r, "north": last - r, "west": f, "east": last - f}[side]

    def to_go(self, side: str, square: str) -> int:
        """Squares still to go to the side's opposite edge."""
        return self.size - 1 - self.progress(side, square)

    @cache  # noqa: B019 - boards live for the whole process (one per size)
    def zone(self, side: str, reach: int) -> tuple[str, ...]:
        """Squares at most ``reach`` from the side's home edge, in board order."""
        return tuple(s for s in self.squares if self._progress[side][s] <= reach)

    def back(self, side: str, square: str) -> str | None:
        df, dr = FORWARD[side]
        return self.step(square, (-df, -dr))

    # -- ranges -----------------------------------------------------------------------

    @cache  # noqa: B019 - boards live for the whole process (one per size)
    def mg_range(self, square: str, facing: str) -> tuple[str, ...]:
        """The 3x2 block in front of a Machine Gun plus the two squares beside it."""
        dx, dy = FACINGS[facing]
        px, py = dy, -dx
        offsets = [(k * dx + s * px, k * dy + s * py) for k in (1, 2) for s in (-1, 0, 1)]
        offsets += [(px, py), (-px, -py)]
        return tuple(self.sort(list(self._offsets(square, tuple(offsets)))))

    @cache  # noqa: B019
    def fire_zone(self, square: str, facing: str) -> tuple[str, ...]:
        """Where a Mortar can fire: 2-4 squares straight ahead, or one to either side."""
        dx, dy = FACINGS[facing]
        px, py = dy, -dx
        offsets = tuple((k * dx + s * px, k * dy + s * py) for k in (2, 3, 4)
                        for s in (-1, 0, 1))
        return tuple(self.sort(list(self._offsets(square, offsets))))

    @cache  # noqa: B019
    def throw_zone(self, square: str) -> tuple[str, ...]:
        """Where a Rifle can throw a Grenade: any square at most 2 away (not its own)."""
        return tuple(self.sort(list(self._offsets(square, TWO_KING_STEPS))))

    def king_path(self, src: str, dst: str, free: set[str]) -> bool:
        """True if a General can go from src to dst in one or two king steps through ``free``."""
        if dst in self.neighbours[src]:
            return True
        return any(mid in free and dst in self.neighbours[mid] for mid in self.neighbours[src])


@cache
def board(size: int) -> Board:
    return Board(size)


def distance(a: str, b: str) -> int:
    """King-move distance between two squares."""
    fa, ra = _COORDS[a]
    fb, rb = _COORDS[b]
    return max(abs(fa - fb), abs(ra - rb))


#: Every square name's file and rank as numbers, so that :func:`distance` (which the
#: computer player asks often) parses no name.
_COORDS: dict[str, tuple[int, int]] = {
    f"{f}{r}": (i, r) for i, f in enumerate(FILES) for r in range(1, len(FILES) + 1)}
