"""The clock's safe defaults (``Game.timeout_action``) and undo's limits (``Game.reversible``).

Both are promises the platform builds on: it loops on ``timeout_action`` until a timed-out
player has nothing left to decide, and it offers undo only for actions ``reversible``
allows, undoing them by replaying the log. So each is checked two ways: over many random
reachable positions of every game (legal, bounded, deterministic), and on scripted
positions for the decisions the product rule names (end the turn, the least costly
casualty, no withdrawal, decline optional cards; never undo dice, cards or secrets).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import engine
from engine.battlecards import GAME as BATTLECARDS
from engine.battlecards.cards import CONFLICT
from engine.conqueror import GAME as CONQUEROR
from engine.core import Dice
from engine.liege import GAME as LIEGE
from engine.search import heuristic_action
from tests import battlecards_positions as bp
from tests import conqueror_positions as cp
from tests import liege_positions as lp
from tests import toy_game

#: Every game, and the toy one (registered for its tests by tests/conftest.py).
KINDS = toy_game.kinds()
#: The platform's loop must get a timed-out player out of ``to_act`` within this many steps.
BOUND = 200


def _players(game: Any, seed: int) -> list[str]:
    span = game.max_players - game.min_players + 1
    return [f"p{i}" for i in range(game.min_players + seed % span)]


def _walk(kind: str, seed: int, plies: int) -> Iterator[tuple[Any, str, str, Any, list]]:
    """A game played by a mix of the computer player's heuristic and random legal actions;
    yields ``(before, player, action, after, events)`` for every step."""
    game = engine.GAMES[kind]
    rng = random.Random(seed)
    state = game.new_game(_players(game, seed), seed)
    for _ in range(plies):
        to_act = game.to_act(state)
        if not to_act:
            return
        player = rng.choice(to_act)
        legal = game.legal_actions(state, player)
        action = (heuristic_action(game, state, player) if rng.random() < 0.6
                  else rng.choice(legal))
        after, events = game.apply(state, player, action)
        yield state, player, action, after, events
        state = after


def _time_out(game: Any, state: Any, player: str) -> tuple[Any, int]:
    """Play the safe default for ``player`` until they have nothing left to decide."""
    steps = 0
    while player in game.to_act(state):
        action = game.timeout_action(state, player)
        assert action is not None, "a player who must act always has a safe default"
        assert action in game.legal_actions(state, player), action
        state, _ = game.apply(state, player, action)
        steps += 1
        assert steps <= BOUND, f"{player} still to act after {BOUND} safe defaults"
    return state, steps


# -- timeout_action over random reachable positions ------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_timeout_is_legal_and_takes_the_player_out_of_to_act(kind: str) -> None:
    game = engine.GAMES[kind]
    seen: set[str] = set()
    checked = 0
    for seed in range(game.facts.decision_seeds):
        for before, _player, _action, _after, _events in _walk(kind, seed, 160):
            to_act = game.to_act(before)
            seen.add(game.decision(before))
            for p in [*game.players(before), "stranger"]:
                if p not in to_act:
                    assert game.timeout_action(before, p) is None
                    continue
                first = game.timeout_action(before, p)
                assert first == game.timeout_action(before, p)  # deterministic
                dumped = game.dump(before)
                after, steps = _time_out(game, before, p)
                assert game.dump(before) == dumped  # the state was never mutated
                assert steps >= 1 and (p not in game.to_act(after) or not game.to_act(after))
                checked += 1
    wanted = game.facts.decisions
    assert wanted <= seen, f"walks missed {wanted - seen}"
    assert checked > 500


@pytest.mark.parametrize("kind", KINDS)
def test_timeouts_alone_keep_a_game_moving(kind: str) -> None:
    """Everyone asleep: the game still advances (never stuck on one player): the turn
    goes round every player, and the public view's round moves on."""
    game = engine.GAMES[kind]
    state = game.new_game(_players(game, 1), 5)
    start = game.view(state, None).get("round")
    turns = [game.current_turn(state)]
    for _ in range(30):
        for p in game.to_act(state):
            state, _ = _time_out(game, state, p)
        if game.current_turn(state) != turns[-1]:
            turns.append(game.current_turn(state))
    assert game.outcome(state) is None
    assert set(turns) == set(game.players(state)) and len(turns) >= 6
    if start is not None:
        assert game.view(state, None)["round"] >= start + 5


