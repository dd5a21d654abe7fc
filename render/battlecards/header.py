"""The top of the Battlecards table: the title row (turn and phase), the status bar (who
must act and what they decide, or the final score), and the middle's header: the outcome,
the battle being fought or drawn, the card being resolved, a battle won since the last
board, or what happened instead."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.battlecards.cards import _action_number
from render.battlecards.events import _Digest, _Finished
from render.battlecards.icons import force_icon
from render.battlecards.layout import (
    BIG,
    FACE,
    FACE_EDGE,
    FIRING_PHASES,
    FORCE_NAMES,
    GOLD,
    HEADER_BOX,
    HEADER_H,
    INK,
    PHASE_NAMES,
    SOFT,
    STATUS_BOX,
    WIDTH,
    M,
    Style,
)
from render.battlecards.table import _forces, _style, _Table
from render.battlecards.words import _clip, _long_text
from render.common import (
    ACCENT,
    BOX_FILL,
    BOX_LINE,
    DANGER,
    FAINT,
    MUTED,
    PANEL,
    TEXT,
    Box,
    Canvas,
    Colour,
    Point,
    Run,
    as_int,
    clean_text,
    darken,
    drawable_text,
    lighten,
    mapping,
    mappings,
    pill,
    text_runs,
    winner_ids,
)


def _title(c: Canvas, view: Mapping[str, Any], over: bool) -> None:
    c.text((M + 2, 34), "BATTLECARDS", 22, fill=TEXT, bold=True, anchor="ls")
    x = M + 2 + c.text_width("BATTLECARDS", 22, bold=True) + 10
    c.text((x, 34), "Western Front", 14, fill=MUTED, bold=True, anchor="ls")
    rnd = as_int(view.get("round"))
    right: float = WIDTH - M
    if rnd:
        c.text((right, 28), f"Turn {rnd}", 20, fill=TEXT, bold=True, anchor="rm", role="turn")
        right -= c.text_width(f"Turn {rnd}", 20, bold=True) + 12
    phase = "over" if over else view.get("phase")
    label = PHASE_NAMES.get(phase) if isinstance(phase, str) else None
    if label:
        fill: Colour = DANGER if phase == "over" else ACCENT
        pill(c, right, 14, label, fill, size=BIG, height=28,
             text=TEXT if phase == "over" else (30, 30, 34), role="turn")


def _status(c: Canvas, view: Mapping[str, Any], table: _Table, over: bool,
            outcome: Mapping[str, Any] | None) -> None:
    """Who must act (or the final score), then what they must decide."""
    x0, y0, x1, _ = STATUS_BOX
    c.rect(STATUS_BOX, fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    top, bottom = y0 + 21, y0 + 47
    prompt = _long_text(view.get("prompt"), limit=200)
    x = x0 + 14
    if over:  # the final score
        runs: list[Run] = [("Final score: ", ACCENT, None)]
        for i, p in enumerate(p for p in (table.top, table.bottom) if p is not None):
            runs += [(" · " if i else "", MUTED, None), (table.name(p.get("id")), TEXT, 260.0),
                     (f" {as_int(p.get('vp'))} VP", TEXT, None)]
        text_runs(c, x, top, runs, 19, x1 - 14, bold=True, role="score")
        reason = _long_text(mapping(outcome).get("reason"), limit=200) or prompt
        for line in _clip(c, reason or "The game is over", BIG, x1 - x0 - 28):
            c.text((x, bottom), line, BIG, fill=SOFT, anchor="lm", role="turn")
        return
    to_act = view.get("to_act")
    actors = [a for a in to_act[:2] if isinstance(a, str)] if isinstance(to_act, list) else []
    turn = view.get("turn")
    for a in actors:
        c.circle((x + 8, top), 8, fill=table.style(a).bar, outline=(240, 238, 230), width=1.5)
        x += 22
    tail_w = 0.0
    if isinstance(turn, str) and turn not in actors:  # whose turn it is, if someone else acts
        name = c.fit(table.name(turn), BIG, 200, bold=True)
        tail_w = c.text_width(name + "'s turn", BIG, bold=True) + 16
        text_runs(c, x1 - 14 - tail_w + 16, top, [(name, MUTED, None), ("'s turn", MUTED, None)],
                  BIG, x1 - 14, bold=True, role="turn")
    runs = []
    for i, a in enumerate(actors):
        runs += [(" and " if i else "", TEXT, None), (table.name(a), TEXT, 230.0)]
    runs.append((" must act" if actors else "Waiting", TEXT, None))
    text_runs(c, x, top, runs, 19, x1 - 14 - tail_w, bold=True, role="turn")
    for line in _clip(c, prompt, BIG, x1 - x0 - 28):
        c.text((x0 + 14, bottom), line, BIG, fill=SOFT, anchor="lm", role="turn")



def _is_battlecard(card: Mapping[str, Any]) -> bool:
    return card.get("kind") == "battle" or "vp" in card or "forces" in card


def _find_battlecard(view: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The battlecard called ``name``: from the battlecards won, else the Battlecard List."""
    for p in mappings(view.get("players"), 8):
        for card in mappings(p.get("battlecards_won"), 40):
            if clean_text(card.get("name"), limit=60) == name:
                return card
    for entry in mappings(view.get("battlecard_list"), 40):
        if clean_text(entry.get("name"), limit=60) == name:
            return entry
    return {}


