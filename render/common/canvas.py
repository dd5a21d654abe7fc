"""The canvas every board is drawn on, and the fast drawing pipeline behind it.

Renderers draw on a :class:`Canvas` in final-image pixels. A board's canvas draws each
shape through small anti-aliased coverage masks, cached by geometry, and pastes composite
pieces (:meth:`Canvas.stamp`) as sprites drawn once at high quality; inside
:func:`reference_quality` it instead draws ``scale`` times larger with blending and
averages down (the yardstick the tests compare with). A canvas made with ``scale`` (a
sprite, a static layer) always draws that slow way.
"""

from __future__ import annotations

import json
import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from render.common.palette import BACKGROUND, TEXT, Colour, with_alpha
from render.common.png import encode_png, framed_indices, framed_png, palette_bytes
from render.common.text import Drawn, Font, TextLog, fit_text, font, wrap_text

Point = tuple[float, float]
Box = tuple[float, float, float, float]

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
# - parts of a board that change seldom (a player's card, a placemat, a reference list)
#   are drawn once per look and pasted back (:meth:`Canvas.reuse`), and pieces that never
#   change but lie over marks that do (a map's names) are kept as patches pasted where
#   nothing lies under them (:meth:`Canvas.overlay`); both know where the canvas has drawn
#   (``Canvas._drawn``) and give the same bytes as drawing;
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
#: A shape at least this opaque (alpha) hides what is under it (what the tests check).
OPAQUE = 160
#: The most cached masks, texts and stamps kept (least recently used go first).
MASK_CACHE = 4096
TEXT_CACHE = 8192
STAMP_CACHE = 2048
#: The most bytes the regions of :meth:`Canvas.reuse` may keep (several boards' worth).
REGION_BYTES = 32 * 1024 * 1024


class _Settings(threading.local):
    """How boards are drawn, per thread: a web page's enlarged frame drawn in one thread
    must not enlarge a chart or a board drawn in another at the same moment."""

    reference = 0  # the supersampling of boards drawn the slow way; 0: the fast way
    captured: list[Image.Image] | None = None
    enlarged = False  # keep the drawing at its supersampled size (a board to zoom into)


_Quality = _Settings()


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
def enlarged(scale: int = 2) -> Iterator[None]:
    """Boards drawn inside come out ``scale`` times larger, every primitive and letter
    drawn at that size (the slow way, blended), not an image blown up: sharp when a
    reader zooms in (the web pages' boards on a phone). Their PNG is in 256 colours."""
    before = _Quality.reference, _Quality.enlarged
    _Quality.reference, _Quality.enlarged = max(1, scale), True
    try:
        yield
    finally:
        _Quality.reference, _Quality.enlarged = before


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
                width: int, radius: int, alpha: int) -> Any:
    """The coverage (0..``alpha``) of one shape's fill or outline, drawn ``ss`` times larger
    in ``local`` coordinates (already scaled) and averaged down to ``size``: a list of the
    mask (Pillow's image), its strips (see :func:`_strips`: made at its second use, the
    mask then dropped; a shape drawn once is pasted whole) and whether it was used."""
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
    return [mask.reduce(ss) if ss > 1 else mask, None, False]


#: A big mask is kept as strips this many rows high, each cut to where it covers anything.
STRIP = 16
#: Masks of at most this many pixels are kept whole.
STRIP_AREA = 2048


def _strips(mask: Image.Image) -> tuple[tuple[int, int, int, int, Any], ...]:
    """``mask`` as the parts of it that cover anything (left, top, right, bottom from its
    corner, and Pillow's core image): a long slanted line or an arc pastes only the
    pixels along it, not its whole box (where the mask is 0, pasting changes nothing)."""
    w, h = mask.size
    if w * h <= STRIP_AREA:
        return ((0, 0, w, h, mask.im),)
    out = []
    for top in range(0, h, STRIP):
        band = mask.crop((0, top, w, min(h, top + STRIP)))
        box = band.getbbox()
        if box is not None:
            out.append((box[0], top + box[1], box[2], top + box[3], band.crop(box).im))
    return tuple(out)


def _flat_mask(width: int, height: int, alpha: int) -> Any:
    """A ``width`` x ``height`` mask all ``alpha`` (Pillow's core image): a see-through
    block's; the small ones kept (a dashed line's dashes, a pill's edge)."""
    if width * height <= 4096:
        return _small_flat_mask(width, height, alpha)
    return Image.new("L", (width, height), alpha).im


@lru_cache(maxsize=512)
def _small_flat_mask(width: int, height: int, alpha: int) -> Any:
    return Image.new("L", (width, height), alpha).im


@lru_cache(maxsize=MASK_CACHE)
def _corner_masks(radius: int, size: int, part: str, width: int,
                  alpha: int) -> tuple[Any, Any, Any, Any]:
    """The four ``size``-pixel corners (top-left, top-right, bottom-left, bottom-right) of a
    rounded rectangle's fill or outline, as Pillow's core images; ``radius`` and ``width``
    are in 1/AA pixels."""
    full = 2 * size * AA
    mask = Image.new("L", (full, full), 0)
    fill = alpha if part == "fill" else None
    outline = alpha if part == "outline" else None
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, full - 1, full - 1), radius=radius,
                                           fill=fill, outline=outline, width=width)
    small = mask.reduce(AA)
    return (small.crop((0, 0, size, size)).im, small.crop((size, 0, 2 * size, size)).im,
            small.crop((0, size, size, 2 * size)).im,
            small.crop((size, size, 2 * size, 2 * size)).im)


@lru_cache(maxsize=TEXT_CACHE)
def _text_length(text: str, size: float, bold: bool) -> float:
    return font(size, bold).getlength(text)


@lru_cache(maxsize=TEXT_CACHE)
def _text_box(text: str, size: float, bold: bool, anchor: str,
              stroke: float) -> tuple[float, float, float, float]:
    """Where a line of text lies from its anchor point (what a TextLog records)."""
    return font(size, bold).getbbox(text, anchor=anchor, stroke_width=stroke)


