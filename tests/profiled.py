"""Run a script under cProfile, counting the main thread's CPU time, between two
signals: ``python -m tests.profiled OUT SCRIPT [ARGS...]`` starts SCRIPT (as
``python SCRIPT ARGS`` would); SIGUSR1 starts profiling, SIGUSR2 stops it and writes
the stats to OUT (read them with ``python -m pstats OUT``). The benchmark
(tests/bench_e2e.py, ``BENCH_PROFILE=OUT``) signals around its measured moves, so a
start-up's imports are not in the figures.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys
import time
from types import FrameType


def main() -> None:
    out, script = sys.argv[1], sys.argv[2]
    sys.argv = sys.argv[2:]
    profile = cProfile.Profile(time.thread_time)

    def start(signum: int, frame: FrameType | None) -> None:
        profile.enable()

    def stop(signum: int, frame: FrameType | None) -> None:
        profile.disable()
        profile.dump_stats(out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
