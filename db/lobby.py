"""A game before and around its moves: the lobby (open, join, leave, seat computers,
reorder the seats), the start, an abort, and the lobby message that shows it.

:class:`Lobby` is a service of the store (``store.lobby``): every change runs under the
core's game lock, in one of its transactions, through its guarded write; the start
saves the opening digest with the dealt position, like a move.
"""

from __future__ import annotations

import secrets
from typing import Any

import engine
from db import computers as cpu
from db.backend import Connection
from db.clocks import TimeControl
from db.core import StoreCore
from db.records import (
    ABORTED,
    ACTIVE,
    LOBBY,
    ChannelBusy,
    GameRecord,
    StoreError,
    as_discord_id,
    as_game_id,
    canonical_json,
    new_public_id,
)
from db.turns import Turn
from engine import record as game_record
from engine.core import Game, IllegalAction
from engine.record import MAX_SEED, SCHEME, commitment, mixed_seed, rename_players


def draw_secret() -> tuple[str, str]:
    """A lobby's secret dice seed (256 bits) and salt (128 bits), as hex text."""
    return secrets.token_hex(32), secrets.token_hex(16)


def deal(seed: str, contributions: list[str]) -> int:
    """The game's dice seed from the lobby's secret ``seed`` and the seats'
    contributions (a seam: the end-to-end tests deal chosen seeds through it)."""
    return mixed_seed(seed, contributions)


def committed_dice(now: float) -> dict[str, Any]:
    """A new lobby's dice: a fresh secret and the commitment the lobby posts."""
    seed, salt = draw_secret()
    return {"scheme": SCHEME, "seed": seed, "salt": salt, "committed_at": now,
            "commitment": commitment(seed, salt), "contributions": {}}


def seat_limit(game: Game[Any], record: GameRecord) -> int:
    """How many seats the lobby has: the game's most, or exactly the players of the
    position it starts from."""
    players = record.origin.get("players")
    return players if isinstance(players, int) and players > 0 else game.max_players


def _contribution(value: object) -> str:
    """A contribution as the store keeps it: a Discord id's digits, else nothing."""
    text = str(value).strip() if value is not None else ""
    return text if text.isascii() and text.isdigit() and len(text) <= 20 else ""


def _describe(record: GameRecord) -> str:
    game = engine.GAMES.get(record.kind)
    name = game.name if game is not None else record.kind.title()
    where = "in the lobby" if record.status == LOBBY else "under way"
    return f"{name}, #{record.id}, {where}"


def _mention(user_id: str) -> str:
    return f"<@{user_id}>"


def _not_in_lobby(record: GameRecord) -> str:
    if record.status == ACTIVE:
        return f"Game #{record.id} has already started; the seats can no longer change."
    return f"Game #{record.id} is over."


