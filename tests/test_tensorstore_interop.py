"""TensorStore (Google's C++ Zarr implementation, written by nobody here) as a test partner.

Both directions, for Zarr v3 and v2 layouts users have:

* TensorStore creates the array (its own metadata) and writes a region of it; zarr-python reads
  the whole array with our codecs (``install()``), with our pipeline (``install(pipeline=True)``)
  and, as the check of the check, with its own codecs and pipeline.
* TensorStore creates the array, zarr-python writes the region with our codecs and with our
  pipeline, and TensorStore reads the whole array.

Every read is compared bit for bit (floats and complex numbers by their bits) with what was
written and the fill value everywhere else: the region leaves whole chunks missing and cuts
others, so missing and partial chunks are read on every layout. Values have distinct bytes in
every element (so a byte order wrong anywhere shows) and distinct real and imaginary parts;
complex fill values have distinct parts too.

Layouts: v3 ``bytes`` little and big endian over every data type both sides have (the small
float types and sub-byte integers, which zarr-python refuses, through our runtime's ``Chain``
on the chunk files), with zstd, gzip (levels 1 and 9), blosc (every cname TensorStore and we
share, each shuffle), crc32c, ``transpose``, and ``sharding_indexed`` with the index at
either end; v2 with blosc, zlib, gzip, zstd (levels 1 and 19), bz2 and no compressor, orders C
and F, both byte orders, both key separators and a null fill value. ``usage()`` says which
layouts ran in our runtime; the ones that hand back to zarr-python are named by
:func:`_handed_back`, with the reason, and checked to be exactly those.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

ts = pytest.importorskip("tensorstore")
zarr = pytest.importorskip("zarr")
zarr_codecs = pytest.importorskip("zarr_codecs")

from zarr_codec_shapes import DataType  # noqa: E402

Array = npt.NDArray[Any]
JSON = dict[str, Any]

SHAPE = (37, 29)
CHUNKS = (8, 6)
SHARDS = (16, 12)
#: Written region: chunk row 0 and 4 and chunk column 4 stay missing; edge chunks are cut.
REGION = (slice(9, 30), slice(1, 20))

#: Every data type that has a numpy type of its own (both sides have them all).
V3_TYPES = tuple(t.name for t in DataType.ALL if t.v2_code is not None)
#: numpy's type code of each (what Zarr v2 spells after the byte order).
V2_CODES = {name: np.dtype(name).str[1:] for name in V3_TYPES}

ZSTD: JSON = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
GZIP: JSON = {"name": "gzip", "configuration": {"level": 1}}
CRC32C: JSON = {"name": "crc32c"}


def _bytes(endian: str) -> JSON:
    return {"name": "bytes", "configuration": {"endian": endian}}


def _blosc(cname: str, shuffle: str, typesize: int) -> JSON:
    configuration = {"cname": cname, "clevel": 5, "shuffle": shuffle, "typesize": typesize}
    return {"name": "blosc", "configuration": {**configuration, "blocksize": 0}}


def _sharded(inner: list[JSON], location: str) -> list[JSON]:
    return [
        {
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": list(CHUNKS),
                "codecs": inner,
                "index_codecs": [_bytes("little"), CRC32C],
                "index_location": location,
            },
        }
    ]


def _fill_v3(data_type: str, kind: str) -> Any:
    """A fill value of ``data_type`` in Zarr v3 JSON: ``"nan"``, ``"zero"`` or ``"odd"`` (a
    value no array holds by chance; complex with distinct parts)."""
    if kind == "zero":
        return (
            [0.0, 0.0] if data_type.startswith("complex") else (False if data_type == "bool" else 0)
        )
    if kind == "nan":
        return ["NaN", -2.5] if data_type.startswith("complex") else "NaN"
    if data_type == "bool":
        return True
    if data_type.startswith("complex"):
        return [1.5, -2.25]
    if data_type.startswith("float"):
        return -0.0 if data_type == "float16" else 3.25
    return 7 if data_type.startswith("u") else -3


def _scalar(value: Any) -> Any:
    """A fill value's JSON as a Python number (``"NaN"`` as NaN, ``[re, im]`` complex)."""
    if isinstance(value, list):
        return complex(_scalar(value[0]), _scalar(value[1]))
    return float(value) if isinstance(value, str) else value


