"""Simple, deterministic automatic players for Battlecards (used by tests, the balance
simulation and the computer player's play-outs): deploy everything useful, Air first,
always fight, fire greedily (auto-fire), play kept cards at once, and withdraw a unit that
cannot hit anything but can be hit, never the last one in the battle."""

from __future__ import annotations

import math
import random

from engine.battlecards import battle as bt
from engine.battlecards.cards import (
    CONFLICTS,
    UNITS,
    UnitCard,
)
from engine.battlecards.rules import Battlecards
from engine.battlecards.state import Battle, BattlecardsState, Seat, Unit


def _value(cid: str) -> int:
    card = UNITS[cid]
    return sum(v for v in card.attack.values() if v is not None) + (
        card.support.bonus * 2 if card.support else 0)


def choose_action(game: Battlecards, state: BattlecardsState, player: str) -> str:
    """The action this player takes now (one of ``legal_actions``)."""
    return choose_among(game, state, player, game.legal_actions(state, player))


def choose_among(game: Battlecards, state: BattlecardsState, player: str,
                 listed: list[str]) -> str:
    """:func:`choose_action` given ``legal_actions`` already listed (not changed)."""
    legal = [a for a in listed if not a.startswith("autofire")]
    if not legal:
        raise ValueError(f"{player} has nothing to do")
    seat = state.seat(player)
    deploys = [a for a in legal if a.startswith("deploy")]
    if deploys:
        # Air first: it fights in both homeland battles (see ``W_STACK``); then the
        # emptiest stack and the strongest card. Against the rules before it, Air first
        # won 636 games of 1,200, and with the withdrawal rule below 673
        def score(action: str) -> tuple[bool, int, int]:
            cid = seat.hand[int(action.split()[1]) - 1]
            stack = UNITS[cid].stack
            return (stack == "air", -len(seat.stacks[stack]), _value(cid))
        return max(deploys, key=score)
    if "draw" in legal:
        return "emergency" if "emergency" in legal and len(seat.hand) >= 5 else "draw"
    if "attack" in legal:
        return "attack"
    if "emergency" in legal:  # the homeland is invaded
        return "emergency"
    if legal[0].startswith("scout"):
        opp = state.opponent(player)
        return max(legal, key=lambda a: len(opp.stacks[a.split()[1]]))
    plays = [a for a in legal if a.startswith(("play", "support"))]
    if plays:
        return plays[0]
    fires = [a for a in legal if a.startswith("fire")]
    if fires and state.battle is not None:
        b = state.battle

        def chance(action: str) -> int:
            _, mine, theirs = action.split()
            u, t = b.unit(player, mine), b.unit(state.opponent(player).id, theirs)
            assert u is not None and t is not None
            return bt.chance(u, t)
        return max(fires, key=chance)
    if "stay" in legal and state.battle is not None:
        # a unit that cannot hit is only a target, so it goes home, unless nothing can
        # hit it either, or it is the last one (that would give the battle away)
        b = state.battle
        mine, theirs = b.of(player), b.of(state.opponent(player).id)
        if len(mine) > 1:
            for u in mine:
                if (not bt.can_hit_now(b, u)
                        and any(bt.chance(e, u) > 0 for e in theirs)):
                    return f"withdraw {u.ref}"
        return "stay"
    return legal[0]  # done, pass


#: A seasoned player pulls out of a battle it has less than this chance of winning
#: (:func:`battle_odds`), unit by unit, to keep its units for a later one.
RETREAT_ODDS = 0.2


