"""``python -m benchmarks.layouts``: the arrays users have, read and written through zarr-python
by each codec pipeline, side by side in one process.

Layouts: zarr-python's default v3 chain ``[bytes, zstd]``; the same sharded (shards of 4 x 4
inner chunks, zstd inside, ``bytes`` + ``crc32c`` index); no compressor; blosc lz4 shuffle;
``[scale_offset, cast_value, bytes, zstd]``; and numcodecs' filters as zarr-python names them,
``[delta, bytes, lz4]`` on int32 counts and ``[bitround, bytes, zstd]``. Sizes: 16 MiB of
float32 in 256 KiB chunks, 256 MiB in 2 MiB chunks (64 MiB in 1 MiB chunks on request).
Stores: ``LocalStore`` on tmpfs (``/dev/shm``) and ``MemoryStore``.
Operations: one element, one chunk (an inner chunk of a sharded array), 4 x 4 chunks, the whole
array; each read and written (a write stores the array's own values again).

Pipelines: zarr-python's default, its ``FusedCodecPipeline`` where it has one, ours
(``zarr_codecs.install(pipeline=True)``) and zarrs-python (files only; it has no scale_offset
or cast_value). Every round takes every pipeline through every operation in turn, so a slow
spell of a shared machine falls on all alike; the table gives medians in ms and each
pipeline's ratio to zarr's default (above 1: faster).

Quote figures only from release wheels. Never asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from zarr_codecs_bench import pipelines as pipeline_bench

from benchmarks.selections import _format, _timed

_ZSTD = pipeline_bench.COMPRESSORS["zstd 0"]
_QUANTIZE = [
    {"name": "scale_offset", "configuration": {"offset": 0, "scale": 1000}},
    {"name": "cast_value", "configuration": {"data_type": "int16", "out_of_range": "clamp"}},
]

#: ``create_array`` keywords by layout; ``shards`` counts inner chunks per shard dimension.
LAYOUTS: dict[str, dict[str, Any]] = {
    "[bytes, zstd]": {"compressors": _ZSTD},
    "sharded 4x4 zstd": {"compressors": _ZSTD, "shards": 4},
    "no compressor": {"compressors": None},
    "blosc lz4 shuffle": {"compressors": pipeline_bench.COMPRESSORS["blosc lz4 shuffle"]},
    "scale_offset+cast_value+zstd": {"filters": _QUANTIZE, "compressors": _ZSTD},
    # numcodecs' filters as zarr-python names them: integer counts delta-coded before lz4, and
    # a float field bit-rounded to 10 mantissa bits before zstd.
    "[delta, lz4] int32": {
        "dtype": "int32",
        "filters": [{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}],
        "compressors": [{"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}],
    },
    "[bitround, zstd]": {
        "filters": [{"name": "numcodecs.bitround", "configuration": {"keepbits": 10}}],
        "compressors": _ZSTD,
    },
}

#: label: (array shape, chunk shape)
SIZES: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "16 MiB": ((2048, 2048), (256, 256)),
    "64 MiB": ((4096, 4096), (512, 512)),
    "256 MiB": ((8192, 8192), (1024, 512)),
    # Many small chunks (1024 of 16 KiB): where per-chunk Python costs show. Not in the
    # default run; ask for it with --sizes.
    "16 MiB in 16 KiB chunks": ((2048, 2048), (64, 64)),
}
#: The sizes a run without --sizes takes.
DEFAULT_SIZES = ["16 MiB", "256 MiB"]


def _operations(chunks: tuple[int, int], big: bool) -> list[tuple[str, Any, int]]:
    """(name, selection, calls per round)."""
    scale = 1 if big else 4
    r, c = chunks
    return [
        ("one element", (r + 3, c + 5), 10 * scale),
        ("one chunk", (slice(r, 2 * r), slice(2 * c, 3 * c)), 4 * scale),
        ("4x4 chunks", (slice(0, 4 * r), slice(4 * c, 8 * c)), 2 * scale),
        ("whole array", (slice(None), slice(None)), 1 if big else 3),
    ]


def _pipelines(store: str, layout: str) -> list[str]:
    names = [n for n in pipeline_bench.pipelines() if n != "default + our codecs"]
    # zarrs-python: files only; it has no scale_offset or cast_value, and its Python build
    # refuses numcodecs' filters under zarr-python's v3 names.
    if store != "local" or "scale_offset" in layout or "filters" in LAYOUTS[layout]:
        names = [n for n in names if n != "zarrs"]
    return names


@contextlib.contextmanager
def _store(kind: str) -> Iterator[Any]:
    import zarr

    if kind == "memory":
        yield lambda name: zarr.storage.MemoryStore()
        return
    shm = Path("/dev/shm")
    root = Path(tempfile.mkdtemp(prefix="zarr-layouts-", dir=shm if shm.is_dir() else None))
    try:
        yield lambda name: zarr.storage.LocalStore(root / name.replace(" ", "_"))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _arrays(
    new_store: Any, names: list[str], layout: str, size: str, data: np.ndarray[Any, Any]
) -> dict[str, Any]:
    """Each pipeline's array, written once through zarr's default pipeline, then opened under
    the pipeline (an array keeps the pipeline it was opened with)."""
    import zarr

    shape, chunks = SIZES[size]
    kwargs = dict(LAYOUTS[layout])
    dtype = kwargs.pop("dtype", "float32")
    if dtype != data.dtype:  # integer counts: the field scaled, as sensor counts look
        data = (data * 1000).astype(dtype)
    per_shard = kwargs.pop("shards", None)
    if per_shard:
        kwargs["shards"] = tuple(per_shard * n for n in chunks)
    arrays = {}
    for name in names:
        store = new_store(name)
        array = zarr.create_array(
            store, shape=shape, chunks=chunks, dtype=dtype, fill_value=0, **kwargs
        )
        array[...] = data
        with pipeline_bench._setup(name):
            arrays[name] = zarr.open_array(store, mode="r+")
    reference = arrays[names[0]][...]
    for name, array in arrays.items():
        np.testing.assert_array_equal(array[...], reference, err_msg=name)
    return arrays


Key = tuple[str, str, str, str, str]  # size, store, layout, direction, operation


def run(
    rounds: int, sizes: list[str], stores: list[str], layouts: list[str]
) -> dict[Key, dict[str, float]]:
    """Median seconds per call, ``{key: {pipeline: seconds}}``."""
    results: dict[Key, dict[str, float]] = {}
    for size in sizes:
        shape, chunks = SIZES[size]
        rng = np.random.default_rng(0)
        data = (rng.standard_normal(shape).cumsum(axis=1) / 10).astype("float32")
        operations = _operations(chunks, size.startswith("256"))
        for store in stores:
            for layout in layouts:
                names = _pipelines(store, layout)
                with _store(store) as new_store:
                    arrays = _arrays(new_store, names, layout, size, data)
                    samples: dict[Key, dict[str, list[float]]] = {}
                    for round_ in range(rounds):
                        turn = names[round_ % len(names) :] + names[: round_ % len(names)]
                        for op, selection, calls in operations:
                            value = arrays[names[0]][selection]
                            for name in turn:
                                array = arrays[name]
                                read = functools.partial(array.__getitem__, selection)
                                write = functools.partial(array.__setitem__, selection, value)
                                for direction, call in (("read", read), ("write", write)):
                                    key = (size, store, layout, direction, op)
                                    by_name = samples.setdefault(key, {})
                                    by_name.setdefault(name, []).extend(_timed(call, calls))
                    print(f"{size} {store} {layout}: done", file=sys.stderr)
                    for key, by_name in samples.items():
                        results[key] = {n: statistics.median(s) for n, s in by_name.items()}
                    del arrays
    return results


def markdown(results: dict[Key, dict[str, float]]) -> str:
    """One table; cells: ms (ratio to zarr's default); "-" where a pipeline cannot run."""
    return ratio_table(["size", "store", "layout", "op", "selection"], results)


def ratio_table(columns: list[str], results: Mapping[Any, dict[str, float]]) -> str:
    """A markdown table: the key's ``columns``, then a cell per pipeline: ms (ratio to zarr's
    default, above 1 faster); "-" where a pipeline has no figure."""
    names: list[str] = []
    for by_name in results.values():
        names += [n for n in by_name if n not in names]
    lines = [
        "| " + " | ".join(columns) + " | " + " | ".join(names) + " |",
        "|" + "---|" * (len(columns) + len(names)),
    ]
    for key, by_name in results.items():
        base = by_name.get("zarr default")
        cells = []
        for name in names:
            seconds = by_name.get(name)
            if seconds is None:
                cells.append("-")
                continue
            ratio = f" ({base / seconds:.2f}x)" if base and name != "zarr default" else ""
            cells.append(_format(seconds) + ratio)
        lines.append("| " + " | ".join(key) + " | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", nargs="+", choices=list(SIZES), default=DEFAULT_SIZES)
    parser.add_argument(
        "--stores", nargs="+", choices=["local", "memory"], default=["local", "memory"]
    )
    parser.add_argument("--layouts", nargs="+", choices=list(LAYOUTS), default=list(LAYOUTS))
    args = parser.parse_args(argv)
    results = run(args.rounds, args.sizes, args.stores, args.layouts)
    print(markdown(results))


if __name__ == "__main__":
    main()