@dataclass(frozen=True)
class Case:
    """One layout: the metadata TensorStore creates it with, and its data type."""

    id: str
    zarr_format: int
    data_type: str
    metadata: JSON = field(hash=False)
    #: What a reader returns where nothing was written (zero for a Zarr v2 null fill value,
    #: as zarr-python and TensorStore read it).
    fill: Any = 0

    @property
    def dtype(self) -> np.dtype[Any]:
        return np.dtype(self.data_type)


def _v3(case_id: str, data_type: str, codecs: list[JSON], fill: str = "odd") -> Case:
    chunk = SHARDS if codecs[0]["name"] == "sharding_indexed" else CHUNKS
    metadata = {
        "shape": list(SHAPE),
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunk)}},
        "chunk_key_encoding": {"name": "default"},
        "data_type": data_type,
        "fill_value": _fill_v3(data_type, fill),
        "codecs": codecs,
    }
    fill_value = metadata["fill_value"]
    return Case(f"v3-{case_id}-{data_type}", 3, data_type, metadata, _scalar(fill_value))


def _v2(
    case_id: str,
    data_type: str,
    compressor: JSON | None,
    *,
    order: str = "C",
    endian: str = "<",
    separator: str = ".",
    fill: Any = 0,
) -> Case:
    code = V2_CODES[data_type]
    typestr = ("|" if np.dtype(data_type).itemsize == 1 else endian) + code
    value = 0 if fill is None else _scalar(fill)
    if fill is not None and data_type == "bool":
        fill = value = bool(fill)
    elif fill is not None and data_type.startswith("complex"):
        # Distinct parts; TensorStore takes a v2 complex fill value as base64 of its bytes.
        value = complex(value, -2.5)
        fill = base64.b64encode(np.array(value, typestr).tobytes()).decode()
    metadata = {
        "shape": list(SHAPE),
        "chunks": list(CHUNKS),
        "dtype": typestr,
        "compressor": compressor,
        "filters": None,
        "order": order,
        "fill_value": fill,
        "dimension_separator": separator,
    }
    return Case(f"v2-{case_id}-{typestr}-{order}", 2, data_type, metadata, value)


def _cases() -> list[Case]:
    cases = []
    for data_type in V3_TYPES:
        size = np.dtype(data_type).itemsize
        cases += [
            _v3("little-zstd", data_type, [_bytes("little"), ZSTD]),
            _v3("big-gzip", data_type, [_bytes("big"), GZIP]),
            _v3("big-sharded-end", data_type, _sharded([_bytes("big"), ZSTD], "end")),
            _v3(
                "transpose-big-blosc",
                data_type,
                [
                    {"name": "transpose", "configuration": {"order": [1, 0]}},
                    _bytes("big"),
                    _blosc("lz4", "shuffle", size),
                ],
            ),
            _v2("zlib", data_type, {"id": "zlib", "level": 1}, endian=">", order="F"),
            _v2(
                "blosc",
                data_type,
                {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0},
            ),
        ]
    for data_type in ("float32", "complex128", "int16"):
        size = np.dtype(data_type).itemsize
        for cname, shuffle in [
            ("blosclz", "noshuffle"),
            ("lz4hc", "bitshuffle"),
            ("zlib", "shuffle"),
            ("zstd", "bitshuffle"),
            ("lz4", "noshuffle"),
        ]:
            cases.append(
                _v3(
                    f"blosc-{cname}-{shuffle}",
                    data_type,
                    [
                        _bytes("little"),
                        _blosc(cname, shuffle, size),
                    ],
                )
            )
        cases += [
            _v3(
                "gzip9-crc32c",
                data_type,
                [_bytes("big"), {"name": "gzip", "configuration": {"level": 9}}, CRC32C],
            ),
            _v3(
                "zstd-checksum",
                data_type,
                [
                    _bytes("little"),
                    {"name": "zstd", "configuration": {"level": 5, "checksum": True}},
                ],
            ),
            _v3("raw", data_type, [_bytes("big")], fill="zero"),
            _v3("sharded-start", data_type, _sharded([_bytes("little"), GZIP], "start")),
            _v3(
                "sharded-transpose",
                data_type,
                _sharded(
                    [
                        {"name": "transpose", "configuration": {"order": [1, 0]}},
                        _bytes("big"),
                        CRC32C,
                    ],
                    "start",
                ),
            ),
        ]
        for endian in "<>":
            for order in "CF":
                cases += [
                    _v2(
                        "gzip",
                        data_type,
                        {"id": "gzip", "level": 5},
                        order=order,
                        endian=endian,
                        separator="/",
                    ),
                    _v2("zstd", data_type, {"id": "zstd", "level": 1}, order=order, endian=endian),
                    _v2("none", data_type, None, order=order, endian=endian, fill=None),
                ]
        cases.append(_v2("bz2", data_type, {"id": "bz2", "level": 5}, endian=">"))
        cases.append(_v2("zstd19", data_type, {"id": "zstd", "level": 19}, endian=">"))
    for data_type in ("float16", "float32", "float64", "complex64", "complex128"):
        cases.append(_v3("nan-fill", data_type, [_bytes("big"), ZSTD], fill="nan"))
        cases.append(_v2("nan-fill", data_type, {"id": "zlib", "level": 1}, fill="NaN"))
    return cases


