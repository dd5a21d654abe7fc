"""The generic computer player (engine/search.py): determinism, legality, budgets, the time
cap, that it finds a won move where chance would not, and that it reads only a
determinization of the position; plus a smoke run of the tournament (engine/tournament.py).

Speed is measured by ``make bench`` (the ``ai`` section), never here.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import re
import signal
import time
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import pytest

import engine
from engine import search, tournament
from engine.core import JSON, Dice, Event, Game, IllegalAction, Outcome
from tests.fakegame import GAME as RACE
from tests.fakegame import RaceState

# -- tiny games ------------------------------------------------------------------------------

S = TypeVar("S")


class _AB(Game[S]):
    """What the test games share: two seats, ``a`` and ``b``; only listed actions apply."""

    min_players = 2
    max_players = 2

    def players(self, state: S) -> list[str]:
        return ["a", "b"]

    def check_legal(self, state: S, player: str, action: str) -> None:
        if action not in self.legal_actions(state, player):
            raise IllegalAction(action)



@dataclass(frozen=True)
class Pick:
    """One decision for ``a`` (``moves``), after which the game is over."""

    moves: tuple[str, ...]
    chosen: str | None = None
    #: Set by ``determinize``: the only state the search may play on.
    determinized: bool = False
    #: Hidden from ``a``: which of ``left``/``right`` wins (only in :class:`Guess`).
    secret: str = ""
    #: Hidden from everyone: the roll a move's odds are held to (only in :class:`Gamble`).
    roll: float | None = None


class _Tiny(_AB[Pick]):
    """Shared plumbing of the one-decision test games (player ``a``; ``b`` only watches)."""

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> Pick:
        raise NotImplementedError

    def current_turn(self, state: Pick) -> str | None:
        return None if state.chosen else "a"

    def to_act(self, state: Pick) -> list[str]:
        return [] if state.chosen else ["a"]

    def legal_actions(self, state: Pick, player: str) -> list[str]:
        return list(state.moves) if player == "a" and not state.chosen else []

    def apply(self, state: Pick, player: str, action: str) -> tuple[Pick, list[Event]]:
        self.check_legal(state, player, action)
        return dataclasses.replace(state, chosen=action), []

    def view(self, state: Pick, player: str | None) -> JSON:
        return {"chosen": state.chosen}

    def dump(self, state: Pick) -> str:
        return json.dumps(dataclasses.asdict(state))

    def load(self, text: str) -> Pick:
        return Pick(**json.loads(text))


class OneShot(_Tiny):
    """``win`` wins for ``a``, ``lose`` and ``wait`` lose, ``draw`` shares the win."""

    kind = "oneshot"
    name = "One shot"

    def outcome(self, state: Pick) -> Outcome | None:
        if state.chosen is None:
            return None
        if state.chosen == "win":
            return Outcome(("a",), ("a", "b"), "won")
        if state.chosen == "draw":
            return Outcome(("a", "b"), ("a", "b"), "shared")
        return Outcome(("b",), ("b", "a"), "lost")


class Guess(_Tiny):
    """``a`` guesses which side hides the prize; only the determinization may be played on
    (``apply`` refuses the true position), and the true ``secret`` must make no difference."""

    kind = "guess"
    name = "Guess"

    def apply(self, state: Pick, player: str, action: str) -> tuple[Pick, list[Event]]:
        if not state.determinized:
            raise AssertionError("the search played on the true position")
        return super().apply(state, player, action)

    def outcome(self, state: Pick) -> Outcome | None:
        if state.chosen is None:
            return None
        if state.chosen == state.secret:
            return Outcome(("a",), ("a", "b"), "found")
        return Outcome(("b",), ("b", "a"), "missed")

    def determinize(self, state: Pick, player: str, rng: random.Random) -> Pick:
        # "left" three times in four, from what a player knows (nothing but the odds)
        secret = "left" if rng.random() < 0.75 else "right"
        return dataclasses.replace(state, secret=secret, determinized=True)


@dataclass(frozen=True)
class Orders:
    """Both players choose at once; the game ends when both have."""

    a: str | None = None
    b: str | None = None


class Duel(_AB[Orders]):
    """``a`` and ``b`` decide at the same time (``to_act`` lists both). ``b`` wins with
    ``strike`` whatever ``a`` does; ``a`` wins otherwise."""

    kind = "duel"
    name = "Duel"

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> Orders:
        return Orders()

    def current_turn(self, state: Orders) -> str | None:
        return None if self.outcome(state) else "a"

    def to_act(self, state: Orders) -> list[str]:
        return [p for p in ("a", "b") if getattr(state, p) is None]

    def legal_actions(self, state: Orders, player: str) -> list[str]:
        if player not in self.to_act(state):
            return []
        return ["feint", "strike", "wait"] if player == "b" else ["hold", "advance"]

    def apply(self, state: Orders, player: str, action: str) -> tuple[Orders, list[Event]]:
        self.check_legal(state, player, action)
        return dataclasses.replace(state, **{player: action}), []

    def outcome(self, state: Orders) -> Outcome | None:
        if state.a is None or state.b is None:
            return None
        if state.b == "strike":
            return Outcome(("b",), ("b", "a"), "struck")
        return Outcome(("a",), ("a", "b"), "held")

    def view(self, state: Orders, player: str | None) -> JSON:
        return {}

    def dump(self, state: Orders) -> str:
        return json.dumps([state.a, state.b])

    def load(self, text: str) -> Orders:
        return Orders(*json.loads(text))


@dataclass(frozen=True)
class Pile:
    stones: int
    turn: int = 0


class Nim(_AB[Pile]):
    """Take 1 or 2 stones; whoever takes the last one wins (leave a multiple of 3)."""

    kind = "nim"
    name = "Nim"

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> Pile:
        return Pile(seed)

    def current_turn(self, state: Pile) -> str | None:
        return None if state.stones == 0 else "ab"[state.turn]

    def to_act(self, state: Pile) -> list[str]:
        turn = self.current_turn(state)
        return [] if turn is None else [turn]

    def legal_actions(self, state: Pile, player: str) -> list[str]:
        if player != self.current_turn(state):
            return []
        return [f"take {n}" for n in (1, 2) if n <= state.stones]

    def apply(self, state: Pile, player: str, action: str) -> tuple[Pile, list[Event]]:
        self.check_legal(state, player, action)
        return Pile(state.stones - int(action.split()[1]), 1 - state.turn), []

    def outcome(self, state: Pile) -> Outcome | None:
        if state.stones:
            return None
        winner = "ab"[1 - state.turn]           # who took the last stone
        return Outcome((winner,), (winner, "ab"[state.turn]), "last stone")

    def view(self, state: Pile, player: str | None) -> JSON:
        return {"stones": state.stones}

    def dump(self, state: Pile) -> str:
        return json.dumps([state.stones, state.turn])

    def load(self, text: str) -> Pile:
        stones, turn = json.loads(text)
        return Pile(stones, turn)


def _played(kind: str, plies: int, seed: int) -> tuple[Game[Any], Any]:
    """A two-player position of ``kind`` after ``plies`` seeded random moves (fewer if the
    game would end)."""
    game = engine.GAMES[kind]
    state = game.new_game(["p1", "p2"], seed)
    rng = random.Random(seed)
    for _ in range(plies):
        actors = game.to_act(state)
        if not actors:
            break
        nxt, _ = game.apply(state, actors[0],
                            rng.choice(game.legal_actions(state, actors[0])))
        if game.outcome(nxt) is not None:
            break
        state = nxt
    return game, state


def _thinking(kind: str, seed: int) -> tuple[Game[Any], Any, str]:
    """A mid-game position where the player to act has at least two moves."""
    game, state = _played(kind, 12, seed)
    rng = random.Random(seed)
    for _ in range(200):
        actor = game.to_act(state)[0]
        legal = game.legal_actions(state, actor)
        if len(search.Searcher(game, state, actor, iterations=1, seconds=None, seed=0,
                               heuristics=search.heuristics(kind)).legal(state, actor)) > 1:
            return game, state, actor
        nxt, _ = game.apply(state, actor, rng.choice(legal))
        if game.outcome(nxt) is not None:
            break
        state = nxt
    pytest.fail(f"no {kind} position with a choice")


def _race(scores: tuple[int, int] = (7, 9), seed: int = 4) -> RaceState:
    return dataclasses.replace(RACE.new_game(["a", "b"], seed), scores=scores)


# -- determinism and legality ----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["race", *engine.GAMES])
def test_the_same_seed_gives_the_same_choice_and_a_legal_one(kind: str) -> None:
    game: Game[Any]
    if kind == "race":
        game, state, actor = RACE, _race(), "a"
    else:
        game, state, actor = _thinking(kind, 3)
    first = search.choose(game, state, actor, seed=11, iterations=12, seconds=None)
    again = search.choose(game, state, actor, seed=11, iterations=12, seconds=None)
    assert (again.action, again.ranking) == (first.action, first.ranking)
    assert first.action in game.legal_actions(state, actor)
    assert all(action in game.legal_actions(state, actor) for action, _, _ in first.ranking)
    assert sum(visits for _, visits, _ in first.ranking) == first.iterations == 12


def test_choices_stay_legal_through_a_whole_race() -> None:
    state = RACE.new_game(["a", "b"], 2, {"target": 20})
    moves = 0
    while RACE.outcome(state) is None:
        actor = RACE.to_act(state)[0]
        choice = search.choose(RACE, state, actor, level="easy", seed=moves)
        assert choice.action in RACE.legal_actions(state, actor)
        state, _ = RACE.apply(state, actor, choice.action)
        moves += 1
    assert 0 < moves < 60


def test_another_seed_searches_differently() -> None:
    # Not a promise about the move, but the seed must reach the search: the play-outs of
    # a dice race differ, so the root statistics do.
    rankings = {tuple(search.choose(RACE, _race(), "a", seed=s, iterations=40,
                                    seconds=None).ranking) for s in range(4)}
    assert len(rankings) > 1


# -- budgets ----------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [1, 7, 33])
def test_a_budget_of_n_iterations_runs_exactly_n(budget: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "DECIDED_CHECK", 10**9)    # never settled early
    choice = search.choose(RACE, _race(), "a", iterations=budget, seconds=None)
    assert choice.iterations == budget
    assert sum(visits for _, visits, _ in choice.ranking) == budget
    roomy = search.choose(RACE, _race(), "a", iterations=budget, seconds=60.0)
    assert roomy.iterations == budget


def test_a_settled_search_stops_early_and_chooses_the_same(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the most visited move leads by more than the iterations left, the search
    stops: the choice cannot change, so it is the one the whole budget gives."""
    stopped = 0
    for seed in range(12):
        state = _race()
        early = search.choose(RACE, state, "a", iterations=200, seconds=None, seed=seed)
        with monkeypatch.context() as m:
            m.setattr(search, "DECIDED_CHECK", 10**9)
            whole = search.choose(RACE, state, "a", iterations=200, seconds=None, seed=seed)
        assert whole.iterations == 200
        assert early.action == whole.action
        if early.iterations < 200:
            stopped += 1
            (_, first, _), (_, second, _) = early.ranking[:2]
            assert first > second + 200 - early.iterations    # nothing left could change it
            # the same search up to there: identical statistics so far
            with monkeypatch.context() as m:
                m.setattr(search, "DECIDED_CHECK", 10**9)
                same = search.choose(RACE, state, "a", iterations=early.iterations,
                                     seconds=None, seed=seed)
            assert same.ranking == early.ranking
    assert stopped                      # the race's obvious moves settle early


