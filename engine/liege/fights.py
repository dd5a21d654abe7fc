"""Fights and blasts: who is a fighting unit, how sides form, dice, casualties, weapons.

A *unit* is whatever fights from one square: a piece, or a General (alone, inside a
Trench, or inside its Armored Vehicle, which then fights as the General at Defense 2).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.core import Event
from engine.liege.pieces import (
    DEFENSE,
    GENERAL_IN_AV_DEFENSE,
    LIMITS,
    MORTAR_PENALTY,
    NAMES,
    OFFENSE,
    prices,
)
from engine.liege.state import LiegeState, Piece, Seat


class Unit(NamedTuple):
    """One fighting unit. Immutable; a NamedTuple rather than a frozen dataclass because
    one is built for every piece each time the legal actions are listed, and a NamedTuple
    builds about four times faster."""

    square: str
    kind: str  # "general" or a piece type
    owner: str | None
    piece: Piece | None  # the piece on the square (the vehicle or trench of a General)
    seat: Seat | None  # the General's player

    @property
    def in_av(self) -> bool:
        return self.kind == "general" and self.piece is not None and self.piece.type == "av"

    @property
    def in_trench(self) -> bool:
        return self.kind == "general" and self.piece is not None and self.piece.type == "trench"

    @property
    def offense(self) -> int:
        return OFFENSE[self.kind]

    @property
    def defense(self) -> int:
        return GENERAL_IN_AV_DEFENSE if self.in_av else DEFENSE[self.kind]

    @property
    def damaged(self) -> bool:
        if self.kind == "general":
            return self.in_av and self.piece is not None and self.piece.damaged
        return self.piece is not None and self.piece.damaged

    @property
    def fought(self) -> bool:
        if self.kind == "general":
            return self.seat is not None and self.seat.general_fought
        return self.piece is not None and self.piece.fought

    @property
    def new(self) -> bool:
        return self.kind != "general" and self.piece is not None and self.piece.new

    @property
    def name(self) -> str:
        if self.in_av:
            return "General (in an Armored Vehicle)"
        if self.in_trench:
            return "General (in a Trench)"
        return NAMES[self.kind]


def unit_at(state: LiegeState, square: str) -> Unit | None:
    piece = state.pieces.get(square)
    seat = state.general_at(square)
    if seat is not None:
        return Unit(square, "general", seat.id, piece, seat)
    if piece is None:
        return None
    return Unit(square, piece.type, piece.owner, piece, None)


def fight_range(state: LiegeState, unit: Unit) -> tuple[str, ...]:
    """The squares a unit reaches in a fight (a Mortar defends its 8 neighbours)."""
    geo = state.geo
    if unit.kind in ("general", "rifle", "mortar"):
        return geo.neighbours[unit.square]
    if unit.kind == "mg":
        assert unit.piece is not None and unit.piece.facing is not None
        return geo.mg_range(unit.square, unit.piece.facing)
    return ()


def piece_range(state: LiegeState, square: str) -> list[str]:
    """What /liege range shows: a unit's fight range, or a Mortar's fire zone."""
    unit = unit_at(state, square)
    if unit is None:
        return []
    if unit.kind == "mortar":
        assert unit.piece is not None and unit.piece.facing is not None
        return list(state.geo.fire_zone(square, unit.piece.facing))
    return state.geo.sort(list(fight_range(state, unit)))


def units_of(state: LiegeState, player: str) -> list[Unit]:
    """Every unit of one player: the General first, then pieces (Trenches have no owner)."""
    seat = state.seat_of(player)
    out = []
    if seat is not None and seat.general and not seat.out:
        out.append(Unit(seat.general, "general", player, state.pieces.get(seat.general), seat))
    for square, piece in state.pieces.items():
        if piece.owner == player and not (seat and seat.general == square):
            out.append(Unit(square, piece.type, player, piece, None))
    return out


def form_sides(state: LiegeState, attacker: Unit, target: Unit) -> tuple[list[Unit], list[Unit]]:
    """Grow both sides from the attacker and the target until nothing more joins."""
    assert attacker.owner is not None and target.owner is not None
    att_pool = [u for u in units_of(state, attacker.owner)
                if u.square != attacker.square and u.offense > 0 and not u.fought
                and not u.new]
    def_pool = [u for u in units_of(state, target.owner)
                if u.square != target.square and u.defense > 0 and not u.fought
                and not u.in_trench and fight_range(state, u)]
    attackers, defenders = [attacker], [target]
    att_squares, def_squares = {attacker.square}, {target.square}
    changed = True
    while changed:
        changed = False
        for u in att_pool:
            if u.square not in att_squares and def_squares.intersection(fight_range(state, u)):
                attackers.append(u)
                att_squares.add(u.square)
                changed = True
        for u in def_pool:
            if u.square not in def_squares and att_squares.intersection(fight_range(state, u)):
                defenders.append(u)
                def_squares.add(u.square)
                changed = True
    order = state.geo.index
    attackers[1:] = sorted(attackers[1:], key=lambda u: order[u.square])
    defenders[1:] = sorted(defenders[1:], key=lambda u: order[u.square])
    return attackers, defenders


def damage_state(units: list[Unit]) -> str:
    hurt = sum(1 for u in units if u.damaged)
    return "none" if hurt == 0 else "all" if hurt == len(units) else "some"


def scores(rolls: list[int], damage: str) -> list[int]:
    """Dice after damage: -2 on every die (all damaged) or on the highest one (some)."""
    if damage == "all":
        return [r - 2 for r in rolls]
    out = list(rolls)
    if damage == "some":
        high = out.index(max(out))
        out[high] -= 2
    return out


def roll_fight(state: LiegeState, attackers: list[Unit],
               defenders: list[Unit]) -> tuple[str, list[dict[str, Any]]]:
    """Roll until the highest scores differ; return the winning side and every round."""
    a_n = sum(u.offense for u in attackers)
    d_n = sum(u.defense for u in defenders)
    a_dmg, d_dmg = damage_state(attackers), damage_state(defenders)
    rounds: list[dict[str, Any]] = []
    while True:
        a_rolls = [state.dice.roll() for _ in range(a_n)]
        d_rolls = [state.dice.roll() for _ in range(d_n)]
        a_scores, d_scores = scores(a_rolls, a_dmg), scores(d_rolls, d_dmg)
        a_best, d_best = max(a_scores), max(d_scores)
        rounds.append({"attack": a_rolls, "defense": d_rolls, "attack_scores": a_scores,
                       "defense_scores": d_scores, "attack_best": a_best,
                       "defense_best": d_best})
        if a_best != d_best:
            return ("attacker" if a_best > d_best else "defender"), rounds


def place_token(state: LiegeState, piece: Piece) -> bool:
    """Put a damage token on a piece if one is left; False if the pool is empty."""
    if state.damage_tokens <= 0:
        return False
    state.damage_tokens -= 1
    piece.damaged = True
    return True


def lose_life(state: LiegeState, seat: Seat, step_back: bool, events: list[Event],
              cause: str) -> None:
    """A General loses a life (and steps back toward home after a lost fight)."""
    assert seat.general is not None
    seat.lives -= 1
    square = seat.general
    event: Event = {"type": "life_lost", "player": seat.id, "square": square,
                    "lives": seat.lives, "cause": cause, "to": None}
    events.append(event)
    if seat.lives <= 0:
        eliminate(state, seat, "killed", events)
        return
    if step_back:
        back = state.geo.back(seat.side, square)
        if back is not None:
            holder = state.pieces.get(back)
            free = state.general_at(back) is None and (
                holder is None or holder.type == "trench")
            if free:
                seat.general = back
                event["to"] = back


def eliminate(state: LiegeState, seat: Seat, reason: str, events: list[Event]) -> None:
    """A player is out: their General and every piece but Trenches leave the board."""
    seat.out = True
    seat.general = None
    seat.credits = 0
    seat.lives = 0 if reason == "killed" else seat.lives
    state.out_order.append(seat.id)
    for square in [s for s, p in state.pieces.items() if p.owner == seat.id]:
        del state.pieces[square]
    if state.pending is not None and state.pending.player == seat.id:
        state.pending = None
    events.append({"type": "eliminated", "player": seat.id, "reason": reason})


#: What losing a General's life costs, in credits, against the pieces: more than any piece
#: (it is a third of the way to losing the game), and the last life more still.
LIFE_COST = 1000
LAST_LIFE_COST = 100_000


def casualty_cost(state: LiegeState, unit: Unit, only_damage: bool) -> int:
    """What choosing ``unit`` as the casualty costs its owner, in credits.

    The clock's safe default gives up the least costly piece, and "least costly" has to
    follow what :func:`resolve_casualty` will actually do, not the piece's name: a
    destroyed piece costs its price; a damage token costs half the price (the piece
    fights on, weaker, and a Machine Gun is one more hit from destruction); a Mortar's
    loss costs the Missile and Mustard Gas price rises still payable; a General's life
    costs more than any piece. An effect that changes nothing (no token left, an
    already damaged piece, an unharmed Machine Gun or General) costs nothing.
    """
    assert unit.owner is not None
    seat = state.seat_of(unit.owner)
    assert seat is not None
    price = prices(seat.mortar_losses)
    piece = unit.piece
    if only_damage:
        if unit.kind in ("mg", "general") or piece is None or piece.damaged \
                or state.damage_tokens <= 0:
            return 0
        return price[unit.kind] // 2
    if unit.kind == "general":
        if unit.in_av:
            return price["av"]
        return LAST_LIFE_COST if seat.lives <= 1 else LIFE_COST
    assert piece is not None
    if unit.kind == "mortar":
        rises = sum(LIMITS[k] - seat.used[k] for k in ("missile", "gas"))
        return MORTAR_PENALTY * rises
    if unit.kind == "mg" and not piece.damaged:
        return price["mg"] // 2 if state.damage_tokens > 0 else 0
    return price[unit.kind]


def resolve_casualty(state: LiegeState, unit: Unit, only_damage: bool,
                     events: list[Event]) -> None:
    """Apply the loss to the piece the loser chose."""
    assert unit.owner is not None
    event: Event = {"type": "casualty", "player": unit.owner, "square": unit.square,
                    "piece": unit.kind, "result": ""}
    events.append(event)
    piece = unit.piece
    if only_damage:
        if unit.kind in ("mg", "general"):
            event["result"] = "unharmed"
        elif piece is not None and piece.damaged:
            event["result"] = "already damaged"
        elif piece is not None and place_token(state, piece):
            event["result"] = "damaged"
        else:
            event["result"] = "no token left"
        return
    if unit.kind == "general":
        assert unit.seat is not None
        if unit.in_av:
            del state.pieces[unit.square]
            event["result"] = "vehicle destroyed"
        else:
            event["result"] = "life lost"
            lose_life(state, unit.seat, True, events, "fight")
        return
    assert piece is not None
    if unit.kind == "mortar":
        seat = state.seat_of(unit.owner)
        assert seat is not None
        seat.mortar_losses += 1
        event["result"] = "prices raised"
    elif unit.kind == "mg" and not piece.damaged:
        event["result"] = "damaged" if place_token(state, piece) else "no token left"
    else:
        del state.pieces[unit.square]
        event["result"] = "destroyed"


# -- weapons ---------------------------------------------------------------------------

def grenade(state: LiegeState, target: str, events: list[Event], event: Event) -> None:
    """Every resource in the cross rolls: 5 or 6 survives, else it is destroyed."""
    rolls = []
    for square in state.geo.sort(list(state.geo.plus[target])):
        piece = state.pieces.get(square)
        if piece is None or piece.type == "trench":
            continue
        roll = state.dice.roll()
        survived = roll >= 5
        rolls.append({"square": square, "piece": piece.type, "owner": piece.owner,
                      "roll": roll, "survived": survived})
        if not survived:
            del state.pieces[square]
    event["rolls"] = rolls


def missile(state: LiegeState, target: str, events: list[Event], event: Event) -> None:
    """Everything in the 3x3 is destroyed; a General there loses a life (or its vehicle)."""
    destroyed = []
    hit: list[Seat] = []
    for square in state.geo.block[target]:
        seat = state.general_at(square)
        piece = state.pieces.pop(square, None)
        if piece is not None:
            destroyed.append({"square": square, "piece": piece.type, "owner": piece.owner,
                              "general_inside": seat.id if seat else None})
        if seat is not None and not (piece is not None and piece.type == "av"):
            hit.append(seat)
    event["destroyed"] = destroyed
    event["generals"] = [s.id for s in hit]
    events.append(event)
    for seat in hit:
        lose_life(state, seat, False, events, "missile")


def gas(state: LiegeState, target: str, events: list[Event], event: Event) -> None:
    """A damage token on every resource in the 3x3, Trenches included; never Generals
    (a General is not a resource: the Trench or vehicle it is in is damaged, not it)."""
    effects = []
    for square in state.geo.block[target]:
        piece = state.pieces.get(square)
        if piece is None:
            continue
        if piece.damaged and piece.type == "mg":
            del state.pieces[square]
            result = "destroyed"
        elif piece.damaged:
            result = "already damaged"
        elif place_token(state, piece):
            result = "damaged"
        else:
            result = "no token left"
        effects.append({"square": square, "piece": piece.type, "owner": piece.owner,
                        "result": result})
    event["effects"] = effects
