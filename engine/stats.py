"""Small statistics shared by the balance simulations (and anything that reports a rate)."""

from __future__ import annotations

import math


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
