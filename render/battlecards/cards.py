"""Face-up Battlecards cards: a revealed unit (full, compact or tiny, with its firing
phases, attack and defense, support and bonus, and its fate), and a conflict card with its
Action Number."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.battlecards.icons import FORCE_ICONS, force_icon
from render.battlecards.layout import (
    BIG,
    FACE,
    FACE_EDGE,
    FIRING_PHASES,
    FORCE_NAMES,
    FORCES,
    GOLD,
    INK,
    INK_FAINT,
    INK_MUTED,
    Style,
)
from render.battlecards.table import _forces, _ref, _stat
from render.battlecards.words import _clip, _long_text
from render.common import (
    BACKGROUND,
    DANGER,
    RGB,
    Box,
    Canvas,
    Colour,
    Point,
    as_int,
    burst,
    clean_text,
    darken,
    lighten,
    mapping,
    pill,
    with_alpha,
)


def _phase_boxes(c: Canvas, x: float, y: float, size: float, fires: set[int], current: Any,
                 dim: bool, gap: float = 3) -> float:
    """Firing phases 1-4 as small boxes: filled where the unit fires, the current one gold."""
    for i, ph in enumerate(FIRING_PHASES):
        bx = x + i * (size + gap)
        box = (bx, y, bx + size, y + size)
        now = current == ph
        if ph in fires:
            fill: Colour = GOLD if now and not dim else (70, 68, 62)
            fg: Colour = INK if now and not dim else (245, 240, 228)
            c.rect(box, fill=fill, radius=size * 0.22)
        else:
            c.rect(box, fill=(226, 219, 200) if not dim else (150, 150, 150), radius=size * 0.22)
            fg = INK_FAINT if not dim else (120, 120, 120)
        if now and not dim:
            c.rect((bx - 2, y - 2, bx + size + 2, y + size + 2), outline=(200, 120, 0),
                   width=2, radius=size * 0.3)
        c.text((bx + size / 2, y + size / 2 + 0.5), str(ph), size * 0.68, fill=fg, bold=True,
               anchor="mm")
    return len(FIRING_PHASES) * (size + gap) - gap


def _unit_values(card: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    return mapping(card.get("attack")), mapping(card.get("defense"))


def _fires(card: Mapping[str, Any]) -> set[int]:
    raw = card.get("phases")
    if not isinstance(raw, list):
        return set()
    return {p for p in raw[:8] if as_int(p, -1) in FIRING_PHASES}


def _unit_card(c: Canvas, box: Box, unit: Mapping[str, Any], style: Style, phase: Any,
               level: int, shot: str | None) -> None:
    """A revealed unit, face up (see :func:`_unit_face`): one piece, whose cross and
    stamp of a destroyed unit are drawn over its own words on purpose."""
    with c.group(("unit card", box)):
        _unit_face(c, box, unit, style, phase, level, shot)


def _unit_face(c: Canvas, box: Box, unit: Mapping[str, Any], style: Style, phase: Any,
               level: int, shot: str | None) -> None:
    """A revealed unit, face up: level 0 full, 1 compact, 2 tiny.

    ``shot`` is "hit" or "miss" when a last shot targeted it."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    card = mapping(unit.get("card"))
    status = unit.get("status")
    destroyed = status == "destroyed"
    withdrawn = status == "withdrawn"
    kind = card.get("type")
    kind = kind if isinstance(kind, str) and kind in FORCE_ICONS else card.get("stack")
    face, ink, muted = (FACE, INK, INK_MUTED) if not destroyed else (
        (128, 128, 130), (62, 62, 66), (92, 92, 96))
    head = style.head if not destroyed else (86, 86, 90)
    head_text = style.head_text if not destroyed else (170, 170, 174)
    rad = 7 if level == 0 else 5
    hh = (26, 24, 24)[level]
    c.rect((x0 + 1.5, y0 + 2.5, x1 + 1.5, y1 + 2.5), fill=(0, 0, 0, 90), radius=rad)
    c.rect(box, fill=face, outline=FACE_EDGE if not destroyed else (90, 90, 94), width=1,
           radius=rad)
    c.rect((x0, y0, x1, y0 + hh), fill=head, radius=rad)
    c.rect((x0, y0 + hh - rad, x1, y0 + hh), fill=head)
    c.rect((x0, y0 + hh, x1, y0 + hh + 2), fill=style.head_line if not destroyed else (70, 70, 74))
    isz = (8.0, 6.5, 5.5)[level]
    force_icon(c, kind, (x0 + 6 + isz, y0 + hh / 2 + 0.5), isz, head_text)
    ref = _ref(unit.get("ref"))
    rsz = BIG
    c.text((x1 - 7, y0 + hh / 2 + 0.5), ref, rsz, fill=head_text, bold=True, anchor="rm",
           role="unit")
    fires = _fires(card)
    name = clean_text(card.get("name"), limit=60) or "Unit"
    attack, defense = _unit_values(card)
    bonus = as_int(unit.get("bonus"))
    support = mapping(card.get("support"))
    pad = (8, 6, 5)[level]
    if level == 0:
        label = FORCE_NAMES.get(kind, "") if isinstance(kind, str) else ""
        left = x0 + 10 + 2 * isz
        room = x1 - 10 - c.text_width(ref, rsz, bold=True) - left
        if label and c.text_width(label.upper(), 9.5, bold=True) <= room:
            c.text((left, y0 + hh / 2 + 0.5), label.upper(), 9.5, fill=with_alpha(head_text, 190),
                   bold=True, anchor="lm")
        lines = _clip(c, name, BIG, w - 2 * pad, 2, bold=True)
        for i, line in enumerate(lines):
            c.text((x0 + pad, y0 + hh + 14 + i * 19), line, BIG, fill=ink, bold=True,
                   anchor="lm", role="unit")
        py = y0 + hh + 6 + 19 * max(1, len(lines))
        c.text((x0 + pad, py + 8), "PHASE", 8.5, fill=muted, bold=True, anchor="lm")
        _phase_boxes(c, x1 - pad - (4 * 16 + 9), py, 16, fires, phase, destroyed)
        ty = py + 21
        _stat_table(c, x0 + pad, x1 - pad, ty, attack, defense, (14, 20), ink, muted, BIG,
                    destroyed)
        fy = max(ty + 62, y1 - 11)
        if support:
            _support(c, x0 + pad, fy, support, ink, muted, 10.5)
        if bonus:
            pill(c, x1 - pad, fy - 9, f"+{bonus} ATK", GOLD if not destroyed else (110, 110, 110),
                 size=10.5, height=18, text=INK)
    else:  # compact: the name, then attack and defense against Ground/Air/Sea on one line
        _phase_boxes(c, x1 - pad - c.text_width(ref, rsz, bold=True) - 4 * 11 - 12,
                     y0 + (hh - 10) / 2, 10, fires, phase, destroyed, gap=2)
        _short_name(c, box, hh, pad, name, bonus, destroyed, ink, level)
        atk = "/".join(_stat(attack.get(f)) for f in FORCES)
        dfn = "/".join(_stat(defense.get(f)) for f in FORCES)
        sy = y0 + hh + 33
        c.text((x0 + pad, sy), atk, BIG, fill=ink, bold=True, anchor="lm", role="unit")
        dx = x0 + pad + c.text_width(atk, BIG, bold=True) + 8
        c.text((dx, sy), c.fit(dfn, BIG, x1 - pad - dx), BIG, fill=muted, anchor="lm",
               role="unit")
    if shot == "hit" and not destroyed:
        burst(c, (x1 - 4, y0 + hh + 6), (11, 9, 7)[level])
    if destroyed:
        k = 4.0 if level == 0 else 3.0
        c.line([(x0 + 6, y0 + 6), (x1 - 6, y1 - 6)], fill=with_alpha(DANGER, 230), width=k)
        c.line([(x1 - 6, y0 + 6), (x0 + 6, y1 - 6)], fill=with_alpha(DANGER, 230), width=k)
        _stamp(c, box, "DESTROYED", DANGER, level)
    elif withdrawn:
        c.rect(box, fill=with_alpha(BACKGROUND, 150), radius=rad)
        _stamp(c, box, "↩ WITHDRAWN", (86, 128, 186), level)


