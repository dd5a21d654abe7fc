"""The contract every Warhost game implements, and the pieces games share.

A game is a stateless object (a :class:`Game` subclass); all that changes lives in
its state, which the game never mutates in place: :meth:`Game.apply` returns a new
state. Everything a game does is deterministic: dice come from a generator kept in
the state (:class:`Dice`), seeded by :meth:`Game.new_game`, and a queue of forced
results lets tests and hand-written positions script exact rolls.

Actions are short text notations ("move b2 c3 3", "end"), case-insensitive on input;
:meth:`Game.legal_actions` lists the canonical spellings. Every bad input raises
:class:`IllegalAction` with a message a player can act on; nothing else escapes.
"""

from __future__ import annotations

import dataclasses
import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from engine.verbs import Verb

JSON = dict[str, Any]
Event = dict[str, Any]

#: The action every game accepts from any player still in the game, at any time,
#: even out of turn. It is not listed by ``legal_actions`` (it is always legal).
RESIGN = "resign"

#: Longest action text a game will even look at; anything longer is refused unread.
MAX_ACTION_LENGTH = 200


class IllegalAction(ValueError):
    """An action the game refuses. The message is meant for the player."""


@dataclass(frozen=True)
class Option:
    """A game option offered in the lobby."""

    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``standings`` lists every player from first place to last; players who went
    out are ordered by when they went out (the first one out is last). ``reason`` is
    a sentence that names no player (``winners`` says who), so every caller can show
    it with its own names.
    """

    winners: tuple[str, ...]
    standings: tuple[str, ...]
    reason: str

    def to_json(self) -> JSON:
        return {"winners": list(self.winners), "standings": list(self.standings),
                "reason": self.reason}


@dataclass(frozen=True)
class GameFacts:
    """What a game tells the platform's generic tests about itself: facts only the game
    knows, beyond what the contract's calls answer (``tests/test_engine_timeouts.py``,
    ``tests/test_engine_movegen.py``, ``tests/test_render_phone.py``, the store's round
    trip). Every field has a default, so a game that declares nothing still passes those
    suites; a game declares more to be held to more. Nothing in play reads them.
    """

    #: Decisions (:meth:`Game.decision`) that seeded random play must reach.
    decisions: frozenset[str] = frozenset()
    #: How many seeded random games that takes.
    decision_seeds: int = 8
    #: Verbs whose undo verdict (:meth:`Game.reversible`) is the same in every position:
    #: verb -> whether it may be undone.
    fixed_undo: Mapping[str, bool] = field(default_factory=dict)
    #: What the board image must show readable on a phone: text roles of
    #: ``render.common.ESSENTIAL_ROLES`` ("turn", "count", "score", "hand").
    board_shows: frozenset[str] = frozenset({"turn", "score"})
    #: Options for a short game, for tests that play whole games (the store, Discord).
    short_game: Mapping[str, Any] = field(default_factory=dict)
    #: Other option sets that random play covers too (a smaller board, say).
    variants: tuple[Mapping[str, Any], ...] = ()


_MASK64 = (1 << 64) - 1


@dataclass
class Dice:
    """Six-sided dice from a SplitMix64 generator whose whole state is one integer.

    Chosen over :mod:`random` because its state is tiny, JSON-able and identical on
    every platform and Python version, so a dump holds the exact generator.
    ``forced`` results are used first, in order, before the generator: that is how
    tests and hand-written positions script exact rolls.
    """

    state: int
    forced: list[int] = field(default_factory=list)

    @classmethod
    def from_seed(cls, seed: int) -> Dice:
        return cls(state=seed & _MASK64)

    def _next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, so no modulo bias)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self._next64()
            if x < limit:
                return x % n

    def roll(self, sides: int = 6) -> int:
        """One die, 1..sides; a forced result first if one is queued."""
        if self.forced:
            value = self.forced.pop(0)
            if not 1 <= value <= sides:
                raise ValueError(f"forced die {value} is not a d{sides} result")
            return value
        return self.below(sides) + 1

    def shuffle(self, items: list[str]) -> list[str]:
        """A new list of ``items`` in Fisher-Yates order drawn from this generator (forced
        results are for dice, so they are never used here)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def copy(self) -> Dice:
        return Dice(self.state, list(self.forced))

    def to_json(self) -> JSON:
        return {"state": self.state, "forced": list(self.forced)}

    @classmethod
    def from_json(cls, data: JSON) -> Dice:
        state = data["state"]
        forced = data.get("forced", [])
        if not isinstance(state, int) or not all(isinstance(v, int) for v in forced):
            raise ValueError("dice state must be integers")
        return cls(state & _MASK64, list(forced))


