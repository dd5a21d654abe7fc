"""The Antiquity header, log and nation panels: the round, whose turn it is and the prompt
(or the winner); the last turn in words (phone first: wrapped at the essential size); a
panel per nation in seat order (name and player, points, resources, cities, temples,
legions, galleys, personalities, know-hows), each drawn once and kept while it does not
change."""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Mapping, Sequence
from functools import partial
from typing import Any

from PIL import Image

from render.antiquity.board import _hull, _temple_glyph
from render.antiquity.events import _Line, _Turn
from render.antiquity.layout import (
    ESSENTIAL,
    KNOWHOW_TAGS,
    KNOWHOWS,
    LOG_BOX,
    MAP_Y,
    MAX_NATIONS,
    PANEL_GAP,
    PANEL_H,
    PANEL_W,
    PANELS_Y,
    PERSONALITIES,
    PERSONALITY_TAGS,
    RESOURCE_COLOURS,
    RESOURCES,
    WIDTH,
    M,
)
from render.antiquity.view import _NationView, _winners
from render.common import (
    ACCENT,
    BACKGROUND,
    DANGER,
    FAINT,
    GOLD,
    MUTED,
    PANEL,
    PANEL_HIGHLIGHT,
    TEXT,
    Canvas,
    Colour,
    DrawingCache,
    Point,
    as_int,
    bounded,
    content_key,
    drawable_text,
    lighten,
    mapping,
    pill,
    round_label,
    seat_card,
    tag,
    text_on,
    text_runs,
)


def _header(c: Canvas, view: Mapping[str, Any], nations: list[_NationView],
            current: str | None, doing: str, over: bool) -> None:
    """The round, whose turn it is and what they do (or who won), and the prompt: drawn once
    per look, then pasted (see :meth:`Canvas.reuse`)."""
    key = ("antiquity header", round_label(view), as_int(view.get("target")), current, doing,
           over, content_key(view.get("outcome")), content_key(view.get("prompt")),
           tuple((n.id, n.name, n.colour, n.player, n.player_name) for n in nations))
    c.reuse(key, (0, 0, WIDTH, MAP_Y), lambda: _draw_header(c, view, nations, current, doing,
                                                            over))


def _draw_header(c: Canvas, view: Mapping[str, Any], nations: list[_NationView],
                 current: str | None, doing: str, over: bool) -> None:
    x0, x1 = M + 12, WIDTH - M - 12
    y = M + 16
    c.text((x0, y), "ANTIQUITY", 14, fill=MUTED, bold=True, anchor="lm")
    label = round_label(view)
    if label:
        c.text((x1, y), label, ESSENTIAL, fill=TEXT, bold=True, anchor="rm", role="turn")
    target = as_int(view.get("target"))
    if target > 0:
        tx = x0 + c.text_width("ANTIQUITY", 14, bold=True) + 18
        c.text((tx, y), f"First to {min(target, 99)} personalities wins", 13, fill=MUTED,
               anchor="lm")
    y = M + 40
    if over:
        winners = _winners(view, nations)
        if winners:
            runs: list[tuple[str, Colour, float | None]] = [("Winner: ", ACCENT, None)]
            for i, n in enumerate(winners):
                runs.append(((", " if i else "") + n.name, lighten(n.colour, 0.3), None))
                runs.append((f" ({n.player_name})", ACCENT, 200))
            text_runs(c, x0, y, runs, ESSENTIAL, x1, bold=True, role="turn")
        else:
            c.text((x0, y), "Game over", ESSENTIAL, fill=ACCENT, bold=True, anchor="lm",
                   role="turn")
        reason = drawable_text(mapping(view.get("outcome")).get("reason"), limit=160)
        if reason:
            c.text((x0, y + 22), c.fit(reason, 13, x1 - x0), 13, fill=MUTED, anchor="lm")
        return
    nation = next((n for n in nations if n.id == current), None)
    if nation is None:
        c.text((x0, y), "Waiting", ESSENTIAL, fill=MUTED, bold=True, anchor="lm", role="turn")
    else:
        c.circle((x0 + 7, y), 7, fill=nation.colour, outline=(240, 238, 230), width=1.5)
        runs = [(nation.name, lighten(nation.colour, 0.35), None),
                (" (", TEXT, None), (nation.player_name, TEXT, 220), (f") {doing}", TEXT, None)]
        text_runs(c, x0 + 20, y, runs, ESSENTIAL, x1, bold=True, role="turn")
    prompt = drawable_text(view.get("prompt"), limit=200)  # without Discord's markdown
    if prompt:
        c.text((x0, y + 24), c.fit(prompt, ESSENTIAL, x1 - x0), ESSENTIAL, fill=MUTED,
               anchor="lm", role="turn")


