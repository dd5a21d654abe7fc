"""The Conqueror board: a 6x6 grid (a1 bottom-left, like chess) and a player panel.

Drawn from the public view dict only (see ``engine.conqueror``'s ``view``): squares
by resource (hidden, gold, lumber, blank, base, ruin), soldier stacks as counters in
the owner's colour, forts as a palisade in the fort owner's colour (grey when
ownerless), bases as keeps with their health. On top, what ``events`` did (every public
event since the last image, e.g. a whole turn): an arrow per move in the mover's colour
(numbered when there are several), battles as a red outline with crossed swords, recruits
as a "+N" tag on the base, forts built and razed as dashed outlines; the panel sums the
turn up in a "THIS TURN" box. Without usable events the view's ``last_move`` is shown
instead (a gold arrow and a "LAST MOVE" box).

Text a player needs to decide (the status line, the round, the counts on the stacks, the
players' AP, gold, lumber, soldiers and forts) is marked with its role and drawn at least
:func:`render.common.min_essential_size` tall, so it stays readable on a phone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from render.common import (
    ACCENT,
    BACKGROUND,
    DANGER,
    FAINT,
    MAX_EVENTS,
    MUTED,
    NEUTRAL,
    PANEL,
    PANEL_HIGHLIGHT,
    RGB,
    SEAT_COLOURS,
    TEXT,
    Canvas,
    Colour,
    Point,
    clean_text,
    coin_icon,
    darken,
    dashed_rect,
    display_name,
    drawable_events,
    lighten,
    load_palette,
    logs_icon,
    min_essential_size,
    note_actor,
    pips,
    seat_colour,
    text_on,
    token,
    tower_icon,
    with_alpha,
)

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


# --- view access (tolerant: a missing or odd field never crashes a render) ---------------


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


def _int(value: Any, default: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return value


class _Players:
    """Seats, colours and names of the view's players."""

    def __init__(self, view: Mapping[str, Any], names: Mapping[str, str] | None) -> None:
        raw = view.get("players")
        self.players: list[Mapping[str, Any]] = [
            p for p in (raw if isinstance(raw, list) else []) if isinstance(p, Mapping)]
        self.by_id: dict[str, Mapping[str, Any]] = {}
        self.names: dict[str, str] = {}
        for i, p in enumerate(self.players):
            pid = p.get("id")
            seat = _int(p.get("seat"), i + 1)
            if isinstance(pid, str):
                self.by_id[pid] = p
                self.names[pid] = display_name(names, pid, seat)

    def seat(self, pid: Any) -> int | None:
        p = self.by_id.get(pid) if isinstance(pid, str) else None
        return _int(p.get("seat"), self.players.index(p) + 1) if p is not None else None

    def colour(self, pid: Any) -> RGB:
        return seat_colour(self.seat(pid)) if pid is not None else NEUTRAL

    def name(self, pid: Any) -> str:
        if isinstance(pid, str) and pid in self.names:
            return self.names[pid]
        return clean_text(pid) or "?"


# --- what the events did (tolerant: odd events are skipped, never drawn wrongly) ---------

#: At most this many events are read (a turn has a few dozen; hostile input stays cheap).


@dataclass(frozen=True)
class _Move:
    player: str | None
    src: str
    dst: str
    count: int


@dataclass(frozen=True)
class _Battle:
    square: str
    attacker: str | None
    defender: str | None
    won: bool | None  # None: the event did not say
    kind: str
    damage: int


@dataclass
class _Turn:
    """The public events of one image (usually a whole turn), checked and sorted."""

    moves: list[_Move] = field(default_factory=list)
    battles: list[_Battle] = field(default_factory=list)
    recruits: dict[str, int] = field(default_factory=dict)  # square -> soldiers recruited
    forts: list[str] = field(default_factory=list)
    razed: list[str] = field(default_factory=list)
    discovered: list[str] = field(default_factory=list)
    converts: int = 0
    ended: bool = False
    actors: list[str] = field(default_factory=list)  # who acted, in order of first action
    eliminated: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.moves or self.battles or self.recruits or self.forts or self.razed
                    or self.discovered or self.converts or self.ended or self.eliminated)

    def acted(self, player: Any) -> str | None:
        return note_actor(self.actors, player)


def _sq(value: Any) -> str | None:
    """``value`` as a lower-case square name, or None if it is not one."""
    return value.lower() if _square_xy(value) is not None else None


