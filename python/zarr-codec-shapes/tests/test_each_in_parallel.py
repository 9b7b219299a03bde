"""``each_in_parallel``: every row exactly once, contiguous runs per worker, errors raised
only after every worker has stopped."""

from __future__ import annotations

import itertools
import threading
import time

import pytest
from zarr_codec_shapes.chain import each_in_parallel


@pytest.mark.parametrize("io", [False, True])
@pytest.mark.parametrize("count", [0, 1, 2, 3, 17, 128])
def test_every_row_runs_once(count: int, io: bool) -> None:
    seen: list[tuple[int, str]] = []
    lock = threading.Lock()

    def record(index: int, label: str) -> None:
        with lock:
            seen.append((index, label))

    each_in_parallel(record, range(count), [f"row {i}" for i in range(count)], io=io)
    assert sorted(seen) == [(i, f"row {i}") for i in range(count)]


def test_neighbouring_rows_stay_on_one_thread() -> None:
    threads: dict[int, int] = {}

    def record(index: int) -> None:
        time.sleep(0.001)
        threads[index] = threading.get_ident()

    each_in_parallel(record, range(64))
    order = [threads[i] for i in range(64)]
    switches = sum(a != b for a, b in itertools.pairwise(order))
    # Two workers with contiguous runs, each maybe helping at the other's back: a handful of
    # switches. Rows handed out one at a time would switch about every other row.
    assert switches <= 8, order


def test_an_error_stops_the_others_and_is_raised_after_they_stop() -> None:
    running = threading.Event()
    finished: list[int] = []

    def work(index: int) -> None:
        if index == 0:
            running.wait(5)
            raise ValueError("chunk 0 is corrupt")
        running.set()
        time.sleep(0.01)
        finished.append(index)

    with pytest.raises(ValueError, match="chunk 0 is corrupt"):
        each_in_parallel(work, range(100))
    done_at_raise = len(finished)
    time.sleep(0.05)
    assert len(finished) == done_at_raise  # nothing still ran after the error was raised
    assert done_at_raise < 99  # the other worker stopped taking rows


def test_io_rows_start_in_order() -> None:
    """File work goes in key order from one queue, as zarr's own writes do."""
    started: list[int] = []
    lock = threading.Lock()

    def record(index: int) -> None:
        with lock:
            started.append(index)
        time.sleep(0.002)

    each_in_parallel(record, range(60), io=True)
    assert sorted(started) == list(range(60))
    # Workers take the next row whenever they are free: no row starts long after a later one.
    assert all(index < position + 12 for position, index in enumerate(started)), started
