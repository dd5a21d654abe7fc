"""Conqueror's events told as short lines for the channel."""

from __future__ import annotations

from engine.core import Event
from engine.narration import Namer, narrate_public

_ICON = {"gold": "gold", "lumber": "lumber", "blank": "nothing (blank)"}


def _lost(amount: int, what: str) -> str:
    return f" ({amount} {what} lost to the cap of 5)" if amount else ""


def narrate(events: list[Event], names: dict[str, str]) -> list[str]:
    return narrate_public(events, names, _line)


def _line(e: Event, who: Namer) -> str | None:
    kind = e.get("type")
    p = who(e.get("player"))
    if kind == "move":
        return (f"{p} moves {e['count']} from {e['from']} to {e['to']}.")
    if kind == "discover":
        rolls = ", ".join(map(str, e["rolls"]))
        extra = " (a third blank in that quadrant is rolled again)" if e["rerolled"] else ""
        return (f"{e['square']} is discovered: rolled {rolls}{extra} -> "
                     f"{_ICON[e['resource']]}.")
    if kind == "battle":
        return (_battle(e, who))
    if kind == "capture_fort":
        return (f"{p} captures the undefended fort on {e['square']} and razes it: "
                     f"+1 gold, +1 lumber{_lost(e['gold_lost'], 'gold')}"
                     f"{_lost(e['lumber_lost'], 'lumber')}.")
    if kind == "eliminated":
        why = "resigns" if e["reason"] == "resigned" else "has lost their base"
        return (f"{p} {why} and is out of the game.")
    if kind == "recruit":
        return (f"{p} recruits {e['count']} soldier(s) on {e['square']}.")
    if kind == "fort":
        return (f"{p} builds a fort on {e['square']}.")
    if kind == "raze":
        return (f"{p} razes their fort on {e['square']}.")
    if kind == "convert":
        what = "2 lumber" if e["what"] == "lumber" else "1 AP"
        return (f"{p} converts {what} into {e['gold']} gold.")
    if kind == "end_turn":
        return (f"{p} ends their turn, keeping {e['ap_kept']} AP.")
    if kind == "turn_start":
        gains = f"+{e['ap']} AP{_lost(e['ap_lost'], 'AP')}"
        if e["gold"]:
            gains += f", +{e['gold']} gold{_lost(e['gold_lost'], 'gold')}"
        if e["lumber"]:
            gains += f", +{e['lumber']} lumber{_lost(e['lumber_lost'], 'lumber')}"
        return (f"Round {e['round']}: {p}'s turn ({gains}).")
    if kind == "game_over":
        winners = " and ".join(who(w) for w in e["winners"]) or "nobody"
        return (f"Game over: {winners} wins!")
    return None


def _battle(e: Event, who: object) -> str:
    assert callable(who)
    a, d = who(e["attacker"]), who(e["defender"])
    target = {"fort": f"the fort on {e['to']}", "base": f"the base on {e['to']}"}.get(
        e["kind"], e["to"])
    head = (f"{a} attacks {target} with {e['attackers']} against {e['defenders']} "
            f"({d})")
    if e["kind"] == "fort":
        head += f", fighting as {e['strength']}"
    rule = e["rule"]
    if rule == "absolute":
        body = "absolute victory: a full stack sweeps 1-2 defenders without loss"
    elif rule == "overwhelming":
        body = f"more than twice as many: won without dice, losing {e['attacker_losses']}"
    elif rule == "hopeless":
        body = "outnumbered more than two to one: every attacker is lost"
    else:
        rolls = ", ".join(map(str, e["defender_rolls"]))
        nums = ", ".join(map(str, e["defender_numbers"]))
        winner = "attacker wins" if e["winner"] == "attacker" else "defender holds"
        body = (f"defender rolls {rolls} (holding on {nums}), attacker rolls "
                f"{e['attacker_roll']}: {winner}; attacker loses {e['attacker_losses']}")
        if e["winner"] == "attacker" and e["defender_losses"]:
            body += f", defender loses {e['defender_losses']}"
    text = f"{head}: {body}."
    if e["kind"] == "base":
        text += (f" The base takes {e['damage']} damage ({e['base_health']}/5 left)."
                 if e["damage"] else " The base takes no damage.")
    elif e["kind"] == "fort" and e["winner"] == "attacker":
        text += " The fort stands; the attackers return to " + str(e["from"]) + "."
    return text
