"""Liège's rules (docs/games/liege.md explains them and the product's rulings).

The turn's phases are run here; buying pieces and weapons is in
:mod:`engine.liege.deploy`, and fights and blasts are resolved in
:mod:`engine.liege.fights`.
"""

from __future__ import annotations

from typing import Any

from engine.core import (
    JSON,
    Dice,
    Event,
    Game,
    GameFacts,
    IllegalAction,
    Option,
    Outcome,
    move_record,
    seated_player,
)
from engine.liege import deploy, fights, narration
from engine.liege import state as st
from engine.liege.board import FACINGS, SIDES
from engine.liege.fights import Unit, fight_range, unit_at
from engine.liege.notation import VERBS, Action, parse
from engine.liege.pieces import LIMITS, MOVABLE, NAMES, TURNING, prices, with_article
from engine.liege.state import LiegeState, Pending, Seat

#: Events that mean a fight or a blast was resolved (or a player went out): an action
#: that produced one is never taken back.
_FINAL_EVENTS = frozenset({"fight", "casualty", "casualty_needed", "grenade", "missile", "gas",
                           "life_lost", "eliminated"})


#: The method that carries out each verb (looked up by name, not bound anew each move).
_HANDLERS = {
    "general": "_do_general", "skip": "_do_skip", "buy": "_do_buy",
    "grenade": "_do_weapon", "missile": "_do_weapon", "gas": "_do_weapon",
    "shift": "_do_shift", "turn": "_do_turn", "done": "_do_done",
    "attack": "_do_attack", "casualty": "_do_casualty", "end": "_do_end",
}

#: Verbs that change the game for good (a fight, a blast): they restart ``quiet``.
_DECISIVE = frozenset({"attack", "grenade", "missile", "gas"})


