"""Napoleonic Wars' events told as short lines (docs/games/napoleon.md).

Public events become the channel's lines and the turn digest. Private events (a card
drawn or discarded) are narrated only when the platform passes them to their owner with
the ``private_to`` mark stripped; with the mark they are skipped, so no line ever shows
another player's cards.
"""

from __future__ import annotations

from typing import Any

from engine.core import Event
from engine.napoleon.board import ARMY_ADJECTIVE, COUNTRIES, ORDER, SIDE_NAMES
from engine.napoleon.cards import BY_ID, short_effect
from engine.narration import Namer, listing, narrate_public


def narrate(events: list[Event], names: dict[str, str]) -> list[str]:
    return narrate_public(events, names, _line)


def _country(cid: object) -> str:
    c = COUNTRIES.get(str(cid))
    return c.name if c else str(cid)


def _armies(n: object, side: object = None) -> str:
    adjective = f"{ARMY_ADJECTIVE[str(side)]} " if side in ARMY_ADJECTIVE else ""
    return f"{n} {adjective}{'army' if n == 1 else 'armies'}"


def _side(side: object) -> str:
    return SIDE_NAMES.get(str(side), str(side))


def _card(card: Any) -> str:
    """``Austerlitz (+3 French in Austria)`` from a card dict or id."""
    if isinstance(card, str):
        card = BY_ID[card].to_json() if card in BY_ID else {"name": card}
    if not isinstance(card, dict):
        return str(card)
    name = card.get("name", card.get("id", "?"))
    return f"{name} ({short_effect(card)})" if "bonus" in card else str(name)


def _force(e: Event, side: str) -> str:
    """``12 armies + Austerlitz +3 + 1 defending + die 5 = 21``."""
    parts = [_armies(e["armies"][side])]
    for cid in e["cards"][side]:
        card = BY_ID.get(cid)
        parts.append(f"{card.name} +{card.bonus}" if card else str(cid))
    if side == e["defender"]:
        parts.append("1 defending")
    parts.append(f"die {e['dice'][side]}")
    return f"{_side(side)} {' + '.join(parts)} = {e['force'][side]}"


def battle_line(e: Event) -> str:
    attacker, defender = str(e["attacker"]), str(e["defender"])
    winner, loser = str(e["winner"]), str(e["loser"])
    losses = e["losses"]
    cas = e["casualty_dice"]
    capped = " (capped at twice the loser's armies)" if e.get("capped") else ""
    return (f"Battle in {_country(e['country'])}: {_force(e, attacker)} against "
            f"{_force(e, defender)}. The {_side(winner)} win. Losses: {_side(winner)} "
            f"{losses[winner]} (die {cas['winner'][0]}{capped}), {_side(loser)} "
            f"{losses[loser]} (dice {'+'.join(map(str, cas['loser']))}).")


def _line(e: Event, who: Namer) -> str | None:
    kind = e.get("type")
    p = who(e.get("player"))
    side = _side(e.get("side"))
    if kind == "turn":
        return f"Round {e['round']}: {p} ({side}) to play."
    if kind == "draw":
        count = e["count"]
        return (f"{p} ({side}) draws {count} card{'s' if count != 1 else ''} "
                f"({e['deck_count']} left in the deck).")
    if kind == "drawn":  # only ever shown to the player who drew (private_to stripped)
        return f"You draw {listing([_card(c) for c in e['cards']])}."
    if kind == "reshuffle":
        return f"The discard pile ({e['count']} cards) is shuffled into a new deck."
    if kind == "discard":
        return f"{p} ({side}) discards a card face down."
    if kind == "discarded":  # private, as above
        return f"You discard {_card(e['card'])}."
    if kind == "move":
        return (f"{side}: {_armies(e['count'])} {_country(e['from'])} → "
                f"{_country(e['to'])}.")
    if kind == "march":
        return (f"{p} ({side}) plays Forced March: the {_armies(e['count'])} that moved into "
                f"{_country(e['country'])} may move once more.")
    if kind == "card":
        return f"{p} ({side}) plays {_card(e['card'])} in {_country(e['country'])}."
    if kind == "battle":
        return battle_line(e)
    if kind == "retreat":
        return (f"{_armies(e['count'], e['side'])} retreat from {_country(e['from'])} to "
                f"{_country(e['to'])}.")
    if kind == "destroyed":
        return (f"{_armies(e['count'], e['side'])} in {_country(e['country'])} have nowhere "
                "to retreat and are destroyed.")
    if kind == "reinforce":
        placed = e["placed"]
        total = sum(placed.values())
        # in map order, never the dict's: a stored event comes back with its keys sorted
        where = ", ".join(f"{_country(c)} {placed[c]}" for c in ORDER if c in placed)
        lost = f"; {e['lost']} lost, no counters left" if e.get("lost") else ""
        if not total and not e.get("lost"):
            return f"{side}: no reinforcements."
        return f"{side} reinforcements: {total}{f' ({where})' if where else ''}{lost}."
    if kind == "resign":
        return f"{p} ({side}) resigns."
    if kind == "victory":
        return f"Game over: {e['reason']} {p} ({side}) wins."
    return None
