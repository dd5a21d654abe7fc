"""The balance simulation: automatic players against each other.

    python -m engine.battlecards.simulate --games 3000

prints win rates per side (and draws), how games ended and game length in turns.

    python -m engine.battlecards.simulate --games 2000 --duel seasoned

plays the seasoned policy (medium's, ``ai.choose_among_seasoned``) against the heuristic
instead, each deal from both seats, and prints its score; ``--duel sharp`` plays hard's
(``ai.choose_among_sharp``).
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from collections.abc import Callable

from engine.battlecards import GAME
from engine.battlecards.ai import choose_among, choose_among_seasoned, choose_among_sharp
from engine.battlecards.rules import Battlecards
from engine.battlecards.state import BattlecardsState

#: (game, state, player, legal) -> the move; the policies a duel can play.
PolicyAmong = Callable[[Battlecards, BattlecardsState, str, list[str]], str]
POLICIES: dict[str, PolicyAmong] = {"heuristic": choose_among,
                                     "seasoned": choose_among_seasoned,
                                     "sharp": choose_among_sharp}

MAX_ACTIONS = 20000


def _played(seed: int, german: PolicyAmong, british: PolicyAmong) -> BattlecardsState:
    """One game between two policies, to its end (or ``MAX_ACTIONS``)."""
    state = GAME.new_game(["german", "british"], seed)
    policies = {"german": german, "british": british}
    for _ in range(MAX_ACTIONS):
        acting = GAME.to_act(state)
        if not acting:
            break
        player = acting[0]
        move = policies[player](GAME, state, player, GAME.legal_actions(state, player))
        state, _ = GAME.apply(state, player, move)
    return state


def play(seed: int) -> tuple[str | None, str, int]:
    """One game of the heuristic against itself: (winning side or None, how it ended,
    turns)."""
    state = _played(seed, choose_among, choose_among)
    return state.winner, state.result or "unfinished", state.round


def duel(policy: PolicyAmong, opponent: PolicyAmong, deals: int,
         first_seed: int = 0) -> float:
    """``policy``'s score against ``opponent`` (a draw is half), each deal played from
    both seats."""
    score = 0.0
    for seed in range(first_seed, first_seed + deals):
        for side, pair in (("german", (policy, opponent)), ("british", (opponent, policy))):
            winner = _played(seed, *pair).winner
            score += 0.5 if winner is None else float(winner == side)
    return score / (2 * deals)


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
    parser.add_argument("--duel", choices=sorted(POLICIES),
                        help="play this policy against the heuristic instead, --games "
                             "deals from both seats")
    args = parser.parse_args(argv)
    if args.duel:
        score = duel(POLICIES[args.duel], POLICIES["heuristic"], args.games, args.seed)
        print(f"{args.duel} against the heuristic: {score:.3f} over "
              f"{2 * args.games} games")
        return
    print(run(args.games, args.seed))


if __name__ == "__main__":  # pragma: no cover
    main()
