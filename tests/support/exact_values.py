"""Elements of Zarr data types as exact numbers: the footing of the slow reference
implementations that the ``cast_value`` and ``scale_offset`` tests check those codecs against.

A value is a ``Fraction`` when finite (except -0.0), else one of the floats NaN, ±inf and -0.0,
which a ``Fraction`` cannot hold. :func:`bit_format` says what a reference needs of a data type
(value bits, sign, exponent and mantissa widths, bias, which special values it has);
:func:`decode_bits` reads an element's exact value from its bits; :func:`round_to_format` rounds
an exact value to a float format's precision in any rounding mode of ``cast_value``.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property
from typing import Any

import numpy as np
import pytest
from zarr_codec_shapes import DataType

HAVE_ML_DTYPES = importlib.util.find_spec("ml_dtypes") is not None

Value = Fraction | float

# Biases that are not 2^(exponent_bits - 1) - 1 (the fnuz formats shift theirs by one or more).
_BIAS = {"float8_e4m3fnuz": 8, "float8_e5m2fnuz": 16, "float8_e4m3b11fnuz": 11}


@cache
def pow2(k: int) -> Fraction:
    return Fraction(2) ** k


# -- data types ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BitFormat:
    """How a data type stores its elements, as far as a reference needs to know."""

    name: str
    bits: int  # value bits (4 for int4: the sub-byte types still take a byte)
    itemsize: int
    is_int: bool
    signed: bool = False
    exponent_bits: int = 0
    mantissa_bits: int = 0
    bias: int = 0
    # "ieee": ±inf and NaNs; "fnuz": one NaN where -0 would be, one zero; "fn": neither;
    # "e8m0": unsigned powers of two, 0xFF is NaN.
    encoding: str = ""
    nan_bits: int | None = None  # the data type's "NaN" constant

    @property
    def int_min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def int_max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    @property
    def has_nan(self) -> bool:
        return not self.is_int and self.encoding != "fn"

    @property
    def has_inf(self) -> bool:
        return self.encoding == "ieee"

    @property
    def has_negative_zero(self) -> bool:
        return self.encoding in ("ieee", "fn")

    @cached_property
    def min_exponent(self) -> int:
        """The exponent of the smallest normal value."""
        return -127 if self.encoding == "e8m0" else 1 - self.bias

    @cached_property
    def min_positive(self) -> Fraction:
        """The smallest positive value (a subnormal, except for e8m0)."""
        return pow2(self.min_exponent - self.mantissa_bits)

    @cached_property
    def max_finite(self) -> Fraction:
        if self.encoding == "e8m0":
            return pow2(127)
        # IEEE formats keep the top exponent for inf/NaN; the others use it for numbers.
        top = (1 << self.exponent_bits) - (2 if self.encoding == "ieee" else 1)
        return (2 - pow2(-self.mantissa_bits)) * pow2(top - self.bias)

    @property
    def dtype(self) -> np.dtype[Any]:
        return DataType.from_name(self.name).numpy_dtype

    @property
    def uint(self) -> np.dtype[Any]:
        """The unsigned integer type of the same size, to read and write raw bits."""
        return np.dtype(f"u{self.itemsize}")

    @cached_property
    def mask(self) -> int:
        return (1 << self.bits) - 1


@cache
def bit_format(name: str) -> BitFormat:
    """The bit format of the data type ``name``, from its ``DataType``."""
    data_type = DataType.from_name(name)
    if data_type.is_integer:
        low, _ = data_type.integer_range()
        return BitFormat(name, data_type.bits, data_type.itemsize, True, signed=low < 0)
    fmt = data_type.float_format
    assert fmt is not None
    if fmt.mantissa_bits == 0:
        encoding = "e8m0"
    elif fmt.has_infinity:
        encoding = "ieee"
    else:
        encoding = "fnuz" if fmt.nan_bits is not None else "fn"
    return BitFormat(
        name,
        data_type.bits,
        data_type.itemsize,
        False,
        exponent_bits=fmt.exponent_bits,
        mantissa_bits=fmt.mantissa_bits,
        bias=_BIAS.get(name, (1 << (fmt.exponent_bits - 1)) - 1),
        encoding=encoding,
        nan_bits=fmt.nan_bits,
    )


def needs_ml_dtypes(*names: str) -> None:
    """Skip the test unless ml_dtypes is there for the data types numpy lacks."""
    if any(DataType.from_name(name).v2_code is None for name in names):
        pytest.importorskip("ml_dtypes")


# -- exact values --------------------------------------------------------------------------


def is_nan(v: Value) -> bool:
    return isinstance(v, float) and math.isnan(v)


def is_inf(v: Value) -> bool:
    return isinstance(v, float) and math.isinf(v)


def is_finite(v: Value) -> bool:
    return isinstance(v, Fraction) or math.isfinite(v)


def is_zero(v: Value) -> bool:
    return v == 0 and not is_nan(v)


def is_negative(v: Value) -> bool:
    return math.copysign(1.0, v) < 0 if isinstance(v, float) else v < 0


def show(v: Value | None) -> str:
    """A value for failure messages: exact, with a float next to fractions it does not equal."""
    if v is None or isinstance(v, float):
        return repr(v)
    if v.denominator == 1:
        return str(v)
    try:
        approx = float(v)
    except OverflowError:
        return str(v)
    return repr(approx) if Fraction(approx) == v else f"{v} (~{approx!r})"


def floor_log2(x: Fraction) -> int:
    """floor(log2(x)) for x > 0."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e - 1 if pow2(e) > x else e


