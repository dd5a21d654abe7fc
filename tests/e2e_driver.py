"""The end-to-end game driver: whole games of any kind played through the Discord double
by scripted players, the engine run alongside, and the checks every game shares.

What it offers (the world it plays in is ``tests/e2e_world.py``):

* :class:`Match` — one game at one table. A per-game file subclasses it, names its
  ``game`` and adds only its own checks through the hooks (``friendly_form``,
  ``check_answer``, ``check_told``, ``check_off_turn``, ``check_image``, ``observe``).

  - ``await M.open(world, table, ["alice", "bob"], options=...)``: ``/game new``, Join,
    Start; checks the lobby, the seats and the opening board (``match.opening``).
  - ``await match.send(action, player=None, friendly=False)``: the player (default: the
    one who must act) sends ``action`` through ``/play`` or the game's own command;
    ``adopt`` then checks the store, the log, the mover's one private answer and the
    channel against the engine copy (one digest with the board when the turn or the
    decision passes or the game ends, with every line since the last; else nothing).
  - ``await match.play_until_over(computer(GAME, choose_action), before=..., after=...)``.
  - ``await match.check_over()``: the result posted, the game finished and verified.
  - ``refused`` (changes nothing, answers privately), ``offered`` / ``choices``
    (autocomplete), ``record()``, ``acting``.
* :class:`HiddenMatch`, :class:`Secrets`, :class:`Audit` — for games with hidden cards:
  after every step, everything the double recorded (messages and their edits, ephemeral
  answers, direct messages, autocomplete) is checked against what each audience may know
  (a game says what a player holds and what a step showed); ``private_lines`` checks the
  mover's private events are told to them alone, ``check_log_and_status`` that
  ``/game log`` and ``/game status`` name no secret.
* Checks: :func:`check_png` and :func:`check_board` (a public, decodable board PNG
  pinging exactly the right people), :func:`digest_after`, :func:`answered_once`,
  :func:`told_in_order`, :func:`check_commands_elsewhere`, :func:`check_friendly_forms`;
  and :func:`computer` (a chooser), :func:`unmention`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, ClassVar, TypeVar

from discord_double import DiscordDouble, Message, Reply, Table
from e2e_world import World, game_id_of, is_recap, new_messages, open_game
from e2e_world import friendly_form as verbs_form

from cogs import wording
from db import GameRecord
from engine import Outcome, public_events
from engine.core import Game

M = TypeVar("M", bound="Match")
#: ``chooser(state, n) -> (player, action)``: who acts and what, at the ``n``-th action.
Chooser = Callable[[Any, int], tuple[str, str]]
#: Far more actions than any game between computer players takes.
MAX_ACTIONS = 3000
LOBBY_BUTTONS = ("join", "leave", "start", "addbot")


# -- checks ------------------------------------------------------------------------------------


def unmention(text: str) -> str:
    """Mentions back to bare ids, to compare the bot's text with the engine's."""
    return re.sub(r"<@!?(\d+)>", r"\1", text)


def answered_once(reply: Reply) -> None:
    """The bot answered the interaction exactly once and Discord refused nothing."""
    assert len(reply.callbacks) == 1 and not reply.errors, reply.describe()


def check_png(message: Message) -> tuple[int, int]:
    """The message's one attachment is a PNG picture (fully decoded: a corrupt file
    fails); its size."""
    [png] = message.attachments
    assert png.filename.endswith(".png") and png.is_png
    image = png.image()
    assert image.format == "PNG"
    return image.size


def check_board(board: Message, ping: Iterable[str]) -> tuple[int, int]:
    """A public board PNG (see :func:`check_png`) that pings exactly ``ping``, each of
    them mentioned, and allows no other ping; its size."""
    ping = sorted(ping)
    assert not board.ephemeral
    size = check_png(board)
    assert sorted(board.pings) == ping, board.content
    sent = board.allowed_mentions or {}
    assert sorted(str(u) for u in sent.get("users") or []) == ping
    assert "everyone" not in (sent.get("parse") or [])
    for p in ping:
        assert f"<@{p}>" in board.content
    return size


def digest_after(table: Table, seen: int) -> Message:
    """The one channel message (a turn digest, with its board) posted after ``seen``."""
    posted = new_messages(table, seen)
    assert len(posted) == 1, [m.content for m in posted]
    assert len(posted[0].attachments) == 1
    return posted[0]


#: A phrase saying whose turn it is (the games' narration, or the digest's closing line).
WHOSE_TURN = re.compile(r"to play|'s turn\b|[Yy]our turn|to draw")


def whose_turn_lines(text: str, player: str) -> list[str]:
    """The lines of ``text`` saying it is ``player``'s turn: a digest has one."""
    return [line for line in text.splitlines()
            if wording.mention(player) in line and WHOSE_TURN.search(line)]


