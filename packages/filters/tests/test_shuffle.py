"""``Shuffle`` against numcodecs 0.17's ``Shuffle``: the same bytes both ways for every element
size numcodecs users write, the same JSON and ``repr``, and its refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")

from zarr_codec_filters import Shuffle  # noqa: E402
from zarr_codec_filters import numcodecs as ours_nc  # noqa: E402
from zarr_codec_shapes import CorruptInputError, OutOfRangeError  # noqa: E402
from zarr_codec_shapes.registry import get_codec  # noqa: E402

RNG = np.random.default_rng(13)
ARRAYS = [
    np.arange(1000, dtype="<i4"),
    np.where(RNG.random(5000) < 0.05, np.nan, np.linspace(0, 1, 5000)).astype("<f8"),
    RNG.integers(0, 256, 3 * 5 * 7 * 16, dtype=np.uint8),
    np.linspace(-1, 1, 1 << 18, dtype="<f4"),
]


@pytest.mark.parametrize("elementsize", [0, 1, 2, 3, 4, 8, 16])
def test_same_bytes_as_numcodecs_both_ways(elementsize: int) -> None:
    ours, theirs = ours_nc.Shuffle(elementsize), numcodecs.Shuffle(elementsize)
    for array in ARRAYS:
        if array.nbytes % max(elementsize, 1):
            continue
        expected = bytes(theirs.encode(array))
        assert bytes(ours.encode(array)) == expected
        assert bytes(ours.decode(expected)) == array.tobytes()
        assert bytes(theirs.decode(bytes(ours.encode(array)))) == array.tobytes()


def test_config_repr_registry_and_refusals() -> None:
    for elementsize in (2, 4):
        ours, theirs = ours_nc.Shuffle(elementsize), numcodecs.Shuffle(elementsize)
        assert ours.get_config() == theirs.get_config()
        assert repr(ours) == repr(theirs)
        assert ours_nc.Shuffle.from_config(json.loads(json.dumps(ours.get_config()))) == ours
    codec = Shuffle(8)
    assert codec.to_json(2) == {"id": "shuffle", "elementsize": 8}
    assert codec.to_json(3) == {"name": "numcodecs.shuffle", "configuration": {"elementsize": 8}}
    assert get_codec({"id": "shuffle"}, 2) == Shuffle()
    with pytest.raises(ValueError, match="not an integer multiple"):
        numcodecs.Shuffle(4).encode(b"abcde")
    with pytest.raises(OutOfRangeError):
        Shuffle(4).encode(b"abcde")
    with pytest.raises(CorruptInputError):
        Shuffle(4).decode(b"abcde")
    with pytest.raises(ValueError, match="not a whole number of 4-byte elements"):
        ours_nc.Shuffle(4).decode(b"abcde")
    ours_nc.register()
    try:
        assert type(numcodecs.get_codec({"id": "shuffle"})) is ours_nc.Shuffle
    finally:
        ours_nc.unregister()
    assert type(numcodecs.get_codec({"id": "shuffle"})) is numcodecs.Shuffle


def test_decode_into_a_caller_buffer_and_batches() -> None:
    array = ARRAYS[3]
    out = np.empty_like(array)
    assert Shuffle(4).decode_into(Shuffle(4).encode(array), out) == array.nbytes
    np.testing.assert_array_equal(out, array)
    chunks = [a for a in ARRAYS if a.nbytes % 8 == 0]
    decoded = Shuffle(8).decode_batch(Shuffle(8).encode_batch(chunks))
    assert [bytes(d) for d in decoded] == [c.tobytes() for c in chunks]