def decode_bits(bits: int, t: BitFormat) -> Value:
    """The exact value of an element from its bits (above ``t.bits`` ignored)."""
    bits &= t.mask
    if t.is_int:
        return Fraction(bits - (1 << t.bits) if t.signed and bits > t.int_max else bits)
    if t.encoding == "e8m0":
        return math.nan if bits == 0xFF else pow2(bits - 127)
    m = t.mantissa_bits
    sign_bit = 1 << (t.bits - 1)
    exponent = (bits >> m) & ((1 << t.exponent_bits) - 1)
    mantissa = bits & ((1 << m) - 1)
    if t.encoding == "fnuz" and bits == sign_bit:
        return math.nan
    if t.encoding == "ieee" and exponent == (1 << t.exponent_bits) - 1:
        if mantissa:
            return math.nan
        return -math.inf if bits & sign_bit else math.inf
    if exponent == 0:  # subnormal: no implicit bit
        magnitude = mantissa * pow2(t.min_exponent - m)
    else:
        magnitude = ((1 << m) | mantissa) * pow2(exponent - t.bias - m)
    if bits & sign_bit:
        return -magnitude if magnitude else -0.0
    return magnitude


# -- arrays of bits --------------------------------------------------------------------------


def to_array(bits: Sequence[int], t: BitFormat) -> np.ndarray[Any, Any]:
    """An array of ``t`` holding these bit patterns, as given (bits above ``t.bits`` too)."""
    return np.array(bits, dtype=t.uint).view(t.dtype)


def array_bits(array: np.ndarray[Any, Any], t: BitFormat) -> list[int]:
    """The value bits of every element, in C order (the data type specifications leave the
    upper bits of a sub-byte type's byte arbitrary)."""
    raw = np.ascontiguousarray(array).view(t.uint).ravel().tolist()
    return [b & t.mask for b in raw]


# -- rounding ------------------------------------------------------------------------------


def round_to_integer(x: Fraction, rounding: str) -> int:
    """``x`` rounded to an integer in one of cast_value's rounding modes."""
    low = math.floor(x)
    rest = x - low
    if rest == 0:
        return low
    if rounding == "towards-zero":
        return low if x > 0 else low + 1
    if rounding == "towards-positive":
        return low + 1
    if rounding == "towards-negative":
        return low
    if rest != Fraction(1, 2):
        return low if rest < Fraction(1, 2) else low + 1
    if rounding == "nearest-away":
        return low + 1 if x > 0 else low
    assert rounding == "nearest-even"
    return low if low % 2 == 0 else low + 1


@cache
def round_to_format(x: Fraction, t: BitFormat, rounding: str) -> Fraction:
    """``x != 0`` rounded to ``t``'s precision: unbounded exponent above, subnormals below (the
    range is the caller's to check)."""
    e = floor_log2(abs(x))
    # The last kept bit. e8m0 keeps one bit at any exponent (no subnormals); values below its
    # range round like any other power of two and are then out of range.
    quantum = e if t.encoding == "e8m0" else max(e, t.min_exponent) - t.mantissa_bits
    # Ties to even are right for e8m0 too: its significand 1 is odd, so ties go up.
    return round_to_integer(x / pow2(quantum), rounding) * pow2(quantum)
