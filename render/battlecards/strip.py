"""The bottom strip of the Battlecards table's middle: the conflict deck with its face-up
discard, and the shots (since the last board, else the view's last ones): who shot whom,
the Action Number drawn, and hit or miss."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.battlecards.cards import _conflict_face
from render.battlecards.events import pick_shots
from render.battlecards.icons import _pile
from render.battlecards.layout import (
    BIG,
    CONFLICT_BOX,
    FACE,
    FACE_EDGE,
    HIT,
    INK,
    MISS,
    SHOT_ROWS,
    SHOTS_BOX,
    SOFT,
    Style,
)
from render.battlecards.table import _count, _key, _number, _ref, _Table
from render.common import (
    FAINT,
    MUTED,
    PANEL,
    TEXT,
    Box,
    Canvas,
    as_int,
    clean_text,
    dashed_rect,
    lighten,
    mapping,
    pill,
)


def _conflict_panel(c: Canvas, view: Mapping[str, Any]) -> None:
    x0, y0, x1, y1 = CONFLICT_BOX
    c.rect(CONFLICT_BOX, fill=PANEL, radius=10)
    conflict = mapping(view.get("conflict"))
    deck = _count(conflict.get("deck_count"))
    discards = _count(conflict.get("discard_count"))
    c.text((x0 + 12, y0 + 15), "CONFLICT", 12, fill=MUTED, bold=True, anchor="lm")
    c.text((x1 - 12, y0 + 15), f"DISCARD · {discards}", 12, fill=MUTED, bold=True,
           anchor="rm")
    _pile(c, (x0 + 12, y0 + 38, x0 + 60, y0 + 104), deck, "conflict")
    c.text((x0 + 36, y0 + 128), _number(deck), 22, fill=TEXT if deck else MUTED, bold=True,
           anchor="mm", role="count")
    top = conflict.get("discard_top")
    face = (x0 + 72, y0 + 28, x1 - 10, y1 - 8)
    if isinstance(top, Mapping):
        _conflict_face(c, face, top)
    else:
        dashed_rect(c, face, (120, 122, 130, 150), 1.5, 6, 4)
        c.text(((face[0] + face[2]) / 2, (face[1] + face[3]) / 2), "empty", 13, fill=FAINT,
               anchor="mm")


def _shots_panel(c: Canvas, table: _Table, shots: list[Mapping[str, Any]], fresh: bool,
                 units: dict[tuple[str | None, str], Mapping[str, Any]]) -> None:
    """The shots since the last board (``fresh``), or else the view's last shots: who shot
    whom, the Action Number drawn, and hit or miss."""
    x0, y0, x1, y1 = SHOTS_BOX
    c.rect(SHOTS_BOX, fill=PANEL, radius=10)
    c.text((x0 + 12, y0 + 15), "SHOTS SINCE LAST BOARD" if fresh else "LAST SHOTS", 12,
           fill=MUTED, bold=True, anchor="lm")
    if not shots:
        c.text(((x0 + x1) / 2, (y0 + y1) / 2 + 8), "No shots fired", BIG, fill=FAINT,
               bold=True, anchor="mm")
        return
    hits = sum(1 for s in shots if s.get("hit") is True)
    tail = f"{hits} hit{'s' if hits != 1 else ''}"
    c.text((x1 - 12, y0 + 15), tail, 14, fill=lighten(HIT, 0.2) if hits else MUTED, bold=True,
           anchor="rm")
    head = f"{len(shots)} fired · "
    c.text((x1 - 12 - c.text_width(tail, 14, bold=True), y0 + 15), head, 14, fill=MUTED,
           bold=True, anchor="rm")
    shown = pick_shots(shots, SHOT_ROWS)
    row_h = (y1 - y0 - 32) / SHOT_ROWS
    for i, shot in enumerate(shown):
        ry = y0 + 30 + i * row_h
        if i:
            c.line([(x0 + 10, ry), (x1 - 10, ry)], fill=(52, 56, 66), width=1)
        _shot_row(c, (x0 + 10, ry, x1 - 10, ry + row_h), shot, table, units)
    if len(shown) < len(shots):
        c.text((x0 + 12 + c.text_width("SHOTS SINCE LAST BOARD" if fresh else "LAST SHOTS",
                                       12, bold=True) + 8, y0 + 15),
               f"({len(shown)} shown)", 12, fill=FAINT, anchor="lm")


def _shot_row(c: Canvas, box: Box, shot: Mapping[str, Any], table: _Table,
              units: dict[tuple[str | None, str], Mapping[str, Any]]) -> None:
    x0, y0, x1, y1 = box
    cy = (y0 + y1) / 2
    x = _ref_chip(c, x0, cy, shot.get("shooter"), table.style(shot.get("shooter_owner")), BIG,
                  role="log")
    c.text((x + 9, cy), "→", 14, fill=MUTED, bold=True, anchor="mm")
    x = _ref_chip(c, x + 18, cy, shot.get("target"), table.style(shot.get("target_owner")), BIG,
                  role="log")
    an = as_int(shot.get("action_number"), 0)
    c.rect((x + 7, cy - 14, x + 35, cy + 14), fill=FACE, outline=FACE_EDGE, width=1, radius=3)
    c.text((x + 21, cy + 0.5), str(an) if an else "?", BIG, fill=INK, bold=True, anchor="mm",
           role="log")
    x += 44
    hit = shot.get("hit") is True
    right = pill(c, x1, cy - 13, "HIT" if hit else "MISS", HIT if hit else MISS, size=BIG,
                 height=26, text=TEXT, role="log") - 10
    a = _unit_name(shot, "shooter", units)
    b = _unit_name(shot, "target", units)
    names = f"{a or '?'} → {b or '?'}" if a or b else ""
    window = _window(shot.get("attack"), shot.get("defense"))
    if window:  # the numbers that hit, when the names still fit beside them
        need = c.text_width(window, BIG) + 10
        if not names or c.text_width(names, BIG) <= right - x - need:
            c.text((right, cy), window, BIG, fill=MUTED, anchor="rm", role="log")
            right -= need
    if names:
        c.text((x, cy), c.fit(names, BIG, right - x), BIG, fill=SOFT, anchor="lm", role="log")


def _unit_name(shot: Mapping[str, Any], who: str,
               units: dict[tuple[str | None, str], Mapping[str, Any]]) -> str:
    """A shot's shooter or target by name: from the event, else from the battle's units."""
    name = clean_text(shot.get(f"{who}_name"), limit=40)
    if name:
        return name
    unit = units.get(_key(shot.get(f"{who}_owner"), shot.get(who)))
    return clean_text(mapping((unit or {}).get("card")).get("name"), 40) if unit else ""


def _window(attack: Any, defense: Any) -> str:
    """The Action Numbers that hit: above the defense, at most the attack."""
    if isinstance(attack, bool) or isinstance(defense, bool) or not (
            isinstance(attack, int) and isinstance(defense, int)):
        return ""
    lo, hi = max(1, defense + 1), min(10, attack)
    if lo > hi:
        return "no hit"
    return f"hits {lo}" if lo == hi else f"hits {lo}–{hi}"


def _ref_chip(c: Canvas, x: float, cy: float, ref: Any, style: Style,
              size: float = 13, role: str | None = None) -> float:
    """A unit's reference (G1, A2) on its side's colours; returns the chip's right edge."""
    label = _ref(ref)
    h = size * 1.5
    w = max(size * 2.4, c.text_width(label, size, bold=True) + 12)
    c.rect((x, cy - h / 2, x + w, cy + h / 2), fill=style.chip, outline=style.chip_edge,
           width=1.5, radius=4)
    c.text((x + w / 2, cy + 0.5), label, size, fill=TEXT, bold=True, anchor="mm", role=role)
    return x + w

