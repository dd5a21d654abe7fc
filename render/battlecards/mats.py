"""The Battlecards placemats: a player's name, side and state, victory points toward the
target (a number and a bar), and a row of counts drawn as cards: the Ground, Air and Sea
stacks, the reserve hand and kept cards, the arsenal deck and the discard pile."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from render.battlecards.icons import _fan, _pile, force_icon
from render.battlecards.layout import (
    BIG,
    DEFAULT_TARGET,
    FORCE_NAMES,
    FORCES,
    MAT_H,
    TOP_MAT_Y,
    WIDTH,
    M,
    Style,
)
from render.battlecards.table import _count, _number, _style, _Table
from render.common import (
    ACCENT,
    DANGER,
    FAINT,
    PANEL,
    TEXT,
    Box,
    Canvas,
    Colour,
    Point,
    as_int,
    content_key,
    darken,
    dashed_rect,
    lighten,
    mapping,
    mappings,
    pill,
    progress_bar,
    with_alpha,
)


def _state_pill(view: Mapping[str, Any], pid: Any, winners: set[str],
                over: bool) -> tuple[str, Colour, Colour] | None:
    if over:
        return ("WINNER", ACCENT, (30, 30, 34)) if pid in winners else None
    to_act = view.get("to_act")
    acting = isinstance(to_act, list) and pid in to_act
    turn = pid is not None and pid == view.get("turn")
    if acting:
        return ("ACTS NOW", ACCENT, (30, 30, 34))
    if turn:
        return ("TURN", (74, 78, 90), TEXT)
    return None


def vp_bar_box(mat_y: float) -> Box:
    """The victory-point bar of the placemat whose top is at ``mat_y``."""
    off = _mat_offset(mat_y)
    return (M + 16, mat_y + off + 50, WIDTH - M - 16, mat_y + off + 62)


def _mat_offset(mat_y: float) -> float:
    """The bottom placemat's content sits lower: its stripe runs along its top edge."""
    return 0.0 if mat_y == TOP_MAT_Y else 6.0


#: A slot of a placemat's row of counts: what it draws, its label, the count, the role.
Slot = tuple[str, str, int, str]


def _mat(c: Canvas, view: Mapping[str, Any], table: _Table, p: Mapping[str, Any] | None,
         y0: float, winners: set[str], over: bool) -> None:
    x0, x1 = M, WIDTH - M
    y1 = y0 + MAT_H
    if p is None:
        c.rect((x0, y0, x1, y1), fill=PANEL, radius=12)
        c.text(((x0 + x1) / 2, (y0 + y1) / 2), "Empty seat", BIG, fill=FAINT, bold=True,
               anchor="mm")
        return
    pid = p.get("id")
    state = _state_pill(view, pid, winners, over)
    target = as_int(view.get("victory_target"), DEFAULT_TARGET)
    target = target if target > 0 else DEFAULT_TARGET
    name = table.name(pid)
    # a placemat changes only with its player: drawn once per look, then pasted
    c.reuse(("battlecards mat", y0, content_key(p), name, state, target),
            (x0 - 2, y0 - 2, x1 + 2, y1 + 2),
            lambda: _draw_mat(c, p, name, y0, state, target))


