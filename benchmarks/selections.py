"""``python -m benchmarks.selections``: reads and writes of one element, one chunk, 4x4 chunks
and the whole array through zarr-python, by codec pipeline, side by side in one process.

The array is what the runtime issue names: 2048 x 2048 float32 (16 MiB) in 256 x 256 chunks
(256 KiB, 64 chunks), in a ``LocalStore`` on tmpfs (``/dev/shm`` where there is one), stored
uncompressed and with blosc lz4 shuffle. Each pipeline opens its own copy of the array once;
then every round takes every pipeline in turn through every operation (a slow spell of a shared
machine falls on all alike), several calls each. The tables give the median seconds per call
over all rounds and, per pipeline, its ratio to zarr's default pipeline (above 1: faster than
zarr's default). Writes store the array's own values again, so every write replaces chunks
with equal ones (what zarr's write path does does not depend on the values).

Quote figures only from release wheels (``maturin build --release``). Never asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from zarr_codecs_bench import pipelines as pipeline_bench

SHAPE = (2048, 2048)
CHUNKS = (256, 256)

#: (name, selection, calls per round)
OPERATIONS: list[tuple[str, tuple[slice | int, ...], int]] = [
    ("one element", (1000, 1000), 40),
    ("one chunk", (slice(256, 512), slice(512, 768)), 20),
    ("4x4 chunks", (slice(0, 1024), slice(1024, 2048)), 6),
    ("whole array", (slice(None), slice(None)), 3),
]

#: The pipeline benchmark's compressors, under shorter labels.
COMPRESSORS: dict[str, Any] = {
    "none": pipeline_bench.COMPRESSORS["none"],
    "blosc lz4": pipeline_bench.COMPRESSORS["blosc lz4 shuffle"],
}


def _pipelines() -> list[str]:
    from zarr_codecs_bench.pipelines import pipelines

    return [name for name in pipelines() if name != "default + our codecs"]


def _scratch() -> Path:
    shm = Path("/dev/shm")
    return Path(tempfile.mkdtemp(prefix="zarr-selections-", dir=shm if shm.is_dir() else None))


def _open_arrays(root: Path, label: str, data: np.ndarray[Any, Any]) -> dict[str, Any]:
    """Each pipeline's array (written once through zarr's default pipeline, then opened under
    the pipeline, which an array keeps from the moment it is opened)."""
    import zarr
    from zarr_codecs_bench.pipelines import _setup

    arrays = {}
    for name in _pipelines():
        path = root / f"{label}-{name}".replace(" ", "_")
        array = zarr.create_array(
            store=zarr.storage.LocalStore(path),
            shape=SHAPE,
            chunks=CHUNKS,
            dtype="float32",
            compressors=COMPRESSORS[label],
            fill_value=0.0,
        )
        array[...] = data
        with _setup(name):
            arrays[name] = zarr.open_array(zarr.storage.LocalStore(path), mode="r+")
        np.testing.assert_array_equal(arrays[name][...], data)
    return arrays


def _timed(fn: Callable[[], object], calls: int) -> list[float]:
    seconds = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        seconds.append(time.perf_counter() - start)
    return seconds


def run(rounds: int) -> dict[tuple[str, str, str], dict[str, float]]:
    """Median seconds per call: ``{(compressor, direction, operation): {pipeline: s}}``."""
    rng = np.random.default_rng(0)
    data = (rng.standard_normal(SHAPE).cumsum(axis=1) / 10).astype("float32")
    root = _scratch()
    results: dict[tuple[str, str, str], dict[str, float]] = {}
    try:
        for label in COMPRESSORS:
            arrays = _open_arrays(root, label, data)
            samples: dict[tuple[str, str, str], dict[str, list[float]]] = {}
            for round_ in range(rounds):
                names = list(arrays)
                names = names[round_ % len(names) :] + names[: round_ % len(names)]
                for op, selection, calls in OPERATIONS:
                    value = data[selection]
                    for name in names:
                        array = arrays[name]
                        read = samples.setdefault((label, "read", op), {}).setdefault(name, [])
                        read += _timed(functools.partial(array.__getitem__, selection), calls)
                        write = samples.setdefault((label, "write", op), {}).setdefault(name, [])
                        write += _timed(
                            functools.partial(array.__setitem__, selection, value), calls
                        )
                print(f"{label}: round {round_ + 1}/{rounds}", file=sys.stderr)
            for key, by_name in samples.items():
                results[key] = {name: statistics.median(s) for name, s in by_name.items()}
            for name, array in arrays.items():  # the writes kept the values
                np.testing.assert_array_equal(array[...], data, err_msg=name)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return results


def _format(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}" if seconds < 0.01 else f"{seconds * 1e3:.1f}"


def markdown(results: dict[tuple[str, str, str], dict[str, float]]) -> str:
    """One table: a row per (compressor, direction, operation), ms and ratio per pipeline."""
    names = list(next(iter(results.values())))
    lines = [
        "| compressor | op | selection | " + " | ".join(names) + " |",
        "|---|---|---|" + "---|" * len(names),
    ]
    for (label, direction, op), by_name in results.items():
        base = by_name.get("zarr default")
        cells = []
        for name in names:
            seconds = by_name[name]
            ratio = f" ({base / seconds:.2f}x)" if base and name != "zarr default" else ""
            cells.append(_format(seconds) + ratio)
        lines.append(f"| {label} | {direction} | {op} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    with contextlib.redirect_stdout(sys.stderr):
        results = run(args.rounds)
    print("median ms per call (ratio: zarr default's time over the pipeline's)\n")
    print(markdown(results))


if __name__ == "__main__":
    main()
