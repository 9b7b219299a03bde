"""End-to-end reads and writes through zarr-python, by codec pipeline:
``python -m zarr_codecs.bench.pipelines [--size MiB] [--chunk MiB]``.

One float32 array (the ``float32_field`` dataset) is written and read whole through zarr-python
with: zarr's default pipeline and codecs; zarr's opt-in ``FusedCodecPipeline`` (zarr 3.4 and
later), with zarr's codecs; the default pipeline with our codecs installed; our
``ChainCodecPipeline`` with our codecs; and the ``zarrs`` pipeline (a Rust Zarr implementation;
LocalStore only, strict, so it never silently falls back). A last row per store and compressor
does the same chunk work with zarr-python taken out (:mod:`zarr_codecs.bench.chunk_work`): no
pipeline can beat it on the machine it runs on. Each cell is the median of several runs; ratios
are against zarr's default. Values are checked after every read. Never asserts a time.

Writes are timed twice: into a new array (every chunk a new key or file) and over an existing
one (every chunk replaced). On a LocalStore the second also measures the filesystem: replacing a
file by renaming a new one over it, as zarr-python does so that readers never see part of a
chunk, makes ext4 start writing the new file's data to disk at once. Before every timed LocalStore
write, overwrite and read, the file system's pending writes are flushed (``os.sync``, untimed),
so that no run waits on the disk for an earlier one's data.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from zarr_codecs.bench import chunk_work, datasets, harness

MiB = 1 << 20

COMPRESSORS: dict[str, list[dict[str, Any]] | None] = {
    "none": None,
    "blosc lz4 shuffle": [
        {
            "name": "blosc",
            "configuration": {
                "cname": "lz4",
                "clevel": 5,
                "shuffle": "shuffle",
                "typesize": 4,
                "blocksize": 0,
            },
        }
    ],
    "gzip 1": [{"name": "gzip", "configuration": {"level": 1}}],
}

#: Array -> array codecs before the compressor, by row label; lossy, so each pipeline's values
#: are checked against zarr's default pipeline's.
FILTERS: dict[str, list[dict[str, Any]]] = {
    "quantize int16, blosc": [
        {"name": "scale_offset", "configuration": {"offset": 48, "scale": 200}},
        {"name": "cast_value", "configuration": {"data_type": "int16", "out_of_range": "clamp"}},
    ],
}
COMPRESSORS["quantize int16, blosc"] = COMPRESSORS["blosc lz4 shuffle"]

DEFAULT = "zarr.core.codec_pipeline.BatchedCodecPipeline"
#: zarr-python's opt-in pipeline that runs codecs synchronously in bulk (zarr 3.4 and later).
FUSED = "zarr.core.codec_pipeline.FusedCodecPipeline"
#: zarr-python's own classes for the codecs it ships without a config entry (ours would be
#: picked as "any implementation" otherwise).
ZARRS_OWN = {
    "codecs.cast_value": "zarr.codecs.cast_value.CastValue",
    "codecs.scale_offset": "zarr.codecs.scale_offset.ScaleOffset",
}


@contextlib.contextmanager
def _setup(name: str) -> Iterator[None]:
    import zarr
    import zarr_codecs

    if name == "zarr default":
        with zarr.config.set({"codec_pipeline.path": DEFAULT, **ZARRS_OWN}):
            yield
    elif name == "zarr fused":
        with zarr.config.set({"codec_pipeline.path": FUSED, **ZARRS_OWN}):
            yield
    elif name == "default + our codecs":
        with zarr.config.set({"codec_pipeline.path": DEFAULT}), zarr_codecs.install():
            yield
    elif name == "zarr-codecs pipeline":
        with zarr_codecs.install(pipeline=True):
            yield
    elif name == "zarrs":
        with zarr.config.set(
            {"codec_pipeline.path": "zarrs.ZarrsCodecPipeline", "codec_pipeline.strict": True}
        ):
            yield
    else:
        raise ValueError(name)


def pipelines() -> list[str]:
    """The pipelines that can run here."""
    from zarr.core import codec_pipeline

    fused = ["zarr fused"] if hasattr(codec_pipeline, FUSED.rpartition(".")[2]) else []
    zarrs = ["zarrs"] if importlib.util.find_spec("zarrs") else []
    return ["zarr default", *fused, "default + our codecs", "zarr-codecs pipeline", *zarrs]


def _one(
    store_kind: str,
    label: str,
    name: str,
    data: np.ndarray[Any, Any],
    chunk: int,
    repeats: int,
    path: Path,
    expected: np.ndarray[Any, Any] | None,
) -> tuple[tuple[float, float, float], np.ndarray[Any, Any]]:
    """(write, overwrite, read) seconds for one store, row and pipeline, and the values read:
    equal to ``expected``, or with ``None`` (the reference of a lossy row) within a
    quantization step of ``data``."""
    import zarr

    stores: list[Any] = []

    def store() -> Any:
        if store_kind == "memory":
            return stores[-1]
        return zarr.storage.LocalStore(path)

    def quiet() -> None:
        """No earlier run's writes still going to disk (untimed)."""
        if store_kind == "local":
            os.sync()

    with _setup(name):
        arrays: list[Any] = []

        def new_array() -> None:
            """A new, empty array (untimed): the old one's chunks deleted, with its store."""
            arrays.clear()
            stores[:] = [zarr.storage.MemoryStore()]
            shutil.rmtree(path, ignore_errors=True)
            quiet()
            arrays.append(
                zarr.create_array(
                    store=store(),
                    shape=data.shape,
                    chunks=(chunk,),
                    dtype=data.dtype,
                    filters=FILTERS.get(label),
                    compressors=COMPRESSORS[label],
                    overwrite=True,
                )
            )

        def write() -> None:
            arrays[-1][...] = data

        def read() -> Any:
            return zarr.open_array(store(), mode="r")[...]

        seconds_write = harness.measure(
            write, warmup=1, repeats=repeats, min_time=0, setup=new_array
        )
        seconds_overwrite = harness.measure(
            write, warmup=1, repeats=repeats, min_time=0, setup=quiet
        )
        values = read()
        _check(name, values, data, expected)
        seconds_read = harness.measure(read, warmup=1, repeats=repeats, min_time=0, setup=quiet)
        return (seconds_write, seconds_overwrite, seconds_read), values


