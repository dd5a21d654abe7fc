"""Race: a tiny dice race used to test the store without depending on a real game.

Players take turns; on your turn ``roll`` adds a die to your score and ``step N``
(N = 1..3) adds exactly N. First to ``target`` (option; default 20) wins. ``resign``
is accepted from any player still in, at any time. Every roll also sends the roller
a private "luck" event, so tests can check private events are stored.

Register it in a test with ``monkeypatch.setitem(engine.GAMES, "race", GAME)``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.core import JSON, RESIGN, Dice, Event, Game, IllegalAction, Option, Outcome


@dataclass(frozen=True)
class RaceState:
    players: tuple[str, ...]
    scores: tuple[int, ...]
    out: tuple[str, ...]          # resigned players, in the order they left
    turn: int                     # index into players
    target: int
    dice: Dice
    winner: str | None = None


class Race(Game[RaceState]):
    kind = "race"
    name = "Race"
    min_players = 2
    max_players = 3
    summary = "Roll dice; first to the target wins."
    options = (Option("target", 20, "Score needed to win.", (5, 10, 20, 1000000)),)

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> RaceState:
        self.check_players(players)
        opts = self.resolve_options(options)
        return RaceState(tuple(players), (0,) * len(players), (), 0, int(opts["target"]),
                         Dice.from_seed(seed))

    def players(self, state: RaceState) -> list[str]:
        return list(state.players)

    def current_turn(self, state: RaceState) -> str | None:
        return None if state.winner else state.players[state.turn]

    def to_act(self, state: RaceState) -> list[str]:
        turn = self.current_turn(state)
        return [] if turn is None else [turn]

    def legal_actions(self, state: RaceState, player: str) -> list[str]:
        if player != self.current_turn(state):
            return []
        return ["roll", "step 1", "step 2", "step 3"]

    def timeout_action(self, state: RaceState, player: str) -> str | None:
        """Out of time: the smallest step (never a roll)."""
        return "step 1" if player in self.to_act(state) else None

    def outcome(self, state: RaceState) -> Outcome | None:
        if state.winner is None:
            return None
        rest = sorted((p for p in state.players if p != state.winner and p not in state.out),
                      key=lambda p: -state.scores[state.players.index(p)])
        standings = (state.winner, *rest, *reversed(state.out))
        return Outcome((state.winner,), standings, "target reached")

    def _advance(self, state: RaceState, scores: tuple[int, ...], out: tuple[str, ...],
                 dice: Dice, events: list[Event]) -> RaceState:
        left = [p for p in state.players if p not in out]
        winner = None
        for p, s in zip(state.players, scores, strict=True):
            if p not in out and s >= state.target:
                winner = p
        if winner is None and len(left) == 1:
            winner = left[0]
        turn = state.turn
        if winner is None:
            for _ in state.players:
                turn = (turn + 1) % len(state.players)
                if state.players[turn] not in out:
                    break
        else:
            events.append({"type": "win", "player": winner, "text": f"{winner} wins"})
        return RaceState(state.players, scores, out, turn, state.target, dice, winner)

    def apply(self, state: RaceState, player: str, action: str) -> tuple[RaceState, list[Event]]:
        text = self.normalise(action)
        if state.winner is not None:
            raise IllegalAction("The race is over.")
        if player not in state.players:
            raise IllegalAction("You are not in this race.")
        if player in state.out:
            raise IllegalAction("You have resigned.")
        index = state.players.index(player)
        events: list[Event] = []
        if text == RESIGN:
            events.append({"type": "resign", "player": player, "text": f"{player} resigns"})
            return self._advance(state, state.scores, (*state.out, player), state.dice.copy(),
                                 events), events
        if index != state.turn:
            raise IllegalAction(f"It is not your turn; it is {state.players[state.turn]}'s.")
        dice = state.dice.copy()
        words = text.split()
        if words == ["roll"]:
            gain = dice.roll()
            events.append({"type": "luck", "private_to": player, "value": gain})
        elif len(words) == 2 and words[0] == "step" and words[1] in ("1", "2", "3"):
            gain = int(words[1])
        else:
            raise IllegalAction("Say `roll` or `step 1`..`step 3`.")
        scores = list(state.scores)
        scores[index] += gain
        events.append({"type": "gain", "player": player, "gain": gain, "total": scores[index],
                       "text": f"{player} +{gain} = {scores[index]}"})
        return self._advance(state, tuple(scores), state.out, dice, events), events

    def view(self, state: RaceState, player: str | None) -> JSON:
        return {"kind": self.kind, "players": list(state.players), "scores": list(state.scores),
                "turn": self.current_turn(state), "winner": state.winner}

    def dump(self, state: RaceState) -> str:
        return json.dumps({"players": list(state.players), "scores": list(state.scores),
                           "out": list(state.out), "turn": state.turn, "target": state.target,
                           "dice": state.dice.to_json(), "winner": state.winner},
                          sort_keys=True)

    def load(self, text: str) -> RaceState:
        try:
            d = json.loads(text)
            return RaceState(tuple(d["players"]), tuple(d["scores"]), tuple(d["out"]),
                             int(d["turn"]), int(d["target"]), Dice.from_json(d["dice"]),
                             d["winner"])
        except (ValueError, KeyError, TypeError) as exc:
            raise IllegalAction(f"Not a race position: {exc}") from None


GAME = Race()
