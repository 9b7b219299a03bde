"""The conformance kit on every ordered pair of the 12 core types (and bfloat16 with ml_dtypes).

One codec per pair, configured so that the kit's sample arrays (every value of interest of
the source type: extremes, NaN, infinities, signed zero) are all accepted: ``clamp`` for
values out of range, and ``scalar_map`` entries for what clamp does not cover (NaN and ±Inf
into integer types; the infinities that clamping into a narrow float type produces, back into
integer types). Every cast is checked as lossy: a second round trip must reproduce the first.
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any

import pytest
from zarr_codec_cast_value import CastValue
from zarr_codec_shapes import DataType
from zarr_codec_shapes.testing import (
    check_async_and_batch,
    check_decode_into,
    check_json,
    check_round_trips,
    check_threads,
    check_value_semantics,
)

CORE = [
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
]
if find_spec("ml_dtypes") is not None:
    CORE.append("bfloat16")


def _map(source: DataType, target: DataType) -> dict[str, list[list[Any]]] | None:
    if source.is_float and target.is_integer:
        # NaN to an extreme (and back); the infinities to small values every float holds.
        low, high = target.integer_range()
        nan = low if low < 0 else high
        return {
            "encode": [["NaN", nan], ["Infinity", 1], ["-Infinity", max(low, -1)]],
            "decode": [[nan, "NaN"]],
        }
    if source.is_integer and target.is_float:
        low, high = source.integer_range()
        return {"decode": [["Infinity", high], ["-Infinity", low]]}
    return None


def _codec(source: DataType, target: DataType) -> CastValue:
    return CastValue(target, out_of_range="clamp", scalar_map=_map(source, target))


PAIRS = [(s, t) for s in CORE for t in CORE]


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_the_kit_passes(source: str, target: str) -> None:
    source_type, target_type = DataType.from_name(source), DataType.from_name(target)
    codec = _codec(source_type, target_type)
    check_json(codec)
    check_value_semantics(codec)
    check_round_trips(codec, [source_type], exact=False)
    check_decode_into(codec, [source_type])
    check_async_and_batch(codec, [source_type])
    check_threads(codec, [source_type], threads=4)
