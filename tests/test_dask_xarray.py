"""Beyond one process: our codecs and pipeline on a ``dask.distributed`` cluster of worker
processes, installed there by the worker plugin (``zarr_codecs.dask.Install``) or by
``ZARR_CODECS_INSTALL``, and ``xarray`` datasets written and read with them, with and without
dask, giving the values zarr-python's own codecs give. The client process installs nothing
unless a test says so: arrays it opens carry zarr's own codecs and pipeline to the workers,
which use ours because ours is installed there.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
xr = pytest.importorskip("xarray")
zarr_codecs = pytest.importorskip("zarr_codecs")

from quantizing import quantize  # noqa: E402
from zarr_codecs.dask import Install  # noqa: E402

#: A quarter-degree-like field of 256 MiB of float32, in 4 MiB chunks.
BIG_SHAPE, BIG_CHUNKS = (8192, 8192), (1024, 1024)
QUANTIZE = quantize(15, 1000)
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
BLOSC = {
    "name": "blosc",
    "configuration": {
        "cname": "lz4",
        "clevel": 5,
        "shuffle": "shuffle",
        "typesize": 8,
        "blocksize": 0,
    },
}
GZIP = {"name": "gzip", "configuration": {"level": 5}}

pytestmark = pytest.mark.filterwarnings(
    # zarr's default config names no cast_value: with two packages offering it (the
    # cast-value package and ours), zarr warns and picks one where ours is not installed.
    "ignore:Codec 'cast_value' not configured",
    # distributed closing its workers at the end of a module
    "ignore::ResourceWarning",
)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """Two worker processes (spawned, as dask starts them), one thread each."""
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    with cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture
def installed(client: Any) -> Iterator[Any]:
    """The plugin registered (pipeline included), counters at zero; removed afterwards."""
    client.register_plugin(Install(pipeline=True))
    client.run(zarr_codecs.reset_usage)
    yield client
    client.unregister_worker_plugin(Install.name)


def _field(block: np.ndarray[Any, Any], block_info: Any = None) -> np.ndarray[Any, Any]:
    """Deterministic values for one block, from its place in the array: a smooth field with
    NaN holes and values far out of int16's range once scaled."""
    (rows, _), (cols, _) = block_info[None]["array-location"]
    shape = block_info[None]["chunk-shape"]
    y = np.arange(rows, rows + shape[0], dtype=np.float64)[:, None]
    x = np.arange(cols, cols + shape[1], dtype=np.float64)[None, :]
    values = (15 + 20 * np.sin(y / 300) * np.cos(x / 500)).astype(np.float32)
    values[(y.astype(int) * 7 + x.astype(int) * 13) % 97 == 0] = np.nan
    values[(y.astype(int) + x.astype(int)) % 1009 == 0] = 1e9
    return values


def _source() -> Any:
    return da.zeros(BIG_SHAPE, chunks=BIG_CHUNKS, dtype=np.float32).map_blocks(
        _field, dtype=np.float32
    )


def _same(a: Any, b: Any) -> Any:
    return (a == b) | (da.isnan(a) & da.isnan(b))


def _totals(reports: dict[str, dict[str, int]]) -> dict[str, int]:
    return {kind: sum(r[kind] for r in reports.values()) for kind in zarr_codecs._usage.KINDS}


def _wait_for_exactly(client: Any, workers: int, timeout: float = 60) -> None:
    """Until the scheduler has ``workers`` workers (``wait_for_workers`` waits for at least
    as many: a worker being retired would still be sent work)."""
    deadline = time.monotonic() + timeout
    while len(client.scheduler_info(n_workers=-1)["workers"]) != workers:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the cluster did not come to {workers} workers")
        time.sleep(0.1)


