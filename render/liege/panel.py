"""The Liège panel: the round and phase, who must act, a card per player (credits, lives,
limits left, Missile and Mustard Gas prices), what happened this turn and the damage
tokens; and the shop's prices in a strip under the board."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.common import (
    ACCENT,
    BACKGROUND,
    BOX_FILL,
    BOX_LINE,
    DANGER,
    FAINT,
    MUTED,
    NEUTRAL,
    PANEL,
    PANEL_HIGHLIGHT,
    RGB,
    TEXT,
    Canvas,
    Colour,
    Players,
    Point,
    as_int,
    burst,
    clean_text,
    coin_icon,
    content_key,
    darken,
    drawable_text,
    essential_size,
    first_to_act,
    heart,
    is_over,
    mapping,
    optional_mapping,
    pill,
    seat_card,
    seat_colour,
    who_line,
    winner_ids,
    with_alpha,
)
from render.liege.events import LINE_FIGHT, _Marks, _unit_squares
from render.liege.icons import COUNTER_ICONS, WEAPON_ICONS, general_icon, trench_icon
from render.liege.layout import (
    BASE_PRICES,
    BLAST_COLOURS,
    BOARD_PX,
    BOARD_X,
    CARDS_TOP,
    DAMAGE_TOKENS,
    FRAME_PAD,
    HEIGHT,
    ICON,
    NAMES,
    PANEL_X0,
    PANEL_X1,
    PHASES,
    POOL_HEIGHT,
    SHOP_HEIGHT,
    SHOP_Y,
    SHORT,
    START_LIVES,
    STATUS_HEIGHT,
    STATUS_TOP,
    WIDTH,
    _Board,
    _square,
)

#: Essential text (the status line, credits, limits left, damage tokens) is at least this
#: tall: 8 px on a phone that shows the image 390 px wide.
ESSENTIAL = essential_size(WIDTH)


def _status_line(view: Mapping[str, Any], players: Players) -> tuple[str, str, Any]:
    """Who must act now and what they do (name, the rest), and that player's id."""
    phase = view.get("phase")
    turn = view.get("turn")
    actor = first_to_act(view, turn)
    if actor is None:
        return "", "Waiting", None
    rest = {
        "setup": "places the General",
        "general": "moves the General",
        "deploy": "deploys",
        "move": "moves resources",
        "fight": "attacks or ends",
        "casualty": "chooses a casualty",
    }.get(phase if isinstance(phase, str) else "", "to play")
    return players.name(actor), rest, actor


def _player_card(c: Canvas, top: float, height: float, p: Mapping[str, Any], name: str,
                 colour: RGB, turn: bool, acting: bool, winner: bool) -> None:
    """A player's card (drawn once per look, then pasted: see :meth:`Canvas.reuse`)."""
    c.reuse(("liege card", top, height, content_key(p), name, colour, turn, acting, winner),
            (PANEL_X0 - 1, top - 1, PANEL_X1 + 1, top + height + 1),
            lambda: _draw_player_card(c, top, height, p, name, colour, turn, acting, winner))


