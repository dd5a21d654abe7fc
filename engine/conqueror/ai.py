"""A simple, deterministic computer player for Conqueror.

It is a heuristic, not a search: gather soldiers into stacks, march them at the nearest
enemy base and hit it with four or more, take easy fights on the way, and spend gold on
recruits. Good enough to finish games in tests, demos and balance runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache

from engine.conqueror.board import DISTANCE, SQUARES
from engine.conqueror.rules import Conqueror, ap_income
from engine.conqueror.state import MAX_STOCK, ConquerorState, Seat


@cache
def _nearest(targets: tuple[str, ...]) -> Mapping[str, int]:
    """Every square's distance to the nearest of ``targets`` (a few bases: few keys)."""
    return {s: min(DISTANCE[s][t] for t in targets) for s in SQUARES}


#: Action texts split into words, once each (the notation never changes, and the
#: heuristic scores every legal action on every step).
_WORDS: dict[str, list[str]] = {}


def _words(action: str) -> list[str]:
    words = _WORDS.get(action)
    if words is None:
        words = _WORDS[action] = action.split()
    return words


def choose_action(game: Conqueror, state: ConquerorState, player: str) -> str:
    """The action this player would take now (one of ``legal_actions``)."""
    return choose_among(game, state, player, game.legal_actions(state, player))


def choose_among(game: Conqueror, state: ConquerorState, player: str,
                 legal: list[str]) -> str:
    """:func:`choose_action` given ``legal_actions`` already listed (not changed)."""
    if not legal:
        raise ValueError(f"{player} has nothing to do")
    best, best_score = "end", 0.0
    for action, score in _scored(state, player, legal):
        if score > best_score:
            best, best_score = action, score
    return best


def _scored(state: ConquerorState, player: str, legal: list[str]) -> list[tuple[str, float]]:
    """Every legal action with the heuristic's score (the best positive one is played)."""
    targets = tuple(s.base for s in state.alive if s.id != player)
    nearest: Mapping[str, int] = _nearest(targets) if targets else {}
    board = state.board
    army: int | None = None  # the player's soldiers, counted when first needed
    out = []
    for action in legal:
        words = _words(action)
        verb = words[0]
        score = 0.0
        if verb == "move":
            src, dst, n = words[1], words[2], int(words[3])
            target = board[dst]
            if dst in targets:
                score = 100 + n if n >= 4 else -1
            elif target.soldiers and target.owner != player:
                d = target.soldiers + (2 if target.fort_owner is not None else 0)
                if n > 2 * d or (n == 6 and d <= 2):
                    score = 80 + n - d  # won without dice
                elif n >= d:
                    score = 10 + n - d  # even odds or better
                else:
                    score = -1
            elif target.fort_owner is not None and target.fort_owner != player:
                score = 70
            elif targets:
                # march soldiers toward the nearest enemy base, as many at once as fit
                closer = nearest[src] - nearest[dst]
                if closer > 0:
                    score = 20 + n + (5 if target.resource == "hidden" else 0)
                    if target.owner == player:
                        score += 3  # merging builds a stack that can hurt a base
        elif verb == "recruit":
            score = 50 + int(words[1])
        elif verb == "convert" and words[1] == "lumber":
            score = 40
        elif verb == "convert":
            # AP buys soldiers when the army is small; otherwise AP is for marching
            if army is None:
                army = sum(sq.soldiers for sq in board.values() if sq.owner == player)
            score = 25 if army < 8 else 5
        out.append((action, score))
    return out


# -- for the search (engine/search.py) ---------------------------------------------------

#: Steps a search play-out takes before :func:`evaluate` scores the position: about two
#: turns of each player (a turn is a handful of moves and an `end`).
PLAYOUT_STEPS = 24
#: A point of base health, in soldiers: the base is the game.
_HEALTH = 5.0
#: What the stocks are worth, in soldiers (gold buys soldiers one for one).
_GOLD, _LUMBER, _AP = 0.7, 0.3, 0.35
#: A square harvested every turn, in soldiers.
_INCOME = {"gold": 1.2, "lumber": 0.5}
_FORT = 1.0
#: How sharply a lead in the score turns into a share of the win (softmax temperature).
_TEMPERATURE = 3.0


