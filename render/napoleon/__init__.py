"""The Napoleonic Wars board: a stylised map of Europe under a two-sided header.

Drawn from the public view dict only (``engine.napoleon``'s ``view``) and the shared map
data (``engine/napoleon/data/map.toml``: each country's name, borders, coast, and the
drawing keys ``at``, ``shape`` and ``lane``). The 17 countries are shapes that touch where
they share a land border (dark border lines; coasts are light shore lines, so a landlocked
country is one with no shore), with dashed sea lanes from England to an anchor on every
coastal country's shore. Each country carries its name, its reinforcement value (a small
gold badge) and its armies as counters in each side's colour (French blue, Allies red); a
country is tinted in its controller's colour, striped in both where it is contested (and
marked with crossed sabres). The battle being fought is framed in gold, with the cards
played so far under the map.

On top, what ``events`` did (every public event since the last image, e.g. a whole
turn): an arrow per move in the mover's colour (numbered in order when there are
several; moves from England follow the sea lanes), dashed arrows for retreats, "+n" tags
for reinforcements, a red "x n" where armies were destroyed, and every battle fought
framed in red with its forces written out under the map ("French 12+2+5=19 vs Allies
10+1+3=14": armies + cards + the defender's 1 + the die).

The header shows the round, both sides (player name, cards in hand: only how many, the
score and the counters left in the pool), whose turn it is and what must be decided, the
deck and the discards, and the winner when the game is over. Text a player needs to
decide (the status line, the round, the country names and army counts, the hands, the
scores, the battle results) is marked with its role and drawn at least
:func:`render.common.min_essential_size` tall, so it stays readable on a phone.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from render.common import (
    BACKGROUND,
    DANGER,
    GOLD,
    TEXT,
    Canvas,
    Colour,
    Point,
    load_palette,
    optional_mapping,
)
from render.napoleon.backdrop import FIGHTING, FOUGHT, _outline, _tinted
from render.napoleon.backdrop import _interior as _interior
from render.napoleon.events import _read_events
from render.napoleon.geography import _edges as _edges
from render.napoleon.geography import countries, land_borders
from render.napoleon.layout import (
    BOTTOM_Y,
    HEIGHT,
    KIND,
    MAP_FILE,
    MAP_SIZE,
    MAP_X,
    MAP_Y,
    ORDER_TEXT,
    SIDE_COLOURS,
    TOKEN_GAP,
    TOKEN_R,
    WIDTH,
)
from render.napoleon.marks import (
    _country_label,
    _country_pieces,
    _move_label,
    _moves,
    _tag,
    _token_xy,
    moved_tags,
    occupied,
    place_label,
    place_move_labels,
    tag_size,
)
from render.napoleon.panel import _bottom, _header
from render.napoleon.view import _country_id, _places, _side, _Sides

__all__ = ["BOTTOM_Y", "GOLD", "HEIGHT", "MAP_FILE", "MAP_SIZE", "MAP_X", "MAP_Y", "ORDER_TEXT",
           "SIDE_COLOURS", "TOKEN_R", "WIDTH", "countries", "land_borders", "render"]


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of a Napoleonic Wars view marking what ``events`` did (see the module's
    docstring). ``view``, ``events`` and ``names`` are never modified."""
    places = _places(view)
    sides = _Sides(view, names)
    turn = _read_events(events)
    # control: tints; contested: both sides' stripes (one cached base per pattern)
    tints = tuple((cid, "contested" if place.contested else place.control)
                  for cid, place in places.items() if place.contested or place.control)
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, base=_tinted(tints))
    # battles fought (red frames), the battle being fought (a gold frame)
    battle = optional_mapping(view.get("battle"))
    current = _country_id(battle.get("country")) if battle is not None else None
    for cid in dict.fromkeys(b.country for b in turn.battles):
        if cid != current:
            tile, pos = _outline(cid, *FOUGHT)
            c.paste(tile, pos)
    if current is not None:
        tile, pos = _outline(current, *FIGHTING)
        c.paste(tile, pos)

    labels = _moves(c, places, turn)
    mover = _side(view.get("turn"))
    # the countries' names and badges look the same on every board: patches kept (see
    # Canvas.overlay), drawn again only where an outline or an arrow lies under them
    c.overlay(("napoleon names", tuple(places)),
              [partial(_country_label, place.country) for place in places.values()])
    for place in places.values():
        _country_pieces(c, place)
    # the labels over the map, each where it covers least of the names, counters and
    # labels placed before it: the battle, what moved, what the turn left behind
    # (reinforcements placed, armies destroyed), then the moves' counts
    taken = occupied(c, places)
    battle_at = None
    if current is not None:
        x, y = places[current].country.at
        battle_at = place_label([(x, y - 33)], tag_size(c, "BATTLE"), taken)
    tags: list[tuple[Point, str, Colour, Colour]] = [
        (at, label, (48, 50, 58), (214, 214, 220))
        for at, label in moved_tags(c, places, mover, taken)]
    for (side, cid), n in turn.placed.items():
        tx, ty = _token_xy(places[cid], side)
        label = f"+{n}"  # at the counter's lower right, clear of its number
        size = tag_size(c, label)
        half = size[0] / 2
        spots = [(tx + TOKEN_R * 0.55 + half, ty + TOKEN_R + 2),
                 (tx - TOKEN_R * 0.55 - half, ty + TOKEN_R + 2),
                 (tx, ty + TOKEN_R + 11), (tx + TOKEN_R + 3 + half, ty),
                 (tx - TOKEN_R - 3 - half, ty)]
        tags.append((place_label(spots, size, taken), label, (36, 120, 64), TEXT))
    for _, cid, n in turn.destroyed:  # left of the counters
        where = places[cid]
        x, y = where.country.at
        label = f"✕ {n}" if n else "✕"
        size = tag_size(c, label)
        gap = TOKEN_GAP + 6 if where.french and where.allies else 0
        left, right = x - gap - TOKEN_R - 6 - size[0] / 2, x + gap + TOKEN_R + 6 + size[0] / 2
        spots = [(left, y + 15), (right, y + 15), (x, y + 15 + TOKEN_R + 11),
                 (left, y + 33), (right, y + 33)]
        tags.append((place_label(spots, size, taken), label, DANGER, TEXT))
    for at, label, fill, fg in tags:
        _tag(c, at, label, fill, fg)
    for centre, colour, count, order in place_move_labels(c, labels, taken):
        _move_label(c, centre, colour, count, order)
    if battle_at is not None:
        _tag(c, battle_at, "BATTLE", GOLD, (30, 24, 6))

    _header(c, view, sides)
    _bottom(c, view, turn, places)
    return c.png(load_palette(KIND))