@pytest.mark.parametrize("kind", KINDS)
def test_no_timeout_once_the_game_is_over(kind: str) -> None:
    game = engine.GAMES[kind]
    # a game played to its natural end by the computer player's heuristic
    state = game.new_game(_players(game, 0), 3)
    for _ in range(3000):
        if not game.to_act(state):
            break
        p = game.to_act(state)[0]
        state, _ = game.apply(state, p, heuristic_action(game, state, p))
    assert game.outcome(state) is not None
    assert all(game.timeout_action(state, p) is None for p in [*game.players(state), "x"])
    # and one ended by a resignation in the middle of a decision
    for before, _p, _a, _after, _e in _walk(kind, 2, 40):
        state = before
    over = state
    for p in game.players(state):  # 3-4 players: resign until one is left
        if game.outcome(over) is None and p in game.still_in(over):
            over, _ = game.apply(over, p, "resign")
    assert game.outcome(over) is not None
    assert all(game.timeout_action(over, p) is None for p in game.players(over))


# -- Conqueror's safe default ------------------------------------------------------------

def test_conqueror_timeout_ends_the_turn_instead_of_moving_recruiting_or_building() -> None:
    s = cp.position(board={"b2": {"resource": "gold", "owner": "A", "soldiers": 4},
                           "c3": {"resource": "lumber", "owner": "B", "soldiers": 1}},
                    A={"ap": 5, "gold": 3, "lumber": 5})
    legal = CONQUEROR.legal_actions(s, "A")
    assert {"move b2 c3 4", "recruit 1", "fort b2", "convert lumber"} <= set(legal)
    assert CONQUEROR.timeout_action(s, "A") == "end"
    assert CONQUEROR.timeout_action(s, "B") is None
    after, events = CONQUEROR.apply(s, "A", "end")
    assert CONQUEROR.to_act(after) == ["B"] and after.board == s.board
    assert [e["type"] for e in events] == ["end_turn", "turn_start"]
    assert events[0]["ap_kept"] == 5  # nothing was spent for the sleeping player


# -- Liège's safe defaults ---------------------------------------------------------------

def test_liege_timeout_places_the_general_in_setup() -> None:
    s = LIEGE.new_game(["A", "B"], 1)
    assert LIEGE.timeout_action(s, "A") == "general e1"
    assert LIEGE.timeout_action(s, "B") is None
    s, _ = LIEGE.apply(s, "A", "general e1")
    assert LIEGE.timeout_action(s, "B") == "general e10"


@pytest.mark.parametrize("phase", ["general", "deploy", "move", "fight"])
def test_liege_timeout_ends_the_turn_in_every_phase(phase: str) -> None:
    # A could step, buy, shift, turn and attack; the default does none of it
    s = lp.position({"d5": lp.rifle("A"), "c4": lp.mg("A", "n"), "d6": lp.rifle("B")},
                    phase=phase, A={"general": "e2"})
    legal = LIEGE.legal_actions(s, "A")
    assert "attack d5 d6" in legal and "end" in legal
    assert LIEGE.timeout_action(s, "A") == "end"
    assert LIEGE.timeout_action(s, "B") is None
    after, events = LIEGE.apply(s, "A", "end")
    assert LIEGE.to_act(after) == ["B"]
    assert not any(e["type"] in ("fight", "buy", "shift", "general_move") for e in events)
    assert set(after.pieces) == set(s.pieces)


def test_liege_timeout_gives_up_the_cheapest_piece_after_a_real_fight() -> None:
    # A's Rifle beats B's Rifle, whose Machine Gun (beside, in range of d5) joined the
    # defence: B, off-turn, must choose, and the Machine Gun is first in board order.
    s = lp.position({"d5": lp.rifle("A"), "d6": lp.rifle("B"), "c5": lp.mg("B", "s")},
                    dice=[6, 1, 1, 1])
    s, events = LIEGE.apply(s, "A", "attack d5 d6")
    assert [e["type"] for e in events][-2:] == ["fight", "casualty_needed"]
    assert s.pending is not None and s.pending.choices == ["c5", "d6"]
    assert LIEGE.to_act(s) == ["B"] and LIEGE.timeout_action(s, "A") is None
    assert LIEGE.legal_actions(s, "B")[0] == "casualty c5"
    assert LIEGE.timeout_action(s, "B") == "casualty d6"  # a 20-credit Rifle, not the MG
    s, _ = LIEGE.apply(s, "B", "casualty d6")
    assert "d6" not in s.pieces and not s.pieces["c5"].damaged
    assert LIEGE.timeout_action(s, "A") == "end"  # and the turn goes on to its end