#: The log's lines: essential text (what a player reads of the last turn before moving).
LOG_SIZE = ESSENTIAL
LOG_STEP = ESSENTIAL + 5
LOG_TOP = 38  # the first line's middle, below the box's top
LOG_WRAP = 3  # the most lines one entry takes (the last cut with an ellipsis)
LOG_INDENT = 14  # a line under its nation's heading, and a wrapped line's rest

Run = tuple[str, Colour]


def _wrap_runs(c: Canvas, runs: Sequence[Run], first: float, rest: float) -> list[list[Run]]:
    """``runs`` in lines at most ``first`` (then ``rest``) wide, broken between words, at
    most :data:`LOG_WRAP` of them (the last may run over: it is cut when drawn)."""
    lines: list[list[Run]] = [[]]
    x = 0.0
    for text, colour in runs:
        # each word with the spaces before it (and a run's spaces at its end)
        for word in re.findall(r"\s*\S+|\s+$", text):
            w = c.text_width(word, LOG_SIZE)
            room = first if len(lines) == 1 else rest
            if x > 0 and x + w > room - 2 and len(lines) < LOG_WRAP:
                if not word.strip():
                    continue  # spaces at the end of a line
                lines.append([])
                word = word.lstrip()
                w = c.text_width(word, LOG_SIZE)
                x = 0.0
            line = lines[-1]
            if line and line[-1][1] == colour:  # one run per colour: fewer texts to draw
                line[-1] = (line[-1][0] + word, colour)
            else:
                line.append((word, colour))
            x += w
    return lines


def _log_entry(c: Canvas, line: _Line, short: bool, width: float) -> list[list[Run]]:
    """A log line's lines of text; ``short``: without its nation's name (it is under the
    nation's heading, with a dot of its colour)."""
    if short:
        text, colour = line.runs[1]
        runs = ((text.lstrip(), colour), *line.runs[2:])
        return _wrap_runs(c, runs, width - LOG_INDENT, width - LOG_INDENT)
    return _wrap_runs(c, line.runs, width, width - LOG_INDENT)


def _log(c: Canvas, turn: _Turn) -> None:
    """The last turn in words, phone first: at the essential size, wrapped, a nation's
    name once in the heading of its turn (its lines under it marked with a dot of its
    colour); the latest lines when they do not all fit, after how many are left out.
    Drawn once per look, then pasted (see :meth:`Canvas.reuse`)."""
    key = ("antiquity log", tuple((line.runs, line.nation, line.heading)
                                  for line in turn.lines))
    c.reuse(key, LOG_BOX, lambda: _draw_log(c, turn))


