"""The balance simulation: automatic players against each other.

    python -m engine.battlecards.simulate --games 3000

prints win rates per side (and draws), how games ended and game length in turns.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter

from engine.battlecards import GAME
from engine.battlecards.ai import choose_action

MAX_ACTIONS = 20000


def play(seed: int) -> tuple[str | None, str, int]:
    """One game: (winning side or None, how it ended, turns)."""
    state = GAME.new_game(["german", "british"], seed)
    for _ in range(MAX_ACTIONS):
        acting = GAME.to_act(state)
        if not acting:
            break
        state, _ = GAME.apply(state, acting[0], choose_action(GAME, state, acting[0]))
    return state.winner, state.result or "unfinished", state.round


def run(games: int, first_seed: int = 0) -> str:
    wins: Counter[str] = Counter()
    ends: Counter[str] = Counter()
    lengths = []
    for seed in range(first_seed, first_seed + games):
        winner, result, turns = play(seed)
        wins[winner or "draw"] += 1
        ends[result] += 1
        lengths.append(turns)
    lengths.sort()
    p90 = lengths[min(len(lengths) - 1, int(len(lengths) * 0.9))]
    lines = [f"games: {games}"]
    for side in ("german", "british", "draw"):
        lines.append(f"{side}: {wins[side]} ({100 * wins[side] / games:.1f}%)")
    lines.append("ended by: " + ", ".join(f"{k} {v} ({100 * v / games:.1f}%)"
                                          for k, v in sorted(ends.items())))
    lines.append(f"turns: median {statistics.median(lengths):g}, p90 {p90}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(run(args.games, args.seed))


if __name__ == "__main__":  # pragma: no cover
    main()
