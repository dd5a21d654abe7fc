"""Simple, deterministic automatic players for Battlecards (used by tests and the balance
simulation): deploy everything useful, always fight, fire greedily (auto-fire), play kept
cards at once, withdraw units that cannot hit anything."""

from __future__ import annotations

import math

from engine.battlecards import battle as bt
from engine.battlecards.cards import BATTLES, CONFLICTS, FORCES, UNITS, VICTORY_TARGET
from engine.battlecards.rules import Battlecards
from engine.battlecards.state import BattlecardsState, Seat


def _value(cid: str) -> int:
    card = UNITS[cid]
    return sum(v for v in card.attack.values() if v is not None) + (
        card.support.bonus * 2 if card.support else 0)


def choose_action(game: Battlecards, state: BattlecardsState, player: str) -> str:
    """The action this player takes now (one of ``legal_actions``)."""
    return choose_among(game, state, player, game.legal_actions(state, player))


def choose_among(game: Battlecards, state: BattlecardsState, player: str,
                 listed: list[str]) -> str:
    """:func:`choose_action` given ``legal_actions`` already listed (not changed)."""
    legal = [a for a in listed if not a.startswith("autofire")]
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


# -- heuristics for the computer player's search (engine/search.py) --------------------

#: Steps a search play-out takes before :func:`evaluate` scores the position: a few turns,
#: or most of a battle.
PLAYOUT_STEPS = 30

#: A unit's worth as a share of an average one (the mean of :func:`_value` is about 10).
_UNIT = 10.0


def _strength(cards: list[str]) -> float:
    return sum(_value(c) for c in cards) / _UNIT


def _deployed(seat: Seat) -> list[str]:
    return [c for f in FORCES for c in seat.stacks[f]]


def _homeland_open(state: BattlecardsState, side: str) -> bool:
    """Whether ``side``'s total-victory battle can now be drawn and fought."""
    won = state.won_keys()
    return any(card.total_victory and card.aggressor == side and card.id not in won_ids(state)
               and all(p in won for p in card.prerequisites) for card in BATTLES)


def won_ids(state: BattlecardsState) -> set[str]:
    return {c for s in state.seats for c in s.won}


def _points(state: BattlecardsState, seat: Seat) -> float:
    """How far ``seat`` is along, in victory-point equivalents (38 wins)."""
    points = float(seat.vp)
    deployed = _deployed(seat)
    points += 1.2 * _strength(deployed) + 0.4 * len(seat.hand) + 1.0 * len(seat.kept)
    if _homeland_open(state, seat.side):
        # a battle that wins the game is in the deck: the forces to fight it count double
        card = next(c for c in BATTLES if c.total_victory and c.aggressor == seat.side)
        points += 1.5 * _strength([c for c in deployed if UNITS[c].stack in card.forces])
    return points


def evaluate(game: Battlecards, state: BattlecardsState) -> dict[str, float]:
    """Each player's estimated share of a win: victory points and what is deployed to
    win more, with the battle being fought scored by the units still standing in it."""
    a, b = state.seats
    if state.over:
        share = 0.5 if state.winner is None else float(state.winner == a.id)
        return {a.id: share, b.id: 1.0 - share}
    pa, pb = _points(state, a), _points(state, b)
    battle = state.battle
    if battle is not None and state.current is not None:
        card = CONFLICTS[state.current]
        sa = _strength([u.card for u in battle.of(a.id)])
        sb = _strength([u.card for u in battle.of(b.id)])
        stake = float(VICTORY_TARGET) if card.total_victory else card.vp + 2.0
        total = sa + sb + 1.0
        pa += 1.2 * sa
        pb += 1.2 * sb
        pa += stake * (sa + 0.5) / total
        pb += stake * (sb + 0.5) / total
    x = (pa - pb) / 8.0
    share = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))
    return {a.id: share, b.id: 1.0 - share}


def candidates(game: Battlecards, state: BattlecardsState, player: str,
               legal: list[str]) -> list[str]:
    """The moves worth searching: never ``autofire`` (a preference, not a move)."""
    out = [a for a in legal if not a.startswith("autofire")]
    return out or legal
