"""Fighting a battle: revealing the stacks, combat rounds, shots, supports, kept cards,
withdrawals, stalemate and special victory conditions (docs/games/battlecards.md)."""

from __future__ import annotations

from typing import Any

from engine.battlecards.cards import CONFLICTS, FORCES, UNITS, ConflictCard
from engine.battlecards.state import (
    Battle,
    BattlecardsState,
    Unit,
    draw_conflict,
    forget_stack,
    remember,
)
from engine.core import Event

LETTERS = {"ground": "g", "air": "a", "sea": "s"}


def card_of(state: BattlecardsState) -> ConflictCard:
    assert state.current is not None
    return CONFLICTS[state.current]


#: For each (shooter, target) pair of unit cards: the shooter's printed attack on the
#: target's force (None: it cannot fire at it) and the target's defence against the
#: shooter's force. Every shot weighed, by the rules and by the computer players, reads
#: these, so they are looked up once here rather than through both cards each time.
MATCHUPS: dict[tuple[str, str], tuple[int | None, int]] = {
    (a, t): (shooter.attack[target.stack], target.defense[shooter.stack])
    for a, shooter in UNITS.items() for t, target in UNITS.items()
}


def attack_value(u: Unit, t: Unit) -> int | None:
    base = MATCHUPS[u.card, t.card][0]
    return None if base is None else base + u.bonus + u.support


def defense_value(t: Unit, u: Unit) -> int:
    return MATCHUPS[u.card, t.card][1]


def can_target(u: Unit, t: Unit) -> bool:
    base, d = MATCHUPS[u.card, t.card]
    return base is not None and base + u.bonus + u.support >= d


def targets(b: Battle, u: Unit) -> list[Unit]:
    # the cheap owner test first: half the units are the shooter's own
    return [t for t in b.units
            if t.owner != u.owner and t.status == "active" and can_target(u, t)]


#: Every unit card's highest attack value, auto-fire's tie-break. Card data never
#: changes, so it is worked out once instead of on every comparison.
THREATS: dict[str, int] = {
    cid: max((v for v in card.attack.values() if v is not None), default=0)
    for cid, card in UNITS.items()
}


def threat(t: Unit) -> int:
    return THREATS[t.card]


def chance(u: Unit, t: Unit) -> int:
    base, d = MATCHUPS[u.card, t.card]
    return 0 if base is None else max(0, min(base + u.bonus + u.support, 10) - d)


def best_target(b: Battle, u: Unit) -> Unit | None:
    """Auto-fire's choice: the best chance to hit, then the most dangerous target.
    (:func:`targets`, :func:`chance` and :func:`threat` spelled out in one pass: every
    shot of a search's play-outs asks it, of every unit in the battle.)"""
    return _best_among(_foes(b, u.owner), u.card, u.bonus + u.support)


def _foes(b: Battle, owner: str) -> list[Unit]:
    """The active enemy units of ``owner`` in ``b``, in order: what it may fire at."""
    return [t for t in b.units if t.owner != owner and t.status == "active"]


def _best_among(foes: list[Unit], card: str, boost: int) -> Unit | None:
    """:func:`best_target` for a unit of ``card`` with ``boost`` among ``foes``."""
    best, best_key = None, (0, 0)
    for t in foes:
        base, d = MATCHUPS[card, t.card]
        if base is None or base + boost < d:
            continue
        key = (max(0, min(base + boost, 10) - d), THREATS[t.card])
        if best is None or key > best_key:  # the first of equals stays
            best, best_key = t, key
    return best


def will_shoot(b: Battle, player: str) -> bool:
    """Whether ``player`` has a unit still to fire at something in this phase."""
    return any(u.active and u.owner == player and not u.fired and b.phase in UNITS[u.card].phases
               and targets(b, u) for u in b.units)


def can_hit_now(b: Battle, u: Unit) -> bool:
    return any(chance(u, t) > 0 for t in targets(b, u))