S = TypeVar("S")


class PositionFormat(Protocol[S]):
    """A game's position format, usually its state module: ``dump`` and ``load``."""

    def dump(self, state: S, /) -> str: ...

    def load(self, text: str, /) -> S: ...


class Narration(Protocol):
    """How a game tells its events, usually its narration module (see
    :mod:`engine.narration`)."""

    def narrate(self, events: list[Event], names: dict[str, str], /) -> list[str]: ...


class Game(ABC, Generic[S]):
    """One kind of game. Subclasses set the metadata, name their position format
    (:attr:`positions`) and narration (:attr:`narrator`), and implement the rules."""

    kind: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    summary: ClassVar[str] = ""
    options: ClassVar[tuple[Option, ...]] = ()
    #: The game's friendly commands (see :mod:`engine.verbs`): the platform builds the
    #: game's slash group and its autocomplete from them. Empty: ``/play`` only.
    verbs: ClassVar[tuple[Verb, ...]] = ()
    #: The position format :meth:`dump` and :meth:`load` use: usually the game's state
    #: module, with its ``dump(state)`` and ``load(text)``.
    positions: PositionFormat[S]
    #: What :meth:`narrate` tells events with: usually the game's narration module, with
    #: its ``narrate(events, names)``. None: each public event's ``text`` (or its type).
    narrator: Narration | None = None
    #: What the generic tests hold this game to (see :class:`GameFacts`).
    facts: ClassVar[GameFacts] = GameFacts()
    #: The version of the rules as this engine plays them: raised whenever a change makes
    #: an old log replay differently, so a game record says which rules it was played by.
    rules_version: ClassVar[int] = 1
    #: Argument kinds of :attr:`verbs` whose values may be secret when played (a card
    #: from a hand): an action naming one is shown to the public only once one of its
    #: public events shows that value too (:meth:`public_action`).
    secret_kinds: ClassVar[frozenset[str]] = frozenset()

    def resolve_options(self, options: dict[str, Any] | None) -> dict[str, Any]:
        """Defaults overlaid with ``options``; unknown names or bad values are refused."""
        known = {o.name: o for o in self.options}
        resolved = {o.name: o.default for o in self.options}
        for key, value in (options or {}).items():
            option = known.get(key)
            if option is None:
                raise IllegalAction(f"{self.name} has no option called {key!r}.")
            if option.choices and value not in option.choices:
                allowed = ", ".join(map(str, option.choices))
                raise IllegalAction(f"Option {key} must be one of: {allowed}.")
            resolved[key] = value
        return resolved

    def check_players(self, players: list[str]) -> None:
        if not self.min_players <= len(players) <= self.max_players:
            raise IllegalAction(
                f"{self.name} needs {self.min_players}-{self.max_players} players, "
                f"not {len(players)}.")
        if len(set(players)) != len(players):
            raise IllegalAction("A player cannot take two seats.")
        if not all(isinstance(p, str) and p for p in players):
            raise IllegalAction("Player ids must be non-empty strings.")

    @abstractmethod
    def new_game(self, players: list[str], seed: int,
                 options: dict[str, Any] | None = None) -> S:
        """A fresh game; seat order is the order of ``players``."""

    @abstractmethod
    def to_act(self, state: S) -> list[str]:
        """Players who must act now; empty once the game is over."""

    @abstractmethod
    def legal_actions(self, state: S, player: str) -> list[str]:
        """Canonical notations of every action ``player`` may take now (never raises)."""

    @abstractmethod
    def apply(self, state: S, player: str, action: str) -> tuple[S, list[Event]]:
        """Return the state after ``player`` does ``action``, and what happened.

        Never mutates ``state``. Raises :class:`IllegalAction` for any bad input.
        """

    def play_on(self, state: S, player: str, action: str) -> S:
        """:meth:`apply` for a caller that owns ``state`` and wants neither it afterwards
        nor the events (a search's play-out): a game may change ``state`` in place and
        return it, sparing the copy. The state that comes back must be the one
        :meth:`apply` gives; an illegal action raises :class:`IllegalAction` and leaves
        ``state`` as it was. By default it is :meth:`apply`."""
        return self.apply(state, player, action)[0]

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """None while the game runs."""

    @abstractmethod
    def view(self, state: S, player: str | None) -> JSON:
        """What ``player`` may see (``None``: the public, spectator view). JSON-able."""

    def dump(self, state: S) -> str:
        """The position format: JSON text that :meth:`load` turns back into ``state``."""
        return self.positions.dump(state)

    def load(self, text: str) -> S:
        """Parse the position format; raises :class:`IllegalAction` if malformed."""
        return self.positions.load(text)

    @abstractmethod
    def players(self, state: S) -> list[str]:
        """Every seat's player id, in seat order."""

    @abstractmethod
    def current_turn(self, state: S) -> str | None:
        """Whose turn it is (not always who must act); None once over."""

    #: Actions that close a turn or a step without doing anything further, in the order
    #: :meth:`timeout_action` prefers them.
    SAFE_ENDINGS: ClassVar[tuple[str, ...]] = ("end", "pass", "done", "end turn")

    def still_in(self, state: S) -> list[str]:
        """The players who may still resign, in seat order: while the game runs, those who
        have not gone out (resigned or been eliminated); nobody once it is over. By
        default the seats not ``out`` of a state that keeps ``seats`` (:class:`Seated`),
        else every player."""
        if self.outcome(state) is not None:
            return []
        seats = getattr(state, "seats", None)
        if isinstance(seats, list) and all(hasattr(s, "id") and hasattr(s, "out")
                                           for s in seats):
            return [str(s.id) for s in seats if not s.out]
        return self.players(state)

    def sides(self, state: S) -> dict[str, str]:
        """Each seat's side, nation or colour ("french", "Romans"), for the statistics of
        real games (win share by side); ``""`` where a game has none. By default the
        public view's ``players`` entries' ``side`` or ``nation``. Sides are public: a
        game whose sides are secret returns ``""`` for them."""
        found: dict[str, str] = dict.fromkeys(self.players(state), "")
        entries = self.view(state, None).get("players")
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and str(entry.get("id")) in found:
                side = entry.get("side") or entry.get("nation") or ""
                found[str(entry["id"])] = side if isinstance(side, str) else ""
        return found

    def rounds(self, state: S) -> int | None:
        """How many rounds the game has reached (statistics of game length): the public
        view's ``round``, None for a game that counts none."""
        value = self.view(state, None).get("round")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def decision(self, state: S) -> str:
        """A short name for the kind of decision ``state`` asks for ("turn", "casualty",
        "battle fire"...): the public view's ``phase``, or "turn" for a game without
        phases. Tests use it to show that random play reaches every decision a game has
        (:attr:`GameFacts.decisions`); a game whose phases hide finer decisions refines it.
        """
        phase = self.view(state, None).get("phase")
        return phase if isinstance(phase, str) and phase else "turn"

    def timeout_action(self, state: S, player: str) -> str | None:
        """The action the platform plays for ``player`` when their clock runs out.

        Games last days and players drift away; rather than stall everyone else, the
        platform skips an absent player with a move the engine vouches for. The product
        rule is that every pending decision has a *safe* default: it ends the turn, gives
        up the least costly casualty, never withdraws, and declines optional reactions,
        so a timed-out player is never made to spend, attack or reveal anything they did
        not choose to. The answer is always one of :meth:`legal_actions` (its canonical
        spelling), or None when ``player`` has nothing to decide.

        The platform loops on this until the player is no longer in :meth:`to_act`, so
        every game guarantees that repeating it takes the player out of ``to_act`` (or
        ends the game) within a bounded number of steps, from any reachable state.

        This default suits a game whose turns end with ``end``/``pass``/``done``; when no
        such action is legal (a mandatory step is pending) it takes the first legal one,
        which games list in their most neutral order. Games with casualties, withdrawals
        or optional reactions override it.
        """
        if player not in self.to_act(state):
            return None
        legal = self.legal_actions(state, player)
        if not legal:
            return None
        for action in self.SAFE_ENDINGS:
            if action in legal:
                return action
        return legal[0]

    def determinize(self, state: S, player: str, rng: random.Random) -> S:
        """A state ``player`` cannot tell from ``state``, with everything they cannot see
        drawn afresh from ``rng``: what a computer player searches, so it never knows
        more than a person in its seat would.

        It must depend only on what ``player`` knows (their own view and what has been
        revealed), never on the true hidden values: two states that differ only in
        what ``player`` cannot see must give the same result for the same ``rng``. The
        default redraws the dice to come (a state's ``dice`` generator), which suits a
        game whose only secret is the future. Games with hidden cards override it.
        """
        if dataclasses.is_dataclass(state) and not isinstance(state, type) and any(
                f.name == "dice" for f in dataclasses.fields(state)):
            # apply() never mutates a state, so sharing the rest with the original is safe
            return dataclasses.replace(state, dice=Dice.from_seed(rng.getrandbits(64)))
        return state

    def forget(self, state: S) -> S:
        """``state`` without what its seats remember having seen (a scouted stack, cards
        seen played): knowledge that follows from the actions, not part of the position
        itself. A record fingerprints positions without it, so records written before a
        game kept such memory still verify. The default: a game with no memory."""
        return state

    def reseed(self, state: S, seed: int) -> S:
        """``state`` with its dice generator started afresh from ``seed`` (forced results
        dropped): how a game started from a position gets dice nobody chose. By default a
        state's ``dice`` field; a state without one (no chance after the deal) is kept."""
        if dataclasses.is_dataclass(state) and not isinstance(state, type) and any(
                f.name == "dice" for f in dataclasses.fields(state)):
            return dataclasses.replace(state, dice=Dice.from_seed(seed))
        return state

    def public_action(self, action: str, events: list[Event]) -> str | None:
        """``action`` as the public may read it, or None while it names something secret:
        an argument of a :attr:`secret_kinds` kind whose value no public event of the
        action shows. Text no verb reads is shown only by games with no secret kinds."""
        try:
            text = self.normalise(action)
        except IllegalAction:
            return None
        if not self.secret_kinds or text == RESIGN:
            return text
        shown: set[str] = set()
        _words(public_events(events), shown)
        for verb in self.verbs:
            words = verb.matches(text)
            if words is None:
                continue
            for arg in verb.args:
                if arg.kind in self.secret_kinds and words[verb.position(arg.name)] not in shown:
                    return None
            return text
        return None

    def reversible(self, before: S, after: S, events: list[Event]) -> bool:
        """Whether the action that turned ``before`` into ``after`` may be taken back.

        Undo is a courtesy for slips (a mis-typed square, a move sent too soon), and it
        must never become a way to peek and retry. So undo may never go past anything
        chance decided (a die roll: the generator in ``state.dice`` moved or a forced
        result was used), anything one player was told privately (an event with
        ``private_to``), a player going out (:meth:`still_in`: a resignation stands) or
        the end of the game (a result is final once announced).
        Everything else in a game is deterministic, so the platform can undo by
        replaying the log up to ``before``. Games whose chance or secrets live outside
        ``state.dice`` (cards, hidden hands) or whose fights must stand override this and
        call it for the common checks.
        """
        if any("private_to" in event for event in events):
            return False
        if self.still_in(after) != self.still_in(before):
            return False
        dice_before, dice_after = getattr(before, "dice", None), getattr(after, "dice", None)
        if dice_before is not None or dice_after is not None:
            if not isinstance(dice_before, Dice) or not isinstance(dice_after, Dice):
                return False
            if (dice_before.state != dice_after.state
                    or dice_before.forced != dice_after.forced):
                return False
        return self.outcome(after) is None

    def narrate(self, events: list[Event], names: dict[str, str] | None = None) -> list[str]:
        """One short line of text per public event worth telling the channel.

        ``names`` maps player ids to how the caller wants them shown (a mention, a
        display name); ids are shown as they are otherwise. The game's :attr:`narrator`
        words the lines.
        """
        if self.narrator is not None:
            return self.narrator.narrate(events, names or {})
        return [str(e.get("text", e.get("type"))) for e in events if "private_to" not in e]

    def choice_labels(self, view: JSON, kind: str, values: list[str]) -> list[str]:
        """How to show each of ``values`` (words of argument kind ``kind``) in a player's
        autocomplete, given that player's own view (the public view for a spectator):
        e.g. ``"c3 · Rifle"``. Only ``view`` may be read, so a label never shows what its
        reader may not see. The default shows the values as they are."""
        return list(values)

    def normalise(self, action: object) -> str:
        """Lower-case, single-spaced action text; refuses non-text and oversize input."""
        if not isinstance(action, str):
            raise IllegalAction("An action must be text.")
        if len(action) > MAX_ACTION_LENGTH:
            raise IllegalAction(f"That is too long to be an action (over {MAX_ACTION_LENGTH} "
                                "characters).")
        words = action.strip().lower().split()
        if not words:
            raise IllegalAction("Type an action, for example `end`.")
        return " ".join(words)


