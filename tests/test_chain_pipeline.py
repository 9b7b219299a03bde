"""``ChainCodecPipeline`` (``zarr_codecs.pipeline``) against zarr-python's own pipeline.

The pipeline replaces zarr's per-chunk read and write loops for arrays whose codecs our
registry has, so every indexing and write path zarr offers must behave exactly as with zarr's
default ``BatchedCodecPipeline``:

* Differential writes and reads on MemoryStore and LocalStore, for chains without a compressor
  (both byte orders), gzip, blosc (two full configurations), zstd (zarr-python's default
  chain, and with crc32c after it), ``[scale_offset, cast_value]`` and
  ``numcodecs.fixedscaleoffset``, in several data types with NaN and nonzero fill values. With
  our codecs installed in both runs the stored bytes are identical; against zarr's own codec
  classes only the values are compared.
* Sharded arrays (index at either end, nested) and Zarr v2 arrays without filters run in the
  runtime too, with the same bytes as zarr's pipeline.
* Arrays it cannot run (transpose, v2 filters or Fortran order, data types we lack, sharding
  around codecs it cannot run) go to zarr's own code and give the same values and bytes.
* ``zarr_codecs.install(pipeline=True)`` / ``uninstall()`` and ``ZARR_CODECS_INSTALL=pipeline``.
* A corrupt chunk raises our ``CodecError``; arrays pickle into ``spawn`` workers.

Two regressions found while writing these tests have their own tests: whole chunks decoded
into strided output slots through cast_value/scale_offset, and rectilinear chunk grids (chunks of
different shapes in one batch).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import multiprocessing
import operator
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numcodecs
import numpy as np
import numpy.typing as npt
import pytest

zarr = pytest.importorskip("zarr")

from stored import contents  # noqa: E402

zarr_codecs = pytest.importorskip("zarr_codecs")

from zarr.abc.store import Store  # noqa: E402
from zarr.core.array_spec import ArraySpec  # noqa: E402
from zarr.core.buffer import default_buffer_prototype  # noqa: E402
from zarr.core.codec_pipeline import BatchedCodecPipeline  # noqa: E402
from zarr.core.sync import sync  # noqa: E402
from zarr.storage import LocalStore, MemoryStore  # noqa: E402
from zarr_codec_runtime import Chain  # noqa: E402
from zarr_codec_shapes import CodecError, CorruptInputError  # noqa: E402
from zarr_codecs.pipeline import PATH, ChainCodecPipeline  # noqa: E402

Array = npt.NDArray[Any]
JSON = dict[str, Any]
Selection = tuple[str, Any]  # ("basic" | "oindex" | "vindex", selection)

DEFAULT = "zarr.core.codec_pipeline.BatchedCodecPipeline"
#: zarr-python's own classes for the codecs ``zarr_codecs.install()`` replaces.
BUILTIN_CODECS: dict[str, str] = {
    "gzip": "zarr.codecs.gzip.GzipCodec",
    "blosc": "zarr.codecs.blosc.BloscCodec",
    "zstd": "zarr.codecs.zstd.ZstdCodec",
    "crc32c": "zarr.codecs.crc32c_.Crc32cCodec",
    "cast_value": "zarr.codecs.cast_value.CastValue",
    "scale_offset": "zarr.codecs.scale_offset.ScaleOffset",
    "numcodecs.fixedscaleoffset": "zarr.codecs.numcodecs.FixedScaleOffset",
    "numcodecs.zlib": "zarr.codecs.numcodecs.Zlib",
    "numcodecs.lz4": "zarr.codecs.numcodecs.LZ4",
    "numcodecs.bz2": "zarr.codecs.numcodecs.BZ2",
    "numcodecs.lzma": "zarr.codecs.numcodecs.LZMA",
    "numcodecs.shuffle": "zarr.codecs.numcodecs.Shuffle",
    "numcodecs.crc32": "zarr.codecs.numcodecs.CRC32",
    "numcodecs.adler32": "zarr.codecs.numcodecs.Adler32",
    "numcodecs.fletcher32": "zarr.codecs.numcodecs.Fletcher32",
    "numcodecs.jenkins_lookup3": "zarr.codecs.numcodecs.JenkinsLookup3",
    "numcodecs.delta": "zarr.codecs.numcodecs.Delta",
    "numcodecs.bitround": "zarr.codecs.numcodecs.BitRound",
    "numcodecs.quantize": "zarr.codecs.numcodecs.Quantize",
    "numcodecs.astype": "zarr.codecs.numcodecs.AsType",
    "numcodecs.packbits": "zarr.codecs.numcodecs.PackBits",
    "numcodecs.pcodec": "zarr.codecs.numcodecs.PCodec",
    "numcodecs.zfpy": "zarr.codecs.numcodecs.ZFPY",
}

SHAPE, CHUNKS = (23, 31), (5, 7)  # 5 x 5 chunks, partial ones on the last row and column
FILL_ROW_EDGE = (slice(20, 23), slice(7, 14))  # chunk (4, 1): first written as all fill
FILL_COLUMN_EDGE = (slice(5, 10), slice(28, 31))  # chunk (1, 4): first written as all fill


# -- chains ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainCase:
    """One codec chain of the matrix: ``create_array`` keywords for a data type, and whether
    it stores values exactly (else: to within ``tolerance``)."""

    kwargs: Callable[[np.dtype[Any]], JSON]
    lossless: bool = True
    tolerance: float = 0.0


def _blosc(cname: str, shuffle: str, clevel: int, blocksize: int) -> Callable[[int], JSON]:
    def codec(typesize: int) -> JSON:
        config = {"cname": cname, "clevel": clevel, "shuffle": shuffle, "typesize": typesize}
        return {"name": "blosc", "configuration": {**config, "blocksize": blocksize}}

    return codec


_LZ4 = _blosc("lz4", "shuffle", 5, 0)
_ZSTD = _blosc("zstd", "bitshuffle", 3, 128)  # several blocks per chunk
_GZIP: JSON = {"name": "gzip", "configuration": {"level": 5}}
_ZSTD_DEFAULT: JSON = {"name": "zstd", "configuration": {"level": 0, "checksum": False}}
_ZSTD_CHECKED: JSON = {"name": "zstd", "configuration": {"level": 3, "checksum": True}}
#: scale_offset then cast_value to int16, NaN <-> -32768, out of range values clamped.
_QUANTIZE: list[JSON] = [
    {"name": "scale_offset", "configuration": {"offset": 0.5, "scale": 100}},
    {
        "name": "cast_value",
        "configuration": {
            "data_type": "int16",
            "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]},
        },
    },
]
_FSO: JSON = {
    "name": "numcodecs.fixedscaleoffset",
    "configuration": {"offset": 1, "scale": 100, "dtype": "<f8", "astype": "<i2"},
}


_TRANSPOSE: JSON = {"name": "transpose", "configuration": {"order": [1, 0]}}


def _numcodecs(codec_id: str, **config: Any) -> JSON:
    """zarr-python's v3 form of one of numcodecs' codecs."""
    return {"name": f"numcodecs.{codec_id}", "configuration": config}


def _bytes(endian: str) -> JSON:
    return {"name": "bytes", "configuration": {"endian": endian}}


CHAINS: dict[str, ChainCase] = {
    "bytes-little": ChainCase(lambda dt: {"serializer": _bytes("little"), "compressors": None}),
    "bytes-big": ChainCase(lambda dt: {"serializer": _bytes("big"), "compressors": None}),
    "gzip": ChainCase(lambda dt: {"compressors": [_GZIP]}),
    "blosc-lz4-shuffle": ChainCase(lambda dt: {"compressors": [_LZ4(dt.itemsize)]}),
    "blosc-zstd-bitshuffle": ChainCase(lambda dt: {"compressors": [_ZSTD(dt.itemsize)]}),
    # zarr-python's default v3 chain, and zstd with a crc32c after it.
    "zstd": ChainCase(lambda dt: {"compressors": [_ZSTD_DEFAULT]}),
    "zstd-crc32c": ChainCase(lambda dt: {"compressors": [_ZSTD_CHECKED, {"name": "crc32c"}]}),
    "quantize-blosc": ChainCase(
        lambda dt: {"filters": _QUANTIZE, "serializer": _bytes("little"), "compressors": [_LZ4(2)]},
        lossless=False,
        tolerance=0.006,
    ),
    "fixedscaleoffset-gzip": ChainCase(
        lambda dt: {"filters": [_FSO], "compressors": [_GZIP]}, lossless=False, tolerance=0.006
    ),
    "transpose-zstd": ChainCase(
        lambda dt: {"filters": [_TRANSPOSE], "compressors": [_ZSTD_DEFAULT]}
    ),
    # numcodecs' lz4, and its checksums after a compressor and alone, as zarr-python names
    # them in v3.
    "lz4": ChainCase(lambda dt: {"compressors": [_numcodecs("lz4", acceleration=1)]}),
    "bz2": ChainCase(lambda dt: {"compressors": [_numcodecs("bz2", level=9)]}),
    "zlib": ChainCase(lambda dt: {"compressors": [_numcodecs("zlib", level=1)]}),
    "lzma": ChainCase(lambda dt: {"compressors": [_numcodecs("lzma", preset=1)]}),
    "shuffle-zstd": ChainCase(
        lambda dt: {"compressors": [_numcodecs("shuffle", elementsize=dt.itemsize), _ZSTD_DEFAULT]}
    ),
    "lzma-raw-delta": ChainCase(
        lambda dt: {
            "compressors": [
                _numcodecs(
                    "lzma",
                    format=3,
                    filters=[{"id": 3, "dist": dt.itemsize}, {"id": 33, "preset": 1}],
                )
            ]
        }
    ),
    "lz4-fast-crc32c": ChainCase(
        lambda dt: {"compressors": [_numcodecs("lz4", acceleration=20), {"name": "crc32c"}]}
    ),
    "zstd-crc32": ChainCase(lambda dt: {"compressors": [_ZSTD_DEFAULT, _numcodecs("crc32")]}),
    "gzip-adler32-end": ChainCase(
        lambda dt: {"compressors": [_GZIP, _numcodecs("adler32", location="end")]}
    ),
    "fletcher32": ChainCase(lambda dt: {"compressors": [_numcodecs("fletcher32")]}),
    "jenkins-lookup3": ChainCase(
        lambda dt: {"compressors": [_numcodecs("jenkins_lookup3", initval=7)]}
    ),
    # numcodecs' filters as zarr-python names them in v3, before a compressor.
    "delta-lz4": ChainCase(
        lambda dt: {
            "filters": [_numcodecs("delta", dtype=dt.str)],
            "compressors": [_numcodecs("lz4", acceleration=1)],
        }
    ),
    "delta-widening-zstd": ChainCase(
        lambda dt: {
            "filters": [_numcodecs("delta", dtype=dt.str, astype="<i8")],
            "compressors": [_ZSTD_DEFAULT],
        }
    ),
    "bitround-zstd": ChainCase(
        lambda dt: {
            "filters": [_numcodecs("bitround", keepbits=10)],
            "compressors": [_ZSTD_DEFAULT],
        },
        lossless=False,
        tolerance=0.15,  # |values| < 400, 11 significant bits
    ),
    "numcodecs-quantize-zstd": ChainCase(
        lambda dt: {
            "filters": [_numcodecs("quantize", digits=2, dtype=dt.str)],
            "compressors": [_ZSTD_DEFAULT],
        },
        lossless=False,
        tolerance=1 / 256,
    ),
    "astype-gzip": ChainCase(
        lambda dt: {
            "filters": [
                _numcodecs(
                    "astype",
                    encode_dtype="<f8" if dt.kind == "f" else "<i8",
                    decode_dtype=dt.str,
                )
            ],
            "compressors": [_GZIP],
        }
    ),
    # pcodec: zarr-python's array-to-bytes codec, alone and with a checksum after it.
    "pcodec": ChainCase(
        lambda dt: {"serializer": _numcodecs("pcodec", level=8), "compressors": None}
    ),
    "pcodec-classic-crc32c": ChainCase(
        lambda dt: {
            "serializer": _numcodecs(
                "pcodec",
                level=3,
                mode_spec="classic",
                delta_spec="try_consecutive",
                delta_encoding_order=1,
            ),
            "compressors": [{"name": "crc32c"}],
        }
    ),
    # zfpy: zfp's reversible (lossless) mode, alone and before a checksum (its lossy modes
    # keep no NaN, which this matrix's data has: tested against numcodecs in packages/zfpy).
    "zfpy": ChainCase(lambda dt: {"serializer": _numcodecs("zfpy", mode=4), "compressors": None}),
    "zfpy-crc32c": ChainCase(
        lambda dt: {
            "serializer": _numcodecs("zfpy", mode=2, rate=-1),
            "compressors": [{"name": "crc32c"}],
        }
    ),
}
#: (chain, data type) pairs the matrix runs.
CASES: list[tuple[str, str]] = [
    *[("bytes-little", t) for t in ("float32", "float64", "int32", "uint8")],
    *[("bytes-big", t) for t in ("float32", "float64", "int32")],
    *[("gzip", t) for t in ("float32", "float64", "int32", "uint8")],
    *[("blosc-lz4-shuffle", t) for t in ("float32", "int32", "uint8")],
    *[("blosc-zstd-bitshuffle", t) for t in ("float64", "int32")],
    *[("zstd", t) for t in ("float32", "float64", "int32", "uint8")],
    *[("zstd-crc32c", t) for t in ("float64", "int32")],
    *[("quantize-blosc", t) for t in ("float32", "float64")],
    ("fixedscaleoffset-gzip", "float64"),
    *[("transpose-zstd", t) for t in ("float32", "uint8")],
    *[("lz4", t) for t in ("float32", "float64", "uint8")],
    ("lz4-fast-crc32c", "int32"),
    *[("bz2", t) for t in ("float64", "uint8")],
    *[("zlib", t) for t in ("float32", "uint8")],
    *[("lzma", t) for t in ("float32", "int32")],
    ("lzma-raw-delta", "int32"),
    *[("shuffle-zstd", t) for t in ("float32", "float64", "int32")],
    *[("zstd-crc32", t) for t in ("float32", "int32")],
    ("gzip-adler32-end", "float64"),
    *[("fletcher32", t) for t in ("uint8", "float32")],
    ("jenkins-lookup3", "int32"),
    *[("delta-lz4", t) for t in ("int32", "uint8")],
    ("delta-widening-zstd", "int32"),
    *[("bitround-zstd", t) for t in ("float32", "float64")],
    *[("numcodecs-quantize-zstd", t) for t in ("float32", "float64")],
    *[("astype-gzip", t) for t in ("float32", "int32")],
    *[("pcodec", t) for t in ("float32", "float64", "int32")],
    ("pcodec-classic-crc32c", "float64"),
    *[("zfpy", t) for t in ("float32", "float64", "int32")],
    ("zfpy-crc32c", "float64"),
]
CASE_IDS = [f"{c}-{t}" for c, t in CASES]


def _read_cases(cases: list[tuple[str, str]]) -> list[Any]:
    """``cases`` as parameters with readable ids."""
    return [pytest.param(c, t, id=f"{c}-{t}") for c, t in cases]


def _fill(chain: str, dtype: np.dtype[Any]) -> Any:
    """NaN for floats (fixedscaleoffset cannot encode it: a finite one), nonzero integers."""
    if chain.startswith("fixedscaleoffset"):
        return -0.5
    if dtype.kind == "f":
        return np.nan
    return {"int32": -7, "uint8": 3}[dtype.name]


def _values(chain: str, dtype: np.dtype[Any], shape: tuple[int, ...], seed: int) -> Array:
    """Values the chain can store: random, with some NaN for floats where NaN is allowed."""
    rng = np.random.default_rng(seed)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -(2**20)), min(info.max, 2**20), shape, dtype=dtype)
    data = (rng.normal(0, 50, shape)).astype(dtype)
    if not chain.startswith("fixedscaleoffset"):
        data[rng.random(shape) < 0.05] = np.nan
    if chain.startswith("quantize") and data.size > 3:
        data.flat[3] = 1e6  # clamped to 32767 / 100 + 0.5
    return data


def _expected(chain: str, values: Array) -> Array:
    """What a lossy chain should give back, to within its tolerance."""
    if chain.startswith("quantize"):
        return np.minimum(values, 32767 / 100 + 0.5)
    return values


# -- helpers -----------------------------------------------------------------------------------


@contextmanager
def _pipeline(path: str) -> Iterator[None]:
    with zarr.config.set({"codec_pipeline.path": path}):
        yield


@contextmanager
def _builtin_codecs() -> Iterator[None]:
    """zarr-python's own codec classes, whatever else is registered."""
    with zarr.config.set({"codecs": {**zarr.config.get("codecs"), **BUILTIN_CODECS}}):
        yield