def _draw_log(c: Canvas, turn: _Turn) -> None:
    x0, y0, x1, y1 = LOG_BOX
    c.text((x0 + 12, y0 + 14), "LAST TURN", 10.5, fill=MUTED, bold=True, anchor="lm")
    left, width = x0 + 12, x1 - x0 - 24
    room = int((y1 - 6 - LOG_STEP / 2 - (y0 + LOG_TOP)) // LOG_STEP) + 1
    lines = turn.lines
    if not lines:
        c.text((left, y0 + LOG_TOP), "Nothing yet.", LOG_SIZE, fill=FAINT, anchor="lm",
               role="log")
        return
    n = len(lines)
    heads: list[int] = []  # the heading each line is under (-1: none)
    last = -1
    for i, line in enumerate(lines):
        heads.append(last)
        if line.heading:
            last = i

    def short(i: int, start: int) -> bool:
        line, j = lines[i], heads[i]
        return (not line.heading and line.nation is not None and len(line.runs) > 1
                and j >= start and lines[j].nation == line.nation)

    wrapped: dict[tuple[int, bool], list[list[Run]]] = {}

    def entry(i: int, start: int) -> list[list[Run]]:
        key = (i, short(i, start))
        if key not in wrapped:
            wrapped[key] = _log_entry(c, lines[i], key[1], width)
        return wrapped[key]

    first = n - 1  # the earliest line shown: as early as they all fit
    for start in range(n - 1, max(0, n - room) - 1, -1):
        used = sum(len(entry(i, start)) for i in range(start, n)) + (1 if start else 0)
        if used <= room:
            first = start
    y: float = y0 + LOG_TOP
    if first:
        c.text((left, y), f"… {first} earlier", LOG_SIZE, fill=FAINT, anchor="lm",
               role="log")
        y += LOG_STEP
    for i in range(first, n):
        is_short = short(i, first)
        if is_short:
            nation = lines[i].runs[0][1]
            c.circle((left + 4, y), 3.5, fill=nation)
        for k, runs in enumerate(entry(i, first)):
            x = left + (LOG_INDENT if is_short or k else 0)
            text_runs(c, x, y, [(t, col, None) for t, col in runs], LOG_SIZE, x1 - 12,
                      role="log")
            y += LOG_STEP


def _icon(c: Canvas, kind: str, centre: Point) -> None:
    c.stamp(("icon", kind), centre, 9, lambda cv, p: _draw_icon(cv, p, kind))


def _draw_icon(c: Canvas, centre: Point, kind: str) -> None:
    x, y = centre
    if kind in RESOURCE_COLOURS:
        colour = RESOURCE_COLOURS[kind]
        if kind == "gold":
            c.circle((x, y), 6.5, fill=colour, outline=(120, 84, 10), width=1.2)
            c.circle((x, y), 3.8, outline=(200, 150, 30), width=1)
        elif kind == "iron":
            c.polygon([(x - 7, y + 4.5), (x - 4, y - 4.5), (x + 4, y - 4.5), (x + 7, y + 4.5)],
                      fill=colour, outline=(50, 60, 72), width=1.2)
        else:
            c.rect((x - 6.5, y - 5.5, x + 6.5, y + 5.5), fill=colour, outline=(120, 116, 108),
                   width=1.2, radius=1.5)
            c.line([(x - 3, y - 3), (x + 1, y + 2)], fill=(170, 166, 156), width=1)
    elif kind == "city":
        c.circle((x, y), 6.5, fill=(210, 200, 180), outline=(60, 54, 40), width=1.4)
    elif kind == "temple":
        _temple_glyph(c, (x, y + 1), 7, (240, 230, 200), (40, 34, 24))
    elif kind == "legion":
        c.rect((x - 6.5, y - 6.5, x + 6.5, y + 6.5), fill=(200, 200, 206),
               outline=(40, 40, 46), width=1.2, radius=2)
    elif kind == "galley":
        c.polygon(_hull(x, y, 15, 10), fill=(200, 200, 206), outline=(40, 40, 46), width=1.2)


def _panel(c: Canvas, box: tuple[float, float, float, float], n: _NationView,
           view: Mapping[str, Any], current: str | None, over: bool, winner: bool,
           turn: _Turn, target: int) -> None:
    x0, y0, x1, _ = box
    now = not over and n.id == current
    fill = PANEL_HIGHLIGHT if now else PANEL
    seat_card(c, box, n.colour if not n.out else FAINT, fill)
    if now:
        c.rect(box, outline=GOLD, width=2, radius=10)
    # row 1: name, player, points
    right = x1 - 8
    points = n.num("points")
    score = f"{points}/{target}" if target > 0 else str(points)
    sw = c.text_width(score, ESSENTIAL, bold=True)
    c.text((right, y0 + 14), score, ESSENTIAL, fill=ACCENT if winner else TEXT, bold=True,
           anchor="rm", role="score")
    right -= sw + 6
    if winner:
        right = pill(c, right, y0 + 5, "WINNER", ACCENT, size=10.5, height=18) - 5
    elif n.out:
        right = pill(c, right, y0 + 5, "OUT", DANGER, size=10.5, height=18) - 5
    elif now:
        right = pill(c, right, y0 + 5, "TURN", GOLD, size=10.5, height=18) - 5
    nx = x0 + 14
    runs: list[tuple[str, Colour, float | None]] = [
        (n.name, lighten(n.colour, 0.35), None), ("  ", TEXT, None),
        (n.player_name, TEXT, None)]
    text_runs(c, nx, y0 + 14, runs, 14, right - 4, bold=True)
    # row 2: resources, then production this turn
    y = y0 + 37
    x = nx + 6
    for res in RESOURCES:
        _icon(c, res, (x, y))
        value = str(n.num(res))
        c.text((x + 10, y), value, ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role="score")
        x += 10 + c.text_width(value, ESSENTIAL, bold=True) + 16
    made = turn.produced.get(n.id)
    if made:
        tag(c, (x + 22, y), made[-1], (36, 120, 64), size=11)
    # personalities by kind (only those held)
    pers = mapping(n.raw.get("personalities"))
    held = [f"{PERSONALITY_TAGS[k]}{bounded(pers.get(k))}" for k in PERSONALITIES
            if bounded(pers.get(k)) > 0]
    if held:
        text = " ".join(held)
        c.text((x1 - 8, y), c.fit(text, 12, 120), 12, fill=MUTED, bold=True, anchor="rm")
    # row 3: cities, temples, legions, galleys
    y = y0 + 59
    x = nx + 6
    for kind, key in (("city", "cities"), ("temple", "temples"), ("legion", "legions"),
                      ("galley", "galleys")):
        _icon(c, kind, (x, y))
        value = str(n.num(key))
        c.text((x + 11, y), value, ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role="count")
        x += 11 + c.text_width(value, ESSENTIAL, bold=True) + 16
    stones = n.raw.get("stones")
    if isinstance(stones, int) and not isinstance(stones, bool):
        c.text((x1 - 8, y), f"{bounded(stones)} stones left", 11.5, fill=MUTED, anchor="rm")
    # row 4: know-hows
    y = y0 + 80
    known = n.raw.get("knowhow")
    kinds = [k for k in KNOWHOWS if isinstance(known, list) and k in known]
    new = turn.learnt.get(n.id, set())
    x = nx
    if not kinds:
        c.text((x, y), "no know-how", 11, fill=FAINT, anchor="lm")
    for k in kinds:
        label = KNOWHOW_TAGS[k]
        w = c.text_width(label, 10.5, bold=True) + 10
        if x + w > x1 - 6:
            break
        colour = GOLD if k in new else (70, 80, 104)
        c.rect((x, y - 8, x + w, y + 8), fill=colour, radius=8)
        c.text((x + w / 2, y + 0.5), label, 10.5, fill=text_on(colour), bold=True, anchor="mm")
        x += w + 4


#: Panels drawn lately (a nation's panel rarely changes from one board to the next), by
#: everything they show.
PANEL_CACHE = 96
_PANELS = DrawingCache(PANEL_CACHE)


def _panel_key(n: _NationView, now: bool, over: bool, winner: bool, turn: _Turn,
               target: int) -> Hashable:
    pers = mapping(n.raw.get("personalities"))
    known = n.raw.get("knowhow")
    stones = n.raw.get("stones")
    return (n.id, n.name, n.colour, n.player_name, n.out, now, over, winner, target,
            tuple(n.num(k) for k in ("points", *RESOURCES, "cities", "temples", "legions",
                                     "galleys")),
            tuple(bounded(pers.get(k)) for k in PERSONALITIES),
            tuple(k for k in KNOWHOWS if isinstance(known, list) and k in known),
            bounded(stones) if isinstance(stones, int) and not isinstance(stones, bool) else None,
            tuple(turn.produced.get(n.id, [])[-1:]), tuple(sorted(turn.learnt.get(n.id, ()))))


def _panels(c: Canvas, view: Mapping[str, Any], nations: list[_NationView],
            current: str | None, over: bool, turn: _Turn) -> None:
    winners = {n.id for n in _winners(view, nations)} if over else set()
    target = as_int(view.get("target"))
    for i, n in enumerate(nations[:MAX_NATIONS]):
        col, row = i % 2, i // 2
        x0 = M + col * (PANEL_W + 8)
        y0 = PANELS_Y + row * (PANEL_H + PANEL_GAP)
        args = (n, view, current, over, n.id in winners, turn, target)
        if not c.fast:  # reference quality: drawn in place
            _panel(c, (x0, y0, x0 + PANEL_W, y0 + PANEL_H), *args)
            continue
        key = _panel_key(n, not over and n.id == current, over, n.id in winners, turn, target)
        group = frozenset({("panel", i)})  # the panel's picture does not hide its own text
        image = _PANELS.get(key, partial(_panel_image, *args), (x0, y0), group)
        with c.group(("panel", i)):
            c.paste(image, (x0, y0))


def _panel_image(n: _NationView, view: Mapping[str, Any], current: str | None, over: bool,
                 winner: bool, turn: _Turn, target: int) -> Image.Image:
    """A nation's panel on its own, at final size (to be kept)."""
    pc = Canvas(math.ceil(PANEL_W), math.ceil(PANEL_H), BACKGROUND)
    _panel(pc, (0, 0, PANEL_W, PANEL_H), n, view, current, over, winner, turn, target)
    return pc.image