#: A compact (1) or tiny (2) card's name under its header: its size, its line's middle and
#: the top and height of the bonus pill beside it (below the header).
SHORT_NAME = {1: (BIG, 12.0, 2.0, 20.0), 2: (BIG, 12.0, 2.0, 20.0)}


def _short_name(c: Canvas, box: Box, hh: float, pad: float, name: str, bonus: int,
                destroyed: bool, ink: Colour, level: int) -> None:
    """A compact or tiny card's name on one line, left of its bonus ("+2") if it has one."""
    x0, y0, x1, _ = box
    size, dy, pill_dy, pill_h = SHORT_NAME[level]
    room = x1 - x0 - 2 * pad
    if bonus:
        room = pill(c, x1 - 3, y0 + hh + pill_dy, f"+{bonus}", GOLD if not destroyed else
                    (110, 110, 110), size=size - 1, height=pill_h, text=INK) - x0 - pad - 3
    c.text((x0 + pad, y0 + hh + dy), c.fit(name, size, room, bold=True), size, fill=ink,
           bold=True, anchor="lm", role="unit")


def _stamp(c: Canvas, box: Box, label: str, colour: RGB, level: int) -> None:
    x0, y0, x1, y1 = box
    size = (11.0, 9.5, 8.0)[level]
    while size > 6 and c.text_width(label, size, bold=True) + 12 > x1 - x0 - 4:
        size -= 0.5
    tw = c.text_width(label, size, bold=True) + 12
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2 + (8 if level == 0 else 4)
    hh = size + 8
    c.rect((cx - tw / 2, cy - hh / 2, cx + tw / 2, cy + hh / 2), fill=darken(colour, 0.35),
           outline=lighten(colour, 0.3), width=1.5, radius=4)
    c.text((cx, cy + 0.5), label, size, fill=(255, 246, 240), bold=True, anchor="mm")