def _header_frame(c: Canvas, box: Box, style: Style, fill: Colour, edge: Colour) -> None:
    x0, y0, _, y1 = box
    c.rect(box, fill=fill, outline=edge, width=1.5, radius=10)
    c.rect((x0, y0, x0 + 12, y1), fill=style.head, radius=10)
    c.rect((x0 + 6, y0, x0 + 12, y1), fill=style.head)
    c.rect((x0 + 12, y0, x0 + 14, y1), fill=style.head_line)


def _vp_seal(c: Canvas, centre: Point, vp: int) -> None:
    x, y = centre
    c.circle((x, y), 31, fill=darken(GOLD, 0.45))
    c.circle((x, y), 28, fill=GOLD)
    c.text((x, y - 5), str(vp), 24, fill=INK, bold=True, anchor="mm", role="score")
    c.text((x, y + 14), "VP", 11, fill=INK, bold=True, anchor="mm")


def _forces_row(c: Canvas, x: float, cy: float, forces: list[str], max_x: float) -> float:
    """The forces a battle calls, as pills with their icons; returns where the row ends."""
    for f in forces:
        w = 32 + c.text_width(FORCE_NAMES[f], BIG, bold=True)
        if x + w > max_x:
            break
        c.rect((x, cy - 14, x + w, cy + 14), fill=(74, 72, 62), radius=14)
        force_icon(c, f, (x + 15, cy), 8, TEXT)
        c.text((x + 27, cy + 0.5), FORCE_NAMES[f], BIG, fill=TEXT, bold=True, anchor="lm",
               role="turn")
        x += w + 6
    return x


def _battle_header(c: Canvas, table: _Table, card: Mapping[str, Any], state: str,
                   right_w: float) -> tuple[float, float]:
    """The left part of a battle's header (seal, state line, name, forces); returns the
    left and right edges of the room it leaves to the right."""
    x0, y0, x1, _ = HEADER_BOX
    style = _style(card.get("aggressor"))
    _header_frame(c, HEADER_BOX, style, (44, 44, 40), (120, 108, 72))
    _vp_seal(c, (x0 + 52, y0 + HEADER_H / 2), max(0, as_int(card.get("vp"))))
    tx = x0 + 94
    room = x1 - 14 - right_w - tx - (16 if right_w else 0)
    special = _long_text(card.get("special"))
    line = state + (f" · {special}" if special else "")
    for text in _clip(c, line, 12, room, 1, bold=True):
        c.text((tx, y0 + 17), text, 12, fill=ACCENT if special else MUTED, bold=True,
               anchor="lm")
    name = clean_text(card.get("name"), limit=60) or "Battle"
    c.text((tx, y0 + 46), c.fit(name, 24, room, bold=True), 24, fill=TEXT, bold=True,
           anchor="lm", role="turn")
    _forces_row(c, tx, y0 + 78, _forces(card.get("forces")), tx + room)
    return tx + room + 16, x1 - 14


def _firing_track(c: Canvas, x1: float, cy: float, phase: Any) -> None:
    """Right-aligned at ``x1``: the firing phases 1-4, then Withdraw, the current one gold."""
    items = [(str(p), p) for p in FIRING_PHASES] + [("Withdraw", "withdraw")]
    widths = [max(32.0, c.text_width(label, BIG, bold=True) + 16) for label, _ in items]
    x = x1 - sum(widths) - 4 * (len(items) - 1)
    for (label, key), w in zip(items, widths, strict=True):
        lit = phase == key
        c.rect((x, cy - 15, x + w, cy + 15), fill=GOLD if lit else (54, 58, 70), radius=7)
        c.text((x + w / 2, cy + 0.5), label, BIG, fill=INK if lit else MUTED, bold=True,
               anchor="mm", role="turn")
        x += w + 4


