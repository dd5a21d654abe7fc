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
import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

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


class Canvas:
    """An image drawn at ``scale`` times its final size, with coordinates in final pixels."""

    def __init__(self, width: int, height: int, background: Sequence[int] = BACKGROUND,
                 scale: int = 2, mode: str = "RGB") -> None:
        self.width = width
        self.height = height
        self.scale = scale
        fill = tuple(background[:4]) if mode == "RGBA" else tuple(background[:3])
        self.image = Image.new(mode, (width * scale, height * scale), fill)
        self.draw = ImageDraw.Draw(self.image, "RGBA")
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

    # shapes

    def rect(self, box: Box, fill: Colour | None = None, outline: Colour | None = None,
             width: float = 1, radius: float = 0) -> None:
        b = self._box(box)
        if radius > 0:
            self.draw.rounded_rectangle(b, radius=self._v(radius), fill=fill,
                                        outline=outline, width=self._w(width))
        else:
            self.draw.rectangle(b, fill=fill, outline=outline, width=self._w(width))

    def ellipse(self, box: Box, fill: Colour | None = None, outline: Colour | None = None,
                width: float = 1) -> None:
        self.draw.ellipse(self._box(box), fill=fill, outline=outline, width=self._w(width))

    def circle(self, centre: Point, radius: float, fill: Colour | None = None,
               outline: Colour | None = None, width: float = 1) -> None:
        x, y = centre
        self.ellipse((x - radius, y - radius, x + radius, y + radius), fill, outline, width)

    def polygon(self, points: Sequence[Point], fill: Colour | None = None,
                outline: Colour | None = None, width: float = 1) -> None:
        self.draw.polygon(self._pts(points), fill=fill, outline=outline, width=self._w(width))

    def line(self, points: Sequence[Point], fill: Colour, width: float = 1,
             round_caps: bool = False) -> None:
        pts = self._pts(points)
        w = self._w(width)
        self.draw.line(pts, fill=fill, width=w, joint="curve")
        if round_caps and w > 2:
            r = w / 2
            for x, y in (pts[0], pts[-1]):
                self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    def paste(self, image: Image.Image, xy: Point) -> None:
        """Paste an image made at this canvas's scale (its alpha, if any, is the mask)."""
        pos = (self._v(xy[0]), self._v(xy[1]))
        if image.mode == "RGBA":
            self.image.paste(image, pos, image)
        else:
            self.image.paste(image, pos)

    # text

    def font(self, size: float, bold: bool = False) -> Font:
        """The font that draws ``size``-pixel text on this canvas."""
        return font(self._v(size), bold)

    def text_width(self, text: str, size: float, bold: bool = False) -> float:
        return self.font(size, bold).getlength(text) / self.scale

    def fit(self, text: str, size: float, max_width: float, bold: bool = False) -> str:
        return fit_text(text, self.font(size, bold), max_width * self.scale)

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
        self.draw.text((self._v(xy[0]), self._v(xy[1])), text, fill=fill,
                       font=self.font(size, bold), anchor=anchor,
                       stroke_width=self._w(stroke) if stroke else 0, stroke_fill=stroke_fill)

    # output

    def finish(self) -> Image.Image:
        """The final-size image, downscaled from the drawing.

        An integer scale averages each ``scale`` x ``scale`` block (``Image.reduce``):
        plain supersampling, which looks the same as LANCZOS at this size (compared
        side by side) and is about 15 times faster (2 ms against 28 ms at 2000x1400).
        """
        if self.scale == 1:
            return self.image.copy()
        return self.image.reduce(self.scale)

    def png(self) -> bytes:
        return encode_png(self.finish())


def encode_png(image: Image.Image, colours: int | None = None) -> bytes:
    """PNG bytes, tuned for speed (no optimize pass).

    Lossless by default. With ``colours`` (e.g. 256) the image is first reduced to that
    many colours (fast octree, ~6 ms at 1000x700): flat board art loses almost nothing
    visible and the file shrinks about 2.5 times, for when size matters more.
    """
    if colours and image.mode == "RGB":
        image = image.quantize(colours, method=Image.Quantize.FASTOCTREE)
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


# --- small shared widgets ------------------------------------------------------------


def pips(canvas: Canvas, x: float, y: float, filled: int, total: int, size: float,
         colour: Colour, empty: Colour, gap: float = 3) -> float:
    """A row of ``total`` rounded pips, ``filled`` of them in ``colour``; returns the width."""
    for i in range(total):
        px = x + i * (size + gap)
        c = colour if i < filled else empty
        canvas.rect((px, y, px + size, y + size), fill=c, radius=size * 0.3)
    return total * size + (total - 1) * gap if total else 0


def coin_icon(canvas: Canvas, centre: Point, r: float) -> None:
    """A gold coin."""
    x, y = centre
    canvas.circle((x + r * 0.12, y + r * 0.15), r, fill=(0, 0, 0, 70))
    canvas.circle((x, y), r, fill=(196, 140, 28), outline=(122, 84, 10), width=max(1, r * 0.12))
    canvas.circle((x, y), r * 0.7, fill=(246, 200, 72), outline=(214, 160, 40),
                  width=max(1, r * 0.08))
    canvas.circle((x - r * 0.22, y - r * 0.22), r * 0.2, fill=(255, 240, 180, 200))


def logs_icon(canvas: Canvas, centre: Point, r: float) -> None:
    """A small woodpile: three logs seen end-on."""
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
    x, y = centre
    c = tuple(colour[:3])
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
    canvas.polygon(star_points(centre, r, r * 0.58, spikes, rotation=-math.pi / 2 + 0.2),
                   fill=fill, outline=outline, width=max(1, r * 0.12))
    canvas.polygon(star_points(centre, r * 0.52, r * 0.3, spikes, rotation=-math.pi / 2),
                   fill=core)


def heart(canvas: Canvas, centre: Point, r: float, fill: Colour,
          outline: Colour | None = None) -> None:
    """A heart about ``2r`` wide (a life)."""
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


def dashed_rect(canvas: Canvas, box: Box, colour: Colour, width: float = 2,
                dash: float = 8, gap: float = 5) -> None:
    """A rectangle outline drawn in dashes (square corners)."""
    x0, y0, x1, y1 = box
    for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)),
                 ((x0, y1), (x0, y0))):
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        if length <= 0:
            continue
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        pos = 0.0
        while pos < length:
            end = min(length, pos + dash)
            canvas.line([(a[0] + ux * pos, a[1] + uy * pos), (a[0] + ux * end, a[1] + uy * end)],
                        fill=colour, width=width)
            pos = end + gap


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
