"""A stand-in for a computer player's search that never finishes in time (a worker
process imports it by name, so it lives in a module of its own)."""

from __future__ import annotations

import time
from typing import Any


def never_done(*args: Any) -> Any:
    time.sleep(120)
    raise AssertionError("a search that overstayed should have been killed")