def _draw_mat(c: Canvas, p: Mapping[str, Any], player_name: str, y0: float,
              state: tuple[str, Colour, Colour] | None, target: int) -> None:
    x0, x1 = M, WIDTH - M
    y1 = y0 + MAT_H
    facing_down = y0 == TOP_MAT_Y
    off = _mat_offset(y0)
    style = _style(p.get("side"))
    c.rect((x0, y0, x1, y1), fill=style.mat, outline=style.mat_edge, width=1.5, radius=12)
    # the accent stripe along the edge that faces the table's middle
    sy = y1 - 9 if facing_down else y0 + 3
    for i, colour in enumerate(style.stripe if facing_down else style.stripe[::-1]):
        c.rect((x0 + 18, sy + i * 2, x1 - 18, sy + i * 2 + 2), fill=colour)
    if state is not None and state[0] != "TURN":
        c.rect((x0, y0, x1, y1), outline=state[1], width=3, radius=12)

    # the top row: name and side, state, victory points
    cy = y0 + off + 26
    vp = as_int(p.get("vp"))
    tail = f" / {target} VP"
    tail_w = c.text_width(tail, BIG, bold=True)
    c.text((x1 - 16, cy + 1), tail, BIG, fill=lighten(style.mat, 0.6), bold=True, anchor="rm",
           role="score")
    vp_x = x1 - 16 - tail_w
    c.text((vp_x, cy), str(vp), 30, fill=TEXT, bold=True, anchor="rm", role="score")
    right = vp_x - c.text_width(str(vp), 30, bold=True) - 14
    if state is not None:
        right = pill(c, right, cy - 14, state[0], state[1], size=BIG, height=28,
                     text=state[2], role="turn") - 12
    auto = p.get("autofire")
    won = len(mappings(p.get("battlecards_won"), 200))
    parts = [style.label.upper(), f"{won} WON"]
    if isinstance(auto, bool):
        parts.append("AUTO-FIRE " + ("ON" if auto else "OFF"))
    tag = " · ".join(part for part in parts if part)
    tag_w = c.text_width(tag, 11, bold=True) + 16 if tag else 0.0
    name = c.fit(player_name, 22, max(20.0, right - (x0 + 16) - tag_w - 10), bold=True)
    c.text((x0 + 16, cy), name, 22, fill=TEXT, bold=True, anchor="lm")
    if tag:
        pill(c, x0 + 16 + c.text_width(name, 22, bold=True) + 10, cy - 10, tag,
             darken(style.mat, 0.35), size=11, height=20, align="left",
             text=lighten(style.stripe[1], 0.1))
    progress_bar(c, vp_bar_box(y0), vp / target, style.bar, darken(style.mat, 0.45),
                 ticks=target // 5, tick=with_alpha(lighten(style.mat, 0.12), 220))

    # the row of counts
    stacks = mapping(p.get("stacks"))
    discard = p.get("discard")
    slots: list[list[Slot]] = [
        [(f"stack {f}", FORCE_NAMES[f], _count(stacks.get(f)), "count") for f in FORCES],
        [("hand", "Hand", _count(p.get("hand_count")), "hand"),
         ("kept", "Kept", _count(p.get("kept_count")), "count")],
        [("deck", "Deck", _count(p.get("arsenal_count")), "count"),
         ("lost", "Lost", len(discard[:10_000]) if isinstance(discard, list) else 0, "count")]]
    _slot_row(c, (x0 + 16, y0 + off + 74, x1 - 16, y0 + off + 138), slots, style)


SLOT_ART = {"hand": 62.0}  # the art's width (a fan is wider than a pile)
PILE_W, PILE_H = 40.0, 56.0
ART_GAP = 15.0  # from a slot's art to its count (a tall pile leans 10 px to the right)
COUNT_SIZE = 24.0


def _slot_row(c: Canvas, box: Box, groups: list[list[Slot]], style: Style) -> None:
    """Each slot: its cards (a pile or a fan) and, beside them, the count over the label.
    The groups are spread over the row with a thin rule between them."""
    x0, y0, x1, y1 = box

    def width(slot: Slot) -> float:
        kind, label, n, _ = slot
        return SLOT_ART.get(kind, PILE_W) + ART_GAP + max(
            c.text_width(_number(n), COUNT_SIZE, bold=True), c.text_width(label, 13))

    widths = [[width(s) for s in g] for g in groups]
    slots = sum(len(g) for g in groups)
    spare = max(0.0, (x1 - x0) - sum(sum(w) for w in widths))
    gap = spare / max(1, slots - 1 + (len(groups) - 1))  # a rule counts as one more gap
    x = x0
    muted = lighten(style.mat, 0.55)
    for gi, (group, ws) in enumerate(zip(groups, widths, strict=True)):
        if gi:
            c.line([(x, y0 + 2), (x, y1 - 2)], fill=darken(style.mat, 0.3), width=1.5)
            x += gap
        for slot, w in zip(group, ws, strict=True):
            # a slot changes only with its count: drawn once per look, then pasted (its
            # cards lean up to 13 px out of the art's box)
            c.reuse(("battlecards slot", slot, style, x, y0, y1),
                    (x - 14, y0 - 11, x + w + 4, y1 + 3),
                    partial(_slot, c, slot, x, y0, y1, style, muted))
            x += w + gap


def _slot(c: Canvas, slot: Slot, x: float, y0: float, y1: float, style: Style,
          muted: Colour) -> None:
    kind, label, n, role = slot
    art = SLOT_ART.get(kind, PILE_W)
    _slot_art(c, kind, (x, y0 + (y1 - y0 - PILE_H) / 2), art, n, style)
    tx = x + art + ART_GAP
    c.text((tx, y0 + 20), _number(n), COUNT_SIZE, fill=TEXT if n else muted, bold=True,
           anchor="lm", role=role)
    c.text((tx, y0 + 46), label, 13, fill=muted, anchor="lm")


def _slot_art(c: Canvas, kind: str, xy: Point, art_w: float, n: int, style: Style) -> None:
    x, y = xy
    box = (x, y, x + PILE_W, y + PILE_H)
    if kind.startswith("stack "):
        _pile(c, box, n, style.key)
        force = kind.split(" ", 1)[1]
        cx, cy = x + PILE_W / 2, y + PILE_H / 2
        if n:
            c.circle((cx, cy), 12, fill=(20, 20, 24, 225), outline=with_alpha(TEXT, 200),
                     width=1.2)
            force_icon(c, force, (cx, cy), 7.5, TEXT)
        else:
            force_icon(c, force, (cx, cy), 8, (120, 122, 130))
    elif kind == "hand":
        _fan(c, (x + art_w / 2, y + PILE_H / 2 + 2), 30, 44, n, style.key, most=7, span=30.0)
    elif kind == "kept":
        _pile(c, box, n, "conflict")
    elif kind == "deck":
        _pile(c, box, n, style.key)
    else:
        _discard_pile(c, box, n)


def _discard_pile(c: Canvas, box: Box, count: int) -> None:
    """The arsenal discard pile: face-up destroyed units, drawn as a grey stack."""
    x0, y0, x1, y1 = box
    if count <= 0:
        dashed_rect(c, (x0 + 2, y0 + 2, x1 - 2, y1 - 2), (120, 122, 130, 150), 1.5, 6, 4)
        return
    for i in range(min(count, 4) - 1, -1, -1):
        ox, oy = i * 2.5, -i * 2.5
        c.rect((x0 + ox, y0 + oy, x1 + ox, y1 + oy), fill=(150, 146, 136), outline=(80, 78, 72),
               width=1, radius=5)
    c.rect((x0 + 6, y0 + 7, x1 - 6, y0 + 17), fill=(112, 108, 100), radius=2)
    c.line([(x0 + 8, y0 + 24), (x1 - 8, y1 - 10)], fill=with_alpha(DANGER, 200), width=2.5)
    c.line([(x1 - 8, y0 + 24), (x0 + 8, y1 - 10)], fill=with_alpha(DANGER, 200), width=2.5)

