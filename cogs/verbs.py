"""Every game's slash group, built from the verbs the game declares (``engine.verbs``).

A game lists its friendly commands next to its notation (``Game.verbs``); this module
turns each declaration into an ``app_commands`` command of the group ``/<kind>``: the
arguments become options (numbers with their range, fixed choices as Discord choices,
everything else autocompleted from the caller's legal actions), and running the command
builds the notation and sends it down the one move path, :func:`cogs.moves.submit`,
exactly like ``/play``. A new game therefore writes no command code at all.

What a game's cog module (``cogs/<kind>.py``, optional) may add, because it is truly that
game's own:

- :func:`register_labels`: how to label a kind of argument in autocomplete, from the
  caller's own view (``c3 · Rifle``; a hand slot with the card only its owner sees);
  the default is the game's :meth:`engine.core.Game.choice_labels`.
- :func:`register_autocomplete`: a whole autocomplete of one argument (Liège's shop).
- :func:`register_commands`: extra commands of the group that are not actions (looks).
- :func:`register_hand`: how ``/hand`` shows a player's cards (default: the hand in the
  player's own view, card by card).

Autocomplete answers from the caller's own view and legal actions only, so it offers
nothing to anyone who may not act, and never shows one player's secrets to another.

This module is not an extension (``cogs/groups.py`` loads :class:`GameCommands`): an
extension is executed afresh by ``load_extension``, which would empty the registries the
game modules filled.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import logging
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs.choices import labelled_choices, normal_word
from cogs.interactions import (
    reply_error,
    require_game,
    running_game,
    send_ephemeral,
    store_of,
)
from cogs.moves import submit
from cogs.wording import clip
from engine import Game
from engine.notation import is_number
from engine.verbs import NUMBER, Arg, Verb

log = logging.getLogger("warhost.cogs.verbs")

#: ``(values, view, caller) -> [(label, value)]``: labels for one kind of argument.
Labeler = Callable[[list[str], Mapping[str, Any], str], list[tuple[str, str]]]
Completer = Callable[[discord.Interaction, str],
                     Coroutine[Any, Any, list[app_commands.Choice[str]]]]
CommandFactory = Callable[[], Iterable[app_commands.Command[Any, ..., Any]]]
HandView = Callable[[Mapping[str, Any], str], "discord.Embed | None"]

LABELERS: dict[tuple[str, str], Labeler] = {}
COMPLETERS: dict[tuple[str, str, str], Completer] = {}
EXTRA_COMMANDS: dict[str, CommandFactory] = {}
HANDS: dict[str, HandView] = {}

NO_HAND = "You have no hand in this game: only its players have cards."
NOT_HERE = "There is no game with cards under way in this channel."
#: Discord shows at most 25 autocomplete choices.
MAX_CHOICES = 25


def register_labels(kind: str, arg_kind: str, labeler: Labeler) -> None:
    """Label ``kind``'s arguments of kind ``arg_kind`` with ``labeler``."""
    LABELERS[(kind, arg_kind)] = labeler


def register_autocomplete(kind: str, verb: str, arg: str, completer: Completer) -> None:
    """Complete argument ``arg`` of ``/<kind> <verb>`` with ``completer``."""
    COMPLETERS[(kind, verb, arg)] = completer


def register_commands(kind: str, factory: CommandFactory) -> None:
    """Add the commands ``factory`` makes (fresh ones per bot) to ``/<kind>``."""
    EXTRA_COMMANDS[kind] = factory


def register_hand(kind: str, show: HandView) -> None:
    """Show ``/hand`` for ``kind`` with ``show(own_view, caller)``."""
    HANDS[kind] = show


def load_game_modules() -> None:
    """Import ``cogs.<kind>`` for every game that has one, so its registrations are in."""
    for kind in engine.GAMES:
        name = f"{__package__}.{kind}"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


# -- what a command does --------------------------------------------------------------------


async def submit_verb(interaction: discord.Interaction, game: Game[Any], action: str) -> None:
    """Send ``action`` down the one move path, if this channel's game is ``game``'s kind."""
    record = await require_game(interaction)
    if record is None:
        return
    if record.kind != game.kind:
        await reply_error(interaction, f"The game in this channel is not {game.name}; use "
                                       f"`/play` for its actions (e.g. `/play {action}`).")
        return
    await submit(interaction, store_of(interaction.client), record, action)


def _seen_by(game: Game[Any], state: Any, me: str) -> dict[str, Any] | None:
    try:
        return game.view(state, me if me in game.players(state) else None)
    except Exception:
        log.exception("The %s view failed", game.kind)
        return None