CASES = _cases()


def _handed_back(case: Case, how: str = "read") -> str | None:
    """Why our pipeline leaves ``case`` to zarr-python's own code (reads, or writes ``how``),
    or ``None``."""
    if case.zarr_format == 2:
        nan_fill = case.dtype.kind == "f" and case.fill != case.fill
        big = case.metadata["dtype"][0] == ">"
        if how == "pipeline" and big and (nan_fill or case.dtype.kind == "c"):
            return (
                "writes of big-endian v2 arrays that skip empty chunks, with a NaN fill value "
                "or complex numbers: zarr-python's rule compares numbers"
            )
    if how == "pipeline" and case.dtype.kind == "c":
        return (
            "writes of complex numbers that skip empty chunks: zarr-python's rule compares "
            "values (0.0 equal to -0.0 in either part), which the runtime has no rule for"
        )
    return None


# -- values ------------------------------------------------------------------------------------


def _values(dtype: np.dtype[Any], seed: int) -> Array:
    """An array of ``SHAPE`` whose every element has distinct bytes (one random byte, then
    the next ones in turn) and, for complex types, distinct parts; bools are random."""
    rng = np.random.default_rng(seed)
    count = int(np.prod(SHAPE))
    if dtype.kind == "b":
        return rng.integers(0, 2, SHAPE).astype(bool)
    first = rng.integers(0, 256, (count, 1))
    raw = ((first + np.arange(dtype.itemsize)) % 256).astype(np.uint8)
    values = raw.reshape(-1).view(dtype.newbyteorder("<")).reshape(SHAPE)
    return values.astype(dtype.newbyteorder("="))


def _expected(case: Case, values: Array) -> Array:
    """What a reader must return: the region's values, the fill value elsewhere."""
    full = np.full(SHAPE, case.fill, dtype=values.dtype)
    full[REGION] = values[REGION]
    return full


def _bits(array: Array) -> bytes:
    """``array``'s elements as native-order bytes, C order (floats compared by their bits)."""
    data = np.asarray(array)
    return np.ascontiguousarray(data.astype(data.dtype.newbyteorder("="))).tobytes()


def _differences(got: Array, expected: Array) -> str:
    """How many elements differ and the first few, for a failure message."""
    size = expected.dtype.itemsize
    a = np.frombuffer(_bits(got), np.uint8).reshape(-1, size)
    b = np.frombuffer(_bits(expected), np.uint8).reshape(-1, size)
    wrong = np.nonzero((a != b).any(axis=1))[0]
    flat_got, flat_expected = np.asarray(got).reshape(-1), expected.reshape(-1)
    first = ", ".join(f"[{i}] {flat_got[i]!r} != {flat_expected[i]!r}" for i in wrong[:3])
    return f"{len(wrong)} of {expected.size} elements differ: {first}"


