"""The middle of the Battlecards table, under its header: both sides' units revealed in the
battle (face up, laid out by how many there are), or a report of a battle fought since the
last board, or the Battlecard List."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache, partial
from typing import Any

from PIL import Image

from render.battlecards.cards import _unit_card
from render.battlecards.events import _Finished, _Fought
from render.battlecards.icons import _paste_centred, force_icon
from render.battlecards.layout import (
    BAND_GAP,
    BAND_TAB,
    BIG,
    CARD_MAX_W,
    CARD_MIN_W,
    CARD_ROWS,
    GOLD,
    HIT,
    OTHER,
    SCALE,
    WITHDRAWN,
    Style,
)
from render.battlecards.strip import _ref_chip
from render.battlecards.table import _forces, _key, _style, _Table
from render.battlecards.words import _clip
from render.common import (
    ACCENT,
    FAINT,
    MUTED,
    PANEL,
    RGB,
    TEXT,
    Box,
    Canvas,
    Colour,
    Point,
    Run,
    as_int,
    clean_text,
    content_key,
    darken,
    dashed_rect,
    lighten,
    mappings,
    pill,
    text_runs,
)


def _band(c: Canvas, box: Box, p: Mapping[str, Any] | None, units: list[Mapping[str, Any]],
          style: Style, phase: Any, shots: Mapping[tuple[str | None, str], str], role: str) -> None:
    """One side's revealed units, face up, with a side tab on the left."""
    x0, y0, x1, y1 = box
    _band_frame(c, box, style, f"{style.label.upper() or 'SIDE'} · {role}")
    if p is None:
        return
    if not units:
        ax0, ax1 = x0 + BAND_TAB + 10, x1 - 8
        c.text(((ax0 + ax1) / 2, (y0 + y1) / 2), "No units revealed", BIG,
               fill=lighten(style.mat, 0.35), bold=True, anchor="mm")
        return
    n = len(units)
    level, boxes = card_boxes(box, n)
    shown = units if n <= len(boxes) else units[: len(boxes) - 1]
    for u, b in zip(shown, boxes, strict=False):
        key = _key(u.get("owner"), u.get("ref"))
        _unit_card(c, b, u, style, phase, level, shots.get(key))
    if len(shown) < n:
        bx0, by0, bx1, by1 = boxes[-1]
        dashed_rect(c, boxes[-1], lighten(style.mat, 0.3), 1.5, 6, 4)
        c.text(((bx0 + bx1) / 2, (by0 + by1) / 2), f"+{n - len(shown)} more", 15,
               fill=lighten(style.mat, 0.5), bold=True, anchor="mm")


def _band_frame(c: Canvas, box: Box, style: Style, label: str) -> None:
    x0, y0, _, y1 = box
    c.rect(box, fill=darken(style.mat, 0.25), radius=10)
    tab = BAND_TAB
    c.rect((x0, y0, x0 + tab, y1), fill=style.head, radius=10)
    c.rect((x0 + tab - 8, y0, x0 + tab, y1), fill=style.head)
    c.rect((x0 + tab, y0, x0 + tab + 2, y1), fill=style.head_line)
    _vertical_label(c, (x0 + tab / 2, (y0 + y1) / 2), label, style.head_text)


def card_boxes(band: Box, n: int) -> tuple[int, list[Box]]:
    """How ``n`` revealed units are laid out in a side's ``band``: the detail level (0 full,
    1 compact, 2 tiny) and the card boxes, in order. When they cannot all fit, the boxes
    fill the band and the last one holds "+N more"."""
    x0, y0, x1, y1 = band
    ax0, ay0, ax1, ay1 = x0 + BAND_TAB + 10, y0 + 8, x1 - 8, y1 - 8
    gap = 7.0
    aw, ah = ax1 - ax0, ay1 - ay0
    level = 2
    for candidate in (0, 1):  # the largest cards that fit
        if n <= _columns(aw, gap, candidate) * CARD_ROWS[candidate]:
            level = candidate
            break
    rows = CARD_ROWS[level]
    cols = max(1, min(_columns(aw, gap, level), math.ceil(max(1, n) / rows)))
    cw = min(CARD_MAX_W[level], (aw - gap * (cols - 1)) / cols)
    ch = (ah - gap * (rows - 1)) / rows
    boxes: list[Box] = []
    for i in range(min(n, cols * rows)):
        r, col = divmod(i, cols)
        bx, by = ax0 + col * (cw + gap), ay0 + r * (ch + gap)
        boxes.append((bx, by, bx + cw, by + ch))
    return level, boxes


