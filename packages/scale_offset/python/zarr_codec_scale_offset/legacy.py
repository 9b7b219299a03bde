"""numcodecs' ``FixedScaleOffset``: v2 ``fixedscaleoffset`` and v3 ``numcodecs.fixedscaleoffset``,
read and written byte for byte as numcodecs (numpy 2) does, on our compiled codecs.

numcodecs computes ``around((x - offset) * scale).astype(astype)`` and, back,
``(y / scale + offset).astype(dtype)`` with numpy's promotion rules. For a float ``dtype``
that is exactly:

- encoding: ``scale_offset`` in ``dtype`` (the Python numbers are converted to ``dtype``
  first, as numpy 2 converts them), then ``cast_value`` to ``astype`` rounding half to even,
  wrapping integers modulo 2^N (numpy's silent wrap-around) and clamping floats to ±Infinity;
  NaN and ±Infinity become what numpy's x86 conversion gives integers (0, or the minimum of
  32- and 64-bit types);
- decoding: an integer (or float64) ``astype`` is divided and offset in float64 (numpy divides
  integer arrays in float64) and then rounded to ``dtype``; a float32/float16 ``astype`` in its
  own precision.

For an integer ``dtype``, numpy's arithmetic is integer arithmetic wherever both operands are
integers, and wraps silently modulo 2^N (a Python integer that ``dtype`` cannot hold is an
``OverflowError`` in numpy, an ``OutOfRangeError`` here); a float ``offset`` or ``scale`` moves
it to float64. That arithmetic is computed by numpy itself, then cast to ``astype`` by
``cast_value`` as above. Decoding into an integer ``dtype`` truncates towards zero, as numpy's
``astype`` does.

Where numpy's result is platform-defined, ours is defined: a finite float outside the range of
an integer ``astype`` or ``dtype`` (C's undefined conversion; numpy warns "invalid value
encountered in cast" and x86 gives the "integer indefinite" 0x80...0 through a 32- or 64-bit
conversion) wraps modulo 2^N here. Values that numpy converts without that warning are
identical.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from zarr_codec_shapes import (
    ArrayArrayCodecBase,
    ChunkSpec,
    ConfigurationError,
    DataType,
    OutOfRangeError,
    PartialDecodeCapability,
    UnsupportedError,
)
from zarr_codec_shapes.base import fill_array

from zarr_codec_scale_offset import ScaleOffset

__all__ = ["FixedScaleOffset"]


def _cast(target: DataType, rounding: str, *, from_floats: bool = True) -> Any:
    """``cast_value`` into ``target`` as numpy's ``astype`` does it: floats clamp to
    ±Infinity; integers wrap, and (``from_floats``) NaN and ±Infinity become what x86 gives
    them."""
    from zarr_codec_cast_value import CastValue

    if target.is_float:
        return CastValue(target.name, rounding, "clamp")
    mapped = _NONFINITE.get(target.name)
    scalar_map = None
    if mapped is not None and from_floats:
        keys = ("NaN", "Infinity", "-Infinity")
        scalar_map = {"encode": [[k, v] for k, v in zip(keys, mapped, strict=True)]}
    return CastValue(target.name, rounding, "wrap", scalar_map)


#: What numpy's float to integer conversion gives NaN, +Infinity and -Infinity on x86 (through
#: a 32-bit conversion for the narrower types: its low bits; the minimum for 32/64-bit signed
#: types; 2^63 or 0 for uint64 through its unsigned 64-bit conversion).
_NONFINITE: dict[str, tuple[int, int, int]] = {
    "int8": (0, 0, 0),
    "int16": (0, 0, 0),
    "uint8": (0, 0, 0),
    "uint16": (0, 0, 0),
    "int32": (-(2**31),) * 3,
    "uint32": (0, 0, 0),
    "int64": (-(2**63),) * 3,
    "uint64": (2**63, 0, 2**63),
}


class FixedScaleOffset(ArrayArrayCodecBase):
    """numcodecs' ``FixedScaleOffset(offset, scale, dtype, astype)``."""

    name: ClassVar[str] = "numcodecs.fixedscaleoffset"
    codec_id: ClassVar[str | None] = "fixedscaleoffset"

    def __init__(self, offset: float, scale: float, dtype: str, astype: str | None = None) -> None:
        for label, value in (("offset", offset), ("scale", scale)):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigurationError(
                    f"fixedscaleoffset: {label} must be a number, got {value!r}"
                )
        self.offset, self.scale = offset, scale
        self.dtype = np.dtype(dtype)
        self.astype = self.dtype if astype is None else np.dtype(astype)
        self._source = DataType.from_numpy(self.dtype)
        self._target = DataType.from_numpy(self.astype)
        for label, side in (("dtype", self._source), ("astype", self._target)):
            if not (side.is_float or side.is_integer) or side.numpy_dtype.kind not in "iuf":
                raise UnsupportedError(f"fixedscaleoffset: {label} {side.name} is not supported")
        from zarr_codec_cast_value import CastValue

        # The codecs are built once here: each caches its compiled plans.
        self._affine = ScaleOffset(offset, scale)
        self._to_astype = _cast(self._target, "nearest-even")
        # An integer dtype decodes through numpy's truncating float -> integer astype.
        integers = self._source.is_integer
        self._to_dtype = _cast(self._source, "towards-zero") if integers else None
        # Integer arithmetic stays integer (an integer offset and scale): cast from integers.
        self._integers_to_astype = _cast(self._target, "nearest-even", from_floats=False)
        self._encode = None if self._source.is_integer else self._affine.fuse(self._to_astype)
        # Decoding: in float64 from integers and float64, else in astype's own precision.
        wide = self._target.is_integer or self._target.name == "float64"
        self._middle = DataType.from_name("float64") if wide else self._target
        self._widen = CastValue(self._target.name)  # astype -> the middle type: exact
        self._narrow = CastValue(self._middle.name, "nearest-even", "clamp")  # middle -> dtype

    # -- configuration ---------------------------------------------------------------------

    def configuration(self) -> dict[str, Any]:
        return {
            "offset": self.offset,
            "scale": self.scale,
            "dtype": self.dtype.str,
            "astype": self.astype.str,
        }

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> FixedScaleOffset:
        unknown = set(config) - {"offset", "scale", "dtype", "astype"}
        if unknown or not {"offset", "scale", "dtype"} <= set(config):
            raise ConfigurationError(
                f"fixedscaleoffset: needs offset, scale, dtype (and astype), got {sorted(config)}"
            )
        return cls(config["offset"], config["scale"], config["dtype"], config.get("astype"))

    @classmethod
    def from_v2_configuration(cls, config: dict[str, Any]) -> FixedScaleOffset:
        return cls.from_configuration(config)

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self.offset, self.scale, self.dtype.str, self.astype.str)

    def __repr__(self) -> str:
        return (
            f"FixedScaleOffset(offset={self.offset!r}, scale={self.scale!r}, "
            f"dtype={self.dtype.str!r}, astype={self.astype.str!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (FixedScaleOffset, (self.offset, self.scale, self.dtype.str, self.astype.str))

    # -- codec -----------------------------------------------------------------------------

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The encoded spec: ``astype``, and the fill value encoded like an element."""
        fill = self.encode(np.asarray([spec.fill_value], dtype=spec.numpy_dtype), spec)[0]
        return ChunkSpec(spec.shape, self._target, fill)

    def partial_decode_capability(self) -> PartialDecodeCapability:
        """Each element is encoded on its own: any part of a chunk reads and decodes alone."""
        return PartialDecodeCapability.ELEMENTWISE

    def _as_dtype(self, array: Any) -> np.ndarray[Any, Any]:
        # numcodecs views any input as ``dtype``.
        return np.asarray(array).view(self.dtype)

    def encode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """``around((x - offset) * scale).astype(astype)``, as numcodecs computes it."""
        data = self._as_dtype(array)
        spec = ChunkSpec(data.shape, self._source)
        if self._source.is_integer:
            return self._encode_integers(data)
        if self._target.is_float:
            # numcodecs rounds to whole numbers even for a float astype (np.around).
            scaled = np.around(self._affine.encode(data, spec))
            result: np.ndarray[Any, Any] = self._to_astype.encode(scaled, spec)
            return result
        assert self._encode is not None  # cast_value always fuses
        return self._encode.encode(data, spec)

    def _encode_integers(self, data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        # numpy's own integer (wrapping) or float64 arithmetic, which this codec reproduces.
        try:
            with np.errstate(over="ignore"):
                scaled = np.around((data - self.offset) * self.scale)
        except OverflowError as err:  # a Python integer the dtype cannot hold
            raise OutOfRangeError(f"fixedscaleoffset: {err}") from None
        cast = self._integers_to_astype if scaled.dtype.kind in "iu" else self._to_astype
        result: np.ndarray[Any, Any] = cast.encode(
            scaled, ChunkSpec(scaled.shape, DataType.from_numpy(scaled.dtype))
        )
        return result

    def decode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """``(y / scale + offset).astype(dtype)``, as numcodecs computes it."""
        encoded = np.asarray(array).view(self.astype)
        shape = ChunkSpec(encoded.shape, self._middle)
        middle = self._widen.decode(encoded, shape) if self._middle != self._target else encoded
        unscaled = self._affine.decode(middle, shape)
        if self._middle == self._source:
            return unscaled
        if self._to_dtype is not None:  # truncating, as numpy's float -> integer astype
            truncated: np.ndarray[Any, Any] = self._to_dtype.encode(unscaled, shape)
            return truncated
        result: np.ndarray[Any, Any] = self._narrow.decode(
            unscaled, ChunkSpec(encoded.shape, self._source)
        )
        return result

    def decode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Decode, then copy into ``out``; returns the bytes written."""
        return fill_array(out, self.decode(array, spec))