def test_levels_run_their_budgets() -> None:
    assert [level.iterations for level in search.LEVELS.values()] == sorted(
        level.iterations for level in search.LEVELS.values())
    choice = search.choose(RACE, _race(), "a", level="easy", seed=1)
    assert choice.iterations == search.LEVELS["easy"].iterations


def test_a_game_may_set_its_own_budget_for_a_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """``LEVEL_ITERATIONS`` in a game's ``ai.py`` changes a level's play-outs in that game
    alone; a level named by the bot or the tournament runs it, a ``Level`` given whole
    runs its own."""
    own = search.Heuristics(level_iterations={"easy": 40})
    monkeypatch.setattr(search, "heuristics",
                        lambda kind: own if kind == RACE.kind else search.Heuristics())
    monkeypatch.setattr(search, "DECIDED_CHECK", 10**9)     # no early stop: count them all
    assert search.level_iterations(RACE.kind, "easy") == 40
    assert search.level_iterations(RACE.kind, "medium") == search.LEVELS["medium"].iterations
    assert search.level_iterations("other", "easy") == search.LEVELS["easy"].iterations
    assert search.choose(RACE, _race(), "a", level="easy", seed=1).iterations == 40
    assert search.choose(RACE, _race(), "a", level=search.LEVELS["easy"],
                         seed=1).iterations == search.LEVELS["easy"].iterations
    assert tournament.budget(RACE.kind, "easy", 1.0) == 40
    assert tournament.budget(RACE.kind, "easy", 0.25) == 10


