"""Helpers the game cogs share (this module is not a cog: it has no ``setup``).

The centre of it is :func:`submit`, the one adapter from a Discord interaction to
``Store.apply_action``: the interaction is deferred privately, errors go back to the
user alone, and an accepted action's announcements (saved with it by the store) are
delivered by :mod:`cogs.announcements`: the mover's private confirmation and, when the
turn passes, the channel's turn digest with the board.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

import discord
from discord import app_commands

import engine
from db import GameRecord, MoveResult, Store, StoreError
from db.computers import computer_name, computers
from db.store import digest_payload
from engine import Game, IllegalAction, public_events

log = logging.getLogger("warhost.cogs")

#: What a user sees when something unexpected fails. Never a traceback.
GENERIC_ERROR = "Something went wrong; the game is unchanged."
#: Discord refuses messages over 2000 characters; stay clear of it.
MESSAGE_LIMIT = 1900
NO_GAME = "There is no game in this channel. Open one with `/game new`."
NO_MENTIONS = discord.AllowedMentions.none()
SERVER_ONLY = ("Warhost's games are played in a server's channels, so that command only "
               "works there. Open a game with `/game new` in a channel of a server Warhost "
               "is in; `/help` works anywhere.")
MENTION_HELP = ("Hello! I host war and conquest board games here. Open one with "
                "`/game new`, play with `/play`, and see every command with `/help` (only "
                "you will see the answer).")


# -- reaching the store and the channel's game ----------------------------------------


def store_of(client: discord.Client) -> Store:
    """The bot's open :class:`db.Store`."""
    store = getattr(client, "store", None)
    if not isinstance(store, Store):
        raise RuntimeError("the bot has no open Store")
    return store


async def channel_game(interaction: discord.Interaction) -> GameRecord | None:
    """The game (lobby or running) in the interaction's channel, if any."""
    if interaction.channel_id is None:
        return None
    return await store_of(interaction.client).active_in_channel(str(interaction.channel_id))


async def require_game(interaction: discord.Interaction) -> GameRecord | None:
    """Like :func:`channel_game`, but tells the user (ephemerally) when there is none."""
    record = await channel_game(interaction)
    if record is None:
        await reply_error(interaction, NO_GAME)
    return record


# -- replies ----------------------------------------------------------------------------


async def reply_error(interaction: discord.Interaction, message: str) -> None:
    """Tell only the user who acted; works whether or not the interaction was answered."""
    await send_ephemeral(interaction, clip(message or GENERIC_ERROR))


