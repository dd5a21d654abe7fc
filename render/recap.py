"""The animated end-of-game recap: a game's boards turn by turn, as one looping GIF.

:func:`recap_animation` draws every :class:`Frame` with the kind's own renderer (the
same board a turn digest shows, marking that turn's public events), scales it down, adds a
caption band (``n/N``, a progress bar, the frame's caption and the recap's title) and maps
it to the kind's fixed palette (:func:`render.common.load_palette`) without dithering, so
every frame shares one global colour table.

The GIF is written here rather than by Pillow's multi-frame writer, which merges identical
consecutive frames and keeps every frame in memory until the end. Each frame is stored as
the rectangle that changed since the previous one, unchanged pixels inside it made
transparent (one reserved palette index), and its LZW data is made by Pillow's encoder
(a one-frame GIF of that rectangle, its image data copied out). So the file has exactly
one image per Frame, whatever the boards look like, and memory holds two frames at a time
plus the renderer's PNGs.

Pure and picklable (a top-level function of plain data): it runs in a process pool and
knows nothing of Discord, asyncio or the database.
"""

from __future__ import annotations

import io
import math
import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageChops, ImageDraw

import render
from render.common import (
    ACCENT,
    BACKGROUND,
    FAINT,
    MUTED,
    PANEL,
    TEXT,
    Font,
    TextLog,
    clean_text,
    drawable_text,
    fit_text,
    font,
    load_palette,
    min_essential_size,
    wrap_text,
)

__all__ = ["FRAME_MS", "LAST_FRAME_MS", "MAX_WIDTH", "MIN_WIDTH", "Frame", "recap_animation"]

#: How long each frame shows, and the last one (milliseconds; GIF counts hundredths).
FRAME_MS = 800
LAST_FRAME_MS = 4000
#: Frames are at most this wide (boards are scaled down, keeping their aspect) ...
MAX_WIDTH = 640
#: ... and shrunk further to fit ``max_bytes``, but never below this width.
MIN_WIDTH = 96
#: The caption band's height as a fraction of the frame's width (at least 12 px).
BAND = 0.05
#: The palette index kept free for "unchanged since the previous frame".
_CLEAR = 255


@dataclass(frozen=True)
class Frame:
    """One turn of the recap: the game's public view at its end, that turn's public
    events (marked on the board as the turn digest does) and a one-line caption such as
    ``"Turn 12 · Alice"``."""

    view: dict[str, Any]
    events: list[dict[str, Any]] | None = None
    caption: str = ""


def recap_animation(kind: str, frames: Sequence[Frame], names: dict[str, str] | None = None,
                    *, max_bytes: int = 8_000_000, title: str = "") -> bytes:
    """An animated GIF: one frame per given Frame, in order, then nothing else.

    Each frame is ``kind``'s board for ``frame.view`` marking ``frame.events`` (``names``
    maps player id to display name), at most :data:`MAX_WIDTH` wide, over a caption band
    with ``n/N``, a progress bar, ``frame.caption`` and ``title``. Frames show for
    :data:`FRAME_MS`, the last for :data:`LAST_FRAME_MS`; the animation loops forever.
    Every frame differs from the one before (``n/N``), and the file holds exactly
    ``len(frames)`` images even if two boards are identical.

    The result is at most ``max_bytes``: if it would be larger, it is drawn smaller (down
    to :data:`MIN_WIDTH` wide). Raises ValueError for no frames, an unknown kind, or a
    ``max_bytes`` no recap of these frames can fit.
    """
    draw_board = render.renderer(kind)  # ValueError for an unknown kind
    frames = list(frames)
    if not frames:
        raise ValueError("A recap needs at least one frame.")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        raise ValueError(f"max_bytes must be a positive int, not {max_bytes!r}.")
    boards = _Boards(draw_board, frames, names)
    first = boards(0)
    width = min(MAX_WIDTH, first.width)
    while True:
        gif, projected = _encode(_composed(kind, frames, boards, first.size, width, title),
                                 len(frames), max_bytes)
        if gif is not None:
            return gif
        if width <= MIN_WIDTH:
            raise ValueError(f"A recap of {len(frames)} frames cannot fit in {max_bytes} "
                             f"bytes, even {MIN_WIDTH} px wide.")
        # Measured: bytes grow about as width ** 1.3 (the band and the per-frame costs do
        # not shrink with the area). Aim a little under; always at least 15% narrower.
        guess = width * (max_bytes / projected) ** 0.75 * 0.95
        width = max(MIN_WIDTH, min(int(guess), int(width * 0.85)))


class _Boards:
    """Each frame's board as an RGB image, drawn by the kind's renderer once: its PNG is
    kept (small) in case a smaller attempt needs it again."""

    def __init__(self, draw: render.Renderer, frames: Sequence[Frame],
                 names: dict[str, str] | None) -> None:
        self.draw, self.frames, self.names = draw, frames, names
        self.pngs: list[bytes | None] = [None] * len(frames)

    def __call__(self, i: int) -> Image.Image:
        png = self.pngs[i]
        if png is None:
            f = self.frames[i]
            png = self.pngs[i] = self.draw(f.view, f.events, self.names)
        with Image.open(io.BytesIO(png)) as im:
            return im.convert("RGB")


