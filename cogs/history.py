"""A game's history in Discord: ``/game log``'s pages (and their buttons) and the undo
preview with the button that confirms it. Public narration only: nothing private is
ever in a page of the log.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

import engine
from cogs.interactions import GENERIC_ERROR, reply_error, store_of
from cogs.limits import Limited
from cogs.moves import submit
from cogs.wording import chunk_lines, clip, mention, turn_lines
from db import GameRecord, LogEntry, StoreError
from db.replay import Undoable, undone_by
from engine import Game, IllegalAction

log = logging.getLogger("warhost.cogs.history")


#: The slot (first, older, newer, latest) keeps the four buttons' ids distinct when two
#: of them lead to the same page, as Discord requires.
LOG_TEMPLATE = r"warhost:log:(?P<id>[0-9]{1,18}):(?P<page>[0-9]{1,6}):(?P<slot>[fonl])"


UNDO_TEMPLATE = r"warhost:undo:(?P<id>[0-9]{1,18}):(?P<version>[0-9]{1,9}):(?P<count>[0-9]{1,3})"


#: Moves per page of /game log.
LOG_PAGE_SIZE = 12


class LogPageButton(Limited, discord.ui.DynamicItem[discord.ui.Button[Any]],
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
            await reply_error(interaction, GENERIC_ERROR)


class UndoButton(Limited, discord.ui.DynamicItem[discord.ui.Button[Any]],
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
            await submit(interaction, store_of(interaction.client), self.game_id,
                         f"undo {self.count}", expect_version=self.version)
        except Exception:
            log.exception("Undo of game %s failed", self.game_id)
            await reply_error(interaction, GENERIC_ERROR)


async def log_message(client: discord.Client, record: GameRecord,
                      page: int | None) -> tuple[str, discord.ui.View | None]:
    """A page of a game's whole log (the latest when ``page`` is None), with buttons to
    turn the pages. Public narration only: nothing private is ever in it."""
    store = store_of(client)
    game = engine.get_game(record.kind)
    entries, pages = await store.history.log_page(record.id, page or 10**9, LOG_PAGE_SIZE)
    if not entries:
        return f"{game.name} #{record.id} has no moves yet.", None
    page = min(max(1, page or pages), pages)
    lines = [f"**{game.name} #{record.id}** · moves {entries[0].seq}–{entries[-1].seq} · "
             f"page {page} of {pages}"]
    for entry in entries:
        lines.extend(log_entry_lines(game, record, entry))
    if pages == 1:
        return "\n".join(chunk_lines(lines)[:1]), None
    view = discord.ui.View(timeout=None)
    view.add_item(LogPageButton(record.id, 1, "f", "⏮ First", disabled=page == 1))
    view.add_item(LogPageButton(record.id, max(1, page - 1), "o", "◀ Older",
                                disabled=page == 1))
    view.add_item(LogPageButton(record.id, min(pages, page + 1), "n", "Newer ▶",
                                disabled=page == pages))
    view.add_item(LogPageButton(record.id, pages, "l", "Latest ⏭", disabled=page == pages))
    return "\n".join(chunk_lines(lines)[:1]), view


def log_entry_lines(game: Game[Any], record: GameRecord, entry: LogEntry) -> list[str]:
    """One logged move for /game log: its number and its public narration (a few lines)."""
    undone = undone_by(entry)
    if undone:
        body = [f"↩️ {mention(entry.player)} took back move"
                f"{'s' if len(undone) > 1 else ''} "
                + (f"{undone[0]}–{undone[-1]}" if len(undone) > 1 else str(undone[0]))]
    else:
        body = turn_lines(game, record.seats, [entry])
    shown = [clip(line, 300) for line in body[:4]] or ["—"]
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
        shown = clip(" ".join(action.replace("`", "'").split()), 80)
        lines.append(f"• `#{seq}` `{shown}`")
    if allowed.stop and count == len(allowed.seqs):
        lines.append(f"-# Nothing before that can be undone: {allowed.stop}.")
    lines.append("Press the button to confirm (the log keeps both the actions and the undo).")
    view = discord.ui.View(timeout=600)
    view.add_item(UndoButton(record.id, record.version, count))
    return "\n".join(lines), view
