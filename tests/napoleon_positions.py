"""Hand-written Napoleonic Wars positions for tests, in the game's position format, and a
brute-force reference listing of legal actions (for tests/test_engine_movegen.py).

Players are "F" (the French) and "A" (the Allies). Every field of the format is optional;
``position`` passes what it is given straight to ``GAME.load``.
"""

from __future__ import annotations

import json
from typing import Any

from engine.napoleon import GAME, NapoleonState
from engine.napoleon.board import COUNTRIES, NEIGHBOURS, ORDER, SEA_POWER
from engine.napoleon.cards import BY_ID

F, A = "F", "A"


def position(french: dict[str, int] | None = None, allies: dict[str, int] | None = None,
             **fields: Any) -> NapoleonState:
    """A position with exactly these armies (none elsewhere) and any other fields:
    ``hands={"french": [...]}``, ``forced=[6, 1, ...]``, ``phase="move"`` …"""
    data: dict[str, Any] = {"players": [F, A],
                            "armies": {"french": french or {}, "allies": allies or {}}}
    data.update(fields)
    return GAME.load(json.dumps(data))


def play(state: NapoleonState, *actions: str) -> tuple[NapoleonState, list[dict[str, Any]]]:
    """Apply ``actions`` in turn, each by whoever must act; all the events."""
    events: list[dict[str, Any]] = []
    for action in actions:
        state, more = GAME.apply(state, GAME.to_act(state)[0], action)
        events += more
    return state, events


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


# -- the brute-force reference -------------------------------------------------------------

def _can_move(state: Any, side: str, src: str, dst: str, n: int) -> bool:
    if dst == SEA_POWER or src == dst:
        return False
    if src == SEA_POWER:
        if side != "allies" or not COUNTRIES[dst].coastal:
            return False
    elif dst not in NEIGHBOURS[src]:
        return False
    return n <= state.armies[side][src] - state.moved[src]


def napoleon_reference(game: Any, state: Any, player: str) -> list[str]:
    """Every action tried one by one against the rules as the doc states them."""
    if not isinstance(player, str) or player not in game.to_act(state):
        return []
    side = state.side_of(player)
    hand = list(dict.fromkeys(state.hands[side]))
    if state.phase == "discard":
        return [f"discard {c}" for c in hand]
    if state.phase == "move":
        out = [f"move {n} {a} {b}" for a in ORDER for b in ORDER
               for n in range(1, state.armies[side][a] + 1) if _can_move(state, side, a, b, n)]
        if any(BY_ID[c].kind == "march" for c in hand):
            out += [f"march {c}" for c in ORDER if state.moved[c]]
        return [*out, "end"]
    contested = [c for c in ORDER if state.armies["french"][c] and state.armies["allies"][c]]
    if state.phase == "choose":
        return [f"battle {c}" for c in contested]
    b = state.battle
    if state.phase == "cards":
        plays = [f"play {c}" for c in hand
                 if BY_ID[c].side in (side, "both") and BY_ID[c].kind != "march"
                 and BY_ID[c].country in (None, b.country)]
        return [*plays, "ready"]
    enemy = state.armies["allies" if side == "french" else "french"]
    return [f"retreat {c}" for c in ORDER
            if c in NEIGHBOURS[b.country] and c != SEA_POWER and not enemy[c]]
