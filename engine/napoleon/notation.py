"""Napoleonic Wars' action notation and its friendly commands (docs/games/napoleon.md).

    move 3 france spain    move 3 armies that have not moved this turn (count first; the
                           count may also come last, and countries may be typed out:
                           ``move 2 kingdom of italy naples``)
    march austria          play a Forced March: armies that moved into Austria move again
    end                    end the move phase
    battle austria         the attacker picks the next battle
    play austerlitz        play a card in the current battle (its id, or its name)
    ready                  no (more) cards for this battle
    retreat warsaw         the loser of a battle picks where its survivors go
    discard ulm            over the hand limit: discard a card
    resign
"""

from __future__ import annotations

from engine.core import IllegalAction
from engine.napoleon.board import COUNTRIES, ORDER
from engine.napoleon.cards import CARDS, card_named
from engine.notation import Action, Phrases, count_and_rest, is_number, parse_number
from engine.verbs import NUMBER, Arg, Verb

HELP = ("Actions: `move 3 france spain`, `march austria`, `end`, `battle austria`, "
        "`play austerlitz`, `ready`, `retreat warsaw`, `discard ulm`, `resign`.")

#: Other ways to name a country (lower-case, single spaces) -> its id.
COUNTRY_ALIASES: dict[str, str] = {
    "ottoman empire": "ottoman", "the ottoman empire": "ottoman", "ottomans": "ottoman",
    "turkey": "ottoman", "constantinople": "ottoman",
    "confederation of the rhine": "rhineland", "the confederation of the rhine": "rhineland",
    "rhine": "rhineland", "confederation": "rhineland", "germany": "rhineland",
    "kingdom of italy": "italy", "the kingdom of italy": "italy",
    "kingdom of naples": "naples", "the kingdom of naples": "naples", "sicily": "naples",
    "great britain": "england", "britain": "england", "united kingdom": "england",
    "uk": "england", "gb": "england",
    "duchy of warsaw": "warsaw", "the duchy of warsaw": "warsaw", "poland": "warsaw",
    "netherlands": "holland", "the netherlands": "holland", "kingdom of holland": "holland",
    "swiss": "switzerland", "helvetia": "switzerland", "helvetic republic": "switzerland",
    "french empire": "france", "the french empire": "france",
    "russian empire": "russia", "austrian empire": "austria", "habsburg": "austria",
    "kingdom of prussia": "prussia", "spanish": "spain", "portuguese": "portugal",
    "danish": "denmark", "swedish": "sweden", "egyptian": "egypt",
}
for _c in ORDER:
    COUNTRY_ALIASES.setdefault(COUNTRIES[_c].name.lower(), _c)
#: Every phrase that names a country, ids included.
_PHRASES = Phrases(ORDER, COUNTRY_ALIASES, lambda bad: (
    f"`{bad[:20]}` is not a country. Countries: {', '.join(ORDER)}."))

#: Card names typed out (lower-case) -> ids, for the friendly commands.
CARD_ALIASES: dict[str, str] = {}
for _entry in CARDS:
    CARD_ALIASES.setdefault(_entry.name.lower(), _entry.id)
    if _entry.name.lower().startswith("the "):
        CARD_ALIASES.setdefault(_entry.name.lower()[4:], _entry.id)


def _card(words: list[str], verb: str) -> str:
    if not words:
        raise IllegalAction(f"Write `{verb} <card>`, e.g. `{verb} austerlitz` (the card's id).")
    text = "-".join(words)
    cid = card_named(text)
    if cid is None:
        raise IllegalAction(f"`{text[:30]}` is not a card: name it by its id, e.g. "
                            "`austerlitz` (`/hand` lists yours).")
    return cid


def parse(text: str) -> Action:
    """Parse normalised (lower-case, single-spaced) text."""
    verb, *args = text.split(" ")
    if verb in ("end", "ready", "resign") and not args:
        return Action(verb)
    if verb == "end" and args in (["turn"], ["moves"], ["move"]):
        return Action("end")
    if verb == "move":
        usage = "move <count> <from> <to>`, e.g. `move 3 france spain"
        count, places = count_and_rest(args, usage)
        if is_number(count) and len(count) > 3:
            raise IllegalAction("Move at least 1 army.")
        n = parse_number(count, "The number of armies")     # refuses `²`, `٣`, `１`
        if not 1 <= n <= 999:
            raise IllegalAction("Move at least 1 army.")
        src, dst = _PHRASES.read(places, 2, usage)
        return Action("move", (src, dst), n)
    if verb in ("march", "battle", "retreat"):
        example = {"march": "march austria", "battle": "battle austria",
                   "retreat": "retreat warsaw"}[verb]
        (country,) = _PHRASES.read(args, 1, f"{verb} <country>`, e.g. `{example}")
        return Action(verb, (country,))
    if verb in ("play", "discard"):
        return Action(verb, (_card(args, verb),))
    raise IllegalAction(f"I don't know that action. {HELP}")


def _country_arg(name: str, description: str) -> Arg:
    return Arg(name, description, kind="country", aliases=COUNTRY_ALIASES)


def _card_arg(description: str) -> Arg:
    return Arg("card", description, kind="card", aliases=CARD_ALIASES)


VERBS: tuple[Verb, ...] = (
    Verb("move", "Move armies that have not moved this turn to a neighbouring country",
         "move {count} {from} {to}",
         (_country_arg("from", "The country they leave"),
          _country_arg("to", "Where they go (from England: any coastal country)"),
          Arg("count", "How many armies", kind=NUMBER, low=1, high=80)),
         section="Your turn"),
    Verb("march", "Play Forced March: the armies that moved into a country move once more",
         "march {country}", (_country_arg("country", "Where the armies that moved are"),),
         section="Your turn"),
    Verb("end", "End the move phase: battles, then reinforcements", "end",
         section="Your turn"),
    Verb("battle", "Choose which contested country to fight next", "battle {country}",
         (_country_arg("country", "The battle to fight next"),), section="Battles"),
    Verb("play", "Play a card in this battle", "play {card}",
         (_card_arg("A card from your hand"),), section="Battles"),
    Verb("ready", "No (more) cards for this battle", "ready", section="Battles"),
    Verb("retreat", "Choose where your beaten armies retreat", "retreat {to}",
         (_country_arg("to", "A neighbouring country with no enemy armies"),),
         section="Battles"),
    Verb("discard", "Discard a card when over the hand limit of 7", "discard {card}",
         (_card_arg("A card from your hand"),), section="Cards"),
)