def _pending(pieces: dict[str, dict[str, Any]], choices: list[str], only_damage: bool = False,
             tokens: int = 5, **seat: Any) -> Any:
    return lp.position(pieces, extra={
        "pending": {"player": "B", "choices": choices, "only_damage": only_damage},
        "damage_tokens": tokens}, **seat)


@pytest.mark.parametrize("case,expected,lost", [
    # a life is dearer than any piece; a token on a Machine Gun (65) dearer than a Rifle (20)
    (dict(pieces={"d7": lp.rifle("B"), "c7": lp.mg("B", "s")}, choices=["c7", "d7", "e8"],
          B={"general": "e8"}), "d7", "destroyed"),
    # no damage token left: the Machine Gun loses nothing at all
    (dict(pieces={"d7": lp.rifle("B"), "c7": lp.mg("B", "s")}, choices=["c7", "d7"],
          tokens=0), "c7", "no token left"),
    # a Mortar whose owner will buy no more Missiles or Gas costs nothing to lose...
    (dict(pieces={"d7": lp.rifle("B"), "e7": lp.mortar("B", "s")}, choices=["d7", "e7"],
          B={"used": {"missile": 2, "gas": 2}}), "e7", "prices raised"),
    # ...but with all four still to buy its loss costs 80 in higher prices
    (dict(pieces={"d7": lp.rifle("B"), "e7": lp.mortar("B", "s")}, choices=["d7", "e7"]),
     "d7", "destroyed"),
    # the General in its Armored Vehicle (the vehicle, 210) against a damaged MG (130)
    (dict(pieces={"e8": lp.av("B"), "c7": lp.mg("B", "s", damaged=True)},
          choices=["c7", "e8"], B={"general": "e8"}), "c7", "destroyed"),
    # an empty Armored Vehicle (210) against the General's last life
    (dict(pieces={"d7": lp.av("B")}, choices=["d7", "e8"], B={"general": "e8", "lives": 1}),
     "d7", "destroyed"),
    # out of range: the Machine Gun and the General are unharmed, a Rifle would be damaged
    (dict(pieces={"c7": lp.rifle("B"), "d7": lp.mg("B", "s")}, choices=["c7", "d7"],
          only_damage=True), "d7", "unharmed"),
    # out of range: an already damaged Rifle changes nothing, a sound one takes a token
    (dict(pieces={"c7": lp.rifle("B"), "d7": lp.rifle("B", damaged=True)},
          choices=["c7", "d7"], only_damage=True), "d7", "already damaged"),
])
def test_liege_timeout_chooses_the_least_costly_casualty(case: dict[str, Any], expected: str,
                                                         lost: str) -> None:
    s = _pending(**case)
    assert LIEGE.timeout_action(s, "B") == f"casualty {expected}"
    assert LIEGE.timeout_action(s, "A") is None
    after, events = LIEGE.apply(s, "B", f"casualty {expected}")
    casualty = next(e for e in events if e["type"] == "casualty")
    assert casualty["result"] == lost and not any(e["type"] == "life_lost" for e in events)
    assert (expected in after.pieces) == (lost != "destroyed")
    assert after.seats[1].lives == s.seats[1].lives


# -- Battlecards' safe defaults ----------------------------------------------------------

def _shots(*numbers: int) -> list[str]:
    """Conflict cards with these Action Numbers, in order, to be flipped by shots (plain
    order cards first, as tests/test_battlecards_rules.py stacks them)."""
    pool: dict[int, list[str]] = {}
    for rank in ("other", "keep", "battle"):
        for c in CONFLICT:
            if {"battle": "battle", "keep": "keep"}.get(c.kind, "other") == rank:
                pool.setdefault(c.action_number, []).append(c.name)
    used: dict[int, int] = {}
    out = []
    for n in numbers:
        out.append(pool[n][used.get(n, 0)])
        used[n] = used.get(n, 0) + 1
    return out


