"""A simple, deterministic computer player for Liège.

A heuristic, not a search: march the General toward its far edge, buy Rifles (and the odd
Machine Gun) near the front, attack whatever is in reach (the enemy General first), and
give up the cheapest piece when a fight is lost. Good enough to finish games in tests.
When its own pieces stand on every square ahead of the General (a wall it bought itself,
with no credits left to buy its way out), it steps one of them aside so the General can
push on: without that, two players walled in by their own Rifles end every turn doing
nothing, for ever (issue 31).
"""

from __future__ import annotations

import math

from engine.liege import deploy
from engine.liege.board import FORWARD, distance
from engine.liege.fights import unit_at
from engine.liege.pieces import LIMITS, prices
from engine.liege.rules import Liege
from engine.liege.state import LiegeState, Piece, Seat

#: How much the AI minds losing each kind of piece as a casualty.
_LOSS = {"mortar": 10, "rifle": 20, "mg": 60, "av": 150, "general": 1000}
#: The heuristic's score for stepping a piece out of its walled-in General's way: above
#: buying (which would only thicken the wall) and attacking a piece (still possible after
#: the step), below a step of the General forward and an attack on a General.
_UNBLOCK = 55


def _ahead(state: LiegeState, seat: Seat) -> list[str]:
    """The squares next to the General that are one nearer its far edge, in board order."""
    geo = state.geo
    here = seat.general
    assert here is not None
    to_go = geo.to_go(seat.side, here)
    return [s for s in geo.neighbours[here] if geo.to_go(seat.side, s) < to_go]


def _walled(game: Liege, state: LiegeState, seat: Seat) -> bool:
    """Whether the General can step no nearer its far edge now (short of the edge)."""
    assert seat.general is not None
    geo = state.geo
    here = geo.to_go(seat.side, seat.general)
    if here == 0:
        return False
    return all(geo.to_go(seat.side, s) >= here for s in game._general_moves(state, seat))


def _unblocking(game: Liege, state: LiegeState, seat: Seat) -> list[tuple[int, str]]:
    """When the General cannot step nearer its far edge and its own pieces stand ahead of
    it: for each such piece that may still step, its step off the squares ahead, to the
    free square nearest an enemy General (the first of equals in board order), with that
    distance; pieces in board order. Empty otherwise."""
    mine = _wall(game, state, seat)
    if not mine:
        return []
    ahead = _ahead(state, seat)
    generals = [s.general for s in state.alive if s.id != seat.id and s.general]

    def near(square: str) -> int:
        return min((distance(square, g) for g in generals), default=0)

    taken = state.occupied()
    geo = state.geo
    out = []
    for src in mine:
        if game._shift_problem(state, seat, src, None) is not None:
            continue
        free = [d for d in geo.neighbours[src] if d not in taken and d not in ahead]
        if free:
            dst = min(free, key=near)  # neighbours come in board order: first of equals
            out.append((near(dst), f"shift {src} {dst}"))
    return out


def _wall(game: Liege, state: LiegeState, seat: Seat) -> list[str]:
    """The squares ahead of a General that can step no nearer its far edge which hold a
    piece of its own (a wall it can open by stepping such a piece aside); empty when the
    General can go on, or nothing of its own blocks it."""
    if seat.general is None or not _walled(game, state, seat):
        return []
    return [s for s in _ahead(state, seat)
            if (p := state.pieces.get(s)) is not None and p.owner == seat.id]


def choose_action(game: Liege, state: LiegeState, player: str) -> str:
    """The action this player would take now (one of ``legal_actions``)."""
    if state.pending is None and state.phase != "setup":
        if not isinstance(player, str) or player not in game.to_act(state):
            raise ValueError(f"{player} has nothing to do")
        seat = state.seat_of(player)
        assert seat is not None
        return _best(game, state, seat)
    legal = game.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do")
    seat = state.seat_of(player)
    assert seat is not None
    if legal[0].startswith("casualty"):
        def cost(action: str) -> int:
            unit = unit_at(state, action.split()[1])
            if unit is None:
                return 0
            if unit.in_av:
                return 150
            if unit.kind == "mg" and unit.piece is not None and not unit.piece.damaged:
                return 30
            return _LOSS.get(unit.kind, 50)
        return min(legal, key=cost)
    return legal[0]  # setup: the first highlighted square


