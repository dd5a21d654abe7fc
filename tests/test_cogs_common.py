"""The shared helpers of the cogs: wording (text, mentions, turn passing), autocomplete
filtering, names, the error handler and the move path's guards."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import discord
import pytest

import engine
from cogs import choices as autocomplete
from cogs import interactions, moves, names, wording
from db import GameRecord, LogEntry
from db.turns import Turn, digest_payload

CONQUEROR = engine.get_game("conqueror")
A, B = "111111111111111111", "222222222222222222"


def info(current: str | None, *to_act: str, over: bool = False) -> Turn:
    return Turn(current, tuple(to_act), over)


# -- when does the channel get a turn digest? (the store decides: the turn changed) -------


def test_no_digest_while_the_same_player_keeps_acting() -> None:
    assert info(A, A) == info(A, A)


def test_digest_when_the_turn_passes() -> None:
    assert info(A, A) != info(B, B)


def test_digest_when_someone_else_must_act_within_the_turn() -> None:
    # a defender picks casualties during the attacker's turn
    assert info(A, A) != info(A, B)
    assert info(A, B) != info(A, A)


def test_digest_when_the_game_ends() -> None:
    assert info(A, A) != info(None, over=True)
    assert info(A, A) != info(A, A, over=True)


def test_to_act_order_does_not_matter() -> None:
    assert info(A, A, B) == info(A, B, A)


def test_turn_of_a_real_game() -> None:
    state = CONQUEROR.new_game([A, B], 1)
    assert Turn.of(CONQUEROR, state) == info(A, A)
    moved, _ = CONQUEROR.apply(state, A, "move a1 b2 1")
    assert Turn.of(CONQUEROR, state) == Turn.of(CONQUEROR, moved)
    ended, _ = CONQUEROR.apply(moved, A, "end")
    assert Turn.of(CONQUEROR, moved) != Turn.of(CONQUEROR, ended)
    resigned, _ = CONQUEROR.apply(ended, A, "resign")
    assert Turn.of(CONQUEROR, resigned).over


def test_decisions_begin_when_a_player_becomes_due() -> None:
    # B's decision begins when the turn passes to them; A's stays when A keeps acting
    assert info(A, A).decisions({}, None, 5.0) == {A: 5.0}
    assert info(A, A).decisions({A: 5.0}, info(A, A), 9.0) == {A: 5.0}
    assert info(B, B).decisions({A: 5.0}, info(A, A), 9.0) == {B: 9.0}
    # a player due again (after someone else's decision) begins a new decision
    assert info(A, A).decisions({B: 9.0}, info(A, B), 12.0) == {A: 12.0}
    # both due at once, one acts: the other's decision goes on
    assert info(None, A).decisions({A: 1.0, B: 1.0}, info(None, A, B), 7.0) == {A: 1.0}


# -- autocomplete filtering --------------------------------------------------------------

LEGAL = ["move a1 b1 1", "move a1 a2 1", "move a1 b2 1", "convert ap", "end"]


def test_filter_is_a_case_insensitive_substring_match() -> None:
    assert autocomplete.filter_choices(LEGAL, "B2") == ["move a1 b2 1"]
    assert autocomplete.filter_choices(LEGAL, "MOVE") == LEGAL[:3]
    assert autocomplete.filter_choices(LEGAL, "conv") == ["convert ap"]


def test_filter_empty_text_lists_everything_in_order() -> None:
    assert autocomplete.filter_choices(LEGAL, "") == LEGAL


def test_filter_squeezes_spaces() -> None:
    assert autocomplete.filter_choices(LEGAL, "  move   a1  b1 ") == ["move a1 b1 1"]


def test_filter_caps_at_25() -> None:
    many = [f"move a1 b1 {i}" for i in range(100)]
    assert len(autocomplete.filter_choices(many, "")) == 25
    assert autocomplete.filter_choices(many, "", limit=3) == many[:3]


def test_filter_garbage_finds_nothing() -> None:
    assert autocomplete.filter_choices(LEGAL, "💥" * 500) == []
    assert autocomplete.filter_choices([], "end") == []


def test_filter_drops_duplicates() -> None:
    assert autocomplete.filter_choices(["end", "end"], "") == ["end"]


def test_choices_fit_discord_limits() -> None:
    choices = autocomplete.as_choices(["x" * 150, "end"])
    assert [len(c.value) for c in choices] == [100, 3]
    assert all(len(c.name) <= 100 for c in choices)


# -- text ---------------------------------------------------------------------------------


def test_clip() -> None:
    assert wording.clip("short") == "short"
    clipped = wording.clip("x" * 3000)
    assert len(clipped) == wording.MESSAGE_LIMIT and clipped.endswith("…")


def test_chunk_lines_respects_the_limit() -> None:
    lines = [f"line {i} " + "y" * 80 for i in range(100)]
    chunks = wording.chunk_lines(lines, limit=500)
    assert all(len(c) <= 500 for c in chunks)
    assert "\n".join(chunks).split("\n") == lines


def test_chunk_lines_clips_a_monster_line() -> None:
    chunks = wording.chunk_lines(["a" * 5000, "b"], limit=100)
    assert chunks == ["a" * 99 + "…", "b"]
    assert wording.chunk_lines([]) == []


def test_mentions_and_pings() -> None:
    assert wording.mention(A) == f"<@{A}>"
    assert wording.mention("bob") == "bob"  # not a snowflake: shown as is
    allowed = wording.ping([A, "bob"])
    assert allowed.everyone is False and allowed.roles is False
    assert isinstance(allowed.users, list)
    assert [u.id for u in allowed.users] == [int(A)]
    assert wording.NO_MENTIONS.to_dict()["parse"] == []


def test_user_message_only_for_expected_errors() -> None:
    from db import StoreError

    refused = engine.IllegalAction("Moving costs 1 AP.")
    assert interactions.user_message(refused) == "Moving costs 1 AP."
    assert interactions.user_message(StoreError("busy")) == "busy"
    assert interactions.user_message(RuntimeError("secret internals")) is None


# -- narration and private events -------------------------------------------------------


def test_narration_uses_the_game_lines_with_mentions() -> None:
    state = CONQUEROR.new_game([A, B], 1)
    _moved, events = CONQUEROR.apply(state, A, "move a1 b2 1")
    lines = wording.narration_lines(CONQUEROR, [A, B], A, "move a1 b2 1", events)
    assert lines[0].startswith(f"<@{A}> moves 1 from a1 to b2")
    assert any("discovered" in line and "rolled" in line for line in lines)


def test_narration_falls_back_to_who_did_what() -> None:
    lines = wording.narration_lines(CONQUEROR, [A, B], A, "  MOVE a1 b2 `1` ", [])
    assert lines == [f"<@{A}> · `move a1 b2 1`"]


def test_private_events_are_grouped_and_unmarked() -> None:
    events = [{"type": "gain", "player": A},
              {"type": "luck", "private_to": A, "value": 3},
              {"type": "card", "private_to": B, "card": "ace"}]
    assert wording.private_events_for(events) == {
        A: [{"type": "luck", "value": 3}], B: [{"type": "card", "card": "ace"}]}
    assert wording.private_events_for(events[:1]) == {}


def test_result_and_next_up_lines() -> None:
    state = CONQUEROR.new_game([A, B], 1)
    text, to_ping = wording.next_up_line(CONQUEROR, state)
    assert f"<@{A}>" in text and "Round 1" in text and to_ping == [A]
    over, _ = CONQUEROR.apply(state, A, "resign")
    text, to_ping = wording.next_up_line(CONQUEROR, over)
    assert "Game over" in text and f"<@{B}>" in text and to_ping == [B]
    assert wording.result_lines(CONQUEROR, state) == []


def test_fallback_name() -> None:
    assert names.fallback_name("123456789012345678") == "player 5678"
    assert names.fallback_name("alice") == "alice"


def test_no_mentions_really_mentions_nobody() -> None:
    assert isinstance(wording.NO_MENTIONS, discord.AllowedMentions)
    assert wording.NO_MENTIONS.users is False


def test_humanize_ids_mentions_only_known_bare_ids() -> None:
    text = f"It is not your turn: waiting for {B}. Game 123456789012345679999 <@{A}> ({A})"
    assert wording.humanize_ids(text, [A, B]) == (
        f"It is not your turn: waiting for <@{B}>. Game 123456789012345679999 <@{A}> (<@{A}>)")
    assert wording.humanize_ids(f"{B} has the last base standing.", [B]) == (
        f"<@{B}> has the last base standing.")
    assert wording.humanize_ids("round 12", [A]) == "round 12"


# -- decisions outside one's own turn -----------------------------------------------------


class Deciding:
    """A stand-in game where B must decide something during A's turn."""

    kind = "deciding"

    def __init__(self, phase: str | None = "casualty", legal: list[str] | None = None,
                 to_act: list[str] | None = None) -> None:
        self.phase = phase
        self.legal = ["casualty d5", "casualty c4"] if legal is None else legal
        self.acting = [B] if to_act is None else to_act

    def outcome(self, state: object) -> None:
        return None

    def to_act(self, state: object) -> list[str]:
        return list(self.acting)

    def current_turn(self, state: object) -> str:
        return A

    def view(self, state: object, player: str | None) -> dict[str, object]:
        return {"round": 3, "phase": self.phase}

    def players(self, state: object) -> list[str]:
        return [A, B]

    def legal_actions(self, state: object, player: str) -> list[str]:
        return list(self.legal) if player in self.acting else []