def _bc(state: Any, *actions: str) -> Any:
    for action in actions:
        state, _ = BATTLECARDS.apply(state, BATTLECARDS.to_act(state)[0], action)
    return state


def test_battlecards_setup_deploys_and_never_touches_auto_fire() -> None:
    s = BATTLECARDS.new_game(["g", "b"], 4)
    assert BATTLECARDS.timeout_action(s, "g") == "deploy 1"
    s, steps = _time_out(BATTLECARDS, s, "g")
    assert steps == 3 and BATTLECARDS.to_act(s) == ["b"] and s.seats[0].autofire
    assert BATTLECARDS.timeout_action(s, "g") is None


def test_battlecards_turn_draws_rather_than_emergency_deploying() -> None:
    s = bp.position(g={"hand": ["1st Panzer Division", "U-47"]})
    assert BATTLECARDS.legal_actions(s, "g")[:2] == ["draw", "emergency"]
    assert BATTLECARDS.timeout_action(s, "g") == "draw"


def test_battlecards_offered_deployments_are_declined_with_done() -> None:
    s = _bc(bp.position(g={"hand": ["1st Panzer Division", "U-47"]}, deck=["Rail Movement"]),
            "draw")
    assert BATTLECARDS.legal_actions(s, "g")[0] == "deploy 1"
    assert BATTLECARDS.timeout_action(s, "g") == "done"
    after, _ = BATTLECARDS.apply(s, "g", "done")
    assert len(after.seats[0].hand) == 2 and BATTLECARDS.to_act(after) == ["b"]


def test_battlecards_a_battle_is_declined_and_the_homeland_not_emergency_deployed() -> None:
    s = _bc(bp.position(deck=["Dieppe Raid"], b={"stacks": ["HMS Hood"]},
                        g={"stacks": ["KMS Tirpitz"]}), "draw")
    assert BATTLECARDS.legal_actions(s, "b")[0] == "attack"
    assert BATTLECARDS.timeout_action(s, "b") == "decline"
    assert BATTLECARDS.timeout_action(s, "g") is None
    s = _bc(bp.position(g={"stacks": ["Jagdgeschwader 3"], "won": ["Battle of Britain"]},
                        b={"stacks": ["No. 19 Squadron"], "hand": ["No. 74 Squadron"]},
                        deck=["Invasion of Britain", *_shots(1, 1, 1, 1)]), "draw", "attack")
    assert BATTLECARDS.legal_actions(s, "b")[0] == "emergency"
    assert BATTLECARDS.timeout_action(s, "b") == "pass"


def test_battlecards_kept_cards_are_not_played() -> None:
    # offered before the round (auto-fire on)
    s = _bc(bp.position(g={"stacks": ["Jagdgeschwader 3"], "kept": ["Radar Warning"]},
                        b={"stacks": ["No. 19 Squadron"]},
                        deck=["Battle of Britain", *_shots(1, 1, 1, 1)]), "draw", "attack")
    assert BATTLECARDS.legal_actions(s, "g")[0] == "play 1 a1"
    assert BATTLECARDS.timeout_action(s, "g") == "pass"
    after, _ = BATTLECARDS.apply(s, "g", "pass")
    assert after.seats[0].kept == s.seats[0].kept
    # offered again before a later firing phase ("ready")
    s = _bc(bp.position(g={"stacks": ["Jagdgeschwader 3"],
                           "kept": ["Radar Warning", "Combined Arms"]},
                        b={"stacks": ["No. 19 Squadron"]},
                        deck=["Battle of Britain", *_shots(1, 1, 3, 3, 4, 4, 6, 6)]),
            "draw", "attack", "pass")
    assert s.battle.step == "ready"
    assert BATTLECARDS.timeout_action(s, "g") == "pass"


