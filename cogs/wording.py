"""Every text a player reads about a game, as pure functions: from the log's entries,
the game's public view, the digest payload saved with a move and the players' ids to
the words, embeds and mentions Discord shows.

The turn digest (:func:`digest_text`), the mover's own confirmation
(:func:`reply_text`), a private note by DM (:func:`private_text`), reminders and other
notices (:func:`notice_text`, :func:`reminder_dm_text`), the status message
(:func:`status_embed`), and the closing line saying who must act now and how
(:func:`next_up_text`, with the decision prompts a game registers). Nothing here sends
anything or touches the database: :mod:`cogs.outbox` delivers what these compose.
To reword what the channel reads, this is the one file to open.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import discord

import engine
from db import GameRecord, LogEntry
from db.computers import MAX_COMPUTER_STREAK, computer_name, computers, is_computer_seat
from db.limits import LOBBY_EXPIRED
from db.ratings import MIN_GAMES, KindRecord, KindStats, Leaderboard, PlayerStats, Share
from db.records import BY_COMPUTER, BY_TIMEOUT, COMPUTERS_ONLY, TAKEOVER
from db.replay import effective, undone_by
from db.standings import COMPUTER_PREFIX, FORMER_MEMBER, computer_label, is_computer_identity
from db.turns import digest_payload
from engine import Game, IllegalAction, public_events
from engine.notation import is_number
from engine.record import SCHEME
from engine.search import LEVELS

log = logging.getLogger("warhost.wording")


#: Discord refuses messages over 2000 characters; stay clear of it.
MESSAGE_LIMIT = 1900


NO_MENTIONS = discord.AllowedMentions.none()


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
    if is_number(user_id):
        return f"<@{user_id}>"
    name = computer_name(user_id)
    return f"🤖 {name}" if name else user_id


_BARE_ID = re.compile(r"(?<![<@&#0-9])([0-9]{15,21})(?![0-9>])")


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
                                          if is_number(u)])


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


def dice_text(dice: Mapping[str, Any], *, revealed: bool) -> str:
    """What players are told of a game's dice: the commitment while it runs (never the
    seed: ``dice`` may hold it), the seed and salt behind it once it is over."""
    if dice.get("scheme") != SCHEME:
        return ("🎲 Dice not committed to: this game began before Warhost posted a "
                "commitment." if not dice.get("chosen") else
                "🎲 Dice from a chosen seed, not committed to.")
    promised = str(dice.get("commitment", ""))
    if not revealed:
        return (f"🎲 Commitment `{promised}`: the SHA-256 of a secret seed and salt, "
                "revealed when the game ends. Each player's join is mixed in at the start.")
    return (f"🎲 Fair dice: seed `{dice.get('seed')}`, salt `{dice.get('salt')}`; their "
            f"SHA-256 is the commitment `{promised[:16]}…` posted in the lobby. Check the "
            "whole game: `/game export`, then `python -m engine.verify`.")


#: The event types with which games begin a player's turn; their narration says whose
#: turn it is ("Round 2: Greeks (@dave) to play."): Antiquity, Napoleon and Battlecards
#: say ``turn``, Conqueror and Liège ``turn_start``. Only such an event with a ``round``
#: and the ``player`` whose turn begins counts (Liège's ``turn`` turns a piece).
TURN_EVENTS = ("turn", "turn_start")


def is_turn_start(event: Mapping[str, Any]) -> bool:
    return (event.get("type") in TURN_EVENTS and "round" in event
            and event.get("player") is not None and "private_to" not in event)


def game_commands(game: Game[Any]) -> str:
    """How to move: ``/play``, and the game's own group when it has one."""
    return f"`/play` or `/{game.kind}`" if getattr(game, "verbs", ()) else "`/play`"


def thinking_text(player: str) -> str:
    """A computer to act: it is thinking (nobody to ping, nothing to type)."""
    if is_computer_seat(player):
        return f"{mention(player)} (computer) is thinking…"
    return (f"🤖 The computer is thinking for {mention(player)} (`/game back` takes the "
            "seat back).")