def test_an_off_turn_decision_names_the_phase_the_turn_and_the_choices() -> None:
    text, to_ping = wording.next_up_line(Deciding(), None)  # type: ignore[arg-type]
    assert to_ping == [B]
    assert text == (f"Round 3 — <@{B}>: you must act now (casualty), during <@{A}>'s turn; "
                    "use `/play` — `casualty d5`, `casualty c4`.")


def test_a_registered_prompt_says_what_to_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wording, "DECISION_PROMPTS", {})
    wording.register_decision("deciding", "casualty",
                              "you lost the fight: choose a casualty with `/play`.")
    text, _ = wording.next_up_line(Deciding(), None)  # type: ignore[arg-type]
    assert text == (f"Round 3 — <@{B}>: you lost the fight: choose a casualty with "
                    "`/play` — `casualty d5`, `casualty c4`.")
    other, _ = wording.next_up_line(Deciding(phase="fight"), None)  # type: ignore[arg-type]
    assert "you must act now (fight)" in other


def test_many_choices_or_many_deciders_are_not_listed() -> None:
    many = Deciding(legal=[f"casualty a{i}" for i in range(1, 10)])
    text, _ = wording.next_up_line(many, None)  # type: ignore[arg-type]
    assert "casualty a1" not in text and text.endswith("use `/play`.")
    both = Deciding(to_act=[A, B], phase=None)
    text, to_ping = wording.next_up_line(both, None)  # type: ignore[arg-type]
    assert to_ping == [A, B]
    assert text == f"Round 3 — <@{A}>, <@{B}>: you must act now; use `/play`."


