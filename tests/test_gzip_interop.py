"""zarr-codec-gzip against the other gzip implementations and inside zarr-python 3.4.

* Byte streams: numcodecs' ``GZip``, Python's ``gzip``, libdeflate (``deflate``) and ISA-L
  (``isal``) read what we write, and we read what they write, bit-exactly, on the benchmark
  datasets at levels 0, 1, 5 and 9.
* Zarr v3: arrays written by zarr's built-in ``GzipCodec`` read through ours and vice versa,
  chosen with ``zarr.config`` (``codecs.gzip``); chunks we write are exactly ``Gzip.encode``.
* Zarr v2: the same through numcodecs' registry (``zarr_codec_gzip.numcodecs.register()``).
* Installing the wheel changes nothing by default: zarr's config still names its built-in.
"""

from __future__ import annotations

import gzip
import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `pytest` (unlike `python -m pytest`) does not add the root
    sys.path.insert(0, str(ROOT))

from zarr_codec_gzip import Gzip  # noqa: E402
from zarr_codec_gzip import numcodecs as gzip_numcodecs  # noqa: E402
from zarr_codec_gzip.zarr_python import GzipCodec  # noqa: E402
from zarr_codecs_bench import datasets  # noqa: E402

SIZE = 1 << 20
LEVELS = [0, 1, 5, 9]
DATASETS = list(datasets.DATASETS)

OURS = "zarr_codec_gzip.zarr_python.GzipCodec"
BUILTIN = "zarr.codecs.gzip.GzipCodec"


