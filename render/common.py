"""Drawing helpers shared by every game's renderer.

Renderers draw on a :class:`Canvas` in final-image pixels; the canvas really draws at
``scale`` times that size and averages it back down on :meth:`Canvas.png`, which
anti-aliases every shape and glyph. Fonts are the bundled DejaVu faces
(``render/fonts``), so a machine without system fonts renders the same image.

Player-supplied text (display names) goes through :func:`clean_text` and
:func:`fit_text` first: control characters and glyphs the font lacks are dropped and
the result is shortened with an ellipsis to fit, so no name can break a layout.
"""

from __future__ import annotations

import io
import itertools
import math
import re
import struct
import unicodedata
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

try:
    from isal.isal_zlib import compress as _deflate
except ImportError:  # pragma: no cover - isal is a dependency; zlib is slower, not wrong
    from zlib import compress as _deflate

FONT_DIR = Path(__file__).resolve().parent / "fonts"
_FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}

RGB = tuple[int, int, int]
Colour = tuple[int, ...]  # RGB or RGBA
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

# --- palette (a dark "war table" theme) ----------------------------------------------

BACKGROUND: RGB = (27, 29, 34)
PANEL: RGB = (38, 41, 49)
PANEL_HIGHLIGHT: RGB = (50, 54, 65)
TEXT: RGB = (236, 232, 222)
MUTED: RGB = (150, 152, 160)
FAINT: RGB = (92, 96, 106)
ACCENT: RGB = (255, 214, 102)  # last move, highlights
DANGER: RGB = (235, 64, 52)  # battles, "OUT"
NEUTRAL: RGB = (150, 150, 150)  # ownerless things

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


# --- the canvas ----------------------------------------------------------------------

Point = tuple[float, float]
Box = tuple[float, float, float, float]

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


# --- the drawing pipeline ----------------------------------------------------------------
#
# A board is drawn at its final size on an RGB image (the *fast* canvas):
# - opaque axis-aligned rectangles are plain fills (no blending);
# - every other shape is filled through a coverage mask drawn :data:`AA` times larger and
#   averaged down, cached by its geometry relative to the pixel grid, so a repeated shape
#   (a counter, a pip, a card frame) costs one paste;
# - text is rasterised once per (text, font, size, anchor, stroke) and pasted as a mask;
# - composite pieces drawn with :meth:`Canvas.stamp` (counters, icons) are drawn once at
#   high quality on a transparent sprite and pasted; static layers (a board's frame and
#   grid) are built once by the renderer and become the canvas's ``base``;
# - the PNG is a palette image in the game's fixed palette (no dithering), compressed fast.
# Sprites and static layers use an explicit ``scale`` (the old way: drawn larger with
# blending, then reduced). ``reference_quality()`` draws a whole board that way at
# :data:`REFERENCE_SCALE`, losslessly: the yardstick the fast pipeline is tested against.

#: Shape masks are drawn this many times larger and averaged down (small shapes) ...
AA = 4
#: ... or twice as large when bigger than this many final pixels (big panels, long arrows).
AA_BIG_AREA = 12_000
#: The supersampling of a reference-quality render.
REFERENCE_SCALE = 4
#: The most cached masks, texts and stamps kept (least recently used go first).
MASK_CACHE = 4096
TEXT_CACHE = 8192
STAMP_CACHE = 2048


class _Quality:
    reference = 0  # the supersampling of boards drawn the slow way; 0: the fast way
    captured: list[Image.Image] | None = None


@contextmanager
def reference_quality(scale: int = REFERENCE_SCALE) -> Iterator[None]:
    """Boards drawn inside are drawn the slow way: every primitive blended straight onto
    an RGB image ``scale`` times larger, then reduced, and saved losslessly. At
    :data:`REFERENCE_SCALE` that is the high-quality yardstick the tests compare with; at 1
    it is the naive baseline the benchmarks compare with."""
    before = _Quality.reference
    _Quality.reference = max(1, scale)
    try:
        yield
    finally:
        _Quality.reference = before


@contextmanager
def capture_images() -> Iterator[list[Image.Image]]:
    """Collects each board's final RGB image (before palette conversion) drawn inside."""
    before = _Quality.captured
    _Quality.captured = []
    try:
        yield _Quality.captured
    finally:
        _Quality.captured = before


def _alpha(colour: Colour) -> int:
    return colour[3] if len(colour) > 3 else 255


def _qsize(size: float) -> float:
    """Font sizes in half pixels (a bounded set of cached fonts and texts)."""
    return max(1.0, round(size * 2) / 2)


@lru_cache(maxsize=MASK_CACHE)
def _shape_mask(kind: str, part: str, local: tuple[int, ...], size: tuple[int, int], ss: int,
                width: int, radius: int, alpha: int) -> Image.Image:
    """The coverage (0..``alpha``) of one shape's fill or outline, drawn ``ss`` times larger
    in ``local`` coordinates (already scaled) and averaged down to ``size``."""
    mask = Image.new("L", (size[0] * ss, size[1] * ss), 0)
    draw = ImageDraw.Draw(mask)
    fill = alpha if part == "fill" else None
    outline = alpha if part == "outline" else None
    pts = list(zip(local[::2], local[1::2], strict=True))
    if kind == "ellipse":
        draw.ellipse(local, fill=fill, outline=outline, width=width)
    elif kind == "rrect":
        draw.rounded_rectangle(local, radius=radius, fill=fill, outline=outline, width=width)
    elif kind == "polygon":
        draw.polygon(pts, fill=fill, outline=outline, width=width)
    else:  # a line; radius > 0 asks for round caps
        draw.line(pts, fill=alpha, width=width, joint="curve")
        if radius:
            r = width / 2
            for x, y in (pts[0], pts[-1]):
                draw.ellipse((x - r, y - r, x + r, y + r), fill=alpha)
    return mask.reduce(ss) if ss > 1 else mask