def _player_id(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _read_events(events: Any) -> _Turn:
    """The drawable facts in ``events``: private, unknown and malformed events are skipped."""
    turn = _Turn()
    for e in drawable_events(events, MAX_EVENTS):
        kind = e["type"]
        if kind == "move":
            src, dst = _sq(e.get("from")), _sq(e.get("to"))
            if src is not None and dst is not None and src != dst:
                turn.moves.append(_Move(turn.acted(e.get("player")), src, dst,
                                        max(0, _int(e.get("count")))))
        elif kind == "battle":
            dst = _sq(e.get("to"))
            if dst is None:
                continue
            winner = e.get("winner")
            won = True if winner == "attacker" else False if winner == "defender" else None
            bkind = e.get("kind")
            turn.battles.append(_Battle(
                dst, turn.acted(e.get("attacker")), _player_id(e.get("defender")), won,
                bkind if isinstance(bkind, str) else "soldiers", max(0, _int(e.get("damage")))))
        elif kind == "recruit":
            square, count = _sq(e.get("square")), _int(e.get("count"))
            if square is not None and count > 0:
                turn.acted(e.get("player"))
                turn.recruits[square] = min(99, turn.recruits.get(square, 0) + count)
        elif kind in ("fort", "raze", "capture_fort"):
            square = _sq(e.get("square"))
            if square is None:
                continue
            turn.acted(e.get("player"))
            if kind == "fort":
                turn.forts.append(square)
                if square in turn.razed:
                    turn.razed.remove(square)
            else:
                turn.razed.append(square)
                if square in turn.forts:
                    turn.forts.remove(square)
        elif kind == "discover":
            square = _sq(e.get("square"))
            if square is not None and square not in turn.discovered:
                turn.discovered.append(square)
        elif kind == "convert":
            if turn.acted(e.get("player")) is not None:
                turn.converts += 1
        elif kind == "end_turn":
            if turn.acted(e.get("player")) is not None:
                turn.ended = True
        elif kind == "eliminated":
            pid = _player_id(e.get("player"))
            if pid is not None and pid not in turn.eliminated:
                turn.eliminated.append(pid)
    return turn


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _turn_lines(c: Canvas, turn: _Turn, players: _Players, size: float,
                width: float) -> list[tuple[str, Colour]]:
    """The "THIS TURN" box's lines under the players' names: counts (wrapped between
    items, never inside one), then what happened."""
    parts: list[str] = []
    if turn.moves:
        parts.append(_plural(len(turn.moves), "move"))
    if turn.battles:
        parts.append(_plural(len(turn.battles), "battle"))
    recruited = sum(turn.recruits.values())
    if recruited:
        parts.append(f"+{_plural(recruited, 'recruit')}")
    if turn.discovered:
        parts.append(f"{len(turn.discovered)} explored")
    if turn.forts:
        parts.append(f"+{_plural(len(turn.forts), 'fort')}")
    if turn.razed:
        parts.append(f"{len(turn.razed)} razed")
    if turn.converts:
        parts.append(_plural(turn.converts, "convert"))
    lines: list[tuple[str, Colour]] = []
    for part in parts:
        joined = f"{lines[-1][0]} · {part}" if lines else part
        if lines and c.text_width(joined, size, bold=True) <= width:
            lines[-1] = (joined, TEXT)
        else:
            lines.append((part, TEXT))
    if not lines and turn.ended:
        lines.append(("Ended the turn", TEXT))
    fights = []
    for b in turn.battles[:4]:
        if b.kind == "base":
            fights.append(f"base {b.square} −{b.damage}" if b.damage else
                          f"base {b.square} held")
        else:
            fights.append(f"{b.square} " + ("won" if b.won else "lost" if b.won is False
                                            else "fought"))
    if fights:
        lines.append(("Battles: " + ", ".join(fights), (255, 170, 150)))
    for pid in turn.eliminated[:2]:
        lines.append((f"{players.name(pid)} is out", (255, 170, 150)))
    return lines


# --- tiles ---------------------------------------------------------------------------


@lru_cache(maxsize=16)
def _tile(resource: str) -> Image.Image:
    """The background of one square (rounded, on the frame's colour, final size), cached."""
    fill = TILE_COLOURS.get(resource, TILE_COLOURS["blank"])
    c = Canvas(TILE, TILE, fill, scale=SCALE)
    if resource == "hidden":
        # fog: fine diagonal hatching and a faint question mark
        step = 9
        for k in range(-TILE, TILE, step):
            c.line([(k, TILE), (k + TILE, 0)], fill=lighten(fill, 0.06), width=2)
        c.text((TILE / 2, TILE / 2 + 1), "?", 40, fill=lighten(fill, 0.14), bold=True,
               anchor="mm")
    else:
        # lit from the top: a light upper edge and a darker lower one
        c.rect((0, 0, TILE, 4), fill=with_alpha(lighten(fill, 0.5), 50))
        c.rect((0, TILE - 5, TILE, TILE), fill=with_alpha(darken(fill, 0.5), 60))
        if resource == "blank":
            for px, py in ((22, 70), (70, 26), (76, 76), (30, 30)):
                c.line([(px - 4, py), (px - 1, py - 6)], fill=darken(fill, 0.18), width=2)
                c.line([(px + 1, py), (px + 1, py - 7)], fill=darken(fill, 0.18), width=2)
                c.line([(px + 5, py), (px + 3, py - 5)], fill=darken(fill, 0.18), width=2)
        elif resource == "base":
            mortar = darken(fill, 0.2)
            for row in range(0, TILE, 14):
                c.line([(0, row), (TILE, row)], fill=mortar, width=1.5)
                off = 0 if (row // 14) % 2 == 0 else 14
                for col in range(off, TILE, 28):
                    c.line([(col, row), (col, row + 14)], fill=mortar, width=1.5)
    c.rect((0, 0, TILE, TILE), outline=with_alpha(lighten(fill, 0.3), 70), width=1.5,
           radius=9)
    img = c.image.convert("RGBA")
    mask = Image.new("L", img.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, img.size[0] - 1, img.size[1] - 1),
                                           radius=9 * SCALE, fill=255)
    img.putalpha(mask)
    # composed onto the board's frame (what is under every square): pasted opaque, fast
    tile = Image.new("RGB", (TILE, TILE), FRAME)
    small = img.reduce(SCALE)
    tile.paste(small, (0, 0), small)
    return tile


@lru_cache(maxsize=2)
def _backdrop() -> Image.Image:
    """Background, board frame, coordinates and all 36 hidden tiles, cached (RGB)."""
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=SCALE)
    pad = 9
    c.rect((BOARD_X - pad, BOARD_Y - pad, BOARD_X + BOARD_SIZE + pad,
            BOARD_Y + BOARD_SIZE + pad), fill=FRAME, radius=14)
    c.rect((BOARD_X - pad, BOARD_Y - pad, BOARD_X + BOARD_SIZE + pad,
            BOARD_Y + BOARD_SIZE + pad), outline=(58, 62, 72), width=1.5, radius=14)
    for i, f in enumerate(FILES):
        x = BOARD_X + i * CELL + (QGAP if i >= 3 else 0) + CELL / 2
        c.text((x, BOARD_Y + BOARD_SIZE + pad + 13), f, 18, fill=MUTED, bold=True,
               anchor="mm")
    for i, r in enumerate(RANKS):
        row = 5 - i
        y = BOARD_Y + row * CELL + (QGAP if row >= 3 else 0) + CELL / 2
        c.text((BOARD_X - pad - 13, y), r, 18, fill=MUTED, bold=True, anchor="mm")
    return c.finish()