def kept_choices(state: BattlecardsState, player: str) -> list[tuple[int, Unit]]:
    b = state.battle
    assert b is not None
    out = []
    kept = state.seat(player).kept
    if not kept:  # the usual case, asked before every phase's shots
        return []
    mine = b.of(player)
    for i, cid in enumerate(kept, 1):
        card = CONFLICTS[cid]
        out += [(i, u) for u in mine if u.force in card.to]
    return out


def support_choices(state: BattlecardsState, player: str) -> list[tuple[Unit, Unit]]:
    b = state.battle
    assert b is not None
    out = []
    mine = b.of(player)
    for s in mine:
        sup = UNITS[s.card].support
        if sup is None or s.supported:
            continue
        out += [(s, u) for u in mine if u is not s and u.force in sup.to]
    return out


def bonus_choices(state: BattlecardsState, player: str) -> list[str]:
    out = [f"play {i} {u.ref}" for i, u in kept_choices(state, player)]
    if not state.seat(player).autofire:
        out += [f"support {s.ref} {u.ref}" for s, u in support_choices(state, player)]
    return out


def _potential(state: BattlecardsState, u: Unit) -> int:
    """The most bonus ``u`` could ever get: kept cards and every friendly support."""
    b = state.battle
    assert b is not None
    extra = u.bonus + u.support
    for s in b.of(u.owner):
        sup = UNITS[s.card].support
        if s is not u and sup is not None and u.force in sup.to and not s.supported:
            extra += sup.bonus
    kept = [CONFLICTS[c].bonus for c in state.seat(u.owner).kept if u.force in CONFLICTS[c].to]
    return extra + max(kept, default=0)


def stalemate(state: BattlecardsState) -> bool:
    """No unit on either side could ever hit, whatever Action Number is flipped."""
    b = state.battle
    assert b is not None
    for u in b.units:
        if u.status != "active":  # the property spelled out: a hot loop
            continue
        extra = _potential(state, u)
        for t in b.units:
            if t.status != "active" or t.owner == u.owner:
                continue
            base, d = MATCHUPS[u.card, t.card]
            if base is not None and base + extra > d and d < 10:
                return False
    return True


def unit_json(u: Unit) -> dict[str, Any]:
    return {"ref": u.ref, "owner": u.owner, "card": UNITS[u.card].to_json(),
            "status": u.status, "bonus": u.bonus + u.support}


# -- starting ------------------------------------------------------------------------

def start(state: BattlecardsState, events: list[Event]) -> str | None:
    """Reveal the stacks the battlecard calls; returns the winner of a walkover, "" when
    the battle is ignored, None when the battle is on."""
    card = card_of(state)
    agg = state.side_seat(card.aggressor)
    dfd = state.opponent(agg.id)
    has = {s.id: any(s.stacks[f] for f in card.forces) for s in (agg, dfd)}
    if not has[agg.id] and not has[dfd.id]:
        events.append({"type": "battle_ignored", "card": card.name})
        return ""
    if not has[dfd.id] or not has[agg.id]:
        winner = agg if has[agg.id] else dfd
        events.append({"type": "walkover", "card": card.name, "player": winner.id})
        return winner.id
    units = []
    for seat in (agg, dfd):
        for force in FORCES:
            if force not in card.forces:
                continue
            for i, cid in enumerate(seat.stacks[force], 1):
                units.append(Unit(f"{LETTERS[force]}{i}", seat.id, cid))
            seat.stacks[force] = []
            forget_stack(state, seat, force)  # revealed now: nothing face down to remember
    state.battle = Battle(agg.id, dfd.id, units)
    state.phase = "battle"
    events.append({"type": "battle_start", "card": card.name, "aggressor": agg.id,
                   "defender": dfd.id,
                   "units": [{"ref": u.ref, "owner": u.owner, "name": UNITS[u.card].name}
                             for u in units]})
    return None


# -- running -------------------------------------------------------------------------

