"""Drawing helpers shared by every game's renderer: ``from render.common import ...``.

Renderers draw on a :class:`Canvas` in final-image pixels (:mod:`.canvas`: the fast
pipeline, its caches and the reference-quality yardstick) and save it with their game's
fixed palette (:mod:`.png`). The rest is shared so that each thing is written once:

- :mod:`.palette`: the dark "war table" colours, seat colours and colour arithmetic;
- :mod:`.text`: the bundled fonts, player-supplied text made safe to draw and fitted, and
  the phone-first rule (:func:`min_essential_size`, :class:`TextLog`);
- :mod:`.view`: tolerant readers of the view dict and the events (:func:`as_int`,
  :func:`mapping`, :class:`Players`, :func:`drawable_events`...);
- :mod:`.icons`, :mod:`.widgets` and :mod:`.paths`: pieces, labels and arrows drawn the
  same way on every board.
"""

from __future__ import annotations

from render.common.canvas import (
    AA,
    AA_BIG_AREA,
    MASK_CACHE,
    REFERENCE_SCALE,
    STAMP_CACHE,
    TEXT_CACHE,
    Box,
    Canvas,
    DrawingCache,
    Point,
    capture_images,
    enlarged,
    reference_quality,
)
from render.common.icons import burst, coin_icon, heart, logs_icon, star_points, token, tower_icon
from render.common.palette import (
    ACCENT,
    BACKGROUND,
    BOX_FILL,
    BOX_LINE,
    DANGER,
    FAINT,
    GOLD,
    LABEL_STROKE,
    MUTED,
    NEUTRAL,
    PANEL,
    PANEL_HIGHLIGHT,
    RGB,
    SEAT_COLOURS,
    TEXT,
    Colour,
    darken,
    lighten,
    luminance,
    mix,
    seat_colour,
    text_on,
    with_alpha,
)
from render.common.paths import path_arrow, path_length, point_along, trim_path
from render.common.png import PALETTE_DIR, encode_png, load_palette, palette_png, rounded_mask
from render.common.text import (
    ESSENTIAL_ROLES,
    FONT_DIR,
    MAX_TEXT,
    PHONE_MIN_PX,
    PHONE_WIDTH,
    DrawnShape,
    DrawnText,
    Font,
    TextLog,
    clean_text,
    display_name,
    drawable_text,
    essential_size,
    fit_text,
    font,
    has_glyph,
    min_essential_size,
    plain_text,
    wrap_text,
)
from render.common.view import (
    MAX_EVENTS,
    Players,
    as_int,
    as_str,
    bounded,
    drawable_events,
    first_to_act,
    is_over,
    mapping,
    mappings,
    note_actor,
    optional_mapping,
    round_label,
    winner_ids,
)
from render.common.widgets import (
    Run,
    arrow,
    dashed_line,
    dashed_rect,
    pill,
    pips,
    progress_bar,
    seat_card,
    tag,
    text_runs,
    who_line,
)

__all__ = [
    "AA", "AA_BIG_AREA", "ACCENT", "BACKGROUND", "BOX_FILL", "BOX_LINE", "DANGER",
    "ESSENTIAL_ROLES", "FAINT", "FONT_DIR", "GOLD", "LABEL_STROKE", "MASK_CACHE", "MAX_EVENTS",
    "MAX_TEXT", "MUTED", "NEUTRAL", "PALETTE_DIR", "PANEL", "PANEL_HIGHLIGHT", "PHONE_MIN_PX",
    "PHONE_WIDTH", "REFERENCE_SCALE", "RGB", "SEAT_COLOURS", "STAMP_CACHE", "TEXT", "TEXT_CACHE",
    "Box", "Canvas", "Colour", "DrawingCache", "DrawnShape", "DrawnText", "Font", "Players",
    "Point", "Run",
    "TextLog", "arrow", "as_int", "as_str", "bounded", "burst", "capture_images", "clean_text",
    "coin_icon", "darken", "dashed_line", "dashed_rect", "display_name", "drawable_events",
    "drawable_text",
    "encode_png", "enlarged", "essential_size", "first_to_act", "fit_text", "font",
    "has_glyph", "heart",
    "is_over", "lighten", "load_palette", "logs_icon", "luminance", "mapping", "mappings",
    "min_essential_size", "mix", "note_actor", "optional_mapping", "palette_png", "path_arrow",
    "path_length", "pill", "pips", "plain_text", "point_along", "progress_bar", "reference_quality",
    "round_label", "rounded_mask", "seat_card", "seat_colour", "star_points", "tag", "text_on",
    "text_runs", "token", "tower_icon", "trim_path", "who_line", "winner_ids", "with_alpha",
    "wrap_text",
]