# --- one attempt at one width -----------------------------------------------------------


def _composed(kind: str, frames: Sequence[Frame], boards: Callable[[int], Image.Image],
              first_size: tuple[int, int], width: int,
              title: str) -> Iterator[tuple[Image.Image, bytes]]:
    """Each frame ``width`` wide as palette indices ("L"), with the GIF colour table."""
    board_h = max(1, round(first_size[1] * width / first_size[0]))
    band = _Band(width, max(12, round(width * BAND)), title, len(frames))
    size = (width, board_h + band.total)
    palette, table = _palette(kind)
    for i, frame in enumerate(frames):
        rgb = Image.new("RGB", size, BACKGROUND)
        _paste_board(rgb, boards(i), board_h)
        band.draw(rgb, board_h, i, frame.caption)
        if palette is None:  # a kind without a fixed palette: the first frame's colours
            palette = rgb.quantize(_CLEAR, method=Image.Quantize.FASTOCTREE,
                                   dither=Image.Dither.NONE)
            table = _table(palette)
        quantised = rgb.quantize(palette=palette, dither=Image.Dither.NONE)
        yield Image.frombytes("L", size, quantised.tobytes()), table


def _encode(composed: Iterator[tuple[Image.Image, bytes]], count: int,
            max_bytes: int) -> tuple[bytes | None, float]:
    """The GIF of ``count`` composed frames and its size; or, as soon as it grows past
    ``max_bytes``, None and a guess of the size it would have had (the frames not
    written yet taken as large as the average change so far)."""
    out = bytearray()
    previous: Image.Image | None = None
    first = 0
    for i, (indices, table) in enumerate(composed):
        if previous is None:
            out += _header(indices.size, table)
        out += _frame(indices, previous, LAST_FRAME_MS if i == count - 1 else FRAME_MS)
        previous = indices
        if i == 0:
            first = len(out)
        if len(out) + 1 > max_bytes:
            per_change = (len(out) - first) / i if i else 0.0
            return None, len(out) + per_change * (count - 1 - i) + 1
    out += b";"
    return bytes(out), len(out)


