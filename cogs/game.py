"""``/game`` (lobbies and game management), ``/play`` (any action, any game) and ``/help``.

Lobby buttons are :class:`discord.ui.DynamicItem` s whose custom_id carries the game id
(``warhost:lobby:join:<id>``), so they keep working after the bot restarts.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs import common, limits
from cogs.announcements import away_lines, clock_lines, digest_events, turn_lines
from cogs.boards import board_key
from cogs.common import reply_error, send_ephemeral, send_public, store_of
from cogs.computers import HINT_LEVEL, ComputerPlayers, computers_of
from db import GameRecord, LogEntry, StoreError
from db.clocks import DEFAULT_MAX_TIMEOUTS, ClockError, TimeControl
from db.computers import computers, is_computer_seat, table_level, takeover
from db.replay import Undoable, undone_by
from db.store import MAX_UNDO
from engine import Game, IllegalAction, Option
from engine.search import LEVELS

log = logging.getLogger("warhost.cogs.game")

DOCS = Path(__file__).resolve().parent.parent / "docs" / "games"
LOBBY_NOTES = {
    "conqueror": "With 3 players the third seat (base f1) is at a slight disadvantage.",
}
KIND_CHOICES = [app_commands.Choice(name=g.name[:100], value=k)
                for k, g in list(engine.GAMES.items())[:25]]
#: Time controls offered by autocomplete (any other is typed in the same form).
CLOCK_PRESETS = [
    ("none — no clock", "none"),
    ("24h per move", "24h"),
    ("48h per move", "48h"),
    ("3d bank + 1d per move", "3d+1d"),
    ("7d bank + 1d per move", "7d+1d"),
    ("1h per move (a fast game)", "1h"),
]


# -- lobby buttons ---------------------------------------------------------------------

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
LEVEL_CHOICES = [app_commands.Choice(name=f"{level.name} — {level.description}"[:100],
                                     value=level.name) for level in LEVELS.values()]


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


class LobbyButton(limits.Limited, discord.ui.DynamicItem[discord.ui.Button[Any]],
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
            await reply_error(interaction, common.GENERIC_ERROR)


#: The slot (first, older, newer, latest) keeps the four buttons' ids distinct when two
#: of them lead to the same page, as Discord requires.
LOG_TEMPLATE = r"warhost:log:(?P<id>[0-9]{1,18}):(?P<page>[0-9]{1,6}):(?P<slot>[fonl])"
UNDO_TEMPLATE = r"warhost:undo:(?P<id>[0-9]{1,18}):(?P<version>[0-9]{1,9}):(?P<count>[0-9]{1,3})"
#: Moves per page of /game log.
LOG_PAGE_SIZE = 12


class LogPageButton(limits.Limited, discord.ui.DynamicItem[discord.ui.Button[Any]],
                    template=LOG_TEMPLATE):
    """Turns a page of /game log (the message is edited in place)."""

    def __init__(self, game_id: int, page: int, slot: str = "l", label: str = "·",
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                           custom_id=f"warhost:log:{game_id}:{page}:{slot}",
                                           disabled=disabled))
        self.game_id = game_id
        self.page = page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LogPageButton:
        return cls(int(match["id"]), int(match["page"]), match["slot"])

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            record = await store_of(interaction.client).get(self.game_id)
            content, view = await log_message(interaction.client, record, self.page)
            await interaction.response.edit_message(content=content, view=view)
        except (IllegalAction, StoreError) as exc:
            await reply_error(interaction, str(exc))
        except Exception:
            log.exception("Log page %s of game %s failed", self.page, self.game_id)
            await reply_error(interaction, common.GENERIC_ERROR)


class UndoButton(limits.Limited, discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=UNDO_TEMPLATE):
    """Confirms an undo previewed by /game undo; refused if the game moved since."""

    def __init__(self, game_id: int, version: int, count: int) -> None:
        plural = "s" if count != 1 else ""
        super().__init__(discord.ui.Button(
            label=f"Undo {count} action{plural}", style=discord.ButtonStyle.danger,
            custom_id=f"warhost:undo:{game_id}:{version}:{count}"))
        self.game_id = game_id
        self.version = version
        self.count = count

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> UndoButton:
        return cls(int(match["id"]), int(match["version"]), int(match["count"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await common.submit(interaction, store_of(interaction.client), self.game_id,
                                f"undo {self.count}", expect_version=self.version)
        except Exception:
            log.exception("Undo of game %s failed", self.game_id)
            await reply_error(interaction, common.GENERIC_ERROR)


DYNAMIC_ITEMS = (LobbyButton, LogPageButton, UndoButton)


async def log_message(client: discord.Client, record: GameRecord,
                      page: int | None) -> tuple[str, discord.ui.View | None]:
    """A page of a game's whole log (the latest when ``page`` is None), with buttons to
    turn the pages. Public narration only: nothing private is ever in it."""
    store = store_of(client)
    game = engine.get_game(record.kind)
    entries, pages = await store.log_page(record.id, page or 10**9, LOG_PAGE_SIZE)
    if not entries:
        return f"{game.name} #{record.id} has no moves yet.", None
    page = min(max(1, page or pages), pages)
    lines = [f"**{game.name} #{record.id}** · moves {entries[0].seq}–{entries[-1].seq} · "
             f"page {page} of {pages}"]
    for entry in entries:
        lines.extend(log_entry_lines(game, record, entry))
    if pages == 1:
        return "\n".join(common.chunk_lines(lines)[:1]), None
    view = discord.ui.View(timeout=None)
    view.add_item(LogPageButton(record.id, 1, "f", "⏮ First", disabled=page == 1))
    view.add_item(LogPageButton(record.id, max(1, page - 1), "o", "◀ Older",
                                disabled=page == 1))
    view.add_item(LogPageButton(record.id, min(pages, page + 1), "n", "Newer ▶",
                                disabled=page == pages))
    view.add_item(LogPageButton(record.id, pages, "l", "Latest ⏭", disabled=page == pages))
    return "\n".join(common.chunk_lines(lines)[:1]), view


def log_entry_lines(game: Game[Any], record: GameRecord, entry: LogEntry) -> list[str]:
    """One logged move for /game log: its number and its public narration (a few lines)."""
    undone = undone_by(entry)
    if undone:
        body = [f"↩️ {common.mention(entry.player)} took back move"
                f"{'s' if len(undone) > 1 else ''} "
                + (f"{undone[0]}–{undone[-1]}" if len(undone) > 1 else str(undone[0]))]
    else:
        body = turn_lines(game, record.seats, [entry])
    shown = [common.clip(line, 300) for line in body[:4]] or ["—"]
    if len(body) > 4:
        shown.append(f"… and {len(body) - 4} more lines")
    return [f"`#{entry.seq}` {shown[0]}", *(f"\u2003{line}" for line in shown[1:])]


def undo_preview_message(record: GameRecord, allowed: Undoable,
                         count: int) -> tuple[str, discord.ui.View | None]:
    """What /game undo would take back, and the button that does it."""
    if not allowed.seqs:
        why = f" ({allowed.stop})" if allowed.stop else ""
        return f"You have nothing to undo{why}.", None
    if count > len(allowed.seqs):
        why = f": further back, {allowed.stop}" if allowed.stop else ""
        return (f"You can undo at most {len(allowed.seqs)} "
                f"action{'s' if len(allowed.seqs) != 1 else ''}{why}."), None
    taken = list(zip(allowed.seqs[:count], allowed.actions[:count], strict=True))
    lines = [f"Undo in game #{record.id} would take back:"]
    for seq, action in reversed(taken):
        shown = common.clip(" ".join(action.replace("`", "'").split()), 80)
        lines.append(f"• `#{seq}` `{shown}`")
    if allowed.stop and count == len(allowed.seqs):
        lines.append(f"-# Nothing before that can be undone: {allowed.stop}.")
    lines.append("Press the button to confirm (the log keeps both the actions and the undo).")
    view = discord.ui.View(timeout=600)
    view.add_item(UndoButton(record.id, record.version, count))
    return "\n".join(lines), view


def lobby_view(record: GameRecord) -> discord.ui.View | None:
    if record.status != "lobby":
        return None
    view = discord.ui.View(timeout=None)
    room = len(record.seats) < engine.get_game(record.kind).max_players
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
        lines.append(f"{i}. {common.mention(seat)}{host}")
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
    embed.add_field(name=f"Seats ({len(record.seats)}/{game.max_players})",
                    value="\n".join(seat_lines(record)) or "Nobody yet.", inline=False)
    embed.add_field(name="Players", value=f"{game.min_players}-{game.max_players}")
    embed.add_field(name="Host", value=common.mention(record.host_id))
    control = TimeControl.from_json(record.timing.get("control"))
    embed.add_field(name="Clock", value=control.describe() if control else "none")
    line = computer_line(record)
    if line:
        embed.add_field(name="Computers", value=line, inline=False)
    if game.options:
        embed.add_field(name="Options", value=common.clip(
            "\n".join(options_lines(game, record.options)), 1000), inline=False)
    note = LOBBY_NOTES.get(record.kind)
    if note:
        embed.set_footer(text=note)
    return embed


async def refresh_lobby_message(interaction: discord.Interaction, record: GameRecord) -> None:
    """Edit the game's lobby message to show ``record`` (ignored if it is gone)."""
    if not record.lobby_message_id:
        return
    channel = interaction.client.get_partial_messageable(int(record.channel_id))
    message = channel.get_partial_message(int(record.lobby_message_id))
    try:
        await message.edit(embed=lobby_embed(record), view=lobby_view(record),
                           allowed_mentions=common.NO_MENTIONS)
    except discord.HTTPException:
        log.info("Could not edit the lobby message of game %s", record.id)


