"""What the games' whole-game property tests share (tests/test_<kind>_properties.py):
walking games by random, automatic or mixed play, the checks every step of any game must
pass, and the hypothesis tests every game's inputs must survive. A game's file keeps only
its own invariants and facts.

* Walking: :func:`walk` yields each :class:`Step` (``before, player, action, after,
  events``) of a game played by ``choose(rng, state, player, legal)`` — :func:`any_legal`,
  :func:`automatic`, :func:`mixed`, :func:`timeouts` — for ``pick(rng, acting)`` (:func:`first`,
  the default, or :func:`anyone`); :func:`play_out` plays a game to its end;
  :func:`public_views` gives the board's input (view and recent events) along a game.
* :func:`fuzz`: a random game from a seed in which, at every step, garbage from anyone is
  refused with a reason and changes nothing, the action with its numbers in other digits
  (:data:`ODD_DIGITS`) is refused, only those who must act have legal actions
  (unique; nobody else may take them), and the action applied in upper case is accepted,
  leaves its input alone, keeps its canonical notation and JSON views, narrates in text,
  keeps the game's ``invariants`` and reloads to the same state.
* Checks: :func:`check_garbage`, :func:`check_single_winner`, :func:`check_stable_dump`,
  :func:`check_non_text_refused`.
* Hypothesis: :data:`JSON_VALUES`, and the test factories :func:`any_text_test` (any text
  as an action is refused or applied, never a crash, never a change to the input) and
  :func:`any_json_test` (any JSON is a valid position or refused cleanly).
* :func:`strings`: every string in a JSON value (to look for names that must not leak);
  :func:`private_parts`: what a player's view holds that the public view does not.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from engine import IllegalAction, public_events
from engine.core import Game

#: ``choose(rng, state, player, legal) -> action``
Choose = Callable[[random.Random, Any, str, list[str]], str]
#: ``pick(rng, acting) -> player``
Pick = Callable[[random.Random, list[str]], str]


class Step(NamedTuple):
    """One action of a walked game."""

    before: Any
    player: str
    action: str
    after: Any
    events: list[dict[str, Any]]


# -- choosing ----------------------------------------------------------------------------------


def first(rng: random.Random, acting: list[str]) -> str:
    return acting[0]


def anyone(rng: random.Random, acting: list[str]) -> str:
    """Any of those who must act, at random."""
    return rng.choice(acting)


def any_legal(rng: random.Random, state: Any, player: str, legal: list[str]) -> str:
    return rng.choice(legal)


def automatic(game: Game[Any], choose_action: Callable[..., str]) -> Choose:
    """The game's automatic player."""
    return lambda rng, state, player, legal: choose_action(game, state, player)


def mixed(game: Game[Any], choose_action: Callable[..., str], share: float) -> Choose:
    """The automatic player ``share`` of the time, else a random legal action."""
    def choose(rng: random.Random, state: Any, player: str, legal: list[str]) -> str:
        if rng.random() < share:
            return choose_action(game, state, player)
        return rng.choice(legal)
    return choose


def timeouts(game: Game[Any], otherwise: str | None = None) -> Choose:
    """What the game plays for a player whose time ran out (else ``otherwise``; with
    neither, the test fails)."""
    def choose(rng: random.Random, state: Any, player: str, legal: list[str]) -> str:
        action = game.timeout_action(state, player) or otherwise
        assert action is not None, f"no time-out action for {player}"
        return action
    return choose


# -- walking -----------------------------------------------------------------------------------


def walk(game: Game[Any], state: Any, rng: random.Random | None, plies: int, *,
         choose: Choose = any_legal, pick: Pick = first, shout: bool = False,
         frozen: bool = True) -> Iterator[Step]:
    """At most ``plies`` actions from ``state`` (fewer if the game ends). With ``shout``
    each action is applied in upper case (the input is case-insensitive); with ``frozen``
    every apply is checked to leave its input as it was."""
    rng = rng or random.Random(0)
    for _ in range(plies):
        acting = game.to_act(state)
        if not acting:
            return
        player = pick(rng, acting)
        action = choose(rng, state, player, game.legal_actions(state, player))
        before = game.dump(state) if frozen else None
        after, events = game.apply(state, player, action.upper() if shout else action)
        if frozen:
            assert game.dump(state) == before  # apply never changes its input
        yield Step(state, player, action, after, events)
        state = after