def next_up_text(game: Game[Any], players: Sequence[str], view: Mapping[str, Any],
                 payload: Mapping[str, Any], *, turn_line: str | None = None,
                 played_by: Iterable[str] = ()) -> tuple[str, list[str]]:
    """The closing line: the result, or who must act now and how; and whom to ping.

    Whose turn it is is said once: with ``turn_line`` (the game's own narration of the
    turn beginning, taken out of the digest's body by :func:`split_turn_line`) the
    closing line is that line and how to move; else ``Your turn, @dave``. A seat the
    computer plays (its own, or ``played_by``: a human's, taken over) is never told to
    use ``/play`` nor pinged: the line says the computer is thinking.
    """
    outcome = payload.get("outcome")
    ended = outcome_lines(players, outcome)
    if ended:
        return "\n".join(ended), [str(w) for w in (outcome or {}).get("winners") or ()]
    to_act = [str(p) for p in payload.get("to_act") or ()]
    current = payload.get("current")
    if not to_act:
        return "Waiting.", []
    machines = set(played_by)
    bots = [p for p in to_act if is_computer_seat(p) or p in machines]
    people = [p for p in to_act if p not in bots]
    rnd = view.get("round")
    prefix = f"Round {rnd} — " if isinstance(rnd, int) and not isinstance(rnd, bool) else ""
    said = turn_line.strip() if turn_line else ""
    thinking = " ".join(thinking_text(p) for p in bots)
    if to_act == [current]:
        if said:
            ending = "🤖 The computer is thinking…" if bots else f"Use {game_commands(game)}."
            return f"{said} {ending}", people
        if bots:
            return f"{prefix}{thinking}", []
        return f"{prefix}Your turn, {mention(to_act[0])}. Use {game_commands(game)}.", people
    lead = f"{said} " if said else prefix
    if not people:
        return f"{lead}{thinking}", []
    choices = [str(c) for c in payload.get("choices") or ()]
    prompt = decision_prompt(game, view, people, current, choices)
    who = ", ".join(mention(p) for p in people)
    text = f"{lead}{who}: {prompt}"
    return (f"{text} {thinking}" if thinking else text), people


def split_turn_line(game: Game[Any], players: Sequence[str], entries: Sequence[LogEntry],
                    to_act: Sequence[str]) -> tuple[list[LogEntry], str | None]:
    """``entries`` without the event beginning the turn of whoever must act now, and that
    event's narrated line (the closing line says it instead, once); the entries unchanged
    and None when they hold no such event (or the game does not narrate it, or not with
    that player's mention). Only the last turn to begin counts."""
    waiting = {str(p) for p in to_act}
    kept = effective(entries)
    for entry in reversed(kept):
        for i in range(len(entry.events) - 1, -1, -1):
            event = entry.events[i]
            if not is_turn_start(event):
                continue
            player = str(event.get("player"))
            if player not in waiting:
                return list(entries), None
            lines = game.narrate([event], mentions(players))
            if len(lines) != 1 or mention(player) not in lines[0]:
                return list(entries), None
            events = [e for j, e in enumerate(entry.events) if j != i]
            trimmed = dataclasses.replace(entry, events=events)
            return [trimmed if e is entry else e for e in entries], lines[0]
    return list(entries), None


def result_lines(game: Game[Any], state: Any) -> list[str]:
    """How the game ended, with mentions, or [] while it runs."""
    outcome = game.outcome(state)
    return outcome_lines(game.players(state), None if outcome is None else outcome.to_json())


def next_up_line(game: Game[Any], state: Any, *, turn_line: str | None = None,
                 played_by: Iterable[str] = ()) -> tuple[str, list[str]]:
    """Who must act now (and how), or the result; plus whom a message would ping."""
    payload = digest_payload(game, state, 0, 0)
    return next_up_text(game, game.players(state), payload["view"], payload,
                        turn_line=turn_line, played_by=played_by)


def options_lines(game: Game[Any], options: dict[str, Any]) -> list[str]:
    """One line per option of ``game``: its value (the default when not set) and meaning."""
    lines = []
    for option in game.options:
        value = options.get(option.name, option.default)
        default = "" if value == option.default else f" (default {option.default})"
        lines.append(f"`{option.name}={value}`{default} — {option.description}")
    return lines


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


#: Digest content is kept under Discord's 2000 characters with room to spare.
DIGEST_LIMIT = 1900


#: A long turn's narration goes in an embed description (Discord allows 4096).
EMBED_LIMIT = 4000


def digest_marker(game: Game[Any], game_id: int, first: int, last: int) -> str:
    """The last line of a digest: which game and moves it covers (also its identity)."""
    if last < first:
        what = "the game begins"
    elif first == last:
        what = f"move {last}"
    else:
        what = f"moves {first}–{last}"
    return f"-# {game.name} #{game_id} · {what}"


