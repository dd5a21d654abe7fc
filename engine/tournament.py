"""How strong the computer players are: seeded two-player matches, every game kind.

    python -m engine.tournament [--games N] [--kinds a,b] [--pairings hard-medium,...]
                                [--seed S] [--jobs J] [--scale F] [--markdown FILE]
                                [--record FILE] [--quick]

Players: ``random`` (a uniform legal move from a seeded generator), ``heuristic`` (the
game's own ``engine/<kind>/ai.py`` ``choose_action``) and the search levels of
:mod:`engine.search` (``easy``, ``medium``, ``hard``). The heuristic meets ``random``;
each level meets ``random``, ``heuristic`` and the level below it (``easy``'s is the
heuristic). ``--pairings ladder`` plays only each player against the one just below.
Besides each row's score, the table gives each player's rating per game by the bot's
rating model (:mod:`engine.ratings`), fitted to the tournament's games. The games of a
pairing come in pairs on the same deal (game seed), one from each seat, so neither the
first player's advantage nor a lucky deal favours anybody.

A win scores 1, a shared win ``1/len(winners)``, and a game still running after
``--step-cap`` actions 0.5 (reported as capped). A row is *clear* when the 95% interval
of its win rate lies wholly above 0.5, taken over deals (the two games of a deal are not
independent: :attr:`Row.interval`); the Wilson interval over games is shown beside it.

A long run can keep its games in a file (``--record FILE``, a JSON line a game as it
ends): run again with the same arguments and it plays only the games the file lacks.

Everything is deterministic: the same arguments give the same scores, whatever
``--jobs`` is, because every search runs its level's iteration budget with no time limit
(the seconds a decision took are reported, never used), and its seed comes from the
match seed and the move number. :func:`play_match` is pure engine; only :func:`main`
spreads matches over processes.
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from engine import search
from engine.core import Game
from engine.ratings import Rating, conservative, rate
from engine.stats import mean_interval, wilson_interval

#: Every player the tournament knows, weakest first.
PLAYERS = ("random", "heuristic", *search.LEVELS)
#: Actions after which a game is stopped and scored a draw (0.5 each).
STEP_CAP = 3000
#: The two seats' player ids.
SEATS = ("p1", "p2")
_MASK = (1 << 63) - 1


def pairings() -> list[tuple[str, str]]:
    """(player, opponent) rows: the heuristic against random, then each level against
    random, the heuristic and the level below it (the heuristic for the weakest level)."""
    out: list[tuple[str, str]] = [("heuristic", "random")]
    below = "heuristic"
    for level in search.LEVELS:
        for opponent in ("random", "heuristic", below):
            if (level, opponent) not in out:
                out.append((level, opponent))
        below = level
    return out


def ladder() -> list[tuple[str, str]]:
    """The rows of the ladder: each player against the one just below it (``heuristic``
    over ``random``, ``easy`` over ``heuristic``, ``medium`` over ``easy``...)."""
    return list(zip(PLAYERS[1:], PLAYERS[:-1], strict=True))


def derive(*parts: int) -> int:
    """A seed from several integers (stable across processes and Python versions,
    unlike ``hash``)."""
    value = 0x2545F4914F6CDD1D
    for part in parts:
        value = (value * 1_000_003 + part) & _MASK
    return value


@dataclass(frozen=True)
class Match:
    """One game to play: ``player`` (the row) against ``opponent``."""

    kind: str
    player: str
    opponent: str
    #: The deal: the game's seed (both seatings of a pair share it).
    seed: int
    #: Whether ``player`` sits first.
    first: bool
    #: Multiplies every level's iteration budget (1: the real levels).
    scale: float = 1.0
    step_cap: int = STEP_CAP


@dataclass(frozen=True)
class MatchResult:
    match: Match
    #: The row player's score (the opponent's is ``1 - score``).
    score: float
    capped: bool
    steps: int
    #: Seconds of each of the row player's search decisions (moves it had to think about).
    decisions: tuple[float, ...]
    seconds: float


def budget(kind: str, player: str, scale: float) -> int:
    """A level's iterations in game ``kind``, scaled (at least one)."""
    return max(1, round(search.level_iterations(kind, player) * scale))


