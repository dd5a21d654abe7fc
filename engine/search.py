"""Computer players for every game: Monte Carlo tree search over the engine contract.

The search needs nothing of a game but :class:`engine.core.Game` (``to_act``,
``legal_actions``, ``apply``, ``outcome``, ``determinize``), so a new game gets a
computer player for free. A game may add heuristics in ``engine/<kind>/ai.py``
(see :class:`Heuristics`): a ``choose_action`` used to order the moves the tree tries
first and to play out the rest of a game, and an ``evaluate`` that scores a position
so a play-out can stop early. Both make a game's player clearly stronger; the
tournament (``python -m engine.tournament``, figures in docs/ai.md) measures it.

**Hidden information.** Every iteration starts from a fresh *determinization* of the
root: :meth:`engine.core.Game.determinize` redeals whatever the searching player
cannot see (the dice to come, the other hand, the deck order) from that player's
information alone. The tree is shared by all of them (single-observer information-set
MCTS, Cowling, Powley and Whitehouse 2012): a node is reached by a sequence of
actions, a child's prior is counted only in the iterations where its action was
legal (*availability*), so the search never learns what only the true state knows.

**Levels** are iteration budgets (:data:`LEVELS`), so a level plays the same move on
any machine; each also has a time limit in case a machine is slow. The same
``seed`` gives the same choice, bit for bit.

**Paired play-outs.** A game where luck swamps the gap between moves may ask
(``PAIRED_ROOT``) for every root move to be played out on the same deals instead
(:meth:`Searcher.run_paired`), so the luck cancels out of their difference.

Simultaneous decisions (several players in ``to_act``) are searched as if taken one
after the other in ``to_act`` order; the later ones see the earlier inside the search
only, which can make a computer a little optimistic there, never a cheat.
"""

from __future__ import annotations

import importlib
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from engine.core import Game, IllegalAction

#: A policy: (game, state, player) -> one of ``legal_actions``.
Policy = Callable[[Game[Any], Any, str], str]
#: The same policy given ``legal_actions`` already listed: (game, state, player, legal).
PolicyAmong = Callable[[Game[Any], Any, str, list[str]], str]
#: An evaluation: (game, state) -> each player's share of a win, in [0, 1].
Evaluation = Callable[[Game[Any], Any], dict[str, float]]
#: A pruning: (game, state, player, legal) -> the moves worth searching (never empty).
Candidates = Callable[[Game[Any], Any, str, list[str]], list[str]]


@dataclass(frozen=True)
class Level:
    """A strength: how much searching a computer player does per decision."""

    name: str
    iterations: int
    #: A hard ceiling, in seconds, for a slow or busy machine (the budget is the
    #: iterations; on a normal machine the search stops well before this).
    seconds: float
    description: str


#: The strengths offered to players, weakest first.
LEVELS: dict[str, Level] = {level.name: level for level in (
    Level("easy", 16, 2.0, "looks a little ahead; good for learning the game"),
    Level("medium", 128, 4.0, "weighs its options with over a hundred play-outs"),
    Level("hard", 1024, 8.0, "searches a thousand play-outs for every decision"),
)}
DEFAULT_LEVEL = "medium"

#: UCB's exploration constant (rewards are win shares in [0, 1]).
EXPLORATION = 0.7
#: Progressive widening: a node visited n times may have ``1 + WIDEN * sqrt(n)`` children,
#: so a small budget spends itself on the moves the heuristic likes best.
WIDEN = 1.0
#: Steps a play-out takes before the position is scored (when the game can score one).
PLAYOUT_STEPS = 24
#: Steps a play-out takes at most when the game cannot score a position.
FULL_PLAYOUT_STEPS = 600
#: Chance that a play-out step is random rather than the heuristic's choice.
PLAYOUT_NOISE = 0.15
#: Progressive bias: the heuristic's own move at a node starts with this much extra score,
#: fading as 1/visits. With a small budget a couple of noisy play-outs then cannot talk the
#: search out of a sound move; with a large one only evidence can.
HEURISTIC_BIAS = 1.0
#: How many standard errors of the round-by-round difference a move must lead the
#: heuristic's by before a paired search (:meth:`Searcher.run_paired`) plays it instead.
PAIRED_MARGIN = 1.5
#: Every this many iterations the search asks whether its choice is already settled
#: (:func:`_decided`) and stops if so.
DECIDED_CHECK = 8


