"""The zarr_codec_shapes conformance kit over ``Crc32c``."""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_crc32c import Crc32c
from zarr_codec_shapes.testing import ConformanceSuite

_VALID = Crc32c().encode(b"zarr " * 200)

MALFORMED: tuple[Any, ...] = (
    b"",  # shorter than a checksum
    b"\x00\x01\x02",
    _VALID[:-1],  # truncated
    _VALID[:-4] + bytes(b ^ 0xFF for b in _VALID[-4:]),  # wrong checksum
    b"\x01" + _VALID[1:],  # damaged data
    _VALID + b"\x00",  # a byte after the checksum
    bytearray(_VALID[:100]),
    memoryview(_VALID)[1:],
)


class TestCrc32cConformance(ConformanceSuite):
    codecs = (Crc32c(),)
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