async def lobby_action(interaction: discord.Interaction, action: str, game_id: int, *,
                       from_button: bool) -> None:
    """Join, leave or start, from a button or a slash command."""
    store = store_of(interaction.client)
    user = str(interaction.user.id)
    common.remember(interaction.user, interaction.guild_id)
    if action == "join":
        record = await store.join(game_id, user)
    elif action == "leave":
        record = await store.leave(game_id, user)
    elif action == "start":
        record = await store.start(game_id, user)
    elif action == "addbot":
        record = await store.add_computer(game_id, user)
    elif action == "dropbot":
        record = await store.remove_computer(game_id, user)
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
        await common.deliver(interaction.client, record.id)
        common.computers_move(interaction.client, record)
        return
    if not from_button:
        await refresh_lobby_message(interaction, record)


# -- game options (pure) ----------------------------------------------------------------------

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
                            f"`{common.clip(raw, 30)}`).")
    default = option.default
    try:
        if isinstance(default, bool):
            if wanted in _TRUE or wanted in _FALSE:
                return wanted in _TRUE
            raise ValueError(raw)
        if isinstance(default, int):
            return int(wanted)
        if isinstance(default, float):
            return float(wanted)
    except ValueError:
        kind = "yes or no" if isinstance(default, bool) else "a number"
        raise IllegalAction(f"Option `{option.name}` must be {kind} (not "
                            f"`{common.clip(raw, 30)}`).") from None
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
            raise IllegalAction(f"I could not read `{common.clip(token, 40)}`. {OPTIONS_HELP}"
                                if game.options else f"{game.name} has no options.")
        option = known.get(_option_key(name))
        if option is None:
            names = ", ".join(f"`{o.name}`" for o in game.options)
            listed = f" Its options: {names}." if names else ""
            raise IllegalAction(f"{game.name} has no option called "
                                f"`{common.clip(name.strip(), 40)}`.{listed}")
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
            found.append((common.clip(label, 100), full))
            if len(found) >= limit:
                return found
    return found


