"""The zarr_codec_shapes conformance kit over ``Lz4``."""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_lz4 import Lz4
from zarr_codec_shapes.testing import ConformanceSuite

_VALID = Lz4().encode(b"zarr " * 200)

MALFORMED: tuple[Any, ...] = (
    b"",  # shorter than the size header
    b"\x00\x01\x02",
    _VALID[:-1],  # truncated block
    (1001).to_bytes(4, "little") + _VALID[4:],  # a size the block does not decode to
    b"\xff\xff\xff\xff" + _VALID[4:],  # a size beyond one block
    _VALID[:4] + b"\xff" * 20,  # not a block
    bytearray(_VALID[:10]),
    memoryview(_VALID)[1:],
)


class TestLz4Conformance(ConformanceSuite):
    codecs = (Lz4(), Lz4(acceleration=9))
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