def _assert_same(got: Array, expected: Array, what: str) -> None:
    assert np.shape(got) == expected.shape, what
    assert _bits(got) == _bits(expected), f"{what}: {_differences(got, expected)}"


# -- the two implementations -------------------------------------------------------------------


def _ts_spec(case: Case, path: Path, *, create: bool) -> JSON:
    spec: JSON = {
        "driver": "zarr3" if case.zarr_format == 3 else "zarr",
        "kvstore": {"driver": "file", "path": str(path)},
    }
    if create:
        spec.update(metadata=case.metadata, create=True, delete_existing=True)
    return spec


def _ts_create(case: Case, path: Path) -> Any:
    return ts.open(_ts_spec(case, path, create=True)).result()


def _ts_read(path: Path, case: Case) -> Array:
    return np.asarray(ts.open(_ts_spec(case, path, create=False)).result().read().result())


def _zarr_read(path: Path, how: str) -> tuple[Array, dict[str, int]]:
    """The whole array read by zarr-python: ``"zarr"`` its own codecs and pipeline,
    ``"codecs"`` our codecs in its pipeline, ``"pipeline"`` ours throughout; and what our
    runtime counted."""
    zarr_codecs.reset_usage()
    if how == "zarr":
        return zarr.open_array(path, mode="r")[...], zarr_codecs.usage()
    with zarr_codecs.install(pipeline=how == "pipeline"):
        return zarr.open_array(path, mode="r")[...], zarr_codecs.usage()


def _zarr_write(path: Path, values: Array, how: str) -> dict[str, int]:
    """zarr-python writes the region: ``"codecs"`` with our codecs in its pipeline,
    ``"pipeline"`` with ours throughout, ``"pipeline-empty"`` the same with
    ``write_empty_chunks`` (every chunk stored, so the runtime takes complex numbers too)."""
    zarr_codecs.reset_usage()
    config = {"write_empty_chunks": how == "pipeline-empty"}
    with zarr_codecs.install(pipeline=how != "codecs"):
        zarr.open_array(path, mode="r+", config=config)[REGION] = values[REGION]
        return zarr_codecs.usage()


# -- the tests ---------------------------------------------------------------------------------


def _seed(case: Case) -> int:
    return sum(case.id.encode()) * 31 + len(case.id)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_tensorstore_writes_we_read(case: Case, tmp_path: Path) -> None:
    """What TensorStore writes reads exactly with our codecs and our pipeline (and with
    zarr-python's own, which checks the expectation)."""
    path = tmp_path / "array"
    values = _values(case.dtype, _seed(case))
    _ts_create(case, path)[REGION].write(values[REGION]).result()
    expected = _expected(case, values)
    _assert_same(_zarr_read(path, "zarr")[0], expected, f"{case.id}: zarr-python's own read")
    _assert_same(_zarr_read(path, "codecs")[0], expected, f"{case.id}: our codecs' read")
    got, counts = _zarr_read(path, "pipeline")
    _assert_same(got, expected, f"{case.id}: our pipeline's read")
    reason = _handed_back(case)
    if reason is None:
        assert counts["runtime_read"] > 0 and counts["zarr_read"] == 0, (case.id, counts)
    else:
        assert counts["runtime_read"] == 0, f"{case.id} runs in our runtime now: {counts}"