def choose_among_seasoned(game: Battlecards, state: BattlecardsState, player: str,
                          listed: list[str]) -> str:
    """The heuristic with three habits (medium's policy, ``LEVEL_POLICIES``; hard's
    builds on it, :func:`choose_among_sharp`):
    decline an attack where its units on the battle's stacks are fewer than the enemy's
    (counts are public); pull every unit out of a battle it is unlikely to win, but for
    a homeland battle (that would give the war away); otherwise keep its units in the
    battle (a unit that cannot hit still draws fire). Against the heuristic, each deal
    from both seats: 0.60 and 0.62 over two sets of 1,000 deals (``python -m
    engine.battlecards.simulate --duel seasoned``), where each habit alone scored 0.50
    to 0.54 (docs/ai.md)."""
    if "attack" in listed and "decline" in listed and state.current is not None:
        forces = CONFLICTS[state.current].forces
        have = sum(len(state.seat(player).stacks[f]) for f in forces)
        against = sum(len(state.opponent(player).stacks[f]) for f in forces)
        return "decline" if have < against else "attack"
    if "stay" in listed and state.battle is not None and state.current is not None:
        mine = _mine(state.battle, player)
        # pulling out of a homeland battle gives the war away: fight it to the end
        if mine < RETREAT_ODDS and not CONFLICTS[state.current].total_victory:
            return next((a for a in listed if a.startswith("withdraw")), "stay")
        return "stay"
    return choose_among(game, state, player, listed)


def choose_seasoned(game: Battlecards, state: BattlecardsState, player: str) -> str:
    """:func:`choose_among_seasoned` for a caller that has not listed the legal moves."""
    return choose_among_seasoned(game, state, player, game.legal_actions(state, player))


#: Deals of what it cannot see on which a sharp player weighs an attack
#: (:func:`attack_prospect`).
ATTACK_SAMPLES = 2


def _mine(battle: Battle, player: str) -> float:
    """``player``'s chance of winning ``battle`` (:func:`battle_odds` from its side)."""
    odds = _aggressor_odds(battle)
    return odds if battle.aggressor == player else 1.0 - odds


def _revealed(state: BattlecardsState, player: str) -> float:
    """``player``'s chance in the battle its attack would start in ``state`` (fully
    dealt; ``player`` is the aggressor): both sides' stacks of the battle's forces, the
    defender's reserve hand on them too before a homeland battle (every policy makes the
    emergency deployment then), weighed before the first shot; a walkover is won or lost
    outright."""
    assert state.current is not None
    card = CONFLICTS[state.current]
    attacker, defender = state.seat(player), state.opponent(player)
    mine = [c for f in card.forces for c in attacker.stacks[f]]
    theirs = [c for f in card.forces for c in defender.stacks[f]]
    if card.total_victory:
        theirs += [c for c in defender.hand if UNITS[c].stack in card.forces]
    if not mine or not theirs:      # a walkover, or nothing to fight (ignored)
        return 0.5 if mine == theirs else float(bool(mine))
    units = [*(Unit(str(i), attacker.id, c) for i, c in enumerate(mine)),
             *(Unit(str(i), defender.id, c) for i, c in enumerate(theirs))]
    return _mine(Battle(attacker.id, defender.id, units), player)


def attack_prospect(game: Battlecards, state: BattlecardsState, player: str) -> float:
    """``player``'s chance of winning the battle it would start by attacking now,
    averaged over :data:`ATTACK_SAMPLES` deals of what it cannot see
    (:meth:`Battlecards.determinize`, so never the enemy's real stacks). The deals are
    seeded from public counts, so one position always gets one answer."""
    rng = random.Random(state.round * 7919 + len(state.conflict_deck) * 131
                        + len(state.conflict_discard))
    return sum(_revealed(game.determinize(state, player, rng), player)
               for _ in range(ATTACK_SAMPLES)) / ATTACK_SAMPLES


