"""The Battlecards table, drawn phone first: one column, 800 x 1100, large essentials.

Drawn from the public part of the view dict only (``docs/games/battlecards-interface.md``).
The board image is posted to the channel, so the renderer never reads a player's ``hand``,
``kept`` or ``stack_cards`` (present only in that player's own view): it draws the reserve
hand, kept cards and deployed stacks as card backs with their counts, whoever the viewer.

From the top: the title row (the turn and the phase), the status bar (who must act and
what they decide), the German player's placemat, the middle of the table, the British
player's placemat. A placemat shows the player's name, side and state (acts now, winner),
victory points toward the target (a number and a bar), then a row of counts: the Ground,
Air and Sea stacks, the reserve hand and kept cards, the arsenal deck and discard pile
(lost units) and the battlecards won. The middle of the table: a header with the
battlecard being fought (or drawn, or the card being resolved, or a battle finished since
the last board, or the outcome); below it the units revealed in the battle, face up with
their values, or else a report of a battle fought since the last board, or else the
Battlecard List; at the bottom the conflict deck with its face-up discard and the shots.

``events`` are every public event since the last board (a turn digest): their shots are
listed (with the Action Numbers drawn) and mark the units they hit, and a battle that
began and ended within them is reported (name, winner, victory points, every unit's
fate). Without usable events the view's ``last_shots`` are shown.

What a player needs to decide (the status line, turn and phase, victory points, every
count, the battle in play) is marked with its role and drawn at least
:func:`render.common.min_essential_size` tall (16.4 px at this width: 8 px on a phone).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from PIL import Image

from render.battlecards.body import _band, _battle_list, _report, card_boxes
from render.battlecards.events import pick_shots, read_events
from render.battlecards.header import _header, _status, _title
from render.battlecards.layout import (
    BANDS,
    BODY_BOX,
    BOTTOM_MAT_Y,
    BRITISH,
    CONFLICT_BOX,
    FACE,
    FORCES,
    GERMAN,
    GOLD,
    HEADER_BOX,
    HEIGHT,
    HIT,
    KIND,
    MAT_H,
    MID_Y0,
    MID_Y1,
    OTHER,
    SCALE,
    SHOTS_BOX,
    TOP_MAT_Y,
    WIDTH,
    WITHDRAWN,
    M,
)
from render.battlecards.mats import _mat, vp_bar_box
from render.battlecards.strip import _conflict_panel, _shots_panel
from render.battlecards.table import _key, _style, _Table
from render.battlecards.words import _long_text as _long_text
from render.battlecards.words import clip_words
from render.common import ACCENT as ACCENT
from render.common import (
    BACKGROUND,
    Canvas,
    is_over,
    load_palette,
    mapping,
    mappings,
    optional_mapping,
    winner_ids,
)
from render.common import lighten as lighten

__all__ = [
    "BANDS", "BODY_BOX", "BOTTOM_MAT_Y", "BRITISH", "CONFLICT_BOX", "FACE", "FORCES", "GERMAN",
    "GOLD", "HEADER_BOX", "HEIGHT", "HIT", "MAT_H", "MID_Y0", "MID_Y1", "SHOTS_BOX", "TOP_MAT_Y",
    "WIDTH", "WITHDRAWN", "M", "card_boxes", "clip_words", "pick_shots", "read_events", "render",
    "vp_bar_box",
]


@lru_cache(maxsize=2)
def _backdrop() -> Image.Image:
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=SCALE)
    # a felt table top under the middle
    c.rect((M - 5, MID_Y0 - 4, WIDTH - M + 5, MID_Y1 + 4), fill=(33, 38, 36), radius=14)
    return c.finish()


def _hit_marks(shots: list[Mapping[str, Any]]) -> dict[tuple[str | None, str], str]:
    """Which units the shots hit or missed, by (owner, ref)."""
    marks: dict[tuple[str | None, str], str] = {}
    for s in shots:
        key = _key(s.get("target_owner"), s.get("target"))
        if s.get("hit") is True:
            marks[key] = "hit"
        else:
            marks.setdefault(key, "miss")
    return marks


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """PNG bytes of a Battlecards view, marking what ``events`` (the public events since
    the last board) did. ``view`` and ``events`` are never modified. Only public fields are
    read: never a player's ``hand``, ``kept`` or ``stack_cards``, nor a private event."""
    table = _Table(view, names)
    digest = read_events(events)
    c = Canvas(WIDTH, HEIGHT, BACKGROUND, base=_backdrop())
    outcome = optional_mapping(view.get("outcome"))
    over = is_over(view)
    winners = set(winner_ids(outcome))

    _title(c, view, over)
    _status(c, view, table, over, outcome)
    _mat(c, view, table, table.top, TOP_MAT_Y, winners, over)
    _mat(c, view, table, table.bottom, BOTTOM_MAT_Y, winners, over)

    battle = mapping(view.get("battle"))
    raw_units = mappings(battle.get("units"), 400)
    units = {_key(u.get("owner"), u.get("ref")): u for u in raw_units}
    last_shots = mappings(view.get("last_shots"), 1000)
    fresh = bool(digest.shots)
    shots = digest.shots if fresh else last_shots
    _header(c, view, table, battle, outcome, digest)
    if battle:
        marks = _hit_marks(digest.battle_shots if fresh else last_shots)
        phase = battle.get("phase")
        aggressor = battle.get("aggressor")
        for p, band in zip((table.top, table.bottom), BANDS, strict=True):
            pid = p.get("id") if p is not None else None
            mine = [u for u in raw_units if pid is not None and u.get("owner") == pid]
            role = "ATTACKER" if pid == aggressor else "DEFENDER"
            _band(c, band, p, mine, _style(p.get("side")) if p is not None else OTHER, phase,
                  marks, role)
    elif digest.finished is not None and (digest.finished.units or digest.finished.shots):
        _report(c, BODY_BOX, table, digest.finished)
    else:
        _battle_list(c, view, table, BODY_BOX)
    _conflict_panel(c, view)
    _shots_panel(c, table, shots, fresh, units)
    return c.png(load_palette(KIND))
