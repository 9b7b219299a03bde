"""The zarr_codec_shapes conformance kit over ``Shuffle``."""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_filters import Shuffle
from zarr_codec_shapes import DataType
from zarr_codec_shapes.testing import ConformanceSuite

MALFORMED: tuple[Any, ...] = (
    b"\x00\x01\x02",  # not a whole number of elements
    b"12345",
    bytearray(b"1234567"),
)


class TestShuffleConformance(ConformanceSuite):
    """Chunks of 8-byte elements: whole numbers of both element sizes (a shuffle refuses a
    chunk that is not, as numcodecs does)."""

    codecs = (Shuffle(4), Shuffle(8))
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
    data_types: ClassVar[tuple[DataType, ...]] = (
        DataType.from_name("float64"),
        DataType.from_name("int64"),
        DataType.from_name("complex64"),
    )
