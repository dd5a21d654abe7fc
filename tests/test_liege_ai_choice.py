"""Liège's computer player picks exactly what scanning the whole legal list picks.

:func:`engine.liege.ai.choose_action` looks only at the actions that can score (General
steps, Rifle and Machine Gun buys, attacks), taken from the helpers ``legal_actions``
lists them from. This holds it to the plain scan of ``legal_actions`` it replaced, at
every position of seeded random games (2-4 players, both board sizes).
"""

from __future__ import annotations

import random

import pytest

from engine.liege import GAME
from engine.liege.ai import _LOSS, choose_action
from engine.liege.fights import unit_at
from engine.liege.state import LiegeState


def reference(state: LiegeState, player: str) -> str:
    """The scan of every legal action (the computer player before issue 30, and since
    issue 31 stepping a piece out of its walled-in General's way)."""
    legal = GAME.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do")
    seat = state.seat_of(player)
    assert seat is not None
    if legal[0].startswith("casualty"):
        def cost(action: str) -> int:
            unit = unit_at(state, action.split()[1])
            if unit is None:
                return 0
            if unit.in_av:
                return 150
            if unit.kind == "mg" and unit.piece is not None and not unit.piece.damaged:
                return 30
            return _LOSS.get(unit.kind, 50)
        return min(legal, key=cost)
    if state.phase == "setup":
        return legal[0]
    geo = state.geo
    enemies = [s.general for s in state.alive if s.id != player and s.general]
    # walled in: short of the far edge, and no General step (legal now or not) nearer it
    assert seat.general is not None
    to_go = geo.to_go(seat.side, seat.general)
    ahead = {s for s in geo.neighbours[seat.general] if geo.to_go(seat.side, s) < to_go}
    walled = to_go > 0 and all(geo.to_go(seat.side, s) >= to_go
                               for s in GAME._general_moves(state, seat))
    best, best_score = "end", 0.0
    for action in legal:
        words = action.split()
        score = 0.0
        if words[0] == "general" and seat.general is not None:
            gain = geo.to_go(seat.side, seat.general) - geo.to_go(seat.side, words[1])
            score = 60 + 10 * gain if gain > 0 else -1
        elif words[0] == "shift" and walled and words[1] in ahead \
                and words[2] not in ahead:
            # a piece of one's own ahead steps aside, nearest an enemy General first
            near = min((max(abs(a - b) for a, b in zip(geo.coords(words[2]), geo.coords(e),
                                                       strict=True)) for e in enemies),
                       default=0)
            score = 55 - near / 100
        elif words[0] == "attack":
            target = unit_at(state, words[2])
            score = 80 if target is not None and target.kind == "general" else 50
        elif words[0] == "buy" and enemies:
            kind, square = words[1], words[2]
            near = min(max(abs(a - b) for a, b in zip(geo.coords(square), geo.coords(e),
                                                      strict=True)) for e in enemies)
            if kind == "rifle":
                score = 40 - near
            elif kind == "mg" and seat.credits >= 250:
                score = 45 - near
        if score > best_score:
            best, best_score = action, score
    if best == "end" and "skip" in legal and state.phase == "general":
        return "skip"
    return best


@pytest.mark.parametrize("players,size", [(2, 10), (3, 10), (4, 10), (2, 8), (4, 8)])
def test_choice_matches_the_full_scan(players: int, size: int) -> None:
    ids = [f"p{i}" for i in range(1, players + 1)]
    checked = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = GAME.new_game(ids, seed, {"size": size})
        for _ in range(250):
            actors = GAME.to_act(state)
            if not actors:
                break
            actor = actors[0]
            assert choose_action(GAME, state, actor) == reference(state, actor)
            for other in ids:  # a player not to act has nothing to do, either way
                if other not in actors:
                    with pytest.raises(ValueError):
                        choose_action(GAME, state, other)
            checked += 1
            legal = GAME.legal_actions(state, actor)
            # mostly random play (rich, crowded boards), now and then the heuristic's
            action = choose_action(GAME, state, actor) if rng.random() < 0.3 else \
                rng.choice(legal)
            state, _ = GAME.apply(state, actor, action)
    assert checked > 200


@pytest.mark.parametrize("size", [10, 8])
def test_distance_is_the_king_move_count_between_any_two_squares(size: int) -> None:
    """The computer's pruning reads :func:`distance` from a table of coordinates; it must
    be the number of king moves, on every board: counted here by walking the board's
    neighbours breadth first."""
    from engine.liege.board import board, distance

    geo = board(size)
    for a in geo.squares:
        walked, frontier = {a: 0}, [a]
        while frontier:
            nxt = []
            for sq in frontier:
                for n in geo.neighbours[sq]:
                    if n not in walked:
                        walked[n] = walked[sq] + 1
                        nxt.append(n)
            frontier = nxt
        assert len(walked) == size * size
        assert all(distance(a, b) == walked[b] for b in geo.squares)


@pytest.mark.parametrize("players,size", [(2, 10), (4, 10), (3, 8)])
def test_the_pruning_keeps_the_buys_nearest_the_enemy_generals(players: int,
                                                                size: int) -> None:
    """The search's pruning (``candidates``) reads distances from kept tables; the buys it
    keeps of each kind of piece must still be, by plain king-move distance: the square
    nearest an enemy General (the first listed of equals), and the square with the least
    distance to an enemy General plus to one's own (the first listed of equals)."""
    from engine.liege.ai import _BUY_SQUARES, QUIET_LIMIT, candidates
    from engine.liege.board import distance

    ids = [f"p{i}" for i in range(1, players + 1)]
    checked = 0
    for seed in range(4):
        rng = random.Random(seed)
        state = GAME.new_game(ids, seed, {"size": size})
        for _ in range(200):
            actors = GAME.to_act(state)
            if not actors:
                break
            actor = actors[0]
            legal = GAME.legal_actions(state, actor)
            kept = candidates(GAME, state, actor, legal)
            seat = state.seat_of(actor)
            quiet = state.phase == "general" and state.quiet >= QUIET_LIMIT  # steps only
            home = seat.general if seat is not None else None
            if kept != legal and len(kept) > 1 and not quiet and home is not None:
                generals = [s.general for s in state.alive if s.id != actor and s.general]
                by_kind: dict[str, list[tuple[int, int, str]]] = {}
                for i, action in enumerate(legal):
                    words = action.split()
                    if words[0] == "buy" and words[1] != "trench":
                        near = min((distance(words[2], g) for g in generals), default=0)
                        by_kind.setdefault(words[1], []).append((near, i, action))
                for kind, options in by_kind.items():
                    want = {min(options)[2]}
                    want.update(a for _, _, a in sorted(
                        options, key=lambda o: (o[0] + distance(o[2].split()[2], home),
                                                o[1]))[:_BUY_SQUARES - 1])
                    assert {a for a in kept if a.startswith(f"buy {kind} ")} == want
                    checked += 1
            state, _ = GAME.apply(state, actor, rng.choice(legal))
    assert checked > 50