def test_every_game_climbs_its_levels() -> None:
    """Whatever budgets a game sets, each level searches more than the one below it."""
    for kind in engine.GAMES:
        budgets = [search.level_iterations(kind, level) for level in search.LEVELS]
        assert budgets == sorted(set(budgets)), (kind, budgets)


def test_a_single_legal_move_returns_at_once() -> None:
    game = OneShot()
    began = time.perf_counter()
    choice = search.choose(game, Pick(("wait",)), "a", iterations=10**9, seconds=None)
    assert time.perf_counter() - began < 0.5
    assert choice.action == "wait"
    assert choice.iterations == 0
    assert choice.reason


def test_the_time_cap_is_honoured() -> None:
    began = time.perf_counter()
    choice = search.choose(RACE, _race(), "a", iterations=10**9, seconds=0.05)
    spent = time.perf_counter() - began
    assert spent < 1.0
    assert 1 <= choice.iterations < 10**9
    assert choice.action in RACE.legal_actions(_race(), "a")


# -- strength ---------------------------------------------------------------------------------


def test_it_finds_the_winning_move_where_chance_would_not() -> None:
    game = OneShot()
    state = Pick(("lose", "draw", "win", "wait"))
    picks = {search.choose(game, state, "a", level="easy", seed=s).action for s in range(20)}
    assert picks == {"win"}
    # a uniform random player misses it three times in four
    rng = random.Random(0)
    assert {rng.choice(state.moves) for _ in range(20)} != {"win"}


def test_it_prefers_a_shared_result_to_a_loss() -> None:
    game = OneShot()
    state = Pick(("lose", "draw", "wait"))
    assert {search.choose(game, state, "a", level="easy", seed=s).action
            for s in range(10)} == {"draw"}