@lru_cache(maxsize=MASK_CACHE)
def _corner_masks(radius: int, size: int, part: str, width: int,
                  alpha: int) -> tuple[Image.Image, Image.Image, Image.Image, Image.Image]:
    """The four ``size``-pixel corners (top-left, top-right, bottom-left, bottom-right) of a
    rounded rectangle's fill or outline; ``radius`` and ``width`` are in 1/AA pixels."""
    full = 2 * size * AA
    mask = Image.new("L", (full, full), 0)
    fill = alpha if part == "fill" else None
    outline = alpha if part == "outline" else None
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, full - 1, full - 1), radius=radius,
                                           fill=fill, outline=outline, width=width)
    small = mask.reduce(AA)
    return (small.crop((0, 0, size, size)), small.crop((size, 0, 2 * size, size)),
            small.crop((0, size, size, 2 * size)), small.crop((size, size, 2 * size, 2 * size)))


@lru_cache(maxsize=TEXT_CACHE)
def _text_length(text: str, size: float, bold: bool) -> float:
    return font(size, bold).getlength(text)


@lru_cache(maxsize=TEXT_CACHE)
def _fitted(text: str, size: float, max_width: float, bold: bool) -> str:
    return fit_text(text, font(size, bold), max_width)


@lru_cache(maxsize=TEXT_CACHE)
def _text_masks(text: str, size: float, bold: bool, anchor: str, stroke: float, alpha: int,
                stroke_alpha: int) -> tuple[Image.Image, Image.Image | None, int, int]:
    """One line of text as coverage masks (fill, and stroke if any) and the offset of their
    top-left corner from the anchor point."""
    fnt = font(size, bold)
    left, top, right, bottom = fnt.getbbox(text, anchor=anchor, stroke_width=stroke)
    x0, y0 = math.floor(left), math.floor(top)
    w, h = max(1, math.ceil(right) - x0), max(1, math.ceil(bottom) - y0)
    fill = Image.new("L", (w, h), 0)
    ImageDraw.Draw(fill).text((-x0, -y0), text, fill=alpha, font=fnt, anchor=anchor)
    outline = None
    if stroke:
        outline = Image.new("L", (w, h), 0)
        ImageDraw.Draw(outline).text((-x0, -y0), text, fill=stroke_alpha, font=fnt,
                                     anchor=anchor, stroke_width=stroke,
                                     stroke_fill=stroke_alpha)
    return fill, outline, x0, y0


_STAMPS: OrderedDict[Hashable, tuple[Image.Image, tuple[DrawnText, ...]]] = OrderedDict()


