"""The Battlecards card set: loading and checking the bundled data files.

The data (``engine/battlecards/data/*.toml``) is read once, at import time, with the
standard library's :mod:`tomllib`; it is constant, so the engine stays deterministic.
``python -m engine.battlecards.cardlist`` prints the card tables used in
docs/games/battlecards.md.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.notation import is_number

FORCES = ("ground", "air", "sea")
SIDES = ("german", "british")
SIDE_NAMES = {"german": "German", "british": "British"}
UNIT_TYPES = (*FORCES, "leader")
CONFLICT_KINDS = ("battle", "arsenal", "deploy", "draw_deploy", "both_draw", "scout", "keep")
SPECIALS = ("destroy_all", "evacuation", "total_victory")
DECK_SIZE = 50
ARSENAL_SIZE = 47
TOTAL_VP = 75
VICTORY_TARGET = 38


class CardDataError(ValueError):
    """The bundled card data breaks an invariant."""


@dataclass(frozen=True)
class Support:
    bonus: int
    to: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class UnitCard:
    id: str
    name: str
    side: str
    type: str  # ground | air | sea | leader
    stack: str  # the stack it deploys to (a leader's own; else its type)
    cls: str
    phases: tuple[int, ...]
    attack: dict[str, int | None]
    defense: dict[str, int]
    support: Support | None
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "side": self.side, "type": self.type,
            "stack": self.stack, "phases": list(self.phases), "attack": dict(self.attack),
            "defense": dict(self.defense),
            "support": None if self.support is None else {
                "bonus": self.support.bonus, "to": list(self.support.to),
                "text": self.support.text},
            "text": self.text,
        }


@dataclass(frozen=True)
class ConflictCard:
    id: str
    name: str
    action_number: int
    kind: str
    text: str
    count: int = 0  # arsenal / deploy / draw_deploy / both_draw
    bonus: int = 0  # keep
    to: tuple[str, ...] = ()  # keep: the unit types it may be played on
    # battlecards only
    key: str = ""
    aggressor: str = ""
    forces: tuple[str, ...] = ()
    vp: int = 0
    prerequisites: tuple[str, ...] = ()
    special: dict[str, str] | None = None

    @property
    def is_battle(self) -> bool:
        return self.kind == "battle"

    @property
    def total_victory(self) -> bool:
        return self.special is not None and self.special["kind"] == "total_victory"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "name": self.name,
                                "action_number": self.action_number, "kind": self.kind,
                                "text": self.text}
        if self.is_battle:
            data.update({
                "aggressor": self.aggressor, "forces": list(self.forces), "vp": self.vp,
                "prerequisites": [BATTLES_BY_KEY_NAME[p] for p in self.prerequisites],
                "special": special_text(self),
            })
        return data


def special_text(card: ConflictCard) -> str | None:
    """The special victory condition in words (None if the card has none)."""
    special = card.special
    if special is None:
        return None
    kind = special["kind"]
    aggressor = SIDE_NAMES[card.aggressor]
    defender = SIDE_NAMES[other_side(card.aggressor)]
    if kind == "total_victory":
        return "Whoever wins this battle wins the war: Total Victory."
    force = special["type"].capitalize()
    if kind == "destroy_all":
        return (f"The {aggressor} player wins at once when every {defender} {force} unit in the "
                f"battle is destroyed; the other {defender} units go back to their stacks.")
    return (f"Evacuation: if the {defender} player ends the battle by withdrawing and at least "
            f"one {defender} {force} unit got away, the {defender} player wins the battle.")


def other_side(side: str) -> str:
    return "british" if side == "german" else "german"


# -- loading and validation ------------------------------------------------------------

def _read(name: str) -> dict[str, Any]:
    text = resources.files("engine.battlecards").joinpath("data", name).read_text("utf-8")
    return tomllib.loads(text)


def _values(text: Any, what: str, allow_na: bool) -> dict[str, int | None]:
    if not isinstance(text, str) or len(text.split("/")) != 3:
        raise CardDataError(f"{what} must be 'ground/air/sea'")
    out: dict[str, int | None] = {}
    for force, part in zip(FORCES, text.split("/"), strict=True):
        if part == "-" and allow_na:
            out[force] = None
        elif is_number(part) and len(part) <= 2 and 0 <= int(part) <= 10:
            out[force] = int(part)
        else:
            raise CardDataError(f"{what}: bad value {part!r}")
    return out


def load_arsenal(data: dict[str, Any], side: str) -> list[UnitCard]:
    if data.get("side") != side:
        raise CardDataError(f"the {side} arsenal file names side {data.get('side')!r}")
    cards = []
    for raw in data.get("card", []):
        cid = raw["id"]
        typ = raw["type"]
        if typ not in UNIT_TYPES:
            raise CardDataError(f"{cid}: unknown type {typ!r}")
        stack = raw.get("stack", typ)
        if stack not in FORCES or (typ != "leader" and stack != typ):
            raise CardDataError(f"{cid}: bad stack {stack!r}")
        phases = tuple(raw["phases"])
        if (not phases or sorted(set(phases)) != list(phases)
                or not all(isinstance(p, int) and 1 <= p <= 4 for p in phases)):
            raise CardDataError(f"{cid}: phases must be distinct, ascending, 1-4")
        support = None
        if "support" in raw:
            s = raw["support"]
            if not 1 <= s["bonus"] <= 3 or not s["to"] or not set(s["to"]) <= set(FORCES):
                raise CardDataError(f"{cid}: bad support")
            support = Support(int(s["bonus"]), tuple(s["to"]), str(s["text"]))
        defense = {k: v for k, v in _values(raw["defense"], f"{cid} defense", False).items()
                   if v is not None}
        cards.append(UnitCard(
            id=cid, name=raw["name"], side=side, type=typ, stack=stack, cls=raw["class"],
            phases=phases, attack=_values(raw["attack"], f"{cid} attack", True),
            defense=defense, support=support, text=raw["text"]))
    if len(cards) != ARSENAL_SIZE:
        raise CardDataError(f"the {side} arsenal has {len(cards)} cards, not {ARSENAL_SIZE}")
    leaders = [c.name for c in cards if c.type == "leader"]
    if len(set(leaders)) != len(leaders):
        raise CardDataError(f"a {side} leader appears twice")
    return cards


def load_conflict(data: dict[str, Any]) -> list[ConflictCard]:
    cards = []
    for raw in data.get("card", []):
        cid = raw["id"]
        kind = raw["kind"]
        if kind not in CONFLICT_KINDS:
            raise CardDataError(f"{cid}: unknown kind {kind!r}")
        number = raw["action_number"]
        if not isinstance(number, int) or not 1 <= number <= 10:
            raise CardDataError(f"{cid}: the Action Number must be 1-10")
        common: dict[str, Any] = {"id": cid, "name": raw["name"], "action_number": number,
                                  "kind": kind, "text": raw["text"]}
        if kind == "battle":
            forces = tuple(raw["forces"])
            if not forces or not set(forces) <= set(FORCES) or raw["aggressor"] not in SIDES:
                raise CardDataError(f"{cid}: bad forces or aggressor")
            special = raw.get("special")
            if special is not None and (special.get("kind") not in SPECIALS or (
                    special["kind"] != "total_victory" and special.get("type") not in forces)):
                raise CardDataError(f"{cid}: bad special victory condition")
            cards.append(ConflictCard(**common, key=raw["key"], aggressor=raw["aggressor"],
                                      forces=forces, vp=int(raw["vp"]),
                                      prerequisites=tuple(raw.get("prerequisites", [])),
                                      special=dict(special) if special else None))
        elif kind == "keep":
            to = tuple(raw["to"])
            if not set(to) <= set(FORCES) or not 1 <= raw["bonus"] <= 3:
                raise CardDataError(f"{cid}: bad keep bonus")
            cards.append(ConflictCard(**common, bonus=int(raw["bonus"]), to=to))
        elif kind == "scout":
            cards.append(ConflictCard(**common))
        else:
            if not 1 <= raw["count"] <= 3:
                raise CardDataError(f"{cid}: count must be 1-3")
            cards.append(ConflictCard(**common, count=int(raw["count"])))
    check_conflict(cards)
    return cards


def check_conflict(cards: list[ConflictCard]) -> None:
    if len(cards) != DECK_SIZE:
        raise CardDataError(f"the conflict deck has {len(cards)} cards, not {DECK_SIZE}")
    numbers = Counter(c.action_number for c in cards)
    if numbers != {n: DECK_SIZE // 10 for n in range(1, 11)}:
        raise CardDataError("each Action Number 1-10 must be on exactly five cards")
    battles = [c for c in cards if c.is_battle]
    if not 12 <= len(battles) <= 16:
        raise CardDataError("the deck holds 12-16 battlecards")
    if sum(b.vp for b in battles) != TOTAL_VP:
        raise CardDataError(f"battlecards' victory points must total {TOTAL_VP}")
    keys = {b.key for b in battles}
    if len(keys) != len(battles):
        raise CardDataError("battle keys must differ")
    for b in battles:
        if not set(b.prerequisites) <= keys - {b.key}:
            raise CardDataError(f"{b.id}: unknown prerequisite")
    tv = {(b.name, b.aggressor) for b in battles if b.total_victory}
    if tv != {("Invasion of Britain", "german"), ("Battle for Germany", "british")}:
        raise CardDataError("the Total Victory battles are Invasion of Britain (German) and "
                            "Battle for Germany (British)")


def _check_names(everything: list[UnitCard | ConflictCard]) -> None:
    ids = [c.id for c in everything]
    names = [c.name for c in everything]
    if len(set(ids)) != len(ids) or len(set(names)) != len(names):
        raise CardDataError("every card id and name must be unique")


CONFLICT: list[ConflictCard] = load_conflict(_read("conflict.toml"))
ARSENAL: dict[str, list[UnitCard]] = {
    side: load_arsenal(_read(f"arsenal_{side}.toml"), side) for side in SIDES}
_check_names([*CONFLICT, *ARSENAL["german"], *ARSENAL["british"]])

UNITS: dict[str, UnitCard] = {c.id: c for side in SIDES for c in ARSENAL[side]}
CONFLICTS: dict[str, ConflictCard] = {c.id: c for c in CONFLICT}
BATTLES: list[ConflictCard] = [c for c in CONFLICT if c.is_battle]
BATTLES_BY_KEY: dict[str, ConflictCard] = {b.key: b for b in BATTLES}
BATTLES_BY_KEY_NAME: dict[str, str] = {b.key: b.name for b in BATTLES}


# -- the card tables for the docs --------------------------------------------------------

def _na(value: int | None) -> str:
    return "–" if value is None else str(value)


def markdown() -> str:
    """The card lists as Markdown tables (docs/games/battlecards.md embeds this output)."""
    lines = ["### Battlecards (in the conflict deck)", "",
             "| # | Battle | AN | Aggressor | Forces | VP | Prerequisites | Special |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for b in BATTLES:
        pre = ", ".join(BATTLES_BY_KEY_NAME[p] for p in b.prerequisites) or "–"
        lines.append(f"| {b.id} | {b.name} | {b.action_number} | {SIDE_NAMES[b.aggressor]} | "
                     f"{', '.join(f.capitalize() for f in b.forces)} | {b.vp} | {pre} | "
                     f"{special_text(b) or '–'} |")
    lines.append(f"| | **Total** | | | | **{sum(b.vp for b in BATTLES)}** | | |")
    lines += ["", "### Other conflict cards", "", "| # | Card | AN | Kind | Effect |",
              "| --- | --- | --- | --- | --- |"]
    for c in CONFLICT:
        if not c.is_battle:
            lines.append(f"| {c.id} | {c.name} | {c.action_number} | {c.kind} | {c.text} |")
    for side in SIDES:
        lines += ["", f"### {SIDE_NAMES[side]} arsenal ({len(ARSENAL[side])} cards)", "",
                  "| # | Unit | Type | Phases | Attack G/A/S | Defense G/A/S | Support |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for u in ARSENAL[side]:
            typ = u.type.capitalize() + (f" ({u.stack})" if u.type == "leader" else "")
            support = (f"+{u.support.bonus} to {'/'.join(u.support.to)}"
                       if u.support else "–")
            lines.append(
                f"| {u.id} | {u.name} | {typ} | {', '.join(map(str, u.phases))} | "
                f"{'/'.join(_na(u.attack[f]) for f in FORCES)} | "
                f"{'/'.join(str(u.defense[f]) for f in FORCES)} | {support} |")
    return "\n".join(lines) + "\n"