@pytest.mark.parametrize("stones", [4, 5, 7, 8])
def test_it_plays_nim_to_a_multiple_of_three(stones: int) -> None:
    game = Nim()
    right = f"take {stones % 3}"
    picks = [search.choose(game, Pile(stones), "a", level="medium", seed=s).action
             for s in range(8)]
    assert picks.count(right) >= 7, picks


def test_it_wins_nim_against_random_play() -> None:
    game = Nim()
    rng = random.Random(5)
    wins = 0
    for match in range(10):
        state = Pile(10)                     # 10 = 3*3 + 1: the first player can win
        while game.outcome(state) is None:
            actor = game.to_act(state)[0]
            if actor == "a":
                action = search.choose(game, state, "a", level="medium", seed=match).action
            else:
                action = rng.choice(game.legal_actions(state, actor))
            state, _ = game.apply(state, actor, action)
        outcome = game.outcome(state)
        assert outcome is not None
        wins += outcome.winners == ("a",)
    assert wins == 10


def test_the_second_of_two_deciding_at_once_searches_its_own_moves() -> None:
    # Both decide now and ``b`` is listed second: the root must hold b's moves (it used
    # to hold only a's, so b got no ranking and always its first legal move).
    game = Duel()
    assert game.to_act(Orders()) == ["a", "b"]
    for seed in range(5):
        choice = search.choose(game, Orders(), "b", level="easy", seed=seed)
        assert choice.action == "strike"
        assert {action for action, _, _ in choice.ranking} <= {"feint", "strike", "wait"}
        assert sum(visits for _, visits, _ in choice.ranking) == choice.iterations
    assert search.choose(game, Orders(), "a", level="easy", seed=0).action in ("hold",
                                                                               "advance")


def test_without_heuristics_a_small_budget_tries_only_a_few_moves() -> None:
    # Progressive widening (search.WIDEN) caps a node visited n times at 1 + sqrt(n)
    # children; with no engine/<kind>/ai.py to order them, easy (16 play-outs) tries at
    # most 5 of 8 moves, so it misses a winning move some of the time, and medium never.
    game = OneShot()
    state = Pick((*(f"m{i}" for i in range(7)), "win"))
    easy = [search.choose(game, state, "a", level="easy", seed=s) for s in range(12)]
    assert all(len(c.ranking) <= 1 + math.ceil(math.sqrt(15)) for c in easy)
    assert 0 < sum(c.action == "win" for c in easy) < 12
    assert all(search.choose(game, state, "a", level="medium", seed=s).action == "win"
               for s in range(12))


# -- hidden information -----------------------------------------------------------------------


def test_the_default_determinization_redraws_the_dice_only() -> None:
    state = _race()
    one = RACE.determinize(state, "a", random.Random(1))
    two = RACE.determinize(state, "a", random.Random(2))
    assert one.dice.state != state.dice.state
    assert one.dice.state != two.dice.state
    assert RACE.determinize(state, "a", random.Random(1)) == one      # same rng, same draw
    for f in dataclasses.fields(state):
        if f.name != "dice":
            assert getattr(one, f.name) == getattr(state, f.name), f.name
    assert state.dice == _race().dice                                  # the original is intact
    # the redrawn dice are what play uses: the same roll from both gives different luck
    rolls = {RACE.apply(s, "a", "roll")[0].scores[0]
             for s in (RACE.determinize(state, "a", random.Random(n)) for n in range(30))}
    assert len(rolls) > 1


def test_a_state_without_dice_is_its_own_determinization() -> None:
    state = Pile(5)
    assert Nim().determinize(state, "a", random.Random(3)) is state


def test_the_search_plays_only_on_determinizations() -> None:
    game = Guess()
    state = Pick(("left", "right"), secret="right")
    with pytest.raises(AssertionError):
        game.apply(state, "a", "left")          # the test game does refuse the true state
    choice = search.choose(game, state, "a", level="easy", seed=0)
    # it cannot see that "right" wins here, so it backs the likelier side
    assert choice.action == "left"
    assert choice.iterations == search.LEVELS["easy"].iterations


def test_play_outs_in_place_leave_the_searched_state_alone_and_choose_as_copies_do() -> None:
    """Battlecards' play-outs change their own states in place (``Game.play_on``): the
    position searched stays as it was, and both searches, paired and tree, rank every
    move as they do when each play-out step copies the state (``apply``)."""
    from engine.battlecards import GAME as BATTLECARDS
    from engine.battlecards.ai import choose_seasoned

    class Copying(type(BATTLECARDS)):  # type: ignore[misc]
        play_on = Game.play_on  # the default: apply, a copy each step

    copying = Copying()
    searched = 0
    state = BATTLECARDS.new_game(["g", "b"], 4)
    for step in range(160):
        if BATTLECARDS.outcome(state) is not None:
            break
        actor = BATTLECARDS.to_act(state)[0]
        if step % 20 == 7 and len(BATTLECARDS.legal_actions(state, actor)) > 2:
            before = BATTLECARDS.dump(state)
            paired = search.level_heuristics("battlecards", "hard")
            tree = dataclasses.replace(paired, paired_root=False)
            for h in (paired, tree):  # Battlecards searches paired; the tree, as a game may
                ours, theirs = (search.Searcher(game, state, actor, iterations=48,
                                                seconds=None, seed=step, heuristics=h).run()
                                for game in (BATTLECARDS, copying))
                assert BATTLECARDS.dump(state) == before
                assert (ours.action, ours.ranking) == (theirs.action, theirs.ranking)
                assert ours.paired == h.paired_root
                searched += 1
        state, _ = BATTLECARDS.apply(state, actor, choose_seasoned(BATTLECARDS, state, actor))
    assert searched >= 6