class Liege(Game[LiegeState]):
    kind = "liege"
    name = "European Conquest: Battle of Liège"
    verbs = VERBS
    positions = st
    narrator = narration
    #: What the generic tests hold Liège to (the 8x8 board is played by random games too).
    facts = GameFacts(
        decisions=frozenset({"setup", "general", "deploy", "fight", "casualty"}),
        decision_seeds=40,
        fixed_undo={"skip": True, "buy": True, "shift": True, "turn": True, "done": True,
                    "attack": False, "casualty": False, "grenade": False, "missile": False,
                    "gas": False},
        board_shows=frozenset({"turn", "count", "score", "place", "log", "unit"}),
        short_game={"size": 8}, variants=({"size": 8},))
    #: 2: `done` in the General step is refused, and `done` in deployment and `skip` in Move
    #: Resources are played (and recorded) as the phase's listed `skip` and `done`.
    rules_version = 2
    min_players = 2
    max_players = 4
    summary = ("1914: buy rifles, machine guns, mortars, armored vehicles and trenches, fight "
               "and gas your way across the board, and bring your General to the far edge.")
    options = (
        Option("size", 10, "Board size: 10x10, or 8x8 for a short game.", (10, 8)),
        Option("forward_bonus", 30, "Credits paid at the end of a turn in which your General "
               "ended nearer its opposite edge.", (30, 40)),
    )

    # -- set-up ------------------------------------------------------------------

    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> LiegeState:
        self.check_players(players)
        opts = self.resolve_options(options)
        seats = [Seat(id=p, side=SIDES[i]) for i, p in enumerate(players)]
        return LiegeState(size=opts["size"], forward_bonus=opts["forward_bonus"], seats=seats,
                          pieces={}, turn=0, round=1, phase="setup",
                          dice=Dice.from_seed(seed))

    # -- queries -----------------------------------------------------------------

    def players(self, state: LiegeState) -> list[str]:
        return [s.id for s in state.seats]

    def current_turn(self, state: LiegeState) -> str | None:
        return None if state.over else state.seats[state.turn].id

    def to_act(self, state: LiegeState) -> list[str]:
        if state.over:
            return []
        if state.pending is not None:
            return [state.pending.player]
        return [state.seats[state.turn].id]

    def outcome(self, state: LiegeState) -> Outcome | None:
        if not state.over:
            return None
        alive = [s.id for s in state.alive]
        if state.winner is not None:
            rest = [p for p in alive if p != state.winner]
            return Outcome((state.winner,), (state.winner, *rest, *state.out_order[::-1]),
                           "A General reached the far edge and held it for a round.")
        standings = (*alive, *state.out_order[::-1])
        if alive:
            return Outcome((alive[0],), standings,
                           "The last General standing.")
        return Outcome((), standings, "Every General has fallen: nobody wins.")

    def piece_range(self, state: LiegeState, square: str) -> list[str]:
        """Squares the piece on ``square`` reaches in a fight (a Mortar: its fire zone)."""
        if not isinstance(square, str) or not state.geo.is_square(square.strip().lower()):
            return []
        return fights.piece_range(state, square.strip().lower())

    def phase(self, state: LiegeState) -> str:
        if state.over:
            return "over"
        if state.pending is not None:
            return "casualty"
        return state.phase

    # -- legal actions -----------------------------------------------------------

    def legal_actions(self, state: LiegeState, player: str) -> list[str]:
        if not isinstance(player, str) or player not in self.to_act(state):
            return []
        if state.pending is not None:
            return [f"casualty {s}" for s in state.pending.choices]
        seat = state.seats[state.turn]
        if state.phase == "setup":
            return [f"general {s}" for s in state.geo.highlights(seat.side)
                    if s not in state.occupied()]
        phase = state.phase
        out: list[str] = []
        if phase == "general":
            out += [f"general {s}" for s in self._general_moves(state, seat)]
        if phase in ("general", "deploy"):
            out += deploy.buy_actions(state, seat)
        if phase in ("general", "deploy", "move"):
            out += self._move_actions(state, seat)
        if phase == "move":
            out.append("done")
        if not state.blasted:
            out += [f"attack {a.square} {t}" for a, t in self._attacks(state, seat)]
        if phase in ("general", "deploy"):
            out.append("skip")
        out.append("end")
        return out

    def _general_moves(self, state: LiegeState, seat: Seat) -> list[str]:
        assert seat.general is not None
        geo = state.geo
        here = seat.general
        vehicle = state.pieces.get(here)
        in_av = vehicle is not None and vehicle.type == "av"
        taken = state.occupied()
        moves = []
        if in_av:
            free = {s for s in geo.squares if s not in taken}
            # near2 lists the squares two king steps away in board order.
            return [s for s in geo.near2[here] if s in free and geo.king_path(here, s, free)]
        for s in geo.neighbours[here]:
            piece = state.pieces.get(s)
            if state.general_at(s) is not None:
                continue
            if piece is None or (piece.type == "trench") or (
                    piece.type == "av" and piece.owner == seat.id):
                moves.append(s)
        return geo.sort(moves)

    # The list builders below generate their actions already in the canonical order
    # (verb, then the first square's board index, then the second square's), which is
    # what the old build-then-sort gave; tests/test_engine_movegen.py checks them against
    # that reference.

    def _move_actions(self, state: LiegeState, seat: Seat) -> list[str]:
        """Every shift (by piece, then neighbour), then every turn (by piece, then n/e/s/w)."""
        taken = state.occupied()
        geo = state.geo
        shifts: list[str] = []
        turns: list[str] = []
        mine = [src for src, piece in state.pieces.items() if piece.owner == seat.id]
        for src in geo.sort(mine):
            piece = state.pieces[src]
            if self._shift_problem(state, seat, src, None) is None:
                # neighbours are listed in board order
                shifts += [f"shift {src} {d}" for d in geo.neighbours[src] if d not in taken]
            if piece.type in TURNING and not piece.turned:
                assert piece.facing is not None
                turns += [f"turn {src} {f}" for f in "nesw" if _quarter(piece.facing, f)]
        return shifts + turns

    def _attacks(self, state: LiegeState, seat: Seat) -> list[tuple[Unit, str]]:
        # Only an opponent's square can be a target; whether it is one does not depend on
        # the attacker, so _target_problem is asked once per square, not once per pair.
        enemy = set(state.enemy_squares(seat.id))
        verdicts: dict[str, bool] = {}
        out = []
        for unit in fights.units_of(state, seat.id):
            if unit.offense <= 0 or unit.fought or unit.new:
                continue
            for t in enemy.intersection(fight_range(state, unit)):
                ok = verdicts.get(t)
                if ok is None:
                    ok = verdicts[t] = self._target_problem(state, seat, t) is None
                if ok:
                    out.append((unit, t))
        index = state.geo.index
        out.sort(key=lambda pair: (index[pair[0].square], index[pair[1]]))
        return out

    # -- applying actions --------------------------------------------------------

    def apply(self, state: LiegeState, player: str,
              action: str) -> tuple[LiegeState, list[Event]]:
        text = self.normalise(action)
        seated_player(state.seats, player, state.over)
        parsed = parse(text, state.size)
        new = state.copy()
        events: list[Event] = []
        if parsed.verb == "resign":
            self._resign(new, player, events)
            new.last_move = move_record(player, "resign")
            self._finish_if_over(new, events)
            return new, events
        pending = new.pending
        if pending is not None:
            if player != pending.player:
                raise IllegalAction(f"Waiting for {pending.player} to choose which piece "
                                    "takes the loss from the last fight.")
            if parsed.verb != "casualty":
                raise IllegalAction("You lost the fight: choose the piece that takes the loss, "
                                    f"one of {', '.join(pending.choices)} "
                                    f"(`casualty {pending.choices[0]}`).")
        elif parsed.verb == "casualty":
            raise IllegalAction("There is no casualty to choose: that comes after a lost "
                                "fight.")
        elif player != new.seats[new.turn].id:
            raise IllegalAction(f"It is not your turn: waiting for {new.seats[new.turn].id}.")
        seat = new.seat_of(player)
        assert seat is not None
        if new.phase == "setup" and parsed.verb != "general":
            where = " or ".join(new.geo.highlights(seat.side))
            raise IllegalAction(f"First place your General on {where} (`general "
                                f"{new.geo.highlights(seat.side)[0]}`).")
        handler = getattr(self, _HANDLERS[parsed.verb])
        canonical = handler(new, seat, parsed, events)
        if parsed.verb in _DECISIVE:
            new.quiet = 0
        new.last_move = move_record(player, canonical, parsed.squares)
        self._after(new, events)
        return new, events

    def _after(self, state: LiegeState, events: list[Event]) -> None:
        """Pass the turn if the player on turn went out; announce the end of the game."""
        if not state.over and state.pending is None and state.seats[state.turn].out:
            self._next_turn(state, events)
        self._finish_if_over(state, events)

    def _finish_if_over(self, state: LiegeState, events: list[Event]) -> None:
        outcome = self.outcome(state)
        if outcome is not None:
            state.phase = "over"
            state.pending = None
            if not any(e["type"] == "game_over" for e in events):
                events.append({"type": "game_over", **outcome.to_json()})

    def _resign(self, state: LiegeState, player: str, events: list[Event]) -> None:
        seat = state.seat_of(player)
        assert seat is not None
        on_turn = state.seats[state.turn].id == player
        fights.eliminate(state, seat, "resigned", events)
        if on_turn:
            state.pending = None  # the fight on their turn is abandoned
        if state.over:
            return
        if state.phase == "setup":
            if on_turn:
                self._next_setup(state, events)
        elif on_turn:
            self._next_turn(state, events)

    # -- phases ------------------------------------------------------------------

    def _enter(self, state: LiegeState, phases: tuple[str, ...], target: str,
               what: str) -> None:
        """Move forward to ``target`` if the current phase allows it, or say why not."""
        if state.phase not in phases:
            raise IllegalAction(f"{what} {self._too_late(state)}")
        state.phase = target

    def _too_late(self, state: LiegeState) -> str:
        return {
            "move": "is not possible: you are moving resources this turn (close with `done`).",
            "fight": "is not possible: deployment is over and you are fighting "
                     "(`attack ...` or `end`).",
            "deploy": "is not possible now: the General step is over.",
        }.get(state.phase, "is not possible now.")

    def _do_general(self, state: LiegeState, seat: Seat, action: Action,
                    events: list[Event]) -> str:
        dst = action.squares[0]
        if state.phase == "setup":
            options = state.geo.highlights(seat.side)
            if dst not in options:
                raise IllegalAction(f"Your General starts on one of your highlighted squares: "
                                    f"{' or '.join(options)}.")
            seat.general = dst
            seat.closest = state.geo.to_go(seat.side, dst)
            events.append({"type": "general_placed", "player": seat.id, "square": dst})
            self._next_setup(state, events)
            return f"general {dst}"
        if state.phase != "general":
            raise IllegalAction("Your General moves at the start of the turn, and that step is "
                                "over.")
        if dst not in self._general_moves(state, seat):
            raise IllegalAction(self._general_problem(state, seat, dst))
        src = seat.general
        assert src is not None
        vehicle = state.pieces.get(src)
        if vehicle is not None and vehicle.type == "av":
            del state.pieces[src]
            state.pieces[dst] = vehicle
        seat.general = dst
        to_go = state.geo.to_go(seat.side, dst)
        if seat.closest is None or to_go < seat.closest:
            seat.closest = to_go
            state.quiet = 0
        state.phase = "deploy"
        holder = state.pieces.get(dst)
        events.append({"type": "general_move", "player": seat.id, "from": src, "to": dst,
                       "into": holder.type if holder else None})
        return f"general {dst}"

    def _general_problem(self, state: LiegeState, seat: Seat, dst: str) -> str:
        assert seat.general is not None
        vehicle = state.pieces.get(seat.general)
        if vehicle is not None and vehicle.type == "av":
            return (f"Inside its Armored Vehicle your General moves up to 2 squares (king "
                    f"steps) onto empty squares, not through pieces; {dst} is not reachable.")
        if dst not in state.geo.neighbours[seat.general]:
            return f"Your General steps one square; {dst} is not next to {seat.general}."
        return (f"{dst} is taken: your General steps onto an empty square, an empty Trench "
                "or your own empty Armored Vehicle.")

    # `skip` and `done` each close the current phase, and each is listed only where it is
    # the phase's own word: `skip` in the General step and deployment, `done` in Move
    # Resources. Typed where the other one is listed, each is that one (ruling 12: `done`
    # during deployment closes it like `skip`; `skip` in Move Resources is `done`), so it
    # does exactly what the listed action does and is recorded as it. `done` in the
    # General step and both in the fighting phase are refused.

    def _do_skip(self, state: LiegeState, seat: Seat, action: Action,
                 events: list[Event]) -> str:
        if state.phase == "move":
            return self._do_done(state, seat, action, events)
        nxt = {"general": "deploy", "deploy": "fight"}.get(state.phase)
        if nxt is None:
            raise IllegalAction("Fighting is the last phase: type `end` to end your turn.")
        events.append({"type": "skip", "player": seat.id, "phase": state.phase})
        state.phase = nxt
        return "skip"

    def _do_done(self, state: LiegeState, seat: Seat, action: Action,
                 events: list[Event]) -> str:
        if state.phase == "deploy":
            return self._do_skip(state, seat, action, events)
        if state.phase == "general":
            raise IllegalAction("`done` closes deployment, which has not begun: `skip` the "
                                "General step, or `end` your turn.")
        if state.phase != "move":
            raise IllegalAction("Deployment is already over: `attack ...` or `end`.")
        events.append({"type": "done", "player": seat.id})
        state.phase = "fight"
        return "done"

    def _do_buy(self, state: LiegeState, seat: Seat, action: Action,
                events: list[Event]) -> str:
        self._enter(state, ("general", "deploy"), "deploy", "Buying")
        return deploy.buy(state, seat, action, events)

    def _do_weapon(self, state: LiegeState, seat: Seat, action: Action,
                   events: list[Event]) -> str:
        self._enter(state, ("general", "deploy"), "deploy", f"Using {with_article(action.verb)}")
        return deploy.weapon(state, seat, action, events)

    def _shift_problem(self, state: LiegeState, seat: Seat, src: str,
                       dst: str | None) -> str | None:
        piece = state.pieces.get(src)
        if piece is not None and piece.type not in MOVABLE:
            return f"{with_article(piece.type)} does not move once placed."
        if piece is None or piece.owner != seat.id:
            return f"You have no piece on {src} to move."
        if piece.type == "av" and state.general_at(src) is not None:
            return ("An Armored Vehicle carrying your General moves with the General's step, "
                    "not in Move Resources.")
        if piece.moved:
            return f"The {NAMES[piece.type]} on {src} has already moved this turn."
        if dst is None:
            return None
        if dst not in state.geo.neighbours[src]:
            return f"Pieces step one square; {dst} is not next to {src}."
        if dst in state.occupied():
            return f"{dst} is taken: pieces step onto empty squares."
        return None

    def _do_shift(self, state: LiegeState, seat: Seat, action: Action,
                  events: list[Event]) -> str:
        src, dst = action.squares
        self._enter(state, ("general", "deploy", "move"), "move", "Moving resources")
        problem = self._shift_problem(state, seat, src, dst)
        if problem:
            raise IllegalAction(problem)
        piece = state.pieces.pop(src)
        piece.moved = True
        state.pieces[dst] = piece
        events.append({"type": "shift", "player": seat.id, "piece": piece.type, "from": src,
                       "to": dst})
        return f"shift {src} {dst}"

    def _do_turn(self, state: LiegeState, seat: Seat, action: Action,
                 events: list[Event]) -> str:
        src, facing = action.squares[0], action.what
        self._enter(state, ("general", "deploy", "move"), "move", "Turning")
        piece = state.pieces.get(src)
        if piece is None or piece.owner != seat.id or piece.type not in TURNING:
            raise IllegalAction(f"You have no Machine Gun or Mortar on {src} to turn.")
        assert piece.facing is not None
        if piece.turned:
            raise IllegalAction(f"The {NAMES[piece.type]} on {src} has already turned this "
                                "turn.")
        if not _quarter(piece.facing, facing):
            options = " or ".join(f for f in "nesw" if _quarter(piece.facing, f))
            raise IllegalAction(f"It faces {piece.facing} and turns 90 degrees: face {options}.")
        events.append({"type": "turn", "player": seat.id, "piece": piece.type, "square": src,
                       "from": piece.facing, "to": facing})
        piece.facing = facing
        piece.turned = True
        return f"turn {src} {facing}"

    def _target_problem(self, state: LiegeState, seat: Seat, target: str) -> str | None:
        unit = unit_at(state, target)
        if unit is None:
            return f"There is nothing on {target} to attack."
        if unit.owner is None:
            return "Trenches do not fight: only a Missile destroys one."
        if unit.owner == seat.id:
            return f"The piece on {target} is yours."
        if unit.in_trench:
            return "A General inside a Trench cannot be attacked."
        return None

    def _do_attack(self, state: LiegeState, seat: Seat, action: Action,
                   events: list[Event]) -> str:
        src, target = action.squares
        if state.blasted:
            raise IllegalAction("You used a Grenade, Missile or Mustard Gas this turn, so "
                                "there is no fighting: type `end`.")
        self._enter(state, ("general", "deploy", "move", "fight"), "fight", "Attacking")
        attacker = unit_at(state, src)
        if attacker is None or attacker.owner != seat.id:
            raise IllegalAction(f"You have no piece on {src}.")
        if attacker.offense <= 0:
            raise IllegalAction(f"{with_article(attacker.kind)} never attacks.")
        if attacker.new:
            raise IllegalAction(f"The {attacker.name} on {src} was placed this turn and "
                                "cannot fight yet.")
        if attacker.fought:
            raise IllegalAction(f"The {attacker.name} on {src} has already fought this turn.")
        problem = self._target_problem(state, seat, target)
        if problem:
            raise IllegalAction(problem)
        if target not in fight_range(state, attacker):
            raise IllegalAction(f"{target} is out of range of the {attacker.name} on {src} "
                                f"(`/liege range {src}` shows it).")
        defender = unit_at(state, target)
        assert defender is not None and defender.owner is not None
        self._fight(state, seat, attacker, defender, events)
        return f"attack {src} {target}"

    def _fight(self, state: LiegeState, seat: Seat, attacker: Unit, target: Unit,
               events: list[Event]) -> None:
        assert target.owner is not None
        attackers, defenders = fights.form_sides(state, attacker, target)
        in_range = attacker.square in fight_range(state, target)
        winner, rounds = fights.roll_fight(state, attackers, defenders)
        for unit in (*attackers, *defenders):
            if unit.kind == "general":
                assert unit.seat is not None
                unit.seat.general_fought = True
            if unit.piece is not None:
                unit.piece.fought = True
        loser_side = defenders if winner == "attacker" else attackers
        loser = target.owner if winner == "attacker" else seat.id
        a_sq = [u.square for u in attackers]
        d_sq = [u.square for u in defenders]
        state.last_fight = {"attacker": seat.id, "defender": target.owner,
                            "from": attacker.square, "to": target.square,
                            "attackers": a_sq, "defenders": d_sq, "winner": winner}
        only_damage = winner == "defender" and not in_range
        events.append({
            "type": "fight", "attacker": seat.id, "defender": target.owner,
            "from": attacker.square, "to": target.square,
            "attackers": [{"square": u.square, "piece": u.kind, "damaged": u.damaged}
                          for u in attackers],
            "defenders": [{"square": u.square, "piece": u.kind, "damaged": u.damaged}
                          for u in defenders],
            "offense": sum(u.offense for u in attackers),
            "defense": sum(u.defense for u in defenders),
            "attack_damage": fights.damage_state(attackers),
            "defense_damage": fights.damage_state(defenders),
            "in_range": in_range, "rounds": rounds, "winner": winner, "loser": loser,
            "only_damage": only_damage,
        })
        choices = state.geo.sort([u.square for u in loser_side])
        if len(choices) == 1:
            fights.resolve_casualty(state, loser_side[0], only_damage, events)
        else:
            state.pending = Pending(loser, choices, only_damage)
            events.append({"type": "casualty_needed", "player": loser, "choices": choices})

    def _do_casualty(self, state: LiegeState, seat: Seat, action: Action,
                     events: list[Event]) -> str:
        pending = state.pending
        assert pending is not None
        square = action.squares[0]
        if square not in pending.choices:
            raise IllegalAction(f"Choose one of your pieces from the fight: "
                                f"{', '.join(pending.choices)}.")
        unit = unit_at(state, square)
        assert unit is not None
        state.pending = None
        fights.resolve_casualty(state, unit, pending.only_damage, events)
        return f"casualty {square}"

    def _do_end(self, state: LiegeState, seat: Seat, action: Action,
                events: list[Event]) -> str:
        bonus = 0
        if seat.general is not None and seat.start_to_go is not None and \
                state.geo.to_go(seat.side, seat.general) < seat.start_to_go:
            bonus = state.forward_bonus
            seat.credits += bonus
        events.append({"type": "end_turn", "player": seat.id, "bonus": bonus,
                       "credits": seat.credits})
        self._next_turn(state, events)
        return "end"

    # -- turns -------------------------------------------------------------------

    def _next_setup(self, state: LiegeState, events: list[Event]) -> None:
        for i in range(state.turn + 1, len(state.seats)):
            if not state.seats[i].out:
                state.turn = i
                return
        first = next(i for i, s in enumerate(state.seats) if not s.out)
        state.turn = first
        self._begin_turn(state, events)

    def _next_turn(self, state: LiegeState, events: list[Event]) -> None:
        if state.over:
            return
        state.quiet += 1
        state.pending = None
        count = len(state.seats)
        nxt = state.turn
        while True:
            nxt = (nxt + 1) % count
            if not state.seats[nxt].out:
                break
        if nxt <= state.turn:
            state.round += 1
        state.turn = nxt
        self._begin_turn(state, events)

    def _begin_turn(self, state: LiegeState, events: list[Event]) -> None:
        seat = state.seats[state.turn]
        for piece in state.pieces.values():
            piece.fought = piece.new = piece.moved = piece.turned = False
        for s in state.seats:
            s.general_fought = False
        state.phase = "general"
        state.blasted = False
        state.last_fight = None
        state.blast = None
        assert seat.general is not None
        seat.start_to_go = state.geo.to_go(seat.side, seat.general)
        events.append({"type": "turn_start", "player": seat.id, "round": state.round})
        if seat.start_to_go == 0:
            state.winner = seat.id
            events.append({"type": "edge_win", "player": seat.id, "square": seat.general})

    # -- computer players ----------------------------------------------------------

    def forget(self, state: LiegeState) -> LiegeState:
        """The position without what follows from the moves alone: ``quiet`` and each
        seat's ``closest`` (kept for the computer player; the rules never read them)."""
        new = state.copy()
        new.quiet = 0
        for seat in new.seats:
            seat.closest = None
        return new

    # -- the clock and undo ------------------------------------------------------

    def timeout_action(self, state: LiegeState, player: str) -> str | None:
        """Liège's safe default: `end` on one's own turn, the cheapest casualty.

        `end` is legal in every phase of a turn and skips whatever is left of it
        (no step, no purchase, no attack). Setup has no `end`: the General must be
        placed, and the first highlighted square is as good as the other. A lost fight
        asks the loser for a casualty even off-turn; the platform gives up the piece
        whose loss costs least (:func:`engine.liege.fights.casualty_cost`), the first in
        board order among equals, so a sleeping player never loses a life or an
        Armored Vehicle they could have kept. Liège offers no withdrawals or reactions.
        """
        legal = self.legal_actions(state, player)
        if not legal:
            return None
        if state.pending is not None:
            only_damage = state.pending.only_damage

            def cost(action: str) -> int:
                unit = unit_at(state, action.split()[1])
                return 0 if unit is None else fights.casualty_cost(state, unit, only_damage)
            return min(legal, key=cost)  # min keeps the first of equals
        return super().timeout_action(state, player)

    def reversible(self, before: LiegeState, after: LiegeState,
                   events: list[Event]) -> bool:
        """Also never undo a fight, a casualty, a blast or a player going out.

        Fights and Grenades roll dice, which the contract's check catches, but a Missile
        or Mustard Gas destroys and damages without a roll, and a casualty is chosen after
        the dice and finishes their fight: taking any of these back would let a player
        see the damage and try again. Liège has no hidden information, so everything
        else (the General's step, buying and placing, shifting and turning pieces,
        skipping, `done`, `end`) replays identically and may be undone.
        """
        if any(e.get("type") in _FINAL_EVENTS for e in events):
            return False
        return super().reversible(before, after, events)

    # -- views and the position format -------------------------------------------

    def view(self, state: LiegeState, player: str | None) -> JSON:
        # Liège has no hidden information: every piece, price and credit is public, so
        # every viewer (and spectators) sees the same view apart from "viewer".
        outcome = self.outcome(state)
        geo = state.geo
        players = []
        for i, s in enumerate(state.seats):
            holder = state.pieces.get(s.general) if s.general else None
            players.append({
                "id": s.id, "seat": i + 1, "side": s.side, "credits": s.credits,
                "lives": s.lives, "out": s.out, "general": s.general,
                "in_vehicle": holder is not None and holder.type == "av",
                "in_trench": holder is not None and holder.type == "trench",
                "highlights": list(geo.highlights(s.side)),
                "prices": prices(s.mortar_losses),
                "left": {k: LIMITS[k] - s.used[k] for k in st.USED_KEYS},
            })
        pieces = []
        for name in geo.squares:
            p = state.pieces.get(name)
            if p is None:
                continue
            inside = state.general_at(name) if p.type in ("av", "trench") else None
            pieces.append({"square": name, "type": p.type, "owner": p.owner,
                           "facing": p.facing, "damaged": p.damaged,
                           "general_inside": inside.id if inside else None,
                           "fought": p.fought, "new": p.new})
        return {
            "kind": self.kind,
            "viewer": player,
            "size": state.size,
            "round": state.round,
            "turn": self.current_turn(state),
            "to_act": self.to_act(state),
            "phase": self.phase(state),
            "players": players,
            "pieces": pieces,
            "damage_tokens_left": state.damage_tokens,
            "last_fight": dict(state.last_fight) if state.last_fight else None,
            "blast": dict(state.blast) if state.blast else None,
            "selected": None,
            "last_move": dict(state.last_move) if state.last_move else None,
            "outcome": outcome.to_json() if outcome else None,
        }


def _quarter(old: str, new: str) -> bool:
    """True if ``new`` is a quarter turn from ``old``."""
    a, b = FACINGS[old], FACINGS[new]
    return a[0] * b[0] + a[1] * b[1] == 0