options_lines = common.options_lines


def options_reference(game: Game[Any]) -> list[str]:
    """The options a host may choose, for /game rules."""
    lines = []
    for option in game.options:
        values = "|".join(map(str, option.choices)) if option.choices else "…"
        lines.append(f"`{option.name}={values}` (default {option.default}) — "
                     f"{option.description}")
    return lines


# -- pure helpers for the commands --------------------------------------------------------


def reorder_seats(seats: Sequence[str], player: str, position: int) -> list[str]:
    """``seats`` with ``player`` moved to ``position`` (1-based); refuses what can't be done."""
    if player not in seats:
        raise StoreError("That player has no seat in this lobby.")
    if not 1 <= position <= len(seats):
        raise StoreError(f"Choose a seat from 1 to {len(seats)}.")
    order = [p for p in seats if p != player]
    order.insert(position - 1, player)
    return order


#: The section of a game's rules document that ``/game rules`` shows players.
QUICK_RULES = "quick rules"
#: Discord's limits for one message's embeds (with some room to spare).
FIELD_LIMIT, EMBED_TOTAL = 1024, 5800


def quick_rules(text: str) -> list[tuple[str, str]]:
    """The ``## Quick rules`` section of a rules document as (heading, body) pairs, one
    per ``###`` subsection, in order ([] if the document has no such section)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines)
                  if re.fullmatch(r"##\s+quick rules\s*", line.strip(), re.I)), None)
    if start is None:
        return []
    parts: list[tuple[str, list[str]]] = []
    for line in lines[start + 1:]:
        if re.match(r"#{1,2}\s", line):
            break
        heading = re.match(r"###\s+(.*)", line)
        if heading:
            parts.append((heading[1].strip(), []))
        elif parts:
            parts[-1][1].append(line)
    return [(head, "\n".join(body).strip()) for head, body in parts if head]


def rules_embed(game: Game[Any], text: str) -> discord.Embed:
    """``/game rules``: the game's quick rules as one embed, a field per section, with
    the options a host may choose. Written for players: no paths, no tables."""
    players = f"{game.min_players}-{game.max_players} players"
    embed = discord.Embed(title=f"{game.name} — quick rules",
                          description=common.clip(f"{game.summary}\n*{players}*"
                                                  if game.summary else f"*{players}*", 1000),
                          colour=discord.Colour.dark_gold())
    sections = quick_rules(text) or [("The game", game.summary or "No rules summary yet.")]
    options = options_reference(game)
    if options:
        sections.append(("Options (chosen with `/game new`)", "\n".join(options)))
    used = len(embed.title or "") + len(embed.description or "")
    for heading, body in sections[:24]:
        value = common.clip(body or "—", FIELD_LIMIT)
        name = common.clip(heading, 256)
        if used + len(name) + len(value) > EMBED_TOTAL:
            break
        embed.add_field(name=name, value=value, inline=False)
        used += len(name) + len(value)
    embed.set_footer(text="/help lists every command · /game status and /game board show the "
                          "game in this channel")
    return embed


def player_stat_lines(view: dict[str, Any]) -> list[str]:
    """One line per seat from a view's ``players`` list (whatever stats the game shows)."""
    players = view.get("players")
    if not isinstance(players, list):
        return []
    lines = []
    for i, entry in enumerate(players, 1):
        if not isinstance(entry, dict) or "id" not in entry:
            continue
        stats = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in entry.items()
                          if k not in ("id", "seat") and isinstance(v, int | str | bool)
                          and not isinstance(v, bool))
        out = " (out)" if entry.get("out") else ""
        lines.append(f"{entry.get('seat', i)}. {common.mention(str(entry['id']))}{out}"
                     + (f" — {stats}" if stats else ""))
    return lines


