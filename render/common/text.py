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
import re
import unicodedata
from collections.abc import Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
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
#: resources, how many cards each hand holds, the names of the places a move names, a
#: unit's name and strength (a unit card, a token's label), and the lines of a list of
#: recent actions or shots a player reads before moving.
ESSENTIAL_ROLES = ("turn", "count", "score", "hand", "place", "unit", "log")


def min_essential_size(width: int) -> float:
    """The smallest font size (px) essential text may have on an image ``width`` wide."""
    return PHONE_MIN_PX * width / PHONE_WIDTH


def essential_size(width: int) -> float:
    """The font size (whole px) of essential text on an image ``width`` wide."""
    return float(math.ceil(min_essential_size(width)))


# --- Discord markdown in images ----------------------------------------------------------

_MENTION = re.compile(r"<@!?(\d+)>")
_CHANNEL = re.compile(r"<#\d+>|<@&\d+>")
_EMOJI = re.compile(r"<a?:(\w+):\d+>")
_TIMESTAMP = re.compile(r"<t:(\d+)(?::\w)?>")
_LINK = re.compile(r"\[([^\]\n]+)\]\((?:<)?https?://[^)\s]+(?:>)?\)")
_PREFIX = re.compile(r"^\s*(?:-#\s+|#{1,3}\s+|>>>\s?|>\s)", re.MULTILINE)
_SPOILER = re.compile(r"\|\|(.+?)\|\|", re.DOTALL)
_PAIRED = [re.compile(p, re.DOTALL) for p in (
    r"```(?:[a-z0-9_+-]*\n)?(.+?)```",  # a code block (its language tag dropped)
    r"``(.+?)``",
    r"`([^`]+)`",
    r"\*\*(.+?)\*\*",
    r"__(.+?)__",
    r"~~(.+?)~~",
    r"(?<![\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])",
    r"(?<!\w)_(?=\S)([^_]*?\S)_(?!\w)",
)]
_ESCAPED = re.compile(r"\\([*_`~|<>#\\-])")


