"""Fast legal-action generation lists exactly what the old brute-force listing did.

The engines used to list legal actions by trying every candidate (every square pair and
count, every square for every unit) against the checks ``apply`` makes, then sorting. For
speed they now generate them from what can actually move or act. The brute-force versions
are kept below, copied from the engines as they were, as the reference: over many random
games the fast lists must equal them exactly, in the same order, for every player at every
step. Order matters: random play and the bot's menus pick actions by index, and a game
must replay bit for bit from its seed and actions.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine import RESIGN, IllegalAction
from engine.battlecards import battle as bt
from engine.battlecards.cards import CONFLICTS, FORCES, UNITS
from engine.conqueror.board import NEIGHBOURS, SQUARES
from engine.conqueror.state import MAX_STACK
from engine.liege import fights
from engine.liege.board import Board
from engine.liege.pieces import BUY_ORDER, FIRERS, LIMITS, TURNING, WEAPONS, prices
from engine.liege.rules import _quarter
from engine.liege.state import LiegeState
from engine.search import heuristic_action
from tests import toy_game
from tests.antiquity_positions import antiquity_reference
from tests.napoleon_positions import napoleon_reference

# -- the references: the old listings, as they were ------------------------------------


def conqueror_reference(game: Any, state: Any, player: str) -> list[str]:
    if player not in game.to_act(state):
        return []
    seat = state.seats[state.turn]
    actions: list[str] = []
    for src in SQUARES:
        sq = state.board[src]
        if sq.owner != player or not sq.soldiers or seat.ap < 1:
            continue
        for dst in NEIGHBOURS[src]:
            for n in range(1, sq.soldiers + 1):
                if game._move_problem(state, seat, src, dst, n) is None:
                    actions.append(f"move {src} {dst} {n}")
    base = state.board[seat.base]
    for n in range(1, min(seat.gold, MAX_STACK - base.soldiers) + 1):
        actions.append(f"recruit {n}")
    for name in SQUARES:
        if game._fort_problem(state, seat, name) is None:
            actions.append(f"fort {name}")
        if state.board[name].fort_owner == player:
            actions.append(f"raze {name}")
    for what in ("lumber", "ap"):
        if game._convert_problem(seat, what) is None:
            actions.append(f"convert {what}")
    actions.append("end")
    return actions


def _progress(geo: Board, side: str, square: str) -> int:
    f, r = geo.coords(square)
    last = geo.size - 1
    return {"south": r, "north": last - r, "west": f, "east": last - f}[side]


def _king_distance(geo: Board, a: str, b: str) -> int:
    return max(abs(x - y) for x, y in zip(geo.coords(a), geo.coords(b), strict=True))


def _liege_general_moves(state: LiegeState, seat: Any) -> list[str]:
    geo = state.geo
    here = seat.general
    vehicle = state.pieces.get(here)
    in_av = vehicle is not None and vehicle.type == "av"
    taken = state.occupied()
    moves = []
    if in_av:
        free = {s for s in geo.squares if s not in taken}
        for s in geo.squares:
            if s in free and s != here and _king_distance(geo, s, here) <= 2 \
                    and geo.king_path(here, s, free):
                moves.append(s)
        return moves
    for s in geo.neighbours[here]:
        piece = state.pieces.get(s)
        if state.general_at(s) is not None:
            continue
        if piece is None or (piece.type == "trench") or (
                piece.type == "av" and piece.owner == seat.id):
            moves.append(s)
    return geo.sort(moves)


def _liege_sorted_pairs(state: LiegeState, actions: list[str]) -> list[str]:
    index = state.geo.index
    verbs = {"buy": 0, "grenade": 1, "missile": 2, "gas": 3, "shift": 4, "turn": 5,
             "attack": 6}
    kinds = {k: i for i, k in enumerate(BUY_ORDER)}

    def key(a: str) -> tuple[int, int, int, int]:
        w = a.split(" ")
        if w[0] == "buy":
            return 0, kinds[w[1]], index[w[2]], 0
        second = index[w[2]] if w[2] in index else "nesw".index(w[2])
        return verbs[w[0]], index[w[1]], second, 0
    return sorted(actions, key=key)


def _liege_weapon_zone(state: Any, src: str, piece: Any, kind: str) -> list[str]:
    geo = state.geo
    if kind == "grenade":
        return [s for s in geo.squares if s != src and _king_distance(geo, s, src) <= 2]
    return list(geo.fire_zone(src, piece.facing))


def _liege_buy_actions(state: Any, seat: Any) -> list[str]:
    geo = state.geo
    price = prices(seat.mortar_losses)
    taken = state.occupied()
    blocked: set[str] = set()
    enemy = [sq for sq, p in state.pieces.items() if p.owner not in (None, seat.id)]
    enemy += [s.general for s in state.alive if s.id != seat.id and s.general]
    for sq in enemy:
        blocked.add(sq)
        blocked.update(geo.neighbours[sq])
    reach = _progress(geo, seat.side, seat.general) + 1
    zone = {s for s in geo.squares if _progress(geo, seat.side, s) <= reach}
    out = []
    for kind in BUY_ORDER:
        if price[kind] > seat.credits:
            continue
        if kind == "trench" and seat.used["trench"] >= LIMITS["trench"]:
            continue
        for s in geo.squares:
            if s in taken or s in blocked or (kind != "trench" and s not in zone):
                continue
            out.append(f"buy {kind} {s}")
    for kind in WEAPONS:
        if price[kind] > seat.credits or seat.used[kind] >= LIMITS[kind]:
            continue
        for src, piece in state.pieces.items():
            if piece.owner == seat.id and piece.type == FIRERS[kind]:
                for t in _liege_weapon_zone(state, src, piece, kind):
                    out.append(f"{kind} {src} {t}")
    return _liege_sorted_pairs(state, out)


def _liege_move_actions(game: Any, state: Any, seat: Any) -> list[str]:
    taken = state.occupied()
    out = []
    for src, piece in state.pieces.items():
        if piece.owner != seat.id:
            continue
        if game._shift_problem(state, seat, src, None) is None:
            out += [f"shift {src} {d}" for d in state.geo.neighbours[src] if d not in taken]
        if piece.type in TURNING and not piece.turned:
            out += [f"turn {src} {f}" for f in "nesw" if _quarter(piece.facing, f)]
    return _liege_sorted_pairs(state, out)


def _liege_attacks(game: Any, state: Any, seat: Any) -> list[tuple[str, str]]:
    out = []
    for unit in fights.units_of(state, seat.id):
        if unit.offense <= 0 or unit.fought or unit.new:
            continue
        for t in state.geo.sort(list(fights.fight_range(state, unit))):
            if game._target_problem(state, seat, t) is None:
                out.append((unit.square, t))
    index = state.geo.index
    out.sort(key=lambda pair: (index[pair[0]], index[pair[1]]))
    return out


def liege_reference(game: Any, state: Any, player: str) -> list[str]:
    if not isinstance(player, str) or player not in game.to_act(state):
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
        out += [f"general {s}" for s in _liege_general_moves(state, seat)]
    if phase in ("general", "deploy"):
        out += _liege_buy_actions(state, seat)
    if phase in ("general", "deploy", "move"):
        out += _liege_move_actions(game, state, seat)
    if phase == "move":
        out.append("done")
    if not state.blasted:
        out += [f"attack {a} {t}" for a, t in _liege_attacks(game, state, seat)]
    if phase in ("general", "deploy"):
        out.append("skip")
    out.append("end")
    return out


def _bc_targets(b: Any, u: Any) -> list[Any]:
    return [t for t in b.units if t.active and t.owner != u.owner and bt.can_target(u, t)]


def _bc_bonus_choices(state: Any, player: str) -> list[str]:
    b = state.battle
    out = []
    for i, cid in enumerate(state.seat(player).kept, 1):
        card = CONFLICTS[cid]
        out += [f"play {i} {u.ref}" for u in b.of(player) if u.force in card.to]
    if not state.seat(player).autofire:
        for s in b.of(player):
            sup = UNITS[s.card].support
            if sup is None or s.supported:
                continue
            out += [f"support {s.ref} {u.ref}" for u in b.of(player)
                    if u is not s and u.force in sup.to]
    return out


def _bc_choices(state: Any, seat: Any) -> list[str]:
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
            return [*_bc_bonus_choices(state, seat.id), "pass"]
        if b.step == "fire":
            out = []
            for u in b.units:
                if (u.active and u.owner == seat.id and not u.fired
                        and b.phase in UNITS[u.card].phases):
                    out += [f"fire {u.ref} {t.ref}" for t in _bc_targets(b, u)]
            return [*_bc_bonus_choices(state, seat.id), *out] if out else out
        return [*(f"withdraw {u.ref}" for u in b.of(seat.id)), "stay"]
    return ["draw", "emergency"] if seat.hand else ["draw"]


def battlecards_reference(game: Any, state: Any, player: str) -> list[str]:
    if not isinstance(player, str) or player not in game.to_act(state):
        return []
    seat = state.seat(player)
    out = _bc_choices(state, seat)
    out.append("autofire off" if seat.autofire else "autofire on")
    return out


Reference = Callable[[Any, Any, str], list[str]]
#: The brute-force listings, for the games that had one (a game's own check, by kind).
REFERENCES: dict[str, Reference] = {
    "conqueror": conqueror_reference,
    "liege": liege_reference,
    "battlecards": battlecards_reference,
    "napoleon": napoleon_reference,
    "antiquity": antiquity_reference,
}


def conqueror_near_misses(state: Any) -> list[str]:
    """Every move between neighbouring squares, of every count."""
    return [f"move {a} {b} {n}" for a in SQUARES for b in NEIGHBOURS[a]
            for n in range(1, MAX_STACK + 1)]


def liege_near_misses(state: Any) -> list[str]:
    """Every attack between neighbouring squares with a piece on one of them."""
    return [f"attack {a} {b}" for a in state.geo.squares for b in state.geo.neighbours[a]
            if a in state.pieces or b in state.pieces]


#: Square-pair actions to try beside the listed ones (by kind: each unlisted one must be
#: refused).
NEAR_MISSES: dict[str, Callable[[Any], list[str]]] = {
    "conqueror": conqueror_near_misses,
    "liege": liege_near_misses,
}


# -- random games ------------------------------------------------------------------------


def _games() -> list[tuple[str, int, int, dict[str, Any] | None]]:
    """(kind, players, seed, options) for every game kind (the toy one too) and player
    count, and the option variants each game asks random play to cover."""
    out: list[tuple[str, int, int, dict[str, Any] | None]] = []
    for kind, game in toy_game.every_game().items():
        seeds = 4 if game.max_players > 2 else 12  # a two-player game: more seeds
        for players in range(game.min_players, game.max_players + 1):
            out += [(kind, players, seed, None) for seed in range(seeds)]
    for kind, game in toy_game.every_game().items():
        for options in game.facts.variants:
            out += [(kind, players, seed, dict(options))
                    for players in (game.min_players, game.max_players) for seed in (1, 2)]
    return out


def _choose(game: Any, state: Any, player: str, legal: list[str],
            rng: random.Random) -> tuple[str, str]:
    """Who acts and what: mostly random or the computer player's heuristic (it fights
    more), now and then a resignation by anyone still in while three or more are (players
    going out, the game going on)."""
    roll = rng.random()
    still_in = game.still_in(state)
    if roll < 0.01 and len(still_in) >= 3:
        return rng.choice(still_in), RESIGN
    if roll < 0.35:
        return player, heuristic_action(game, state, player)
    return player, rng.choice(legal)


def _play(kind: str, players: int, seed: int, options: dict[str, Any] | None,
          plies: int = 300) -> list[tuple[Any, str, str]]:
    """A random game: every (state, player, action) in order."""
    game = engine.GAMES[kind]
    rng = random.Random(seed * 1000 + players)
    ids = [f"p{i}" for i in range(1, players + 1)]
    state = game.new_game(ids, seed, options)
    line = []
    for _ in range(plies):
        to_act = game.to_act(state)
        if not to_act:
            break
        who, action = _choose(game, state, to_act[0], game.legal_actions(state, to_act[0]),
                              rng)
        line.append((state, who, action))
        state, _ = game.apply(state, who, action)
    line.append((state, "", ""))
    return line


def _variant(options: dict[str, Any] | None) -> str:
    return "".join(f"-{k}{v}" for k, v in sorted((options or {}).items()))


def _cases(first_seeds: int = 99) -> list[Any]:
    return [pytest.param(kind, players, seed, options,
                         id=f"{kind}-{players}p-seed{seed}{_variant(options)}")
            for kind, players, seed, options in _games() if seed < first_seeds]


CASES = _cases()


@pytest.mark.parametrize(("kind", "players", "seed", "options"),
                         [c for c in CASES if c.values[0] in REFERENCES])
def test_legal_actions_equal_the_brute_force_reference(kind: str, players: int, seed: int,
                                                       options: dict[str, Any] | None) -> None:
    game = engine.GAMES[kind]
    reference = REFERENCES[kind]
    checked = 0
    for state, _, _ in _play(kind, players, seed, options):
        for player in [*game.players(state), "stranger"]:
            fast = game.legal_actions(state, player)
            assert fast == reference(game, state, player), (kind, player, game.dump(state))
            checked += len(fast)
    assert checked > 0


@pytest.mark.parametrize("kind", toy_game.kinds())
def test_every_listed_action_is_accepted_and_near_misses_refused(kind: str) -> None:
    """The fast lists agree with apply itself: each listed action is accepted; for the
    square-pair actions of the games that have them, each unlisted pair is refused."""
    game = engine.GAMES[kind]
    tried = 0
    for state, _, _ in _play(kind, game.max_players, 5, None, plies=120)[:-1:3]:
        acting = game.to_act(state)[0]
        legal = game.legal_actions(state, acting)
        for action in legal:
            game.apply(state, acting, action)  # raises if refused
            tried += 1
        if kind not in NEAR_MISSES:
            continue
        for action in NEAR_MISSES[kind](state):
            if action in legal:
                continue
            with pytest.raises(IllegalAction):
                game.apply(state, acting, action)
    assert tried > 0


@pytest.mark.parametrize(("kind", "players", "seed", "options"), _cases(first_seeds=2))
def test_random_games_replay_bit_for_bit(kind: str, players: int, seed: int,
                                         options: dict[str, Any] | None) -> None:
    """Replaying the same seed and actions gives the same states and events, and apply
    never changes the state it is given."""
    game = engine.GAMES[kind]
    line = _play(kind, players, seed, options)
    replay = game.new_game(game.players(line[0][0]), seed, options)
    assert game.dump(replay) == game.dump(line[0][0])
    for (state, player, action), (after, _, _) in itertools.pairwise(line):
        before = game.dump(state)
        first, first_events = game.apply(state, player, action)
        assert game.dump(state) == before
        replay, events = game.apply(replay, player, action)
        assert events == first_events
        assert game.dump(replay) == game.dump(first) == game.dump(after)
        assert game.legal_actions(replay, player) == game.legal_actions(after, player)
