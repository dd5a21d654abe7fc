"""An engine accepts exactly what it lists: for every game (and the toy one), at positions
of every decision seeded play reaches, ``apply`` succeeds for a text if and only if the
text, normalised, is one of :meth:`~engine.core.Game.legal_actions` or is an alias of one
(it does exactly what a listed action does: the same position and the same events).

The texts tried are built from the game's notation: every listed action, each in a shouted
and spaced-out spelling, and every verb the game declares (or lists) with plausible
arguments: words from the listed actions (in that place of the verb, then anywhere), the
game's names and their aliases, small numbers, numbers out of range and garbage. A refused
text raises :class:`~engine.IllegalAction` with a message, never anything else, and leaves
the position as it was. Those who need not act have nothing listed, so everything they
send is refused (``resign`` aside: it is never listed and always accepted, see
tests/test_engine_contract.py).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

import engine
from engine import RESIGN, IllegalAction
from engine.core import Game
from engine.search import heuristic_action
from tests import toy_game

#: Every game, and the toy one (registered for its tests by tests/conftest.py).
KINDS = toy_game.kinds()
#: Each walk's length, and how many positions of each decision are checked per game kind
#: before the rest are only sampled (a share of them).
PLIES = 160
QUOTA = 25
SHARE = 0.06
#: Words that name nothing in any game (ASCII only: other scripts' digits are another
#: test's business), numbers around and past every range, and texts with no verb.
GARBAGE_WORDS = ("xyzzy", "a0", "k11", "z", "#1", "1.5", "yes", "none", "all", "-")
NUMBERS = (*(str(n) for n in range(13)), "-1", "99", "100", "99999999999999999999")
GARBAGE_TEXTS = ("", "   ", "xyzzy", "12", "-1", "end end", "a1 b2", "resign now")
#: What a game's rules let a player still in do at any time though nothing is listed for
#: them off their move (``resign`` aside): the verb, and what it accepts from ``player``.
ANYTIME: dict[str, tuple[str, Callable[[Any, str], set[str]]]] = {
    # Battlecards' auto-fire switch (docs/games/battlecards.md): to the other setting
    "battlecards": ("autofire", lambda state, player: {
        "autofire off" if state.seat(player).autofire else "autofire on"}),
}


@dataclass
class Tally:
    """What one game kind's check did (and what went wrong)."""

    games: int = 0
    states: int = 0
    candidates: int = 0
    aliases: int = 0
    decisions: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)


# -- walking ----------------------------------------------------------------------------------


def _setups(game: Game[Any]) -> Iterator[tuple[int, list[str], dict[str, Any]]]:
    """Seeds, seat counts from the least to the most, and the default options and each
    variant in turn."""
    span = game.max_players - game.min_players + 1
    options = [{}, *map(dict, game.facts.variants)]
    for seed in range(game.facts.decision_seeds):
        players = [f"p{i}" for i in range(1, game.min_players + seed % span + 1)]
        yield seed, players, options[seed % len(options)]


def _walk(game: Game[Any], seed: int, players: list[str],
          options: dict[str, Any]) -> Iterator[Any]:
    """Every position of a game played by a mix of the computer player's heuristic (which
    reaches fights and their aftermath) and random legal actions."""
    rng = random.Random(seed)
    state = game.new_game(players, seed, options)
    for _ in range(PLIES):
        to_act = game.to_act(state)
        if not to_act:
            return
        yield state
        player = rng.choice(to_act)
        legal = game.legal_actions(state, player)
        action = heuristic_action(game, state, player) if rng.random() < 0.6 \
            else rng.choice(legal)
        state, _ = game.apply(state, player, action)


# -- the texts tried --------------------------------------------------------------------------