def test_battlecards_firing_by_hand_takes_the_auto_fire_shot_and_plays_no_card() -> None:
    s = _bc(bp.position(g={"stacks": ["Jagdgeschwader 3"], "autofire": False,
                           "kept": ["Radar Warning"]},
                        b={"stacks": ["No. 19 Squadron", "No. 617 Squadron"]},
                        deck=["Battle of Britain", *_shots(1, 1, 1, 1)]),
            "draw", "attack", "pass")
    legal = BATTLECARDS.legal_actions(s, "g")
    assert legal == ["play 1 a1", "fire a1 a1", "fire a1 a2", "autofire on"]
    # auto-fire prefers the bomber (attack 6 against defense 2), not the first listed
    assert BATTLECARDS.timeout_action(s, "g") == "fire a1 a2"
    after, _ = BATTLECARDS.apply(s, "g", "fire a1 a2")
    assert not after.seats[0].autofire and after.seats[0].kept == s.seats[0].kept


def test_battlecards_withdrawal_is_declined_with_stay() -> None:
    s = _bc(bp.position(g={"stacks": ["Jagdgeschwader 3", "Jagdgeschwader 26"]},
                        b={"stacks": ["No. 19 Squadron"]},
                        deck=["Battle of Britain",
                              *_shots(1, 1, 1, 2, 3, 3, 3, 7, 7, 7, 7, 8)]),
            "draw", "attack")
    assert BATTLECARDS.legal_actions(s, "g")[0] == "withdraw a1"
    assert BATTLECARDS.timeout_action(s, "g") == "stay"
    after, events = BATTLECARDS.apply(s, "g", "stay")
    assert not any(e["type"] == "withdraw" for e in events)
    assert BATTLECARDS.timeout_action(after, "b") == "stay"


# -- reversible over random play ---------------------------------------------------------


def _dice(state: Any) -> list[tuple[int, list[int]]]:
    """Every dice generator a state holds (in its fields, or directly inside them), as
    (generator state, forced results): what chance decides next."""
    found: list[tuple[int, list[int]]] = []

    def look(value: Any, depth: int) -> None:
        if isinstance(value, Dice):
            found.append((value.state, list(value.forced)))
        elif depth == 0 and dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                look(getattr(value, f.name), depth + 1)
        elif depth == 1 and isinstance(value, dict | list | tuple):
            for inner in value.values() if isinstance(value, dict) else value:
                look(inner, depth + 1)

    look(state, 0)
    return found


def _battlecards_undo_moves_no_card(before: Any, after: Any, events: list) -> None:
    """Battlecards: an action that may be undone moved no card and fired no shot."""
    assert (before.conflict_deck, before.conflict_discard, before.current) == (
        after.conflict_deck, after.conflict_discard, after.current)
    assert [s.hand for s in before.seats] == [s.hand for s in after.seats]
    assert not any(e["type"] == "shot" for e in events)


#: What one game also checks of every action it lets be undone (keyed by kind: about that
#: game alone; the generic checks run for every game).
UNDO_CHECKS: dict[str, Callable[[Any, Any, list], None]] = {
    "battlecards": _battlecards_undo_moves_no_card,
}


@pytest.mark.parametrize("kind", KINDS)
def test_reversible_never_passes_dice_cards_or_secrets_and_replays_exactly(kind: str) -> None:
    game = engine.GAMES[kind]
    verdicts: dict[str, set[bool]] = {}
    for seed in range(10):
        for before, player, action, after, events in _walk(kind, seed, 200):
            ok = game.reversible(before, after, events)
            verdicts.setdefault(action.split()[0], set()).add(ok)
            if _dice(before) != _dice(after) or any("private_to" in e for e in events):
                assert not ok
            if game.outcome(after) is not None:
                assert not ok
            if ok and kind in UNDO_CHECKS:
                UNDO_CHECKS[kind](before, after, events)
            if ok:  # undo by replay: the same action from the same position, exactly
                replayed, again = game.apply(game.load(game.dump(before)), player, action)
                assert game.dump(replayed) == game.dump(after) and again == events
                assert game.dump(game.apply(before, player, action)[0]) == game.dump(after)
    fixed = game.facts.fixed_undo
    for verb, expected in fixed.items():  # (gas, say, is rare in random play)
        assert verdicts.get(verb, {expected}) == {expected}, (verb, verdicts[verb])
    assert len(set(fixed) & set(verdicts)) >= len(fixed) - 2
    assert True in set().union(*verdicts.values())  # some actions may be undone


