"""Napoleonic Wars' rules (docs/games/napoleon.md explains them and the product's rulings)."""

from __future__ import annotations

import random
from typing import Any

from engine.core import JSON, Dice, Event, Game, GameFacts, IllegalAction, Option, Outcome
from engine.napoleon import narration
from engine.napoleon import state as st
from engine.napoleon.board import (
    CAPITAL,
    COUNTRIES,
    DESTINATIONS,
    EAST,
    NEIGHBOURS,
    NO_FRENCH_REINFORCEMENT,
    ORDER,
    SEA_POWER,
    SIDE_NAMES,
    SIDES,
    destinations,
)
from engine.napoleon.cards import BY_ID, DECK, short_effect
from engine.napoleon.notation import VERBS, parse
from engine.napoleon.state import Battle, NapoleonState, other
from engine.notation import Action

DEFAULT_ROUNDS = 20
ROUND_CHOICES = (10, 12, 15, 20, 25, 30)

REASONS = {
    "paris": "The Allies hold France at the end of a turn: the Empire falls.",
    "east": "The French hold Russia, Austria and Prussia together at the end of a French "
            "turn.",
    "resigned": "The opponent resigned.",
}


def rounds_reason(scores: dict[str, int]) -> str:
    return (f"The last round is over: the French control countries worth {scores['french']} "
            f"reinforcements, the Allies {scores['allies']} (a tie goes to the Allies).")


#: "move 1 src dst", "move 2 src dst", ... for each pair of countries, grown as larger
#: counts come up: the notation never changes, so legal_actions slices these instead of
#: formatting the same strings on every call.
_MOVE_TEXTS: dict[tuple[str, str], tuple[str, ...]] = {}


def _move_texts(src: str, dst: str, count: int) -> tuple[str, ...]:
    """The texts moving 1..``count`` armies from ``src`` to ``dst``."""
    texts = _MOVE_TEXTS.get((src, dst), ())
    if len(texts) < count:
        texts = _MOVE_TEXTS[src, dst] = tuple(
            f"move {n} {src} {dst}" for n in range(1, max(count, 2 * len(texts), 8) + 1))
    return texts[:count]


def _count(n: int, what: str = "army") -> str:
    plural = "armies" if what == "army" else f"{what}s"
    return f"{n} {what if n == 1 else plural}"


def _discard_battle_cards(state: NapoleonState) -> None:
    """The battle's cards to the discard pile: played face up, so seen by both sides."""
    assert state.battle is not None
    for s in SIDES:
        state.to_discard(state.battle.cards[s])