def _kept_odds(state: BattlecardsState, player: str,
               plays: list[str]) -> dict[str, float]:
    """``player``'s chance in the battle being fought once each ``play SLOT REF`` gives
    its kept card's bonus to the unit, for every play at once. The bonus changes only
    that unit's own shots, so the other units' terms of :func:`_firepower` and the
    enemy's firepower are worked out once, not once a play: in a battle of 80 units
    with 80 plays to weigh, weighing them one battle copy at a time took most of a hard
    search's time."""
    battle = state.battle
    assert battle is not None
    enemy = state.opponent(player).id
    terms = _terms(battle, player)
    theirs = _firepower(battle, enemy)
    targets = _targets(battle, player)
    na, nd = len(battle.of(battle.aggressor)), len(battle.of(battle.defender))
    kept = state.seat(player).kept
    out: dict[str, float] = {}
    for action in plays:
        _, slot, ref = action.split()
        bonus = CONFLICTS[kept[int(slot) - 1]].bonus
        hits = 0.0
        for u, term in terms:
            if u.ref == ref:
                term = _term(u.card, u.bonus + bonus + u.support, targets)
            hits += term
        if battle.aggressor == player:
            out[action] = _lanchester(na, nd, hits, theirs)
        else:
            out[action] = 1.0 - _lanchester(na, nd, theirs, hits)
    return out


def choose_among_sharp(game: Battlecards, state: BattlecardsState, player: str,
                       listed: list[str]) -> str:
    """Hard's policy (``LEVEL_POLICIES``): the seasoned policy with two of its habits
    replaced by judgements. It attacks where the battle is likelier won than lost
    (:func:`attack_prospect`) instead of counting units, and it plays the kept card, on
    the unit, that leaves it the best odds in the battle instead of the first listed.
    Against the seasoned policy, each deal from both seats: see docs/ai.md, *Fifteenth
    session*."""
    if "attack" in listed and "decline" in listed and state.current is not None:
        return "attack" if attack_prospect(game, state, player) >= 0.5 else "decline"
    if state.battle is not None:
        plays = [a for a in listed if a.startswith("play")]
        if plays:
            odds = _kept_odds(state, player, plays)
            return max(plays, key=odds.__getitem__)
    return choose_among_seasoned(game, state, player, listed)


def choose_sharp(game: Battlecards, state: BattlecardsState, player: str) -> str:
    """:func:`choose_among_sharp` for a caller that has not listed the legal moves."""
    return choose_among_sharp(game, state, player, game.legal_actions(state, player))


# -- heuristics for the computer player's search (engine/search.py) --------------------

#: Steps a search play-out takes before :func:`evaluate` scores the position: a few turns,
#: or most of a battle.
PLAYOUT_STEPS = 30
#: Every shot flips a conflict card, so the deal decides most of a result and the gap
#: between two moves is small beside it: the search plays every move out on the same
#: deals (``engine.search.Searcher.run_paired``). As a tree search, 16, 64 and 128
#: play-outs scored 0.53, 0.55 and 0.60 against the heuristic (none clear), and medium
#: against easy 30/60; paired, 128 play-outs beat the heuristic 62/100 (0.52-0.71).
PAIRED_ROOT = True
#: Paired play-outs per decision (docs/ai.md): easy as many as medium had; medium as
#: many as keep its decision under 1 s of CPU (0.46 s median, 0.78 s at most on the
#: bench's positions); hard 2048 (over the sharp policy 3.6 s median, 4.2 s at most on
#: the bench's positions, 4.4 s and 6.4 s through whole games of its own; docs/ai.md,
#: *Seventeenth session*), inside its 8 s.
LEVEL_ITERATIONS = {"easy": 128, "medium": 384, "hard": 2048}
#: Each level searches over a stronger policy than the level below: easy over the
#: heuristic, medium over the seasoned policy, hard over the sharp one. A paired search
#: improves on the policy it plays out with and no further: at 128 and 384 play-outs over
#: the same heuristic medium against easy scored 112/217, over the seasoned policy
#: 109/184, clear; hard over the seasoned policy against medium 38/68, not clear
#: (docs/ai.md).
LEVEL_POLICIES = {"medium": choose_seasoned, "hard": choose_sharp}


