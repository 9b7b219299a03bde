"""Every writer x every reader, for every codec of the bundle, in Zarr v2 and v3.

Writers and readers are: ours (``zarr_codecs.install()``), zarr-python's built-ins (zarr's
config naming its own classes; in v2 that is numcodecs' registry) and numcodecs alone (chunk
files encoded or decoded here with numcodecs' codec objects, built from the stored metadata,
zarr only creating the metadata). Codecs: gzip, blosc (two cname/shuffle settings, typesize
from the encoded item size), zstd (level 3 with checksums), crc32c and fixedscaleoffset (v2
filter ``fixedscaleoffset``, v3 ``numcodecs.fixedscaleoffset``; float and integer dtypes) in
both formats; cast_value and scale_offset in v3 only (numcodecs has neither, so those cells do
not exist).

Each cell reads the whole array and compares it by bytes with an independent expectation
(the source, or numpy/numcodecs computing the lossy codec). Per codec and format the stored
chunks are compared across writers: the same metadata and chunk keys, the same payloads under
the compressor, and the same compressed bytes where that holds (blosc everywhere here; gzip
only between zarr's built-in and numcodecs, ours being libdeflate, and only past the header's
mtime). The arrays are 64 KiB and chunked (48, 40), so edge chunks are partial.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zarr_codecs = pytest.importorskip("zarr_codecs")

from zarr.storage import LocalStore  # noqa: E402
from zarr_codecs_bench import datasets  # noqa: E402

Array = npt.NDArray[Any]
JSON = dict[str, Any]

SIZE = 64 * 1024
CHUNKS = (48, 40)  # partial edge chunks on every dataset's shape
WRITERS = READERS = ("ours", "zarr", "numcodecs")

#: zarr-python's own classes, named explicitly: a third-party ``cast-value`` package in this
#: environment registers another ``cast_value`` implementation.
BUILTIN: dict[str, str] = {
    "gzip": "zarr.codecs.gzip.GzipCodec",
    "blosc": "zarr.codecs.blosc.BloscCodec",
    "zstd": "zarr.codecs.zstd.ZstdCodec",
    "crc32c": "zarr.codecs.crc32c_.Crc32cCodec",
    "cast_value": "zarr.codecs.cast_value.CastValue",
    "scale_offset": "zarr.codecs.scale_offset.ScaleOffset",
    "numcodecs.fixedscaleoffset": "zarr.codecs.numcodecs.FixedScaleOffset",
}
#: numcodecs' own classes by v2 id, not its registry (which ours may replace).
NUMCODECS: dict[str, Any] = {
    "gzip": numcodecs.GZip,
    "blosc": numcodecs.Blosc,
    "zstd": numcodecs.Zstd,
    "crc32c": numcodecs.CRC32C,
    "fixedscaleoffset": numcodecs.FixedScaleOffset,
}
SHUFFLE_IDS = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}


@dataclass
class Case:
    """One codec setting on one dataset: its v3 filters and compressor, and the v2 ones
    (``None``: v3 only), the fill value, and the decoded values expected from the source."""

    id: str
    dataset: str
    v3_filters: list[JSON]
    v3_compressor: JSON
    v2_filters: list[JSON] | None
    v2_compressor: JSON | None
    expected: Callable[[Array], Array] = field(default=lambda a: a)
    fill: float = 0

    @property
    def formats(self) -> tuple[int, ...]:
        return (2, 3) if self.v2_compressor is not None else (3,)

    @property
    def numcodecs_has_it(self) -> bool:
        return self.v2_compressor is not None


def _itemsize(name: str) -> int:
    return datasets.DATASETS[name].dtype.itemsize


def _gzip(level: int) -> tuple[JSON, JSON]:
    return {"name": "gzip", "configuration": {"level": level}}, {"id": "gzip", "level": level}


def _blosc(cname: str, shuffle: str, typesize: int, clevel: int = 5) -> tuple[JSON, JSON]:
    v3 = {"cname": cname, "clevel": clevel, "shuffle": shuffle, "typesize": typesize}
    v2 = {"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": SHUFFLE_IDS[shuffle]}
    return {"name": "blosc", "configuration": {**v3, "blocksize": 0}}, {**v2, "blocksize": 0}


def _zstd(level: int) -> tuple[JSON, JSON]:
    # With checksums: zarr writes `"checksum": false` where the spec says to leave it out,
    # and the matrix compares metadata across writers.
    config = {"level": level, "checksum": True}
    return {"name": "zstd", "configuration": config}, {"id": "zstd", **config}


def _fixedscaleoffset(
    dataset: str, offset: float, scale: float, astype: str, compressor: Any
) -> Case:
    dtype = datasets.DATASETS[dataset].dtype.str
    config = {"offset": offset, "scale": scale, "dtype": dtype, "astype": astype}
    codec = numcodecs.FixedScaleOffset(**config)
    v3, v2 = compressor
    return Case(
        f"fixedscaleoffset-{astype[1:]}-{v3['name']}-{dataset}",
        dataset,
        [{"name": "numcodecs.fixedscaleoffset", "configuration": config}],
        v3,
        [{"id": "fixedscaleoffset", **config}],
        v2,
        lambda a: np.asarray(codec.decode(codec.encode(a))).reshape(a.shape),
    )


def _towards_zero_f32(a: Array) -> Array:
    """float64 -> float32 rounding towards zero, then back (exactly)."""
    near = a.astype(np.float32)
    over = np.abs(near.astype(np.float64)) > np.abs(a)
    near[over] = np.nextafter(near[over], np.float32(0))
    return near.astype(np.float64)


def _scale_offset(dataset: str, offset: float, scale: float, fill: float = 0) -> Case:
    dtype = datasets.DATASETS[dataset].dtype

    def expected(a: Array) -> Array:
        if dtype.kind == "f":  # the spec's arithmetic in the array's own type
            o, s = dtype.type(offset), dtype.type(scale)
            return np.asarray(((a - o) * s) / s + o, dtype=dtype)
        return a  # integers: exact division, lossless

    return Case(
        f"scale_offset-{dataset}",
        dataset,
        [{"name": "scale_offset", "configuration": {"offset": offset, "scale": scale}}],
        _gzip(5)[0],
        None,
        None,
        expected,
        fill,
    )


def _cast_value(dataset: str, config: JSON, expected: Callable[[Array], Array]) -> Case:
    return Case(
        f"cast_value-{config['data_type']}-{dataset}",
        dataset,
        [{"name": "cast_value", "configuration": config}],
        _gzip(1)[0],
        None,
        None,
        expected,
    )


def _cases() -> list[Case]:
    gzip_v3, gzip_v2 = _gzip(5)
    cases = [Case(f"gzip-{n}", n, [], gzip_v3, [], gzip_v2) for n in datasets.DATASETS]
    for cname, shuffle in (("lz4", "shuffle"), ("zstd", "bitshuffle")):
        for n in datasets.DATASETS:
            v3, v2 = _blosc(cname, shuffle, _itemsize(n))
            cases.append(Case(f"blosc-{cname}-{shuffle}-{n}", n, [], v3, [], v2))
    zstd_v3, zstd_v2 = _zstd(3)
    cases += [Case(f"zstd-{n}", n, [], zstd_v3, [], zstd_v2) for n in datasets.DATASETS]
    crc_v3, crc_v2 = {"name": "crc32c"}, {"id": "crc32c"}
    cases += [Case(f"crc32c-{n}", n, [], crc_v3, [], crc_v2) for n in datasets.DATASETS]
    cases += [
        _fixedscaleoffset("float32_field", 1.5, 1000, "<i2", _gzip(5)),
        _fixedscaleoffset("float64_field", 3, 100, "<i4", _zstd(3)),
        _fixedscaleoffset("float32_field", -17, 7, "|u1", _blosc("zstd", "bitshuffle", 1)),
        _fixedscaleoffset("float64_field", -2, 1e6, "<i4", _blosc("lz4", "shuffle", 4)),
        _fixedscaleoffset("float64_field", 0.25, 10, "<f4", _gzip(1)),
        # Integer dtypes: numpy's integer arithmetic, and float64 with a float scale.
        _fixedscaleoffset("int32_counts", 10, 3, "<i2", _gzip(5)),
        _fixedscaleoffset("uint8_image", 128, 0.5, "|i1", _blosc("lz4", "shuffle", 1)),
        _cast_value(
            "float32_field",
            {"data_type": "float16"},
            lambda a: a.astype(np.float16).astype(np.float32),
        ),
        _cast_value(
            "float64_field", {"data_type": "float32", "rounding": "towards-zero"}, _towards_zero_f32
        ),
        _cast_value("int32_counts", {"data_type": "uint8"}, lambda a: a),
        _cast_value("uint8_image", {"data_type": "int8", "out_of_range": "wrap"}, lambda a: a),
        _scale_offset("float32_field", 1.5, 4),
        _scale_offset("float64_field", 0.1, 3),
        _scale_offset("int32_counts", 20, 2),
        _scale_offset("uint8_image", 35, 1, fill=35),  # the fill value must encode too
    ]
    return cases


CASES = {case.id: case for case in _cases()}


def _cells() -> Iterator[Any]:
    for case in CASES.values():
        for zarr_format in case.formats:
            for writer, reader in itertools.product(WRITERS, READERS):
                if "numcodecs" in (writer, reader) and not case.numcodecs_has_it:
                    continue  # numcodecs has no such codec: no cell
                yield pytest.param(
                    case.id,
                    zarr_format,
                    writer,
                    reader,
                    id=f"{case.id}-v{zarr_format}-{writer}-{reader}",
                )


# -- choosing an implementation -----------------------------------------------------------------


@contextmanager
def _implementation(which: str) -> Iterator[None]:
    """Ours (everything :func:`zarr_codecs.install` replaces) or zarr's built-ins (and, for
    Zarr v2, numcodecs' stock registry)."""
    if which == "ours":
        with zarr_codecs.install():
            yield
        return
    assert not zarr_codecs.installed_parts()
    # The whole table: a dotted name set as "codecs.<name>" would become nested keys.
    with zarr.config.set({"codecs": {**zarr.config.get("codecs"), **BUILTIN}}):
        yield


