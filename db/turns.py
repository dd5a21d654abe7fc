"""Who is up in a game, and the public facts a turn digest or status tells of it.

Pure functions of the engine's position and the game's record: :class:`Turn` (whose
turn, who must act, whether it is over, and when each decision began), the digest
payload saved with a turn digest (:func:`digest_payload`), and the clock facts beside
it (:func:`clock_payload`: deadlines, vacations, time-outs). The store's move path
saves them; the bot's wording reads them back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from db import computers as cpu
from db.clocks import Interval, TimeControl, deadline, paused_at
from db.records import GameRecord
from engine.core import Game
from engine.record import SCHEME, UNCOMMITTED

#: A decision off one's turn lists its choices in the digest when there are this few.
DECISION_CHOICES_SHOWN = 8


@dataclass(frozen=True)
class Turn:
    """Who is up: whose turn it is, who must act, and whether it is over."""

    current: str | None
    to_act: tuple[str, ...]
    over: bool

    @classmethod
    def of(cls, game: Game[Any], state: Any) -> Turn:
        return cls(game.current_turn(state), tuple(game.to_act(state)),
                   game.outcome(state) is not None)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Turn) and self.current == other.current
                and set(self.to_act) == set(other.to_act) and self.over == other.over)

    def __hash__(self) -> int:
        return hash((self.current, frozenset(self.to_act), self.over))

    def decisions(self, known: dict[str, float], before: Turn | None,
                  now: float) -> dict[str, float]:
        """When each player who must act now began deciding: ``now`` for those who just
        became due (or whose turn just began), unchanged for the rest."""
        began: dict[str, float] = {}
        for p in self.to_act:
            fresh = (before is None or p not in before.to_act
                     or (p == self.current and before.current != self.current))
            if fresh:
                began[p] = now
            elif p in known:
                began[p] = known[p]
        return began


def digest_payload(game: Game[Any], state: Any, first: int, last: int,
                   turn: Turn | None = None) -> dict[str, Any]:
    """What a turn digest of moves ``first``..``last`` needs of the position it ends at
    (public only): the view, who must act, a few choices for an off-turn decision."""
    turn = turn or Turn.of(game, state)
    outcome = game.outcome(state)
    choices: list[str] = []
    if len(turn.to_act) == 1 and turn.to_act[0] != turn.current:
        legal = game.legal_actions(state, turn.to_act[0])
        if len(legal) <= DECISION_CHOICES_SHOWN:
            choices = list(legal)
    return {"first": first, "last": last, "view": game.view(state, None),
            "to_act": list(turn.to_act), "current": turn.current, "choices": choices,
            "outcome": None if outcome is None else outcome.to_json()}


def clock_payload(record: GameRecord, to_act: Sequence[str],
                  pauses: Mapping[str, list[Interval]], now: float) -> dict[str, Any]:
    """Public time facts for a digest or status: each waited-for player's deadline
    and who of them is on vacation (until when)."""
    control = TimeControl.from_json(record.timing.get("control"))
    deadlines: dict[str, float] = {}
    away: dict[str, float] = {}
    played_by = cpu.computers(record.timing)
    for p in to_act:
        if p in played_by:
            continue            # a computer keeps no clock
        mine = pauses.get(p, [])
        on = paused_at(mine, now)
        if on is not None:
            away[p] = on[1]
        began = record.decisions.get(p)
        if control is not None and began is not None:
            banks = record.timing.get("banks") or {}
            due = deadline(control, began, banks.get(p), mine)
            if due is not None:
                deadlines[p] = due
    return {"deadlines": deadlines, "vacations": away,
            "timeouts": dict(record.timing.get("timeouts") or {}),
            "clock": None if control is None else control.describe()}


def dice_reveal(dice: Mapping[str, Any]) -> dict[str, Any]:
    """What the final digest reveals of a game's dice: the commitment with the seed and
    salt behind it, or that the game had no commitment."""
    if dice.get("scheme") != SCHEME:
        return {"scheme": UNCOMMITTED}
    return {"scheme": SCHEME, "commitment": dice.get("commitment"),
            "seed": dice.get("seed"), "salt": dice.get("salt")}