def private_marker(game: Game[Any], game_id: int, seq: int) -> str:
    return f"-# {game.name} #{game_id} · move {seq}"


def where_line(record: GameRecord, channel_name: str | None, guild_name: str | None) -> str:
    """Which game, channel and server a DM is about, with a jump link to the channel."""
    game = engine.get_game(record.kind)
    channel = f"#{channel_name}" if channel_name else f"<#{record.channel_id}>"
    server = f" on **{guild_name}**" if guild_name else ""
    link = channel_link(record)
    return f"**{game.name} #{record.id}** in {channel}{server} · [open the channel]({link})"


def channel_link(record: GameRecord) -> str:
    guild = record.guild_id or "@me"
    return f"https://discord.com/channels/{guild}/{record.channel_id}"


def entry_lines(game: Game[Any], players: Sequence[str], entry: LogEntry) -> list[str]:
    """The public narration of one logged action (saying so when the player's clock ran
    out and Warhost played it for them)."""
    lines = narration_lines(game, players, entry.player, entry.action, entry.events)
    if entry.origin == BY_COMPUTER and not is_computer_seat(entry.player):
        return [f"🤖 The computer played `{clip(entry.action.replace('`', ''), 80)}` "
                f"for {mention(entry.player)}.", *lines]
    if entry.origin == BY_TIMEOUT:
        who = mention(entry.player)
        if entry.action.strip().lower() == engine.RESIGN:
            return [f"⏰ {who} ran out of time once too often and is out of the game.",
                    *lines]
        shown = clip(entry.action.replace("`", ""), 80)
        return [f"⏰ {who} ran out of time; Warhost played `{shown}` for them.", *lines]
    return lines


def turn_lines(game: Game[Any], players: Sequence[str], entries: Sequence[LogEntry]
               ) -> list[str]:
    """The narration of a turn's entries: what stands (moves taken back are left out,
    with a line saying so)."""
    lines: list[str] = []
    kept = effective(entries)
    for entry in entries:
        undone = undone_by(entry)
        if undone:
            n = len(undone)
            lines.append(f"↩️ {mention(entry.player)} took back {n} "
                         f"action{'s' if n != 1 else ''}.")
    for entry in kept:
        lines.extend(entry_lines(game, players, entry))
    return lines


def digest_events(entries: Iterable[LogEntry]) -> list[dict[str, Any]]:
    """Every public event of ``entries`` that stands, in order: what a board marks."""
    events: list[dict[str, Any]] = []
    for entry in effective(entries):
        events.extend(public_events(entry.events))
    return events


def clock_lines(players: Sequence[str], payload: Mapping[str, Any]) -> list[str]:
    """Time left for whoever must act, and who of them is on vacation (public facts
    saved with the digest; Discord shows each time in the reader's own zone)."""
    lines = []
    away = payload.get("vacations") or {}
    timeouts = payload.get("timeouts") or {}
    for p, until in away.items():
        lines.append(f"🏖️ {mention(p)} is on vacation until {when(until)}; their "
                     "clock is stopped.")
    for p, due in (payload.get("deadlines") or {}).items():
        if p in away:
            continue
        spent = int(timeouts.get(p, 0))
        note = f" (time-outs so far: {spent})" if spent else ""
        lines.append(f"⏳ {mention(p)} has until {when(due)}{note}.")
    return lines


def away_lines(facts: Mapping[str, Any]) -> list[str]:
    """Seated players on vacation who are not waited for (those are in :func:`clock_lines`)."""
    waited = facts.get("vacations") or {}
    return [f"🏖️ {mention(p)} is on vacation until {when(until)}."
            for p, until in (facts.get("away") or {}).items() if p not in waited]


def when(timestamp: float) -> str:
    """A Discord timestamp: the date and time, then how long from now."""
    t = int(timestamp)
    return f"<t:{t}:f> (<t:{t}:R>)"


@dataclass(frozen=True)
class Digest:
    """A turn digest, composed: its content (ending with the marker), the narration in an
    embed when it is too long for the content, and whom it pings."""

    content: str
    embed: str | None
    to_ping: list[str]


