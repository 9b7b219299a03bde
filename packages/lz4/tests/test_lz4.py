"""``Lz4`` against numcodecs 0.17's ``LZ4``: the same bytes both ways at every acceleration,
the same JSON, ``repr`` and error classes, and numcodecs' empty chunk read too."""

from __future__ import annotations

import json

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")

from zarr_codec_lz4 import ENGINE, Lz4  # noqa: E402
from zarr_codec_lz4 import numcodecs as ours_nc  # noqa: E402
from zarr_codec_shapes import ConfigurationError, CorruptInputError, OutputSizeError  # noqa: E402
from zarr_codec_shapes.registry import get_codec  # noqa: E402

RNG = np.random.default_rng(5)
#: Chunks shaped like users' data: tiny, runs, smooth floats with NaN, noise, a large one.
CHUNKS = [
    b"\x00",
    b"abc",
    b"\x07" * 100_000,
    np.where(RNG.random(50_000) < 0.05, np.nan, np.linspace(0, 1, 50_000)).astype("<f4").tobytes(),
    RNG.integers(0, 256, 70_001, dtype=np.uint8).tobytes(),
    (np.arange(1 << 20, dtype="<i4") // 17).tobytes(),
]


@pytest.mark.parametrize("acceleration", [1, 5, 100, 0, -4])
def test_same_bytes_as_numcodecs_both_ways(acceleration: int) -> None:
    ours, theirs = ours_nc.LZ4(acceleration), numcodecs.LZ4(acceleration)
    for chunk in CHUNKS:
        expected = bytes(theirs.encode(chunk))
        assert bytes(ours.encode(chunk)) == expected, len(chunk)
        assert bytes(ours.decode(expected)) == chunk
        assert bytes(theirs.decode(bytes(ours.encode(chunk)))) == chunk
    assert f"LZ4 {numcodecs.lz4.__version__}" == ENGINE


def test_config_repr_and_registry() -> None:
    for acceleration in (1, 7):
        ours, theirs = ours_nc.LZ4(acceleration), numcodecs.LZ4(acceleration)
        assert ours.get_config() == theirs.get_config()
        assert repr(ours) == repr(theirs)
        assert ours_nc.LZ4.from_config(json.loads(json.dumps(ours.get_config()))) == ours
    codec = Lz4(3)
    assert codec.to_json(2) == {"id": "lz4", "acceleration": 3}
    assert codec.to_json(3) == {"name": "numcodecs.lz4", "configuration": {"acceleration": 3}}
    assert get_codec({"id": "lz4"}, 2) == Lz4()
    assert get_codec(codec.to_json(3), 3) == codec
    for bad in ({"id": "lz4", "level": 1}, {"id": "lz4", "acceleration": "fast"}):
        with pytest.raises(ConfigurationError):
            get_codec(bad, 2)
    ours_nc.register()
    try:
        assert type(numcodecs.get_codec({"id": "lz4"})) is ours_nc.LZ4
    finally:
        ours_nc.unregister()
    assert type(numcodecs.get_codec({"id": "lz4"})) is numcodecs.LZ4


def test_the_empty_chunk_numcodecs_writes_but_cannot_read() -> None:
    empty = bytes(numcodecs.LZ4().encode(b""))
    with pytest.raises(RuntimeError):
        numcodecs.LZ4().decode(empty)
    assert bytes(ours_nc.LZ4().decode(empty)) == b""


def test_damage_is_corrupt_and_numcodecs_error_classes_hold() -> None:
    encoded = bytes(numcodecs.LZ4().encode(CHUNKS[3]))
    wrong_size = (len(CHUNKS[3]) + 1).to_bytes(4, "little") + encoded[4:]
    for damaged in (b"", b"\x01\x00", encoded[:-3], wrong_size, b"\xff\xff\xff\x7f" + b"x" * 9):
        with pytest.raises(CorruptInputError):
            Lz4().decode(damaged)
        with pytest.raises(RuntimeError):  # numcodecs' class for a bad block
            ours_nc.LZ4().decode(damaged)


def test_decoding_is_bounded_and_goes_into_caller_buffers() -> None:
    encoded = Lz4().encode(CHUNKS[2])
    with pytest.raises(OutputSizeError):
        Lz4(max_decoded_size=99_999).decode(encoded)
    out = np.empty(100_000, np.uint8)
    assert Lz4().decode_into(encoded, out) == 100_000
    assert out.tobytes() == CHUNKS[2]
    arrays = [np.frombuffer(c, np.uint8) for c in CHUNKS]
    decoded = Lz4().decode_batch(Lz4().encode_batch(arrays))
    assert [bytes(d) for d in decoded] == CHUNKS
