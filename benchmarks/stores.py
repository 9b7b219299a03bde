"""``python -m benchmarks.stores``: reads from object storage where latency rules, through
zarr-python by each pipeline, side by side in one process.

Servers, each in a process of its own on 127.0.0.1, answering each request after ``--latency``
seconds (default 20 ms), as a remote store's round trip does: ``benchmarks/s3-server``
(``scripts/build-s3-server``), a Rust server that answers S3 (s3s-fs's, each GET's body read in
one call) and, with ``--http``, plain HTTP over a directory. The servers share the client's two
cores, where a remote store spends none of them, so theirs is kept small. Without that binary:
moto's S3 server (about 3 ms of Python a request) behind ``zarr_codecs_bench.loopback``'s
latency proxy, and that module's aiohttp server.

Stores: zarr's ``ObjectStore`` over obstore's ``S3Store`` and ``HTTPStore``, and
``FsspecStore`` over s3fs and fsspec's HTTP. Layouts: zarr-python's default ``[bytes, zstd]``
and the same sharded (shards of 4 x 4 inner chunks); 16 MiB of float32 in 256 KiB chunks.
Reads: one element, one chunk, 4 x 4 chunks (for the sharded layout, one whole shard), the
same from the third chunk of each dimension (a quarter of each of four shards: their indexes,
then the inner chunks needed), the whole array.

Pipelines: zarr-python's default, ours (``zarr_codecs.install(pipeline=True)``: whole
selections of these four stores fetched by the runtime's own client,
``zarr_codec_runtime.Remote``) and zarrs-python (obstore
stores and fsspec's HTTP; other stores it hands to zarr-python's default). Each round takes
every pipeline through every read in turn, the order rotated each round; the tables give
medians in ms of wall time, then of the client's CPU time (this process, all threads), with
ratios to zarr's default (above 1: faster, or less CPU). Never asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from zarr_codecs_bench import loopback
from zarr_codecs_bench import pipelines as pipeline_bench

from benchmarks.layouts import ratio_table
from benchmarks.peers import _timed  # (wall, this process's CPU on all threads) per call

SHAPE, CHUNKS = (2048, 2048), (256, 256)
LAYOUTS: dict[str, dict[str, Any]] = {
    "[bytes, zstd]": {},
    "sharded 4x4": {"shards": (1024, 1024)},
}
READS: list[tuple[str, Any, int]] = [  # (name, selection, calls per round)
    ("one element", (300, 500), 4),
    ("one chunk", (slice(256, 512), slice(512, 768)), 3),
    ("4x4 chunks", (slice(0, 1024), slice(1024, 2048)), 2),
    ("4x4 chunks from (2, 2)", (slice(512, 1536), slice(512, 1536)), 2),
    ("whole array", (slice(None), slice(None)), 1),
]
STORES = ["obstore S3", "s3fs", "obstore HTTP", "fsspec HTTP"]
PIPELINES = ["zarr default", "zarr-codecs pipeline", "zarrs"]
#: Where scripts/build-s3-server puts the S3 server.
S3_SERVER = (
    Path(__file__).resolve().parent
    / "s3-server"
    / "target"
    / "release"
    / "zarr-codecs-bench-s3-server"
)


@contextlib.contextmanager
def _rust_s3(binary: Path, root: Path, latency: float) -> Iterator[str]:
    """benchmarks/s3-server serving ``root`` (the bucket is a directory in it), answering each
    request after ``latency`` seconds."""
    (root / loopback.BUCKET).mkdir(parents=True, exist_ok=True)
    with loopback.serve([str(binary), str(root), str(latency * 1000)]) as url:
        yield url


def _rust_server() -> Path | None:
    binary = Path(os.environ.get("ZARR_CODECS_S3_SERVER", S3_SERVER))
    return binary if binary.is_file() else None


@contextlib.contextmanager
def _http_server(root: Path, latency: float) -> Iterator[tuple[str, str]]:
    """(URL, server's name) of an HTTP server over ``root`` answering each request after
    ``latency``: benchmarks/s3-server's ``--http`` where it is built, else
    ``zarr_codecs_bench.loopback``'s aiohttp server (whose Python, on the benchmark's own two
    cores, costs about 0.5 ms a request)."""
    binary = _rust_server()
    if binary is not None:
        with loopback.serve([str(binary), "--http", str(root), str(latency * 1000)]) as url:
            yield url, "benchmarks/s3-server --http"
    else:
        with loopback.spawn("http", str(root), "--latency", str(latency)) as url:
            yield url, "zarr_codecs_bench.loopback (aiohttp)"


@contextlib.contextmanager
def _s3_server(root: Path, latency: float) -> Iterator[tuple[str, str, str]]:
    """(URL without latency, URL with it, server's name): benchmarks/s3-server where it is
    built (run twice: with and without the latency), else moto's behind the latency proxy."""
    binary = _rust_server()
    if binary is not None:
        with _rust_s3(binary, root, 0.0) as direct, _rust_s3(binary, root, latency) as slow:
            yield direct, slow, "s3s-fs (benchmarks/s3-server)"
    else:
        with (
            loopback.spawn("s3") as direct,
            loopback.spawn("proxy", direct, "--latency", str(latency)) as slow,
        ):
            yield direct, slow, "moto, behind the latency proxy"


def _obstore_s3(url: str, prefix: str) -> Any:
    from zarr.storage import ObjectStore

    return ObjectStore(loopback.obstore_s3(url, prefix))


def _s3fs(url: str, prefix: str) -> Any:
    from zarr.storage import FsspecStore

    options = {
        "endpoint_url": url,
        "key": "testing",
        "secret": "testing",
        "client_kwargs": {"region_name": loopback.REGION},
    }
    # s3fs keeps 10 connections unless told otherwise, which caps any pipeline at 10 requests
    # in flight: set as a user reading from S3 at scale would.
    options["config_kwargs"] = {"max_pool_connections": 64}
    return FsspecStore.from_url(f"s3://{loopback.BUCKET}/{prefix}", storage_options=options)


def _obstore_http(url: str, prefix: str) -> Any:
    from obstore.store import HTTPStore
    from zarr.storage import ObjectStore

    store = HTTPStore.from_url(f"{url}/{prefix}", client_options={"allow_http": True})
    return ObjectStore(store, read_only=True)


def _fsspec_http(url: str, prefix: str) -> Any:
    from zarr.storage import FsspecStore

    return FsspecStore.from_url(f"{url}/{prefix}", read_only=True)


#: store name -> (server, client)
CLIENTS: dict[str, tuple[str, Callable[[str, str], Any]]] = {
    "obstore S3": ("s3", _obstore_s3),
    "s3fs": ("s3", _s3fs),
    "obstore HTTP": ("http", _obstore_http),
    "fsspec HTTP": ("http", _fsspec_http),
}


def _write_arrays(s3_url: str, served: Path, data: np.ndarray[Any, Any]) -> None:
    """Each layout written once by zarr-python's default pipeline: to S3 (straight to the
    server, without the proxy) and to the HTTP server's directory."""
    import zarr
    from zarr.storage import LocalStore

    with pipeline_bench._setup("zarr default"):
        for number, kwargs in enumerate(LAYOUTS.values()):
            for store in (_obstore_s3(s3_url, f"l{number}"), LocalStore(served / f"l{number}")):
                array = zarr.create_array(
                    store, shape=SHAPE, chunks=CHUNKS, dtype="float32", fill_value=0.0, **kwargs
                )
                array[...] = data


Key = tuple[str, str, str]  # store, layout, read
Results = dict[Key, dict[str, float]]


def run(rounds: int, latency: float, stores: list[str]) -> tuple[Results, Results, str]:
    """Median wall seconds and median client CPU seconds per call, each
    ``{key: {pipeline: seconds}}``, and the S3 server's name."""
    import zarr

    rng = np.random.default_rng(0)
    data = (rng.standard_normal(SHAPE).cumsum(axis=1) / 10).astype("float32")
    names = [n for n in PIPELINES if n in pipeline_bench.pipelines()]
    shm = Path("/dev/shm")
    scratch = Path(tempfile.mkdtemp(prefix="zarr-stores-", dir=shm if shm.is_dir() else None))
    results: Results = {}
    cpu: Results = {}
    try:
        served = scratch / "http"
        served.mkdir()
        with (
            _s3_server(scratch / "s3", latency) as (s3_url, s3_slow, s3_name),
            _http_server(served, latency) as (http_slow, http_name),
        ):
            _write_arrays(s3_url, served, data)
            urls = {"s3": s3_slow, "http": http_slow}
            for store_name in stores:
                server, client = CLIENTS[store_name]
                for number, layout in enumerate(LAYOUTS):
                    arrays = {}
                    for name in names:
                        with pipeline_bench._setup(name):
                            store = client(urls[server], f"l{number}")
                            arrays[name] = zarr.open_array(store, mode="r")
                    samples: dict[Key, dict[str, list[tuple[float, float]]]] = {}
                    for round_ in range(rounds):
                        turn = names[round_ % len(names) :] + names[: round_ % len(names)]
                        for read, selection, calls in READS:
                            for name in turn:
                                call = functools.partial(arrays[name].__getitem__, selection)
                                if round_ == 0:  # every pipeline reads the same values
                                    np.testing.assert_array_equal(call(), data[selection])
                                by_name = samples.setdefault((store_name, layout, read), {})
                                by_name.setdefault(name, []).extend(_timed(call, calls))
                    for key, by_name in samples.items():
                        results[key] = {
                            n: statistics.median(w for w, _ in s) for n, s in by_name.items()
                        }
                        cpu[key] = {
                            n: statistics.median(c for _, c in s) for n, s in by_name.items()
                        }
                    print(f"{store_name} {layout}: done", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return results, cpu, f"S3: {s3_name}; HTTP: {http_name}"


def markdown(results: Results) -> str:
    """One table; cells: ms (ratio to zarr's default)."""
    return ratio_table(["store", "layout", "read"], results)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per request")
    parser.add_argument("--stores", nargs="+", choices=STORES, default=STORES)
    args = parser.parse_args(argv)
    results, cpu, servers = run(args.rounds, args.latency, args.stores)
    print(f"servers: {servers}; latency {args.latency * 1000:.0f} ms per request\n")
    print(markdown(results))
    print("\nThe client's CPU time per call (this process, all threads; ratios: zarr's / ours)\n")
    print(markdown(cpu))


if __name__ == "__main__":
    main()
