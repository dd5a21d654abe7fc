"""Hand-written Conqueror positions for tests, in the game's position format."""

from __future__ import annotations

import json
from typing import Any

from engine.conqueror import GAME, ConquerorState

BASES = {2: ["a1", "f6"], 3: ["a1", "f6", "f1"], 4: ["a1", "f6", "f1", "a6"]}


def position(
    board: dict[str, dict[str, Any]] | None = None,
    players: int = 2,
    turn: str = "A",
    round: int = 1,
    dice: list[int] | None = None,
    **stock: dict[str, Any],
) -> ConquerorState:
    """Players are named A, B, C, D. ``stock`` sets a player's fields, e.g. A={"ap": 3}.

    Bases hold no soldiers unless ``board`` says so.
    """
    ids = "ABCD"[:players]
    seats = []
    for pid, base in zip(ids, BASES[players], strict=True):
        seat = {"id": pid, "base": base, "base_health": 5, "ap": 5, "gold": 0, "lumber": 0,
                "out": False}
        seat.update(stock.get(pid, {}))
        seats.append(seat)
    full_board: dict[str, dict[str, Any]] = {}
    for seat in seats:
        if not seat["out"]:
            full_board[seat["base"]] = {"resource": "base"}
    for name, entry in (board or {}).items():
        full_board[name] = {**full_board.get(name, {}), **entry}
    out_order = [s["id"] for s in seats if s["out"]]
    data = {"format": "warhost.conqueror/1", "round": round, "turn": turn,
            "players": seats, "board": full_board,
            "dice": {"state": 12345, "forced": dice or []}, "out_order": out_order,
            "last_move": None}
    return GAME.load(json.dumps(data))


def soldiers(owner: str, n: int, resource: str = "blank", **extra: Any) -> dict[str, Any]:
    return {"resource": resource, "owner": owner, "soldiers": n, **extra}