def play_match(match: Match) -> MatchResult:
    """Play one game to the end (or the step cap). Pure engine and deterministic."""
    began = time.perf_counter()
    game: Game[Any] = engine.GAMES[match.kind]
    kinds = (match.player, match.opponent) if match.first else (match.opponent, match.player)
    who = dict(zip(SEATS, kinds, strict=True))
    row_seat = SEATS[0] if match.first else SEATS[1]
    rngs = {seat: random.Random(derive(match.seed, index, 17))
            for index, seat in enumerate(SEATS)}
    state = game.new_game(list(SEATS), match.seed)
    decisions: list[float] = []
    steps = 0
    while game.outcome(state) is None and steps < match.step_cap:
        actors = game.to_act(state)
        if not actors:
            break
        actor = actors[0]
        kind = who[actor]
        if kind == "random":
            action = rngs[actor].choice(game.legal_actions(state, actor))
        elif kind == "heuristic":
            action = search.heuristic_action(game, state, actor)
        else:
            # no time cap (``seconds=None`` would mean the level's): a busy machine must
            # not cut a search short, or the scores would depend on the load
            choice = search.choose(game, state, actor, level=kind,
                                   seed=derive(match.seed, steps, SEATS.index(actor)),
                                   iterations=budget(match.kind, kind, match.scale),
                                   seconds=math.inf)
            action = choice.action
            if actor == row_seat and choice.iterations:
                decisions.append(choice.seconds)
        state, _ = game.apply(state, actor, action)
        steps += 1
    outcome = game.outcome(state)
    if outcome is None:
        score, capped = 0.5, True
    else:
        score = 1.0 / len(outcome.winners) if row_seat in outcome.winners else 0.0
        capped = False
    return MatchResult(match, score, capped, steps, tuple(decisions),
                       time.perf_counter() - began)


@dataclass
class Row:
    """One pairing in one game: the row player's results against its opponent."""

    kind: str
    player: str
    opponent: str
    results: list[MatchResult] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.results)

    @property
    def score(self) -> float:
        return sum(r.score for r in self.results)

    @property
    def opponent_score(self) -> float:
        return sum(1.0 - r.score for r in self.results)

    @property
    def rate(self) -> float:
        return self.score / self.games if self.games else 0.0

    def _by_deal(self) -> list[list[float]]:
        """The row player's scores, deal by deal (two games, one from each seat; a
        stopped run's last deal may have one)."""
        by_deal: dict[int, list[float]] = {}
        for r in self.results:
            by_deal.setdefault(r.match.seed, []).append(r.score)
        return list(by_deal.values())

    @property
    def deal_scores(self) -> list[float]:
        """The row player's mean score on each deal."""
        return [sum(scores) / len(scores) for scores in self._by_deal()]

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% interval of the win rate over deals: the two games of a deal share
        its cards and dice, so they are not independent, and the deal is the unit that
        is (``engine.stats.mean_interval``). Where the seat on a deal decides most
        games (many split deals), it is narrower than :attr:`game_interval`; where one
        player wins a deal from both seats, wider."""
        return mean_interval(self.deal_scores)

    @property
    def game_interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the win rate, as if every game were independent."""
        return wilson_interval(self.score, self.games)

    @property
    def clear(self) -> bool:
        return self.interval[0] > 0.5

    @property
    def capped(self) -> int:
        return sum(r.capped for r in self.results)

    @property
    def deals(self) -> tuple[int, int, int]:
        """The deals played from both seats: how many the row player won from both
        seats (more than 1 point of 2), split (1 point of 2: each player won one game,
        so the seat on that deal decided, not the players) and lost from both. Many
        splits mean luck swamps skill, and only the other deals tell the players apart."""
        sums = [sum(scores) for scores in self._by_deal() if len(scores) == 2]
        return (sum(s > 1 for s in sums), sum(s == 1 for s in sums),
                sum(s < 1 for s in sums))

    @property
    def decision_mean(self) -> float:
        times = [t for r in self.results for t in r.decisions]
        return sum(times) / len(times) if times else 0.0

    @property
    def decision_max(self) -> float:
        return max((t for r in self.results for t in r.decisions), default=0.0)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.results)

    @property
    def steps(self) -> float:
        return sum(r.steps for r in self.results) / self.games if self.games else 0.0


