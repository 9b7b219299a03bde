"""Arrays our codecs write (zarr-python with ``zarr_codecs.install()``) read by zarrs, and
arrays zarrs writes read by ours.

zarrs (Rust, through ``zarrs.ZarrsCodecPipeline``, selected strictly so nothing falls back to
Python) is an implementation independent of ours, zarr-python's and numcodecs'. It reads our
gzip, blosc, zstd and crc32c, in v3 chunks, inside ``sharding_indexed`` and as v2
compressors, to exactly the values ours reads (the source), on the four benchmark datasets,
unwritten chunks included.

What zarrs 0.2.3 does otherwise is pinned down, so that a change on either side is noticed:

* ``numcodecs.fixedscaleoffset`` / v2 ``fixedscaleoffset``: zarrs reads our chunks, but does
  not decode as numcodecs does (ours does, bit for bit): it holds offset and scale as float32,
  casts the stored values to the array type through float32 (integers above 2**24 lose bits)
  and computes ``x / scale + offset`` in the array's precision (float32 arrays in float32, where
  numcodecs divides integers in float64; a float32 ``astype`` in float64, where numcodecs stays
  in float32). Its values are checked against a numpy model of that arithmetic.
* It refuses a one-byte ``astype`` as numcodecs spells it (``|u1``), a v2 zstd with
  ``"checksum": true``, and ``cast_value`` and ``scale_offset`` (those arrays are read with
  zarr's built-ins instead).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

zarrs = pytest.importorskip("zarrs")
zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zarr_codecs = pytest.importorskip("zarr_codecs")

from zarr.storage import LocalStore  # noqa: E402
from zarr_codecs_bench import datasets  # noqa: E402
from zarrs.pipeline import UnsupportedMetadataError  # noqa: E402

Array = npt.NDArray[Any]
JSON = dict[str, Any]

SIZE = 64 * 1024
CHUNKS, SHARDS = (48, 40), (96, 80)  # partial edge chunks and shards
REGION = (slice(10, 101), slice(7, 83))
ZARRS = {"codec_pipeline.path": "zarrs.ZarrsCodecPipeline", "codec_pipeline.strict": True}
BUILTIN = {
    "gzip": "zarr.codecs.gzip.GzipCodec",
    "blosc": "zarr.codecs.blosc.BloscCodec",
    "cast_value": "zarr.codecs.cast_value.CastValue",
    "scale_offset": "zarr.codecs.scale_offset.ScaleOffset",
}


@pytest.fixture(scope="module")
def arrays() -> dict[str, Array]:
    return {name: datasets.load(name, SIZE) for name in datasets.DATASETS}


# -- layouts ---------------------------------------------------------------------------------


def _gzip() -> tuple[JSON, JSON]:
    return {"name": "gzip", "configuration": {"level": 5}}, {"id": "gzip", "level": 5}


def _blosc(cname: str, shuffle: str, typesize: int) -> tuple[JSON, JSON]:
    config = {"cname": cname, "clevel": 5, "shuffle": shuffle, "typesize": typesize}
    v2_shuffle = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}[shuffle]
    return (
        {"name": "blosc", "configuration": {**config, "blocksize": 0}},
        {"id": "blosc", "cname": cname, "clevel": 5, "shuffle": v2_shuffle, "blocksize": 0},
    )


def _zstd(level: int = 0, checksum: bool = False) -> tuple[JSON, JSON]:
    config = {"level": level, "checksum": checksum}
    return {"name": "zstd", "configuration": config}, {"id": "zstd", **config}


def _fso(dtype: np.dtype[Any], offset: float, scale: float, astype: str) -> JSON:
    return {"offset": offset, "scale": scale, "dtype": dtype.str, "astype": astype}


def _create_kwargs(layout: str, data: Array) -> JSON:
    """zarr.create_array arguments (codecs as JSON) for one named lossless layout."""
    itemsize = data.dtype.itemsize
    return {
        "v3-gzip": {"compressors": [_gzip()[0]]},
        "v3-blosc-lz4-shuffle": {"compressors": [_blosc("lz4", "shuffle", itemsize)[0]]},
        "v3-blosc-zstd-bitshuffle": {"compressors": [_blosc("zstd", "bitshuffle", itemsize)[0]]},
        "v3-sharded-gzip": {"shards": SHARDS, "compressors": [_gzip()[0]]},
        "v3-sharded-blosc": {
            "shards": SHARDS,
            "compressors": [_blosc("lz4", "shuffle", itemsize)[0]],
        },
        "v3-zstd": {"compressors": [_zstd()[0]]},
        "v3-zstd-crc32c": {"compressors": [_zstd(3, True)[0], {"name": "crc32c"}]},
        "v3-sharded-zstd": {"shards": SHARDS, "compressors": [_zstd()[0]]},
        "v3-sharded-zstd-index-start": {
            "shards": {"shape": SHARDS, "index_location": "start"},
            "compressors": [_zstd()[0]],
        },
        "v3-big-endian-zstd": {
            "serializer": {"name": "bytes", "configuration": {"endian": "big"}},
            "compressors": [_zstd()[0]],
        },
        "v3-sharded-big-endian": {
            "shards": SHARDS,
            "serializer": {"name": "bytes", "configuration": {"endian": "big"}},
            "compressors": None,
        },
        # numcodecs' pcodec, an array-to-bytes codec (zarrs has pcodec in Rust).
        "v3-pcodec": {"serializer": _PCODEC, "compressors": None},
        "v3-sharded-pcodec": {"shards": SHARDS, "serializer": _PCODEC, "compressors": None},
        "v2-gzip": {"zarr_format": 2, "compressors": _gzip()[1]},
        "v2-zstd": {"zarr_format": 2, "compressors": _zstd(5)[1]},
        "v2-blosc": {"zarr_format": 2, "compressors": _blosc("zstd", "bitshuffle", itemsize)[1]},
    }[layout]


LAYOUTS = [
    "v3-gzip",
    "v3-blosc-lz4-shuffle",
    "v3-blosc-zstd-bitshuffle",
    "v3-sharded-gzip",
    "v3-sharded-blosc",
    "v3-zstd",
    "v3-zstd-crc32c",
    "v3-sharded-zstd",
    "v3-sharded-zstd-index-start",
    "v3-big-endian-zstd",
    "v3-sharded-big-endian",
    "v3-pcodec",
    "v3-sharded-pcodec",
    "v2-gzip",
    "v2-blosc",
    "v2-zstd",
]


#: pcodec in zarr-python's v3 form, numcodecs' defaults at level 5.
_PCODEC: JSON = {"name": "numcodecs.pcodec", "configuration": {"level": 5}}
#: zfpy in zarr-python's v3 form: numcodecs' default, zfp's reversible mode.
_ZFPY: JSON = {"name": "numcodecs.zfpy", "configuration": {"mode": 4, "tolerance": -1}}


def _cases() -> Iterator[Any]:
    for layout in LAYOUTS:
        for name in datasets.DATASETS:
            if "pcodec" in layout and name == "uint8_image":
                continue  # pcodec compresses numbers of 16 bits and more
            yield pytest.param(layout, name, id=f"{layout}-{name}")


def _write_ours(
    root: Path, data: Array, kwargs: JSON, *, fill: float = 0, rows: int | None = None
) -> Array:
    """Writes ``data`` (its first ``rows``) with our codecs and pipeline, asserting that they
    are ours and that the runtime runs the array's chain (v2 filters excepted: zarr's code runs
    those), and returns what ours reads back."""
    kwargs = dict(kwargs)
    with zarr_codecs.install(pipeline=True):
        if kwargs.get("zarr_format") == 2:  # v2 takes numcodecs objects: ours, once installed
            kwargs["filters"] = [numcodecs.get_codec(dict(f)) for f in kwargs.get("filters", [])]
            kwargs["compressors"] = numcodecs.get_codec(dict(kwargs["compressors"]))
        array = zarr.create_array(
            LocalStore(root),
            shape=data.shape,
            chunks=CHUNKS,
            dtype=data.dtype,
            fill_value=fill,
            **kwargs,
        )
        codecs = _codecs(array)
        assert all(type(c).__module__.startswith("zarr_codec") for c in codecs), codecs
        if not (array.metadata.zarr_format == 2 and array.metadata.filters):  # v2 filters: zarr's
            spec = _outer_spec(array)
            assert array._async_array.codec_pipeline.chain(spec) is not None
        array[:rows] = data[:rows]
        values: Array = array[...]
        return values


def _outer_spec(array: Any) -> Any:
    """The spec zarr hands the pipeline for the array's (outer) chunks."""
    from zarr.core.array_spec import ArraySpec
    from zarr.core.buffer import default_buffer_prototype

    meta, config = array.metadata, array._async_array.config
    if meta.zarr_format == 2:
        config = dataclasses.replace(config, order=meta.order)
    shape = tuple(array.shards or array.chunks)
    return ArraySpec(shape, meta.dtype, meta.fill_value, config, default_buffer_prototype())