def _raw_worth(card: UnitCard) -> float:
    attack = sum(v for v in card.attack.values() if v is not None)
    return attack + 0.5 * sum(card.defense.values()) + (
        2.0 * card.support.bonus if card.support else 0.0)


_MEAN_WORTH = sum(_raw_worth(c) for c in UNITS.values()) / len(UNITS)
#: Every unit card's worth as a share of an average one (attack, defence and support).
WORTH: dict[str, float] = {cid: _raw_worth(c) / _MEAN_WORTH for cid, c in UNITS.items()}
#: Cards that play alike (same stack, values, phases and support) share a signature, so
#: the search need not try each of five identical panzer divisions.
SIGNATURE: dict[str, tuple[object, ...]] = {
    cid: (c.stack, tuple(c.attack.values()), tuple(c.defense.values()), c.phases, c.support)
    for cid, c in UNITS.items()}

#: The evaluation's weights, in logits, fitted by logistic regression to the results of
#: 700 games of the heuristic against itself with 15% random moves (8,670 positions; log
#: loss 0.448, against 0.59 for the earlier hand-set scale and 0.69 for a coin): a
#: victory point; a unit of average worth deployed on each stack, and in hand (Air fights
#: in both homeland battles, which end four games in five); a kept card; a unit in the
#: battle being fought; the battle's stake (its VP + 1) times the odds above even; and a
#: homeland battle being fought (the odds above even).
W_VP = 0.023
W_STACK = {"ground": 0.085, "air": 0.481, "sea": 0.080}
W_HAND = {"ground": 0.056, "air": 0.386, "sea": 0.044}
W_KEPT = 0.149
W_FIGHTING = 0.118
W_STAKE = 0.314
W_HOMELAND = 2.34


def _targets(battle: Battle, player: str) -> frozenset[str]:
    """The cards of the enemy units ``player``'s units in ``battle`` may fire at."""
    return frozenset(t.card for t in battle.units
                     if t.owner != player and t.status == "active")


def _term(card: str, boost: int, targets: frozenset[str]) -> float:
    """Hits a unit of ``card`` with ``boost`` may expect per round, at its best target
    among ``targets`` (``battle.best_chance``, kept there) in each phase it fires."""
    return max(0, bt.best_chance(card, boost, targets)) / 10.0 * _PHASES[card]


def _terms(battle: Battle, player: str) -> list[tuple[Unit, float]]:
    """Each of ``player``'s active units in ``battle``, in order, with its :func:`_term`."""
    targets = _targets(battle, player)
    return [(u, _term(u.card, u.bonus + u.support, targets)) for u in battle.units
            if u.owner == player and u.status == "active"]


def _firepower(battle: Battle, player: str) -> float:
    """Hits ``player``'s units in the battle may expect per round (each at its best
    target, in each phase it fires), summed in the units' order."""
    hits = 0.0
    for _, term in _terms(battle, player):
        hits += term
    return hits


#: How many firing phases each unit card fires in.
_PHASES = {cid: len(card.phases) for cid, card in UNITS.items()}


def battle_odds(state: BattlecardsState) -> float:
    """The aggressor's chance of winning the battle being fought: each side's time to
    destroy the other (units over hits a round), Lanchester-like; the defender wins a
    battle nobody can win."""
    assert state.battle is not None
    return _aggressor_odds(state.battle)


def _aggressor_odds(b: Battle) -> float:
    """:func:`battle_odds` of ``b``."""
    na, nd = len(b.of(b.aggressor)), len(b.of(b.defender))
    if nd == 0 or na == 0:
        return _lanchester(na, nd, 0.0, 0.0)
    return _lanchester(na, nd, _firepower(b, b.aggressor), _firepower(b, b.defender))