def digest_text(game: Game[Any], record: GameRecord, payload: Mapping[str, Any],
                entries: Sequence[LogEntry], *, can_embed: bool = False) -> Digest:
    """Compose a digest. Everything fits in the content when it can; a long turn's
    narration goes into an embed (4096 characters instead of 2000) when the channel
    shows embeds, and is cut in the middle (with a note) only past that."""
    players = list(record.seats)
    view = payload.get("view") or {}
    first, last = int(payload.get("first", 1)), int(payload.get("last", 0))
    head = f"**{game.name} #{record.id}**"
    actors = list(dict.fromkeys(e.player for e in entries))
    if len(actors) == 1:
        head += f" · {mention(actors[0])}'s play"
    body: list[str] = []
    if last < first:
        seats = " · ".join(f"{i}. {mention(p)}" for i, p in enumerate(players, 1))
        body.append(f"The game begins. Seats: {seats}")
    turn_line = None
    if not payload.get("outcome"):
        entries, turn_line = split_turn_line(game, players, entries,
                                             [str(p) for p in payload.get("to_act") or ()])
    body.extend(turn_lines(game, players, entries))
    footer, to_ping = next_up_text(game, players, view, payload, turn_line=turn_line,
                                   played_by=computers(record.timing))
    if not payload.get("outcome"):
        footer = "\n".join([footer, *clock_lines(players, payload)])
    if isinstance(payload.get("dice"), Mapping):      # the final digest: the seed revealed
        footer = "\n".join([footer, dice_text(payload["dice"], revealed=True)])
    marker = digest_marker(game, record.id, first, last)
    whole = fit_digest(head, body, footer, marker)
    if not can_embed or "more lines: `/game log`" not in whole:
        return Digest(whole, None, to_ping)
    narration = fit_digest("", body, "", "", limit=EMBED_LIMIT).strip("\n")
    return Digest(fit_digest(head, [], footer, marker), narration, to_ping)


def fit_digest(head: str, body: list[str], footer: str, marker: str,
               limit: int = DIGEST_LIMIT) -> str:
    """Head, body, footer and marker in at most ``limit`` characters: body lines are
    dropped from the middle (with a note saying how many) when they do not all fit."""
    fixed = [clip(head, 300), clip(footer, 800), marker]
    budget = limit - sum(len(x) + 1 for x in fixed if x)
    lines = [clip(line, 400) for line in body]
    if sum(len(x) + 1 for x in lines) > budget:
        kept_head: list[str] = []
        kept_tail: list[str] = []
        note_room = 60
        room = budget - note_room
        i, j = 0, len(lines) - 1
        while i <= j:   # alternate: the opening of the turn and how it ended both matter
            if len(kept_head) <= len(kept_tail):
                if len(lines[i]) + 1 > room:
                    break
                kept_head.append(lines[i])
                room -= len(lines[i]) + 1
                i += 1
            else:
                if len(lines[j]) + 1 > room:
                    break
                kept_tail.insert(0, lines[j])
                room -= len(lines[j]) + 1
                j -= 1
        skipped = len(lines) - len(kept_head) - len(kept_tail)
        lines = [*kept_head, f"… {skipped} more lines: `/game log` has them all.", *kept_tail]
    return "\n".join(x for x in [fixed[0], *lines, fixed[1], fixed[2]] if x)


def reply_text(game: Game[Any], record: GameRecord, entry: LogEntry,
               payload: Mapping[str, Any]) -> tuple[str, str | None]:
    """The mover's own, ephemeral confirmation: what their action did, their private
    events, and whether the turn passed. Returns the content and, when that is too long
    for a message (a whole battle), an embed's text holding the narration."""
    try:
        shown = game.normalise(entry.action)
    except IllegalAction:
        shown = entry.action
    lines = [f"✅ `{clip(shown.replace('`', ''), 100)}`"]
    undone = undone_by(entry)
    if undone:
        n = len(undone)
        lines.append(f"↩️ Took back {n} action{'s' if n != 1 else ''} (move"
                     f"{'s' if n != 1 else ''} {', '.join(map(str, undone))}).")
    body = [] if undone else game.narrate(public_events(entry.events),
                                          mentions(record.seats))
    lines.extend(body)
    mine = private_events_for(entry.events).get(entry.player)
    if mine:
        private = private_lines(game, entry.player, mine)
        if private:
            lines.append("🔒 Only you can see this:")
            lines.extend(private)
    closing = ("The channel has the summary of this turn." if payload.get("turn_passed")
               else "Still your move: carry on with `/play`.")
    text = "\n".join([*lines, closing])
    if len(text) <= DIGEST_LIMIT:
        return text, None
    narration = fit_digest("", lines[1:], "", "", limit=EMBED_LIMIT).strip("\n")
    return f"{lines[0]}\n{closing}", narration


