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

import json
from typing import Any

import pytest

from engine import search
from engine.core import IllegalAction
from engine.liege import GAME
from engine.liege.ai import QUIET_LIMIT, candidates, choose_action, evaluate
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


# -- a won position nobody presses (issue 31, hard against medium) -------------------------
#
# ``python -m engine.tournament --kinds liege --pairings hard-medium --games 30 --seed 0``,
# its seventh game: after 650 actions of Generals stepping back and forth for the forward
# bonus and Rifles bought into walls, the position below stood unchanged from action 650 to
# 1,100, every turn `skip`, `end`. North (B, medium) is four squares from its edge with two
# lives, South (A, hard) eight squares away with one; ten credits each, no damage tokens.
# Each search rated waiting above its General's step: the step's danger (South's Rifles on
# rank 1) comes inside a play-out, and waiting pushes it past the play-out's end.

FROZEN: dict[str, dict[str, Any]] = {
    "a2": rifle("A"), "a3": mortar("A", "n"), "a4": mortar("A", "n"), "b2": rifle("A"),
    "c1": rifle("A"), "c2": rifle("A"), "c4": rifle("A"), "d1": rifle("A"), "d3": rifle("A"),
    "e1": rifle("A"), "e2": rifle("A"), "e3": rifle("A"), "e4": rifle("A"), "f1": rifle("A"),
    "f2": rifle("A"), "g1": rifle("A"), "g2": rifle("A"), "h1": rifle("A"), "i1": rifle("A"),
    "a6": rifle("B"), "a7": rifle("B"), "b6": rifle("B"), "b7": rifle("B"), "c6": rifle("B"),
    "d6": rifle("B", damaged=True), "d7": rifle("B"), "d8": mortar("B", "s"),
    "d9": mortar("B", "s"), "e6": rifle("B", damaged=True), "e7": rifle("B"),
    "f6": rifle("B", damaged=True), "f8": rifle("B"), "g4": rifle("B"), "g5": rifle("B"),
    "g6": rifle("B"), "h4": rifle("B"), "h5": rifle("B"), "h6": rifle("B"), "h7": rifle("B"),
    "i3": rifle("B"), "i4": rifle("B"), "i6": rifle("B"), "j5": rifle("B"), "j6": rifle("B"),
}


def frozen(turn: str = "B", quiet: int = 0) -> LiegeState:
    """The frozen position, ``turn`` to step its General, ``quiet`` turns without anything
    done for good; each General has never stood nearer its edge than now."""
    return liege_position(
        FROZEN, turn=turn, phase="general",
        A={"general": "d2", "credits": 10, "lives": 1, "closest": 8,
           "used": {"trench": 0, "grenade": 0, "missile": 2, "gas": 1}},
        B={"general": "i5", "credits": 10, "lives": 2, "closest": 4,
           "used": {"trench": 0, "grenade": 1, "missile": 2, "gas": 0}},
        extra={"damage_tokens": 0, "quiet": quiet})


def test_quiet_counts_the_turns_since_anything_was_done_for_good() -> None:
    state = frozen(turn="B", quiet=3)
    for player in ("B", "A"):  # a turn of waiting each
        state, _ = GAME.apply(state, player, "skip")
        state, _ = GAME.apply(state, player, "end")
    assert state.quiet == 5
    state, _ = GAME.apply(state, "B", "general j4")
    assert state.quiet == 0 and state.seat_of("B").closest == 3  # j4: nearer than ever
    state, _ = GAME.apply(state, "B", "end")
    assert state.quiet == 1
    state, _ = GAME.apply(state, "A", "general c3")  # 7 to go, nearer than 8
    assert state.quiet == 0 and state.seat_of("A").closest == 7
    state, _ = GAME.apply(state, "A", "end")
    state, _ = GAME.apply(state, "B", "general i5")  # back where it stood: not nearer
    assert state.quiet == 1 and state.seat_of("B").closest == 3
    state, _ = GAME.apply(state, "B", "end")
    state, _ = GAME.apply(state, "A", "general d2")
    state, _ = GAME.apply(state, "A", "end")
    state, _ = GAME.apply(state, "B", "general j4")  # as near as before, not nearer
    assert state.quiet == 3


