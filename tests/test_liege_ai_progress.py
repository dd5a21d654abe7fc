"""Liège's computer players push on when their own pieces wall their General in (issue 31).

The cause of the one Liège tournament game that reached the 3,000-action step cap
(``python -m engine.tournament --kinds liege --pairings medium-easy --games 20 --seed 1``,
its tenth game): each side's heuristic had bought its Rifles on the square nearest the
enemy General, which is right ahead of its own General, until Rifles stood on every
square ahead and the credits were spent (the only income, the forward bonus, needs a
step forward). The search left every piece shift out (``candidates``), the heuristic
never shifted, and the evaluation saw nothing wrong, so from action 124 on both sides
played ``skip``, ``end`` every turn until the cap, two ranks apart, out of each other's
reach. :func:`position` is that position (action 130, North to play), trimmed.

Now the heuristic steps a piece of the wall aside (the General steps through next turn),
the search keeps those steps among its candidates, and the evaluation counts a General
walled in by its own pieces a square further from its edge.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import search
from engine.liege import GAME
from engine.liege.ai import candidates, choose_action, evaluate
from engine.liege.state import LiegeState
from engine.tournament import derive
from tests.liege_positions import mg, mortar, rifle
from tests.liege_positions import position as liege_position

#: North's General on e7 behind its own Rifles on d6, e6, f6 (and g6); South's on c3
#: behind its own on b4, c4, d4; ten credits each; no enemy within reach.
WALLED: dict[str, dict[str, Any]] = {
    "a8": mortar("B", "s"), "b8": rifle("B"), "b7": rifle("B"), "c7": rifle("B"),
    "d6": rifle("B"), "e6": rifle("B"), "f6": rifle("B"), "g6": rifle("B"),
    "a3": mg("A", "n"), "a4": rifle("A", damaged=True), "b4": rifle("A", damaged=True),
    "c4": rifle("A", damaged=True), "d4": rifle("A"), "a5": rifle("A", damaged=True),
    "b5": rifle("A", damaged=True),
}
AHEAD = {"B": {"d6", "e6", "f6"}, "A": {"b4", "c4", "d4"}}


def position(turn: str = "B", phase: str = "general",
             pieces: dict[str, dict[str, Any]] | None = None) -> LiegeState:
    return liege_position(WALLED if pieces is None else pieces, turn=turn, phase=phase,
                          A={"general": "c3", "credits": 10, "lives": 1},
                          B={"general": "e7", "credits": 10, "lives": 2},
                          extra={"damage_tokens": 0})


def to_go(state: LiegeState, player: str) -> int:
    seat = state.seat_of(player)
    assert seat is not None and seat.general is not None
    return state.geo.to_go(seat.side, seat.general)


def opens_the_wall(action: str, player: str) -> bool:
    words = action.split()
    return words[0] == "shift" and words[1] in AHEAD[player] and words[2] not in AHEAD[player]


@pytest.mark.parametrize("player", ["B", "A"])
def test_the_heuristic_steps_a_piece_of_the_wall_aside(player: str) -> None:
    state = position(turn=player)
    steps = [a.split()[1] for a in GAME.legal_actions(state, player) if a.startswith("general")]
    assert steps and all(state.geo.to_go(state.seat_of(player).side, s)  # type: ignore[union-attr]
                         >= to_go(state, player) for s in steps)  # none forward
    action = choose_action(GAME, state, player)
    assert opens_the_wall(action, player), action
    # the step toward the enemy: North's Rifle goes south, South's north
    src, dst = action.split()[1:]
    forward = -1 if player == "B" else 1
    assert int(dst[1:]) - int(src[1:]) == forward
    # then the turn ends, and next turn the General steps into the gap, nearer its edge
    before = to_go(state, player)
    for _ in range(12):
        if GAME.current_turn(state) == player and state.phase == "general" \
                and to_go(state, player) < before:
            break
        actor = GAME.to_act(state)[0]
        state, _ = GAME.apply(state, actor, choose_action(GAME, state, actor))
    actor = GAME.to_act(state)[0]
    state, _ = GAME.apply(state, actor, choose_action(GAME, state, actor))
    assert to_go(state, player) < before


def test_the_search_keeps_the_steps_that_open_the_wall_and_no_other_shift() -> None:
    state = position()
    legal = GAME.legal_actions(state, "B")
    kept = candidates(GAME, state, "B", legal)
    shifts = [a for a in kept if a.startswith("shift ")]
    assert shifts and all(opens_the_wall(a, "B") for a in shifts)
    assert {a.split()[1] for a in shifts} == AHEAD["B"]  # one step for each piece ahead
    assert choose_action(GAME, state, "B") in kept
    # a General with a free square ahead shifts nothing
    free = position(pieces={k: v for k, v in WALLED.items() if k != "e6"})
    assert not [a for a in candidates(GAME, free, "B", GAME.legal_actions(free, "B"))
                if a.startswith("shift ")]


def test_the_evaluation_counts_a_walled_general_a_square_further() -> None:
    walled = position(turn="A")
    opened = position(turn="A", pieces={**{k: v for k, v in WALLED.items() if k != "e6"},
                                        "e5": rifle("B")})
    assert evaluate(GAME, opened)["B"] > evaluate(GAME, walled)["B"]
    # the same pieces, the General a square back (e8) but free to step: no better than e7
    # walled in, no worse either (one square is one square)
    back = liege_position(WALLED, turn="A", phase="general",
                          A={"general": "c3", "credits": 10, "lives": 1},
                          B={"general": "e8", "credits": 10, "lives": 2},
                          extra={"damage_tokens": 0})
    assert evaluate(GAME, back)["B"] == pytest.approx(evaluate(GAME, walled)["B"])


@pytest.mark.parametrize("iterations,seed", [(16, 0), (16, 1), (64, 0), (256, 0)])
def test_the_search_opens_the_wall(iterations: int, seed: int) -> None:
    # budgets pinned (easy 16, the old medium 64 and hard 256): with some seeds a larger
    # search walks the General back a square instead (general d8), never skip or end
    state = position()
    choice = search.choose(GAME, state, "B", iterations=iterations, seed=seed, seconds=None)
    assert opens_the_wall(choice.action, "B"), choice.ranking[:4]


def test_the_capped_tournament_game_now_ends() -> None:
    """The tournament game that reached the step cap (medium against easy, seed 1, its
    tenth game: easy first, from action 124 both sides played skip, end every turn), played
    again as ``engine.tournament.play_match`` plays it, with the budgets of the time (easy
    16 play-outs, medium 64) and the same seeds: now it ends long before the cap."""
    deal = derive(1, 9 // 2) % (1 << 31)
    budgets = {"p1": 16, "p2": 64}  # p1 easy, p2 medium (the row player, second)
    state = GAME.new_game(["p1", "p2"], deal)
    steps = 0
    while GAME.outcome(state) is None and steps < 600:
        actor = GAME.to_act(state)[0]
        choice = search.choose(GAME, state, actor, iterations=budgets[actor], seconds=None,
                               seed=derive(deal, steps, ("p1", "p2").index(actor)))
        state, _ = GAME.apply(state, actor, choice.action)
        steps += 1
    assert GAME.outcome(state) is not None, f"still running after {steps} actions"