def _track_width(c: Canvas) -> float:
    return 4 * (32 + 4) + c.text_width("Withdraw", BIG, bold=True) + 16


def _header(c: Canvas, view: Mapping[str, Any], table: _Table, battle: Mapping[str, Any],
            outcome: Mapping[str, Any] | None, digest: _Digest) -> None:
    """Across the top of the middle: the outcome, the battle being fought or decided, the
    card being resolved, a battle won since the last board, or what happened instead."""
    y0 = HEADER_BOX[1]
    current = mapping(view.get("current"))
    card = mapping(battle.get("card")) or current
    if outcome is not None:
        _outcome_header(c, table, outcome)
    elif battle:
        track_w = _track_width(c)
        rnd = as_int(battle.get("round"))
        rx0, rx1 = _battle_header(c, table, card, "BATTLE" + (f" · ROUND {rnd}" if rnd else ""),
                                  track_w)
        c.text((rx1, y0 + 17), "FIRING PHASE", 12, fill=MUTED, bold=True, anchor="rm")
        _firing_track(c, rx1, y0 + 46, battle.get("phase"))
        agg, dfd = battle.get("aggressor"), battle.get("defender")
        runs: list[Run] = [(table.name(agg), lighten(table.style(agg).bar, 0.25), None),
                           (" attacks ", MUTED, None),
                           (table.name(dfd), lighten(table.style(dfd).bar, 0.25), None)]
        _runs_right(c, rx0, rx1, y0 + 78, runs, 15)
    elif card and _is_battlecard(card):  # drawn: the aggressor decides
        right_w = 200.0
        rx0, rx1 = _battle_header(c, table, card, "BATTLECARD DRAWN", right_w)
        side = _style(card.get("aggressor"))
        aggressor = next((p.get("id") for p in (table.top, table.bottom)
                          if p is not None and p.get("side") == card.get("aggressor")), None)
        c.text((rx1, y0 + 17), "AGGRESSOR", 12, fill=MUTED, bold=True, anchor="rm")
        who = table.name(aggressor) if aggressor is not None else (side.label or "?")
        c.text((rx1, y0 + 46), c.fit(who, 20, rx1 - rx0, bold=True), 20,
               fill=lighten(side.bar, 0.25), bold=True, anchor="rm")
        c.text((rx1, y0 + 78), "attack or decline", 15, fill=MUTED, anchor="rm")
    elif card:
        _resolving_header(c, card)
    elif digest.finished is not None:
        _finished_header(c, view, table, digest.finished)
    else:
        _idle_header(c, view, table, digest)


def _runs_right(c: Canvas, x0: float, x1: float, cy: float, runs: list[Run],
                size: float) -> None:
    """``runs`` on one line, right-aligned at ``x1`` (cut to start at ``x0`` at most)."""
    width = sum(c.text_width(t, size, bold=True) for t, _, _ in runs)
    start = max(x0, x1 - width)
    caps: list[Run] = [(t, col, (x1 - x0) * 0.45 if i % 2 == 0 else None)
                       for i, (t, col, _) in enumerate(runs)]
    text_runs(c, start, cy, caps, size, x1, bold=True)


def _outcome_header(c: Canvas, table: _Table, outcome: Mapping[str, Any]) -> None:
    x0, y0, x1, _ = HEADER_BOX
    c.rect(HEADER_BOX, fill=(54, 48, 30), outline=ACCENT, width=2.5, radius=10)
    winners = winner_ids(outcome)[:2]
    runs: list[Run] = []
    for i, winner in enumerate(winners):
        label = table.style(winner).label
        runs += [("" if not i else " and ", TEXT, None), (table.name(winner), TEXT, 380.0),
                 (f" ({label})" if label else "", TEXT, None)]
    runs.append((" win" + ("s" if len(winners) == 1 else "") if winners else "A draw",
                 TEXT, None))
    c.text((x0 + 18, y0 + 17), "GAME OVER", 12, fill=ACCENT, bold=True, anchor="lm")
    text_runs(c, x0 + 18, y0 + 47, runs, 26, x1 - 18, bold=True, role="turn")
    reason = _long_text(outcome.get("reason"), limit=200)
    for line in _clip(c, reason, 15, x1 - x0 - 36, 1):
        c.text((x0 + 18, y0 + 79), line, 15, fill=SOFT, anchor="lm")


