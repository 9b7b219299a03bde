"""The bundle's codecs in the places zarr-python puts codecs besides a plain chunk chain.

* Inside ``sharding_indexed``: inner chains ``[bytes, gzip]`` and
  ``[scale_offset, cast_value, bytes, blosc]``, written with ours and read with zarr's built-ins
  and the other way round, with partial shards and partial inner chunks.
* In ``spawn`` worker processes, as dask uses them: arrays opened with ours installed and our
  codec objects are pickled into a worker that installs ours in its initializer, or that gets
  ``ZARR_CODECS_INSTALL=1`` in its environment and nothing else (the ``.pth`` hook); a worker
  with neither keeps zarr's and numcodecs' own (the control).
* Under zarr-python's synchronous ``FusedCodecPipeline`` on a LocalStore: it takes its sync
  path with our codecs, and writes and reads the same as the default pipeline.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import operator
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zarr_codecs = pytest.importorskip("zarr_codecs")

from zarr.core.codec_pipeline import BatchedCodecPipeline, FusedCodecPipeline  # noqa: E402
from zarr.storage import LocalStore  # noqa: E402
from zarr_codec_blosc import Blosc  # noqa: E402
from zarr_codec_blosc import numcodecs as blosc_numcodecs  # noqa: E402
from zarr_codec_gzip import Gzip  # noqa: E402
from zarr_codec_gzip import numcodecs as gzip_numcodecs  # noqa: E402
from zarr_codec_gzip.zarr_python import GzipCodec  # noqa: E402
from zarr_codec_scale_offset import numcodecs as scale_offset_numcodecs  # noqa: E402
from zarr_codecs_bench import datasets  # noqa: E402

Array = npt.NDArray[Any]
JSON = dict[str, Any]

SIZE = 64 * 1024
SHARDS, CHUNKS = (96, 80), (48, 40)  # partial shards and partial inner chunks at the edges
REGION = (slice(10, 101), slice(7, 83))  # across chunk (and shard) boundaries

BUILTIN: dict[str, str] = {
    "gzip": "zarr.codecs.gzip.GzipCodec",
    "blosc": "zarr.codecs.blosc.BloscCodec",
    "cast_value": "zarr.codecs.cast_value.CastValue",
    "scale_offset": "zarr.codecs.scale_offset.ScaleOffset",
    "numcodecs.fixedscaleoffset": "zarr.codecs.numcodecs.FixedScaleOffset",
}
V2_IDS: dict[str, JSON] = {
    "gzip": {},
    "blosc": {},
    "fixedscaleoffset": {"offset": 0, "scale": 1, "dtype": "<f8"},
}
FUSED = "zarr.core.codec_pipeline.FusedCodecPipeline"


@contextmanager
def _implementation(which: str) -> Iterator[None]:
    """Ours (:func:`zarr_codecs.install`) or zarr's own classes named in its config."""
    if which == "ours":
        with zarr_codecs.install():
            yield
        return
    assert not zarr_codecs.installed_parts()
    with zarr.config.set({"codecs": {**zarr.config.get("codecs"), **BUILTIN}}):
        yield


def _ours(codec: Any) -> bool:
    return type(codec).__module__.startswith("zarr_codec")


@pytest.fixture(scope="module")
def arrays() -> dict[str, Array]:
    return {name: datasets.load(name, SIZE) for name in datasets.DATASETS}


# -- chains and the values they should give ------------------------------------------------------

GZIP: JSON = {"name": "gzip", "configuration": {"level": 5}}


def _quantized(offset: float, scale: float) -> tuple[list[JSON], Callable[[Array], Array]]:
    """``[scale_offset, cast_value int16]`` and, by numpy, what it gives back: the spec's
    arithmetic in the array's float type, rounding half to even."""
    filters = [
        {"name": "scale_offset", "configuration": {"offset": offset, "scale": scale}},
        {"name": "cast_value", "configuration": {"data_type": "int16"}},
    ]

    def expected(a: Array) -> Array:
        o, s = a.dtype.type(offset), a.dtype.type(scale)
        encoded = np.rint((a - o) * s).astype(np.int16)
        return np.asarray(encoded.astype(a.dtype) / s + o, dtype=a.dtype)

    return filters, expected