# -- when an interaction was sent; one answer per interaction ----------------------------


def snowflake_at(seconds: float) -> int:
    return int(seconds * 1000 - discord.utils.DISCORD_EPOCH) << 22


def test_sent_time_is_discords_stamp_corrected_by_the_smallest_delay_seen() -> None:
    clock = moves.SentClock()
    t = 1_800_000_000.0
    # this machine's clock runs 2 s ahead of Discord's; deliveries take 50-300 ms
    assert clock.sent_at(snowflake_at(t), t + 2.3) == pytest.approx(t + 2.3)
    assert clock.sent_at(snowflake_at(t + 10), t + 12.05) == pytest.approx(t + 12.05)
    # a slow delivery (queued 1 s) is dated back to when it was sent, on this clock
    assert clock.sent_at(snowflake_at(t + 20), t + 23.0) == pytest.approx(t + 22.05)
    # never later than its arrival, whatever the stamp says
    assert clock.sent_at(snowflake_at(t + 40), t + 30.0) == pytest.approx(t + 30.0)


def test_each_interaction_is_taken_on_once() -> None:
    seen = moves.RecentIds()
    assert seen.claim(1) and seen.claim(2)
    assert not seen.claim(1)
    for i in range(3, moves.RecentIds.LIMIT + 10):
        seen.claim(i)
    assert seen.claim(1)                       # the oldest are forgotten, memory is bounded


# -- whose turn it is: said once, and never "/play" to a computer ---------------------------

#: A phrase saying whose turn it is (the games' own narration, or the closing line).
WHOSE_TURN = re.compile(r"to play|'s turn\b|[Yy]our turn|to draw")
C3 = "333333333333333333"


def played_until_the_turn_passes(kind: str, seats: list[str], seed: int,
                                 to: str | None = None) -> tuple[Any, list[LogEntry], str]:
    """Seeded random play from the start until the turn passes to another seat (to ``to``,
    if given): the position, the last turn's entries and who must act now."""
    game = engine.get_game(kind)
    state = game.new_game(seats, seed)
    rng = random.Random(seed)
    entries: list[LogEntry] = []
    for seq in range(1, 600):
        mover = game.to_act(state)[0]
        action = rng.choice([a for a in game.legal_actions(state, mover) if a != "resign"])
        before = game.current_turn(state)
        state, events = game.apply(state, mover, action)
        entries.append(LogEntry(seq, mover, action, events, 0.0))
        if game.outcome(state) is not None:
            break
        after = game.to_act(state)
        if game.current_turn(state) != before and after == [game.current_turn(state)]:
            if seq > 1 and to in (None, after[0]):
                return state, entries, after[0]
            entries = []
    raise AssertionError(f"{kind}: the turn never passed (to {to})")


