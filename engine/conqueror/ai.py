"""A simple, deterministic computer player for Conqueror.

It is a heuristic, not a search: gather soldiers into stacks, march them at the nearest
enemy base and hit it with four or more, take easy fights on the way, and spend gold on
recruits. Good enough to finish games in tests, demos and balance runs.
"""

from __future__ import annotations

from engine.conqueror.board import coords
from engine.conqueror.rules import Conqueror
from engine.conqueror.state import ConquerorState


def _distance(a: str, b: str) -> int:
    (fa, ra), (fb, rb) = coords(a), coords(b)
    return max(abs(fa - fb), abs(ra - rb))


def choose_action(game: Conqueror, state: ConquerorState, player: str) -> str:
    """The action this player would take now (one of ``legal_actions``)."""
    legal = game.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do")
    seat = state.seat_of(player)
    assert seat is not None
    targets = [s.base for s in state.alive if s.id != player]
    best, best_score = "end", 0.0
    for action in legal:
        words = action.split()
        score = 0.0
        if words[0] == "recruit":
            score = 50 + int(words[1])
        elif words[0] == "convert" and words[1] == "lumber":
            score = 40
        elif words[0] == "convert":
            # AP buys soldiers when the army is small; otherwise AP is for marching
            army = sum(sq.soldiers for sq in state.board.values() if sq.owner == player)
            score = 25 if army < 8 else 5
        elif words[0] == "move":
            src, dst, n = words[1], words[2], int(words[3])
            target = state.board[dst]
            if dst in targets:
                score = 100 + n if n >= 4 else -1
            elif target.soldiers and target.owner != player:
                d = target.soldiers + (2 if target.has_fort else 0)
                if n > 2 * d or (n == 6 and d <= 2):
                    score = 80 + n - d  # won without dice
                elif n >= d:
                    score = 10 + n - d  # even odds or better
                else:
                    score = -1
            elif target.has_fort and target.fort_owner != player:
                score = 70
            elif targets:
                # march soldiers toward the nearest enemy base, as many at once as fit
                closer = min(_distance(src, t) for t in targets) - min(
                    _distance(dst, t) for t in targets)
                if closer > 0:
                    score = 20 + n + (5 if target.resource == "hidden" else 0)
                    if target.owner == player:
                        score += 3  # merging builds a stack that can hurt a base
        if score > best_score:
            best, best_score = action, score
    return best
