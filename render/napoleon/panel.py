"""The header and the panel under the Napoleonic Wars map: the round, both sides (player,
cards in hand, score, pool), who must decide what, the deck and discards, the winner;
under the map the battle being fought, the battles just fought with their forces, and
what else happened, the most important lines that fit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from render.common import (
    ACCENT,
    BOX_FILL,
    BOX_LINE,
    FAINT,
    MUTED,
    PANEL,
    PANEL_HIGHLIGHT,
    TEXT,
    Canvas,
    Run,
    as_int,
    bounded,
    clean_text,
    darken,
    drawable_text,
    first_to_act,
    is_over,
    lighten,
    mapping,
    mappings,
    optional_mapping,
    pill,
    round_label,
    seat_card,
    text_runs,
)
from render.napoleon.events import _Battle, _pair, _Turn
from render.napoleon.geography import countries
from render.napoleon.layout import (
    BOTTOM_Y,
    ESSENTIAL,
    HEIGHT,
    MAP_SIZE,
    MAP_X,
    PHASES,
    SIDE_COLOURS,
    SIDE_NAMES,
    SIDE_TITLES,
    SIDES,
)
from render.napoleon.view import _country_id, _Place, _side, _Sides


def _phase_line(view: Mapping[str, Any], sides: _Sides) -> tuple[str | None, str, str]:
    """Who must answer now (their side), their name, and what they do."""
    actor = first_to_act(view)
    side = sides.side(actor) or _side(view.get("turn"))
    phase = view.get("phase")
    doing = PHASES.get(phase if isinstance(phase, str) else "", "to play")
    if side is None:
        return None, "", "Waiting"
    return side, sides.name[side], doing


def _winner_sides(view: Mapping[str, Any], sides: _Sides) -> list[str]:
    outcome = view.get("outcome")
    winners = outcome.get("winners") if isinstance(outcome, Mapping) else None
    out: list[str] = []
    for w in winners if isinstance(winners, list) else []:
        side = sides.side(w)
        if side is not None and side not in out:
            out.append(side)
    return out


def _side_card(c: Canvas, box: tuple[float, float, float, float], side: str, sides: _Sides,
               view: Mapping[str, Any], over: bool, winners: list[str]) -> None:
    x0, y0, x1, y1 = box
    colour = SIDE_COLOURS[side]
    to_act = view.get("to_act")
    acting = not over and isinstance(to_act, list) and sides.pid[side] in to_act \
        and sides.pid[side] is not None
    turn = not over and view.get("turn") == side
    seat_card(c, box, colour, PANEL_HIGHLIGHT if turn or acting else PANEL)
    if acting:
        c.rect(box, outline=lighten(colour, 0.2), width=2, radius=10)
    right = x1 - 10
    if side in winners:
        right = pill(c, right, y0 + 8, "WINNER", ACCENT) - 6
    elif acting:
        right = pill(c, right, y0 + 8, "TO ACT", colour) - 6
    elif turn:
        right = pill(c, right, y0 + 8, "TURN", darken(colour, 0.3), text=TEXT) - 6
    nx = x0 + 18
    c.text((nx, y0 + 14), SIDE_TITLES[side], 11.5, fill=lighten(colour, 0.35), bold=True,
           anchor="lm")
    c.text((nx, y0 + 35), c.fit(sides.name[side], 19, right - nx if right < x1 - 20 else
                                x1 - nx - 10, bold=True), 19, fill=TEXT, bold=True,
           anchor="lm")
    # the public numbers: cards in hand (how many), score, counters left in the pool
    scores = mapping(view.get("scores"))
    pool = mapping(view.get("pool"))
    stats = (("Hand", sides.hand(side), "hand"),
             ("Score", bounded(scores.get(side)), "score"),
             ("Pool", bounded(pool.get(side)), "score"))
    row = y1 - 17
    x = nx
    for label, value, role in stats:
        c.text((x, row + 1), label, 13, fill=MUTED, anchor="lm")
        x += c.text_width(label, 13) + 5
        c.text((x, row), str(value), ESSENTIAL, fill=TEXT, bold=True, anchor="lm", role=role)
        x += c.text_width(str(value), ESSENTIAL, bold=True) + 16


def _header(c: Canvas, view: Mapping[str, Any], sides: _Sides) -> None:
    x0, x1 = MAP_X, MAP_X + MAP_SIZE
    outcome = optional_mapping(view.get("outcome"))
    over = is_over(view)
    winners = _winner_sides(view, sides)
    # title, deck, round
    c.text((x0 + 2, 24), "NAPOLEONIC WARS", 16, fill=MUTED, bold=True, anchor="lm")
    label = round_label(view)
    if label:
        c.text((x1 - 2, 24), label, ESSENTIAL, fill=TEXT, bold=True, anchor="rm", role="turn")
    deck = f"Deck {bounded(view.get('deck_count'))}  ·  " \
           f"Discards {bounded(view.get('discard_count'))}"
    dx = x0 + 2 + c.text_width("NAPOLEONIC WARS", 16, bold=True) + 24
    room = x1 - 2 - c.text_width(label, ESSENTIAL, bold=True) - 20 - dx
    if room > 60:
        c.text((dx, 24), c.fit(deck, 15, room), 15, fill=MUTED, anchor="lm")
    # the two sides
    top, bottom = 46, 122
    mid = (x0 + x1) / 2
    _side_card(c, (x0, top, mid - 4, bottom), "french", sides, view, over, winners)
    _side_card(c, (mid + 4, top, x1, bottom), "allies", sides, view, over, winners)
    # who must decide what
    top, bottom = 130, 186
    c.rect((x0, top, x1, bottom), fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    tx, tw = x0 + 14, x1 - x0 - 28
    if over:
        names = [f"{SIDE_NAMES[s]} ({sides.name[s]})" for s in winners]
        head = ("Winner: " + ", ".join(names)) if names else "Game over: no winner"
        c.text((tx, top + 18), c.fit(head, ESSENTIAL, tw, bold=True), ESSENTIAL, fill=ACCENT,
               bold=True, anchor="lm", role="turn")
        reason = drawable_text(outcome.get("reason") if outcome else "", limit=160)
        c.text((tx, top + 41), c.fit(reason or "The game is over.", 14, tw), 14, fill=MUTED,
               anchor="lm")
        return
    side, name, doing = _phase_line(view, sides)
    if side is None:
        c.text((tx, top + 18), doing, ESSENTIAL, fill=MUTED, bold=True, anchor="lm",
               role="turn")
    else:
        colour = SIDE_COLOURS[side]
        c.circle((tx + 8, top + 18), 8, fill=colour, outline=(240, 238, 230), width=1.5)
        runs = [(name, TEXT, tw * 0.55), (f" ({SIDE_NAMES[side]}) {doing}", TEXT, None)]
        text_runs(c, tx + 22, top + 18, runs, ESSENTIAL, x1 - 14, bold=True, role="turn")
    prompt = drawable_text(view.get("prompt"), limit=160)
    if prompt:
        c.text((tx, top + 41), c.fit(prompt, 14, tw), 14, fill=MUTED, anchor="lm")


def _force(b: _Battle, i: int) -> str:
    """One side's force in a battle, written out: armies + cards + defence + die = total."""
    armies, bonus, die, force = b.armies[i], b.bonus[i], b.dice[i], b.force[i]
    defence = force - armies - bonus - die
    parts = [str(armies)]
    for extra in (bonus, defence):
        if extra:
            parts.append(f"{extra:+d}")
    parts.append(f"+{die}")
    return "".join(parts) + f"={force}"


