"""The balance simulation: copies of the automatic player against each other.

    python -m engine.antiquity.simulate --players N --games G [--seed S] [--rounds R]
    python -m engine.antiquity.simulate --all --games G [--seed S] [--rounds R]

plays ``--games`` games between N copies of the automatic player (engine/antiquity/ai.py),
seeds S, S+1, ... (the seed deals the nations to the seats; seat order is turn order), and
prints the games' length (rounds and turns, average and median), the wins of each seat with
a 95% interval, how the games ended (a nation reached the target, or the round limit) and
the personalities earned, by kind. For each nation it prints the games it was in, its win
share (a shared win counts 1/len(winners)), that share as a multiple of the fair share 1/N
and a 95% Wilson interval, then the largest such ratio at the count. ``--all`` does this for
every player count from 2 to 6 and ends with the largest nation ratio per count. The
figures are published in docs/games/antiquity.md.
"""

from __future__ import annotations

import argparse
import ast
import random
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.antiquity import GAME
from engine.antiquity import constants as C
from engine.antiquity.ai import choose_action
from engine.stats import wilson_interval

MAX_ACTIONS = 200_000
KINDS = ("king", "citizen", "scholar", "navigator", "general")



@dataclass
class Game:
    """What one finished game tells the tally."""

    rounds: int
    turns: int
    winners: list[int]            # seats (0-based)
    nations: list[str]            # nation of each seat
    ending: str                   # "target", "rounds" or "other"
    personalities: Counter[str]
    winner_points: int


def play(players: int, seed: int, rounds: int | None = None) -> Game:
    """One game between ``players`` copies of the automatic player, to its end. Each copy
    nudges its wheel choices with its own generator seeded from the game's seed (see
    ``choose_action``): without that, a 2-player table would see only two different games
    (the two deals of nations)."""
    ids = [f"p{i + 1}" for i in range(players)]
    rngs = {p: random.Random(seed * 7919 + i) for i, p in enumerate(ids)}
    options: dict[str, Any] = {} if rounds is None else {"rounds": rounds}
    state = GAME.new_game(ids, seed, options)
    turns = 0
    for _ in range(MAX_ACTIONS):
        acting = GAME.to_act(state)
        if not acting:
            break
        player = acting[0]
        action = choose_action(GAME, state, player, rngs[player])
        if action.startswith("go "):
            turns += 1
        state, _ = GAME.apply(state, player, action)
    else:  # pragma: no cover - a bug in the automatic player
        raise RuntimeError(f"seed {seed}: no end after {MAX_ACTIONS} actions")
    view = GAME.view(state, None)
    outcome = GAME.outcome(state)
    seat_of = {n["player"]: n["seat"] for n in view["nations"]}
    nations = [n["id"] for n in sorted(view["nations"], key=lambda n: n["seat"])]
    winners = sorted(seat_of[w] for w in (outcome.winners if outcome else ()))
    best = max((n["points"] for n in view["nations"]), default=0)
    if best >= view["target"]:
        ending = "target"
    elif view["round"] >= view["rounds"]:
        ending = "rounds"
    else:
        ending = "other"
    kinds: Counter[str] = Counter()
    for n in view["nations"]:
        for k, v in n["personalities"].items():
            kinds[k] += int(v)
    return Game(rounds=int(view["round"]), turns=turns, winners=winners, nations=nations,
                ending=ending, personalities=kinds,
                winner_points=max((n["points"] for n in view["nations"]
                                   if n["seat"] in winners), default=0))


