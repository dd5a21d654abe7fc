"""Battlecards' rules (docs/games/battlecards.md explains them and the product's rulings)."""

from __future__ import annotations

import random
from typing import Any

from engine.battlecards import battle as bt
from engine.battlecards import narration
from engine.battlecards import state as st
from engine.battlecards.cards import (
    ARSENAL,
    BATTLES,
    BATTLES_BY_KEY,
    CONFLICT,
    CONFLICTS,
    FORCES,
    SIDES,
    UNITS,
    VICTORY_TARGET,
)
from engine.battlecards.notation import VERBS, parse
from engine.battlecards.state import BattlecardsState, Pending, Seat
from engine.core import JSON, Dice, Event, Game, GameFacts, IllegalAction, Outcome, seated_player
from engine.notation import Action

REASONS = {
    "total": "Total Victory: the battle for a homeland was won.",
    "standard": f"Standard Victory: {VICTORY_TARGET} victory points.",
    "last_battle": "Every battle has been won: the higher victory-point total wins.",
    "draw": "Every battle has been won with equal victory points: a draw.",
    "resigned": "The opponent resigned.",
}


def final_result(vps: dict[str, int]) -> tuple[str | None, str]:
    """After the last battle: the higher total wins; a tie is a draw."""
    (a, va), (b, vb) = vps.items()
    if va == vb:
        return None, "draw"
    return (a if va > vb else b), "last_battle"


def _cards(state: BattlecardsState) -> tuple[object, ...]:
    """Where every card is: the decks, discards, hands, stacks, kept and won cards, the
    card being resolved and the units revealed in a battle."""
    seats = tuple((s.deck, s.discard, s.hand, s.stacks, s.kept, s.won) for s in state.seats)
    revealed = None if state.battle is None else [
        (u.owner, u.ref, u.card) for u in state.battle.units]
    return (seats, state.conflict_deck, state.conflict_discard, state.current, revealed)


