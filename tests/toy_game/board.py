"""Toy Raid's board image, drawn on the shared pipeline like every game's: a
:class:`render.common.Canvas`, the view's seats through :class:`render.common.Players`,
essential text marked with its role (what the phone check measures) and the game's
palette from :func:`render.common.load_palette`, which it does not have (there is no
``render/palettes/toy.txt``), so the PNG picks its own colours.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.common import (
    ACCENT,
    BOX_FILL,
    BOX_LINE,
    DANGER,
    MUTED,
    PANEL,
    PANEL_HIGHLIGHT,
    TEXT,
    Canvas,
    Players,
    as_int,
    as_str,
    clean_text,
    drawable_events,
    essential_size,
    load_palette,
    mapping,
    round_label,
)

KIND = "toy"
WIDTH = 800
HEADER = 96
ROW = 84
FOOTER = 150
#: The size of text a player needs to decide (readable on a phone at this width).
ESSENTIAL = essential_size(WIDTH)


def _status(view: Mapping[str, Any], players: Players) -> str:
    outcome = mapping(view.get("outcome"))
    if outcome:
        winners = [players.name(w) for w in outcome.get("winners") or []]
        return f"Game over: {' and '.join(winners) or 'nobody'} won"
    raid = mapping(view.get("raid"))
    if raid:
        return (f"{players.name(raid.get('target'))} is raided by "
                f"{players.name(raid.get('raider'))}: block or yield")
    turn = view.get("turn")
    left = as_int(view.get("actions_left"))
    return f"{players.name(turn)} to act ({left} action{'' if left == 1 else 's'} left)"


def _event_line(event: Mapping[str, Any], players: Players) -> str | None:
    who = players.name(event.get("player"))
    kind = event.get("type")
    if kind == "play":
        return f"{who} played {clean_text(event.get('card'))} (+{as_int(event.get('value'))})"
    if kind == "stash":
        return f"{who} stashed a card"
    if kind == "raid":
        return f"{who} raided {players.name(event.get('target'))}"
    if kind == "block":
        return f"{who} blocked: {'held' if event.get('held') else 'failed'}"
    if kind == "yield":
        return f"{who} yielded a card"
    if kind == "resign":
        return f"{who} resigned"
    return None


def _row(c: Canvas, top: float, entry: Mapping[str, Any], players: Players,
         view: Mapping[str, Any]) -> None:
    pid = as_str(entry.get("id"))
    acting = pid in (view.get("to_act") or [])
    c.rect((16, top + 6, WIDTH - 16, top + ROW - 6),
           fill=PANEL_HIGHLIGHT if acting else PANEL, outline=ACCENT if acting else BOX_LINE,
           width=2, radius=10)
    mid = top + ROW / 2
    c.circle((44, mid), 13, fill=players.colour(pid), outline=TEXT, width=1.5)
    name = c.fit(players.name(pid), 22, 250, bold=True)
    c.text((68, mid), name, 22, fill=MUTED if entry.get("out") else TEXT, bold=True,
           anchor="lm")
    score = as_int(entry.get("score"))
    total = entry.get("total")
    shown = f"{score} pts" if total is None else f"{as_int(total)} pts"
    c.text((340, mid), shown, ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role="score")
    cards = as_int(entry.get("hand_count"))
    for i in range(min(cards, 6)):
        c.rect((450 + i * 10, mid - 18, 472 + i * 10, mid + 14), fill=(70, 80, 120),
               outline=TEXT, width=1, radius=3)
    c.text((530, mid), f"{cards} card{'' if cards == 1 else 's'}", ESSENTIAL, fill=TEXT,
           anchor="lm", role="hand")
    c.text((640, mid), f"{as_int(entry.get('stash_count'))} hidden", ESSENTIAL, fill=TEXT,
           anchor="lm", role="count")
    raid = mapping(view.get("raid"))
    if raid and raid.get("target") == pid:
        c.text((WIDTH - 30, top + 16), f"RAIDED: card {as_int(raid.get('slot'))}", 14,
               fill=DANGER, bold=True, anchor="ra")


def render(view: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = None) -> bytes:
    """A PNG of Toy Raid's public (or a player's) view, listing what ``events`` did."""
    players = Players(view, names)
    entries = players.players[:4]
    height = HEADER + ROW * max(2, len(entries)) + FOOTER
    c = Canvas(WIDTH, height)
    c.text((20, 28), "Toy Raid", 26, fill=ACCENT, bold=True, anchor="lm")
    label = round_label(view)
    if label:
        c.text((WIDTH - 20, 28), label, ESSENTIAL, fill=TEXT, anchor="rm", role="turn")
    c.text((20, 70), c.fit(_status(view, players), ESSENTIAL, WIDTH - 40, bold=True),
           ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role="turn")
    for i, entry in enumerate(entries):
        _row(c, HEADER + i * ROW, entry, players, view)
    top = HEADER + ROW * max(2, len(entries)) + 10
    c.rect((16, top, WIDTH - 16, height - 12), fill=BOX_FILL, outline=BOX_LINE, radius=8)
    c.text((32, top + 24), f"Deck {as_int(view.get('deck_count'))}", ESSENTIAL, fill=TEXT,
           bold=True, anchor="lm", role="count")
    discard = view.get("discard")
    if isinstance(discard, list) and discard:
        c.text((200, top + 24), c.fit(f"Discard: {clean_text(discard[-1])}", 18, 560),
               18, fill=MUTED, anchor="lm")
    lines = [line for e in drawable_events(events, newest=True)
             if (line := _event_line(e, players))][-4:]
    for i, line in enumerate(lines):
        c.text((32, top + 52 + i * 20), c.fit(line, 16, WIDTH - 80), 16, fill=MUTED,
               anchor="lm")
    return c.png(load_palette(KIND))
