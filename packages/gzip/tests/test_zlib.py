"""numcodecs' ``zlib`` on our deflate core: the conformance kit, streams exchanged both ways with
numcodecs' ``Zlib`` and Python's ``zlib`` at every level (values with distinct bytes in every
element), JSON in both formats, and malformed streams refused as numcodecs refuses them."""

from __future__ import annotations

import pickle
import zlib
from typing import Any, ClassVar

import numpy as np
import pytest
from zarr_codec_gzip import Zlib
from zarr_codec_shapes import ConfigurationError, CorruptInputError, OutputSizeError, get_codec
from zarr_codec_shapes.testing import ConformanceSuite

_VALID = zlib.compress(b"zarr " * 200, 6)

MALFORMED: tuple[Any, ...] = (
    b"x",  # half a header
    b"x\x9d" + _VALID[2:],  # the header check fails
    b"\x7a\x9c" + _VALID[2:],  # not deflate
    b"x\xbb" + _VALID[2:],  # a preset dictionary (flagged, check bits fixed)
    b"not a zlib stream",
    _VALID[2:],  # raw deflate
    _VALID[:-1],  # truncated Adler-32
    _VALID[:-4],  # no Adler-32
    _VALID[:-4] + b"\x00\x00\x00\x00",  # wrong Adler-32
    bytearray(_VALID[: len(_VALID) // 2]),
    memoryview(_VALID)[:10],
)


class TestZlibConformance(ConformanceSuite):
    codecs = (Zlib(0), Zlib(1), Zlib(9))
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED


def _data() -> bytes:
    """int32 values whose four bytes differ within every element, compressible."""
    rng = np.random.default_rng(3)
    first = rng.integers(0, 64, 50_000).astype(np.uint8)[:, None]
    return ((first + np.arange(4)) % 256).astype(np.uint8).tobytes()


@pytest.mark.parametrize("level", range(10))
def test_streams_exchange_with_numcodecs_and_zlib(level: int) -> None:
    numcodecs = pytest.importorskip("numcodecs")
    data = _data()
    ours = Zlib(level)
    assert numcodecs.Zlib(level).decode(ours.encode(data)) == data
    assert zlib.decompress(ours.encode(data)) == data
    assert ours.decode(numcodecs.Zlib(level).encode(data)) == data
    out = bytearray(len(data))
    assert ours.decode_into(zlib.compress(data, level), out) == len(data)
    assert out == data


def test_what_numcodecs_accepts() -> None:
    # Bytes after the stream are ignored, as zlib.decompress ignores them.
    assert Zlib().decode(_VALID + b"junk") == b"zarr " * 200
    assert Zlib().decode(zlib.compress(b"")) == b""
    with pytest.raises(OutputSizeError):
        Zlib().decode_into(_VALID, bytearray(10))
    with pytest.raises(CorruptInputError):
        Zlib().decode(_VALID[:-2])


def test_json_in_both_formats() -> None:
    assert get_codec({"id": "zlib"}, 2) == Zlib(1)  # numcodecs' default level
    assert get_codec({"id": "zlib", "level": -1}, 2) == Zlib(6)  # zlib's default
    codec = get_codec({"name": "numcodecs.zlib", "configuration": {"level": 4}}, 3)
    assert codec == Zlib(4)
    assert codec.to_json(2) == {"id": "zlib", "level": 4}
    assert codec.to_json(3) == {"name": "numcodecs.zlib", "configuration": {"level": 4}}
    assert pickle.loads(pickle.dumps(codec)) == codec
    for bad in ({"id": "zlib", "level": 10}, {"id": "zlib", "level": 1, "extra": 0}):
        with pytest.raises(ConfigurationError):
            get_codec(bad, 2)


def test_numcodecs_class() -> None:
    numcodecs = pytest.importorskip("numcodecs")
    from zarr_codec_gzip.numcodecs import Zlib as NumcodecsZlib

    ours, theirs = NumcodecsZlib(level=3), numcodecs.Zlib(level=3)
    assert ours.get_config() == theirs.get_config() == {"id": "zlib", "level": 3}
    assert ours == NumcodecsZlib(3)
    data = _data()
    assert theirs.decode(ours.encode(data)) == data
    assert bytes(ours.decode(theirs.encode(data))) == data
