"""Fill values: the Zarr v3 JSON encoding of one scalar, in both directions.

The rules are those of the v3 core specification ("Permitted fill values") and of the
extension data types: booleans; integers without fraction or exponent within range; floats as
JSON numbers (rounded half to even), ``"NaN"``, ``"Infinity"``, ``"-Infinity"``, or a hex
string of the raw bits with exactly two digits per byte; complex numbers as two-element arrays.
Codecs use the same encoding for their own scalars (``scale_offset``'s ``offset``,
``cast_value``'s ``scalar_map``).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from zarr_codec_shapes.data_types import DataType, Kind
from zarr_codec_shapes.errors import ConfigurationError, OutOfRangeError, UnsupportedError

__all__ = ["coerce_fill_value", "fill_value_from_json", "fill_value_to_json", "scalar_bits"]

JSONScalar = bool | int | float | str | list[Any] | None


def _component_type(dtype: DataType) -> DataType:
    return DataType.FLOAT32 if dtype is DataType.COMPLEX64 else DataType.FLOAT64


def _scalar(array: np.ndarray[Any, Any]) -> np.generic:
    """The element of a 0-d array as a numpy scalar."""
    return cast("np.generic", array[()])


def _from_bits(bits: int, dtype: DataType) -> np.generic:
    raw = bits.to_bytes(dtype.itemsize, "little")
    return _scalar(np.frombuffer(raw, dtype=dtype.numpy_dtype.newbyteorder("<")).reshape(()))


def scalar_bits(value: Any, dtype: DataType) -> int:
    """The raw bits of one value of ``dtype`` as an unsigned integer (little-endian layout)."""
    arr = np.asarray(value, dtype=dtype.numpy_dtype)
    return int.from_bytes(arr.astype(arr.dtype.newbyteorder("<")).tobytes(), "little")


def _int_to_float64_round_to_odd(n: int) -> float:
    """``n`` as a float64 rounded to odd, so a second rounding to a narrower format is exact.

    Rounding to odd at 53 bits and then to nearest at <= 51 bits equals one correct rounding
    (Boldo and Melquiond); it avoids the double-rounding error of ``float(n)`` for |n| > 2**53.
    """
    try:
        f = float(n)
    except OverflowError:
        return math.copysign(math.inf, n)
    if math.isinf(f) or int(f) == n:
        return f
    if abs(int(f)) > abs(n):  # float() rounded away from zero: step back to the truncation
        f = math.nextafter(f, 0.0)
    if int.from_bytes(np.float64(f).tobytes(), "little") & 1 == 0:
        f = math.nextafter(f, math.copysign(math.inf, f))
    return f


def _float_from_json(data: object, dtype: DataType) -> np.generic:
    fmt = dtype.float_format
    assert fmt is not None
    if isinstance(data, str):
        if data == "NaN":
            if fmt.nan_bits is None:
                raise OutOfRangeError(f"{dtype.name} has no NaN")
            return _from_bits(fmt.nan_bits, dtype)
        if data in ("Infinity", "-Infinity"):
            if not fmt.has_infinity:
                raise OutOfRangeError(f"{dtype.name} has no infinity")
            return _scalar(np.array(-math.inf if data[0] == "-" else math.inf, dtype.numpy_dtype))
        digits = data[2:]
        if data.startswith("0x") and len(digits) == 2 * dtype.itemsize:
            try:
                bits = int(digits, 16)
            except ValueError:
                bits = -1
            if 0 <= bits < (1 << dtype.bits) and all(c in "0123456789abcdefABCDEF" for c in digits):
                return _from_bits(bits, dtype)
        raise ConfigurationError(
            f"invalid {dtype.name} value {data!r}: expected a number, 'NaN', 'Infinity', "
            f"'-Infinity' or '0x' followed by {2 * dtype.itemsize} hex digits"
        )
    if isinstance(data, bool) or not isinstance(data, int | float):
        raise ConfigurationError(f"invalid {dtype.name} value {data!r}")
    wide = _int_to_float64_round_to_odd(data) if isinstance(data, int) else float(data)
    with np.errstate(over="ignore", invalid="ignore"):
        value = _scalar(np.array(wide, dtype=np.float64).astype(dtype.numpy_dtype))
    overflowed = math.isfinite(wide) and not np.isfinite(value)
    if overflowed and not fmt.has_infinity:
        raise OutOfRangeError(f"{data!r} is out of the range of {dtype.name}")
    return value


def fill_value_from_json(data: object, dtype: DataType) -> np.generic:
    """Decode a JSON scalar into a numpy scalar of ``dtype`` (native byte order).

    Raises ``ConfigurationError`` for a malformed value and ``OutOfRangeError`` for a value the
    type cannot represent.
    """
    if dtype.kind is Kind.BOOL:
        if not isinstance(data, bool):
            raise ConfigurationError(f"invalid bool value {data!r}: expected true or false")
        return np.bool_(data)
    if dtype.is_integer:
        if isinstance(data, bool) or not isinstance(data, int):
            raise ConfigurationError(f"invalid {dtype.name} value {data!r}: expected an integer")
        low, high = dtype.integer_range()
        if not low <= data <= high:
            raise OutOfRangeError(f"{data} is out of the range [{low}, {high}] of {dtype.name}")
        return _scalar(np.array(data).astype(dtype.numpy_dtype))
    if dtype.kind is Kind.FLOAT:
        return _float_from_json(data, dtype)
    if dtype.kind is Kind.COMPLEX:
        if not isinstance(data, list | tuple) or len(data) != 2:
            raise ConfigurationError(
                f"invalid {dtype.name} value {data!r}: expected [real, imaginary]"
            )
        part = _component_type(dtype)
        real, imag = (_float_from_json(c, part) for c in data)
        out = np.zeros((), dtype=dtype.numpy_dtype)
        out.real, out.imag = real, imag
        return _scalar(out)
    raise UnsupportedError(f"no fill value encoding for {dtype.name}")  # pragma: no cover


def _float_to_json(value: Any, dtype: DataType) -> float | str:
    fmt = dtype.float_format
    assert fmt is not None
    as_float = float(value)
    if math.isnan(as_float):
        bits = scalar_bits(value, dtype)
        if bits == fmt.nan_bits:
            return "NaN"
        return f"0x{bits:0{2 * dtype.itemsize}x}"
    if math.isinf(as_float):
        return "Infinity" if as_float > 0 else "-Infinity"
    return as_float  # every finite value of these formats is exact in a float64


def fill_value_to_json(value: Any, dtype: DataType) -> JSONScalar:
    """Encode one value of ``dtype`` as the canonical JSON scalar."""
    if dtype.kind is Kind.BOOL:
        return bool(value)
    if dtype.is_integer:
        return int(value)
    if dtype.kind is Kind.FLOAT:
        return _float_to_json(np.asarray(value, dtype=dtype.numpy_dtype)[()], dtype)
    if dtype.kind is Kind.COMPLEX:
        scalar = np.asarray(value, dtype=dtype.numpy_dtype)[()]
        part = _component_type(dtype)
        return [_float_to_json(scalar.real, part), _float_to_json(scalar.imag, part)]
    raise UnsupportedError(f"no fill value encoding for {dtype.name}")  # pragma: no cover


def coerce_fill_value(value: object, dtype: DataType) -> np.generic:
    """Accept a JSON scalar or a Python/numpy scalar and return a numpy scalar of ``dtype``.

    Strings and lists are read as JSON; numbers are checked against the type's range (integers)
    or rounded half to even (floats); numpy scalars of the same type pass through unchanged, so
    NaN payloads and signed zeros are kept.
    """
    if isinstance(value, np.generic):
        if value.dtype == dtype.numpy_dtype:
            return value
        if value.dtype.kind in "biu":
            value = value.item()
        elif value.dtype.kind == "f" and dtype.kind is Kind.FLOAT:
            with np.errstate(over="ignore"):
                return _scalar(np.asarray(value).astype(dtype.numpy_dtype))
        else:
            value = value.item()
    if isinstance(value, complex):
        value = [value.real, value.imag]
    return fill_value_from_json(value, dtype)
