"""``decode_into`` and ``encode_into`` with an output that shares memory with the input.

No codec can work in place, and reading and writing the same memory at once is undefined
behaviour in the compiled core (it aborted the process in blosc's plain-copy path). Every
compiled codec reads an overlapping input from a copy, so the call gives exactly what it
gives with separate buffers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from zarr_codec_blosc import Blosc
from zarr_codec_crc32c import Crc32c
from zarr_codec_gzip import Gzip
from zarr_codec_zstd import Zstd

DATA = (np.arange(4096, dtype="<u4") % 251).tobytes()

BYTES_CODECS: dict[str, Any] = {
    "gzip": Gzip(5),
    "blosc-lz4": Blosc("lz4", 5, "shuffle", 4),
    "blosc-plain-copy": Blosc("lz4", 0, "noshuffle", 1),  # clevel 0: a memcpy frame
    "zstd": Zstd(3, checksum=True),
    "crc32c": Crc32c(),
    "crc32c-start": Crc32c(location="start"),
}


@pytest.fixture(params=list(BYTES_CODECS))
def codec(request: pytest.FixtureRequest) -> Any:
    return BYTES_CODECS[request.param]


@pytest.mark.parametrize("offset", [0, 1, 7, 100])
def test_decode_into_the_buffer_holding_the_frame(codec: Any, offset: int) -> None:
    frame = codec.encode(DATA)
    room = bytearray(offset + max(len(frame), len(DATA)) + 64)
    room[offset : offset + len(frame)] = frame
    source = memoryview(room)[offset : offset + len(frame)]
    assert codec.decode_into(source, room) == len(DATA)
    assert bytes(room[: len(DATA)]) == DATA


@pytest.mark.parametrize("offset", [0, 3])
def test_decode_into_a_view_that_starts_inside_the_frame(codec: Any, offset: int) -> None:
    frame = codec.encode(DATA)
    room = bytearray(len(frame) + len(DATA) + 64)
    room[: len(frame)] = frame
    target = memoryview(room)[offset + 1 :]
    assert codec.decode_into(memoryview(room)[: len(frame)], target) == len(DATA)
    assert bytes(target[: len(DATA)]) == DATA


def test_encode_into_the_buffer_holding_the_data(codec: Any) -> None:
    expected = codec.encode(DATA)
    room = bytearray(DATA) + bytearray(codec.max_encoded_size(len(DATA)))
    written = codec.encode_into(memoryview(room)[: len(DATA)], room)
    assert bytes(room[:written]) == expected
    assert codec.decode(bytes(room[:written])) == DATA


def test_array_codecs_read_an_overlapping_input_from_a_copy() -> None:
    from zarr_codec_cast_value import CastValue
    from zarr_codec_shapes import ChunkSpec

    codec = CastValue("int32", "nearest-even")
    stored = np.arange(64, dtype="<i4") * 3 - 50
    spec = ChunkSpec(stored.shape, "float32")
    expected = codec.decode(stored, spec)
    out = stored.view("<f4")  # decoded float32 written over the int32 it is read from
    codec.decode_into(stored, out, spec)
    np.testing.assert_array_equal(out, expected)