HELP_TEXT = """\
**Warhost** hosts board games of war and conquest in this channel (one game per channel \
or thread).

**Start a game**
`/game new kind:` opens a lobby with Join / Leave / Start buttons; `options:` sets the \
game's options (e.g. `size=8`; autocomplete lists them).
`/game join`, `/game leave`, `/game start` (host) do the same by command. \
`clock:` gives each player a time per move (`24h`) or a bank plus an increment (`3d+1d`).

**Play**
`/play action:` any action by its notation; autocomplete lists what you may do now.
{game_lines}
`/hand` shows your own cards in a game with hidden hands (only you see them).
`/game undo` takes back your last actions this turn (not past dice or cards).
`/game resign` leaves a running game.

**Weeks-long games**
`/mygames` (anywhere) lists what is waiting for you · `/vacation start|end|status` stops \
your clocks · `/reminders me` sets your reminders and quiet hours · `/game follow` sends a \
game's turns to you by direct message.

**Look**
`/game status` · `/game board` · `/game log` (every move, page by page) · `/game list` · \
`/game rules kind:`

`/game abort` ends the game for everyone (host, or members with Manage Channels)."""


def help_text(cogs: Iterable[object]) -> str:
    """The /help text, with the lines cogs offer in their ``game_help`` (a line or a list:
    one per game)."""
    lines: list[str] = []
    for cog in cogs:
        offered = getattr(cog, "game_help", None)
        if isinstance(offered, str):
            lines.append(offered)
        elif isinstance(offered, list | tuple):
            lines.extend(str(line) for line in offered)
    lines.sort()
    return HELP_TEXT.format(game_lines="\n".join(lines))


