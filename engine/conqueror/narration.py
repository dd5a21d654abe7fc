"""Conqueror's events told as short lines for the channel."""

from __future__ import annotations

from engine.core import Event

_ICON = {"gold": "gold", "lumber": "lumber", "blank": "nothing (blank)"}


def _lost(amount: int, what: str) -> str:
    return f" ({amount} {what} lost to the cap of 5)" if amount else ""


def narrate(events: list[Event], names: dict[str, str]) -> list[str]:
    def who(pid: object) -> str:
        return names.get(str(pid), str(pid)) if pid else "nobody"

    lines: list[str] = []
    for e in events:
        if "private_to" in e:
            continue
        kind = e.get("type")
        p = who(e.get("player"))
        if kind == "move":
            lines.append(f"{p} moves {e['count']} from {e['from']} to {e['to']}.")
        elif kind == "discover":
            rolls = ", ".join(map(str, e["rolls"]))
            extra = " (a third blank in that quadrant is rolled again)" if e["rerolled"] else ""
            lines.append(f"{e['square']} is discovered: rolled {rolls}{extra} -> "
                         f"{_ICON[e['resource']]}.")
        elif kind == "battle":
            lines.append(_battle(e, who))
        elif kind == "capture_fort":
            lines.append(f"{p} captures the undefended fort on {e['square']} and razes it: "
                         f"+1 gold, +1 lumber{_lost(e['gold_lost'], 'gold')}"
                         f"{_lost(e['lumber_lost'], 'lumber')}.")
        elif kind == "eliminated":
            why = "resigns" if e["reason"] == "resigned" else "has lost their base"
            lines.append(f"{p} {why} and is out of the game.")
        elif kind == "recruit":
            lines.append(f"{p} recruits {e['count']} soldier(s) on {e['square']}.")
        elif kind == "fort":
            lines.append(f"{p} builds a fort on {e['square']}.")
        elif kind == "raze":
            lines.append(f"{p} razes their fort on {e['square']}.")
        elif kind == "convert":
            what = "2 lumber" if e["what"] == "lumber" else "1 AP"
            lines.append(f"{p} converts {what} into {e['gold']} gold.")
        elif kind == "end_turn":
            lines.append(f"{p} ends their turn, keeping {e['ap_kept']} AP.")
        elif kind == "turn_start":
            gains = f"+{e['ap']} AP{_lost(e['ap_lost'], 'AP')}"
            if e["gold"]:
                gains += f", +{e['gold']} gold{_lost(e['gold_lost'], 'gold')}"
            if e["lumber"]:
                gains += f", +{e['lumber']} lumber{_lost(e['lumber_lost'], 'lumber')}"
            lines.append(f"Round {e['round']}: {p}'s turn ({gains}).")
        elif kind == "game_over":
            winners = " and ".join(who(w) for w in e["winners"]) or "nobody"
            lines.append(f"Game over: {winners} wins!")
    return lines


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