@pytest.mark.parametrize("seed", range(5))
def test_the_true_hidden_value_makes_no_difference(seed: int) -> None:
    game = Guess()
    left = search.choose(game, Pick(("left", "right"), secret="left"), "a", seed=seed)
    right = search.choose(game, Pick(("left", "right"), secret="right"), "a", seed=seed)
    assert (left.action, left.ranking) == (right.action, right.ranking)


def test_the_real_dice_to_come_make_no_difference() -> None:
    # Two races that differ only in the generator's future: the same search.
    one = _race(seed=1)
    two = dataclasses.replace(one, dice=Dice.from_seed(987654321))
    a = search.choose(RACE, one, "a", seed=6, iterations=40, seconds=None)
    b = search.choose(RACE, two, "a", seed=6, iterations=40, seconds=None)
    assert (a.action, a.ranking) == (b.action, b.ranking)


# -- the tournament ---------------------------------------------------------------------------


def test_the_pairings() -> None:
    rows = tournament.pairings()
    assert rows == [("heuristic", "random"), ("easy", "random"), ("easy", "heuristic"),
                    ("medium", "random"), ("medium", "heuristic"), ("medium", "easy"),
                    ("hard", "random"), ("hard", "heuristic"), ("hard", "medium")]
    assert tournament.ladder() == [("heuristic", "random"), ("easy", "heuristic"),
                                   ("medium", "easy"), ("hard", "medium")]
    assert tournament._pairing_filter("ladder") == tournament.ladder()
    assert tournament._pairing_filter("hard-easy,ladder") == [*tournament.ladder(),
                                                              ("hard", "easy")]


def _result(player: str, opponent: str, score: float, n: int,
            deal: int | None = None) -> tournament.MatchResult:
    """Game ``n`` of a row, on its own deal unless ``deal`` is given."""
    match = tournament.Match("race", player, opponent, n if deal is None else deal,
                             n % 2 == 0)
    return tournament.MatchResult(match, score, score == 0.5, 10, (), 0.0)


def test_ratings_order_the_ladder_by_the_bots_model() -> None:
    """Each player's rating per game, by the model that rates players on a server: a
    ladder where each level beats the one below most of the time rates them in order,
    the same games give the same ratings, and a drawn or capped game moves nobody far."""
    rows = []
    below = "random"
    for player in ("heuristic", "easy", "medium", "hard"):
        row = tournament.Row("race", player, below)
        row.results = [_result(player, below, 0.0 if n % 5 == 4 else 1.0, n)
                       for n in range(20)]
        rows.append(row)
        below = player
    rated = tournament.ratings(rows)["race"]
    mus = [rated[p][0][0] for p in tournament.PLAYERS]
    assert mus == sorted(mus) and mus[0] < mus[-1] - 5
    assert [rated[p][1] for p in tournament.PLAYERS] == [20, 40, 40, 40, 20]
    assert tournament.ratings(rows) == tournament.ratings(rows)
    even = tournament.Row("race", "easy", "random", [_result("easy", "random", 0.5, n)
                                                     for n in range(10)])
    (mu_a, _), _ = tournament.ratings([even])["race"]["easy"]
    (mu_b, _), _ = tournament.ratings([even])["race"]["random"]
    assert abs(mu_a - mu_b) < 0.5
    table = tournament.text_table(rows)
    assert "ratings" in table and "μ − 3σ" in table


def test_the_schedule_alternates_seats_on_each_deal() -> None:
    matches = tournament.schedule(["race"], [("easy", "random")], 4, seed=9)
    assert [m.first for m in matches] == [True, False, True, False]
    assert matches[0].seed == matches[1].seed != matches[2].seed == matches[3].seed
    assert tournament.schedule(["race"], [("easy", "random")], 4, seed=9) == matches
    assert tournament.schedule(["race"], [("easy", "random")], 4, seed=10) != matches


