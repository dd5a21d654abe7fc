"""Toy Raid's rules: the :class:`engine.core.Game` the generic suites run as a sixth game.

2-4 players hold hidden hands dealt from a seeded deck. A turn has two actions: ``play``
a card (score its points, draw a new one privately), ``stash`` one (hidden; it scores at
the end) or ``raid`` another player's hand for a face-down card. The raided player must
then answer, off-turn: ``block`` by discarding another card (a die decides if it holds,
a Shield always does) or ``yield`` the card. ``pass`` ends the turn. The game ends after
the last round, when someone's played points reach the target, or when one player is
left; the highest score with the stash counted wins.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import (
    JSON,
    RESIGN,
    Dice,
    Event,
    Game,
    GameFacts,
    IllegalAction,
    Option,
    Outcome,
    seated_player,
)
from tests.toy_game import narration, notation
from tests.toy_game import state as st
from tests.toy_game.state import ACTIONS, CARDS, DEAL, HAND_LIMIT, STASH_LIMIT, Raid, ToyState

LAST_ROUND = "the last round was played"
LAST_PLAYER = "everyone else resigned"


class Toy(Game[ToyState]):
    kind = "toy"
    name = "Toy Raid"
    min_players = 2
    max_players = 4
    summary = "Play, stash and raid cards from hidden hands (the test suites' sixth game)."
    options = (
        Option("rounds", 12, "Rounds before the game ends.", (3, 6, 12)),
        Option("target", 20, "Points played that end the game at once.", (10, 20, 30)),
    )
    verbs = notation.VERBS
    positions = st
    narrator = narration
    facts = GameFacts(
        decisions=frozenset({"turn", "raid"}),
        decision_seeds=14,
        # a raid rolls nothing and tells nothing; a yielded card is told to the raider
        fixed_undo={"raid": True, "yield": False},
        board_shows=frozenset({"turn", "score", "hand", "count"}),
        short_game={"rounds": 6},
    )

    # -- set-up and queries ------------------------------------------------------------

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> ToyState:
        self.check_players(players)
        opts = self.resolve_options(options)
        dice = Dice.from_seed(seed)
        deck = dice.shuffle(list(CARDS))
        seats = [st.Seat(p, hand=[deck.pop(0) for _ in range(DEAL)]) for p in players]
        return ToyState(seats, deck, [], dice, int(opts["rounds"]), int(opts["target"]))

    def players(self, state: ToyState) -> list[str]:
        return [s.id for s in state.seats]

    def current_turn(self, state: ToyState) -> str | None:
        return None if state.over else state.seats[state.turn].id

    def to_act(self, state: ToyState) -> list[str]:
        if state.over:
            return []
        if state.raid is not None:
            return [state.raid.target]
        return [state.seats[state.turn].id]

    def legal_actions(self, state: ToyState, player: str) -> list[str]:
        if not isinstance(player, str) or player not in self.to_act(state):
            return []
        seat = state.seat_of(player)
        assert seat is not None
        raid = state.raid
        if raid is not None:
            return [*(f"block {i}" for i in range(1, len(seat.hand) + 1) if i != raid.slot),
                    "yield"]
        out = [f"play {i}" for i in range(1, len(seat.hand) + 1)]
        if len(seat.stash) < STASH_LIMIT:
            out += [f"stash {i}" for i in range(1, len(seat.hand) + 1)]
        if len(seat.hand) < HAND_LIMIT:
            out += [f"raid {n} {slot}" for n, other in enumerate(state.seats, 1)
                    if other is not seat and not other.out
                    for slot in range(1, len(other.hand) + 1)]
        return [*out, "pass"]

    # -- playing ---------------------------------------------------------------------

    def apply(self, state: ToyState, player: str, action: str) -> tuple[ToyState, list[Event]]:
        text = self.normalise(action)
        seated_player(state.seats, player, state.over)
        s = state.copy()
        events: list[Event] = []
        if text == RESIGN:
            self._resign(s, player, events)
            return s, events
        if player not in self.to_act(state):
            waiting = ", ".join(self.to_act(state))
            raise IllegalAction(f"It is not your turn to act: waiting for {waiting}.")
        move = notation.parse(text)
        if move.text not in self.legal_actions(state, player):
            raise IllegalAction(self._refusal(state, move))
        me = s.seat_of(player)
        assert me is not None
        if move.verb == "play":
            self._play(s, me, move.numbers[0], events)
        elif move.verb == "stash":
            me.stash.append(me.hand.pop(move.numbers[0] - 1))
            events.append({"type": "stash", "player": player, "count": len(me.stash)})
            self._spent(s, events)
        elif move.verb == "raid":
            target = s.seats[move.numbers[0] - 1]
            s.raid = Raid(player, target.id, move.numbers[1])
            s.actions -= 1
            events.append({"type": "raid", "player": player, "target": target.id,
                           "seat": move.numbers[0], "slot": move.numbers[1]})
        elif move.verb == "block":
            self._block(s, me, move.numbers[0], events)
        elif move.verb == "yield":
            assert s.raid is not None
            events.append({"type": "yield", "player": player, "raider": s.raid.raider,
                           "slot": s.raid.slot})
            self._take(s, events)
        else:  # pass
            events.append({"type": "pass", "player": player})
            self._next_turn(s, events)
        return s, events

    def _refusal(self, state: ToyState, move: notation.Action) -> str:
        if state.raid is not None:
            return ("You are being raided: `block <card>` with another card of your hand, "
                    "or `yield`.")
        if move.verb in ("block", "yield"):
            return "Nobody is raiding you."
        return f"`{move.verb}` cannot be played like that now. {notation.HELP}"

    def _play(self, s: ToyState, me: st.Seat, slot: int, events: list[Event]) -> None:
        cid = me.hand.pop(slot - 1)
        card = CARDS[cid]
        me.score += card.value
        s.discard.append(cid)
        events.append({"type": "play", "player": me.id, "card": card.name,
                       "value": card.value, "score": me.score})
        self._draw(s, me, events)
        if me.score >= s.target:
            self._end(s, f"a player reached {s.target} points", events)
            return
        self._spent(s, events)

    def _draw(self, s: ToyState, me: st.Seat, events: list[Event]) -> None:
        if not s.deck and s.discard:
            s.deck = s.dice.shuffle(s.discard)
            events.append({"type": "reshuffle", "cards": len(s.discard)})
            s.discard = []
        if s.deck:
            cid = s.deck.pop(0)
            me.hand.append(cid)
            events.append({"type": "draw", "player": me.id})
            events.append({"type": "drew", "player": me.id, "card": CARDS[cid].name,
                           "private_to": me.id})

    def _block(self, s: ToyState, me: st.Seat, slot: int, events: list[Event]) -> None:
        raid = s.raid
        assert raid is not None
        raided = me.hand[raid.slot - 1]
        cid = me.hand.pop(slot - 1)
        s.discard.append(cid)
        card = CARDS[cid]
        roll = None if card.key == "shield" else s.dice.roll()
        held = roll is None or roll <= card.value + 1
        events.append({"type": "block", "player": me.id, "raider": raid.raider,
                       "card": card.name, "value": card.value, "roll": roll, "held": held})
        if held:
            s.raid = None
            self._after_raid(s, events)
        else:
            s.raid = Raid(raid.raider, raid.target, me.hand.index(raided) + 1)
            self._take(s, events)

    def _take(self, s: ToyState, events: list[Event]) -> None:
        raid = s.raid
        assert raid is not None
        target, raider = s.seat_of(raid.target), s.seat_of(raid.raider)
        assert target is not None and raider is not None
        name = CARDS[target.hand[raid.slot - 1]].name
        raider.hand.append(target.hand.pop(raid.slot - 1))
        events.append({"type": "took", "player": raider.id, "card": name, "from": target.id,
                       "private_to": raider.id})
        events.append({"type": "lost", "player": target.id, "card": name, "to": raider.id,
                       "private_to": target.id})
        s.raid = None
        self._after_raid(s, events)

    def _after_raid(self, s: ToyState, events: list[Event]) -> None:
        if s.actions <= 0:
            self._next_turn(s, events)

    def _spent(self, s: ToyState, events: list[Event]) -> None:
        s.actions -= 1
        if s.actions <= 0:
            self._next_turn(s, events)

    def _next_turn(self, s: ToyState, events: list[Event]) -> None:
        s.actions = ACTIONS
        for _ in s.seats:
            s.turn = (s.turn + 1) % len(s.seats)
            if s.turn == 0:
                s.round += 1
            if not s.seats[s.turn].out:
                break
        if s.round > s.rounds:
            s.round = s.rounds
            self._end(s, LAST_ROUND, events)
            return
        events.append({"type": "turn", "player": s.seats[s.turn].id, "round": s.round})

    def _resign(self, s: ToyState, player: str, events: list[Event]) -> None:
        me = s.seat_of(player)
        assert me is not None
        was_turn = s.seats[s.turn].id == player
        raid = s.raid
        me.out = True
        s.out_order.append(player)
        s.discard += me.hand + me.stash
        events.append({"type": "resign", "player": player,
                       "cards": [CARDS[c].name for c in me.hand + me.stash]})
        me.hand, me.stash = [], []
        if raid is not None and player in (raid.raider, raid.target):
            s.raid = None
            events.append({"type": "raid_off", "player": raid.raider})
        if len(s.alive) == 1:
            self._end(s, LAST_PLAYER, events)
        elif was_turn or (raid is not None and player == raid.target and s.actions <= 0):
            self._next_turn(s, events)

    def _end(self, s: ToyState, reason: str, events: list[Event]) -> None:
        s.ended = reason
        s.raid = None
        events.append({"type": "end", "reason": reason,
                       "stashes": {p.id: [CARDS[c].name for c in p.stash] for p in s.seats},
                       "totals": {p.id: self.total(p) for p in s.seats}})

    @staticmethod
    def total(seat: st.Seat) -> int:
        """Points played and the stash's, as the game's end counts them."""
        return seat.score + sum(CARDS[c].value for c in seat.stash)

    # -- the end, the clock, the computer ----------------------------------------------

    def outcome(self, state: ToyState) -> Outcome | None:
        if state.ended is None:
            return None
        alive = sorted(state.alive, key=lambda s: -self.total(s))  # stable: seat order
        best = self.total(alive[0])
        winners = tuple(s.id for s in alive if self.total(s) == best)
        return Outcome(winners, (*(s.id for s in alive), *reversed(state.out_order)),
                       state.ended)

    def timeout_action(self, state: ToyState, player: str) -> str | None:
        """Out of time: a raided player yields (spending no card), anyone else passes."""
        if player not in self.to_act(state):
            return None
        return "yield" if state.raid is not None else "pass"

    def determinize(self, state: ToyState, player: str, rng: random.Random) -> ToyState:
        """Redeal what ``player`` cannot see: the deck and the other seats' hands and
        stashes (same sizes), from the cards not in their own hand, stash or the discard
        pile; and fresh dice."""
        s = state.copy()
        others = [seat for seat in s.seats if seat.id != player]
        unseen = sorted(s.deck + [c for seat in others for c in seat.hand + seat.stash])
        rng.shuffle(unseen)
        for seat in others:
            seat.hand = [unseen.pop() for _ in seat.hand]
            seat.stash = [unseen.pop() for _ in seat.stash]
        s.deck = unseen
        s.dice = Dice.from_seed(rng.getrandbits(64))
        return s

    # -- what players see --------------------------------------------------------------

    def phase(self, state: ToyState) -> str:
        return "over" if state.over else "raid" if state.raid is not None else "turn"

    def prompt(self, state: ToyState) -> str:
        """One public sentence: what the player to act must decide."""
        if state.over:
            return "The game is over"
        raid = state.raid
        if raid is not None:
            seat = state.index_of(raid.target) + 1
            return (f"Seat {seat} is raided for card {raid.slot}: block with another card "
                    "or yield it")
        return (f"Seat {state.turn + 1} to act: play, stash or raid ({state.actions} "
                "action(s) left), or pass")

    def view(self, state: ToyState, player: str | None) -> JSON:
        outcome = self.outcome(state)
        players = []
        for i, seat in enumerate(state.seats, 1):
            entry: JSON = {"seat": i, "id": seat.id, "score": seat.score,
                           "hand_count": len(seat.hand), "stash_count": len(seat.stash),
                           "out": seat.out}
            if player == seat.id:
                entry["hand"] = [st.card_json(c, n) for n, c in enumerate(seat.hand, 1)]
                entry["stash"] = [st.card_json(c) for c in seat.stash]
            if state.over:
                entry["total"] = self.total(seat)
            players.append(entry)
        raid = state.raid
        return {
            "kind": self.kind, "viewer": player, "round": state.round,
            "rounds": state.rounds, "target": state.target,
            "turn": self.current_turn(state), "phase": self.phase(state),
            "to_act": self.to_act(state), "actions_left": state.actions,
            "prompt": self.prompt(state), "players": players,
            "deck_count": len(state.deck),
            "discard": [CARDS[c].name for c in state.discard],
            "raid": None if raid is None else {
                "raider": raid.raider, "target": raid.target, "slot": raid.slot,
                "seat": state.index_of(raid.target) + 1},
            "outcome": outcome.to_json() if outcome else None,
        }

    def choice_labels(self, view: JSON, kind: str, values: list[str]) -> list[str]:
        """A card of one's own hand by its name and points; a seat by its score and hand."""
        entries = [p for p in view.get("players") or [] if isinstance(p, dict)]
        if kind == notation.CARD:
            mine = next((p for p in entries if p.get("id") == view.get("viewer")), {})
            cards = {str(c.get("slot")): c for c in mine.get("hand") or []}
            return [f"{v} · {cards[v]['name']} ({cards[v]['value']})" if v in cards else v
                    for v in values]
        if kind == notation.SEAT:
            seats = {str(p.get("seat")): p for p in entries}
            return [f"{v} · {seats[v]['score']} points, {seats[v]['hand_count']} cards"
                    if v in seats else v for v in values]
        return list(values)
