"""The intervals the balance simulations and the tournament report: Wilson's over
independent games, and Student's t over deals."""

from __future__ import annotations

import math

import pytest

from engine.stats import mean_interval, t_quantile, wilson_interval


def test_known_values() -> None:
    # Textbook values: 50 of 100 and 0 of 10 at 95%.
    assert wilson_interval(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)


def test_it_holds_the_rate_and_narrows_with_more_games() -> None:
    low, high = wilson_interval(30, 100)
    assert low < 0.30 < high
    low2, high2 = wilson_interval(300, 1000)
    assert low < low2 < 0.30 < high2 < high


def test_no_games_give_an_empty_interval() -> None:
    assert wilson_interval(0, 0) == (0.0, 0.0)


def test_the_t_quantile_is_close_to_the_table() -> None:
    # 97.5% points of Student's t (any statistics table)
    for df, exact in ((2, 4.303), (5, 2.571), (10, 2.228), (30, 2.042), (1000, 1.962)):
        assert t_quantile(1.96, df) == pytest.approx(exact, abs=0.15 if df == 2 else 0.005)


def test_the_mean_interval_is_students_with_one_pseudo_value_of_one_half() -> None:
    values = [1.0, 0.5, 0.5, 0.0, 1.0, 1.0]
    padded = [*values, 0.5]
    mean = sum(padded) / 7
    sd = math.sqrt(sum((v - mean) ** 2 for v in padded) / 6)
    half = t_quantile(1.96, 6) * sd / math.sqrt(7)
    assert mean_interval(values) == pytest.approx((mean - half, mean + half))


def test_equal_values_give_a_wide_interval_not_a_point() -> None:
    low, high = mean_interval([1.0, 1.0])
    assert low < 0.5 and high == 1.0
    low, high = mean_interval([0.0] * 3)
    assert low == 0.0 and high > 0.5
    assert mean_interval([1.0] * 10)[0] > 0.8
    # deals that all split: exactly even, never above it
    assert mean_interval([0.5] * 4) == (0.5, 0.5)
    assert mean_interval([]) == (0.0, 0.0)


def test_the_mean_interval_narrows_with_more_values() -> None:
    few = mean_interval([1.0, 0.5, 0.5, 0.5, 0.0] * 4)
    many = mean_interval([1.0, 0.5, 0.5, 0.5, 0.0] * 40)
    assert few[0] < many[0] < 0.5 < many[1] < few[1]
