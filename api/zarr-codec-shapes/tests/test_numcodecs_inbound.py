"""numcodecs codecs as ``v1`` codecs (the inbound adapter): a chain can hold codecs we do not
implement, with numcodecs doing their work and our API around them."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from zarr_codec_shapes import (
    ChunkSpec,
    ConfigurationError,
    CorruptInputError,
    DataType,
    get_codec,
)
from zarr_codec_shapes.testing import check_codec

numcodecs = pytest.importorskip("numcodecs")

from zarr_codec_shapes.numcodecs import from_numcodecs  # noqa: E402


def test_a_compressor_is_a_bytes_codec_named_as_zarr_python_names_it() -> None:
    codec = from_numcodecs(numcodecs.Zlib(level=3))
    assert (codec.name, codec.codec_id, codec.codec_type) == (
        "numcodecs.zlib",
        "zlib",
        "bytes_bytes",
    )
    assert codec.to_json(3) == {"name": "numcodecs.zlib", "configuration": {"level": 3}}
    assert codec.to_json(2) == {"id": "zlib", "level": 3}
    data = np.arange(1000, dtype="<i4").tobytes()
    assert numcodecs.Zlib(3).decode(codec.encode(data)) == data  # numcodecs' own bytes
    assert codec.decode(numcodecs.Zlib(3).encode(data)) == data
    again = pickle.loads(pickle.dumps(codec))
    assert again == codec and hash(again) == hash(codec)
    assert codec != from_numcodecs({"id": "zlib", "level": 4})
    assert type(codec).from_json(codec.to_json(3), 3) == codec


def test_a_filter_is_an_array_codec() -> None:
    codec = from_numcodecs(numcodecs.Delta(dtype="<i4"))
    assert codec.codec_type == "array_array"
    spec = ChunkSpec((4, 5), "int32")
    values = np.arange(20, dtype="<i4").reshape(4, 5) ** 2
    encoded = codec.encode(values, spec)
    assert encoded.shape == (4, 5)
    np.testing.assert_array_equal(codec.decode(encoded, codec.resolve(spec)), values)
    cast = from_numcodecs(numcodecs.AsType(encode_dtype="<i2", decode_dtype="<f8"))
    assert cast.resolve(ChunkSpec((3,), "float64")).data_type == DataType.from_name("int16")


@pytest.mark.parametrize(
    "codec",
    [numcodecs.Zlib(level=1), numcodecs.CRC32(), numcodecs.BZ2(1), numcodecs.Shuffle(4)],
    ids=repr,
)
def test_the_conformance_kit_passes(codec: object) -> None:
    check_codec(from_numcodecs(codec), data_types=[DataType.from_name("int32")])


def test_numcodecs_errors_become_ours() -> None:
    """numcodecs' LZ4 cannot decode what it encodes from empty input (the kit found it): the
    RuntimeError it raises arrives as our CorruptInputError; bad configuration as ours too."""
    lz4 = from_numcodecs(numcodecs.LZ4())
    with pytest.raises(CorruptInputError, match=r"numcodecs\.lz4"):
        lz4.decode(lz4.encode(b""))
    with pytest.raises(ConfigurationError):
        from_numcodecs({"id": "zlib", "no_such_key": 1})
    with pytest.raises(ConfigurationError):
        from_numcodecs({"id": "no_such_codec"})


class _Reversed(numcodecs.abc.Codec):  # type: ignore[misc]
    """A numcodecs codec no package of ours implements: the bytes in reverse order."""

    codec_id = "zarr-codec-shapes-test-reversed"

    def encode(self, buf: object) -> bytes:
        return bytes(numcodecs.compat.ensure_bytes(buf))[::-1]

    def decode(self, buf: object, out: object = None) -> object:
        return numcodecs.compat.ndarray_copy(self.encode(buf), out)


numcodecs.register_codec(_Reversed)


def test_a_chain_runs_a_codec_we_do_not_implement() -> None:
    # The runtime is another package (this one runs no chains); its Chain takes any v1 codec.
    runtime = pytest.importorskip("zarr_codec_runtime")
    spec = ChunkSpec((16, 16), "float32")
    name = f"numcodecs.{_Reversed.codec_id}"
    metadata = [
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": name, "configuration": {}},
    ]
    chain = runtime.Chain.from_json(metadata, spec)  # the registry falls back to numcodecs
    assert chain.decode_plan is None  # numcodecs' codec has no kernel: codec by codec
    values = np.linspace(0, 1, 256, dtype="float32").reshape(16, 16)
    stored = chain.encode(values)
    assert stored == values.tobytes()[::-1]
    np.testing.assert_array_equal(chain.decode(stored), values)
    assert get_codec({"name": name, "configuration": {}}) == chain.codecs[1]