async def send_ephemeral(interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
    try:
        if interaction.response.is_done():
            await interaction.followup.send(content, ephemeral=True,
                                            allowed_mentions=NO_MENTIONS, **kwargs)
        else:
            await interaction.response.send_message(content, ephemeral=True,
                                                    allowed_mentions=NO_MENTIONS, **kwargs)
    except discord.HTTPException:
        log.warning("Could not send an ephemeral reply to interaction %s", interaction.id)


async def send_public(interaction: discord.Interaction, content: str = "", *,
                      allowed_mentions: discord.AllowedMentions = NO_MENTIONS,
                      **kwargs: Any) -> None:
    """Reply in the channel (or follow up if the interaction was already answered)."""
    if interaction.response.is_done():
        await interaction.followup.send(content, allowed_mentions=allowed_mentions, **kwargs)
    else:
        await interaction.response.send_message(content, allowed_mentions=allowed_mentions,
                                                **kwargs)


def user_message(error: BaseException) -> str | None:
    """The user-facing message of an expected error (engine or store), else None."""
    if isinstance(error, IllegalAction | StoreError):
        return str(error) or GENERIC_ERROR
    return None


async def report_app_command_error(interaction: discord.Interaction,
                                   error: app_commands.AppCommandError) -> None:
    """The tree-wide error handler: a clear ephemeral message, never a traceback."""
    original: BaseException = getattr(error, "original", error)
    message = user_message(original)
    if message is None:
        if isinstance(error, app_commands.NoPrivateMessage):
            message = "That command only works in a server channel."
        elif isinstance(error, app_commands.MissingPermissions | app_commands.CommandOnCooldown
                        | app_commands.BotMissingPermissions):
            message = str(error)
        elif isinstance(error, app_commands.TransformerError):
            message = f"I could not read `{clip(str(error.value), 40)}` there."
        elif isinstance(error, app_commands.CheckFailure):
            message = "You can't use that command here."
        else:
            log.error("Unexpected error in /%s", _command_name(interaction), exc_info=original)
            message = GENERIC_ERROR
    await reply_error(interaction, message)


def _command_name(interaction: discord.Interaction) -> str:
    command = interaction.command
    return command.qualified_name if command is not None else "?"


# -- text helpers (pure) ------------------------------------------------------------------


def clip(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def chunk_lines(lines: Iterable[str], limit: int = MESSAGE_LIMIT) -> list[str]:
    """Join lines into as few messages as fit under ``limit``; overlong lines are clipped."""
    chunks: list[str] = []
    current = ""
    for raw in lines:
        line = clip(raw, limit)
        if current and len(current) + 1 + len(line) > limit:
            chunks.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        chunks.append(current)
    return chunks


def mention(user_id: str) -> str:
    """A Discord mention for a player id (plain text if the id is not a snowflake; a
    computer seat by its name)."""
    if user_id.isdigit():
        return f"<@{user_id}>"
    name = computer_name(user_id)
    return f"🤖 {name}" if name else user_id


_BARE_ID = re.compile(r"(?<![<@&#\d])(\d{15,21})(?![\d>])")


def humanize_ids(text: str, user_ids: Iterable[str]) -> str:
    """Engine messages name players by id; show those ids as mentions (which ping nobody
    when sent with :data:`NO_MENTIONS`). Other numbers are left alone."""
    known = set(user_ids)
    return _BARE_ID.sub(lambda m: mention(m[1]) if m[1] in known else m[0], text)


def mentions(user_ids: Iterable[str]) -> dict[str, str]:
    return {uid: mention(uid) for uid in user_ids}


def ping(user_ids: Iterable[str]) -> discord.AllowedMentions:
    """Allowed mentions that ping exactly these users and nobody else."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(int(u)) for u in user_ids
                                          if u.isdigit()])


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


# -- names ------------------------------------------------------------------------------

#: Display names seen lately, per (guild id or "", user id); bounded, oldest dropped first.
_NAMES: dict[tuple[str, str], str] = {}
_NAMES_MAX = 5000


def _name_key(guild_id: int | None, user_id: str) -> tuple[str, str]:
    return (str(guild_id or ""), user_id)


def _keep_name(key: tuple[str, str], name: str) -> None:
    _NAMES.pop(key, None)
    _NAMES[key] = name
    while len(_NAMES) > _NAMES_MAX:
        del _NAMES[next(iter(_NAMES))]


def remember(user: discord.abc.User, guild_id: int | None = None) -> None:
    """Note a user's display name (players are seen whenever they interact)."""
    _keep_name(_name_key(guild_id, str(user.id)), user.display_name)


def forget_names(user_id: str) -> None:
    """Drop a user's remembered display names (a data deletion)."""
    for key in [k for k in _NAMES if k[1] == user_id]:
        del _NAMES[key]


def fallback_name(user_id: str) -> str:
    if user_id.isdigit():
        return f"player {user_id[-4:]}"
    return computer_name(user_id) or user_id


async def name_of(client: discord.Client, guild: discord.Guild | None, user_id: str) -> str:
    """A player's display name: the member cache, names seen, the user cache, one fetch."""
    if not user_id.isdigit():
        return fallback_name(user_id)
    key = _name_key(guild.id if guild is not None else None, user_id)
    member = guild.get_member(int(user_id)) if guild is not None else None
    if member is not None:
        return member.display_name
    if key in _NAMES:
        return _NAMES[key]
    name: str | None = None
    user = client.get_user(int(user_id))
    if user is not None:
        name = user.display_name
    elif guild is not None:
        try:
            name = (await guild.fetch_member(int(user_id))).display_name
        except (discord.HTTPException, ValueError):
            name = None
    if name is None:
        return fallback_name(user_id)
    _keep_name(key, name)
    return name


async def display_name(interaction: discord.Interaction, user_id: str) -> str:
    """A player's display name, as seen from ``interaction`` (the caller's own first)."""
    if str(interaction.user.id) == user_id:
        return interaction.user.display_name
    return await name_of(interaction.client, interaction.guild, user_id)


async def display_names(interaction: discord.Interaction,
                        user_ids: Iterable[str]) -> dict[str, str]:
    return {uid: await display_name(interaction, uid) for uid in user_ids}


# -- who is up ----------------------------------------------------------------------------

#: A decision prompt: fixed text, or text made from the game's *public* view (so it can
#: say which battle or card is at stake without ever seeing a private one).
Prompt = str | Callable[[Mapping[str, Any]], str]
#: What players must decide in a phase of a game, as registered by that game's cog:
#: ``(kind, phase) -> prompt`` (the phase is the public view's ``"phase"``).
DECISION_PROMPTS: dict[tuple[str, str], Prompt] = {}


def register_decision(kind: str, phase: str, text: Prompt) -> None:
    """Say what a player must decide in ``phase`` of ``kind`` (shown after their mention),
    e.g. ``"you lost the fight: choose a casualty with /play"``; or a function of the
    public view returning that text (it is only ever given the public view)."""
    DECISION_PROMPTS[(kind, phase)] = text


def decision_prompt(game: Game[Any], public: Mapping[str, Any], to_act: Sequence[str],
                    current: str | None, choices: Sequence[str] = ()) -> str:
    """What the players in ``to_act`` must decide when it is not simply their turn.

    The game cog's registered prompt for the view's phase if any, else a generic line
    naming the phase and whose turn it is; with ``choices`` (a few legal actions).
    """
    phase = public.get("phase")
    registered = DECISION_PROMPTS.get((game.kind, phase)) if isinstance(phase, str) else None
    prompt: str | None = None
    if callable(registered):
        try:
            prompt = registered(public) or None
        except Exception:
            log.exception("The decision prompt of %s/%s failed", game.kind, phase)
    else:
        prompt = registered
    if prompt is None and isinstance(public.get("prompt"), str) and public["prompt"]:
        # the game's own public sentence, e.g. "Allies: play cards for Austria or ready"
        said = str(public["prompt"]).rstrip(".")
        group = f"`/{game.kind}` or " if getattr(game, "verbs", ()) else ""
        prompt = f"{said[:1].lower()}{said[1:]}; use {group}`/play`"
    if prompt is None:
        prompt = "you must act now"
        if isinstance(phase, str) and phase:
            prompt += f" ({phase.replace('_', ' ')})"
        if current is not None and current not in to_act:
            prompt += f", during {mention(current)}'s turn"
        prompt += "; use `/play`"
    text = prompt.rstrip(".")
    if choices:
        text += " — " + ", ".join(f"`{a}`" for a in choices)
    return clip(text + ".", 1000)


def outcome_lines(players: Sequence[str], outcome: Mapping[str, Any] | None) -> list[str]:
    """How the game ended, with mentions, or [] while it runs."""
    if not outcome:
        return []
    winners = [str(w) for w in outcome.get("winners") or ()]
    named = ", ".join(mention(w) for w in winners) or "nobody"
    lines = [f"🏆 **Game over** — {named} {'wins' if len(winners) == 1 else 'win'}!"]
    reason = str(outcome.get("reason") or "")
    if reason:
        lines.append(clip(humanize_ids(reason, players), 300))
    standings = " · ".join(f"{i}. {mention(str(p))}"
                           for i, p in enumerate(outcome.get("standings") or (), 1))
    if standings:
        lines.append(f"Standings: {standings}")
    return lines


def next_up_text(game: Game[Any], players: Sequence[str], view: Mapping[str, Any],
                 payload: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The closing line: the result, or who must act now and how; and whom to ping."""
    outcome = payload.get("outcome")
    ended = outcome_lines(players, outcome)
    if ended:
        return "\n".join(ended), [str(w) for w in (outcome or {}).get("winners") or ()]
    to_act = [str(p) for p in payload.get("to_act") or ()]
    current = payload.get("current")
    if not to_act:
        return "Waiting.", []
    who = ", ".join(mention(p) for p in to_act)
    rnd = view.get("round")
    prefix = f"Round {rnd} — " if isinstance(rnd, int) and not isinstance(rnd, bool) else ""
    if to_act == [current]:
        return f"{prefix}Your turn, {who}. Use `/play` (or the game's own commands).", to_act
    choices = [str(c) for c in payload.get("choices") or ()]
    prompt = decision_prompt(game, view, to_act, current, choices)
    return f"{prefix}{who}: {prompt}", to_act


def result_lines(game: Game[Any], state: Any) -> list[str]:
    """How the game ended, with mentions, or [] while it runs."""
    outcome = game.outcome(state)
    return outcome_lines(game.players(state), None if outcome is None else outcome.to_json())


def next_up_line(game: Game[Any], state: Any) -> tuple[str, list[str]]:
    """Who must act now (and how), or the result; plus whom a message would ping."""
    payload = digest_payload(game, state, 0, 0)
    return next_up_text(game, game.players(state), payload["view"], payload)


def options_lines(game: Game[Any], options: dict[str, Any]) -> list[str]:
    """One line per option of ``game``: its value (the default when not set) and meaning."""
    lines = []
    for option in game.options:
        value = options.get(option.name, option.default)
        default = "" if value == option.default else f" (default {option.default})"
        lines.append(f"`{option.name}={value}`{default} — {option.description}")
    return lines


# -- the board ----------------------------------------------------------------------------


async def board_file(client: discord.Client, game: Game[Any], state: Any,
                     names: dict[str, str], events: Sequence[dict[str, Any]] | None = None,
                     *, key: Hashable | None = None) -> discord.File:
    """The public board as a PNG attachment (drawn by the bot's worker processes; once
    per ``key``, see :func:`cogs.boards.board_key`)."""
    from cogs.boards import boards_of

    return await boards_of(client).file(game.kind, game.view(state, None), events, names,
                                        f"{game.kind}-board.png", key=key)


# -- the one path for every move ---------------------------------------------------------


def narration_lines(game: Game[Any], players: Sequence[str], player: str, action: str,
                    events: Sequence[dict[str, Any]]) -> list[str]:
    """The public narration of an accepted action (the game's own lines, dice included).

    When the game has nothing to say, one line saying who did what.
    """
    body = game.narrate(public_events(list(events)), mentions(players))
    if body:
        return list(body)
    try:
        shown = game.normalise(action)
    except IllegalAction:
        shown = action
    return [f"{mention(player)} · `{clip(shown.replace('`', ''), 100)}`"]


def private_events_for(events: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Private events grouped by recipient, with the ``private_to`` mark stripped."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        to = event.get("private_to")
        if to is None:
            continue
        grouped.setdefault(str(to), []).append(
            {k: v for k, v in event.items() if k != "private_to"})
    return grouped


class SentClock:
    """When an interaction was sent, in this machine's clock.

    Discord stamps every interaction id with its own clock; this machine's may differ.
    The smallest ``received - stamped`` seen lately is that difference plus the fastest
    delivery, so ``stamped + that`` never comes after the interaction was received.
    """

    WINDOW = 64

    def __init__(self) -> None:
        self._offsets: list[float] = []

    def sent_at(self, interaction_id: int, received: float) -> float:
        stamped = discord.utils.snowflake_time(interaction_id).timestamp()
        self._offsets.append(received - stamped)
        del self._offsets[:-self.WINDOW]
        return min(received, stamped + min(self._offsets))


class RecentIds:
    """Interaction ids this process has taken on (a bounded memory): a gateway that
    delivers one interaction twice gets it handled once, and Discord sees one answer."""

    LIMIT = 10_000

    def __init__(self) -> None:
        self._ids: dict[int, None] = {}

    def claim(self, interaction_id: int) -> bool:
        """True the first time ``interaction_id`` is seen, False after."""
        if interaction_id in self._ids:
            return False
        self._ids[interaction_id] = None
        while len(self._ids) > self.LIMIT:
            del self._ids[next(iter(self._ids))]
        return True


async def acknowledge(interaction: discord.Interaction) -> bool:
    """Defer privately before touching the game, so a saved move can always be answered
    (a deferred interaction's token stays valid for 15 minutes, across a restart).

    False when the interaction can no longer be answered (Discord's 3 seconds are up):
    then the move must not be made, since its player was shown that it failed.
    """
    if interaction.response.is_done():
        return True
    try:
        await interaction.response.defer(ephemeral=True, thinking=True)
    except discord.HTTPException as exc:
        if exc.code == 40060:          # already answered: a re-delivery of this interaction
            return True
        log.warning("Could not acknowledge interaction %s (%s); its action is not made",
                    interaction.id, exc)
        return False
    return True


async def submit(interaction: discord.Interaction, store: Store, game: int | GameRecord,
                 action: str, *, expect_version: int | None = None) -> MoveResult | None:
    """Apply ``action`` for the interaction's user, then deliver what it made due.

    The interaction is deferred (privately) first; the store saves the move together
    with its announcements (the mover's answer, private notes, the turn digest), and
    the bot's :class:`cogs.announcements.Announcer` delivers them. Returns the
    :class:`db.MoveResult`, or None when the action was refused (the user was told why,
    privately, and the game is unchanged).
    """
    received = time.time()
    seen = getattr(interaction.client, "recent_interactions", None)
    if isinstance(seen, RecentIds) and not seen.claim(interaction.id):
        # The same interaction delivered again (a gateway replay): its first delivery
        # answers it, and Discord accepts only one answer, so stay quiet.
        log.info("Interaction %s was delivered again; ignored", interaction.id)
        return None
    player = str(interaction.user.id)
    remember(interaction.user, interaction.guild_id)
    clock = getattr(interaction.client, "sent_clock", None)
    sent_at = (clock.sent_at(interaction.id, received) if isinstance(clock, SentClock)
               else received)
    # On the store's clock (the one decisions are timed by): as long before its now.
    sent_at = store.now() - (received - sent_at)
    if not await acknowledge(interaction):
        return None
    seats: tuple[str, ...] = ()
    try:
        record = game if isinstance(game, GameRecord) else await store.get(game)
        seats = record.seats
        result = await store.apply_action(
            record.id, player, action, request_id=str(interaction.id), sent_at=sent_at,
            reply_to={"application_id": str(interaction.application_id),
                      "token": interaction.token, "interaction_id": str(interaction.id)},
            expect_version=expect_version)
    except (IllegalAction, StoreError) as exc:
        await reply_error(interaction, humanize_ids(str(exc), seats))
        return None
    if result.duplicate:
        # The same interaction delivered twice (a gateway replay): the first delivery
        # answers it (its announcements are saved and delivered), so stay quiet.
        log.info("Interaction %s was delivered again; its move %s stands", interaction.id,
                 result.seq)
        return result
    await deliver(interaction.client, record.id, interaction)
    computers_move(interaction.client, result.record)
    return result


def computers_move(client: discord.Client, record: GameRecord) -> None:
    """Set the computer thinking at once if ``record`` waits for a seat it plays (the
    scheduler would find it too, but only at its next pass)."""
    if record.status != "active" or not any(p in computers(record.timing)
                                            for p in record.decisions):
        return
    from cogs.computers import computers_of

    players = computers_of(client)
    if players is not None:
        players.request(record.id)


async def deliver(client: discord.Client, game_id: int,
                  interaction: discord.Interaction | None = None) -> None:
    """Deliver a game's pending announcements now (the retry loop catches failures)."""
    from cogs.announcements import announcer_of

    announcer = announcer_of(client)
    if announcer is None:
        log.warning("No announcer: game %s's announcements wait for the next start", game_id)
        return
    await announcer.deliver(game_id, interaction)


async def deliver_all(client: discord.Client) -> None:
    """Deliver every game's pending announcements now (after a change that touches many
    games, a vacation say)."""
    from cogs.announcements import announcer_of

    announcer = announcer_of(client)
    if announcer is not None:
        await announcer.deliver_all()


#: How a game tells one player its private events (the ``private_to`` mark stripped):
#: ``kind -> narrate(events, names) -> lines``, registered by the game's cog. Games that
#: narrate their private events themselves need none: ``Game.narrate`` is the default.
PRIVATE_NARRATORS: dict[str, Callable[[list[dict[str, Any]], dict[str, str]], list[str]]] = {}


def register_private_narration(
        kind: str, narrate: Callable[[list[dict[str, Any]], dict[str, str]], list[str]]
) -> None:
    """Tell the recipient of ``kind``'s private events what they say (only they see it)."""
    PRIVATE_NARRATORS[kind] = narrate


def private_lines(rules: Game[Any], recipient: str,
                  events: list[dict[str, Any]]) -> list[str]:
    """The lines only ``recipient`` is shown for their private ``events``."""
    narrate = PRIVATE_NARRATORS.get(rules.kind, rules.narrate)
    return list(narrate(events, mentions([recipient])))


# -- helpers for a game cog's friendly commands ------------------------------------------


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


async def running_game(interaction: discord.Interaction,
                       kind: str) -> tuple[Game[Any], Any, GameRecord] | None:
    """This channel's running game of ``kind`` and its state, or None (never raises)."""
    try:
        record = await channel_game(interaction)
        if (record is None or record.kind != kind or record.status != "active"
                or record.state is None):
            return None
        return engine.get_game(kind), store_of(interaction.client).load_state(record), record
    except Exception:
        log.exception("Reading the %s game failed", kind)
        return None


async def stop_task(task: asyncio.Task[Any] | None) -> None:
    """Cancel a background loop and wait for it to end (whatever it ends with)."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