def _stat_table(c: Canvas, x0: float, x1: float, y: float, attack: Mapping[str, Any],
                defense: Mapping[str, Any], rows: tuple[float, float], ink: Colour,
                muted: Colour, size: float, dim: bool) -> None:
    """Attack and defense against Ground / Air / Sea under three type icons."""
    label_w = size * 2.35
    colw = (x1 - x0 - label_w) / 3
    top_h, row_h = rows
    for i, f in enumerate(FORCES):
        cx = x0 + label_w + colw * (i + 0.5)
        force_icon(c, f, (cx, y + top_h / 2 - 1), size * 0.42, muted)
    for r, (label, values) in enumerate((("ATK", attack), ("DEF", defense))):
        yy = y + top_h + row_h * (r + 0.5)
        if r == 0:
            c.rect((x0 - 3, yy - row_h / 2 + 0.5, x1 + 3, yy + row_h / 2 - 0.5),
                   fill=(226, 218, 198) if not dim else (118, 118, 120), radius=3)
        c.text((x0, yy), label, size * 0.66, fill=muted, bold=True, anchor="lm")
        for i, f in enumerate(FORCES):
            cx = x0 + label_w + colw * (i + 0.5)
            text = _stat(values.get(f))
            c.text((cx, yy + 0.5), text, size, fill=ink if text != "–" else muted, bold=True,
                   anchor="mm", role="unit")


def _support(c: Canvas, x: float, y: float, support: Mapping[str, Any], ink: Colour,
             muted: Colour, size: float) -> None:
    """"SUPPORT +1" and the icons of the forces it helps."""
    bonus = as_int(support.get("bonus"))
    c.text((x, y), "SUP", size * 0.85, fill=muted, bold=True, anchor="lm")
    x += c.text_width("SUP", size * 0.85, bold=True) + 4
    label = f"+{bonus}" if bonus >= 0 else str(bonus)
    c.text((x, y), label, size, fill=ink, bold=True, anchor="lm")
    x += c.text_width(label, size, bold=True) + 6
    for f in _forces(support.get("to"))[:3]:
        force_icon(c, f, (x + size * 0.5, y), size * 0.5, ink)
        x += size * 1.3


#: A face-up conflict card's rows of essential text: the name beside the Action Number
#: (wrapped onto a second row when long), then the effect.
CONFLICT_ROWS = 5


def _conflict_face(c: Canvas, box: Box, card: Mapping[str, Any]) -> None:
    """A face-up conflict card: its Action Number, name and effect, read on a phone (the
    name wraps onto a second row when it must, and the effect has the rows left)."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    c.rect((x0 + 1.5, y0 + 2.5, x1 + 1.5, y1 + 2.5), fill=(0, 0, 0, 90), radius=7)
    c.rect(box, fill=FACE, outline=FACE_EDGE, width=1, radius=7)
    an = as_int(card.get("action_number"), 0)
    _action_number(c, (x0 + 17, y0 + 17), 12, an)
    step = (y1 - y0 - 16) / CONFLICT_ROWS
    name = clean_text(card.get("name"), limit=60) or "?"
    text = _long_text(card.get("text"), limit=160)
    nx = x0 + 35
    lines = _clip(c, name, BIG, x1 - 7 - nx, 2 if text else 3, bold=True)
    for i, line in enumerate(lines):
        c.text((nx if i == 0 else x0 + 7, y0 + 17 + i * step), line, BIG, fill=INK, bold=True,
               anchor="lm", role="log")
    room = CONFLICT_ROWS - len(lines)
    if text and room > 0:
        for i, line in enumerate(_clip(c, text, BIG, w - 14, room)):
            c.text((x0 + 7, y0 + 17 + (len(lines) + i) * step), line, BIG, fill=INK_MUTED,
                   anchor="lm", role="log")


def _action_number(c: Canvas, centre: Point, r: float, n: int, fill: Colour = INK,
                   fg: Colour = FACE) -> None:
    c.circle(centre, r, fill=fill)
    c.text((centre[0], centre[1] + 0.5), str(n) if n else "?", r * 1.15, fill=fg, bold=True,
           anchor="mm")

