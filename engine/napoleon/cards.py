"""Napoleonic Wars' deck: loading and checking ``data/cards.toml``.

The data is read once, at import time, with :mod:`tomllib`; it is constant, so the engine
stays deterministic. ``python -m engine.napoleon.cardlist`` prints the card table of
docs/games/napoleon.md from it.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.napoleon.board import COUNTRIES, SIDE_NAMES, SIDES

KINDS = ("battle", "general", "march")
CARD_SIDES = (*SIDES, "both")
_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


class CardDataError(ValueError):
    """The bundled card data breaks an invariant."""


@dataclass(frozen=True)
class Card:
    id: str
    name: str
    year: int
    side: str  # french | allies | both
    kind: str  # battle | general | march
    country: str | None
    bonus: int
    copies: int

    @property
    def short(self) -> str:
        """What it does, in a few words: ``+2 French in Austria``."""
        return short_effect(self.to_json())

    @property
    def text(self) -> str:
        """What it does, as one short sentence."""
        if self.kind == "march":
            return ("Forced March: your armies that already moved into one country this "
                    "turn may move once more.")
        who = "whichever side plays it" if self.side == "both" else f"the {SIDE_NAMES[self.side]}"
        where = ("in any battle" if self.country is None
                 else f"in a battle in {COUNTRIES[self.country].name}")
        return f"+{self.bonus} Force to {who} {where}."

    def playable_by(self, side: str) -> bool:
        return self.side in (side, "both")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "side": self.side, "country": self.country,
                "bonus": self.bonus, "kind": self.kind, "text": self.text}


def short_effect(card: dict[str, Any]) -> str:
    """A card's effect in a few words, from its view dict (``+2 French in Austria``)."""
    if card.get("kind") == "march":
        return "move a stack again"
    side = card.get("side")
    who = "either side" if side == "both" else SIDE_NAMES.get(str(side), str(side))
    country = card.get("country")
    where = ("anywhere" if country is None
             else f"in {COUNTRIES[country].name if country in COUNTRIES else country}")
    return f"+{card.get('bonus')} {who} {where}"


def _load() -> tuple[Card, ...]:
    text = resources.files("engine.napoleon").joinpath("data/cards.toml").read_text("utf-8")
    data: dict[str, Any] = tomllib.loads(text)
    cards = []
    for raw in data["card"]:
        card = Card(id=str(raw["id"]), name=str(raw["name"]), year=int(raw["year"]),
                    side=str(raw["side"]), kind=str(raw["kind"]),
                    country=raw.get("country"), bonus=int(raw.get("bonus", 0)),
                    copies=int(raw.get("copies", 1)))
        problem = _problem(card)
        if problem:
            raise CardDataError(f"card {card.id!r}: {problem}")
        cards.append(card)
    ids = [c.id for c in cards]
    if len(set(ids)) != len(ids):
        raise CardDataError("card ids must differ")
    return tuple(cards)


def _problem(card: Card) -> str | None:
    if not _ID.fullmatch(card.id):
        return "an id is one word of a-z, 0-9 and '-'"
    if card.side not in CARD_SIDES:
        return f"side must be one of {', '.join(CARD_SIDES)}"
    if card.kind not in KINDS:
        return f"kind must be one of {', '.join(KINDS)}"
    if card.kind == "battle" and card.country not in COUNTRIES:
        return "a battle card names a country of the map"
    if card.kind != "battle" and card.country is not None:
        return "only battle cards name a country"
    if card.kind == "march" and card.bonus != 0:
        return "a Forced March gives no bonus"
    if card.kind != "march" and not 1 <= card.bonus <= 3:
        return "the bonus is +1 to +3"
    if not 1 <= card.copies <= 10:
        return "copies must be 1-10"
    return None


CARDS: tuple[Card, ...] = _load()
BY_ID: dict[str, Card] = {c.id: c for c in CARDS}
#: Every card of the deck, copies included, in data order (shuffled at the start).
DECK: tuple[str, ...] = tuple(c.id for c in CARDS for _ in range(c.copies))
COPIES: dict[str, int] = {c.id: c.copies for c in CARDS}


def _slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "", plain)


#: Ways to write a card besides its id: its name without spaces or punctuation, with or
#: without a leading "the" (``russianwinter``, ``thelinesoftorresvedras``).
_SLUGS: dict[str, str] = {}
for _card in CARDS:
    for _text in (_card.id, _card.name):
        _s = _slug(_text)
        _SLUGS.setdefault(_s, _card.id)
        if _s.startswith("the"):
            _SLUGS.setdefault(_s[3:], _card.id)


def card_named(text: str) -> str | None:
    """The id of the card ``text`` names (an id, or a name typed out), or None."""
    if text in BY_ID:
        return text
    return _SLUGS.get(_slug(text))


def markdown() -> str:
    """The card table of docs/games/napoleon.md."""
    side_name = {"french": "French", "allies": "Allies", "both": "Either"}
    lines = ["| Card | id | Year | Side | Where | Bonus | Copies |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    order = {"french": 0, "allies": 1, "both": 2}
    for c in sorted(CARDS, key=lambda c: (order[c.side], KINDS.index(c.kind), c.year, c.name)):
        where = {"battle": COUNTRIES[c.country].name if c.country else "",
                 "general": "any battle", "march": "Forced March"}[c.kind]
        bonus = f"+{c.bonus}" if c.kind != "march" else "–"
        lines.append(f"| {c.name} | `{c.id}` | {c.year} | {side_name[c.side]} | {where} | "
                     f"{bonus} | {c.copies} |")
    totals = {s: sum(c.copies for c in CARDS if c.side == s) for s in CARD_SIDES}
    bonuses = {s: sum(c.copies * c.bonus for c in CARDS if c.side == s) for s in SIDES}
    lines.append("")
    lines.append(f"{len(DECK)} cards: {totals['french']} French (+{bonuses['french']} Force "
                 f"in all), {totals['allies']} Allied (+{bonuses['allies']}), "
                 f"{totals['both']} for either side.")
    return "\n".join(lines) + "\n"