def _blosc(typesize: int) -> JSON:
    config = {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": typesize}
    return {"name": "blosc", "configuration": {**config, "blocksize": 0}}


_Q32, _Q64 = _quantized(0.5, 1000), _quantized(-1, 1000)
#: name: (dataset, filters, compressor, expected values from the source)
SHARDED: dict[str, tuple[str, list[JSON], JSON, Callable[[Array], Array]]] = {
    **{f"bytes-gzip-{n}": (n, [], GZIP, lambda a: a) for n in datasets.DATASETS},
    "so-cast-bytes-blosc-float32_field": ("float32_field", _Q32[0], _blosc(2), _Q32[1]),
    "so-cast-bytes-blosc-float64_field": ("float64_field", _Q64[0], _blosc(2), _Q64[1]),
}


def _assert_same(values: Array, expected: Array, label: str = "") -> None:
    assert values.dtype == expected.dtype and values.shape == expected.shape, label
    assert values.tobytes() == expected.tobytes(), label


# -- sharding --------------------------------------------------------------------------------------


def _write_sharded(root: Path, name: str, data: Array) -> Any:
    _, filters, compressor, _ = SHARDED[name]
    array = zarr.create_array(
        LocalStore(root),
        shape=data.shape,
        chunks=CHUNKS,
        shards=SHARDS,
        dtype=data.dtype,
        filters=filters,
        compressors=[compressor],
    )
    array[...] = data
    return array


def _inner_codecs(array: Any) -> list[Any]:
    (sharding,) = array.metadata.codecs
    assert isinstance(sharding, zarr.codecs.ShardingCodec)
    return [c for c in sharding.codecs if not isinstance(c, zarr.codecs.BytesCodec)]


def _shards(root: Path) -> dict[str, bytes]:
    files = sorted(p for p in (root / "c").rglob("*") if p.is_file())
    return {str(p.relative_to(root)): p.read_bytes() for p in files}


@pytest.mark.parametrize("name", list(SHARDED))
def test_sharded_both_ways(tmp_path: Path, arrays: dict[str, Array], name: str) -> None:
    """Ours inside ``sharding_indexed`` reads what zarr's built-ins wrote there, and zarr's
    built-ins read what ours wrote, to the expected values."""
    dataset, _, compressor, expected_of = SHARDED[name]
    data = arrays[dataset]
    expected = expected_of(data)
    roots = {w: tmp_path / f"{w}.zarr" for w in ("ours", "zarr")}
    for writer, root in roots.items():
        with _implementation(writer):
            array = _write_sharded(root, name, data)
            inner = _inner_codecs(array)
            assert len(inner) == len(SHARDED[name][1]) + 1
            assert all(_ours(c) == (writer == "ours") for c in inner), inner
    shards = {w: _shards(r) for w, r in roots.items()}
    count = math.prod(math.ceil(n / s) for n, s in zip(data.shape, SHARDS, strict=True))
    assert set(shards["ours"]) == set(shards["zarr"]) and len(shards["ours"]) == count
    if compressor["name"] == "blosc":  # one c-blosc on both sides: the very same shards
        assert shards["ours"] == shards["zarr"]
    for writer, root in roots.items():
        for reader in ("ours", "zarr"):
            with _implementation(reader):
                array = zarr.open_array(LocalStore(root), mode="r")
                assert all(_ours(c) == (reader == "ours") for c in _inner_codecs(array))
                _assert_same(array[...], expected, f"{writer} -> {reader}")
                _assert_same(array[REGION], expected[REGION], f"{writer} -> {reader}, region")


# -- spawn workers ---------------------------------------------------------------------------------


def _write_ours(tmp_path: Path, arrays: dict[str, Array]) -> dict[str, tuple[Path, Array]]:
    """A v3 sharded array, a v3 ``[scale_offset, cast_value, bytes, blosc]`` one and a v2
    ``fixedscaleoffset`` + gzip one, written with ours; with the values each reads back."""
    data = arrays["float32_field"]
    filters, expected = _Q32
    written: dict[str, tuple[Path, Array]] = {}
    with zarr_codecs.install():
        written["v3-sharded-gzip"] = (tmp_path / "sharded.zarr", data)
        _write_sharded(tmp_path / "sharded.zarr", "bytes-gzip-float32_field", data)
        array = zarr.create_array(
            LocalStore(tmp_path / "quantized.zarr"),
            shape=data.shape,
            chunks=CHUNKS,
            dtype=data.dtype,
            filters=filters,
            compressors=[_blosc(2)],
        )
        array[...] = data
        written["v3-quantized-blosc"] = (tmp_path / "quantized.zarr", expected(data))
        fso = {"offset": 1.5, "scale": 1000, "dtype": "<f4", "astype": "<i2"}
        fso_codec = numcodecs.get_codec({"id": "fixedscaleoffset", **fso})
        array = zarr.create_array(
            LocalStore(tmp_path / "v2.zarr"),
            shape=data.shape,
            chunks=CHUNKS,
            dtype=data.dtype,
            zarr_format=2,
            filters=[fso_codec],
            compressors=numcodecs.get_codec({"id": "gzip", "level": 5}),
        )
        array[...] = data
        stock = numcodecs.FixedScaleOffset(**fso)
        expected_v2 = np.asarray(stock.decode(stock.encode(data))).reshape(data.shape)
        written["v2-fixedscaleoffset-gzip"] = (tmp_path / "v2.zarr", expected_v2)
    return written


def _all_codecs(array: Any) -> list[Any]:
    meta = array.metadata
    if meta.zarr_format == 2:
        return [*(meta.filters or ()), meta.compressor]
    codecs: list[Any] = []
    for codec in meta.codecs:
        inner = getattr(codec, "codecs", None)  # sharding's inner chain
        codecs.extend(inner if inner is not None else [codec])
    return [c for c in codecs if not isinstance(c, zarr.codecs.BytesCodec)]


def _child_selection(pool: Any) -> tuple[dict[str, str], dict[str, str]]:
    """The modules of the classes a worker's zarr (v3 names) and numcodecs (v2 ids) pick.
    Module-level functions only: they pickle by name and run on the worker's own state."""
    v3 = {name: pool.apply(zarr.registry.get_codec_class, (name,)).__module__ for name in BUILTIN}
    v2 = {
        i: type(pool.apply(numcodecs.get_codec, ({"id": i, **c},))).__module__
        for i, c in V2_IDS.items()
    }
    return v3, v2


def _inner_in_child(pool: Any, array: Any) -> list[str]:
    """The modules of a sharded array's inner codecs (``bytes`` aside) as a worker resolves
    them: ``ShardingCodec`` pickles as its JSON, so each unpickling process parses the inner
    chain with its own registry; the codec objects come back pickled by class."""
    (sharding,) = array.metadata.codecs
    inner = pool.apply(getattr, (sharding, "codecs"))
    return [type(c).__module__ for c in inner if not isinstance(c, zarr.codecs.BytesCodec)]


@pytest.fixture
def spawn() -> Any:
    return multiprocessing.get_context("spawn")


def test_spawn_workers_installed_by_initializer(
    tmp_path: Path, arrays: dict[str, Array], spawn: Any
) -> None:
    """Arrays opened with ours installed, pickled into a worker that ran ``install()``, read a
    region there as here; our bare codec objects decode there too."""
    written = _write_ours(tmp_path, arrays)
    with zarr_codecs.install():
        opened = {k: zarr.open_array(LocalStore(p), mode="r") for k, (p, _) in written.items()}
        here = {k: a[REGION] for k, a in opened.items()}
    raw = arrays["int32_counts"]
    gzip_core, blosc_core = Gzip(7), Blosc("zstd", 3, "shuffle", 4)
    gzip_v2 = gzip_numcodecs.GZip(level=4)
    blosc_v2 = blosc_numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1)
    fso_v2 = scale_offset_numcodecs.FixedScaleOffset(offset=1, scale=10, dtype="<f8", astype="<i4")
    zarr_gzip = GzipCodec(level=6)
    floats = arrays["float64_field"]
    with spawn.Pool(1, initializer=zarr_codecs.install) as pool:
        v3, v2 = _child_selection(pool)
        assert all(m.startswith("zarr_codec") for m in [*v3.values(), *v2.values()]), (v3, v2)
        for key, array in opened.items():
            assert all(_ours(c) for c in _all_codecs(array)), key
            region = pool.apply(operator.getitem, (array, REGION))
            _assert_same(region, here[key], key)
            _assert_same(region, written[key][1][REGION], key)
        assert _inner_in_child(pool, opened["v3-sharded-gzip"]) == ["zarr_codec_gzip.zarr_python"]
        # bare codec objects: bound methods pickle their codec
        assert pool.apply(gzip_core.decode, (gzip_core.encode(raw),)) == raw.tobytes()
        assert pool.apply(blosc_core.decode, (blosc_core.encode(raw),)) == raw.tobytes()
        assert bytes(pool.apply(gzip_v2.decode, (gzip_v2.encode(raw),))) == raw.tobytes()
        assert bytes(pool.apply(blosc_v2.decode, (blosc_v2.encode(raw),))) == raw.tobytes()
        encoded = np.asarray(fso_v2.encode(floats))
        stock = numcodecs.FixedScaleOffset(offset=1, scale=10, dtype="<f8", astype="<i4")
        assert encoded.tobytes() == np.asarray(stock.encode(floats)).tobytes()
        decoded = np.asarray(pool.apply(fso_v2.decode, (encoded,)))
        assert decoded.tobytes() == np.asarray(stock.decode(encoded)).tobytes()
        assert pool.apply(zarr_gzip.to_dict) == zarr.codecs.GzipCodec(level=6).to_dict()