def private_text(game: Game[Any], record: GameRecord, entry: LogEntry, recipient: str,
                 where: str) -> str | None:
    """A DM with ``recipient``'s private events of ``entry`` (None if nothing to say)."""
    mine = private_events_for(entry.events).get(recipient)
    if not mine:
        return None
    lines = private_lines(game, recipient, mine)
    if not lines:
        return None
    text = "\n".join([f"🔒 Only you can see this — {where}", *lines])
    marker = private_marker(game, record.id, entry.seq)
    return clip(text, DIGEST_LIMIT - len(marker) - 1) + "\n" + marker


def notice_text(game: Game[Any], record: GameRecord, payload: Mapping[str, Any]
                ) -> tuple[str, list[str]]:
    """A reminder for the channel (pinging the player), the note that reminders stop, or
    that an idle lobby was closed. Made only of public facts: who, which game, since and
    until when."""
    if payload.get("type") == COMPUTERS_ONLY:
        if int(payload.get("streak") or 0) >= MAX_COMPUTER_STREAK:
            why = (f"only the computer has moved in it for {MAX_COMPUTER_STREAK} actions in a "
                   "row")
        else:
            why = "every person in it has left, and the computers do not play on alone"
        return (f"🤖 **{game.name} #{record.id}** is closed without a result: {why}. "
                "Open a new one with `/game new`."), []
    if payload.get("type") == TAKEOVER:
        player = str(payload.get("player", ""))
        return (f"🤖 {mention(player)}'s time ran out in **{game.name} #{record.id}**, "
                f"so the computer ({payload.get('level')}) plays their seat until they are "
                "back (`/game back`, or any move of their own)."), [player]
    if payload.get("type") == LOBBY_EXPIRED:
        hours = float(payload.get("idle") or 0) / 3600
        return (f"⌛ The lobby of **{game.name} #{record.id}** was closed: nobody joined, "
                f"left or started it for {hours:g} hours. Open a new one with `/game new` "
                "when everyone is ready."), []
    player = str(payload.get("player", ""))
    who = mention(player)
    deadline = payload.get("deadline")
    if payload.get("type") == "reminders_stopped":
        text = (f"🔕 {who} has not acted after {payload.get('limit')} reminders, so Warhost "
                f"stops reminding them about this move in **{game.name} #{record.id}**.")
        if deadline:
            text += (f" Their clock keeps running: at {when(float(deadline))} Warhost plays "
                     "a safe default for them.")
        return text, []
    text = (f"⏰ {who}, **{game.name} #{record.id}** is waiting for you (since "
            f"{when(float(payload.get('since', 0)))}).")
    if deadline:
        text += f" Your time runs out at {when(float(deadline))}."
    text += (f"\n-# Reminder {payload.get('count')} of {payload.get('limit')}. `/reminders me` "
             "sets your own interval, quiet hours and reminders by direct message.")
    return text, [player]


def reminder_dm_text(game: Game[Any], record: GameRecord, payload: Mapping[str, Any],
                     where: str) -> str:
    """A reminder by direct message (public facts only)."""
    text = (f"⏰ It is your move — {where}. Waiting since "
            f"{when(float(payload.get('since', 0)))}.")
    deadline = payload.get("deadline")
    if deadline:
        text += f" Your time runs out at {when(float(deadline))}."
    return text + (f"\n-# Reminder {payload.get('count')} of {payload.get('limit')}; "
                   "`/reminders me dm:False` stops these.")