@pytest.fixture
def ours() -> Iterator[None]:
    """Our codec classes for zarr (both pipelines then encode with the same codecs)."""
    with zarr_codecs.install():
        yield


@pytest.fixture(params=["memory", "local"])
def new_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], Store]:
    """A factory of empty stores of one kind."""

    def make(name: str) -> Store:
        return MemoryStore() if request.param == "memory" else LocalStore(tmp_path / name)

    return make


def _contents(store: Store) -> dict[str, bytes]:
    return contents(store)


def _chunk_keys(store: Store) -> set[str]:
    return {key for key in _contents(store) if key.startswith("c/")}


def _chunk_spec(array: Any) -> ArraySpec:
    """The ArraySpec zarr passes the pipeline for this array's (outer) chunks."""
    async_array = array._async_array
    metadata = async_array.metadata
    config = async_array.config
    if metadata.zarr_format == 2:  # as zarr does: a v2 array's chunks are in its own order
        config = dataclasses.replace(config, order=metadata.order)
    return ArraySpec(
        shape=tuple(array.shards or array.chunks),
        dtype=metadata.dtype,
        fill_value=metadata.fill_value,
        config=config,
        prototype=default_buffer_prototype(),
    )


def _chain_of(array: Any) -> Chain | None:
    """The chain our pipeline runs this array's chunks through (``None``: zarr's own code)."""
    pipeline = array._async_array.codec_pipeline
    assert type(pipeline) is ChainCodecPipeline
    return pipeline.chain(_chunk_spec(array))