def public_events(events: list[Event]) -> list[Event]:
    """The events everyone may see."""
    return [e for e in events if "private_to" not in e]


def _words(value: Any, out: set[str]) -> None:
    """Every string and whole number in a JSON value, lower-cased (keys aside)."""
    if isinstance(value, str):
        out.add(value.lower())
    elif isinstance(value, int) and not isinstance(value, bool):
        out.add(str(value))
    elif isinstance(value, dict):
        for item in value.values():
            _words(item, out)
    elif isinstance(value, list):
        for item in value:
            _words(item, out)


# -- pieces every game's engine shares ---------------------------------------------------


class SeatLike(Protocol):
    """What the shared helpers need of a game's seat."""

    @property
    def id(self) -> str: ...

    @property
    def out(self) -> bool: ...


SeatT = TypeVar("SeatT", bound=SeatLike)


def find_seat(seats: Iterable[SeatT], player: object) -> SeatT | None:
    """The seat of ``player``, or None (also for a non-text player)."""
    if isinstance(player, str):
        for seat in seats:
            if seat.id == player:
                return seat
    return None


class Seated(Generic[SeatT]):
    """What a state that keeps its players in ``seats`` gets for free: finding a player's
    seat, and the seats still in the game."""

    seats: list[SeatT]

    def seat_of(self, player: object) -> SeatT | None:
        return find_seat(self.seats, player)

    @property
    def alive(self) -> list[SeatT]:
        return [s for s in self.seats if not s.out]


