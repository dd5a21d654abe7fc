"""What is the Battle of Liège's own in Discord: the shop and ranges, labels and prompts.

Its actions (``/liege general|buy|…|end``) are declared in ``engine/liege/notation.py``
and built by :mod:`cogs.verbs`, like every game's. Here: squares are labelled with what
stands on them, ``/liege buy piece`` completes with the caller's own prices, and
``/liege shop`` and ``/liege range`` only look (they answer ephemerally).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import discord
from discord import app_commands

import engine
from cogs import verbs
from cogs.boards import boards_of
from cogs.choices import first_args, labelled_choices, normal_word, second_args
from cogs.interactions import (
    defer,
    reply_error,
    require_game,
    running_game,
    send_ephemeral,
    store_of,
)
from cogs.names import display_names
from cogs.verbs import legal_and_view
from cogs.wording import chunk_lines, clip, mention, register_decision
from engine import Game, IllegalAction
from engine.liege.notation import VERBS
from engine.liege.pieces import BASE_PRICES  # before any Mortar penalty: explains a rise
from engine.notation import is_number
from engine.verbs import verb_named

log = logging.getLogger("warhost.cogs.liege")

KIND = "liege"
Square = app_commands.Range[str, 1, 20]

#: Pieces one can buy and place, with their names (the notation's word first).
PIECES: dict[str, str] = {"rifle": "Rifle", "mg": "Machine Gun", "mortar": "Mortar",
                          "av": "Armored Vehicle", "trench": "Trench"}
#: Weapons bought and used at once, and the piece of yours that uses each.
WEAPONS: dict[str, str] = {"grenade": "Grenade", "missile": "Missile", "gas": "Mustard Gas"}
WEAPON_USER = {"grenade": "Rifle", "missile": "Mortar", "gas": "Mortar"}
#: What the loser of a fight is told (:mod:`cogs.wording` shows it after their mention).
CASUALTY_PROMPT = ("you lost the fight: choose a casualty with `/play` or "
                   "`/liege casualty`")
register_decision(KIND, "casualty", CASUALTY_PROMPT)
register_decision(KIND, "setup", "place your General on one of your highlighted "
                  "squares with `/liege general` or `/play`")


# -- notation (pure) --------------------------------------------------------------------


def canonical(text: str) -> str:
    """A piece, weapon or facing as the notation spells it (``Machine Gun`` -> ``mg``;
    a choice's label typed out, ``Rifle — 20 credits``, -> ``rifle``)."""
    return verb_named(VERBS, "buy").arg("piece").word(text)


# -- choices from legal actions (pure) ----------------------------------------------------


def firsts(actions: Iterable[str], verb: str) -> list[str]:
    """The first argument of every legal ``verb`` action (``attack c3 d5`` -> ``c3``)."""
    return first_args(actions, verb)


def seconds(actions: Iterable[str], verb: str, first: str | None) -> list[str]:
    """The second argument of legal ``verb`` actions whose first is ``first`` (any first
    when it is empty): the targets of an attack from a square, the squares a piece can
    be bought on, a Mortar's facings."""
    return second_args(actions, verb, canonical(first or ""))


def weapon_sources(actions: Iterable[str], weapon: str) -> list[str]:
    return firsts(actions, weapon)


def weapon_targets(actions: Iterable[str], weapon: str, src: str | None) -> list[str]:
    return seconds(actions, weapon, src)


# -- what the view says (pure) ------------------------------------------------------------


def player_entry(view: Mapping[str, Any], player: str) -> dict[str, Any] | None:
    """The view's ``players`` entry of ``player``, if seated."""
    for entry in view.get("players") or ():
        if isinstance(entry, dict) and str(entry.get("id")) == player:
            return entry
    return None


def occupants(view: Mapping[str, Any]) -> dict[str, str]:
    """square -> what stands there (``"Machine Gun (damaged)"``, ``"General"``, ...)."""
    found: dict[str, str] = {}
    for piece in view.get("pieces") or ():
        if not isinstance(piece, dict) or not isinstance(piece.get("square"), str):
            continue
        kind = str(piece.get("type"))
        text = PIECES.get(kind, kind)
        if piece.get("general_inside"):
            text += " with a General"
        if piece.get("damaged"):
            text += " (damaged)"
        found[piece["square"]] = text
    for entry in view.get("players") or ():
        square = entry.get("general") if isinstance(entry, dict) else None
        if isinstance(square, str) and square not in found:
            found[square] = "General"
    return found


def square_labels(squares: Sequence[str], view: Mapping[str, Any] | None
                  ) -> list[tuple[str, str]]:
    """``(label, value)`` for each square: the square and what stands on it."""
    there = occupants(view) if view else {}
    return [(f"{sq} · {there[sq]}" if sq in there else sq, sq) for sq in squares]


def _price(entry: Mapping[str, Any] | None, item: str) -> int | None:
    prices = entry.get("prices") if entry else None
    value = prices.get(item) if isinstance(prices, dict) else None
    return value if isinstance(value, int) else None


def _left(entry: Mapping[str, Any] | None, item: str) -> int | None:
    left = entry.get("left") if entry else None
    value = left.get(item) if isinstance(left, dict) else None
    return value if isinstance(value, int) else None


def piece_choices(entry: Mapping[str, Any] | None, actions: Sequence[str],
                  typed: str = "") -> list[tuple[str, str]]:
    """``(label, value)`` for ``/liege buy piece``: every piece with the caller's price,
    and why it can't be bought now when it can't. Empty for anyone who may not buy."""
    buyable = set(firsts(actions, "buy"))
    if not buyable:
        return []
    credits = entry.get("credits") if entry else None
    needle = normal_word(typed)
    found = []
    for piece, name in PIECES.items():
        if needle and needle not in piece and needle not in name.lower():
            continue
        price = _price(entry, piece)
        label = name if price is None else f"{name} — {price} credits"
        left = _left(entry, piece)
        if left is not None:
            label += f" ({left} left)"
        if piece not in buyable:
            if left == 0:
                label += ": none left"
            elif price is not None and isinstance(credits, int) and price > credits:
                label += f": you have {credits}"
            else:
                label += ": nowhere to place it now"
        found.append((label[:100], piece))
    return found


def shop_lines(view: Mapping[str, Any], player: str | None) -> list[str]:
    """The shop as ``player`` sees it: prices (Mortar penalties included), credits left
    and the per-player limits remaining. A spectator sees every player's credits."""
    entry = player_entry(view, player) if player else None
    if entry is None:
        lines = ["**Liège shop** — credits of each player:"]
        for other in view.get("players") or ():
            if isinstance(other, dict):
                out = " (out)" if other.get("out") else ""
                lines.append(f"{mention(str(other.get('id')))}{out}: "
                             f"{other.get('credits', '?')} credits")
        lines.append("Players see their own prices and limits here.")
        return lines
    credits = entry.get("credits")
    lines = [f"**Your shop** — {credits} credits left"]
    for items, heading in ((PIECES, "Pieces (`/liege buy`)"),
                           (WEAPONS, "Used at once (`/liege grenade|missile|gas`)")):
        lines.append(f"__{heading}__")
        for item, name in items.items():
            price = _price(entry, item)
            if price is None:
                continue
            notes = []
            base = BASE_PRICES.get(item)
            if base is not None and price > base:
                notes.append(f"+{price - base} after your Mortars lost fights")
            left = _left(entry, item)
            if left is not None:
                notes.append(f"{left} left")
            if isinstance(credits, int) and price > credits:
                notes.append("can't afford")
            if item in WEAPON_USER:
                notes.append(f"from a {WEAPON_USER[item]}")
            shown = f" ({', '.join(notes)})" if notes else ""
            lines.append(f"{name}: {price}{shown}")
    return lines


# -- the cog ------------------------------------------------------------------------------


async def _public_view(interaction: discord.Interaction) -> dict[str, Any] | None:
    found = await running_game(interaction, KIND)
    if found is None:
        return None
    try:
        return found[0].view(found[1], None)
    except Exception:
        log.exception("The Liège view failed")
        return None


async def _piece_autocomplete(interaction: discord.Interaction,
                              current: str) -> list[app_commands.Choice[str]]:
    """``/liege buy piece``: every piece with the caller's own price, and why it cannot
    be bought now when it cannot."""
    legal, view = await legal_and_view(interaction, KIND)
    if not legal:
        return []
    entry = player_entry(view, str(interaction.user.id)) if view else None
    return labelled_choices(piece_choices(entry, legal), current)


async def _liege_here(interaction: discord.Interaction) -> tuple[Game[Any], Any] | None:
    """This channel's Battle of Liège and its position; None (the caller told why) when
    there is none under way."""
    record = await require_game(interaction)
    if record is None:
        return None
    if record.kind != KIND or record.state is None:
        await reply_error(interaction, "There is no Battle of Liège under way in this channel.")
        return None
    return engine.get_game(KIND), store_of(interaction.client).load_state(record)


def _commands() -> list[app_commands.Command[Any, ..., Any]]:
    """``/liege shop`` and ``/liege range``: looks, not actions."""

    @app_commands.command(name="shop", description="Your prices, credits and limits left "
                                                   "(only you see it)")
    async def shop(interaction: discord.Interaction) -> None:
        found = await _liege_here(interaction)
        if found is None:
            return
        game, state = found
        me = str(interaction.user.id)
        view = game.view(state, me if me in game.players(state) else None)
        await send_ephemeral(interaction, "\n".join(
            chunk_lines(shop_lines(view, me))[:1]))

    @app_commands.command(name="range", description="Show where a piece can fight (a "
                                                    "Mortar: its fire zone); only you see it")
    @app_commands.describe(square="The piece's square")
    async def range_(interaction: discord.Interaction, square: Square) -> None:
        found = await _liege_here(interaction)
        if found is None:
            return
        game, state = found
        sq = normal_word(square)
        view = game.view(state, None)
        if sq not in occupants(view):
            await reply_error(interaction, f"There is no piece on `{clip(sq, 20)}`.")
            return
        piece_range = getattr(game, "piece_range", None)
        if piece_range is None:
            await reply_error(interaction, "Ranges cannot be shown for this game.")
            return
        try:
            reach = list(piece_range(state, sq))
        except IllegalAction as exc:
            await reply_error(interaction, str(exc))
            return
        view["selected"] = {"square": sq, "range": reach}
        await defer(interaction)
        names = await display_names(interaction, game.players(state))
        png = await boards_of(interaction.client).png(KIND, view, None, names)
        what = occupants(view)[sq]
        text = (f"{what} on {sq} reaches: {', '.join(reach)}." if reach
                else f"{what} on {sq} reaches no square.")
        await send_ephemeral(interaction, clip(text),
                             file=discord.File(io.BytesIO(png), filename=f"{KIND}-range.png"))

    @range_.autocomplete("square")
    async def range_autocomplete(interaction: discord.Interaction,
                                 current: str) -> list[app_commands.Choice[str]]:
        view = await _public_view(interaction)
        if view is None:
            return []
        squares = sorted(occupants(view), key=_square_order)
        return labelled_choices(square_labels(squares, view), current)

    return [shop, range_]


def _square_order(square: str) -> tuple[int, str]:
    digits = "".join(c for c in square if is_number(c))
    return (int(digits) if digits else 0, square)


verbs.register_labels(KIND, "square", lambda values, view, me: square_labels(values, view))
verbs.register_autocomplete(KIND, "buy", "piece", _piece_autocomplete)
verbs.register_commands(KIND, _commands)
