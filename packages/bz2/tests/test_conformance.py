"""The zarr_codec_shapes conformance kit over ``Bz2``."""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_bz2 import Bz2
from zarr_codec_shapes.testing import ConformanceSuite

_VALID = Bz2().encode(b"zarr " * 200)

MALFORMED: tuple[Any, ...] = (
    b"\x00\x01\x02",
    b"BZh9",  # a header and nothing else
    _VALID[:-1],  # truncated
    _VALID[:20] + bytes(b ^ 0x55 for b in _VALID[20:]),  # damaged blocks
    bytearray(_VALID[:10]),
    memoryview(_VALID)[1:],
)


class TestBz2Conformance(ConformanceSuite):
    codecs = (Bz2(), Bz2(level=9))
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