def seated_player(seats: Iterable[SeatT], player: object, over: bool) -> SeatT:
    """The acting player's seat; refuses strangers, finished games and players who are out."""
    seat = find_seat(seats, player)
    if seat is None:
        raise IllegalAction("You are not playing in this game.")
    if over:
        raise IllegalAction("This game is over.")
    if seat.out:
        raise IllegalAction("You are out of this game.")
    return seat


def read_out_order(data: dict[str, Any], seats: Iterable[SeatLike]) -> list[str]:
    """A position's ``out_order``: exactly the players who are out, in the order they went
    out; else ValueError."""
    order = data.get("out_order", [])
    if not isinstance(order, list) or sorted(order) != sorted(s.id for s in seats if s.out):
        raise ValueError("out_order must list exactly the players who are out")
    return list(order)


def move_record(player: str, action: str, squares: tuple[str, ...] = ()) -> JSON:
    """A state's ``last_move`` on a board of squares, for the renderer to highlight: who
    did what (the canonical action), the square it left (an action naming two squares)
    and the square it reached (the last one named; None for an action naming none)."""
    return {"player": player, "action": action,
            "from": squares[0] if len(squares) == 2 else None,
            "to": squares[-1] if squares else None}


def parse_position(text: str, game_name: str, parse: Callable[[str], S]) -> S:
    """Run a game's position parser; any malformation becomes :class:`IllegalAction`."""
    try:
        return parse(text)
    except IllegalAction:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, IndexError,
            RecursionError) as exc:
        raise IllegalAction(f"Not a valid {game_name} position: {exc}") from None