def test_a_fight_or_a_blast_restarts_the_count() -> None:
    pieces = {"e4": rifle("A"), "e5": rifle("B"), "a3": mortar("A", "n")}
    fight = liege_position(pieces, turn="A", phase="fight", dice=[6, 6, 1, 1],
                           extra={"quiet": 9})
    after, events = GAME.apply(fight, "A", "attack e4 e5")
    assert any(e["type"] == "fight" for e in events) and after.quiet == 0
    blast = liege_position(pieces, turn="A", phase="deploy", extra={"quiet": 9})
    after, events = GAME.apply(blast, "A", "missile a3 a6")
    assert after.quiet == 0
    bought, _ = GAME.apply(blast, "A", "buy rifle d1")  # a purchase is not for good
    assert bought.quiet == 9


def test_placing_the_general_sets_how_near_it_has_come() -> None:
    state = GAME.new_game(["p1", "p2"], 0)
    for player in ("p1", "p2"):
        state, _ = GAME.apply(state, player, GAME.legal_actions(state, player)[0])
    assert [s.closest for s in state.seats] == [9, 9] and state.quiet == 0


def test_the_count_is_in_the_position_text_and_forgotten_like_memory() -> None:
    state = frozen(quiet=14)
    text = GAME.dump(state)
    assert '"quiet":14' in text and '"closest":4' in text
    assert GAME.dump(GAME.load(text)) == text
    plain = GAME.dump(GAME.forget(state))
    assert '"quiet"' not in plain and '"closest"' not in plain
    assert GAME.load(plain).quiet == 0  # a position written before the count reads as 0
    # the rules never read it: the same moves are legal whatever it says
    assert GAME.legal_actions(state, "B") == GAME.legal_actions(GAME.forget(state), "B")


def test_after_quiet_turns_the_search_weighs_only_steps_nearer_the_edge() -> None:
    calm, stalled = frozen(quiet=QUIET_LIMIT - 1), frozen(quiet=QUIET_LIMIT)
    legal = GAME.legal_actions(stalled, "B")
    assert "skip" in candidates(GAME, calm, "B", legal)
    assert candidates(GAME, stalled, "B", legal) == ["general j4"]  # the only step nearer
    # South's General steps nearer too (c3; its own Rifles fill c1-e3 around it)
    south = frozen(turn="A", quiet=QUIET_LIMIT)
    onward = candidates(GAME, south, "A", GAME.legal_actions(south, "A"))
    assert onward and all(a.startswith("general ") for a in onward)
    assert all(int(a.split()[1][1:]) == 3 for a in onward)
    # after the step, the rest of the turn is searched as before
    stepped, _ = GAME.apply(stalled, "B", "general j4")
    stepped.quiet = QUIET_LIMIT
    assert "end" in candidates(GAME, stepped, "B", GAME.legal_actions(stepped, "B"))


def test_the_leader_waits_in_a_fresh_position_and_presses_on_in_a_frozen_one() -> None:
    iterations = search.level_iterations("liege", "medium")
    fresh = search.choose(GAME, frozen(quiet=0), "B", iterations=iterations, seed=1,
                          seconds=None)
    assert fresh.action in ("skip", "end"), fresh.ranking[:3]  # the stall's cause
    pressed = search.choose(GAME, frozen(quiet=QUIET_LIMIT), "B", iterations=iterations,
                            seed=1, seconds=None)
    assert pressed.action == "general j4"


def test_the_frozen_game_now_ends() -> None:
    """Both sides searching at medium's budget from the frozen position, twelve quiet
    turns already behind them: the game ends after 31 actions. Before, with these seeds,
    it was still running after 300, the count at 113 turns (at easy's budget it ends
    either way)."""
    state = frozen(turn="A", quiet=QUIET_LIMIT)
    iterations = search.level_iterations("liege", "medium")
    steps = 0
    while GAME.outcome(state) is None and steps < 300:
        actor = GAME.to_act(state)[0]
        choice = search.choose(GAME, state, actor, iterations=iterations, seconds=None,
                               seed=derive(1, steps))
        state, _ = GAME.apply(state, actor, choice.action)
        steps += 1
    assert GAME.outcome(state) is not None, f"still running after {steps} actions"


@pytest.mark.parametrize("field,value", [("quiet", -1), ("quiet", "3"), ("quiet", 1.5),
                                         ("quiet", True), ("closest", 10), ("closest", -1),
                                         ("closest", "e4")])
def test_a_malformed_count_is_refused(field: str, value: Any) -> None:
    data = json.loads(GAME.dump(frozen(quiet=3)))
    if field == "quiet":
        data["quiet"] = value
    else:
        data["players"][0]["closest"] = value
    with pytest.raises(IllegalAction):
        GAME.load(json.dumps(data))
