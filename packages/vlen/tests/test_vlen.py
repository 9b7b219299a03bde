"""The vlen codecs and base64 against numcodecs 0.17's own classes: the same bytes both ways,
``out`` filled as numcodecs fills it, the same configuration and ``repr``, and corrupt data
refused with a ``ValueError``."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")

from zarr_codec_shapes import CorruptInputError  # noqa: E402
from zarr_codec_shapes.registry import get_codec  # noqa: E402
from zarr_codec_vlen import Base64  # noqa: E402
from zarr_codec_vlen import numcodecs as ours  # noqa: E402

RNG = np.random.default_rng(61)
WORDS = ["", "a", "zarr", "chunk ✓", "ünïcödé", "x" * 1000, "\x00nul", "🦀 crab"]


def strings(count: int) -> np.ndarray:
    return np.array([WORDS[i] for i in RNG.integers(0, len(WORDS), count)], dtype=object)


@pytest.mark.parametrize("count", [0, 1, 7, 1000])
def test_vlen_utf8_bytes_both_ways(count: int) -> None:
    values = strings(count)
    theirs = numcodecs.VLenUTF8()
    expected = bytes(theirs.encode(values))
    assert ours.VLenUTF8().encode(values) == expected
    decoded = ours.VLenUTF8().decode(expected)
    assert decoded.dtype == object and list(decoded) == list(values)
    out = np.empty(count, dtype=object)
    ours.VLenUTF8().decode(expected, out=out)
    assert list(out) == list(values)
    # None and 0 are stored as empty strings, as numcodecs stores them.
    mixed = np.array(["a", None, 0, "b"], dtype=object)
    assert ours.VLenUTF8().encode(mixed) == bytes(theirs.encode(mixed))


@pytest.mark.parametrize("count", [0, 1, 500])
def test_vlen_bytes_and_arrays_both_ways(count: int) -> None:
    values = np.array([w.encode() for w in strings(count)], dtype=object)
    expected = bytes(numcodecs.VLenBytes().encode(values))
    assert ours.VLenBytes().encode(values) == expected
    assert list(ours.VLenBytes().decode(expected)) == list(values)
    arrays = np.empty(count, dtype=object)
    for i in range(count):
        arrays[i] = RNG.integers(-100, 100, RNG.integers(0, 6)).astype("<i2")
    codec, theirs = ours.VLenArray("<i2"), numcodecs.VLenArray("<i2")
    expected = bytes(theirs.encode(arrays))
    assert codec.encode(arrays) == expected
    for got, want in zip(codec.decode(expected), theirs.decode(expected), strict=True):
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_corrupt_data_is_refused_as_numcodecs_refuses_it() -> None:
    good = ours.VLenUTF8().encode(np.array(["abc", "de"], dtype=object))
    for bad in (b"", b"\x01\x00", good[:-1], b"\xff\xff\xff\x7f" + b"\x00" * 8):
        for codec in (ours.VLenUTF8(), ours.VLenBytes(), ours.VLenArray("<i2")):
            with pytest.raises(ValueError, match=r"corrupt|truncated|not whole"):
                codec.decode(bad)
    not_utf8 = bytearray(good)
    not_utf8[8] = 0xFF
    with pytest.raises(CorruptInputError, match="UTF-8"):
        ours.VLenUTF8().decode(bytes(not_utf8))
    with pytest.raises(ValueError, match="too small"):
        ours.VLenUTF8().decode(good, out=np.empty(1, dtype=object))


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 1000, 4099])
def test_base64_bytes_both_ways(size: int) -> None:
    data = RNG.integers(0, 256, size, dtype=np.uint8).tobytes()
    expected = bytes(numcodecs.Base64().encode(data))
    assert bytes(Base64().encode(data)) == expected == base64.standard_b64encode(data)
    assert bytes(Base64().decode(expected)) == data
    assert bytes(ours.Base64().decode(expected)) == bytes(numcodecs.Base64().decode(expected))
    # Python skips characters outside the alphabet.
    spaced = b"\n".join(expected[i : i + 76] for i in range(0, len(expected), 76))
    assert bytes(Base64().decode(spaced)) == base64.standard_b64decode(spaced)


def test_configuration_repr_and_registry() -> None:
    for mine, theirs in (
        (ours.VLenUTF8(), numcodecs.VLenUTF8()),
        (ours.VLenBytes(), numcodecs.VLenBytes()),
        (ours.VLenArray("<f8"), numcodecs.VLenArray("<f8")),
        (ours.Base64(), numcodecs.Base64()),
    ):
        assert mine.get_config() == theirs.get_config()
        assert repr(mine) == repr(theirs)
        config = json.loads(json.dumps(mine.get_config()))
        assert type(mine).from_config({k: v for k, v in config.items() if k != "id"}) == mine
    assert get_codec({"id": "base64"}, 2) == Base64()
    assert Base64().to_json(3) == {"name": "numcodecs.base64", "configuration": {}}
    ours.register()
    try:
        for codec_id in ours.IDS:
            assert numcodecs.registry.codec_registry[codec_id].__module__ == ours.__name__
    finally:
        ours.unregister()
    assert numcodecs.registry.codec_registry["vlen-utf8"] is numcodecs.VLenUTF8