def _draw_player_card(c: Canvas, top: float, height: float, p: Mapping[str, Any], name: str,
                      colour: RGB, turn: bool, acting: bool, winner: bool) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    out = bool(p.get("out"))
    card = PANEL_HIGHLIGHT if turn or acting else PANEL
    seat_card(c, (x0, top, x1, top + height), colour if not out else darken(colour, 0.45), card,
              edge=7, corner=20)
    if acting or turn:
        c.rect((x0, top, x1, top + height), outline=colour, width=2 if acting else 1.5,
               radius=10)
    # name row: status and side on the right
    right: float = x1 - 10
    if out:
        right = pill(c, right, top + 9, "OUT", (104, 106, 116)) - 6
    elif winner:
        right = pill(c, right, top + 9, "WINNER", ACCENT) - 6
    elif acting:
        right = pill(c, right, top + 9, "ACTS NOW" if not turn else "TO PLAY", colour) - 6
    elif turn:
        right = pill(c, right, top + 9, "TURN", darken(colour, 0.35), text=TEXT) - 6
    side = clean_text(p.get("side"), limit=8).upper()
    if side:
        right = pill(c, right, top + 9, side, (60, 64, 76), size=11, text=MUTED) - 6
    nx = x0 + 20
    c.text((nx, top + 20), c.fit(name, 20, right - nx - 4, bold=True), 20,
           fill=TEXT if not out else MUTED, bold=True, anchor="lm")
    # credits, lives, where the General is
    row = top + 20 + (height - 20) * 0.38
    coin_icon(c, (nx + 10, row), 10)
    credits = str(max(-99999, min(99999, as_int(p.get("credits")))))
    c.text((nx + 25, row), credits, ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role="score")
    lives = max(0, min(START_LIVES, as_int(p.get("lives"))))
    hx = max(nx + 104, nx + 25 + c.text_width(credits, ESSENTIAL, bold=True) + 18)
    for i in range(START_LIVES):
        heart(c, (hx + i * 23, row + 0.5), 9.5,
              (236, 74, 84) if i < lives else (70, 72, 82), outline=(24, 24, 28))
    gx = hx + 3 * 23 + 4
    general = p.get("general")
    where = clean_text(general, limit=3) if isinstance(general, str) else ""
    if where and not out and gx + 60 < x1:
        general_icon(c, (gx + 10, row), 10, colour, shadow=False)
        c.text((gx + 23, row), where, ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role="place")
        vx = gx + 27 + c.text_width(where, ESSENTIAL, bold=True)
        if vx + 20 < x1 - 4:
            if p.get("in_vehicle"):
                _mini_icon(c, "av", (vx + 10, row), 10, colour)
            elif p.get("in_trench"):
                _mini_icon(c, "trench", (vx + 11, row), 11, colour)
    # limits left (and the Missile / Gas prices, raised by lost Mortars): all at the phone
    # size, so the row is laid out tight (a price drops its "c" or the gaps close up on a
    # long price rather than shrink)
    row = top + height - 19
    _limits_row(c, nx, x1 - 10, row, mapping(p.get("left")), mapping(p.get("prices")))
    if out:
        c.rect((x0, top, x1, top + height), fill=with_alpha(BACKGROUND, 120), radius=10)


#: The icon's half-width and the room between an icon and its number on a card's limits row.
LIMIT_ICON, LIMIT_PAD = 9.0, 3.0


def _limits_row(c: Canvas, x: float, right: float, row: float, left: Mapping[str, Any],
                prices: Mapping[str, Any]) -> None:
    """How many Trenches, Grenades, Missiles and Gas attacks a player has left, and what a
    Missile and Gas cost them (a raised price on an orange pill), at the phone size."""
    size = ESSENTIAL
    counts = {kind: max(0, min(99, as_int(left.get(kind), 0)))
              for kind in ("trench", "grenade", "missile", "gas")}
    price = {kind: max(0, min(9999, as_int(prices.get(kind), BASE_PRICES[kind])))
             for kind in ("missile", "gas")}

    def widths(suffix: str) -> dict[str, float]:
        out = {}
        for kind, n in counts.items():
            w = 2 * LIMIT_ICON + LIMIT_PAD + c.text_width(str(n), size, bold=True)
            if kind in price:
                w += 5 + c.text_width(f"{price[kind]}{suffix}", size) \
                    + (8 if price[kind] > BASE_PRICES[kind] else 0)
            out[kind] = w
        return out

    suffix, w = "c", widths("c")
    if sum(w.values()) + 3 * 6 > right - x:
        suffix, w = "", widths("")
    gap = max(2.0, min(12.0, (right - x - sum(w.values())) / 3))
    for kind, n in counts.items():
        if kind == "trench":
            trench_icon(c, (x - 1, row - 8, x + 2 * LIMIT_ICON + 1, row + 8))
        else:
            WEAPON_ICONS[kind](c, (x + LIMIT_ICON, row), LIMIT_ICON)
        tx = x + 2 * LIMIT_ICON + LIMIT_PAD
        c.text((tx, row), str(n), size, fill=TEXT if n else FAINT, bold=True, anchor="lm",
               role="count")
        if kind in price:
            label = f"{price[kind]}{suffix}"
            px = tx + c.text_width(str(n), size, bold=True) + 5
            if price[kind] > BASE_PRICES[kind]:  # raised by lost Mortars
                pw = c.text_width(label, size) + 8
                c.rect((px, row - 13, px + pw, row + 13), fill=(120, 44, 30),
                       outline=(255, 140, 90), width=1, radius=6)
                c.text((px + pw / 2, row + 0.5), label, size, fill=(255, 196, 150),
                       anchor="mm", role="score")
            else:
                c.text((px, row), label, size, fill=MUTED, anchor="lm", role="score")
        x += w[kind] + gap


