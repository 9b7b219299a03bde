"""What our codecs report for planning: threads per chunk and partial decoding, in Python
and, through the same figures, in Rust."""

from __future__ import annotations

from typing import Any

import pytest
from zarr_codec_blosc import Blosc
from zarr_codec_cast_value import CastValue
from zarr_codec_gzip import Gzip
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_scale_offset.legacy import FixedScaleOffset
from zarr_codec_shapes import (
    BytesCodec,
    ChunkSpec,
    PartialDecodeCapability,
    RecommendedConcurrency,
)

MiB = 1 << 20


def test_the_types_keep_their_rules() -> None:
    assert RecommendedConcurrency(0, 0) == RecommendedConcurrency.ONE
    assert RecommendedConcurrency(4, 2) == RecommendedConcurrency(4, 4)
    assert PartialDecodeCapability() == PartialDecodeCapability.NONE


@pytest.mark.parametrize(
    ("blocksize", "shape", "threads"),
    [(0, (1024, 1024), 16), (0, (10,), 1), (65536, (256, 1024), 16), (0, (0,), 1)],
)
def test_blosc_can_use_a_thread_per_block(
    blocksize: int, shape: tuple[int, ...], threads: int
) -> None:
    codec = Blosc("lz4", 5, "shuffle", 4, blocksize)
    assert codec.recommended_concurrency(ChunkSpec(shape, "float32")) == RecommendedConcurrency(
        1, threads
    )
    assert codec.partial_decode_capability() == PartialDecodeCapability.NONE


def test_gzip_is_one_stream() -> None:
    spec = ChunkSpec((1024, 1024), "float32")
    assert Gzip().recommended_concurrency(spec) == RecommendedConcurrency.ONE
    assert Gzip().partial_decode_capability() == PartialDecodeCapability.NONE


@pytest.mark.parametrize(
    "codec",
    [
        CastValue("int16"),
        ScaleOffset(1, 2),
        ScaleOffset(1, 2).fuse(CastValue("int16")),
        FixedScaleOffset(1, 10, "<f8", "<i2"),
        BytesCodec("little"),
    ],
    ids=repr,
)
def test_element_wise_codecs_decode_any_part_alone(codec: Any) -> None:
    assert codec.partial_decode_capability() == PartialDecodeCapability.ELEMENTWISE
    assert codec.recommended_concurrency(ChunkSpec((8,), "float64")) == RecommendedConcurrency.ONE
