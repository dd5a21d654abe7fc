"""Simple, deterministic automatic players for Battlecards (used by tests and the balance
simulation): deploy everything useful, always fight, fire greedily (auto-fire), play kept
cards at once, withdraw units that cannot hit anything."""

from __future__ import annotations

from engine.battlecards import battle as bt
from engine.battlecards.cards import UNITS
from engine.battlecards.rules import Battlecards
from engine.battlecards.state import BattlecardsState


def _value(cid: str) -> int:
    card = UNITS[cid]
    return sum(v for v in card.attack.values() if v is not None) + (
        card.support.bonus * 2 if card.support else 0)


def choose_action(game: Battlecards, state: BattlecardsState, player: str) -> str:
    """The action this player takes now (one of ``legal_actions``)."""
    legal = [a for a in game.legal_actions(state, player) if not a.startswith("autofire")]
    if not legal:
        raise ValueError(f"{player} has nothing to do")
    seat = state.seat(player)
    deploys = [a for a in legal if a.startswith("deploy")]
    if deploys:
        def score(action: str) -> tuple[int, int]:
            cid = seat.hand[int(action.split()[1]) - 1]
            return (-len(seat.stacks[UNITS[cid].stack]), _value(cid))
        return max(deploys, key=score)
    if "draw" in legal:
        return "emergency" if "emergency" in legal and len(seat.hand) >= 5 else "draw"
    if "attack" in legal:
        return "attack"
    if "emergency" in legal:  # the homeland is invaded
        return "emergency"
    if legal[0].startswith("scout"):
        opp = state.opponent(player)
        return max(legal, key=lambda a: len(opp.stacks[a.split()[1]]))
    plays = [a for a in legal if a.startswith(("play", "support"))]
    if plays:
        return plays[0]
    fires = [a for a in legal if a.startswith("fire")]
    if fires and state.battle is not None:
        b = state.battle

        def chance(action: str) -> int:
            _, mine, theirs = action.split()
            u, t = b.unit(player, mine), b.unit(state.opponent(player).id, theirs)
            assert u is not None and t is not None
            return bt.chance(u, t)
        return max(fires, key=chance)
    if "stay" in legal and state.battle is not None:
        for u in state.battle.of(player):
            if not bt.can_hit_now(state.battle, u):
                return f"withdraw {u.ref}"
        return "stay"
    return legal[0]  # done, pass
