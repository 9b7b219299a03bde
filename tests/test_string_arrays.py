"""String and bytes arrays through ``ChainCodecPipeline`` (``zarr_codecs._strings``): Zarr v3
``vlen-utf8`` / ``vlen-bytes`` arrays and Zarr v2 object arrays of numcodecs' ``VLenUTF8`` /
``VLenBytes``, against zarr-python's own pipeline with numcodecs' codecs.

Each case writes the same values twice, once with zarr-python and numcodecs alone and once with
``zarr_codecs.install(pipeline=True)``, and checks the same keys and bytes are stored, that each
side reads the other's array to the same values (in the data type zarr-python gives), and that
``usage()`` counts every chunk in the runtime, none handed back.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings(r"ignore:The data type \(VariableLengthBytes")

zarr = pytest.importorskip("zarr")

from stored import contents  # noqa: E402

zarr_codecs = pytest.importorskip("zarr_codecs")

from zarr.abc.store import Store  # noqa: E402
from zarr.core.buffer import default_buffer_prototype  # noqa: E402
from zarr.core.dtype import VariableLengthBytes  # noqa: E402
from zarr.storage import LocalStore, MemoryStore  # noqa: E402
from zarr_codec_shapes import CorruptInputError  # noqa: E402

WORDS = ["", "a", "zarr", "ünïcödé", "日本語のテキスト", "emoji 🙂", "x" * 300, "tab\tnew\nline"]


def _strings(shape: tuple[int, ...], seed: int) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(WORDS), size=shape)
    values = np.empty(shape, dtype=object)
    for index in np.ndindex(shape):
        values[index] = WORDS[picks[index]] + str(index[-1] if index else "")
    return values


def _bytes_values(shape: tuple[int, ...], seed: int) -> np.ndarray[Any, Any]:
    strings = _strings(shape, seed)
    out = np.empty(shape, dtype=object)
    for index in np.ndindex(shape):
        out[index] = strings[index].encode() + bytes([0, 255])[: index[-1] % 3 if index else 0]
    return out


@pytest.fixture(params=["memory", "local"])
def new_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], Store]:
    def make(name: str) -> Store:
        return MemoryStore() if request.param == "memory" else LocalStore(tmp_path / name)

    return make


def _contents(store: Store) -> dict[str, bytes]:
    return contents(store)


def _comparable(contents: dict[str, bytes]) -> dict[str, bytes]:
    """Stored keys and bytes, gzip members decompressed: zarr-python's gzip writes the time
    and its zlib's own deflate stream, neither of which decoders read."""
    return {
        key: gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        for key, data in contents.items()
    }


@pytest.fixture
def installed() -> Iterator[None]:
    zarr_codecs.uninstall()
    zarr_codecs.reset_usage()
    yield
    zarr_codecs.uninstall()


def _write_sequence(array: Any, values: np.ndarray[Any, Any]) -> None:
    """Whole, partial (across chunk edges), single-element and all-fill writes."""
    array[...] = values
    if values.ndim == 2:
        array[1:4, 2:7] = values[:3, :5][::-1]
        array[0:1, 0:1] = values[-1:, -1:]  # zarr-python 3.4.2 fails on a bytes scalar
        array[-3:, -2:] = array.fill_value if array.fill_value is not None else ""
    else:
        array[3:11] = values[:8][::-1]
        array[5:6] = values[-1:]


def _both_ways(
    make_array: Callable[[Store], Any], values: np.ndarray[Any, Any], stores: Any
) -> None:
    """The same writes through zarr-python alone and through ours: the same stored bytes,
    each read by the other, ours all in the runtime."""
    theirs_store, ours_store = stores("theirs"), stores("ours")
    _write_sequence(make_array(theirs_store), values)
    with zarr_codecs.install(pipeline=True):
        zarr_codecs.reset_usage()
        _write_sequence(make_array(ours_store), values)
        ours_read = zarr.open_array(ours_store)[...]
        theirs_read_by_ours = zarr.open_array(theirs_store)[...]
        used = zarr_codecs.usage()
    assert _comparable(_contents(ours_store)) == _comparable(_contents(theirs_store))
    theirs_read = zarr.open_array(theirs_store)[...]
    ours_read_by_theirs = zarr.open_array(ours_store)[...]
    assert ours_read.dtype == theirs_read.dtype
    np.testing.assert_array_equal(ours_read, theirs_read)
    np.testing.assert_array_equal(theirs_read_by_ours, theirs_read)
    np.testing.assert_array_equal(ours_read_by_theirs, theirs_read)
    assert used["zarr_read"] == used["zarr_written"] == 0, used
    assert used["runtime_read"] > 0 and used["runtime_written"] > 0, used


@pytest.mark.parametrize("compressors", ["auto", None, "gzip", "blosc"])
@pytest.mark.parametrize("shape", [(23,), (9, 13)])
def test_v3_string_arrays_match_zarr_python(
    installed: None, new_store: Callable[[str], Store], compressors: Any, shape: tuple[int, ...]
) -> None:
    chosen = {
        "auto": "auto",
        None: None,
        "gzip": zarr.codecs.GzipCodec(level=3),
        "blosc": zarr.codecs.BloscCodec(cname="lz4", clevel=5),
    }[compressors]
    chunks = (5,) if len(shape) == 1 else (4, 5)

    def make(store: Store) -> Any:
        return zarr.create_array(
            store, shape=shape, chunks=chunks, dtype=str, compressors=chosen, fill_value=""
        )

    _both_ways(make, _strings(shape, 1), new_store)