def _codec_modules(array: Any) -> list[str]:
    """The modules of the classes zarr resolved for the array's codecs (``bytes`` aside)."""
    meta = array.metadata
    if meta.zarr_format == 2:
        codecs = [*(meta.filters or ()), meta.compressor]
    else:
        codecs = [c for c in meta.codecs if not isinstance(c, zarr.codecs.BytesCodec)]
    return [type(c).__module__ for c in codecs]


def _assert_implementation(array: Any, which: str) -> None:
    modules = _codec_modules(array)
    assert modules, "no codec to check"
    if which == "ours":
        assert all(m.startswith("zarr_codec") for m in modules), modules
    else:
        prefix = "numcodecs" if array.metadata.zarr_format == 2 else "zarr.codecs"
        assert all(m.startswith(prefix) for m in modules), modules


# -- numcodecs alone: chunk files in and out ----------------------------------------------------


@dataclass
class Layout:
    """What the stored metadata says, read without zarr: numcodecs codec objects, the chunk
    grid and the chunk file names."""

    zarr_format: int
    shape: tuple[int, ...]
    chunks: tuple[int, ...]
    dtype: np.dtype[Any]
    fill: Any
    filters: list[Any]
    compressor: Any

    @classmethod
    def read(cls, root: Path, *, payload_only: bool = False) -> Layout:
        """``payload_only``: skip filters numcodecs lacks (only :meth:`payload` is used)."""
        if (root / "zarr.json").exists():
            meta = json.loads((root / "zarr.json").read_text())
            filters, compressor = [], None
            for codec in meta["codecs"]:
                name, config = codec["name"], codec.get("configuration", {})
                if name == "bytes":
                    assert config.get("endian", "little") == "little"
                elif name == "numcodecs.fixedscaleoffset":
                    filters.append(numcodecs.FixedScaleOffset(**config))
                elif name == "gzip":
                    compressor = numcodecs.GZip(**config)
                elif name == "zstd":
                    compressor = numcodecs.Zstd(**config)
                elif name == "crc32c":
                    compressor = numcodecs.CRC32C()
                elif name == "blosc":
                    config = {**config, "shuffle": SHUFFLE_IDS[config["shuffle"]]}
                    compressor = numcodecs.Blosc(**config)
                elif not payload_only:
                    raise AssertionError(f"numcodecs has no {name}")
            grid = meta["chunk_grid"]["configuration"]["chunk_shape"]
            dtype = np.dtype(meta["data_type"])
            return cls(
                3, tuple(meta["shape"]), tuple(grid), dtype, meta["fill_value"], filters, compressor
            )
        meta = json.loads((root / ".zarray").read_text())
        filters = [_numcodecs_codec(f) for f in meta["filters"] or ()]
        compressor = _numcodecs_codec(meta["compressor"])
        return cls(
            2, tuple(meta["shape"]), tuple(meta["chunks"]), np.dtype(meta["dtype"]),
            meta["fill_value"], filters, compressor,
        )  # fmt: skip

    def grid(self) -> Iterator[tuple[tuple[int, ...], tuple[slice, ...]]]:
        counts = [math.ceil(s / c) for s, c in zip(self.shape, self.chunks, strict=True)]
        for index in itertools.product(*map(range, counts)):
            region = tuple(
                slice(i * c, min((i + 1) * c, s))
                for i, c, s in zip(index, self.chunks, self.shape, strict=True)
            )
            yield index, region

    def file(self, root: Path, index: tuple[int, ...]) -> Path:
        if self.zarr_format == 3:
            return root.joinpath("c", *map(str, index))
        return root / ".".join(map(str, index))

    def encode(self, chunk: Array) -> bytes:
        """A full chunk as zarr stores it: v2 filters then compressor on the array; v3 filters,
        ``bytes`` (little endian, C order), then the compressor on the bytes."""
        encoded: Any = chunk
        for f in self.filters:
            encoded = np.asarray(f.encode(encoded)).reshape(chunk.shape)
        if self.zarr_format == 3:
            encoded = np.frombuffer(_little_endian_bytes(encoded), np.uint8)
        return bytes(self.compressor.encode(np.ascontiguousarray(encoded)))

    def payload(self, stored: bytes) -> bytes:
        """The compressor undone: the filters' output, as stored."""
        return bytes(self.compressor.decode(stored))

    def decode(self, stored: bytes) -> Array:
        decoded: Any = self.payload(stored)
        if self.zarr_format == 3:
            encoded_dtype = np.dtype(self.filters[-1].astype) if self.filters else self.dtype
            decoded = np.frombuffer(decoded, encoded_dtype.newbyteorder("<"))
        for f in reversed(self.filters):
            decoded = f.decode(decoded)
        return np.frombuffer(np.ascontiguousarray(decoded), self.dtype).reshape(self.chunks)