def test_spawn_workers_installed_by_environment(
    tmp_path: Path, arrays: dict[str, Array], spawn: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ZARR_CODECS_INSTALL=1`` alone (the ``.pth`` hook at interpreter startup) makes a
    worker pick ours when it opens an array by path. Without it (the control) a worker picks
    zarr's and numcodecs' own; arrays opened here with ours still decode there to the same
    values, and keep our classes, except inside ``sharding_indexed``, which zarr pickles as
    JSON: the worker resolves the inner chain by name, to zarr's built-ins."""
    written = _write_ours(tmp_path, arrays)
    with zarr_codecs.install():
        opened = {k: zarr.open_array(LocalStore(p), mode="r") for k, (p, _) in written.items()}
    assert not zarr_codecs.installed_parts()

    monkeypatch.delenv("ZARR_CODECS_INSTALL", raising=False)
    with spawn.Pool(1) as pool:
        v3, v2 = _child_selection(pool)
        # (zarr's default config names no cast_value/scale_offset; with a third-party
        # cast_value registered too, zarr warns and picks one: either way, not ours)
        assert not any(m.startswith("zarr_codec") for m in v3.values()), v3
        assert v3["gzip"] == "zarr.codecs.gzip" and v3["blosc"] == "zarr.codecs.blosc"
        assert all(m.startswith("numcodecs.") for m in v2.values()), v2
        for key, array in opened.items():
            region = pool.apply(operator.getitem, (array, REGION))
            _assert_same(region, written[key][1][REGION], key)
        assert _inner_in_child(pool, opened["v3-sharded-gzip"]) == ["zarr.codecs.gzip"]

    monkeypatch.setenv("ZARR_CODECS_INSTALL", "1")
    with spawn.Pool(1) as pool:
        v3, v2 = _child_selection(pool)
        assert all(m.startswith("zarr_codec") for m in [*v3.values(), *v2.values()]), (v3, v2)
        for key, (path, expected) in written.items():
            array = pool.apply(zarr.open_array, (LocalStore(path),), {"mode": "r"})
            if key == "v3-sharded-gzip":
                assert _inner_in_child(pool, array) == ["zarr_codec_gzip.zarr_python"]
            else:  # the classes the worker resolved, carried back by pickle
                assert all(_ours(c) for c in _all_codecs(array)), key
            region = pool.apply(operator.getitem, (array, REGION))
            _assert_same(region, expected[REGION], key)


# -- FusedCodecPipeline ---------------------------------------------------------------------------


def _fused_cases(arrays: dict[str, Array]) -> dict[str, tuple[JSON, Array]]:
    """create_array arguments (under ours) and the values expected back."""
    f32, f64 = arrays["float32_field"], arrays["float64_field"]
    filters, expected = _Q32
    fso = {"id": "fixedscaleoffset", "offset": -2, "scale": 1e6, "dtype": "<f8", "astype": "<i4"}
    stock = numcodecs.FixedScaleOffset(**{k: v for k, v in fso.items() if k != "id"})
    return {
        "v3-quantized-blosc": (
            {"data": f32, "filters": filters, "compressors": [_blosc(2)]},
            expected(f32),
        ),
        "v3-sharded-gzip": (
            {"data": arrays["uint8_image"], "shards": SHARDS, "compressors": [GZIP]},
            arrays["uint8_image"],
        ),
        "v2-fixedscaleoffset-blosc": (
            {
                "data": f64,
                "zarr_format": 2,
                "filters": [fso],
                "compressors": {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2},
            },
            np.asarray(stock.decode(stock.encode(f64))).reshape(f64.shape),
        ),
    }


def _create_and_write(root: Path, arguments: JSON) -> Any:
    arguments = dict(arguments)
    data = arguments.pop("data")
    if arguments.get("zarr_format") == 2:  # v2 takes numcodecs objects: ours once installed
        arguments["filters"] = [numcodecs.get_codec(dict(f)) for f in arguments["filters"]]
        arguments["compressors"] = numcodecs.get_codec(dict(arguments["compressors"]))
    array = zarr.create_array(
        LocalStore(root), shape=data.shape, chunks=CHUNKS, dtype=data.dtype, **arguments
    )
    array[...] = data
    return array


def _chunk_files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in ("zarr.json", ".zarray", ".zattrs")
    }