def status_embed(game: Game[Any], record: GameRecord, state: Any,
                 facts: Mapping[str, Any], entries: Sequence[LogEntry]) -> discord.Embed:
    """The status message: who must act and until when, who is away, the last turn and
    the seats. Public only (the public view, public events, public time facts)."""
    players = list(record.seats)
    ended = result_lines(game, state)
    if ended:
        top = ended
    else:
        entries, turn_line = split_turn_line(game, players, entries, game.to_act(state))
        text, _ = next_up_line(game, state, turn_line=turn_line,
                               played_by=computers(record.timing))
        top = [text, *clock_lines(players, facts)]
    top.extend(away_lines(facts))
    away = facts.get("away") or {}
    description = "\n".join(top)
    last = turn_lines(game, players, entries)
    if last:
        description += "\n\n**Last turn**\n" + fit_digest("", last, "", "", limit=1800)
    embed = discord.Embed(title=f"{game.name} — game #{record.id}",
                          description=clip(description, 4000),
                          colour=discord.Colour.dark_gold())
    timeouts = facts.get("timeouts") or {}
    seats = []
    for i, p in enumerate(players, 1):
        note = f" · ⏰×{timeouts[p]}" if timeouts.get(p) else ""
        note += " · 🏖️" if p in away else ""
        seats.append(f"{i}. {mention(p)}{note}")
    embed.add_field(name="Seats", value=clip("\n".join(seats), 1024), inline=True)
    if facts.get("clock"):
        embed.add_field(name="Clock", value=str(facts["clock"]), inline=True)
    if game.options:
        embed.add_field(name="Options", value=clip(
            "\n".join(options_lines(game, record.options)), 1000), inline=False)
    if record.origin.get("note"):
        embed.add_field(name="Started from", value=clip(str(record.origin["note"]), 1024),
                        inline=False)
    embed.add_field(name="Dice", value=dice_text(record.dice, revealed=bool(ended)),
                    inline=False)
    embed.set_footer(text="This message follows the game. /game log has every move; "
                          "/game follow sends the turns to you by direct message.")
    return embed



# -- ratings and statistics: /stats, /leaderboard, /game stats ---------------------------

#: Fewer decided games than this, and /game stats says its intervals are wide.
FEW_GAMES = 10
#: Discord's limits for an embed (with room to spare).
EMBED_FIELD, EMBED_FIELDS, EMBED_DESCRIPTION, EMBED_TOTAL = 1024, 25, 4000, 5800
#: What the rating numbers mean, said once under /stats and /leaderboard.
RATING_NOTE = ("μ ± σ: a rating and how sure it is; the number in bold is the cautious "
               "μ − 3σ, which ranks players.")


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 game``, ``3 games``."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def duration_text(seconds: float) -> str:
    """A time for people: ``40 s``, ``12 min``, ``2 h 14 min``, ``3 d 4 h``."""
    total = round(max(0.0, seconds))
    if total < 1:
        return "under 1 s"
    if total < 60:
        return f"{total} s"
    minutes = total // 60
    if minutes < 60:
        rest = total % 60
        return f"{minutes} min {rest} s" if rest and minutes < 10 else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"


def percent(share: float) -> str:
    """``58%`` for 0.58."""
    return f"{round(100 * share)}%"


def rating_number(value: float) -> str:
    """A rating with one decimal, a true minus sign when below zero: ``27.3``, ``−5.2``."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text.replace("-", "−")


def change_text(change: float) -> str:
    """A rating's change: ``+1.2``, ``−0.8``, ``±0.0``."""
    if abs(change) < 0.05:
        return "±0.0"
    return f"+{change:.1f}" if change > 0 else f"−{-change:.1f}"


def rated_name(player: str, names: Mapping[str, str]) -> str:
    """How a leaderboard shows a rated player: their display name while they are a member
    (``names``), a computer by its level, anyone else as a former member. Markdown in a
    name is shown as typed."""
    if is_computer_identity(player):
        return computer_label(player)
    name = names.get(player)
    if not name:
        return FORMER_MEMBER
    return discord.utils.escape_markdown(clip(" ".join(name.split()), 32))


def share_text(share: Share, label: str | None = None) -> str:
    """``Seat 1 of 2: 58% (95%: 49–66%) of 120``."""
    low, high = share.interval
    return (f"{label or share.label}: {percent(share.share)} (95%: {round(100 * low)}–"
            f"{percent(high)}) of {share.games}")


def side_label(side: str) -> str:
    """A side's id as players read it: ``french`` -> ``French``, ``Romans`` stays."""
    return " ".join(word[:1].upper() + word[1:] for word in side.replace("_", " ").split())


def computer_levels_line(board: Leaderboard) -> str | None:
    """``🤖 easy 18.2 · medium 22.0 · hard 27.5``: each computer level's cautious rating
    (μ − 3σ) in this game on this server, weakest level first; None without any."""
    if not board.computers:
        return None
    order = list(LEVELS)

    def rank(level: str) -> tuple[int, str]:
        return (order.index(level) if level in order else len(order), level)

    levels = sorted(((r.player.removeprefix(COMPUTER_PREFIX), r.score)
                     for r in board.computers), key=lambda item: rank(item[0]))
    return "🤖 " + " · ".join(f"{clip(level, 20)} {rating_number(score)}"
                             for level, score in levels)