def _best(game: Liege, state: LiegeState, seat: Seat) -> str:
    """The best scored action of the turn, the first of equals in ``legal_actions``'
    order, or `end` (`skip` in the General step) when none scores above 0.

    Only a General's step, an attack, a Rifle (or, when rich, a Machine Gun) and the
    step of a piece out of its walled-in General's way (:func:`_unblocking`) score above
    0, so they are the only actions looked at, taken from the same helpers
    ``legal_actions`` lists them from and in its order (General steps, buys, shifts, then
    attacks): the full list (hundreds of buys) is never built."""
    geo = state.geo
    phase = state.phase
    enemies = [s.general for s in state.alive if s.id != seat.id and s.general]
    best, best_score = "end", 0.0
    if phase == "general" and seat.general is not None:
        here = geo.to_go(seat.side, seat.general)
        for square in game._general_moves(state, seat):
            gain = here - geo.to_go(seat.side, square)
            score = 60 + 10 * gain if gain > 0 else -1
            if score > best_score:
                best, best_score = f"general {square}", score
    if phase in ("general", "deploy") and enemies:
        price = prices(seat.mortar_losses)
        kinds = [(kind, base) for kind, base in (("rifle", 40), ("mg", 45))
                 if price[kind] <= seat.credits and (kind == "rifle" or seat.credits >= 250)]
        if kinds:
            # the square nearest an enemy General (the first of equals) scores best
            rows = [geo.gaps_from(e) for e in enemies]
            squares = deploy.buy_squares(state, seat)[1]
            if squares:
                if len(rows) == 1:
                    spot = min(squares, key=rows[0].__getitem__)
                else:
                    spot = min(squares, key=lambda q: min(row[q] for row in rows))
                nearest = min(row[spot] for row in rows)
                for kind, base in kinds:
                    score = base - nearest
                    if score > best_score:
                        best, best_score = f"buy {kind} {spot}", score
    if phase in ("general", "deploy", "move") and best_score < _UNBLOCK:
        steps = _unblocking(game, state, seat)
        if steps:
            best, best_score = min(steps, key=lambda item: item[0])[1], _UNBLOCK
    if not state.blasted:
        for attacker, square in game._attacks(state, seat):
            target = unit_at(state, square)
            score = 80 if target is not None and target.kind == "general" else 50
            if score > best_score:
                best, best_score = f"attack {attacker.square} {square}", score
    if best == "end" and phase == "general":
        return "skip"
    return best


# -- for the search (engine/search.py) ---------------------------------------------------

#: Steps a search play-out takes before :func:`evaluate` scores the position: about a
#: turn of each player (the heuristic is the slowest of the games', ~0.4 ms a step).
PLAYOUT_STEPS = 10
#: What a piece is worth to its owner, in credits (a damaged one half).
_VALUE = {"rifle": 25, "mg": 130, "mortar": 120, "av": 200}
#: A life of a General, and a square nearer the far edge, in credits.
_LIFE = 260
_STEP = 70
#: A General on its far edge wins when its turn comes round unless it is dislodged.
_ON_EDGE = 900
#: A General that cannot step nearer its far edge because its own pieces stand ahead
#: counts as a square further away, so the search opens such a wall and does not build
#: one (issue 31: two searchers walled in by their own Rifles, with no credits left,
#: ended every turn doing nothing until the step cap).
_WALLED = _STEP
#: How sharply a lead in credits turns into a share of the win (softmax temperature).
_TEMPERATURE = 260.0
#: The chance a threatened blast is actually fired at the next turn.
_BLAST_ODDS = 0.6
#: Grenades destroy what they hit on 1-4 of a die.
_GRENADE_KILL = 4 / 6


def _piece_value(piece: Piece) -> float:
    value = _VALUE.get(piece.type, 0)
    return value / 2 if piece.damaged else value


def _blast_loss(state: LiegeState, kind: str, target: str) -> dict[str, float]:
    """What a Grenade, Missile or Mustard Gas on ``target`` costs each player, in credits."""
    geo = state.geo
    loss: dict[str, float] = {}
    squares = geo.plus[target] if kind == "grenade" else geo.block[target]
    for square in squares:
        piece = state.pieces.get(square)
        general = state.general_at(square)
        if piece is not None and piece.owner is not None:
            value = _piece_value(piece)
            if kind == "grenade":
                hit = value * _GRENADE_KILL
            elif kind == "missile":
                hit = value
            else:  # gas: a token; a damaged Machine Gun dies
                hit = value if piece.damaged and piece.type == "mg" else (
                    0.0 if piece.damaged else value / 2)
            loss[piece.owner] = loss.get(piece.owner, 0.0) + hit
        if kind == "missile" and general is not None and not (
                piece is not None and piece.type == "av"):
            loss[general.id] = loss.get(general.id, 0.0) + (
                _LIFE * 4 if general.lives <= 1 else _LIFE)
    return loss


