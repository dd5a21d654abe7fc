"""Where things are on the Antiquity image (the header, the map, the wheel and the log, a
panel per nation), the map's colours, the sizes of its cities and counters, and the
game's names: resources, wheel fields, know-hows and personalities."""

from __future__ import annotations

from pathlib import Path

from render.common import RGB, essential_size

KIND = "antiquity"
WIDTH = 780
SCALE = 4  # static layers are drawn this many times larger, then reduced

MAP_FILE = Path(__file__).resolve().parents[2] / "engine" / "antiquity" / "data" / "map.toml"

#: Essential text (status line, round, counts, resources, points) is at least this tall:
#: 8 px on a phone that shows the image 390 px wide.
ESSENTIAL = essential_size(WIDTH)

# layout (final pixels)
M = 8  # outer margin
HEADER_H = 84
MAP_X, MAP_Y, MAP_W, MAP_H = M, M + HEADER_H, WIDTH - 2 * M, 640
LOWER_Y = MAP_Y + MAP_H + 8  # the wheel and the log
LOWER_H = 344  # a wheel big enough for its fields' names at the phone minimum
WHEEL_BOX = (M, LOWER_Y, M + LOWER_H, LOWER_Y + LOWER_H)
LOG_BOX = (M + LOWER_H + 8, LOWER_Y, WIDTH - M, LOWER_Y + LOWER_H)
PANELS_Y = LOWER_Y + LOWER_H + 8
PANEL_W = (WIDTH - 2 * M - 8) / 2
PANEL_H = 92
PANEL_GAP = 8
MAX_NATIONS = 6

# the map's look
SEA: RGB = (40, 74, 110)
DEEP: RGB = (22, 42, 70)
SEA_OUT: RGB = (44, 47, 54)  # a sea not in play
SEA_EDGE: RGB = (70, 104, 140)
LAND: RGB = (122, 110, 78)
LAND_OUT: RGB = (66, 66, 68)  # a province not in play
SHORE: RGB = (176, 196, 206)
SHORE_OUT: RGB = (84, 86, 92)
OUT_LABEL: RGB = (150, 152, 160)  # the caption on the regions not in play
BORDER: RGB = (58, 50, 34)
COAST: RGB = (150, 190, 214)
SEA_LABEL: RGB = (150, 186, 218)
SEA_NAME: RGB = (184, 210, 234)  # a sea's name (brighter: readable on a phone)
BLOB_R = 25.0  # a province's land blob
BRIDGE_W = 36.0  # a land border's land bridge
STRAIT_W = 9.0  # ... across a strait
CITY_R = 10.0
CITY_DY = -4.0  # the city disc above the province's point
UNIT_H = 19.0  # a unit counter's height
#: Place names (cities and seas: what a player types to move) are essential text too.
PLACE = ESSENTIAL
PLACE_STROKE = 2.0
LEGEND_SIZE = 11.0

RESOURCES = ("marble", "iron", "gold")
RESOURCE_COLOURS: dict[str, RGB] = {"marble": (232, 228, 218), "iron": (150, 170, 190),
                                    "gold": (246, 196, 52)}
RESOURCE_LETTERS = {"marble": "M", "iron": "I", "gold": "G"}

FIELDS = ("marble", "temple", "maneuver1", "knowhow", "gold", "iron", "arming", "maneuver2")
FIELD_NAMES = {"marble": "Marble", "temple": "Temple", "maneuver1": "Maneuver I",
               "knowhow": "Know-how", "gold": "Gold", "iron": "Iron", "arming": "Arming",
               "maneuver2": "Maneuver II"}
FIELD_COLOURS: dict[str, RGB] = {
    "marble": (150, 148, 140), "temple": (170, 140, 84), "maneuver1": (150, 70, 60),
    "knowhow": (70, 100, 160), "gold": (176, 140, 40), "iron": (96, 108, 124),
    "arming": (120, 60, 70), "maneuver2": (150, 70, 60)}

KNOWHOWS = ("wheel", "roads", "sailing", "navigation", "currency", "monarchy", "democracy",
            "philosophy")
KNOWHOW_NAMES = {k: k.title() for k in KNOWHOWS}
KNOWHOW_TAGS = {"wheel": "Wheel", "roads": "Roads", "sailing": "Sail", "navigation": "Navig",
                "currency": "Curr", "monarchy": "Mon", "democracy": "Dem",
                "philosophy": "Phil"}
PERSONALITIES = ("king", "citizen", "scholar", "navigator", "general")
PERSONALITY_TAGS = {"king": "K", "citizen": "C", "scholar": "S", "navigator": "N",
                    "general": "G"}

MAX_ARROWS = 40
ARROW_HEAD, ARROW_SPREAD = 13.0, 1.8  # the most an arrow's head is long, and its half-width
MAX_COUNT = 999
NEUTRAL_NATION: RGB = (150, 150, 150)

# the wheel (final pixels)
WHEEL_C = ((WHEEL_BOX[0] + WHEEL_BOX[2]) / 2, (WHEEL_BOX[1] + WHEEL_BOX[3]) / 2)
WHEEL_OUT, WHEEL_IN, WHEEL_HUB = 152.0, 33.0, 28.0
MARKER_R = 9.5
MARKER_STEP = 23.0  # between two markers' centres in a row
ARC_R = 161.0
#: The wheel's field names (what ``go <field>`` takes) are essential text; the long ones
#: take two lines, to fit their (diagonal) fields.
FIELD_NAME = ESSENTIAL
FIELD_NAME_STROKE = 2.0
FIELD_LINES: dict[str, tuple[str, ...]] = {}


def image_height(nations: int) -> int:
    """The image's height for a table of ``nations`` (one row of panels per two)."""
    rows = max(1, min(3, (max(1, nations) + 1) // 2))
    return round(PANELS_Y + rows * (PANEL_H + PANEL_GAP) - PANEL_GAP + M)

