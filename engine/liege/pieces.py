"""Liège's War Stats Table: prices, strengths and per-player limits, and the pieces' names."""

from __future__ import annotations

#: Pieces that stand on the board (Generals are kept with their player).
PIECES = ("rifle", "mg", "mortar", "av", "trench")
#: Weapons bought and used at once.
WEAPONS = ("grenade", "missile", "gas")
#: The shop's order of the pieces (the order buys are listed in).
BUY_ORDER = ("rifle", "mg", "mortar", "av", "trench")
#: The piece each weapon is used from.
FIRERS = {"grenade": "rifle", "missile": "mortar", "gas": "mortar"}

NAMES = {"rifle": "Rifle", "mg": "Machine Gun", "mortar": "Mortar", "av": "Armored Vehicle",
         "trench": "Trench", "grenade": "Grenade", "missile": "Missile", "gas": "Mustard Gas",
         "general": "General"}
PLURALS = {"trench": "Trenches", "grenade": "Grenades", "missile": "Missiles",
           "gas": "Mustard Gas"}

BASE_PRICES = {"rifle": 20, "mg": 130, "mortar": 160, "av": 210, "trench": 40,
               "grenade": 80, "missile": 30, "gas": 40}
#: How much one Mortar loss raises the Missile and Mustard Gas prices.
MORTAR_PENALTY = 20
#: Per player, over the whole game.
LIMITS = {"trench": 3, "grenade": 3, "missile": 2, "gas": 2}

OFFENSE = {"rifle": 1, "mg": 2, "mortar": 0, "av": 0, "trench": 0, "general": 1}
DEFENSE = {"rifle": 1, "mg": 2, "mortar": 1, "av": 2, "trench": 0, "general": 1}
#: A General inside an Armored Vehicle defends at this.
GENERAL_IN_AV_DEFENSE = 2

START_CREDITS = 400
START_LIVES = 3
DAMAGE_TOKENS = 5
#: Pieces that face a direction and may turn.
TURNING = ("mg", "mortar")
#: Pieces that step during Move Resources (an Armored Vehicle only when empty).
MOVABLE = ("rifle", "mg", "mortar", "av")


def prices(mortar_losses: int) -> dict[str, int]:
    out = dict(BASE_PRICES)
    out["missile"] += MORTAR_PENALTY * mortar_losses
    out["gas"] += MORTAR_PENALTY * mortar_losses
    return out


def with_article(kind: str) -> str:
    """'A Mortar', 'An Armored Vehicle', 'Mustard Gas'."""
    name = NAMES[kind]
    if kind == "gas":
        return name
    return ("An " if name[0] in "AEIOU" else "A ") + name