@pytest.mark.parametrize("kind", list(engine.GAMES))
def test_a_quick_tournament_gives_sane_numbers(kind: str) -> None:
    rows = tournament.tournament([kind], [("easy", "heuristic")], games=2, seed=1,
                                 scale=1 / 16, step_cap=40)
    assert len(rows) == 1
    row = rows[0]
    assert (row.kind, row.player, row.opponent, row.games) == (kind, "easy", "heuristic", 2)
    assert row.score + row.opponent_score == pytest.approx(2)
    assert 0 <= row.rate <= 1
    low, high = row.interval
    assert 0 <= low <= row.rate <= high <= 1
    assert 0 <= row.capped <= 2
    assert 0 <= row.decision_mean <= row.decision_max
    assert all(r.steps <= 40 for r in row.results)
    again = tournament.play_match(row.results[0].match)
    assert (again.score, again.steps, again.capped) == (
        row.results[0].score, row.results[0].steps, row.results[0].capped)


def test_a_tournament_never_cuts_a_search_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """A level's time cap is for the bot; the tournament runs every whole budget, so a
    busy machine cannot change its scores (``seconds=None`` would mean the level's cap)."""
    monkeypatch.setitem(engine.GAMES, "race", RACE)
    monkeypatch.setitem(search.LEVELS, "easy", dataclasses.replace(search.LEVELS["easy"],
                                                                  seconds=1e-9))
    asked: list[tuple[int | None, float | None]] = []
    real = search.choose

    def spy(*args: Any, **kwargs: Any) -> search.Choice:
        asked.append((kwargs.get("iterations"), kwargs.get("seconds")))
        return real(*args, **kwargs)

    monkeypatch.setattr(search, "choose", spy)
    match = tournament.Match("race", "easy", "random", 5, True)
    result = tournament.play_match(match)
    assert asked and all(it == search.LEVELS["easy"].iterations and sec == math.inf
                         for it, sec in asked)
    monkeypatch.setattr(search, "choose", real)
    again = tournament.play_match(match)
    assert (again.score, again.steps) == (result.score, result.steps)


def test_a_tournament_scores_wins_and_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", RACE)
    rows = tournament.tournament(["race"], [("medium", "random")], games=4, seed=2)
    row = rows[0]
    assert row.games == 4 and row.capped == 0
    assert row.score + row.opponent_score == pytest.approx(4)
    assert row.decision_max > 0
    capped = tournament.tournament(["race"], [("easy", "random")], games=2, seed=2,
                                   step_cap=2)[0]
    assert capped.capped == 2 and capped.score == 1.0