def _paste_board(canvas: Image.Image, board: Image.Image, board_h: int) -> None:
    """``board`` scaled to fit the top ``board_h`` rows of ``canvas``, centred."""
    scale = min(canvas.width / board.width, board_h / board.height)
    w, h = max(1, round(board.width * scale)), max(1, round(board.height * scale))
    if (w, h) != board.size:
        board = board.resize((w, h), Image.Resampling.BICUBIC, reducing_gap=3.0)
    canvas.paste(board, ((canvas.width - w) // 2, (board_h - h) // 2))


class _Band:
    """The caption band under the board: ``n/N``, the caption, a progress bar and the
    title. A title that fits in 40% of the width shares the caption's row; a longer one
    gets its own row under it, shrunk to fit (never below what a phone can read, see
    :func:`render.common.min_essential_size`) or else wrapped: the whole title is always
    shown."""

    def __init__(self, width: int, height: int, title: str, count: int) -> None:
        self.width, self.height, self.count = width, height, count
        self.size = max(6, round(height * 0.56))
        self.pad = max(3, round(height * 0.35))
        self.bar = max(2, round(height / 12))
        self.bold = font(self.size, True)
        self.regular = font(self.size)
        title = clean_text(title, limit=160)
        self.title = ""  # on the caption's row
        self.title_lines: list[str] = []  # or on rows of their own
        self.title_size = self.size
        self.total = height  # the band's whole height
        if not title or self.regular.getlength(title) <= width * 0.4:
            self.title = title
            return
        room = width - 2 * self.pad
        smallest = max(6, math.ceil(min_essential_size(width)))
        for size in range(self.size, min(smallest, self.size) - 1, -1):
            if font(size).getlength(title) <= room:
                self.title_size, self.title_lines = size, [title]
                break
        else:
            size = min(smallest, self.size)
            for lines in range(2, 6):
                wrapped = wrap_text(title, font(size), room, lines)
                if " ".join(wrapped) == title:
                    break
            self.title_size, self.title_lines = size, wrapped
        self.line_h = round(self.title_size * 1.25)
        self.total = height + len(self.title_lines) * self.line_h + self.pad // 2

    def draw(self, canvas: Image.Image, top: int, i: int, caption: str) -> None:
        d = ImageDraw.Draw(canvas)
        w, h, pad = self.width, self.height, self.pad
        d.rectangle((0, top, w - 1, top + self.total - 1), fill=PANEL)
        d.rectangle((0, top, w - 1, top + self.bar - 1), fill=FAINT)
        d.rectangle((0, top, max(0, round(w * (i + 1) / self.count) - 1), top + self.bar - 1),
                    fill=ACCENT)
        y = top + self.bar + (h - self.bar) / 2
        x = float(pad)
        number = f"{i + 1}/{self.count}"
        _text(d, (x, y), number, ACCENT, self.bold, "lm")
        x += self.bold.getlength(number) + pad
        right = float(w - pad)
        if self.title:
            _text(d, (right, y), self.title, MUTED, self.regular, "rm")
            right -= self.regular.getlength(self.title) + 2 * pad
        text = fit_text(drawable_text(caption, limit=160), self.regular, right - x)
        if text:
            _text(d, (x, y), text, TEXT, self.regular, "lm")
        small = font(self.title_size)
        for k, line in enumerate(self.title_lines):
            _text(d, (pad, top + h + k * self.line_h), line, MUTED, small, "la")


def _text(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, fill: tuple[int, ...],
          fnt: Font, anchor: str) -> None:
    """One line of the band, recorded (its box) in an active TextLog like a board's text."""
    d.text(xy, text, fill=fill, font=fnt, anchor=anchor)
    log = TextLog.active
    if log is not None:
        left, top, right, bottom = fnt.getbbox(text, anchor=anchor)
        log.add_text(None, text, getattr(fnt, "size", 0),
                     (xy[0] + left, xy[1] + top, xy[0] + right, xy[1] + bottom))


# --- colours --------------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _palette(kind: str) -> tuple[Image.Image | None, bytes]:
    """The kind's fixed palette less one colour (index :data:`_CLEAR` stays free for
    "unchanged"), as a "P" image to quantise with, and the 768-byte GIF colour table.

    The colour given up is the one nearest another (a duplicate if there is one), so
    nothing a player can see is lost. (None, black) if the kind has no palette yet."""
    fixed = load_palette(kind)
    if fixed is None:
        return None, bytes(768)
    flat = bytes((fixed.getpalette() or [])[:768]).ljust(768, b"\0")
    colours = [flat[3 * i:3 * i + 3] for i in range(256)]
    best, drop = None, 255
    for i, a in enumerate(colours):
        for j in range(i + 1, 256):
            b = colours[j]
            d = (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2
            if best is None or d < best:
                best, drop = d, j
    kept = [c for k, c in enumerate(colours) if k != drop]
    image = Image.new("P", (1, 1))
    image.putpalette(b"".join(kept))  # 255 colours: quantising never picks _CLEAR
    return image, b"".join(kept) + colours[drop]


def _table(palette: Image.Image) -> bytes:
    return bytes((palette.getpalette() or [])[:3 * _CLEAR]).ljust(768, b"\0")


# --- the GIF container --------------------------------------------------------------------


def _header(size: tuple[int, int], table: bytes) -> bytes:
    """GIF89a, the logical screen with a 256-colour global table, loop forever."""
    return (b"GIF89a" + struct.pack("<HHBBB", size[0], size[1], 0xF7, 0, 0) + table
            + b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", 0) + b"\x00")


def _frame(indices: Image.Image, previous: Image.Image | None, delay_ms: int) -> bytes:
    """One frame: what changed since ``previous`` (the whole image for the first), drawn
    over it (disposal "leave in place"), unchanged pixels transparent."""
    flags = 1 << 2  # disposal: do not dispose
    box: tuple[int, int, int, int] = (0, 0, *indices.size)
    image = indices
    if previous is not None:
        flags |= 1  # transparent colour index
        delta = ImageChops.difference(indices, previous)
        changed = delta.getbbox()
        if changed is None:  # nothing changed: still its own (one clear pixel) frame
            box, image = (0, 0, 1, 1), Image.new("L", (1, 1), _CLEAR)
        else:
            box = changed
            image = indices.crop(box)
            unchanged = delta.crop(box).point([255] + [0] * 255, "1")
            image.paste(_CLEAR, mask=unchanged)
    control = b"\x21\xf9\x04" + struct.pack("<BHB", flags, round(delay_ms / 10), _CLEAR) + b"\0"
    left, top, right, bottom = box
    descriptor = b"\x2c" + struct.pack("<HHHHB", left, top, right - left, bottom - top, 0)
    return control + descriptor + _image_data(image)


def _image_data(indices: Image.Image) -> bytes:
    """``indices`` LZW-compressed as a GIF's image data (minimum code size, sub-blocks and
    terminator), by Pillow: a one-frame GIF of it, its image data copied out. Pillow keeps
    an "L" image's values as the palette indices (no palette optimisation, no interlace)."""
    buf = io.BytesIO()
    indices.save(buf, format="GIF", optimize=False, interlace=False)
    gif = buf.getvalue()
    pos = 13
    if gif[10] & 0x80:
        pos += 3 << ((gif[10] & 7) + 1)
    while pos < len(gif):
        block = gif[pos]
        if block == 0x21:  # an extension: label, then sub-blocks
            pos += 2
            while gif[pos]:
                pos += gif[pos] + 1
            pos += 1
        elif block == 0x2C:  # the image
            flags = gif[pos + 9]
            if flags & 0x40:
                raise ValueError("Pillow wrote an interlaced GIF.")  # pragma: no cover
            pos += 10
            if flags & 0x80:
                pos += 3 << ((flags & 7) + 1)
            start = pos
            pos += 1  # LZW minimum code size
            while gif[pos]:
                pos += gif[pos] + 1
            return gif[start:pos + 1]
        else:
            break
    raise ValueError("Pillow wrote a GIF without an image.")  # pragma: no cover
