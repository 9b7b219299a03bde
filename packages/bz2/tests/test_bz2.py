"""``Bz2`` against numcodecs 0.17's ``BZ2`` (Python's ``bz2`` module): the same bytes both ways
at every level, the same JSON and ``repr``, and what ``bz2.decompress`` reads read too."""

from __future__ import annotations

import bz2
import json

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")

from zarr_codec_bz2 import Bz2  # noqa: E402
from zarr_codec_bz2 import numcodecs as ours_nc  # noqa: E402
from zarr_codec_shapes import ConfigurationError, CorruptInputError, OutputSizeError  # noqa: E402
from zarr_codec_shapes.registry import get_codec  # noqa: E402

RNG = np.random.default_rng(9)
#: Chunks shaped like users' data: empty, tiny, runs, smooth floats with NaN, noise.
CHUNKS = [
    b"",
    b"abc",
    b"\x07" * 300_000,
    np.where(RNG.random(60_000) < 0.05, np.nan, np.linspace(0, 1, 60_000)).astype("<f4").tobytes(),
    RNG.integers(0, 256, 50_001, dtype=np.uint8).tobytes(),
    (np.arange(300_000, dtype="<i4") // 17).tobytes(),
]


@pytest.mark.parametrize("level", [1, 5, 9])
def test_same_bytes_as_numcodecs_both_ways(level: int) -> None:
    ours, theirs = ours_nc.BZ2(level), numcodecs.BZ2(level)
    for chunk in CHUNKS:
        expected = bytes(theirs.encode(chunk))
        assert bytes(ours.encode(chunk)) == expected, len(chunk)
        assert bytes(ours.decode(expected)) == chunk
        assert bytes(theirs.decode(bytes(ours.encode(chunk)))) == chunk


def test_config_repr_and_registry() -> None:
    for level in (1, 9):
        ours, theirs = ours_nc.BZ2(level), numcodecs.BZ2(level)
        assert ours.get_config() == theirs.get_config()
        assert repr(ours) == repr(theirs)
        assert ours_nc.BZ2.from_config(json.loads(json.dumps(ours.get_config()))) == ours
    codec = Bz2(3)
    assert codec.to_json(2) == {"id": "bz2", "level": 3}
    assert codec.to_json(3) == {"name": "numcodecs.bz2", "configuration": {"level": 3}}
    assert get_codec({"id": "bz2"}, 2) == Bz2()
    for bad in (0, 10, "9"):
        with pytest.raises(ConfigurationError):
            Bz2(bad)  # type: ignore[arg-type]
    ours_nc.register()
    try:
        assert type(numcodecs.get_codec({"id": "bz2"})) is ours_nc.BZ2
    finally:
        ours_nc.unregister()
    assert type(numcodecs.get_codec({"id": "bz2"})) is numcodecs.BZ2


def test_reads_what_python_reads_and_refuses_what_it_refuses() -> None:
    a, b = bz2.compress(b"first ", 1), bz2.compress(b"second", 9)
    for data in (a + b, a + b"trailing bytes, not a stream"):
        assert bytes(Bz2().decode(data)) == bz2.decompress(data)
    assert bytes(Bz2().decode(b"")) == bz2.decompress(b"") == b""
    for bad in (b"BZh9", a[:-5], b"not bzip2"):
        with pytest.raises((OSError, ValueError)):
            bz2.decompress(bad)
        with pytest.raises(CorruptInputError):
            Bz2().decode(bad)


def test_decoding_is_bounded_and_goes_into_caller_buffers() -> None:
    encoded = Bz2(9).encode(CHUNKS[2])
    assert len(encoded) < 100  # a bomb in miniature: 300 kB of one byte
    with pytest.raises(OutputSizeError):
        Bz2(max_decoded_size=299_999).decode(encoded)
    out = np.empty(300_000, np.uint8)
    assert Bz2().decode_into(encoded, out) == 300_000
    assert out.tobytes() == CHUNKS[2]
    arrays = [np.frombuffer(c, np.uint8) for c in CHUNKS]
    decoded = Bz2().decode_batch(Bz2().encode_batch(arrays))
    assert [bytes(d) for d in decoded] == CHUNKS
