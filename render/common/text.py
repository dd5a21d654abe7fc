"""Fonts and text: the bundled DejaVu faces, making player-supplied text safe to draw, fitting
and wrapping it, and the phone-first rule for text a player needs to decide.

Fonts are the bundled DejaVu faces (``render/fonts``), so a machine without system fonts
renders the same image. Player-supplied text (display names) goes through
:func:`clean_text` and :func:`fit_text` first: control characters and glyphs the font lacks
are dropped and the result is shortened with an ellipsis to fit, so no name can break a
layout. Text a player needs to decide is drawn at least :func:`min_essential_size` tall and
recorded, with its role, in the active :class:`TextLog` (what the phone-first tests read).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).resolve().parents[1] / "fonts"
_FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

# --- fonts and text ------------------------------------------------------------------


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> Font:
    """DejaVu Sans (bold) at ``size`` px; Pillow's built-in font if the file is missing."""
    try:
        return ImageFont.truetype(str(FONT_DIR / _FONT_FILES[bold]), size)
    except OSError:
        return ImageFont.load_default(size=size)


@lru_cache(maxsize=1)
def _notdef() -> bytes | None:
    return _glyph_image("\U000effff")  # a noncharacter: surely not in the font


def _glyph_image(ch: str) -> bytes | None:
    probe = font(24)
    if not isinstance(probe, ImageFont.FreeTypeFont):
        return None
    img = Image.new("L", (48, 48), 0)
    ImageDraw.Draw(img).text((12, 8), ch, font=probe, fill=255)
    return img.tobytes()


@lru_cache(maxsize=4096)
def has_glyph(ch: str) -> bool:
    """Whether the bundled font draws ``ch`` as something other than its missing-glyph box."""
    notdef = _notdef()
    if notdef is None:
        return ch.isascii()
    try:
        return _glyph_image(ch) != notdef
    except Exception:  # a glyph FreeType cannot render at all
        return False


#: Longest text ever measured; anything longer is cut first (keeps hostile input cheap).
MAX_TEXT = 80


def clean_text(text: Any, limit: int = MAX_TEXT) -> str:
    """``text`` made safe to draw on one line.

    Drops control and format characters (newlines would start a second line), glyphs
    the font lacks (emoji would show as boxes) and piles of combining marks; collapses
    whitespace; keeps at most ``limit`` characters.
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    out: list[str] = []
    marks = 0
    for ch in text[: limit * 4]:
        cat = unicodedata.category(ch)
        if cat[0] == "Z" or ch in "\t\n\r":
            if out and out[-1] != " ":
                out.append(" ")
            marks = 0
            continue
        if cat[0] == "C":
            continue
        if cat[0] == "M":
            if marks or not out:
                continue
            marks += 1
        else:
            marks = 0
        if not has_glyph(ch):
            continue
        out.append(ch)
        if len(out) >= limit:
            break
    return "".join(out).strip()


def fit_text(text: str, fnt: Font, max_width: float) -> str:
    """``text``, cut and ended with an ellipsis if needed, so it is at most ``max_width`` wide."""
    if max_width <= 0 or not text:
        return ""
    if fnt.getlength(text) <= max_width:
        return text
    ellipsis = "…"
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if fnt.getlength(text[:mid].rstrip() + ellipsis) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    if lo == 0:
        return ellipsis if fnt.getlength(ellipsis) <= max_width else ""
    return text[:lo].rstrip() + ellipsis


def wrap_text(text: str, fnt: Font, max_width: float, max_lines: int) -> list[str]:
    """Greedy word wrap into at most ``max_lines`` lines; the last is ellipsised if cut."""
    words = text.split()
    lines: list[str] = []
    current = ""
    for i, word in enumerate(words):
        candidate = f"{current} {word}" if current else word
        if fnt.getlength(candidate) <= max_width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = word
        if len(lines) == max_lines - 1:
            current = " ".join(words[i:])
            break
    if current:
        lines.append(current)
    lines = lines[:max_lines]
    return [fit_text(line, fnt, max_width) for line in lines]


def display_name(names: Mapping[str, str] | None, player_id: Any, seat: Any = None) -> str:
    """The cleaned display name of a player: ``names`` first, else "Player N" by seat."""
    name = ""
    if names and isinstance(player_id, str):
        name = clean_text(names.get(player_id))
    if name:
        return name
    if isinstance(seat, int) and not isinstance(seat, bool):
        return f"Player {seat}"
    return clean_text(player_id) or "Player"


# --- phone-first text --------------------------------------------------------------------

#: Discord shows an image about this wide on a phone (CSS pixels).
PHONE_WIDTH = 390
#: What a player needs to decide must be at least this tall there (font size, px).
PHONE_MIN_PX = 8.0
#: The kinds of text a player needs to decide, which must meet :data:`PHONE_MIN_PX`:
#: whose turn it is (and the game's state line), counts on the board, scores and
#: resources, and how many cards each hand holds.
ESSENTIAL_ROLES = ("turn", "count", "score", "hand")


def min_essential_size(width: int) -> float:
    """The smallest font size (px) essential text may have on an image ``width`` wide."""
    return PHONE_MIN_PX * width / PHONE_WIDTH


def essential_size(width: int) -> float:
    """The font size (whole px) of essential text on an image ``width`` wide."""
    return float(math.ceil(min_essential_size(width)))


@dataclass(frozen=True)
class DrawnText:
    """One line of text a renderer drew: its role (None for details), text and size."""

    role: str | None
    text: str
    size: float


class TextLog:
    """Records the text renderers draw (for the phone-first tests): ``with TextLog() as
    log: render(...)``, then ``log.drawn`` and ``log.width``."""

    active: TextLog | None = None

    def __init__(self) -> None:
        self.drawn: list[DrawnText] = []
        self.width = 0

    def __enter__(self) -> TextLog:
        TextLog.active = self
        return self

    def __exit__(self, *exc: object) -> None:
        TextLog.active = None

