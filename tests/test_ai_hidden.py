"""The computer player in the hidden-information games (Battlecards, Napoleonic Wars).

Its search (engine/search.py) sees a position only through ``Game.determinize``, so these
tests check that a determinization depends on nothing the player cannot see, keeps
everything the player can, and really redraws the rest; and that the games' search
heuristics (``evaluate``, ``candidates``) give sane answers everywhere.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from engine import search
from engine.battlecards import ai as bc_ai
from engine.battlecards.cards import CONFLICTS, FORCES, UNITS
from engine.battlecards.rules import Battlecards
from engine.battlecards.state import BattlecardsState
from engine.core import Dice, Game
from engine.napoleon import ai as nw_ai
from engine.napoleon.rules import Napoleon
from engine.napoleon.state import NapoleonState, other

BC = Battlecards()
NW = Napoleon()
SEEDS = (1, 2, 3)
#: No time limit, so a slow machine searches exactly the same as a fast one.
NO_CLOCK = 600.0


# -- positions -------------------------------------------------------------------------

def _advance(game: Game[Any], state: Any, steps: int, rng: random.Random | None = None) -> Any:
    """``steps`` moves of the heuristic players (or random ones with ``rng``)."""
    for _ in range(steps):
        if game.outcome(state) is not None:
            break
        pid = game.to_act(state)[0]
        legal = game.legal_actions(state, pid)
        action = rng.choice(legal) if rng else search.heuristic_action(game, state, pid)
        state, _ = game.apply(state, pid, action)
    return state


def _position(game: Game[Any], players: list[str], seed: int, opening: int,
              wanted: Callable[[Any, str], bool]) -> tuple[Any, str]:
    """After ``opening`` heuristic moves, the first position where the player to act
    is in the ``wanted`` situation."""
    state = _advance(game, game.new_game(players, seed), opening)
    for _ in range(400):
        if game.outcome(state) is not None:
            break
        pid = game.to_act(state)[0]
        if wanted(state, pid):
            return state, pid
        state = _advance(game, state, 1)
    raise AssertionError(f"seed {seed}: no position found")


def _battlecards_position(seed: int) -> tuple[BattlecardsState, str]:
    """A mid-game position with a real decision for the player to act, whose opponent
    holds cards in hand, on the stacks and in the deck."""
    def wanted(state: BattlecardsState, pid: str) -> bool:
        opp = state.opponent(pid)
        legal = bc_ai.candidates(BC, state, pid, BC.legal_actions(state, pid))
        return (state.phase != "setup" and len(legal) > 1 and bool(opp.hand)
                and bool(opp.deck) and any(opp.stacks[f] for f in FORCES))
    return _position(BC, ["ann", "bob"], seed, 12, wanted)


def _napoleon_position(seed: int) -> tuple[NapoleonState, str]:
    """A position with a choice for the player to act, whose opponent holds cards, with
    cards left in the deck."""
    def wanted(state: NapoleonState, pid: str) -> bool:
        side = state.side_of(pid)
        assert side is not None
        return (len(NW.legal_actions(state, pid)) > 1 and bool(state.hands[other(side)])
                and bool(state.deck))
    return _position(NW, ["nap", "kut"], seed, 15, wanted)


def _swap_battlecards(state: BattlecardsState, player: str) -> BattlecardsState:
    """The same position as ``player`` sees it: the opponent's hand, stacks (but for the
    cards ``player`` remembers on them) and kept cards traded with cards of their decks,
    both decks reordered, other dice to come."""
    new = state.copy()
    me, opp = new.seat(player), new.opponent(player)
    # once a deck was made from a discard pile, both players know it holds only those
    assert not me.deck_from and not new.conflict_from, "a twin for another position"
    for i in range(min(len(opp.hand), len(opp.deck))):
        opp.hand[i], opp.deck[-1 - i] = opp.deck[-1 - i], opp.hand[i]
    for force in FORCES:
        stack = opp.stacks[force]
        for i, cid in enumerate(stack):
            if cid in me.known[force]:  # seen there: swapping it would change what I know
                continue
            same = [j for j, d in enumerate(opp.deck) if UNITS[d].stack == force]
            if same:
                j = same[i % len(same)]
                stack[i], opp.deck[j] = opp.deck[j], cid
    for i, cid in enumerate(opp.kept):
        keeps = [j for j, d in enumerate(new.conflict_deck) if CONFLICTS[d].kind == "keep"]
        if keeps:
            j = keeps[i % len(keeps)]
            opp.kept[i], new.conflict_deck[j] = new.conflict_deck[j], cid
    me.deck.reverse()
    new.conflict_deck.reverse()
    new.dice = Dice.from_seed(state.dice.state ^ 0xDEADBEEF)
    return new


def _swap_napoleon(state: NapoleonState, player: str) -> NapoleonState:
    """The same position as ``player`` sees it: the opponent's hand and the discards
    ``player`` did not see traded with cards of the deck, the deck reordered, other dice to
    come."""
    new = state.copy()
    side = new.side_of(player)
    assert side is not None
    hand, deck = new.hands[other(side)], new.deck
    for i in range(min(len(hand), len(deck))):
        hand[i], deck[-1 - i] = deck[-1 - i], hand[i]
    for i in range(min(len(new.discard), len(deck))):
        if i not in new.seen[side]:
            new.discard[i], deck[i] = deck[i], new.discard[i]
    deck.reverse()
    new.dice = Dice.from_seed(state.dice.state ^ 0xDEADBEEF)
    return new


CASES = [
    pytest.param(BC, _battlecards_position, _swap_battlecards, id="battlecards"),
    pytest.param(NW, _napoleon_position, _swap_napoleon, id="napoleon"),
]


# -- (a) what the player cannot see plays no part ----------------------------------------

@pytest.mark.parametrize(("game", "position", "swap"), CASES)
def test_hidden_cards_do_not_change_the_search(game: Game[Any], position: Any,
                                               swap: Any) -> None:
    state, player = position(11)
    twin = swap(state, player)
    assert game.dump(twin) != game.dump(state)            # the secrets really differ
    assert game.view(twin, player) == game.view(state, player)  # and cannot be seen
    for seed in SEEDS:
        a = game.determinize(state, player, random.Random(seed))
        b = game.determinize(twin, player, random.Random(seed))
        assert game.dump(a) == game.dump(b)
        first = search.choose(game, state, player, level="easy", seed=seed, seconds=NO_CLOCK)
        second = search.choose(game, twin, player, level="easy", seed=seed, seconds=NO_CLOCK)
        assert first.action == second.action
        assert first.ranking == second.ranking
        budget = search.level_iterations(game.kind, "easy")
        if first.paired:  # the same number of play-outs for every move searched
            assert budget - len(first.ranking) < first.iterations <= budget
        else:
            assert first.iterations == budget
        assert first.action in game.legal_actions(state, player)


# -- (b) and (c): what the player sees is kept, the rest is redrawn ------------------------

@pytest.mark.parametrize(("game", "position", "swap"), CASES)
def test_determinize_keeps_what_the_player_sees(game: Game[Any], position: Any,
                                                swap: Any) -> None:
    for pos_seed in (4, 5):
        state, player = position(pos_seed)
        before = game.dump(state)
        others = [p for p in game.players(state) if p != player]
        for seed in range(4):
            det = game.determinize(state, player, random.Random(seed))
            assert game.dump(state) == before                 # the input is untouched
            assert game.view(det, player) == game.view(state, player)
            for p in others:  # the counts the opponent's own view shows agree too
                mine, theirs = game.view(det, p), game.view(state, p)
                assert mine["players"][0].keys() == theirs["players"][0].keys()
            assert game.view(det, None) == game.view(state, None)
            assert game.legal_actions(det, player) == game.legal_actions(state, player)
            # a well-formed position: the loader checks every card is in one place
            assert game.dump(game.load(game.dump(det))) == game.dump(det)


def _hidden_battlecards(state: BattlecardsState, player: str) -> tuple[Any, ...]:
    opp = state.opponent(player)
    return (tuple(sorted(opp.hand)), tuple(opp.deck), tuple(state.seat(player).deck),
            tuple(state.conflict_deck), state.dice.state)


def _hidden_napoleon(state: NapoleonState, player: str) -> tuple[Any, ...]:
    side = state.side_of(player)
    assert side is not None
    return (tuple(sorted(state.hands[other(side)])), tuple(state.deck), state.dice.state)


@pytest.mark.parametrize(("game", "position", "hidden"), [
    pytest.param(BC, _battlecards_position, _hidden_battlecards, id="battlecards"),
    pytest.param(NW, _napoleon_position, _hidden_napoleon, id="napoleon"),
])
def test_determinize_redraws_the_hidden_cards(game: Game[Any], position: Any,
                                              hidden: Any) -> None:
    state, player = position(6)
    truth = hidden(state, player)
    draws = [hidden(game.determinize(state, player, random.Random(s)), player)
             for s in range(8)]
    for part in range(len(truth)):
        values = {d[part] for d in draws}
        assert len(values) >= 4, f"part {part} is hardly redrawn: {values}"
    assert all(d != truth for d in draws)
    # the same rng gives the same redraw
    again = hidden(game.determinize(state, player, random.Random(3)), player)
    assert again == draws[3]


def test_battlecards_determinize_respects_the_stacks_and_kept_cards() -> None:
    """Face-down units stay on the stack of their force, kept cards stay keep cards, and
    the searching player's own secrets never move."""
    for pos_seed in (7, 8, 9):
        state, player = _battlecards_position(pos_seed)
        me = state.seat(player)
        for seed in range(5):
            det = BC.determinize(state, player, random.Random(seed))
            mine, opp = det.seat(player), det.opponent(player)
            assert (mine.hand, mine.kept, mine.stacks) == (me.hand, me.kept, me.stacks)
            assert sorted(mine.deck) == sorted(me.deck)
            for force in FORCES:
                assert len(opp.stacks[force]) == len(state.opponent(player).stacks[force])
                assert all(UNITS[c].stack == force for c in opp.stacks[force])
            assert all(CONFLICTS[c].kind == "keep" for c in opp.kept)
            assert det.conflict_discard == state.conflict_discard


