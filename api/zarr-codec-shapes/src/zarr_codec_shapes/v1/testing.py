"""``zarr_codec_shapes.v1.testing``: the conformance kit of the ``v1`` API, for any codec
author's tests (subclass :class:`ConformanceSuite`). See :mod:`zarr_codec_shapes.testing`."""

from __future__ import annotations

from zarr_codec_shapes.testing import (
    CORE_DATA_TYPES,
    ConformanceSuite,
    check_async_and_batch,
    check_batch_matches_single,
    check_capabilities,
    check_codec,
    check_decode_into,
    check_decoded_or_rejected,
    check_errors_from_threads,
    check_json,
    check_malformed,
    check_overlap,
    check_rejected,
    check_round_trips,
    check_threads,
    check_threads_on_chunk,
    check_truncations,
    check_value_semantics,
    decode_calls,
    run_in_threads,
    sample_arrays,
)

__all__ = [
    "CORE_DATA_TYPES",
    "ConformanceSuite",
    "check_async_and_batch",
    "check_batch_matches_single",
    "check_capabilities",
    "check_codec",
    "check_decode_into",
    "check_decoded_or_rejected",
    "check_errors_from_threads",
    "check_json",
    "check_malformed",
    "check_overlap",
    "check_rejected",
    "check_round_trips",
    "check_threads",
    "check_threads_on_chunk",
    "check_truncations",
    "check_value_semantics",
    "decode_calls",
    "run_in_threads",
    "sample_arrays",
]
