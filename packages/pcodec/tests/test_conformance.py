"""The zarr_codec_shapes conformance kit over ``PCodec`` (an array-to-bytes codec), on the data
types pcodec takes."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from zarr_codec_pcodec import PCodec
from zarr_codec_shapes import DataType
from zarr_codec_shapes.testing import ConformanceSuite

_VALID = PCodec().encode_array(np.arange(16, dtype=np.uint16) * 7)

MALFORMED: tuple[Any, ...] = (
    b"",
    b"\x00\x01\x02",
    _VALID[:-1],  # the footer cut
    _VALID[:8],
    bytes(40),
    PCodec().encode_array(np.arange(16, dtype=np.int32)),  # another number type
    PCodec().encode_array(np.arange(15, dtype=np.uint16)),  # another count
    memoryview(_VALID)[:-2],
)


class TestPCodecConformance(ConformanceSuite):
    codecs = (PCodec(), PCodec(3, mode_spec="classic", delta_spec="no_op"))
    data_types: ClassVar[tuple[DataType, ...]] = (
        DataType.UINT16,
        DataType.INT32,
        DataType.UINT64,
        DataType.FLOAT16,
        DataType.FLOAT32,
        DataType.FLOAT64,
    )
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