def schedule(kinds: Iterable[str], rows: Iterable[tuple[str, str]], games: int, seed: int,
             scale: float = 1.0, step_cap: int = STEP_CAP,
             per_row: Mapping[tuple[str, str], int] | None = None) -> list[Match]:
    """Every match to play, in a fixed order; game ``i`` of a pairing is played on deal
    ``i // 2`` with the seats swapped every other game. ``per_row`` gives some rows
    another number of games (the costly hard rows fewer, the cheap ones more)."""
    out = []
    for kind in kinds:
        for player, opponent in rows:
            for i in range((per_row or {}).get((player, opponent), games)):
                deal = derive(seed, i // 2) % (1 << 31)
                out.append(Match(kind, player, opponent, deal, i % 2 == 0, scale, step_cap))
    return out


def _results(matches: Sequence[Match], jobs: int) -> Iterator[MatchResult]:
    """Each game's result as soon as it ends, in whatever order the processes finish
    (so a game played is reported, and recorded, at once)."""
    if jobs <= 1:
        yield from map(play_match, matches)
        return
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap_unordered(play_match, matches)


# -- the record: games kept across runs ----------------------------------------------------

def record_line(result: MatchResult) -> str:
    """One finished game as a line of the record file (JSON): the match, then what
    :class:`MatchResult` says of it."""
    m = result.match
    return json.dumps({"kind": m.kind, "player": m.player, "opponent": m.opponent,
                       "seed": m.seed, "first": m.first, "scale": m.scale,
                       "step_cap": m.step_cap, "score": result.score,
                       "capped": result.capped, "steps": result.steps,
                       "decisions": list(result.decisions), "seconds": result.seconds})


def read_record(path: Path) -> dict[Match, MatchResult]:
    """The games a record file holds, by match. A line that is not a whole game (the
    last line of a run killed while writing it, or anything else) is left out: that game
    is played again."""
    out: dict[Match, MatchResult] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            d = json.loads(line)
            match = Match(str(d["kind"]), str(d["player"]), str(d["opponent"]),
                          int(d["seed"]), bool(d["first"]), float(d["scale"]),
                          int(d["step_cap"]))
            out[match] = MatchResult(match, float(d["score"]), bool(d["capped"]),
                                     int(d["steps"]),
                                     tuple(float(x) for x in d["decisions"]),
                                     float(d["seconds"]))
        except (ValueError, TypeError, KeyError):
            continue
    return out


def _ends_a_line(path: Path) -> bool:
    """Whether the file at ``path`` is empty or ends with a newline (its last byte only:
    a long run's record is read once, by :func:`read_record`)."""
    with path.open("rb") as f:
        if f.seek(0, os.SEEK_END) == 0:
            return True
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def tournament(kinds: Iterable[str], rows: Iterable[tuple[str, str]], games: int,
               seed: int = 0, *, scale: float = 1.0, step_cap: int = STEP_CAP, jobs: int = 1,
               progress: bool = False, into: list[Row] | None = None,
               per_row: Mapping[tuple[str, str], int] | None = None,
               record: Path | None = None) -> list[Row]:
    """Play every pairing ``games`` times (or its ``per_row`` number) in every kind; one
    :class:`Row` per pairing, its games in the schedule's order.

    ``into`` (emptied first) receives the rows as they fill, so a caller interrupted
    halfway still has the games played so far. ``record`` names a file each game is
    appended to as it ends (:func:`record_line`); the games it already holds are taken
    from it instead of played, so a long run stopped (or killed) goes on where it was
    with the same arguments, and its table is the one a single run would print."""
    kinds, rows = list(kinds), list(rows)
    table = {(k, p, o): Row(k, p, o) for k in kinds for p, o in rows}
    if into is not None:
        into[:] = table.values()
    matches = schedule(kinds, rows, games, seed, scale, step_cap, per_row)
    place = {m: i for i, m in enumerate(matches)}
    recorded = read_record(record) if record is not None else {}
    if record is not None and record.exists() and not _ends_a_line(record):
        with record.open("a", encoding="utf-8") as out:
            out.write("\n")        # a line cut short by a kill stays alone on its line

    def add(result: MatchResult) -> None:
        m = result.match
        row = table[(m.kind, m.player, m.opponent)]
        bisect.insort(row.results, result, key=lambda r: place[r.match])

    for m in matches:
        if m in recorded:
            add(recorded[m])
    todo = [m for m in matches if m not in recorded]
    if progress and record is not None:
        print(f"  {len(matches) - len(todo)} of the {len(matches)} games taken from "
              f"{record}", file=sys.stderr, flush=True)
    for n, result in enumerate(_results(todo, jobs), len(matches) - len(todo) + 1):
        m = result.match
        if record is not None:
            with record.open("a", encoding="utf-8") as out:
                out.write(record_line(result) + "\n")
        add(result)
        if progress:
            print(f"  [{n}/{len(matches)}] {m.kind} {m.player} vs {m.opponent} "
                  f"({'first' if m.first else 'second'}): {result.score:g}"
                  f"{' (capped)' if result.capped else ''}, {result.steps} steps, "
                  f"{len(result.decisions)} decisions (mean "
                  f"{sum(result.decisions) / max(1, len(result.decisions)):.2f} s, max "
                  f"{max(result.decisions, default=0.0):.2f} s), "
                  f"{result.seconds:.1f} s", file=sys.stderr, flush=True)
    return list(table.values())


def ratings(rows: Sequence[Row]) -> dict[str, dict[str, tuple[Rating, int]]]:
    """Each player's rating (μ, σ) and games per kind, by the bot's own rating model
    (:mod:`engine.ratings`) run over the tournament's games, so a level's strength reads
    on the scale of a server's leaderboard.

    The games are rated in rounds, game ``i`` of every row before game ``i + 1`` of any,
    so no row's games all come last; the result depends only on the games, never on
    ``--jobs``."""
    out: dict[str, dict[str, tuple[Rating, int]]] = {}
    for kind in dict.fromkeys(r.kind for r in rows):
        table: dict[str, Rating] = {}
        games: dict[str, int] = {}
        of_kind = [r for r in rows if r.kind == kind]
        for i in range(max((r.games for r in of_kind), default=0)):
            for row in of_kind:
                if i >= row.games:
                    continue
                score = row.results[i].score
                # a shared win or a capped game is a tie: both first
                places = [(row.player, 1 if score >= 0.5 else 2),
                          (row.opponent, 1 if score <= 0.5 else 2)]
                table.update(rate(table, places))
                for player, _ in places:
                    games[player] = games.get(player, 0) + 1
        out[kind] = {p: (table[p], games[p]) for p in PLAYERS if p in table}
    return out


RATING_HEADER = ("game", "player", "μ", "σ", "μ − 3σ", "games")


def rating_cells(rows: Sequence[Row]) -> list[tuple[str, ...]]:
    return [(kind, player, f"{mu:.1f}", f"{sigma:.2f}", f"{conservative(mu, sigma):.1f}",
             str(games))
            for kind, table in ratings(rows).items()
            for player, ((mu, sigma), games) in table.items()]


HEADER = ("game", "player", "opponent", "games", "score", "win rate", "95% by deal",
          "95% by game", "deals won/split/lost", "s/decision mean", "s/decision max", "capped",
          "steps/game", "wall s", "")


def cells(row: Row) -> tuple[str, ...]:
    low, high = row.interval
    game_low, game_high = row.game_interval
    return (row.kind, row.player, row.opponent, str(row.games), f"{row.score:g}",
            f"{row.rate:.2f}", f"{low:.2f}-{high:.2f}", f"{game_low:.2f}-{game_high:.2f}",
            "/".join(map(str, row.deals)),
            f"{row.decision_mean:.2f}",
            f"{row.decision_max:.2f}", str(row.capped), f"{row.steps:.0f}",
            f"{row.seconds:.0f}", "clear" if row.clear else "")


def _text(header: tuple[str, ...], body: Sequence[tuple[str, ...]]) -> str:
    lines = [header, *body]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
                     for line in lines)


