"""Hidden information in Battlecards: no private card ever reaches the public view, the
other player's view, a public event, the narration, the notation or the legal actions."""

from __future__ import annotations

import random

from engine.battlecards import GAME
from engine.battlecards.ai import choose_action
from engine.battlecards.cards import ARSENAL, CONFLICT, SIDES, UNITS
from engine.core import public_events
from tests.properties import strings

ALL_NAMES = {c.name for c in CONFLICT} | {u.name for s in SIDES for u in ARSENAL[s]}
PRIVATE_KINDS = {u.name for u in UNITS.values()} | {c.name for c in CONFLICT
                                                     if c.kind == "keep"}


def private_cards(view, player):
    """Names and ids of the cards only ``player`` may see, from their own view."""
    me = next(p for p in view["players"] if p["id"] == player)
    cards = [*me["hand"], *me["kept"], *(c for cs in me["stack_cards"].values() for c in cs)]
    return {c["name"] for c in cards} | {c["id"] for c in cards}


def check_step(state, events, ever_public):
    ids = GAME.players(state)
    public = GAME.view(state, None)
    pub_events = public_events(events)
    revealed = set()  # legitimately made public by this step: the battle's units, a
    for e in pub_events:  # kept card played
        if e["type"] == "battle_start":
            revealed |= {u["name"] for u in e["units"]}
        if e["type"] == "kept_played":
            revealed.add(e["card"])
    narration = "\n".join(GAME.narrate(events))
    for p in ids:
        q = next(x for x in ids if x != p)
        secret = private_cards(GAME.view(state, p), p) - ever_public - revealed
        exposed = strings(public) | strings(GAME.view(state, q)) | strings(pub_events)
        leaked = secret & exposed
        assert not leaked, f"{p}'s private cards leaked: {leaked}"
        assert not any(name in narration for name in secret if name in ALL_NAMES)
        for e in events:  # a private event reaches its owner only
            if e.get("private_to") == q and e["type"] != "scout_report":  # scouting shows
                assert not (secret & strings(e))
        for action in GAME.legal_actions(state, p):
            assert not any(name.lower() in action for name in PRIVATE_KINDS)
        assert "hand" not in next(x for x in public["players"] if x["id"] == p)
    ever_public |= strings(public) | strings(pub_events) | revealed


def test_no_private_card_leaks_over_a_thousand_random_games():
    battles = 0
    for seed in range(1000):
        rng = random.Random(seed)
        state = GAME.new_game(["ger", "bri"], seed)
        ever_public: set[str] = set()
        for _ in range(35 + seed % 40):
            acting = GAME.to_act(state)
            if not acting:
                break
            p = rng.choice(acting)
            legal = GAME.legal_actions(state, p)
            action = rng.choice(legal) if rng.random() < 0.4 else choose_action(GAME, state, p)
            state, events = GAME.apply(state, p, action)
            battles += any(e["type"] == "battle_start" for e in events)
            check_step(state, events, ever_public)
            assert not any(n.lower() in state.last_move["action"] for n in PRIVATE_KINDS)
    assert battles > 200  # the games reach plenty of battles


def test_the_public_view_has_counts_only():
    state = GAME.new_game(["ger", "bri"], 5)
    for p in ("ger", "bri"):
        for _ in range(3):
            state, _ = GAME.apply(state, p, "deploy 1")
    public = GAME.view(state, None)
    for entry in public["players"]:
        assert {"hand", "kept", "stack_cards"}.isdisjoint(entry)
        assert entry["hand_count"] == 3 and sum(entry["stacks"].values()) == 3
    mine = GAME.view(state, "ger")
    assert len(mine["players"][0]["hand"]) == 3 and "hand" not in mine["players"][1]


def test_narrated_public_events_name_no_private_card():
    state = GAME.new_game(["ger", "bri"], 9)
    _, events = GAME.apply(state, "ger", "deploy 1")
    private = next(e for e in events if "private_to" in e)
    assert private["card"] not in "\n".join(GAME.narrate(events))
    assert all("private_to" not in e for e in public_events(events))


def test_what_a_seat_remembers_is_in_no_view_and_no_event():
    """A seat's memory of the enemy stacks (scouted cards, survivors gone back face down)
    and of what the decks were last made from is its own: every view is the same without
    it, and no event carries it."""
    remembered = reshuffled = 0
    for seed in range(100):
        rng = random.Random(seed)
        state = GAME.new_game(["ger", "bri"], seed)
        for _ in range(80):
            acting = GAME.to_act(state)
            if not acting:
                break
            p = acting[0]
            state, events = GAME.apply(state, p, choose_action(GAME, state, p)
                                       if rng.random() < 0.6
                                       else rng.choice(GAME.legal_actions(state, p)))
            bare = state.copy()
            for seat in bare.seats:
                seat.known, seat.deck_from = {f: [] for f in seat.known}, []
            bare.conflict_from = []
            for viewer in (None, "ger", "bri"):
                assert GAME.view(state, viewer) == GAME.view(bare, viewer)
            assert not any("known" in e or "deck_from" in e for e in events)
            remembered += any(c for seat in state.seats for c in seat.known.values())
            reshuffled += bool(state.conflict_from or state.seats[0].deck_from
                               or state.seats[1].deck_from)
    assert remembered > 250 and reshuffled > 0  # the games really remember something
