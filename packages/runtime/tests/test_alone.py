"""The runtime wheel with nothing but ``zarr-codec-shapes`` beside it (as ``scripts/build-wheels``
installs it): the codecs it carries itself (``bytes``, ``transpose``, ``sharding_indexed``) run
through its compiled plans, against layouts computed here with numpy. Values are distinct in
every byte, and complex ones have distinct real and imaginary parts, so a swapped, shifted or
exchanged part shows."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from zarr_codec_runtime import Chain
from zarr_codec_shapes.chunk_spec import ChunkSpec


def _bytes(endian: str) -> dict[str, Any]:
    return {"name": "bytes", "configuration": {"endian": endian}}


def _distinct(shape: tuple[int, ...], dtype: str) -> np.ndarray[Any, Any]:
    count = int(np.prod(shape))
    if np.dtype(dtype).kind == "c":
        real = np.arange(count, dtype=np.float64) * 1.25 + 0.5
        values = real - 1j * (real * 3 + 7)
    else:
        wide = np.arange(count, dtype=np.uint64) * 0x0103050709 + 0x1122334455
        values = wide.astype(dtype) if np.dtype(dtype).kind in "ui" else wide.astype(np.float64)
    return np.asarray(values, dtype=dtype).reshape(shape)


@pytest.mark.parametrize(
    "dtype", ["uint8", "int16", "uint32", "float64", "complex64", "complex128"]
)
@pytest.mark.parametrize("endian", ["little", "big"])
def test_bytes_writes_the_layout_numpy_does(dtype: str, endian: str) -> None:
    values = _distinct((6, 10), dtype)
    chain = Chain.from_json([_bytes(endian)], ChunkSpec(values.shape, dtype))
    assert chain.encode_plan is not None and chain.decode_plan is not None  # compiled
    order = "<" if endian == "little" else ">"
    expected = values.astype(values.dtype.newbyteorder(order)).tobytes()
    encoded = bytes(chain.encode(values))
    assert encoded == expected
    decoded = chain.decode(encoded)
    assert decoded.dtype == values.dtype and decoded.tobytes() == values.tobytes()


def test_transpose_then_bytes() -> None:
    values = _distinct((3, 4, 5), "int16")
    codecs = [{"name": "transpose", "configuration": {"order": [2, 0, 1]}}, _bytes("big")]
    chain = Chain.from_json(codecs, ChunkSpec(values.shape, "int16"))
    encoded = bytes(chain.encode(values))
    assert encoded == np.transpose(values, (2, 0, 1)).astype(">i2").tobytes()
    np.testing.assert_array_equal(chain.decode(encoded), values)


def test_a_shard_is_laid_out_as_the_spec_says() -> None:
    values = _distinct((8, 8), "uint32")
    sharding = {
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": [4, 4],
            "codecs": [_bytes("little")],
            "index_codecs": [_bytes("little")],
            "index_location": "end",
        },
    }
    chain = Chain.from_json([sharding], ChunkSpec(values.shape, "uint32"))
    shard = bytes(chain.encode(values))
    # The index: (offset, length) as little-endian uint64 per inner chunk, in C order, last.
    index = np.frombuffer(shard[-4 * 16 :], dtype="<u8").reshape(4, 2)
    for number, (offset, length) in enumerate(index):
        row, column = divmod(number, 2)
        inner = values[row * 4 : row * 4 + 4, column * 4 : column * 4 + 4]
        assert shard[offset : offset + length] == inner.astype("<u4").tobytes()
    np.testing.assert_array_equal(chain.decode(shard), values)


def test_decode_batch_into_writes_the_callers_buffers() -> None:
    values = [_distinct((16,), "float64") + n for n in range(5)]
    chain = Chain.from_json([_bytes("big")], ChunkSpec((16,), "float64"))
    encoded = chain.encode_batch(values)
    outs = [np.empty(16, dtype="float64") for _ in values]
    chain.decode_batch_into(encoded, outs)
    for out, value in zip(outs, values, strict=True):
        assert out.tobytes() == value.tobytes()
