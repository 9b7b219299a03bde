"""``python -m benchmarks.cluster``: a 1 GiB Zarr store read through xarray + dask on a
``distributed.LocalCluster`` of worker processes, with our codecs and pipeline (installed in
the workers by ``zarr_codecs.dask.Install``) against zarr-python's own codecs and pipeline.

The store: one float32 variable of 16384 x 16384 (1 GiB) in 4 MiB chunks, a smooth field with
NaN holes and values out of int16's range once scaled, written once per layout (by zarr-python
in this process, our pipeline installed). Layouts: zarr-python's default ``[bytes, zstd]`` and
``[scale_offset, cast_value, bytes, zstd]`` (a NaN fill value; zarr-python's own cast_value is
what zarr picks when ours is not installed).

Operations, each a fresh ``xarray.open_zarr`` (dask chunks = the zarr chunks) computed on the
cluster: ``mean`` (every chunk read and reduced in the workers: what analyses do) and ``load``
(every value brought back to this process, which adds the transfer both sides pay alike).
The client process installs nothing: arrays it opens carry zarr's own codecs and pipeline,
which a worker with the plugin replaces by ours. Every round times both implementations, in
turn, on every layout and operation; the table gives medians in seconds and the ratio (ours
faster above 1). Never asserts a time; quote figures only from release wheels.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

SHAPE, CHUNKS = (16384, 16384), (1024, 1024)
_ZSTD = [{"name": "zstd", "configuration": {"level": 0, "checksum": False}}]
_QUANTIZE = [
    {"name": "scale_offset", "configuration": {"offset": 15, "scale": 1000}},
    {
        "name": "cast_value",
        "configuration": {
            "data_type": "int16",
            "rounding": "nearest-even",
            "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]},
        },
    },
]
#: label: (filters, compressors)
LAYOUTS: dict[str, tuple[list[Any], list[Any]]] = {
    "[bytes, zstd]": ([], _ZSTD),
    "[scale_offset, cast_value, bytes, zstd]": (_QUANTIZE, _ZSTD),
}
IMPLEMENTATIONS = ("zarr-python", "ours")
Key = tuple[str, str]


def field(block: np.ndarray[Any, Any], block_info: Any = None) -> np.ndarray[Any, Any]:
    """One block of the benchmark's field, from its place in the array (deterministic)."""
    (rows, _), (cols, _) = block_info[None]["array-location"]
    shape = block_info[None]["chunk-shape"]
    y = np.arange(rows, rows + shape[0], dtype=np.float64)[:, None]
    x = np.arange(cols, cols + shape[1], dtype=np.float64)[None, :]
    values = (15 + 20 * np.sin(y / 300) * np.cos(x / 500) + np.sin(x * y) / 50).astype("f4")
    values[(y.astype(int) * 7 + x.astype(int) * 13) % 97 == 0] = np.nan
    values[(y.astype(int) + x.astype(int)) % 1009 == 0] = 1e9
    return values


def write_stores(root: Path, layouts: list[str], client: Any) -> dict[str, str]:
    """Each layout's store, written through dask by the workers (ours installed there)."""
    import dask.array as da
    import xarray as xr
    from zarr_codecs.dask import Install

    source = da.zeros(SHAPE, chunks=CHUNKS, dtype="f4").map_blocks(field, dtype="f4")
    dataset = xr.Dataset({"t": (("y", "x"), source)})
    paths = {}
    client.register_plugin(Install(pipeline=True))
    try:
        for number, label in enumerate(layouts):
            filters, compressors = LAYOUTS[label]
            path = str(root / f"layout{number}.zarr")
            encoding = {
                "t": {
                    "filters": filters,
                    "compressors": compressors,
                    "chunks": CHUNKS,
                    "fill_value": np.nan,
                }
            }
            dataset.to_zarr(path, encoding=encoding, zarr_format=3, consolidated=False)
            paths[label] = path
    finally:
        client.unregister_worker_plugin(Install.name)
    return paths


def _operations() -> dict[str, Callable[[str], object]]:
    import xarray as xr

    def mean(path: str) -> object:
        return float(xr.open_zarr(path, consolidated=False)["t"].mean().compute())

    def load(path: str) -> object:
        return xr.open_zarr(path, consolidated=False)["t"].compute()

    return {"mean": mean, "load": load}


def run(rounds: int, layouts: list[str], workers: int) -> dict[Key, dict[str, float]]:
    """Median seconds: ``{(layout, operation): {implementation: s}}``."""
    import distributed
    from zarr_codecs import reset_usage, usage
    from zarr_codecs.dask import Install

    root = Path(tempfile.mkdtemp(prefix="zarr-codecs-cluster-", dir=_scratch()))
    samples: dict[Key, dict[str, list[float]]] = {}
    try:
        with (
            distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            paths = write_stores(root, layouts, client)
            operations = _operations()
            for round_number in range(rounds):
                for implementation in IMPLEMENTATIONS:
                    if implementation == "ours":
                        client.register_plugin(Install(pipeline=True))
                    client.run(reset_usage)
                    for label, path in paths.items():
                        for name, operation in operations.items():
                            start = time.perf_counter()
                            operation(path)
                            seconds = time.perf_counter() - start
                            by = samples.setdefault((label, name), {})
                            by.setdefault(implementation, []).append(seconds)
                    ran = sum(r["runtime_read"] for r in client.run(usage).values())
                    if implementation == "ours":
                        client.unregister_worker_plugin(Install.name)
                        assert ran > 0, "the plugin did not take effect"
                    else:
                        assert ran == 0, "ours ran where zarr-python's own should"
                print(f"round {round_number + 1}/{rounds} done", file=sys.stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {
        key: {name: statistics.median(times) for name, times in by.items()}
        for key, by in samples.items()
    }


def _scratch() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() else None


def markdown(results: dict[Key, dict[str, float]]) -> str:
    lines = [
        "| layout | operation | zarr-python (s) | ours (s) | ours vs zarr-python |",
        "|---|---|---:|---:|---:|",
    ]
    for (label, operation), by in results.items():
        theirs, ours = by["zarr-python"], by["ours"]
        lines.append(
            f"| {label} | {operation} | {theirs:.2f} | {ours:.2f} | {theirs / ours:.2f}x |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--layouts", nargs="+", choices=list(LAYOUTS), default=list(LAYOUTS))
    args = parser.parse_args(argv)
    results = run(args.rounds, args.layouts, args.workers)
    print(
        f"1 GiB float32 in 4 MiB chunks, LocalCluster({args.workers} worker processes, "
        f"1 thread each), tmpfs, median of {args.rounds} rounds"
    )
    print(markdown(results))


if __name__ == "__main__":
    main()
