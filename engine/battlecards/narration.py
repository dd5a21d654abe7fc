"""Battlecards' public events told as short lines for the channel (never a private card)."""

from __future__ import annotations

from engine.core import Event
from engine.narration import Namer, counted, narrate_public

_STACK = {"ground": "Ground", "air": "Air", "sea": "Sea"}


def narrate(events: list[Event], names: dict[str, str]) -> list[str]:
    return narrate_public(events, names, _line)


def _line(e: Event, who: Namer) -> str | None:
    kind = e.get("type")
    p = who(e.get("player"))
    if kind == "deployed":
        return f"{p} deploys a card onto their {_STACK[str(e['stack'])]} stack."
    if kind == "emergency":
        counts = e["counts"]
        parts = ", ".join(f"{counts[f]} {_STACK[f]}" for f in _STACK if counts[f])
        return f"{p} makes an emergency deployment: {parts or 'nothing'}."
    if kind == "arsenal_drawn":
        return f"{p} draws {counted(e['count'], 'card')} from their arsenal."
    if kind == "kept":
        return f"{p} draws a conflict card and keeps it."
    if kind == "drew":
        return f"{p} draws {e['card']} (Action Number {e['action_number']}): {e['text']}"
    if kind == "prerequisites_unmet":
        return (f"{e['card']} cannot be fought before {', '.join(e['missing'])}: discarded, "
                f"{p} loses the turn.")
    if kind == "declined":
        return f"{p} declines to fight {e['card']}: discarded."
    if kind == "attack":
        return f"{p} attacks: {e['card']} begins."
    if kind == "battle_ignored":
        return f"Neither side has forces for {e['card']}: the battle is ignored."
    if kind == "walkover":
        return f"Only {p} has forces for {e['card']}."
    if kind == "battle_start":
        units = "; ".join(f"{who(u['owner'])} {u['ref']} {u['name']}" for u in e["units"])
        return f"{e['card']} is fought. Revealed: {units}."
    if kind == "support":
        return f"{p}'s {e['from']} supports {e['to']} (+{e['bonus']})."
    if kind == "kept_played":
        return f"{p} plays {e['card']} on {e['ref']} {e['unit']} (+{e['bonus']})."
    if kind == "shot":
        result = "destroyed!" if e["hit"] else "missed."
        return (f"{who(e['shooter_owner'])}'s {e['shooter']} {e['shooter_name']} fires at "
                f"{e['target']} {e['target_name']}: Action Number {e['action_number']} "
                f"(hits above {e['defense']} up to {e['attack']}), {result}")
    if kind == "withdraw":
        return f"{p} withdraws {e['ref']} {e['name']}."
    if kind == "stay":
        return f"{p} stays in the fight."
    if kind == "stalemate":
        return f"Stalemate: no unit can hit. {p} must withdraw."
    if kind == "evacuation":
        return f"{p} evacuates and wins the battle."
    if kind == "battle_won":
        return f"{p} wins {e['card']} (+{e['vp']} VP, {e['total_vp']} in all)."
    if kind == "scouted":
        return f"{p} scouts {who(e['opponent'])}'s {_STACK[str(e['stack'])]} stack."
    if kind == "autofire":
        return f"{p} turns auto-fire {'on' if e['on'] else 'off'}."
    if kind == "turn":
        return f"Turn {e['round']}: {p} to draw."
    if kind == "no_card":
        return f"{p} has no conflict card to draw."
    if kind == "resigned":
        return f"{p} resigns."
    if kind == "game_over":
        winners = ", ".join(who(w) for w in e["winners"]) or "nobody"
        return f"Game over: {e['reason']} Winner: {winners}."
    return None
