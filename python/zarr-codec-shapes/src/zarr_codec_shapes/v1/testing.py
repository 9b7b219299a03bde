"""``zarr_codec_shapes.v1.testing``: the conformance kit of the ``v1`` API, for any codec
author's tests (subclass :class:`ConformanceSuite`). See :mod:`zarr_codec_shapes.testing`."""

from __future__ import annotations

from zarr_codec_shapes.testing import (
    CORE_DATA_TYPES,
    ConformanceSuite,
    check_async_and_batch,
    check_capabilities,
    check_codec,
    check_decode_into,
    check_json,
    check_malformed,
    check_overlap,
    check_round_trips,
    check_threads,
    check_value_semantics,
    sample_arrays,
)

__all__ = [
    "CORE_DATA_TYPES",
    "ConformanceSuite",
    "check_async_and_batch",
    "check_capabilities",
    "check_codec",
    "check_decode_into",
    "check_json",
    "check_malformed",
    "check_overlap",
    "check_round_trips",
    "check_threads",
    "check_value_semantics",
    "sample_arrays",
]
