"""Numbers in notation, and ids and numbers the store and the cogs are given as text, are
written with the digits 0-9 (issue 29). Characters ``str.isdigit`` takes but ``int``
rejects (``²``, ``፩``) and those ``int`` quietly reads (``٣``, ``１``, ``߁``) are refused
with a message naming them: an ``IllegalAction`` from a game, the store's own error from
the store; the game is unchanged and nothing else is raised."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cogs.battlecards import hand_labels
from cogs.liege import _square_order
from cogs.lobby import _convert_option
from cogs.maintenance import SettingsError, _number
from cogs.names import fallback_name
from cogs.verbs import number_choices
from cogs.wording import humanize_ids, mention, ping
from db import Store, StoreError
from db.clocks import ClockError, QuietHours
from db.core import undo_count
from db.privacy import snowflake
from db.records import NotFound, as_game_id
from engine import IllegalAction, Option
from engine.antiquity import GAME as ANTIQUITY
from engine.battlecards import GAME as BATTLECARDS
from engine.battlecards.cards import CardDataError, _values
from engine.core import Game
from engine.napoleon import GAME as NAPOLEON
from engine.notation import is_number, looks_like_number, parse_number
from engine.verbs import NUMBER, Arg, Verb
from tests import properties as props
from tests.fakegame import GAME as RACE

#: Other scripts' digits, superscripts, subscripts, fractions, numerals: ``int`` rejects
#: some (``²``, ``፩``, ``½``) and reads others (``٣``, ``１``, ``߁``).
ODD = props.ODD_DIGITS
#: Of them, those that ``str.isdigit`` takes (the ones that used to reach ``int``).
ODD_ISDIGIT = [w for w in ODD if w.isdigit()]


def test_the_odd_digits_are_the_troublesome_kinds() -> None:
    def reads(w: str) -> bool:
        try:
            int(w)
        except ValueError:
            return False
        return True

    assert any(not reads(w) for w in ODD_ISDIGIT)     # ² and ፩: ValueError
    assert any(reads(w) for w in ODD_ISDIGIT)         # ٣ and １: quietly a number
    assert {"²", "٣", "１", "߁", "፩"} <= set(ODD)


# -- the helper ----------------------------------------------------------------------------


@pytest.mark.parametrize("word", ODD)
def test_odd_digits_are_not_numbers_and_are_refused_by_name(word: str) -> None:
    assert not is_number(word)
    assert looks_like_number(word)
    with pytest.raises(IllegalAction) as caught:
        parse_number(word, "The count")
    assert f"`{word}` is not a number" in str(caught.value)
    assert "the count with the digits 0-9" in str(caught.value)


def test_ascii_digits_are_numbers() -> None:
    assert is_number("0") and is_number("42") and is_number("007")
    assert parse_number("42", "The count") == 42 and parse_number("007", "The count") == 7
    for word in ("", "-1", "+1", "1.5", " 1", "1_000", "x", "1e3", "0x10", "1 2"):
        assert not is_number(word)
        with pytest.raises(IllegalAction, match="not a number"):
            parse_number(word, "The count")
    assert not is_number(None) and not is_number(3)


def test_a_huge_number_is_refused_not_a_value_error() -> None:
    with pytest.raises(IllegalAction, match="too large"):
        parse_number("9" * 5000, "The count")         # int() itself stops at 4300 digits


# -- the games -----------------------------------------------------------------------------


def _where(game: Game[Any], players: list[str], prefix: str,
           seed: int = 1) -> tuple[Any, str, list[str]]:
    """A real position, reached by random legal play, in which someone may take an action
    starting with ``prefix``: (the position, that player, those actions)."""
    state = game.new_game(players, seed)
    for step in props.walk(game, state, random.Random(seed), 3000, frozen=False):
        for player in game.to_act(step.after):
            found = [a for a in game.legal_actions(step.after, player) if a.startswith(prefix)]
            if found:
                return step.after, player, found
    raise AssertionError(f"no {prefix!r} in {game.name}")


def _refused(game: Game[Any], state: Any, player: str, text: str, word: str) -> None:
    before = game.dump(state)
    with pytest.raises(IllegalAction) as caught:
        game.apply(state, player, text)
    message = str(caught.value)
    assert f"`{word}` is not a number" in message and "digits 0-9" in message, message
    assert game.dump(state) == before


def test_napoleon_move_with_odd_digits_is_refused() -> None:
    state, player, moves = _where(NAPOLEON, ["F", "A"], "move ")
    _, count, src, dst = moves[0].split()
    NAPOLEON.apply(state, player, moves[0])             # the same in 0-9 is taken
    for word in ODD:
        _refused(NAPOLEON, state, player, f"move {word} {src} {dst}", word)
        _refused(NAPOLEON, state, player, f"move {src} {dst} {word}", word)   # count last
    _refused(NAPOLEON, state, player, "move ² france spain", "²")
    _refused(NAPOLEON, state, player, f"move {count}{'٣'} {src} {dst}", f"{count}٣")


def test_antiquity_move_and_conquer_with_odd_digits_are_refused() -> None:
    players = ["a", "b", "c"]
    state, player, moves = _where(ANTIQUITY, players, "move ")
    _, _, src, dst = moves[0].split()
    ANTIQUITY.apply(state, player, moves[0])
    for word in ODD:
        _refused(ANTIQUITY, state, player, f"move {word} {src} {dst}", word)
        _refused(ANTIQUITY, state, player, f"move {src} {dst} {word}", word)
    state, player, conquests = _where(ANTIQUITY, players, "conquer ")
    _, province, _ = conquests[0].split()
    ANTIQUITY.apply(state, player, conquests[0])
    for word in ODD:
        _refused(ANTIQUITY, state, player, f"conquer {province} {word}", word)
    # a province with no number at all is still refused as before
    with pytest.raises(IllegalAction, match="how many of the units"):
        ANTIQUITY.apply(state, player, f"conquer {province}")


def test_card_data_with_odd_digits_is_refused() -> None:
    assert _values("1/2/3", "attack", False) == {"ground": 1, "air": 2, "sea": 3}
    for word in ODD:
        with pytest.raises(CardDataError, match="bad value"):
            _values(f"1/{word}/3", "attack", False)


def test_a_number_argument_sorts_odd_values_after_numbers() -> None:
    verb = Verb("move", "Move", "move {count}", (Arg("count", "How many", kind=NUMBER),))
    legal = ["move ²", "move 10", "move 2", "move ٣"]
    assert verb.candidates(legal, "count") == ["2", "10", "²", "٣"]


# -- the store -----------------------------------------------------------------------------


@pytest.mark.parametrize("word", ODD)
def test_undo_with_odd_digits_is_refused(word: str) -> None:
    with pytest.raises(IllegalAction) as caught:
        undo_count(f"undo {word}")
    assert f"`{word}` is not a number" in str(caught.value)
    assert undo_count("undo 3") == 3 and undo_count("undo") == 1


@pytest.mark.usefixtures("race")
async def test_undo_with_odd_digits_through_the_store_changes_nothing(store: Store) -> None:
    record = await store.lobby.open("race", "g1", "c1", "a", {"target": 1000000}, None)
    await store.lobby.join(record.id, "b")
    record = await store.lobby.start(record.id, "a", seed=1)
    assert record.state is not None
    state = RACE.load(record.state)
    player = RACE.to_act(state)[0]
    moved = await store.apply_action(record.id, player, RACE.legal_actions(state, player)[0])
    before = await store.get(record.id)
    for word in ("²", "٣", "１", "፩", "߁", "¹²", "٣٣", "½"):
        with pytest.raises(IllegalAction, match=f"`{word}` is not a number.*digits 0-9"):
            await store.apply_action(record.id, player, f"undo {word}")
    with pytest.raises(IllegalAction, match="too large"):
        await store.apply_action(record.id, player, "undo " + "9" * 5000)
    after = await store.get(record.id)
    assert after.version == before.version == moved.record.version
    assert after.state == before.state
    assert len(await store.history.log(record.id)) == 1


async def test_napoleon_move_with_odd_digits_through_the_store_changes_nothing(
        store: Store) -> None:
    record = await store.lobby.open("napoleon", "g1", "c1", "1", {}, None)
    await store.lobby.join(record.id, "2")
    record = await store.lobby.start(record.id, "1", seed=1)
    rng = random.Random(1)
    for _ in range(200):
        assert record.state is not None
        state = NAPOLEON.load(record.state)
        acting = NAPOLEON.to_act(state)
        moves = [a for a in NAPOLEON.legal_actions(state, acting[0]) if a.startswith("move ")]
        if moves:
            break
        result = await store.apply_action(record.id, acting[0],
                                          rng.choice(NAPOLEON.legal_actions(state, acting[0])))
        record = result.record
    else:
        raise AssertionError("no move in 200 actions")
    _, _, src, dst = moves[0].split()
    for word in ("²", "٣", "１"):
        with pytest.raises(IllegalAction, match=f"`{word}` is not a number"):
            await store.apply_action(record.id, acting[0], f"move {word} {src} {dst}")
    after = await store.get(record.id)
    assert after.version == record.version and after.state == record.state


@pytest.mark.parametrize("text", ["#²", "²", "#٣", "٣", "１２", "#１２", "#߁", "#፩", "#¹²",
                                  "#" + "9" * 30, "#" + "1" * 5000, "#", "", "#-1", "#1.0"])
async def test_odd_game_ids_name_no_game(store: Store, text: str) -> None:
    with pytest.raises(NotFound, match="There is no game #"):
        as_game_id(text)
    with pytest.raises(NotFound):
        await store.get(text)       # type: ignore[arg-type]     # a custom_id's text


def test_ascii_game_ids_are_read() -> None:
    assert as_game_id("#12") == 12 and as_game_id(" 12 ") == 12 and as_game_id(12) == 12


async def test_forgetting_a_user_with_odd_digits_deletes_nothing(store: Store) -> None:
    for user in ("٣" * 18, "１" * 18, "²" * 18):
        with pytest.raises(StoreError, match="is not a Discord user id; nothing was deleted"):
            snowflake(user)
        with pytest.raises(StoreError, match="nothing was deleted"):
            await store.privacy.forget_user(user)
    assert snowflake("123456789012345678") == "123456789012345678"


@pytest.mark.parametrize("text", ["²²:00-07:00", "٢٢:00-07:00", "２２:00-07:00",
                                  "22:٠٠-07:00", "22:00-0⁷:00"])
def test_quiet_hours_with_odd_digits_are_refused(text: str) -> None:
    with pytest.raises(ClockError, match="Write quiet hours like"):
        QuietHours.parse(text, "UTC")
    assert QuietHours.parse("22:00-07:00", "UTC") is not None


# -- the cogs ------------------------------------------------------------------------------

ODD_ID = "٣" * 18         # int() would read it: a Discord id it is not


def test_an_id_in_odd_digits_is_not_a_discord_id() -> None:
    assert fallback_name(ODD_ID) == ODD_ID
    assert mention(ODD_ID) == ODD_ID and mention("123456789012345678").startswith("<@")
    assert [o.id for o in ping([ODD_ID, "²" * 18, "123456789012345678"]).users] == [  # type: ignore[union-attr]
        123456789012345678]
    assert humanize_ids(f"{ODD_ID} moved", [ODD_ID]) == f"{ODD_ID} moved"


def test_cog_number_choices_skip_odd_digits() -> None:
    found = number_choices([("2 armies", "2"), ("² armies", "²"), ("٣ armies", "٣")], "")
    assert [(c.name, c.value) for c in found] == [("2 armies", 2)]
    mine = BATTLECARDS.view(BATTLECARDS.new_game(["a", "b"], 2), "a")
    labels = hand_labels(["1", "²", "٣"], mine, "a")
    assert not labels[0][0].startswith("slot ")                  # slot 1: its card named
    assert labels[1:] == [("slot ²", "²"), ("slot ٣", "٣")]      # no card 3 quietly named
    assert _square_order("e²") == (0, "e²") and _square_order("e10") == (10, "e10")


@pytest.mark.parametrize("text", ["٣", "１２", "²", "߁"])
def test_game_options_with_odd_digits_are_refused(text: str) -> None:
    for default in (8, 1.5):
        with pytest.raises(IllegalAction, match="must be a number"):
            _convert_option(Option("size", default, "Board size"), text)
    assert _convert_option(Option("size", 8, "Board size"), "10") == 10


@pytest.mark.parametrize("text", ["٣", "１２", "²"])
def test_settings_with_odd_digits_are_refused(text: str) -> None:
    with pytest.raises(SettingsError, match="BACKUP_KEEP must be"):
        _number({"BACKUP_KEEP": text}, "BACKUP_KEEP", 5, 1, 100, "a number", whole=True)
    with pytest.raises(SettingsError, match="ARCHIVE_AFTER_DAYS must be"):
        _number({"ARCHIVE_AFTER_DAYS": text}, "ARCHIVE_AFTER_DAYS", 5, 0, 100, "a number")
