"""Whole chains in Rust: a chain whose codecs all have compiled kernels decodes and encodes
each chunk through every codec in one runtime call (the one ``zarr_codec_runtime.Plan``
running every wheel's kernels), with the results and errors of the codec-by-codec path."""

from __future__ import annotations

import numpy as np
import pytest
from zarr_codec_runtime import Chain, Plan
from zarr_codec_shapes import ChunkSpec, CorruptInputError, OutOfRangeError, get_codec

pytest.importorskip("zarr_codecs")
import zarr_codec_blosc._blosc as blosc_module
import zarr_codec_cast_value._cast_value as cast_value_module
import zarr_codec_crc32c._crc32c as crc32c_module
import zarr_codec_gzip._gzip as gzip_module
import zarr_codec_scale_offset._scale_offset as scale_offset_module
import zarr_codec_zstd._zstd as zstd_module
from kernel_chains import BLOSC, CHUNK, GZIP, KERNEL_CHAINS, _bytes, _cast, _data

MODULES = (
    blosc_module,
    gzip_module,
    scale_offset_module,
    cast_value_module,
    zstd_module,
    crc32c_module,
)


def _chain(name: str) -> Chain:
    dtype, codecs = KERNEL_CHAINS[name]
    return Chain.from_json(codecs, ChunkSpec(CHUNK, dtype))


@pytest.mark.parametrize("name", KERNEL_CHAINS)
def test_kernel_chains_decode_as_the_codecs_do_one_by_one(name: str) -> None:
    chain = _chain(name)
    assert chain.decode_plan is not None  # every step runs in Rust
    encoded = chain.encode_batch(_data(KERNEL_CHAINS[name][0]))
    expected = _codec_by_codec(chain).decode_batch(encoded)  # Python between the codecs
    whole = np.full((len(encoded) * CHUNK[0], CHUNK[1]), 77, dtype=chain.spec.numpy_dtype)
    places = [whole[k * CHUNK[0] : (k + 1) * CHUNK[0]] for k in range(len(encoded))]
    chain.decode_batch_into(encoded, places)
    assert whole.tobytes() == b"".join(e.tobytes() for e in expected)
    single = np.empty(CHUNK, dtype=chain.spec.numpy_dtype)
    chain.decode_into(encoded[0], single)
    assert single.tobytes() == expected[0].tobytes()


def test_the_codec_wheels_export_kernels_and_no_runners() -> None:
    """The runners exist once, in zarr_codec_runtime; a codec wheel exports its kernels."""
    for module in MODULES:
        for runner in ("decode_chain_batch_into", "encode_chain_batch", "encode_chain_files"):
            assert not hasattr(module, runner), (module.__name__, runner)


def test_one_plan_runs_every_wheels_kernels() -> None:
    chain = _chain("fused-blosc")
    assert isinstance(chain.decode_plan, Plan) and len(chain.decode_plan) == 2
    encoded = chain.encode_batch(_data("float32"))
    outs = [np.empty(CHUNK, "float32") for _ in encoded]
    chain.decode_plan.run_into(encoded, [o.reshape(-1).view(np.uint8) for o in outs], threads=2)
    for out, expected in zip(outs, _codec_by_codec(chain).decode_batch(encoded), strict=True):
        assert out.tobytes() == expected.tobytes()


def test_kernel_errors_are_those_of_the_codecs() -> None:
    chain = _chain("fused-blosc")
    encoded = chain.encode_batch(_data("float32", 2))
    outs = [np.empty(CHUNK, "float32") for _ in encoded]
    truncated = bytes(encoded[0])[:-20]
    with pytest.raises(CorruptInputError):
        chain.decode(truncated)
    with pytest.raises(CorruptInputError):
        chain.decode_batch_into([truncated, encoded[1]], outs)
    # A frame of another size than the chunk's encoded elements.
    other = get_codec(BLOSC, 3).encode(b"\1\2" * 10)
    with pytest.raises(CorruptInputError, match="blosc: the chunk decodes to 20 bytes"):
        chain.decode_batch_into([other, encoded[1]], outs)


def test_stored_elements_of_the_wrong_size_are_corrupt() -> None:
    chain = _chain("cast-only")
    with pytest.raises(CorruptInputError, match="bytes: a"):
        chain.decode_batch_into([b"\0" * 10], [np.empty(CHUNK, "int32")])


