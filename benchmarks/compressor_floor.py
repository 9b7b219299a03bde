"""``python -m benchmarks.compressor_floor``: how fast a whole write (or read) of a layout can be at
best, set by its compressor alone.

For the layouts of :mod:`benchmarks.layouts` whose writes are compressor-bound (``[delta, lz4]``
on int32 counts and ``[bitround, zstd]`` on the float32 field, 64 MiB in 1 MiB chunks), the
filter is applied first and then only the compressor is timed, chunk by chunk, with numcodecs'
classes: the same C library (and bytes) every pipeline runs; and the same for decompressing
them. Divided by the cores, each single-core time is the floor of a whole write (read) on this
machine; divided into zarr-python's default pipeline's time it gives the largest ratio any
pipeline could reach. Medians of ``--rounds``.
Never asserts a time.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time
from collections.abc import Callable
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


def _each(work: Callable[[Any], object], items: list[Any]) -> None:
    for item in items:
        work(item)


def _median_ms(work: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="64 MiB", choices=sorted(SIZES))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0))
    print(
        f"| layout | compress, one core (ms) | write floor, {cores} cores (ms) "
        f"| decompress, one core (ms) | read floor, {cores} cores (ms) |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, (pieces, codec) in cases(args.size).items():
        encoded = [codec.encode(piece) for piece in pieces]
        compress = _median_ms(functools.partial(_each, codec.encode, pieces), args.rounds)
        decompress = _median_ms(functools.partial(_each, codec.decode, encoded), args.rounds)
        print(
            f"| {name} | {compress:.1f} | {compress / cores:.1f} "
            f"| {decompress:.1f} | {decompress / cores:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