@pytest.mark.parametrize("kind", KINDS)
def test_an_action_with_a_private_event_is_never_reversible(kind: str) -> None:
    game = engine.GAMES[kind]
    state = game.new_game(_players(game, 0), 1)
    p = game.to_act(state)[0]
    action = game.timeout_action(state, p)
    after, events = game.apply(state, p, action)
    secret = [*events, {"type": "note", "private_to": p, "text": "only for you"}]
    assert not game.reversible(state, after, secret)
    assert not game.reversible(state, state, secret)
    assert game.reversible(state, state, [])  # nothing happened: nothing to protect


@pytest.mark.parametrize("kind", KINDS)
def test_resigning_is_never_reversible(kind: str) -> None:
    game = engine.GAMES[kind]
    state = game.new_game([f"p{i}" for i in range(game.max_players)], 2)
    after, events = game.apply(state, "p1", "resign")
    assert not game.reversible(state, after, events)


# -- reversible on scripted positions ----------------------------------------------------

def _conq(state: Any, action: str, player: str = "A") -> bool:
    after, events = CONQUEROR.apply(state, player, action)
    return CONQUEROR.reversible(state, after, events)


def test_conqueror_moves_and_bookkeeping_are_reversible() -> None:
    s = cp.position(board={"b2": {"resource": "gold", "owner": "A", "soldiers": 3},
                           "b3": {"resource": "blank"},
                           "c2": {"resource": "lumber", "fort": "B"}},
                    A={"ap": 5, "gold": 3, "lumber": 5})
    for action in ("move b2 b3 2", "move b2 c2 1", "recruit 2", "fort b2", "convert lumber",
                   "end"):
        assert _conq(s, action), action
    forted, _ = CONQUEROR.apply(s, "A", "fort b2")
    assert _conq(forted, "raze b2")


def test_conqueror_dice_and_battles_are_not_reversible() -> None:
    s = cp.position(board={"b2": {"resource": "gold", "owner": "A", "soldiers": 1},
                           "c2": {"resource": "lumber", "owner": "B", "soldiers": 3},
                           "a2": {"resource": "gold", "owner": "A", "soldiers": 4},
                           "a3": {"resource": "lumber", "owner": "B", "soldiers": 4}},
                    dice=[2, 3])
    # discovering a hidden square rolls (a forced result is used up)
    after, events = CONQUEROR.apply(s, "A", "move b2 b3 1")
    assert events[-1]["type"] == "discover" and after.dice.forced == [3]
    assert not CONQUEROR.reversible(s, after, events)
    # a hopeless attack rolls nothing, yet it is a battle and stands
    after, events = CONQUEROR.apply(s, "A", "move b2 c2 1")
    assert events[-1]["rule"] == "hopeless" and _dice(after) == _dice(s)
    assert not CONQUEROR.reversible(s, after, events)
    # an even battle rolls dice
    after, events = CONQUEROR.apply(s, "A", "move a2 a3 4")
    assert events[-1]["rule"] == "dice" and not CONQUEROR.reversible(s, after, events)


def _liege(state: Any, action: str, player: str = "A") -> tuple[bool, list]:
    after, events = LIEGE.apply(state, player, action)
    return LIEGE.reversible(state, after, events), events


def test_liege_steps_purchases_and_moves_are_reversible() -> None:
    s = lp.position({"d3": lp.rifle("A"), "c3": lp.mg("A", "n")}, phase="general",
                    A={"general": "e2"})
    for action in ("general e3", "buy rifle g2", "buy trench h5", "shift d3 d4", "turn c3 e",
                   "skip", "end"):
        ok, events = _liege(s, action)
        assert ok, (action, events)
    new = LIEGE.new_game(["A", "B"], 1)
    assert LIEGE.reversible(new, *LIEGE.apply(new, "A", "general e1"))


def test_liege_fights_blasts_and_casualties_are_not_reversible() -> None:
    s = lp.position({"d5": lp.rifle("A"), "d6": lp.rifle("B"), "c5": lp.mg("B", "s"),
                     "c3": lp.mortar("A", "n"), "g5": lp.rifle("A"), "g7": lp.rifle("B")},
                    phase="general", dice=[6, 1, 1, 1, 2, 2, 2, 2])
    ok, events = _liege(s, "attack d5 d6")
    assert not ok
    ok, events = _liege(s, "grenade g5 g7")
    assert not ok
    for weapon in ("missile", "gas"):  # no die is rolled: the blast itself stands
        after, events = LIEGE.apply(s, "A", f"{weapon} c3 c6")
        assert _dice(after) == _dice(s) and not LIEGE.reversible(s, after, events)
    fought, _ = LIEGE.apply(s, "A", "attack d5 d6")
    ok, events = _liege(fought, "casualty d6", "B")
    assert not ok and _dice(fought) == _dice(LIEGE.apply(fought, "B", "casualty d6")[0])


