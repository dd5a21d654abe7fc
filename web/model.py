"""What a game's page shows, as JSON-able data: pure functions of the stored game.

:func:`page_data` builds everything a page holds (and ``state.json`` serves): who must
act and until when, the seats with their clocks, the result, every turn as readable
lines, each version's step for the replay, and, for a personal link only, that seat's
private view. The public data is made from the engine's public view
(``game.view(state, None)``) and public events alone, exactly what the channel is told;
a viewer's private part comes from ``game.view(state, viewer)`` and the events marked
for them.

The ratings pages' data (:func:`board_data`, :func:`player_data`) is made from
:mod:`db.ratings`' results: numbers to one decimal, and names from the server's kept names
only (:func:`player_name`: a computer level by its level, anyone else without a kept name
is a "former member", never their id). Nothing here reads the database or knows HTTP.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from db.clocks import TimeControl, describe_duration
from db.computers import computer_name, computers, is_computer_seat
from db.ratings import PAGE_SIZE, Leaderboard, PlayerStats, Ranked
from db.records import BY_COMPUTER, BY_TIMEOUT, BY_UNDO, Announcement, GameRecord, LogEntry
from db.replay import undone_by
from db.standings import COMPUTER_PREFIX, FORMER_MEMBER, computer_label, is_computer_identity
from db.turns import dice_reveal
from engine import Game, IllegalAction, public_events
from engine.record import SCHEME

#: Discord's markdown and mentions, which a page shows as plain text.
_MARKDOWN = re.compile(r"\*\*|__|~~|`")
_MENTION = re.compile(r"<@!?([0-9]{15,21})>")
_BARE_ID = re.compile(r"(?<![\w-])([0-9]{15,21})(?![\w-])")
#: The longest text of one line a page shows (a hostile action text stays short).
LINE_LIMIT = 400


@dataclass(frozen=True)
class Names:
    """Display names for a game's players: kept names, computers' names, else "Seat N"."""

    seats: tuple[str, ...]
    known: Mapping[str, str]

    def of(self, user_id: str) -> str:
        name = computer_name(user_id) or self.known.get(user_id)
        if name:
            return name
        if user_id in self.seats:
            return f"Seat {self.seats.index(user_id) + 1}"
        return "a former player" if user_id.startswith("deleted-") else "someone"

    def mapping(self) -> dict[str, str]:
        return {p: self.of(p) for p in self.seats}

    def plain(self, text: str) -> str:
        """``text`` with Discord's markdown dropped and every player id named."""
        text = _MARKDOWN.sub("", str(text))
        text = _MENTION.sub(lambda m: self.of(m.group(1)), text)
        text = _BARE_ID.sub(lambda m: self.of(m.group(1)) if m.group(1) in self.seats
                            else m.group(1), text)
        return text if len(text) <= LINE_LIMIT else text[: LINE_LIMIT - 1] + "…"


def _shown_action(game: Game[Any], action: str) -> str:
    try:
        return game.normalise(action)
    except IllegalAction:
        return action


def entry_lines(game: Game[Any], names: Names, entry: LogEntry) -> list[str]:
    """The public lines of one logged action (as the turn digest tells it)."""
    lines = [names.plain(x) for x in game.narrate(public_events(list(entry.events)),
                                                  names.mapping())]
    who = names.of(entry.player)
    if not lines:
        lines = [f"{who}: {names.plain(_shown_action(game, entry.action))}"]
    if entry.origin == BY_TIMEOUT:
        lines.insert(0, f"{who} ran out of time; Warhost played for them.")
    elif entry.origin == BY_COMPUTER and not is_computer_seat(entry.player):
        lines.insert(0, f"The computer played for {who}.")
    return lines


def step_of(game: Game[Any], names: Names, entry: LogEntry) -> dict[str, Any]:
    """One version of the game, for the replay: who did what, when, in lines."""
    undone = undone_by(entry)
    if entry.origin == BY_UNDO:
        n = len(undone)
        lines = [f"{names.of(entry.player)} took back {n} action{'s' if n != 1 else ''}."]
    else:
        lines = entry_lines(game, names, entry)
    return {"v": entry.seq, "who": names.of(entry.player), "when": entry.created_at,
            "lines": lines, "undo": entry.origin == BY_UNDO}


