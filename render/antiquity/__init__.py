"""The Antiquity board: the Mediterranean, the action wheel and a panel per nation.

Drawn from the public view dict only (``engine.antiquity``'s ``view``), the events and the
shared map data (``engine/antiquity/data/map.toml``: names, cities, resources, borders,
coasts, the player count each region joins at, nation colours and the drawing positions
``at`` on a 1000 x 560 sketch, stretched here to the map's box).

The map: seas are the cells nearest each sea's position (deep seas darker), land provinces
are blobs joined by land bridges where they share a border (a dotted border link between
their cities; short dashes run from each coast toward its seas). Each city site is a disc
ringed in its resource's colour with the resource's letter (M, I, G), filled in the owner's
nation colour, with a small temple above it when it has one. Every place is named at the
phone-first size (a city by its city's name, a sea without "Mare": names the commands
take), each name laid out once per set of regions in play clear of every city, every other
name and the first counter beside each city (``geography.spots``), and drawn over the
arrows. Legions stand beside their city as square counters and galleys by their sea's name
as hull-shaped counters, one per nation, in the nation's colour with the count; a counter
that would cover a name, a city or another counter takes the next row. Regions not in play
for this table (the view lists only those in play) are greyed, captioned "Not in play"
where there is room and explained by the legend (bottom left, with the deep seas).

Under the map: the action wheel (8 fields clockwise, Marble just left of the top, each
named at the phone-first size as far out in its wedge as it fits; every nation's marker
with its initial on its field, in rows clear of the field's name; the nation to act ringed
in gold, its move this turn as an arc outside the wheel) beside the last turn in words (at
the phone-first size, wrapped, a nation named once in the heading of its turn), then a
panel per nation in seat order: name and player, personalities against the target,
resources, cities, temples, legions and galleys, know-hows. On top: the round, whose turn
it is, the prompt, and the winner once the game is over.

What ``events`` did (every public event since the last image, a whole turn) is marked on
the map: an arrow per move along its path (its count where it covers nothing), red bursts
for fights, a red ring for a conquered city, gold rings for cities founded and temples
built, "+n" for units armed (each mark near its region, clear of names and counters), a
cross for a city abandoned; production and know-hows bought are tagged on the panels.
Text a player needs to decide (the status line, the round, place and field names, unit
counts, resources, points, the last turn) is marked with its role and drawn at least
:func:`render.common.min_essential_size` tall, so it stays readable on a phone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.antiquity.backdrop import _backdrop, sea_cells
from render.antiquity.backdrop import _map_layer as _map_layer
from render.antiquity.board import _draw_map
from render.antiquity.events import _read_events
from render.antiquity.geography import _city_xy as _city_xy
from render.antiquity.geography import city_boxes, game_map, layout_key, place_name, spots
from render.antiquity.layout import (
    CITY_R,
    DEEP,
    ESSENTIAL,
    KIND,
    LAND_OUT,
    LOG_BOX,
    MAP_FILE,
    MAP_H,
    MAP_W,
    MAP_X,
    MAP_Y,
    MARKER_R,
    PANEL_GAP,
    PANEL_H,
    PANEL_W,
    PANELS_Y,
    RESOURCE_COLOURS,
    SEA,
    WHEEL_BOX,
    WHEEL_C,
    WHEEL_IN,
    WHEEL_OUT,
    WIDTH,
    M,
    image_height,
)
from render.antiquity.panel import _header, _log, _panels
from render.antiquity.view import _nations, _status
from render.antiquity.view import _places as _places
from render.antiquity.wheel import _draw_wheel
from render.antiquity.wheel import _marker_slots as _marker_slots
from render.common import BACKGROUND, GOLD, Canvas, is_over, load_palette
from render.common import lighten as lighten

__all__ = [
    "CITY_R", "DEEP", "ESSENTIAL", "GOLD", "LAND_OUT", "LOG_BOX", "MAP_FILE", "MAP_H", "MAP_W",
    "MAP_X", "MAP_Y", "MARKER_R", "PANELS_Y", "PANEL_GAP", "PANEL_H", "PANEL_W",
    "RESOURCE_COLOURS", "SEA", "WHEEL_BOX", "WHEEL_C", "WHEEL_IN", "WHEEL_OUT", "WIDTH", "M",
    "city_boxes", "game_map", "image_height", "layout_key", "place_name", "render", "sea_cells",
    "spots",
]


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of an Antiquity view marking what ``events`` did (see the module's
    docstring). ``view``, ``events`` and ``names`` are never modified."""
    view = view if isinstance(view, Mapping) else {}
    gm = game_map()
    nations = _nations(view, names)
    places = _places(view)
    turn = _read_events(events)
    over = is_over(view)
    current, doing = _status(view, nations)
    if over:
        current = None
    rows = max(1, min(3, (len(nations) + 1) // 2))
    c = Canvas(WIDTH, image_height(rows * 2), BACKGROUND,
               base=_backdrop(frozenset(places), rows))
    order = [*gm.order, *(n.id for n in nations if n.id not in gm.order)]
    _draw_map(c, places, turn, order)
    _draw_wheel(c, view, nations, turn, current)
    _header(c, view, nations, current, doing, over)
    _log(c, turn)
    _panels(c, view, nations, current, over, turn)
    return c.png(load_palette(KIND))