async def send_look(interaction: discord.Interaction, content: str, *, share: bool) -> None:
    """Answer a look at the game: to the caller alone, or to the channel when shared."""
    if share:
        await common.send_public(interaction, content)
    else:
        await send_ephemeral(interaction, content)


# -- the cog ------------------------------------------------------------------------------


#: Players whose hint is being searched (one at a time each: a search is seconds of CPU).
_HINTING: set[str] = set()


class GameCog(commands.Cog):
    """Lobbies, status and the generic ``/play``."""

    game = app_commands.Group(name="game", description="Open, join and manage games",
                              guild_only=True)

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    # lobby ------------------------------------------------------------------------------

    @game.command(name="new", description="Open a game lobby in this channel")
    @app_commands.describe(kind="Which game",
                           options="The game's options as name=value, e.g. size=8 "
                                   "(autocomplete lists them)",
                           clock="Time per move (24h), or a bank plus an increment per move "
                                 "(3d+1d); none by default",
                           timeouts="With a clock: time-outs before a player is removed "
                                    "(0: never; default 3)",
                           bots="Computer players to seat after you (the lobby's "
                                "+ Computer button adds more)",
                           level="How strong the computer players are (default medium)",
                           takeover="With a clock: a player whose time runs out hands "
                                    "their seat to the computer until they are back")
    @app_commands.choices(kind=KIND_CHOICES, level=LEVEL_CHOICES)
    async def new(self, interaction: discord.Interaction, kind: str,
                  options: app_commands.Range[str, 1, 200] | None = None,
                  clock: app_commands.Range[str, 1, 30] | None = None,
                  timeouts: app_commands.Range[int, 0, 20] = DEFAULT_MAX_TIMEOUTS,
                  bots: app_commands.Range[int, 0, 7] = 0,
                  level: str | None = None, takeover: bool = False) -> None:
        store = store_of(interaction.client)
        common.remember(interaction.user, interaction.guild_id)
        refused = await limits.refuse_new_game(interaction)  # permissions, the server's cap
        if refused is not None:
            await reply_error(interaction, refused)
            return
        game = engine.get_game(kind)  # refuses unknown kinds with a clear message
        chosen = parse_options(game, options)  # refuses bad options, clearly
        try:
            control = TimeControl.parse(clock, timeouts)
        except ClockError as exc:
            raise IllegalAction(str(exc)) from None
        if takeover and control is None:
            raise IllegalAction("`takeover` hands a seat to the computer when its clock runs "
                                "out, so it needs a `clock` (e.g. `clock:24h`).")
        record = await store.create_lobby(
            kind, str(interaction.guild_id) if interaction.guild_id else None,
            str(interaction.channel_id), str(interaction.user.id), chosen, control,
            computers=bots, level=level, takeover=takeover)
        refused = await limits.undo_if_crowded(interaction, record)  # lost a race for the cap
        if refused is not None:
            await reply_error(interaction, refused)
            return
        view = lobby_view(record) or discord.ui.View()
        await interaction.response.send_message(embed=lobby_embed(record), view=view,
                                                allowed_mentions=common.NO_MENTIONS)
        message = await interaction.original_response()
        await store.set_lobby_message(record.id, str(message.id))

    @new.autocomplete("options")
    async def new_options_autocomplete(self, interaction: discord.Interaction,
                                       current: str) -> list[app_commands.Choice[str]]:
        try:
            kind = getattr(interaction.namespace, "kind", None)
            game = engine.GAMES.get(kind) if isinstance(kind, str) else None
            if game is None:
                return []
            return [app_commands.Choice(name=label, value=value[:100])
                    for label, value in option_suggestions(game, current)]
        except Exception:
            log.exception("Options autocomplete failed")
            return []

    @new.autocomplete("clock")
    async def new_clock_autocomplete(self, interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
        return common.labelled_choices(CLOCK_PRESETS, current) or common.as_choices(
            [current] if current else [])

    @game.command(name="join", description="Take a seat in this channel's lobby")
    async def join(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is not None:
            await lobby_action(interaction, "join", record.id, from_button=False)

    @game.command(name="leave", description="Give up your seat in this channel's lobby")
    async def leave(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is not None:
            await lobby_action(interaction, "leave", record.id, from_button=False)

    @game.command(name="start", description="Start this channel's game (host only)")
    async def start(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is not None:
            await lobby_action(interaction, "start", record.id, from_button=False)

    @game.command(name="seat", description="Move a player to another seat (host, in the lobby)")
    @app_commands.describe(player="Who to move", position="The seat to give them (1 moves first)")
    async def seat(self, interaction: discord.Interaction, player: discord.User,
                   position: app_commands.Range[int, 1, 8]) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        if str(interaction.user.id) != record.host_id:
            await common.reply_error(interaction, "Only the host can reorder the seats.")
            return
        seats = reorder_seats(record.seats, str(player.id), position)
        record = await store_of(interaction.client).set_seats(record.id, seats)
        await send_ephemeral(interaction, "Seats: " + ", ".join(
            f"{i}. {common.mention(p)}" for i, p in enumerate(record.seats, 1)))
        await refresh_lobby_message(interaction, record)

    # looking ----------------------------------------------------------------------------

    @game.command(name="hint", description="The move the computer would make in your place "
                                           "(only you see it)")
    async def hint(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        player = str(interaction.user.id)
        if record.status != "active" or record.state is None:
            await reply_error(interaction, f"Game #{record.id} has not started yet.")
            return
        if player not in record.seats:
            await reply_error(interaction, f"You are not playing in game #{record.id}.")
            return
        store = store_of(interaction.client)
        game = engine.get_game(record.kind)
        state = store.load_state(record)
        if player not in game.to_act(state):
            await reply_error(interaction, "Nothing is waiting for you now; ask for a hint "
                                           "when it is your move.")
            return
        if player in _HINTING:
            await reply_error(interaction, "Your last hint is still being worked out.")
            return
        # a client without its own computer players (tests' fakes) searches in a thread
        brain = computers_of(interaction.client) or ComputerPlayers(
            interaction.client, store, workers=0)
        await interaction.response.defer(ephemeral=True, thinking=True)
        _HINTING.add(player)
        try:
            choice = await brain.hint(record, player)
        finally:
            _HINTING.discard(player)
        text = (f"🤖 In your place the computer would play **`{choice.action}`**.\n"
                f"{choice.explain()}\n-# Searched from what you can see, at the "
                f"{HINT_LEVEL} level; the game is unchanged until you move.")
        await interaction.followup.send(common.clip(text, 1900), ephemeral=True)

    @game.command(name="back", description="Take your seat back from the computer that "
                                           "played it while your time was out")
    async def back(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        record = await store_of(interaction.client).reclaim_seat(record.id,
                                                                 str(interaction.user.id))
        await send_ephemeral(interaction, f"Welcome back: your seat in game #{record.id} is "
                                          "yours again. `/game status` shows where it stands.")

    @game.command(name="status", description="Whose turn it is, the seats and the round "
                                             "(only you see it unless you share it)")
    @app_commands.describe(share="Show it to the whole channel (default: only you)")
    async def status(self, interaction: discord.Interaction, share: bool = False) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        store = store_of(interaction.client)
        game = engine.get_game(record.kind)
        lines = [f"**{game.name}** — game #{record.id} · {record.status}"]
        if game.options:
            lines.append("Options: " + ", ".join(
                f"`{o.name}={record.options.get(o.name, o.default)}`" for o in game.options))
        if record.status == "lobby" or record.state is None:
            lines.append(f"Seats ({len(record.seats)}/{game.max_players}, needs at least "
                         f"{game.min_players}):")
            lines.extend(seat_lines(record) or ["Nobody yet."])
            lines.append("The host starts it with `/game start`.")
            await send_look(interaction, "\n".join(lines), share=share)
            return
        state = store.load_state(record)
        me = str(interaction.user.id)
        public = game.view(state, None)      # the stats anyone may see, shared or not
        if isinstance(public.get("round"), int):
            lines[0] += f" · round {public['round']}"
        lines.extend(player_stat_lines(public) or seat_lines(record))
        ended = common.result_lines(game, state)
        if ended:
            lines.extend(ended)
        else:
            turn = game.current_turn(state)
            to_act = game.to_act(state)
            lines.append(f"Turn: {common.mention(turn) if turn else '—'} · must act: "
                         + (", ".join(common.mention(p) for p in to_act) or "nobody"))
            facts = await store.clock_facts(record)
            lines.extend(clock_lines(record.seats, facts))
            lines.extend(away_lines(facts))
            if facts.get("clock"):
                lines.append(f"Clock: {facts['clock']}")
            if me in to_act and not share:
                legal = game.legal_actions(state, me)
                shown = ", ".join(f"`{a}`" for a in legal[:15])
                more = f" and {len(legal) - 15} more" if len(legal) > 15 else ""
                lines.append(f"You may: {shown}{more}" if legal else "You have no actions.")
        await send_look(interaction, common.clip("\n".join(lines)), share=share)

    @game.command(name="board", description="This channel's board, marking the last turn "
                                            "(only you see it unless you share it)")
    @app_commands.describe(share="Post it for the whole channel (default: only you)")
    async def board(self, interaction: discord.Interaction, share: bool = False) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        if record.state is None:
            await reply_error(interaction, "The game has not started yet: there is no board.")
            return
        await interaction.response.defer(ephemeral=not share, thinking=True)
        store = store_of(interaction.client)
        game = engine.get_game(record.kind)
        state = store.load_state(record)
        first = await store.last_turn_start(record.id)
        entries = await store.actions_between(record.id, first, record.version)
        names = await common.display_names(interaction, game.players(state))
        file = await common.board_file(interaction.client, game, state, names,
                                       digest_events(entries),
                                       key=board_key(record.id, first, record.version, names))
        text, _ = common.next_up_line(game, state)
        await interaction.followup.send(common.clip(text), file=file, ephemeral=not share,
                                        allowed_mentions=common.NO_MENTIONS)

    @game.command(name="log", description="Every move of this channel's game, page by "
                                          "page (only you see it)")
    @app_commands.describe(page="Which page (default: the latest)",
                           game="A game's number, e.g. an earlier game here (default: this "
                                "channel's latest)")
    async def log_(self, interaction: discord.Interaction,
                   page: app_commands.Range[int, 1, 100000] | None = None,
                   game: app_commands.Range[int, 1, 2**53] | None = None) -> None:
        store = store_of(interaction.client)
        if game is not None:
            record = await store.get(game)
            if record.guild_id != (str(interaction.guild_id) if interaction.guild_id else None):
                await reply_error(interaction, f"There is no game #{game} in this server.")
                return
        else:
            found = await store.latest_in_channel(str(interaction.channel_id))
            if found is None:
                await reply_error(interaction, common.NO_GAME)
                return
            record = found
        content, view = await log_message(interaction.client, record, page)
        await send_ephemeral(interaction, content, **({"view": view} if view else {}))

    @game.command(name="undo", description="Take back your last actions this turn (with a "
                                           "preview first)")
    @app_commands.describe(count="How many of your last actions (default 1)")
    async def undo(self, interaction: discord.Interaction,
                   count: app_commands.Range[int, 1, MAX_UNDO] = 1) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        me = str(interaction.user.id)
        allowed = await store_of(interaction.client).undo_preview(record.id, me)
        content, view = undo_preview_message(record, allowed, count)
        await send_ephemeral(interaction, content, **({"view": view} if view else {}))

    @game.command(name="follow", description="Get this channel's game turn by turn by direct "
                                             "message (for spectators too)")
    async def follow(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        await store_of(interaction.client).follow(record.id, str(interaction.user.id))
        await send_ephemeral(interaction, f"👀 You will get game #{record.id}'s turns by direct "
                                          "message (the public board and summary only). "
                                          "`/game unfollow` stops them.")

    @game.command(name="unfollow", description="Stop getting this channel's game by direct "
                                               "message")
    async def unfollow(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        await store_of(interaction.client).follow(record.id, str(interaction.user.id), on=False)
        await send_ephemeral(interaction, f"You will no longer get game #{record.id}'s turns by "
                                          "direct message.")

    @game.command(name="list", description="Games running in this server")
    async def list_(self, interaction: discord.Interaction) -> None:
        if interaction.guild_id is None:
            await reply_error(interaction, "That command only works in a server.")
            return
        records = await store_of(interaction.client).list_active(str(interaction.guild_id))
        if not records:
            await send_ephemeral(interaction, "No games here yet. Open one with `/game new`.")
            return
        lines = []
        for r in records:
            name = engine.GAMES[r.kind].name if r.kind in engine.GAMES else r.kind
            lines.append(f"#{r.id} **{name}** in <#{r.channel_id}> · {r.status} · "
                         f"{len(r.seats)} players")
        await send_ephemeral(interaction, "\n".join(common.chunk_lines(lines)[:1]))

    @game.command(name="rules", description="A summary of a game's rules")
    @app_commands.describe(kind="Which game")
    @app_commands.choices(kind=KIND_CHOICES)
    async def rules(self, interaction: discord.Interaction, kind: str) -> None:
        game = engine.get_game(kind)
        path = DOCS / f"{game.kind}.md"
        try:
            text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        except OSError:
            text = ""
        await send_ephemeral(interaction, "", embed=rules_embed(game, text))

    # leaving ----------------------------------------------------------------------------

    @game.command(name="resign", description="Resign from this channel's game")
    async def resign(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is not None:
            await common.submit(interaction, store_of(interaction.client), record, engine.RESIGN)

    @game.command(name="abort", description="End this channel's game for everyone "
                                            "(host or Manage Channels)")
    async def abort(self, interaction: discord.Interaction) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        allowed = (record.host_id == str(interaction.user.id)
                   or interaction.permissions.manage_channels)
        if not allowed:
            await reply_error(interaction, "Only the host or someone with Manage Channels can "
                                           "abort this game.")
            return
        record = await store_of(interaction.client).abort(record.id)
        await refresh_lobby_message(interaction, record)
        await send_public(interaction, f"Game #{record.id} was aborted by "
                                       f"{common.mention(str(interaction.user.id))}.")

    # any action -------------------------------------------------------------------------

    @app_commands.command(name="play", description="Make a move in this channel's game")
    @app_commands.describe(action="The action's notation, e.g. `end`; autocomplete lists yours")
    @app_commands.guild_only()
    async def play(self, interaction: discord.Interaction,
                   action: app_commands.Range[str, 1, 200]) -> None:
        record = await common.require_game(interaction)
        if record is not None:
            await common.submit(interaction, store_of(interaction.client), record, action)

    @play.autocomplete("action")
    async def play_autocomplete(self, interaction: discord.Interaction,
                                current: str) -> list[app_commands.Choice[str]]:
        legal = await legal_for(interaction)
        return common.as_choices(common.filter_choices(legal, current))

    @app_commands.command(name="help", description="How to play with Warhost")
    async def help_(self, interaction: discord.Interaction) -> None:
        await send_ephemeral(interaction, help_text(self.bot.cogs.values()))


async def legal_for(interaction: discord.Interaction, kind: str | None = None) -> list[str]:
    """The caller's legal actions in this channel's game; [] for anyone who may not act.

    Used by autocomplete, so it never raises.
    """
    try:
        record = await common.channel_game(interaction)
        if record is None or record.status != "active" or record.state is None:
            return []
        if kind is not None and record.kind != kind:
            return []
        game = engine.get_game(record.kind)
        state = store_of(interaction.client).load_state(record)
        me = str(interaction.user.id)
        if me not in game.to_act(state):
            return []
        return list(game.legal_actions(state, me))
    except Exception:
        log.exception("Autocomplete failed")
        return []


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(GameCog(bot))