async def legal_and_view(interaction: discord.Interaction, kind: str
                         ) -> tuple[list[str], dict[str, Any] | None]:
    """The caller's legal actions in this channel's ``kind`` game ([] for anyone who may
    not act now) and their own view, from one read of the game. Never raises."""
    found = await running_game(interaction, kind)
    if found is None:
        return [], None
    game, state, _ = found
    me = str(interaction.user.id)
    try:
        legal = list(game.legal_actions(state, me)) if me in game.to_act(state) else []
    except Exception:
        log.exception("The %s legal actions failed", kind)
        return [], None
    return legal, (_seen_by(game, state, me) if legal else None)


def labelled(game: Game[Any], arg: Arg, values: list[str], view: Mapping[str, Any] | None,
             me: str) -> list[tuple[str, str]]:
    """``(label, value)`` for each value: the cog's labeler, else the game's own."""
    if view is None:
        return [(v, v) for v in values]
    labeler = LABELERS.get((game.kind, arg.kind))
    if labeler is not None:
        return labeler(values, view, me)
    labels = game.choice_labels(dict(view), arg.kind, list(values))
    if len(labels) != len(values):
        return [(v, v) for v in values]
    return list(zip(labels, values, strict=True))


def number_choices(pairs: Sequence[tuple[str, str]],
                   typed: str) -> list[app_commands.Choice[int]]:
    """Integer choices whose label contains ``typed``; past 25, the largest is kept last
    (moving everything is the commonest wish)."""
    needle = normal_word(typed)
    found = [(label, int(value)) for label, value in pairs
             if is_number(value) and needle in label.lower()]
    if len(found) > MAX_CHOICES:
        found = [*found[:MAX_CHOICES - 1], found[-1]]
    return [app_commands.Choice(name=label[:100], value=value) for label, value in found]


def filled_values(interaction: discord.Interaction, verb: Verb, name: str) -> dict[str, Any]:
    """What the caller has put in the command's other options so far."""
    namespace = getattr(interaction, "namespace", None)
    return {a.name: getattr(namespace, a.name, None) for a in verb.args if a.name != name}


def make_completer(game: Game[Any], verb: Verb, arg: Arg) -> Completer:
    """Autocomplete of ``arg``: its values in the caller's legal ``verb`` actions that fit
    the other options filled in, labelled from the caller's own view."""
    async def complete(interaction: discord.Interaction, current: str) -> Any:
        try:
            legal, view = await legal_and_view(interaction, game.kind)
            if not legal:
                return []
            filled = {k: v for k, v in filled_values(interaction, verb, arg.name).items()
                      if v is not None}
            values = verb.candidates(legal, arg.name, filled)
            if not values:
                return []
            pairs = labelled(game, arg, values, view, str(interaction.user.id))
            if arg.kind == NUMBER:
                return number_choices(pairs, str(current or ""))
            return labelled_choices(pairs, str(current or ""))
        except Exception:
            log.exception("Autocomplete of /%s %s %s failed", game.kind, verb.name, arg.name)
            return []

    complete.__name__ = f"{verb.name}_{python_name(arg.name)}_autocomplete"
    return complete


# -- building the commands ------------------------------------------------------------------


def python_name(name: str) -> str:
    """A parameter name for option ``name`` (``from`` is a keyword: ``from_``)."""
    word = name.replace("-", "_")
    return f"{word}_" if not word.isidentifier() or word in _KEYWORDS else word


_KEYWORDS = frozenset(__import__("keyword").kwlist)


def _annotation(arg: Arg) -> Any:
    if arg.kind == NUMBER:
        return app_commands.Range[int, arg.low, arg.high]
    return app_commands.Range[str, 1, arg.longest]


def verb_command(game: Game[Any], verb: Verb) -> app_commands.Command[Any, ..., Any]:
    """The slash command of one declared verb."""
    names = {python_name(a.name): a.name for a in verb.args}

    async def run(interaction: discord.Interaction, **values: Any) -> None:
        await submit_verb(interaction, game,
                          verb.notation({names[k]: v for k, v in values.items()}))

    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=discord.Interaction)]
    parameters += [inspect.Parameter(python_name(a.name), inspect.Parameter.KEYWORD_ONLY,
                                     annotation=_annotation(a)) for a in verb.args]
    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__name__ = python_name(verb.name)
    run.__qualname__ = f"verb_command.<locals>.{run.__name__}"
    run.__discord_app_commands_param_description__ = {  # type: ignore[attr-defined]
        python_name(a.name): a.description[:100] for a in verb.args}
    run.__discord_app_commands_param_rename__ = {  # type: ignore[attr-defined]
        python_name(a.name): a.name for a in verb.args if python_name(a.name) != a.name}
    run.__discord_app_commands_param_choices__ = {  # type: ignore[attr-defined]
        python_name(a.name): [app_commands.Choice(name=label[:100], value=value)
                              for label, value in a.choices]
        for a in verb.args if a.choices}
    command: app_commands.Command[Any, ..., Any] = app_commands.Command(
        name=verb.name, description=verb.description[:100], callback=run)
    for arg in verb.args:
        if arg.choices:
            continue
        completer = COMPLETERS.get((game.kind, verb.name, arg.name)) or make_completer(
            game, verb, arg)
        command.autocomplete(python_name(arg.name))(completer)
    return command