def turn_line_last(lines: list[str], player: str) -> list[str]:
    """``lines`` with the last one saying it is ``player``'s turn moved to the end: a
    digest says it in its closing line (after, say, the cards drawn as the turn began)."""
    for i in range(len(lines) - 1, -1, -1):
        if whose_turn_lines(lines[i], player):
            return [*lines[:i], *lines[i + 1:], lines[i]]
    return lines


def told_in_order(lines: list[str], message: Message, cut: int | None = None) -> None:
    """Every line, in order: whole, in the content (``cut`` None), or its first ``cut``
    characters, in the text (embeds too)."""
    text = message.content if cut is None else message.text
    at = 0
    for line in lines:
        part = line if cut is None else line[:cut]
        found = text.find(part, at)
        assert found >= 0, (part, text)
        at = found + len(part)


def computer(game: Game[Any], choose_action: Callable[..., str]) -> Chooser:
    """The game's automatic player for whoever must act (by turns, when several must)."""
    def choose(state: Any, n: int) -> tuple[str, str]:
        acting = game.to_act(state)
        player = acting[n % len(acting)]
        return player, choose_action(game, state, player)
    return choose


async def check_commands_elsewhere(table: Table, command: str, options: dict[str, Any],
                                   autocomplete: Iterable[tuple[str, str]],
                                   name: str = "alice") -> Reply:
    """A game's own commands outside its games: autocomplete offers ``name`` nothing with
    no game in the channel, nor once ``name`` and bob play Conqueror there, and
    ``command`` in the Conqueror game is refused privately, pointing to ``/play``. The
    refusal."""
    autocomplete = list(autocomplete)
    for cmd, option in autocomplete:
        assert await table.autocomplete(name, cmd, option) == [], cmd
    await open_game(table, "conqueror", [name, "bob"])
    other = await table.invoke(name, command, options)
    assert other.ephemeral and "/play" in (other.content or ""), other.describe()
    for cmd, option in autocomplete:
        assert await table.autocomplete(name, cmd, option) == [], cmd
    return other


def check_friendly_forms(game: Game[Any], friendly_form: Callable[[str], tuple[str, Any]],
                         actions: Iterable[str]) -> None:
    """A test's own ``friendly_form`` names, for each action, a ``/<kind>`` command of the
    bot with exactly those options, which the game's verb writes back as the action; and
    it knows no form for ``resign``."""
    import discord
    import pytest
    from discord.ext import commands

    from cogs.verbs import GameCommands
    from engine.verbs import verb_named

    group = GameCommands(commands.Bot(command_prefix="!", intents=discord.Intents.none())
                         ).groups[game.kind]
    for action in actions:
        command, options = friendly_form(action)
        name = command.removeprefix(f"{game.kind} ")
        found = group.get_command(name)
        assert found is not None, command
        assert {p.display_name for p in found.parameters} == set(options)  # type: ignore
        assert verb_named(game.verbs, name).notation(options) == action
    with pytest.raises(ValueError):
        friendly_form("resign")


# -- one game ----------------------------------------------------------------------------------