def advance(state: BattlecardsState, events: list[Event]) -> str | None:
    """Run the battle until someone must decide; returns the winner once it is over."""
    b = state.battle
    assert b is not None
    while True:
        if b.step == "round":
            for u in b.units:
                u.support, u.supported, u.fired = 0, False, False
            if stalemate(state):
                return _stalemate(state, events)
            for player in (b.aggressor, b.defender):
                if state.seat(player).autofire:
                    _auto_support(state, player, events)
            b.step, b.side, b.phase = "bonus", 0, 1
        if b.step == "bonus":
            if bonus_choices(state, b.acting):
                return None
            if b.side == 0:
                b.side = 1
                continue
            b.step, b.side, b.phase = "fire", 0, 1
            b.offered = True        # the aggressor was just offered its bonuses
        if b.step == "ready":
            if kept_choices(state, b.acting):
                return None
            b.step, b.offered = "fire", True
        if b.step == "fire":
            player = b.acting
            if (state.seat(player).autofire and not b.offered and kept_choices(state, player)
                    and will_shoot(b, player)):
                b.step = "ready"    # kept cards may be played before any shot
                return None
            waiting = False
            autofire = state.seat(player).autofire
            # best_target's foes, listed once and again only after a hit
            foes: list[Unit] | None = None
            for u in list(b.units):
                if u.owner != player or u.status != "active" or u.fired or b.phase not in UNITS[
                        u.card].phases:
                    continue
                if foes is None:
                    foes = _foes(b, player)
                target = _best_among(foes, u.card, u.bonus + u.support)
                if target is None:
                    u.fired = True
                elif autofire:
                    winner = shoot(state, u, target, events)
                    if winner is not None:
                        return winner
                    if target.status != "active":  # a hit: the foes have changed
                        foes = None
                else:
                    waiting = True
            if waiting:
                return None
            b.offered = False
            if b.side == 0:
                b.side = 1
            else:
                b.side = 0
                for u in b.units:
                    u.fired = False
                if b.phase == 4:
                    b.step = "withdraw"
                    if stalemate(state):
                        return _stalemate(state, events)
                    return None
                b.phase += 1
            continue
        return None  # withdraw: a decision


def shoot(state: BattlecardsState, u: Unit, t: Unit, events: list[Event]) -> str | None:
    """``u`` fires at ``t``: flip the top conflict card. Returns a winner if it ends."""
    b = state.battle
    assert b is not None
    a = attack_value(u, t)
    assert a is not None
    d = defense_value(t, u)
    flipped = draw_conflict(state)
    if flipped is None:  # cannot happen with the authored deck; a fair d10 instead
        number, name = state.dice.roll(10), None
    else:
        state.conflict_discard.append(flipped)
        number, name = CONFLICTS[flipped].action_number, CONFLICTS[flipped].name
    hit = d < number <= a
    u.fired = True
    if hit:
        t.status = "destroyed"
    shot = {"shooter": u.ref, "shooter_owner": u.owner, "target": t.ref,
            "target_owner": t.owner, "action_number": number, "attack": a, "defense": d,
            "hit": hit}
    state.last_shots.append(shot)
    events.append({"type": "shot", **shot, "shooter_name": UNITS[u.card].name,
                   "target_name": UNITS[t.card].name, "flipped": name})
    return decided(state)


def decided(state: BattlecardsState) -> str | None:
    """The winner if the battle is decided by destruction or a special condition."""
    b = state.battle
    assert b is not None
    card = card_of(state)
    special = card.special
    if special is not None and special["kind"] == "destroy_all":
        force = special["type"]
        theirs = [u for u in b.units if u.owner == b.defender and u.force == force]
        if theirs and all(u.status == "destroyed" for u in theirs) and b.of(b.defender):
            return b.aggressor
    if not _fighting(b, b.aggressor):
        return b.defender
    if not _fighting(b, b.defender):
        return b.aggressor
    return None


def _fighting(b: Battle, owner: str) -> bool:
    """Whether ``owner`` has a unit still active in ``b`` (``b.of`` without the list;
    a loop, as a generator costs twice as much here)."""
    for u in b.units:  # noqa: SIM110
        if u.owner == owner and u.status == "active":
            return True
    return False


def withdraw(state: BattlecardsState, u: Unit, events: list[Event]) -> str | None:
    b = state.battle
    assert b is not None
    u.status = "withdrawn"
    events.append({"type": "withdraw", "player": u.owner, "ref": u.ref,
                   "name": UNITS[u.card].name})
    if u.owner == b.defender and not b.of(b.defender):
        special = card_of(state).special
        if special is not None and special["kind"] == "evacuation" and any(
                x.status == "withdrawn" and x.force == special["type"]
                for x in b.of(b.defender, active=False)):
            events.append({"type": "evacuation", "player": b.defender})
            return b.defender
    return decided(state)


