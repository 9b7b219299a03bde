"""``python -m benchmarks.compressor_floor``: how fast a whole write of a layout can be at best,
set by its compressor alone.

For the layouts of :mod:`benchmarks.layouts` whose writes are compressor-bound (``[delta, lz4]``
on int32 counts and ``[bitround, zstd]`` on the float32 field, 64 MiB in 1 MiB chunks), the
filter is applied first and then only the compressor is timed, chunk by chunk, with numcodecs'
classes: the same C library (and bytes) every pipeline runs. Half of that single-core time is
the floor of a write on two cores; divided into zarr-python's default pipeline's write time it
gives the largest ratio any pipeline could reach on this machine. Medians of ``--rounds``.
Never asserts a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import numpy as np

from benchmarks.layouts import SIZES


def _chunks(values: np.ndarray[Any, Any], chunk: tuple[int, int]) -> list[np.ndarray[Any, Any]]:
    rows, columns = values.shape
    return [
        np.ascontiguousarray(values[i : i + chunk[0], j : j + chunk[1]])
        for i in range(0, rows, chunk[0])
        for j in range(0, columns, chunk[1])
    ]


def cases(size: str) -> dict[str, tuple[list[Any], Any]]:
    """Each layout's filtered chunks and its compressor, on the values benchmarks.layouts
    writes."""
    from numcodecs import LZ4, BitRound, Delta, Zstd

    shape, chunk = SIZES[size]
    rng = np.random.default_rng(0)
    field = (rng.standard_normal(shape).cumsum(axis=1) / 10).astype("float32")
    counts = (field * 1000).astype("int32")
    return {
        "[delta, lz4] int32": ([Delta("<i4").encode(c) for c in _chunks(counts, chunk)], LZ4(1)),
        "[bitround, zstd]": ([BitRound(10).encode(c) for c in _chunks(field, chunk)], Zstd(0)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="64 MiB", choices=sorted(SIZES))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0))
    print(f"| layout | compressor alone, one core (ms) | floor on {cores} cores (ms) |")
    print("|---|---:|---:|")
    for name, (pieces, codec) in cases(args.size).items():
        times = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            for piece in pieces:
                codec.encode(piece)
            times.append(time.perf_counter() - start)
        one = statistics.median(times) * 1e3
        print(f"| {name} | {one:.1f} | {one / cores:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
