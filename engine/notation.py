"""Reading action text whose words name things by phrases, shared by the games' notations.

Several games let a player name a place or a thing by its id or by a phrase of several
words (``mare syriacum``, ``kingdom of italy``, ``Tyros`` for the province of its city).
A game declares each such set of names once as :class:`Phrases` (ids plus aliases, all
lower-case and single-spaced), and its ``parse`` reads the words after the verb with it:
:meth:`Phrases.read` for a fixed number of names (``move 2 mare syriacum cyprus``),
:meth:`Phrases.one` for a whole phrase (``go know-how``). Every refusal is an
:class:`~engine.core.IllegalAction` worded by the game.

A parsed action is an :class:`Action`: its verb, the ids it names and its count, with the
canonical spelling :meth:`legal_actions <engine.core.Game.legal_actions>` lists.

Numbers in notation are written with the digits 0-9 (:func:`is_number`, :func:`parse_number`):
``str.isdigit`` also takes other scripts' digits and superscripts (``٣``, ``１``, ``²``), some
of which ``int`` reads and some of which it rejects with a ``ValueError``; such a word is
refused with an :class:`~engine.core.IllegalAction` instead. The store and the cogs use the
same test for numbers and ids they are given as text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeGuard

from engine.core import IllegalAction


@dataclass(frozen=True)
class Action:
    """A parsed action: the verb, the ids it names in order, and its count (0: none)."""

    verb: str
    args: tuple[str, ...] = ()
    count: int = 0

    @property
    def text(self) -> str:
        """The canonical spelling: the verb and its ids; a move's count comes before its
        regions (``move 2 attica macedonia``), a conquest's after its province
        (``conquer phoenicia 1``)."""
        if self.verb == "move":
            return f"move {self.count} {self.args[0]} {self.args[1]}"
        if self.verb == "conquer":
            return f"conquer {self.args[0]} {self.count}"
        return " ".join((self.verb, *self.args))


def split_phrases(words: list[str], k: int, phrases: Mapping[str, str],
                  longest: int) -> list[str] | None:
    """``words`` read as exactly ``k`` names from ``phrases`` (a name may be several words:
    ``mare syriacum``; the longest match is tried first, backing off when the rest cannot be
    read), as the ids they map to; None if the words cannot be read so."""
    if k == 0:
        return [] if not words else None
    for n in range(min(longest, len(words)), 0, -1):
        phrase = " ".join(words[:n])
        if phrase in phrases:
            rest = split_phrases(words[n:], k - 1, phrases, longest)
            if rest is not None:
                return [phrases[phrase], *rest]
    return None


class Phrases:
    """Every phrase that names one kind of thing (each id, and its ``aliases``) -> its id.

    ``unknown`` words the refusal of a word that names nothing (it is given that word);
    without it such words get the usage too.
    """

    def __init__(self, ids: Iterable[str], aliases: Mapping[str, str],
                 unknown: Callable[[str], str] | None = None) -> None:
        self.table: dict[str, str] = {**{i: i for i in ids}, **aliases}
        self.longest = max(len(p.split()) for p in self.table)
        self.unknown = unknown

    def __contains__(self, phrase: object) -> bool:
        return phrase in self.table

    def __getitem__(self, phrase: str) -> str:
        return self.table[phrase]

    def split(self, words: list[str], k: int) -> list[str] | None:
        """``words`` as exactly ``k`` names (see :func:`split_phrases`), or None."""
        return split_phrases(words, k, self.table, self.longest)

    def read(self, words: list[str], k: int, usage: str) -> list[str]:
        """``words`` as exactly ``k`` names; refuses them naming the first word that names
        nothing when there are ``k`` words, else with ``Write `usage`.``."""
        found = self.split(words, k)
        if found is not None:
            return found
        if len(words) == k and self.unknown is not None:
            bad = next((w for w in words if w not in self.table), words[0])
            raise IllegalAction(self.unknown(bad))
        raise IllegalAction(f"Write `{usage}`.")

    def one(self, words: list[str], what: str, usage: str, choices: Iterable[str]) -> str:
        """All of ``words`` as one name; refuses nothing written (``Write `usage`.``) and a
        phrase that is not ``what`` (listing the ``choices``)."""
        if not words:
            raise IllegalAction(f"Write `{usage}`.")
        phrase = " ".join(words)
        if phrase in self.table:
            return self.table[phrase]
        raise IllegalAction(f"`{phrase[:30]}` is not {what}: choose one of "
                            f"{', '.join(choices)}.")


#: The most digits :func:`parse_number` reads (``int`` refuses past about 4300 digits, and
#: no count or id in a game comes near this many).
MAX_DIGITS = 18


def is_number(text: object) -> TypeGuard[str]:
    """Whether ``text`` is a whole number written with the digits 0-9 only (not empty;
    ``٣``, ``１`` and ``²`` are not: ``str.isdigit`` alone would take them)."""
    return isinstance(text, str) and text.isascii() and text.isdigit()


def looks_like_number(word: str) -> bool:
    """Whether ``word`` is meant as a number: digits of any script, superscripts, numerals
    (``2``, ``٣``, ``²``, ``½``); :func:`parse_number` then reads or refuses it."""
    return word.isnumeric()


def parse_number(word: str, what: str) -> int:
    """``word`` as a whole number written with the digits 0-9; anything else (``²``, ``٣``,
    ``１``, ``x``, more than :data:`MAX_DIGITS` digits) is refused naming the word, with
    ``what`` (``"The count"``) saying what the number was for."""
    if is_number(word) and len(word) <= MAX_DIGITS:
        return int(word)
    shown = word if len(word) <= 20 else word[:19] + "…"
    if is_number(word):
        raise IllegalAction(f"{what} `{shown}` is too large.")
    raise IllegalAction(f"`{shown}` is not a number: write {what[:1].lower()}{what[1:]} with "
                        "the digits 0-9, like 1 or 2.")


def count_and_rest(args: list[str], usage: str) -> tuple[str, list[str]]:
    """A count written first or last (``move 2 a b``, ``move a b 2``) and the other words;
    refuses words with no count with ``Write `usage`.``. The count is any word meant as a
    number (:func:`looks_like_number`), for the caller to read with :func:`parse_number`,
    which refuses one not written with the digits 0-9 by name."""
    if args and looks_like_number(args[0]):
        return args[0], args[1:]
    if args and looks_like_number(args[-1]):
        return args[-1], args[:-1]
    raise IllegalAction(f"Write `{usage}`.")