def _blasts(state: LiegeState, seat: Seat) -> list[tuple[str, str, str]]:
    """Every (weapon, firer, target) ``seat`` could use on its next turn, by what it holds
    and can pay for (wherever the firer stands now)."""
    price = prices(seat.mortar_losses)
    geo = state.geo
    out = []
    for square, piece in state.pieces.items():
        if piece.owner != seat.id:
            continue
        if piece.type == "rifle" and seat.used["grenade"] < LIMITS["grenade"] \
                and seat.credits >= price["grenade"]:
            out += [("grenade", square, t) for t in geo.throw_zone(square)]
        elif piece.type == "mortar" and piece.facing is not None:
            for kind in ("missile", "gas"):
                if seat.used[kind] < LIMITS[kind] and seat.credits >= price[kind]:
                    out += [(kind, square, t) for t in geo.fire_zone(square, piece.facing)]
    return out


def _blast_gain(state: LiegeState, player: str, kind: str, target: str) -> float:
    """What ``player`` gains by a blast: the others' losses less its own, in credits."""
    loss = _blast_loss(state, kind, target)
    mine = loss.pop(player, 0.0)
    return sum(loss.values()) - mine


def _threat(state: LiegeState, seat: Seat) -> float:
    """The best blast ``seat`` can fire next turn, in credits of damage to the others."""
    best = 0.0
    for kind, _, target in _blasts(state, seat):
        gain = _blast_gain(state, seat.id, kind, target) - prices(seat.mortar_losses)[kind]
        best = max(best, gain)
    return best


def _score(game: Liege, state: LiegeState, seat: Seat) -> float:
    geo = state.geo
    assert seat.general is not None
    to_go = geo.to_go(seat.side, seat.general)
    score: float = seat.credits + _LIFE * seat.lives - _STEP * to_go
    if to_go == 0:
        score += _ON_EDGE
    elif _wall(game, state, seat):
        score -= _WALLED
    for piece in state.pieces.values():
        if piece.owner == seat.id:
            score += _piece_value(piece)
    return score


def evaluate(game: Liege, state: LiegeState) -> dict[str, float]:
    """Each player's share of a win, in [0, 1], summing to 1: a softmax, in credits, of
    the General's lives and distance to its far edge (standing on it all but wins; walled
    in by its own pieces, a square further), the credits and the pieces, less the best
    blast (Grenade, Missile, Mustard Gas) each opponent can fire at one's pieces next
    turn."""
    outcome = game.outcome(state)
    if outcome is not None:
        return {s.id: (1.0 / len(outcome.winners) if s.id in outcome.winners else 0.0)
                for s in state.seats}
    alive = [s for s in state.alive if s.general is not None]
    if not alive:
        return {s.id: 1.0 / len(state.seats) for s in state.seats}
    scores = {s.id: _score(game, state, s) for s in alive}
    if len(alive) > 1:
        for seat in alive:
            threat = _threat(state, seat)
            if threat > 0:
                share = _BLAST_ODDS * threat / (len(alive) - 1)
                for other in alive:
                    if other.id != seat.id:
                        scores[other.id] -= share
    top = max(scores.values())
    weights = {p: math.exp((v - top) / _TEMPERATURE) for p, v in scores.items()}
    total = sum(weights.values())
    return {s.id: weights.get(s.id, 0.0) / total for s in state.seats}


#: After this many turns in a row with nothing done for good (``state.quiet``: no fight,
#: no blast, no General nearer its far edge than it had ever stood), the search weighs
#: only the General's steps nearer its edge, when it has one (so it cannot step back
#: either, and within a few turns stands nearer than ever, which restarts the count).
#: Two searchers facing each other across a wall each rated waiting above stepping into
#: reach (a step's danger comes inside the play-out; waiting pushes it past the
#: play-out's end), so both waited, turn after turn, until the step cap (issue 31).
#: Twelve turns is six rounds of two players: far more waiting than a live game needs.
QUIET_LIMIT = 12
#: Squares the search weighs for each kind of piece bought, nearest the enemy first.
_BUY_SQUARES = 2  # the heuristic's square and the best of the rest
#: Blasts the search weighs, the most damaging first.
_BLAST_CHOICES = 4


