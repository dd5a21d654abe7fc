"""The rating model every Warhost rating uses: openskill's Weng-Lin Plackett-Luce model
with its defaults (μ 25, σ 25/3, β 25/6, τ 25/300).

One place for it, so the ratings the bot keeps per server (:mod:`db.standings`) and the
strength the tournament gives each computer level (:mod:`engine.tournament`) are on the
same scale: a player rated 30 in a server can compare that with "hard" rated 30.
Pure and deterministic, like the rest of the engine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from openskill.models import PlackettLuce

#: openskill's model, with its defaults.
MODEL = PlackettLuce()
DEFAULT_MU: float = float(MODEL.mu)
DEFAULT_SIGMA: float = float(MODEL.sigma)
#: The conservative rating leaderboards sort by: μ − 3σ.
CONSERVATIVE_SIGMAS = 3.0

#: A rating: (μ, σ).
Rating = tuple[float, float]


def conservative(mu: float, sigma: float) -> float:
    """The rating a leaderboard shows: μ − 3σ (a player is this good, almost surely)."""
    return mu - CONSERVATIVE_SIGMAS * sigma


def rate(priors: Mapping[str, Rating], places: Sequence[tuple[str, float]]) -> dict[str, Rating]:
    """The new rating of every player of one game, from their ratings before it.

    ``places`` holds one ``(player, place)`` per seat (1 is first; shared places tie). A
    player missing from ``priors`` starts at the defaults; a player in two seats gets the
    mean of the two seats' new ratings."""
    teams = [[MODEL.rating(*priors.get(player, (DEFAULT_MU, DEFAULT_SIGMA)))]
             for player, _ in places]
    rated = MODEL.rate(teams, ranks=[float(place) for _, place in places])
    found: dict[str, list[Rating]] = {}
    for (player, _), team in zip(places, rated, strict=True):
        found.setdefault(player, []).append((float(team[0].mu), float(team[0].sigma)))
    return {p: (math.fsum(m for m, _ in got) / len(got), math.fsum(s for _, s in got) / len(got))
            for p, got in found.items()}