def digest_of(kind: str, seats: list[str], state: Any, entries: list[LogEntry],
              timing: dict[str, Any] | None = None) -> wording.Digest:
    game = engine.get_game(kind)
    now = time.time()
    record = GameRecord(id=9, kind=kind, guild_id="1", channel_id="2", host_id=seats[0],
                        status="active", seats=tuple(seats), seed=0, options={},
                        state=game.dump(state), version=entries[-1].seq,
                        lobby_message_id=None, created_at=now, updated_at=now,
                        timing=timing or {})
    payload = digest_payload(game, state, entries[0].seq, entries[-1].seq)
    return wording.digest_text(game, record, payload, entries)


def whose_turn_lines(text: str, player: str) -> list[str]:
    return [line for line in text.splitlines()
            if wording.mention(player) in line and WHOSE_TURN.search(line)]


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
def test_a_digest_says_whose_turn_it_is_once_and_pings_them(kind: str) -> None:
    seats = [A, B, C3] if kind == "antiquity" else [A, B]
    for seed in (1, 2):
        state, entries, acting = played_until_the_turn_passes(kind, seats, seed)
        digest = digest_of(kind, seats, state, entries)
        said = whose_turn_lines(digest.content, acting)
        assert len(said) == 1, digest.content
        closing = digest.content.splitlines()[-2]        # then the marker
        assert said == [closing] and digest.to_ping == [acting]
        assert "`/play`" in closing and "thinking" not in closing
        assert len(digest.content) <= 2000


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
def test_a_computer_seat_is_never_told_to_use_play_nor_pinged(kind: str) -> None:
    cpu = "cpu-2"
    seats = [A, cpu, C3] if kind == "antiquity" else [A, cpu]
    for seed in (1, 2):
        state, entries, _ = played_until_the_turn_passes(kind, seats, seed, to=cpu)
        digest = digest_of(kind, seats, state, entries)
        assert "/play" not in digest.content, digest.content
        assert "🤖 Computer 2" in digest.content and "thinking" in digest.content
        assert digest.to_ping == [] and len(whose_turn_lines(digest.content, cpu)) == 1


def test_a_human_seat_the_computer_plays_is_not_told_to_use_play_either() -> None:
    state, entries, acting = played_until_the_turn_passes("conqueror", [A, B], 1)
    digest = digest_of("conqueror", [A, B], state, entries,
                       timing={"computers": {acting: "easy"}})
    closing = digest.content.splitlines()[-2]
    assert "/play" not in closing and "thinking" in closing and digest.to_ping == []
    assert "/game back" not in closing or wording.mention(acting) in digest.content


def test_without_a_turn_line_the_closing_line_says_it_and_a_computer_thinks() -> None:
    state = CONQUEROR.new_game([A, B], 1)
    text, to_ping = wording.next_up_line(CONQUEROR, state)
    assert text == f"Round 1 — Your turn, <@{A}>. Use `/play` or `/conqueror`."
    assert to_ping == [A]
    cpu = CONQUEROR.new_game(["cpu-1", B], 1)
    text, to_ping = wording.next_up_line(CONQUEROR, cpu)
    assert text == "Round 1 — 🤖 Computer 1 (computer) is thinking…" and to_ping == []
    deciding = Deciding(to_act=["cpu-1", B], phase=None)
    text, to_ping = wording.next_up_line(deciding, None)  # type: ignore[arg-type]
    assert to_ping == [B] and "🤖 Computer 1 (computer) is thinking…" in text
    assert text.startswith(f"Round 3 — <@{B}>: you must act now")


@pytest.mark.parametrize("kind", sorted(engine.GAMES))
def test_the_status_message_says_whose_turn_it_is_once(kind: str) -> None:
    seats = [A, B, C3] if kind == "antiquity" else [A, B]
    state, entries, acting = played_until_the_turn_passes(kind, seats, 1)
    game = engine.get_game(kind)
    now = time.time()
    record = GameRecord(id=9, kind=kind, guild_id="1", channel_id="2", host_id=A,
                        status="active", seats=tuple(seats), seed=0, options={},
                        state=game.dump(state), version=entries[-1].seq,
                        lobby_message_id=None, created_at=now, updated_at=now)
    embed = wording.status_embed(game, record, state, {}, entries)
    description = embed.description or ""
    assert len(whose_turn_lines(description, acting)) == 1, description
    assert whose_turn_lines(description, acting)[0] == description.splitlines()[0]