def test_napoleon_determinize_keeps_the_players_hand_and_the_battle() -> None:
    for pos_seed in (7, 8, 9):
        state, player = _napoleon_position(pos_seed)
        side = state.side_of(player)
        assert side is not None
        for seed in range(5):
            det = NW.determinize(state, player, random.Random(seed))
            assert det.hands[side] == state.hands[side]
            assert det.armies == state.armies
            assert len(det.deck) == len(state.deck)
            assert len(det.discard) == len(state.discard)
            assert (det.battle is None) == (state.battle is None)
            if det.battle is not None and state.battle is not None:
                assert det.battle.cards == state.battle.cards


# -- (d) evaluate, (e) candidates --------------------------------------------------------

def _random_positions(game: Game[Any], count: int, seed: int) -> list[Any]:
    """Positions met in random games, some of them finished."""
    rng = random.Random(seed)
    out = []
    for g in range(count):
        state = game.new_game(["p1", "p2"], seed * 100 + g)
        for _ in range(rng.randrange(1, 400)):
            if game.outcome(state) is not None:
                break
            pid = game.to_act(state)[0]
            state, _ = game.apply(state, pid, rng.choice(game.legal_actions(state, pid)))
            if rng.random() < 0.1:
                out.append(state)
        out.append(state)
    return out


