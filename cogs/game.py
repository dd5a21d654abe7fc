"""``/game`` (open, join and manage a game; look at it) and ``/play`` (any action, any
game).

What the commands show is made elsewhere: the lobby and its buttons in
:mod:`cogs.lobby`, the log's pages and the undo preview in :mod:`cogs.history`, the texts
players read in :mod:`cogs.wording`; a move goes down :func:`cogs.moves.submit`. To add a
``/game`` subcommand, add a method to :class:`GameCog` here.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import logging
import re
from pathlib import Path
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs.boards import board_key, boards_of
from cogs.choices import as_choices, filter_choices, labelled_choices
from cogs.computers import HINT_LEVEL, ComputerPlayers, computers_of
from cogs.history import LogPageButton, UndoButton, log_message, undo_preview_message
from cogs.interactions import (
    NO_GAME,
    channel_game,
    defer,
    reply_error,
    require_game,
    send_ephemeral,
    send_public,
    store_of,
)
from cogs.limits import refuse_new_game, undo_if_crowded
from cogs.lobby import (
    LobbyButton,
    lobby_action,
    lobby_embed,
    lobby_view,
    option_suggestions,
    options_reference,
    parse_options,
    reorder_seats,
    seat_lines,
    show_lobby,
)
from cogs.moves import submit
from cogs.names import display_names, remember
from cogs.weblinks import game_web
from cogs.wording import (
    NO_MENTIONS,
    away_lines,
    chunk_lines,
    clip,
    clock_lines,
    dice_text,
    digest_events,
    kind_stats_embed,
    mention,
    next_up_line,
    no_kind_stats_text,
    result_lines,
)
from db import GameRecord
from db.clocks import DEFAULT_MAX_TIMEOUTS, ClockError, TimeControl
from db.core import MAX_UNDO
from engine import Game, IllegalAction
from engine.origins import MAX_FROM_BYTES, StartingPoint, starting_point
from engine.record import SCHEME
from engine.search import LEVELS

log = logging.getLogger("warhost.cogs.game")

DOCS = Path(__file__).resolve().parent.parent / "docs" / "games"
#: The games ``/game new`` offers (Discord shows at most 25 choices). Made when the bot
#: loads this extension (each load runs the module afresh), so a game registered before
#: the bot starts is offered too.
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


LEVEL_CHOICES = [app_commands.Choice(name=f"{level.name} — {level.description}"[:100],
                                     value=level.name) for level in LEVELS.values()]


DYNAMIC_ITEMS = (LobbyButton, LogPageButton, UndoButton)


# -- pure helpers for the commands --------------------------------------------------------


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
                          description=clip(f"{game.summary}\n*{players}*"
                                           if game.summary else f"*{players}*", 1000),
                          colour=discord.Colour.dark_gold())
    sections = quick_rules(text) or [("The game", game.summary or "No rules summary yet.")]
    options = options_reference(game)
    if options:
        sections.append(("Options (chosen with `/game new`)", "\n".join(options)))
    used = len(embed.title or "") + len(embed.description or "")
    for heading, body in sections[:24]:
        value = clip(body or "—", FIELD_LIMIT)
        name = clip(heading, 256)
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
        lines.append(f"{entry.get('seat', i)}. {mention(str(entry['id']))}{out}"
                     + (f" — {stats}" if stats else ""))
    return lines


async def send_look(interaction: discord.Interaction, content: str, *, share: bool) -> None:
    """Answer a look at the game: to the caller alone, or to the channel when shared."""
    if share:
        await send_public(interaction, content)
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
                                    "their seat to the computer until they are back",
                           rated="false for a friendly game: nobody's rating moves",
                           from_="Start from a position, or a point of a game record "
                                 "(/game export); never rated",
                           at="With a record in from: the action to start after (default: "
                              "the last before the end)")
    @app_commands.rename(from_="from")
    @app_commands.choices(kind=KIND_CHOICES, level=LEVEL_CHOICES)
    async def new(self, interaction: discord.Interaction, kind: str,
                  options: app_commands.Range[str, 1, 200] | None = None,
                  clock: app_commands.Range[str, 1, 30] | None = None,
                  timeouts: app_commands.Range[int, 0, 20] = DEFAULT_MAX_TIMEOUTS,
                  bots: app_commands.Range[int, 0, 7] = 0,
                  level: str | None = None, takeover: bool = False,
                  rated: bool = True, from_: discord.Attachment | None = None,
                  at: app_commands.Range[int, 0, 1_000_000] | None = None) -> None:
        store = store_of(interaction.client)
        remember(interaction.user, interaction.guild_id)
        refused = await refuse_new_game(interaction)  # permissions, the server's cap
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
        if at is not None and from_ is None:
            raise IllegalAction("`at:` picks a point of a game record: attach the record in "
                                "`from:` too.")
        origin = None
        if from_ is not None:
            if options:
                raise IllegalAction("A game started from a position plays on with that "
                                    "position's settings: leave `options` out.")
            if from_.size > MAX_FROM_BYTES:
                raise IllegalAction(f"{clip(from_.filename, 60)} is "
                                    f"{from_.size / 1_048_576:.1f} MB; Warhost starts games "
                                    f"from files up to {MAX_FROM_BYTES // 1_048_576} MB.")
            # Reading and checking a record can take longer than Discord's 3 seconds.
            await defer(interaction)
            point = await read_starting_point(game, from_, at)
            origin = point.to_origin()
        record = await store.lobby.open(
            kind, str(interaction.guild_id) if interaction.guild_id else None,
            str(interaction.channel_id), str(interaction.user.id), chosen, control,
            computers=bots, level=level, takeover=takeover, rated=rated, origin=origin)
        refused = await undo_if_crowded(interaction, record)  # lost a race for the cap
        if refused is not None:
            await reply_error(interaction, refused)
            return
        view = lobby_view(record) or discord.ui.View()
        if interaction.response.is_done():      # deferred: the lobby is a message of its own
            message: discord.Message | discord.InteractionMessage = \
                await interaction.channel.send(  # type: ignore[union-attr]
                    embed=lobby_embed(record), view=view, allowed_mentions=NO_MENTIONS)
            await interaction.followup.send(f"Game #{record.id} is open: {message.jump_url}",
                                            ephemeral=True)
        else:
            await interaction.response.send_message(embed=lobby_embed(record), view=view,
                                                    allowed_mentions=NO_MENTIONS)
            message = await interaction.original_response()
        await store.lobby.set_message(record.id, str(message.id))

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
        return labelled_choices(CLOCK_PRESETS, current) or as_choices(
            [current] if current else [])

    @staticmethod
    async def _in_lobby(interaction: discord.Interaction, action: str) -> None:
        """What a lobby button does, by command, on this channel's game."""
        record = await require_game(interaction)
        if record is not None:
            await lobby_action(interaction, action, record.id, from_button=False)

    @game.command(name="join", description="Take a seat in this channel's lobby")
    async def join(self, interaction: discord.Interaction) -> None:
        await self._in_lobby(interaction, "join")

    @game.command(name="leave", description="Give up your seat in this channel's lobby")
    async def leave(self, interaction: discord.Interaction) -> None:
        await self._in_lobby(interaction, "leave")

    @game.command(name="start", description="Start this channel's game (host only)")
    async def start(self, interaction: discord.Interaction) -> None:
        await self._in_lobby(interaction, "start")

    @game.command(name="seat", description="Move a player to another seat (host, in the lobby)")
    @app_commands.describe(player="Who to move", position="The seat to give them (1 moves first)")
    async def seat(self, interaction: discord.Interaction, player: discord.User,
                   position: app_commands.Range[int, 1, 8]) -> None:
        record = await require_game(interaction)
        if record is None:
            return
        if str(interaction.user.id) != record.host_id:
            await reply_error(interaction, "Only the host can reorder the seats.")
            return
        seats = reorder_seats(record.seats, str(player.id), position)
        record = await store_of(interaction.client).lobby.set_seats(record.id, seats)
        await send_ephemeral(interaction, "Seats: " + ", ".join(
            f"{i}. {mention(p)}" for i, p in enumerate(record.seats, 1)))
        await show_lobby(interaction.client, record)

    # looking ----------------------------------------------------------------------------

    @game.command(name="hint", description="The move the computer would make in your place "
                                           "(only you see it)")
    async def hint(self, interaction: discord.Interaction) -> None:
        record = await require_game(interaction)
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
        await defer(interaction)
        _HINTING.add(player)
        try:
            choice = await brain.hint(record, player)
        finally:
            _HINTING.discard(player)
        text = (f"🤖 In your place the computer would play **`{choice.action}`**.\n"
                f"{choice.explain()}\n-# Searched from what you can see, at the "
                f"{HINT_LEVEL} level; the game is unchanged until you move.")
        await interaction.followup.send(clip(text, 1900), ephemeral=True)

    @game.command(name="back", description="Take your seat back from the computer that "
                                           "played it while your time was out")
    async def back(self, interaction: discord.Interaction) -> None:
        record = await require_game(interaction)
        if record is None:
            return
        record = await store_of(interaction.client).hosting.reclaim_seat(record.id,
                                                                         str(interaction.user.id))
        await send_ephemeral(interaction, f"Welcome back: your seat in game #{record.id} is "
                                          "yours again. `/game status` shows where it stands.")

    @game.command(name="status", description="Whose turn it is, the seats and the round "
                                             "(only you see it unless you share it)")
    @app_commands.describe(share="Show it to the whole channel (default: only you)")
    async def status(self, interaction: discord.Interaction, share: bool = False) -> None:
        record = await require_game(interaction)
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
        ended = result_lines(game, state)
        if ended:
            lines.extend(ended)
        else:
            turn = game.current_turn(state)
            to_act = game.to_act(state)
            lines.append(f"Turn: {mention(turn) if turn else '—'} · must act: "
                         + (", ".join(mention(p) for p in to_act) or "nobody"))
            facts = await store.hosting.clock_facts(record)
            lines.extend(clock_lines(record.seats, facts))
            lines.extend(away_lines(facts))
            if facts.get("clock"):
                lines.append(f"Clock: {facts['clock']}")
            if me in to_act and not share:
                legal = game.legal_actions(state, me)
                shown = ", ".join(f"`{a}`" for a in legal[:15])
                more = f" and {len(legal) - 15} more" if len(legal) > 15 else ""
                lines.append(f"You may: {shown}{more}" if legal else "You have no actions.")
        await send_look(interaction, clip("\n".join(lines)), share=share)

    @game.command(name="board", description="This channel's board, marking the last turn "
                                            "(only you see it unless you share it)")
    @app_commands.describe(share="Post it for the whole channel (default: only you)")
    async def board(self, interaction: discord.Interaction, share: bool = False) -> None:
        record = await require_game(interaction)
        if record is None:
            return
        if record.state is None:
            await reply_error(interaction, "The game has not started yet: there is no board.")
            return
        await defer(interaction, ephemeral=not share)
        store = store_of(interaction.client)
        game = engine.get_game(record.kind)
        state = store.load_state(record)
        first = await store.outbox.last_turn_start(record.id)
        entries = await store.history.actions_between(record.id, first, record.version)
        names = await display_names(interaction, game.players(state))
        file = await boards_of(interaction.client).file(
            game.kind, game.view(state, None), digest_events(entries), names,
            f"{game.kind}-board.png", key=board_key(record.id, first, record.version, names))
        text, _ = next_up_line(game, state)
        await interaction.followup.send(clip(text), file=file, ephemeral=not share,
                                        allowed_mentions=NO_MENTIONS)

    @game.command(name="log", description="Every move of this channel's game, page by "
                                          "page (only you see it)")
    @app_commands.describe(page="Which page (default: the latest)",
                           game="A game's number, e.g. an earlier game here (default: this "
                                "channel's latest)")
    async def log_(self, interaction: discord.Interaction,
                   page: app_commands.Range[int, 1, 100000] | None = None,
                   game: app_commands.Range[int, 1, 2**53] | None = None) -> None:
        record = await game_here(interaction, game)
        if record is None:
            return
        content, view = await log_message(interaction.client, record, page)
        await send_ephemeral(interaction, content, **({"view": view} if view else {}))

    @game.command(name="export", description="A game's record as a file anyone can check "
                                             "(public facts only until it ends)")
    @app_commands.describe(game="A game's number, e.g. an earlier game here (default: this "
                                "channel's latest)",
                           share="Post it for the whole channel (default: only you)")
    async def export(self, interaction: discord.Interaction,
                     game: app_commands.Range[int, 1, 2**53] | None = None,
                     share: bool = False) -> None:
        record = await game_here(interaction, game)
        if record is None:
            return
        await defer(interaction, ephemeral=not share)
        record, data = await store_of(interaction.client).history.export(record.id)
        file, size = record_file(record, data)
        if file is None:
            await reply_error(interaction, f"Game #{record.id}'s record is {size / 1_048_576:.1f}"
                              " MB even compressed, more than Discord takes in one file.")
            return
        await interaction.followup.send(export_note(record, data, file.filename), file=file,
                                        ephemeral=not share, allowed_mentions=NO_MENTIONS)

    @game.command(name="undo", description="Take back your last actions this turn (with a "
                                           "preview first)")
    @app_commands.describe(count="How many of your last actions (default 1)")
    async def undo(self, interaction: discord.Interaction,
                   count: app_commands.Range[int, 1, MAX_UNDO] = 1) -> None:
        record = await require_game(interaction)
        if record is None:
            return
        me = str(interaction.user.id)
        allowed = await store_of(interaction.client).history.undo_preview(record.id, me)
        content, view = undo_preview_message(record, allowed, count)
        await send_ephemeral(interaction, content, **({"view": view} if view else {}))

    @game.command(name="follow", description="Get this channel's game turn by turn by direct "
                                             "message (for spectators too)")
    async def follow(self, interaction: discord.Interaction) -> None:
        record = await require_game(interaction)
        if record is None:
            return
        await store_of(interaction.client).hosting.follow(record.id, str(interaction.user.id))
        await send_ephemeral(interaction, f"👀 You will get game #{record.id}'s turns by direct "
                                          "message (the public board and summary only). "
                                          "`/game unfollow` stops them.")

    @game.command(name="unfollow", description="Stop getting this channel's game by direct "
                                               "message")
    async def unfollow(self, interaction: discord.Interaction) -> None:
        record = await require_game(interaction)
        if record is None:
            return
        await store_of(interaction.client).hosting.follow(record.id, str(interaction.user.id),
                                                          on=False)
        await send_ephemeral(interaction, f"You will no longer get game #{record.id}'s turns by "
                                          "direct message.")

    @game.command(name="web", description="Your personal link to this game's web page, "
                                          "with your own view (only you see it)")
    @app_commands.describe(revoke="true: every personal link you were given for this game "
                                  "stops working")
    async def web(self, interaction: discord.Interaction, revoke: bool = False) -> None:
        await game_web(interaction, revoke)

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
        await send_ephemeral(interaction, "\n".join(chunk_lines(lines)[:1]))

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

    @game.command(name="stats", description="A game's results: win share by seat and side, "
                                            "game length (only you see it unless shared)")
    @app_commands.describe(kind="Which game",
                           everywhere="Count the games of every server, not only this one's",
                           share="Show it to the whole channel (default: only you)")
    @app_commands.choices(kind=KIND_CHOICES)
    async def stats(self, interaction: discord.Interaction, kind: str,
                    everywhere: bool = False, share: bool = False) -> None:
        game = engine.get_game(kind)        # refuses an unknown game
        # every result of the game is read: 0.3 s with 100,000 of them, so answer now
        await defer(interaction, ephemeral=not share)
        found = await store_of(interaction.client).ratings.kind_stats(
            str(interaction.guild_id) if interaction.guild_id else None, kind,
            everywhere=everywhere)
        if (found.all_games if everywhere else found.guild_games) == 0:
            await send_look(interaction, no_kind_stats_text(game.name, everywhere=everywhere),
                            share=share)
            return
        embed = kind_stats_embed(found, game.name)
        if share:
            await send_public(interaction, embed=embed)
        else:
            await send_ephemeral(interaction, "", embed=embed)

    # leaving ----------------------------------------------------------------------------

    @game.command(name="resign", description="Resign from this channel's game")
    async def resign(self, interaction: discord.Interaction) -> None:
        record = await require_game(interaction)
        if record is not None:
            await submit(interaction, store_of(interaction.client), record, engine.RESIGN)

    @game.command(name="abort", description="End this channel's game for everyone "
                                            "(host or Manage Channels)")
    async def abort(self, interaction: discord.Interaction) -> None:
        record = await require_game(interaction)
        if record is None:
            return
        allowed = (record.host_id == str(interaction.user.id)
                   or interaction.permissions.manage_channels)
        if not allowed:
            await reply_error(interaction, "Only the host or someone with Manage Channels can "
                                           "abort this game.")
            return
        record = await store_of(interaction.client).lobby.abort(record.id)
        await show_lobby(interaction.client, record)
        await send_public(interaction, f"Game #{record.id} was aborted by "
                                       f"{mention(str(interaction.user.id))}.")

    # any action -------------------------------------------------------------------------

    @app_commands.command(name="play", description="Make a move in this channel's game")
    @app_commands.describe(action="The action's notation, e.g. `end`; autocomplete lists yours")
    @app_commands.guild_only()
    async def play(self, interaction: discord.Interaction,
                   action: app_commands.Range[str, 1, 200]) -> None:
        record = await require_game(interaction)
        if record is not None:
            await submit(interaction, store_of(interaction.client), record, action)

    @play.autocomplete("action")
    async def play_autocomplete(self, interaction: discord.Interaction,
                                current: str) -> list[app_commands.Choice[str]]:
        legal = await legal_for(interaction)
        return as_choices(filter_choices(legal, current))