def test_the_command_line_writes_a_table(tmp_path: Any,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.md"
    handler = signal.getsignal(signal.SIGTERM)
    assert tournament.main(["--quick", "--kinds", "battlecards", "--pairings",
                            "easy-random", "--step-cap", "30", "--markdown", str(out)]) == 0
    table = out.read_text()
    assert "| battlecards | easy | random | 2 |" in table
    assert "easy" in capsys.readouterr().out
    assert signal.getsignal(signal.SIGTERM) == handler      # put back as it was


def test_a_record_lets_a_stopped_run_go_on_where_it_was(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", RACE)
    args: dict[str, Any] = dict(kinds=["race"], rows=[("easy", "random")], games=6, seed=3)
    whole = tournament.tournament(**args)[0]
    record = tmp_path / "games.jsonl"
    tournament.tournament(**args, record=record)
    lines = record.read_text().splitlines()
    assert len(lines) == 6
    # a run stopped after two games, killed while writing the third
    record.write_text("\n".join(lines[:2]) + "\n" + lines[2][:25])
    played: list[tournament.Match] = []
    real = tournament.play_match

    def counted(match: tournament.Match) -> tournament.MatchResult:
        played.append(match)
        return real(match)

    monkeypatch.setattr(tournament, "play_match", counted)
    resumed = tournament.tournament(**args, record=record)[0]
    assert len(played) == 4 and set(played) == {r.match for r in whole.results[2:]}
    assert [(r.match, r.score, r.steps) for r in resumed.results] == [
        (r.match, r.score, r.steps) for r in whole.results]
    assert len(tournament.read_record(record)) == 6     # the cut line is left out
    again = tournament.tournament(**args, record=record)[0]
    assert len(played) == 4 and again.score == whole.score
    # another seed's games are not this run's: all played
    other = tournament.tournament(**{**args, "seed": 4}, record=record)[0]
    assert len(played) == 10 and other.games == 6


def test_a_record_line_that_is_not_utf8_spoils_only_itself(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", RACE)
    record = tmp_path / "games.jsonl"
    tournament.tournament(kinds=["race"], rows=[("easy", "random")], games=3, seed=3,
                          record=record)
    whole = tournament.read_record(record)
    lines = record.read_bytes().splitlines()
    spoiled = json.loads(lines[1])
    record.write_bytes(b"\n".join([lines[0], b"\xff\xfe" + lines[1], lines[2]]) + b"\n")
    kept = tournament.read_record(record)
    assert len(whole) == 3 and len(kept) == 2
    assert all(kept[m] == whole[m] for m in kept)
    assert all(m.seed != spoiled["seed"] or m.first != spoiled["first"] for m in kept)


def test_the_command_line_goes_on_from_its_record(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "games.jsonl"
    argv = ["--quick", "--kinds", "battlecards", "--pairings", "easy-random",
            "--step-cap", "30", "--record", str(record)]
    assert tournament.main(argv) == 0
    first = capsys.readouterr()
    assert tournament.main(argv) == 0
    second = capsys.readouterr()
    assert "2 of the 2 games taken from" in second.err
    assert "[1/2]" in first.err and "[1/2]" not in second.err
    table = [line for line in first.out.splitlines() if "battlecards" in line][:1]
    assert table and table[0] in second.out


def test_processes_play_the_same_games() -> None:
    args: dict[str, Any] = dict(kinds=["battlecards"], rows=[("easy", "random")], games=2,
                                seed=4, scale=1 / 16, step_cap=30)
    alone = tournament.tournament(**args)[0]
    spread = tournament.tournament(**args, jobs=2)[0]
    assert [(r.match, r.score, r.steps) for r in spread.results] == [
        (r.match, r.score, r.steps) for r in alone.results]


# -- what /game hint says about a choice ---------------------------------------------------


def test_the_recommended_move_leads_and_the_order_agrees_with_the_figure_shown() -> None:
    # the search picks by play-outs: a move tried 12 times can average better by luck
    choice = search.Choice("attack", [("attack", 300, 0.54), ("wait", 88, 0.50),
                                      ("feint", 12, 0.58)], iterations=400, seconds=1.5)
    text = choice.explain()
    lines = text.splitlines()
    assert lines[0].startswith("**Recommended** `attack`")
    assert "Best" not in text
    shares = [int(m) for m in re.findall(r"tried in (\d+)% of the play-outs", text)]
    assert shares == sorted(shares, reverse=True) == [75, 22, 3]     # the order's figure
    assert "won about 58% of them (too few play-outs to go by)" in lines[2]
    assert "too few" not in lines[0] + lines[1]
    assert "Ranked by how often the search tried each move" in lines[-1]
    assert "400 play-outs in 1.5 s" in lines[-1]


def test_a_real_search_explains_its_own_choice_first() -> None:
    choice = search.choose(RACE, _race(), "a", seed=3, iterations=60, seconds=None)
    assert choice.explain().startswith(f"**Recommended** `{choice.action}`")
    only = search.Choice("end", [("end", 0, 0.0)], reason="It is the only move.")
    assert only.explain() == "It is the only move."


@pytest.mark.parametrize("given", ["hard-x=2", "hard-easy=4", "hard-medium=", "hard-medium=٣",
                                   "hard-medium=-1", "hard-medium=0", "hard-medium=9" * 40])
def test_games_per_row_refuses_what_it_cannot_play(given: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        tournament.main(["--quick", "--pairings", "ladder", "--games-per-row", given])
    assert exited.value.code == 2
    assert "--games-per-row" in capsys.readouterr().err


def test_games_per_row_gives_a_row_its_own_number_of_games() -> None:
    matches = tournament.schedule(["race"], tournament.ladder(), 4, seed=1,
                                  per_row={("hard", "medium"): 2, ("easy", "heuristic"): 6})
    counts = {(p, o): sum(1 for m in matches if (m.player, m.opponent) == (p, o))
              for p, o in tournament.ladder()}
    assert counts == {("heuristic", "random"): 4, ("easy", "heuristic"): 6,
                      ("medium", "easy"): 4, ("hard", "medium"): 2}


# -- paired search (a game's ``PAIRED_ROOT``) -------------------------------------------------


class Gamble(_Tiny):
    """One decision for ``a``: each move wins when a hidden roll in [0, 1) falls below its
    odds (``ODDS``); the roll is drawn only by ``determinize``."""

    kind = "gamble"
    name = "Gamble"
    #: ``bold`` wins 5 points more often than ``safe``, the heuristic's move; ``same``
    #: wins exactly when ``safe`` does.
    ODDS: ClassVar[dict[str, float]] = {"safe": 0.50, "same": 0.50, "bold": 0.55,
                                        "rash": 0.10}

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> Pick:
        return Pick(tuple(self.ODDS))

    def apply(self, state: Pick, player: str, action: str) -> tuple[Pick, list[Event]]:
        self.check_legal(state, player, action)
        if state.roll is None:
            raise AssertionError("the search played on the true position")
        return dataclasses.replace(state, chosen=action), []

    def outcome(self, state: Pick) -> Outcome | None:
        if state.chosen is None:
            return None
        assert state.roll is not None
        if state.roll < self.ODDS[state.chosen]:
            return Outcome(("a",), ("a", "b"), "won")
        return Outcome(("b",), ("b", "a"), "lost")

    def determinize(self, state: Pick, player: str, rng: random.Random) -> Pick:
        return dataclasses.replace(state, roll=rng.random())


def _paired(monkeypatch: pytest.MonkeyPatch, moves: tuple[str, ...] = tuple(Gamble.ODDS),
            paired: bool = True) -> tuple[Gamble, Pick]:
    game = Gamble()
    monkeypatch.setattr(Gamble, "ODDS", {m: Gamble.ODDS[m] for m in moves})
    own = search.Heuristics(policy=lambda g, s, p: "safe", paired_root=paired)
    monkeypatch.setattr(search, "heuristics",
                        lambda kind: own if kind == game.kind else search.Heuristics())
    return game, game.new_game(["a", "b"], 0)


def test_a_paired_search_finds_a_move_better_than_the_heuristic_s_by_a_little(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On 128 common rolls each, ``bold``'s five points over ``safe`` show in 39 searches
    of 40; the tree search, on the same budget, finds it in 27."""
    game, state = _paired(monkeypatch)
    paired = [search.choose(game, state, "a", iterations=512, seed=s).action
              for s in range(40)]
    assert paired.count("bold") >= 36 and "rash" not in paired
    game, state = _paired(monkeypatch, paired=False)
    tree = [search.choose(game, state, "a", iterations=512, seed=s).action
            for s in range(40)]
    assert tree.count("bold") <= paired.count("bold") - 8


def test_a_paired_search_keeps_the_heuristic_s_move_among_equals(
        monkeypatch: pytest.MonkeyPatch) -> None:
    game, state = _paired(monkeypatch, moves=("rash", "same", "safe"))
    for seed in range(10):
        choice = search.choose(game, state, "a", iterations=300, seed=seed)
        assert choice.action == "safe", choice.ranking


def test_a_paired_search_plays_every_move_on_the_same_deals(
        monkeypatch: pytest.MonkeyPatch) -> None:
    game, state = _paired(monkeypatch)
    choice = search.choose(game, state, "a", iterations=400, seed=3)
    assert choice.paired and choice.iterations == 400
    assert [visits for _, visits, _ in choice.ranking] == [100] * 4
    assert choice.ranking[0][0] == choice.action
    value = {action: won for action, _, won in choice.ranking}
    # the same 100 rolls: "same" won exactly as often as "safe", "bold" at least as often
    assert value["same"] == value["safe"] <= value["bold"]
    again = search.choose(game, state, "a", iterations=400, seed=3)
    assert again.ranking == choice.ranking
    assert "same 100 deals" in choice.explain()


def test_a_paired_search_honours_the_time_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    game, state = _paired(monkeypatch)
    began = time.perf_counter()
    choice = search.choose(game, state, "a", iterations=10**9, seconds=0.05)
    assert time.perf_counter() - began < 1.0
    assert choice.action in Gamble.ODDS and choice.iterations >= 2 * len(Gamble.ODDS)


def _dealt(won: int, split: int, lost: int) -> tournament.Row:
    """A row of deals each played from both seats: won from both, split, lost from both."""
    pairs = [(1.0, 1.0)] * won + [(1.0, 0.0)] * split + [(0.0, 0.0)] * lost
    row = tournament.Row("race", "easy", "random")
    row.results = [_result("easy", "random", score, 2 * deal + seat, deal=deal)
                   for deal, pair in enumerate(pairs) for seat, score in enumerate(pair)]
    return row


def test_a_row_is_clear_by_its_deals_not_by_games_counted_as_independent() -> None:
    """The two games of a deal share its cards and dice: when the seat decides most
    deals (splits), the interval over deals is narrower than Wilson's over games, and
    when one player wins deals from both seats, wider. A row is clear by the deals."""
    seat_decides = _dealt(16, 80, 4)  # 112 of 200: 0.56
    assert seat_decides.rate == pytest.approx(0.56)
    assert seat_decides.game_interval[0] < 0.5 < seat_decides.interval[0]
    assert seat_decides.clear
    assert "0.52-0.60    0.49-0.63" in tournament.text_table([seat_decides])
    players_decide = _dealt(56, 0, 44)  # the same 112 of 200
    assert players_decide.rate == pytest.approx(0.56)
    assert players_decide.interval[0] < players_decide.game_interval[0]
    assert not players_decide.clear
    assert seat_decides.deal_scores.count(0.5) == 80


def test_a_stopped_runs_unfinished_deal_counts_by_its_one_game() -> None:
    row = _dealt(3, 2, 1)
    row.results.append(_result("easy", "random", 1.0, 12, deal=6))
    assert row.deal_scores == [1.0, 1.0, 1.0, 0.5, 0.5, 0.0, 1.0]
    assert row.deals == (3, 2, 1)  # the won/split/lost counts wait for its second game


def test_the_deals_count_who_won_each_deal_from_both_seats() -> None:
    """A deal played from both seats is won (more than 1 point of 2), split (1 of 2,
    a draw pair too) or lost; a deal with one game played does not count yet."""
    scores = [1.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.0, 0.5, 0.0, 0.0, 1.0]
    row = tournament.Row("race", "easy", "random")
    row.results = [_result("easy", "random", s, n, deal=n // 2)
                   for n, s in enumerate(scores)]
    assert row.deals == (1, 2, 2)
    assert "1/2/2" in tournament.text_table([row])
    assert "| 1/2/2 |" in tournament.markdown_table([row])