@lru_cache(maxsize=TEXT_CACHE)
def _fitted(text: str, size: float, max_width: float, bold: bool) -> str:
    return fit_text(text, font(size, bold), max_width)


@lru_cache(maxsize=TEXT_CACHE)
def _text_masks(text: str, size: float, bold: bool, anchor: str, stroke: float, alpha: int,
                stroke_alpha: int) -> tuple[Any, Any, int, int, int, int]:
    """One line of text as coverage masks (Pillow's core images: fill, and stroke or None),
    the offset of their top-left corner from the anchor point, and their size."""
    fnt = font(size, bold)
    if isinstance(fnt, ImageFont.FreeTypeFont) and "\n" not in text:
        # one layout per mask (the text's box is the glyphs' placement, without a stroke)
        glyphs = fnt.getmask2(text, "L", None, None, None, 0, anchor, alpha, (0.0, 0.0),
                              stroke_filled=True)
        ring = fnt.getmask2(text, "L", None, None, None, stroke, anchor, stroke_alpha,
                            (0.0, 0.0), stroke_filled=True) if stroke else None
        if ring is None:
            (x0, y0), (w, h) = glyphs[1], glyphs[0].size
            w, h = max(1, w), max(1, h)
        else:  # a fractional stroke's box is not whole pixels
            left, top, right, bottom = fnt.getbbox(text, anchor=anchor, stroke_width=stroke)
            x0, y0 = math.floor(left), math.floor(top)
            w, h = max(1, math.ceil(right) - x0), max(1, math.ceil(bottom) - y0)
        return (_glyphs(glyphs, alpha, x0, y0, w, h),
                _glyphs(ring, stroke_alpha, x0, y0, w, h) if ring is not None else None,
                x0, y0, w, h)
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
    return fill.im, outline.im if outline is not None else None, x0, y0, w, h

@lru_cache(maxsize=512)
def _glyph_mask(fnt: ImageFont.FreeTypeFont, text: str, anchor: str, stroke: int,
                ink: int) -> tuple[Any, tuple[int, int]]:
    """FreeType's coverage mask of a line of text at whole pixels (and where it lies from
    the anchor point): what ``ImageDraw.text`` renders for it each time."""
    return fnt.getmask2(text, "L", None, None, None, stroke, anchor, ink, (0.0, 0.0),
                        stroke_filled=True)


def _glyphs(rendered: tuple[Any, tuple[int, int]], alpha: int, x0: int, y0: int, w: int,
            h: int) -> Any:
    """A ``w`` x ``h`` coverage mask (0..``alpha``) of a line of text FreeType rendered
    (``getmask2``: its mask and where that lies from the anchor point), the anchor point at
    (-``x0``, -``y0``): what ``ImageDraw.text`` draws on an "L" image, without laying the
    text out again (Pillow's core image)."""
    mask, offset = rendered
    out = Image.new("L", (w, h), 0)
    ImageDraw.Draw(out).draw.draw_bitmap((offset[0] - x0, offset[1] - y0), mask, alpha)
    return out.im


class DrawingCache:
    """Pictures drawn once and pasted many times (sprites, panels), by a key holding
    everything their drawing depends on; the least recently used go first past ``size``.

    What a picture drew (its text, and its shapes when it is a stamp) is kept with it and
    added to the active :class:`TextLog` every time it is used, as if it had been drawn
    again (moved by ``offset``, in the ``groups`` given)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.misses = 0  # pictures drawn (not found)
        self._items: OrderedDict[Hashable, tuple[Image.Image, tuple[Drawn, ...]]] = \
            OrderedDict()

    def get(self, key: Hashable, draw: Callable[[], Image.Image],
            offset: Point = (0, 0), groups: frozenset[Hashable] = frozenset()) -> Image.Image:
        """The picture for ``key``: ``draw()``'s, the first time."""
        cached = self._items.get(key)
        if cached is None:
            self.misses += 1
            outer, log = TextLog.active, TextLog()
            TextLog.active = log
            try:
                image = draw()
            finally:
                TextLog.active = outer
            cached = (image, tuple(log.entries()))
            self._items[key] = cached
            if len(self._items) > self.size:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        image, entries = cached
        if TextLog.active is not None:
            TextLog.active.replay(entries, offset[0], offset[1], groups)
        return image


_STAMPS = DrawingCache(STAMP_CACHE)


#: The overlays of :meth:`Canvas.overlay` kept (by key and base layer), least recent first.
OVERLAY_CACHE = 16
_OVERLAYS: OrderedDict[Hashable, tuple[Image.Image, Any]] = OrderedDict()
#: The grid (pixels) an overlay's patches are filed in, to find those drawn over quickly.
_CELL = 48
#: The cells each item of a patch covers, by the overlay's spans (kept with them) and patch.
_COVERS: dict[tuple[int, int], tuple[Any, dict[int, set[int]]]] = {}


def _covers(spans: Sequence[Box4 | None], k: int) -> dict[int, set[int]]:
    """Where the cells covered by the items of patch ``k`` of an overlay are kept (filled
    by :meth:`Canvas._patch_around` when empty)."""
    kept = _COVERS.get((id(spans), k))
    if kept is None or kept[0] is not spans:
        if len(_COVERS) > 256:
            _COVERS.clear()
        kept = _COVERS[(id(spans), k)] = (spans, {})
    return kept[1]
#: A patch with something drawn under part of it is pasted in cells this many pixels wide
#: where nothing is under (:meth:`Canvas._patch_around`).
_PCELL = 16


Box4 = tuple[int, int, int, int]