def _numcodecs_codec(config: JSON) -> Any:
    """numcodecs' own class for a v2 codec config (``id`` included)."""
    return NUMCODECS[config["id"]](**{k: v for k, v in config.items() if k != "id"})


def _little_endian_bytes(array: Array) -> bytes:
    return np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()


def _numcodecs_write(root: Path, data: Array) -> None:
    layout = Layout.read(root)
    assert layout.compressor.__module__.startswith("numcodecs.")
    for index, region in layout.grid():
        chunk = np.full(layout.chunks, layout.fill, layout.dtype)
        chunk[tuple(slice(0, r.stop - r.start) for r in region)] = data[region]
        path = layout.file(root, index)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(layout.encode(chunk))


def _numcodecs_read(root: Path) -> Array:
    layout = Layout.read(root)
    out = np.empty(layout.shape, layout.dtype)
    for index, region in layout.grid():
        chunk = layout.decode(layout.file(root, index).read_bytes())
        out[region] = chunk[tuple(slice(0, r.stop - r.start) for r in region)]
    return out


# -- writing and reading --------------------------------------------------------------------------


def _create(root: Path, case: Case, data: Array, zarr_format: int, which: str) -> Any:
    """The array's metadata, with the codecs of ``which`` (numcodecs: zarr's built-ins)."""
    common: dict[str, Any] = {
        "shape": data.shape,
        "chunks": CHUNKS,
        "dtype": data.dtype,
        "fill_value": case.fill,
        "zarr_format": zarr_format,
    }
    if zarr_format == 3:
        return zarr.create_array(
            LocalStore(root), filters=case.v3_filters, compressors=[case.v3_compressor], **common
        )
    # v2 takes codec objects: numcodecs' registry gives ours when installed, else its own.
    assert case.v2_filters is not None and case.v2_compressor is not None
    filters = [numcodecs.get_codec(dict(f)) for f in case.v2_filters]
    compressor = numcodecs.get_codec(dict(case.v2_compressor))
    return zarr.create_array(LocalStore(root), filters=filters, compressors=compressor, **common)


