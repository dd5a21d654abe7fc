"""Hand-written Battlecards positions for tests, in the game's position format.

Cards are named (the helpers turn names into ids). Every card not placed explicitly goes
to its owner's arsenal deck (units) or to the bottom of the conflict deck (conflict cards,
after the ``deck`` you script), so card conservation always holds.
"""

from __future__ import annotations

import json
from typing import Any

from engine.battlecards import GAME, BattlecardsState
from engine.battlecards.cards import ARSENAL, CONFLICT, FORCES, SIDES, UNITS

BY_NAME = {c.name: c.id for side in SIDES for c in ARSENAL[side]}
BY_NAME.update({c.name: c.id for c in CONFLICT})
NAME = {cid: name for name, cid in BY_NAME.items()}


def ids(names: list[str]) -> list[str]:
    return [BY_NAME[n] for n in names]


def position(
    g: dict[str, Any] | None = None,
    b: dict[str, Any] | None = None,
    deck: list[str] | None = None,
    discard: list[str] | None = None,
    turn: str = "g",
    phase: str = "draw",
    **extra: Any,
) -> BattlecardsState:
    """Players are "g" (German) and "b" (British). ``g``/``b`` set hand, stacks (by
    name, bottom first, stack inferred), kept, won, discard, deck, autofire, and known
    (the enemy cards that player remembers on the enemy stacks, stack inferred).
    ``deck`` is the top of the conflict deck, by name."""
    players = []
    placed_conflict: list[str] = []
    for pid, side, spec in (("g", "german", g or {}), ("b", "british", b or {})):
        hand = ids(spec.get("hand", []))
        stacks: dict[str, list[str]] = {f: [] for f in FORCES}
        for cid in ids(spec.get("stacks", [])):
            stacks[UNITS[cid].stack].append(cid)
        discard_units = ids(spec.get("discard", []))
        used = set(hand) | set(discard_units) | {c for f in FORCES for c in stacks[f]}
        used |= set(ids(spec.get("in_battle", [])))
        top = ids(spec.get("deck", []))
        rest = [c.id for c in ARSENAL[side] if c.id not in used and c.id not in top]
        kept, won = ids(spec.get("kept", [])), ids(spec.get("won", []))
        placed_conflict += kept + won
        known: dict[str, list[str]] = {f: [] for f in FORCES}
        for cid in ids(spec.get("known", [])):  # enemy cards remembered on enemy stacks
            known[UNITS[cid].stack].append(cid)
        players.append({"id": pid, "side": side, "autofire": spec.get("autofire", True),
                        "deck": top + rest, "discard": discard_units, "hand": hand,
                        "stacks": stacks, "kept": kept, "won": won, "placed": 3,
                        "known": known})
    top = ids(deck or [])
    disc = ids(discard or [])
    current = extra.get("current")
    if current is not None:
        extra["current"] = BY_NAME[current]
        placed_conflict.append(BY_NAME[current])
    rest = [c.id for c in CONFLICT if c.id not in set(top) | set(disc) | set(placed_conflict)]
    data = {"format": "warhost.battlecards/1", "round": 5, "turn": turn, "phase": phase,
            "players": players, "conflict": {"deck": top + rest, "discard": disc},
            "dice": {"state": 99, "forced": []}, **extra}
    return GAME.load(json.dumps(data))