class Canvas:
    """An image with coordinates in final pixels.

    Without ``scale`` it is a board: the fast pipeline above (or, inside
    :func:`reference_quality`, the high-quality one). With ``scale`` it draws that many
    times larger with blending and :meth:`finish` averages it down: for sprites and
    static layers, made once and cached. ``base`` (a final-size image) is the starting
    picture, e.g. a cached static layer.
    """

    def __init__(self, width: int, height: int, background: Sequence[int] = BACKGROUND,
                 scale: int | None = None, mode: str = "RGB",
                 base: Image.Image | None = None) -> None:
        self.width = width
        self.height = height
        self.fast = scale is None and mode == "RGB" and not _Quality.reference
        self.scale = 1 if self.fast else (scale or _Quality.reference or REFERENCE_SCALE)
        if base is not None:
            image = base.convert(mode) if base.mode != mode else base.copy()
            if self.scale != 1:
                image = image.resize((width * self.scale, height * self.scale),
                                     Image.Resampling.BICUBIC)
            self.image = image
        else:
            fill = tuple(background[:4]) if mode == "RGBA" else tuple(background[:3])
            self.image = Image.new(mode, (width * self.scale, height * self.scale), fill)
        self.draw = ImageDraw.Draw(self.image, "RGBA")
        self.image.load()
        self._im = self.image.im
        if TextLog.active is not None:
            TextLog.active.width = max(TextLog.active.width, width)

    # coordinates

    def _v(self, v: float) -> int:
        return round(v * self.scale)

    def _box(self, box: Box) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = (self._v(v) for v in box)
        return (x0, y0, max(x0, x1), max(y0, y1))

    def _pts(self, points: Iterable[Point]) -> list[tuple[int, int]]:
        return [(self._v(x), self._v(y)) for x, y in points]

    def _w(self, width: float) -> int:
        return max(1, round(width * self.scale)) if width > 0 else 0

    # the fast pipeline's ways of putting colour down (straight to Pillow's core: a board
    # makes hundreds of these calls, and Image.paste's checks cost more than the pixels)

    def _put(self, source: Any, x: int, y: int, mask: Image.Image) -> None:
        """``source`` (a colour or an image as big as ``mask``) through ``mask`` at (x, y)."""
        core = source.im if isinstance(source, Image.Image) else source
        self._im.paste(core, (x, y, x + mask.width, y + mask.height), mask.im)

    def _solid(self, x0: float, y0: float, x1: float, y1: float, colour: Colour) -> None:
        """An axis-aligned block (half-open, rounded to whole pixels): a plain fill."""
        box = (round(x0), round(y0), round(x1), round(y1))
        if box[2] <= box[0] or box[3] <= box[1]:
            return
        alpha = _alpha(colour)
        if alpha >= 255:
            self._im.paste(tuple(colour[:3]), box)
        elif alpha > 0:
            mask = Image.new("L", (box[2] - box[0], box[3] - box[1]), alpha)
            self._im.paste(tuple(colour[:3]), box, mask.im)

    def _shape(self, kind: str, coords: Sequence[float], fill: Colour | None,
               outline: Colour | None, width: float = 1, radius: float = 0) -> None:
        """An anti-aliased shape through cached coverage masks (see :func:`_shape_mask`)."""
        xs, ys = coords[::2], coords[1::2]
        pad = width + 2
        ox, oy = math.floor(min(xs) - pad), math.floor(min(ys) - pad)
        w, h = math.ceil(max(xs) + pad) - ox, math.ceil(max(ys) + pad) - oy
        if w <= 0 or h <= 0 or w > 4 * self.width + 64 or h > 4 * self.height + 64:
            return  # nothing to draw, or absurdly far out of the picture
        ss = AA if w * h <= AA_BIG_AREA else 2
        local = tuple(round((v - (ox if i % 2 == 0 else oy)) * ss) for i, v in enumerate(coords))
        if kind in ("ellipse", "rrect"):
            local = (local[0], local[1], max(local[0], local[2]), max(local[1], local[3]))
        wq = max(1, round(width * ss)) if width > 0 else 0
        rq = round(radius * ss)
        for part, colour in (("fill", fill), ("outline", outline)):
            if colour is None or (part == "outline" and wq == 0 and kind != "line"):
                continue
            alpha = _alpha(colour)
            if alpha <= 0:
                continue
            mask = _shape_mask(kind, part, local, (w, h), ss, wq, rq, alpha)
            self._put(tuple(colour[:3]), ox, oy, mask)

    def _band(self, x0: float, y0: float, x1: float, y1: float, colour: Colour,
              width: float, vertical: bool) -> None:
        """A straight band ``width`` thick from (x0, y0): whole pixels solid, a fraction of
        a pixel left over as a fainter line beside them (what anti-aliasing would show)."""
        whole = math.floor(width)
        if vertical:
            self._solid(x0, y0, x0 + whole, y1, colour)
            edge = (x0 + whole, y0, x0 + whole + 1, y1)
        else:
            self._solid(x0, y0, x1, y0 + whole, colour)
            edge = (x0, y0 + whole, x1, y0 + whole + 1)
        part = width - whole
        if part >= 0.25:
            self._solid(*edge, with_alpha(colour, round(_alpha(colour) * part)))

    def _rounded(self, x0: float, y0: float, x1: float, y1: float, fill: Colour | None,
                 outline: Colour | None, width: float, radius: float) -> None:
        """A rounded rectangle on whole pixels: its straight parts are plain blocks and only
        its four corners go through (cached) masks, so a big panel costs little more than a
        small one."""
        x0, y0, x1, y1 = round(x0), round(y0), round(x1), round(y1)
        w, h = x1 - x0, y1 - y0
        if w <= 0 or h <= 0:
            return
        r = min(radius, w / 2, h / 2)
        c = math.ceil(r)
        ring = max(1.0, width) if outline is not None and width > 0 else 0.0
        for part, colour in (("fill", fill), ("outline", outline)):
            if colour is None or (part == "outline" and not ring) or _alpha(colour) <= 0:
                continue
            corners = _corner_masks(round(r * AA), c, part, round(ring * AA), _alpha(colour))
            rgb = tuple(colour[:3])
            for mask, pos in zip(corners, ((x0, y0), (x1 - c, y0), (x0, y1 - c), (x1 - c, y1 - c)),
                                 strict=True):
                self._put(rgb, pos[0], pos[1], mask)
            if part == "fill":
                self._solid(x0 + c, y0, x1 - c, y1, colour)
                self._solid(x0, y0 + c, x0 + c, y1 - c, colour)
                self._solid(x1 - c, y0 + c, x1, y1 - c, colour)
            else:
                self._band(x0 + c, y0, x1 - c, y0, colour, ring, vertical=False)
                self._band(x0 + c, y1 - ring, x1 - c, y1, colour, ring, vertical=False)
                self._band(x0, y0 + c, x0, y1 - c, colour, ring, vertical=True)
                self._band(x1 - ring, y0 + c, x1, y1 - c, colour, ring, vertical=True)

    # shapes

    def rect(self, box: Box, fill: Colour | None = None, outline: Colour | None = None,
             width: float = 1, radius: float = 0) -> None:
        if not self.fast:
            b = self._box(box)
            if radius > 0:
                self.draw.rounded_rectangle(b, radius=self._v(radius), fill=fill,
                                            outline=outline, width=self._w(width))
            else:
                self.draw.rectangle(b, fill=fill, outline=outline, width=self._w(width))
            return
        x0, y0, x1, y1 = box
        x1, y1 = max(x0, x1), max(y0, y1)
        if radius >= 0.5:
            self._rounded(x0, y0, x1, y1, fill, outline, width, radius)
            return
        if fill is not None:
            self._solid(x0, y0, x1, y1, fill)
        if outline is not None and width > 0:
            w = max(1.0, width)
            self._solid(x0, y0, x1, y0 + w, outline)
            self._solid(x0, y1 - w, x1, y1, outline)
            self._solid(x0, y0 + w, x0 + w, y1 - w, outline)
            self._solid(x1 - w, y0 + w, x1, y1 - w, outline)

    def ellipse(self, box: Box, fill: Colour | None = None, outline: Colour | None = None,
                width: float = 1) -> None:
        if self.fast:
            self._shape("ellipse", box, fill, outline, width)
        else:
            self.draw.ellipse(self._box(box), fill=fill, outline=outline,
                              width=self._w(width))

    def circle(self, centre: Point, radius: float, fill: Colour | None = None,
               outline: Colour | None = None, width: float = 1) -> None:
        x, y = centre
        self.ellipse((x - radius, y - radius, x + radius, y + radius), fill, outline, width)

    def polygon(self, points: Sequence[Point], fill: Colour | None = None,
                outline: Colour | None = None, width: float = 1) -> None:
        if self.fast:
            if len(points) >= 2:
                self._shape("polygon", [v for p in points for v in p], fill, outline, width)
        else:
            self.draw.polygon(self._pts(points), fill=fill, outline=outline,
                              width=self._w(width))

    def line(self, points: Sequence[Point], fill: Colour, width: float = 1,
             round_caps: bool = False) -> None:
        if self.fast:
            if len(points) < 2:
                return
            (ax, ay), (bx, by) = points[0], points[-1]
            if len(points) == 2 and not round_caps and (ax == bx or ay == by):
                # axis-aligned: a plain block, as wide as asked, centred on the line
                half = max(1.0, width) / 2
                self._solid(min(ax, bx) - (half if ax == bx else 0),
                            min(ay, by) - (half if ay == by else 0),
                            max(ax, bx) + (half if ax == bx else 0),
                            max(ay, by) + (half if ay == by else 0), fill)
                return
            self._shape("line", [v for p in points for v in p], None, fill, width,
                        1 if round_caps and width * AA > 2 else 0)
            return
        pts = self._pts(points)
        w = self._w(width)
        self.draw.line(pts, fill=fill, width=w, joint="curve")
        if round_caps and w > 2:
            r = w / 2
            for x, y in (pts[0], pts[-1]):
                self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    def paste(self, image: Image.Image, xy: Point) -> None:
        """Paste a final-size image (its alpha, if any, is the mask) with its top-left
        corner at ``xy``."""
        if self.scale != 1:
            image = image.resize((image.width * self.scale, image.height * self.scale),
                                 Image.Resampling.BICUBIC)
        pos = (self._v(xy[0]), self._v(xy[1]))
        if image.mode == "RGBA":
            self.image.paste(image, pos, image)
        else:
            self.image.paste(image, pos)

    def stamp(self, key: Hashable, centre: Point, extent: float,
              draw: Callable[[Canvas, Point], None]) -> None:
        """A composite piece (a counter, an icon) that ``draw(canvas, centre)`` draws within
        ``extent`` pixels of ``centre``: drawn once at high quality on a transparent
        sprite, cached by ``key`` (which must hold everything the drawing depends on) and
        pasted. On a slow canvas it is simply drawn."""
        if not self.fast:
            draw(self, centre)
            return
        ix, iy = math.floor(centre[0]), math.floor(centre[1])
        fx, fy = round((centre[0] - ix) * 2) / 2, round((centre[1] - iy) * 2) / 2
        e = math.ceil(extent) + 1
        full_key = (key, fx, fy, e)
        cached = _STAMPS.get(full_key)
        if cached is None:
            sprite = Canvas(2 * e + 1, 2 * e + 1, (0, 0, 0, 0), scale=AA, mode="RGBA")
            outer, log = TextLog.active, TextLog()
            TextLog.active = log
            try:
                draw(sprite, (e + fx, e + fy))
            finally:
                TextLog.active = outer
            cached = (sprite.finish(), tuple(log.drawn))
            _STAMPS[full_key] = cached
            if len(_STAMPS) > STAMP_CACHE:
                _STAMPS.popitem(last=False)
        else:
            _STAMPS.move_to_end(full_key)
        image, texts = cached
        if TextLog.active is not None:
            TextLog.active.drawn.extend(texts)
        self._put(image, ix - e, iy - e, image)

    # text

    def font(self, size: float, bold: bool = False) -> Font:
        """The font that draws ``size``-pixel text on this canvas."""
        return font(_qsize(size * self.scale), bold)

    def text_width(self, text: str, size: float, bold: bool = False) -> float:
        return _text_length(text, _qsize(size * self.scale), bold) / self.scale

    def fit(self, text: str, size: float, max_width: float, bold: bool = False) -> str:
        return _fitted(text, _qsize(size * self.scale), max_width * self.scale, bold)

    def wrap(self, text: str, size: float, max_width: float, max_lines: int,
             bold: bool = False) -> list[str]:
        return wrap_text(text, self.font(size, bold), max_width * self.scale, max_lines)

    def text(self, xy: Point, text: str, size: float, fill: Colour = TEXT, bold: bool = False,
             anchor: str = "la", stroke: float = 0, stroke_fill: Colour | None = None,
             role: str | None = None) -> None:
        """One line of text; ``anchor`` as in Pillow ("mm" centres it on ``xy``).

        ``role`` marks what a player needs to decide (one of :data:`ESSENTIAL_ROLES`):
        such text must be readable on a phone (see :func:`min_essential_size`).
        """
        if not text:
            return
        if TextLog.active is not None:
            TextLog.active.drawn.append(DrawnText(role, text, size))
        if not self.fast:
            self.draw.text((self._v(xy[0]), self._v(xy[1])), text, fill=fill,
                           font=self.font(size, bold), anchor=anchor,
                           stroke_width=self._w(stroke) if stroke else 0,
                           stroke_fill=stroke_fill)
            return
        stroke_q = round(stroke * 2) / 2 if stroke and stroke_fill is not None else 0.0
        fill_mask, stroke_mask, dx, dy = _text_masks(
            text, _qsize(size), bold, anchor, stroke_q, _alpha(fill),
            _alpha(stroke_fill) if stroke_q and stroke_fill is not None else 0)
        pos = (round(xy[0]) + dx, round(xy[1]) + dy)
        if stroke_mask is not None and stroke_fill is not None:
            self._put(tuple(stroke_fill[:3]), pos[0], pos[1], stroke_mask)
        self._put(tuple(fill[:3]), pos[0], pos[1], fill_mask)

    # output

    def finish(self) -> Image.Image:
        """The final-size image (a drawing at ``scale`` is averaged down: plain
        supersampling, which looks the same as LANCZOS here and is far faster)."""
        if self.scale == 1:
            return self.image.copy()
        return self.image.reduce(self.scale)

    def png(self, palette: Image.Image | None = None) -> bytes:
        """The board as PNG bytes: in ``palette`` (see :func:`load_palette`) on the fast
        pipeline, lossless RGB at reference quality."""
        image = self.image if self.scale == 1 else self.image.reduce(self.scale)
        if _Quality.captured is not None:
            _Quality.captured.append(image.copy())
        if not self.fast:
            return encode_png(image)
        return encode_png(image, palette=palette if palette is not None else True)