class Match:
    """One game at one table, with the engine run alongside from the store's seed.

    A game's subclass sets ``game`` (and ``line_cut``) and overrides only the hooks where
    its game differs: ``friendly_form``, ``observe``, ``check_answer`` /
    ``check_private`` (the mover's answer), ``check_told`` (what a digest must tell),
    ``check_off_turn`` (a digest asking someone to decide on another's turn) and
    ``check_image`` (the board's size). What it counts for the test to assert on:
    ``boards``, ``told``, ``off_turn``, ``n``, ``sent`` (by verb), ``events`` (by type)
    and ``applied`` (every ``(player, action, events)``).
    """

    game: ClassVar[Game[Any]]
    #: how much of each narrated line the mover's answer and the digests must carry:
    #: None, the whole line in the content; a number, that many characters in the text
    line_cut: ClassVar[int | None] = 300

    def __init__(self, world: World, table: Table, record: GameRecord, opened: Reply) -> None:
        game = self.game
        self.world = world
        self.table = table
        self.opened = opened
        self.game_id = record.id
        self.players = list(record.seats)
        assert record.state is not None
        self.state = game.new_game(self.players, record.seed, dict(record.options))
        assert game.dump(self.state) == record.state
        self.version = record.version
        self.seen = len(table.messages)
        self.opening: Message | None = None
        self.untold: list[str] = []       # narration the next digest must carry, in order
        self.boards = 0                   # boards checked: the opening, every digest
        self.told: list[str] = []         # the text of every digest
        self.off_turn = 0                 # digests asking someone off-turn
        self.n = 0                        # actions sent
        self.sent: Counter[str] = Counter()       # by verb
        self.events: Counter[str] = Counter()     # by type
        self.applied: list[tuple[str, str, list[dict[str, Any]]]] = []

    @classmethod
    async def open(cls: type[M], world: World, table: Table, names: list[str], *,
                   options: str | None = None) -> M:
        """``/game new`` by the first name, Join buttons for the others, Start button."""
        host, *guests = names
        extra = {"options": options} if options else {}
        opened = await table.slash(host, "game new", kind=cls.game.kind, **extra)
        assert not opened.ephemeral, opened.describe()
        lobby = opened.message
        game_id = game_id_of(opened)
        assert lobby.custom_ids == [f"warhost:lobby:{a}:{game_id}" for a in LOBBY_BUTTONS]
        for guest in guests:
            joined = await table.click(guest, "Join", message=lobby)
            assert joined.response_type == 7 and not joined.errors   # the lobby itself
        seen = len(table.messages)
        await table.click(host, "Start", message=lobby)
        assert lobby.custom_ids == []      # its buttons gone once started (a link may stay)
        record = await world.store.get(game_id)
        assert record.status == "active" and record.channel_id == table.channel.id
        assert list(record.seats) == [world.uid(n) for n in names]   # join order
        match = cls(world, table, record, opened)
        [board] = new_messages(table, seen)            # the opening digest
        match.check_image(check_board(board, cls.game.to_act(match.state)))
        match.opening = board
        match.boards += 1
        match.seen = len(table.messages)
        match.observe(match.state, [])
        return match

    # -- the hooks a game may change -----------------------------------------------------

    def friendly_form(self, action: str) -> tuple[str, dict[str, Any]]:
        """The game's own command and options for ``action`` (default: from its verbs)."""
        return verbs_form(self.game, action)

    def observe(self, state: Any, events: list[dict[str, Any]]) -> None:
        """Called with every new position, before the bot's answers are checked."""

    def check_answer(self, reply: Reply, player: str, action: str,
                     events: list[dict[str, Any]], lines: list[str]) -> None:
        """The mover's own answer: private, once, ✅, every line the game narrated (or,
        when it narrated nothing, the action itself); no ping. By default the action has
        no private event at all."""
        answered_once(reply)
        assert reply.ephemeral and (reply.content or "").startswith("✅"), reply.describe()
        assert [m for m in reply.messages if not m.ephemeral] == []
        assert all(m.pings == [] for m in reply.messages)
        if not self.game.narrate(public_events(events), wording.mentions(self.players)):
            assert f"`{self.game.normalise(action)}`" in (reply.content or ""), reply.describe()
            lines = []                      # the channel's "who did what" line is not here
        for line in lines:
            if self.line_cut is None:
                assert line in (reply.content or ""), (line, reply.content)
            else:
                assert line[:self.line_cut] in reply.text, (line, reply.text)
        self.check_private(reply, player, events)

    def check_private(self, reply: Reply, player: str, events: list[dict[str, Any]]) -> None:
        """The private events of the action: by default, there are none."""
        assert not any("private_to" in e for e in events)     # nothing is hidden here

    def check_told(self, board: Message) -> None:
        """The digest tells every line since the last one, in order."""
        told_in_order(self.untold, board, self.line_cut)

    def check_off_turn(self, board: Message, state: Any) -> None:
        """A digest asking someone to decide on another player's turn."""
        raise AssertionError(f"nobody decides off-turn in {self.game.name}: {board.content}")

    def check_image(self, size: tuple[int, int]) -> None:
        """The size of a board the game posted."""

    # -- playing -------------------------------------------------------------------------

    @property
    def acting(self) -> str:
        """The one player who must act."""
        [player] = self.game.to_act(self.state)
        return player

    def uid(self, name: str) -> str:
        return self.world.uid(name)

    def name(self, user_id: str) -> str:
        return self.world.name(user_id)

    async def record(self) -> GameRecord:
        return await self.world.store.get(self.game_id)

    async def send(self, action: str, *, player: str | None = None,
                   friendly: bool = False) -> Reply:
        """``player`` (default: the one to act) sends ``action`` through ``/play`` or,
        ``friendly``, the game's own command; the bot's answer is checked against the
        engine copy."""
        player = self.acting if player is None else player
        expected, events = self.game.apply(self.state, player, action)  # the engine first
        name = self.name(player)
        if friendly:
            command, options = self.friendly_form(action)
            reply = await self.table.invoke(name, command, options)
        else:
            reply = await self.table.slash(name, "play", action=action)
        await self.adopt(reply, player, action, expected, events)
        return reply

    async def adopt(self, reply: Reply, player: str, action: str, expected: Any,
                    events: list[dict[str, Any]]) -> None:
        """Check that ``reply`` applied ``action`` exactly as the engine copy did."""
        game = self.game
        record = await self.record()
        assert record.version == self.version + 1, reply.describe()
        assert record.state == game.dump(expected)
        assert game.dump(self.world.store.load_state(record)) == record.state
        [entry] = await self.world.store.history.log(self.game_id, limit=1)
        assert (entry.seq, entry.player, entry.action) == (record.version, player, action)
        assert entry.events == events
        outcome = game.outcome(expected)
        assert record.status == ("finished" if outcome else "active")
        self.observe(expected, events)

        lines = wording.narration_lines(game, self.players, player, action, events)
        self.check_answer(reply, player, action, events, lines)
        self.untold.extend(lines)

        # the channel: one digest when the turn or the decision passes, or the game ends
        # (resigning is news too), with everything since the last one; else nothing
        posted = new_messages(self.table, self.seen)
        self.seen = len(self.table.messages)
        before = (game.current_turn(self.state), set(game.to_act(self.state)))
        after = (game.current_turn(expected), set(game.to_act(expected)))
        if outcome is not None or before != after or action == "resign":
            [board] = posted
            acting = game.to_act(expected)
            if outcome is None and acting == [game.current_turn(expected)]:
                # the line beginning the turn closes the digest, said once and pinging
                self.untold = turn_line_last(self.untold, acting[0])
            self.check_told(board)
            self.untold = []
            self.told.append(board.text)
            acting = game.to_act(expected)
            self.check_image(check_board(board, outcome.winners if outcome else acting))
            if outcome is not None:
                assert "Game over" in board.content
            elif acting == [game.current_turn(expected)]:
                assert len(whose_turn_lines(board.content, acting[0])) == 1, board.content
                assert "`/play`" in board.content.splitlines()[-2]      # then the marker
            else:
                self.check_off_turn(board, expected)
                self.off_turn += 1
            self.boards += 1
        else:
            assert posted == [], "a public message while the same player keeps acting"
        self.state = expected
        self.version = record.version
        self.n += 1
        self.sent[action.split()[0]] += 1
        self.events.update(e["type"] for e in events)
        self.applied.append((player, action, events))

    async def play_until_over(self, chooser: Chooser, *,
                              before: Callable[[str, str], Awaitable[None]] | None = None,
                              after: Callable[[int], Awaitable[None]] | None = None,
                              friendly: Callable[[int], bool] = lambda n: n % 2 == 0,
                              limit: int = MAX_ACTIONS) -> int:
        """Actions from ``chooser(state, n)`` until the game ends, through ``/play`` and the
        game's own commands by turns (``friendly(n)``), ``n`` counting from 0 here;
        ``before(player, action)`` runs before each, ``after(n)`` after (``n`` sent). How
        many actions it took."""
        n = 0
        while self.game.outcome(self.state) is None:
            assert n < limit
            player, action = chooser(self.state, n)
            if before is not None:
                await before(player, action)
            await self.send(action, player=player, friendly=friendly(n))
            n += 1
            if after is not None:
                await after(n)
        return n

    async def check_over(self) -> Outcome:
        """The result is posted with the board, pinging the winners; the game is finished,
        its log verified, and the channel free."""
        outcome = self.game.outcome(self.state)
        assert outcome is not None
        result = self.table.last_message(lambda m: bool(m.attachments) and not is_recap(m))
        for winner in outcome.winners:
            assert f"<@{winner}>" in result.content
        if len(outcome.winners) == 1:
            assert f"🏆 **Game over** — <@{outcome.winners[0]}> wins!" in result.content
        assert sorted(result.pings) == sorted(outcome.winners)
        record = await self.record()
        assert record.status == "finished"
        assert await self.world.store.history.verify(self.game_id)
        assert await self.world.store.active_in_channel(self.table.channel.id) is None
        return outcome

    # -- what must change nothing -------------------------------------------------------

    async def refused(self, name: str, command: str = "play",
                      options: dict[str, Any] | None = None, *,
                      engine_says: str | None = None) -> Reply:
        """``name`` runs a command that must change nothing and get a private answer."""
        before = await self.record()
        reply = await self.table.invoke(name, command, options or {})
        return await self.unchanged(reply, before, engine_says=engine_says)

    async def unchanged(self, reply: Reply, before: GameRecord, *,
                        engine_says: str | None = None) -> Reply:
        """The game is as it was ``before`` (nothing stored, logged or touched) and
        ``reply`` answered only its sender, without a crash (in the engine's words, if
        ``engine_says``)."""
        after = await self.record()
        assert (after.version, after.state, after.status) == (
            before.version, before.state, before.status)
        assert after.updated_at == before.updated_at
        assert len(await self.world.store.history.log(self.game_id, limit=10_000)) == \
            before.version
        assert reply.ephemeral and reply.content, reply.describe()
        assert all(m.ephemeral for m in reply.messages)
        assert "Something went wrong" not in reply.content
        if engine_says is not None:
            assert unmention(reply.content) == engine_says
        return reply

    # -- autocomplete --------------------------------------------------------------------

    async def choices(self, name: str, command: str, option: str, typed: str = "",
                      **options: Any) -> list[tuple[str, str]]:
        """What autocomplete offers ``name``: (label, value) pairs, 25 at most."""
        got = await self.table.autocomplete(name, command, option, typed=typed, **options)
        assert len(got) <= 25
        return [(c.name, str(c.value)) for c in got]

    async def offered(self, name: str, command: str, option: str, typed: str = "",
                      **options: Any) -> list[str]:
        """The values autocomplete offers ``name``."""
        return [v for _, v in await self.choices(name, command, option, typed, **options)]

    async def check_play_autocomplete(self, people: Iterable[str]) -> None:
        """Whoever must act gets their legal actions from ``/play``; everyone else nothing."""
        for name in people:
            pid = self.uid(name)
            legal = (self.game.legal_actions(self.state, pid)
                     if pid in self.game.to_act(self.state) else [])
            assert await self.offered(name, "play", "action") == legal[:25]