def _check(
    name: str,
    values: np.ndarray[Any, Any],
    data: np.ndarray[Any, Any],
    expected: np.ndarray[Any, Any] | None,
) -> None:
    """``values`` read by ``name`` are ``expected``; with ``None`` (the reference of a lossy
    row), within a quantization step of ``data``."""
    if expected is None:
        expected = values if np.allclose(values, data, atol=0.01) else data
    if not np.array_equal(values, expected, equal_nan=True):
        raise AssertionError(f"{name} read different values")


#: A row of the results: store, compressor, pipeline, then write, overwrite and read seconds.
Row = tuple[str, str, str, float, float, float]


def measure_all(data: np.ndarray[Any, Any], chunk: int, repeats: int, root: Path) -> list[Row]:
    """A :data:`Row` for every combination of store, compressor and pipeline."""
    rows = []
    for store_kind in ("memory", "local"):
        for label in COMPRESSORS:
            # Lossless rows read `data`; lossy ones what zarr's default pipeline reads.
            expected: np.ndarray[Any, Any] | None = data
            for name in pipelines():
                if name == "zarrs" and store_kind == "memory":
                    continue  # zarrs reads and writes files only
                if name == "zarrs" and label in FILTERS:
                    continue  # zarrs 0.2 has no scale_offset or cast_value
                path = root / f"{store_kind}-{label}-{name}".replace(" ", "_").replace(",", "")
                if name == "zarr default" and label in FILTERS:
                    expected = None
                (write, overwrite, read), values = _one(
                    store_kind, label, name, data, chunk, repeats, path, expected
                )
                if expected is None:
                    expected = values
                shutil.rmtree(path, ignore_errors=True)
                rows.append(_reported(store_kind, label, name, (write, overwrite, read)))
            # The same chunk work with zarr-python taken out: what no pipeline can beat here.
            path = root / f"{store_kind}-{label}-alone".replace(" ", "_").replace(",", "")
            filters, compressors = FILTERS.get(label, []), COMPRESSORS[label] or []
            times, values = chunk_work.measure(
                store_kind, filters, compressors, data, chunk, repeats, path
            )
            _check(chunk_work.NAME, values, data, expected)
            shutil.rmtree(path, ignore_errors=True)
            rows.append(_reported(store_kind, label, chunk_work.NAME, times))
    return rows


def _reported(store_kind: str, label: str, name: str, times: tuple[float, float, float]) -> Row:
    """The row of one measurement, also printed to stderr as it comes."""
    write, overwrite, read = times
    print(
        f"{store_kind:6} {label:18} {name:22} write {write * 1e3:8.1f} ms "
        f"overwrite {overwrite * 1e3:8.1f} ms read {read * 1e3:8.1f} ms",
        file=sys.stderr,
    )
    return (store_kind, label, name, write, overwrite, read)


def to_markdown(rows: Sequence[Row], nbytes: int) -> str:
    """A table: throughput and ratio to zarr's default pipeline, per store and compressor."""
    base = {(s, c): times for s, c, p, *times in rows if p == "zarr default"}
    lines = [
        "| store | compressor | pipeline | write MB/s | vs default | overwrite MB/s | vs default "
        "| read MB/s | vs default |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for store, compressor, name, *times in rows:
        cells = [
            f"{nbytes / seconds / 1e6:,.0f} | {reference / seconds:.2f}x"
            for seconds, reference in zip(times, base[(store, compressor)], strict=True)
        ]
        lines.append(f"| {store} | {compressor} | {name} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m zarr_codecs.bench.pipelines", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--size", type=float, default=256, help="MiB of float32 (default 256)")
    parser.add_argument("--chunk", type=float, default=2, help="MiB per chunk (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs, median")
    args = parser.parse_args(argv)
    data = datasets.load("float32_field", int(args.size * MiB)).reshape(-1)
    chunk = max(1, int(args.chunk * MiB) // data.itemsize)
    with tempfile.TemporaryDirectory(prefix="zarr-codecs-pipelines-") as root:
        rows = measure_all(data, chunk, args.repeats, Path(root))
    print(
        f"float32_field, {data.nbytes / MiB:.0f} MiB in chunks of {chunk * 4 / MiB:g} MiB; "
        f"median of {args.repeats}\n"
    )
    print(to_markdown(rows, data.nbytes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