def _resolving_header(c: Canvas, card: Mapping[str, Any]) -> None:
    """A conflict card being resolved: its Action Number, name and effect."""
    x0, y0, x1, y1 = HEADER_BOX
    c.rect(HEADER_BOX, fill=PANEL, radius=10)
    c.rect((x0 + 10, y0 + 10, x0 + 70, y1 - 10), fill=FACE, outline=FACE_EDGE, width=1,
           radius=6)
    _action_number(c, (x0 + 40, y0 + HEADER_H / 2), 17, as_int(card.get("action_number")))
    tx = x0 + 86
    kind = clean_text(card.get("kind"), limit=16).replace("_", " ").upper()
    c.text((tx, y0 + 14), "RESOLVING" + (f" · {kind}" if kind else ""), 12, fill=MUTED,
           bold=True, anchor="lm")
    name = clean_text(card.get("name"), 60) or "?"
    c.text((tx, y0 + 37), c.fit(name, 22, x1 - tx - 14, bold=True), 22, fill=TEXT, bold=True,
           anchor="lm", role="turn")
    # its effect: what the player must now do, read on a phone (two rows)
    for i, line in enumerate(_clip(c, _long_text(card.get("text")), BIG, x1 - tx - 14, 2)):
        c.text((tx, y0 + 61 + i * 21), line, BIG, fill=SOFT, anchor="lm", role="log")


HOW = {"": "BATTLE WON", "uncontested": "BATTLE WON · UNCONTESTED",
       "stalemate": "BATTLE WON · STALEMATE", "evacuation": "BATTLE WON · EVACUATION"}


def _finished_header(c: Canvas, view: Mapping[str, Any], table: _Table,
                     fin: _Finished) -> None:
    """A battle won since the last board: its card, and who won how many points."""
    card = dict(_find_battlecard(view, fin.card))
    card.update(name=fin.card, vp=fin.vp)
    right_w = 230.0
    rx0, rx1 = _battle_header(c, table, card, HOW.get(fin.how, "BATTLE WON"), right_w)
    y0 = HEADER_BOX[1]
    style = table.style(fin.winner)
    c.text((rx1, y0 + 17), "WON BY", 12, fill=MUTED, bold=True, anchor="rm")
    c.text((rx1, y0 + 46), c.fit(table.name(fin.winner), 22, rx1 - rx0, bold=True), 22,
           fill=lighten(style.bar, 0.25), bold=True, anchor="rm")
    gain = f"+{fin.vp} VP" + (f" · {fin.total_vp} in all" if fin.total_vp is not None else "")
    c.text((rx1, y0 + 78), c.fit(gain, BIG, rx1 - rx0, bold=True), BIG, fill=GOLD, bold=True,
           anchor="rm", role="score")


def _idle_header(c: Canvas, view: Mapping[str, Any], table: _Table, digest: _Digest) -> None:
    x0, y0, x1, _ = HEADER_BOX
    c.rect(HEADER_BOX, fill=PANEL, radius=10)
    c.text((x0 + 18, y0 + 17), "IN PLAY", 12, fill=MUTED, bold=True, anchor="lm")
    c.text((x0 + 18, y0 + 46), "No battle in progress", 24, fill=FAINT, bold=True,
           anchor="lm")
    news = digest.news
    runs: list[Run] = []
    if news is not None:
        card = clean_text(news.get("card"), limit=60) or "A battle"
        kind = news.get("type")
        if kind == "declined":
            runs = [(table.name(news.get("player")), SOFT, 300.0),
                    (f" declined {card}", SOFT, None)]
        elif kind == "battle_ignored":
            runs = [(f"{card} ignored: no forces on either side", SOFT, None)]
        else:
            runs = [(f"{card} cannot be fought yet: discarded", SOFT, None)]
    else:
        last = mapping(view.get("last_move"))
        action = drawable_text(last.get("action"), table.players.names, limit=40)
        if action:
            runs = [("Last move: ", MUTED, None), (table.name(last.get("player")), MUTED, 300.0),
                    (f" · {action}", MUTED, None)]
    if runs:
        text_runs(c, x0 + 18, y0 + 78, runs, 15, x1 - 18)