def plain_text(text: Any, names: Mapping[str, str] | None = None) -> str:
    """``text`` written for Discord's markdown as an image should show it: code, bold,
    italics, underline, strike and spoiler marks dropped (their words kept), ``-# `` and
    heading and quote prefixes dropped, ``<@id>`` mentions replaced by the player's name
    from ``names`` (``@someone`` when unknown), custom emoji by their ``:name:``, masked
    links by their words, escaped characters unescaped. Not cleaned otherwise: pass the
    result through :func:`clean_text` (or a helper that does) before drawing it."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = text[: MAX_TEXT * 8]
    escaped: list[str] = []

    def hide(m: re.Match[str]) -> str:
        escaped.append(m.group(1))
        return f"\x00{len(escaped) - 1}\x00"

    text = _ESCAPED.sub(hide, text)

    def mention(m: re.Match[str]) -> str:
        name = clean_text(names.get(m.group(1))) if names else ""
        return name or "@someone"

    text = _MENTION.sub(mention, text)
    text = _CHANNEL.sub("", text)
    text = _EMOJI.sub(r":\1:", text)
    text = _TIMESTAMP.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _PREFIX.sub("", text)
    text = _SPOILER.sub(r"\1", text)
    for _ in range(3):  # nested marks: **`go gold`**
        before = text
        for pattern in _PAIRED:
            text = pattern.sub(r"\1", text)
        if text == before:
            break
    text = text.replace("`", "")  # an unpaired backtick is never meant to be drawn
    return re.sub("\x00(\\d+)\x00", lambda m: escaped[int(m.group(1))], text)


def drawable_text(text: Any, names: Mapping[str, str] | None = None,
                  limit: int = MAX_TEXT) -> str:
    """Text written for Discord (narration, an event's words) ready to draw on one line:
    :func:`plain_text`, then :func:`clean_text`."""
    return clean_text(plain_text(text, names), limit)


# --- what a board drew, for the tests ----------------------------------------------------

#: A box in final-image pixels: (left, top, right, bottom).
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class DrawnText:
    """One line of text a renderer drew: its role (None for details), text and size; on a
    board, also its ink's ``box`` in final-image pixels, its place in the drawing
    ``order`` and the ``groups`` it belongs to (see :meth:`TextLog.group`)."""

    role: str | None
    text: str
    size: float
    box: Box | None = None
    order: int = 0
    groups: frozenset[Hashable] = field(default_factory=frozenset)

    def moved(self, dx: float, dy: float, order: int,
              groups: frozenset[Hashable]) -> DrawnText:
        box = self.box
        if box is not None:
            box = (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)
        return replace(self, box=box, order=order, groups=self.groups | groups)


@dataclass(frozen=True)
class DrawnShape:
    """An opaque shape a board drew, in final-image pixels: ``kind`` is "box" (``coords``
    left, top, right, bottom), "ellipse" (its box), "ring" (an ellipse's outline
    ``width`` thick), "polygon" or "line" (x, y pairs; a line ``width`` thick)."""

    kind: str
    coords: tuple[float, ...]
    width: float = 0
    order: int = 0
    groups: frozenset[Hashable] = field(default_factory=frozenset)

    @property
    def box(self) -> Box:
        xs, ys = self.coords[::2], self.coords[1::2]
        pad = self.width / 2 if self.kind in ("line", "ring") else 0
        return (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)

    def moved(self, dx: float, dy: float, order: int,
              groups: frozenset[Hashable]) -> DrawnShape:
        coords = tuple(v + (dx if i % 2 == 0 else dy) for i, v in enumerate(self.coords))
        return replace(self, coords=coords, order=order, groups=self.groups | groups)


Drawn = DrawnText | DrawnShape


class TextLog:
    """Records what renderers draw (for the tests): ``with TextLog() as log: render(...)``,
    then ``log.drawn`` (every line of text), ``log.shapes`` (the opaque shapes of the board
    itself, its stamps and pasted pictures) and ``log.width``. Nothing is recorded, and
    nothing is measured, while no log is active."""

    active: TextLog | None = None

    def __init__(self) -> None:
        self.drawn: list[DrawnText] = []
        self.shapes: list[DrawnShape] = []
        self.width = 0
        self._order = 0
        self._groups: frozenset[Hashable] = frozenset()
        self._outer: TextLog | None = None

    def __enter__(self) -> TextLog:
        self._outer = TextLog.active
        TextLog.active = self
        return self

    def __exit__(self, *exc: object) -> None:
        TextLog.active = self._outer

    def _next(self) -> int:
        self._order += 1
        return self._order

    def add_text(self, role: str | None, text: str, size: float,
                 box: Box | None = None) -> None:
        self.drawn.append(DrawnText(role, text, size, box, self._next(), self._groups))

    def add_shape(self, kind: str, coords: Iterable[float], width: float = 0) -> None:
        self.shapes.append(DrawnShape(kind, tuple(coords), width, self._next(), self._groups))

    def entries(self) -> list[Drawn]:
        """Everything recorded, in drawing order."""
        both: list[Drawn] = [*self.drawn, *self.shapes]
        return sorted(both, key=lambda d: d.order)

    def replay(self, entries: Iterable[Drawn], dx: float = 0, dy: float = 0,
               groups: frozenset[Hashable] = frozenset()) -> None:
        """Record ``entries`` (another log's) again, moved by (dx, dy), as drawn now."""
        for entry in entries:
            moved = entry.moved(dx, dy, self._next(), self._groups | groups)
            if isinstance(moved, DrawnText):
                self.drawn.append(moved)
            else:
                self.shapes.append(moved)

    @contextmanager
    def group(self, owner: Hashable) -> Iterator[None]:
        """Text and shapes drawn inside belong to ``owner``: a shape drawn after a text of
        the same group does not hide it (a label and the badge drawn around it)."""
        before = self._groups
        self._groups = before | {owner}
        try:
            yield
        finally:
            self._groups = before
