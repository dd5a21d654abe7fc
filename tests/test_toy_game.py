"""The toy sixth game's own rules (tests/toy_game), the run-time registration hooks it
uses (``engine.register``, ``render.register``) and the contract's defaults a game that
declares nothing gets. The generic suites run over the toy game elsewhere (its kind is
``"toy"`` in their parameters); what is only about it is here."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from PIL import Image

import engine
import render
from engine.core import Dice, GameFacts, IllegalAction
from render.common import load_palette
from tests import toy_game
from tests.fakegame import GAME as RACE
from tests.toy_game import GAME
from tests.toy_game.board import WIDTH
from tests.toy_game.state import CARDS, Raid, Seat, ToyState


def position(hands: list[list[str]], *, deck: list[str] | None = None, turn: int = 0,
             actions: int = 2, raid: Raid | None = None, dice: list[int] | None = None,
             scores: list[int] | None = None, stashes: list[list[str]] | None = None,
             target: int = 20) -> ToyState:
    """Seats ``a``, ``b``, ``c``... holding ``hands``; every other card in the deck (or
    ``deck`` first, the rest in the discard pile)."""
    seats = [Seat(chr(ord("a") + i), (scores or [0] * len(hands))[i], list(h),
                  list((stashes or [[]] * len(hands))[i])) for i, h in enumerate(hands)]
    used = {c for s in seats for c in s.hand + s.stash}
    rest = [c for c in CARDS if c not in used]
    top = deck if deck is not None else rest
    return ToyState(seats, list(top), [c for c in rest if c not in top],
                    Dice(7, list(dice or [])), 12, target, turn=turn, actions=actions,
                    raid=raid)


def test_a_raid_asks_the_raided_player_off_turn() -> None:
    s = position([["gold1", "copper1"], ["ruby1", "shield1", "crown1"]])
    s, events = GAME.apply(s, "a", "raid 2 1")
    assert events == [{"type": "raid", "player": "a", "target": "b", "seat": 2, "slot": 1}]
    assert GAME.to_act(s) == ["b"] and GAME.current_turn(s) == "a"
    assert GAME.legal_actions(s, "b") == ["block 2", "block 3", "yield"]  # not the raided one
    assert GAME.decision(s) == "raid" and GAME.view(s, None)["prompt"].startswith("Seat 2")
    with pytest.raises(IllegalAction, match="not your turn"):
        GAME.apply(s, "a", "pass")
    assert GAME.timeout_action(s, "b") == "yield" and GAME.timeout_action(s, "a") is None


def test_yielding_hands_the_card_over_privately() -> None:
    s, _ = GAME.apply(position([["gold1"], ["ruby1", "crown1"]]), "a", "raid 2 2")
    s, events = GAME.apply(s, "b", "yield")
    assert s.seats[0].hand == ["gold1", "crown1"] and s.seats[1].hand == ["ruby1"]
    private = {e["private_to"]: e for e in events if "private_to" in e}
    assert private["a"]["card"] == private["b"]["card"] == "Crown #1"
    assert not any("Crown" in line for line in GAME.narrate(events))   # the channel: no name
    assert GAME.to_act(s) == ["a"] and s.actions == 1                  # a's turn goes on


def test_a_shield_always_blocks_and_a_coin_blocks_on_a_low_roll() -> None:
    raided, _ = GAME.apply(position([["gold1"], ["ruby1", "shield1", "copper1"]],
                                    dice=[6, 2]), "a", "raid 2 1")
    held, events = GAME.apply(raided, "b", "block 2")       # the shield: no die rolled
    assert events[0]["held"] and events[0]["roll"] is None and held.dice.forced == [6, 2]
    assert held.seats[1].hand == ["ruby1", "copper1"] and held.discard[-1] == "shield1"
    failed, events = GAME.apply(raided, "b", "block 3")     # a copper holds on 1-2 only: 6
    assert events[0] == {"type": "block", "player": "b", "raider": "a", "card": "Copper Coin #1",
                         "value": 1, "roll": 6, "held": False}
    assert failed.seats[0].hand == ["gold1", "ruby1"] and failed.seats[1].hand == ["shield1"]
    assert not GAME.reversible(raided, failed, events)


def test_playing_scores_draws_privately_and_can_end_the_game() -> None:
    s = position([["crown1", "gold1"], ["ruby1"]], deck=["silver2"], scores=[16, 3],
                 stashes=[[], ["crown2"]])
    s, events = GAME.apply(s, "a", "play 1")
    assert s.seats[0].score == 21 and s.seats[0].hand == ["gold1", "silver2"]
    assert [e for e in events if "private_to" in e] == [
        {"type": "drew", "player": "a", "card": "Silver Cup #2", "private_to": "a"}]
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.winners == ("a",) and outcome.standings == ("a", "b")
    assert outcome.reason == "a player reached 20 points"
    assert events[-1]["stashes"] == {"a": [], "b": ["Crown #2"]}       # revealed at the end
    assert GAME.to_act(s) == [] and GAME.view(s, None)["players"][1]["total"] == 8


def test_turns_rounds_and_the_last_round() -> None:
    s = position([["gold1"], ["ruby1"], ["copper1"]])
    s, _ = GAME.apply(s, "a", "stash 1")
    assert GAME.current_turn(s) == "a" and s.actions == 1            # one action left
    s, events = GAME.apply(s, "a", "pass")
    assert events[-1] == {"type": "turn", "player": "b", "round": 1}
    s, _ = GAME.apply(s, "b", "pass")
    s, events = GAME.apply(s, "c", "pass")
    assert events[-1] == {"type": "turn", "player": "a", "round": 2}
    s.round = s.rounds
    for p in "abc":
        s, events = GAME.apply(s, p, "pass")
    assert GAME.outcome(s) is not None and events[-1]["reason"] == "the last round was played"


def test_resigning_calls_off_a_raid_and_skips_the_seat() -> None:
    raided, _ = GAME.apply(position([["gold1"], ["ruby1"], ["copper1"]], actions=1),
                           "a", "raid 2 1")
    s, events = GAME.apply(raided, "b", "resign")
    assert [e["type"] for e in events] == ["resign", "raid_off", "turn"]
    assert s.raid is None and GAME.current_turn(s) == "c" and GAME.still_in(s) == ["a", "c"]
    assert "ruby1" in s.discard and not GAME.reversible(raided, s, events)
    with pytest.raises(IllegalAction):
        GAME.apply(s, "b", "resign")
    s, _ = GAME.apply(s, "a", "resign")
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.standings == ("c", "a", "b")


def test_refusals_say_what_to_do() -> None:
    s = position([["gold1"], ["ruby1"]])
    for bad in ("play 3", "raid 1 1", "block 1", "dance", "play x", "raid 2"):
        with pytest.raises(IllegalAction):
            GAME.apply(s, "a", bad)
    with pytest.raises(IllegalAction, match="not playing"):
        GAME.apply(s, "zed", "pass")
    assert GAME.apply(s, "a", "  PLAY   1 ")[0].seats[0].score == 3


def test_the_position_format_round_trips_and_refuses_nonsense() -> None:
    s, _ = GAME.apply(position([["gold1", "copper1"], ["ruby1"]], dice=[3]), "a", "raid 2 1")
    text = GAME.dump(s)
    assert GAME.dump(GAME.load(text)) == text and GAME.load(text).raid == s.raid
    for broken in ("[]", text.replace('"gold1"', '"gold9"'), text.replace('"toy"', '"race"'),
                   text.replace('"gold1",', '"gold1","gold1",')):
        with pytest.raises(IllegalAction):
            GAME.load(broken)


def test_determinize_redeals_only_what_the_player_cannot_see() -> None:
    s = position([["gold1", "copper1"], ["ruby1", "crown1", "shield2"]],
                 stashes=[["silver1"], ["crown2"]])
    twin = position([["gold1", "copper1"], ["ruby2", "crown3", "shield4"]],
                    stashes=[["silver1"], ["copper3"]])
    one = GAME.determinize(s, "a", random.Random(5))
    assert one.seats[0].hand == ["gold1", "copper1"] and one.seats[0].stash == ["silver1"]
    assert [len(x.hand) for x in one.seats] == [2, 3] and len(one.seats[1].stash) == 1
    assert sorted([*one.deck, *(c for x in one.seats for c in x.hand + x.stash)]) == sorted(
        c for c in CARDS if c not in s.discard)
    # what a cannot see plays no part: the twin redeals the same for the same rng
    assert GAME.dump(GAME.determinize(twin, "a", random.Random(5))) == GAME.dump(one)
    assert GAME.dump(GAME.determinize(s, "a", random.Random(6))) != GAME.dump(one)
    assert GAME.dump(s) == GAME.dump(position([["gold1", "copper1"],
                                                ["ruby1", "crown1", "shield2"]],
                                               stashes=[["silver1"], ["crown2"]]))


def test_labels_come_from_the_callers_own_view() -> None:
    s = position([["gold1", "copper1"], ["ruby1"]], scores=[0, 7])
    own = GAME.view(s, "a")
    assert GAME.choice_labels(own, "card", ["1", "2"]) == ["1 · Gold Ring #1 (3)",
                                                           "2 · Copper Coin #1 (1)"]
    assert GAME.choice_labels(own, "seat", ["2"]) == ["2 · 7 points, 1 cards"]
    public = GAME.view(s, None)
    assert GAME.choice_labels(public, "card", ["1"]) == ["1"]          # no hand shown there
    assert "hand" not in public["players"][0] and own["players"][0]["hand"][0]["slot"] == 1


# -- the hooks: registering a game from outside the packages --------------------------------


def test_engine_register_adds_a_game_for_this_process_only_and_checks_it() -> None:
    assert "toy" not in engine.GAMES
    with toy_game.registered() as game:
        assert engine.get_game("toy") is game and engine.register(game) is game  # again: fine
        with pytest.raises(ValueError, match="already"):
            engine.register(type(GAME)())                # another game under the same kind
        assert render.renderer("toy") is toy_game.render_board and "toy" in render.kinds()
    assert "toy" not in engine.GAMES and "toy" not in render.kinds()
    with pytest.raises(IllegalAction):
        engine.get_game("toy")
    with pytest.raises(ValueError):
        render.renderer("toy")
    with pytest.raises(TypeError):
        engine.register(object())                        # type: ignore[arg-type]
    bad = type(GAME)()
    bad.kind = "Toy Game"                                # type: ignore[misc]
    with pytest.raises(ValueError):
        engine.register(bad)
    engine.unregister("toy")                             # nothing to take out: nothing happens


def test_render_register_refuses_kinds_it_already_draws() -> None:
    for kind in ("conqueror", "common", "Toy", "../x"):
        with pytest.raises(ValueError):
            render.register(kind, toy_game.render_board)
    with pytest.raises(TypeError):
        render.register("toy", "not a function")         # type: ignore[arg-type]
    assert "toy" not in render.kinds()


def test_a_game_without_a_palette_file_renders(toy: Any) -> None:
    assert load_palette("toy") is None                   # no render/palettes/toy.txt
    state = GAME.new_game(["1", "2", "3", "4"], 9)
    png = render.render("toy", GAME.view(state, None), None, {"1": "Ada"})
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG" and image.size[0] == WIDTH and image.mode == "P"


# -- the contract's defaults for a game that declares nothing -------------------------------


def test_a_game_that_declares_nothing_gets_the_defaults() -> None:
    state = RACE.new_game(["x", "y"], 1)
    assert RACE.facts == GameFacts() and RACE.facts.board_shows == {"turn", "score"}
    assert RACE.decision(state) == "turn"                # its view has no phase
    assert RACE.still_in(state) == ["x", "y"]
    over, _ = RACE.apply(state, "x", "resign")
    assert RACE.still_in(over) == [] and not RACE.reversible(state, over, [])
    assert GAME.decision(GAME.new_game(["x", "y"], 1)) == "turn"   # the view's phase