@dataclass
class Vocabulary:
    """The words a game's actions are made of: by verb and place (``move`` #2 -> squares),
    and all of them together with the game's names, numbers and garbage."""

    verbs: dict[str, list[str]] = field(default_factory=dict)          # verb -> template
    by_place: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    aliases: dict[str, set[str]] = field(default_factory=dict)         # word -> its aliases
    pool: list[str] = field(default_factory=list)
    places: dict[tuple[str, int], list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, game: Game[Any]) -> Vocabulary:
        vocab = cls()
        names: set[str] = set()
        for verb in game.verbs:
            vocab.verbs[verb.name] = list(verb.tokens)
            for arg in verb.args:
                names.update(value for _, value in arg.choices)
                names.update(arg.aliases.values())
                names.update(arg.aliases)
                for alias, word in arg.aliases.items():
                    vocab.aliases.setdefault(word, set()).add(alias)
        names.update(vocab.verbs)
        vocab.pool = sorted(names)
        return vocab

    def learn(self, legal: list[str]) -> None:
        """Take in the words of listed actions (a verb not declared is learnt too, with
        as many places as it is listed with)."""
        for action in legal:
            words = action.split()
            template = self.verbs.get(words[0])
            if template is None:
                template = self.verbs[words[0]] = [words[0], *(
                    f"{{{i}}}" for i in range(1, len(words)))]
            for i, word in enumerate(words[1:], start=1):
                self.by_place.setdefault((words[0], i), set()).add(word)

    def freeze(self) -> None:
        """The pool: every word learnt, the names, numbers and garbage, in a fixed order."""
        learnt = set().union(*self.by_place.values()) if self.by_place else set()
        self.pool = sorted({*self.pool, *learnt, *NUMBERS, *GARBAGE_WORDS})
        self.places = {key: sorted(words) for key, words in self.by_place.items()}


def _fill(template: list[str], words: dict[int, str]) -> str:
    return " ".join(words.get(i, token) for i, token in enumerate(template))


def _candidates(vocab: Vocabulary, legal: list[str], rng: random.Random) -> list[str]:
    """Texts to try on a position whose listed actions are ``legal`` (those first)."""
    out: list[str] = list(legal)
    for action in rng.sample(legal, min(3, len(legal))):
        out.append("  " + action.upper().replace(" ", "   ") + " ")
    by_verb: dict[str, list[list[str]]] = {}
    for action in legal:
        by_verb.setdefault(action.split()[0], []).append(action.split())
    for verb, template in vocab.verbs.items():
        places = [i for i, token in enumerate(template) if token.startswith("{")]
        out.append(verb)
        out.append(f"{verb} {rng.choice(vocab.pool)}")
        if not places:
            continue
        # a listed action of this verb with one word changed (or spelt by an alias)
        for words in rng.sample(by_verb.get(verb, []), min(6, len(by_verb.get(verb, [])))):
            for i in places:
                own = vocab.places.get((verb, i), [])
                swaps = [rng.choice(vocab.pool), *rng.sample(own, min(2, len(own))),
                         *sorted(vocab.aliases.get(words[i], ()))[:2]]
                out += [" ".join([*words[:i], w, *words[i + 1:]]) for w in swaps]
            out.append(" ".join([*words, rng.choice(vocab.pool)]))
            out.append(" ".join(words[:-1]))
        # words that stand in this place in some position of the game, or anywhere
        for _ in range(12):
            filled = {}
            for i in places:
                here = vocab.places.get((verb, i))
                filled[i] = rng.choice(here if here and rng.random() < 0.7 else vocab.pool)
            out.append(_fill(template, filled))
    out += GARBAGE_TEXTS
    return list(dict.fromkeys(out))


# -- the check ----------------------------------------------------------------------------------


def _result(game: Game[Any], after: Any, events: list[dict[str, Any]]) -> str:
    return game.dump(after) + json.dumps(events, sort_keys=True, default=str)


def _try(game: Game[Any], state: Any, player: str, text: str) -> tuple[str | None, str]:
    """(the result's key, "") if ``text`` is accepted, else (None, why it was refused);
    anything but IllegalAction (or one without a message) is a problem."""
    try:
        after, events = game.apply(state, player, text)
    except IllegalAction as exc:
        if not str(exc):
            raise AssertionError(f"{text!r} refused without a message") from None
        return None, str(exc)
    except Exception as exc:  # the contract allows IllegalAction only
        raise AssertionError(f"{text!r} raised {type(exc).__name__}: {exc}") from exc
    return _result(game, after, events), ""


