"""A game's friendly commands, declared next to its notation.

Each game lists its verbs (:class:`Verb`): the command's name, a one-line description,
a notation *template* such as ``"move {count} {from} {to}"`` and its arguments
(:class:`Arg`) in the order a player fills them in. From that declaration alone the
platform builds the game's slash group (``/conqueror move from: to: count:``), turns
what a player typed into notation (:meth:`Verb.notation`) and completes every argument
from the caller's legal actions (:meth:`Verb.candidates`): the values that appear in
that argument's place in some legal action consistent with what is already filled in.
Nothing here knows about Discord; the engine stays pure.

    >>> move = Verb("move", "Move armies", "move {count} {from} {to}",
    ...             (Arg("from", "Country they leave"), Arg("to", "Next country"),
    ...              Arg("count", "How many", kind=NUMBER, high=80)))
    >>> move.notation({"from": " France ", "to": "Spain", "count": 3})
    'move 3 france spain'
    >>> move.candidates(["move 1 france spain", "move 2 france spain", "move 1 italy naples"],
    ...                 "count", {"from": "france", "to": "spain"})
    ['1', '2']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

#: Argument kinds. A ``WORD`` is a token of the notation (a square, a country, a card);
#: a ``NUMBER`` is a whole number from ``low`` to ``high``. Any other string names a
#: word with a game-specific meaning the platform may label (``"square"``, ``"card"``).
WORD = "word"
NUMBER = "number"


def _digits(text: str) -> bool:
    """Whether ``text`` is a whole number written with the digits 0-9 (a short one)."""
    return text.isascii() and text.isdigit() and len(text) <= 18


#: Separators the platform puts between a choice's value and its description
#: (``"c3 · Rifle"``); text typed up to one of them is the value.
_LABEL_SEPARATORS = re.compile(r"\s+(?:·|—|–)\s+|:\s")


@dataclass(frozen=True)
class Arg:
    """One argument of a verb.

    ``name`` is what the player sees (``from``), ``kind`` says how to read and label it,
    ``choices`` fixes the values (``(label, value)`` pairs) instead of completing them
    from legal actions, and ``aliases`` maps words a player might type (``machine gun``)
    to the notation's (``mg``); ``low``/``high`` bound a number and ``longest`` a word.
    """

    name: str
    description: str
    kind: str = WORD
    choices: tuple[tuple[str, str], ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    low: int = 1
    high: int = 99
    #: The most characters a player may type for a word (Discord refuses more).
    longest: int = 100

    def word(self, value: object) -> str:
        """``value`` as the notation spells it: lower-case, a typed-out choice label cut
        back to its value, an alias resolved. Inner spaces are kept (the engine then
        refuses the word clearly rather than reading a different action)."""
        if isinstance(value, bool):
            value = str(value).lower()
        if isinstance(value, int):
            return str(value)
        text = " ".join(str(value or "").lower().split())
        if text in self.aliases:
            return self.aliases[text]
        head = _LABEL_SEPARATORS.split(text, maxsplit=1)[0].strip()
        head = head[1:] if head.startswith("#") else head
        return self.aliases.get(head, head)


@dataclass(frozen=True)
class Verb:
    """One friendly command: ``name`` and ``description`` for the player, ``template``
    the notation it builds, with ``{arg}`` for each argument and literal words around."""

    name: str
    description: str
    template: str = ""
    args: tuple[Arg, ...] = ()
    #: Shown in help and in the game's group description, grouped by section.
    section: str = ""

    def __post_init__(self) -> None:
        if not self.template:
            object.__setattr__(self, "template", self.name)
        named = {a.name for a in self.args}
        used = set(re.findall(r"\{([^}]+)\}", self.template))
        if named != used:
            raise ValueError(f"verb {self.name}: template {self.template!r} and arguments "
                             f"{sorted(named)} disagree")

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(self.template.split())

    def arg(self, name: str) -> Arg:
        for arg in self.args:
            if arg.name == name:
                return arg
        raise KeyError(name)

    def position(self, name: str) -> int:
        """Where argument ``name`` stands among the notation's words."""
        return self.tokens.index("{" + name + "}")

    def notation(self, values: Mapping[str, object]) -> str:
        """The action text for the arguments' ``values`` (missing ones left empty, so the
        engine refuses the action with its own message)."""
        words = []
        for token in self.tokens:
            if token.startswith("{") and token.endswith("}"):
                name = token[1:-1]
                words.append(self.arg(name).word(values.get(name, "")))
            else:
                words.append(token)
        return " ".join(w for w in words if w)

    def matches(self, action: str) -> list[str] | None:
        """The words of ``action`` if it is a filled-in form of this verb, else None."""
        words = action.split()
        tokens = self.tokens
        if len(words) != len(tokens):
            return None
        for word, token in zip(words, tokens, strict=True):
            if not token.startswith("{") and word != token:
                return None
        return words

    def candidates(self, legal: Iterable[str], name: str,
                   filled: Mapping[str, object] | None = None) -> list[str]:
        """Values of argument ``name`` in the ``legal`` actions of this verb that agree
        with the arguments already ``filled`` (empty ones are ignored): in order of first
        appearance, numbers in ascending order."""
        where = self.position(name)
        wanted = {self.position(other): self.arg(other).word(value)
                  for other, value in (filled or {}).items()
                  if other != name and other in {a.name for a in self.args}
                  and self.arg(other).word(value)}
        found: dict[str, None] = {}
        for action in legal:
            words = self.matches(action)
            if words is not None and all(words[i] == v for i, v in wanted.items()):
                found.setdefault(words[where], None)
        values = list(found)
        if self.arg(name).kind == NUMBER:
            # Digits 0-9 only, as engine.notation.is_number (not imported: engine.core,
            # which it imports, imports this module); `str.isdigit` also takes `²`.
            values.sort(key=lambda v: (not _digits(v), int(v) if _digits(v) else 0, v))
        return values

    def usage(self) -> str:
        """``move <from> <to> <count>``: how the friendly command is filled in."""
        return " ".join([self.name, *(f"<{a.name}>" for a in self.args)])


def verb_named(verbs: Iterable[Verb], name: str) -> Verb:
    for verb in verbs:
        if verb.name == name:
            return verb
    raise KeyError(name)


def notation(verbs: Iterable[Verb], name: str, *values: object) -> str:
    """The notation of verb ``name`` with its arguments' ``values`` in declared order:
    ``notation(GAME.verbs, "move", "b2", "c3", 3) == "move b2 c3 3"``."""
    verb = verb_named(verbs, name)
    return verb.notation(dict(zip((a.name for a in verb.args), values, strict=False)))