async def game_here(interaction: discord.Interaction, number: int | None) -> GameRecord | None:
    """Game ``number`` of this server, or this channel's latest game (running or not);
    None after telling the user there is none."""
    store = store_of(interaction.client)
    if number is not None:
        record = await store.get(number)
        if record.guild_id != (str(interaction.guild_id) if interaction.guild_id else None):
            await reply_error(interaction, f"There is no game #{number} in this server.")
            return None
        return record
    found = await store.latest_in_channel(str(interaction.channel_id))
    if found is None:
        await reply_error(interaction, NO_GAME)
    return found


#: Past this many bytes an exported record is sent gzipped (Discord takes 10 MB a file).
EXPORT_PLAIN_LIMIT = 8 * 1024 * 1024
EXPORT_LIMIT = 10 * 1024 * 1024


def record_file(record: GameRecord, data: dict[str, Any]) -> tuple[discord.File | None, int]:
    """The record as a file to attach (gzipped when large), and its size in bytes; no file
    when even the gzipped record is too large to send."""
    body = json.dumps(data, ensure_ascii=False, indent=1).encode()
    name = f"warhost-{record.kind}-{record.id}.json"
    if len(body) > EXPORT_PLAIN_LIMIT:
        body, name = gzip.compress(body, mtime=0), name + ".gz"
    if len(body) > EXPORT_LIMIT:
        return None, len(body)
    return discord.File(io.BytesIO(body), filename=name), len(body)