def _columns(width: float, gap: float, level: int) -> int:
    return max(1, int((width + gap) // (CARD_MIN_W[level] + gap)))


@lru_cache(maxsize=16)
def _vertical_text(text: str, size: float, colour: RGB) -> Image.Image:
    """``text`` turned to read bottom-up (RGBA, final size)."""
    w = Canvas(1, 1, (0, 0, 0, 0), scale=SCALE, mode="RGBA").text_width(text, size, bold=True)
    c = Canvas(math.ceil(w) + 4, math.ceil(size * 1.5), (0, 0, 0, 0), scale=SCALE, mode="RGBA")
    c.text((2, size * 0.75), text, size, fill=colour, bold=True, anchor="lm")
    return c.finish().rotate(90, expand=True)


def _vertical_label(c: Canvas, centre: Point, text: str, colour: RGB) -> None:
    _paste_centred(c, _vertical_text(text, 10.5, colour), centre)


#: The order of a report's units: the destroyed first, then the withdrawn, then the rest.
FATE_ORDER = {"destroyed": 0, "withdrawn": 1}


def _report(c: Canvas, box: Box, table: _Table, fin: _Finished) -> None:
    """A battle fought since the last board: every unit seen in it and its fate."""
    x0, y0, x1, y1 = box
    c.rect(box, fill=PANEL, radius=10)
    hits = sum(1 for s in fin.shots if s.get("hit") is True)
    lost = sum(1 for u in fin.units if u.fate == "withdrawn")
    summary = f"{len(fin.shots)} shot{'s' if len(fin.shots) != 1 else ''} · {hits} hit" + \
        ("s" if hits != 1 else "") + (f" · {lost} withdrawn" if lost else "")
    c.text((x1 - 14, y0 + 17), summary, 13, fill=MUTED, bold=True, anchor="rm")
    room = x1 - x0 - 42 - c.text_width(summary, 13, bold=True)
    runs: list[Run] = [("BATTLE REPORT · ", MUTED, None), (fin.card, TEXT, None),
                       (f" · {fin.vp} VP", GOLD, None)]
    text_runs(c, x0 + 14, y0 + 17, runs, 13, x0 + 14 + room, bold=True)
    band_h = (y1 - y0 - 34 - 8 - BAND_GAP) / 2
    for i, p in enumerate((table.top, table.bottom)):
        by0 = y0 + 34 + i * (band_h + BAND_GAP)
        band = (x0 + 6, by0, x1 - 6, by0 + band_h)
        pid = p.get("id") if p is not None else None
        style = _style(p.get("side")) if p is not None else OTHER
        role = "WON" if pid is not None and pid == fin.winner else "LOST"
        _band_frame(c, band, style, f"{style.label.upper() or 'SIDE'} · {role}")
        mine = sorted((u for u in fin.units if pid is not None and u.owner == pid),
                      key=lambda u: FATE_ORDER.get(u.fate, 2))
        _fought_grid(c, band, mine, style)


def _fought_grid(c: Canvas, band: Box, units: list[_Fought], style: Style) -> None:
    """A side's units in two columns (down the first, then the second): large rows when
    few, else smaller ones and "+N more" when they still do not fit."""
    x0, y0, x1, y1 = band
    ax0, ay0, ax1, ay1 = x0 + BAND_TAB + 10, y0 + 7, x1 - 8, y1 - 7
    if not units:
        c.text(((ax0 + ax1) / 2, (ay0 + ay1) / 2), "No units seen", 15,
               fill=lighten(style.mat, 0.35), bold=True, anchor="mm")
        return
    cols = 2

    def rows_of(row_h: float, gap: float) -> int:
        return max(1, int((ay1 - ay0 + gap) // (row_h + gap)))

    big, small = (34.0, 6.0, BIG), (28.0, 4.0, BIG)  # row height, gap, font size
    row_h, gap, size = big if len(units) <= cols * rows_of(big[0], big[1]) else small
    rows = rows_of(row_h, gap)
    cw = (ax1 - ax0 - gap * (cols - 1)) / cols
    cells = cols * rows
    shown = units if len(units) <= cells else units[: cells - 1]
    for i, u in enumerate(shown):
        col, r = divmod(i, rows)
        bx, by = ax0 + col * (cw + gap), ay0 + r * (row_h + gap)
        _fought_chip(c, (bx, by, bx + cw, by + row_h), u, style, size)
    if len(shown) < len(units):
        col, r = divmod(len(shown), rows)
        bx, by = ax0 + col * (cw + gap), ay0 + r * (row_h + gap)
        c.text((bx + 8, by + row_h / 2), f"+{len(units) - len(shown)} more", size,
               fill=lighten(style.mat, 0.5), bold=True, anchor="lm")


def _fought_chip(c: Canvas, box: Box, u: _Fought, style: Style, size: float) -> None:
    x0, y0, x1, y1 = box
    cy = (y0 + y1) / 2
    destroyed = u.fate == "destroyed"
    c.rect(box, fill=darken(style.mat, 0.45) if not destroyed else (40, 38, 38), radius=5)
    x = _ref_chip(c, x0 + 5, cy, u.ref, style, size, role="unit")
    right = x1 - 6
    if u.fate:
        label, colour = ("DESTROYED", HIT) if destroyed else ("WITHDRAWN", WITHDRAWN)
        right = pill(c, right, cy - size * 0.62, label, colour, size=size * 0.75,
                     height=size * 1.25, text=TEXT) - 6
    name = c.fit(u.name or "?", size, right - x - 8)
    with c.group(("struck", name, box)):  # a destroyed unit's name struck through
        c.text((x + 8, cy), name, size, fill=TEXT if not destroyed else MUTED, anchor="lm",
               role="unit")
        if destroyed:
            c.line([(x + 8, cy + 1), (x + 8 + c.text_width(name, size), cy + 1)], fill=MUTED,
                   width=1.2)


def _battle_list(c: Canvas, view: Mapping[str, Any], table: _Table, box: Box) -> None:
    """The Battlecard List reference card: every battle, its VP and where it is (drawn
    once per look, then pasted: it changes once a battle)."""
    entries = mappings(view.get("battlecard_list"), 40)
    winners = tuple((table.name(e.get("won_by")), table.style(e.get("won_by")).key)
                    for e in entries if e.get("won_by") is not None)
    c.reuse(("battlecards list", box, content_key(entries), winners),
            (box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1),
            lambda: _draw_battle_list(c, entries, table, box))


def _draw_battle_list(c: Canvas, entries: list[Mapping[str, Any]], table: _Table,
                      box: Box) -> None:
    x0, y0, x1, y1 = box
    c.rect(box, fill=PANEL, radius=10)
    c.text((x0 + 14, y0 + 17), "BATTLECARD LIST", 13, fill=MUTED, bold=True, anchor="lm")
    if not entries:
        c.text((x0 + 14, y0 + 50), "No battles listed", 15, fill=FAINT, anchor="lm")
        return
    remaining = [e for e in entries if e.get("status") in ("in deck", "in play")]
    c.text((x1 - 14, y0 + 17), f"{len(remaining)} of {len(entries)} to fight · "
           f"{sum(max(0, as_int(e.get('vp'))) for e in remaining)} VP", 13, fill=MUTED,
           bold=True, anchor="rm")
    cols = 4
    rows = max(1, math.ceil(len(entries) / cols))
    gap = 6.0
    gx0, gy0, gx1, gy1 = x0 + 8, y0 + 32, x1 - 8, y1 - 8
    tw = (gx1 - gx0 - gap * (cols - 1)) / cols
    th = min(90.0, (gy1 - gy0 - gap * (rows - 1)) / rows)
    for i, e in enumerate(entries):
        r, col = divmod(i, cols)
        bx, by = gx0 + col * (tw + gap), gy0 + r * (th + gap)
        tile = (bx, by, bx + tw, by + th)
        won_by = e.get("won_by")
        winner = (table.name(won_by), table.style(won_by)) if won_by is not None else None
        # a tile changes only with its battle: drawn once per look, then pasted
        c.reuse(("battlecards tile", tile, content_key(e), winner),
                (bx - 2, by - 2, bx + tw + 2, by + th + 2),
                partial(_battle_tile, c, tile, e, table))


def _battle_tile(c: Canvas, box: Box, e: Mapping[str, Any], table: _Table) -> None:
    x0, y0, x1, y1 = box
    h = y1 - y0
    status = e.get("status")
    style = _style(e.get("aggressor"))
    won_by = e.get("won_by")
    done = status in ("won", "discarded")
    fill = (48, 52, 62) if not done else (36, 38, 45)
    outline: Colour = (66, 70, 82)
    if status == "in play":
        outline = ACCENT
    elif status == "won" and won_by is not None:
        outline = table.style(won_by).bar
    c.rect(box, fill=fill, outline=outline, width=2 if status in ("in play", "won") else 1,
           radius=6)
    c.rect((x0, y0, x0 + 5, y1), fill=style.head_line if style is not OTHER else FAINT,
           radius=2)
    fg = TEXT if not done else MUTED
    name = clean_text(e.get("name"), limit=50) or "Battle"
    vp = f"{max(0, as_int(e.get('vp')))}"
    c.text((x1 - 8, y0 + 14), vp, 16, fill=GOLD if not done else FAINT, bold=True,
           anchor="rm")
    room = x1 - x0 - 26 - c.text_width(vp, 16, bold=True)
    lines = _clip(c, name, 13.5, room, 2 if h >= 56 else 1, bold=True)
    for i, line in enumerate(lines):
        ly = y0 + 14 + i * 16
        with c.group(("struck", line, box)):  # a discarded battle's name struck through
            c.text((x0 + 12, ly), line, 13.5, fill=fg, bold=True, anchor="lm")
            if status == "discarded":
                c.line([(x0 + 12, ly + 1),
                        (x0 + 12 + c.text_width(line, 13.5, bold=True), ly + 1)],
                       fill=MUTED, width=1.2)
    sy = y1 - (10 if h < 44 else 13)
    x = x0 + 12
    for f in _forces(e.get("forces")):
        force_icon(c, f, (x + 6, sy), 6.5, MUTED if not done else FAINT)
        x += 18
    label = {"in deck": "in deck", "in play": "IN PLAY", "discarded": "discarded"}.get(
        status if isinstance(status, str) else "", "")
    colour: Colour = MUTED
    if status == "won":
        colour = lighten(table.style(won_by).bar, 0.15)
        label = "won"
        if won_by is not None:  # the name right-aligned on its own (it may be right-to-left)
            who = c.fit(table.name(won_by), 12.5, max(10.0, x1 - x - 50), bold=True)
            c.text((x1 - 8, sy), who, 12.5, fill=colour, bold=True, anchor="rm")
            label = "won · "
            x1 -= c.text_width(who, 12.5, bold=True)
    elif status == "in play":
        colour = ACCENT
    elif status == "discarded":
        colour = FAINT
    c.text((x1 - 8, sy), c.fit(label, 12.5, x1 - x - 12, bold=status != "in deck"), 12.5,
           fill=colour, bold=status != "in deck", anchor="rm")