def _our_codecs(array: Any) -> list[bool]:
    """For each of a v3 array's codecs but ``bytes`` and ``transpose`` (zarr's own classes,
    which the runtime runs itself): whether it is one of our classes."""
    codecs = array._async_array.metadata.codecs
    return [
        type(c).__module__.startswith("zarr_codec")
        for c in codecs
        if c.to_dict()["name"] not in ("bytes", "transpose")
    ]


def _get(array: Any, selection: Selection) -> Array:
    how, where = selection
    indexer = array if how == "basic" else getattr(array, how)
    return np.asarray(indexer[where])


def _assert_identical(got: Array, want: Array, label: str = "") -> None:
    """Same type, shape and bits (NaN payloads included)."""
    assert got.dtype == want.dtype and got.shape == want.shape, label
    assert got.tobytes() == want.tobytes(), label


def _assert_values(chain: str, got: Array, want: Array, label: str = "") -> None:
    """Exactly ``want`` for a lossless chain, within the tolerance for a lossy one."""
    if CHAINS[chain].lossless:
        assert np.array_equal(got, want, equal_nan=True), label
    else:
        tolerance = CHAINS[chain].tolerance
        np.testing.assert_allclose(got, _expected(chain, want), atol=tolerance, err_msg=label)


def _create(
    store: Store,
    chain: str,
    dtype: str,
    shape: tuple[int, ...],
    chunks: Any,
    sharding: JSON | None = None,
) -> Any:
    """An array of ``chain``; with ``sharding`` (``{"shards": ..., "index_location": ...}``),
    sharded, the chain then coding the inner chunks."""
    dt = np.dtype(dtype)
    kwargs = CHAINS[chain].kwargs(dt)
    if sharding is not None:
        kwargs = {**kwargs, "shards": {"shape": sharding["shards"]}}
    array = zarr.create_array(
        store, shape=shape, chunks=chunks, dtype=dt, fill_value=_fill(chain, dt), **kwargs
    )
    if sharding is not None and sharding.get("index_location", "end") != "end":
        # zarr's create_array has no index_location: rewrite the sharding codec's JSON.
        metadata = array.metadata.to_dict()
        metadata["codecs"][0]["configuration"]["index_location"] = sharding["index_location"]
        document = json.dumps(metadata).encode()
        buffer = default_buffer_prototype().buffer.from_bytes(document)
        sync(store.set("zarr.json", buffer))
        array = zarr.open_array(store, mode="r+")
    return array


# -- writes ------------------------------------------------------------------------------------


