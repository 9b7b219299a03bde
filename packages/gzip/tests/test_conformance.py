"""The zarr_codec_shapes conformance kit over ``Gzip`` at the levels that matter (0: stored; 1, 5,
9)."""

from __future__ import annotations

import gzip
import zlib
from typing import Any, ClassVar

from zarr_codec_gzip import Gzip
from zarr_codec_shapes.testing import ConformanceSuite

_VALID = gzip.compress(b"zarr " * 200, mtime=0)

MALFORMED: tuple[Any, ...] = (
    b"\x1f",  # a lone magic byte
    b"\x1f\x8b",  # magic only
    b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00",  # nine of the ten header bytes
    b"not a gzip stream at all",
    b"\x00" * 32,  # zero padding with no member before it
    zlib.compress(b"zarr " * 200),  # a zlib (RFC 1950) stream, not gzip
    zlib.compress(b"zarr " * 200)[2:-4],  # raw deflate
    b"\x1f\x8b\x07" + _VALID[3:],  # compression method 7
    _VALID[:-1],  # truncated trailer
    _VALID[:-8],  # no trailer
    _VALID[:-4] + b"\xff\xff\xff\xff",  # wrong ISIZE
    bytes([*_VALID[:-8], _VALID[-8] ^ 1]) + _VALID[-7:],  # wrong CRC-32
    _VALID + b"junk",  # garbage after a valid member
    bytearray(_VALID[: len(_VALID) // 2]),  # a truncated bytearray
    memoryview(_VALID)[:20],  # a truncated memoryview
)


class TestGzipConformance(ConformanceSuite):
    codecs = (Gzip(0), Gzip(1), Gzip(5), Gzip(9))
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