def text_table(rows: Sequence[Row]) -> str:
    """The rows, then each player's rating per game."""
    return (_text(HEADER, [cells(r) for r in rows]) + "\n\nratings (openskill, as the bot "
            "rates players):\n" + _text(RATING_HEADER, rating_cells(rows)))


def markdown_table(rows: Sequence[Row]) -> str:
    out = ["| " + " | ".join(HEADER[:-1]) + " | |",
           "| --- | --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: "
           "| ---: | ---: | --- |"]
    for row in rows:
        out.append("| " + " | ".join(cells(row)) + " |")
    out += ["", "| " + " | ".join(RATING_HEADER) + " |",
            "| --- | --- | ---: | ---: | ---: | ---: |"]
    out += ["| " + " | ".join(line) + " |" for line in rating_cells(rows)]
    return "\n".join(out)


def _pairing_filter(text: str | None) -> list[tuple[str, str]]:
    rows = pairings()
    if not text:
        return rows
    wanted = [w.strip() for w in text.split(",") if w.strip()]
    if "ladder" in wanted:
        wanted.remove("ladder")
        wanted += [f"{p}-{o}" for p, o in ladder()]
    chosen = []
    for player, opponent in rows:
        if f"{player}-{opponent}" in wanted or player in wanted:
            chosen.append((player, opponent))
    for w in wanted:
        if "-" in w and tuple(w.split("-", 1)) not in rows:
            # an extra pairing: hard-easy is not in the default list, but may be asked
            player, opponent = w.split("-", 1)
            if player not in PLAYERS or opponent not in PLAYERS:
                raise SystemExit(f"unknown pairing {w!r} (players: {', '.join(PLAYERS)})")
            chosen.append((player, opponent))
        elif "-" not in w and w not in PLAYERS:
            raise SystemExit(f"unknown player {w!r} (players: {', '.join(PLAYERS)})")
    return chosen


