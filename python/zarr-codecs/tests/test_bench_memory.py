"""Free memory made ready before a timed step is really faulted in."""

from __future__ import annotations

import resource

from zarr_codecs.bench.memory import back_free_memory

MiB = 1 << 20


def _minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def test_every_page_is_faulted_in() -> None:
    before = _minor_faults()
    back_free_memory(64 * MiB)
    # at least one fault per 2 MiB, the largest page a fault maps (transparent huge pages)
    assert _minor_faults() - before >= 64 * MiB // (2 * MiB)


def test_nothing_is_touched_for_no_bytes() -> None:
    back_free_memory(0)
    back_free_memory(-1)