def stay(state: BattlecardsState) -> None:
    b = state.battle
    assert b is not None
    if b.side == 0:
        b.side = 1
    else:
        b.step, b.side = "round", 0
        b.round += 1


def _stalemate(state: BattlecardsState, events: list[Event]) -> str:
    b = state.battle
    assert b is not None
    for u in b.of(b.aggressor):
        u.status = "withdrawn"
    events.append({"type": "stalemate", "player": b.aggressor, "defender": b.defender})
    return b.defender


def _auto_support(state: BattlecardsState, player: str, events: list[Event]) -> None:
    b = state.battle
    assert b is not None
    mine = b.of(player)  # supporting changes no unit's status: the list stays right
    foes = frozenset(t.card for t in b.units if t.owner != player and t.status == "active")
    gains: dict[int, int] = {}  # by place in ``mine``: changes only where support goes
    for s in mine:
        sup = UNITS[s.card].support
        if sup is None or s.supported:
            continue
        # the first of the units it may support with the best gain
        best, best_at, best_gain = None, 0, 0
        for at, u in enumerate(mine):
            if u is s or UNITS[u.card].stack not in sup.to:
                continue
            gain = gains.get(at)
            if gain is None:
                gain = gains[at] = best_chance(u.card, u.bonus + u.support, foes)
            if best is None or gain > best_gain:
                best, best_at, best_gain = u, at, gain
        if best is not None:
            give_support(state, s, best, events)
            del gains[best_at]


def best_chance(card: str, boost: int, foes: frozenset[str]) -> int:
    """The best chance to hit (:func:`chance`, in tenths) a unit of ``card`` with
    ``boost`` has against any of the cards ``foes``; -1 where it may fire at none of
    them. Auto-support asks it of every unit for every support unit in every round of a
    search's play-outs, and the computer's battle odds of every unit at each play-out's
    end (``ai._firepower``): it depends on its arguments alone, so :data:`_BEST` keeps
    it."""
    key = (card, boost, foes)
    best = _BEST.get(key)
    if best is None:
        best = -1
        for foe in foes:
            base, d = MATCHUPS[card, foe]
            if base is not None:
                best = max(best, 0, min(base + boost, 10) - d)
        if len(_BEST) >= _BEST_KEPT:
            _BEST.clear()
        _BEST[key] = best
    return best


#: :func:`best_chance`'s answers so far, forgotten when :data:`_BEST_KEPT` are kept (a
#: value depends only on its key, so what is kept never changes a game or a move).
_BEST: dict[tuple[str, int, frozenset[str]], int] = {}
_BEST_KEPT = 200_000


def give_support(state: BattlecardsState, s: Unit, u: Unit, events: list[Event]) -> None:
    sup = UNITS[s.card].support
    assert sup is not None
    u.support += sup.bonus
    s.supported = True
    events.append({"type": "support", "player": s.owner, "from": s.ref, "to": u.ref,
                   "bonus": sup.bonus, "from_name": UNITS[s.card].name,
                   "to_name": UNITS[u.card].name})


def finish(state: BattlecardsState, winner: str, events: list[Event]) -> None:
    """Award the battlecard; survivors and withdrawn units go back face down on their
    stacks, destroyed ones to their owner's arsenal discard. Both sides saw the units
    that go back face down: the opponent remembers them."""
    card = card_of(state)
    b = state.battle
    if b is not None:
        for u in b.units:
            seat = state.seat(u.owner)
            if u.status == "destroyed":
                seat.discard.append(u.card)
            else:
                seat.stacks[u.force].append(u.card)
                remember(state, seat, u.force, [u.card])
    state.seat(winner).won.append(card.id)
    state.battle = None
    state.current = None
    events.append({"type": "battle_won", "player": winner, "card": card.name, "vp": card.vp,
                   "total_vp": state.seat(winner).vp})