def test_values_a_cast_refuses_are_out_of_range_on_both_paths() -> None:
    chain = Chain.from_json([_cast("float32"), _bytes()], ChunkSpec(CHUNK, "int16"))
    assert chain.decode_plan is not None
    stored = np.full(CHUNK, 1e9, dtype="<f4").tobytes()  # no int16 holds it
    with pytest.raises(OutOfRangeError):
        chain.decode(stored)
    with pytest.raises(OutOfRangeError):
        chain.decode_batch_into([stored, stored], [np.empty(CHUNK, "int16") for _ in "ab"])


def test_two_compressors_decode_in_rust_as_codec_by_codec() -> None:
    # The size between the compressors is unknown until decoded: the runtime grows its scratch.
    chain = Chain.from_json([_bytes(), BLOSC, GZIP], ChunkSpec(CHUNK, "int16"))
    assert chain.decode_plan is not None
    data = _data("int16", 2)
    encoded = chain.encode_batch(data)
    outs = [np.empty(CHUNK, "int16") for _ in encoded]
    chain.decode_batch_into(encoded, outs)
    assert [o.tobytes() for o in outs] == [d.tobytes() for d in data]
    assert [o.tobytes() for o in _codec_by_codec(chain).decode_batch(encoded)] == [
        d.tobytes() for d in data
    ]


def test_a_checksum_outside_a_compressor_decodes_in_rust() -> None:
    crc = {"name": "crc32c"}
    zstd = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
    chain = Chain.from_json([_bytes(), zstd, crc], ChunkSpec(CHUNK, "int16"))
    assert chain.decode_plan is not None and chain.encode_plan is not None
    data = _data("int16", 3)
    encoded = chain.encode_batch(data)
    assert [bytes(e) for e in encoded] == [
        bytes(e) for e in _codec_by_codec(chain).encode_batch(data)
    ]
    assert [d.tobytes() for d in chain.decode_batch(encoded)] == [d.tobytes() for d in data]
    damaged = bytearray(encoded[0])
    damaged[3] ^= 1
    with pytest.raises(CorruptInputError, match="crc32c"):
        chain.decode(bytes(damaged))


def _codec_by_codec(chain: Chain) -> Chain:
    """The same chain with its runtime plans turned off: codec by codec, Python between."""
    twin = Chain(chain.codecs, chain.spec)
    twin.__dict__["decode_plan"] = None
    twin.__dict__["encode_plan"] = None
    return twin


@pytest.mark.parametrize("name", KERNEL_CHAINS)
def test_kernel_chains_encode_byte_for_byte_as_the_codecs_do_one_by_one(name: str) -> None:
    chain = _chain(name)
    assert chain.encode_plan is not None  # every step runs in Rust
    data = _data(KERNEL_CHAINS[name][0])
    data[1] = np.asfortranarray(data[1])  # any layout
    encoded = chain.encode_batch(data)
    assert all(isinstance(e, bytes) for e in encoded)
    expected = _codec_by_codec(chain).encode_batch(data)
    assert [bytes(e) for e in encoded] == [bytes(e) for e in expected]
    assert bytes(chain.encode(data[0])) == bytes(expected[0])


def test_two_compressors_encode_in_rust_and_decode_back() -> None:
    chain = Chain.from_json([_bytes("big"), BLOSC, GZIP], ChunkSpec(CHUNK, "int16"))
    assert chain.encode_plan is not None  # sizes between compressors: their bounds
    data = _data("int16", 3)
    encoded = chain.encode_batch(data)
    assert [bytes(e) for e in encoded] == [
        bytes(e) for e in _codec_by_codec(chain).encode_batch(data)
    ]
    assert [d.tobytes() for d in chain.decode_batch(encoded)] == [d.tobytes() for d in data]


def test_values_a_cast_refuses_to_encode_are_out_of_range_on_both_paths() -> None:
    chain = Chain.from_json([_cast("int8"), _bytes(), GZIP], ChunkSpec(CHUNK, "int32"))
    assert chain.encode_plan is not None
    data = np.full(CHUNK, 1000, dtype="int32")  # no int8 holds it
    with pytest.raises(OutOfRangeError):
        chain.encode_batch([data, data])
    with pytest.raises(OutOfRangeError):
        _codec_by_codec(chain).encode_batch([data, data])