def _write(root: Path, case: Case, data: Array, zarr_format: int, writer: str) -> None:
    with _implementation("ours" if writer == "ours" else "zarr"):
        array = _create(root, case, data, zarr_format, writer)
        _assert_implementation(array, writer)
        if writer == "numcodecs":
            _numcodecs_write(root, data)
        else:
            array[...] = data


def _read(root: Path, reader: str) -> Array:
    if reader == "numcodecs":
        return _numcodecs_read(root)
    with _implementation(reader):
        array = zarr.open_array(LocalStore(root), mode="r")
        _assert_implementation(array, reader)
        values: Array = array[...]
        return values


@pytest.fixture(scope="module", autouse=True)
def _numcodecs_blosc_single_threaded() -> Iterator[None]:
    """numcodecs' Blosc on several threads (its default in the main thread) may lay blocks out
    in any order; zarr switches that off on import, and the numcodecs writer here relies on it
    for chunks comparable byte for byte."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(numcodecs.blosc, "use_threads", False)
        yield


@pytest.fixture(scope="module")
def arrays() -> dict[str, Array]:
    return {name: datasets.load(name, SIZE) for name in datasets.DATASETS}


@pytest.fixture(scope="module")
def written(
    tmp_path_factory: pytest.TempPathFactory, arrays: dict[str, Array]
) -> Callable[[str, int, str], Path]:
    """Each (case, format, writer) array written once, on first use."""
    base = tmp_path_factory.mktemp("matrix")
    cache: dict[tuple[str, int, str], Path] = {}

    def get(case_id: str, zarr_format: int, writer: str) -> Path:
        key = (case_id, zarr_format, writer)
        if key not in cache:
            case = CASES[case_id]
            root = base / f"{case_id}-v{zarr_format}-{writer}.zarr"
            _write(root, case, arrays[case.dataset], zarr_format, writer)
            cache[key] = root
        return cache[key]

    return get


def _assert_same(values: Array, expected: Array, label: str) -> None:
    assert values.dtype == expected.dtype and values.shape == expected.shape, label
    if values.tobytes() != expected.tobytes():
        differ = int(np.sum(values.view(np.uint8) != expected.view(np.uint8)))
        raise AssertionError(f"{label}: {differ} bytes differ")


# -- the matrix -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("case_id", "zarr_format", "writer", "reader"), list(_cells()))
def test_cell(
    written: Callable[[str, int, str], Path],
    arrays: dict[str, Array],
    case_id: str,
    zarr_format: int,
    writer: str,
    reader: str,
) -> None:
    """What ``writer`` stored, ``reader`` decodes to exactly the expected values."""
    case = CASES[case_id]
    expected = case.expected(arrays[case.dataset])
    values = _read(written(case_id, zarr_format, writer), reader)
    _assert_same(values, expected, f"{writer} -> {reader}")


def test_the_matrix_is_complete() -> None:
    """Every codec in both formats (cast_value and scale_offset: v3 only), on every dataset
    it applies to; no cell that involves numcodecs for a codec it lacks."""
    cells = [tuple(p.values) for p in _cells()]
    datasets_of: dict[tuple[str, int], set[str]] = {}
    for case_id, zarr_format, _, _ in cells:
        key = (str(case_id).split("-")[0], int(zarr_format))
        datasets_of.setdefault(key, set()).add(CASES[str(case_id)].dataset)
    all_four = set(datasets.DATASETS)
    assert datasets_of == {
        **{(codec, f): all_four for codec in ("gzip", "blosc", "zstd", "crc32c") for f in (2, 3)},
        **{("fixedscaleoffset", f): all_four for f in (2, 3)},
        ("cast_value", 3): all_four,
        ("scale_offset", 3): all_four,
    }
    v3_only = [c for c in cells if str(c[0]).startswith(("cast_value", "scale_offset"))]
    assert v3_only and all("numcodecs" not in c[2:] for c in v3_only)
    assert len(cells) == sum(
        len(case.formats) * (9 if case.numcodecs_has_it else 4) for case in CASES.values()
    )


def _stored(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in ("zarr.json", ".zarray", ".zattrs", ".zgroup")
    }


def _metadata(root: Path) -> JSON:
    name = "zarr.json" if (root / "zarr.json").exists() else ".zarray"
    meta: JSON = json.loads((root / name).read_text())
    return meta


def _without_mtime(gzip_member: bytes) -> bytes:
    return gzip_member[:4] + gzip_member[8:]


@pytest.mark.parametrize(
    ("case_id", "zarr_format"),
    [pytest.param(c.id, f, id=f"{c.id}-v{f}") for c in CASES.values() for f in c.formats],
)
def test_stored_chunks_across_writers(
    written: Callable[[str, int, str], Path], case_id: str, zarr_format: int
) -> None:
    """The same metadata and chunk keys from every writer; the same bytes under the
    compressor (edge chunks padded with the encoded fill value alike); and the same compressed
    bytes where the compressors agree: blosc (one c-blosc 1.21 on both sides, chunks well
    under the sizes where zstd builds diverge), zstd (libzstd 1.5.6 on both sides) and crc32c;
    gzip only zarr's built-in and numcodecs."""
    case = CASES[case_id]
    writers = WRITERS if case.numcodecs_has_it else ("ours", "zarr")
    roots = {w: written(case_id, zarr_format, w) for w in writers}
    metadata = {w: _metadata(r) for w, r in roots.items()}
    assert all(m == metadata["zarr"] for m in metadata.values()), metadata
    stored = {w: _stored(r) for w, r in roots.items()}
    layout = Layout.read(roots["zarr"], payload_only=True)
    expected_keys = {str(layout.file(Path(), index)) for index, _ in layout.grid()}
    assert all(set(s) == expected_keys for s in stored.values())
    for key in expected_keys:
        payloads = {w: layout.payload(s[key]) for w, s in stored.items()}
        assert all(p == payloads["zarr"] for p in payloads.values()), key
        if case.v3_compressor["name"] in ("blosc", "zstd", "crc32c"):
            assert all(s[key] == stored["zarr"][key] for s in stored.values()), key
        elif "numcodecs" in stored:  # zarr's built-in gzip is numcodecs': equal but the mtime
            assert _without_mtime(stored["numcodecs"][key]) == _without_mtime(
                stored["zarr"][key]
            ), key