def encode_png(image: Image.Image, palette: Image.Image | bool | None = None) -> bytes:
    """PNG bytes.

    Lossless RGB (zlib level 6) by default. With ``palette`` (a "P" image from
    :func:`load_palette`) the image is mapped to those colours without dithering and
    deflated fast (:func:`palette_png`): several times faster to encode and about half
    the size; flat board art loses nothing a player can see. ``palette=True`` picks 256
    colours for this image (a game without a fixed palette yet; slower).
    """
    if palette is None or image.mode != "RGB":
        buf = io.BytesIO()
        image.save(buf, format="PNG", optimize=False, compress_level=6)
        return buf.getvalue()
    if isinstance(palette, Image.Image):
        indexed = image.quantize(palette=palette, dither=Image.Dither.NONE)
    else:
        indexed = image.quantize(256, method=Image.Quantize.FASTOCTREE,
                                 dither=Image.Dither.NONE)
    return palette_png(indexed)


def _chunk(tag: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + tag + data
            + struct.pack(">I", zlib.crc32(data, zlib.crc32(tag)) & 0xFFFFFFFF))


def palette_png(indexed: Image.Image) -> bytes:
    """A "P" image as an 8-bit palette PNG, written directly: rows unfiltered (filters do
    nothing for palette indices) and deflated at level 1 by ISA-L (zlib if it is not
    installed), which is what makes encoding cost about a millisecond."""
    width, height = indexed.size
    raw = indexed.tobytes()
    rows = b"".join(b"\x00" + raw[y * width:(y + 1) * width] for y in range(height))
    colours = bytes((indexed.getpalette() or [])[:768])
    colours += bytes(3 * max(0, 1 - len(colours) // 3))
    return b"".join((
        b"\x89PNG\r\n\x1a\n",
        _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
        _chunk(b"PLTE", colours),
        _chunk(b"IDAT", _deflate(rows, 1)),
        _chunk(b"IEND", b""),
    ))


PALETTE_DIR = Path(__file__).resolve().parent / "palettes"
_HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


@lru_cache(maxsize=32)
def load_palette(kind: str) -> Image.Image | None:
    """A game's fixed palette (``render/palettes/<kind>.txt``: one ``#rrggbb`` per line,
    made by ``python -m tests.palettes``), or None if it has none yet."""
    try:
        lines = (PALETTE_DIR / f"{kind}.txt").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    colours = [bytes.fromhex(line[1:]) for line in map(str.strip, lines)
               if _HEX_COLOUR.fullmatch(line)]
    if not colours:
        return None
    flat = b"".join(colours[:256])
    image = Image.new("P", (1, 1))
    image.putpalette(flat + bytes(768 - len(flat)))  # unused entries black
    return image


# --- small shared widgets ------------------------------------------------------------


def pips(canvas: Canvas, x: float, y: float, filled: int, total: int, size: float,
         colour: Colour, empty: Colour, gap: float = 3) -> float:
    """A row of ``total`` rounded pips, ``filled`` of them in ``colour``; returns the width."""
    width = total * size + (total - 1) * gap if total > 0 else 0

    def draw(c: Canvas, centre: Point) -> None:
        left, top = centre[0] - width / 2, centre[1] - size / 2
        for i in range(total):
            px = left + i * (size + gap)
            c.rect((px, top, px + size, top + size), fill=colour if i < filled else empty,
                   radius=size * 0.3)

    centre = (x + width / 2, y + size / 2)
    if 0 < total <= 64:
        canvas.stamp(("pips", filled, total, size, tuple(colour), tuple(empty), gap),
                     centre, max(width, size) / 2 + 1, draw)
    elif total > 64:  # too long a row to be worth keeping as a sprite
        draw(canvas, centre)
    return width


def coin_icon(canvas: Canvas, centre: Point, r: float) -> None:
    """A gold coin."""
    canvas.stamp(("coin", r), centre, r * 1.35, lambda c, p: _coin(c, p, r))


def _coin(canvas: Canvas, centre: Point, r: float) -> None:
    x, y = centre
    canvas.circle((x + r * 0.12, y + r * 0.15), r, fill=(0, 0, 0, 70))
    canvas.circle((x, y), r, fill=(196, 140, 28), outline=(122, 84, 10), width=max(1, r * 0.12))
    canvas.circle((x, y), r * 0.7, fill=(246, 200, 72), outline=(214, 160, 40),
                  width=max(1, r * 0.08))
    canvas.circle((x - r * 0.22, y - r * 0.22), r * 0.2, fill=(255, 240, 180, 200))


def logs_icon(canvas: Canvas, centre: Point, r: float) -> None:
    """A small woodpile: three logs seen end-on."""
    canvas.stamp(("logs", r), centre, r * 1.6, lambda c, p: _logs(c, p, r))


def _logs(canvas: Canvas, centre: Point, r: float) -> None:
    x, y = centre
    lr = r * 0.44
    d = r * 0.47
    logs = ((x, y - d * 0.85), (x - d, y + d * 0.75), (x + d, y + d * 0.75))
    bark = (120, 74, 36)
    dark = (70, 40, 16)
    depth = (-lr * 0.9, -lr * 0.55)
    for cx, cy in logs:  # the bark sides, running back to the upper left
        canvas.polygon([(cx, cy - lr), (cx + depth[0], cy - lr + depth[1]),
                        (cx + depth[0] - lr * 0.2, cy + lr + depth[1]), (cx, cy + lr)],
                       fill=bark, outline=dark, width=r * 0.06)
    for cx, cy in logs:
        canvas.circle((cx, cy), lr, fill=(222, 178, 112), outline=dark, width=r * 0.07)
        canvas.circle((cx, cy), lr * 0.55, outline=(176, 124, 66), width=r * 0.05)
        canvas.circle((cx, cy), lr * 0.15, fill=(150, 100, 50))


def tower_icon(canvas: Canvas, centre: Point, r: float, colour: Colour,
               outline: Colour = (20, 20, 24)) -> None:
    """A small crenellated tower (a fort)."""
    canvas.stamp(("tower", r, tuple(colour), tuple(outline)), centre, r * 1.4,
                 lambda c, p: _tower(c, p, r, colour, outline))


def _tower(canvas: Canvas, centre: Point, r: float, colour: Colour, outline: Colour) -> None:
    x, y = centre
    w = r * 1.1
    top = y - r * 0.55
    merlon = w / 5
    pts: list[Point] = [(x - w / 2, y + r), (x - w / 2, top - merlon)]
    for i in range(5):
        mx = x - w / 2 + i * merlon
        high = i % 2 == 0
        pts.append((mx, top - merlon if high else top))
        pts.append((mx + merlon, top - merlon if high else top))
    pts += [(x + w / 2, top - merlon), (x + w / 2, y + r)]
    canvas.polygon(pts, fill=colour, outline=outline, width=max(1, r * 0.12))
    canvas.rect((x - w * 0.16, y + r * 0.3, x + w * 0.16, y + r), fill=outline)


def token(canvas: Canvas, centre: Point, r: float, colour: Sequence[int], label: str,
          text_size: float, role: str | None = "count") -> None:
    """A round counter in ``colour`` with a big bold label (a stack of pieces)."""
    c = tuple(colour[:3])
    canvas.stamp(("token", r, c, label, text_size, role), centre,
                 r * 1.2 + text_size * 0.1,
                 lambda cv, p: _token(cv, p, r, c, label, text_size, role))


def _token(canvas: Canvas, centre: Point, r: float, c: tuple[int, ...], label: str,
           text_size: float, role: str | None) -> None:
    x, y = centre
    canvas.circle((x + r * 0.06, y + r * 0.12), r * 1.02, fill=(0, 0, 0, 110))
    canvas.circle((x, y), r, fill=darken(c, 0.35))
    canvas.circle((x, y - r * 0.05), r * 0.9, fill=c)
    canvas.circle((x, y), r, outline=(245, 242, 234), width=max(1.5, r * 0.09))
    fg = text_on(c)
    canvas.text((x, y + r * 0.02), label, text_size, fill=fg, bold=True, anchor="mm",
                stroke=max(1, text_size * 0.06),
                stroke_fill=darken(c, 0.55) if fg == (255, 255, 255) else lighten(c, 0.4),
                role=role)


def as_int(value: Any, default: int = 0) -> int:
    """``value`` if it is a real int (not a bool), else ``default``."""
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return value


class Players:
    """Seats, colours and cleaned display names of a view's ``players`` list.

    Tolerant of odd views: entries that are not mappings are skipped, a missing seat is
    the entry's position, an unknown id is drawn grey and named by its cleaned id.
    """

    def __init__(self, view: Mapping[str, Any], names: Mapping[str, str] | None) -> None:
        raw = view.get("players")
        self.players: list[Mapping[str, Any]] = [
            p for p in (raw if isinstance(raw, list) else []) if isinstance(p, Mapping)]
        self.by_id: dict[str, Mapping[str, Any]] = {}
        self.names: dict[str, str] = {}
        self.seats: dict[str, int] = {}
        for i, p in enumerate(self.players):
            pid = p.get("id")
            seat = as_int(p.get("seat"), i + 1)
            if isinstance(pid, str) and pid not in self.by_id:
                self.by_id[pid] = p
                self.seats[pid] = seat
                self.names[pid] = display_name(names, pid, seat)

    def get(self, pid: Any) -> Mapping[str, Any] | None:
        return self.by_id.get(pid) if isinstance(pid, str) else None

    def seat(self, pid: Any) -> int | None:
        return self.seats.get(pid) if isinstance(pid, str) else None

    def colour(self, pid: Any) -> RGB:
        return seat_colour(self.seat(pid)) if pid is not None else NEUTRAL

    def name(self, pid: Any) -> str:
        if isinstance(pid, str) and pid in self.names:
            return self.names[pid]
        return clean_text(pid) or "?"


def arrow(canvas: Canvas, start: Point, end: Point, colour: Colour, width: float = 7,
          head: float = 20, shadow: Colour = (12, 12, 16, 200)) -> None:
    """A thick arrow from ``start`` to ``end`` (the tip), outlined for contrast."""
    sx, sy = start
    ex, ey = end
    dx, dy = ex - sx, ey - sy
    length = (dx * dx + dy * dy) ** 0.5
    if length < 1:
        return
    ux, uy = dx / length, dy / length
    head = min(head, length * 0.6)
    hw = width * 1.6
    bx, by = ex - ux * head, ey - uy * head
    head_pts = [(ex, ey), (bx - uy * hw, by + ux * hw), (bx + uy * hw, by - ux * hw)]
    canvas.line([start, (bx, by)], fill=shadow, width=width + 4, round_caps=True)
    canvas.polygon(head_pts, fill=shadow, outline=shadow, width=3)
    canvas.line([start, (bx + ux, by + uy)], fill=colour, width=width, round_caps=True)
    canvas.polygon(head_pts, fill=colour)


def star_points(centre: Point, outer: float, inner: float, points: int = 5,
                rotation: float = -math.pi / 2) -> list[Point]:
    """The outline of a ``points``-pointed star (first tip straight up by default)."""
    x, y = centre
    out: list[Point] = []
    for i in range(points * 2):
        r = outer if i % 2 == 0 else inner
        a = rotation + i * math.pi / points
        out.append((x + r * math.cos(a), y + r * math.sin(a)))
    return out


def burst(canvas: Canvas, centre: Point, r: float, fill: Colour = DANGER,
          core: Colour = (24, 18, 18), outline: Colour = (16, 12, 12), spikes: int = 9) -> None:
    """A jagged explosion badge: a spiky ``fill`` star around a dark ``core`` (damage)."""
    canvas.stamp(("burst", r, tuple(fill), tuple(core), tuple(outline), spikes), centre,
                 r * 1.15, lambda c, p: _burst(c, p, r, fill, core, outline, spikes))


def _burst(canvas: Canvas, centre: Point, r: float, fill: Colour, core: Colour,
           outline: Colour, spikes: int) -> None:
    canvas.polygon(star_points(centre, r, r * 0.58, spikes, rotation=-math.pi / 2 + 0.2),
                   fill=fill, outline=outline, width=max(1, r * 0.12))
    canvas.polygon(star_points(centre, r * 0.52, r * 0.3, spikes, rotation=-math.pi / 2),
                   fill=core)


def heart(canvas: Canvas, centre: Point, r: float, fill: Colour,
          outline: Colour | None = None) -> None:
    """A heart about ``2r`` wide (a life)."""
    canvas.stamp(("heart", r, tuple(fill), None if outline is None else tuple(outline)),
                 centre, r * 1.4, lambda c, p: _heart(c, p, r, fill, outline))


def _heart(canvas: Canvas, centre: Point, r: float, fill: Colour,
           outline: Colour | None) -> None:
    x, y = centre
    lobe = r * 0.52
    pts = [(x - r * 0.98, y - r * 0.18), (x, y + r * 0.95), (x + r * 0.98, y - r * 0.18)]
    if outline is not None:
        grow = max(1.0, r * 0.14)
        canvas.circle((x - lobe * 0.92, y - r * 0.3), lobe + grow, fill=outline)
        canvas.circle((x + lobe * 0.92, y - r * 0.3), lobe + grow, fill=outline)
        canvas.polygon([(x - r * 0.98 - grow, y - r * 0.18), (x, y + r * 0.95 + grow * 1.4),
                        (x + r * 0.98 + grow, y - r * 0.18)], fill=outline)
    canvas.circle((x - lobe * 0.92, y - r * 0.3), lobe, fill=fill)
    canvas.circle((x + lobe * 0.92, y - r * 0.3), lobe, fill=fill)
    canvas.polygon(pts, fill=fill)


def dashed_line(canvas: Canvas, points: Sequence[Point], colour: Colour, width: float = 2,
                dash: float = 8, gap: float = 5, round_caps: bool = False) -> None:
    """A polyline drawn in dashes, each segment dashed from its start (so stretches that
    several lines share draw the same dashes)."""
    for a, b in itertools.pairwise(points):
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        if length <= 0:
            continue
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        pos = 0.0
        while pos < length:
            end = min(length, pos + dash)
            canvas.line([(a[0] + ux * pos, a[1] + uy * pos), (a[0] + ux * end, a[1] + uy * end)],
                        fill=colour, width=width, round_caps=round_caps)
            pos = end + gap


def dashed_rect(canvas: Canvas, box: Box, colour: Colour, width: float = 2,
                dash: float = 8, gap: float = 5) -> None:
    """A rectangle outline drawn in dashes (square corners)."""
    x0, y0, x1, y1 = box
    dashed_line(canvas, [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], colour, width,
                dash, gap)


def pill(canvas: Canvas, x: float, top: float, label: str, fill: Colour, size: float = 12,
         height: float = 21, align: str = "right", text: Colour | None = None,
         role: str | None = None) -> float:
    """A small rounded label; ``x`` is its right edge (or left with ``align="left"``).

    Returns the other edge (the left edge for right-aligned pills, else the right).
    """
    w = canvas.text_width(label, size, bold=True) + height * 0.66
    x0 = x - w if align == "right" else x
    canvas.rect((x0, top, x0 + w, top + height), fill=fill, radius=height / 2)
    canvas.text((x0 + w / 2, top + height / 2 + 0.5), label, size,
                fill=text if text is not None else text_on(fill[:3]), bold=True, anchor="mm",
                role=role)
    return x0 if align == "right" else x0 + w


def progress_bar(canvas: Canvas, box: Box, fraction: float, fill: Colour, track: Colour,
                 ticks: int = 0, tick: Colour | None = None) -> float:
    """A rounded bar ``fraction`` (clamped to 0..1) full, on a ``track``; returns the fill's
    right edge. ``ticks`` > 1 marks the track in that many equal parts."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    canvas.rect(box, fill=track, radius=h / 2)
    frac = 0.0 if not isinstance(fraction, int | float) or math.isnan(fraction) else fraction
    frac = max(0.0, min(1.0, frac))
    right = x0 + (x1 - x0) * frac
    if frac > 0:
        canvas.rect((x0, y0, max(right, x0 + h), y1), fill=fill, radius=h / 2)
        canvas.rect((x0 + h * 0.35, y0 + h * 0.18, max(right, x0 + h) - h * 0.35,
                     y0 + h * 0.36), fill=with_alpha(lighten(fill[:3], 0.35), 150),
                    radius=h * 0.1)
    if ticks > 1 and tick is not None:
        for i in range(1, ticks):
            tx = x0 + (x1 - x0) * i / ticks
            canvas.line([(tx, y0 + h * 0.2), (tx, y1 - h * 0.2)], fill=tick, width=1)
    return right


#: One piece of a :func:`text_runs` line: its text, colour, and the most width it may take
#: (None: whatever is left).
Run = tuple[str, Colour, float | None]


def text_runs(canvas: Canvas, x: float, y: float, runs: Sequence[Run], size: float,
              max_x: float, bold: bool = False, role: str | None = None) -> float:
    """Pieces of one line drawn one after another from ``x`` (vertically centred on ``y``),
    each cut to fit; returns where the line ends.

    Drawing a display name as its own run keeps the font's bidirectional layout inside
    it: a right-to-left name beside English words stays in one piece instead of
    reordering the whole line."""
    for text, colour, cap in runs:
        left = max_x - x
        room = left if cap is None else min(left, cap)
        if room <= 0:
            break
        fitted = canvas.fit(text, size, room, bold)
        canvas.text((x, y), fitted, size, fill=colour, bold=bold, anchor="lm", role=role)
        x += canvas.text_width(fitted, size, bold)
        if fitted != text and room == left:  # the line is full (not just this run's cap)
            break
    return x


# --- the events a board marks ------------------------------------------------------------

#: A board reads at most this many events (a turn digest's worth and more): hostile input
#: cannot make drawing slow.
MAX_EVENTS = 500


def drawable_events(events: Any, limit: int = MAX_EVENTS,
                    newest: bool = False) -> list[Mapping[str, Any]]:
    """The events a board may draw from: public (no ``private_to``) mappings with a text
    ``type``, at most ``limit`` of them (the first, or the ``newest``); anything else,
    including a non-list, is skipped rather than trusted."""
    if not isinstance(events, list | tuple):
        return []
    window = events[-limit:] if newest else events[:limit]
    return [e for e in window if isinstance(e, Mapping) and "private_to" not in e
            and isinstance(e.get("type"), str)]


def note_actor(actors: list[str], player: Any) -> str | None:
    """Add ``player`` (if it is an id) to ``actors``, kept in order of first action, and
    return it (None for anything that is not an id)."""
    if isinstance(player, str):
        if player not in actors:
            actors.append(player)
        return player
    return None