def _codecs(array: Any) -> list[Any]:
    """Every codec zarr resolved for the array but ``bytes``, sharding's inner ones included."""
    meta = array.metadata
    if meta.zarr_format == 2:
        return [*(meta.filters or ()), meta.compressor]
    codecs: list[Any] = []
    for codec in meta.codecs:
        inner = getattr(codec, "codecs", None)
        codecs.extend(inner if inner is not None else [codec])
    return [c for c in codecs if not isinstance(c, zarr.codecs.BytesCodec)]


@contextmanager
def _zarrs_array(root: Path) -> Iterator[Any]:
    """The array opened with zarrs' pipeline, strictly: no Python fallback."""
    with zarr.config.set(ZARRS):
        array = zarr.open_array(LocalStore(root), mode="r")
        pipeline = array._async_array.codec_pipeline
        assert isinstance(pipeline, zarrs.ZarrsCodecPipeline) and pipeline.impl is not None
        assert pipeline.python_impl is None  # strict: nothing to fall back to
        yield array


def _assert_same(values: Array, expected: Array, label: str) -> None:
    assert values.dtype == expected.dtype and values.shape == expected.shape, label
    assert values.tobytes() == expected.tobytes(), label


# -- what zarrs reads ------------------------------------------------------------------------


@pytest.mark.parametrize(("layout", "name"), list(_cases()))
def test_zarrs_reads_ours(tmp_path: Path, arrays: dict[str, Array], layout: str, name: str) -> None:
    """zarrs decodes what ours wrote to the values ours reads and to the expected ones, whole
    and in a region across chunk (and shard) edges."""
    data = arrays[name]
    ours = _write_ours(tmp_path / "a.zarr", data, _create_kwargs(layout, data))
    expected = data
    _assert_same(ours, expected, "ours")
    with _zarrs_array(tmp_path / "a.zarr") as array:
        _assert_same(array[...], expected, "zarrs")
        _assert_same(array[REGION], expected[REGION], "zarrs, region")