def _wins(game: Liege, state: LiegeState, player: str, action: str) -> bool:
    """Whether a Missile ends the game at once in ``player``'s favour (it takes the last
    life of every other General; a Missile rolls no dice, so trying it peeks at nothing)."""
    if not action.startswith("missile "):
        return False
    after, _ = game.apply(state, player, action)
    outcome = game.outcome(after)
    return outcome is not None and outcome.winners == (player,)


def candidates(game: Liege, state: LiegeState, player: str, legal: list[str]) -> list[str]:
    """The moves worth searching: every General step, attack and casualty; each piece
    bought only on the squares nearest the enemy; a Trench only just ahead of the General;
    a blast only where it hurts the others more than oneself (the best few); a quarter
    turn only when it brings more enemies into range; no piece shuffling, except the step
    of a piece out of its walled-in General's way (:func:`_unblocking`). Holds the move
    :func:`choose_action` plays, except after :data:`QUIET_LIMIT` quiet turns, when only
    the General's steps nearer its edge are left (if it has one)."""
    if state.phase == "setup" or state.pending is not None:
        return legal
    seat = state.seat_of(player)
    if seat is None or seat.general is None:
        return legal
    geo = state.geo
    if state.phase == "general" and state.quiet >= QUIET_LIMIT:
        here = geo.to_go(seat.side, seat.general)
        onward = [a for a in legal if a.startswith("general ")
                  and geo.to_go(seat.side, a.split()[1]) < here]
        if onward:
            return onward
    enemies = [sq for sq, p in state.pieces.items() if p.owner not in (None, player)]
    enemies += [s.general for s in state.alive if s.id != player and s.general]
    # king-move distances from each enemy General (kept per board square: a search
    # asks this for every square a piece may be bought on, at every node)
    from_generals = [geo.gaps_from(s.general) for s in state.alive
                     if s.id != player and s.general]
    nearest: dict[str, int] = {}  # by square: every kind of piece may be bought there

    keep: set[str] = set()
    if state.phase in ("general", "deploy", "move"):
        keep.update(a for _, a in _unblocking(game, state, seat))
    buys: dict[str, list[tuple[int, int, str, str]]] = {}
    blasts: list[tuple[float, str]] = []
    ahead = geo.step(seat.general, FORWARD[seat.side])
    for i, action in enumerate(legal):
        words = action.split()
        verb = words[0]
        if verb == "buy":
            kind, square = words[1], words[2]
            if kind == "trench":
                if square == ahead:
                    keep.add(action)
            else:
                near = nearest.get(square)
                if near is None:
                    near = nearest[square] = min((gaps[square] for gaps in from_generals),
                                                 default=0)
                buys.setdefault(kind, []).append((near, i, action, square))
        elif verb in ("grenade", "missile", "gas"):
            gain = _blast_gain(state, player, verb, words[2]) - prices(seat.mortar_losses)[verb]
            if gain > 0:
                blasts.append((gain, action))
        elif verb == "shift":
            continue
        elif verb == "turn":
            piece = state.pieces[words[1]]
            assert piece.facing is not None
            if piece.type == "mg":
                reach = geo.mg_range
            else:
                reach = geo.fire_zone
            before = len(set(reach(words[1], piece.facing)).intersection(enemies))
            after = len(set(reach(words[1], words[2])).intersection(enemies))
            if after > before:
                keep.add(action)
        else:
            keep.add(action)
    from_home = geo.gaps_from(seat.general)
    for options in buys.values():
        options.sort()  # by distance, then order listed (which is unique)
        keep.add(options[0][2])  # what the heuristic would buy: nearest the enemy General
        # and the squares nearest the enemy that are also nearest one's own General
        options.sort(key=lambda item: (item[0] + from_home[item[3]], item[1]))
        keep.update(item[2] for item in options[:_BUY_SQUARES - 1])
    blasts.sort(key=lambda item: -item[0])
    for _, action in blasts:
        if _wins(game, state, player, action):
            return [action]  # nothing else is worth searching
    keep.update(a for _, a in blasts[:_BLAST_CHOICES])
    return [a for a in legal if a in keep] or legal