@dataclass(frozen=True)
class Heuristics:
    """What a game's ``engine/<kind>/ai.py`` adds to the search (all optional)."""

    policy: Policy | None = None
    #: The policy again, for a caller that has listed the legal moves already (so the
    #: game need not list them twice); must choose exactly what ``policy`` does.
    policy_among: PolicyAmong | None = None
    evaluate: Evaluation | None = None
    #: Moves not worth searching left out (a display setting, an obvious blunder).
    candidates: Candidates | None = None
    playout_steps: int = PLAYOUT_STEPS
    #: Play-outs per decision for some levels where this game needs other budgets than
    #: :data:`LEVELS` (``LEVEL_ITERATIONS`` in its ``ai.py``): a game where dice decide
    #: most fights needs more play-outs before the search finds better moves than the
    #: heuristic it plays out with.
    level_iterations: Mapping[str, int] = field(default_factory=dict)
    #: Compare the root moves on the same deals (``PAIRED_ROOT`` in its ``ai.py``; see
    #: :meth:`Searcher.run_paired`): for a game where luck swamps the gap between moves.
    paired_root: bool = False
    #: A stronger policy for some levels, by level name (``LEVEL_POLICIES`` in its
    #: ``ai.py``; a :data:`Policy`, which lists the legal moves only if it needs them):
    #: such a level starts from it and plays out with it. A paired search can only find
    #: the moves that are better *if both sides play the play-out policy afterwards*, so
    #: more play-outs over the same policy reach the same ceiling; a level above another
    #: needs a better policy to search over.
    level_policies: Mapping[str, Policy] = field(default_factory=dict)


@cache
def heuristics(kind: str) -> Heuristics:
    """The heuristics a game ships in ``engine/<kind>/ai.py``, if any."""
    try:
        module = importlib.import_module(f"engine.{kind}.ai")
    except ModuleNotFoundError:
        return Heuristics()
    return Heuristics(policy=getattr(module, "choose_action", None),
                      policy_among=getattr(module, "choose_among", None),
                      evaluate=getattr(module, "evaluate", None),
                      candidates=getattr(module, "candidates", None),
                      playout_steps=int(getattr(module, "PLAYOUT_STEPS", PLAYOUT_STEPS)),
                      level_iterations=dict(getattr(module, "LEVEL_ITERATIONS", {})),
                      paired_root=bool(getattr(module, "PAIRED_ROOT", False)),
                      level_policies=dict(getattr(module, "LEVEL_POLICIES", {})))


def level_heuristics(kind: str, level: str) -> Heuristics:
    """The heuristics ``level`` searches with in game ``kind``: the game's own, with the
    level's stronger policy in place of the heuristic where the game ships one."""
    h = heuristics(kind)
    policy = h.level_policies.get(level)
    if policy is None:
        return h
    # a play-out step calls the policy alone: listing the legal moves for it at every
    # step took a fifth of Napoleon's hard search (docs/ai.md, *Twelfth session*)
    return replace(h, policy=policy, policy_among=None)


def level_iterations(kind: str, level: str) -> int:
    """The play-outs ``level`` runs per decision in game ``kind``: the level's own budget
    unless the game sets another (``LEVEL_ITERATIONS`` in ``engine/<kind>/ai.py``)."""
    return int(heuristics(kind).level_iterations.get(level, LEVELS[level].iterations))


