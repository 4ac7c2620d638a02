"""CPU time of a piece of work, measured one way for every growth and speed test.

CPU time (``time.process_time``), not wall clock: other processes on a busy machine do not
count. The least of several runs: a cache flush or a page fault only ever adds time. Garbage
collection runs before each run and is off during it: a full collection walks every object the
whole test session holds, so its cost grows with the session, not with the input under test,
and one collection inside the large run of a growth test reads as super-linear growth.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def best_cpu_seconds(work: Callable[[], object], runs: int = 5) -> float:
    """The least CPU seconds that ``work()`` took over ``runs`` runs."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            work()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best
