"""Liège's events told as short lines for the channel, with every die shown."""

from __future__ import annotations

from typing import Any

from engine.core import Event
from engine.liege.pieces import NAMES
from engine.narration import Namer, narrate_public

_RESULT = {
    "destroyed": "is destroyed", "damaged": "is damaged", "unharmed": "is unharmed",
    "already damaged": "was already damaged", "no token left":
        "would be damaged but no damage token is left", "prices raised":
        "survives; its owner's Missile and Mustard Gas prices rise by 20",
    "vehicle destroyed": "loses its Armored Vehicle instead of a life",
    "life lost": "loses a life",
}


def _dice(values: list[int]) -> str:
    return ", ".join(map(str, values)) or "none"


def narrate(events: list[Event], names: dict[str, str]) -> list[str]:
    return narrate_public(events, names, _line)


def _line(e: Event, who: Namer) -> str | None:
    kind = e.get("type")
    p = who(e.get("player"))
    if kind == "general_placed":
        return f"{p} places their General on {e['square']}."
    if kind == "general_move":
        into = {"trench": " into the Trench", "av": " into their Armored Vehicle"}.get(
            str(e["into"]), "")
        return f"{p}'s General moves from {e['from']} to {e['to']}{into}."
    if kind == "skip":
        return f"{p} skips the {e['phase']} phase."
    if kind == "done":
        return f"{p} has finished moving resources."
    if kind == "buy":
        facing = f", facing {e['facing']}" if e["facing"] else ""
        return (f"{p} buys a {NAMES[e['piece']]} for {e['price']} and places it on "
                f"{e['square']}{facing} ({e['credits']} credits left).")
    if kind == "shift":
        return f"{p} moves the {NAMES[e['piece']]} from {e['from']} to {e['to']}."
    if kind == "turn":
        return f"{p} turns the {NAMES[e['piece']]} on {e['square']} to face {e['to']}."
    if kind == "grenade":
        rolls = "; ".join(
            f"{r['square']} {NAMES[r['piece']]} rolls {r['roll']}: "
            f"{'survives' if r['survived'] else 'destroyed'}" for r in e.get("rolls", []))
        return (f"{p} throws a Grenade from {e['from']} at {e['target']}"
                f" ({e['price']} credits): {rolls or 'nothing is hit'}.")
    if kind == "missile":
        hit = ", ".join(f"{NAMES[d['piece']]} on {d['square']}" for d in e["destroyed"])
        return (f"{p} fires a Missile from {e['from']} at {e['target']} ({e['price']} "
                f"credits): {('destroyed ' + hit) if hit else 'no piece destroyed'}.")
    if kind == "gas":
        hit = "; ".join(f"{NAMES[d['piece']]} on {d['square']} {_RESULT[d['result']]}"
                        for d in e["effects"])
        return (f"{p} fires Mustard Gas from {e['from']} at {e['target']} ({e['price']} "
                f"credits): {hit or 'no resource hit'}.")
    if kind == "fight":
        return _fight(e, who)
    if kind == "casualty_needed":
        return (f"{p} lost the fight and must choose the casualty: "
                f"{', '.join(e['choices'])}.")
    if kind == "casualty":
        if e["result"] == "life lost":
            return None  # the life_lost event that follows tells it, with the fall-back
        piece = "General" if e["piece"] == "general" else NAMES[str(e["piece"])]
        return f"{p}'s {piece} on {e['square']} {_RESULT[e['result']]}."
    if kind == "life_lost":
        where = f" and falls back to {e['to']}" if e["to"] else ""
        cause = " to the Missile" if e["cause"] == "missile" else ""
        return f"{p}'s General loses a life{cause}{where} ({e['lives']} left)."
    if kind == "eliminated":
        why = "resigns" if e["reason"] == "resigned" else "has lost their General"
        return f"{p} {why} and is out; their pieces leave the board (Trenches stay)."
    if kind == "end_turn":
        bonus = f", earning the forward bonus of {e['bonus']}" if e["bonus"] else ""
        return f"{p} ends their turn{bonus}."
    if kind == "turn_start":
        return f"Round {e['round']}: {p}'s turn."
    if kind == "edge_win":
        return f"{p}'s General has held the far edge for a round!"
    if kind == "game_over":
        winners = " and ".join(who(w) for w in e["winners"]) or "nobody"
        return f"Game over: {winners} wins!"
    return None


def _fight(e: Event, who: Namer) -> str:
    def side(units: list[dict[str, Any]]) -> str:
        return ", ".join(
            f"{'General' if u['piece'] == 'general' else NAMES[u['piece']]} {u['square']}"
            f"{' (damaged)' if u['damaged'] else ''}" for u in units)

    a, d = who(e["attacker"]), who(e["defender"])
    parts = [f"{a} attacks {e['to']} from {e['from']}: {side(e['attackers'])} "
             f"(offense {e['offense']}) against {side(e['defenders'])} "
             f"(defense {e['defense']})."]
    for i, r in enumerate(e["rounds"]):
        label = "Roll" if i == 0 else "Tie, re-roll"
        parts.append(f"{label}: {a} {_dice(r['attack'])}"
                     f"{_mod(r['attack'], r['attack_scores'])}, {d} {_dice(r['defense'])}"
                     f"{_mod(r['defense'], r['defense_scores'])}.")
    winner = a if e["winner"] == "attacker" else d
    parts.append(f"{winner} wins.")
    if e["only_damage"]:
        parts.append("The attacker was out of the target's range, so its loss is only "
                     "damage.")
    return " ".join(parts)


def _mod(rolls: list[int], scores: list[int]) -> str:
    return "" if rolls == scores else f" (damaged: {_dice(scores)})"
