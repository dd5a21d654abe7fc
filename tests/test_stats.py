"""The Wilson interval the balance simulations (and the tournament) report."""

from __future__ import annotations

import pytest

from engine.stats import wilson_interval


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