@dataclass
class Tally:
    players: int
    games: int = 0
    rounds: list[int] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    seat_wins: Counter[int] = field(default_factory=Counter)
    nation_wins: Counter[str] = field(default_factory=Counter)
    nation_games: Counter[str] = field(default_factory=Counter)
    endings: Counter[str] = field(default_factory=Counter)
    personalities: Counter[str] = field(default_factory=Counter)

    def add(self, game: Game) -> None:
        self.games += 1
        self.rounds.append(game.rounds)
        self.turns.append(game.turns)
        share = 1 / len(game.winners) if game.winners else 0.0
        for seat in game.winners:
            self.seat_wins[seat] += share  # type: ignore[assignment]
            self.nation_wins[game.nations[seat]] += share  # type: ignore[assignment]
        for nation in game.nations:
            self.nation_games[nation] += 1
        self.endings[game.ending] += 1
        self.personalities.update(game.personalities)

    def worst_seat(self) -> float:
        """The largest seat win rate, as a multiple of the fair share 1/N."""
        if not self.games:
            return 0.0
        top = max(self.seat_wins.get(s, 0) for s in range(self.players))
        return top / self.games * self.players

    def nation_share(self, nation: str) -> float:
        """The nation's win share: its wins (shared wins split) over the games it was in."""
        games = self.nation_games.get(nation, 0)
        return self.nation_wins.get(nation, 0) / games if games else 0.0

    def nation_ratio(self, nation: str) -> float:
        """The nation's win share as a multiple of the fair share 1/N."""
        return self.nation_share(nation) * self.players

    def max_nation_ratio(self) -> float:
        """The largest :meth:`nation_ratio` at this player count (the balance goal: at
        most 1.3)."""
        return max((self.nation_ratio(n) for n in self.nation_games), default=0.0)

    def nation_rows(self) -> list[tuple[str, int, float, float, float, float]]:
        """Per nation, in nation order: (nation, games, win share, ratio to the fair
        share, 95% interval low, high)."""
        from engine.antiquity.board import NATION_ORDER

        rows = []
        for nation in NATION_ORDER:
            games = self.nation_games.get(nation, 0)
            if not games:
                continue
            low, high = wilson_interval(self.nation_wins.get(nation, 0), games)
            rows.append((nation, games, self.nation_share(nation), self.nation_ratio(nation),
                         low, high))
        return rows

    def summary(self) -> dict[str, Any]:
        """The figures as data (for tests and the doc)."""
        return {
            "players": self.players, "games": self.games,
            "rounds": statistics.fmean(self.rounds) if self.rounds else 0.0,
            "median_rounds": statistics.median(self.rounds) if self.rounds else 0,
            "turns": statistics.fmean(self.turns) if self.turns else 0.0,
            "median_turns": statistics.median(self.turns) if self.turns else 0,
            "seat_wins": [self.seat_wins.get(s, 0) for s in range(self.players)],
            "nation_wins": dict(self.nation_wins),
            "endings": dict(self.endings),
            "personalities": dict(self.personalities),
            "worst_seat": self.worst_seat(),
            "nation_games": dict(self.nation_games),
            "nation_ratio": {n: self.nation_ratio(n) for n in self.nation_games},
            "max_nation_ratio": self.max_nation_ratio(),
        }

    def lines(self) -> list[str]:
        g = max(1, self.games)
        s = self.summary()
        out = [f"{self.players} players: {self.games} games, target "
               f"{C.TARGET[self.players]}, rounds average {s['rounds']:.1f} "
               f"(median {s['median_rounds']:g}), turns average {s['turns']:.1f} "
               f"(median {s['median_turns']:g})"]
        fair = 100 / self.players
        seats = []
        for seat in range(self.players):
            w = self.seat_wins.get(seat, 0)
            low, high = wilson_interval(w, self.games)
            seats.append(f"seat {seat + 1} {w:g} ({100 * w / g:.1f}%, "
                         f"{100 * low:.1f}-{100 * high:.1f}%)")
        out.append(f"  wins by seat (fair {fair:.1f}%; best seat {s['worst_seat']:.2f}x fair): "
                   + "; ".join(seats))
        out.append(f"  wins by nation (fair {fair:.1f}%; largest ratio "
                   f"{self.max_nation_ratio():.2f}x fair):")
        for nation, games, share, ratio, low, high in self.nation_rows():
            w = self.nation_wins.get(nation, 0)
            out.append(f"    {nation:<14} games {games:>5}  wins {w:>7.1f}  share "
                       f"{100 * share:5.1f}%  {ratio:4.2f}x fair  95% "
                       f"{100 * low:.1f}-{100 * high:.1f}%")
        out.append("  ended: " + ", ".join(
            f"{ENDINGS.get(k, k)} {v} ({100 * v / g:.1f}%)"
            for k, v in sorted(self.endings.items())))
        out.append("  personalities per game: " + ", ".join(
            f"{k} {self.personalities.get(k, 0) / g:.2f}" for k in KINDS))
        return out


ENDINGS = {"target": "target reached", "rounds": "round limit", "other": "other"}


def _play_args(args: tuple[int, int, int | None]) -> Game:
    return play(*args)


def run(players: int, games: int, first_seed: int = 0, rounds: int | None = None,
        jobs: int = 1) -> Tally:
    """Play ``games`` games at ``players`` seats, seeds first_seed, first_seed + 1, ...
    (``jobs`` > 1: in that many processes; the figures are the same)."""
    tally = Tally(players)
    work = [(players, seed, rounds) for seed in range(first_seed, first_seed + games)]
    if jobs > 1:
        import multiprocessing

        with multiprocessing.Pool(jobs) as pool:
            for game in pool.imap(_play_args, work, chunksize=8):
                tally.add(game)
    else:
        for item in work:
            tally.add(_play_args(item))
    return tally


def override(assignments: list[str]) -> None:
    """Try other values without editing constants.py: ``NAME=python-literal``."""
    for item in assignments:
        name, _, value = item.partition("=")
        if not hasattr(C, name):
            raise SystemExit(f"constants.py has no {name}")
        setattr(C, name, ast.literal_eval(value))


def report(counts: list[int], games: int, first_seed: int = 0,
           rounds: int | None = None, jobs: int = 1) -> str:
    limit = rounds if rounds is not None else C.ROUNDS
    lines = [f"round limit {limit}, seeds {first_seed}-{first_seed + games - 1}"]
    worst = []
    for n in counts:
        tally = run(n, games, first_seed, rounds, jobs)
        lines += tally.lines()
        top = max(tally.nation_rows(), key=lambda row: row[3], default=None)
        if top is not None:
            worst.append(f"  {n} players: {top[3]:.2f}x ({top[0]})")
    if len(worst) > 1:
        lines.append("largest nation ratio per player count (goal: at most 1.30x):")
        lines += worst
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--all", action="store_true", help="every player count, 2 to 6")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=1, help="processes to play in")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="try another value of a constant (experiments only)")
    args = parser.parse_args(argv)
    override(args.set)
    counts = list(range(2, 7)) if args.all else [args.players]
    print(report(counts, args.games, args.seed, args.rounds, args.jobs))


if __name__ == "__main__":  # pragma: no cover
    main()
