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


from collections.abc import Mapping
from typing import Any

from render.common import (
    BACKGROUND,
    DANGER,
    NEUTRAL,
    RGB,
    Canvas,
    Players,
    Point,
    as_int,
    coin_icon,
    load_palette,
    logs_icon,
    pips,
    token,
)
from render.conqueror.board import (
    _backdrop,
    _fort_badge,
    _fort_change,
    _keep,
    _last_move_marks,
    _move_arrows,
    _order_badge,
    _palisade,
    _recruit_tag,
    _swords,
    _tile,
    place_badges,
    recruit_tag_box,
)
from render.conqueror.events import _read_events, _Turn
from render.conqueror.layout import (
    BASE_HEALTH,
    BOARD_SIZE,
    BOARD_X,
    BOARD_Y,
    FILES,
    HEIGHT,
    KIND,
    PANEL_X0,
    PANEL_X1,
    RANKS,
    TILE_COLOURS,
    TOKEN_R,
    WIDTH,
    _board,
    _tile_box,
    _token_centre,
)
from render.conqueror.panel import _panel

__all__ = ["HEIGHT", "PANEL_X0", "PANEL_X1", "WIDTH", "render"]


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of a Conqueror view marking what ``events`` did (see the module's
    docstring). ``view``, ``events`` and ``names`` are never modified."""
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, base=_backdrop())
    players = Players(view, names)
    board = _board(view)
    turn = _read_events(events)

    # the ground and what is built on it change seldom: drawn once per look, then pasted
    ground = []
    for name, sq in board.items():
        resource = sq.get("resource")
        fort_owner = sq.get("fort_owner") if sq.get("fort") else None
        ground.append((name, resource if isinstance(resource, str) else repr(resource),
                       resource in ("gold", "lumber") and as_int(sq.get("soldiers")) > 0,
                       bool(sq.get("fort")),
                       players.colour(fort_owner) if fort_owner else None,
                       players.colour(sq.get("base_of")) if resource == "base" else None))
    c.reuse(("conqueror ground", tuple(ground)),
            (BOARD_X - 6, BOARD_Y - 6, BOARD_X + BOARD_SIZE + 6, BOARD_Y + BOARD_SIZE + 6),
            lambda: _ground(c, board, players))
    _marks(c, view, board, players, turn)
    _panel(c, view, players, turn)
    return c.png(load_palette(KIND))


def _ground(c: Canvas, board: Mapping[str, Mapping[str, Any]], players: Players) -> None:
    """Every square's ground, and its keep, resource icons and fort."""
    for f in FILES:
        for r in RANKS:
            name = f + r
            box = _tile_box(name)
            assert box is not None
            sq = board.get(name, {})
            resource = sq.get("resource", "hidden") if isinstance(sq, dict) else None
            known = isinstance(resource, str) and resource in TILE_COLOURS
            c.paste(_tile(resource if known else "blank"), box[:2])

    # features: keeps, resource icons, forts
    for name, sq in board.items():
        box = _tile_box(name)
        assert box is not None
        x0, y0, x1, y1 = box
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        resource = sq.get("resource")
        occupied = as_int(sq.get("soldiers")) > 0
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



def _marks(c: Canvas, view: Mapping[str, Any], board: Mapping[str, Mapping[str, Any]],
           players: Players, turn: _Turn) -> None:
    """What happened and what stands on the ground: battles, forts built or razed, moves,
    soldiers, base health, badges."""
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
    badges: list[tuple[list[Point], RGB, int]] = []
    if turn:
        badges = _move_arrows(c, turn.moves, board, players)
    else:
        _last_move_marks(c, view, board, set(battles))

    # on top: soldier stacks, base health, fort and battle badges
    stacks: list[tuple[float, float, float, float]] = []
    for name, sq in board.items():
        box = _tile_box(name)
        assert box is not None
        x0, _, x1, y1 = box
        resource = sq.get("resource")
        if resource == "base":
            owner = sq.get("base_of")
            p = players.get(owner)
            health = max(0, min(BASE_HEALTH, as_int(p.get("base_health"), 0))) if p else 0
            pw = BASE_HEALTH * 10 + (BASE_HEALTH - 1) * 3
            px = (x0 + x1) / 2 - pw / 2
            c.rect((px - 5, y1 - 20, px + pw + 5, y1 - 5), fill=(16, 17, 21, 215), radius=7)
            pips(c, px, y1 - 17.5, health, BASE_HEALTH, 10, (240, 86, 86), (70, 72, 82), gap=3)
        soldiers = as_int(sq.get("soldiers"))
        if soldiers > 0:
            centre = _token_centre(name, str(resource))
            assert centre is not None
            on_keep = resource in ("base", "ruin")
            radius = TOKEN_R - 7 if on_keep else TOKEN_R
            if on_keep:
                centre = (centre[0], centre[1] - 4)
            token(c, centre, radius, players.colour(sq.get("owner")),
                  str(min(soldiers, 999)), 26 if on_keep else 34)
            inner = radius * 0.6  # its number: a badge may sit on its rim, not on that
            stacks.append((centre[0] - inner, centre[1] - inner, centre[0] + inner,
                           centre[1] + inner))
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
        tags = [recruit_tag_box(c, box, count) for name, count in turn.recruits.items()
                if (box := _tile_box(name)) is not None]
        for centre, colour, number in place_badges(badges, tags + stacks):
            _order_badge(c, centre, colour, number)
