"""What a seat has legitimately seen, and the computer remembers (issue 31).

A computer player sees a position only through ``Game.determinize``. In Battlecards a seat
remembers the enemy cards it saw on the enemy stacks (scouted, or survivors of a battle that
went back face down); in Napoleonic Wars each side remembers which cards of the discard pile
it saw go there (played face up, or its own face-down discards). These tests check how that
memory is kept up to date, that the position format carries it, that determinizations keep
it (and depend on nothing else the player cannot see), that it never reaches a view or an
event, that it changes no rule (the same games are played bit for bit), and that the
computer's decisions use it.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from typing import Any

import pytest

from engine import search
from engine.battlecards import GAME as BC
from engine.battlecards.cards import ARSENAL, CONFLICT, FORCES, UNITS
from engine.battlecards.state import BattlecardsState
from engine.core import Game, IllegalAction
from engine.liege import GAME as LIEGE
from engine.napoleon import GAME as NW
from engine.napoleon.cards import DECK
from engine.napoleon.state import NapoleonState
from tests import battlecards_positions as bp
from tests import napoleon_positions as npos

ids = bp.ids
BOMBERS = ["No. 617 Squadron", "No. 83 Squadron", "No. 35 Squadron", "No. 101 Squadron"]


def _no_memory_bc(state: BattlecardsState, decks: bool = False) -> BattlecardsState:
    """``state`` without the seats' memory of the stacks (and, with ``decks``, without
    what the decks were last made from)."""
    new = state.copy()
    for seat in new.seats:
        seat.known = {f: [] for f in FORCES}
        if decks:
            seat.deck_from = []
    if decks:
        new.conflict_from = []
    return new


def _no_memory_nw(state: NapoleonState) -> NapoleonState:
    new = state.copy()
    new.seen = {s: [] for s in new.seen}
    return new


def _view_text(game: Game[Any], state: Any, player: str | None) -> str:
    return json.dumps(game.view(state, player), sort_keys=True)


# -- Battlecards: the updates ------------------------------------------------------------

def _scouting() -> BattlecardsState:
    """The German holds a scout card to resolve; the British have three air units."""
    return bp.position(
        g={"stacks": ["Jagdgeschwader 3", "1st Panzer Division"], "won": ["Battle of Britain"]},
        b={"stacks": ["No. 617 Squadron", "No. 83 Squadron", "No. 35 Squadron",
                      "7th Armoured Division"], "hand": ["No. 19 Squadron"]},
        phase="resolve", current="Photo Reconnaissance",
        pending={"kind": "scout", "player": "g", "left": 0})


def test_scouting_remembers_the_whole_stack_secretly() -> None:
    s = _scouting()
    assert all(not v for seat in s.seats for v in seat.known.values())
    after, events = BC.apply(s, "g", "scout air")
    g, b = after.seats
    assert g.known == {"ground": [], "air": b.stacks["air"], "sea": []}
    assert b.known == {f: [] for f in FORCES}  # the British saw nothing
    # no event, no view says more than before: the report is the scout's own private event
    assert [e["type"] for e in events] == ["scouted", "scout_report", "turn"]
    assert [e["private_to"] for e in events if "private_to" in e] == ["g"]
    for viewer in (None, "b", "g"):
        assert BC.view(after, viewer) == BC.view(_no_memory_bc(after), viewer)
        assert "known" not in _view_text(BC, after, viewer)
    public = _view_text(BC, after, None)
    assert not any(UNITS[c].name in public or c in public for c in b.stacks["air"])
    # the position format carries it; loading gives it back
    assert json.loads(BC.dump(after))["players"][0]["known"]["air"] == b.stacks["air"]
    assert BC.load(BC.dump(after)).seats[0].known == g.known
    # a deployment on top of the stack is not seen: the memory stays the bottom
    mid, _ = BC.apply(after, "b", "draw")  # (whatever the British draw)
    assert mid.seats[0].known["air"] == b.stacks["air"]


def test_a_battle_forgets_the_revealed_stacks_and_remembers_the_survivors() -> None:
    # The German knows the British air stack (scouted) and the British know a German ground
    # unit; the Battle of Britain reveals both air stacks. Shots flip AN 5 (hit) then 1.
    s = bp.position(
        g={"stacks": ["Jagdgeschwader 3", "1st Panzer Division"],
           "known": ["No. 617 Squadron", "No. 83 Squadron", "No. 35 Squadron"]},
        b={"stacks": ["No. 617 Squadron", "No. 83 Squadron", "No. 35 Squadron"],
           "known": ["1st Panzer Division"]},
        deck=["Photo Reconnaissance", "Volunteers"],
        phase="decide", current="Battle of Britain",
        pending={"kind": "decide", "player": "g", "left": 0})
    s, _ = BC.apply(s, "g", "attack")
    assert s.battle is not None and s.battle.step == "withdraw"
    g, b = s.seats
    assert g.known["air"] == [] and b.known["air"] == []      # revealed: nothing face down
    assert b.known["ground"] == ids(["1st Panzer Division"])  # not in this battle
    s, _ = BC.apply(s, "g", "stay")
    s, _ = BC.apply(s, "b", "withdraw a2")
    s, _ = BC.apply(s, "b", "withdraw a3")
    assert s.battle is None and ids(["Battle of Britain"]) == s.seats[0].won
    g, b = s.seats
    # the destroyed bomber is public in the discard; the withdrawn ones went back face
    # down, seen by the German; the German fighter went back, seen by the British
    assert b.discard == ids(["No. 617 Squadron"])
    assert g.known["air"] == b.stacks["air"] == ids(["No. 83 Squadron", "No. 35 Squadron"])
    assert b.known["air"] == g.stacks["air"] == ids(["Jagdgeschwader 3"])
    assert b.known["ground"] == ids(["1st Panzer Division"])
    assert BC.dump(BC.load(BC.dump(s))) == BC.dump(s)


def test_old_positions_load_with_no_memory_and_bad_memory_is_refused() -> None:
    s = _scouting()
    data = json.loads(BC.dump(s))
    assert all("known" not in p for p in data["players"])  # nothing remembered, not written
    assert BC.load(json.dumps(data)).seats[0].known == {f: [] for f in FORCES}
    data["players"][0]["known"] = {"air": ids(["No. 19 Squadron"])}  # not on that stack
    with pytest.raises(IllegalAction, match="known air"):
        BC.load(json.dumps(data))
    data["players"][0]["known"] = {"space": []}
    with pytest.raises(IllegalAction, match="known has"):
        BC.load(json.dumps(data))


def test_determinize_keeps_the_remembered_cards_and_redeals_the_rest() -> None:
    s, _ = BC.apply(_scouting(), "g", "scout air")
    s, _ = BC.apply(s, "b", "emergency")  # a fighter deployed on top, unseen
    truth = s.seats[1].stacks
    known = s.seats[0].known["air"]
    assert truth["air"] == [*known, *ids(["No. 19 Squadron"])]
    redealt, on_top = set(), set()
    for seed in range(12):
        det = BC.determinize(s, "g", random.Random(seed))
        theirs = det.seats[1]
        assert theirs.stacks["air"][:len(known)] == known
        assert len(theirs.stacks["air"]) == len(truth["air"])
        on_top.add(theirs.stacks["air"][-1])
        redealt.add(tuple(theirs.stacks["ground"]))
        assert BC.view(det, "g") == BC.view(s, "g")
        assert BC.dump(BC.load(BC.dump(det))) == BC.dump(det)
    assert len(redealt) > 1 and len(on_top) > 1  # what was not seen is redealt
    # without the memory, the scouted cards are redealt like any other
    bare = _no_memory_bc(s)
    dealt = {tuple(BC.determinize(bare, "g", random.Random(seed)).seats[1].stacks["air"])
             for seed in range(12)}
    assert any(d[:len(known)] != tuple(known) for d in dealt)


def test_remembered_cards_make_twins_differ_only_where_unseen() -> None:
    """Two states that differ only in British cards the German never saw give the same
    determinization for the same rng, memory and all."""
    s, _ = BC.apply(_scouting(), "g", "scout air")
    twin = s.copy()
    b = twin.seats[1]
    # trade the unscouted ground unit with a ground unit of the British deck
    j = next(i for i, c in enumerate(b.deck) if UNITS[c].stack == "ground")
    b.stacks["ground"][0], b.deck[j] = b.deck[j], b.stacks["ground"][0]
    b.deck.reverse()
    assert BC.dump(twin) != BC.dump(s) and BC.view(twin, "g") == BC.view(s, "g")
    for seed in range(4):
        one = BC.determinize(s, "g", random.Random(seed))
        two = BC.determinize(twin, "g", random.Random(seed))
        assert BC.dump(one) == BC.dump(two)


def test_a_reshuffled_arsenal_is_made_of_the_discards_everyone_saw() -> None:
    """The British arsenal deck is empty; drawing shuffles their (public) discard pile into
    it. The German then knows the deck holds only those cards: a determinization deals it
    from them, and the British hand and stacks from the rest."""
    hand, stacks = ["No. 19 Squadron", "HMS Hood"], ["7th Armoured Division", "HMS Kelly"]
    rest = [bp.NAME[c.id] for c in ARSENAL["british"]
            if bp.NAME[c.id] not in {*hand, *stacks}]
    s = bp.position(g={"stacks": ["1st Panzer Division"]},
                    b={"hand": hand, "stacks": stacks, "discard": rest},
                    deck=["Training Schools"], turn="b")
    assert s.seats[1].deck == [] and s.seats[0].deck_from == []
    s, _ = BC.apply(s, "b", "draw")  # draw 1 arsenal card: the pile is reshuffled first
    g, b = s.seats
    assert g.deck_from == sorted(ids(rest)) and b.deck_from == []
    assert len(b.hand) == 3 and b.discard == []
    assert BC.load(BC.dump(s)).seats[0].deck_from == g.deck_from
    assert BC.view(s, "g") == BC.view(_no_memory_bc(s, decks=True), "g")
    for seed in range(10):
        det = BC.determinize(s, "g", random.Random(seed))
        theirs = det.seats[1]
        assert set(theirs.deck) <= set(ids(rest))
        assert set(ids(hand)) <= set(theirs.hand) | {c for f in FORCES
                                                     for c in theirs.stacks[f]}
    bare = _no_memory_bc(s, decks=True)
    assert any(not set(BC.determinize(bare, "g", random.Random(seed)).seats[1].deck)
               <= set(ids(rest)) for seed in range(10))
    data = json.loads(BC.dump(s))
    data["players"][0]["deck_from"] = ids(["No. 19 Squadron"])  # not all of the deck
    with pytest.raises(IllegalAction, match="deck_from"):
        BC.load(json.dumps(data))


def test_a_reshuffled_conflict_deck_tells_which_keep_card_is_kept() -> None:
    """The conflict deck is empty; the British hold Radar Warning, every other card not won
    is in the discard pile. Once the pile becomes the deck, the British kept card can only
    be the one keep card not in it."""
    kept, won = ["Radar Warning"], ["Battle of Britain"]
    others = [c.name for c in CONFLICT if c.name not in {*kept, *won}]
    s = bp.position(g={"stacks": ["1st Panzer Division"], "won": won},
                    b={"stacks": ["7th Armoured Division"], "kept": kept},
                    discard=others)
    assert s.conflict_deck == []
    s, _ = BC.apply(s, "g", "draw")
    assert s.conflict_from == sorted(ids(others))
    assert json.loads(BC.dump(s))["conflict"]["deck_from"] == s.conflict_from
    for seed in range(10):
        det = BC.determinize(s, "g", random.Random(seed))
        assert det.seats[1].kept == ids(kept)
        assert set(det.conflict_deck) <= set(s.conflict_from)
    bare = _no_memory_bc(s, decks=True)
    assert any(BC.determinize(bare, "g", random.Random(seed)).seats[1].kept != ids(kept)
               for seed in range(10))


# -- Battlecards: the computer uses what it scouted ---------------------------------------

def _invasion_after_scouting() -> BattlecardsState:
    """The German scouts the British air stack (four bombers, which cannot fire at air
    units: harmless to a fighter); then the British draw the Invasion of Britain, a German
    battle that ends the game for whoever wins it. The British fighters are somewhere in
    their arsenal, the other air units in their discard pile. Attacking wins the war for
    sure against bombers, and most likely loses it against a stack dealt at random."""
    s = bp.position(
        g={"stacks": ["Jagdgeschwader 3", "1st Panzer Division", "KMS Bismarck"],
           "hand": ["6th Infantry Division"], "won": ["Battle of Britain"]},
        b={"stacks": BOMBERS,
           "discard": ["No. 181 Squadron", "No. 245 Squadron", "No. 201 Squadron",
                       "Hugh Dowding", "Arthur Harris"]},
        deck=["Invasion of Britain"],
        phase="resolve", current="Photo Reconnaissance",
        pending={"kind": "scout", "player": "g", "left": 0})
    s, _ = BC.apply(s, "g", "scout air")
    s, _ = BC.apply(s, "b", "draw")
    assert s.pending is not None and s.pending.kind == "decide" and s.pending.player == "g"
    assert s.seats[0].known["air"] == ids(BOMBERS)
    return s


def test_the_computer_attacks_a_stack_it_scouted_as_harmless() -> None:
    s = _invasion_after_scouting()
    bare = _no_memory_bc(s)
    assert BC.view(bare, "g") == BC.view(s, "g")  # the memory is in no view
    for seed in (0, 1):
        # no time cap: a busy machine must not cut the search short
        remembered = search.choose(BC, s, "g", seed=seed, iterations=200, seconds=math.inf)
        forgotten = search.choose(BC, bare, "g", seed=seed, iterations=200, seconds=math.inf)
        # a search sure of its move may stop before its budget (search._decided)
        assert 0 < remembered.iterations <= 200 and 0 < forgotten.iterations <= 200
        assert remembered.action == "attack", remembered.ranking
        assert forgotten.action == "decline", forgotten.ranking
        value = {a: v for a, _, v in remembered.ranking}
        bare_value = {a: v for a, _, v in forgotten.ranking}
        # medium plays out with the seasoned policy, whose British keep their bombers in
        # the battle to draw fire: 0.72-0.76 for the attack remembered, 0.01-0.02 forgotten
        assert value["attack"] > 0.65 and bare_value["attack"] < 0.1


# -- Napoleonic Wars ------------------------------------------------------------------------

F, A = npos.F, npos.A
ALLIED_SIX = ["leipzig", "katzbach", "eylau", "waterloo", "maida", "sacile"]


def _after_a_battle() -> NapoleonState:
    """The French attack Austria: both play a card face up (Austerlitz, Aspern); then the
    Allies, over the hand limit, discard one card face down."""
    s = npos.position({"rhineland": 10}, {"austria": 6}, forced=[6, 1, 4, 5, 6],
                      hands={"french": ["austerlitz"], "allies": ["aspern", *ALLIED_SIX]})
    s, _ = npos.play(s, "move 10 rhineland austria", "end", "play austerlitz", "ready",
                     "play aspern", "ready")
    assert s.discard == ["austerlitz", "aspern"]
    assert s.seen == {"french": [0, 1], "allies": [0, 1]}
    assert s.phase == "discard" and s.turn == "allies"
    s, events = npos.play(s, "discard maida")
    assert s.discard == ["austerlitz", "aspern", "maida"]
    assert s.seen == {"french": [0, 1], "allies": [0, 1, 2]}  # face down: the Allies only
    assert not any("seen" in json.dumps(e) for e in events if "private_to" not in e)
    return s


def test_napoleon_remembers_cards_played_and_own_discards() -> None:
    s = _after_a_battle()
    for viewer in (None, F, A):
        assert "seen" not in _view_text(NW, s, viewer)
        assert NW.view(s, viewer) == NW.view(_no_memory_nw(s), viewer)
    assert json.loads(NW.dump(s))["seen"] == {"french": [0, 1], "allies": [0, 1, 2]}
    assert NW.load(NW.dump(s)).seen == s.seen
    # a forced march is played face up: both remember it
    m = npos.position({"rhineland": 6}, {"russia": 1}, hands={"french": ["forced-march"]},
                      discard=["paris"], seen={"allies": [0]})
    m, _ = npos.play(m, "move 6 rhineland switzerland", "march switzerland")
    assert m.discard == ["paris", "forced-march"]
    assert m.seen == {"french": [1], "allies": [0, 1]}


def test_a_reshuffle_forgets_where_the_discards_are() -> None:
    others = [c for c in DECK if c != "paris"]
    s = npos.position({"france": 1}, {"england": 1}, deck=["paris"], discard=others,
                      seen={"french": [0, 1, 2], "allies": [3]})
    s, _ = npos.play(s, "end")
    assert s.discard == [] and s.seen == {"french": [], "allies": []}
    assert "seen" not in json.loads(NW.dump(s))


def test_napoleon_old_positions_load_with_no_memory_and_bad_memory_is_refused() -> None:
    s = npos.position({"france": 1}, {"england": 1}, discard=["paris", "ulm"])
    assert s.seen == {"french": [], "allies": []}
    for bad, why in (({"french": [2]}, "seen.french"), ({"allies": [1, 0]}, "ascending"),
                     ({"prussia": []}, "not a side")):
        with pytest.raises(IllegalAction, match=why):
            npos.position({"france": 1}, {"england": 1}, discard=["paris", "ulm"], seen=bad)


def test_cards_seen_played_stay_in_the_determinized_discard() -> None:
    s = _after_a_battle()
    allies_hand = set(s.hands["allies"])
    moved = 0
    for seed in range(20):
        det = NW.determinize(s, F, random.Random(seed))
        # seen face up: where they are, so not in the Allies' dealt hand
        assert det.discard[:2] == ["austerlitz", "aspern"]
        assert "aspern" not in det.hands["allies"]
        moved += det.discard[2] != "maida"  # the Allies' face-down discard is redealt
        assert NW.view(det, F) == NW.view(s, F)
        assert NW.dump(NW.load(NW.dump(det))) == NW.dump(det)
        # the Allies remember their own discard too
        mine = NW.determinize(s, A, random.Random(seed))
        assert mine.discard == s.discard and set(mine.hands["allies"]) == allies_hand
    assert moved > 10
    # without the memory, the cards played are redealt: Aspern turns up in the Allied hand
    bare = _no_memory_nw(s)
    dealt = [NW.determinize(bare, F, random.Random(seed)) for seed in range(60)]
    assert any("aspern" in d.hands["allies"] for d in dealt)
    assert any(d.discard[:2] != ["austerlitz", "aspern"] for d in dealt)


def test_napoleon_twins_differ_only_in_unseen_discards() -> None:
    s = _after_a_battle()
    twin = s.copy()
    j = next(i for i, c in enumerate(twin.deck) if c != "maida")
    twin.discard[2], twin.deck[j] = twin.deck[j], twin.discard[2]  # the unseen discard
    twin.hands["allies"][0], twin.deck[-1] = twin.deck[-1], twin.hands["allies"][0]
    assert NW.dump(twin) != NW.dump(s) and NW.view(twin, F) == NW.view(s, F)
    for seed in range(4):
        assert NW.dump(NW.determinize(s, F, random.Random(seed))) == \
            NW.dump(NW.determinize(twin, F, random.Random(seed)))


# -- the memory changes no rule: the same games, bit for bit --------------------------------

#: Digests of 50 random games each (their actions, events and final positions without the
#: memory fields), recorded before the memory was added (commit ff7d78f).
BEFORE = {
    "battlecards": "c59cb0715834236e5d0ddc0b6651aeec6b79eda119fc96c35fbcb94db24b3b73",
    "napoleon": "5cc97fe7c3951d03893093bb41537e4d92cdb1f0084074b3354251b786884ec8",
    # before Liège counted quiet turns (``quiet``, each seat's ``closest``; issue 31)
    "liege": "5328a38b192b7da7a1cb61407bf690e1dc0b208fe2fb81bc4a08d7c7d85c71d0",
}
MEMORY_FIELDS = ("known", "deck_from", "seen", "quiet", "closest")


def _without_memory(text: str) -> str:
    data = json.loads(text)
    for part in (data, *data.get("players", []), data.get("conflict", {})):
        if isinstance(part, dict):
            for name in MEMORY_FIELDS:
                part.pop(name, None)
    return json.dumps(data, sort_keys=True)


def _digest(game: Game[Any], seeds: range, steps: int = 4000) -> str:
    h = hashlib.sha256()
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_game(["p1", "p2"], seed)
        for _ in range(steps):
            if game.outcome(state) is not None:
                break
            pid = game.to_act(state)[0]
            action = rng.choice(game.legal_actions(state, pid))
            state, events = game.apply(state, pid, action)
            h.update(f"{pid}:{action}|{json.dumps(events, sort_keys=True)}\n".encode())
        h.update(_without_memory(game.dump(state)).encode())
    return h.hexdigest()


@pytest.mark.parametrize("game", [pytest.param(BC, id="battlecards"),
                                  pytest.param(NW, id="napoleon"),
                                  pytest.param(LIEGE, id="liege")])
def test_the_memory_changes_no_game(game: Game[Any]) -> None:
    assert _digest(game, range(50)) == BEFORE[game.kind]