def _patches(spans: Sequence[Box4 | None], width: int,
             height: int) -> tuple[list[tuple[Box4, list[int]]], dict[tuple[int, int], list[int]]]:
    """The patches of an overlay whose items drew within ``spans`` (None: nothing): each
    the box of a group of items whose boxes overlap (no two patches overlap) and the
    items' indices, in drawing order; with a grid of where the patches are."""
    clusters = [(box, [i]) for i, box in enumerate(spans) if box is not None]
    merged = True
    while merged:  # until no two patches overlap
        merged = False
        out: list[tuple[Box4, list[int]]] = []
        for box, indices in clusters:
            for j, (other, more) in enumerate(out):
                if box[0] < other[2] and other[0] < box[2] and box[1] < other[3] \
                        and other[1] < box[3]:
                    out[j] = ((min(box[0], other[0]), min(box[1], other[1]),
                               max(box[2], other[2]), max(box[3], other[3])),
                              sorted(more + indices))
                    merged = True
                    break
            else:
                out.append((box, indices))
        clusters = out
    clusters.sort(key=lambda c: c[1][0])
    patches = []
    grid: dict[tuple[int, int], list[int]] = {}
    for k, (box, indices) in enumerate(clusters):
        box = (max(0, box[0]), max(0, box[1]), min(width, box[2]), min(height, box[3]))
        if box[2] <= box[0] or box[3] <= box[1]:  # wholly outside the picture
            box = (0, 0, 0, 0)
        patches.append((box, indices))
        for gx in range(box[0] // _CELL, max(box[0], box[2] - 1) // _CELL + 1):
            for gy in range(box[1] // _CELL, max(box[1], box[3] - 1) // _CELL + 1):
                grid.setdefault((gx, gy), []).append(k)
    return patches, grid


def _under(drawn: Iterable[Box4], patches: list[tuple[Box4, list[int]]],
           grid: dict[tuple[int, int], list[int]]) -> set[int]:
    """The patches that some of the ``drawn`` boxes overlap."""
    hit: set[int] = set()
    for x0, y0, x1, y1 in drawn:
        for gx in range(max(0, x0) // _CELL, max(0, x1 - 1) // _CELL + 1):
            for gy in range(max(0, y0) // _CELL, max(0, y1 - 1) // _CELL + 1):
                for k in grid.get((gx, gy), ()):
                    bx0, by0, bx1, by1 = patches[k][0]
                    if x0 < bx1 and bx0 < x1 and y0 < by1 and by0 < y1:
                        hit.add(k)
    return hit


class _Region:
    """A part of a board as drawn once: what was under it (its bytes, or the bare base
    layer it was drawn straight onto), what it became, what it drew."""

    __slots__ = ("after", "base", "entries", "indices", "under")

    def __init__(self, under: bytes | None, base: Image.Image | None, after: Image.Image,
                 entries: tuple[Drawn, ...] | None) -> None:
        self.under, self.base, self.after, self.entries = under, base, after, entries
        #: ``after`` in a palette (the palette and Pillow's "P" core), once a PNG needed it
        self.indices: tuple[Image.Image, Any] | None = None

    def indexed(self, palette: Image.Image) -> Any:
        """``after`` mapped to ``palette`` (Pillow's core image), kept for next time."""
        if self.indices is None or self.indices[0] is not palette:
            self.indices = (palette, self.after.im.convert("P", 0, palette.im))
        return self.indices[1]


#: Pictures pasted whole (a player's panel drawn once) and their palette indices, kept.
_PASTED: OrderedDict[int, tuple[Any, Image.Image, Any]] = OrderedDict()
PASTED_CACHE = 32


class _Pasted:
    """An opaque picture :meth:`Canvas.paste` put down: its palette indices are kept while
    the picture lives (a cached panel pasted on board after board)."""

    __slots__ = ("image",)

    def __init__(self, image: Image.Image) -> None:
        self.image = image

    def indexed(self, palette: Image.Image) -> Any:
        image = self.image
        kept = _PASTED.get(id(image))
        if kept is not None and kept[0]() is image and kept[1] is palette:
            _PASTED.move_to_end(id(image))
            return kept[2]
        core = image.im.convert("P", 0, palette.im)
        _PASTED[id(image)] = (weakref.ref(image), palette, core)
        while len(_PASTED) > PASTED_CACHE:
            _PASTED.popitem(last=False)
        return core


def _touches(drawn: list[tuple[int, int, int, int]], box: tuple[int, int, int, int]) -> bool:
    """Whether any of the ``drawn`` boxes overlaps ``box``."""
    x0, y0, x1, y1 = box
    return any(b[0] < x1 and x0 < b[2] and b[1] < y1 and y0 < b[3] for b in drawn)


#: Regions kept by :meth:`Canvas.reuse`, least recently used first, and their bytes.
_REGIONS: OrderedDict[Hashable, _Region] = OrderedDict()
_REGION_BYTES = [0]
_REGION_MISSES = [0]
#: Tests set this: then each region drawn for :meth:`Canvas.reuse` is checked to have
#: drawn nothing outside its box (which pasting it back would leave out).
STRICT_REUSE = [False]


def _region_size(region: _Region) -> int:
    w, h = region.after.size
    return 5 * w * h + len(region.under or b"") + 256  # RGB in 4 bytes, its indices in 1


#: Base layers' palette indices kept (see :func:`_base_indices`), about 1 MB each (one per
#: game): the least recent go first.
BASE_INDICES = 5
_BASE_INDICES: OrderedDict[tuple[int, int], tuple[Any, Image.Image, Image.Image]] = \
    OrderedDict()
#: Base layers known to differ from another only inside some boxes (:func:`derive_base`).
_DERIVED: OrderedDict[int, tuple[Any, Any, tuple[Box4, ...]]] = OrderedDict()
#: A board's PNG maps to its palette again only the cells (this many pixels square) that
#: something was drawn in; the rest comes from its base layer's indices.
_QCELL = 32
_PLTE: dict[int, tuple[Image.Image, bytes]] = {}


def _remap(framed: Image.Image, rgb: Any, boxes: Iterable[Box4], palette: Image.Image) -> None:
    """Map the cells of ``rgb`` (Pillow's core image) under ``boxes`` to ``palette`` again,
    into ``framed`` (indices one pixel right, see :func:`framed_indices`): runs of touched
    cells along each row of cells, runs alike in successive rows merged into one box."""
    width, height = rgb.size
    cell = _QCELL
    last_col, last_row = (width - 1) // cell, (height - 1) // cell
    rows = [0] * (last_row + 1)
    for x0, y0, x1, y1 in boxes:
        if x1 <= x0 or y1 <= y0 or x1 <= 0 or y1 <= 0 or x0 >= width or y0 >= height:
            continue
        c1 = (x1 - 1) // cell
        r1 = (y1 - 1) // cell
        bits = (1 << ((c1 if c1 < last_col else last_col) + 1)) \
            - (1 << (x0 // cell if x0 > 0 else 0))
        for r in range(y0 // cell if y0 > 0 else 0, (r1 if r1 < last_row else last_row) + 1):
            rows[r] |= bits
    runs: dict[tuple[int, int], int] = {}  # open runs (first and last cell): first row
    out: list[Box4] = []
    for r in range(last_row + 2):
        bits = rows[r] if r <= last_row else 0
        here: list[tuple[int, int]] = []
        while bits:
            first = (bits & -bits).bit_length() - 1
            rest = bits >> first
            length = (~rest & (rest + 1)).bit_length() - 1
            here.append((first, first + length - 1))
            bits &= ~(((1 << length) - 1) << first)
        for run in [run for run in runs if run not in here]:
            out.append((run[0], runs.pop(run), run[1], r - 1))
        for run in here:
            runs.setdefault(run, r)
    paste = framed.im.paste
    pal = palette.im
    for c0, r0, c1, r1 in out:
        box = (c0 * cell, r0 * cell, min(width, (c1 + 1) * cell), min(height, (r1 + 1) * cell))
        paste(rgb.crop(box).convert("P", 0, pal), (box[0] + 1, box[1], box[2] + 1, box[3]))


def _base_indices(base: Image.Image, palette: Image.Image) -> Image.Image:
    """``base`` (a board's base layer) in ``palette``, framed (:func:`framed_indices`): kept
    for the next boards on it, and made from the indices of the layer it was derived from
    (:func:`derive_base`) if they are kept."""
    key = (id(base), id(palette))
    kept = _BASE_INDICES.get(key)
    if kept is not None and kept[0]() is base and kept[1] is palette:
        _BASE_INDICES.move_to_end(key)
        return kept[2]
    framed = None
    derived = _DERIVED.get(id(base))
    if derived is not None and derived[0]() is base:
        parent = derived[1]()
        known = _BASE_INDICES.get((id(parent), id(palette))) if parent is not None else None
        if known is not None and known[0]() is parent and known[1] is palette:
            framed = known[2].copy()
            _remap(framed, base.im, derived[2], palette)
    if framed is None:
        framed = framed_indices(base, palette)
    _BASE_INDICES[key] = (weakref.ref(base), palette, framed)
    while len(_BASE_INDICES) > BASE_INDICES:
        _BASE_INDICES.popitem(last=False)
    return framed


def derive_base(child: Image.Image, parent: Image.Image, boxes: Iterable[Box4]) -> None:
    """Note that base layer ``child`` is ``parent`` changed only inside ``boxes`` (pixel
    boxes): its palette indices are then made from ``parent``'s, mapping only those boxes
    again. Pure speed: a wrong note would show as wrong colours there."""
    _DERIVED[id(child)] = (weakref.ref(child), weakref.ref(parent), tuple(boxes))
    while len(_DERIVED) > 4 * BASE_INDICES:
        _DERIVED.popitem(last=False)


def _colours(palette: Image.Image) -> bytes:
    kept = _PLTE.get(id(palette))
    if kept is None or kept[0] is not palette:
        palette.load()
        kept = (palette, palette_bytes(palette))
        if len(_PLTE) > 32:
            _PLTE.clear()
        _PLTE[id(palette)] = kept
    return kept[1]


def content_key(value: Any) -> str:
    """A key for :meth:`Canvas.reuse` holding every detail of ``value`` (a part of a view:
    JSON-able dicts and lists, which are not hashable themselves)."""
    try:
        return json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)
    except (TypeError, ValueError):  # keys that do not sort (mixed types), a cycle
        return repr(value)


def clear_caches() -> None:
    """Forget every cached mask, text, stamp and region (tests: draw as a fresh worker)."""
    _shape_mask.cache_clear()
    _corner_masks.cache_clear()
    _small_flat_mask.cache_clear()
    _text_length.cache_clear()
    _text_box.cache_clear()
    _glyph_mask.cache_clear()
    _fitted.cache_clear()
    _text_masks.cache_clear()
    _STAMPS._items.clear()
    _REGIONS.clear()
    _REGION_BYTES[0] = 0
    _OVERLAYS.clear()
    _COVERS.clear()
    _BASE_INDICES.clear()
    _PASTED.clear()
    _DERIVED.clear()


def cache_sizes() -> dict[str, tuple[int, int]]:
    """How many things each shared drawing cache holds, and how many it had to draw (its
    misses): what a board's drawing cost in work, for the tests (a warmed-up worker's
    caches are full; its first board draws little more than its second)."""
    masks = (_shape_mask.cache_info(), _corner_masks.cache_info())
    texts = _text_masks.cache_info()
    return {"masks": (sum(m.currsize for m in masks), sum(m.misses for m in masks)),
            "texts": (texts.currsize, texts.misses),
            "stamps": (len(_STAMPS._items), _STAMPS.misses),
            "regions": (len(_REGIONS), _REGION_MISSES[0])}



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
                 base: Image.Image | None = None, record: bool | None = None) -> None:
        self.width = width
        self.height = height
        # where things are drawn is recorded (in an active TextLog) on a board, and on a
        # stamp's sprite (moved to the board's pixels when pasted); not on a sprite or a
        # layer a renderer makes and pastes itself
        self.record = scale is None if record is None else record
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
        self._base = base if self.fast else None
        #: Where the fast pipeline has put colour down so far (pixel boxes): what
        #: :meth:`overlay` must not paste over.
        self._drawn: list[tuple[int, int, int, int]] = []
        #: The regions :meth:`reuse` pasted back: where they are in ``_drawn``, and what
        #: they were (their palette indices are kept with them).
        self._kept: list[tuple[int, _Region | _Pasted]] = []
        if TextLog.active is not None and self.record:
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

    # what the tests read (only while a TextLog is active)

    @contextmanager
    def group(self, owner: Hashable) -> Iterator[None]:
        """Text and shapes drawn inside belong to ``owner``: a shape of the group drawn
        after a text of the group does not hide it (a label and its own badge). Free when
        nothing is recorded."""
        log = TextLog.active
        if log is None or not self.record:
            yield
            return
        with log.group(owner):
            yield

    def _log(self) -> TextLog | None:
        log = TextLog.active
        return log if log is not None and self.record else None

    @staticmethod
    def _opaque(colour: Colour | None) -> bool:
        return colour is not None and _alpha(colour) >= OPAQUE

    def _note_shape(self, kind: str, coords: Sequence[float], fill: Colour | None,
                    outline: Colour | None, width: float) -> None:
        """A shape for the active TextLog: its area if the fill is opaque, else its opaque
        outline (as lines or a ring), else nothing."""
        log = self._log()
        if log is None:
            return
        if self._opaque(fill):
            log.add_shape(kind, coords)
            return
        if not self._opaque(outline) or width <= 0:
            return
        if kind == "ellipse":
            log.add_shape("ring", coords, width)
        elif kind == "box":
            x0, y0, x1, y1 = coords
            w = max(1.0, width)
            for band in ((x0, y0, x1, y0 + w), (x0, y1 - w, x1, y1), (x0, y0, x0 + w, y1),
                         (x1 - w, y0, x1, y1)):
                log.add_shape("box", band)
        else:
            log.add_shape("line", [*coords, coords[0], coords[1]], width)

    # the fast pipeline's ways of putting colour down (straight to Pillow's core: a board
    # makes hundreds of these calls, and Image.paste's checks cost more than the pixels)

    def _solid(self, x0: float, y0: float, x1: float, y1: float, colour: Colour) -> None:
        """An axis-aligned block (half-open, rounded to whole pixels): a plain fill."""
        box = (round(x0), round(y0), round(x1), round(y1))
        if box[2] <= box[0] or box[3] <= box[1]:
            return
        self._drawn.append(box)
        alpha = _alpha(colour)
        if alpha >= 255:
            self._im.paste(tuple(colour[:3]), box)
        elif alpha > 0:
            self._im.paste(tuple(colour[:3]), box, _flat_mask(box[2] - box[0], box[3] - box[1],
                                                               alpha))

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
            rgb = tuple(colour[:3])
            held = _shape_mask(kind, part, local, (w, h), ss, wq, rq, alpha)
            strips = held[1]
            if strips is None:
                if not held[2]:  # its first use: pasted whole
                    held[2] = True
                    box = (ox, oy, ox + w, oy + h)
                    self._drawn.append(box)
                    self._im.paste(rgb, box, held[0].im)
                    continue
                strips = held[1] = _strips(held[0])
                held[0] = None
            for x0, y0, x1, y1, mask in strips:
                box = (ox + x0, oy + y0, ox + x1, oy + y1)
                self._drawn.append(box)
                self._im.paste(rgb, box, mask)

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
            paste = self._im.paste
            self._drawn.append((x0, y0, x1, y1))
            tl, tr, bl, br = corners
            paste(rgb, (x0, y0, x0 + c, y0 + c), tl)
            paste(rgb, (x1 - c, y0, x1, y0 + c), tr)
            paste(rgb, (x0, y1 - c, x0 + c, y1), bl)
            paste(rgb, (x1 - c, y1 - c, x1, y1), br)
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
        self._note_shape("box", box, fill, outline, width)
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
        self._note_shape("ellipse", box, fill, outline, width)
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
        if len(points) >= 2 and TextLog.active is not None:     # only while tests record
            self._note_shape("polygon", [v for p in points for v in p], fill, outline, width)
        if self.fast:
            if len(points) >= 2:
                self._shape("polygon", [v for p in points for v in p], fill, outline, width)
        else:
            self.draw.polygon(self._pts(points), fill=fill, outline=outline,
                              width=self._w(width))

    def line(self, points: Sequence[Point], fill: Colour, width: float = 1,
             round_caps: bool = False) -> None:
        log = self._log()
        if log is not None and len(points) >= 2 and self._opaque(fill):
            log.add_shape("line", [v for p in points for v in p], max(1.0, width))
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
        log = self._log()
        if log is not None:
            ink = image.getchannel("A").point(lambda a: 255 if a >= OPAQUE else 0).getbbox() \
                if image.mode == "RGBA" else (0, 0, image.width, image.height)
            if ink is not None:
                log.add_shape("box", (xy[0] + ink[0], xy[1] + ink[1], xy[0] + ink[2],
                                      xy[1] + ink[3]))
        if self.scale != 1:
            image = image.resize((image.width * self.scale, image.height * self.scale),
                                 Image.Resampling.BICUBIC)
        pos = (self._v(xy[0]), self._v(xy[1]))
        if self.fast and image.mode in ("RGB", "RGBA"):  # straight to Pillow's core
            box = (pos[0], pos[1], pos[0] + image.width, pos[1] + image.height)
            self._drawn.append(box)
            core = image.im
            if image.mode == "RGBA":
                self._im.paste(core, box, core)
            else:
                self._kept.append((len(self._drawn) - 1, _Pasted(image)))
                self._im.paste(core, box)
            return
        if self.fast:
            self._drawn.append((pos[0], pos[1], pos[0] + image.width, pos[1] + image.height))
        if image.mode == "RGBA":
            self.image.paste(image, pos, image)
        else:
            self.image.paste(image, pos)

    def stamp(self, key: Hashable, centre: Point, extent: float,
              draw: Callable[[Canvas, Point], None], extent_y: float | None = None) -> None:
        """A composite piece (a counter, an icon) that ``draw(canvas, centre)`` draws within
        ``extent`` pixels of ``centre`` (``extent_y`` up and down, if given: a wide, flat
        label's sprite need not be square): drawn once at high quality on a transparent
        sprite, cached by ``key`` (which must hold everything the drawing depends on) and
        pasted. On a slow canvas it is simply drawn."""
        if not self.fast:
            with self.group(("stamp", key, centre)):
                draw(self, centre)
            return
        ix, iy = math.floor(centre[0]), math.floor(centre[1])
        fx, fy = round((centre[0] - ix) * 2) / 2, round((centre[1] - iy) * 2) / 2
        e = math.ceil(extent) + 1
        ey = e if extent_y is None else min(e, math.ceil(extent_y) + 1)

        def sprite() -> Image.Image:
            c = Canvas(2 * e + 1, 2 * ey + 1, (0, 0, 0, 0), scale=AA, mode="RGBA",
                       record=True)
            draw(c, (e + fx, ey + fy))
            return c.finish()

        log = self._log()
        # a stamp is one piece: its own shapes never hide its own text
        image = _STAMPS.get((key, fx, fy, e) if ey == e else (key, fx, fy, e, ey), sprite,
                            (ix - e, iy - ey),
                            frozenset({("stamp", key, centre)}) if log is not None else frozenset())
        core = image.im
        box = (ix - e, iy - ey, ix + e + 1, iy + ey + 1)
        self._drawn.append(box)
        self._im.paste(core, box, core)

    def reuse(self, key: Hashable, box: Box, draw: Callable[[], None]) -> None:
        """``draw()``, which draws only inside ``box`` and only what ``key`` says (``key``
        must hold everything the drawing depends on): the first time it is drawn, and the
        finished pixels of ``box`` are kept; later, over the same pixels (checked), they
        are pasted back in one go, and what it drew is recorded again in the active
        :class:`TextLog`. A player card or a reference list that rarely changes costs one
        paste instead of dozens of shapes. On a slow canvas it is simply drawn."""
        if not self.fast:
            draw()
            return
        region = (max(0, math.floor(box[0])), max(0, math.floor(box[1])),
                  min(self.width, math.ceil(box[2])), min(self.height, math.ceil(box[3])))
        if region[2] <= region[0] or region[3] <= region[1]:
            draw()
            return
        log = self._log()
        # nothing drawn there yet: what is under it is the base layer's (no bytes to read)
        bare = self._base if self._base is not None and not _touches(self._drawn, region) \
            else None
        under = self.image.crop(region).tobytes() if bare is None else None
        full_key = (key, region)
        kept = _REGIONS.get(full_key)
        same = kept is not None and ((bare is not None and kept.base is bare)
                                     or (under is not None and kept.under == under))
        if kept is not None and same and (log is None or kept.entries is not None):
            _REGIONS.move_to_end(full_key)
            self._kept.append((len(self._drawn), kept))
            self._drawn.append(region)
            self._im.paste(kept.after.im, region)
            if log is not None and kept.entries is not None:
                log.replay(kept.entries)
            return
        _REGION_MISSES[0] += 1
        before = self.image.copy() if STRICT_REUSE[0] else None
        inner = TextLog() if log is not None else None
        if inner is not None:
            TextLog.active = inner
        try:
            draw()
        finally:
            if inner is not None:
                TextLog.active = log
        if before is not None:
            before.paste(self.image.crop(region), region[:2])
            if before.tobytes() != self.image.tobytes():
                raise AssertionError(f"{key!r} drew outside its region {region}")
        entries = tuple(inner.entries()) if inner is not None else None
        if log is not None and entries is not None:
            log.replay(entries)
        if kept is not None:
            _REGION_BYTES[0] -= _region_size(_REGIONS.pop(full_key))
        kept = _Region(under, bare, self.image.crop(region), entries)
        _REGIONS[full_key] = kept
        _REGION_BYTES[0] += _region_size(kept)
        while _REGION_BYTES[0] > REGION_BYTES and len(_REGIONS) > 1:
            _REGION_BYTES[0] -= _region_size(_REGIONS.popitem(last=False)[1])

    def overlay(self, key: Hashable, items: Sequence[Callable[[Canvas], None]],
                keys: Sequence[Hashable] | None = None) -> None:
        """Draw ``items`` (each ``item(canvas)``, in order): pieces that look the same on
        every board with this ``key`` and base layer (a map's place names and cities) but
        are drawn over things that change (the turn's arrows). As they are drawn, the
        pixels of each group of overlapping pieces drawn over the bare base layer are kept
        (a patch); later boards paste a patch where nothing has been drawn under it yet
        and draw its pieces again where something has. ``keys``, one per item, hold what
        each item depends on besides ``key`` (a city's owner): when some change, only
        their patches are drawn again (if they cover the same pixels as before; else
        everything). On a slow canvas, without a base layer or while a TextLog records,
        simply drawn."""
        if not self.fast or self._base is None or TextLog.active is not None:
            for item in items:
                item(self)
            return
        item_keys = tuple(keys) if keys is not None else None
        full_key = (key, id(self._base), self.width, self.height, len(items))
        kept = _OVERLAYS.get(full_key)
        if kept is None:
            kept = self._derived_overlay(key, len(items))
        if kept is not None and kept[0] is self._base and kept[1][4] != item_keys:
            kept = self._rekeyed(kept, items, item_keys)
        if kept is not None and kept is not _OVERLAYS.get(full_key):
            _OVERLAYS[full_key] = kept
            while len(_OVERLAYS) > OVERLAY_CACHE:
                _OVERLAYS.popitem(last=False)
        if kept is None or kept[0] is not self._base:
            before = len(self._drawn)
            spans: list[Box4 | None] = []
            for item in items:
                start = len(self._drawn)
                item(self)
                boxes = self._drawn[start:]
                spans.append((min(b[0] for b in boxes), min(b[1] for b in boxes),
                              max(b[2] for b in boxes), max(b[3] for b in boxes))
                             if boxes else None)
            patches, grid = _patches(spans, self.width, self.height)
            under = _under(self._drawn[:before], patches, grid)
            cores = [self.image.crop(box).im if k not in under and box[2] else None
                     for k, (box, _) in enumerate(patches)]
            _OVERLAYS[full_key] = (self._base, (patches, grid, cores, spans, item_keys, {}))
            while len(_OVERLAYS) > OVERLAY_CACHE:
                _OVERLAYS.popitem(last=False)
            return
        _OVERLAYS.move_to_end(full_key)
        patches, grid, cores, spans, _, stale = kept[1]
        drawn = len(self._drawn)
        under = _under(self._drawn, patches, grid)
        for k, (box, indices) in enumerate(patches):
            core = cores[k]
            marks = stale.get(k)
            if core is not None and (k in under or marks is not None):
                self._patch_around(box, core, indices, spans, items, drawn, marks,
                                   _covers(spans, k))
                if k not in under and box[2]:  # drawn over the bare base: kept now
                    cores[k] = self.image.crop(box).im
                    stale.pop(k, None)
            elif k in under or core is None:
                for i in indices:
                    items[i](self)
                if k not in under and box[2]:  # drawn over the bare base: kept now
                    cores[k] = self.image.crop(box).im
                    stale.pop(k, None)
            else:
                self._drawn.append(box)
                self._im.paste(core, box)

    def _patch_around(self, box: Box4, core: Any, indices: list[int],
                      spans: Sequence[Box4 | None], items: Sequence[Callable[[Canvas], None]],
                      drawn: int, marks: tuple[set[int], list[Box4]] | None,
                      kept: dict[int, set[int]]) -> None:
        """A kept patch with something drawn under part of it (one of the first ``drawn``
        boxes), or with ``marks``: items of it that changed (the same pixels covered) and
        boxes where the base layer changed. In cells of :data:`_PCELL` pixels, the items
        over those parts (and the changed ones) are drawn again, with every item over the
        cells those touch, and so on; the rest of the patch is pasted (nothing lies under
        it there, and no item drawn again reaches it). Everything drawn again if that is
        the whole patch. ``kept`` holds (for this patch) the cells each item covers."""
        if len(indices) < 2:  # one item covers its whole patch
            for i in indices:
                items[i](self)
            return
        cell = _PCELL
        x0, y0, x1, y1 = box
        cols, rows = (x1 - x0 + cell - 1) // cell, (y1 - y0 + cell - 1) // cell

        def cells(b: Box4) -> set[int]:
            c0, c1 = max(0, (b[0] - x0) // cell), min(cols - 1, (b[2] - 1 - x0) // cell)
            r0, r1 = max(0, (b[1] - y0) // cell), min(rows - 1, (b[3] - 1 - y0) // cell)
            return {r * cols + c for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)}

        redraw: set[int] = set()
        for b in [*self._drawn[:drawn], *(marks[1] if marks is not None else ())]:
            if b[0] < x1 and x0 < b[2] and b[1] < y1 and y0 < b[3]:
                redraw |= cells(b)
        covers = kept
        if not covers:
            covers.update((i, cells(span)) for i in indices if (span := spans[i]) is not None
                          and span[0] < x1 and x0 < span[2] and span[1] < y1 and y0 < span[3])
        again: set[int] = set()
        for i in marks[0] if marks is not None else ():
            if i in covers:
                again.add(i)
                redraw |= covers[i]
        grown = True
        while grown:  # the items over cells drawn again, and the cells they cover
            grown = False
            for i, over in covers.items():
                if i not in again and over & redraw:
                    again.add(i)
                    redraw |= over
                    grown = True
        if len(again) == len(covers) or len(redraw) >= cols * rows:
            for i in indices:
                items[i](self)
            return
        for r in range(rows):  # the rest pasted, a run of cells at a time
            c = 0
            while c < cols:
                if r * cols + c in redraw:
                    c += 1
                    continue
                start = c
                while c < cols and r * cols + c not in redraw:
                    c += 1
                part = (x0 + start * cell, y0 + r * cell, min(x1, x0 + c * cell),
                        min(y1, y0 + (r + 1) * cell))
                self._drawn.append(part)
                self._im.paste(core.crop((part[0] - x0, part[1] - y0, part[2] - x0,
                                          part[3] - y0)), part)
        for i in indices:
            if i in again or i not in covers:
                items[i](self)

    def _derived_overlay(self, key: Hashable, count: int) -> tuple[Image.Image, Any] | None:
        """The overlay ``key`` kept on the base layer this canvas's base was derived from
        (:func:`derive_base`), its patches over what changed marked (drawn again there, see
        :meth:`_patch_around`): a map whose tints changed keeps the names elsewhere."""
        derived = _DERIVED.get(id(self._base))
        if derived is None or derived[0]() is not self._base:
            return None
        parent = derived[1]()
        if parent is None:
            return None
        kept = _OVERLAYS.get((key, id(parent), self.width, self.height, count))
        if kept is None or kept[0] is not parent:
            return None
        patches, grid, cores, spans, item_keys, stale = kept[1]
        marks = {k: (set(items), list(boxes)) for k, (items, boxes) in stale.items()}
        for k in _under(derived[2], patches, grid):  # the base changed under these patches
            marks.setdefault(k, (set(), []))[1].extend(derived[2])
        return self._base, (patches, grid, list(cores), spans, item_keys, marks)

    def _rekeyed(self, kept: tuple[Image.Image, Any], items: Sequence[Callable[[Canvas], None]],
                 item_keys: tuple[Hashable, ...] | None) -> tuple[Image.Image, Any] | None:
        """An overlay kept with other item keys, the items whose keys changed marked in
        their patches (drawn again, see :meth:`_patch_around`), if those items still cover
        exactly what they did (tried on a scratch canvas); else None (everything drawn
        again)."""
        patches, grid, cores, spans, old_keys, stale = kept[1]
        if item_keys is None or old_keys is None or len(old_keys) != len(item_keys):
            return None
        changed = {i for i, (a, b) in enumerate(zip(old_keys, item_keys, strict=True))
                   if a != b}
        # a scratch canvas of one pixel (Pillow clips what lies outside): only where the
        # items draw is read
        scratch = Canvas(1, 1, (0, 0, 0))
        scratch.width, scratch.height = self.width, self.height
        for i in sorted(changed):
            start = len(scratch._drawn)
            items[i](scratch)
            boxes = scratch._drawn[start:]
            span = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                    max(b[2] for b in boxes), max(b[3] for b in boxes)) if boxes else None
            if span != spans[i]:
                return None
        marks = {k: (set(items), list(boxes)) for k, (items, boxes) in stale.items()}
        for k, (_, indices) in enumerate(patches):  # these patches' changed items drawn again
            for i in indices:
                if i in changed:
                    marks.setdefault(k, (set(), []))[0].add(i)
        return kept[0], (patches, grid, list(cores), spans, item_keys, marks)

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
            box = None
            if self.record:
                left, top, right, bottom = _text_box(
                    text, _qsize(size), bold, anchor, stroke if stroke_fill is not None else 0)
                x, y = round(xy[0]), round(xy[1])
                box = (x + left, y + top, x + right, y + bottom)
            TextLog.active.add_text(role, text, size, box)
        if not self.fast:
            self._slow_text((self._v(xy[0]), self._v(xy[1])), text, fill, self.font(size, bold),
                            anchor, self._w(stroke) if stroke else 0, stroke_fill)
            return
        stroke_q = round(stroke * 2) / 2 if stroke and stroke_fill is not None else 0.0
        fill_mask, stroke_mask, dx, dy, w, h = _text_masks(
            text, _qsize(size), bold, anchor, stroke_q, _alpha(fill),
            _alpha(stroke_fill) if stroke_q and stroke_fill is not None else 0)
        x, y = round(xy[0]) + dx, round(xy[1]) + dy
        box = (x, y, x + w, y + h)
        self._drawn.append(box)
        if stroke_mask is not None and stroke_fill is not None:
            self._im.paste(tuple(stroke_fill[:3]), box, stroke_mask)
        self._im.paste(tuple(fill[:3]), box, fill_mask)

    def _slow_text(self, xy: tuple[int, int], text: str, fill: Colour, fnt: Font, anchor: str,
                   stroke: int, stroke_fill: Colour | None) -> None:
        """``ImageDraw.text`` at whole pixels, its glyphs' masks kept (:func:`_glyph_mask`):
        a sprite's or a layer's text drawn larger is laid out and rendered once."""
        if not isinstance(fnt, ImageFont.FreeTypeFont) or "\n" in text:
            self.draw.text(xy, text, fill=fill, font=fnt, anchor=anchor, stroke_width=stroke,
                           stroke_fill=stroke_fill)
            return
        draw = self.draw

        def getink(colour: Colour | None) -> int | None:  # as ImageDraw.text's
            ink, fill_ink = draw._getink(colour)
            return fill_ink if ink is None else ink

        ink = getink(fill)
        if ink is None:
            return
        stroke_ink = (getink(stroke_fill) if stroke_fill is not None else ink) \
            if stroke else None
        passes: list[tuple[int, int]] = [(stroke_ink, stroke)] if stroke_ink is not None else []
        if stroke_ink is None or ink != stroke_ink:
            passes.append((ink, 0))
        for colour, width in passes:
            mask, offset = _glyph_mask(fnt, text, anchor, width, colour)
            draw.draw.draw_bitmap((xy[0] + offset[0], xy[1] + offset[1]), mask, colour)

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
        keep = self.scale == 1 or _Quality.enlarged
        image = self.image if keep else self.image.reduce(self.scale)
        if _Quality.captured is not None:
            _Quality.captured.append(image.copy())
        if _Quality.enlarged:
            return encode_png(image, palette=palette if palette is not None else True)
        if not self.fast:
            return encode_png(image)
        base = self._base
        if palette is not None and base is not None and base.mode == "RGB" \
                and base.size == image.size:
            return self._palette_png(base, palette)
        return encode_png(image, palette=palette if palette is not None else True)

    def _palette_png(self, base: Image.Image, palette: Image.Image) -> bytes:
        """The board in ``palette`` as PNG bytes, the same as :func:`encode_png`'s but
        mapping to the palette only what was drawn: the base layer's indices are kept,
        the regions :meth:`reuse` pasted back keep theirs, and only the cells drawn in
        otherwise are mapped again (from the finished picture)."""
        colours = _colours(palette)
        framed = _base_indices(base, palette).copy()
        paste = framed.im.paste
        pasted = set()
        width, height = self.width, self.height
        for index, region in self._kept:
            x0, y0, x1, y1 = self._drawn[index]
            if x0 >= 0 and x1 <= width and y0 >= 0 and y1 <= height:
                paste(region.indexed(palette), (x0 + 1, y0, x1 + 1, y1))
                pasted.add(index)
        drawn = self._drawn if not pasted else \
            [box for i, box in enumerate(self._drawn) if i not in pasted]
        _remap(framed, self._im, drawn, palette)
        return framed_png(framed, colours)

