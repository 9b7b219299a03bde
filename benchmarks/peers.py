"""``python -m benchmarks.peers``: our pipeline against every other Zarr reader and writer we can
run, with wall time and process CPU time per call, and a floor per layout.

Peers: zarr-python's default pipeline and its ``FusedCodecPipeline`` (where it has one), ours
(``zarr_codecs.install(pipeline=True)``), zarrs-python, and TensorStore (Google's C++
implementation, through its own API on the same files). Layouts: ``[bytes, zstd]`` and the same
sharded (``benchmarks.layouts``), 16 MiB and 256 MiB of float32 on tmpfs. Data (``--data``): a
random walk along rows (zstd keeps about 93% of it) and a smooth field (a few broad waves
kept to hundredths, as climate and imaging arrays are: it compresses about 3.8:1, so decoding,
not reading, is most of a read). Operations: reads of one element, one chunk, 4 x 4 chunks and
the whole array; writes of 4 x 4 chunks and the whole array.

Made to hold on a noisy shared 2-core machine: every round takes every peer through every
operation (A B C D E, then B C D E A, ...), and each call is timed twice, by the wall clock and
by the process's CPU time (all its threads; what a peer costs, however it spreads its work over
the cores). The table gives each peer's median wall time with its spread (the middle half of
the calls), and its median CPU time; compare CPU time across peers, and wall time for the use
of both cores. Three floors per layout and read, which every peer's read pays: the chunks' own
zstd decode (the same chunk bytes, read beforehand, decoded by our zstd codec on every core
into buffers touched before), a fresh output (``np.empty`` of the result and a first touch of
every page), and reading the chunks' stored bytes from files (one file each on the same
tmpfs, into one reused buffer, on one thread).

Quote figures only from release wheels. Never asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import statistics
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from zarr_codecs_bench import pipelines as pipeline_bench

from benchmarks.layouts import LAYOUTS, SIZES
from benchmarks.selections import _format

#: The layouts compared (keys of ``benchmarks.layouts.LAYOUTS``).
PEER_LAYOUTS = ["[bytes, zstd]", "sharded 4x4 zstd"]
TENSORSTORE = "tensorstore"
FLOOR_DECODE = "floor: zstd decode"
FLOOR_OUTPUT = "floor: fresh output"
FLOOR_FILES = "floor: file reads"

Sample = tuple[float, float]  # (wall seconds, CPU seconds)


def _random_walk(shape: tuple[int, int]) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(0)
    return (rng.standard_normal(shape).cumsum(axis=1) / 10).astype("float32")


def _smooth_field(shape: tuple[int, int]) -> np.ndarray[Any, Any]:
    """Broad waves in both directions, kept to hundredths (a temperature field, say)."""
    y = np.linspace(0, 6 * np.pi, shape[0], dtype="float64")[:, None]
    x = np.linspace(0, 4 * np.pi, shape[1], dtype="float64")[None, :]
    field: np.ndarray[Any, Any] = 15 + 10 * np.sin(y) * np.cos(x) + 3 * np.sin(3 * x + y / 2)
    return np.round(field, 2).astype(np.float32)


#: The data of each array, by name (``--data``).
DATASETS: dict[str, Callable[[tuple[int, int]], np.ndarray[Any, Any]]] = {
    "random walk": _random_walk,
    "smooth field": _smooth_field,
}


def _operations(chunks: tuple[int, int], big: bool) -> list[tuple[str, str, Any, int]]:
    """(direction, name, selection, calls per round)."""
    scale = 1 if big else 4
    r, c = chunks
    region = (slice(0, 4 * r), slice(4 * c, 8 * c))
    return [
        ("read", "one element", (r + 3, c + 5), 10 * scale),
        ("read", "one chunk", (slice(r, 2 * r), slice(2 * c, 3 * c)), 4 * scale),
        ("read", "4x4 chunks", region, 2 * scale),
        ("read", "whole array", (slice(None), slice(None)), 1 if big else 3),
        ("write", "4x4 chunks", region, 2 * scale),
        ("write", "whole array", (slice(None), slice(None)), 1 if big else 3),
    ]


def _timed(call: Callable[[], object], calls: int) -> list[Sample]:
    samples = []
    for _ in range(calls):
        cpu, wall = time.process_time(), time.perf_counter()
        call()
        samples.append((time.perf_counter() - wall, time.process_time() - cpu))
    return samples


class _TensorStoreArray:
    """TensorStore's zarr3 driver on the array's files, indexed like a zarr array."""

    def __init__(self, path: Path) -> None:
        import tensorstore as ts

        spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}
        self._array = ts.open(spec).result()

    def __getitem__(self, selection: Any) -> Any:
        return self._array[selection].read().result()

    def __setitem__(self, selection: Any, value: Any) -> None:
        self._array[selection].write(value).result()


def _peers() -> list[str]:
    names = [n for n in pipeline_bench.pipelines() if n != "default + our codecs"]
    with contextlib.suppress(ImportError):
        import tensorstore  # noqa: F401

        names.append(TENSORSTORE)
    return names


def _arrays(
    root: Path, names: list[str], layout: str, size: str, data: np.ndarray[Any, Any]
) -> dict[str, Any]:
    """Each peer's copy of the array (written by zarr-python's default pipeline), opened."""
    import zarr

    shape, chunks = SIZES[size]
    kwargs = dict(LAYOUTS[layout])
    per_shard = kwargs.pop("shards", None)
    if per_shard:
        kwargs["shards"] = tuple(per_shard * n for n in chunks)
    arrays: dict[str, Any] = {}
    for name in names:
        path = root / name.replace(" ", "_")
        store = zarr.storage.LocalStore(path)
        with pipeline_bench._setup("zarr default"):
            array = zarr.create_array(
                store, shape=shape, chunks=chunks, dtype="float32", fill_value=0.0, **kwargs
            )
            array[...] = data
        if name == TENSORSTORE:
            arrays[name] = _TensorStoreArray(path)
        else:
            with pipeline_bench._setup(name):
                arrays[name] = zarr.open_array(zarr.storage.LocalStore(path), mode="r+")
    for name, array in arrays.items():
        np.testing.assert_array_equal(np.asarray(array[...]), data, err_msg=name)
    return arrays


def _chunk_bytes(path: Path, shape: tuple[int, int], sharded: bool) -> dict[tuple[int, int], bytes]:
    """Every (inner) chunk's stored bytes, by its grid position, from the array at ``path``."""
    metadata = json.loads((path / "zarr.json").read_text())
    codecs = metadata["codecs"]
    found: dict[tuple[int, int], bytes] = {}
    if not sharded:
        grid = metadata["chunk_grid"]["configuration"]["chunk_shape"]
        for i in range(-(-shape[0] // grid[0])):
            for j in range(-(-shape[1] // grid[1])):
                found[i, j] = (path / "c" / str(i) / str(j)).read_bytes()
        return found
    outer = metadata["chunk_grid"]["configuration"]["chunk_shape"]
    inner = codecs[0]["configuration"]["chunk_shape"]
    per = (outer[0] // inner[0], outer[1] // inner[1])
    for i in range(-(-shape[0] // outer[0])):
        for j in range(-(-shape[1] // outer[1])):
            shard = (path / "c" / str(i) / str(j)).read_bytes()
            count = per[0] * per[1]
            index = shard[-(16 * count + 4) : -4]  # index at the end, then its crc32c
            for n in range(count):
                offset, length = struct.unpack_from("<QQ", index, 16 * n)
                found[i * per[0] + n // per[1], j * per[1] + n % per[1]] = shard[
                    offset : offset + length
                ]
    return found


def _floors(
    chunk_bytes: dict[tuple[int, int], bytes],
    chunks: tuple[int, int],
    selection: Any,
    shape: tuple[int, int],
    scratch: Path,
) -> dict[str, Callable[[], object]]:
    """The three floors of a read of ``selection``: decoding the chunks it touches (into buffers
    touched before), a fresh output of its shape, and reading the chunks' stored bytes from
    files (each in a file of its own in ``scratch``, read into one reused buffer)."""
    from zarr_codec_zstd import Zstd

    rows, cols = (s if isinstance(s, slice) else slice(s, s + 1) for s in selection)
    r0, r1, _ = rows.indices(shape[0])
    c0, c1, _ = cols.indices(shape[1])
    needed = [
        chunk_bytes[i, j]
        for i in range(r0 // chunks[0], -(-r1 // chunks[0]))
        for j in range(c0 // chunks[1], -(-c1 // chunks[1]))
    ]
    outs = [np.ones(chunks, dtype="float32") for _ in needed]
    codec = Zstd()
    out_shape = tuple(len(range(*s.indices(n))) for s, n in zip((rows, cols), shape, strict=True))

    def fresh() -> object:
        out = np.empty(out_shape, dtype="float32")
        out.fill(0)
        return out

    scratch.mkdir(parents=True, exist_ok=True)
    files = []
    for n, stored in enumerate(needed):
        files.append(scratch / str(n))
        files[-1].write_bytes(stored)
    buffer = bytearray(max(map(len, needed)))

    def read_files() -> object:
        view = memoryview(buffer)
        for path in files:
            with open(path, "rb", buffering=0) as file:
                file.readinto(view)
        return buffer

    return {
        FLOOR_DECODE: functools.partial(codec.decode_batch_into, needed, outs),
        FLOOR_OUTPUT: fresh,
        FLOOR_FILES: read_files,
    }


Key = tuple[str, str, str, str]  # size and data, layout, direction, operation


def run(
    rounds: int, sizes: list[str], layouts: list[str], datasets: list[str] | None = None
) -> dict[Key, dict[str, list[Sample]]]:
    """Every call's (wall, CPU) seconds, ``{key: {peer: samples}}``; the random walk's rows
    are labelled by size alone (as in earlier runs), another dataset's by size and name."""
    results: dict[Key, dict[str, list[Sample]]] = {}
    names = _peers()
    shm = Path("/dev/shm")
    cases = [(size, data) for size in sizes for data in datasets or ["random walk"]]
    for size, dataset in cases:
        shape, chunks = SIZES[size]
        data = DATASETS[dataset](shape)
        operations = _operations(chunks, size.startswith("256"))
        label = size if dataset == "random walk" else f"{size} {dataset}"
        for layout in layouts:
            root = Path(tempfile.mkdtemp(prefix="zarr-peers-", dir=shm if shm.is_dir() else None))
            try:
                arrays = _arrays(root, names, layout, size, data)
                stored = _chunk_bytes(
                    root / names[0].replace(" ", "_"), shape, "shards" in LAYOUTS[layout]
                )
                floors = {
                    op: _floors(stored, chunks, selection, shape, root / "floor" / op)
                    for direction, op, selection, _ in operations
                    if direction == "read"
                }
                for round_ in range(rounds):
                    turn = names[round_ % len(names) :] + names[: round_ % len(names)]
                    for direction, op, selection, calls in operations:
                        value = data[selection]
                        key = (label, layout, direction, op)
                        by_name = results.setdefault(key, {})
                        for name in turn:
                            array = arrays[name]
                            if direction == "read":
                                call: Callable[[], object] = functools.partial(
                                    array.__getitem__, selection
                                )
                            else:
                                call = functools.partial(array.__setitem__, selection, value)
                            by_name.setdefault(name, []).extend(_timed(call, calls))
                        for floor, call in (
                            floors.get(op, {}).items() if direction == "read" else ()
                        ):
                            by_name.setdefault(floor, []).extend(_timed(call, calls))
                print(f"{label} {layout}: done", file=sys.stderr)
                del arrays
            finally:
                shutil.rmtree(root, ignore_errors=True)
    return results


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 4:
        middle = statistics.median(values)
        return min(values), middle, max(values)
    q1, q2, q3 = statistics.quantiles(values, n=4)
    return q1, q2, q3


def markdown(results: dict[Key, dict[str, list[Sample]]]) -> str:
    """Two tables: wall time (median, and the middle half of the calls) and CPU time (median)
    per call, in ms; the CPU table adds ours as a fraction of zarrs-python's, TensorStore's and
    the floors' CPU time (the decode alone, with the fresh output, and with the file reads)."""
    names: list[str] = []
    for by_name in results.values():
        names += [n for n in by_name if n not in names]
    head = "| size | layout | op | selection | " + " | ".join(names)
    wall = [head + " |", "|---|---|---|---|" + "---|" * len(names)]
    ratios = [
        "ours / zarrs",
        "ours / TensorStore",
        "ours / decode floor",
        "ours / decode + output",
        "ours / all three floors",
    ]
    cpu = [head + " | " + " | ".join(ratios) + " |",
           "|---|---|---|---|" + "---|" * (len(names) + len(ratios))]  # fmt: skip
    ours = "zarr-codecs pipeline"
    for (size, layout, direction, op), by_name in results.items():
        row = f"| {size} | {layout} | {direction} | {op} | "
        walls, cpus = [], []
        medians: dict[str, float] = {}
        for name in names:
            samples = by_name.get(name)
            if not samples:
                walls.append("-")
                cpus.append("-")
                continue
            low, middle, high = _quartiles([w for w, _ in samples])
            walls.append(f"{_format(middle)} ({_format(low)}-{_format(high)})")
            medians[name] = statistics.median(c for _, c in samples)
            cpus.append(_format(medians[name]))
        shares = []
        for others in (
            ("zarrs",),
            (TENSORSTORE,),
            (FLOOR_DECODE,),
            (FLOOR_DECODE, FLOOR_OUTPUT),
            (FLOOR_DECODE, FLOOR_OUTPUT, FLOOR_FILES),
        ):
            if ours in medians and all(medians.get(other) for other in others):
                shares.append(f"{medians[ours] / sum(medians[other] for other in others):.2f}")
            else:
                shares.append("-")
        wall.append(row + " | ".join(walls) + " |")
        cpu.append(row + " | ".join(cpus) + " | " + " | ".join(shares) + " |")
    return (
        "Wall time per call, ms: median (middle half of the calls)\n\n"
        + "\n".join(wall)
        + "\n\nProcess CPU time per call (all threads), ms: median; then ours as a fraction\n\n"
        + "\n".join(cpu)
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", nargs="+", choices=list(SIZES), default=["16 MiB", "256 MiB"])
    parser.add_argument("--layouts", nargs="+", choices=PEER_LAYOUTS, default=PEER_LAYOUTS)
    parser.add_argument("--data", nargs="+", choices=list(DATASETS), default=list(DATASETS))
    args = parser.parse_args(argv)
    print(f"cores: {os.cpu_count()}", file=sys.stderr)
    print(markdown(run(args.rounds, args.sizes, args.layouts, args.data)))


if __name__ == "__main__":
    main()