#: a valid configuration for each v2 id we replace
_V2_MINIMAL: dict[str, JSON] = {
    "gzip": {},
    "blosc": {},
    "zstd": {},
    "crc32c": {},
    "fixedscaleoffset": {"offset": 0, "scale": 1, "dtype": "<f8"},
}


def test_install_leaves_zarr_and_numcodecs_as_they_were() -> None:
    """The matrix switches implementations per cell: installing and uninstalling must restore
    zarr's codec table and numcodecs' registry exactly (a leftover would leak into the
    "zarr"/"numcodecs" cells)."""
    before_config = json.dumps(zarr.config.get("codecs"), sort_keys=True)
    before_ids = {i: type(numcodecs.get_codec({"id": i, **_V2_MINIMAL[i]})) for i in _V2_MINIMAL}
    with zarr_codecs.install():
        selected = zarr.config.get("codecs")
        assert "numcodecs" not in selected  # "numcodecs.fixedscaleoffset" stays one flat key
        for name in BUILTIN:
            assert selected[name].startswith("zarr_codec"), name
            assert zarr.registry.get_codec_class(name).__module__.startswith("zarr_codec"), name
        for i in _V2_MINIMAL:
            assert type(numcodecs.get_codec({"id": i, **_V2_MINIMAL[i]})).__module__.startswith(
                "zarr_codec"
            )
    assert json.dumps(zarr.config.get("codecs"), sort_keys=True) == before_config
    assert all(not p.startswith("zarr_codec") for p in zarr.config.get("codecs").values())
    after_ids = {i: type(numcodecs.get_codec({"id": i, **_V2_MINIMAL[i]})) for i in _V2_MINIMAL}
    assert after_ids == before_ids == {i: NUMCODECS[i] for i in _V2_MINIMAL}