def _card_names(view: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for card in mappings(mapping(view.get("battle")).get("cards"), 12):
        name = clean_text(card.get("name") or card.get("id"), limit=30)
        bonus = as_int(card.get("bonus"))
        label = f"{name} {bonus:+d}" if bonus else name
        out.append((label, _side(card.get("side"))))
    return out


Line = tuple[list[Run], float, str | None]  # runs, font size, role


def _side_text(side: str | None, text: str) -> Run:
    colour = lighten(SIDE_COLOURS[side], 0.3) if side is not None else TEXT
    return text, colour, None


def _battle_line(b: _Battle) -> Line:
    """A battle fought: both forces written out, and who won."""
    runs: list[Run] = [(f"⚔ {countries()[b.country].name}  ", TEXT, None)]
    for i, side in enumerate(SIDES):
        if i:
            runs.append((" vs ", MUTED, None))
        runs.append(_side_text(side, f"{SIDE_NAMES[side]} {_force(b, i)}"))
    if b.winner is not None:
        runs.append((f"  {SIDE_NAMES[b.winner]} win", ACCENT, None))
    return runs, ESSENTIAL, "turn"


#: Lines for the panel under the map: (priority, order, line); the most important that fit
#: are drawn, in order.
Ranked = tuple[int, int, Line]
#: The lines under the map drawn bold (the battle, the scores); lists of places and of
#: what happened are drawn regular.
BOLD_ROLES = ("turn", "score")


def _current_battle(view: Mapping[str, Any], turn: _Turn) -> list[Ranked]:
    """The battle being fought: both forces so far and the cards played, or, once it is
    fought, its result and where the loser may go."""
    battle = mapping(view.get("battle"))
    cid = _country_id(battle.get("country"))
    if cid is None:
        return []
    names = countries()
    out: list[Ranked] = []
    fought = [b for b in turn.battles if b.country == cid]
    if battle.get("step") == "retreat" and fought:
        out.append((0, 0, _battle_line(fought[-1])))
    else:
        attacker, defender = _side(battle.get("attacker")), _side(battle.get("defender"))
        armies = _pair(battle.get("armies"))
        runs: list[Run] = [(f"⚔ Battle of {names[cid].name}: ", TEXT, None)]
        for i, side in enumerate(SIDES):
            if i:
                runs.append((" vs ", MUTED, None))
            role = " attack" if side == attacker else " defend +1" if side == defender else ""
            runs.append(_side_text(side, f"{SIDE_NAMES[side]} {armies[i]}{role}"))
        out.append((0, 0, (runs, ESSENTIAL, "turn")))
        played = _card_names(view)
        cards: list[Run] = [("Cards played: ", MUTED, None)]
        for j, (label, owner) in enumerate(played):
            cards.append(((", " if j else "") + label, lighten(SIDE_COLOURS[owner], 0.35)
                          if owner else TEXT, None))
        if not played:
            cards.append(("none yet", FAINT, None))
        out.append((1, 1, (cards, ESSENTIAL, "log")))
    retreats = battle.get("retreats")
    options = [names[r].name for r in retreats[:17] if _country_id(r) is not None] \
        if isinstance(retreats, list) else []
    if battle.get("step") == "retreat" and options:
        loser = _side(battle.get("loser"))
        who = f"{SIDE_NAMES[loser]} retreat" if loser else "Retreat"
        out.append((1, 2, ([(f"{who} from {names[cid].name} to: " + ", ".join(options),
                             TEXT, None)], ESSENTIAL, "place")))
    return out


def _battles_fought(view: Mapping[str, Any], turn: _Turn) -> list[Ranked]:
    """Each battle the events fought (the newest first in importance), and the losses of
    the last one."""
    current = _country_id(mapping(view.get("battle")).get("country"))
    shown = [b for b in turn.battles if not (b.country == current and b is turn.battles[-1]
                                             and mapping(view.get("battle")).get("step")
                                             == "retreat")]
    out: list[Ranked] = []
    for i, b in enumerate(shown[-6:]):
        out.append((2 + len(shown[-6:]) - i, 10 + i, _battle_line(b)))
    if turn.battles:  # the last battle's losses (and its cards), read on a phone
        b = turn.battles[-1]
        played = [label for cid, label in turn.cards if cid == b.country][-4:]
        losses: list[Run] = [
            (f"{countries()[b.country].name} losses: ", MUTED, None),
            _side_text("french", f"French {b.losses[0]}"), (", ", MUTED, None),
            _side_text("allies", f"Allies {b.losses[1]}")]
        if played:
            losses.append((" · cards " + ", ".join(played), MUTED, None))
        out.append((3, 20, (losses, ESSENTIAL, "log")))
        # a key to the forces written out above (not needed to choose a move)
        out.append((30, 21, ([("force = armies + cards + 1 defending + die", FAINT, None)],
                             13.5, None)))
    return out


def _happenings(view: Mapping[str, Any], turn: _Turn,
                places: Mapping[str, _Place]) -> list[Ranked]:
    """Moves, reinforcements, retreats and losses in words, the battles still to fight, and
    the armies on the map."""
    names = countries()
    words: list[str] = []
    for side in SIDES:
        moves = [m for m in turn.moves if m.side == side]
        if moves:
            n = sum(m.count for m in moves)
            words.append(f"{SIDE_NAMES[side]} moved {n} in {len(moves)} "
                         + ("move" if len(moves) == 1 else "moves"))
    for who, cid in turn.marches[:2]:
        words.append(f"{SIDE_NAMES.get(who or '', '?')} forced march: {names[cid].name}")
    for r in turn.retreats[:3]:
        words.append(f"{SIDE_NAMES.get(r.side or '', '?')} fell back {names[r.src].name} → "
                     f"{names[r.dst].name}")
    for who, cid, n in turn.destroyed[:2]:
        words.append(f"{SIDE_NAMES.get(who or '', '?')} lost {n} in {names[cid].name}")
    for side in SIDES:
        placed = sum(n for (s, _), n in turn.placed.items() if s == side)
        if placed or turn.lost.get(side):
            words.append(f"{SIDE_NAMES[side]} +{placed} reinforcements"
                         + (f" ({turn.lost[side]} lost: pool empty)" if turn.lost.get(side)
                            else ""))
    out: list[Ranked] = []
    line = ""
    for w in words:
        if line and len(line) + len(w) > 72:
            out.append((6 + len(out), 30 + len(out), ([(line, TEXT, None)], ESSENTIAL, "log")))
            line = ""
        line = f"{line} · {w}" if line else w
    if line:
        out.append((6 + len(out), 30 + len(out), ([(line, TEXT, None)], ESSENTIAL, "log")))
    left = view.get("battles_left")
    current = mapping(view.get("battle")).get("country")
    pending = [names[cid].name for cid in left[:17] if _country_id(cid) is not None
               and cid != current] if isinstance(left, list) else []
    if pending:
        out.append((1, 5, ([("Battles still to fight: " + ", ".join(pending), (255, 170, 150),
                             None)], ESSENTIAL, "place")))
    if is_over(view):
        scores = mapping(view.get("scores"))
        final = " · ".join(f"{SIDE_NAMES[s]} {bounded(scores.get(s))}"
                           for s in SIDES)
        out.append((0, 0, ([("Final scores (reinforcement value held): " + final, TEXT,
                             None)], ESSENTIAL, "score")))
    # the armies and countries each side holds on the map, read on a phone (the last line)
    totals: list[Run] = [("On the map: ", MUTED, None)]
    for i, side in enumerate(SIDES):
        armies = sum(p.armies(side) for p in places.values())
        held = sum(1 for p in places.values() if p.control == side)
        if i:
            totals.append((" · ", MUTED, None))
        totals.append(_side_text(side, f"{SIDE_NAMES[side]} {armies} armies, {held} "
                                 + ("country" if held == 1 else "countries")))
    out.append((2, 90, (totals, ESSENTIAL, "count")))
    return out


def _bottom(c: Canvas, view: Mapping[str, Any], turn: _Turn,
            places: Mapping[str, _Place]) -> None:
    """The panel under the map: the battle being fought, the battles just fought, then
    what else happened: the most important lines that fit, in order."""
    x0, x1 = MAP_X, MAP_X + MAP_SIZE
    top, bottom = BOTTOM_Y, HEIGHT - 10
    c.rect((x0, top, x1, bottom), fill=BOX_FILL, outline=BOX_LINE, width=1, radius=10)
    ranked = (_current_battle(view, turn) + _battles_fought(view, turn)
              + _happenings(view, turn, places))
    room: float = bottom - top - 12
    chosen: list[Ranked] = []
    for item in sorted(ranked, key=lambda r: (r[0], r[1])):
        _, _, (_, size, role) = item
        step = size + (11 if role else 8)
        if step <= room:
            chosen.append(item)
            room -= step
    y: float = top + 8
    for _, _, (runs, size, role) in sorted(chosen, key=lambda r: r[1]):
        step = size + (11 if role else 8)
        text_runs(c, x0 + 14, y + step / 2, runs, size, x1 - 14, bold=role in BOLD_ROLES,
                  role=role)
        y += step