def test_the_plugin_installs_in_every_worker_including_later_ones(client: Any) -> None:
    assert not zarr_codecs.installed_parts()
    every = frozenset({"zarr", "numcodecs", "pipeline"})
    client.register_plugin(Install(pipeline=True))
    try:
        assert set(client.run(zarr_codecs.installed_parts).values()) == {every}
        client.cluster.scale(3)
        client.wait_for_workers(3, timeout=60)
        reports = client.run(zarr_codecs.installed_parts)
        assert len(reports) == 3 and set(reports.values()) == {every}
        # Another Install replaces it: codecs only.
        client.register_plugin(Install())
        assert set(client.run(zarr_codecs.installed_parts).values()) == {
            frozenset({"zarr", "numcodecs"})
        }
    finally:
        client.unregister_worker_plugin(Install.name)
        client.cluster.scale(2)
        _wait_for_exactly(client, 2)
    assert set(client.run(zarr_codecs.installed_parts).values()) == {frozenset()}
    assert not zarr_codecs.installed_parts()  # the client was never touched


def test_256_mib_through_dask_with_the_plugin_equals_the_source(
    installed: Any, tmp_path: Path
) -> None:
    """Written and read through dask on the workers, by our runtime there (each worker's
    counters say so), while this process opened the array with zarr's own codecs; the
    stored chunks read the same with zarr-python's own pipeline here."""
    path = str(tmp_path / "field.zarr")
    source = _source()
    assert source.nbytes == 256 << 20
    source.to_zarr(path, compressors=[ZSTD])
    back = da.from_zarr(path)
    assert back.chunks == source.chunks
    assert bool(_same(back, source).all().compute())
    reports = installed.run(zarr_codecs.usage)
    chunks = source.npartitions
    assert _totals(reports) == {
        "runtime_read": chunks,
        "runtime_written": chunks,
        "zarr_read": 0,
        "zarr_written": 0,
        "selections_read": chunks,  # every task's selection cut in Rust, none per chunk
        "selections_written": chunks,
        "device_read": 0,
        "remote_read": 0,
    }, reports
    assert all(r["runtime_read"] + r["runtime_written"] > 0 for r in reports.values()), reports
    zarr_codecs.reset_usage()
    here = zarr.open_array(path, mode="r")  # zarr-python's own codecs and pipeline
    corner = (slice(1000, 1100), slice(0, 2048))
    np.testing.assert_array_equal(here[corner], source[corner].compute())
    assert zarr_codecs.usage()["runtime_read"] == 0


def test_the_environment_variable_installs_a_cluster_without_code() -> None:
    """``ZARR_CODECS_INSTALL=pipeline`` through dask's ``pre-spawn-environ``: the worker's
    interpreter starts with it, and the ``.pth`` hook installs ours there."""
    dask = pytest.importorskip("dask")
    variable = "ZARR_CODECS_INSTALL"
    assert variable not in os.environ  # else it, not the config, would win
    environ = {variable: "pipeline"}
    try:
        with (
            dask.config.set({"distributed.nanny.pre-spawn-environ": environ}),
            distributed.LocalCluster(
                n_workers=1,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            ) as cluster,
            distributed.Client(cluster) as client,
        ):

            def parts() -> frozenset[str]:
                import zarr  # the hook installs into zarr when zarr is imported

                assert zarr is not None
                return zarr_codecs.installed_parts()

            (report,) = client.run(parts).values()
            assert report == {"zarr", "numcodecs", "pipeline"}
    finally:
        # A LocalCluster's nannies live in this process and leave pre-spawn-environ in its
        # os.environ: taken out, or every later subprocess would install ours.
        os.environ.pop(variable, None)


# -- xarray ---------------------------------------------------------------------------------


def _dataset() -> Any:
    rng = np.random.default_rng(29)
    dims = ("time", "y", "x")
    shape = (4, 90, 180)
    temperature = rng.normal(15, 10, shape).astype("float32")
    temperature[:, :10] = np.nan  # land
    temperature[0, 50, 5] = 1e9  # out of range: clamped to int16's largest
    return xr.Dataset(
        {
            "temperature": (dims, temperature),
            "pressure": (dims, rng.random(shape)),
            "count": (dims, rng.integers(0, 1000, shape).astype("int32")),
            "humidity": (dims, rng.random(shape).astype("float32")),
        },
        coords={"time": np.arange(4), "y": np.arange(90.0), "x": np.arange(180.0)},
    )


