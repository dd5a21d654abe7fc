"""Conqueror's rules (docs/games/conqueror.md explains them and the product's rulings)."""

from __future__ import annotations

from typing import Any

from engine.conqueror import narration
from engine.conqueror import state as st
from engine.conqueror.board import BASES, NEIGHBOURS, QUADRANTS, SQUARES, adjacent, quadrant
from engine.conqueror.notation import VERBS, Action, parse
from engine.conqueror.state import (
    MAX_FORTS,
    MAX_STACK,
    MAX_STACK_FORT,
    MAX_STOCK,
    NOBODY,
    ConquerorState,
    Seat,
    Square,
)
from engine.core import (
    JSON,
    Dice,
    Event,
    Game,
    GameFacts,
    IllegalAction,
    Outcome,
    move_record,
    seated_player,
)

FORT_COST = {"lumber": 2, "gold": 2, "ap": 2}
MAX_BLANKS_PER_QUADRANT = 2
ROLL_RESOURCE = {1: "gold", 4: "gold", 2: "lumber", 5: "lumber", 3: "blank", 6: "blank"}

#: Every square's neighbours, each with its move texts "move a1 b2 1" .. "move a1 b2 6".
#: The notation never changes, so legal_actions slices these instead of formatting
#: the same strings on every call.
_MOVE_TEXTS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    src: tuple((dst, tuple(f"move {src} {dst} {n}" for n in range(1, MAX_STACK + 1)))
               for dst in NEIGHBOURS[src])
    for src in SQUARES
}


def ap_income(round_number: int) -> int:
    """AP gained at the start of a turn: 2 in rounds 1-10, 4 in 11-15, then 5."""
    if round_number <= 10:
        return 2
    if round_number <= 15:
        return 4
    return 5


def defender_numbers(attackers: int, defenders: int) -> int:
    """How many different numbers the defender rolls for (k), by A - D."""
    diff = attackers - defenders
    if diff >= 2:
        return 1
    return {1: 2, 0: 3, -1: 4}.get(diff, 5)


def half_up(n: int) -> int:
    return (n + 1) // 2


def _gain(seat: Seat, stock: str, amount: int) -> int:
    """Add ``amount`` of ``stock`` up to the cap; return how much was lost to the cap."""
    total = int(getattr(seat, stock)) + amount
    setattr(seat, stock, min(total, MAX_STOCK))
    return max(0, total - MAX_STOCK)