@pytest.mark.parametrize("how", ["codecs", "pipeline", "pipeline-empty"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_we_write_tensorstore_reads(case: Case, how: str, tmp_path: Path) -> None:
    """What zarr-python writes with our codecs or our pipeline, into an array TensorStore
    created, TensorStore reads exactly."""
    path = tmp_path / "array"
    _ts_create(case, path)
    values = _values(case.dtype, _seed(case) + 1)
    counts = _zarr_write(path, values, how)
    expected = _expected(case, values)
    _assert_same(_ts_read(path, case), expected, f"{case.id}: TensorStore reads ours ({how})")
    if how != "codecs" and _handed_back(case, how) is None:
        assert counts["runtime_written"] > 0 and counts["zarr_written"] == 0, (case.id, counts)
    elif how != "codecs":
        assert counts["runtime_written"] == 0, f"{case.id} runs in our runtime now: {counts}"


def test_the_complex_parts_keep_their_places() -> None:
    """The values of every test here have distinct real and imaginary parts (a swap of the two
    would show), and every element has distinct bytes (any byte order mistake would show)."""
    for name in ("complex64", "complex128"):
        values = _values(np.dtype(name), 1)
        assert not np.any(values.real == values.imag)
    for name in V3_TYPES[1:]:
        raw = np.frombuffer(_bits(_values(np.dtype(name), 2)), np.uint8)
        elements = raw.reshape(-1, np.dtype(name).itemsize)
        assert all(len(set(row)) == len(row) for row in elements.tolist())


# -- types zarr-python does not open: TensorStore against our runtime's Chain ----------------

#: Data types TensorStore and we both have that zarr-python refuses in v3 metadata (sub-byte
#: integers are stored a byte per element by both).
SMALL_TYPES = (
    "bfloat16", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
    "int4", "int2",
)  # fmt: skip
SMALL_CHAINS = {
    "big-zstd": [_bytes("big"), ZSTD],
    "little-gzip-crc32c": [_bytes("little"), GZIP, CRC32C],
    "sharded": [
        {
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": [4],
                "codecs": [_bytes("big"), ZSTD],
                "index_codecs": [_bytes("little"), CRC32C],
                "index_location": "start",
            },
        }
    ],
}


def _small_values(name: str) -> Array:
    """Every bit pattern of a one-byte type (each once), or distinct-byte bfloat16s, as the
    ml_dtypes type; sub-byte integers over their whole range."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    dtype = np.dtype(getattr(ml_dtypes, name))
    if name in ("int4", "int2"):
        low, high = (-8, 8) if name == "int4" else (-2, 2)
        return np.resize(np.arange(low, high), 64).astype(dtype)
    if dtype.itemsize == 1:
        return np.arange(256, dtype=np.uint8)[:64].view(dtype).copy()
    first = np.random.default_rng(7).integers(0, 256, (64, 1))
    raw = ((first + np.arange(2)) % 256).astype(np.uint8)
    return raw.reshape(-1).view("<u2").astype(np.uint16).view(dtype)


@pytest.mark.parametrize("chain", SMALL_CHAINS)
@pytest.mark.parametrize("name", SMALL_TYPES)
def test_small_types_with_tensorstore(name: str, chain: str, tmp_path: Path) -> None:
    """TensorStore writes, our runtime decodes every stored chunk (and the other way round),
    bit for bit: the small float types and sub-byte integers zarr-python cannot open."""
    from zarr_codec_runtime import Chain
    from zarr_codec_shapes import ChunkSpec

    values = _small_values(name)
    chunk = 16 if chain == "sharded" else 8
    codecs = SMALL_CHAINS[chain]
    metadata = {
        "shape": [len(values)],
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [chunk]}},
        "chunk_key_encoding": {"name": "default"},
        "data_type": name,
        "fill_value": 0,
        "codecs": codecs,
    }
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(tmp_path / "a")}}
    written = ts.open({**spec, "metadata": metadata, "create": True}).result()
    written[...].write(values).result()
    ours = Chain.from_json(codecs, ChunkSpec((chunk,), name))
    got = np.concatenate(
        [
            ours.decode((tmp_path / "a" / "c" / str(i)).read_bytes())
            for i in range(len(values) // chunk)
        ]
    )
    assert got.view(np.uint8).tobytes() == values.view(np.uint8).tobytes(), name
    # The other way: our chunks in place of TensorStore's, read back by TensorStore.
    for i in range(len(values) // chunk):
        part = values[i * chunk : (i + 1) * chunk][::-1].copy()
        (tmp_path / "a" / "c" / str(i)).write_bytes(bytes(ours.encode(part)))
    reread = np.asarray(ts.open(spec).result().read().result())
    expected = values.reshape(-1, chunk)[:, ::-1].reshape(-1)
    assert reread.view(np.uint8).tobytes() == expected.view(np.uint8).tobytes(), name
