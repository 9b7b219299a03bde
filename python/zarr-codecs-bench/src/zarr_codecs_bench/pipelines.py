"""End-to-end reads and writes through zarr-python, by codec pipeline:
``python -m zarr_codecs_bench.pipelines [--size MiB] [--chunk MiB] [--repeats N]``.

One float32 array (the ``float32_field`` dataset) is written and read whole through zarr-python
with: zarr's default pipeline and codecs; zarr's opt-in ``FusedCodecPipeline`` (zarr 3.4 and
later), with zarr's codecs; the default pipeline with our codecs installed; our
``ChainCodecPipeline`` with our codecs; and the ``zarrs`` pipeline (a Rust Zarr implementation;
LocalStore only, strict, so it never silently falls back). A last row per store and compressor
does the same chunk work with zarr-python taken out (:mod:`zarr_codecs_bench.chunk_work`):
about the best a pipeline can do on the machine it runs on.

Every pipeline runs several rounds, each round taking every pipeline in turn
(:func:`in_rounds`), so a slow spell of a shared machine falls on all of them alike. Two tables
are printed: each pipeline's best round (whatever else runs only adds time, so the best is the
steadiest measure of what a pipeline costs) and its median round; every round goes to stderr.
Before every timed step, twice the array's size of free memory is made ready
(:mod:`zarr_codecs_bench.memory`): on a virtual machine with free page reporting, memory left
free for a couple of seconds goes back to the host, and a step that then allocates it pays the
host's page faults (9-34x slower, measured). Ratios are against zarr's default. Values are
checked after the first read. Never asserts a time.

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
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from zarr_codecs_bench import chunk_work, datasets
from zarr_codecs_bench.memory import back_free_memory

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
    # zarr-python's default compressor for v3 arrays, as it writes it.
    "zstd 0": [{"name": "zstd", "configuration": {"level": 0, "checksum": False}}],
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


class ZarrArray:
    """One pipeline's array, written and read whole through zarr-python (a
    :class:`~zarr_codecs_bench.chunk_work.Subject`)."""

    def __init__(
        self,
        store_kind: str,
        label: str,
        name: str,
        data: np.ndarray[Any, Any],
        chunk: int,
        path: Path,
    ) -> None:
        self.store_kind, self.label, self.name = store_kind, label, name
        self.data, self.chunk, self.path = data, chunk, path
        self._stores: list[Any] = []
        self._arrays: list[Any] = []

    def context(self) -> contextlib.AbstractContextManager[object]:
        return _setup(self.name)

    def _store(self) -> Any:
        import zarr

        if self.store_kind == "memory":
            return self._stores[-1]
        return zarr.storage.LocalStore(self.path)

    def fresh(self) -> None:
        """A new, empty array: the old one's chunks deleted, with its store."""
        import zarr

        self._arrays.clear()
        self._stores[:] = [zarr.storage.MemoryStore()]
        shutil.rmtree(self.path, ignore_errors=True)
        self._arrays.append(
            zarr.create_array(
                store=self._store(),
                shape=self.data.shape,
                chunks=(self.chunk,),
                dtype=self.data.dtype,
                filters=FILTERS.get(self.label),
                compressors=COMPRESSORS[self.label],
                overwrite=True,
            )
        )

    def write(self) -> None:
        self._arrays[-1][...] = self.data

    def read(self) -> np.ndarray[Any, Any]:
        import zarr

        return np.asarray(zarr.open_array(self._store(), mode="r")[...])

    def remove(self) -> None:
        self._arrays.clear()
        self._stores.clear()
        shutil.rmtree(self.path, ignore_errors=True)


def in_rounds(
    subjects: Sequence[chunk_work.Subject],
    store_kind: str,
    repeats: int,
    clock: Callable[[], float] = time.perf_counter,
    ready: Callable[[], object] = lambda: None,
) -> tuple[list[list[tuple[float, float, float]]], list[np.ndarray[Any, Any]]]:
    """Each subject's (write, overwrite, read) seconds in each of ``repeats`` rounds, after
    one untimed round, and the values each read first.

    Every round takes each subject in turn through a write into a new array, an overwrite of
    it and a read of it, so that a slow spell of a shared machine falls on every subject alike
    instead of on whichever was running. Before each timed step, untimed: on a LocalStore the
    file system's pending writes are flushed, then ``ready`` runs (the benchmark makes free
    memory ready with it: :mod:`zarr_codecs_bench.memory`). ``clock`` is replaceable for
    tests."""

    def quiet() -> None:
        if store_kind == "local":
            os.sync()
        ready()

    def timed(step: Callable[[], object]) -> tuple[float, object]:
        quiet()
        start = clock()
        result = step()
        return clock() - start, result

    samples: list[list[tuple[float, float, float]]] = [[] for _ in subjects]
    first: list[np.ndarray[Any, Any]] = []
    for round_ in range(1 + repeats):
        for index, subject in enumerate(subjects):
            with subject.context():
                subject.fresh()
                seconds_write, _ = timed(subject.write)
                seconds_overwrite, _ = timed(subject.write)
                seconds_read, values = timed(subject.read)
            if round_ == 0:
                first.append(np.asarray(values))
            else:
                samples[index].append((seconds_write, seconds_overwrite, seconds_read))
            del values
    return samples, first


