"""The zarr_codec_shapes conformance kit over ``Zfpy`` (an array-to-bytes codec), in its
lossless reversible mode, on the data types zfp takes."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from zarr_codec_shapes import DataType
from zarr_codec_shapes.testing import ConformanceSuite
from zarr_codec_zfpy import Zfpy

_VALID = Zfpy().encode_array(np.arange(16, dtype=np.int32) * 7)

MALFORMED: tuple[Any, ...] = (
    b"",
    b"\x00\x01\x02",
    _VALID[:-2],
    _VALID[:8],
    bytes(40),
    Zfpy().encode_array(np.arange(16, dtype=np.int64)),  # another type
    Zfpy().encode_array(np.arange(15, dtype=np.int32)),  # another shape
    memoryview(_VALID)[:-4],
)


class TestZfpyConformance(ConformanceSuite):
    codecs = (Zfpy(), Zfpy(2, rate=-1))
    data_types: ClassVar[tuple[DataType, ...]] = (
        DataType.INT32,
        DataType.INT64,
        DataType.FLOAT32,
        DataType.FLOAT64,
    )
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
    # zfp holds no array of no values (numcodecs with zfpy writes uninitialised memory or
    # crashes): refused with a CodecError.
    refused_layouts: ClassVar[frozenset[str]] = frozenset({"empty"})