# --- pieces on the board -------------------------------------------------------------


def _keep(c: Canvas, box: tuple[float, float, float, float], colour: Colour,
          ruined: bool = False) -> None:
    """A castle keep filling ``box``: two towers, a crenellated wall and a gate."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    tw = w * 0.3
    m = h * 0.14  # merlon height
    wall = y0 + h * 0.3
    outline = darken(colour, 0.55)
    pts: list[Point] = [(x0, y1), (x0, y0)]
    pts += [(x0 + tw / 3, y0), (x0 + tw / 3, y0 + m), (x0 + 2 * tw / 3, y0 + m),
            (x0 + 2 * tw / 3, y0), (x0 + tw, y0), (x0 + tw, wall)]
    seg = (w - 2 * tw) / 5
    for i in range(5):
        sx = x0 + tw + i * seg
        top = wall if i % 2 == 0 else wall - m
        if i % 2:
            pts += [(sx, wall - m), (sx + seg, wall - m), (sx + seg, wall)]
        else:
            pts += [(sx, top), (sx + seg, top)]
    if ruined:  # the right tower broken off in jagged steps
        pts += [(x1 - tw, wall - m * 0.2), (x1 - tw * 0.7, wall + m * 0.9),
                (x1 - tw * 0.45, wall + m * 0.2), (x1 - tw * 0.2, wall + m * 1.6),
                (x1, wall + m * 1.1)]
    else:
        pts += [(x1 - tw, y0), (x1 - 2 * tw / 3, y0), (x1 - 2 * tw / 3, y0 + m),
                (x1 - tw / 3, y0 + m), (x1 - tw / 3, y0), (x1, y0)]
    pts.append((x1, y1))
    c.polygon([(x + 2, y + 3) for x, y in pts], fill=(0, 0, 0, 90))
    c.polygon(pts, fill=colour, outline=outline, width=2)
    # shading on the left tower, windows, gate
    c.rect((x0 + 1.5, y0 + m + 1, x0 + tw * 0.32, y1 - 1.5),
           fill=with_alpha(lighten(colour, 0.6), 70))
    for tx in (x0 + tw / 2, x1 - tw / 2):
        if ruined and tx > x0 + w / 2:
            continue
        c.rect((tx - w * 0.025, y0 + h * 0.32, tx + w * 0.025, y0 + h * 0.5), fill=outline)
    gw = w * 0.24
    gx = x0 + w / 2
    gate_top = y1 - h * 0.42
    c.rect((gx - gw / 2, gate_top + gw / 2, gx + gw / 2, y1), fill=outline)
    c.ellipse((gx - gw / 2, gate_top, gx + gw / 2, gate_top + gw), fill=outline)
    if ruined:
        for rx, ry, rr in ((x1 - tw * 0.3, y1 - 3, 4), (x1 + 3, y1 - 2, 3),
                           (x1 - tw * 0.75, y1 - 2, 3)):
            c.circle((rx, ry), rr, fill=lighten(colour, 0.15), outline=outline, width=1)


def _palisade(c: Canvas, box: tuple[float, float, float, float], colour: Colour) -> None:
    """A fort: a stake wall just inside the square's edge."""
    x0, y0, x1, y1 = box
    inset = 4
    dark = darken(colour, 0.5)
    c.rect((x0 + inset, y0 + inset, x1 - inset, y1 - inset), outline=dark, width=7, radius=8)
    c.rect((x0 + inset + 0.5, y0 + inset + 0.5, x1 - inset - 0.5, y1 - inset - 0.5),
           outline=colour, width=5, radius=8)
    # stake tips along the top edge
    n = 7
    span = (x1 - x0 - 2 * inset - 12)
    for i in range(n):
        sx = x0 + inset + 6 + span * (i + 0.5) / n
        c.polygon([(sx - 3.5, y0 + inset + 1), (sx, y0 + inset - 5), (sx + 3.5, y0 + inset + 1)],
                  fill=colour, outline=dark, width=1)


def _fort_badge(c: Canvas, box: tuple[float, float, float, float], colour: Colour) -> None:
    _, y0, x1, _ = box
    centre = (x1 - 16, y0 + 17)
    c.circle(centre, 13, fill=(20, 21, 26, 235), outline=colour, width=2)
    tower_icon(c, (centre[0], centre[1] + 1), 7, colour)


