"""The balance simulation: automatic players against each other.

    python -m engine.napoleon.simulate --games 2000 [--rounds N] [--seed S] [--random N]

plays ``--games`` games between two copies of the automatic player
(engine/napoleon/ai.py), seeds S, S+1, ..., and prints the wins of each side with a 95%
interval, how the games ended and their average length; then ``--random`` games (default
200) of the automatic player against a random one, on each side, as a sanity check.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.napoleon import GAME
from engine.napoleon.ai import choose_action
from engine.napoleon.rules import DEFAULT_ROUNDS
from engine.napoleon.state import NapoleonState
from engine.stats import wilson_interval

Player = Callable[[NapoleonState, str], str]
MAX_ACTIONS = 100_000
ENDINGS = {"paris": "Allies took France", "east": "French took the East",
           "rounds": "round limit", "resigned": "resigned"}


def heuristic(state: NapoleonState, player: str) -> str:
    return choose_action(GAME, state, player)


def random_player(seed: int) -> Player:
    rng = random.Random(seed)

    def play(state: NapoleonState, player: str) -> str:
        return rng.choice(GAME.legal_actions(state, player))
    return play


def play(seed: int, rounds: int, french: Player, allies: Player) -> NapoleonState:
    """One game to its end."""
    state = GAME.start(["french", "allies"], seed, rounds)
    players = {"french": french, "allies": allies}
    for _ in range(MAX_ACTIONS):
        acting = GAME.to_act(state)
        if not acting:
            break
        state, _ = GAME.apply(state, acting[0], players[acting[0]](state, acting[0]))
    return state



@dataclass
class Tally:
    games: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    endings: Counter[str] = field(default_factory=Counter)
    rounds: int = 0

    def add(self, state: NapoleonState) -> None:
        self.games += 1
        self.wins[state.winner or "none"] += 1
        self.endings[f"{state.winner} {state.result}"] += 1
        self.rounds += state.round

    def lines(self, title: str) -> list[str]:
        out = [f"{title}: {self.games} games, average {self.rounds / self.games:.1f} rounds"]
        for side in ("french", "allies"):
            low, high = wilson_interval(self.wins[side], self.games)
            out.append(f"  {side}: {self.wins[side]} ({100 * self.wins[side] / self.games:.1f}%,"
                       f" 95% interval {100 * low:.1f}-{100 * high:.1f}%)")
        ends = ", ".join(f"{k.split()[0]} by {ENDINGS.get(k.split()[1], k)} {v} "
                         f"({100 * v / self.games:.1f}%)"
                         for k, v in sorted(self.endings.items()))
        out.append(f"  ended: {ends}")
        return out


def run(games: int, rounds: int = DEFAULT_ROUNDS, first_seed: int = 0,
        against_random: int = 200) -> str:
    lines = [f"rounds {rounds}, seeds {first_seed}-{first_seed + games - 1}"]
    tally = Tally()
    for seed in range(first_seed, first_seed + games):
        tally.add(play(seed, rounds, heuristic, heuristic))
    lines += tally.lines("automatic vs automatic")
    if against_random:
        french, allies = Tally(), Tally()
        for seed in range(first_seed, first_seed + against_random):
            french.add(play(seed, rounds, heuristic, random_player(seed)))
            allies.add(play(seed, rounds, random_player(seed), heuristic))
        lines += french.lines("automatic French vs random Allies")
        lines += allies.lines("random French vs automatic Allies")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--random", type=int, default=200,
                        help="games against a random player, on each side (0: none)")
    args = parser.parse_args(argv)
    print(run(args.games, args.rounds, args.seed, args.random))


if __name__ == "__main__":  # pragma: no cover
    main()