@pytest.fixture(scope="module")
def arrays() -> dict[str, np.ndarray[Any, Any]]:
    return {name: datasets.load(name, size_bytes=SIZE) for name in DATASETS}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts calls into our codec, to prove which implementation zarr used."""
    counts = {"encode": 0, "decode": 0, "decode_into": 0}
    for method in counts:
        original = getattr(Gzip, method)

        def spy(self: Gzip, *args: Any, _name: str = method, _orig: Any = original) -> Any:
            counts[_name] += 1
            return _orig(self, *args)

        monkeypatch.setattr(Gzip, method, spy)
    return counts


def _mtime(stream: bytes) -> int:
    return int.from_bytes(stream[4:8], "little")


# -- byte streams ----------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", DATASETS)
def test_we_read_numcodecs_gzip(arrays: dict[str, Any], name: str, level: int) -> None:
    data = arrays[name].tobytes()
    theirs = numcodecs.GZip(level).encode(arrays[name])
    assert _mtime(theirs) != 0  # numcodecs writes the time: not our encoder
    assert Gzip().decode(theirs) == data
    out = np.empty_like(arrays[name])
    assert Gzip().decode_into(theirs, out) == len(data)
    assert np.array_equal(out, arrays[name], equal_nan=True) and out.tobytes() == data


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", DATASETS)
def test_others_read_ours(arrays: dict[str, Any], name: str, level: int) -> None:
    deflate = pytest.importorskip("deflate")
    igzip = pytest.importorskip("isal.igzip")
    data = arrays[name].tobytes()
    ours = Gzip(level).encode(arrays[name])
    assert bytes(numcodecs.GZip().decode(ours)) == data
    out = np.empty_like(arrays[name])
    numcodecs.GZip().decode(ours, out=out)
    assert out.tobytes() == data
    assert gzip.decompress(ours) == data
    assert bytes(deflate.gzip_decompress(ours)) == data
    assert igzip.decompress(ours) == data


@pytest.mark.parametrize("level", LEVELS)
def test_we_read_libdeflate_isal_and_python(arrays: dict[str, Any], level: int) -> None:
    deflate = pytest.importorskip("deflate")
    igzip = pytest.importorskip("isal.igzip")
    for name in DATASETS:
        data = arrays[name].tobytes()
        if level:  # libdeflate's Python binding takes levels 1..12
            assert Gzip().decode(deflate.gzip_compress(data, level)) == data
        assert Gzip().decode(igzip.compress(data, min(level, 3))) == data  # ISA-L: 0..3
        assert Gzip().decode(gzip.compress(data, level)) == data


def test_numcodecs_multi_member_and_concatenations(arrays: dict[str, Any]) -> None:
    parts = [arrays[name].tobytes()[:100_000] for name in DATASETS]
    stream = b"".join(numcodecs.GZip(i % 10).encode(p) for i, p in enumerate(parts))
    stream += b"".join(Gzip(i).encode(p) for i, p in enumerate(parts))
    expected = b"".join(parts) * 2
    assert Gzip().decode(stream) == expected
    assert bytes(numcodecs.GZip().decode(stream)) == expected


# -- zarr v3 ---------------------------------------------------------------------------------


def _chunks_for(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (shape[0] // 4, shape[1] // 2)


def _chunk_index(i: int, j: int, chunks: tuple[int, ...]) -> tuple[slice, slice]:
    return (slice(i * chunks[0], (i + 1) * chunks[0]), slice(j * chunks[1], (j + 1) * chunks[1]))


def _chunk_files_v3(root: Path, shape: tuple[int, ...], chunks: tuple[int, ...]) -> Iterator[Any]:
    for i in range(shape[0] // chunks[0]):
        for j in range(shape[1] // chunks[1]):
            index = _chunk_index(i, j, chunks)
            yield root / "c" / str(i) / str(j), index


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", DATASETS)
def test_v3_builtin_written_read_by_ours(
    tmp_path: Path, arrays: dict[str, Any], calls: dict[str, int], name: str, level: int
) -> None:
    data = arrays[name]
    path = tmp_path / "a.zarr"
    with zarr.config.set({"codecs.gzip": BUILTIN}):
        arr = zarr.create_array(
            zarr.storage.LocalStore(path),
            shape=data.shape,
            chunks=_chunks_for(data.shape),
            dtype=data.dtype,
            compressors=[zarr.codecs.GzipCodec(level=level)],
        )
        arr[:] = data
    assert calls == {"encode": 0, "decode": 0, "decode_into": 0}, "zarr's built-in wrote it"
    meta = json.loads((path / "zarr.json").read_text())
    assert meta["codecs"][-1] == {"name": "gzip", "configuration": {"level": level}}
    first = (path / "c" / "0" / "0").read_bytes()
    assert _mtime(first) != 0  # numcodecs' GZip (behind zarr's built-in) writes the time

    with zarr.config.set({"codecs.gzip": OURS}):
        reopened = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
        assert type(reopened.compressors[0]) is GzipCodec
        assert reopened.compressors[0].codec == Gzip(level)
        values = reopened[:]
    assert calls["decode"] == 8, "our codec decoded every chunk"
    assert values.dtype == data.dtype and values.tobytes() == data.tobytes()


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", DATASETS)
def test_v3_ours_written_read_by_builtin(
    tmp_path: Path, arrays: dict[str, Any], calls: dict[str, int], name: str, level: int
) -> None:
    data = arrays[name]
    path = tmp_path / "a.zarr"
    chunks = _chunks_for(data.shape)
    with zarr.config.set({"codecs.gzip": OURS}):
        arr = zarr.create_array(
            zarr.storage.LocalStore(path),
            shape=data.shape,
            chunks=chunks,
            dtype=data.dtype,
            compressors=[GzipCodec(level=level)],
        )
        arr[:] = data
    assert calls["encode"] == 8
    meta = json.loads((path / "zarr.json").read_text())
    assert meta["codecs"][-1] == {"name": "gzip", "configuration": {"level": level}}
    for chunk_file, index in _chunk_files_v3(path, data.shape, chunks):
        chunk_bytes = np.ascontiguousarray(data[index]).astype(data.dtype.newbyteorder("<"))
        assert chunk_file.read_bytes() == Gzip(level).encode(chunk_bytes.tobytes()), chunk_file

    calls.update(encode=0, decode=0)
    with zarr.config.set({"codecs.gzip": BUILTIN}):
        reopened = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
        assert type(reopened.compressors[0]) is zarr.codecs.GzipCodec
        values = reopened[:]
    assert calls == {"encode": 0, "decode": 0, "decode_into": 0}, "zarr's built-in read it"
    assert values.dtype == data.dtype and values.tobytes() == data.tobytes()


def test_v3_partial_chunks_and_fill_value(tmp_path: Path, calls: dict[str, int]) -> None:
    """Edge chunks, unwritten chunks and a sharded array, both ways."""
    data = np.arange(37 * 23, dtype=">i8").reshape(37, 23)  # a big-endian input
    for writer, reader in ((OURS, BUILTIN), (BUILTIN, OURS)):
        path = tmp_path / f"{writer.split('.')[0]}.zarr"
        with zarr.config.set({"codecs.gzip": writer}):
            arr = zarr.create_array(
                zarr.storage.LocalStore(path),
                shape=(50, 23),
                chunks=(8, 5),
                shards=(16, 10),
                dtype="int64",
                fill_value=-7,
                compressors=[zarr.registry.get_codec_class("gzip")(level=3)],
            )
            arr[:37] = data
        with zarr.config.set({"codecs.gzip": reader}):
            values = zarr.open_array(zarr.storage.LocalStore(path), mode="r")[:]
        assert (values[:37] == data).all() and (values[37:] == -7).all()
    assert calls["encode"] > 0 and calls["decode"] > 0


# -- zarr v2 through numcodecs ---------------------------------------------------------------


@pytest.fixture
def registered() -> Iterator[None]:
    gzip_numcodecs.register()
    try:
        yield
    finally:
        gzip_numcodecs.unregister()
    assert type(numcodecs.get_codec({"id": "gzip"})) is numcodecs.GZip


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", DATASETS)
def test_v2_numcodecs_written_read_by_ours(
    tmp_path: Path, arrays: dict[str, Any], calls: dict[str, int], name: str, level: int
) -> None:
    data = arrays[name]
    path = tmp_path / "a.zarr"
    arr = zarr.create_array(
        zarr.storage.LocalStore(path),
        shape=data.shape,
        chunks=_chunks_for(data.shape),
        dtype=data.dtype,
        zarr_format=2,
        compressors=numcodecs.GZip(level),
    )
    arr[:] = data
    assert sum(calls.values()) == 0
    assert json.loads((path / ".zarray").read_text())["compressor"] == {
        "id": "gzip",
        "level": level,
    }

    gzip_numcodecs.register()
    try:
        reopened = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
        assert type(reopened.metadata.compressor) is gzip_numcodecs.GZip
        values = reopened[:]
    finally:
        gzip_numcodecs.unregister()
    assert calls["decode"] + calls["decode_into"] == 8
    assert values.dtype == data.dtype and values.tobytes() == data.tobytes()


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", DATASETS)
def test_v2_ours_written_read_by_numcodecs(
    tmp_path: Path, arrays: dict[str, Any], calls: dict[str, int], name: str, level: int
) -> None:
    data = arrays[name]
    path = tmp_path / "a.zarr"
    chunks = _chunks_for(data.shape)
    gzip_numcodecs.register()
    try:
        compressor = numcodecs.get_codec({"id": "gzip", "level": level})
        assert type(compressor) is gzip_numcodecs.GZip
        arr = zarr.create_array(
            zarr.storage.LocalStore(path),
            shape=data.shape,
            chunks=chunks,
            dtype=data.dtype,
            zarr_format=2,
            compressors=compressor,
        )
        arr[:] = data
    finally:
        gzip_numcodecs.unregister()
    assert calls["encode"] == 8
    meta = json.loads((path / ".zarray").read_text())
    assert meta["compressor"] == {"id": "gzip", "level": level}
    for i in range(4):
        for j in range(2):
            index = _chunk_index(i, j, chunks)
            expected = Gzip(level).encode(np.ascontiguousarray(data[index]).tobytes())
            assert (path / f"{i}.{j}").read_bytes() == expected

    calls.update(encode=0)
    reopened = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
    assert type(reopened.metadata.compressor) is numcodecs.GZip
    values = reopened[:]
    assert sum(calls.values()) == 0
    assert values.dtype == data.dtype and values.tobytes() == data.tobytes()


def test_v2_json_matches_numcodecs() -> None:
    for level in range(10):
        theirs = numcodecs.GZip(level).get_config()
        ours = gzip_numcodecs.GZip(level=level).get_config()
        assert ours == theirs == Gzip(level).to_json(2)
        assert type(numcodecs.get_codec(ours)) is numcodecs.GZip
        assert numcodecs.get_codec(ours).level == level
        assert gzip_numcodecs.GZip.from_config(dict(theirs)).codec == Gzip(level)
    assert gzip_numcodecs.GZip().codec == Gzip(1) == Gzip.from_json({"id": "gzip"}, 2)
    assert numcodecs.GZip().level == 1


def test_register_and_unregister_are_reversible(registered: None) -> None:
    assert type(numcodecs.get_codec({"id": "gzip", "level": 4})) is gzip_numcodecs.GZip
    gzip_numcodecs.register()  # twice is harmless
    gzip_numcodecs.unregister()
    assert type(numcodecs.get_codec({"id": "gzip"})) is numcodecs.GZip
    gzip_numcodecs.unregister()  # and so is unregistering twice
    assert type(numcodecs.get_codec({"id": "gzip"})) is numcodecs.GZip


# -- installing the wheel changes nothing by default -----------------------------------------


def test_zarr_default_config_still_picks_the_builtin() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        selected = zarr.registry.get_codec_class("gzip")
        selected_again = zarr.registry.get_codec_class("gzip", reload_config=True)
    assert selected is selected_again is zarr.codecs.GzipCodec
    assert zarr.config.get("codecs.gzip") == BUILTIN
    assert not [w for w in caught if "gzip" in str(w.message)], [str(w.message) for w in caught]
    # Both implementations are registered under the name; config decides.
    from zarr.registry import _codec_registries

    assert set(_codec_registries["gzip"]) == {BUILTIN, OURS}
    with zarr.config.set({"codecs.gzip": OURS}):
        assert zarr.registry.get_codec_class("gzip") is GzipCodec


def test_zarr_default_config_reads_and_writes_with_the_builtin(
    tmp_path: Path, calls: dict[str, int]
) -> None:
    data = np.arange(1000, dtype="float32").reshape(10, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning (e.g. "not configured") fails the test
        arr = zarr.create_array(
            zarr.storage.LocalStore(tmp_path / "a.zarr"),
            shape=data.shape,
            chunks=(5, 50),
            dtype="float32",
            compressors=[{"name": "gzip", "configuration": {"level": 5}}],
        )
        arr[:] = data
        reopened = zarr.open_array(zarr.storage.LocalStore(tmp_path / "a.zarr"), mode="r")
        assert type(reopened.compressors[0]) is zarr.codecs.GzipCodec
        assert (reopened[:] == data).all()
    assert sum(calls.values()) == 0
    assert type(numcodecs.get_codec({"id": "gzip"})) is numcodecs.GZip


def test_without_a_config_entry_zarr_warns_and_selects_ours() -> None:
    """zarr 3.4's behaviour with two implementations and no ``codecs.gzip`` entry.

    The default config always has the entry (so nothing changes by default), but a config that
    drops it (``{"codecs.gzip": None}``, or a replaced ``codecs`` mapping) makes zarr warn
    "Codec 'gzip' not configured in config. Selecting any implementation." and pick the last
    registered class, which is ours once our wheel is installed.
    """
    with (
        zarr.config.set({"codecs.gzip": None}),
        pytest.warns(UserWarning, match="Codec 'gzip' not configured in config"),
    ):
        selected = zarr.registry.get_codec_class("gzip")
    assert selected is GzipCodec


# -- adapter classes -------------------------------------------------------------------------


def test_zarr_adapter_class() -> None:
    from zarr.abc.codec import BytesBytesCodec

    assert BytesBytesCodec in GzipCodec.__mro__  # (issubclass would narrow the type for mypy)
    codec = GzipCodec(level=6)
    assert codec.to_dict() == zarr.codecs.GzipCodec(level=6).to_dict()
    assert GzipCodec.from_dict(zarr.codecs.GzipCodec(level=6).to_dict()) == codec
    with pytest.raises(ValueError, match="level"):
        GzipCodec(level=10)


def test_zarr_adapter_default_level_like_builtin() -> None:
    assert GzipCodec().to_dict() == zarr.codecs.GzipCodec().to_dict()


def test_numcodecs_adapter_positional_level_like_numcodecs() -> None:
    assert gzip_numcodecs.GZip(5).get_config() == numcodecs.GZip(5).get_config()
