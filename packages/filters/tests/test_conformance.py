"""The zarr_codec_shapes conformance kit over every filter."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from zarr_codec_filters import AsType, BitRound, Delta, PackBits, Quantize, Shuffle
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


def _types(*names: str) -> tuple[DataType, ...]:
    return tuple(DataType.from_name(name) for name in names)


class TestDeltaConformance(ConformanceSuite):
    """Delta on int32 arrays, stored as int32 and as int64 (exact both ways)."""

    codecs = (Delta("<i4"), Delta("<i4", "<i8"))
    data_types: ClassVar[tuple[DataType, ...]] = _types("int32")
    malformed: ClassVar[tuple[Any, ...]] = (np.zeros(3, dtype="<i4"), np.zeros(17, dtype="<i4"))


class TestFloatDeltaConformance(ConformanceSuite):
    """Delta on float64 arrays (lossy: differences round)."""

    codecs = (Delta("<f8"),)
    data_types: ClassVar[tuple[DataType, ...]] = _types("float64")
    exact = False


class TestBitRoundConformance(ConformanceSuite):
    """BitRound on each float type it takes (lossy, except keeping every bit)."""

    codecs = (BitRound(3), BitRound(10))
    data_types: ClassVar[tuple[DataType, ...]] = _types("float64", "float32", "float16")
    exact = False


class TestQuantizeConformance(ConformanceSuite):
    """Quantize on float32 arrays, stored as float32 and float16 (lossy)."""

    codecs = (Quantize(2, "<f4"), Quantize(2, "<f4", "<f2"))
    data_types: ClassVar[tuple[DataType, ...]] = _types("float32")
    exact = False


class TestAsTypeConformance(ConformanceSuite):
    """AsType widening int16 arrays to int64 and float64 (exact)."""

    codecs = (AsType("<i8", "<i2"), AsType("<f8", "<i2"))
    data_types: ClassVar[tuple[DataType, ...]] = _types("int16")
    malformed: ClassVar[tuple[Any, ...]] = (np.zeros(5, dtype="<i8"),)


class TestPackBitsConformance(ConformanceSuite):
    """PackBits on bool arrays; corrupt padding bytes are refused."""

    codecs = (PackBits(),)
    data_types: ClassVar[tuple[DataType, ...]] = _types("bool")
    malformed: ClassVar[tuple[Any, ...]] = (
        np.array([], dtype="u1"),
        np.array([9, 0, 0], dtype="u1"),
        np.array([0, 1], dtype="u1"),  # 8 booleans, not 16
    )