@pytest.mark.parametrize(
    "case", ["v3-quantized-blosc", "v3-sharded-gzip", "v2-fixedscaleoffset-blosc"]
)
def test_fused_pipeline_runs_ours(tmp_path: Path, arrays: dict[str, Array], case: str) -> None:
    """zarr's sync ``FusedCodecPipeline`` takes its sync path through our codecs (a
    ``ChunkTransform`` is built only when every codec is sync-capable), writes the same chunk
    files as the default pipeline and reads either's back to the expected values."""
    arguments, expected = _fused_cases(arrays)[case]
    fused_root, default_root = tmp_path / "fused.zarr", tmp_path / "default.zarr"
    with zarr_codecs.install():
        with zarr.config.set({"codec_pipeline.path": FUSED}):
            array = _create_and_write(fused_root, arguments)
            pipeline = array._async_array.codec_pipeline
            assert type(pipeline) is FusedCodecPipeline
            assert pipeline.sync_transform is not None, "fell back to the async path"
            assert all(_ours(c) for c in _all_codecs(array))
        array = _create_and_write(default_root, arguments)
        assert type(array._async_array.codec_pipeline) is BatchedCodecPipeline
        assert _chunk_files(fused_root) == _chunk_files(default_root)
        for pipeline_path in (FUSED, None):
            config = {"codec_pipeline.path": pipeline_path} if pipeline_path else {}
            with zarr.config.set(config):
                for root in (fused_root, default_root):
                    array = zarr.open_array(LocalStore(root), mode="r")
                    assert (type(array._async_array.codec_pipeline) is FusedCodecPipeline) == (
                        pipeline_path == FUSED
                    )
                    _assert_same(array[...], expected, f"{pipeline_path} reads {root.name}")
                    _assert_same(array[REGION], expected[REGION], f"{pipeline_path} region")


def test_partial_blosc_configuration_is_accepted_and_recorded_complete() -> None:
    """zarr-python's own BloscCodec takes a partial dict from users and records the resolved
    values; with ours installed the same program works and writes the same metadata."""
    codecs = [{"name": "blosc", "configuration": {"cname": "lz4"}}]
    metadata = {}
    for label in ("zarr", "ours"):
        with zarr_codecs.install() if label == "ours" else contextlib.nullcontext():
            array = zarr.create_array(
                zarr.storage.MemoryStore(), shape=(64,), dtype="float64", compressors=codecs
            )
            array[...] = np.arange(64.0)
            metadata[label] = array.metadata.to_dict()["codecs"]
            np.testing.assert_array_equal(array[...], np.arange(64.0))
    assert metadata["ours"] == metadata["zarr"]
    assert metadata["ours"][1]["configuration"] == {
        "typesize": 8,
        "cname": "lz4",
        "clevel": 5,
        "shuffle": "shuffle",
        "blocksize": 0,
    }
