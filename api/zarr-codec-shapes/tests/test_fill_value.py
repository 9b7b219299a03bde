"""Fill-value JSON, per the v3 core spec's "Permitted fill values" and the extension types."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from zarr_codec_shapes import (
    ChunkSpec,
    ConfigurationError,
    DataType,
    OutOfRangeError,
    fill_value_from_json,
    fill_value_to_json,
)
from zarr_codec_shapes.fill_value import scalar_bits


def bits(value: object, dtype: DataType) -> int:
    return scalar_bits(value, dtype)


def test_spec_example_nan_is_0x7fc00000_for_float32() -> None:
    # Core spec: 'for float32, "NaN" is equivalent to "0x7fc00000"'.
    a = fill_value_from_json("NaN", DataType.FLOAT32)
    b = fill_value_from_json("0x7fc00000", DataType.FLOAT32)
    assert bits(a, DataType.FLOAT32) == bits(b, DataType.FLOAT32) == 0x7FC00000
    assert fill_value_to_json(b, DataType.FLOAT32) == "NaN"


def test_spec_example_complex() -> None:
    # Core spec: '["-Infinity", "NaN"] indicates ... real component of -inf and imaginary NaN'.
    value = fill_value_from_json(["-Infinity", "NaN"], DataType.COMPLEX64)
    assert value.real == -math.inf and math.isnan(value.imag)
    assert fill_value_to_json(value, DataType.COMPLEX64) == ["-Infinity", "NaN"]
    assert fill_value_from_json([1, 2], DataType.COMPLEX128) == 1 + 2j


@pytest.mark.parametrize(
    ("dtype", "text", "expected_bits"),
    [
        (DataType.FLOAT16, "NaN", 0x7E00),
        (DataType.FLOAT64, "NaN", 0x7FF8000000000000),
        (DataType.FLOAT16, "Infinity", 0x7C00),
        (DataType.FLOAT32, "-Infinity", 0xFF800000),
        (DataType.FLOAT64, "0x7ff0000000000001", 0x7FF0000000000001),
        (DataType.FLOAT32, "0x7FC00001", 0x7FC00001),
        (DataType.FLOAT32, "0x80000000", 0x80000000),
    ],
)
def test_float_strings(dtype: DataType, text: str, expected_bits: int) -> None:
    value = fill_value_from_json(text, dtype)
    assert bits(value, dtype) == expected_bits
    back = fill_value_to_json(value, dtype)
    assert bits(fill_value_from_json(back, dtype), dtype) == expected_bits


def test_nan_payloads_stay_hex_and_signed_zero_survives_json() -> None:
    payload = fill_value_from_json("0x7fc00001", DataType.FLOAT32)
    assert fill_value_to_json(payload, DataType.FLOAT32) == "0x7fc00001"
    negative_zero = fill_value_from_json(-0.0, DataType.FLOAT64)
    text = json.dumps(fill_value_to_json(negative_zero, DataType.FLOAT64))
    assert text == "-0.0"
    assert math.copysign(1.0, fill_value_from_json(json.loads(text), DataType.FLOAT64)) == -1.0


@pytest.mark.parametrize(
    ("dtype", "bad"),
    [
        (DataType.FLOAT32, "nan"),
        (DataType.FLOAT32, "inf"),
        (DataType.FLOAT32, "0x7fc0"),  # too few digits for float32
        (DataType.FLOAT16, "0x7fc00000"),  # too many for float16
        (DataType.FLOAT32, "0x7fc0000g"),
        (DataType.FLOAT32, "0x-7fc0000"),
        (DataType.FLOAT32, True),
        (DataType.FLOAT32, None),
        (DataType.FLOAT32, [1.0]),
        (DataType.INT32, 1.5),
        (DataType.INT32, 1.0),
        (DataType.INT32, "1"),
        (DataType.INT32, True),
        (DataType.BOOL, 1),
        (DataType.BOOL, "true"),
        (DataType.COMPLEX64, [1.0]),
        (DataType.COMPLEX64, 1.0),
    ],
)
def test_malformed_values_are_configuration_errors(dtype: DataType, bad: object) -> None:
    with pytest.raises(ConfigurationError):
        fill_value_from_json(bad, dtype)


@pytest.mark.parametrize(
    ("dtype", "bad"),
    [
        (DataType.INT8, 128),
        (DataType.INT8, -129),
        (DataType.UINT8, -1),
        (DataType.UINT64, 2**64),
        (DataType.INT64, 2**63),
        (DataType.INT64, -(2**63) - 1),
        (DataType.INT4, 8),
        (DataType.INT2, -3),
        (DataType.UINT4, 16),
        (DataType.FLOAT4_E2M1FN, "NaN"),
        (DataType.FLOAT4_E2M1FN, "Infinity"),
        (DataType.FLOAT8_E4M3FNUZ, "Infinity"),
    ],
)
def test_out_of_range(dtype: DataType, bad: object) -> None:
    with pytest.raises(OutOfRangeError):
        fill_value_from_json(bad, dtype)


@pytest.mark.parametrize("dtype", [DataType.INT64, DataType.UINT64, DataType.INT8])
def test_integer_extremes_round_trip(dtype: DataType) -> None:
    low, high = dtype.integer_range()
    for value in (low, high, 0):
        assert fill_value_to_json(fill_value_from_json(value, dtype), dtype) == value


@pytest.mark.parametrize(
    "n",
    [
        2**24 + 1,
        2**53 + 1,
        2**53 + 3,
        2**60 + 2**36 + 1,
        2**63 - 1,
        2**64 - 1,
        -(2**53) - 1,
        2**54 + 2**30 + 1,
        16777217 * 2**40 + 1,
    ],
)
def test_large_integers_round_once_into_float32(n: int) -> None:
    """JSON numbers are "rounded to the nearest representable value" (half to even): one
    rounding from the exact integer, not two through float64."""
    got = float(fill_value_from_json(n, DataType.FLOAT32))
    below = float(np.float32(n))
    neighbours = {
        below,
        float(np.nextafter(np.float32(below), np.float32(np.inf))),
        float(np.nextafter(np.float32(below), np.float32(-np.inf))),
    }
    exact = Fraction(n)
    best = min(abs(Fraction(c) - exact) for c in neighbours)
    winners = [c for c in neighbours if abs(Fraction(c) - exact) == best]
    if len(winners) == 1:
        assert got == winners[0]
    else:  # a tie: the one with an even significand
        assert got in winners and int(np.float32(got).view(np.uint32)) % 2 == 0


def test_double_rounding_case_is_avoided() -> None:
    # 2**24 + 1 + 2**-30 can't be a JSON int; use an integer whose float64 rounding creates a
    # false tie for float32: n = 2**53 + 2**29 + 1 rounds to 2**53 + 2**29 in float64 (a tie
    # for float32 that goes to even, downwards), but n itself is above the tie: round up.
    n = 2**53 + 2**29 + 1
    got = int(fill_value_from_json(n, DataType.FLOAT32))
    assert got == 2**53 + 2**30


def test_floats_round_half_to_even() -> None:
    # 1 + 2**-11 is halfway between two float16 values: ties go to the even one (1.0).
    assert float(fill_value_from_json(1 + 2**-11, DataType.FLOAT16)) == 1.0
    assert float(fill_value_from_json(1 + 3 * 2**-11, DataType.FLOAT16)) == 1 + 2**-9
    assert float(fill_value_from_json(1e10, DataType.FLOAT16)) == math.inf


def test_chunk_spec_equality_uses_bits() -> None:
    a = ChunkSpec((2, 3), "float32", "NaN")
    assert a == ChunkSpec((2, 3), DataType.FLOAT32, float("nan"))
    assert ChunkSpec((1,), "float64", -0.0) != ChunkSpec((1,), "float64", 0.0)
    assert hash(a) == hash(ChunkSpec((2, 3), "float32", "NaN"))
    assert a.num_elements == 6 and a.num_bytes == 24
    assert ChunkSpec((4,), "int32").fill_value == 0
    with pytest.raises(ConfigurationError):
        ChunkSpec((-1,), "int32")
    with pytest.raises(ConfigurationError):
        ChunkSpec((1,), "float99")
