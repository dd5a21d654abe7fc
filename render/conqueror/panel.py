"""The Conqueror player panel: the round and whose turn it is, a card per player (AP,
gold, lumber, soldiers, forts, base health), then this turn in words (or the last move,
or how the game ended) and a key to the board when there is room."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.common import (
    ACCENT,
    BACKGROUND,
    BOX_FILL,
    BOX_LINE,
    FAINT,
    MUTED,
    NEUTRAL,
    PANEL,
    PANEL_HIGHLIGHT,
    RGB,
    SEAT_COLOURS,
    TEXT,
    Canvas,
    Colour,
    Players,
    arrow,
    as_int,
    coin_icon,
    content_key,
    darken,
    drawable_text,
    essential_size,
    lighten,
    logs_icon,
    optional_mapping,
    pips,
    seat_card,
    seat_colour,
    text_on,
    tower_icon,
    who_line,
    with_alpha,
)
from render.conqueror.board import _keep, _swords
from render.conqueror.events import _Turn
from render.conqueror.layout import BASE_HEALTH, HEIGHT, PANEL_X0, PANEL_X1, TILE_COLOURS, WIDTH

#: Essential text (the status line, the round, the players' numbers) is at least this tall:
#: 8 px on a phone that shows the image 390 px wide.
ESSENTIAL = essential_size(WIDTH)
STAT_SIZE = max(ESSENTIAL, 21.0)


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _turn_lines(c: Canvas, turn: _Turn, players: Players, size: float,
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
    c.text((vx, y), str(as_int(value)), STAT_SIZE, fill=TEXT, bold=True, anchor="lm",
           role="score")


def _player_card(c: Canvas, top: float, height: float, p: Mapping[str, Any], name: str,
                 colour: RGB, to_move: bool, winner: bool) -> None:
    """A player's card (drawn once per look, then pasted: see :meth:`Canvas.reuse`)."""
    c.reuse(("conqueror card", top, height, content_key(p), name, colour, to_move, winner),
            (PANEL_X0 - 1, top - 1, PANEL_X1 + 1, top + height + 1),
            lambda: _draw_player_card(c, top, height, p, name, colour, to_move, winner))


def _draw_player_card(c: Canvas, top: float, height: float, p: Mapping[str, Any], name: str,
                      colour: RGB, to_move: bool, winner: bool) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    out = bool(p.get("out"))
    card = PANEL_HIGHLIGHT if to_move else PANEL
    seat_card(c, (x0, top, x1, top + height), colour if not out else darken(colour, 0.45), card,
              edge=7, corner=20)
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
    health = max(0, min(BASE_HEALTH, as_int(p.get("base_health"))))
    _keep(c, (cols[2], row2 - 8, cols[2] + 18, row2 + 8), colour if not out else NEUTRAL,
          ruined=out or health == 0)
    pips(c, cols[2] + 25, row2 - 5, health, BASE_HEALTH, 10, (236, 84, 84), (64, 66, 76),
         gap=2.5)
    if out:
        c.rect((x0, top, x1, top + height), fill=with_alpha(BACKGROUND, 120), radius=10)


def _panel(c: Canvas, view: Mapping[str, Any], players: Players, turn_events: _Turn) -> None:
    x0, x1 = PANEL_X0, PANEL_X1
    outcome = optional_mapping(view.get("outcome"))
    rnd = as_int(view.get("round"), 0)
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
        seat = as_int(p.get("seat"), players.players.index(p) + 1)
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


def _summary(c: Canvas, view: Mapping[str, Any], players: Players,
             outcome: Mapping[str, Any] | None, turn: _Turn, y: float,
             limit: float) -> float:
    """This turn (or the last move, or the outcome) in a box from ``y``; returns its
    bottom edge."""
    x0, x1 = PANEL_X0, PANEL_X1
    tx, tw = x0 + 14, x1 - x0 - 28
    if outcome is not None:
        won = [players.name(w) for w in outcome.get("winners") or []]
        label = "Winner: " if len(won) == 1 else "Winners: " if won else "No winner"
        reason = drawable_text(outcome.get("reason"), players.names, limit=200)
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
        body = _turn_lines(c, turn, players, ESSENTIAL, tw)
        step = ESSENTIAL + 6
        body = body[:max(0, int((limit - y - 56) // step))]
        bottom = y + 42 + step * len(body) + 14
        if bottom > limit:
            return y
        _box(c, y, bottom, "THIS TURN", BOX_LINE)
        if turn.actors:
            who_line(c, tx, y + 41, turn.actors, players, x1 - 12)
        else:
            c.text((tx, y + 41), "—", 18, fill=FAINT, anchor="lm")
        for i, (line, colour) in enumerate(body):
            strong = colour == TEXT
            c.text((tx, y + 67 + i * step), c.fit(line, ESSENTIAL, tw, bold=strong), ESSENTIAL,
                   fill=colour, bold=strong, anchor="lm", role="log")
        return bottom
    bottom = y + 96
    if bottom > limit:
        return y
    _box(c, y, bottom, "LAST MOVE", BOX_LINE)
    last = optional_mapping(view.get("last_move"))
    if last is None:
        c.text((tx, y + 46), "None yet", 17, fill=FAINT, anchor="lm")
        return bottom
    mover = last.get("player")
    who_line(c, tx, y + 45, [mover] if isinstance(mover, str) else [], players, x1 - 12, 17)
    action = drawable_text(last.get("action"), players.names, limit=60)
    c.text((tx, y + 72), c.fit(action, ESSENTIAL, tw), ESSENTIAL, fill=ACCENT, anchor="lm",
           role="log")
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
    arrow(c, (cols[0], rows[3]), (cols[0] + 2 * s + 3, rows[3]),
           lighten(SEAT_COLOURS[1], 0.12), 4.5)
    c.rect((cols[1] - 3, rows[3] - s, cols[1] + 2 * s + 3, rows[3] + s), fill=(20, 21, 26),
           outline=MUTED, width=1.5, radius=s)
    c.text((cols[1] + s, rows[3] + 0.5), "+2", 12, fill=TEXT, bold=True, anchor="mm")
    labels = (("Unexplored", "Empty land"), ("Gold", "Lumber"), ("Fort", "Battle"),
              ("Move", "Recruited"))
    for row, pair in zip(rows, labels, strict=True):
        for col, label in zip(cols, pair, strict=True):
            c.text((col + 2 * s + 10, row), label, 16, fill=MUTED, anchor="lm")