class Battlecards(Game[BattlecardsState]):
    kind = "battlecards"
    name = "Battlecards: World Conflict, Western European Theater"
    verbs = VERBS
    positions = st
    narrator = narration
    #: What the generic tests hold Battlecards to: every card and shot stands.
    facts = GameFacts(
        decisions=frozenset({"setup", "draw", "deploy", "scout", "decide", "homeland",
                             "battle bonus", "battle fire", "battle withdraw"}),
        decision_seeds=14,
        fixed_undo={"draw": False, "deploy": False, "emergency": False, "scout": False,
                    "decline": False, "done": False, "play": False, "fire": False},
        board_shows=frozenset({"turn", "score", "hand", "count", "unit", "log"}))
    #: 2: `autofire on` while it is on (and `off` while off) is refused, as it is not listed.
    rules_version = 2
    min_players = 2
    max_players = 2
    summary = ("1940-45, German against British: build forces from your arsenal, draw the "
               "conflict deck and fight its historic battles for victory points.")

    # -- set-up ------------------------------------------------------------------

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> BattlecardsState:
        self.check_players(players)
        self.resolve_options(options)
        dice = Dice.from_seed(seed)
        deck = dice.shuffle([c.id for c in CONFLICT])
        seats = []
        for i, pid in enumerate(players):
            seat = Seat(id=pid, side=SIDES[i], placed=0)
            seat.deck = dice.shuffle([c.id for c in ARSENAL[SIDES[i]]])
            seat.hand = [seat.deck.pop(0) for _ in range(st.SETUP_DEAL)]
            seats.append(seat)
        return BattlecardsState(seats=seats, conflict_deck=deck, conflict_discard=[],
                                dice=dice, phase="setup")

    # -- queries -----------------------------------------------------------------

    def players(self, state: BattlecardsState) -> list[str]:
        return [s.id for s in state.seats]

    def current_turn(self, state: BattlecardsState) -> str | None:
        return None if state.over else state.seats[state.turn].id

    def to_act(self, state: BattlecardsState) -> list[str]:
        if state.over:
            return []
        if state.phase == "setup":
            return [s.id for s in state.seats if s.placed < st.SETUP_DEPLOY]
        if state.pending is not None:
            return [state.pending.player]
        if state.battle is not None:
            return [state.battle.acting]
        return [state.seats[state.turn].id]

    def outcome(self, state: BattlecardsState) -> Outcome | None:
        if not state.over or state.result is None:
            return None
        ids = self.players(state)
        if state.winner is None:
            return Outcome((), tuple(ids), REASONS[state.result])
        rest = [p for p in ids if p != state.winner]
        return Outcome((state.winner,), (state.winner, *rest), REASONS[state.result])

    def decision(self, state: BattlecardsState) -> str:
        """Finer than the view's phase: a pending choice by its kind ("scout",
        "homeland"...), a battle by its step ("battle fire")."""
        if state.pending is not None:
            return state.pending.kind
        return f"battle {state.battle.step}" if state.battle is not None else state.phase

    def view_phase(self, state: BattlecardsState) -> str:
        if state.over:
            return "over"
        if state.battle is not None and state.battle.step == "withdraw":
            return "withdraw"
        return state.phase

    # -- legal actions -----------------------------------------------------------

    def legal_actions(self, state: BattlecardsState, player: str) -> list[str]:
        if not isinstance(player, str) or player not in self.to_act(state):
            return []
        seat = state.seat(player)
        out = self._choices(state, seat)
        out.append("autofire off" if seat.autofire else "autofire on")
        return out

    def _choices(self, state: BattlecardsState, seat: Seat) -> list[str]:
        hand = [f"deploy {i}" for i in range(1, len(seat.hand) + 1)]
        if state.phase == "setup":
            return hand
        p = state.pending
        if p is not None:
            if p.kind == "deploy":
                return [*hand, "done"]
            if p.kind == "scout":
                opp = state.opponent(seat.id)
                return [f"scout {f}" for f in FORCES if opp.stacks[f]]
            if p.kind == "decide":
                return ["attack", "decline"]
            return ["emergency", "pass"]  # homeland
        b = state.battle
        if b is not None:
            if b.step in ("bonus", "ready"):
                return [*bt.bonus_choices(state, seat.id), "pass"]
            if b.step == "fire":
                out = []
                for u in b.units:
                    if (u.active and u.owner == seat.id and not u.fired
                            and b.phase in UNITS[u.card].phases):
                        out += [f"fire {u.ref} {t.ref}" for t in bt.targets(b, u)]
                # before any single shot, its owner may play kept cards and supports
                return [*bt.bonus_choices(state, seat.id), *out] if out else out
            return [*(f"withdraw {u.ref}" for u in b.of(seat.id)), "stay"]
        return ["draw", "emergency"] if seat.hand else ["draw"]

    # -- applying actions --------------------------------------------------------

    def apply(self, state: BattlecardsState, player: str,
              action: str) -> tuple[BattlecardsState, list[Event]]:
        parsed = self._read(state, player, action)
        new = state.copy()
        events: list[Event] = []
        self._apply_to(new, player, parsed, events)
        return new, events

    def play_on(self, state: BattlecardsState, player: str, action: str) -> BattlecardsState:
        """:meth:`apply` on ``state`` itself, for a search's play-outs: in a battle of
        fifty units copying the position costs a fifth of a play-out step."""
        self._apply_to(state, player, self._read(state, player, action), [])
        return state

    def _read(self, state: BattlecardsState, player: str, action: str) -> Action:
        """``action`` parsed, once ``player`` is known to sit in the game."""
        text = self.normalise(action)
        seated_player(state.seats, player, state.over)
        return parse(text)

    def _apply_to(self, new: BattlecardsState, player: str, parsed: Action,
                  events: list[Event]) -> None:
        """Carry out ``parsed`` on ``new``; refused (IllegalAction) before any change."""
        seat = new.seat(player)
        if parsed.verb == "resign":
            new.last_shots = []
            new.winner = new.opponent(player).id
            self._end(new, "resigned", events, resigned=player)
        elif parsed.verb == "autofire":
            if seat.autofire == (parsed.args[0] == "on"):
                # only the switch is listed: setting it as it is would do nothing
                raise IllegalAction(f"Auto-fire is already {parsed.args[0]}.")
            new.last_shots = []
            seat.autofire = parsed.args[0] == "on"
            events.append({"type": "autofire", "player": player, "on": seat.autofire})
            if new.battle is not None and not new.pending:
                self._run_battle(new, events)
        else:
            if player not in self.to_act(new):
                waiting = ", ".join(self.to_act(new))
                raise IllegalAction(f"It is not your move: waiting for {waiting}.")
            legal = self._choices(new, seat)
            if parsed.text not in legal:
                raise IllegalAction(self._why(new, seat, parsed, legal))
            new.last_shots = []
            self._do(new, seat, parsed, events)
        new.last_move = {"player": player, "action": parsed.text}

    def _why(self, state: BattlecardsState, seat: Seat, action: Action,
             legal: list[str]) -> str:
        what = self.prompt(state, seat.id)
        examples = ", ".join(f"`{a}`" for a in legal[:4]) or "nothing"
        if action.verb == "deploy" and state.phase in ("setup", "resolve") and action.args:
            return (f"You have no card in hand slot {action.args[0]}: your hand has "
                    f"{len(seat.hand)} cards.")
        return f"You cannot `{action.text}` now. {what}: for example {examples}."

    def _do(self, state: BattlecardsState, seat: Seat, action: Action,
            events: list[Event]) -> None:
        verb = action.verb
        if state.phase == "setup":
            self._deploy(state, seat, int(action.args[0]), events)
            seat.placed += 1
            if all(s.placed >= st.SETUP_DEPLOY for s in state.seats):
                state.phase = "draw"
                events.append({"type": "turn", "player": state.seats[0].id,
                               "round": state.round})
            return
        p = state.pending
        if p is not None:
            if p.kind == "deploy":
                if verb == "deploy":
                    self._deploy(state, seat, int(action.args[0]), events)
                    p.left -= 1
                if verb == "done" or p.left <= 0 or not seat.hand:
                    self._discard_current(state)
                    self._next_turn(state, events)
            elif p.kind == "scout":
                opp = state.opponent(seat.id)
                force = action.args[0]
                names = [UNITS[c].name for c in opp.stacks[force]]
                seat.known[force] = list(opp.stacks[force])  # the whole stack, seen now
                events.append({"type": "scouted", "player": seat.id, "opponent": opp.id,
                               "stack": force, "count": len(names)})
                events.append({"type": "scout_report", "private_to": seat.id,
                               "player": seat.id, "stack": force, "cards": names})
                self._discard_current(state)
                self._next_turn(state, events)
            elif p.kind == "decide":
                card = CONFLICTS[state.current or ""]
                if verb == "decline":
                    events.append({"type": "declined", "player": seat.id, "card": card.name})
                    self._discard_current(state)
                    self._next_turn(state, events)
                else:
                    events.append({"type": "attack", "player": seat.id, "card": card.name})
                    defender = state.opponent(seat.id)
                    if card.total_victory and defender.hand:
                        state.pending = Pending("homeland", defender.id)
                    else:
                        self._begin_battle(state, events)
            else:  # homeland
                if verb == "emergency":
                    self._emergency(state, seat, events)
                self._begin_battle(state, events)
            return
        b = state.battle
        if b is not None:
            if verb in ("play", "support"):
                self._bonus(state, seat, action, events)
            elif verb == "pass" and b.step == "ready":
                b.step, b.offered = "fire", True
            elif verb == "pass":
                if b.side == 0:
                    b.side = 1
                else:
                    b.step, b.side, b.phase = "fire", 0, 1
                    b.offered = True
            elif verb == "fire":
                shooter = b.unit(seat.id, action.args[0])
                target = b.unit(state.opponent(seat.id).id, action.args[1])
                assert shooter is not None and target is not None
                winner = bt.shoot(state, shooter, target, events)
                if winner is not None:
                    self._after_battle(state, winner, events)
                    return
            elif verb == "withdraw":
                unit = b.unit(seat.id, action.args[0])
                assert unit is not None
                winner = bt.withdraw(state, unit, events)
                if winner is not None:
                    self._after_battle(state, winner, events)
                    return
            else:  # stay
                events.append({"type": "stay", "player": seat.id})
                bt.stay(state)
            self._run_battle(state, events)
            return
        if verb == "emergency":
            self._emergency(state, seat, events)
            self._next_turn(state, events)
        else:
            self._draw(state, seat, events)

    # -- the pieces of a turn ----------------------------------------------------

    def _deploy(self, state: BattlecardsState, seat: Seat, slot: int,
                events: list[Event]) -> None:
        cid = seat.hand.pop(slot - 1)
        stack = UNITS[cid].stack
        seat.stacks[stack].append(cid)
        events.append({"type": "deployed", "player": seat.id, "stack": stack,
                       "hand_count": len(seat.hand)})
        events.append({"type": "deployed_card", "private_to": seat.id, "player": seat.id,
                       "stack": stack, "card": UNITS[cid].name})

    def _emergency(self, state: BattlecardsState, seat: Seat, events: list[Event]) -> None:
        counts = dict.fromkeys(FORCES, 0)
        names = []
        for cid in seat.hand:
            stack = UNITS[cid].stack
            seat.stacks[stack].append(cid)
            counts[stack] += 1
            names.append(UNITS[cid].name)
        seat.hand = []
        events.append({"type": "emergency", "player": seat.id, "counts": counts})
        events.append({"type": "emergency_cards", "private_to": seat.id, "player": seat.id,
                       "cards": names})

    def _draw_arsenal(self, state: BattlecardsState, seat: Seat, count: int,
                      events: list[Event]) -> None:
        names = []
        for _ in range(count):
            cid = st.draw_arsenal(state, seat)
            if cid is None:
                break
            seat.hand.append(cid)
            names.append(UNITS[cid].name)
        events.append({"type": "arsenal_drawn", "player": seat.id, "count": len(names),
                       "hand_count": len(seat.hand)})
        events.append({"type": "arsenal_cards", "private_to": seat.id, "player": seat.id,
                       "cards": names})

    def _discard_current(self, state: BattlecardsState) -> None:
        if state.current is not None:
            state.conflict_discard.append(state.current)
            state.current = None
        state.pending = None

    def _draw(self, state: BattlecardsState, seat: Seat, events: list[Event]) -> None:
        cid = st.draw_conflict(state)
        if cid is None:  # every card is kept or won: nothing to draw
            events.append({"type": "no_card", "player": seat.id})
            self._next_turn(state, events)
            return
        card = CONFLICTS[cid]
        if card.kind == "keep":
            seat.kept.append(cid)
            events.append({"type": "kept", "player": seat.id, "kept_count": len(seat.kept)})
            events.append({"type": "kept_card", "private_to": seat.id, "player": seat.id,
                           "card": card.name, "text": card.text})
            self._next_turn(state, events)
            return
        state.current = cid
        events.append({"type": "drew", "player": seat.id, "card": card.name,
                       "kind": card.kind, "text": card.text,
                       "action_number": card.action_number})
        opp = state.opponent(seat.id)
        if card.kind == "battle":
            missing = [p for p in card.prerequisites if p not in state.won_keys()]
            if missing:
                events.append({"type": "prerequisites_unmet", "player": seat.id,
                               "card": card.name,
                               "missing": [BATTLES_BY_KEY[k].name for k in missing]})
                self._discard_current(state)
                self._next_turn(state, events)
                return
            aggressor = state.side_seat(card.aggressor)
            state.phase = "decide"
            state.pending = Pending("decide", aggressor.id)
            return
        if card.kind in ("arsenal", "draw_deploy"):
            self._draw_arsenal(state, seat, card.count, events)
        if card.kind == "both_draw":
            self._draw_arsenal(state, seat, card.count, events)
            self._draw_arsenal(state, opp, card.count, events)
        if card.kind in ("deploy", "draw_deploy") and seat.hand:
            state.phase = "resolve"
            state.pending = Pending("deploy", seat.id, card.count)
            return
        if card.kind == "scout" and any(opp.stacks[f] for f in FORCES):
            state.phase = "resolve"
            state.pending = Pending("scout", seat.id)
            return
        self._discard_current(state)
        self._next_turn(state, events)

    def _begin_battle(self, state: BattlecardsState, events: list[Event]) -> None:
        state.pending = None
        winner = bt.start(state, events)
        if winner == "":
            self._discard_current(state)
            self._next_turn(state, events)
        elif winner is not None:
            self._after_battle(state, winner, events)
        else:
            self._run_battle(state, events)

    def _run_battle(self, state: BattlecardsState, events: list[Event]) -> None:
        winner = bt.advance(state, events)
        if winner is not None:
            self._after_battle(state, winner, events)

    def _bonus(self, state: BattlecardsState, seat: Seat, action: Action,
               events: list[Event]) -> None:
        b = state.battle
        assert b is not None
        if action.verb == "play":
            slot, ref = int(action.args[0]), action.args[1]
            cid = seat.kept.pop(slot - 1)
            unit = b.unit(seat.id, ref)
            assert unit is not None
            unit.bonus += CONFLICTS[cid].bonus
            state.conflict_discard.append(cid)
            events.append({"type": "kept_played", "player": seat.id, "card": CONFLICTS[cid].name,
                           "ref": ref, "bonus": CONFLICTS[cid].bonus,
                           "unit": UNITS[unit.card].name})
        else:
            s, u = b.unit(seat.id, action.args[0]), b.unit(seat.id, action.args[1])
            assert s is not None and u is not None
            bt.give_support(state, s, u, events)

    def _after_battle(self, state: BattlecardsState, winner: str,
                      events: list[Event]) -> None:
        card = bt.card_of(state)
        bt.finish(state, winner, events)
        seat = state.seat(winner)
        if card.total_victory:
            state.winner = winner
            self._end(state, "total", events)
        elif seat.vp >= VICTORY_TARGET:
            state.winner = winner
            self._end(state, "standard", events)
        elif sum(len(s.won) for s in state.seats) == len(BATTLES):
            state.winner, result = final_result({s.id: s.vp for s in state.seats})
            self._end(state, result, events)
        else:
            self._next_turn(state, events)

    def _end(self, state: BattlecardsState, result: str, events: list[Event],
             resigned: str | None = None) -> None:
        state.result = result
        state.phase = "over"
        state.pending = None
        if resigned is not None:
            events.append({"type": "resigned", "player": resigned})
        outcome = self.outcome(state)
        assert outcome is not None
        events.append({"type": "game_over", **outcome.to_json()})

    def _next_turn(self, state: BattlecardsState, events: list[Event]) -> None:
        state.pending = None
        state.battle = None
        state.phase = "draw"
        state.turn = 1 - state.turn
        state.round += 1
        events.append({"type": "turn", "player": state.seats[state.turn].id,
                       "round": state.round})

    # -- computer players ----------------------------------------------------------

    def forget(self, state: BattlecardsState) -> BattlecardsState:
        """The position without the seats' memory (``known``, ``deck_from``, the conflict
        deck's ``conflict_from``)."""
        new = state.copy()
        for seat in new.seats:
            seat.known = {f: [] for f in FORCES}
            seat.deck_from = []
        new.conflict_from = []
        return new

    def determinize(self, state: BattlecardsState, player: str,
                    rng: random.Random) -> BattlecardsState:
        """A state ``player`` cannot tell from ``state``, its secrets redealt from ``rng``.

        What ``player`` sees (docs/games/battlecards.md, *Secrets*): their own hand, stacks
        and kept cards; every count; both arsenal discards, the conflict discard, the
        battlecards won and the units in a battle. What ``player`` remembers (their seat's
        ``known``): the enemy cards they saw on each enemy stack, by scouting it or as the
        survivors of a battle went back face down, which stay there until a battle reveals
        that stack again. Those stay where they are, at the bottom of their stack. Redrawn:
        the order of their own arsenal deck; the rest of the opponent's arsenal (hand,
        the unknown part of each stack, which keeps its size and holds only units of its
        force, and the deck), dealt from one pool; the opponent's kept cards (only keep
        cards) and the conflict deck, dealt from another; and the dice. Each pool is
        sorted before it is shuffled, so the result depends only on the pool's contents,
        which ``player`` can work out, never on where its cards really are. The
        opponent's own memory is kept as it is: it is what they saw of ``player``'s
        stacks, which ``player`` can work out from the public scouting and battles.
        A discard pile is public, so when one is shuffled into its empty deck both players
        know what that deck is made of (the seat's ``deck_from`` for the opponent's
        arsenal, the state's ``conflict_from`` for the conflict deck): the redealt deck
        then holds only those cards, and a card not among them goes to the hand, a stack
        or the kept cards.
        """
        new = state.copy()
        if state.seat_of(player) is None:  # not a player's seat: only the dice to come
            new.dice = Dice.from_seed(rng.getrandbits(64))
            return new
        mine, theirs = new.seat(player), new.opponent(player)
        # my own deck: its cards are mine to count, its order nobody knows
        mine.deck = _shuffled(mine.deck, rng)
        # the opponent's arsenal: hand, face-down stacks and deck, but for what I remember
        remembered = {c for f in FORCES for c in mine.known[f]}
        pool = _shuffled([c for c in [*theirs.hand, *theirs.deck,
                                      *(c for f in FORCES for c in theirs.stacks[f])]
                          if c not in remembered], rng)
        unseen = {f: len(theirs.stacks[f]) - len(mine.known[f]) for f in FORCES}
        deck: list[str] | None = None
        if mine.deck_from:
            # their deck was made from a discard pile I saw: it holds only those cards, and
            # leaves each stack enough units of its force
            allowed = set(mine.deck_from)
            room = {f: sum(UNITS[c].stack == f for c in pool) - unseen[f] for f in FORCES}
            deck = []
            for c in pool:
                if len(deck) == len(theirs.deck):
                    break
                if c in allowed and room[UNITS[c].stack] > 0:
                    deck.append(c)
                    room[UNITS[c].stack] -= 1
            chosen = set(deck)
            pool = [c for c in pool if c not in chosen]
        for force in FORCES:
            taken = [c for c in pool if UNITS[c].stack == force][:unseen[force]]
            theirs.stacks[force] = [*mine.known[force], *taken]
            for c in taken:
                pool.remove(c)
        if deck is None:
            theirs.hand, theirs.deck = pool[:len(theirs.hand)], pool[len(theirs.hand):]
        else:
            theirs.hand, theirs.deck = pool, deck
        # the opponent's kept cards and the conflict deck (which, once it was made from
        # the discard pile, holds only those cards: a keep card not among them is kept)
        pool = _shuffled([*theirs.kept, *new.conflict_deck], rng)
        keeps = [c for c in pool if CONFLICTS[c].kind == "keep"]
        if new.conflict_from:
            made_from = set(new.conflict_from)
            keeps = [*(c for c in keeps if c not in made_from),
                     *(c for c in keeps if c in made_from)]
        kept = keeps[:len(theirs.kept)]
        for c in kept:
            pool.remove(c)
        theirs.kept, new.conflict_deck = kept, pool
        new.dice = Dice.from_seed(rng.getrandbits(64))
        return new

    # -- the clock and undo ------------------------------------------------------

    def timeout_action(self, state: BattlecardsState, player: str) -> str | None:
        """Battlecards' safe default for each decision.

        On one's turn: `draw` (the turn's one obligatory step; an emergency deployment
        would commit the whole hand). Offered deployments: `done`. A battle to attack:
        `decline`. An invaded homeland: `pass` (no emergency deployment). Kept cards and
        supports: `pass`. Withdrawals: `stay`, withdrawing nothing. Firing with auto-fire
        off (a shot cannot be declined): the shot auto-fire would take, the same unit at
        the same target, and no kept card or support with it; the player's auto-fire
        setting is theirs and is left as it is. Setup and scouting cannot be declined
        either; the first hand slot or stack is taken. `autofire` is never chosen: it is
        a preference, not a decision.
        """
        if player not in self.to_act(state):
            return None
        legal = [a for a in self.legal_actions(state, player) if not a.startswith("autofire")]
        if not legal:
            return None
        for safe in ("decline", "pass", "stay", "done", "draw"):
            if safe in legal:
                return safe
        b = state.battle
        if b is not None and b.step == "fire":
            for u in b.units:
                if (u.active and u.owner == player and not u.fired
                        and b.phase in UNITS[u.card].phases):
                    target = bt.best_target(b, u)
                    if target is not None and f"fire {u.ref} {target.ref}" in legal:
                        return f"fire {u.ref} {target.ref}"
            return next(a for a in legal if a.startswith("fire"))
        return legal[0]

    def reversible(self, before: BattlecardsState, after: BattlecardsState,
                   events: list[Event]) -> bool:
        """Never undo anything that touched a card.

        Battlecards' chance is the order of its decks, not ``state.dice`` (which only
        shuffles), and a shot flips the top conflict card, so the contract's dice check
        misses most of it. Any action that moved a card (drawn, deployed, played, kept,
        discarded, revealed into a battle, returned from one, won) or fired a shot is
        final: taking it back would let a player learn a card and choose again. What is
        left may be undone: an attack that only asks the defender about their homeland,
        a support, a withdrawal or a `stay` or `pass` that sets no shot off, and
        switching auto-fire when that fires nothing.
        """
        if any(e.get("type") == "shot" for e in events):
            return False
        if _cards(before) != _cards(after):
            return False
        return super().reversible(before, after, events)

    # -- words -------------------------------------------------------------------

    def prompt(self, state: BattlecardsState, viewer: str | None = None) -> str:
        """What the players to act must decide (no private card names)."""
        if state.over:
            return "The game is over"
        if state.phase == "setup":
            lefts = sorted({st.SETUP_DEPLOY - s.placed for s in state.seats
                            if s.placed < st.SETUP_DEPLOY and (viewer is None or s.id == viewer)})
            if len(lefts) == 1:
                n = lefts[0]
                more = "" if n == st.SETUP_DEPLOY else " more"
                return (f"Deploy {n}{more} card{'s' if n != 1 else ''} face down onto your "
                        "stacks")
            return "Deploy your cards face down onto your stacks until each has placed 3"
        p = state.pending
        card = CONFLICTS[state.current] if state.current else None
        if p is not None:
            if p.kind == "deploy":
                return f"Deploy up to {p.left} cards from the reserve hand, then done"
            if p.kind == "scout":
                return "Choose an enemy stack to scout"
            if p.kind == "decide":
                assert card is not None
                return f"Attack in {card.name} or decline"
            return "The homeland is invaded: emergency deployment or pass"
        b = state.battle
        if b is not None:
            if b.step == "bonus":
                return "Play kept cards or supports before the round, or pass"
            if b.step == "ready":
                return f"Play a kept card before your units fire in phase {b.phase}, or pass"
            if b.step == "fire":
                return (f"Fire your units in phase {b.phase} (kept cards and supports may be "
                        "played before any shot)")
            return "Withdraw units, or stay"
        return "Draw a conflict card or make an emergency deployment"

    # -- views and the position format -------------------------------------------

    def view(self, state: BattlecardsState, player: str | None) -> JSON:
        outcome = self.outcome(state)
        players = []
        for i, s in enumerate(state.seats):
            entry: JSON = {
                "id": s.id, "seat": i + 1, "side": s.side, "vp": s.vp, "autofire": s.autofire,
                "hand_count": len(s.hand), "kept_count": len(s.kept),
                "arsenal_count": len(s.deck),
                "stacks": {f: len(s.stacks[f]) for f in FORCES},
                "discard": [UNITS[c].to_json() for c in s.discard],
                "battlecards_won": [CONFLICTS[c].to_json() for c in s.won],
            }
            if player == s.id:
                entry["hand"] = [UNITS[c].to_json() for c in s.hand]
                entry["kept"] = [CONFLICTS[c].to_json() for c in s.kept]
                entry["stack_cards"] = {f: [UNITS[c].to_json() for c in s.stacks[f]]
                                        for f in FORCES}
            players.append(entry)
        b = state.battle
        battle = None
        if b is not None and state.current is not None:
            battle = {"card": CONFLICTS[state.current].to_json(), "aggressor": b.aggressor,
                      "defender": b.defender, "round": b.round,
                      "phase": "withdraw" if b.step == "withdraw" else b.phase,
                      "units": [bt.unit_json(u) for u in b.units]}
        won_by = {c: s.id for s in state.seats for c in s.won}
        blist = []
        for card in BATTLES:
            if card.id in won_by:
                status = "won"
            elif card.id == state.current:
                status = "in play"
            elif card.id in state.conflict_discard:
                status = "discarded"
            else:
                status = "in deck"
            blist.append({"name": card.name, "vp": card.vp, "aggressor": card.aggressor,
                          "forces": list(card.forces), "status": status,
                          "won_by": won_by.get(card.id)})
        discard_top = CONFLICTS[state.conflict_discard[-1]].to_json() \
            if state.conflict_discard else None
        return {
            "kind": self.kind,
            "viewer": player,
            "round": state.round,
            "turn": self.current_turn(state),
            "to_act": self.to_act(state),
            "phase": self.view_phase(state),
            "prompt": self.prompt(state),
            "victory_target": VICTORY_TARGET,
            "players": players,
            "conflict": {"deck_count": len(state.conflict_deck),
                         "discard_count": len(state.conflict_discard),
                         "discard_top": discard_top},
            "battle": battle,
            "last_shots": [dict(s) for s in state.last_shots],
            "battlecard_list": blist,
            "current": CONFLICTS[state.current].to_json() if state.current else None,
            "last_move": dict(state.last_move) if state.last_move else None,
            "outcome": outcome.to_json() if outcome else None,
        }


def _shuffled(cards: list[str], rng: random.Random) -> list[str]:
    """``cards`` in an order drawn from ``rng`` that does not depend on their order."""
    out = sorted(cards)
    rng.shuffle(out)
    return out