def _phase_track(c: Canvas, x: float, y: float, phase: Any) -> None:
    """General > Deploy > Move > Fight at the phone size: the current one lit and named in
    full, the others by their initials (G D M F), in order."""
    current = "fight" if phase == "casualty" else phase
    size = ESSENTIAL
    for key, label in PHASES:
        lit = key == current
        text = label if lit else label[0]
        w = c.text_width(text, size, bold=True) + (18 if lit else 14)
        c.rect((x, y - 14, x + w, y + 14), fill=ACCENT if lit else (50, 54, 65), radius=14)
        c.text((x + w / 2, y + 0.5), text, size, fill=(30, 30, 34) if lit else MUTED,
               bold=True, anchor="mm", role="turn")
        x += w + 6


def _status(c: Canvas, view: Mapping[str, Any], players: Players,
            outcome: Mapping[str, Any] | None) -> None:
    """The phase and who must act now (or who won), in a box under the title."""
    x0, x1 = PANEL_X0, PANEL_X1
    top = STATUS_TOP
    c.rect((x0, top, x1, top + STATUS_HEIGHT), fill=BOX_FILL, outline=BOX_LINE, width=1,
           radius=10)
    phase = view.get("phase")
    tw = x1 - x0 - 28
    if is_over(view):
        winners = [players.name(w) for w in winner_ids(outcome)][:4]
        label = ("Winner: " if len(winners) == 1 else "Winners: ") + ", ".join(winners) \
            if winners else "No winner"
        c.text((x0 + 14, top + 24), c.fit(label, ESSENTIAL, tw, bold=True), ESSENTIAL,
               fill=ACCENT, bold=True, anchor="lm", role="turn")
        reason = drawable_text((outcome or {}).get("reason"), players.names,
                               limit=200) or "Game over."
        for i, line in enumerate(c.wrap(reason, 15, tw, 3)):
            c.text((x0 + 14, top + 51 + i * 19), line, 15, fill=MUTED, anchor="lm")
        return
    if phase == "setup":
        c.text((x0 + 14, top + 21), "Setup", ESSENTIAL, fill=MUTED, bold=True, anchor="lm",
               role="turn")
    else:
        _phase_track(c, x0 + 12, top + 21, phase)
    who, rest, actor = _status_line(view, players)
    fg = (255, 170, 150) if phase == "casualty" else TEXT
    if actor is not None:
        c.circle((x0 + 23, top + 52), 9.5, fill=players.colour(actor),
                 outline=(240, 238, 230), width=1.5)
        c.text((x0 + 40, top + 52), c.fit(who, ESSENTIAL, x1 - x0 - 54, bold=True), ESSENTIAL,
               fill=fg, bold=True, anchor="lm", role="turn")
    c.text((x0 + 14 if actor is None else x0 + 40, top + 52 if actor is None else top + 80),
           c.fit(rest, ESSENTIAL, x1 - x0 - 54), ESSENTIAL, fill=fg, anchor="lm", role="turn")


def _panel(c: Canvas, view: Mapping[str, Any], players: Players, board: _Board,
           marks: _Marks) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    outcome = optional_mapping(view.get("outcome"))
    rnd = as_int(view.get("round"), 0)
    label = f"Round {min(rnd, 9999)}" if rnd else ""
    room = x1 - x0 - (c.text_width(label, 17, bold=True) + 14 if label else 0)
    title = "BATTLE OF LIÈGE"
    size = 24.0  # shrunk, if it must, to leave the round its room (a long round number)
    while size > 12 and c.text_width(title, size, bold=True) > room:
        size -= 1
    c.text((x0, 44), c.fit(title, size, room, bold=True), size, fill=TEXT, bold=True,
           anchor="ls")
    if label:
        c.text((x1, 44), label, 17, fill=MUTED, bold=True, anchor="rs")
    _status(c, view, players, outcome)

    # player cards
    turn = view.get("turn")
    to_act = view.get("to_act")
    acting = {a for a in to_act if isinstance(a, str)} if isinstance(to_act, list) else set()
    winners_set = set(winner_ids(outcome))
    shown = players.players[:4]
    y: float = CARDS_TOP
    card_h = 104 if len(shown) > 3 else 110
    gap = 8
    over = is_over(view)
    for i, p in enumerate(shown):
        pid = p.get("id") if isinstance(p.get("id"), str) else None
        seat = as_int(p.get("seat"), i + 1)
        _player_card(c, y, card_h, p, players.name(pid), seat_colour(seat),
                     turn=not over and pid == turn, acting=not over and pid in acting,
                     winner=pid in winners_set)
        y += card_h + gap

    # what happened this turn (or the last fight / blast / move), then the damage tokens
    pool_top = HEIGHT - 14 - POOL_HEIGHT
    _pool(c, view, pool_top)
    _happened(c, view, players, board, marks, y, pool_top - 10)