class Napoleon(Game[NapoleonState]):
    kind = "napoleon"
    name = "Napoleonic Wars"
    #: 2: a game resigned in mid-battle or mid-discard puts the battle's cards on the
    #: discard pile (and lets the side on turn end with nine cards).
    rules_version = 2
    min_players = 2
    max_players = 2
    summary = ("1805-1815, the French Empire against the Allies: move armies across 17 "
               "countries of Europe, fight with dice and famous battles, and take Paris or "
               "the East.")
    options = (Option("rounds", DEFAULT_ROUNDS,
                      "Rounds before the game ends on the value of the countries held.",
                      ROUND_CHOICES),)
    verbs = VERBS
    #: A discarded card stays secret (the channel hears only that a card was discarded).
    secret_kinds = frozenset({"card"})
    positions = st
    narrator = narration
    #: What the generic tests hold Napoleonic Wars to.
    facts = GameFacts(
        decisions=frozenset({"discard", "move", "choose", "cards", "retreat"}),
        decision_seeds=14,
        fixed_undo={"move": True, "march": True, "end": False, "battle": False,
                    "play": False, "ready": False, "retreat": False, "discard": False},
        board_shows=frozenset({"turn", "score", "hand", "count", "place", "log"}),
        short_game={"rounds": 10})

    # -- set-up ------------------------------------------------------------------

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> NapoleonState:
        self.check_players(players)
        resolved = self.resolve_options(options)
        return self.start(players, seed, int(resolved["rounds"]))

    def start(self, players: list[str], seed: int, rounds: int) -> NapoleonState:
        """A fresh game with any round limit (the simulation tries limits the lobby does
        not offer). The French turn 1 has begun: they have drawn their 2 cards."""
        dice = Dice.from_seed(seed)
        state = NapoleonState(
            players=list(players), rounds=rounds, round=1, turn="french", phase="move",
            armies={s: st.full(st.SETUP[s]) for s in SIDES}, moved=st.full(),
            hands={s: [] for s in SIDES}, deck=dice.shuffle(list(DECK)), discard=[],
            dice=dice)
        self._begin_turn(state, [])
        return state

    # -- queries -----------------------------------------------------------------

    def players(self, state: NapoleonState) -> list[str]:
        return list(state.players)

    def current_turn(self, state: NapoleonState) -> str | None:
        return None if state.over else state.player_of(state.turn)

    def acting_side(self, state: NapoleonState) -> str | None:
        """The side that must answer now."""
        if state.over:
            return None
        b = state.battle
        if state.phase == "cards" and b is not None and b.step == "defender":
            return state.defender
        if state.phase == "retreat" and b is not None and b.loser is not None:
            return b.loser
        return state.turn

    def to_act(self, state: NapoleonState) -> list[str]:
        side = self.acting_side(state)
        return [] if side is None else [state.player_of(side)]

    def outcome(self, state: NapoleonState) -> Outcome | None:
        if not state.over or state.winner is None or state.result is None:
            return None
        win = state.player_of(state.winner)
        lose = state.player_of(other(state.winner))
        if state.result == "rounds":
            reason = rounds_reason({s: state.score(s) for s in SIDES})
        else:
            reason = REASONS[state.result]
        return Outcome((win,), (win, lose), reason)

    # -- legal actions -----------------------------------------------------------

    def legal_actions(self, state: NapoleonState, player: str) -> list[str]:
        if not isinstance(player, str) or state.over:
            return []
        side = self.acting_side(state)
        if side is None or state.player_of(side) != player:
            return []
        phase = state.phase
        hand = state.hands[side]
        if phase == "discard":
            return [f"discard {cid}" for cid in dict.fromkeys(hand)]
        if phase == "move":
            out: list[str] = []
            mine, moved = state.armies[side], state.moved
            reach = DESTINATIONS[side]
            for src in ORDER:
                fresh = mine[src] - moved[src]
                if fresh <= 0:
                    continue
                for dst in reach[src]:
                    out += _move_texts(src, dst, fresh)
            if any(BY_ID[cid].kind == "march" for cid in hand):
                out += [f"march {c}" for c in ORDER if moved[c] > 0]
            out.append("end")
            return out
        if phase == "choose":
            return [f"battle {c}" for c in state.battles_left()]
        b = state.battle
        assert b is not None
        if phase == "cards":
            return [*(f"play {cid}" for cid in self.playable(state, side)), "ready"]
        return [f"retreat {c}" for c in st.retreats(state.armies, side, b.country)]

    def playable(self, state: NapoleonState, side: str) -> list[str]:
        """The distinct cards of ``side``'s hand it may play in the current battle."""
        b = state.battle
        if b is None:
            return []
        out = []
        for cid in dict.fromkeys(state.hands[side]):
            card = BY_ID[cid]
            if (card.kind != "march" and card.playable_by(side)
                    and card.country in (None, b.country)):
                out.append(cid)
        return out

    # -- applying actions --------------------------------------------------------

    def apply(self, state: NapoleonState, player: str,
              action: str) -> tuple[NapoleonState, list[Event]]:
        text = self.normalise(action)
        side = state.side_of(player) if isinstance(player, str) else None
        if side is None:
            raise IllegalAction("You are not playing in this game.")
        if state.over:
            raise IllegalAction("This game is over.")
        parsed = parse(text)
        new = state.copy()
        events: list[Event] = []
        if parsed.verb == "resign":
            events.append({"type": "resign", "side": side, "player": player})
            self._win(new, other(side), "resigned", events)
            return new, events
        acting = self.acting_side(state)
        if acting != side:
            assert acting is not None
            raise IllegalAction(f"It is not your move: waiting for {state.player_of(acting)} "
                                f"({SIDE_NAMES[acting]}). {self.prompt(state)}")
        self._check(new, side, parsed)
        self._do(new, side, parsed, events)
        return new, events

    def _check(self, state: NapoleonState, side: str, action: Action) -> None:
        """Refuse ``action`` with a reason the player can act on."""
        verb, phase = action.verb, state.phase
        wanted = {"discard": "discard", "move": "move", "march": "move", "end": "move",
                  "battle": "choose", "play": "cards", "ready": "cards", "retreat": "retreat"}
        if wanted[verb] != phase:
            raise IllegalAction(f"You cannot `{action.text}` now. {self.prompt(state)}.")
        hand = state.hands[side]
        if verb == "discard":
            if action.args[0] not in hand:
                raise IllegalAction(f"You hold no {BY_ID[action.args[0]].name} card.")
        elif verb == "move":
            self._check_move(state, side, action)
        elif verb == "march":
            if not any(BY_ID[c].kind == "march" for c in hand):
                raise IllegalAction("You hold no Forced March card.")
            country = action.args[0]
            if not state.moved[country]:
                raise IllegalAction(f"None of your armies moved into "
                                    f"{COUNTRIES[country].name} this turn: a Forced March "
                                    "moves armies that already moved.")
        elif verb == "battle":
            if action.args[0] not in state.battles_left():
                left = ", ".join(state.battles_left())
                raise IllegalAction(f"There is no battle to fight in "
                                    f"{COUNTRIES[action.args[0]].name}: choose one of {left}.")
        elif verb == "play":
            cid = action.args[0]
            card = BY_ID[cid]
            b = state.battle
            assert b is not None
            if cid not in hand:
                raise IllegalAction(f"You hold no {card.name} card.")
            if not card.playable_by(side):
                raise IllegalAction(f"{card.name} favours the {SIDE_NAMES[card.side]}: only "
                                    "they may play it.")
            if card.kind == "march":
                raise IllegalAction("Forced March is played in the move phase (`march "
                                    "<country>`), not in a battle.")
            if card.country not in (None, b.country):
                raise IllegalAction(f"{card.name} is for a battle in "
                                    f"{COUNTRIES[card.country].name}; this battle is in "
                                    f"{COUNTRIES[b.country].name}.")
        elif verb == "retreat":
            b = state.battle
            assert b is not None
            options = st.retreats(state.armies, side, b.country)
            if action.args[0] not in options:
                raise IllegalAction(f"Your armies cannot retreat to "
                                    f"{COUNTRIES[action.args[0]].name}: choose one of "
                                    f"{', '.join(options)} (a neighbour with no enemy armies, "
                                    "never England).")

    def _check_move(self, state: NapoleonState, side: str, action: Action) -> None:
        src, dst = action.args
        n = action.count
        name_src, name_dst = COUNTRIES[src].name, COUNTRIES[dst].name
        if dst == SEA_POWER:
            if side == "french":
                raise IllegalAction("The French can never enter England: the Royal Navy "
                                    "guards the Channel.")
            raise IllegalAction("Allied armies can never go back to England.")
        if src == dst:
            raise IllegalAction("Move to another country.")
        if dst not in destinations(side, src):
            if src == SEA_POWER:
                raise IllegalAction(f"{name_dst} has no coast: armies in England sail only to "
                                    "coastal countries.")
            raise IllegalAction(f"{name_dst} does not border {name_src} "
                                f"(its neighbours: {', '.join(NEIGHBOURS[src])}).")
        fresh = state.armies[side][src] - state.moved[src]
        if n > fresh:
            if not state.armies[side][src]:
                raise IllegalAction(f"You have no armies in {name_src}.")
            moved = state.moved[src]
            detail = f" ({moved} already moved this turn)" if moved else ""
            raise IllegalAction(f"You have only {_count(fresh)} in {name_src} that can move"
                                f"{detail}.")

    def _do(self, state: NapoleonState, side: str, action: Action, events: list[Event]) -> None:
        verb = action.verb
        player = state.player_of(side)
        if verb == "discard":
            cid = action.args[0]
            state.hands[side].remove(cid)
            state.to_discard([cid], seen_by=(side,))  # face down: only its side knows it
            events.append({"type": "discard", "side": side, "player": player,
                           "hand_count": len(state.hands[side])})
            events.append({"type": "discarded", "private_to": player, "side": side,
                           "card": BY_ID[cid].to_json()})
            if len(state.hands[side]) <= st.HAND_LIMIT:
                state.phase = "move"
        elif verb == "move":
            src, dst = action.args
            n = action.count
            state.armies[side][src] -= n
            state.armies[side][dst] += n
            state.moved[dst] += n
            events.append({"type": "move", "side": side, "player": player, "count": n,
                           "from": src, "to": dst})
        elif verb == "march":
            country = action.args[0]
            cid = next(c for c in state.hands[side] if BY_ID[c].kind == "march")
            state.hands[side].remove(cid)
            state.to_discard([cid])  # played face up: both sides saw it
            count = state.moved[country]
            state.moved[country] = 0
            events.append({"type": "march", "side": side, "player": player,
                           "country": country, "count": count,
                           "card": BY_ID[cid].to_json()})
        elif verb == "end":
            state.moved = st.full()
            self._next_battle(state, events)
        elif verb == "battle":
            self._start_battle(state, action.args[0], events)
        elif verb == "play":
            b = state.battle
            assert b is not None
            cid = action.args[0]
            state.hands[side].remove(cid)
            b.cards[side].append(cid)
            events.append({"type": "card", "side": side, "player": player,
                           "country": b.country, "card": BY_ID[cid].to_json(),
                           "hand_count": len(state.hands[side])})
        elif verb == "ready":
            b = state.battle
            assert b is not None
            b.step = "defender" if b.step == "attacker" else "dice"
            self._advance_battle(state, events)
        elif verb == "retreat":
            b = state.battle
            assert b is not None
            self._retreat(state, side, b.country, action.args[0], events)
            self._finish_battle(state, events)

    # -- the pieces of a turn ----------------------------------------------------

    def _begin_turn(self, state: NapoleonState, events: list[Event]) -> None:
        side = state.turn
        player = state.player_of(side)
        events.append({"type": "turn", "side": side, "round": state.round, "player": player})
        drawn = []
        for _ in range(st.DRAW):
            if not state.deck and state.discard:
                events.append({"type": "reshuffle", "count": len(state.discard)})
                state.reshuffle()
            if not state.deck:
                break
            cid = state.deck.pop(0)
            state.hands[side].append(cid)
            drawn.append(cid)
        events.append({"type": "draw", "side": side, "player": player, "count": len(drawn),
                       "deck_count": len(state.deck), "hand_count": len(state.hands[side])})
        if drawn:
            events.append({"type": "drawn", "private_to": player, "side": side,
                           "cards": [BY_ID[c].to_json() for c in drawn]})
        state.moved = st.full()
        state.phase = "discard" if len(state.hands[side]) > st.HAND_LIMIT else "move"

    def _next_battle(self, state: NapoleonState, events: list[Event]) -> None:
        state.battle = None
        left = state.contested()
        if not left:
            self._end_turn(state, events)
        elif len(left) == 1:
            self._start_battle(state, left[0], events)
        else:
            state.phase = "choose"

    def _start_battle(self, state: NapoleonState, country: str, events: list[Event]) -> None:
        state.battle = Battle(country)
        state.phase = "cards"
        self._advance_battle(state, events)

    def _advance_battle(self, state: NapoleonState, events: list[Event]) -> None:
        """Skip card steps of players with empty hands; fight when both are done."""
        b = state.battle
        assert b is not None
        if b.step == "attacker" and not state.hands[state.turn]:
            b.step = "defender"
        if b.step == "defender" and not state.hands[state.defender]:
            b.step = "dice"
        if b.step == "dice":
            self._fight(state, events)

    def _fight(self, state: NapoleonState, events: list[Event]) -> None:
        b = state.battle
        assert b is not None
        country = b.country
        attacker, defender = state.turn, state.defender
        armies = {s: state.armies[s][country] for s in SIDES}
        bonus = {s: sum(BY_ID[c].bonus for c in b.cards[s]) for s in SIDES}
        dice = {attacker: state.dice.roll(), defender: state.dice.roll()}
        force = {s: armies[s] + bonus[s] + dice[s] + (1 if s == defender else 0)
                 for s in SIDES}
        winner = attacker if force[attacker] > force[defender] else defender
        loser = other(winner)
        w_die = state.dice.roll()
        l_dice = [state.dice.roll(), state.dice.roll()]
        raw = armies[winner] * w_die // 10
        cap = 2 * armies[loser]
        losses = {winner: min(raw, cap),
                  loser: min(armies[loser] * sum(l_dice) // 10, armies[loser])}
        for s in SIDES:
            state.armies[s][country] -= losses[s]
        events.append({
            "type": "battle", "country": country, "attacker": attacker, "defender": defender,
            "armies": armies, "cards": {s: list(b.cards[s]) for s in SIDES}, "bonus": bonus,
            "dice": {s: dice[s] for s in SIDES}, "force": force, "winner": winner,
            "loser": loser, "casualty_dice": {"winner": [w_die], "loser": l_dice},
            "losses": {s: losses[s] for s in SIDES}, "capped": raw > cap})
        survivors = state.armies[loser][country]
        if not survivors:
            self._finish_battle(state, events)
            return
        options = st.retreats(state.armies, loser, country)
        if not options:
            state.armies[loser][country] = 0
            events.append({"type": "destroyed", "side": loser, "country": country,
                           "count": survivors})
            self._finish_battle(state, events)
        elif len(options) == 1:
            self._retreat(state, loser, country, options[0], events)
            self._finish_battle(state, events)
        else:
            b.step, b.loser = "retreat", loser
            state.phase = "retreat"

    def _retreat(self, state: NapoleonState, side: str, country: str, to: str,
                 events: list[Event]) -> None:
        count = state.armies[side][country]
        state.armies[side][country] = 0
        state.armies[side][to] += count
        events.append({"type": "retreat", "side": side, "from": country, "to": to,
                       "count": count})

    def _finish_battle(self, state: NapoleonState, events: list[Event]) -> None:
        _discard_battle_cards(state)
        self._next_battle(state, events)

    def _end_turn(self, state: NapoleonState, events: list[Event]) -> None:
        side = state.turn
        self._reinforce(state, side, events)
        if state.control(CAPITAL) == "allies":
            self._win(state, "allies", "paris", events)
        elif side == "french" and all(state.control(c) == "french" for c in EAST):
            self._win(state, "french", "east", events)
        elif side == "allies" and state.round >= state.rounds:
            scores = {s: state.score(s) for s in SIDES}
            winner = "french" if scores["french"] > scores["allies"] else "allies"
            self._win(state, winner, "rounds", events)
        else:
            if side == "allies":
                state.round += 1
            state.turn = other(side)
            self._begin_turn(state, events)

    def _reinforce(self, state: NapoleonState, side: str, events: list[Event]) -> None:
        """Each controlled country's value, in map order, while counters last."""
        placed: dict[str, int] = {}
        lost = 0
        pool = state.pool(side)
        for c in ORDER:
            if state.control(c) != side:
                continue
            if side == "french" and c in NO_FRENCH_REINFORCEMENT:
                continue
            due = COUNTRIES[c].reinforcement
            if not due:
                continue
            n = min(due, pool)
            if n:
                state.armies[side][c] += n
                placed[c] = n
                pool -= n
            lost += due - n
        events.append({"type": "reinforce", "side": side, "player": state.player_of(side),
                       "placed": placed, "lost": lost})

    def _win(self, state: NapoleonState, side: str, result: str,
             events: list[Event]) -> None:
        state.phase = "over"
        state.winner, state.result = side, result
        if state.battle is not None:
            # a game resigned in the middle of a battle: its cards go to the discard pile
            # as at a battle's end (else they would be lost, and the stored position
            # would not load)
            _discard_battle_cards(state)
        state.battle = None
        state.moved = st.full()
        outcome = self.outcome(state)
        assert outcome is not None
        events.append({"type": "victory", "side": side, "player": state.player_of(side),
                       "result": result, "reason": outcome.reason,
                       "scores": {s: state.score(s) for s in SIDES}})

    # -- computer players ----------------------------------------------------------

    def forget(self, state: NapoleonState) -> NapoleonState:
        """The position without each side's memory of the discard pile (``seen``)."""
        new = state.copy()
        new.seen = {s: [] for s in SIDES}
        return new

    def determinize(self, state: NapoleonState, player: str,
                    rng: random.Random) -> NapoleonState:
        """A state ``player`` cannot tell from ``state``, its secrets redealt from ``rng``.

        ``player`` sees their own hand, the cards played in the current battle and every
        count (docs/games/napoleon.md, *Secrets*), and remembers (``state.seen``) which
        cards of the discard pile it saw go there: every card played face up, by either
        side, and its own face-down discards. Those stay where they are. The rest of the
        discard pile (the opponent's face-down discards), the opponent's hand and the deck
        are dealt afresh, in their sizes, from one pool sorted and then shuffled by
        ``rng`` (the pool is every card but ``player``'s hand, the battle's and the
        discards ``player`` saw, which ``player`` can work out), and the dice are
        redrawn. Once the discard pile is reshuffled into the deck, its cards' places are
        unknown again (they are back in the pool). The computer so keeps what it saw,
        and never learns a card it did not. The opponent's memory is kept as it is: which
        of the discards they saw is public (who discarded face down, and what was played
        face up).
        """
        new = state.copy()
        side = state.side_of(player)
        if side is not None:
            foe = other(side)
            known = set(state.seen[side])
            unseen = [i for i in range(len(state.discard)) if i not in known]
            pool = sorted([*state.hands[foe], *(state.discard[i] for i in unseen),
                           *state.deck])
            rng.shuffle(pool)
            n_hand, n_unseen = len(state.hands[foe]), len(unseen)
            new.hands[foe] = pool[:n_hand]
            for i, cid in zip(unseen, pool[n_hand:n_hand + n_unseen], strict=True):
                new.discard[i] = cid
            new.deck = pool[n_hand + n_unseen:]
        new.dice = Dice.from_seed(rng.getrandbits(64))
        return new

    # -- the clock and undo ------------------------------------------------------

    def timeout_action(self, state: NapoleonState, player: str) -> str | None:
        """The safe default: discard the least useful card, end the move phase, fight the
        first battle in map order, play no card (`ready`), retreat to the first country
        offered."""
        if not isinstance(player, str) or player not in self.to_act(state):
            return None
        legal = self.legal_actions(state, player)
        if not legal:
            return None
        side = state.side_of(player)
        assert side is not None
        if state.phase == "discard":
            return f"discard {least_useful(state.hands[side], side)}"
        for safe in ("end", "ready"):
            if safe in legal:
                return safe
        return legal[0]

    def reversible(self, before: NapoleonState, after: NapoleonState,
                   events: list[Event]) -> bool:
        """Only `move` and `march` may be taken back: anything else draws a card, rolls,
        plays a card into a battle or hands a decision to the opponent."""
        if any(e.get("type") not in ("move", "march") for e in events):
            return False
        if not events and st.dump(before) == st.dump(after):
            return True  # nothing happened: nothing to protect
        if before.phase != "move" or after.phase != "move":
            return False  # e.g. choosing a battle or passing a card step: no event, yet final
        return super().reversible(before, after, events)

    # -- words -------------------------------------------------------------------

    def prompt(self, state: NapoleonState) -> str:
        """One public sentence: what the player to act must decide."""
        if state.over:
            return "The game is over"
        turn = SIDE_NAMES[state.turn]
        b = state.battle
        if state.phase == "discard":
            extra = len(state.hands[state.turn]) - st.HAND_LIMIT
            return (f"The {turn} must discard {_count(extra, 'card')} to get down to the hand "
                    f"limit of {st.HAND_LIMIT}")
        if state.phase == "move":
            return f"The {turn} move armies (`move 3 france spain`), then `end`"
        if state.phase == "choose":
            left = " or ".join(COUNTRIES[c].name for c in state.battles_left())
            return f"The {turn} choose the next battle: {left}"
        assert b is not None
        where = COUNTRIES[b.country].name
        if state.phase == "cards":
            side = state.turn if b.step == "attacker" else state.defender
            return (f"Battle in {where}: the {SIDE_NAMES[side]} may play cards, then `ready`")
        assert b.loser is not None
        options = " or ".join(COUNTRIES[c].name
                              for c in st.retreats(state.armies, b.loser, b.country))
        survivors = state.armies[b.loser][b.country]
        return (f"The {SIDE_NAMES[b.loser]} retreat {_count(survivors)} from {where}: to "
                f"{options}")

    # -- views and the position format -------------------------------------------

    def view(self, state: NapoleonState, player: str | None) -> JSON:
        outcome = self.outcome(state)
        players = []
        for side, pid in zip(SIDES, state.players, strict=True):
            entry: JSON = {"id": pid, "side": side, "hand_count": len(state.hands[side])}
            if player == pid:
                entry["hand"] = [BY_ID[c].to_json() for c in state.hands[side]]
            players.append(entry)
        countries = []
        moving = state.phase == "move"
        for c in ORDER:
            country = COUNTRIES[c]
            f, a = state.armies["french"][c], state.armies["allies"][c]
            countries.append({
                "id": c, "name": country.name, "reinforcement": country.reinforcement,
                "coastal": country.coastal, "french": f, "allies": a,
                "control": state.control(c), "contested": bool(f and a),
                "moved": state.moved[c] if moving else 0})
        b = state.battle
        battle = None
        if b is not None:
            battle = {"country": b.country, "attacker": state.turn, "defender": state.defender,
                      "armies": {s: state.armies[s][b.country] for s in SIDES},
                      "cards": [BY_ID[c].to_json() for s in SIDES for c in b.cards[s]],
                      "step": b.step}
            if b.step == "retreat" and b.loser is not None:
                battle["loser"] = b.loser
                battle["retreats"] = st.retreats(state.armies, b.loser, b.country)
        return {
            "kind": self.kind,
            "viewer": player,
            "round": state.round,
            "rounds": state.rounds,
            "turn": None if state.over else state.turn,
            "phase": state.phase,
            "to_act": self.to_act(state),
            "prompt": self.prompt(state),
            "players": players,
            "countries": countries,
            "pool": {s: state.pool(s) for s in SIDES},
            "deck_count": len(state.deck),
            "discard_count": len(state.discard),
            "battle": battle,
            "battles_left": state.battles_left(),
            "outcome": outcome.to_json() if outcome else None,
            "scores": {s: state.score(s) for s in SIDES},
        }

    def choice_labels(self, view: JSON, kind: str, values: list[str]) -> list[str]:
        """``france · France (20 French, 2 Allied)`` and ``austerlitz · Austerlitz: +2 French
        in Austria``, read from ``view`` alone (a card only from the viewer's own hand or
        the cards face up in the battle)."""
        if kind == "country":
            known = {c.get("id"): c for c in view.get("countries") or []
                     if isinstance(c, dict)}
            out = []
            for v in values:
                c = known.get(v)
                if c is None:
                    out.append(v)
                else:
                    out.append(f"{v} · {c.get('name', v)} ({c.get('french', 0)} French, "
                               f"{c.get('allies', 0)} Allied)")
            return out
        if kind == "card":
            cards: dict[str, JSON] = {}
            for entry in view.get("players") or []:
                if isinstance(entry, dict) and entry.get("id") == view.get("viewer"):
                    for card in entry.get("hand") or []:
                        cards.setdefault(card.get("id"), card)
            for card in (view.get("battle") or {}).get("cards") or []:
                cards.setdefault(card.get("id"), card)
            return [f"{v} · {cards[v]['name']}: {short_effect(cards[v])}" if v in cards else v
                    for v in values]
        return list(values)


def card_value(cid: str, side: str) -> int:
    """How useful a card is to ``side`` (0: it cannot play it)."""
    card = BY_ID[cid]
    if not card.playable_by(side):
        return 0
    if card.kind == "march":
        return 2
    # a bonus anywhere is worth more than the same bonus in one country
    return card.bonus * 2 + (1 if card.country is None else 0)


def least_useful(hand: list[str], side: str) -> str:
    """The card of ``hand`` that ``side`` would miss least (the first such, in hand order)."""
    return min(hand, key=lambda cid: card_value(cid, side))


__all__ = ["DEFAULT_ROUNDS", "Napoleon", "card_value", "least_useful"]