def _swords(c: Canvas, centre: Point, r: float) -> None:
    """Crossed swords on a red disc: a battle."""
    x, y = centre
    c.circle((x + 1, y + 2), r + 1, fill=(0, 0, 0, 120))
    c.circle((x, y), r, fill=DANGER, outline=(255, 240, 236), width=2)
    k = r * 0.8
    steel, grip = (250, 250, 252), (236, 188, 96)
    for ux, uy in ((-0.7071, -0.7071), (0.7071, -0.7071)):  # tips to upper left / right
        px, py = -uy, ux  # across the blade
        tip = (x + ux * k, y + uy * k)
        guard = (x - ux * k * 0.45, y - uy * k * 0.45)
        pommel = (x - ux * k * 0.85, y - uy * k * 0.85)
        bw = r * 0.11
        shoulder = (tip[0] - ux * bw * 2.5, tip[1] - uy * bw * 2.5)
        c.polygon([(guard[0] + px * bw, guard[1] + py * bw),
                   (shoulder[0] + px * bw, shoulder[1] + py * bw), tip,
                   (shoulder[0] - px * bw, shoulder[1] - py * bw),
                   (guard[0] - px * bw, guard[1] - py * bw)], fill=steel)
        c.line([guard, pommel], fill=grip, width=r * 0.15)
        gw = r * 0.26
        c.line([(guard[0] + px * gw, guard[1] + py * gw),
                (guard[0] - px * gw, guard[1] - py * gw)], fill=steel, width=r * 0.13)
        c.circle(pommel, r * 0.09, fill=steel)


def _token_centre(name: str, resource: str) -> Point | None:
    box = _tile_box(name)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    if resource in ("base", "ruin"):
        return (x0 + x1) / 2, y0 + TILE * 0.62
    return (x0 + x1) / 2, (y0 + y1) / 2 + 2


def _arrow(c: Canvas, start: Point, end: Point, colour: Colour, width: float = 7) -> None:
    """A thick arrow from ``start`` to ``end`` (the tip), outlined for contrast."""
    sx, sy = start
    ex, ey = end
    dx, dy = ex - sx, ey - sy
    length = (dx * dx + dy * dy) ** 0.5
    if length < 1:
        return
    ux, uy = dx / length, dy / length
    head = min(20.0, length * 0.6)
    hw = width * 1.6
    bx, by = ex - ux * head, ey - uy * head
    head_pts = [(ex, ey), (bx - uy * hw, by + ux * hw), (bx + uy * hw, by - ux * hw)]
    shadow = (12, 12, 16, 200)
    c.line([start, (bx, by)], fill=shadow, width=width + 4, round_caps=True)
    c.polygon(head_pts, fill=shadow, outline=shadow, width=3)
    c.line([start, (bx + ux, by + uy)], fill=colour, width=width, round_caps=True)
    c.polygon(head_pts, fill=colour)


# --- what this turn did, on the board ----------------------------------------------------

#: Arrows sharing two squares are drawn this far apart (centre to centre).
ARROW_SPACING = 22.0


def _move_arrows(c: Canvas, moves: list[_Move], board: Mapping[str, Mapping[str, Any]],
                 players: _Players) -> list[tuple[Point, RGB, int]]:
    """An arrow per move in the mover's colour; returns where each order badge goes.

    Arrows between the same two squares (either way) are spread side by side, so a stack
    moved there and back, or twice, shows two arrows."""
    pairs: dict[tuple[str, str], int] = {}
    for m in moves:
        key = (min(m.src, m.dst), max(m.src, m.dst))
        pairs[key] = pairs.get(key, 0) + 1
    seen: dict[tuple[str, str], int] = {}
    badges: list[tuple[Point, RGB, int]] = []
    for number, m in enumerate(moves, 1):
        key = (min(m.src, m.dst), max(m.src, m.dst))
        k = seen.get(key, 0)
        seen[key] = k + 1
        a = _token_centre(key[0], str(board.get(key[0], {}).get("resource")))
        b = _token_centre(key[1], str(board.get(key[1], {}).get("resource")))
        if a is None or b is None:
            continue
        dx, dy = b[0] - a[0], b[1] - a[1]
        d = max(1.0, (dx * dx + dy * dy) ** 0.5)
        ux, uy = dx / d, dy / d
        shift = (k - (pairs[key] - 1) / 2) * ARROW_SPACING  # across the shared line
        ox, oy = -uy * shift, ux * shift
        if m.src != key[0]:
            a, b = b, a
            ux, uy = -ux, -uy
        a = (a[0] + ox, a[1] + oy)
        b = (b[0] + ox, b[1] + oy)
        start_gap = TOKEN_R - 8 if _int(board.get(m.src, {}).get("soldiers")) else 10
        end_gap = TOKEN_R + 3 if _int(board.get(m.dst, {}).get("soldiers")) else 16
        if d <= start_gap + end_gap + 12:
            continue
        start = (a[0] + ux * start_gap, a[1] + uy * start_gap)
        end = (b[0] - ux * end_gap, b[1] - uy * end_gap)
        colour = players.colour(m.player)
        width = 6.5 if pairs[key] > 1 else 7.5
        _arrow(c, start, end, lighten(colour, 0.12), width)
        head = min(20.0, (d - start_gap - end_gap) * 0.6)
        shaft = d - start_gap - end_gap - head
        along = 0.45 if pairs[key] == 1 else 0.2 + 0.6 * k / (pairs[key] - 1)
        badges.append(((start[0] + ux * shaft * along, start[1] + uy * shaft * along), colour,
                       number))
    return badges


