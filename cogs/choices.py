"""Autocomplete helpers: filtering what a player may choose by what they typed, and
reading the arguments of legal actions (Discord shows at most 25 choices of at most
100 characters).
"""

from __future__ import annotations

from collections.abc import Iterable

import discord
from discord import app_commands


def filter_choices(options: Iterable[str], typed: str, limit: int = 25) -> list[str]:
    """Options containing ``typed`` (case-insensitive, spaces squeezed), at most ``limit``."""
    needle = " ".join((typed or "").lower().split())
    found: list[str] = []
    for option in options:
        if needle in option.lower() and option not in found:
            found.append(option)
            if len(found) >= limit:
                break
    return found


def as_choices(values: Iterable[str]) -> list[app_commands.Choice[str]]:
    """Autocomplete choices (Discord caps names and values at 100 characters)."""
    return [app_commands.Choice(name=v[:100], value=v[:100]) for v in values]


def normal_word(text: str | None) -> str:
    """Lower-case with spaces squeezed (inner spaces kept, so the engine refuses them)."""
    return " ".join((text or "").lower().split())


def action_args(actions: Iterable[str], verb: str) -> list[list[str]]:
    """The arguments of every action starting with ``verb`` (``attack c3 d5`` -> c3, d5)."""
    return [words[1:] for words in (a.split() for a in actions) if words and words[0] == verb]


def first_args(actions: Iterable[str], verb: str) -> list[str]:
    """The first argument of every ``verb`` action, in order of first appearance."""
    return list(dict.fromkeys(args[0] for args in action_args(actions, verb) if args))


def second_args(actions: Iterable[str], verb: str, first: str) -> list[str]:
    """The second argument of ``verb`` actions whose first is ``first`` (any if empty)."""
    return list(dict.fromkeys(args[1] for args in action_args(actions, verb)
                              if len(args) >= 2 and (not first or args[0] == first)))


def labelled_choices(pairs: Iterable[tuple[str, str]],
                     typed: str) -> list[app_commands.Choice[str]]:
    """Autocomplete choices from ``(label, value)`` pairs whose label contains ``typed``."""
    needle = normal_word(typed)
    picked: list[app_commands.Choice[str]] = []
    for label, value in pairs:
        if needle in label.lower() and all(c.value != value for c in picked):
            picked.append(app_commands.Choice(name=label[:100], value=value[:100]))
            if len(picked) >= 25:
                break
    return picked


def namespace_text(interaction: discord.Interaction, name: str) -> str | None:
    """What the user has typed so far into another option of the same command."""
    value = getattr(interaction.namespace, name, None)
    return value if isinstance(value, str) else None