@pytest.mark.parametrize("game", [pytest.param(BC, id="battlecards"),
                                  pytest.param(NW, id="napoleon")])
def test_evaluate_is_a_share_of_a_win(game: Game[Any]) -> None:
    evaluate = search.heuristics(game.kind).evaluate
    assert evaluate is not None
    for state in _random_positions(game, 12, 1):
        values = evaluate(game, state)
        assert set(values) == set(game.players(state))
        assert all(0.0 <= v <= 1.0 for v in values.values()), values
        assert abs(sum(values.values()) - 1.0) < 1e-9
    # finished games: the winner is sure of it
    finished = 0
    for seed in range(6):
        state = _advance(game, game.new_game(["p1", "p2"], seed), 3000)
        outcome = game.outcome(state)
        assert outcome is not None
        if not outcome.winners:
            continue
        values = evaluate(game, state)
        assert values[outcome.winners[0]] > 0.99
        assert values[outcome.standings[-1]] < 0.01
        finished += 1
    assert finished >= 3


def test_evaluate_prefers_the_side_that_is_ahead() -> None:
    # Battlecards: victory points won
    state, _ = _battlecards_position(3)
    ahead = state.copy()
    ahead.seats[0].won.append("C03")        # Battle of Britain, 6 VP
    assert "C03" not in state.seats[1].won and "C03" not in state.seats[0].won
    a = state.seats[0].id
    assert bc_ai.evaluate(BC, ahead)[a] > bc_ai.evaluate(BC, state)[a]
    # Napoleonic Wars: the Allies in Paris, the French in the East
    nw = NW.new_game(["nap", "kut"], 1)
    base = nw_ai.evaluate(NW, nw)["nap"]
    lost = nw.copy()
    lost.armies["french"]["france"], lost.armies["allies"]["france"] = 0, 5
    assert nw_ai.evaluate(NW, lost)["nap"] < base - 0.3
    east = nw.copy()
    for c in ("russia", "austria", "prussia"):
        east.armies["french"][c], east.armies["allies"][c] = 5, 0
    assert nw_ai.evaluate(NW, east)["nap"] > base + 0.3


@pytest.mark.parametrize("game", [pytest.param(BC, id="battlecards"),
                                  pytest.param(NW, id="napoleon")])
def test_candidates_are_legal_and_never_empty(game: Game[Any]) -> None:
    prune = search.heuristics(game.kind).candidates
    assert prune is not None
    pruned_some = False
    for state in _random_positions(game, 10, 2):
        for pid in game.to_act(state):
            legal = game.legal_actions(state, pid)
            out = prune(game, state, pid, legal)
            assert out, f"nothing to search in {game.dump(state)}"
            assert set(out) <= set(legal)
            assert len(set(out)) == len(out)
            pruned_some = pruned_some or len(out) < len(legal)
            heuristic = search.heuristic_action(game, state, pid)
            if game.kind == "napoleon":  # the planner's own move is always searched
                assert heuristic in out
    assert pruned_some


def test_battlecards_search_never_considers_autofire() -> None:
    state, player = _battlecards_position(2)
    legal = BC.legal_actions(state, player)
    assert any(a.startswith("autofire") for a in legal)
    out = bc_ai.candidates(BC, state, player, legal)
    assert not any(a.startswith("autofire") for a in out)
    assert bc_ai.candidates(BC, state, player, ["autofire off"]) == ["autofire off"]