@pytest.mark.parametrize("layout", [layout for layout in LAYOUTS if layout.startswith("v3")])
def test_ours_reads_what_zarrs_writes(
    tmp_path: Path, arrays: dict[str, Array], layout: str
) -> None:
    """The other way round: zarrs (strict, so its own Rust codecs) writes, ours reads exactly
    the source."""
    data = arrays["float32_field"]
    root = tmp_path / "a.zarr"
    with zarr.config.set(ZARRS):
        array = zarr.create_array(
            LocalStore(root),
            shape=data.shape,
            chunks=CHUNKS,
            dtype=data.dtype,
            fill_value=0,
            **_create_kwargs(layout, data),
        )
        pipeline = array._async_array.codec_pipeline
        assert isinstance(pipeline, zarrs.ZarrsCodecPipeline) and pipeline.python_impl is None
        array[...] = data
    with zarr_codecs.install(pipeline=True):
        array = zarr.open_array(LocalStore(root), mode="r")
        assert all(type(c).__module__.startswith("zarr_codec") for c in _codecs(array))
        _assert_same(array[...], data, "ours")
        _assert_same(array[REGION], data[REGION], "ours, region")


def test_zarrs_reads_unwritten_chunks_as_the_fill_value(
    tmp_path: Path, arrays: dict[str, Array]
) -> None:
    """Chunks (and shards) ours never wrote: zarrs gives the fill value, as ours does."""
    data = arrays["float64_field"]
    for layout in ("v3-blosc-lz4-shuffle", "v3-sharded-gzip", "v2-gzip"):
        root = tmp_path / f"{layout}.zarr"
        ours = _write_ours(root, data, _create_kwargs(layout, data), fill=-7.25, rows=50)
        expected = np.full(data.shape, -7.25)
        expected[:50] = data[:50]
        _assert_same(ours, expected, f"ours {layout}")
        with _zarrs_array(root) as array:
            _assert_same(array[...], expected, f"zarrs {layout}")


