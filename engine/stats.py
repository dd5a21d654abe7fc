"""Small statistics shared by the balance simulations (and anything that reports a rate)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% with the default ``z``).

    Unlike the normal approximation it stays inside [0, 1] and behaves at rates near 0 or 1
    and on few games. No games give (0, 0).
    """
    if games <= 0:
        return 0.0, 0.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def t_quantile(z: float, df: int) -> float:
    """Student's t quantile matching the normal ``z`` at ``df`` degrees of freedom, by
    the Cornish-Fisher expansion: 2.568 for 95% at 5 (exact 2.571), 4.17 at 2 (4.30),
    and too small below that (9.7 at 1, against 12.7)."""
    z3, z5, z7 = z ** 3, z ** 5, z ** 7
    return (z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2)
            + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3))


def mean_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """The interval of the mean of scores in [0, 1] (95% with the default ``z``), by
    Student's t over the values as given: use it where games come in groups that are not
    independent, one value per group (the tournament's deals, each played from both
    seats).

    One pseudo-value of one half is added (a split deal), as Wilson's interval pulls
    towards one half, so a few values that are all 1 (or all 0) give a wide interval
    rather than none; values that are all one half give exactly one half, never above
    it. No values give (0, 0).
    """
    if not values:
        return 0.0, 0.0
    padded = [*values, 0.5]
    n = len(padded)
    mean = sum(padded) / n
    variance = sum((v - mean) ** 2 for v in padded) / (n - 1)
    half = t_quantile(z, n - 1) * math.sqrt(variance / n)
    return max(0.0, mean - half), min(1.0, mean + half)