# -- hidden information ----------------------------------------------------------------------


class Secrets:
    """The names of each player's cards that were never shown to everyone, as the game
    goes. A game says what a player holds (``own``) and what a step showed (``shown``)."""

    def __init__(self, players: list[str]) -> None:
        self.players = players
        self.ever_public: set[str] = set()
        self.known: dict[str, set[str]] = {p: set() for p in players}  # e.g. scouted
        self.secret: dict[str, set[str]] = {p: set() for p in players}
        self.all_secret: set[str] = set()               # ever secret, for the record

    def own(self, state: Any, player: str) -> set[str]:
        raise NotImplementedError

    def shown(self, state: Any, events: list[dict[str, Any]]) -> set[str]:
        """What this step made public (the public view, public events...)."""
        raise NotImplementedError

    def step(self, state: Any, events: list[dict[str, Any]]) -> None:
        self.ever_public |= self.shown(state, events)
        for p in self.players:
            self.secret[p] = self.own(state, p) - self.ever_public
            self.all_secret |= self.secret[p]

    def forbidden(self, audience: str | None) -> set[str]:
        """Names ``audience`` (a player, or None: everyone) must not see now."""
        if audience is None:
            return set().union(*self.secret.values())
        return set().union(*(self.secret[q] - self.known.get(audience, set())
                             for q in self.players if q != audience))