def _write_sequence(array: Any, chain: str, dtype: str) -> Array:
    """Full, partial, scalar, dropped-axis, orthogonal and all-fill writes; returns what a
    numpy array given the same writes holds."""
    dt = np.dtype(dtype)
    fill = _fill(chain, dt)
    mirror = _values(chain, dt, SHAPE, 1)
    mirror[FILL_ROW_EDGE] = fill
    mirror[FILL_COLUMN_EDGE] = fill
    block = _values(chain, dt, (14, 21), 2)
    scalar = dt.type(2.25 if dt.kind == "f" else 200)
    row, column = _values(chain, dt, (31,), 3), _values(chain, dt, (23,), 4)
    small = _values(chain, dt, (3, 3), 5)
    writes: list[tuple[str, Any, Any]] = [
        ("basic", ..., mirror.copy()),
        ("basic", (slice(3, 17), slice(4, 25)), block),  # across 4 x 4 chunks
        ("basic", (slice(14, 19), slice(2, 9)), scalar),
        ("basic", 2, row),  # drops axis 0
        ("basic", (slice(None), 5), column),  # drops axis 1
        ("oindex", ([0, 12, 22], [1, 15, 30]), small),
        ("vindex", ([1, 11, 21], [29, 16, 3]), small[0]),
        ("basic", (slice(10, 15), slice(14, 21)), fill),  # chunk (2, 2) becomes all fill
        ("basic", (slice(15, 20), slice(0, 7)), fill),  # chunk (3, 0): all fill, then
        ("basic", (slice(15, 20), slice(0, 7)), block[:5, :7]),  # overwritten
    ]
    for how, where, value in writes:
        target = array if how == "basic" else getattr(array, how)
        target[where] = value
        mirror[np.ix_(*where) if how == "oindex" else where] = value
    return mirror


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(("chain", "dtype"), CASES, ids=CASE_IDS)
def test_writes_store_the_same_bytes_as_zarrs_pipeline(
    new_store: Callable[[str], Store], chain: str, dtype: str
) -> None:
    """The same writes through both pipelines, with our codecs in both, leave byte-identical
    stores (all-fill chunks absent) holding the values written."""
    stores = {}
    values = {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = new_store(path)
            array = _create(store, chain, dtype, SHAPE, CHUNKS)
            if path == PATH:
                assert _chain_of(array) is not None
            mirror = _write_sequence(array, chain, dtype)
            stores[path] = _contents(store)
        with _pipeline(DEFAULT):  # reads through ours: test_reads_*
            values[path] = zarr.open_array(store, mode="r")[...]
    ours, theirs = stores[PATH], stores[DEFAULT]
    assert ours.keys() == theirs.keys()
    assert ours == theirs
    absent = {"c/4/1", "c/1/4", "c/2/2"}
    assert not absent & ours.keys(), "all-fill chunks are not stored"
    assert len([k for k in ours if k.startswith("c/")]) == 25 - len(absent)
    _assert_identical(values[PATH], values[DEFAULT])
    _assert_values(chain, values[PATH], mirror)


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("write_empty_chunks", [False, True])
@pytest.mark.parametrize(
    ("chain", "dtype"),
    [("gzip", "float32"), ("bytes-big", "int32"), ("quantize-blosc", "float64")],
)
def test_all_fill_chunks_follow_write_empty_chunks(
    new_store: Callable[[str], Store], chain: str, dtype: str, write_empty_chunks: bool
) -> None:
    """An all-fill chunk is deleted (False) or stored (True), as zarr's pipeline does, and an
    overwrite with data stores it again."""
    dt = np.dtype(dtype)
    fill = _fill(chain, dt)
    data = _values(chain, dt, (10, 14), 7)
    keys: dict[str, list[set[str]]] = {}
    stored: dict[str, dict[str, bytes]] = {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = new_store(path)
            array = zarr.create_array(
                store,
                shape=(10, 14),
                chunks=CHUNKS,
                dtype=dt,
                fill_value=fill,
                config={"write_empty_chunks": write_empty_chunks},
                **CHAINS[chain].kwargs(dt),
            )
            steps = keys.setdefault(path, [])
            array[:5, :7] = fill  # a whole chunk of fill, never stored before
            steps.append(_chunk_keys(store))
            array[...] = data
            steps.append(_chunk_keys(store))
            array[5:, 7:] = np.full((5, 7), fill, dtype=dt)  # a stored chunk becomes all fill
            steps.append(_chunk_keys(store))
            array[5:, 7:] = data[5:, 7:]  # and gets data again
            steps.append(_chunk_keys(store))
            stored[path] = _contents(store)
        with _pipeline(DEFAULT):
            _assert_values(chain, zarr.open_array(store, mode="r")[...], data)
    every = {"c/0/0", "c/0/1", "c/1/0", "c/1/1"}
    if write_empty_chunks:
        expected = [{"c/0/0"}, every, every, every]
    else:
        expected = [set(), every, every - {"c/1/1"}, every]
    assert keys[PATH] == expected
    assert keys[DEFAULT] == expected
    assert stored[PATH] == stored[DEFAULT]


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(
    ("chain", "dtype"), [("gzip", "float32"), ("quantize-blosc", "float64"), ("gzip", "int32")]
)
@pytest.mark.parametrize(
    ("shape", "chunks"),
    [((101,), (10,)), ((9, 10, 11), (4, 3, 5)), ((6, 31), (1, 7)), ((3, 5), (10, 10))],
    ids=["1d", "3d", "one-row-chunks", "one-chunk-larger-than-the-array"],
)
def test_writes_in_other_shapes_match_zarrs_pipeline(
    chain: str, dtype: str, shape: tuple[int, ...], chunks: tuple[int, ...]
) -> None:
    """1-D, 3-D, chunks one row high (integer indexing drops the axis of whole chunks) and a
    chunk larger than the array: the same stores as zarr's pipeline."""
    dt = np.dtype(dtype)
    data = _values(chain, dt, shape, 12)
    index = tuple(n // 2 for n in shape[1:])
    stores = {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = MemoryStore()
            array = _create(store, chain, dtype, shape, chunks)
            if path == PATH:
                assert _chain_of(array) is not None
            array[...] = data
            array[1] = data[-1]  # drops axis 0
            array[(slice(None), *index)] = data[(slice(0, shape[0]), *index)][::-1]
            array[tuple(slice(n // 3, n - 1) for n in shape)] = dt.type(9)
            array[tuple(slice(0, n // 2) for n in shape)] = _fill(chain, dt)
            stores[path] = _contents(store)
    assert stores[PATH] == stores[DEFAULT]


@pytest.mark.usefixtures("ours")
def test_zero_dimensional_and_empty_arrays() -> None:
    """A 0-d array (one chunk of shape ()) and an array with no elements."""
    stored = {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = MemoryStore()
            scalar = zarr.create_array(
                store, shape=(), dtype="float32", fill_value=np.nan, compressors=[_GZIP]
            )
            if path == PATH:
                assert _chain_of(scalar) is not None
            assert np.isnan(scalar[()])
            scalar[()] = 3.5
            assert scalar[()] == np.float32(3.5) and scalar[...].shape == ()
            stored[path] = _contents(store)
            empty = zarr.create_array(
                MemoryStore(), shape=(0, 5), chunks=(2, 2), dtype="int32", compressors=[_GZIP]
            )
            empty[...] = np.zeros((0, 5), dtype=np.int32)
            assert empty[...].shape == (0, 5)
    assert stored[PATH] == stored[DEFAULT]
    assert "c" in stored[PATH]  # the one chunk of a 0-d array


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("chain", ["bytes-little", "gzip"])
def test_stored_chunks_and_reads_do_not_alias_callers_arrays(chain: str) -> None:
    """A whole chunk written from a contiguous slice of the caller's array, and a read
    decoded straight into the output, share no memory with the store."""
    with _pipeline(PATH):
        array = _create(MemoryStore(), chain, "float32", (10, 7), (5, 7))
        data = np.arange(70, dtype=np.float32).reshape(10, 7)
        array[...] = data
        data[...] = -1
        read = array[0:5]
        read[...] = 123
        assert np.array_equal(array[...], np.arange(70, dtype=np.float32).reshape(10, 7))


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(
    ("chain", "dtype"),
    _read_cases(
        [("gzip", "float64"), ("fixedscaleoffset-gzip", "float64"), ("quantize-blosc", "float32")]
    ),
)
def test_reads_into_a_callers_strided_buffer(chain: str, dtype: str) -> None:
    """``get_basic_selection(out=...)`` with a strided view of a larger array: whole chunks
    decode into it, and nothing around it is touched."""
    expected, regions = _written(chain, dtype, SHAPE)
    with _pipeline(PATH):
        array = _create(MemoryStore(), chain, dtype, SHAPE, CHUNKS)
        for region in regions:
            array[region] = expected[region]
        backing = np.full((2 * SHAPE[0], 2 * SHAPE[1]), 99, dtype=dtype)
        view = backing[::2, ::2]
        out = default_buffer_prototype().nd_buffer.from_numpy_array(view)
        array.get_basic_selection(..., out=out)
    _assert_values(chain, view, expected)
    assert (backing[1::2] == 99).all() and (backing[:, 1::2] == 99).all()


@pytest.mark.usefixtures("ours")
def test_missing_chunks_raise_when_read_missing_chunks_is_off() -> None:
    """Our reads report missing chunks, so ``read_missing_chunks=False`` raises as with
    zarr's pipeline; present chunks still read."""
    from zarr.errors import ChunkNotFoundError

    for path in (PATH, DEFAULT):
        with _pipeline(path):
            array = zarr.create_array(
                MemoryStore(),
                shape=(10, 10),
                chunks=(5, 5),
                dtype="int32",
                fill_value=-1,
                compressors=[_GZIP],
                config={"read_missing_chunks": False},
            )
            array[:5, :5] = 1
            assert array[:5, :5].sum() == 25
            with pytest.raises(ChunkNotFoundError, match="3 chunk"):
                array[...]


# -- reads -------------------------------------------------------------------------------------

SELECTIONS_2D: list[Selection] = [
    ("basic", ...),
    ("basic", (slice(0, 10), slice(0, 14))),  # whole chunks only
    ("basic", (slice(3, 17), slice(4, 29))),  # across chunks
    ("basic", 3),  # drops axis 0
    ("basic", (slice(None), 5)),  # drops axis 1
    ("basic", (17, slice(2, 30))),
    ("basic", (slice(1, None, 3), slice(None, None, 4))),  # steps
    ("basic", (22, 30)),  # one element of an edge chunk
    ("basic", (slice(20, 23), slice(28, 31))),  # an edge chunk, partial
    ("basic", (slice(15, 23), slice(0, 14))),  # missing chunks only
    ("basic", (slice(14, 16), slice(19, 23))),  # chunks written in part (the rest: fill)
    ("oindex", ([1, 5, 9], slice(None))),
    ("oindex", ([0, 7, 22], [3, 30])),
    ("oindex", (slice(2, 19), [30, 0, 14])),
    ("vindex", ([1, 5, 9, 22, 22], [2, 8, 30, 0, 0])),
    ("vindex", (np.arange(23) % 4 == 1)[:, None] & (np.arange(31) % 5 == 2)[None, :]),
]
SELECTIONS_1D: list[Selection] = [
    ("basic", ...),
    ("basic", slice(5, 77)),
    ("basic", 13),
    ("basic", slice(None, None, 7)),
    ("basic", slice(100, 101)),  # the edge chunk
    ("basic", slice(60, 80)),  # missing chunks
    ("oindex", [0, 50, 100, 61]),
    ("vindex", [3, 99, 3]),
]
SELECTIONS_3D: list[Selection] = [
    ("basic", ...),
    ("basic", 2),
    ("basic", (slice(None), 4, slice(1, 9))),
    ("basic", (slice(1, 8), slice(None, None, 2), slice(3, None))),
    ("basic", (8, 9, 10)),
    ("basic", (slice(4, 8), slice(3, 9), slice(5, 10))),  # whole chunks
    ("oindex", ([0, 8], [1, 9], slice(None))),
    ("vindex", ([0, 8, 4], [1, 9, 0], [10, 0, 5])),
]


def _written(chain: str, dtype: str, shape: tuple[int, ...]) -> tuple[Array, list[Any]]:
    """Values for an array and the regions written (the rest stays missing: fill value)."""
    dt = np.dtype(dtype)
    data = _values(chain, dt, shape, 9)
    if len(shape) == 1:
        regions: list[Any] = [slice(0, 57), slice(85, 101)]  # chunks 6 and 7 missing
    elif len(shape) == 2:
        regions = [slice(0, 15), (slice(15, 23), slice(20, 31))]
    else:
        regions = [(slice(0, 4),), (slice(4, 9), slice(0, 6), slice(0, 7))]
    expected = np.full(shape, _fill(chain, dt), dtype=dt)
    for region in regions:
        expected[region] = data[region]
    return expected, regions


def _check_reads(
    store: Store,
    chain: str,
    dtype: str,
    shape: tuple[int, ...],
    chunks: Any,
    selections: Any,
    sharding: JSON | None = None,
) -> None:
    """Write with zarr's pipeline; every selection reads the same through ours, and the
    expected values."""
    expected, regions = _written(chain, dtype, shape)
    with _pipeline(DEFAULT):
        array = _create(store, chain, dtype, shape, chunks, sharding)
        for region in regions:
            array[region] = expected[region]
        theirs = zarr.open_array(store, mode="r")
        assert type(theirs._async_array.codec_pipeline) is BatchedCodecPipeline
    with _pipeline(PATH):
        mine = zarr.open_array(store, mode="r")
        assert _chain_of(mine) is not None
        for selection in selections:
            label = repr(selection)
            got = _get(mine, selection)
            _assert_identical(got, _get(theirs, selection), label)
            how, where = selection
            if how == "oindex":
                axes = where if isinstance(where, tuple) else (where,)
                where = np.ix_(*[np.arange(n)[w] for n, w in zip(shape, axes, strict=True)])
            _assert_values(chain, got, np.asarray(expected[where]), label)


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(("chain", "dtype"), _read_cases(CASES))
def test_reads_2d_match_zarrs_pipeline(
    new_store: Callable[[str], Store], chain: str, dtype: str
) -> None:
    """Every kind of 2-D selection, over missing, partial and edge chunks."""
    _check_reads(new_store("a"), chain, dtype, SHAPE, CHUNKS, SELECTIONS_2D)


ND_CASES = [
    ("gzip", "float32"),
    ("bytes-big", "int32"),
    ("gzip", "uint8"),
    ("fixedscaleoffset-gzip", "float64"),
    ("quantize-blosc", "float64"),
]


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(("chain", "dtype"), ND_CASES)
def test_reads_1d_match_zarrs_pipeline(chain: str, dtype: str) -> None:
    """1-D arrays: a partial last chunk, missing chunks, steps and repeated points."""
    _check_reads(MemoryStore(), chain, dtype, (101,), (10,), SELECTIONS_1D)


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(("chain", "dtype"), _read_cases(ND_CASES))
def test_reads_3d_match_zarrs_pipeline(chain: str, dtype: str) -> None:
    """3-D arrays, with partial chunks in every dimension."""
    _check_reads(MemoryStore(), chain, dtype, (9, 10, 11), (4, 3, 5), SELECTIONS_3D)


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(
    ("chain", "dtype"),
    _read_cases(
        [("gzip", "float64"), ("fixedscaleoffset-gzip", "float64"), ("quantize-blosc", "float32")]
    ),
)
def test_fortran_order_arrays_match_zarrs_pipeline(chain: str, dtype: str) -> None:
    """``order="F"`` chunks in memory: decoding straight into the output still lands right."""
    results = {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = MemoryStore()
            dt = np.dtype(dtype)
            array = zarr.create_array(
                store,
                shape=SHAPE,
                chunks=CHUNKS,
                dtype=dt,
                fill_value=_fill(chain, dt),
                config={"order": "F"},
                **CHAINS[chain].kwargs(dt),
            )
            mirror = _write_sequence(array, chain, dtype)
            reads = [_get(array, s) for s in SELECTIONS_2D]
            results[path] = (_contents(store), reads)
    assert results[PATH][0] == results[DEFAULT][0]
    for got, want, selection in zip(
        results[PATH][1], results[DEFAULT][1], SELECTIONS_2D, strict=True
    ):
        _assert_identical(got, want, repr(selection))
    _assert_values(chain, results[PATH][1][0], mirror)


@pytest.mark.parametrize(("chain", "dtype"), _read_cases(CASES[::2]))
def test_values_match_zarrs_own_codecs(chain: str, dtype: str) -> None:
    """zarr's default pipeline with zarr's own codec classes, ours with our codecs installed:
    the same writes give the same values, and each reads what the other wrote."""
    stores = {PATH: MemoryStore(), DEFAULT: MemoryStore()}
    values = {}
    with _builtin_codecs(), _pipeline(DEFAULT):
        array = _create(stores[DEFAULT], chain, dtype, SHAPE, CHUNKS)
        assert not any(_our_codecs(array))
        _write_sequence(array, chain, dtype)
        values[DEFAULT] = array[...]
    with zarr_codecs.install(), _pipeline(PATH):
        array = _create(stores[PATH], chain, dtype, SHAPE, CHUNKS)
        assert all(_our_codecs(array))
        assert _chain_of(array) is not None
        mirror = _write_sequence(array, chain, dtype)
        values[PATH] = array[...]
        crossed = zarr.open_array(stores[DEFAULT], mode="r")[...]
    with _builtin_codecs(), _pipeline(DEFAULT):
        crossed_back = zarr.open_array(stores[PATH], mode="r")[...]
    assert np.array_equal(values[PATH], values[DEFAULT], equal_nan=True)
    assert np.array_equal(crossed, values[DEFAULT], equal_nan=True)
    assert np.array_equal(crossed_back, values[PATH], equal_nan=True)
    _assert_values(chain, values[PATH], mirror)


@pytest.mark.parametrize(("chain", "dtype"), [("blosc-lz4-shuffle", "int32"), ("gzip", "float32")])
def test_zarrs_own_codec_classes_also_run_through_the_chain(chain: str, dtype: str) -> None:
    """Our pipeline builds its chain from the codecs' JSON, so arrays whose codec objects are
    zarr's own still run through our registry's codecs, with the same values."""
    with _builtin_codecs(), _pipeline(PATH):
        array = _create(MemoryStore(), chain, dtype, SHAPE, CHUNKS)
        assert _our_codecs(array) == [False]
        assert _chain_of(array) is not None
        mirror = _write_sequence(array, chain, dtype)
        values = array[...]
    _assert_values(chain, values, mirror)


# -- sharded arrays ----------------------------------------------------------------------------

#: Shards of 2 x 2 inner chunks over ``SHAPE``: 3 x 3 shards, partial ones on the last row and
#: column; the index at either end.
SHARDINGS: dict[str, JSON] = {
    "index-end": {"shards": (10, 14)},
    "index-start": {"shards": (10, 14), "index_location": "start"},
}
SHARDED_CASES: list[tuple[str, str]] = [
    ("zstd", "float32"),
    ("zstd-crc32", "int32"),
    ("zstd-crc32c", "int32"),
    ("gzip", "float64"),
    ("bytes-little", "uint8"),
    ("bytes-big", "float64"),
    ("blosc-lz4-shuffle", "int32"),
    ("quantize-blosc", "float64"),
]


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("sharding", list(SHARDINGS))
@pytest.mark.parametrize(("chain", "dtype"), _read_cases(SHARDED_CASES))
def test_sharded_writes_store_the_same_bytes_as_zarrs_pipeline(
    new_store: Callable[[str], Store], chain: str, dtype: str, sharding: str
) -> None:
    """The write sequence on a sharded array, through the runtime's sharding and through
    zarr's: byte-identical shards (inner chunks in zarr's Morton order, all-fill inner chunks
    left out, all-fill shards deleted) and the values written."""
    stores, values = {}, {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = new_store(path)
            array = _create(store, chain, dtype, SHAPE, CHUNKS, SHARDINGS[sharding])
            if path == PATH:
                assert _chain_of(array) is not None
                assert _chain_of(array).runner.is_sharded  # type: ignore[union-attr]
            mirror = _write_sequence(array, chain, dtype)
            array[10:20, 14:28] = _fill(chain, np.dtype(dtype))  # shard (1, 1): deleted
            mirror[10:20, 14:28] = _fill(chain, np.dtype(dtype))
            stores[path] = _contents(store)
        with _pipeline(DEFAULT):
            values[path] = zarr.open_array(store, mode="r")[...]
    assert stores[PATH].keys() == stores[DEFAULT].keys()
    assert "c/1/1" not in stores[PATH]
    assert stores[PATH] == stores[DEFAULT]
    _assert_identical(values[PATH], values[DEFAULT])
    _assert_values(chain, values[PATH], mirror)


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("sharding", list(SHARDINGS))
@pytest.mark.parametrize(("chain", "dtype"), _read_cases(SHARDED_CASES))
def test_sharded_reads_match_zarrs_pipeline(
    new_store: Callable[[str], Store], chain: str, dtype: str, sharding: str
) -> None:
    """Every kind of selection of a sharded array written by zarr's pipeline, over missing
    shards, missing inner chunks and partial edge shards."""
    selections = SELECTIONS_2D
    _check_reads(new_store("a"), chain, dtype, SHAPE, CHUNKS, selections, SHARDINGS[sharding])


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("write_empty_chunks", [False, True])
def test_sharded_all_fill_inner_chunks_follow_write_empty_chunks(
    new_store: Callable[[str], Store], write_empty_chunks: bool
) -> None:
    """All-fill inner chunks are left out of their shard (False) or stored (True), and a shard
    left all fill is deleted (False) or kept: the same stores as zarr's pipeline."""
    dt = np.dtype("float32")
    data = _values("zstd", dt, SHAPE, 8)
    stores = {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = new_store(path)
            array = _create(store, "zstd", "float32", SHAPE, CHUNKS, SHARDINGS["index-end"])
            array = zarr.open_array(
                store, mode="r+", config={"write_empty_chunks": write_empty_chunks}
            )
            array[...] = data
            array[:5, :7] = np.nan  # one inner chunk all fill
            array[10:20, 14:28] = np.nan  # a whole shard all fill
            array[20:, 28:] = np.nan  # an edge shard's part inside the array
            stores[path] = _contents(store)
    assert stores[PATH] == stores[DEFAULT]
    if zarr.__version__ != "3.4.0":  # which deletes a shard left all fill either way
        assert ("c/1/1" in stores[PATH]) == write_empty_chunks


@pytest.mark.usefixtures("ours")
def test_nested_shards_match_zarrs_pipeline(new_store: Callable[[str], Store]) -> None:
    """Shards of shards of gzip chunks: the same bytes and values as zarr's pipeline."""
    from zarr.codecs import ShardingCodec

    inner = ShardingCodec(chunk_shape=(5, 7), codecs=[_bytes("little"), _GZIP])  # ours: JSON
    data = _values("gzip", np.dtype("float32"), SHAPE, 21)
    stores, reads = {}, {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = new_store(path)
            array = zarr.create_array(
                store,
                shape=SHAPE,
                chunks=(20, 28),
                dtype="float32",
                serializer=ShardingCodec(chunk_shape=(10, 14), codecs=[inner]),
                compressors=None,
            )
            if path == PATH:
                assert _chain_of(array) is not None
                assert _chain_of(array).runner.is_sharded  # type: ignore[union-attr]
            array[...] = data
            array[3:17, 4:25] = -data[:14, :21]
            array[:5, :7] = 0
            stores[path] = _contents(store)
            reads[path] = [_get(array, s) for s in SELECTIONS_2D]
    assert stores[PATH] == stores[DEFAULT]
    for got, want, selection in zip(reads[PATH], reads[DEFAULT], SELECTIONS_2D, strict=True):
        _assert_identical(got, want, repr(selection))


class _CountingStore(zarr.storage.WrapperStore[MemoryStore]):
    """A store that is neither a LocalStore nor a MemoryStore (so read through zarr's store
    API), counting whole reads, range reads and coalesced range reads (in a class attribute:
    zarr opens read-only copies of a store)."""

    counts: ClassVar[dict[str, int]] = {"get": 0, "range": 0, "get_ranges": 0}

    async def get(self, key: str, prototype: Any, byte_range: Any = None) -> Any:
        self.counts["get" if byte_range is None else "range"] += 1
        return await self._store.get(key, prototype, byte_range)

    def get_ranges(self, *args: Any, **kwargs: Any) -> Any:
        self.counts["get_ranges"] += 1
        return self._store.get_ranges(*args, **kwargs)


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("sharding", list(SHARDINGS))
def test_sharded_reads_from_other_stores_fetch_only_what_they_need(sharding: str) -> None:
    """Through any other store, a part of a shard is one range read of its index, then one
    coalesced read of the inner chunks it needs; a whole shard is one read. Values as zarr's
    pipeline reads them, with no fallback to it."""
    expected, regions = _written("zstd", "float32", SHAPE)
    store = _CountingStore(MemoryStore())
    with _pipeline(DEFAULT):
        array = _create(store, "zstd", "float32", SHAPE, CHUNKS, SHARDINGS[sharding])
        for region in regions:
            array[region] = expected[region]
    with _pipeline(PATH):
        mine = zarr.open_array(store, mode="r")
        for selection, counts in [
            ((slice(0, 10), slice(0, 14)), {"get": 1, "range": 0, "get_ranges": 0}),
            ((3, slice(0, 6)), {"get": 0, "range": 1, "get_ranges": 1}),
            ((slice(12, 18), slice(16, 30)), {"get": 0, "range": 2, "get_ranges": 2}),
        ]:
            _CountingStore.counts.update(dict.fromkeys(counts, 0))
            got = mine[selection]
            assert _CountingStore.counts == counts, selection
            _assert_identical(got, expected[selection], repr(selection))
        for selection in SELECTIONS_2D:
            got = _get(mine, selection)
            with _pipeline(DEFAULT):
                theirs = zarr.open_array(store, mode="r")
                _assert_identical(got, _get(theirs, selection), repr(selection))


@pytest.mark.usefixtures("ours")
def test_a_write_to_an_edge_shard_keeps_its_cells_beyond_the_array(
    new_store: Callable[[str], Store],
) -> None:
    """After a shrinking resize, a write covering the part of a shard inside the array keeps
    the shard's other cells, as zarr's sharding does, so they come back when it grows."""
    with _pipeline(PATH):
        array = zarr.create_array(
            new_store("a"), shape=(4,), chunks=(1,), shards=(4,), dtype="int16", fill_value=0
        )
        array[:] = [1, 2, 3, 4]
        array.resize((2,))
        array[:] = [9, 9]
        array.resize((4,))
        np.testing.assert_array_equal(array[:], [9, 9, 3, 4])


@pytest.mark.usefixtures("ours")
def test_a_corrupt_shard_index_raises_our_codec_error() -> None:
    """A shard whose index checksum fails is a ``CorruptInputError``, for a whole read and a
    partial one."""
    store = MemoryStore()
    with _pipeline(PATH):
        array = _create(store, "gzip", "float32", SHAPE, CHUNKS, SHARDINGS["index-end"])
        array[...] = _values("gzip", np.dtype("float32"), SHAPE, 4)
        shard = bytearray(sync(store.get("c/0/0", default_buffer_prototype())).to_bytes())
        shard[-6] ^= 0xFF  # in the index, before its checksum
        sync(store.set("c/0/0", default_buffer_prototype().buffer.from_bytes(bytes(shard))))
        for where in [..., (slice(0, 3), slice(0, 3))]:
            with pytest.raises(CorruptInputError):
                array[where]


# -- Zarr v2 arrays ----------------------------------------------------------------------------

V2_COMPRESSORS: dict[str, Any] = {
    "none": None,
    "zstd": {"id": "zstd", "level": 0},
    "blosc": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1},
    "gzip": {"id": "gzip", "level": 1},
}


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "float64"])
@pytest.mark.parametrize("compressor", list(V2_COMPRESSORS))
def test_v2_arrays_run_in_the_runtime_and_match_zarrs_pipeline(
    new_store: Callable[[str], Store], compressor: str, dtype: str, order: str
) -> None:
    """zarr-python's v2 chunks (``V2Codec``: the elements in the array's order, Fortran order
    through the runtime's transpose step, then the numcodecs compressor) written and read by
    the runtime: the same values as zarr's pipeline, and the same bytes but for gzip (whose
    stream other encoders may write differently)."""
    from numcodecs import get_codec as numcodec

    config = V2_COMPRESSORS[compressor]
    stores, reads = {}, {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = new_store(path)
            array = zarr.create_array(
                store,
                shape=SHAPE,
                chunks=CHUNKS,
                dtype=dtype,
                zarr_format=2,
                order=order,
                fill_value=_fill("gzip", np.dtype(dtype)),
                compressors=None if config is None else numcodec(dict(config)),
            )
            if path == PATH:
                assert _chain_of(array) is not None
            mirror = _write_sequence(array, "gzip", dtype)
            stores[path] = _contents(store)
            reads[path] = [_get(array, s) for s in SELECTIONS_2D]
    assert stores[PATH].keys() == stores[DEFAULT].keys()
    if compressor != "gzip":
        assert stores[PATH] == stores[DEFAULT]
    for got, want, selection in zip(reads[PATH], reads[DEFAULT], SELECTIONS_2D, strict=True):
        _assert_identical(got, want, repr(selection))
    _assert_identical(reads[PATH][0], mirror.astype(dtype))


#: v2 filter lists (numcodecs configurations), each with its array's data type.
V2_FILTERS: dict[str, tuple[str, list[JSON]]] = {
    "fixedscaleoffset": (
        "<f8",
        [{"id": "fixedscaleoffset", "offset": 1, "scale": 100, "dtype": "<f8", "astype": "<i4"}],
    ),
    "delta-widening": ("<i4", [{"id": "delta", "dtype": "<i4", "astype": "<i8"}]),
    "quantize-bitround": (
        "<f8",
        [{"id": "quantize", "digits": 3, "dtype": "<f8"}, {"id": "bitround", "keepbits": 30}],
    ),
    "astype": ("<f8", [{"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}]),
    "packbits": ("|b1", [{"id": "packbits"}]),
}


def _v2_filter_data(dtype: str) -> Array:
    """Values for a v2 filter case: smooth, signed, two decimals (floats), or bits."""
    ramp = np.linspace(-300, 300, np.prod(SHAPE)).reshape(SHAPE)
    if dtype == "|b1":
        return (np.arange(np.prod(SHAPE)).reshape(SHAPE) * 7919 % 11) < 5
    return np.round(ramp, 2).astype(dtype)


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("compressor", ["none", "zstd", "blosc"])
@pytest.mark.parametrize("filters", list(V2_FILTERS))
def test_v2_arrays_with_filters_run_in_the_runtime_and_match_zarrs_pipeline(
    new_store: Callable[[str], Store], compressor: str, order: str, filters: str
) -> None:
    """A v2 array with numcodecs' filters (fixedscaleoffset, delta, quantize and bitround,
    astype, packbits) before its compressor: the runtime runs filters, bytes and compressor
    (Fortran order through its transpose first, as numcodecs' filters see the chunk in memory
    order), storing the same bytes as zarr's pipeline with numcodecs and reading the same
    values."""
    from numcodecs import get_codec as numcodec

    config = V2_COMPRESSORS[compressor]
    dtype, filter_configs = V2_FILTERS[filters]
    data = _v2_filter_data(dtype)
    stores, reads = {}, {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            zarr_codecs.reset_usage()
            store = new_store(path)
            array = zarr.create_array(
                store,
                shape=SHAPE,
                chunks=CHUNKS,
                dtype=dtype,
                zarr_format=2,
                order=order,
                fill_value=dtype != "|b1",
                filters=[numcodec(dict(f)) for f in filter_configs],
                compressors=None if config is None else numcodec(dict(config)),
            )
            array[...] = data
            array[2:9, 4:20] = ~data[2:9, 4:20] if dtype == "|b1" else -data[2:9, 4:20]
            if path == PATH:
                assert _chain_of(array) is not None
                used = zarr_codecs.usage()
                assert used["runtime_written"] > 0 and used["zarr_written"] == 0, used
            stores[path] = _contents(store)
            reads[path] = [_get(array, s) for s in SELECTIONS_2D]
    assert stores[PATH] == stores[DEFAULT]
    for got, want, selection in zip(reads[PATH], reads[DEFAULT], SELECTIONS_2D, strict=True):
        _assert_identical(got, want, repr(selection))


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_a_v2_null_fill_value_reads_and_pads_as_zarr_does(
    new_store: Callable[[str], Store], dtype: str
) -> None:
    """A v2 array whose fill value is null: missing chunks read as the type's default (0,
    not NaN) and edge chunks are padded with it, as zarr's pipeline does."""
    stores, reads = {}, {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = new_store(path)
            array = zarr.create_array(
                store, shape=SHAPE, chunks=CHUNKS, dtype=dtype, zarr_format=2, fill_value=None
            )
            if path == PATH:
                assert _chain_of(array) is not None
            array[:12, :] = 5
            stores[path] = _contents(store)
            reads[path] = array[...]
    assert stores[PATH] == stores[DEFAULT]
    _assert_identical(reads[PATH], reads[DEFAULT])
    assert reads[PATH][20, 20] == 0


# -- arrays zarr's own code runs ---------------------------------------------------------------


class _Negate(numcodecs.abc.Codec):  # type: ignore[misc]
    """A numcodecs filter that none of our packages provides: an array using it stays with
    zarr-python's own code."""

    codec_id = "zarr-codecs-test-negate"

    def encode(self, buf: Any) -> Any:
        return np.negative(numcodecs.compat.ensure_ndarray(buf).view("<i4"))

    def decode(self, buf: Any, out: Any = None) -> Any:
        decoded = np.negative(numcodecs.compat.ensure_ndarray(buf).view("<i4"))
        return numcodecs.compat.ndarray_copy(decoded, out)


numcodecs.register_codec(_Negate)

FALLBACK: dict[str, JSON] = {
    # Zarr v2 with a filter we lack.
    "v2-foreign-filter": {
        "dtype": "int32",
        "zarr_format": 2,
        "filters": [_Negate()],
        "compressors": [{"id": "gzip", "level": 5}],
    },
    "string": {"dtype": str, "compressors": [_GZIP]},
}
FALLBACK_PARAMS = [pytest.param(name) for name in FALLBACK]


def _fallback_data(kwargs: JSON) -> Array:
    rng = np.random.default_rng(3)
    if kwargs["dtype"] is str:
        words = np.array(["", "a", "zarr", "chunk ✓", "longer text here"], dtype=object)
        return np.asarray(words[rng.integers(0, len(words), SHAPE)], dtype=object)
    dt = np.dtype(kwargs["dtype"])
    return (rng.normal(0, 1000, SHAPE)).astype(dt)


def _fallback_writes(array: Any, data: Array) -> Array:
    """Full, partial, dropped-axis and all-fill writes (an inner chunk and a whole shard of
    a sharded array); returns the values they leave."""
    fill = array.fill_value
    expected = data.copy()
    for where, value in [
        (..., data),
        ((slice(3, 17), slice(4, 25)), data[:14, :21]),
        (2, data[5]),
        ((slice(0, 5), slice(0, 7)), fill),
        ((slice(10, 20), slice(14, 28)), fill),
    ]:
        array[where] = value
        expected[where] = value
    return expected


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize("name", FALLBACK_PARAMS)
def test_unsupported_arrays_take_zarrs_own_path(
    new_store: Callable[[str], Store], name: str
) -> None:
    """No chain for their chunks, and writes and reads give the same values and bytes as
    zarr's pipeline."""
    kwargs = FALLBACK[name]
    data = _fallback_data(kwargs)
    stores, reads = {}, {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = new_store(path)
            array = zarr.create_array(store, shape=SHAPE, chunks=CHUNKS, **kwargs)
            if path == PATH:
                assert _chain_of(array) is None
            expected = _fallback_writes(array, data)
            stores[path] = _contents(store)
            reads[path] = [_get(array, s) for s in SELECTIONS_2D]
    assert stores[PATH] == stores[DEFAULT]
    for got, want, selection in zip(reads[PATH], reads[DEFAULT], SELECTIONS_2D, strict=True):
        assert got.shape == want.shape, (name, selection)
        assert got.tobytes() == want.tobytes() or np.array_equal(got, want), (name, selection)
    assert np.array_equal(reads[PATH][0], expected)


@pytest.mark.usefixtures("ours")
def test_inner_chunks_of_shards_run_through_the_chain() -> None:
    """The sharding codec builds its inner pipeline from ``codec_pipeline.path``: with ours
    selected, inner chunks whose codecs we have get a chain."""
    with _pipeline(PATH):
        array = zarr.create_array(
            MemoryStore(),
            shape=SHAPE,
            chunks=CHUNKS,
            shards=(10, 14),
            dtype="f4",
            compressors=[_GZIP],
        )
        (sharding,) = array._async_array.metadata.codecs
        shard_spec = _chunk_spec(array)
        assert shard_spec.shape == (10, 14)
        inner = sharding._get_inner_pipeline(shard_spec)
        assert type(inner) is ChainCodecPipeline
        assert inner.chain(sharding._get_chunk_spec(shard_spec)) is not None


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(("chain", "dtype"), [("gzip", "bool"), ("bytes-little", "complex64")])
def test_other_registry_data_types_run_through_the_chain(chain: str, dtype: str) -> None:
    """Data types outside the main matrix that our registry has still get a chain, and match."""
    rng = np.random.default_rng(5)
    data = (rng.normal(size=SHAPE) > 0).astype(dtype)
    kwargs = CHAINS[chain].kwargs(np.dtype(dtype))
    results = {}
    for path in (PATH, DEFAULT):
        with _pipeline(path):
            store = MemoryStore()
            array = zarr.create_array(store, shape=SHAPE, chunks=CHUNKS, dtype=dtype, **kwargs)
            if path == PATH:
                assert _chain_of(array) is not None
            array[...] = data
            array[3:17, 4:25] = 1
            results[path] = (_contents(store), array[...], array[:, 5])
    assert results[PATH][0] == results[DEFAULT][0]
    _assert_identical(results[PATH][1], results[DEFAULT][1])
    _assert_identical(results[PATH][2], results[DEFAULT][2])


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(
    "filters",
    [
        [{"name": "cast_value", "configuration": {"data_type": "int16"}}],
        [{"name": "scale_offset", "configuration": {"offset": 0.5, "scale": 100}}],
        _QUANTIZE,
    ],
    ids=["cast_value", "scale_offset", "scale_offset+cast_value"],
)
def test_whole_chunks_decode_into_the_output(filters: list[JSON]) -> None:
    """The smallest case: two whole chunks read at once (``a[...]`` of a (5, 14) array in
    (5, 7) chunks, so each chunk's slot in the output is strided) through a first
    array -> array codec; one chunk alone reads fine."""
    # Distinct values (whole numbers, exact through every filter here): a chunk or an element
    # put in the wrong place shows.
    data = np.arange(70, dtype=np.float32).reshape(5, 14) - 20
    with _pipeline(PATH):
        array = zarr.create_array(
            MemoryStore(),
            shape=data.shape,
            chunks=CHUNKS,
            dtype=data.dtype,
            fill_value=2.0,
            filters=filters,
            compressors=None,
        )
        array[...] = data
        _assert_identical(array[:5, :7], data[:5, :7])
        _assert_identical(array[...], data)


@pytest.mark.usefixtures("ours")
def test_rectilinear_chunk_grids_match_zarrs_pipeline() -> None:
    """Chunks of different shapes in one batch (zarr's experimental rectilinear grids)."""
    data = np.arange(100, dtype=np.float32).reshape(10, 10)
    values = {}
    with zarr.config.set({"array.rectilinear_chunks": True}):
        for path in (PATH, DEFAULT):
            with _pipeline(path):
                array = zarr.create_array(
                    MemoryStore(),
                    shape=(10, 10),
                    chunks=[[3, 5, 2], [4, 6]],
                    dtype="float32",
                    fill_value=np.nan,
                    compressors=[_GZIP],
                )
                array[...] = data
                values[path] = array[...]
    _assert_identical(values[DEFAULT], data)
    _assert_identical(values[PATH], data)


# -- installing --------------------------------------------------------------------------------


@pytest.fixture
def clean_install() -> Iterator[None]:
    """Nothing of ours installed before; everything undone after."""
    assert not zarr_codecs.installed_parts()
    try:
        yield
    finally:
        zarr_codecs.uninstall()


@pytest.mark.usefixtures("clean_install")
@pytest.mark.parametrize("before", [None, "zarr.core.codec_pipeline.FusedCodecPipeline"])
def test_install_pipeline_selects_it_and_uninstall_restores(before: str | None) -> None:
    """``install(pipeline=True)`` selects our pipeline for new arrays; ``uninstall()`` puts
    back exactly what was selected before (the default, or another pipeline)."""
    with zarr.config.set({"codec_pipeline.path": before} if before else {}):
        previous = zarr.config.get("codec_pipeline.path")
        installation = zarr_codecs.install(pipeline=True)
        assert "pipeline" in installation.added
        assert zarr_codecs.installed_parts() == {"zarr", "numcodecs", "pipeline"}
        assert zarr.config.get("codec_pipeline.path") == PATH
        assert zarr.registry.get_pipeline_class() is ChainCodecPipeline
        array = zarr.create_array(MemoryStore(), shape=(4,), dtype="int32", compressors=[_GZIP])
        assert type(array._async_array.codec_pipeline) is ChainCodecPipeline
        assert zarr_codecs.install(pipeline=True).added == frozenset()  # idempotent
        zarr_codecs.uninstall()
        assert zarr.config.get("codec_pipeline.path") == previous
        assert not zarr_codecs.installed_parts()
        array = zarr.create_array(MemoryStore(), shape=(4,), dtype="int32", compressors=[_GZIP])
        assert type(array._async_array.codec_pipeline) is not ChainCodecPipeline
        zarr_codecs.uninstall()  # idempotent
        assert zarr.config.get("codec_pipeline.path") == previous


@pytest.mark.usefixtures("clean_install")
def test_install_without_pipeline_leaves_the_pipeline_alone() -> None:
    """Plain ``install()`` changes codecs only; leaving its ``with`` block undoes just that,
    and an installation with the pipeline only undoes the pipeline."""
    previous = zarr.config.get("codec_pipeline.path")
    with zarr_codecs.install() as installation:
        assert "pipeline" not in installation.parts
        assert zarr.config.get("codec_pipeline.path") == previous
        with zarr_codecs.install(pipeline=True) as inner:
            assert inner.added == {"pipeline"}
            assert zarr.config.get("codec_pipeline.path") == PATH
        assert zarr.config.get("codec_pipeline.path") == previous
        assert zarr_codecs.installed_parts() == {"zarr", "numcodecs"}
    assert not zarr_codecs.installed_parts()
    assert zarr.config.get("codec_pipeline.path") == previous


_CHILD = """
import json, sys
import numpy as np
import zarr
import zarr_codecs
from zarr.storage import MemoryStore
array = zarr.create_array(MemoryStore(), shape=(12,), chunks=(5,), dtype="float32",
                          compressors=[{"name": "gzip", "configuration": {"level": 5}}])
array[...] = np.arange(12, dtype="float32")
report = {
    "path": zarr.config.get("codec_pipeline.path"),
    "pipeline": type(array._async_array.codec_pipeline).__qualname__,
    "parts": sorted(zarr_codecs.installed_parts()),
    "values": array[3:11].tolist(),
}
zarr_codecs.uninstall()
report["after"] = zarr.config.get("codec_pipeline.path")
json.dump(report, sys.stdout)
"""


@pytest.mark.parametrize("value", ["pipeline", "1"])
def test_environment_variable_selects_the_pipeline(value: str) -> None:
    """``ZARR_CODECS_INSTALL=pipeline`` selects our pipeline as soon as zarr is imported (``1``
    installs the codecs only); ``uninstall()`` there restores zarr's default."""
    env = {**os.environ, "ZARR_CODECS_INSTALL": value}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True
    )
    report = json.loads(done.stdout)
    assert report["values"] == [float(v) for v in range(3, 11)]
    assert report["after"] == DEFAULT
    if value == "pipeline":
        assert report["path"] == PATH
        assert report["pipeline"] == "ChainCodecPipeline"
        assert report["parts"] == ["numcodecs", "pipeline", "zarr"]
    else:
        assert report["path"] == DEFAULT
        assert report["pipeline"] == "BatchedCodecPipeline"
        assert report["parts"] == ["numcodecs", "zarr"]


# -- errors ------------------------------------------------------------------------------------

#: Ways to touch chunk (1, 1) of a SHAPE array: whole chunks decoded into the output, a partial
#: chunk, a dropped axis, and the read-merge-encode of a partial write.
CORRUPT_OPERATIONS: dict[str, Callable[[Any, Array], Any]] = {
    "read-all": lambda array, _: array[...],
    "read-chunk": lambda array, _: array[5:10, 7:14],
    "read-part": lambda array, _: array[6:12, 3:9],
    "read-row": lambda array, _: array[7],
    "write-part": lambda array, values: array.__setitem__(
        (slice(6, 8), slice(8, 10)), values[:2, :2]
    ),
}


@pytest.mark.usefixtures("ours")
@pytest.mark.parametrize(
    ("chain", "dtype"),
    [
        ("gzip", "float32"),
        ("blosc-lz4-shuffle", "int32"),
        ("bytes-little", "float64"),
        ("quantize-blosc", "float32"),
    ],
)
@pytest.mark.parametrize("operation", list(CORRUPT_OPERATIONS))
def test_a_corrupt_chunk_raises_our_codec_error(
    new_store: Callable[[str], Store], chain: str, dtype: str, operation: str
) -> None:
    """Garbage in a stored chunk raises a ``CodecError`` on every path that decodes it (whole
    chunks into the output, partial chunks, merges before a write); other chunks still read."""
    store = new_store("a")
    expected, _ = _written(chain, dtype, SHAPE)
    with _pipeline(PATH):
        array = _create(store, chain, dtype, SHAPE, CHUNKS)
        array[...] = expected
        garbage = default_buffer_prototype().buffer.from_bytes(b"\x02\x01not a chunk" * 3)
        sync(store.set("c/1/1", garbage))
        run = CORRUPT_OPERATIONS[operation]
        with pytest.raises(CodecError):
            run(array, expected)
        _assert_values(chain, array[1:4], expected[1:4])  # partial chunks
        _assert_values(chain, array[11:14, 2:], expected[11:14, 2:])


# -- stored-as-is chunk files ------------------------------------------------------------------


def test_local_chunks_stored_as_is_read_straight_into_place(tmp_path: Path) -> None:
    """Uncompressed LocalStore chunks are read from their files straight into place, missing
    ones as the fill value, and a chunk file of the wrong size raises ``CorruptInputError``."""
    # 1-D, so that whole chunks are contiguous in the output and read straight into place
    data = np.arange(700, dtype="float32")
    with _pipeline(PATH):
        array = _create(LocalStore(tmp_path), "bytes-little", "float32", data.shape, (100,))
        assert _chain_of(array) is not None
        array[:400] = data[:400]  # four chunks; the other three stay missing
        assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["0", "1", "2", "3"]
        values = zarr.open_array(LocalStore(tmp_path), mode="r")[...]
        np.testing.assert_array_equal(values[:400], data[:400])
        assert np.isnan(values[400:]).all()
        (tmp_path / "c" / "1").write_bytes(b"\0" * 3)
        with pytest.raises(CorruptInputError, match="does not hold exactly 400 bytes"):
            zarr.open_array(LocalStore(tmp_path), mode="r")[...]


# -- spawn workers -----------------------------------------------------------------------------


@pytest.mark.usefixtures("clean_install")
def test_arrays_pickle_into_spawn_workers_with_the_pipeline(tmp_path: Path) -> None:
    """A worker whose initializer runs ``install(pipeline=True)`` selects our pipeline; an array
    opened here with it pickles there, reads the same region and writes one back."""
    chain, dtype = "fixedscaleoffset-gzip", "float64"
    expected, regions = _written(chain, dtype, SHAPE)
    with zarr_codecs.install(pipeline=True):
        array = _create(LocalStore(tmp_path), chain, dtype, SHAPE, CHUNKS)
        for region in regions:
            array[region] = expected[region]
        assert _chain_of(array) is not None
        region = (slice(3, 20), slice(2, 29))
        here = array[region]
        spawn = multiprocessing.get_context("spawn")
        initializer = functools.partial(zarr_codecs.install, pipeline=True)
        with spawn.Pool(1, initializer=initializer) as pool:
            assert pool.apply(zarr.registry.get_pipeline_class) is ChainCodecPipeline
            there = pool.apply(operator.getitem, (array, region))
            _assert_identical(there, here)
            pipeline = pool.apply(getattr, (array._async_array, "codec_pipeline"))
            assert type(pipeline) is ChainCodecPipeline
            update = expected[:4, :9] + 1
            pool.apply(operator.setitem, (array, (slice(19, 23), slice(22, 31)), update))
        reread = zarr.open_array(LocalStore(tmp_path), mode="r")[19:23, 22:31]
    _assert_values(chain, reread, update)