class Conqueror(Game[ConquerorState]):
    kind = "conqueror"
    name = "Conqueror"
    verbs = VERBS
    positions = st
    narrator = narration
    #: What the generic tests hold Conqueror to: every decision is one's own turn.
    facts = GameFacts(
        decisions=frozenset({"turn"}), decision_seeds=14,
        fixed_undo={"recruit": True, "fort": True, "raze": True, "convert": True,
                    "end": True},
        board_shows=frozenset({"turn", "count", "score", "place", "log"}))
    min_players = 2
    max_players = 4
    summary = ("Race from your corner across a hidden 6x6 board: discover gold and lumber, "
               "raise soldiers and forts, and knock down every other base.")

    # -- set-up ------------------------------------------------------------------

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> ConquerorState:
        self.check_players(players)
        self.resolve_options(options)
        bases = BASES[len(players)]
        seats = [Seat(id=p, base=b) for p, b in zip(players, bases, strict=True)]
        board = {name: Square() for name in SQUARES}
        for seat in seats:
            board[seat.base] = Square(resource="base", owner=seat.id, soldiers=1)
        state = ConquerorState(seats=seats, board=board, turn=0, round=1,
                               dice=Dice.from_seed(seed))
        self._begin_turn(state, [])
        return state

    # -- queries -----------------------------------------------------------------

    def players(self, state: ConquerorState) -> list[str]:
        return [s.id for s in state.seats]

    def current_turn(self, state: ConquerorState) -> str | None:
        return None if state.over else state.seats[state.turn].id

    def to_act(self, state: ConquerorState) -> list[str]:
        current = self.current_turn(state)
        return [current] if current else []

    def outcome(self, state: ConquerorState) -> Outcome | None:
        if not state.over:
            return None
        alive = [s.id for s in state.alive]
        standings = tuple(alive + state.out_order[::-1])
        if alive:
            reason = "The last base standing."
        else:  # only reachable from a hand-written position
            reason = "Every base has fallen."
        return Outcome(winners=tuple(alive), standings=standings, reason=reason)

    def legal_actions(self, state: ConquerorState, player: str) -> list[str]:
        # Generated from what can act rather than by testing every candidate against the
        # _problem checks apply uses: same list, same order (tests/test_engine_movegen.py
        # keeps the brute-force version as the reference).
        if player not in self.to_act(state):
            return []
        seat = state.seats[state.turn]
        board = state.board
        actions: list[str] = []
        if seat.ap >= 1:
            home = seat.base
            for src in SQUARES:
                sq = board[src]
                soldiers = sq.soldiers
                if sq.owner != player or not soldiers:
                    continue
                for dst, texts in _MOVE_TEXTS[src]:
                    # how many may step onto dst: 1..most are legal, as _move_problem
                    # rules once the source and AP are known good
                    target = board[dst]
                    if target.resource == "base":
                        most = 0 if dst == home else soldiers
                    elif target.owner == player or (not target.soldiers
                                                    and target.fort_owner == player):
                        limit = MAX_STACK if target.fort_owner is None else MAX_STACK_FORT
                        most = min(soldiers, limit - target.soldiers)
                    else:
                        most = soldiers
                    if most > len(texts):  # more than a full stack: not a legal position
                        texts = tuple(f"move {src} {dst} {n}" for n in range(1, most + 1))
                    actions += texts[:most]
        base = board[seat.base]
        for n in range(1, min(seat.gold, MAX_STACK - base.soldiers) + 1):
            actions.append(f"recruit {n}")
        # The player-wide fort conditions (cost and count) hold for every square or none.
        can_fort = (all(getattr(seat, what) >= cost for what, cost in FORT_COST.items())
                    and sum(1 for s in board.values() if s.fort_owner == player) < MAX_FORTS)
        for name in SQUARES:
            sq = board[name]
            if (can_fort and sq.owner == player and sq.soldiers and sq.resource != "base"
                    and not sq.has_fort and sq.soldiers <= MAX_STACK_FORT):
                actions.append(f"fort {name}")
            if sq.fort_owner == player:
                actions.append(f"raze {name}")
        for what in ("lumber", "ap"):
            if self._convert_problem(seat, what) is None:
                actions.append(f"convert {what}")
        actions.append("end")
        return actions

    # -- applying actions --------------------------------------------------------

    def apply(self, state: ConquerorState, player: str,
              action: str) -> tuple[ConquerorState, list[Event]]:
        text = self.normalise(action)
        seated_player(state.seats, player, state.over)
        parsed = parse(text)
        new = state.draft()
        events: list[Event] = []
        if parsed.verb == "resign":
            self._eliminate(new, player, "resigned", events)
            if not new.over and new.seats[new.turn].id == player:
                self._next_turn(new, events)
            self._finish_if_over(new, events)
            new.last_move = move_record(player, "resign")
            new.settle()
            return new, events
        if player != new.seats[new.turn].id:
            raise IllegalAction(f"It is not your turn: waiting for {new.seats[new.turn].id}.")
        seat = new.seats[new.turn]
        handler = {
            "move": self._do_move, "recruit": self._do_recruit, "fort": self._do_fort,
            "raze": self._do_raze, "convert": self._do_convert, "end": self._do_end,
        }[parsed.verb]
        canonical = handler(new, seat, parsed, events)
        new.last_move = move_record(player, canonical, parsed.squares)
        self._finish_if_over(new, events)
        new.settle()
        return new, events

    def _do_move(self, state: ConquerorState, seat: Seat, action: Action,
                 events: list[Event]) -> str:
        src, dst = action.squares
        source = state.board[src]
        count = source.soldiers if action.count is None and source.owner == seat.id \
            else action.count or 0
        problem = self._move_problem(state, seat, src, dst, count)
        if problem:
            raise IllegalAction(problem)
        seat.ap -= 1
        target = state.board[dst]
        events.append({"type": "move", "player": seat.id, "from": src, "to": dst,
                       "count": count})
        enemy_base = target.resource == "base"  # _move_problem refused our own base
        if enemy_base:
            self._attack_base(state, seat, src, dst, count, events)
        elif target.soldiers and target.owner != seat.id:
            self._battle(state, seat, src, dst, count, events)
        elif target.has_fort and target.fort_owner != seat.id:
            self._capture_fort(state, seat, src, dst, count, events)
        else:
            self._relocate(state, src, dst, count, events)
        return f"move {src} {dst} {count}"

    def _move_problem(self, state: ConquerorState, seat: Seat, src: str, dst: str,
                      count: int) -> str | None:
        """Why this move is not allowed, or None if it is."""
        source = state.board[src]
        if source.owner != seat.id or not source.soldiers:
            return f"You have no soldiers on {src}."
        if not 1 <= count <= source.soldiers:
            return f"You have {source.soldiers} soldier(s) on {src}; move 1-{source.soldiers}."
        if not adjacent(src, dst):
            return f"{dst} is not next to {src}: soldiers move one square, like a chess king."
        if seat.ap < 1:
            return "Moving costs 1 AP and you have 0 left. Type `end` to end your turn."
        target = state.board[dst]
        if target.resource == "base":
            if dst == seat.base:
                return "Soldiers cannot return to their base: only recruits appear there."
            return None
        if target.owner == seat.id or (not target.soldiers and target.fort_owner == seat.id):
            limit = MAX_STACK_FORT if target.has_fort else MAX_STACK
            if target.soldiers + count > limit:
                where = "a square with a fort" if target.has_fort else "one square"
                return (f"At most {limit} soldiers fit on {where}; {dst} has "
                        f"{target.soldiers}, so move at most {limit - target.soldiers}.")
        return None

    def _relocate(self, state: ConquerorState, src: str, dst: str, count: int,
                  events: list[Event]) -> None:
        source, target = state.square(src), state.square(dst)
        owner = source.owner
        source.soldiers -= count
        if not source.soldiers:
            source.owner = None
        if count:
            target.soldiers += count
            target.owner = owner
        if target.resource == "hidden" and count:
            self._discover(state, dst, events)

    def _discover(self, state: ConquerorState, square: str, events: list[Event]) -> None:
        q = quadrant(square)
        blanks = sum(1 for s in QUADRANTS[q] if state.board[s].resource == "blank")
        rolls: list[int] = []
        while True:
            roll = state.dice.roll()
            rolls.append(roll)
            resource = ROLL_RESOURCE[roll]
            if resource != "blank" or blanks < MAX_BLANKS_PER_QUADRANT:
                break
        state.square(square).resource = resource
        events.append({"type": "discover", "square": square, "rolls": rolls,
                       "resource": resource, "rerolled": len(rolls) > 1})

    def _capture_fort(self, state: ConquerorState, seat: Seat, src: str, dst: str,
                      count: int, events: list[Event]) -> None:
        target = state.square(dst)
        previous = target.fort_owner
        target.fort_owner = None
        gold_lost = _gain(seat, "gold", 1)
        lumber_lost = _gain(seat, "lumber", 1)
        events.append({"type": "capture_fort", "player": seat.id, "square": dst,
                       "previous_owner": previous or None, "gold": 1, "lumber": 1,
                       "gold_lost": gold_lost, "lumber_lost": lumber_lost})
        self._relocate(state, src, dst, count, events)

    def _roll_battle(self, state: ConquerorState, k: int) -> tuple[list[int], list[int], int]:
        rolls: list[int] = []
        numbers: list[int] = []
        while len(numbers) < k:
            roll = state.dice.roll()
            rolls.append(roll)
            if roll not in numbers:
                numbers.append(roll)
        return rolls, numbers, state.dice.roll()

    def _remove(self, state: ConquerorState, square: str, count: int) -> None:
        sq = state.square(square)
        sq.soldiers -= count
        if not sq.soldiers:
            sq.owner = None

    def _battle(self, state: ConquerorState, seat: Seat, src: str, dst: str, a: int,
                events: list[Event]) -> None:
        target = state.board[dst]
        defender = target.owner
        n = target.soldiers
        fort = target.has_fort
        d = n + 2 if fort else n
        event: Event = {"type": "battle", "kind": "fort" if fort else "soldiers",
                        "attacker": seat.id, "defender": defender, "from": src, "to": dst,
                        "attackers": a, "defenders": n, "strength": d}
        if a == MAX_STACK and d <= 2:
            event.update(rule="absolute", winner="attacker", attacker_losses=0)
        elif a > 2 * d:
            event.update(rule="overwhelming", winner="attacker", attacker_losses=d)
        elif d > 2 * a:
            event.update(rule="hopeless", winner="defender", attacker_losses=a)
        else:
            k = defender_numbers(a, d)
            rolls, numbers, attack_roll = self._roll_battle(state, k)
            won = attack_roll not in numbers
            if won:
                losses = 1 if k >= 3 else 0
            else:
                losses = half_up(a) if k >= 3 else 1
            event.update(rule="dice", k=k, defender_rolls=rolls, defender_numbers=numbers,
                         attacker_roll=attack_roll,
                         winner="attacker" if won else "defender", attacker_losses=losses)
        losses = event["attacker_losses"]
        survivors = a - losses
        if event["winner"] == "attacker":
            event["defender_losses"] = n
            self._remove(state, dst, n)
            self._remove(state, src, losses)
            if not fort:  # the winners take the square; at a fort they stay home
                self._relocate(state, src, dst, survivors, [])
        else:
            event["defender_losses"] = 0
            self._remove(state, src, losses)
        event["survivors"] = survivors
        events.append(event)

    def _attack_base(self, state: ConquerorState, seat: Seat, src: str, dst: str, a: int,
                     events: list[Event]) -> None:
        target = state.board[dst]
        owner = next(s for s in state.seats if s.base == dst and not s.out)
        n = target.soldiers
        rolls, numbers, attack_roll = self._roll_battle(state, 3)
        won = attack_roll not in numbers
        losses = half_up(a)
        damage = max(0, a - 3) if won else 0
        event: Event = {"type": "battle", "kind": "base", "attacker": seat.id,
                        "defender": owner.id, "from": src, "to": dst, "attackers": a,
                        "defenders": n, "strength": n, "rule": "base", "k": 3,
                        "defender_rolls": rolls, "defender_numbers": numbers,
                        "attacker_roll": attack_roll,
                        "winner": "attacker" if won else "defender",
                        "attacker_losses": losses, "defender_losses": n if won else 0,
                        "survivors": a - losses, "damage": damage}
        if won:
            self._remove(state, dst, n)
        self._remove(state, src, losses)
        owner.base_health = max(0, owner.base_health - damage)
        event["base_health"] = owner.base_health
        events.append(event)
        if owner.base_health == 0:
            self._eliminate(state, owner.id, "base destroyed", events)

    def _eliminate(self, state: ConquerorState, player: str, reason: str,
                   events: list[Event]) -> None:
        seat = state.seat_of(player)
        assert seat is not None
        seat.out = True
        state.out_order.append(player)
        for name, held in list(state.board.items()):
            if held.owner == player or held.fort_owner == player:
                sq = state.square(name)
                if sq.owner == player:
                    sq.owner, sq.soldiers = None, 0
                if sq.fort_owner == player:
                    sq.fort_owner = NOBODY
        state.square(seat.base).resource = "ruin"
        events.append({"type": "eliminated", "player": player, "reason": reason})

    def _finish_if_over(self, state: ConquerorState, events: list[Event]) -> None:
        outcome = self.outcome(state)
        if outcome is not None:
            events.append({"type": "game_over", **outcome.to_json()})

    def _do_recruit(self, state: ConquerorState, seat: Seat, action: Action,
                    events: list[Event]) -> str:
        count = action.count or 0
        base = state.square(seat.base)
        if count < 1:
            raise IllegalAction("Recruit at least 1 soldier.")
        if count > seat.gold:
            raise IllegalAction(f"Recruiting {count} costs {count} gold and you have "
                                f"{seat.gold}.")
        if base.soldiers + count > MAX_STACK:
            raise IllegalAction(f"Your base holds at most {MAX_STACK} soldiers and has "
                                f"{base.soldiers}; recruit at most {MAX_STACK - base.soldiers}.")
        seat.gold -= count
        base.soldiers += count
        base.owner = seat.id
        events.append({"type": "recruit", "player": seat.id, "count": count,
                       "square": seat.base})
        return f"recruit {count}"

    def _fort_problem(self, state: ConquerorState, seat: Seat, square: str) -> str | None:
        sq = state.board[square]
        if sq.owner != seat.id or not sq.soldiers:
            return f"You need a soldier on {square} to build a fort there."
        if sq.resource == "base":
            return "Forts cannot stand on a base."
        if sq.has_fort:
            return f"{square} already has a fort."
        if sq.soldiers > MAX_STACK_FORT:
            return (f"A fort holds at most {MAX_STACK_FORT} soldiers and {square} has "
                    f"{sq.soldiers}; move some off first.")
        forts = sum(1 for s in state.board.values() if s.fort_owner == seat.id)
        if forts >= MAX_FORTS:
            return f"You already have {MAX_FORTS} forts standing, the most allowed."
        short = [f"{cost} {what}" for what, cost in FORT_COST.items()
                 if getattr(seat, what) < cost]
        if short:
            return ("A fort costs 2 lumber, 2 gold and 2 AP; you have "
                    f"{seat.lumber} lumber, {seat.gold} gold and {seat.ap} AP.")
        return None

    def _do_fort(self, state: ConquerorState, seat: Seat, action: Action,
                 events: list[Event]) -> str:
        square = action.squares[0]
        problem = self._fort_problem(state, seat, square)
        if problem:
            raise IllegalAction(problem)
        for what, cost in FORT_COST.items():
            setattr(seat, what, getattr(seat, what) - cost)
        state.square(square).fort_owner = seat.id
        events.append({"type": "fort", "player": seat.id, "square": square})
        return f"fort {square}"

    def _do_raze(self, state: ConquerorState, seat: Seat, action: Action,
                 events: list[Event]) -> str:
        square = action.squares[0]
        if state.board[square].fort_owner != seat.id:
            raise IllegalAction(f"You have no fort on {square} to raze.")
        state.square(square).fort_owner = None
        events.append({"type": "raze", "player": seat.id, "square": square})
        return f"raze {square}"

    def _convert_problem(self, seat: Seat, what: str) -> str | None:
        cost, gain = (2, 1) if what == "lumber" else (1, 2)
        have = seat.lumber if what == "lumber" else seat.ap
        unit = "lumber" if what == "lumber" else "AP"
        if have < cost:
            return f"Converting {unit} needs {cost} {unit} and you have {have}."
        if seat.gold + gain > MAX_STOCK:
            return (f"That would give you {seat.gold + gain} gold, over the cap of "
                    f"{MAX_STOCK}; spend some gold first.")
        return None

    def _do_convert(self, state: ConquerorState, seat: Seat, action: Action,
                    events: list[Event]) -> str:
        problem = self._convert_problem(seat, action.what)
        if problem:
            raise IllegalAction(problem)
        if action.what == "lumber":
            seat.lumber -= 2
            seat.gold += 1
            gained = 1
        else:
            seat.ap -= 1
            seat.gold += 2
            gained = 2
        events.append({"type": "convert", "player": seat.id, "what": action.what,
                       "gold": gained})
        return f"convert {action.what}"

    def _do_end(self, state: ConquerorState, seat: Seat, action: Action,
                events: list[Event]) -> str:
        events.append({"type": "end_turn", "player": seat.id, "ap_kept": seat.ap})
        self._next_turn(state, events)
        return "end"

    # -- turns -------------------------------------------------------------------

    def _next_turn(self, state: ConquerorState, events: list[Event]) -> None:
        if state.over:
            return
        count = len(state.seats)
        nxt = state.turn
        while True:
            nxt = (nxt + 1) % count
            if not state.seats[nxt].out:
                break
        if nxt <= state.turn:  # play wrapped around to the first seat still in
            state.round += 1
        state.turn = nxt
        self._begin_turn(state, events)

    def _begin_turn(self, state: ConquerorState, events: list[Event]) -> None:
        seat = state.seats[state.turn]
        income = ap_income(state.round)
        ap_lost = _gain(seat, "ap", income)
        gold_squares = lumber_squares = 0
        for sq in state.board.values():
            mine = (sq.owner == seat.id and sq.soldiers > 0) or sq.fort_owner == seat.id
            if mine and sq.resource == "gold":
                gold_squares += 1
            elif mine and sq.resource == "lumber":
                lumber_squares += 1
        gold_lost = _gain(seat, "gold", gold_squares)
        lumber_lost = _gain(seat, "lumber", lumber_squares)
        events.append({"type": "turn_start", "player": seat.id, "round": state.round,
                       "ap": income, "ap_lost": ap_lost, "gold": gold_squares,
                       "gold_lost": gold_lost, "lumber": lumber_squares,
                       "lumber_lost": lumber_lost})

    # -- the clock and undo ------------------------------------------------------

    # timeout_action: the contract's default is already Conqueror's safe default. The only
    # decision is one's own turn, `end` is legal throughout it and hands the turn on, and
    # there are no casualties to choose or reactions to decline.

    def reversible(self, before: ConquerorState, after: ConquerorState,
                   events: list[Event]) -> bool:
        """Also never undo a battle or a player going out.

        Most battles roll dice, which the contract's check already catches, but the
        absolute, overwhelming and hopeless ones are decided without a roll: taking one
        back would still let an attacker see the result and try a different stack, so
        every battle stands. A player going out (a resignation in a game that goes on)
        stands too. Moves onto discovered squares (and onto an empty enemy fort), recruits,
        forts, razes, conversions and `end` are plain bookkeeping and may be undone.
        """
        if any(e.get("type") in ("battle", "eliminated") for e in events):
            return False
        return super().reversible(before, after, events)

    # -- views and the position format -------------------------------------------

    def view(self, state: ConquerorState, player: str | None) -> JSON:
        # Conqueror has no secrets: undiscovered squares are unknown to everyone, since a
        # square's resource is only rolled when a soldier first enters it.
        outcome = self.outcome(state)
        return {
            "kind": self.kind,
            "viewer": player,
            "round": state.round,
            "turn": self.current_turn(state),
            "to_act": self.to_act(state),
            "players": [
                {"id": s.id, "seat": i + 1, "base": s.base, "base_health": s.base_health,
                 "out": s.out, "ap": s.ap, "gold": s.gold, "lumber": s.lumber,
                 "soldiers": sum(q.soldiers for q in state.board.values() if q.owner == s.id),
                 "forts": sum(1 for q in state.board.values() if q.fort_owner == s.id)}
                for i, s in enumerate(state.seats)
            ],
            "board": {
                name: {"resource": sq.resource,
                       "base_of": next((s.id for s in state.seats
                                        if s.base == name and not s.out), None),
                       "owner": sq.owner if sq.soldiers else None, "soldiers": sq.soldiers,
                       "fort": sq.has_fort, "fort_owner": sq.fort_owner or None}
                for name, sq in state.board.items()
            },
            "last_move": dict(state.last_move) if state.last_move else None,
            "outcome": outcome.to_json() if outcome else None,
        }