class Lobby:
    """Opening, seating, starting and aborting games (``store.lobby``)."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    async def open(self, kind: str, guild_id: str | None, channel_id: str,
                   host_id: str, options: dict[str, Any] | None = None,
                   control: TimeControl | None = None, *, computers: int = 0,
                   level: str | None = None, takeover: bool = False,
                   rated: bool = True,
                   origin: dict[str, Any] | None = None) -> GameRecord:
        """A new game in its lobby, the host in seat 1, with an optional time control.

        ``rated=False``: a friendly game, which moves nobody's rating (its result still
        counts in the statistics; see :mod:`db.standings`).

        ``computers`` seats after the host's go to computer players of ``level`` (see
        :mod:`db.computers`); with ``takeover``, a player whose clock runs out hands their
        seat to the computer instead of having the safe default played.

        ``origin``: the game starts from a position (see
        :meth:`engine.origins.StartingPoint.to_origin`) instead of
        a fresh deal; such a game is never rated.

        The lobby's dice are committed to at once (:func:`committed_dice`): the lobby
        message shows the commitment before anyone joins.

        Raises :class:`ChannelBusy` if the channel already has an open game, and
        ``IllegalAction`` for an unknown kind or bad options.
        """
        game = engine.get_game(kind)
        resolved = game.resolve_options(options)
        try:
            chosen_level = cpu.level_of(level)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from None
        if isinstance(computers, bool) or not isinstance(computers, int) or not \
                0 <= computers < game.max_players:
            raise IllegalAction(f"{game.name} seats at most {game.max_players} players, so "
                                f"the host can add 0-{game.max_players - 1} computers.")
        bots = [cpu.computer_seat(n) for n in range(1, computers + 1)]
        timing: dict[str, Any] = {} if control is None else {"control": control.to_json()}
        if bots or takeover or level is not None:
            timing.update(computers=dict.fromkeys(bots, chosen_level),
                          computer_level=chosen_level, takeover=bool(takeover))
        if rated is False or origin:
            timing["rated"] = False
        if origin and 1 + computers > int(origin["players"]):
            raise IllegalAction(f"That position is for {origin['players']} players, so the "
                                f"host can add at most {int(origin['players']) - 1} "
                                "computers.")
        try:
            options_json = canonical_json(resolved)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"Those options cannot be saved: {exc}.") from exc
        guild = None if guild_id is None else as_discord_id(guild_id, "guild_id")
        channel = as_discord_id(channel_id, "channel_id")
        host = as_discord_id(host_id, "host_id")
        now = self.core.now()
        async with self.core.transaction() as conn:
            busy = await self.core.open_in_channel(conn, channel)
            if busy is None:
                # A create racing ours (another process) may insert first; the unique
                # index then makes this insert nothing, and the winner is reported.
                cursor = await conn.execute(
                    "INSERT INTO games (kind, guild_id, channel_id, host_id, status, seats, "
                    "seed, options, state, version, created_at, updated_at, timing, "
                    "public_id, dice, origin) "
                    "VALUES (?, ?, ?, ?, 'lobby', ?, 0, ?, NULL, 0, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (channel_id) WHERE status IN ('lobby', 'active') DO NOTHING",
                    (kind, guild, channel, host, canonical_json([host, *bots]), options_json,
                     now, now, canonical_json(timing), new_public_id(),
                     canonical_json(committed_dice(now)), canonical_json(origin or {})))
                if cursor.rowcount == 1 and cursor.lastrowid is not None:
                    return await self.core.fetch(conn, cursor.lastrowid)
                busy = await self.core.open_in_channel(conn, channel)
                if busy is None:
                    raise StoreError("Another game was being opened in this channel at the "
                                     "same moment; try again.")
            raise ChannelBusy(
                f"This channel already has a game ({_describe(busy)}). Finish or abort it "
                "first, or open a thread.")

    async def join(self, game_id: int, user_id: str,
                   contribution: object = None) -> GameRecord:
        """Seat ``user_id`` last. Refused unless in the lobby, not seated, not full.

        ``contribution``: the id Discord gave the interaction that seats them, mixed
        into the game's dice at the start (see :mod:`engine.record`)."""
        game_id = as_game_id(game_id)
        user = as_discord_id(user_id, "user_id")
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self.core.fetch(conn, game_id)
            if record.status != LOBBY:
                raise StoreError(_not_in_lobby(record))
            if user in record.seats:
                raise StoreError(f"You are already seated in game #{record.id}.")
            game = engine.get_game(record.kind)
            if len(record.seats) >= seat_limit(game, record):
                raise StoreError(f"Game #{record.id} is full ({len(record.seats)}/"
                                 f"{seat_limit(game, record)} players).")
            return await self.core.write(conn, record, seats=(*record.seats, user),
                                         dice=_with_contribution(record.dice, user,
                                                                 contribution))

    async def leave(self, game_id: int, user_id: str) -> GameRecord:
        """Give up a seat in the lobby.

        A leaving host hands over to the player seated after them; when the last
        player leaves, the game is aborted.
        """
        game_id = as_game_id(game_id)
        user = as_discord_id(user_id, "user_id")
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self.core.fetch(conn, game_id)
            if record.status == ACTIVE:
                raise StoreError(f"Game #{record.id} has already started; to leave it, "
                                 "resign.")
            if record.status != LOBBY:
                raise StoreError(_not_in_lobby(record))
            if user not in record.seats:
                raise StoreError(f"You are not seated in game #{record.id}.")
            index = record.seats.index(user)
            seats = record.seats[:index] + record.seats[index + 1:]
            people = cpu.humans(seats)
            if not people:     # nobody left to play against the computers
                return await self.core.write(conn, record, seats=seats, status=ABORTED)
            host = record.host_id
            if user == host:
                after = [*seats[index:], *seats[:index]]
                host = next(s for s in after if s in people)
            return await self.core.write(conn, record, seats=seats, host_id=host,
                                         dice=_with_contribution(record.dice, user, None))

    async def _host_in_lobby(self, conn: Connection, game_id: int, user: str,
                             doing: str) -> GameRecord:
        """The lobby ``user`` hosts, read for a change only its host may make."""
        record = await self.core.fetch(conn, game_id)
        if record.status != LOBBY:
            raise StoreError(_not_in_lobby(record))
        if user != record.host_id:
            raise StoreError(f"Only the host, {_mention(record.host_id)}, can {doing}.")
        return record

    async def add_computer(self, game_id: int, by_user: str,
                           level: str | None = None) -> GameRecord:
        """The host seats a computer player last (the table's level unless ``level``)."""
        game_id = as_game_id(game_id)
        user = as_discord_id(by_user, "by_user")
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self._host_in_lobby(conn, game_id, user, "add computer players")
            game = engine.get_game(record.kind)
            if len(record.seats) >= seat_limit(game, record):
                raise StoreError(f"Game #{record.id} is full ({len(record.seats)}/"
                                 f"{seat_limit(game, record)} players).")
            try:
                chosen = cpu.level_of(level or cpu.table_level(record.timing))
            except ValueError as exc:
                raise StoreError(str(exc)) from None
            seat = cpu.next_computer_seat(record.seats)
            timing = {**record.timing, "computer_level": cpu.table_level(record.timing),
                      "computers": {**cpu.computers(record.timing), seat: chosen}}
            return await self.core.write(conn, record, seats=(*record.seats, seat), timing=timing)

    async def remove_computer(self, game_id: int, by_user: str) -> GameRecord:
        """The host gives the last computer seat up."""
        game_id = as_game_id(game_id)
        user = as_discord_id(by_user, "by_user")
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self._host_in_lobby(conn, game_id, user,
                                               "remove computer players")
            bots = [s for s in record.seats if cpu.is_computer_seat(s)]
            if not bots:
                raise StoreError(f"Game #{record.id} has no computer players.")
            seat = bots[-1]
            left = {k: v for k, v in cpu.computers(record.timing).items() if k != seat}
            return await self.core.write(conn, record,
                                         seats=tuple(s for s in record.seats if s != seat),
                                         timing={**record.timing, "computers": left})


    async def set_seats(self, game_id: int, seats: list[str]) -> GameRecord:
        """Reorder the lobby: ``seats`` must be the seated players in a new order."""
        game_id = as_game_id(game_id)
        new_seats = tuple(as_discord_id(s, "seat") for s in seats)
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self.core.fetch(conn, game_id)
            if record.status != LOBBY:
                raise StoreError(_not_in_lobby(record))
            if (len(new_seats) != len(record.seats)
                    or sorted(new_seats) != sorted(record.seats)):
                seated = ", ".join(map(_mention, record.seats))
                raise StoreError("The new seating must list each seated player exactly "
                                 f"once: {seated}.")
            return await self.core.write(conn, record, seats=new_seats)

    async def start(self, game_id: int, by_user: str, seed: int | None = None,
                    contribution: object = None) -> GameRecord:
        """Start the game (host only, enough players).

        The position is dealt from the lobby's committed secret mixed with each seat's
        contribution (the host's is ``contribution``, the id of the interaction that
        starts the game), so neither the bot nor a player chose the dice alone. A tool
        or test may deal from a chosen ``seed`` instead; its record then says the dice
        were not committed to. A game from a position starts there, with the seats in
        it and fresh dice.
        """
        game_id = as_game_id(game_id)
        user = as_discord_id(by_user, "by_user")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                                 or not 0 <= seed <= MAX_SEED):
            raise StoreError(f"A seed must be a whole number from 0 to {MAX_SEED}.")
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self.core.fetch(conn, game_id)
            if record.status != LOBBY:
                raise StoreError(f"Game #{record.id} has already started." if
                                 record.status == ACTIVE else _not_in_lobby(record))
            if user != record.host_id:
                raise StoreError(f"Only the host, {_mention(record.host_id)}, can start "
                                 f"game #{record.id}.")
            game = engine.get_game(record.kind)
            needed = record.origin.get("players") or game.min_players
            if len(record.seats) < needed:
                raise StoreError(
                    f"{game.name} needs at least {needed} players; "
                    f"{len(record.seats)} seated. Wait for more players to join."
                    if not record.origin else
                    f"This game starts from a position for {needed} players; "
                    f"{len(record.seats)} seated. Wait for more players to join.")
            dice = _with_contribution(record.dice, user, contribution)
            if seed is not None or dice.get("scheme") != SCHEME:
                dice = {"scheme": game_record.UNCOMMITTED, "chosen": seed is not None}
                seed = secrets.randbits(63) if seed is None else seed
            else:
                given = dice.get("contributions") or {}
                mixed = [(s, str(given.get(s, ""))) for s in record.seats]
                dice = {**dice, "mixed": [list(pair) for pair in mixed]}
                seed = deal(str(dice["seed"]), [c for _, c in mixed])
            origin = dict(record.origin)
            if origin:      # the source (with its old players' ids) is not kept
                origin["position"] = seated_position(game, str(origin.pop("source")),
                                                     record.seats)
            try:
                state = game_record.opening(game, record.seats, seed, record.options,
                                            origin.get("position"))
            except IllegalAction as exc:
                raise StoreError(f"Game #{record.id} cannot start from its position: "
                                 f"{exc}") from None
            text = game.dump(state)
            now = self.core.now()
            turn = Turn.of(game, state)
            timing = {**record.timing, "started_at": now}
            control = TimeControl.from_json(timing.get("control"))
            if control is not None and control.bank is not None:
                timing = {**timing, "banks": {p: control.bank for p in record.seats}}
            started = await self.core.write(conn, record, status=ACTIVE, seed=seed, state=text,
                                            version=0, digest_seq=0, timing=timing,
                                            decisions=turn.decisions({}, None, now), wake_at=now,
                                            dice=dice, origin=origin)
            # The opening digest: the board and who moves first.
            await self.core.announce_digest(conn, game, started, state, 1, 0, turn, now)
        self.core.remember(started.id, 0, text, state)
        return started

    async def abort(self, game_id: int) -> GameRecord:
        """End a game in its lobby or under way, with no result."""
        game_id = as_game_id(game_id)
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self.core.fetch(conn, game_id)
            if not record.is_open:
                raise StoreError(f"Game #{record.id} is already over.")
            return await self.core.write(conn, record, status=ABORTED)

    async def set_message(self, game_id: int, message_id: str | None) -> None:
        """Remember the Discord message that shows the lobby."""
        game_id = as_game_id(game_id)
        message = None if message_id is None else as_discord_id(message_id, "message_id")
        async with self.core.game_lock(game_id), self.core.transaction() as conn:
            record = await self.core.fetch(conn, game_id)
            await self.core.write(conn, record, lobby_message_id=message)


def _with_contribution(dice: dict[str, Any], user: str, value: object) -> dict[str, Any]:
    """The lobby's dice with ``user``'s contribution set (None or nothing: dropped)."""
    if dice.get("scheme") != SCHEME:
        return dice
    given = {k: v for k, v in (dice.get("contributions") or {}).items() if k != user}
    made = _contribution(value)
    if made:
        given[user] = made
    return {**dice, "contributions": given}


def seated_position(game: Game[Any], source: str, seats: tuple[str, ...]) -> str:
    """A position with its players replaced, in seat order, by ``seats``."""
    state = game.load(source)
    players = game.players(state)
    if len(players) != len(seats):
        raise StoreError(f"This game starts from a position for {len(players)} players; "
                         f"{len(seats)} are seated.")
    text = rename_players(game.dump(state), dict(zip(players, seats, strict=True)))
    try:
        seated = game.load(text)
    except IllegalAction as exc:
        raise StoreError("The position's player ids also stand for something else in it, "
                         f"so the seats cannot be put in ({exc}).") from None
    if game.players(seated) != list(seats):
        raise StoreError("The position's player ids also stand for something else in it, "
                         "so the seats cannot be put in.")
    return game.dump(seated)
