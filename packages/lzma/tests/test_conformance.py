"""The zarr_codec_shapes conformance kit over ``Lzma``."""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_lzma import Lzma
from zarr_codec_shapes.testing import ConformanceSuite

_VALID = Lzma().encode(b"zarr " * 200)

MALFORMED: tuple[Any, ...] = (
    b"\x00\x01\x02",
    _VALID[:12],  # a stream header and nothing else
    _VALID[:-1],  # truncated
    _VALID[:30] + bytes(b ^ 0x55 for b in _VALID[30:]),  # damaged
    bytearray(_VALID[:10]),
    memoryview(_VALID)[1:],
)


class TestLzmaConformance(ConformanceSuite):
    codecs = (Lzma(), Lzma(preset=1, check=0))
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
