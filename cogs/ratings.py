"""``/stats`` and ``/leaderboard``: what players have done, from the ratings and
statistics the store derives from finished games (:mod:`db.ratings`, ``store.ratings``).

- ``/stats [player] [kind] [share]``: a member's games, wins, streaks, favourite game,
  time per decision and time-outs, each game's rating and rank on this server, and the
  chart of their rating (:func:`render.chart.rating_chart`, drawn in a thread). Only the
  caller sees it unless shared.
- ``/leaderboard kind [period]``: a page of the server's ranking (public: it is for
  showing off), each computer level's rating beside it, and ◀ ▶ buttons anyone may press.
  The buttons are :class:`discord.ui.DynamicItem` s whose custom id carries the game,
  the period and the page's first rank (``warhost:lb:toy:all:10:n``), so they keep
  working after a restart; the server is the clicked message's.

Names: a rated player is shown by their display name only while they are a member of
the server (:func:`cogs.names.member_name`), else as a former member; a computer level
as "🤖 Computer (hard)". Nobody is ever pinged. The words are :mod:`cogs.wording`'s.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import re
from collections.abc import Iterable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs.interactions import (
    GENERIC_ERROR,
    defer,
    reply_error,
    send_ephemeral,
    send_public,
    store_of,
)
from cogs.limits import Limited
from cogs.names import left_server, member_name, remember
from cogs.wording import (
    NO_MENTIONS,
    chart_subtitle,
    empty_leaderboard_text,
    leaderboard_embed,
    no_stats_text,
    player_stats_embed,
)
from db import StoreError
from db import ratings as rated
from db.ratings import Leaderboard
from db.standings import is_computer_identity
from engine import IllegalAction
from engine.notation import is_number
from render.chart import RatingPoint, rating_chart

log = logging.getLogger("warhost.cogs.ratings")

#: The games offered (Discord shows at most 25 choices), made when the bot loads this
#: extension, like ``/game new``'s.
KIND_CHOICES = [app_commands.Choice(name=g.name[:100], value=k)
                for k, g in list(engine.GAMES.items())[:25]]
PERIODS = {"all": "all time", "30d": "last 30 days"}
PERIOD_CHOICES = [app_commands.Choice(name=label, value=value)
                  for value, label in PERIODS.items()]
#: The chart's file name in a /stats answer.
CHART_FILE = "rating.png"

LEADERBOARD_TEMPLATE = (r"warhost:lb:(?P<kind>[a-z0-9_-]{1,40}):(?P<period>all|30d)"
                        r":(?P<offset>[0-9]{1,7}):(?P<slot>[pn])")


def game_names() -> dict[str, str]:
    return {k: g.name for k, g in engine.GAMES.items()}


def page_size() -> int:
    """Players per page (read at each use, so a test may change it)."""
    return max(1, int(rated.PAGE_SIZE))


# -- names --------------------------------------------------------------------------------


async def member_names(interaction: discord.Interaction,
                       players: Iterable[str]) -> dict[str, str]:
    """The display names of the ``players`` still members of the interaction's server
    (the caller's own at once); computers and those who left are not in it."""
    me = str(interaction.user.id)
    guild = interaction.guild
    people = [p for p in dict.fromkeys(players) if not is_computer_identity(p)]

    async def one(player: str) -> str | None:
        if player == me:
            return interaction.user.display_name
        if guild is None:
            return None
        return await member_name(interaction.client, guild, player)

    found = await asyncio.gather(*(one(p) for p in people))
    if guild is not None:
        # The web pages keep names for themselves; someone who left is no longer named
        # there either.
        gone = [p for p, name in zip(people, found, strict=True)
                if name is None and is_number(p) and left_server(guild.id, p)]
        if gone:
            await store_of(interaction.client).web.forget_names(str(guild.id), gone)
    return {p: name for p, name in zip(people, found, strict=True) if name}


# -- /leaderboard -------------------------------------------------------------------------


def leaderboard_custom_id(kind: str, period: str, offset: int, slot: str) -> str:
    return f"warhost:lb:{kind}:{period}:{int(offset)}:{slot}"


class LeaderboardButton(Limited, discord.ui.DynamicItem[discord.ui.Button[Any]],
                        template=LEADERBOARD_TEMPLATE):
    """◀ or ▶ under a leaderboard: anyone may turn its pages (the message is edited)."""

    def __init__(self, kind: str, period: str, offset: int, slot: str,
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(
            label="◀" if slot == "p" else "▶", style=discord.ButtonStyle.secondary,
            custom_id=leaderboard_custom_id(kind, period, offset, slot), disabled=disabled))
        self.kind = kind
        self.period = period
        self.offset = offset

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LeaderboardButton:
        return cls(match["kind"], match["period"], int(match["offset"]), match["slot"])

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            if interaction.guild_id is None:
                await reply_error(interaction, "That leaderboard belongs to a server.")
                return
            game = engine.get_game(self.kind)
            # names may take a fetch each: answer Discord now, edit the message after
            await interaction.response.defer()
            board = await load_board(interaction, self.kind, self.period, self.offset)
            if not board.rows:
                await interaction.edit_original_response(
                    content=empty_leaderboard_text(board, game.name), embed=None, view=None,
                    allowed_mentions=NO_MENTIONS)
                return
            embed, view = await board_page(interaction, board, game.name)
            await interaction.edit_original_response(content=None, embed=embed, view=view,
                                                     allowed_mentions=NO_MENTIONS)
        except (IllegalAction, StoreError) as exc:
            await reply_error(interaction, str(exc))
        except Exception:
            log.exception("Leaderboard page %s of %s failed", self.offset, self.kind)
            await reply_error(interaction, GENERIC_ERROR)


async def load_board(interaction: discord.Interaction, kind: str, period: str,
                     offset: int) -> Leaderboard:
    """The page of the server's leaderboard from ``offset``; past its end (the board
    shrank since the page was shown), its last page."""
    store = store_of(interaction.client)
    guild = str(interaction.guild_id)
    size = page_size()
    board = await store.ratings.leaderboard(guild, kind, period=period, offset=offset,
                                            limit=size)
    if not board.rows and board.total > 0:
        last = (board.total - 1) // size * size
        board = await store.ratings.leaderboard(guild, kind, period=period, offset=last,
                                                limit=size)
    return board


def leaderboard_view(board: Leaderboard, size: int) -> discord.ui.View | None:
    """◀ ▶ to the pages before and after (disabled at the ends); None on a single page."""
    if board.total <= size:
        return None
    view = discord.ui.View(timeout=None)
    before = max(0, board.offset - size)
    after = board.offset + size
    view.add_item(LeaderboardButton(board.kind, board.period, before, "p",
                                    disabled=board.offset == 0))
    view.add_item(LeaderboardButton(board.kind, board.period, after, "n",
                                    disabled=after >= board.total))
    return view


async def board_page(interaction: discord.Interaction, board: Leaderboard,
                     game_name: str) -> tuple[discord.Embed, discord.ui.View | None]:
    size = page_size()
    names = await member_names(interaction, (r.player for r in board.rows))
    return leaderboard_embed(board, game_name, names, size), leaderboard_view(board, size)


# -- /stats -------------------------------------------------------------------------------


def draw_chart(points: list[RatingPoint], title: str, subtitle: str) -> bytes:
    return rating_chart(points, title=title, subtitle=subtitle)


# -- the cog ------------------------------------------------------------------------------


class RatingsCog(commands.Cog):
    """``/stats`` and ``/leaderboard``."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="stats", description="A player's games, wins, ratings and "
                                                    "rank here (only you see it unless you "
                                                    "share it)")
    @app_commands.describe(player="Whose (default: yours)",
                           kind="One game only (default: every game)",
                           share="Show it to the whole channel (default: only you)")
    @app_commands.choices(kind=KIND_CHOICES)
    @app_commands.guild_only()
    async def stats(self, interaction: discord.Interaction,
                    player: discord.Member | None = None, kind: str | None = None,
                    share: bool = False) -> None:
        target: discord.abc.User = player or interaction.user
        if target.bot:
            await reply_error(interaction, "Bots have no statistics of their own. The "
                                           "computer players' ratings, level by level, are "
                                           "under each `/leaderboard`.")
            return
        game = engine.get_game(kind) if kind else None     # refuses an unknown game
        remember(interaction.user, interaction.guild_id)
        store = store_of(interaction.client)
        stats = await store.ratings.player(str(interaction.guild_id), str(target.id), kind)
        name = target.display_name
        if stats.games == 0:
            text = no_stats_text(name, game.name if game else None,
                                 yourself=target.id == interaction.user.id)
            if share:
                await send_public(interaction, text)
            else:
                await send_ephemeral(interaction, text)
            return
        await defer(interaction, ephemeral=not share)
        names = game_names()
        extra: dict[str, Any] = {}
        if stats.history and stats.chart_kind:
            points = [RatingPoint(at, mu, sigma) for at, mu, sigma in stats.history]
            title = f"{name} · {names.get(stats.chart_kind, stats.chart_kind)}"
            png = await asyncio.to_thread(functools.partial(
                draw_chart, points, title, chart_subtitle(stats)))
            extra["file"] = discord.File(io.BytesIO(png), filename=CHART_FILE)
        embed = player_stats_embed(stats, discord.utils.escape_markdown(name), names,
                                   image=CHART_FILE if extra else None)
        await interaction.followup.send(embed=embed, ephemeral=not share,
                                        allowed_mentions=NO_MENTIONS, **extra)

    @app_commands.command(name="leaderboard", description="A game's best players on this "
                                                          "server, by rating")
    @app_commands.describe(kind="Which game",
                           period="All time, or only who played a rated game in the last "
                                  "30 days (with their change)")
    @app_commands.choices(kind=KIND_CHOICES, period=PERIOD_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction, kind: str,
                          period: str = "all") -> None:
        game = engine.get_game(kind)        # refuses an unknown game
        if period not in PERIODS:
            raise IllegalAction("Choose the period `all time` or `last 30 days`.")
        board = await load_board(interaction, kind, period, 0)
        if not board.rows:
            await send_ephemeral(interaction, empty_leaderboard_text(board, game.name))
            return
        await defer(interaction, ephemeral=False)
        embed, view = await board_page(interaction, board, game.name)
        extra: dict[str, Any] = {"view": view} if view is not None else {}
        await interaction.followup.send(embed=embed, allowed_mentions=NO_MENTIONS, **extra)


DYNAMIC_ITEMS = (LeaderboardButton,)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(RatingsCog(bot))