class Audit:
    """Checks everything the double recorded since the last look against what each
    audience may not see: channel messages and their edits, embeds, ephemeral answers,
    direct messages, and every autocomplete answer."""

    def __init__(self, dd: DiscordDouble, people: Iterable[str],
                 forbidden: Callable[[str | None], set[str]]) -> None:
        self.dd = dd
        self.forbidden = forbidden
        self.seen_payloads: dict[str, int] = {}
        self.seen_interactions: set[str] = set()
        self.dm_of = {dd.dm_channel(name).id: dd.resolve_user(name).id for name in people}
        self.checked = {"public": 0, "ephemeral": 0, "dm": 0, "autocomplete": 0}
        #: per player: every private message marked "Only you can see this"
        self.private_lines: dict[str, list[str]] = {}

    def audience(self, m: Message) -> str | None:
        if m.channel.id in self.dm_of:
            return self.dm_of[m.channel.id]
        return m.visible_to

    def look(self) -> None:
        for m in list(self.dd.messages.values()):
            done = self.seen_payloads.get(m.id, -1)
            if done >= len(m.payloads) and done >= 0:
                continue
            self.seen_payloads[m.id] = len(m.payloads)
            audience = self.audience(m)
            text = m.text + json.dumps(m.payloads, ensure_ascii=False) + json.dumps(
                m.history, ensure_ascii=False)
            leaked = {name for name in self.forbidden(audience) if name in text}
            assert not leaked, f"{leaked} leaked to {audience or 'everyone'}: {m!r}"
            kind = ("dm" if m.channel.id in self.dm_of
                    else "ephemeral" if m.visible_to else "public")
            self.checked[kind] += 1
            if audience is not None and "Only you can see this" in m.content:
                self.private_lines.setdefault(audience, []).append(m.content)
        for reply in list(self.dd.interactions.values()):
            if reply.id in self.seen_interactions or reply.choices is None:
                continue
            self.seen_interactions.add(reply.id)
            text = " ".join(f"{c.name} {c.value}" for c in reply.choices)
            leaked = {name for name in self.forbidden(reply.user.id) if name in text}
            assert not leaked, f"{leaked} offered to {reply.user.name}"
            self.checked["autocomplete"] += 1