def _order_badge(c: Canvas, centre: Point, colour: RGB, number: int) -> None:
    """A small numbered disc on an arrow: the order of the turn's moves."""
    label = str(number) if number < 100 else "…"
    r = 10.5 if number < 10 else 12.5
    c.circle((centre[0] + 0.8, centre[1] + 1.2), r + 1, fill=(0, 0, 0, 120))
    c.circle(centre, r, fill=(24, 25, 30), outline=lighten(colour, 0.15), width=2.2)
    c.text((centre[0], centre[1] + 0.5), label, 13, fill=(250, 248, 240), bold=True,
           anchor="mm")


def _recruit_tag(c: Canvas, box: tuple[float, float, float, float], count: int,
                 colour: RGB) -> None:
    """"+N" on a base's top-left corner: soldiers recruited this turn."""
    x0, y0 = box[0], box[1]
    label = f"+{count}"
    w = c.text_width(label, 16, bold=True) + 14
    c.rect((x0 + 3, y0 + 4, x0 + 3 + w, y0 + 28), fill=(20, 21, 26, 235),
           outline=lighten(colour, 0.2), width=2, radius=12)
    c.text((x0 + 3 + w / 2, y0 + 16.5), label, 16, fill=(250, 248, 240), bold=True,
           anchor="mm")


def _fort_change(c: Canvas, box: tuple[float, float, float, float], built: bool,
                 colour: RGB) -> None:
    """A dashed frame: gold round a fort built this turn, grey with a struck-out tower
    where one was razed or captured."""
    x0, y0, x1, y1 = box
    frame = (x0 - 1, y0 - 1, x1 + 1, y1 + 1)
    dashed_rect(c, frame, (12, 12, 16, 200), 5, dash=11, gap=7)
    dashed_rect(c, frame, ACCENT if built else (206, 206, 212), 3, dash=11, gap=7)
    if not built:
        centre = (x1 - 16, y0 + 17)
        c.circle(centre, 13, fill=(20, 21, 26, 235), outline=(150, 150, 156), width=2)
        tower_icon(c, (centre[0], centre[1] + 1), 7, darken(colour, 0.2))
        c.line([(centre[0] - 9, centre[1] + 9), (centre[0] + 9, centre[1] - 9)], fill=DANGER,
               width=3, round_caps=True)


def _last_move_marks(c: Canvas, view: Mapping[str, Any], board: Mapping[str, Mapping[str, Any]],
                     battles: set[str]) -> None:
    """Without events: the view's last move, as a gold arrow and frames."""
    last = view.get("last_move")
    last = last if isinstance(last, Mapping) else {}
    src, dst = _sq(last.get("from")), _sq(last.get("to"))
    src_box = _tile_box(src) if src is not None else None
    dst_box = _tile_box(dst) if dst is not None else None
    if src_box is not None and src != dst:
        sx0, sy0, sx1, sy1 = src_box
        c.rect((sx0 + 1, sy0 + 1, sx1 - 1, sy1 - 1), outline=with_alpha(ACCENT, 150), width=2,
               radius=9)
    if dst_box is not None and dst not in battles:
        c.rect((dst_box[0] - 2, dst_box[1] - 2, dst_box[2] + 2, dst_box[3] + 2),
               outline=ACCENT, width=4, radius=11)
    if src is not None and dst is not None and src != dst:
        a = _token_centre(src, str(board.get(src, {}).get("resource")))
        b = _token_centre(dst, str(board.get(dst, {}).get("resource")))
        if a is not None and b is not None:
            dx, dy = b[0] - a[0], b[1] - a[1]
            d = max(1.0, (dx * dx + dy * dy) ** 0.5)
            start_gap = TOKEN_R - 6 if _int(board.get(src, {}).get("soldiers")) else 0
            end_gap = TOKEN_R + 3 if _int(board.get(dst, {}).get("soldiers")) else 12
            if d > start_gap + end_gap + 12:
                start = (a[0] + dx / d * start_gap, a[1] + dy / d * start_gap)
                end = (b[0] - dx / d * end_gap, b[1] - dy / d * end_gap)
                _arrow(c, start, end, ACCENT)


# --- the panel -----------------------------------------------------------------------

#: Essential text (the status line, the round, the players' numbers) is at least this tall:
#: 8 px on a phone that shows the image 390 px wide.
ESSENTIAL = float(math.ceil(min_essential_size(WIDTH)))
STAT_SIZE = max(ESSENTIAL, 21.0)
BOX_FILL: RGB = (32, 35, 42)
BOX_LINE: RGB = (58, 62, 72)


def _badge(c: Canvas, right: float, top: float, label: str, fill: Colour) -> float:
    """A small pill ending at ``right``; returns its left edge."""
    size = 12
    w = c.text_width(label, size, bold=True) + 14
    c.rect((right - w, top, right, top + 21), fill=fill, radius=10.5)
    c.text((right - w / 2, top + 11), label, size, fill=text_on(fill[:3]), bold=True,
           anchor="mm")
    return right - w


def _stat(c: Canvas, x: float, y: float, value: Any, icon: str, colour: RGB) -> None:
    """One panel statistic: a small icon and a number, vertically centred on ``y``."""
    if icon == "ap":
        c.text((x, y), "AP", 13, fill=MUTED, bold=True, anchor="lm")
        vx = x + 24
    elif icon == "gold":
        coin_icon(c, (x + 9, y), 9)
        vx = x + 23
    elif icon == "lumber":
        logs_icon(c, (x + 10, y), 10.5)
        vx = x + 24
    elif icon == "soldiers":
        c.circle((x + 9, y), 8.5, fill=colour, outline=(240, 238, 230), width=1.5)
        vx = x + 23
    else:  # forts
        tower_icon(c, (x + 9, y + 1), 8.5, colour)
        vx = x + 23
    c.text((vx, y), str(_int(value)), STAT_SIZE, fill=TEXT, bold=True, anchor="lm",
           role="score")