def _check(game: Game[Any], state: Any, player: str, theirs: list[str], vocab: Vocabulary,
           rng: random.Random, tally: Tally) -> list[str]:
    """The problems of ``player``'s texts on ``state``: accepted ⇔ listed (or an alias).
    ``theirs``: what the first who must act may do (tried by those who may not)."""
    legal = game.legal_actions(state, player)
    listed = set(legal)
    before = game.dump(state)
    problems: list[str] = []
    results: dict[str, str] = {}      # result -> the listed action that gives it
    by_action: dict[str, str] = {}
    texts = _candidates(vocab, legal, rng) if legal else [
        *rng.sample(theirs, min(5, len(theirs))), *rng.sample(vocab.pool, 5), *vocab.verbs,
        *GARBAGE_TEXTS]
    anytime = ANYTIME.get(game.kind)
    if anytime is not None and not legal and player in game.still_in(state):
        verb, accepts = anytime
        listed |= accepts(state, player)
        texts += [f"{verb} {word}" for word in vocab.places.get((verb, 1), [])]
    for text in texts:
        if text.strip().lower() == RESIGN:
            continue
        tally.candidates += 1
        try:
            key, why = _try(game, state, player, text)
        except AssertionError as exc:
            problems.append(str(exc))
            continue
        norm = " ".join(text.lower().split())
        if norm in listed:
            if key is None:
                problems.append(f"listed {text!r} refused: {why}")
            elif norm in by_action and by_action[norm] != key:
                problems.append(f"{text!r} does not do what {norm!r} does")
            else:
                by_action[norm] = key
                results.setdefault(key, norm)
        elif key is not None:
            if key in results:
                tally.aliases += 1
            else:
                problems.append(f"{text!r} accepted but not listed (listed: "
                                f"{', '.join(legal[:8])}{' ...' if len(legal) > 8 else ''})")
    if game.dump(state) != before:
        problems.append("a text tried changed the position it was tried on")
    return problems


def check_kind(game: Game[Any]) -> Tally:
    """Walk the game's seeded games, then check positions of every decision reached."""
    tally = Tally()
    vocab = Vocabulary.of(game)
    walks: list[tuple[int, list[Any]]] = []
    for seed, players, options in _setups(game):
        states = list(_walk(game, seed, players, options))
        for state in states:
            for p in game.to_act(state):
                vocab.learn(game.legal_actions(state, p))
        walks.append((seed, states))
        tally.games += 1
    vocab.freeze()
    rng = random.Random(29)
    seen: dict[str, int] = {}
    for seed, states in walks:
        for ply, state in enumerate(states):
            decision = game.decision(state)
            seen[decision] = seen.get(decision, 0) + 1
            if seen[decision] > QUOTA and rng.random() >= SHARE:
                continue
            tally.states += 1
            tally.decisions.add(decision)
            acting = game.to_act(state)
            others = [p for p in game.players(state) if p not in acting]
            theirs = game.legal_actions(state, acting[0])
            for p in [*acting, *rng.sample(others, min(1, len(others))), "stranger"]:
                for problem in _check(game, state, p, theirs, vocab, rng, tally):
                    tally.problems.append(f"seed {seed} ply {ply} ({decision}), {p}: "
                                          f"{problem}")
    return tally


@pytest.mark.parametrize("kind", KINDS)
def test_an_engine_accepts_exactly_what_it_lists(kind: str) -> None:
    game = engine.GAMES[kind]
    tally = check_kind(game)
    assert not tally.problems, (f"{len(tally.problems)} problems in {tally.states} "
                                "positions:\n" + "\n".join(tally.problems[:15]))
    assert game.facts.decisions <= tally.decisions, \
        f"no position checked for {game.facts.decisions - tally.decisions}"
    assert tally.states >= 50 and tally.candidates >= 20 * tally.states


def test_battlecards_autofire_is_only_ever_the_switch() -> None:
    """Its one any-time action (see :data:`ANYTIME`): the switch to the other setting, from
    either player; setting it as it already is is refused, as it is never listed."""
    game = engine.GAMES["battlecards"]
    state = game.new_game(["a", "b"], 1)
    for _ in range(3):
        state, _ = game.apply(state, "a", "deploy 1")
    assert game.to_act(state) == ["b"] and game.legal_actions(state, "a") == []
    with pytest.raises(IllegalAction, match="already on"):
        game.apply(state, "a", "autofire on")
    state, _ = game.apply(state, "a", "autofire off")
    with pytest.raises(IllegalAction, match="already off"):
        game.apply(state, "a", "autofire off")
    assert "autofire on" not in game.legal_actions(state, "b")
    with pytest.raises(IllegalAction, match="already on"):
        game.apply(state, "b", "autofire on")