def position_text(data: dict[str, Any]) -> str:
    """A position's JSON text, compact and with its keys sorted, so one state always dumps
    to the same text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def json_object(value: Any, where: str) -> dict[str, Any]:
    """``value`` if it is a JSON object; else ValueError naming ``where``."""
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be an object")
    return value


def position_object(text: Any, fmt: str) -> dict[str, Any]:
    """A stored position's top-level object, which must carry the format tag ``fmt``; else
    a TypeError or ValueError (:func:`parse_position` turns it into the player's message)."""
    if not isinstance(text, str):
        raise TypeError("a position is JSON text")
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise ValueError(f"expected an object with \"format\": \"{fmt}\"")
    return data


def position_fields(text: Any, fmt: str, fields: Iterable[str]) -> dict[str, Any]:
    """A hand-writable position's top-level object: JSON text, only the known ``fields``,
    and the format tag ``fmt`` if it says one. Anything else is a ValueError that says what
    is wrong (:func:`parse_position` turns it into the player's message)."""
    if not isinstance(text, str):
        raise TypeError("a position is JSON text")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    json_object(data, "the position")      # before its keys are read
    known = tuple(fields)
    unknown = [k for k in data if k not in known]
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (fields: {', '.join(known)})")
    if data.get("format", fmt) != fmt:
        raise ValueError(f"format must be {fmt!r}")
    return json_object(data, "the position")


def whole(value: Any, low: int, high: int, what: str) -> int:
    """``value`` if it is an int (not a bool) in ``[low, high]``; else ValueError."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{what} must be a whole number from {low} to {high}")
    return value


def bounded(value: Any, low: int, high: int, where: str) -> int:
    """``value`` if it is an int (not a bool) in ``[low, high]``; else ValueError naming
    ``where`` and the bound it breaks."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{where}: {value!r} is not a whole number")
    if value < low:
        raise ValueError(f"{where}: {value} is below {low}")
    if value > high:
        raise ValueError(f"{where}: {value} is above {high}")
    return value


def flag(value: Any, what: str) -> bool:
    """``value`` if it is a bool; else ValueError."""
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be true or false")
    return value

