"""The zarr_codec_shapes conformance kit over ``Zstd`` at the levels that matter."""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes.testing import ConformanceSuite
from zarr_codec_zstd import Zstd

_VALID = Zstd(3, checksum=True).encode(b"zarr " * 200)

MALFORMED: tuple[Any, ...] = (
    b"",  # no frame at all
    b"\x28",  # a lone magic byte
    b"\x28\xb5\x2f\xfd",  # magic only
    b"not a zstd frame at all",
    b"\x00" * 32,
    _VALID[:-1],  # truncated checksum
    _VALID[:-4],  # no checksum
    _VALID[:-4] + bytes(b ^ 0xFF for b in _VALID[-4:]),  # wrong checksum
    _VALID + b"junk",  # garbage after a valid frame
    _VALID[:6] + b"\xff" * 8 + _VALID[14:],  # damaged block header
    bytearray(_VALID[: len(_VALID) // 2]),
    memoryview(_VALID)[:9],
)


class TestZstdConformance(ConformanceSuite):
    codecs = (Zstd(-5), Zstd(0), Zstd(3, checksum=True), Zstd(19))
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