@dataclass
class Choice:
    """A computer player's decision and why it made it."""

    action: str
    #: Root statistics, best first: (action, visits, mean win share).
    ranking: list[tuple[str, int, float]] = field(default_factory=list)
    iterations: int = 0
    seconds: float = 0.0
    reason: str = ""
    #: Every move was played out on the same deals (:meth:`Searcher.run_paired`).
    paired: bool = False

    def explain(self, limit: int = 3) -> str:
        """A few lines a player can read: the pick, then the runners-up, in the order the
        search ranks them, each with the figure that order is by.

        The search picks the move it tried most (the most robust choice: it tries the
        promising moves more and more), not the one with the best average; a move tried
        in few play-outs can show a higher win rate by luck. So the lines lead with each
        move's share of the play-outs (which falls down the list) and give the win rate
        second, saying when it rests on too few play-outs to go by.
        """
        if self.reason:
            return self.reason
        if self.paired:
            return self._explain_paired(limit)
        total = sum(visits for _, visits, _ in self.ranking) or 1
        shown = self.ranking[:limit]
        lines = []
        for i, (action, visits, value) in enumerate(shown):
            lead = f"**Recommended** `{action}`" if i == 0 else f"{i + 1}. `{action}`"
            line = (f"{lead}: tried in {visits / total:.0%} of the play-outs ({visits}), "
                    f"won about {value:.0%} of them")
            if i and shown and value > shown[0][2]:
                line += " (too few play-outs to go by)"
            lines.append(line)
        lines.append(f"-# Ranked by how often the search tried each move: it tries the "
                     f"promising ones most, so that share is the surer guide. "
                     f"{self.iterations} play-outs in {self.seconds:.1f} s.")
        return "\n".join(lines)

    def _explain_paired(self, limit: int) -> str:
        rounds = self.ranking[0][1] if self.ranking else 0
        lines = []
        for i, (action, _, value) in enumerate(self.ranking[:limit]):
            lead = f"**Recommended** `{action}`" if i == 0 else f"{i + 1}. `{action}`"
            lines.append(f"{lead}: won about {value:.0%} of its play-outs")
        lines.append(f"-# Every move was played out on the same {rounds} deals; the usual "
                     f"move stays the pick unless another wins clearly more often on them. "
                     f"{self.iterations} play-outs in {self.seconds:.1f} s.")
        return "\n".join(lines)


class _Node:
    __slots__ = ("actor", "available", "bias", "children", "value", "visits")

    def __init__(self, actor: str | None, bias: float = 0.0) -> None:
        self.actor = actor          # who chose the action leading here
        self.bias = bias            # HEURISTIC_BIAS if the heuristic chose that action
        self.children: dict[tuple[str, str], _Node] = {}
        self.visits = 0
        self.value = 0.0            # sum of ``actor``'s rewards
        self.available = 1          # iterations in which this action could be chosen


def _decided(root: _Node, left: int) -> bool:
    """Whether the move played is settled: the most visited root move leads the next by
    more than the iterations left, so no way of spending them could change the choice
    (the search picks the most visited). Stopping then saves time and changes nothing."""
    first = second = 0
    for node in root.children.values():
        if node.visits > first:
            first, second = node.visits, first
        elif node.visits > second:
            second = node.visits
    return first > second + left


def _rewards(game: Game[Any], state: Any, evaluate: Evaluation | None) -> dict[str, float]:
    outcome = game.outcome(state)
    if outcome is not None:
        winners = outcome.winners
        return {p: 1.0 / len(winners) for p in winners}
    if evaluate is not None:
        return evaluate(game, state)
    alive = game.to_act(state) or game.players(state)
    return {p: 1.0 / len(game.players(state)) for p in alive}


