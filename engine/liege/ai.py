"""A simple, deterministic computer player for Liège.

A heuristic, not a search: march the General toward its far edge, buy Rifles (and the odd
Machine Gun) near the front, attack whatever is in reach (the enemy General first), and
give up the cheapest piece when a fight is lost. Good enough to finish games in tests.
"""

from __future__ import annotations

from engine.liege.fights import unit_at
from engine.liege.rules import Liege
from engine.liege.state import LiegeState

#: How much the AI minds losing each kind of piece as a casualty.
_LOSS = {"mortar": 10, "rifle": 20, "mg": 60, "av": 150, "general": 1000}


def choose_action(game: Liege, state: LiegeState, player: str) -> str:
    """The action this player would take now (one of ``legal_actions``)."""
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
    if state.phase == "setup":
        return legal[0]
    geo = state.geo
    enemies = [s.general for s in state.alive if s.id != player and s.general]
    best, best_score = "end", 0.0
    for action in legal:
        words = action.split()
        score = 0.0
        if words[0] == "general" and seat.general is not None:
            gain = geo.to_go(seat.side, seat.general) - geo.to_go(seat.side, words[1])
            score = 60 + 10 * gain if gain > 0 else -1
        elif words[0] == "attack":
            target = unit_at(state, words[2])
            score = 80 if target is not None and target.kind == "general" else 50
        elif words[0] == "buy" and enemies:
            kind, square = words[1], words[2]
            near = min(max(abs(a - b) for a, b in zip(geo.coords(square), geo.coords(e),
                                                      strict=True)) for e in enemies)
            if kind == "rifle":
                score = 40 - near
            elif kind == "mg" and seat.credits >= 250:
                score = 45 - near
        if score > best_score:
            best, best_score = action, score
    if best == "end" and "skip" in legal and state.phase == "general":
        return "skip"
    return best
