"""How Toy Raid tells its events: one line per event (private ones too, for their owner
once ``private_to`` is stripped; :meth:`engine.core.Game.narrate` skips them otherwise)."""

from __future__ import annotations

from engine.core import Event
from engine.narration import Namer, counted, narrate_public


def line(e: Event, who: Namer) -> str | None:
    kind = e.get("type")
    p = who(e.get("player"))
    if kind == "play":
        return f"{p} plays {e['card']} for {e['value']} (score {e['score']})."
    if kind == "draw":
        return f"{p} draws a card."
    if kind == "drew":
        return f"You draw {e['card']}."
    if kind == "reshuffle":
        return f"The discard pile ({counted(e['cards'], 'card')}) is shuffled into a new deck."
    if kind == "stash":
        return f"{p} stashes a card ({e['count']} stashed)."
    if kind == "raid":
        return (f"{p} raids card {e['slot']} of {who(e['target'])} (seat {e['seat']}), "
                "who must block or yield.")
    if kind == "block":
        roll = f" and rolls {e['roll']}" if e.get("roll") is not None else ""
        result = "the raid is stopped" if e["held"] else "the raid gets through"
        return f"{p} blocks with {e['card']}{roll}: {result}."
    if kind == "yield":
        return f"{p} yields card {e['slot']} to {who(e['raider'])}."
    if kind == "took":
        return f"You take {e['card']} from {who(e['from'])}."
    if kind == "lost":
        return f"{who(e['to'])} takes your {e['card']}."
    if kind == "raid_off":
        return "The raid is called off."
    if kind == "pass":
        return f"{p} passes."
    if kind == "turn":
        return f"Round {e['round']}: {p}'s turn."
    if kind == "resign":
        return f"{p} resigns."
    if kind == "end":
        return f"The game ends: {e['reason']}."
    return None


def narrate(events: list[Event], names: dict[str, str]) -> list[str]:
    return narrate_public(events, names, line)