def build_group(game: Game[Any]) -> app_commands.Group:
    """``/<kind>``: one command per declared verb, then the cog module's extra commands."""
    group = app_commands.Group(name=game.kind, guild_only=True,
                               description=f"{game.name} actions (or use /play)"[:100])
    for verb in game.verbs:
        group.add_command(verb_command(game, verb))
    factory = EXTRA_COMMANDS.get(game.kind)
    for command in factory() if factory else ():
        group.add_command(command)
    return group


def complete(group: app_commands.Group, verb: str, arg: str) -> Completer:
    """The autocomplete callback of option ``arg`` of ``verb`` in ``group`` (for tests and
    for callers that want the same answers)."""
    command = group.get_command(verb)
    if not isinstance(command, app_commands.Command):
        raise KeyError(verb)
    for parameter in command.parameters:
        if parameter.display_name == arg and parameter.autocomplete:
            callback = command._params[parameter.name].autocomplete
            return callback  # type: ignore[return-value]
    raise KeyError(arg)


def completers(group: app_commands.Group) -> dict[tuple[str, str], Completer]:
    """Every autocomplete callback of ``group``: ``(command, option) -> callback``."""
    found: dict[tuple[str, str], Completer] = {}
    for command in group.commands:
        if isinstance(command, app_commands.Command):
            for parameter in command.parameters:
                if parameter.autocomplete:
                    found[(command.name, parameter.display_name)] = complete(
                        group, command.name, parameter.display_name)
    return found


# -- /hand ------------------------------------------------------------------------------------


def hand_embed(view: Mapping[str, Any], player: str) -> discord.Embed | None:
    """The generic ``/hand``: the cards in the caller's own view entry (``hand``: a list of
    cards with ``name`` and ``text``); None when the view shows the caller no hand."""
    if str(view.get("viewer")) != player:
        return None
    entry = next((e for e in view.get("players") or () if isinstance(e, dict)
                  and str(e.get("id")) == player), None)
    hand = entry.get("hand") if entry else None
    if not isinstance(hand, list):
        return None
    lines = []
    for card in hand:
        if isinstance(card, dict):
            text = f" — {card['text']}" if card.get("text") else ""
            lines.append(f"**{card.get('name', card.get('id', '?'))}**{text}")
        else:
            lines.append(str(card))
    side = entry.get("side") if entry else None
    title = "Your cards" + (f" ({str(side).title()})" if side else "") + " — only you see this"
    embed = discord.Embed(title=title, description=clip(
        "\n".join(lines) or "Your hand is empty.", 4000), colour=discord.Colour.dark_gold())
    embed.set_footer(text=f"{len(hand)} card(s)")
    return embed


async def show_hand(interaction: discord.Interaction) -> None:
    """``/hand``: the caller's own cards in this channel's game, to the caller alone."""
    record = await require_game(interaction)
    if record is None:
        return
    if record.state is None or record.status != "active":
        await reply_error(interaction, NOT_HERE)
        return
    game = engine.get_game(record.kind)
    state = store_of(interaction.client).load_state(record)
    me = str(interaction.user.id)
    if me not in game.players(state):
        await reply_error(interaction, NO_HAND)
        return
    embed = HANDS.get(record.kind, hand_embed)(game.view(state, me), me)
    if embed is None:
        await reply_error(interaction, f"{game.name} has no hidden hands: everything is on "
                                       "the board (`/game board`).")
        return
    await send_ephemeral(interaction, "", embed=embed)


# -- the cog ----------------------------------------------------------------------------------


class GameCommands(commands.Cog):
    """Every game's ``/<kind>`` group, built from its declared verbs, and ``/hand``."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        load_game_modules()
        self.groups = {kind: build_group(game) for kind, game in engine.GAMES.items()
                       if game.verbs or kind in EXTRA_COMMANDS}

    async def cog_load(self) -> None:
        for group in self.groups.values():
            self.bot.tree.add_command(group, override=True)

    async def cog_unload(self) -> None:
        for kind in self.groups:
            self.bot.tree.remove_command(kind)

    @app_commands.command(name="hand", description="Your cards in this channel's game "
                                                   "(only you see them)")
    @app_commands.guild_only()
    async def hand(self, interaction: discord.Interaction) -> None:
        await show_hand(interaction)