# -- what zarrs refuses or reads otherwise -----------------------------------------------------


def _v3_filters(name: str) -> list[JSON]:
    return {
        "cast_value": [{"name": "cast_value", "configuration": {"data_type": "int16"}}],
        "scale_offset": [{"name": "scale_offset", "configuration": {"offset": 2, "scale": 3}}],
        "scale_offset+cast_value": [
            {"name": "scale_offset", "configuration": {"offset": 0.5, "scale": 1000}},
            {
                "name": "cast_value",
                "configuration": {"data_type": "int16", "out_of_range": "clamp"},
            },
        ],
    }[name]


REFUSED: dict[str, tuple[str, str, Callable[[Array], Array]]] = {
    # filters, dataset, the values ours reads back (and zarrs would have to)
    "cast_value": ("cast_value", "int32_counts", lambda a: a),
    "scale_offset": ("scale_offset", "int32_counts", lambda a: a),
    "scale_offset+cast_value": (
        "scale_offset+cast_value",
        "float32_field",
        lambda a: (
            np.rint((a - np.float32(0.5)) * np.float32(1000)).astype(np.int16).astype(np.float32)
            / np.float32(1000)
            + np.float32(0.5)
        ),
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_zarrs_refuses_cast_value_and_scale_offset(
    tmp_path: Path, arrays: dict[str, Array], case: str
) -> None:
    """zarrs 0.2.3 has neither codec: strict mode refuses the array when it is opened (the
    cause names the codec). zarr's built-ins read it to what ours reads."""
    filters, name, expected_of = REFUSED[case]
    data = arrays[name]
    root = tmp_path / "a.zarr"
    kwargs = {"filters": _v3_filters(filters), "compressors": [_gzip()[0]]}
    ours = _write_ours(root, data, kwargs)
    _assert_same(ours, expected_of(data), "ours")
    builtin = {"codecs": {**zarr.config.get("codecs"), **BUILTIN}}
    with zarr.config.set({**ZARRS, **builtin}), pytest.raises(UnsupportedMetadataError) as refused:
        zarr.open_array(LocalStore(root), mode="r")
    assert isinstance(refused.value.__cause__, TypeError)
    assert str(refused.value.__cause__).startswith(
        f"codec {filters.split('+')[0]} is not supported"
    )
    with zarr.config.set(builtin):
        array = zarr.open_array(LocalStore(root), mode="r")
        assert all(type(c).__module__.startswith("zarr.codecs") for c in _codecs(array))
        _assert_same(array[...], ours, "zarr built-in")


#: numcodecs' filters under zarr-python's v3 names, each with a configuration for int32 data.
FILTERS: dict[str, JSON] = {
    "delta": {"dtype": "<i4"},
    "astype": {"encode_dtype": "<i8", "decode_dtype": "<i4"},
    "bitround": {"keepbits": 10},
    "quantize": {"digits": 3, "dtype": "<f8"},
    "packbits": {},
}


@pytest.mark.parametrize("codec_id", list(FILTERS))
def test_zarrs_refuses_numcodecs_filters(
    tmp_path: Path, arrays: dict[str, Array], codec_id: str
) -> None:
    """zarrs-python 0.2.3 refuses numcodecs' filters under zarr-python's v3 names (its Rust
    core has bitround and packbits, its Python build does not take them): the exchange with
    zarrs waits for one that does. Ours writes them and reads them back; zarr-python's own
    pipeline with numcodecs reads what ours wrote, the same values."""
    counts = arrays["int32_counts"]
    data = {
        "bitround": counts.astype("<f4"),
        "quantize": counts.astype("<f8"),
        "packbits": counts % 3 == 0,
    }.get(codec_id, counts)
    root = tmp_path / "a.zarr"
    codec = {"name": f"numcodecs.{codec_id}", "configuration": FILTERS[codec_id]}
    ours = _write_ours(root, data, {"filters": [codec], "compressors": [_zstd()[0]]})
    with zarr.config.set(ZARRS), pytest.raises(UnsupportedMetadataError) as refused:
        zarr.open_array(LocalStore(root), mode="r")
    assert str(refused.value.__cause__) == f"codec numcodecs.{codec_id} is not supported"
    array = zarr.open_array(LocalStore(root), mode="r")
    assert all(type(c).__module__.startswith("zarr.codecs") for c in _codecs(array))
    _assert_same(array[...], ours, "zarr with numcodecs")


def test_zarrs_refuses_zfpy(tmp_path: Path, arrays: dict[str, Array]) -> None:
    """zarrs-python 0.2.3 refuses ``numcodecs.zfpy`` (its Rust core has zfp, its Python build
    does not take it). Ours writes it (zfp's reversible mode) and reads it back exactly;
    zarr-python's own pipeline with numcodecs and zfpy reads what ours wrote, the same
    values."""
    data = arrays["float64_field"]
    root = tmp_path / "a.zarr"
    ours = _write_ours(root, data, {"serializer": _ZFPY, "compressors": None})
    _assert_same(ours, data, "ours")
    with zarr.config.set(ZARRS), pytest.raises(UnsupportedMetadataError) as refused:
        zarr.open_array(LocalStore(root), mode="r")
    assert str(refused.value.__cause__) == "codec numcodecs.zfpy is not supported"
    array = zarr.open_array(LocalStore(root), mode="r")
    assert all(type(c).__module__.startswith("zarr.codecs") for c in _codecs(array))
    _assert_same(array[...], data, "zarr with numcodecs")


@pytest.mark.parametrize("codec_id", ["crc32", "adler32", "fletcher32", "jenkins_lookup3"])
def test_zarrs_refuses_numcodecs_checksums(
    tmp_path: Path, arrays: dict[str, Array], codec_id: str
) -> None:
    """zarrs-python 0.2.3 refuses numcodecs' checksums under zarr-python's v3 names (its Rust
    core has adler32 and fletcher32, its Python build does not take them): the exchange with
    zarrs waits for one that does. Ours writes them and reads them back; zarr-python's own
    pipeline with numcodecs reads what ours wrote."""
    data = arrays["int32_counts"]
    root = tmp_path / "a.zarr"
    codec = {"name": f"numcodecs.{codec_id}", "configuration": {}}
    ours = _write_ours(root, data, {"compressors": [_zstd()[0], codec]})
    _assert_same(ours, data, "ours")
    with zarr.config.set(ZARRS), pytest.raises(UnsupportedMetadataError) as refused:
        zarr.open_array(LocalStore(root), mode="r")
    assert str(refused.value.__cause__) == f"codec numcodecs.{codec_id} is not supported"
    array = zarr.open_array(LocalStore(root), mode="r")
    assert all(type(c).__module__.startswith("zarr.codecs") for c in _codecs(array))
    _assert_same(array[...], data, "zarr with numcodecs")


def test_zarrs_refuses_a_v2_zstd_with_a_checksum(tmp_path: Path, arrays: dict[str, Array]) -> None:
    """numcodecs' ``{"id": "zstd", "checksum": true}`` (which ours writes as numcodecs does):
    zarrs 0.2.3 refuses the array; without the checksum flag it reads it (``v2-zstd`` above)."""
    data = arrays["float32_field"]
    root = tmp_path / "a.zarr"
    ours = _write_ours(root, data, {"zarr_format": 2, "compressors": _zstd(5, True)[1]})
    _assert_same(ours, data, "ours")
    with zarr.config.set(ZARRS), pytest.raises(UnsupportedMetadataError):
        zarr.open_array(LocalStore(root), mode="r")


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_zarrs_refuses_a_one_byte_fixedscaleoffset_astype(
    tmp_path: Path, arrays: dict[str, Array], zarr_format: int
) -> None:
    """``astype`` ``|u1`` (numcodecs' and our JSON for uint8): zarrs cannot map that spelling
    of a one-byte type, in v3 nor in v2, and refuses the array."""
    data = arrays["float32_field"]
    fso = _fso(data.dtype, -17, 7, "u1")
    kwargs: JSON
    if zarr_format == 3:
        kwargs = {"filters": [{"name": "numcodecs.fixedscaleoffset", "configuration": fso}]}
        kwargs["compressors"] = [_gzip()[0]]
    else:
        kwargs = {"zarr_format": 2, "filters": [{"id": "fixedscaleoffset", **fso}]}
        kwargs["compressors"] = _gzip()[1]
    ours = _write_ours(tmp_path / "a.zarr", data, kwargs)
    stock = numcodecs.FixedScaleOffset(**fso)
    assert stock.get_config()["astype"] == "|u1"
    _assert_same(ours, np.asarray(stock.decode(stock.encode(data))).reshape(data.shape), "ours")
    with zarr.config.set(ZARRS), pytest.raises(UnsupportedMetadataError) as refused:
        zarr.open_array(LocalStore(tmp_path / "a.zarr"), mode="r")
    assert "fixedscaleoffset" in str(refused.value.__cause__)


#: name: (dataset, offset, scale, astype, compressor, format, sharded)
FSO: dict[str, tuple[str, float, float, str, str, int, bool]] = {
    "v3-f4-i2-gzip": ("float32_field", 1.5, 1000, "<i2", "gzip", 3, False),
    "v3-sharded-f4-i2-blosc": ("float32_field", 1.5, 1000, "<i2", "blosc", 3, True),
    "v2-f4-i2-blosc": ("float32_field", 1.5, 1000, "<i2", "blosc", 2, False),
    "v3-f8-i4-gzip": ("float64_field", -2, 1e6, "<i4", "gzip", 3, False),
    "v2-f8-i4-gzip": ("float64_field", -2, 1e6, "<i4", "gzip", 2, False),
    "v3-f8-f4-gzip": ("float64_field", 0.25, 10, "<f4", "gzip", 3, False),
    "v2-f8-f4-blosc": ("float64_field", 0.25, 10, "<f4", "blosc", 2, False),
    "v3-f8-i2-offset-not-float32": ("float64_field", 0.1, 1000, "<i2", "gzip", 3, False),
}


def _zarrs_fixedscaleoffset(
    encoded: Array, dtype: np.dtype[Any], offset: float, scale: float
) -> Array:
    """zarrs' decoding as its Rust source reads (and these tests confirm for 0.2.3): offset
    and scale held as float32, the stored value cast to the array type through float32, then
    ``x / scale + offset`` in that type."""
    calc = dtype.type
    x = encoded.astype(np.float32).astype(dtype)
    return np.asarray(x / calc(np.float32(scale)) + calc(np.float32(offset)), dtype=dtype)


@pytest.mark.parametrize("case", list(FSO))
def test_zarrs_fixedscaleoffset_is_not_numcodecs(
    tmp_path: Path, arrays: dict[str, Array], case: str
) -> None:
    """Ours writes numcodecs' chunks and reads numcodecs' values; zarrs reads the same chunks
    to other values (its own arithmetic, modelled exactly), different in the last bits."""
    name, offset, scale, astype, compressor, zarr_format, sharded = FSO[case]
    data = arrays[name]
    fso = _fso(data.dtype, offset, scale, astype)
    typesize = np.dtype(astype).itemsize
    v3_compressor, v2_compressor = (
        _gzip() if compressor == "gzip" else _blosc("lz4", "shuffle", typesize)
    )
    kwargs: JSON
    if zarr_format == 3:
        kwargs = {"filters": [{"name": "numcodecs.fixedscaleoffset", "configuration": fso}]}
        kwargs["compressors"] = [v3_compressor]
        if sharded:
            kwargs["shards"] = SHARDS
    else:
        kwargs = {"zarr_format": 2, "filters": [{"id": "fixedscaleoffset", **fso}]}
        kwargs["compressors"] = v2_compressor
    ours = _write_ours(tmp_path / "a.zarr", data, kwargs)
    stock = numcodecs.FixedScaleOffset(**fso)
    encoded = np.asarray(stock.encode(data)).reshape(data.shape)
    numcodecs_values = np.asarray(stock.decode(encoded)).reshape(data.shape)
    _assert_same(ours, numcodecs_values, "ours")
    with _zarrs_array(tmp_path / "a.zarr") as array:
        values, region = array[...], array[REGION]
    model = _zarrs_fixedscaleoffset(encoded, data.dtype, offset, scale)
    _assert_same(values, model, "zarrs")
    _assert_same(region, model[REGION], "zarrs, region")
    assert (values != numcodecs_values).any(), "zarrs now decodes as numcodecs: test identity"