def test_liege_an_end_that_ends_the_game_is_not_reversible() -> None:
    # B's General already stands on its far edge: when B's turn begins, B wins
    s = lp.position({}, B={"general": "c1"})
    after, events = LIEGE.apply(s, "A", "end")
    assert LIEGE.outcome(after) is not None and not LIEGE.reversible(s, after, events)


def _bc_rev(state: Any, action: str) -> tuple[bool, Any, list]:
    player = BATTLECARDS.to_act(state)[0]
    after, events = BATTLECARDS.apply(state, player, action)
    return BATTLECARDS.reversible(state, after, events), after, events


def test_battlecards_cards_and_shots_are_never_reversible() -> None:
    s = bp.position(g={"hand": ["1st Panzer Division", "U-47"]}, deck=["Rail Movement"])
    assert not _bc_rev(s, "draw")[0]
    assert not _bc_rev(s, "emergency")[0]
    drawn = _bc(s, "draw")
    ok, _, events = _bc_rev(drawn, "deploy 1")
    assert not ok and any("private_to" in e for e in events)
    assert not _bc_rev(drawn, "done")[0]  # discards the order card
    decide = _bc(bp.position(deck=["Dieppe Raid"], b={"stacks": ["HMS Hood"]},
                             g={"stacks": ["KMS Tirpitz"]}), "draw")
    assert not _bc_rev(decide, "decline")[0]
    assert not _bc_rev(decide, "attack")[0]  # reveals the stacks
    by_hand = _bc(bp.position(g={"stacks": ["Jagdgeschwader 3"], "autofire": False,
                                 "kept": ["Radar Warning"]},
                              b={"stacks": ["No. 19 Squadron", "No. 617 Squadron"]},
                              deck=["Battle of Britain", *_shots(1, 1, 1, 1)]),
                  "draw", "attack", "pass")
    assert not _bc_rev(by_hand, "play 1 a1")[0]
    assert not _bc_rev(by_hand, "fire a1 a2")[0]
    assert not _bc_rev(by_hand, "autofire on")[0]  # switching it on fires at once
    # a keep card drawn is private; a scout report too
    assert not _bc_rev(bp.position(deck=["Radar Warning"]), "draw")[0]
    scout = _bc(bp.position(b={"stacks": ["HMS Hood"]}, deck=["Enigma Decrypts"]), "draw")
    assert not _bc_rev(scout, "scout sea")[0]


def test_battlecards_choices_that_touch_no_card_are_reversible() -> None:
    assert _bc_rev(bp.position(), "autofire off")[0]
    s = _bc(bp.position(g={"stacks": ["Jagdgeschwader 3", "Jagdgeschwader 26"]},
                        b={"stacks": ["No. 19 Squadron"]},
                        deck=["Battle of Britain",
                              *_shots(1, 1, 1, 2, 3, 3, 3, 7, 7, 7, 7, 8)]),
            "draw", "attack")
    ok, after, _ = _bc_rev(s, "withdraw a1")
    assert ok and after.battle is not None
    assert _bc_rev(s, "stay")[0]  # the defender decides next: nothing fired
    # the defender's last unit withdrawing ends the battle: cards go back, the card is won
    defender = _bc(s, "stay")
    assert not _bc_rev(defender, "withdraw a1")[0]
    # a support before firing by hand
    sup = _bc(bp.position(g={"stacks": ["Jagdgeschwader 3", "Adolf Galland"],
                             "autofire": False},
                          b={"stacks": ["No. 19 Squadron"]},
                          deck=["Battle of Britain", *_shots(9, 1, 1, 1, 1)]), "draw", "attack")
    assert BATTLECARDS.legal_actions(sup, "g")[0] == "support a2 a1"
    assert _bc_rev(sup, "support a2 a1")[0]

