"""The Liège board: a 10x10 (or 8x8) grid, a1 bottom-left, and a player panel.

Drawn from the public view dict only (``docs/games/liege-interface.md``): each player's
home edge tinted in their colour with their two highlighted squares bracketed; pieces as
counters in the owner's colour with a drawn icon (Rifle, Machine Gun, Mortar, Armored
Vehicle), Trenches as neutral earthworks, Generals as gold-starred discs (inside a Trench
or riding an Armored Vehicle when they are); facing arrows on Machine Guns and Mortars,
damage bursts, and small marks on pieces that fought or are new this turn. A selected
piece's range is washed blue.

On top, what ``events`` did (every public event since the last image, e.g. a whole
turn): a gold trail and arrow for every General move and piece shift, both sides of every
fight (attackers solid red, defenders dashed white, an arrow from -> to), every blast area
hatched by kind with the shot from the firer, every purchase framed in dashed gold, a red
cross where a piece was destroyed and a dashed arrow where a General fell back; the panel
tells the turn in a "THIS TURN" box. Without usable events the view's last fight, blast
and move are drawn instead.

The panel shows the round, phase, who must act, every player's credits, lives, limits
left and Missile / Mustard Gas prices and the damage-token pool; the shop's prices run
under the board with a key to the marks. Text a player needs to decide (the status line,
credits, limits left, damage tokens left) is marked with its role and drawn at least
:func:`render.common.min_essential_size` tall, so it stays readable on a phone.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from render.common import (
    BACKGROUND,
    NEUTRAL,
    Canvas,
    Players,
    burst,
    load_palette,
    mapping,
    with_alpha,
)
from render.liege.events import _marks_from_events, _marks_from_view
from render.liege.layout import (
    CARDS_TOP,
    FACINGS,
    HEIGHT,
    KIND,
    PANEL_X0,
    PANEL_X1,
    PIECE_TYPES,
    RANGE,
    WIDTH,
    _Board,
    _counter_box,
    _square,
    _squares,
)
from render.liege.marks import _draw_over, _draw_under, _sparkle, _swords
from render.liege.panel import _panel, _shop
from render.liege.sprites import _backdrop, _general_sprite, _piece_sprite

__all__ = ["CARDS_TOP", "HEIGHT", "PANEL_X0", "PANEL_X1", "WIDTH", "render"]


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of a Liège view marking what ``events`` did (see the module's docstring).
    ``view``, ``events`` and ``names`` are never modified."""
    board = _Board(view.get("size"))
    cell = board.cell
    icell = round(cell)
    players = Players(view, names)
    marks = _marks_from_events(events, board, players)
    if not marks:
        marks = _marks_from_view(view, board)

    homes = []
    for p in players.players[:6]:
        side = p.get("side")
        if side in ("south", "north", "west", "east"):
            homes.append((side, players.colour(p.get("id")),
                          tuple(_squares(board, p.get("highlights"), 4))))
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, base=_backdrop(board.n, tuple(homes)))

    # what is on the board
    pieces: dict[str, Mapping[str, Any]] = {}
    raw = view.get("pieces")
    for piece in raw[: board.n * board.n * 2] if isinstance(raw, list) else []:
        if isinstance(piece, Mapping):
            sq = _square(board, piece.get("square"))
            if sq is not None:
                pieces[sq] = piece
    generals: dict[str, Any] = {}  # square -> player id, for every General on the board
    for p in players.players:
        sq = _square(board, p.get("general"))
        if sq is not None and not p.get("out"):
            generals.setdefault(sq, p.get("id"))
    for sq, piece in pieces.items():
        inside = piece.get("general_inside")
        if isinstance(inside, str) and piece.get("type") in ("av", "trench"):
            generals[sq] = inside

    # under the pieces: a selected piece's range, blasts, the trails of moves
    selected = mapping(view.get("selected"))
    sel_sq = _square(board, selected.get("square")) if selected else None
    in_range = _squares(board, selected.get("range")) if selected else []
    for sq in in_range:
        b = board.box(sq)
        assert b is not None
        c.rect(b, fill=with_alpha(RANGE, 72))
        c.rect((b[0] + 1.5, b[1] + 1.5, b[2] - 1.5, b[3] - 1.5), outline=with_alpha(RANGE, 170),
               width=2)
    _draw_under(c, marks, board)

    # the pieces
    for sq, piece in pieces.items():
        b = board.box(sq)
        assert b is not None
        kind = piece.get("type")
        kind = kind if kind in PIECE_TYPES else "unknown"
        owner = piece.get("owner")
        colour = players.colour(owner) if kind != "trench" else NEUTRAL
        facing = piece.get("facing")
        facing = facing if facing in FACINGS and kind in ("mg", "mortar") else None
        inside = generals.get(sq) if kind in ("av", "trench") else None
        g_colour = players.colour(inside) if inside is not None else None
        sprite = _piece_sprite(kind, colour, icell, facing, g_colour)
        # blended over its square once, then pasted back whole while nothing changed under
        # it (most pieces stay where they were from one board to the next)
        x, y = round(b[0]), round(b[1])
        c.reuse(("liege piece", kind, colour, icell, facing, g_colour),
                (x, y, x + sprite.width, y + sprite.height),
                partial(c.paste, sprite, (x, y)))
    for sq, pid in generals.items():
        if sq in pieces and pieces[sq].get("type") in ("av", "trench"):
            continue
        b = board.box(sq)
        assert b is not None
        c.paste(_general_sprite(players.colour(pid), icell), b[:2])

    # small marks on pieces: fought (dimmed, swords), new (sparkle), damaged (burst)
    for sq, piece in pieces.items():
        b = board.box(sq)
        assert b is not None
        m = _counter_box(cell)[0]
        bx0, by0, bx1, by1 = b[0] + m, b[1] + m, b[2] - m, b[3] - m
        if piece.get("fought") and piece.get("type") != "trench":
            c.rect((bx0, by0, bx1, by1), fill=(16, 16, 20, 70), radius=cell * 0.13)
            _swords(c, (bx1 - cell * 0.04, by1 - cell * 0.04), cell * 0.13, (40, 42, 48, 235),
                    (222, 222, 228))
        if piece.get("new"):
            _sparkle(c, (bx0 + cell * 0.05, by0 + cell * 0.05), cell * 0.12)
        if piece.get("damaged"):
            burst(c, (bx0 + cell * 0.07, by1 - cell * 0.07), cell * 0.19)

    # on top: the selected piece, then what happened
    if sel_sq is not None:
        b = board.box(sel_sq)
        assert b is not None
        c.rect((b[0] - 1, b[1] - 1, b[2] + 1, b[3] + 1), outline=(10, 10, 14, 200), width=5)
        c.rect((b[0], b[1], b[2], b[3]), outline=RANGE, width=3)
    occupied = set(pieces) | set(generals)
    new = {sq for sq, piece in pieces.items() if piece.get("new")}
    _draw_over(c, marks, board, occupied, new)

    _shop(c, view, players)
    _panel(c, view, players, board, marks)
    return c.png(load_palette(KIND))