class HiddenMatch(Match):
    """A match of a game with hidden cards: after every step, the secrets are updated and
    everything recorded so far is audited against them."""

    secrets_class: ClassVar[type[Secrets]]

    def __init__(self, world: World, table: Table, record: GameRecord, opened: Reply) -> None:
        super().__init__(world, table, record, opened)
        self.secrets = self.secrets_class(self.players)
        self.audit = Audit(world.dd, world.people, self.secrets.forbidden)

    def observe(self, state: Any, events: list[dict[str, Any]]) -> None:
        self.secrets.step(state, events)
        self.audit.look()

    async def check_log_and_status(self, people: Iterable[str]) -> None:
        """``/game log`` and ``/game status`` for each of ``people`` name no secret."""
        for name in people:
            for command in ("game log", "game status"):
                await self.table.slash(name, command)
        self.audit.look()

    def private_lines(self, reply: Reply, player: str, events: list[dict[str, Any]],
                      narrate: Callable[[list[dict[str, Any]]], list[str]]) -> bool:
        """The mover's private events: in their answer alone, each line told (``narrate``
        words them); whether there were any."""
        mine = [{k: v for k, v in e.items() if k != "private_to"}
                for e in events if e.get("private_to") == player]
        if mine:
            assert reply.message.visible_to == player
            for line in narrate(mine):
                assert line[:self.line_cut or len(line)] in reply.text
        return bool(mine)