def leaderboard_title(board: Leaderboard, game_name: str) -> str:
    period = "last 30 days" if board.period == "30d" else "all time"
    return clip(f"🏆 {game_name} leaderboard — {period}", 256)


def leaderboard_row(board: Leaderboard, index: int, names: Mapping[str, str]) -> str:
    """One line: rank, name, cautious rating, μ ± σ, games and wins (and, over the last
    30 days, the games in them and the change of the rating)."""
    r = board.rows[index]
    line = (f"**#{r.rank}** {rated_name(r.player, names)} — **{rating_number(r.score)}** · "
            f"μ {rating_number(r.mu)} ± {r.sigma:.1f} · {plural(r.games, 'game')} · "
            f"{plural(r.wins, 'win')}")
    if board.period == "30d" and r.period_games is not None:
        line += f" · {r.period_games} in 30 days"
        if r.change is not None:
            line += f", {change_text(r.change)}"
    return line


def leaderboard_embed(board: Leaderboard, game_name: str, names: Mapping[str, str],
                      page_size: int) -> discord.Embed:
    """A page of a leaderboard (``names``: display names of the players still members)."""
    rows = [clip(leaderboard_row(board, i, names), 300) for i in range(len(board.rows))]
    embed = discord.Embed(title=leaderboard_title(board, game_name),
                          description=clip("\n".join(rows), EMBED_DESCRIPTION),
                          colour=discord.Colour.dark_gold())
    bots = computer_levels_line(board)
    if bots:
        embed.add_field(name="Computer levels", value=clip(bots, EMBED_FIELD), inline=False)
    size = max(1, page_size)
    pages = max(1, -(-board.total // size))
    page = min(pages, board.offset // size + 1)
    embed.set_footer(text=f"Page {page} of {pages} · {plural(board.total, 'player')} ranked · "
                          f"{board.min_games} rated games to appear · {RATING_NOTE}")
    return embed


def empty_leaderboard_text(board: Leaderboard, game_name: str) -> str:
    """What /leaderboard says when nobody is on it (yet), and how to get on it."""
    need = plural(board.min_games, "rated game")
    if board.period == "30d":
        text = (f"Nobody on the {game_name} leaderboard has finished a rated game here in the "
                f"last 30 days. `/leaderboard kind:{board.kind}` shows all time; players "
                f"appear once they have finished {need}.")
    else:
        text = (f"Nobody is on the {game_name} leaderboard here yet: finish {need} of "
                f"{game_name} on this server to appear (`/game new kind:{board.kind}`; a "
                f"friendly game, `rated:false`, does not count).")
    bots = computer_levels_line(board)
    return clip(f"{text}\nComputer levels: {bots}" if bots else text)


def rank_text(record: KindRecord) -> str:
    """``#3 of 17``, or how many rated games are missing to be ranked."""
    if record.rank is not None:
        return f"**#{record.rank}** of {record.ranked}"
    missing = MIN_GAMES - record.games
    if missing > 0:
        return f"unranked: {plural(missing, 'more rated game')}"
    return "unranked"


def no_stats_text(name: str, game_name: str | None, *, yourself: bool) -> str:
    """The one line /stats gives for someone without a finished game here."""
    games = f"{game_name} games" if game_name else "games"
    if yourself:
        return (f"You have no finished {games} on this server yet: open one with "
                f"`/game new` and your statistics start with its end.")
    return f"{clip(name, 64)} has no finished {games} on this server yet."


def player_stats_embed(stats: PlayerStats, name: str, game_names: Mapping[str, str], *,
                       image: str | None = None) -> discord.Embed:
    """/stats: games, wins, streaks, favourite game, time per decision and time-outs,
    then each game's rating (μ − 3σ, μ ± σ) and rank; the chart as ``image`` (an
    attachment's file name)."""
    def game_name(kind: str) -> str:
        return game_names.get(kind, kind)

    scope = game_name(stats.kind) if stats.kind else "all games"
    share = stats.wins / stats.games if stats.games else 0.0
    lines = [f"**{stats.games}** finished {'game' if stats.games == 1 else 'games'} · "
             f"**{stats.wins}** {'win' if stats.wins == 1 else 'wins'} ({percent(share)})",
             f"Win streak: **{stats.current_streak}** now · best **{stats.best_streak}**"]
    if stats.favourite and not stats.kind:
        lines.append(f"Favourite game: **{game_name(stats.favourite)}**")
    if stats.average_decision is not None:
        lines.append(f"Average time per decision: **{duration_text(stats.average_decision)}**")
    lines.append(f"Time-outs: **{stats.timeouts}**")
    if not stats.kinds:
        lines.append("No rated game yet: friendly games count here, but move no rating.")
    embed = discord.Embed(title=clip(f"📊 {name} — {scope} on this server", 256),
                          description=clip("\n".join(lines), EMBED_DESCRIPTION),
                          colour=discord.Colour.dark_gold())
    for record in stats.kinds[:EMBED_FIELDS - 1]:
        value = (f"**{rating_number(record.score)}** · μ {rating_number(record.mu)} ± "
                 f"{record.sigma:.1f}\n"
                 f"{rank_text(record)} · {plural(record.games, 'rated game')}, "
                 f"{plural(record.wins, 'win')}")
        embed.add_field(name=clip(game_name(record.kind), 256),
                        value=clip(value, EMBED_FIELD), inline=True)
    if image:
        embed.set_image(url=f"attachment://{image}")
    embed.set_footer(text=RATING_NOTE + " Friendly games count in the statistics, not in "
                                        "ratings.")
    return embed


def chart_subtitle(stats: PlayerStats) -> str:
    """The line under the rating chart's title: the rating now and how many games."""
    mu, sigma = (stats.history[-1][1], stats.history[-1][2]) if stats.history else (0, 0)
    return (f"μ {rating_number(mu)} ± {sigma:.1f} · "
            f"{plural(len(stats.history), 'rated game')}")


def _add_lines(embed: discord.Embed, name: str, lines: Sequence[str]) -> None:
    """``lines`` as fields named ``name`` (then ``name, more``), each within Discord's
    limits, as many as the embed can still take."""
    chunks: list[list[str]] = [[]]
    for line in lines:
        line = clip(line, 200)
        if chunks[-1] and sum(len(x) + 1 for x in chunks[-1]) + len(line) > EMBED_FIELD:
            chunks.append([])
        chunks[-1].append(line)
    for n, chunk in enumerate(c for c in chunks if c):
        title = clip(name if n == 0 else f"{name}, more", 256)
        value = "\n".join(chunk)
        if len(embed.fields) >= EMBED_FIELDS or len(embed) + len(title) + len(value) > \
                EMBED_TOTAL:
            return
        embed.add_field(name=title, value=value, inline=False)


def _number(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def kind_stats_embed(stats: KindStats, game_name: str) -> discord.Embed:
    """/game stats: the finished games here and everywhere, each seat's and each side's
    win share with its 95% interval, and how long games last."""
    where = "every server" if stats.everywhere else "this server"
    lines = [f"Finished games: **{stats.guild_games}** on this server · "
             f"**{stats.all_games}** on every server"]
    if stats.rounds_median is not None and stats.rounds_mean is not None:
        lines.append(f"Rounds: median **{_number(stats.rounds_median)}** · mean "
                     f"**{stats.rounds_mean:.1f}**")
    if stats.days_median is not None:
        lines.append(f"From start to end: median **{duration_text(stats.days_median * 86400)}**")
    if stats.decided < FEW_GAMES:
        lines.append(f"-# {plural(stats.decided, 'game')} with a result so far: the 95% "
                     f"intervals are wide, and narrow as more games finish.")
    embed = discord.Embed(title=clip(f"📈 {game_name} — statistics ({where})", 256),
                          description=clip("\n".join(lines), EMBED_DESCRIPTION),
                          colour=discord.Colour.dark_gold())
    by_table: dict[str, list[str]] = {}
    for share in stats.seats:
        _, _, players = share.label.rpartition(" of ")
        by_table.setdefault(players, []).append(share_text(share))
    for players, rows in by_table.items():
        _add_lines(embed, f"Win share by seat · {players} players", rows)
    if stats.sides:
        _add_lines(embed, "Win share by side", [share_text(s, side_label(s.label))
                                                 for s in stats.sides])
    if not stats.seats:
        embed.add_field(name="Win share", value="No game has ended with a result yet.",
                        inline=False)
    embed.set_footer(text="95%: the range the true share is likely in, from the games so far.")
    return embed


def no_kind_stats_text(game_name: str, *, everywhere: bool) -> str:
    where = "anywhere" if everywhere else "on this server"
    return (f"No game of {game_name} has finished {where} yet: its statistics start with "
            f"the first one (`/game new`).")