def export_note(record: GameRecord, data: dict[str, Any], filename: str) -> str:
    """What goes with an exported record: what it holds and how to check it."""
    game = engine.get_game(record.kind)
    actions = len(data.get("actions") or [])
    head = f"**{game.name} #{record.id}**: the record of {actions} action" \
           f"{'s' if actions != 1 else ''} ({record.status})."
    if not data.get("complete"):
        return (f"{head} While the game runs it holds public facts only: no dice seed, no "
                "hidden cards. Export it again once the game is over to check its dice.\n"
                + dice_text(record.dice, revealed=False))
    if data["dice"].get("scheme") == SCHEME:
        check = (f"Check it anywhere Warhost's code runs: `python -m engine.verify {filename}`"
                 " rebuilds the dice from the revealed seed and replays every action.")
    else:
        check = ("This game began before Warhost committed to its dice: the replay can be "
                 f"checked (`python -m engine.verify {filename}`), the dice cannot.")
    return f"{head} {check}"


async def read_starting_point(game: Game[Any], attachment: discord.Attachment,
                              at: int | None) -> StartingPoint:
    """The position a ``from:`` attachment starts a game at; IllegalAction says what is
    wrong with it (read and checked off the event loop)."""
    try:
        data = await attachment.read()
    except (discord.HTTPException, discord.NotFound) as exc:
        raise IllegalAction(f"Discord would not give me {clip(attachment.filename, 60)} "
                            f"({exc}); attach it again.") from None
    return await asyncio.to_thread(starting_point, game, data, at,
                                   clip(attachment.filename, 60))


async def legal_for(interaction: discord.Interaction, kind: str | None = None) -> list[str]:
    """The caller's legal actions in this channel's game; [] for anyone who may not act.

    Used by autocomplete, so it never raises.
    """
    try:
        record = await channel_game(interaction)
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