def _threat(state: ConquerorState, seat: Seat, enemy: Seat) -> float:
    """The base damage ``enemy`` can be expected to do to ``seat`` on its next turn: every
    stack of four or more that its AP can bring to the base hits at even odds for A - 3."""
    ap = enemy.ap
    if state.seats[state.turn].id != enemy.id:
        ap = min(MAX_STOCK, ap + ap_income(state.round))
    damage = 0.0
    to_base = DISTANCE[seat.base]
    for name, sq in state.board.items():
        if sq.owner == enemy.id and sq.soldiers >= 4 and to_base[name] <= ap:
            damage += 0.5 * (sq.soldiers - 3)
    return min(damage, float(seat.base_health))


def _score(state: ConquerorState, seat: Seat) -> float:
    player = seat.id
    enemies = [s for s in state.alive if s.id != player]
    nearest: Mapping[str, int] = _nearest(tuple(s.base for s in enemies)) if enemies else {}
    score = _HEALTH * seat.base_health + _GOLD * seat.gold + _LUMBER * seat.lumber \
        + _AP * seat.ap
    score -= _HEALTH * sum(_threat(state, seat, e) for e in enemies)
    for name, sq in state.board.items():
        if sq.fort_owner == player:
            score += _FORT
        mine = sq.owner == player and sq.soldiers > 0
        if mine or sq.fort_owner == player:
            score += _INCOME.get(sq.resource, 0.0)
        if mine:
            score += sq.soldiers
            if nearest:  # soldiers on their way to an enemy base
                near = nearest[name]
                score += 0.25 * sq.soldiers * (5 - near)
    return score


def evaluate(game: Conqueror, state: ConquerorState) -> dict[str, float]:
    """Each player's share of a win, in [0, 1], summing to 1: a softmax of base health
    less the damage the others' stacks can do next turn, soldiers (more near an enemy
    base), stocks, harvested squares and forts."""
    outcome = game.outcome(state)
    if outcome is not None:
        return {s.id: (1.0 / len(outcome.winners) if s.id in outcome.winners else 0.0)
                for s in state.seats}
    scores = {seat.id: _score(state, seat) for seat in state.alive}
    top = max(scores.values())
    weights = {p: math.exp((v - top) / _TEMPERATURE) for p, v in scores.items()}
    total = sum(weights.values())
    return {s.id: weights.get(s.id, 0.0) / total for s in state.seats}


#: Moves the search weighs at most (besides `end`), the heuristic's favourites.
_CANDIDATES = 3
#: A heuristic score from which a move is worth more than ending the turn (marching a
#: stack, a fight, a recruit).
_BUSY = 20.0


def candidates(game: Conqueror, state: ConquerorState, player: str,
               legal: list[str]) -> list[str]:
    """The moves worth searching: the heuristic's favourites (each move with the most
    soldiers it would send, the largest recruit; always the move :func:`choose_action`
    plays), and `end` only when no march, fight or recruit is on offer; only the hits
    when one can knock down the last other base. Moves into a hopeless fight or at a base
    with fewer than four soldiers are never kept."""
    best: dict[str, tuple[str, float]] = {}  # the best-scored of each move or recruit
    for action, score in _scored(state, player, legal):
        if score <= 0:
            continue
        words = action.split()
        key = " ".join(words[:3]) if words[0] == "move" else words[0] \
            if words[0] == "recruit" else action
        if key not in best or score > best[key][1]:
            best[key] = (action, score)
    scored = sorted(best.values(), key=lambda item: -item[1])
    enemies = [s for s in state.alive if s.id != player]
    if len(enemies) == 1:
        # a hit that can knock down the last other base: the odds are the same now or
        # later, and later the enemy has a turn, so nothing else is worth searching
        base, health = enemies[0].base, enemies[0].base_health
        kills = [a for a, _ in scored if a.startswith("move ") and a.split()[2] == base
                 and int(a.split()[3]) - 3 >= health]
        if kills:
            return kills
    keep = {a for a, _ in scored[:_CANDIDATES]}
    if not scored or scored[0][1] < _BUSY:
        keep.add("end")  # with a march, a hit or a recruit on offer, ending is a waste
    return [a for a in legal if a in keep]
