"""The colours every board shares: a dark "war table" theme, the seats' colours and
colour arithmetic (mixing, lightening, readable text on a fill)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

RGB = tuple[int, int, int]
Colour = tuple[int, ...]  # RGB or RGBA

BACKGROUND: RGB = (27, 29, 34)
PANEL: RGB = (38, 41, 49)
PANEL_HIGHLIGHT: RGB = (50, 54, 65)
TEXT: RGB = (236, 232, 222)
MUTED: RGB = (150, 152, 160)
FAINT: RGB = (92, 96, 106)
ACCENT: RGB = (255, 214, 102)  # last move, highlights
DANGER: RGB = (235, 64, 52)  # battles, "OUT"
NEUTRAL: RGB = (150, 150, 150)  # ownerless things
#: Boxes of text (status lines, logs, summaries) and their outlines.
BOX_FILL: RGB = (32, 35, 42)
BOX_LINE: RGB = (58, 62, 72)
#: A warm gold for what matters now (the current battle, a city founded, a General).
GOLD: RGB = (250, 204, 72)
#: The dark stroke round labels drawn over a map.
LABEL_STROKE: RGB = (18, 18, 22)

#: Player colours by seat (1-based): red, blue, green, amber, then spares.
SEAT_COLOURS: tuple[RGB, ...] = (
    (220, 72, 72),
    (66, 133, 230),
    (62, 176, 98),
    (232, 170, 40),
    (170, 100, 220),
    (40, 190, 190),
)


def seat_colour(seat: Any) -> RGB:
    """The colour of a 1-based seat; anything unusable gets the neutral grey."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 1 <= seat <= len(SEAT_COLOURS):
        return SEAT_COLOURS[seat - 1]
    return NEUTRAL


def mix(a: Sequence[int], b: Sequence[int], t: float) -> RGB:
    """``a`` moved ``t`` (0..1) of the way towards ``b``."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
            round(a[2] + (b[2] - a[2]) * t))


def lighten(c: Sequence[int], t: float) -> RGB:
    return mix(c, (255, 255, 255), t)


def darken(c: Sequence[int], t: float) -> RGB:
    return mix(c, (0, 0, 0), t)


def with_alpha(c: Sequence[int], alpha: int) -> Colour:
    return (c[0], c[1], c[2], alpha)


def luminance(c: Sequence[int]) -> float:
    return (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) / 255


def text_on(c: Sequence[int]) -> RGB:
    """A readable text colour on a ``c`` background."""
    return (24, 24, 28) if luminance(c) > 0.62 else (255, 255, 255)

