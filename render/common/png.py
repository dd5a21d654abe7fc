"""A board as PNG bytes: each game's fixed palette and a fast palette PNG writer."""

from __future__ import annotations

import io
import re
import struct
import zlib
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw

try:
    from isal.isal_zlib import compress as _deflate
except ImportError:  # pragma: no cover - isal is a dependency; zlib is slower, not wrong
    from zlib import compress as _deflate


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
    # each row behind a 0 (no filter): the image pasted one pixel right of a column of 0s
    framed = Image.new("P", (width + 1, height), 0)
    framed.im.paste(indexed.im, (1, 0, width + 1, height))
    return framed_png(framed, palette_bytes(indexed))


def palette_bytes(indexed: Image.Image) -> bytes:
    """The PLTE chunk's data for a "P" image (at least one colour)."""
    colours = bytes((indexed.getpalette() or [])[:768])
    return colours + bytes(3 * max(0, 1 - len(colours) // 3))


def framed_indices(image: Image.Image, palette: Image.Image) -> Image.Image:
    """An RGB ``image`` mapped to ``palette`` (a loaded "P" image; no dithering) as a "P"
    image one pixel wider: its column 0 all 0s, each row's PNG filter byte (none), the
    picture right of it. What :func:`framed_png` writes."""
    width, height = image.size
    framed = Image.new("P", (width + 1, height), 0)
    framed.im.paste(image.im.convert("P", 0, palette.im), (1, 0, width + 1, height))
    return framed


def framed_png(framed: Image.Image, colours: bytes) -> bytes:
    """A palette PNG of ``framed`` (see :func:`framed_indices`: rows behind a 0 byte) in
    ``colours`` (the PLTE data)."""
    width, height = framed.size
    return b"".join((
        b"\x89PNG\r\n\x1a\n",
        _chunk(b"IHDR", struct.pack(">IIBBBBB", width - 1, height, 8, 3, 0, 0, 0)),
        _chunk(b"PLTE", colours),
        _chunk(b"IDAT", _deflate(framed.tobytes(), 1)),
        _chunk(b"IEND", b""),
    ))


PALETTE_DIR = Path(__file__).resolve().parents[1] / "palettes"
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


def rounded_mask(w: int, h: int, r: int) -> Image.Image:
    """A ``w`` x ``h`` mask of a rectangle with corners rounded ``r`` (anti-aliased), to
    paste a layer into a rounded frame."""
    mask = Image.new("L", (w * 4, h * 4), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w * 4 - 1, h * 4 - 1), radius=r * 4, fill=255)
    return mask.reduce(4)