class Searcher:
    """One search from one position for one player."""

    def __init__(self, game: Game[Any], state: Any, player: str, *,
                 iterations: int, seconds: float | None, seed: int,
                 heuristics: Heuristics) -> None:
        self.game = game
        self.state = state
        self.player = player
        self.iterations = iterations
        self.seconds = seconds
        self.rng = random.Random(seed)
        self.h = heuristics

    def legal(self, state: Any, actor: str) -> list[str]:
        """The moves the search considers: the legal ones, pruned by the game's hook."""
        legal = self.game.legal_actions(state, actor)
        if self.h.candidates is not None and len(legal) > 1:
            pruned = self.h.candidates(self.game, state, actor, legal)
            if pruned:
                return pruned
        return legal

    def _favourite(self, state: Any, actor: str) -> str | None:
        """The heuristic's move, if the game has one (None if it slips)."""
        if self.h.policy is None:
            return None
        try:
            return str(self.h.policy(self.game, state, actor))
        except Exception:            # a heuristic's slip must not stop the search
            return None

    def _playout_step(self, state: Any, actor: str, rng: random.Random, owned: bool) -> Any:
        """One play-out step: the heuristic's move (the legal moves are not even listed,
        which is most of a step's cost), or now and then a random one. An ``owned``
        state (one this play-out made) may be changed in place (``Game.play_on``)."""
        play = self.game.play_on if owned else self._apply
        if self.h.policy is not None and rng.random() >= PLAYOUT_NOISE:
            action = self._favourite(state, actor)
            if action is not None:
                try:
                    return play(state, actor, action)
                except IllegalAction:
                    pass
        legal = self.legal(state, actor)
        if not legal:
            return None
        return play(state, actor, rng.choice(legal))

    def _apply(self, state: Any, actor: str, action: str) -> Any:
        return self.game.apply(state, actor, action)[0]

    def _playout(self, state: Any, rng: random.Random) -> dict[str, float]:
        """Play on with the heuristic (with a little noise), cut short where the game
        scores a position; each player's reward."""
        game = self.game
        limit = self.h.playout_steps if self.h.evaluate is not None else FULL_PLAYOUT_STEPS
        owned = False           # the first step copies; later ones change that copy
        for _ in range(limit):
            if game.outcome(state) is not None:
                break
            actors = game.to_act(state)
            if not actors:
                break
            after = self._playout_step(state, actors[0], rng, owned)
            if after is None:
                break           # nobody can move: scored as it stands
            state, owned = after, True
        return _rewards(game, state, self.h.evaluate)

    def _expand_order(self, state: Any, actor: str, untried: list[str]) -> tuple[str, bool]:
        """The next move to add to a node, the heuristic's own choice first; and whether
        it is the heuristic's choice."""
        action = self._favourite(state, actor)
        if action is not None and action in untried:
            return action, True
        return self.rng.choice(untried), False

    def run(self) -> Choice:
        game, rng = self.game, self.rng
        legal = self.legal(self.state, self.player)
        if len(legal) <= 1:
            return Choice(legal[0] if legal else "", [(a, 0, 0.0) for a in legal],
                          reason="It is the only move." if legal else "Nothing to do.")
        if self.h.paired_root:
            return self.run_paired(legal)
        started = time.perf_counter()
        stop = None if self.seconds is None else started + self.seconds
        root = _Node(None)
        done = 0
        while done < self.iterations:
            if stop is not None and done and time.perf_counter() > stop:
                break
            self._iterate(root, game.determinize(self.state, self.player, rng))
            done += 1
            if done % DECIDED_CHECK == 0 and _decided(root, self.iterations - done):
                break
        ranking = sorted(
            ((key[1], node.visits, node.value / node.visits if node.visits else 0.0)
             for key, node in root.children.items() if key[0] == self.player),
            key=lambda item: (-item[1], -item[2]))
        best = ranking[0][0] if ranking else legal[0]
        return Choice(best, ranking, done, time.perf_counter() - started)

    def run_paired(self, legal: list[str]) -> Choice:
        """Flat Monte Carlo on common deals: each round draws one determinization and one
        play-out seed, and plays every root move out on them. Where the cards dealt decide
        most of a result, two moves tried on different deals differ mostly by luck, and a
        tree search (:meth:`run`) needs thousands of play-outs to tell a better move from
        the heuristic's; tried on the same deals, the luck cancels out of the difference.

        The heuristic's move is played unless another move's mean lead over it, round by
        round, exceeds :data:`PAIRED_MARGIN` standard errors: a larger budget shrinks the
        errors, so each level departs from the heuristic more often, and only where the
        play-outs show it better."""
        game, rng = self.game, self.rng
        started = time.perf_counter()
        stop = None if self.seconds is None else started + self.seconds
        rounds = max(2, self.iterations // len(legal))
        results: dict[str, list[float]] = {a: [] for a in legal}
        favourite: str | None = None
        done = 0
        while done < rounds:
            if stop is not None and done >= 2 and time.perf_counter() > stop:
                break
            deal = game.determinize(self.state, self.player, rng)
            if favourite is None:
                favourite = self._favourite(deal, self.player)
            seed = rng.getrandbits(64)
            for action in legal:
                after, _ = game.apply(deal, self.player, action)
                reward = self._playout(after, random.Random(seed))
                results[action].append(reward.get(self.player, 0.0))
            done += 1
        base = favourite if favourite in results else max(
            legal, key=lambda a: sum(results[a]))
        best, best_low = base, 0.0
        for action in legal:
            if action == base:
                continue
            gaps = [x - y for x, y in zip(results[action], results[base], strict=True)]
            mean = sum(gaps) / done
            spread = math.sqrt(sum((g - mean) ** 2 for g in gaps) / (done - 1) / done)
            low = mean - PAIRED_MARGIN * spread
            if low > best_low:
                best, best_low = action, low
        means = {a: sum(v) / done for a, v in results.items()}
        others = sorted(((a, done, means[a]) for a in legal if a != best),
                        key=lambda item: -item[2])
        ranking = [(best, done, means[best]), *others]
        return Choice(best, ranking, done * len(legal), time.perf_counter() - started,
                      paired=True)

    def _iterate(self, root: _Node, state: Any) -> None:
        game = self.game
        node, path = root, [root]
        steps = 0
        # Selection and expansion: down the tree while every move tried so far is known.
        while game.outcome(state) is None:
            actors = game.to_act(state)
            if not actors:
                break
            # At the root the searching player decides first, even when it is not the
            # first of several deciding at once (else the root holds only others' moves).
            actor = self.player if node is root and self.player in actors else actors[0]
            legal = self.legal(state, actor)
            if not legal:
                break
            children = node.children
            known = []
            untried = []
            for action in legal:
                child = children.get((actor, action))
                if child is None:
                    untried.append(action)
                else:
                    child.available += 1
                    known.append((action, child))
            widen = len(known) < 1 + WIDEN * math.sqrt(node.visits)
            if untried and (widen or not known):
                action, favoured = self._expand_order(state, actor, untried)
                child = _Node(actor, HEURISTIC_BIAS if favoured else 0.0)
                children[(actor, action)] = child
                state, _ = game.apply(state, actor, action)
                path.append(child)
                break
            log_of = math.log
            best, best_score = known[0], -1.0
            for action, child in known:
                score = ((child.value + child.bias) / child.visits
                         + EXPLORATION * math.sqrt(log_of(child.available) / child.visits))
                if score > best_score:
                    best, best_score = (action, child), score
            action, node = best
            state, _ = game.apply(state, actor, action)
            path.append(node)
            steps += 1
        rewards = self._playout(state, self.rng)
        root.visits += 1
        for visited in path[1:]:
            visited.visits += 1
            visited.value += rewards.get(visited.actor or "", 0.0)


def choose(game: Game[Any], state: Any, player: str, *, level: str | Level = DEFAULT_LEVEL,
           seed: int = 0, iterations: int | None = None,
           seconds: float | None = None) -> Choice:
    """The move a computer player of ``level`` makes for ``player`` now.

    ``iterations`` and ``seconds`` override the level's budget (a level named by its
    name runs the game's own budget for it, :func:`level_iterations`). Reads ``state``
    only through :meth:`Game.determinize`, so hidden cards it may not see play no part.
    """
    spec = level if isinstance(level, Level) else LEVELS[level]
    if iterations is None:
        iterations = (spec.iterations if isinstance(level, Level)
                      else level_iterations(game.kind, level))
    searcher = Searcher(game, state, player, iterations=iterations,
                        seconds=spec.seconds if seconds is None else seconds,
                        seed=seed, heuristics=level_heuristics(game.kind, spec.name))
    return searcher.run()


def heuristic_action(game: Game[Any], state: Any, player: str) -> str:
    """The game's own heuristic move (the first legal move if it has none)."""
    legal = game.legal_actions(state, player)
    h = heuristics(game.kind)
    if h.policy is not None:
        try:
            action = (h.policy(game, state, player) if h.policy_among is None
                      else h.policy_among(game, state, player, legal))
        except Exception:
            action = None
        if action in legal:
            return str(action)
    return legal[0]