def test_v3_bytes_arrays_match_zarr_python(
    installed: None, new_store: Callable[[str], Store]
) -> None:
    def make(store: Store) -> Any:
        return zarr.create_array(store, shape=(9, 13), chunks=(4, 5), dtype=VariableLengthBytes())

    _both_ways(make, _bytes_values((9, 13), 2), new_store)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("compressor", [None, "zstd", "blosc"])
@pytest.mark.parametrize("kind", ["utf8", "bytes"])
def test_v2_object_arrays_match_zarr_python(
    installed: None, new_store: Callable[[str], Store], order: str, compressor: Any, kind: str
) -> None:
    import numcodecs

    chosen = {
        None: None,
        "zstd": numcodecs.Zstd(level=1),
        "blosc": numcodecs.Blosc(cname="zstd", shuffle=numcodecs.Blosc.SHUFFLE),
    }[compressor]
    object_codec = numcodecs.VLenUTF8() if kind == "utf8" else numcodecs.VLenBytes()
    values = _strings((9, 13), 3) if kind == "utf8" else _bytes_values((9, 13), 3)

    def make(store: Store) -> Any:
        return zarr.create_array(
            store,
            shape=(9, 13),
            chunks=(4, 5),
            dtype=str if kind == "utf8" else VariableLengthBytes(),
            zarr_format=2,
            order=order,
            filters=[object_codec],
            compressors=chosen,
            fill_value="" if kind == "utf8" else b"",
        )

    _both_ways(make, values, new_store)


def test_single_elements_are_written(installed: None) -> None:
    """A single element of a string and of a bytes array (zarr-python 3.4.2's own pipeline
    fails on the bytes one: numcodecs' encoder is handed a 0-d array)."""
    with zarr_codecs.install(pipeline=True):
        for dtype, value in ((str, "ü"), (VariableLengthBytes(), b"\x00x")):
            array = zarr.create_array(MemoryStore(), shape=(3, 4), chunks=(2, 2), dtype=dtype)
            array[1, 2] = value
            assert array[1, 2] == value
            assert array[0, 0] == ("" if dtype is str else b"")


def test_all_fill_chunks_are_not_stored_unless_asked(installed: None) -> None:
    for write_empty in (False, True):
        stores = {}
        for pipeline in (False, True):
            store = MemoryStore()
            with zarr_codecs.install(pipeline=pipeline):
                array = zarr.create_array(
                    store,
                    shape=(10,),
                    chunks=(5,),
                    dtype=str,
                    fill_value="",
                    config={"write_empty_chunks": write_empty},
                )
                array[:] = np.array(["a"] * 5 + [""] * 5)
                array[:5] = ""
            stores[pipeline] = _contents(store)
        assert stores[True] == stores[False]
        assert any(key.startswith("c/") for key in stores[True]) == write_empty


def test_a_corrupt_chunk_names_itself(installed: None) -> None:
    store = MemoryStore()
    array = zarr.create_array(store, shape=(10,), chunks=(5,), dtype=str, compressors=None)
    array[:] = np.array(["abc"] * 10)
    store._store_dict["c/1"] = default_buffer_prototype().buffer.from_bytes(b"\x05\x00\x00\x00")
    with zarr_codecs.install(pipeline=True):
        with pytest.raises(CorruptInputError, match=r"chunk 'c/1'"):
            zarr.open_array(store)[...]
        zarr_codecs.reset_usage()
        np.testing.assert_array_equal(zarr.open_array(store)[:5], np.array(["abc"] * 5))
        assert zarr_codecs.usage()["zarr_read"] == 0


def test_a_failed_write_stores_nothing(installed: None) -> None:
    store = MemoryStore()
    array = zarr.create_array(store, shape=(10,), chunks=(5,), dtype=str, compressors=None)
    array[:] = np.array(["abc"] * 10)
    store._store_dict["c/1"] = default_buffer_prototype().buffer.from_bytes(b"\x05\x00\x00\x00")
    before = _contents(store)
    with (
        zarr_codecs.install(pipeline=True),
        pytest.raises(CorruptInputError, match=r"chunk 'c/1'"),
    ):
        zarr.open_array(store)[3:7] = np.array(["new"] * 4)  # merges into the corrupt c/1
    assert _contents(store) == before


def test_zarrs_own_string_codec_objects_run_ours(installed: None) -> None:
    """While installed, zarr's default ``VLenUTF8Codec`` objects (made by zarr for every
    string array) and its registry both give ours, which writes numcodecs' bytes."""
    from zarr_codec_vlen.zarr_python import VLenUTF8Codec

    with zarr_codecs.install():
        array = zarr.create_array(MemoryStore(), shape=(4,), chunks=(4,), dtype=str)
        serializer = array.serializer
        assert isinstance(serializer, zarr.codecs.VLenUTF8Codec)
        from zarr.registry import get_codec_class

        assert get_codec_class("vlen-utf8") is VLenUTF8Codec
        array[:] = np.array(["x", "yy", "", "ü"])
        np.testing.assert_array_equal(array[:], np.array(["x", "yy", "", "ü"]))