ENCODING = {
    "temperature": {
        "filters": QUANTIZE,
        "compressors": [ZSTD],
        "chunks": (1, 45, 90),
        "fill_value": np.nan,
    },
    "pressure": {"compressors": [BLOSC], "chunks": (1, 45, 90)},
    "count": {"compressors": [GZIP], "chunks": (2, 45, 90)},
    "humidity": {"compressors": [ZSTD], "chunks": (4, 90, 90)},
}


@pytest.fixture(scope="module")
def by_zarr(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Any]:
    """The dataset written with zarr-python's own codecs, and what zarr-python reads back
    (the quantized variable is not the source: scale_offset + cast_value round and clamp)."""
    assert not zarr_codecs.installed_parts()
    path = str(tmp_path_factory.mktemp("xarray") / "by_zarr.zarr")
    _dataset().to_zarr(path, encoding=ENCODING, zarr_format=3, consolidated=False)
    return path, xr.open_zarr(path, consolidated=False, chunks=None).load()


def _codec_modules(path: str) -> set[str]:
    """The modules of the codec classes zarr-python picks for the stored arrays here."""
    group = zarr.open_group(path, mode="r")
    return {type(c).__module__ for _, a in group.arrays() for c in a.metadata.codecs}


def test_xarray_without_dask_reads_and_writes_as_zarr_python_does(
    by_zarr: tuple[str, Any], tmp_path: Path
) -> None:
    path, expected = by_zarr
    ours = str(tmp_path / "ours.zarr")
    with zarr_codecs.install(pipeline=True):
        zarr_codecs.reset_usage()
        assert any(m.startswith("zarr_codec_cast_value") for m in _codec_modules(path))
        read = xr.open_zarr(path, consolidated=False, chunks=None).load()
        _dataset().to_zarr(ours, encoding=ENCODING, zarr_format=3, consolidated=False)
        counts = zarr_codecs.usage()
    assert counts["runtime_read"] > 0 and counts["runtime_written"] > 0, counts
    assert counts["zarr_read"] == counts["zarr_written"] == 0, counts
    xr.testing.assert_identical(read, expected)
    # what ours wrote, read by zarr-python's own codecs
    written = xr.open_zarr(ours, consolidated=False, chunks=None).load()
    xr.testing.assert_identical(written, expected)


def test_xarray_with_dask_on_the_cluster_reads_and_writes_as_zarr_python_does(
    installed: Any, by_zarr: tuple[str, Any], tmp_path: Path
) -> None:
    """``open_zarr`` with dask chunks and ``to_zarr`` of a chunked dataset, computed by the
    workers with ours, give what zarr-python's own codecs give here."""
    path, expected = by_zarr
    lazy = xr.open_zarr(path, consolidated=False)
    assert lazy["temperature"].chunks is not None
    xr.testing.assert_identical(lazy.compute(), expected)
    ours = str(tmp_path / "ours.zarr")
    chunked = _dataset()
    for name, variable in chunked.data_vars.items():  # dask chunks on the zarr chunks
        chunked[name] = variable.chunk(
            dict(zip(variable.dims, ENCODING[name]["chunks"], strict=True))
        )
    chunked.to_zarr(ours, encoding=ENCODING, zarr_format=3, consolidated=False)
    totals = _totals(installed.run(zarr_codecs.usage))
    assert totals["runtime_read"] > 0 and totals["runtime_written"] > 0, totals
    assert totals["zarr_read"] == totals["zarr_written"] == 0, totals
    written = xr.open_zarr(ours, consolidated=False, chunks=None).load()  # zarr's own, here
    xr.testing.assert_identical(written, expected)
