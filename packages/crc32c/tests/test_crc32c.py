"""The checksum against RFC 3720 and the peers, both JSON forms, locations and batches."""

from __future__ import annotations

import pickle
from typing import Any

import crc32c as crc32c_package
import google_crc32c
import numpy as np
import pytest
import zarr_codec_shapes
from zarr_codec_crc32c import Crc32c, checksum
from zarr_codec_shapes import (
    ConfigurationError,
    CorruptInputError,
    OutputSizeError,
    UnsupportedError,
)

RNG = np.random.default_rng(7)


def test_rfc3720_check_values() -> None:
    assert checksum(b"123456789") == 0xE3069283
    assert checksum(bytes(32)) == 0x8A9136AA
    assert checksum(b"\xff" * 32) == 0x62A8AB43
    assert checksum(bytes(range(32))) == 0x46DD794E
    assert checksum(b"") == 0


@pytest.mark.parametrize("size", [0, 1, 3, 7, 8, 9, 255, 256, 769, 8192, 24_577, 1 << 20])
def test_agrees_with_google_crc32c_and_crc32c(size: int) -> None:
    data = RNG.integers(0, 256, size, dtype="u1").tobytes()
    assert checksum(data) == google_crc32c.value(data) == crc32c_package.crc32c(data)
    # Any buffer, any alignment.
    assert checksum(memoryview(data)[1:]) == google_crc32c.value(data[1:])


def test_encode_appends_little_endian_checksum() -> None:
    data = b"zarr chunk bytes"
    encoded = Crc32c().encode(data)
    assert encoded == data + checksum(data).to_bytes(4, "little")
    assert Crc32c(location="start").encode(data) == checksum(data).to_bytes(4, "little") + data
    assert Crc32c().decode(encoded) == data


def test_mismatch_is_corrupt_input_naming_both_values() -> None:
    encoded = bytearray(Crc32c().encode(b"zarr chunk bytes"))
    encoded[0] ^= 1
    with pytest.raises(CorruptInputError, match=r"stored 0x.*computed 0x"):
        Crc32c().decode(encoded)
    with pytest.raises(CorruptInputError):
        Crc32c().decode(b"abc")


def test_into_and_batches() -> None:
    codec = Crc32c()
    chunks = [RNG.integers(0, 256, n, dtype="u1").tobytes() for n in (0, 10, 1000, 100_000)]
    encoded = codec.encode_batch(chunks, threads=2)
    assert encoded == [codec.encode(c) for c in chunks]
    assert codec.decode_batch(encoded, threads=2) == chunks
    outs = [bytearray(len(c)) for c in chunks]
    assert codec.decode_batch_into(encoded, outs) == [len(c) for c in chunks]
    assert [bytes(o) for o in outs] == chunks
    out = bytearray(len(chunks[2]) + 4)
    assert codec.encode_into(chunks[2], out) == len(out)
    assert bytes(out) == encoded[2]
    with pytest.raises(OutputSizeError):
        codec.encode_into(chunks[2], bytearray(len(chunks[2]) + 3))
    with pytest.raises(OutputSizeError):
        codec.decode_into(encoded[2], bytearray(len(chunks[2]) - 1))


def test_json_forms() -> None:
    assert Crc32c().to_json(3) == {"name": "crc32c"}
    assert zarr_codec_shapes.get_codec({"name": "crc32c"}) == Crc32c()
    assert zarr_codec_shapes.get_codec({"name": "crc32c", "configuration": {}}) == Crc32c()
    assert Crc32c().to_json(2) == {"id": "crc32c"}
    start = zarr_codec_shapes.get_codec({"id": "crc32c", "location": "start"}, 2)
    assert start == Crc32c(location="start")
    assert start.to_json(2) == {"id": "crc32c", "location": "start"}
    with pytest.raises(UnsupportedError):
        start.to_json(3)
    bad: list[tuple[dict[str, Any], zarr_codec_shapes.ZarrFormat]] = [
        ({"name": "crc32c", "configuration": {"location": "end"}}, 3),
        ({"name": "crc32c", "configuration": {"x": 1}}, 3),
        ({"id": "crc32c", "location": "middle"}, 2),
        ({"id": "crc32c", "location": 1}, 2),
        ({"id": "crc32c", "x": 1}, 2),
    ]
    for data, fmt in bad:
        with pytest.raises(ConfigurationError):
            zarr_codec_shapes.get_codec(data, fmt)


def test_value_semantics() -> None:
    assert pickle.loads(pickle.dumps(Crc32c(location="start"))) == Crc32c(location="start")
    assert Crc32c() != Crc32c(location="start")
    assert repr(Crc32c()) == "Crc32c()"