def _summary(
    samples: Sequence[tuple[float, float, float]], of: Callable[[Sequence[float]], float]
) -> tuple[float, float, float]:
    """``of`` (``min``, ``statistics.median``) the write, overwrite and read seconds of a
    subject's rounds."""
    write, overwrite, read = (of(column) for column in zip(*samples, strict=True))
    return write, overwrite, read


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
#: What was measured of one subject: store, compressor, pipeline, then every timed round's
#: (write, overwrite, read) seconds.
Measured = tuple[str, str, str, list[tuple[float, float, float]]]


def measure_all(
    data: np.ndarray[Any, Any],
    chunk: int,
    repeats: int,
    root: Path,
    labels: Sequence[str] | None = None,
) -> list[Measured]:
    """Every round of every combination of store, compressor (``labels``: these rows only)
    and pipeline, the chunk work alone last (each also printed to stderr)."""
    measured: list[Measured] = []
    for store_kind in ("memory", "local"):
        for label in labels or COMPRESSORS:
            names = [
                name
                for name in pipelines()
                # zarrs reads and writes files only, and 0.2 has no scale_offset or cast_value
                if name != "zarrs" or (store_kind == "local" and label not in FILTERS)
            ]
            stem = f"{store_kind}-{label}".replace(" ", "_").replace(",", "")
            subjects: list[chunk_work.Subject] = [
                ZarrArray(store_kind, label, name, data, chunk, root / f"{stem}-{name}")
                for name in names
            ]
            # The same chunk work with zarr-python taken out: about the best a pipeline can do here.
            subjects.append(
                chunk_work.ChunkWork(
                    store_kind,
                    FILTERS.get(label, []),
                    COMPRESSORS[label] or [],
                    data,
                    chunk,
                    root / f"{stem}-alone",
                )
            )
            names.append(chunk_work.NAME)
            try:
                samples, values = in_rounds(
                    subjects, store_kind, repeats, ready=lambda: back_free_memory(2 * data.nbytes)
                )
            finally:
                for subject in subjects:
                    subject.remove()
            # Lossless rows read `data`; lossy ones what zarr's default pipeline reads.
            expected = None if label in FILTERS else data
            for name, read in zip(names, values, strict=True):
                _check(name, read, data, expected)
                if expected is None:
                    expected = read
            for name, cell in zip(names, samples, strict=True):
                _report(store_kind, label, name, cell)
                measured.append((store_kind, label, name, cell))
    return measured


def summarized(measured: Sequence[Measured], of: Callable[[Sequence[float]], float]) -> list[Row]:
    """A :data:`Row` per subject: ``of`` (``min``, ``statistics.median``) its rounds."""
    return [(store, label, name, *_summary(cell, of)) for store, label, name, cell in measured]


def _report(
    store_kind: str, label: str, name: str, samples: Sequence[tuple[float, float, float]]
) -> None:
    """One subject's best rounds, medians and every round's times, to stderr."""
    write, overwrite, read = _summary(samples, min)
    medians = " ".join(f"{seconds * 1e3:.1f}" for seconds in _summary(samples, statistics.median))
    rounds = "; ".join(" ".join(f"{seconds * 1e3:.1f}" for seconds in s) for s in samples)
    print(
        f"{store_kind:6} {label:18} {name:22} write {write * 1e3:8.1f} ms "
        f"overwrite {overwrite * 1e3:8.1f} ms read {read * 1e3:8.1f} ms "
        f"(medians, ms: {medians}; rounds, ms: {rounds})",
        file=sys.stderr,
    )


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
        prog="python -m zarr_codecs_bench.pipelines", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--size", type=float, default=256, help="MiB of float32 (default 256)")
    parser.add_argument("--chunk", type=float, default=2, help="MiB per chunk (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds (default 3)")
    parser.add_argument(
        "--compressors",
        nargs="+",
        choices=list(COMPRESSORS),
        metavar="LABEL",
        help=f"rows to run (default all: {', '.join(map(repr, COMPRESSORS))})",
    )
    args = parser.parse_args(argv)
    data = datasets.load("float32_field", int(args.size * MiB)).reshape(-1)
    chunk = max(1, int(args.chunk * MiB) // data.itemsize)
    with tempfile.TemporaryDirectory(prefix="zarr-codecs-pipelines-") as root:
        measured = measure_all(data, chunk, args.repeats, Path(root), args.compressors)
    shape = f"float32_field, {data.nbytes / MiB:.0f} MiB in chunks of {chunk * 4 / MiB:g} MiB"
    for title, of in (("best", min), ("median", statistics.median)):
        print(f"{shape}; {title} of {args.repeats} rounds\n")
        print(to_markdown(summarized(measured, of), data.nbytes) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