def public_views(game: Game[Any], state: Any, rng: random.Random, plies: int, *,
                 recent: int) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The public view of ``state`` and after each of at most ``plies`` random actions
    (the first seat to act choosing), each with the public events of the actions just
    before it, at most ``recent`` of them (what a board image marks)."""
    out: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [(game.view(state, None), [])]
    events: list[dict[str, Any]] = []
    for step in walk(game, state, rng, plies, frozen=False):
        events = (events + public_events(step.events))[-recent:]
        out.append((game.view(step.after, None), list(events)))
    return out


def play_out(game: Game[Any], state: Any, choose: Choose, plies: int,
             invariants: Callable[[Any], None] | None = None) -> Any:
    """The game played on by ``choose`` for whoever acts first, until it ends or
    ``plies`` actions were taken; each position checked by ``invariants``. The last."""
    for step in walk(game, state, None, plies, choose=choose, frozen=False):
        state = step.after
        if invariants is not None:
            invariants(state)
    return state


def check_garbage(game: Game[Any], state: Any, who: Any, text: Any) -> None:
    """``who`` sending ``text`` is refused with a reason (or it was legal), and the state
    does not change either way."""
    before = game.dump(state)
    try:
        game.apply(state, who, text)
    except IllegalAction as exc:
        assert str(exc)                  # a message for the player
    assert game.dump(state) == before    # refused or not, the input is never mutated


def fuzz(game: Game[Any], players: list[str], seed: int, plies: int, *,
         garbage: list[str], invariants: Callable[[Any], None],
         strangers: Iterable[Any] = ("stranger",), anytime: tuple[str, ...] = (),
         options: dict[str, Any] | None = None, choose: Choose = any_legal,
         pick: Pick = first) -> Iterator[Step]:
    """A game from ``seed`` by ``choose``, every step checked (see the module's doc);
    ``strangers`` try garbage too, and actions starting with ``anytime`` may be taken out
    of turn (so they are not tried by those who must not act). Yields each step."""
    rng = random.Random(seed)
    odd_rng = random.Random(seed + 1)     # its own, so the games walked stay the same
    strangers = list(strangers)
    state = game.new_game(players, seed, options)
    for step in walk(game, state, rng, plies, choose=choose, pick=pick, shout=True):
        before, player, action, after, events = step
        frozen = game.dump(before)
        check_garbage(game, before, rng.choice([*players, *strangers]), rng.choice(garbage))
        legal = game.legal_actions(before, player)
        assert legal and len(set(legal)) == len(legal) and action in legal
        odd = _swap_numbers(action, odd_rng.choice(ODD_DIGITS))
        if odd != action:       # its numbers in other digits: refused, by name
            with pytest.raises(IllegalAction):
                game.apply(before, player, odd)
        acting = game.to_act(before)
        theirs = [a for a in legal if not a.startswith(anytime)]
        for other in [*players, "stranger"]:
            if other not in acting:
                assert game.legal_actions(before, other) == []
                with pytest.raises(IllegalAction):
                    game.apply(before, other, rng.choice(theirs))
        assert after.last_move["action"] == action   # canonical notation round-trips
        json.dumps(events)
        json.dumps(game.view(after, None))
        json.dumps(game.view(after, player))
        assert all(isinstance(line, str) for line in game.narrate(events))
        invariants(after)
        assert game.load(game.dump(after)) == after
        yield step
        assert game.dump(before) == frozen    # nothing tried on it changed it


# -- results and positions -------------------------------------------------------------------


def check_single_winner(game: Game[Any], state: Any, players: list[str]) -> None:
    """The game is over with one winner, first of standings that rank every player."""
    outcome = game.outcome(state)
    assert outcome is not None and len(outcome.winners) == 1
    assert sorted(outcome.standings) == sorted(players)
    assert outcome.standings[0] == outcome.winners[0]


def check_stable_dump(game: Game[Any], state: Any) -> dict[str, Any]:
    """The position's text reloads to the same text, in the game's format; its data."""
    text = game.dump(state)
    assert game.dump(game.load(text)) == text
    data = json.loads(text)
    assert data["format"] == f"warhost.{game.kind}/1"
    return data


def check_non_text_refused(game: Game[Any], state: Any, player: str, action: str,
                           more: Iterable[Any] = ()) -> None:
    """Actions that are not text, and a player that is not one, are refused."""
    for bad in (None, 3, [action], action.encode(), *more):
        with pytest.raises(IllegalAction):
            game.apply(state, player, bad)
    with pytest.raises(IllegalAction):
        game.apply(state, None, action)  # type: ignore[arg-type]


# -- hypothesis ------------------------------------------------------------------------------


#: Any JSON value, nested a few levels.
JSON_VALUES = hst.recursive(
    hst.none() | hst.booleans() | hst.integers() | hst.text(max_size=5),
    lambda kids: hst.lists(kids, max_size=3)
    | hst.dictionaries(hst.text(max_size=8), kids, max_size=4))


#: Characters ``str.isdigit`` or ``str.isnumeric`` takes that are not the digits 0-9:
#: superscripts and subscripts (``int`` refuses them), other scripts' digits (``int``
#: reads them), fractions and numerals. Notation refuses them all (issue 29).
ODD_DIGITS = ["²", "٣", "１", "߁", "፩", "¹²", "₃", "½", "五", "١٢", "１２", "٣٣", "߁߂"]


def _swap_numbers(action: str, odd: str) -> str:
    """``action`` with each number in it written as ``odd`` instead."""
    return " ".join(odd if word.isascii() and word.isdigit() else word
                    for word in action.split(" "))


def any_text_test(game: Game[Any], position: Callable[[], Any], players: Iterable[str],
                  words: Iterable[str] = ()) -> Callable[[str], None]:
    """A test: any text sent as an action by any of ``players`` in ``position()`` is
    refused or applied, never a crash, and never changes the position. The text is any
    text, or words of the legal actions, ``words`` and :data:`ODD_DIGITS` strung together,
    or a legal action with its numbers written in odd digits."""
    players = list(players)
    extra = list(words)

    def near_misses() -> hst.SearchStrategy[str]:
        state = position()
        legal = sorted({a for p in players for a in game.legal_actions(state, p)})
        vocab = sorted({w for a in legal for w in a.split()} | {*extra, *ODD_DIGITS})
        strung = hst.lists(hst.sampled_from(vocab), min_size=1, max_size=5).map(" ".join)
        if not legal:
            return strung
        swapped = hst.builds(_swap_numbers, hst.sampled_from(legal),
                             hst.sampled_from(ODD_DIGITS))
        return hst.one_of(strung, swapped)

    @settings(max_examples=300, deadline=None)
    @given(hst.one_of(hst.text(max_size=60), hst.deferred(near_misses)))
    def test(text: str) -> None:
        state = position()
        before = game.dump(state)
        for player in players:
            with contextlib.suppress(IllegalAction):
                game.apply(state, player, text)
        assert game.dump(state) == before

    return test


def any_json_test(game: Game[Any]) -> Callable[[Any], None]:
    """A test: any JSON is a valid position or refused with IllegalAction."""
    @settings(max_examples=200, deadline=None)
    @given(JSON_VALUES)
    def test(value: Any) -> None:
        with contextlib.suppress(IllegalAction):
            game.load(json.dumps(value))

    return test


# -- leaks -------------------------------------------------------------------------------------


def strings(value: Any, out: set[str] | None = None) -> set[str]:
    """Every string in a JSON value (keys aside)."""
    out = set() if out is None else out
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            strings(v, out)
    elif isinstance(value, list):
        for v in value:
            strings(v, out)
    return out


def private_parts(public: dict[str, Any], mine: dict[str, Any]) -> list[Any]:
    """What a player's view holds that the public view does not: top-level values and
    the values of each player's entry that differ."""
    parts = [v for k, v in mine.items()
             if k not in ("viewer", "players") and public.get(k) != v]
    public_players = {str(p.get("id")): p for p in public.get("players") or ()
                      if isinstance(p, dict)}
    for entry in mine.get("players") or ():
        if isinstance(entry, dict):
            theirs = public_players.get(str(entry.get("id")), {})
            parts += [v for k, v in entry.items() if theirs.get(k) != v]
    return parts
