"""Where things are on the Napoleonic Wars board (the map's square under the header, the
panel under the map), the sides and their colours, the map's colours and the sizes of
its counters and labels."""

from __future__ import annotations

from pathlib import Path

from render.common import RGB, essential_size

WIDTH, HEIGHT = 800, 1186  # the panel under the map holds six lines
SCALE = 4  # the static map is drawn this many times larger, then reduced
KIND = "napoleon"

MAP_FILE = Path(__file__).resolve().parents[2] / "engine" / "napoleon" / "data" / "map.toml"

# The map: the 1000 x 1000 sketch of map.toml, scaled into a square under the header.
MAP_X, MAP_Y, MAP_SIZE = 10, 194, 780
MAP_K = MAP_SIZE / 1000
BOTTOM_Y = MAP_Y + MAP_SIZE + 8  # the panel under the map

SIDES = ("french", "allies")
SIDE_COLOURS: dict[str, RGB] = {"french": (52, 116, 232), "allies": (218, 56, 56)}
SIDE_NAMES = {"french": "French", "allies": "Allies"}
SIDE_TITLES = {"french": "FRENCH EMPIRE", "allies": "ALLIES"}

SEA: RGB = (27, 43, 63)
SHALLOW: RGB = (38, 62, 88)
LANE: RGB = (92, 128, 160)
LAND: RGB = (108, 101, 80)
BORDER: RGB = (28, 26, 22)
SHORE: RGB = (170, 196, 214)
BORDER_W = 2.6  # a land border's line (final pixels)
TINT_ALPHA = 112  # a controlled country's tint over the land colour
TOKEN_R = 16.5
TOKEN_TEXT = 18.0
ORDER_TEXT = 11.0  # a move's order number
TAG_SIZE = 12.5  # the text of a tag (reinforcements placed, armies destroyed)
MAX_ARROWS = 40  # the most moves (and retreats) drawn from one set of events
TOKEN_GAP = 19.0  # a counter's centre from the block's middle when both sides are there

#: Essential text (the status line, names, counts, hands, scores) is at least this tall:
#: 8 px on a phone that shows the image 390 px wide.
ESSENTIAL = essential_size(WIDTH)

PHASES = {"discard": "discards", "move": "moves", "choose": "picks the next battle",
          "cards": "plays battle cards", "retreat": "retreats", "over": "game over"}
