"""A clock a test moves by hand, to pass to ``Store.open(..., clock=)``."""

from __future__ import annotations

#: Where a store test's clock starts unless its file says otherwise (2027-01-15 08:00 UTC).
T0 = 1_800_000_000.0


class FakeClock:
    """Epoch seconds, standing still until the test moves them."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
