"""``/liege``: friendly forms of the Battle of Liège's actions, the shop and ranges.

Each action command builds the notation of ``docs/games/liege-interface.md`` and goes
through :func:`cogs.common.submit`, exactly like ``/play``. Squares (and pieces)
autocomplete from the caller's legal actions, so they offer nothing to anyone who may
not act now. ``/liege shop`` and ``/liege range`` only look: they answer ephemerally.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs import common
from cogs.boards import boards_of
from cogs.common import reply_error, send_ephemeral, store_of
from cogs.game import legal_for
from engine import IllegalAction
from engine.liege.pieces import BASE_PRICES  # before any Mortar penalty: explains a rise

log = logging.getLogger("warhost.cogs.liege")

KIND = "liege"
Square = app_commands.Range[str, 1, 20]
Word = app_commands.Range[str, 1, 40]

#: Pieces one can buy and place, with their names (the notation's word first).
PIECES: dict[str, str] = {"rifle": "Rifle", "mg": "Machine Gun", "mortar": "Mortar",
                          "av": "Armored Vehicle", "trench": "Trench"}
#: Weapons bought and used at once, and the piece of yours that uses each.
WEAPONS: dict[str, str] = {"grenade": "Grenade", "missile": "Missile", "gas": "Mustard Gas"}
WEAPON_USER = {"grenade": "Rifle", "missile": "Mortar", "gas": "Mortar"}
FACINGS: dict[str, str] = {"n": "north", "e": "east", "s": "south", "w": "west"}
_ALIASES = {
    "machine gun": "mg", "machinegun": "mg", "machine-gun": "mg", "machine_gun": "mg",
    "armored vehicle": "av", "armoured vehicle": "av", "armored_vehicle": "av",
    "vehicle": "av", "tank": "av", "rifleman": "rifle", "rifles": "rifle",
    "mustard gas": "gas", "mustard": "gas", "north": "n", "east": "e", "south": "s",
    "west": "w",
}

DONE, SKIP, END = "done", "skip", "end"
#: Words ``canonical`` recognises at the head of a longer text.
_KNOWN = {*PIECES, *WEAPONS, *_ALIASES, *(n.lower() for n in PIECES.values()),
          *(n.lower() for n in WEAPONS.values())}

#: What the loser of a fight is told (``cogs.common`` shows it after their mention).
CASUALTY_PROMPT = ("you lost the fight: choose a casualty with `/play` or "
                   "`/liege casualty`")
common.register_decision(KIND, "casualty", CASUALTY_PROMPT)
common.register_decision(KIND, "setup", "place your General on one of your highlighted "
                                        "squares with `/liege general` or `/play`")


# -- notation (pure) --------------------------------------------------------------------


def canonical(text: str) -> str:
    """A piece, weapon or facing as the notation spells it (``Machine Gun`` -> ``mg``;
    a choice's label typed out, ``Rifle — 20 credits``, -> ``rifle``)."""
    word = common.normal_word(text)
    if word in _ALIASES:
        return _ALIASES[word]
    head = common.normal_word(re.split(r"[—(:]", word)[0])
    return _ALIASES.get(head, head) if head in _KNOWN else word


def general_notation(square: str) -> str:
    return f"general {common.normal_word(square)}"


def buy_notation(piece: str, square: str) -> str:
    return f"buy {canonical(piece)} {common.normal_word(square)}"


def weapon_notation(weapon: str, src: str, target: str) -> str:
    return f"{canonical(weapon)} {common.normal_word(src)} {common.normal_word(target)}"


def shift_notation(src: str, dst: str) -> str:
    return f"shift {common.normal_word(src)} {common.normal_word(dst)}"


def turn_notation(square: str, facing: str) -> str:
    return f"turn {common.normal_word(square)} {canonical(facing)}"


def attack_notation(src: str, target: str) -> str:
    return f"attack {common.normal_word(src)} {common.normal_word(target)}"


def casualty_notation(square: str) -> str:
    return f"casualty {common.normal_word(square)}"


# -- choices from legal actions (pure) ----------------------------------------------------


def firsts(actions: Iterable[str], verb: str) -> list[str]:
    """The first argument of every legal ``verb`` action (``attack c3 d5`` -> ``c3``)."""
    return common.first_args(actions, verb)


def seconds(actions: Iterable[str], verb: str, first: str | None) -> list[str]:
    """The second argument of legal ``verb`` actions whose first is ``first`` (any first
    when it is empty): the targets of an attack from a square, the squares a piece can
    be bought on, a Mortar's facings."""
    return common.second_args(actions, verb, canonical(first or ""))


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
    needle = common.normal_word(typed)
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
                lines.append(f"{common.mention(str(other.get('id')))}{out}: "
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
    found = await common.running_game(interaction, KIND)
    if found is None:
        return None
    try:
        return found[0].view(found[1], None)
    except Exception:
        log.exception("The Liège view failed")
        return None


@app_commands.guild_only()
class LiegeCog(commands.GroupCog, group_name="liege",
               group_description="Battle of Liège actions, shop and ranges (or use /play)"):
    """``/liege general|buy|grenade|missile|gas|shift|turn|done|skip|attack|casualty|end``
    and ``/liege shop|range``."""

    game_help = ("`/liege general|buy|shift|turn|attack|casualty|end|…` for the Battle of "
                 "Liège, with `/liege shop` (prices, credits, limits) and `/liege range` "
                 "(where a piece reaches).")

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        super().__init__()

    async def _submit(self, interaction: discord.Interaction, action: str) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        if record.kind != KIND:
            await reply_error(interaction, "The game in this channel is not the Battle of "
                                           "Liège; use `/play` for its actions.")
            return
        await common.submit(interaction, store_of(interaction.client), record, action)

    async def _squares(self, interaction: discord.Interaction, squares: list[str],
                       current: str) -> list[app_commands.Choice[str]]:
        view = await _public_view(interaction) if squares else None
        return common.labelled_choices(square_labels(squares, view), current)

    async def _firsts(self, interaction: discord.Interaction, verb: str,
                      current: str) -> list[app_commands.Choice[str]]:
        return await self._squares(interaction, firsts(await legal_for(interaction, KIND), verb),
                                   current)

    async def _seconds(self, interaction: discord.Interaction, verb: str, first: str,
                       current: str) -> list[app_commands.Choice[str]]:
        legal = await legal_for(interaction, KIND)
        return await self._squares(
            interaction, seconds(legal, verb, common.namespace_text(interaction, first)), current)

    # deployment ---------------------------------------------------------------------------

    @app_commands.command(name="general", description="Place your General (first action) or "
                                                      "move it one square")
    @app_commands.describe(square="Where your General goes, e.g. e1")
    async def general(self, interaction: discord.Interaction, square: Square) -> None:
        await self._submit(interaction, general_notation(square))

    @general.autocomplete("square")
    async def general_autocomplete(self, interaction: discord.Interaction,
                                   current: str) -> list[app_commands.Choice[str]]:
        return await self._firsts(interaction, "general", current)

    @app_commands.command(name="buy", description="Buy a piece and place it "
                                                  "(see /liege shop for prices)")
    @app_commands.describe(piece="What to buy (autocomplete shows your prices)",
                           square="Where to place it")
    async def buy(self, interaction: discord.Interaction, piece: Word,
                  square: Square) -> None:
        await self._submit(interaction, buy_notation(piece, square))

    @buy.autocomplete("piece")
    async def buy_piece_autocomplete(self, interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
        legal = await legal_for(interaction, KIND)
        if not legal:
            return []
        found = await common.running_game(interaction, KIND)
        entry = None
        if found is not None:
            try:
                entry = player_entry(found[0].view(found[1], str(interaction.user.id)),
                                     str(interaction.user.id))
            except Exception:
                log.exception("The Liège view failed")
        return common.labelled_choices(piece_choices(entry, legal), current)

    @buy.autocomplete("square")
    async def buy_square_autocomplete(self, interaction: discord.Interaction,
                                      current: str) -> list[app_commands.Choice[str]]:
        return await self._seconds(interaction, "buy", "piece", current)

    @app_commands.command(name="grenade", description="Buy a Grenade and throw it from one "
                                                      "of your Rifles")
    @app_commands.rename(from_="from")
    @app_commands.describe(from_="Your Rifle's square", target="The target square (at most "
                                                                "2 away)")
    async def grenade(self, interaction: discord.Interaction, from_: Square,
                      target: Square) -> None:
        await self._submit(interaction, weapon_notation("grenade", from_, target))

    @app_commands.command(name="missile", description="Buy a Missile and fire it from one "
                                                      "of your Mortars")
    @app_commands.rename(from_="from")
    @app_commands.describe(from_="Your Mortar's square", target="The target square")
    async def missile(self, interaction: discord.Interaction, from_: Square,
                      target: Square) -> None:
        await self._submit(interaction, weapon_notation("missile", from_, target))

    @app_commands.command(name="gas", description="Buy Mustard Gas and fire it from one of "
                                                  "your Mortars")
    @app_commands.rename(from_="from")
    @app_commands.describe(from_="Your Mortar's square", target="The target square")
    async def gas(self, interaction: discord.Interaction, from_: Square,
                  target: Square) -> None:
        await self._submit(interaction, weapon_notation("gas", from_, target))

    @grenade.autocomplete("from_")
    async def grenade_from_autocomplete(self, interaction: discord.Interaction,
                                        current: str) -> list[app_commands.Choice[str]]:
        return await self._firsts(interaction, "grenade", current)

    @grenade.autocomplete("target")
    async def grenade_target_autocomplete(self, interaction: discord.Interaction,
                                          current: str) -> list[app_commands.Choice[str]]:
        return await self._seconds(interaction, "grenade", "from", current)

    @missile.autocomplete("from_")
    async def missile_from_autocomplete(self, interaction: discord.Interaction,
                                        current: str) -> list[app_commands.Choice[str]]:
        return await self._firsts(interaction, "missile", current)

    @missile.autocomplete("target")
    async def missile_target_autocomplete(self, interaction: discord.Interaction,
                                          current: str) -> list[app_commands.Choice[str]]:
        return await self._seconds(interaction, "missile", "from", current)

    @gas.autocomplete("from_")
    async def gas_from_autocomplete(self, interaction: discord.Interaction,
                                    current: str) -> list[app_commands.Choice[str]]:
        return await self._firsts(interaction, "gas", current)

    @gas.autocomplete("target")
    async def gas_target_autocomplete(self, interaction: discord.Interaction,
                                      current: str) -> list[app_commands.Choice[str]]:
        return await self._seconds(interaction, "gas", "from", current)

    # move resources -------------------------------------------------------------------------

    @app_commands.command(name="shift", description="Move resources: step one of your "
                                                    "pieces one square")
    @app_commands.rename(from_="from")
    @app_commands.describe(from_="The piece's square", to="A neighbouring empty square")
    async def shift(self, interaction: discord.Interaction, from_: Square,
                    to: Square) -> None:
        await self._submit(interaction, shift_notation(from_, to))

    @shift.autocomplete("from_")
    async def shift_from_autocomplete(self, interaction: discord.Interaction,
                                      current: str) -> list[app_commands.Choice[str]]:
        return await self._firsts(interaction, "shift", current)

    @shift.autocomplete("to")
    async def shift_to_autocomplete(self, interaction: discord.Interaction,
                                    current: str) -> list[app_commands.Choice[str]]:
        return await self._seconds(interaction, "shift", "from", current)

    @app_commands.command(name="turn", description="Move resources: turn a Machine Gun or "
                                                   "Mortar 90 degrees")
    @app_commands.describe(square="The Machine Gun's or Mortar's square",
                           facing="The way it will face")
    @app_commands.choices(facing=[app_commands.Choice(name=f"{name} ({short})", value=short)
                                  for short, name in FACINGS.items()])
    async def turn(self, interaction: discord.Interaction, square: Square,
                   facing: str) -> None:
        await self._submit(interaction, turn_notation(square, facing))

    @turn.autocomplete("square")
    async def turn_autocomplete(self, interaction: discord.Interaction,
                                current: str) -> list[app_commands.Choice[str]]:
        return await self._firsts(interaction, "turn", current)

    @app_commands.command(name="done", description="Close Move Resources and go to fighting")
    async def done(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, DONE)

    @app_commands.command(name="skip", description="Skip this phase (General step -> "
                                                   "deployment -> fighting)")
    async def skip(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, SKIP)

    # fighting -------------------------------------------------------------------------------

    @app_commands.command(name="attack", description="Attack an enemy piece in range")
    @app_commands.rename(from_="from")
    @app_commands.describe(from_="Your attacking piece's square", target="The enemy's square")
    async def attack(self, interaction: discord.Interaction, from_: Square,
                     target: Square) -> None:
        await self._submit(interaction, attack_notation(from_, target))

    @attack.autocomplete("from_")
    async def attack_from_autocomplete(self, interaction: discord.Interaction,
                                       current: str) -> list[app_commands.Choice[str]]:
        return await self._firsts(interaction, "attack", current)

    @attack.autocomplete("target")
    async def attack_target_autocomplete(self, interaction: discord.Interaction,
                                         current: str) -> list[app_commands.Choice[str]]:
        return await self._seconds(interaction, "attack", "from", current)

    @app_commands.command(name="casualty", description="After losing a fight: the piece of "
                                                       "yours that takes the loss")
    @app_commands.describe(square="One of your pieces that fought")
    async def casualty(self, interaction: discord.Interaction, square: Square) -> None:
        await self._submit(interaction, casualty_notation(square))

    @casualty.autocomplete("square")
    async def casualty_autocomplete(self, interaction: discord.Interaction,
                                    current: str) -> list[app_commands.Choice[str]]:
        return await self._firsts(interaction, "casualty", current)

    @app_commands.command(name="end", description="End your turn (the forward bonus is paid)")
    async def end(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, END)

    # looking --------------------------------------------------------------------------------

    @app_commands.command(name="shop", description="Your prices, credits and limits left "
                                                   "(only you see it)")
    async def shop(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        if record.kind != KIND or record.state is None:
            await reply_error(interaction, "There is no Battle of Liège under way in this "
                                           "channel.")
            return
        game = engine.get_game(KIND)
        state = store_of(interaction.client).load_state(record)
        me = str(interaction.user.id)
        view = game.view(state, me if me in game.players(state) else None)
        await send_ephemeral(interaction, "\n".join(
            common.chunk_lines(shop_lines(view, me))[:1]))

    @app_commands.command(name="range", description="Show where a piece can fight (a "
                                                    "Mortar: its fire zone); only you see it")
    @app_commands.describe(square="The piece's square")
    async def range_(self, interaction: discord.Interaction, square: Square) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        if record.kind != KIND or record.state is None:
            await reply_error(interaction, "There is no Battle of Liège under way in this "
                                           "channel.")
            return
        game = engine.get_game(KIND)
        state = store_of(interaction.client).load_state(record)
        sq = common.normal_word(square)
        view = game.view(state, None)
        if sq not in occupants(view):
            await reply_error(interaction, f"There is no piece on `{common.clip(sq, 20)}`.")
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
        await interaction.response.defer(ephemeral=True, thinking=True)
        names = await common.display_names(interaction, game.players(state))
        png = await boards_of(interaction.client).png(KIND, view, None, names)
        what = occupants(view)[sq]
        text = (f"{what} on {sq} reaches: {', '.join(reach)}." if reach
                else f"{what} on {sq} reaches no square.")
        await send_ephemeral(interaction, common.clip(text),
                             file=discord.File(io.BytesIO(png), filename=f"{KIND}-range.png"))

    @range_.autocomplete("square")
    async def range_autocomplete(self, interaction: discord.Interaction,
                                 current: str) -> list[app_commands.Choice[str]]:
        view = await _public_view(interaction)
        if view is None:
            return []
        squares = sorted(occupants(view), key=_square_order)
        return common.labelled_choices(square_labels(squares, view), current)


def _square_order(square: str) -> tuple[int, str]:
    digits = "".join(c for c in square if c.isdigit())
    return (int(digits) if digits else 0, square)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(LiegeCog(bot))