def turns_of(game: Game[Any], names: Names, entries: Sequence[LogEntry],
             digests: Sequence[Announcement],
             steps: Mapping[int, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The game as its turn digests told it, oldest first: each turn's versions, who
    played, when, and its lines (moves later taken back are left out, as in the log).
    ``steps``: each version's :func:`step_of`, when already made."""
    by_seq = {e.seq: e for e in entries}
    steps = steps or {}
    undone: set[int] = set()
    for entry in entries:
        undone.update(undone_by(entry))
    turns: list[dict[str, Any]] = []
    spans = [(int(d.payload.get("first", 1)), int(d.payload.get("last", 0)))
             for d in digests]
    covered = max((last for _, last in spans), default=0)
    if entries and entries[-1].seq > covered:     # a turn under way: its moves so far
        spans.append((covered + 1, entries[-1].seq))
    for first, last in spans:
        chosen = [by_seq[s] for s in range(first, last + 1) if s in by_seq]
        if last < first:
            turns.append({"first": first, "last": last, "title": "The game begins",
                          "when": digests[0].created_at if digests else None,
                          "lines": ["Seats: " + ", ".join(
                              f"{i}. {names.of(p)}" for i, p in enumerate(names.seats, 1))]})
            continue
        if not chosen:
            continue
        actors = list(dict.fromkeys(names.of(e.player) for e in chosen))
        lines: list[str] = []
        for entry in chosen:
            if entry.seq in undone:
                continue
            step = steps.get(entry.seq) or step_of(game, names, entry)
            lines.extend(step["lines"])
        turns.append({"first": first, "last": last, "title": ", ".join(actors),
                      "when": chosen[-1].created_at, "lines": lines})
    return turns


def outcome_data(names: Names, outcome: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not outcome:
        return None
    return {"winners": [names.of(str(w)) for w in outcome.get("winners") or ()],
            "standings": [names.of(str(p)) for p in outcome.get("standings") or ()],
            "reason": names.plain(str(outcome.get("reason") or ""))}


def seats_data(record: GameRecord, names: Names, to_act: Sequence[str],
               still_in: Sequence[str] | None, facts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each seat: its name, whether it must act, its deadline, bank, time-outs, away."""
    deadlines = facts.get("deadlines") or {}
    away = {**(facts.get("away") or {}), **(facts.get("vacations") or {})}
    timeouts = facts.get("timeouts") or record.timing.get("timeouts") or {}
    banks = record.timing.get("banks") or {}
    control = TimeControl.from_json(record.timing.get("control"))
    played_by = computers(record.timing)
    seats = []
    for i, p in enumerate(record.seats, 1):
        bank = banks.get(p)
        if bank is None and control is not None and control.bank is not None:
            bank = control.bank
        seats.append({
            "n": i, "name": names.of(p),
            "computer": is_computer_seat(p) or p in played_by,
            "acting": p in to_act,
            "out": still_in is not None and p not in still_in,
            "deadline": deadlines.get(p),
            "bank": None if bank is None else describe_duration(float(bank)),
            "timeouts": int(timeouts.get(p, 0) or 0),
            "away_until": away.get(p)})
    return seats


# -- a seat's private view ------------------------------------------------------------------


def _label(key: str) -> str:
    return key.replace("_", " ").strip().capitalize()


def _thing(value: Any, names: Names) -> str:
    """One card or piece of a private view, as a line of text: its name, then its
    figures ("attack: ground 6, sea 3"), then its own text."""
    if not isinstance(value, Mapping):
        return names.plain(str(value))
    head = str(value.get("name") or value.get("id") or "")
    figures: list[str] = []
    texts: list[str] = []
    for k, v in value.items():
        if k in ("name", "id") or v is None or v == [] or v == {}:
            continue
        if k == "text":
            texts.append(str(v))
        elif isinstance(v, Mapping):
            if isinstance(v.get("text"), str):
                texts.append(v["text"])         # a card's power, in its own words
                continue
            inner = ", ".join(f"{a} {b}" for a, b in v.items()
                              if b is not None and not isinstance(b, Mapping | list))
            if inner:
                figures.append(f"{_label(k).lower()}: {inner}")
        elif isinstance(v, list):
            if all(not isinstance(x, Mapping | list) for x in v):
                figures.append(f"{_label(k).lower()}: {', '.join(map(str, v))}")
        else:
            figures.append(f"{_label(k).lower()}: {v}")
    parts = [p for p in (head, " · ".join(figures), " ".join(t.strip() for t in texts)) if p]
    return names.plain(" — ".join(parts))


def private_sections(public: Mapping[str, Any], mine: Mapping[str, Any], user: str,
                     names: Names) -> list[dict[str, Any]]:
    """What ``user``'s own view holds that the public view does not, as sections of
    lines: their hand, their face-down stacks... (found by comparing the two views, so
    every game gets it without saying how its view is laid out)."""
    sections: list[dict[str, Any]] = []

    def own_entry(view: Mapping[str, Any]) -> Mapping[str, Any]:
        for entry in view.get("players") or ():
            if isinstance(entry, Mapping) and str(entry.get("id")) == user:
                return entry
        return {}

    def add(key: str, value: Any) -> None:
        if isinstance(value, Mapping) and all(isinstance(v, list) for v in value.values()):
            for sub, items in value.items():
                sections.append({"title": f"{_label(key)}: {sub}",
                                 "lines": [_thing(x, names) for x in items] or ["(empty)"]})
        elif isinstance(value, list):
            sections.append({"title": _label(key),
                             "lines": [_thing(x, names) for x in value] or ["(empty)"]})
        else:
            sections.append({"title": _label(key), "lines": [_thing(value, names)]})

    pub_own, my_own = own_entry(public), own_entry(mine)
    for key, value in my_own.items():
        if key not in pub_own or pub_own[key] != value:
            add(key, value)
    for key, value in mine.items():
        if key in ("viewer", "players"):
            continue
        if key not in public or public[key] != value:
            add(key, value)
    return sections


def private_event_lines(game: Game[Any], names: Names, entries: Sequence[LogEntry],
                        user: str, limit: int = 60) -> list[dict[str, Any]]:
    """What ``user`` was told privately, newest last: each move's private events in the
    game's words (or plainly, when it has none)."""
    told: list[dict[str, Any]] = []
    for entry in entries:
        mine = [{k: v for k, v in e.items() if k != "private_to"}
                for e in entry.events if e.get("private_to") == user]
        if not mine:
            continue
        lines = [names.plain(x) for x in game.narrate(mine, names.mapping())]
        if not lines:
            for event in mine:
                details = ", ".join(
                    _thing(v, names) if k in ("card", "cards", "name")
                    else f"{_label(k).lower()} {_thing(v, names)}"
                    for k, v in event.items() if k not in ("type", "player")
                    and v not in (None, []))
                lines.append(names.plain(
                    f"{_label(str(event.get('type', 'news')))}: {details}".rstrip(": ")))
        told.append({"v": entry.seq, "when": entry.created_at, "lines": lines})
    return told[-limit:]


# -- the page --------------------------------------------------------------------------------


def dice_data(record: GameRecord) -> dict[str, Any]:
    """What a page shows of a game's dice: the commitment, and once the game is over the
    seed and salt behind it (never before: the record holds them all along)."""
    if record.dice.get("scheme") != SCHEME:
        return {"committed": False}
    shown = {"committed": True, "commitment": str(record.dice.get("commitment", ""))}
    if not record.is_open:
        revealed = dice_reveal(record.dice)
        shown.update(seed=revealed["seed"], salt=revealed["salt"])
    return shown


def page_data(game: Game[Any], record: GameRecord, state: Any, entries: Sequence[LogEntry],
              digests: Sequence[Announcement], names: Names, facts: Mapping[str, Any],
              viewer: str | None = None) -> dict[str, Any]:
    """Everything a game's page shows (see the module's docstring). ``viewer``: the
    user of a personal link, whose private view is added; None for the public page."""
    steps = [step_of(game, names, e) for e in entries]
    data: dict[str, Any] = {
        "kind": record.kind, "name": game.name, "number": record.id,
        "status": record.status, "version": record.version,
        "created": record.created_at, "updated": record.updated_at,
        "clock": facts.get("clock"),
        "seats": [], "to_act": [], "round": None, "outcome": None,
        "turns": turns_of(game, names, entries, digests, {s["v"]: s for s in steps}),
        "steps": steps,
        "viewer": None, "private": None, "dice": dice_data(record),
    }
    if state is None:
        data["seats"] = [{"n": i, "name": names.of(p), "computer": is_computer_seat(p),
                          "acting": False, "out": False, "deadline": None, "bank": None,
                          "timeouts": 0, "away_until": None}
                         for i, p in enumerate(record.seats, 1)]
        return data
    public = game.view(state, None)
    outcome = game.outcome(state)
    to_act = [] if outcome is not None or record.status != "active" else game.to_act(state)
    rnd = public.get("round") if isinstance(public, Mapping) else None
    data.update(
        round=rnd if isinstance(rnd, int) and not isinstance(rnd, bool) else None,
        to_act=[names.of(p) for p in to_act],
        outcome=outcome_data(names, None if outcome is None else outcome.to_json()),
        seats=seats_data(record, names, to_act, game.still_in(state), facts))
    if viewer is not None and viewer in record.seats:
        mine = game.view(state, viewer)
        data["viewer"] = names.of(viewer)
        data["private"] = {
            "sections": private_sections(public, mine, viewer, names),
            "told": private_event_lines(game, names, entries, viewer)}
    return data


# -- ratings: a server's leaderboards, a player's statistics ---------------------------------

#: A player in a ratings page's address: a Discord user id, or a computer level.
_PLAYER_ID = re.compile(r"[0-9]{1,20}|" + re.escape(COMPUTER_PREFIX) + r"[a-z][a-z0-9_-]{0,31}")


def plausible_player(text: object) -> bool:
    """Whether ``text`` could name a rated player at all (checked before any read)."""
    return isinstance(text, str) and text.isascii() and _PLAYER_ID.fullmatch(text) is not None


def player_name(player: str, known: Mapping[str, str]) -> str:
    """A rated player's name on a server's pages: a computer level's, the kept display
    name, else :data:`FORMER_MEMBER`."""
    if is_computer_identity(player):
        return computer_label(player)
    return known.get(player) or FORMER_MEMBER


def one_decimal(value: float) -> str:
    """``21.349`` -> ``"21.3"`` (never ``"-0.0"``)."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def seconds_text(seconds: float | None) -> str | None:
    """A time per decision in words: ``"42 s"``, ``"3 min 5 s"``, ``"2 h 10 min"``,
    ``"1 d 4 h"`` (None stays None)."""
    if seconds is None or not math.isfinite(seconds):
        return None
    s = max(0, round(float(seconds)))
    if s < 60:
        return f"{s} s" if s else "under 1 s"
    if s < 3600:
        minutes, rest = divmod(s, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    if s < 86400:
        hours, rest = divmod(s, 3600)
        return f"{hours} h {rest // 60} min" if rest // 60 else f"{hours} h"
    days, rest = divmod(s, 86400)
    return f"{days} d {rest // 3600} h" if rest // 3600 else f"{days} d"


def rating_of(mu: float, sigma: float) -> dict[str, str]:
    """A rating as shown: the conservative rating μ − 3σ, and μ ± σ."""
    return {"rating": one_decimal(mu - 3 * sigma),
            "mu_sigma": f"{one_decimal(mu)} ± {one_decimal(sigma)}"}


def ranked_data(row: Ranked, known: Mapping[str, str]) -> dict[str, Any]:
    """One line of a leaderboard."""
    change = None if row.change is None else (("+" if row.change >= 0.05 else "")
                                              + one_decimal(row.change))
    return {"rank": row.rank, "player": row.player, "name": player_name(row.player, known),
            **rating_of(row.mu, row.sigma), "games": row.games, "wins": row.wins,
            "period_games": row.period_games, "change": change}


def pages_of(total: int, size: int = PAGE_SIZE) -> int:
    """How many pages a leaderboard of ``total`` people has (one, even when empty)."""
    return max(1, -(-max(0, total) // size))


def board_data(board: Leaderboard, game_name: str, known: Mapping[str, str],
               size: int = PAGE_SIZE) -> dict[str, Any]:
    """A leaderboard (one page of it) with its computer levels, as a page shows it."""
    return {"kind": board.kind, "name": game_name, "period": board.period,
            "total": board.total, "page": board.offset // size + 1,
            "pages": pages_of(board.total, size), "min_games": board.min_games,
            "rows": [ranked_data(r, known) for r in board.rows],
            "computers": [ranked_data(r, known) for r in board.computers]}


def chart_version(games: int, mu: float, sigma: float) -> str:
    """What a rating chart's address carries so a new game gives a new address (the
    chart may then be kept by browsers like a frame)."""
    digest = hashlib.blake2s(f"{mu:.9g}/{sigma:.9g}".encode(), digest_size=4).hexdigest()
    return f"{int(games)}-{digest}"


def player_data(stats: PlayerStats, name: str,
                game_names: Mapping[str, str]) -> dict[str, Any]:
    """A player's statistics on one server, as their page shows them."""
    kinds = []
    for k in stats.kinds:
        kinds.append({
            "kind": k.kind, "name": game_names.get(k.kind, k.kind), **rating_of(k.mu, k.sigma),
            "games": k.games, "wins": k.wins, "rank": k.rank, "ranked": k.ranked,
            "page": None if k.rank is None else (k.rank - 1) // PAGE_SIZE + 1,
            "listed": k.kind in game_names,
            "chart": chart_version(k.games, k.mu, k.sigma)})
    return {"player": stats.player, "name": name,
            "computer": is_computer_identity(stats.player),
            "games": stats.games, "wins": stats.wins,
            "win_share": (f"{round(100 * stats.wins / stats.games)}%" if stats.games
                          else None),
            "current_streak": stats.current_streak, "best_streak": stats.best_streak,
            "favourite": (None if stats.favourite is None
                          else game_names.get(stats.favourite, stats.favourite)),
            "average_decision": seconds_text(stats.average_decision),
            "timeouts": stats.timeouts, "kinds": kinds}