def _player_card(c: Canvas, top: float, height: float, p: Mapping[str, Any], name: str,
                 colour: RGB, to_move: bool, winner: bool) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    out = bool(p.get("out"))
    card = PANEL_HIGHLIGHT if to_move else PANEL
    c.rect((x0, top, x1, top + height), fill=colour if not out else darken(colour, 0.45),
           radius=10)
    c.rect((x0 + 7, top, x1, top + height), fill=card, radius=10)
    c.rect((x0 + 7, top, x0 + 20, top + height), fill=card)
    if to_move:
        c.rect((x0, top, x1, top + height), outline=colour, width=2, radius=10)
    # name row with a status badge on the right
    right: float = x1 - 10
    if out:
        right = _badge(c, right, top + 11, "OUT", (104, 106, 116)) - 8
    elif winner:
        right = _badge(c, right, top + 11, "WINNER", ACCENT) - 8
    elif to_move:
        right = _badge(c, right, top + 11, "TO PLAY", colour) - 8
    nx = x0 + 22
    c.text((nx, top + 21), c.fit(name, 21, right - nx, bold=True), 21,
           fill=TEXT if not out else MUTED, bold=True, anchor="lm")
    # stats: AP, gold, lumber / soldiers, forts, base health
    cols = (x0 + 22, x0 + 108, x0 + 190)
    row1, row2 = top + 55, top + height - 20
    _stat(c, cols[0], row1, p.get("ap"), "ap", colour)
    _stat(c, cols[1], row1, p.get("gold"), "gold", colour)
    _stat(c, cols[2], row1, p.get("lumber"), "lumber", colour)
    _stat(c, cols[0], row2, p.get("soldiers"), "soldiers", colour)
    _stat(c, cols[1], row2, p.get("forts"), "forts", colour)
    health = max(0, min(BASE_HEALTH, _int(p.get("base_health"))))
    _keep(c, (cols[2], row2 - 8, cols[2] + 18, row2 + 8), colour if not out else NEUTRAL,
          ruined=out or health == 0)
    pips(c, cols[2] + 25, row2 - 5, health, BASE_HEALTH, 10, (236, 84, 84), (64, 66, 76),
         gap=2.5)
    if out:
        c.rect((x0, top, x1, top + height), fill=with_alpha(BACKGROUND, 120), radius=10)


