"""A codec written only against the zarr_codec_shapes protocols, used by real zarr-python 3.4.

v3 arrays go through ``zarr_codec_shapes.zarr_python`` (zarr's codec registry and config); v2 arrays
through ``zarr_codec_shapes.numcodecs`` (numcodecs' registry, which zarr uses for v2 metadata).
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

import example_codecs  # noqa: E402
from example_codecs import BitNot, BitNotZarr, XorCrc, XorCrcZarr  # noqa: E402
from zarr_codec_shapes import numcodecs as nc_adapter  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    from zarr.registry import register_codec

    register_codec("test.xor_crc", XorCrcZarr)
    register_codec("test.bitnot", BitNotZarr)
    with zarr.config.set(
        {
            "codecs.test.xor_crc": "example_codecs.XorCrcZarr",
            "codecs.test.bitnot": "example_codecs.BitNotZarr",
        }
    ):
        yield


def _data(shape: tuple[int, ...] = (30, 20)) -> np.ndarray:
    rng = np.random.default_rng(7)
    data = rng.standard_normal(shape).astype("float32")
    data[0, :3] = [np.nan, -0.0, np.inf]
    return data


def test_adapter_classes_subclass_zarr_bases() -> None:
    from zarr.abc.codec import ArrayArrayCodec, BytesBytesCodec

    assert issubclass(XorCrcZarr, BytesBytesCodec)
    assert issubclass(BitNotZarr, ArrayArrayCodec)
    codec = XorCrcZarr(key=3)
    assert codec.to_dict() == {"name": "test.xor_crc", "configuration": {"key": 3}}
    assert XorCrcZarr.from_dict(codec.to_dict()) == codec
    assert codec != XorCrcZarr(key=4)
    assert pickle.loads(pickle.dumps(codec)) == codec
    with pytest.raises(ValueError, match="key"):
        XorCrcZarr(key=300)


def test_v3_array_written_and_read_by_zarr(tmp_path: Path) -> None:
    data = _data()
    store = zarr.storage.LocalStore(tmp_path / "a.zarr")
    arr = zarr.create_array(
        store,
        shape=data.shape,
        chunks=(16, 8),
        dtype="float32",
        fill_value=1.5,
        filters=[BitNotZarr()],
        compressors=[XorCrcZarr(key=3)],
    )
    arr[:] = data
    meta = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())
    names = [c["name"] for c in meta["codecs"]]
    assert names == ["test.bitnot", "bytes", "test.xor_crc"]
    assert meta["codecs"][2]["configuration"] == {"key": 3}

    reopened = zarr.open_array(zarr.storage.LocalStore(tmp_path / "a.zarr"), mode="r")
    assert reopened.metadata.codecs[0] == BitNotZarr()
    np.testing.assert_array_equal(reopened[:], data)
    assert reopened[:].tobytes() == data.tobytes()  # NaN, -0.0 and inf bit-exact

    # The stored chunk is exactly our codecs applied by hand: not just a self-consistent pair.
    raw = (tmp_path / "a.zarr" / "c" / "0" / "0").read_bytes()
    inverted = np.frombuffer(XorCrc(key=3).decode(raw), dtype="<f4").reshape(16, 8)
    np.testing.assert_array_equal(BitNot().decode(inverted, None), data[:16, :8])  # type: ignore[arg-type]


def test_v3_partial_chunk_and_fill_value() -> None:
    arr = zarr.create_array(
        zarr.storage.MemoryStore(),
        shape=(10,),
        chunks=(4,),
        dtype="int16",
        fill_value=-3,
        filters=[BitNotZarr()],
        compressors=[XorCrcZarr(key=1)],
    )
    arr[2:5] = np.array([7, 8, 9], dtype="int16")
    np.testing.assert_array_equal(arr[:], [-3, -3, 7, 8, 9, -3, -3, -3, -3, -3])


def test_v3_array_pickles_with_our_codecs() -> None:
    arr = zarr.create_array(
        zarr.storage.MemoryStore(),
        shape=(8,),
        chunks=(4,),
        dtype="uint8",
        compressors=[XorCrcZarr(key=9)],
    )
    arr[:] = np.arange(8, dtype="uint8")
    clone = pickle.loads(pickle.dumps(arr))
    np.testing.assert_array_equal(clone[:], np.arange(8))


def test_v2_array_through_the_numcodecs_adapter(tmp_path: Path) -> None:
    adapter = example_codecs.XorCrcNumcodecs
    nc_adapter.register(adapter)
    try:
        assert numcodecs.get_codec({"id": "test_xor_crc", "key": 5}) == adapter(key=5)
        data = _data((12, 10))
        path = tmp_path / "v2.zarr"
        arr = zarr.create_array(
            zarr.storage.LocalStore(path),
            shape=data.shape,
            chunks=(5, 5),
            dtype="float32",
            zarr_format=2,
            compressors=adapter(key=5),
        )
        arr[:] = data
        meta = json.loads((path / ".zarray").read_text())
        assert meta["compressor"] == {"id": "test_xor_crc", "key": 5}
        reopened = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
        assert reopened[:].tobytes() == data.tobytes()
        raw = (path / "0.0").read_bytes()
        chunk = np.frombuffer(XorCrc(key=5).decode(raw), dtype="<f4").reshape(5, 5)
        np.testing.assert_array_equal(chunk, data[:5, :5])
    finally:
        nc_adapter.unregister("test_xor_crc")
    with pytest.raises(ValueError, match="test_xor_crc"):
        numcodecs.get_codec({"id": "test_xor_crc", "key": 5})


def test_numcodecs_adapter_decode_into_and_pickle() -> None:
    adapter = example_codecs.XorCrcNumcodecs(key=2)
    payload = np.arange(100, dtype="uint16")
    encoded = adapter.encode(payload)
    out = np.zeros(100, dtype="uint16")
    assert adapter.decode(encoded, out=out) is out
    np.testing.assert_array_equal(out, payload)
    assert adapter.get_config() == {"id": "test_xor_crc", "key": 2}
    assert pickle.loads(pickle.dumps(adapter)) == adapter


def test_numcodecs_register_replaces_a_builtin_and_restores_it() -> None:
    """numcodecs' own ids can be taken over explicitly (entry points cannot) and given back."""
    from numcodecs.registry import codec_registry
    from zarr_codec_shapes.numcodecs import numcodecs_codec_class

    original = codec_registry["zlib"]

    class FakeZlib(XorCrc):
        codec_id = "zlib"

    cls = numcodecs_codec_class(FakeZlib, module=__name__, qualname="FakeZlibNumcodecs")
    nc_adapter.register(cls)
    try:
        assert type(numcodecs.get_codec({"id": "zlib", "key": 1})) is cls
    finally:
        nc_adapter.unregister("zlib")
    assert codec_registry["zlib"] is original


def test_adapter_never_raises_at_import_time() -> None:
    from zarr_codec_shapes.zarr_python import zarr_codec_class

    class NotACodec:
        name = "test.broken"
        codec_type = "no-such-kind"

    cls = zarr_codec_class(NotACodec, module=__name__, qualname="Broken")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot be used"):
        cls.from_dict({"name": "test.broken"})
