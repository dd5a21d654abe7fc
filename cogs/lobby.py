"""A game's lobby: its message (the embed with the seats and options), its buttons
(Join, Leave, Start, + Computer, − Computer), what each does, reading the options a
host types at ``/game new``, and closing lobbies nobody touches (:class:`LobbyExpiry`,
with a notice in their channel saved with the change, see :mod:`db.limits`).

Lobby buttons are :class:`discord.ui.DynamicItem` s whose custom_id carries the game id
(``warhost:lobby:join:<id>``), so they keep working after the bot restarts. Once the game
starts, its lobby message becomes the game's status message (:mod:`cogs.outbox`).

This module is not an extension (``cogs/game.py`` registers its buttons and
``cogs/lobbies.py`` loads :class:`LobbyExpiry`): an extension is executed afresh by
``load_extension``, and these classes must be one.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from typing import Any

import discord
from discord.ext import commands

import engine
from cogs.interactions import GENERIC_ERROR, reply_error, send_ephemeral, store_of
from cogs.limits import DEFAULT_LOBBY_HOURS, Limited
from cogs.moves import computers_move
from cogs.names import remember
from cogs.outbox import deliver
from cogs.weblinks import keep_names
from cogs.wording import NO_MENTIONS, clip, dice_text, mention, options_lines
from cogs.workers import Background
from db import GameRecord, StoreError
from db.clocks import TimeControl
from db.computers import computers, is_computer_seat, table_level, takeover
from db.lobby import seat_limit
from engine import Game, IllegalAction, Option

log = logging.getLogger("warhost.cogs.lobby")


LOBBY_NOTES = {
    "conqueror": "With 3 players the third seat (base f1) is at a slight disadvantage.",
}


LOBBY_ACTIONS = ("join", "leave", "start", "addbot", "dropbot")


LOBBY_TEMPLATE = (r"warhost:lobby:(?P<action>join|leave|start|addbot|dropbot)"
                  r":(?P<id>[0-9]{1,18})")


_LOBBY_RE = re.compile(LOBBY_TEMPLATE)


_BUTTONS = {
    "join": ("Join", discord.ButtonStyle.success),
    "leave": ("Leave", discord.ButtonStyle.secondary),
    "start": ("Start", discord.ButtonStyle.primary),
    "addbot": ("+ Computer", discord.ButtonStyle.secondary),
    "dropbot": ("− Computer", discord.ButtonStyle.secondary),
}


def lobby_custom_id(action: str, game_id: int) -> str:
    if action not in LOBBY_ACTIONS:
        raise ValueError(f"unknown lobby action {action!r}")
    return f"warhost:lobby:{action}:{int(game_id)}"


def parse_lobby_custom_id(custom_id: str) -> tuple[str, int] | None:
    """``("join", 12)`` for ``warhost:lobby:join:12``; None for anything else."""
    match = _LOBBY_RE.fullmatch(custom_id)
    if match is None:
        return None
    return match["action"], int(match["id"])


class LobbyButton(Limited, discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=LOBBY_TEMPLATE):
    """Join, Leave or Start on one game's lobby message."""

    def __init__(self, action: str, game_id: int) -> None:
        label, style = _BUTTONS[action]
        super().__init__(discord.ui.Button(label=label, style=style,
                                           custom_id=lobby_custom_id(action, game_id)))
        self.action = action
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LobbyButton:
        return cls(match["action"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await lobby_action(interaction, self.action, self.game_id, from_button=True)
        except (IllegalAction, StoreError) as exc:
            await reply_error(interaction, str(exc))
        except Exception:
            log.exception("Lobby button %s failed for game %s", self.action, self.game_id)
            await reply_error(interaction, GENERIC_ERROR)


def lobby_view(record: GameRecord) -> discord.ui.View | None:
    if record.status != "lobby":
        return None
    view = discord.ui.View(timeout=None)
    room = len(record.seats) < seat_limit(engine.get_game(record.kind), record)
    for action in LOBBY_ACTIONS:
        if action == "addbot" and not room:
            continue
        if action == "dropbot" and not any(is_computer_seat(s) for s in record.seats):
            continue
        view.add_item(LobbyButton(action, record.id))
    return view


def seat_lines(record: GameRecord) -> list[str]:
    lines = []
    played_by = computers(record.timing)
    for i, seat in enumerate(record.seats, 1):
        host = " (host)" if seat == record.host_id else ""
        level = played_by.get(seat)
        if level and is_computer_seat(seat):
            host += f" · {level}"
        elif level:
            host += f" · 🤖 played by the computer ({level}) until they are back"
        lines.append(f"{i}. {mention(seat)}{host}")
    return lines


def computer_line(record: GameRecord) -> str | None:
    """The lobby's word on computer players: their level and what a time-out does."""
    if "computer_level" not in record.timing:
        return None
    text = f"Computer level: **{table_level(record.timing)}**."
    if takeover(record.timing):
        text += " A player whose clock runs out hands their seat to the computer."
    return text


def lobby_embed(record: GameRecord) -> discord.Embed:
    game = engine.get_game(record.kind)
    status = {
        "lobby": "Press **Join** to take a seat. The host presses **Start** when everyone is in.",
        "active": "The game has started.",
        "finished": "This game is over.",
        "aborted": "This game was aborted.",
    }.get(record.status, record.status)
    description = f"{game.summary}\n\n{status}" if game.summary else status
    embed = discord.Embed(title=f"{game.name} — game #{record.id}", description=description,
                          colour=discord.Colour.dark_gold())
    embed.add_field(name=f"Seats ({len(record.seats)}/{seat_limit(game, record)})",
                    value="\n".join(seat_lines(record)) or "Nobody yet.", inline=False)
    players = record.origin.get("players")
    embed.add_field(name="Players", value=f"exactly {players}" if players else
                    f"{game.min_players}-{game.max_players}")
    embed.add_field(name="Host", value=mention(record.host_id))
    control = TimeControl.from_json(record.timing.get("control"))
    embed.add_field(name="Clock", value=control.describe() if control else "none")
    embed.add_field(name="Rated", value=("no: it starts from a position" if record.origin
                                         else "no: a friendly game")
                    if record.timing.get("rated") is False else "yes (`/leaderboard`)")
    line = computer_line(record)
    if line:
        embed.add_field(name="Computers", value=line, inline=False)
    if record.origin.get("note"):
        embed.add_field(name="Starts from", value=clip(
            f"{record.origin['note']} Not rated: its position was chosen, not dealt.", 1000),
            inline=False)
    embed.add_field(name="Dice", value=dice_text(record.dice, revealed=not record.is_open),
                    inline=False)
    if game.options:
        embed.add_field(name="Options", value=clip(
            "\n".join(options_lines(game, record.options)), 1000), inline=False)
    note = LOBBY_NOTES.get(record.kind)
    if note:
        embed.set_footer(text=note)
    return embed


async def show_lobby(client: discord.Client, record: GameRecord) -> None:
    """Edit a game's lobby message to show ``record`` (no buttons once it is closed);
    ignored if the message is gone or cannot be edited."""
    if not record.lobby_message_id:
        return
    channel = client.get_partial_messageable(int(record.channel_id))
    try:
        await channel.get_partial_message(int(record.lobby_message_id)).edit(
            embed=lobby_embed(record), view=lobby_view(record), allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as exc:
        log.info("Could not edit the lobby message of game %s (%s)", record.id, exc)


async def lobby_action(interaction: discord.Interaction, action: str, game_id: int, *,
                       from_button: bool) -> None:
    """Join, leave or start, from a button or a slash command."""
    store = store_of(interaction.client)
    user = str(interaction.user.id)
    remember(interaction.user, interaction.guild_id)
    # The interaction's id (Discord's, chosen by nobody here) is the player's share of
    # the dice: a join's for each player, the start's for the host.
    if action == "join":
        record = await store.lobby.join(game_id, user, contribution=interaction.id)
    elif action == "leave":
        record = await store.lobby.leave(game_id, user)
    elif action == "start":
        record = await store.lobby.start(game_id, user, contribution=interaction.id)
    elif action == "addbot":
        record = await store.lobby.add_computer(game_id, user)
    elif action == "dropbot":
        record = await store.lobby.remove_computer(game_id, user)
    else:
        raise ValueError(action)

    # Answer the interaction first (Discord allows 3 seconds), then tidy up.
    if from_button:
        await interaction.response.edit_message(embed=lobby_embed(record),
                                                view=lobby_view(record))
    elif action in ("addbot", "dropbot"):
        verb = "added to" if action == "addbot" else "removed from"
        await send_ephemeral(interaction, f"A computer player was {verb} game #{record.id}.")
    elif action != "start":
        verb = "joined" if action == "join" else "left"
        await send_ephemeral(interaction, f"You {verb} game #{record.id}.")
    if action == "start":
        if not from_button:
            await send_ephemeral(interaction, f"Game #{record.id} has started.")
        # The opening digest, and the lobby message becomes the game's status message.
        await deliver(interaction.client, record.id)
        computers_move(interaction.client, record)
        await keep_names(interaction.client, record)     # for the game's web page
        return
    if not from_button:
        await show_lobby(interaction.client, record)
    if action == "join":
        await keep_names(interaction.client, record,
                         {user: interaction.user.display_name})


OPTIONS_HELP = "Write options as `name=value` separated by spaces, e.g. `size=8`."


_TRUE = ("true", "yes", "on", "1")


_FALSE = ("false", "no", "off", "0")


def _option_key(text: str) -> str:
    return text.strip().lower().replace("-", "_")


def _same_value(choice: Any, text: str) -> bool:
    if isinstance(choice, bool):
        return text in (_TRUE if choice else _FALSE)
    return str(choice).lower() == text


def _convert_option(option: Option, text: str) -> Any:
    """``text`` as a value of ``option``: one of its choices, or of its default's type."""
    raw = text.strip()
    wanted = raw.lower()
    if option.choices:
        for choice in option.choices:
            if _same_value(choice, wanted):
                return choice
        allowed = ", ".join(map(str, option.choices))
        raise IllegalAction(f"Option `{option.name}` must be one of: {allowed} (not "
                            f"`{clip(raw, 30)}`).")
    default = option.default
    try:
        if isinstance(default, bool):
            if wanted in _TRUE or wanted in _FALSE:
                return wanted in _TRUE
            raise ValueError(raw)
        if isinstance(default, int | float) and not wanted.isascii():
            raise ValueError(raw)       # `٣` or `１`: int() and float() would take them
        if isinstance(default, int):
            return int(wanted)
        if isinstance(default, float):
            return float(wanted)
    except ValueError:
        kind = "yes or no" if isinstance(default, bool) else "a number"
        raise IllegalAction(f"Option `{option.name}` must be {kind} (not "
                            f"`{clip(raw, 30)}`).") from None
    return raw


def parse_options(game: Game[Any], text: str | None) -> dict[str, Any]:
    """``"size=8 forward_bonus=40"`` -> every option of ``game``, resolved and checked.

    Pairs are separated by spaces or commas; ``name:value`` works too; names ignore case
    and ``-``/``_``. Anything wrong raises :class:`IllegalAction` with a message for the
    host. Empty text gives the defaults.
    """
    chosen: dict[str, Any] = {}
    known = {_option_key(o.name): o for o in game.options}
    squeezed = re.sub(r"\s*([=:])\s*", r"\1", (text or "").strip())
    for token in re.split(r"[\s,;]+", squeezed):
        if not token:
            continue
        name, sep, value = token.partition("=")
        if not sep:
            name, sep, value = token.partition(":")
        if not sep or not name.strip() or not value.strip():
            raise IllegalAction(f"I could not read `{clip(token, 40)}`. {OPTIONS_HELP}"
                                if game.options else f"{game.name} has no options.")
        option = known.get(_option_key(name))
        if option is None:
            names = ", ".join(f"`{o.name}`" for o in game.options)
            listed = f" Its options: {names}." if names else ""
            raise IllegalAction(f"{game.name} has no option called "
                                f"`{clip(name.strip(), 40)}`.{listed}")
        if option.name in chosen:
            raise IllegalAction(f"Option `{option.name}` is given twice.")
        chosen[option.name] = _convert_option(option, value)
    return game.resolve_options(chosen)


def option_suggestions(game: Game[Any], typed: str, limit: int = 25) -> list[tuple[str, str]]:
    """Autocomplete for the options text: ``(label, value)`` pairs.

    What is already typed is kept; the last word is completed with every ``name=value``
    of the options not given yet (those containing that word).
    """
    text = typed or ""
    words = text.split()
    done, partial = (words, "") if not words or text[-1:].isspace() else (words[:-1], words[-1])
    used = {_option_key(w.partition("=")[0]) for w in done}
    prefix = " ".join(done)
    needle = partial.lower()
    found: list[tuple[str, str]] = []
    for option in game.options:
        if _option_key(option.name) in used:
            continue
        values = option.choices or (option.default,)
        for value in values:
            pair = f"{option.name}={value}"
            if needle and needle not in pair.lower():
                continue
            full = f"{prefix} {pair}" if prefix else pair
            default = " (default)" if value == option.default else ""
            label = f"{full} — {option.description}{default}"
            found.append((clip(label, 100), full))
            if len(found) >= limit:
                return found
    return found


def options_reference(game: Game[Any]) -> list[str]:
    """The options a host may choose, for /game rules."""
    lines = []
    for option in game.options:
        values = "|".join(map(str, option.choices)) if option.choices else "…"
        lines.append(f"`{option.name}={values}` (default {option.default}) — "
                     f"{option.description}")
    return lines


def reorder_seats(seats: Sequence[str], player: str, position: int) -> list[str]:
    """``seats`` with ``player`` moved to ``position`` (1-based); refuses what can't be done."""
    if player not in seats:
        raise StoreError("That player has no seat in this lobby.")
    if not 1 <= position <= len(seats):
        raise StoreError(f"Choose a seat from 1 to {len(seats)}.")
    order = [p for p in seats if p != player]
    order.insert(position - 1, player)
    return order


# -- lobbies that expire --------------------------------------------------------------

#: Seconds between looks for lobbies to close (and old vacations to delete).
EXPIRY_EVERY = 600.0


#: The lease whose holder closes idle lobbies when several processes share the database.
LOBBY_LEASE = "lobbies"


class LobbyExpiry(commands.Cog):
    """Closes lobbies nobody touches (no commands of its own)."""

    def __init__(self, bot: commands.Bot, *, every: float = EXPIRY_EVERY) -> None:
        self.bot = bot
        self.every = every
        self._loop = Background("warhost-lobby-expiry", self._run)

    @property
    def lobby_hours(self) -> float:
        return float(getattr(getattr(self.bot, "config", None), "lobby_expiry_hours",
                             DEFAULT_LOBBY_HOURS))

    async def cog_load(self) -> None:
        self._loop.start()

    async def cog_unload(self) -> None:
        await self._loop.stop()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Closing idle lobbies failed; will try again")

    async def run_once(self) -> list[GameRecord]:
        """Close the lobbies idle too long (telling their channels), delete vacations too
        old to count; the lobbies closed."""
        store = store_of(self.bot)
        holder = getattr(self.bot, "holder", None)
        # with other bot processes on the database, one of them does this (its lease)
        if holder is not None and not await store.leases.take(LOBBY_LEASE, str(holder),
                                                              self.every * 3):
            return []
        closed = await store.limits.expire_lobbies(self.lobby_hours * 3600)
        for record in closed:
            await deliver(self.bot, record.id)
            await show_lobby(self.bot, record)      # its buttons go
        await store.privacy.forget_old_vacations()
        return closed

