"""Hand-written Liège positions for tests, in the game's position format."""

from __future__ import annotations

import json
from typing import Any

from engine.liege import GAME, LiegeState

SIDES = ["south", "north", "west", "east"]
GENERALS = {2: ["e1", "e10"], 3: ["e1", "e10", "a5"], 4: ["e1", "e10", "a5", "j5"]}


def position(
    pieces: dict[str, dict[str, Any]] | None = None,
    players: int = 2,
    turn: str = "A",
    phase: str = "fight",
    dice: list[int] | None = None,
    size: int = 10,
    **seat: Any,
) -> LiegeState:
    """Players are A, B, C, D (south, north, west, east). ``seat`` sets a player's fields,
    e.g. A={"general": "e5", "credits": 100}. Extra top-level fields go in ``extra``."""
    extra = seat.pop("extra", {})
    ids = "ABCD"[:players]
    seats = []
    for i, pid in enumerate(ids):
        entry = {"id": pid, "side": SIDES[i], "credits": 400, "lives": 3, "out": False,
                 "general": GENERALS[players][i]}
        entry.update(seat.get(pid, {}))
        if entry["out"]:
            entry["general"] = None
        seats.append(entry)
    data = {"format": "warhost.liege/1", "size": size, "forward_bonus": 30, "round": 2,
            "turn": turn, "phase": phase, "players": seats, "pieces": pieces or {},
            "dice": {"state": 12345, "forced": dice or []},
            "out_order": [s["id"] for s in seats if s["out"]], **extra}
    return GAME.load(json.dumps(data))


def rifle(owner: str, **flags: Any) -> dict[str, Any]:
    return {"type": "rifle", "owner": owner, **flags}


def mg(owner: str, facing: str, **flags: Any) -> dict[str, Any]:
    return {"type": "mg", "owner": owner, "facing": facing, **flags}


def mortar(owner: str, facing: str, **flags: Any) -> dict[str, Any]:
    return {"type": "mortar", "owner": owner, "facing": facing, **flags}


def av(owner: str, **flags: Any) -> dict[str, Any]:
    return {"type": "av", "owner": owner, **flags}


def trench(**flags: Any) -> dict[str, Any]:
    return {"type": "trench", "owner": None, **flags}
