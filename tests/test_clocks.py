"""Time controls, pauses, quiet hours and reminder schedules (db.clocks): pure arithmetic."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from db.clocks import (
    DAY,
    HOUR,
    MINUTE,
    ClockError,
    QuietHours,
    Reminding,
    TimeControl,
    after_active,
    bank_after,
    check_zone,
    deadline,
    describe_duration,
    next_reminder,
    parse_duration,
    paused_at,
    paused_between,
)

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=ZoneInfo("UTC")).timestamp()   # a Monday noon UTC


@pytest.mark.parametrize(("text", "seconds"), [
    ("12h", 12 * HOUR), ("2d", 2 * DAY), ("1d12h", 36 * HOUR), ("90m", 90 * MINUTE),
    ("1w", 7 * DAY), (" 1 d 6 h ", 30 * HOUR), ("1.5d", 36 * HOUR), ("30min", 30 * MINUTE),
])
def test_durations_read_like_people_write_them(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "12", "h", "12x", "1d-3h", "abc", "0h", "30s",
                                  "400d", "9" * 40, "１２h", "d12"])
def test_bad_durations_are_refused_with_an_example(text: str) -> None:
    with pytest.raises(ClockError, match="duration"):
        parse_duration(text)


def test_durations_are_described_briefly() -> None:
    assert describe_duration(36 * HOUR + 5 * MINUTE) == "1d 12h 5m"
    assert describe_duration(0) == "0m"


def test_time_controls_per_move_bank_and_none() -> None:
    assert TimeControl.parse("24h") == TimeControl(per_move=DAY)
    assert TimeControl.parse("3d+12h", 2) == TimeControl(bank=3 * DAY, increment=12 * HOUR,
                                                          max_timeouts=2)
    assert TimeControl.parse("3d+") == TimeControl(bank=3 * DAY)
    assert TimeControl.parse("none") is None and TimeControl.parse(None) is None
    assert TimeControl.parse("24h").describe() == "1d per move; removed after 3 timeouts"
    assert TimeControl.parse("3d+1d", 0).describe() == "3d bank + 1d per move"
    control = TimeControl.parse("7d+1d", 5)
    assert control is not None and TimeControl.from_json(control.to_json()) == control
    with pytest.raises(ClockError):
        TimeControl.parse("24h", 99)


def test_pauses_add_up_without_counting_overlaps_twice() -> None:
    pauses = [(10.0, 20.0), (15.0, 30.0), (50.0, 60.0)]
    assert paused_between(pauses, 0, 100) == 30
    assert paused_between(pauses, 25, 55) == 10
    assert paused_between([], 0, 100) == 0
    assert paused_at(pauses, 18) == (15.0, 30.0) and paused_at(pauses, 40) is None


def test_active_time_skips_pauses() -> None:
    assert after_active(0, 100, []) == 100
    assert after_active(0, 100, [(10, 30)]) == 120           # 20 s paused
    assert after_active(0, 5, [(10, 30)]) == 5               # done before the pause
    assert after_active(15, 10, [(10, 30)]) == 40            # starts inside a pause
    assert after_active(0, 100, [(10, 30), (20, 50), (500, 600)]) == 140


def test_a_deadline_moves_with_a_vacation_and_a_bank_pays_only_active_time() -> None:
    per_move = TimeControl(per_move=DAY)
    assert deadline(per_move, T0, None, []) == T0 + DAY
    assert deadline(per_move, T0, None, [(T0 + HOUR, T0 + 3 * DAY)]) == T0 + 4 * DAY - HOUR
    assert deadline(None, T0, None, []) is None
    bank = TimeControl(bank=3 * DAY, increment=DAY)
    assert deadline(bank, T0, None, []) == T0 + 3 * DAY       # a full bank at first
    assert deadline(bank, T0, 2 * HOUR, []) == T0 + 2 * HOUR
    # a decision of 10 hours, 4 of them on vacation, costs 6 hours and earns the increment
    assert bank_after(bank, 2 * DAY, T0, T0 + 10 * HOUR, [(T0 + HOUR, T0 + 5 * HOUR)]) == \
        2 * DAY - 6 * HOUR + DAY
    assert bank_after(bank, HOUR, T0, T0 + 5 * HOUR, []) == DAY   # never below zero


def test_quiet_hours_wrap_midnight_in_the_players_zone() -> None:
    paris = QuietHours.parse("22:00-07:30", "Europe/Paris")
    assert paris is not None and paris.describe() == "22:00–07:30 (Europe/Paris)"
    zone = ZoneInfo("Europe/Paris")

    def at(day: int, hour: int, minute: int = 0) -> float:
        return datetime(2026, 3, day, hour, minute, tzinfo=zone).timestamp()

    assert paris.next_allowed(at(2, 21, 59)) == at(2, 21, 59)          # before: unchanged
    assert paris.next_allowed(at(2, 23, 0)) == at(3, 7, 30)           # late evening
    assert paris.next_allowed(at(3, 3, 0)) == at(3, 7, 30)            # small hours
    assert paris.next_allowed(at(3, 7, 30)) == at(3, 7, 30)           # the end is allowed
    day = QuietHours.parse("13:00-14:00", "UTC")
    assert day is not None and day.next_allowed(T0 + 90 * MINUTE) == T0 + 2 * HOUR
    # across the change to summer time (29 March 2026 in Paris) the wall clock still wins
    assert paris.next_allowed(at(28, 23, 0)) == at(29, 7, 30)


@pytest.mark.parametrize("text", ["22-7:99", "25:00-07:00", "22:00", "10:00-10:00", "x-y"])
def test_bad_quiet_hours_are_refused(text: str) -> None:
    with pytest.raises(ClockError):
        QuietHours.parse(text, "UTC")


def test_time_zones_are_checked() -> None:
    assert check_zone("America/New_York") == "America/New_York"
    for bad in ("Mars/Olympus", "", "../etc/passwd", "/UTC", "x" * 70):
        with pytest.raises(ClockError):
            check_zone(bad)


def test_reminders_come_every_interval_then_the_stop_note_then_nothing() -> None:
    every, limit = 12 * HOUR, 2
    state = Reminding(T0)
    assert next_reminder(state, every, limit, [], None) == T0 + every
    state = Reminding(T0, 1, T0 + every)
    assert next_reminder(state, every, limit, [], None) == T0 + 2 * every
    state = Reminding(T0, 2, T0 + 2 * every)                  # the limit: the note is next
    assert next_reminder(state, every, limit, [], None) == T0 + 3 * every
    assert next_reminder(Reminding(T0, 3, T0 + 3 * every), every, limit, [], None) is None


def test_after_downtime_reminders_count_from_the_last_one_sent() -> None:
    # the bot was down for three days: one reminder is due now, and the next one a full
    # interval after it was actually sent, not three at once
    state = Reminding(T0, 1, T0 + 3 * DAY)
    assert next_reminder(state, 12 * HOUR, 3, [], None) == T0 + 3 * DAY + 12 * HOUR


def test_reminders_wait_for_quiet_hours_and_vacations() -> None:
    quiet = QuietHours.parse("23:00-08:00", "UTC")
    state = Reminding(T0)                                     # noon
    assert next_reminder(state, 12 * HOUR, 3, [], quiet) == T0 + 20 * HOUR   # 08:00
    assert next_reminder(state, 2 * HOUR, 3, [(T0, T0 + DAY)], None) == T0 + DAY + 2 * HOUR


def test_a_reminding_state_belongs_to_one_decision() -> None:
    stored = Reminding(T0, 2, T0 + 5).to_json()
    assert Reminding.of(stored, T0) == Reminding(T0, 2, T0 + 5)
    assert Reminding.of(stored, T0 + 100) == Reminding(T0 + 100)      # a new decision
    assert Reminding.of(None, T0) == Reminding(T0)