def _per_row(text: str | None, rows: Sequence[tuple[str, str]],
             parser: argparse.ArgumentParser) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, _, count = item.strip().partition("=")
        row = tuple(name.split("-", 1))
        if len(row) != 2 or (row[0], row[1]) not in rows:
            parser.error(f"--games-per-row: {name!r} is not one of the rows played")
        if not count.isascii() or not count.isdigit() or not 0 < int(count) <= 100_000:
            parser.error(f"--games-per-row: {item!r} needs a number of games, like "
                         f"{name}=16")
        out[(row[0], row[1])] = int(count)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="games per pairing and kind (default 20; "
                        "an even number gives every deal from both seats)")
    parser.add_argument("--games-per-row", metavar="ROW=N,...", help="other numbers of games "
                        "for some rows, e.g. hard-medium=16,easy-heuristic=60")
    parser.add_argument("--kinds", help="comma-separated game kinds (default: all)")
    parser.add_argument("--pairings", help="comma-separated rows such as hard-medium, or a "
                        "player's name for all its rows, or `ladder` for each player "
                        "against the one just below it (default: "
                        + ", ".join(f"{p}-{o}" for p, o in pairings()) + ")")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes playing games at once (default 1)")
    parser.add_argument("--scale", type=float, help="multiply every level's iteration "
                        "budget (default 1: the real levels)")
    parser.add_argument("--step-cap", type=int, help=f"actions before a game is scored a "
                        f"draw (default {STEP_CAP})")
    parser.add_argument("--markdown", type=Path, help="also write the table as Markdown")
    parser.add_argument("--record", type=Path, metavar="FILE", help="append every game "
                        "to FILE as it ends, and take the games FILE already holds from "
                        "it: run again with the same arguments to go on where a stopped "
                        "run was")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 games, budgets "
                        "/16, step cap 600 (unless given)")
    parser.epilog = "Interrupted (Ctrl-C, SIGTERM), it prints the games played so far."
    args = parser.parse_args(argv)
    games = args.games if args.games is not None else (2 if args.quick else 20)
    scale = args.scale if args.scale is not None else (1 / 16 if args.quick else 1.0)
    step_cap = args.step_cap if args.step_cap is not None else (600 if args.quick else STEP_CAP)
    kinds = [k.strip() for k in args.kinds.split(",")] if args.kinds else list(engine.GAMES)
    unknown = [k for k in kinds if k not in engine.GAMES]
    if unknown:
        parser.error(f"unknown kind {unknown[0]!r} (kinds: {', '.join(engine.GAMES)})")
    if games < 1 or args.jobs < 1 or scale <= 0 or step_cap < 1:
        parser.error("--games, --jobs, --scale and --step-cap must be positive")
    rows = _pairing_filter(args.pairings)
    per_row = _per_row(args.games_per_row, rows, parser)
    print(f"{games} games per pairing, seed {args.seed}, budgets x{scale:g}, "
          f"step cap {step_cap}, {args.jobs} job(s)", flush=True)
    began = time.perf_counter()
    results: list[Row] = []

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    main_thread = threading.current_thread() is threading.main_thread()
    # ``timeout`` or ``kill`` prints the table so far, as Ctrl-C does
    previous = signal.signal(signal.SIGTERM, stop) if main_thread else None
    try:
        tournament(kinds, rows, games, args.seed, scale=scale, step_cap=step_cap,
                   jobs=args.jobs, progress=True, into=results, per_row=per_row,
                   record=args.record)
    except KeyboardInterrupt:
        played = sum(r.games for r in results)
        print(f"interrupted: the {played} games played so far")
        results = [r for r in results if r.games]
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    print(text_table(results))
    for kind in kinds:
        spent = sum(r.seconds for r in results if r.kind == kind)
        print(f"{kind}: {spent:.0f} s of play")
    print(f"total {time.perf_counter() - began:.0f} s wall")
    if args.markdown:
        args.markdown.write_text(markdown_table(results) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
