"""Free memory made ready before a timed step is really faulted in."""

from __future__ import annotations

import resource
import tracemalloc

import pytest
from zarr_codecs_bench import memory

MiB = 1 << 20


def _minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def test_every_page_is_faulted_in() -> None:
    before = _minor_faults()
    memory.back_free_memory(64 * MiB)
    # at least one fault per 2 MiB, the largest page a fault maps (transparent huge pages)
    assert _minor_faults() - before >= 64 * MiB // (2 * MiB)


def test_no_bytes_and_negative_sizes_are_no_work_not_an_error() -> None:
    tracemalloc.start()  # numpy reports its allocations to tracemalloc
    try:
        memory.back_free_memory(1 << 20)
        assert tracemalloc.get_traced_memory()[1] >= 1 << 20  # the check can see work
        tracemalloc.reset_peak()
        memory.back_free_memory(0)
        memory.back_free_memory(-1)  # numpy would refuse a negative size
        assert tracemalloc.get_traced_memory()[1] < 64 * 1024  # nothing was allocated
    finally:
        tracemalloc.stop()


def test_the_demonstration_times_each_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert memory.main(["--size", "4", "--idle", "0", "--repeats", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "first touch of a new 4 MiB array, ms (each of 2 times)"
    cases = [line.rsplit(maxsplit=2) for line in lines[1:]]
    assert [case[0].strip() for case in cases] == [
        "right after a free",
        "after 0 s idle",
        "after 0 s idle, memory made ready first",
    ]
    assert all(float(t) >= 0 for case in cases for t in case[1:])  # times, in ms