def _panel(c: Canvas, view: Mapping[str, Any], players: _Players, turn_events: _Turn) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    outcome = view.get("outcome") if isinstance(view.get("outcome"), Mapping) else None
    rnd = _int(view.get("round"), 0)
    round_w = 0.0
    if rnd:
        label = f"Round {min(rnd, 9999)}"
        round_w = c.text_width(label, ESSENTIAL, bold=True)
        c.text((x1, 46), label, ESSENTIAL, fill=MUTED, bold=True, anchor="rs", role="turn")
    title = 24.0
    while title > 16 and c.text_width("CONQUEROR", title, bold=True) > x1 - x0 - round_w - 12:
        title -= 1
    c.text((x0, 46), "CONQUEROR", title, fill=TEXT, bold=True, anchor="ls")

    # status line
    top = 60
    c.rect((x0, top, x1, top + 42), fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    turn = view.get("turn")
    mid = top + 21
    if outcome is not None:
        c.text((x0 + 14, mid), "Game over", ESSENTIAL, fill=ACCENT, bold=True, anchor="lm",
               role="turn")
    elif isinstance(turn, str):
        colour = players.colour(turn)
        c.circle((x0 + 22, mid), 9.5, fill=colour, outline=(240, 238, 230), width=1.5)
        suffix = " to play"
        room = x1 - 12 - (x0 + 40) - c.text_width(suffix, ESSENTIAL, bold=True)
        who = c.fit(players.name(turn), ESSENTIAL, room, bold=True)
        c.text((x0 + 40, mid), who + suffix, ESSENTIAL, fill=TEXT, bold=True, anchor="lm",
               role="turn")
    else:
        c.text((x0 + 14, mid), "Waiting", ESSENTIAL, fill=MUTED, bold=True, anchor="lm",
               role="turn")

    # player cards
    winners = set(outcome.get("winners") or []) if outcome else set()
    y: float = top + 54
    card_h, gap = 100, 8
    for p in players.players[:5]:
        pid = p.get("id")
        seat = _int(p.get("seat"), players.players.index(p) + 1)
        _player_card(c, y, card_h, p, players.name(pid), seat_colour(seat),
                     to_move=outcome is None and pid == turn, winner=pid in winners)
        y += card_h + gap
    y += 2

    # this turn (or the last move, or how the game ended); then a key if there is room
    limit = HEIGHT - 18
    y = _summary(c, view, players, outcome, turn_events, y, limit)
    if limit - y >= LEGEND_HEIGHT + 12:
        _legend(c, limit - LEGEND_HEIGHT)


def _box(c: Canvas, top: float, bottom: float, title: str, outline: Colour) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    c.rect((x0, top, x1, bottom), fill=BOX_FILL, outline=outline, width=1.5, radius=10)
    c.text((x0 + 14, top + 18), title, 13, fill=MUTED, bold=True, anchor="lm")


def _who(c: Canvas, x: float, y: float, pids: list[str], players: _Players, max_x: float,
         size: float = 18) -> None:
    """Coloured dots and names of the players who acted, on one line centred on ``y``."""
    for i, pid in enumerate(pids[:4]):
        if max_x - x < 40:
            break
        c.circle((x + 7, y), 7, fill=players.colour(pid), outline=(240, 238, 230), width=1.2)
        x += 19
        rest = len(pids[:4]) - i - 1
        room = (max_x - x) / (rest + 1) - (14 if rest else 0)
        name = c.fit(players.name(pid), size, max(20.0, room), bold=True)
        c.text((x, y), name, size, fill=TEXT, bold=True, anchor="lm")
        x += c.text_width(name, size, bold=True) + 14


def _summary(c: Canvas, view: Mapping[str, Any], players: _Players,
             outcome: Mapping[str, Any] | None, turn: _Turn, y: float,
             limit: float) -> float:
    """This turn (or the last move, or the outcome) in a box from ``y``; returns its
    bottom edge."""
    x0, x1 = PANEL_X0, PANEL_X1
    tx, tw = x0 + 14, x1 - x0 - 28
    if outcome is not None:
        won = [players.name(w) for w in outcome.get("winners") or []]
        label = "Winner: " if len(won) == 1 else "Winners: " if won else "No winner"
        reason = clean_text(outcome.get("reason"), limit=200)
        lines = c.wrap(reason, 15, tw, max(0, min(3, int((limit - y - 82) // 20))))
        bottom = y + 72 + 20 * len(lines) + (8 if lines else 0)
        if bottom > limit:
            return y
        _box(c, y, bottom, "GAME OVER", ACCENT)
        c.text((tx, y + 46), c.fit(label + ", ".join(won), ESSENTIAL, tw, bold=True),
               ESSENTIAL, fill=ACCENT, bold=True, anchor="lm", role="turn")
        for i, line in enumerate(lines):
            c.text((tx, y + 74 + i * 20), line, 15, fill=MUTED, anchor="lm")
        return bottom
    if turn:
        body = _turn_lines(c, turn, players, 16, tw)
        step = 23
        body = body[:max(0, int((limit - y - 56) // step))]
        bottom = y + 42 + step * len(body) + 14
        if bottom > limit:
            return y
        _box(c, y, bottom, "THIS TURN", BOX_LINE)
        if turn.actors:
            _who(c, tx, y + 41, turn.actors, players, x1 - 12)
        else:
            c.text((tx, y + 41), "—", 18, fill=FAINT, anchor="lm")
        for i, (line, colour) in enumerate(body):
            strong = colour == TEXT
            c.text((tx, y + 65 + i * step), c.fit(line, 16, tw, bold=strong), 16, fill=colour,
                   bold=strong, anchor="lm")
        return bottom
    bottom = y + 96
    if bottom > limit:
        return y
    _box(c, y, bottom, "LAST MOVE", BOX_LINE)
    last = view.get("last_move")
    if not isinstance(last, Mapping):
        c.text((tx, y + 46), "None yet", 17, fill=FAINT, anchor="lm")
        return bottom
    mover = last.get("player")
    _who(c, tx, y + 45, [mover] if isinstance(mover, str) else [], players, x1 - 12, 17)
    action = clean_text(last.get("action"), limit=60)
    c.text((tx, y + 72), c.fit(action, 19, tw), 19, fill=ACCENT, anchor="lm")
    return bottom


LEGEND_HEIGHT = 146


def _legend(c: Canvas, y: float) -> None:
    """A key to the board's symbols, for panels with room to spare."""
    x0 = PANEL_X0
    c.text((x0 + 2, y + 8), "KEY", 13, fill=FAINT, bold=True, anchor="lm")
    cols = (x0 + 4, x0 + 146)
    rows = (y + 36, y + 66, y + 96, y + 126)
    s = 11  # half an icon

    def swatch(x: float, yy: float, resource: str) -> None:
        fill = TILE_COLOURS[resource]
        c.rect((x, yy - s, x + 2 * s, yy + s), fill=fill, outline=lighten(fill, 0.25),
               width=1, radius=4)
        if resource == "hidden":
            c.text((x + s, yy + 1), "?", 14, fill=lighten(fill, 0.35), bold=True, anchor="mm")

    swatch(cols[0], rows[0], "hidden")
    swatch(cols[1], rows[0], "blank")
    coin_icon(c, (cols[0] + s, rows[1]), 9)
    logs_icon(c, (cols[1] + s + 1, rows[1]), 11)
    c.rect((cols[0], rows[2] - s, cols[0] + 2 * s, rows[2] + s), outline=NEUTRAL, width=3,
           radius=4)
    tower_icon(c, (cols[0] + s, rows[2] + 1), 6, NEUTRAL)
    _swords(c, (cols[1] + s, rows[2]), 11)
    _arrow(c, (cols[0], rows[3]), (cols[0] + 2 * s + 3, rows[3]),
           lighten(SEAT_COLOURS[1], 0.12), 4.5)
    c.rect((cols[1] - 3, rows[3] - s, cols[1] + 2 * s + 3, rows[3] + s), fill=(20, 21, 26),
           outline=MUTED, width=1.5, radius=s)
    c.text((cols[1] + s, rows[3] + 0.5), "+2", 12, fill=TEXT, bold=True, anchor="mm")
    labels = (("Unexplored", "Empty land"), ("Gold", "Lumber"), ("Fort", "Battle"),
              ("Move", "Recruited"))
    for row, pair in zip(rows, labels, strict=True):
        for col, label in zip(cols, pair, strict=True):
            c.text((col + 2 * s + 10, row), label, 16, fill=MUTED, anchor="lm")


# --- the whole image -----------------------------------------------------------------


def _board(view: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The view's squares by lower-case name (odd entries dropped)."""
    raw = view.get("board")
    board: dict[str, Mapping[str, Any]] = {}
    for k, v in raw.items() if isinstance(raw, Mapping) else ():
        name = _sq(k)
        if name is not None and isinstance(v, Mapping):
            board.setdefault(name, v)
    return board


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of a Conqueror view marking what ``events`` did (see the module's
    docstring). ``view``, ``events`` and ``names`` are never modified."""
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, base=_backdrop())
    players = _Players(view, names)
    board = _board(view)
    turn = _read_events(events)

    # every square's ground, whatever is on it
    for f in FILES:
        for r in RANKS:
            name = f + r
            box = _tile_box(name)
            assert box is not None
            sq = board.get(name, {})
            resource = sq.get("resource", "hidden")
            c.paste(_tile(resource if resource in TILE_COLOURS else "blank"), box[:2])

    # features: keeps, resource icons, forts
    for name, sq in board.items():
        box = _tile_box(name)
        assert box is not None
        x0, y0, x1, y1 = box
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        resource = sq.get("resource")
        occupied = _int(sq.get("soldiers")) > 0
        fort = bool(sq.get("fort"))
        if fort:
            fort_owner = sq.get("fort_owner")
            _palisade(c, box, players.colour(fort_owner) if fort_owner else NEUTRAL)
        corner = (x0 + 19, y0 + 19) if fort else (x0 + 16, y0 + 16)
        if resource == "base":
            owner = sq.get("base_of")
            _keep(c, (cx - 33, y0 + 12, cx + 33, y0 + 60), players.colour(owner))
        elif resource == "ruin":
            _keep(c, (cx - 33, y0 + 14, cx + 33, y0 + 62), (104, 104, 108), ruined=True)
        elif resource == "gold":
            if occupied:
                coin_icon(c, corner, 9)
            else:
                coin_icon(c, (cx - 9, cy + 5), 17)
                coin_icon(c, (cx + 9, cy - 7), 17)
        elif resource == "lumber":
            if occupied:
                logs_icon(c, (corner[0] + 1, corner[1] + 1), 11)
            else:
                logs_icon(c, (cx + 3, cy + 2), 25)

    # what happened: battles (red frames), forts built or razed, the moves' arrows; or,
    # without events, the view's last move (gold)
    battles = list(dict.fromkeys(b.square for b in turn.battles))
    for name in battles:
        bx = _tile_box(name)
        assert bx is not None
        c.rect((bx[0] - 2, bx[1] - 2, bx[2] + 2, bx[3] + 2), outline=DANGER, width=4.5,
               radius=11)
    for name in turn.forts:
        bx = _tile_box(name)
        assert bx is not None
        if name not in battles:
            _fort_change(c, bx, True, NEUTRAL)
    badges: list[tuple[Point, RGB, int]] = []
    if turn:
        badges = _move_arrows(c, turn.moves, board, players)
    else:
        _last_move_marks(c, view, board, set(battles))

    # on top: soldier stacks, base health, fort and battle badges
    for name, sq in board.items():
        box = _tile_box(name)
        assert box is not None
        x0, y0, x1, y1 = box
        resource = sq.get("resource")
        if resource == "base":
            owner = sq.get("base_of")
            p = players.by_id.get(owner) if isinstance(owner, str) else None
            health = max(0, min(BASE_HEALTH, _int(p.get("base_health"), 0))) if p else 0
            pw = BASE_HEALTH * 10 + (BASE_HEALTH - 1) * 3
            px = (x0 + x1) / 2 - pw / 2
            c.rect((px - 5, y1 - 20, px + pw + 5, y1 - 5), fill=(16, 17, 21, 215), radius=7)
            pips(c, px, y1 - 17.5, health, BASE_HEALTH, 10, (240, 86, 86), (70, 72, 82), gap=3)
        soldiers = _int(sq.get("soldiers"))
        if soldiers > 0:
            centre = _token_centre(name, str(resource))
            assert centre is not None
            on_keep = resource in ("base", "ruin")
            radius = TOKEN_R - 7 if on_keep else TOKEN_R
            if on_keep:
                centre = (centre[0], centre[1] - 4)
            token(c, centre, radius, players.colour(sq.get("owner")),
                  str(min(soldiers, 999)), 26 if on_keep else 34)
        if sq.get("fort"):
            fort_owner = sq.get("fort_owner")
            _fort_badge(c, box, players.colour(fort_owner) if fort_owner else NEUTRAL)
    for name in dict.fromkeys(turn.razed):
        bx = _tile_box(name)
        assert bx is not None
        if not board.get(name, {}).get("fort"):
            _fort_change(c, bx, False, NEUTRAL)
    for name, count in turn.recruits.items():
        bx = _tile_box(name)
        assert bx is not None
        sq = board.get(name, {})
        _recruit_tag(c, bx, count, players.colour(sq.get("base_of") or sq.get("owner")))
    for name in battles:
        bx = _tile_box(name)
        assert bx is not None
        if board.get(name, {}).get("resource") in ("base", "ruin"):  # clear of the pips
            _swords(c, (bx[2] - 14, bx[1] + 14), 17)
        else:
            _swords(c, (bx[2] - 14, bx[3] - 14), 17)
    if len(badges) > 1:
        for centre, colour, number in badges:
            _order_badge(c, centre, colour, number)

    _panel(c, view, players, turn)
    return c.png(load_palette(KIND))
