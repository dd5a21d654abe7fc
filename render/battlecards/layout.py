"""Where things are on the Battlecards table (one column, 800 x 1100, phone first): the title
row, the status bar, the two placemats and the middle of the table; the game's names and
limits; the colours of face-up cards; and each side's palette (:class:`Style`)."""

from __future__ import annotations

from dataclasses import dataclass

from render.common import RGB, Box, essential_size

WIDTH, HEIGHT = 800, 1100
SCALE = 2  # sprites and static layers are drawn this many times larger, then reduced
KIND = "battlecards"
M = 12  # the outer margin
#: The size of essential text: at least 8 px once Discord shrinks the image to a phone.
BIG = max(17.0, essential_size(WIDTH))  # 17 px at 800 wide

# Layout (final pixels), top to bottom.
STATUS_BOX: Box = (M, 50, WIDTH - M, 116)
MAT_H = 158
TOP_MAT_Y = 124
BOTTOM_MAT_Y = HEIGHT - M - MAT_H
MID_Y0, MID_Y1 = TOP_MAT_Y + MAT_H + 8, BOTTOM_MAT_Y - 8
HEADER_H = 96
HEADER_BOX: Box = (M, MID_Y0, WIDTH - M, MID_Y0 + HEADER_H)
STRIP_H = 150  # the conflict deck and the shots
STRIP_Y0 = MID_Y1 - STRIP_H
#: The conflict deck and its face-up discard, whose name and effect are read on a phone.
CONFLICT_BOX: Box = (M, STRIP_Y0, M + 324, MID_Y1)
SHOTS_BOX: Box = (M + 332, STRIP_Y0, WIDTH - M, MID_Y1)
#: Between the header and the strip: the battle's units, a battle report or the list.
BODY_BOX: Box = (M, MID_Y0 + HEADER_H + 8, WIDTH - M, STRIP_Y0 - 8)
BAND_GAP = 8
BAND_H = (BODY_BOX[3] - BODY_BOX[1] - BAND_GAP) / 2
BAND_TAB = 26  # the side's label along a band's left edge
#: The bands of revealed units: the top (German) player's, then the bottom one's.
BANDS: tuple[Box, Box] = (
    (M, BODY_BOX[1], WIDTH - M, BODY_BOX[1] + BAND_H),
    (M, BODY_BOX[3] - BAND_H, WIDTH - M, BODY_BOX[3]))

FORCES = ("ground", "air", "sea")
FORCE_NAMES = {"ground": "Ground", "air": "Air", "sea": "Sea", "leader": "Leader"}
PHASE_NAMES = {"setup": "Setup", "draw": "Draw", "resolve": "Resolve", "decide": "Decide",
               "battle": "Battle", "withdraw": "Withdraw", "over": "Game over"}
FIRING_PHASES = (1, 2, 3, 4)
DEFAULT_TARGET = 38
SHOT_ROWS = 3  # rows of the shots list (few, in essential-size text: phone first)
MAX_EVENTS = 5000  # events read (the latest)
# Revealed units per detail level (0 full, 1 compact, 2 as compact, the band full: its
# last card says "+N more"): rows in a side's band and the narrowest and widest card. A
# unit's name and values are essential text (readable on a phone), so cards are few and
# large rather than many and tiny.
CARD_ROWS = (1, 2, 2)
CARD_MIN_W = (134.0, 112.0, 112.0)
CARD_MAX_W = (170.0, 180.0, 180.0)

# Face-up cards: parchment with dark ink.
FACE: RGB = (238, 232, 216)
FACE_EDGE: RGB = (150, 140, 118)
INK: RGB = (36, 34, 30)
INK_MUTED: RGB = (112, 106, 94)
INK_FAINT: RGB = (176, 168, 150)
GOLD: RGB = (236, 176, 40)
HIT: RGB = (214, 58, 48)
MISS: RGB = (96, 100, 110)
WITHDRAWN: RGB = (86, 128, 186)
CONFLICT_BACK: RGB = (92, 74, 48)
CONFLICT_MARK: RGB = (214, 178, 98)
SOFT: RGB = (214, 210, 200)  # secondary text that still matters (the prompt)
ELLIPSIS = "…"


@dataclass(frozen=True)
class Style:
    """A side's palette: the placemat, its card backs and its face-up card headers."""

    key: str
    label: str
    mat: RGB
    mat_edge: RGB
    stripe: tuple[RGB, RGB, RGB]  # the placemat's accent stripe (outer, middle, inner)
    back: RGB  # arsenal card backs
    back_edge: RGB
    back_line: RGB
    back_ring: RGB
    back_core: RGB
    head: RGB  # face-up unit card header
    head_line: RGB
    head_text: RGB
    bar: RGB  # victory points
    chip: RGB  # unit references
    chip_edge: RGB


GERMAN = Style(
    "german", "German", mat=(60, 64, 59), mat_edge=(92, 98, 90),
    stripe=((18, 18, 18), (232, 228, 220), (172, 34, 32)),
    back=(98, 104, 94), back_edge=(20, 20, 20), back_line=(112, 119, 108),
    back_ring=(232, 228, 220), back_core=(172, 34, 32),
    head=(74, 79, 71), head_line=(172, 34, 32), head_text=(240, 238, 232),
    bar=(206, 56, 46), chip=(80, 86, 78), chip_edge=(206, 60, 50))
BRITISH = Style(
    "british", "British", mat=(88, 80, 56), mat_edge=(128, 116, 84),
    stripe=((28, 40, 80), (214, 198, 150), (28, 40, 80)),
    back=(34, 50, 94), back_edge=(200, 184, 138), back_line=(44, 62, 110),
    back_ring=(200, 184, 138), back_core=(28, 40, 80),
    head=(34, 50, 94), head_line=(200, 184, 138), head_text=(244, 238, 220),
    bar=(96, 146, 226), chip=(38, 56, 104), chip_edge=(206, 190, 140))
OTHER = Style(
    "other", "", mat=(52, 55, 62), mat_edge=(80, 84, 94),
    stripe=((30, 30, 34), (150, 150, 150), (30, 30, 34)),
    back=(80, 82, 90), back_edge=(30, 30, 34), back_line=(92, 94, 102),
    back_ring=(170, 170, 176), back_core=(60, 62, 70),
    head=(80, 82, 90), head_line=(150, 150, 156), head_text=(240, 240, 240),
    bar=(160, 160, 166), chip=(80, 82, 90), chip_edge=(170, 170, 176))
STYLES = {"german": GERMAN, "british": BRITISH}