def _pool(c: Canvas, view: Mapping[str, Any], y: float) -> float:
    """The damage tokens left (drawn once per count, then pasted: see Canvas.reuse)."""
    left = max(0, min(DAMAGE_TOKENS, as_int(view.get("damage_tokens_left"), DAMAGE_TOKENS)))
    c.reuse(("liege pool", left), (PANEL_X0 - 1, y - 1, PANEL_X1 + 1, y + POOL_HEIGHT + 1),
            lambda: _draw_pool(c, left, y))
    return y + POOL_HEIGHT


def _draw_pool(c: Canvas, left: int, y: float) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    mid = y + POOL_HEIGHT / 2
    c.rect((x0, y, x1, y + POOL_HEIGHT), fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    c.text((x0 + 14, mid), "DAMAGE", 13, fill=MUTED, bold=True, anchor="lm")
    x = x0 + 90
    for i in range(DAMAGE_TOKENS):
        centre = (x + i * 30 + 12, mid)
        if i < left:
            burst(c, centre, 12.5)
        else:
            burst(c, centre, 12.5, fill=(72, 74, 82), core=(44, 46, 52), outline=(30, 31, 36))
    c.text((x1 - 12, mid), f"{left}/{DAMAGE_TOKENS}", ESSENTIAL, fill=TEXT if left else FAINT,
           bold=True, anchor="rm", role="score")


def _shop(c: Canvas, view: Mapping[str, Any], players: Players) -> None:
    """Prices (the viewer's, else those of the player to move) in a strip under the board."""
    source = players.get(view.get("viewer")) or players.get(view.get("turn"))
    if source is None and players.players:
        source = players.players[0]
    prices = mapping(source.get("prices")) if source is not None else {}
    x0, x1 = BOARD_X - FRAME_PAD, BOARD_X + BOARD_PX + FRAME_PAD
    y0, y1 = SHOP_Y, SHOP_Y + SHOP_HEIGHT
    c.reuse(("liege shop", content_key(prices)), (x0 - 1, y0 - 1, x1 + 1, y1 + 1),
            lambda: _draw_shop(c, prices, x0, y0, x1, y1))


def _draw_shop(c: Canvas, prices: Mapping[str, Any], x0: float, y0: float, x1: float,
               y1: float) -> None:
    c.rect((x0, y0, x1, y1), fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    order = ("rifle", "mg", "mortar", "av", "trench", "grenade", "missile", "gas")
    size, icon = ESSENTIAL, 11.0  # what each piece is called and costs: read on a phone
    items = []
    for kind in order:
        price = max(0, min(9999, as_int(prices.get(kind), BASE_PRICES[kind])))
        label = f"{price}c" + ("↑" if price > BASE_PRICES[kind] else "")
        name_w = c.text_width(SHORT[kind], size)
        items.append((kind, label, price > BASE_PRICES[kind], name_w,
                      2 * icon + 6 + name_w + 6 + c.text_width(label, size, bold=True)))
    rows: list[list[tuple[str, str, bool, float, float]]] = [[]]
    room = x1 - x0 - 20
    for item in items:  # in order, as many to a row as fit (two rows)
        used = sum(i[4] for i in rows[-1]) + 14 * len(rows[-1])
        if rows[-1] and used + item[4] > room and len(rows) < 2:
            rows.append([])
        rows[-1].append(item)
    step = (y1 - y0) / len(rows)
    for r, row in enumerate(rows):
        cy = y0 + step * (r + 0.5)
        gap = max(8.0, (room - sum(i[4] for i in row)) / max(1, len(row) - 1))
        x: float = x0 + 10
        for kind, label, raised, name_w, w in row:
            _mini_icon(c, kind, (x + icon, cy), icon, NEUTRAL)
            tx = x + 2 * icon + 6
            c.text((tx, cy), SHORT[kind], size, fill=MUTED, anchor="lm", role="unit")
            c.text((tx + name_w + 6, cy), label, size, fill=(255, 150, 110) if raised else TEXT,
                   bold=True, anchor="lm", role="unit")
            x += w + gap


def _mini_icon(c: Canvas, kind: str, centre: Point, r: float, colour: RGB) -> None:
    """A piece's or weapon's icon for the panel: counters in ``colour``."""
    x, y = centre
    if kind in COUNTER_ICONS:
        box = (x - r, y - r, x + r, y + r)
        c.rect(box, fill=colour, outline=darken(colour, 0.5), width=1, radius=r * 0.3)
        COUNTER_ICONS[kind](c, (x, y), r * 0.74, ICON, darken(colour, 0.6))
    elif kind == "trench":
        trench_icon(c, (x - r, y - r * 0.8, x + r, y + r * 0.8))
    elif kind == "general":
        general_icon(c, (x, y), r, colour, shadow=False)
    elif kind in WEAPON_ICONS:
        WEAPON_ICONS[kind](c, (x, y), r * 0.95)


def _happened(c: Canvas, view: Mapping[str, Any], players: Players, board: _Board,
              marks: _Marks, y: float, limit: float) -> float:
    """"THIS TURN" from the events (else the view's last fight, blast or move) in a box
    from ``y``; returns its bottom."""
    x0, x1 = PANEL_X0, PANEL_X1
    tx, tw = x0 + 14, x1 - x0 - 28
    size = ESSENTIAL  # what happened, readable on a phone
    step = size + 6
    if marks.from_events:
        title = "THIS TURN"
        lines = list(marks.lines) or ([(0, "Ended the turn", TEXT)] if marks.ended else [])
        room = max(0, int((limit - y - 56) // step))
        if len(lines) > room:  # keep the most important, in the order they happened
            keep = sorted(range(len(lines)), key=lambda i: (lines[i][0], i))[:room]
            lines = [lines[i] for i in sorted(keep)]
        body = [(text, colour) for _, text, colour in lines]
        actors = marks.actors
        outline: Colour = BOX_LINE
    else:
        title, body, outline = _last_action(view, players, board)
        actors = []
        if not body:
            return y
        body = body[:max(0, int((limit - y - 33) // step))]
    head = 41 if actors else 18
    bottom = y + head + step * len(body) + 15
    if not body and not actors:
        bottom = y + 56
    if bottom > limit:
        return y
    c.rect((x0, y, x1, bottom), fill=BOX_FILL, outline=outline, width=1.5, radius=10)
    c.text((tx, y + 17), title, 13, fill=MUTED, bold=True, anchor="lm")
    if actors:
        who_line(c, tx, y + 41, actors, players, x1 - 12)
    elif not body:
        c.text((tx, y + 41), "Nothing yet", 16, fill=FAINT, anchor="lm")
    for i, (text, colour) in enumerate(body):
        c.text((tx, y + head + 26 + i * step), c.fit(text, size, tw), size, fill=colour,
               anchor="lm", role="log")
    return bottom


def _last_action(view: Mapping[str, Any], players: Players,
                 board: _Board) -> tuple[str, list[tuple[str, Colour]], Colour]:
    """Without events: the view's last fight (else blast, else move) in words."""
    fight = optional_mapping(view.get("last_fight"))
    move = optional_mapping(view.get("last_move"))
    blast = optional_mapping(view.get("blast"))
    if fight is not None:
        att, dfn = fight.get("attacker"), fight.get("defender")
        src, dst = _square(board, fight.get("from")), _square(board, fight.get("to"))
        won = fight.get("winner")
        winner = att if won == "attacker" else dfn if won == "defender" else None
        n_att = len(_unit_squares(board, fight.get("attackers")))
        n_def = len(_unit_squares(board, fight.get("defenders")))
        return "LAST FIGHT", [
            (f"{players.name(att)} {src or '?'} → {players.name(dfn)} {dst or '?'}", TEXT),
            (f"{n_att} v {n_def}" + (f" · {players.name(winner)} won" if winner else ""),
             LINE_FIGHT)], DANGER
    if blast is not None:
        kind = blast.get("kind")
        target = _square(board, blast.get("target"))
        colour = BLAST_COLOURS.get(kind if isinstance(kind, str) else "", DANGER)
        return "LAST BLAST", [(f"{NAMES.get(kind, 'Blast') if isinstance(kind, str) else 'Blast'}"
                               f" at {target or '?'}", TEXT)], colour
    if move is not None:
        action = drawable_text(move.get("action"), players.names, limit=60)
        return "LAST MOVE", [(f"{players.name(move.get('player'))}: {action}", TEXT)], ACCENT
    return "", [], BOX_LINE

