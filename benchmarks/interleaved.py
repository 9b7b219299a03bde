"""Timing several implementations of one operation against each other on a noisy machine."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(calls: dict[str, Callable[[], object]], rounds: int, inner: int) -> dict[str, float]:
    """Seconds per call of each callable: the best of ``rounds`` rounds of ``inner`` calls,
    every callable in turn within a round, so a noisy neighbour slows all of them alike."""
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(rounds):
        for name, fn in calls.items():
            start = time.perf_counter()
            for _ in range(inner):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / inner)
    return best