def _lanchester(na: int, nd: int, ha: float, hd: float) -> float:
    """The aggressor's chance with ``na`` units making ``ha`` hits a round against
    ``nd`` making ``hd``: each side's time to destroy the other, Lanchester-like; the
    defender wins a battle nobody can win."""
    if nd == 0:
        return 1.0
    if na == 0:
        return 0.0
    if ha <= 0.0:
        return 0.0
    if hd <= 0.0:
        return 0.97
    ta, td = nd / ha, na / hd  # rounds each side needs
    ta *= 0.9  # the aggressor fires first in every phase
    return td * td / (ta * ta + td * td)


def _forces(seat: Seat) -> float:
    """The forces a seat has, deployed and in hand, weighted (in logits)."""
    return (sum(w * sum(WORTH[c] for c in seat.stacks[f]) for f, w in W_STACK.items())
            + sum(W_HAND[UNITS[c].stack] * WORTH[c] for c in seat.hand))


def evaluate(game: Battlecards, state: BattlecardsState) -> dict[str, float]:
    """Each player's estimated share of a win: victory points, the forces deployed (Air
    above all), in hand and kept, and the battle being fought (its stake times each
    side's odds, by firepower and numbers); a logistic model whose weights were fitted
    to games (see ``W_VP``)."""
    a, b = state.seats
    if state.over:
        share = 0.5 if state.winner is None else float(state.winner == a.id)
        return {a.id: share, b.id: 1.0 - share}
    z = (W_VP * (a.vp - b.vp) + _forces(a) - _forces(b)
         + W_KEPT * (len(a.kept) - len(b.kept)))
    battle = state.battle
    if battle is not None and state.current is not None:
        card = CONFLICTS[state.current]
        for u in battle.units:
            if u.active:
                z += W_FIGHTING * WORTH[u.card] * (1.0 if u.owner == a.id else -1.0)
        p = battle_odds(state)
        edge = (p - 0.5) if battle.aggressor == a.id else (0.5 - p)
        z += W_HOMELAND * edge if card.total_victory else W_STAKE * (card.vp + 1.0) * edge
    share = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
    return {a.id: share, b.id: 1.0 - share}


#: At most this many different cards are searched for a deployment (the heuristic's own
#: choice always among them).
DEPLOY_OPTIONS = 3


def candidates(game: Battlecards, state: BattlecardsState, player: str,
               legal: list[str]) -> list[str]:
    """The moves worth searching: never ``autofire`` (a preference, not a move); a scout
    only where the heuristic looks (what is seen does not change a determinized search);
    of several cards that play alike, one; of deployments, the heuristic's and the few
    strongest others."""
    out = [a for a in legal if not a.startswith("autofire")]
    if len(out) <= 1:
        return out or legal
    favourite = choose_among(game, state, player, legal)
    if out[0].startswith("scout"):
        return [favourite]
    seat = state.seat(player)
    deploys = [a for a in out if a.startswith("deploy")]
    if deploys:
        def key(action: str) -> tuple[object, ...]:
            return SIGNATURE[seat.hand[int(action.split()[1]) - 1]]
        seen = {key(favourite)} if favourite.startswith("deploy") else set()
        ranked = sorted(deploys, key=lambda a: -WORTH[seat.hand[int(a.split()[1]) - 1]])
        kept = [favourite] if favourite.startswith("deploy") else []
        for action in ranked:
            if len(kept) >= DEPLOY_OPTIONS:
                break
            k = key(action)
            if k not in seen:
                seen.add(k)
                kept.append(action)
        return kept + [a for a in out if not a.startswith("deploy")]
    battle = state.battle
    if battle is not None and any(a.startswith("play") for a in out):
        kept_out, seen_play = [], set()
        for action in out:
            if action.startswith("play"):
                _, slot, ref = action.split()
                u = battle.unit(player, ref)
                card = CONFLICTS[seat.kept[int(slot) - 1]]
                sig = (card.bonus, card.to, None if u is None else SIGNATURE[u.card],
                       None if u is None else (u.bonus, u.support))
                if sig in seen_play and action != favourite:
                    continue
                seen_play.add(sig)
            kept_out.append(action)
        return kept_out
    return out
