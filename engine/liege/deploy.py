"""Liège's deployment: where a player may place a new piece, and buying pieces and
weapons (a Grenade, a Missile, Mustard Gas) with the checks that refuse them.

:mod:`engine.liege.rules` lists the buys among the legal actions and, once the turn may
enter deployment, carries them out from here; the blasts themselves are resolved in
:mod:`engine.liege.fights`.
"""

from __future__ import annotations

from functools import cache

from engine.core import Event, IllegalAction
from engine.liege import fights
from engine.liege.board import FORWARD_FACING, SIZES, board
from engine.liege.notation import Action
from engine.liege.pieces import (
    BUY_ORDER,
    FIRERS,
    LIMITS,
    NAMES,
    PLURALS,
    TURNING,
    WEAPONS,
    prices,
    with_article,
)
from engine.liege.state import LiegeState, Piece, Seat


def _limit_text(kind: str, limit: int) -> str:
    verb = "placed" if kind == "trench" else "used"
    amount = "both" if limit == 2 else f"all {limit}"
    return f"You have {verb} {amount} of your {PLURALS[kind]}."


def zone(state: LiegeState, seat: Seat) -> tuple[str, ...]:
    """Squares (in board order) where this player may place a piece other than a
    Trench, if they are empty."""
    assert seat.general is not None
    geo = state.geo
    return geo.zone(seat.side, geo.progress(seat.side, seat.general) + 1)


#: Every buy's text, by piece and square (any board's squares): listing a turn's buys
#: then looks them up instead of formatting a hundred strings.
_BUY_TEXT: dict[str, dict[str, str]] = {
    kind: {s: f"buy {kind} {s}" for s in board(max(SIZES)).squares} for kind in BUY_ORDER}


def buy_squares(state: LiegeState, seat: Seat) -> tuple[set[str], list[str]]:
    """The squares no piece may be placed on (taken, or next to an opponent's piece or
    General), and the empty squares a piece other than a Trench may be placed on, in
    board order."""
    excluded = state.occupied() | state.near_enemy(seat.id)
    return excluded, [s for s in zone(state, seat) if s not in excluded]


def buy_actions(state: LiegeState, seat: Seat) -> list[str]:
    """Buys (by BUY_ORDER, then square), then weapons (by WEAPONS, firer, target)."""
    price = prices(seat.mortar_losses)
    excluded, in_zone = buy_squares(state, seat)
    geo = state.geo
    out = []
    for kind in BUY_ORDER:
        if price[kind] > seat.credits:
            continue
        text = _BUY_TEXT[kind]
        if kind == "trench":
            if seat.used["trench"] < LIMITS["trench"]:
                out += [text[s] for s in geo.squares if s not in excluded]
            continue
        out += [text[s] for s in in_zone]
    armed: dict[str, list[str]] | None = None  # own squares by piece type, once
    for kind in WEAPONS:
        if price[kind] > seat.credits or seat.used[kind] >= LIMITS[kind]:
            continue
        if armed is None:
            armed = {}
            for src, piece in state.pieces.items():
                if piece.owner == seat.id:
                    armed.setdefault(piece.type, []).append(src)
        firers = armed.get(FIRERS[kind], [])
        for src in geo.sort(firers):
            # weapon zones are tuples in board order
            out += _weapon_texts(state.size, kind, src, state.pieces[src].facing)
    return out


@cache
def _weapon_texts(size: int, kind: str, src: str, facing: str | None) -> tuple[str, ...]:
    """The texts of every ``kind`` fired from ``src`` (facing ``facing``), in board order
    of the target: the same few dozen for a piece all game, so made once."""
    geo = board(size)
    zone_of = geo.throw_zone(src) if kind == "grenade" else geo.fire_zone(src, facing or "")
    return tuple(f"{kind} {src} {t}" for t in zone_of)


def weapon_zone(state: LiegeState, src: str, piece: Piece, kind: str) -> tuple[str, ...]:
    """The squares a Grenade thrown (or a Missile or Mustard Gas fired) from ``src``
    reaches, in board order."""
    if kind == "grenade":
        return state.geo.throw_zone(src)
    assert piece.facing is not None
    return state.geo.fire_zone(src, piece.facing)


def buy_problem(state: LiegeState, seat: Seat, kind: str) -> str | None:
    if kind in LIMITS and seat.used[kind] >= LIMITS[kind]:
        return _limit_text(kind, LIMITS[kind])
    price = prices(seat.mortar_losses)[kind]
    if price > seat.credits:
        return f"{with_article(kind)} costs {price} credits and you have {seat.credits}."
    return None


def buy(state: LiegeState, seat: Seat, action: Action, events: list[Event]) -> str:
    """Buy and place the piece ``action`` names; its canonical text."""
    kind, dst = action.what, action.squares[0]
    problem = buy_problem(state, seat, kind)
    if problem:
        raise IllegalAction(problem)
    if dst in state.occupied():
        raise IllegalAction(f"{dst} is taken: place pieces on an empty square.")
    if dst in state.near_enemy(seat.id):
        raise IllegalAction(f"{dst} is next to an opponent's piece: nothing may be placed "
                            "there.")
    if kind != "trench" and dst not in zone(state, seat):
        raise IllegalAction(f"{dst} is too far forward: place pieces no further than one "
                            "rank in front of your General (Trenches go anywhere).")
    price = prices(seat.mortar_losses)[kind]
    seat.credits -= price
    if kind == "trench":
        seat.used["trench"] += 1
    facing = FORWARD_FACING[seat.side] if kind in TURNING else None
    state.pieces[dst] = Piece(kind, None if kind == "trench" else seat.id, facing,
                              new=True)
    state.phase = "fight"
    events.append({"type": "buy", "player": seat.id, "piece": kind, "square": dst,
                   "price": price, "credits": seat.credits, "facing": facing})
    return f"buy {kind} {dst}"


def weapon(state: LiegeState, seat: Seat, action: Action, events: list[Event]) -> str:
    """Buy the weapon ``action`` names and use it at once; its canonical text."""
    kind = action.verb
    src, target = action.squares
    problem = buy_problem(state, seat, kind)
    if problem:
        raise IllegalAction(problem)
    firer = state.pieces.get(src)
    need = FIRERS[kind]
    if firer is None or firer.owner != seat.id or firer.type != need:
        raise IllegalAction(f"{with_article(kind)} is used from one of your {NAMES[need]}s, "
                            f"and you have no {NAMES[need]} on {src}.")
    if target not in weapon_zone(state, src, firer, kind):
        if kind == "grenade":
            raise IllegalAction(f"A Rifle throws a Grenade at most 2 squares; {target} is "
                                f"out of reach from {src}.")
        raise IllegalAction(f"The Mortar on {src} faces {firer.facing}: it fires 2-4 "
                            "squares ahead, or one file or rank to either side of that "
                            f"line; {target} is outside.")
    price = prices(seat.mortar_losses)[kind]
    seat.credits -= price
    seat.used[kind] += 1
    state.blasted = True
    state.phase = "fight"
    geo = state.geo
    squares = geo.sort(list(geo.plus[target] if kind == "grenade" else geo.block[target]))
    state.blast = {"kind": kind, "target": target, "squares": squares}
    event: Event = {"type": kind, "player": seat.id, "from": src, "target": target,
                    "price": price, "credits": seat.credits, "squares": squares}
    if kind == "grenade":
        events.append(event)
        fights.grenade(state, target, events, event)
    elif kind == "missile":
        fights.missile(state, target, events, event)
    else:
        events.append(event)
        fights.gas(state, target, events, event)
    return f"{kind} {src} {target}"
