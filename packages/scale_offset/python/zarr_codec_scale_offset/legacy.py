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

Integer ``dtype`` (numpy's wrapping integer arithmetic) is not supported yet: an
``UnsupportedError`` says so. Values beyond the 32-bit range cast to 8- and 16-bit types are
platform-defined in numpy (C's undefined conversion) and wrap exactly here.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from zarr_codec import (
    ArrayArrayCodecBase,
    ChunkSpec,
    ConfigurationError,
    DataType,
    UnsupportedError,
)
from zarr_codec.base import writable_in_place

from zarr_codec_scale_offset import ScaleOffset

__all__ = ["FixedScaleOffset"]

#: What numpy's float to integer conversion gives NaN and ±Infinity on x86 (through a 32-bit
#: conversion for the narrower types: its low bits; the minimum for 32/64-bit signed types).
_NONFINITE = {
    "int8": 0,
    "int16": 0,
    "uint8": 0,
    "uint16": 0,
    "int32": -(2**31),
    "uint32": 0,
    "int64": -(2**63),
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
        if not self._source.is_float:
            raise UnsupportedError(
                f"fixedscaleoffset: dtype {self.dtype.str} is not supported yet (integer "
                "arithmetic that wraps, as numpy's does); float dtypes are"
            )
        if not (self._target.is_float or self._target.is_integer):
            raise ConfigurationError(f"fixedscaleoffset: astype {self.astype.str} is not numeric")
        from zarr_codec_cast_value import CastValue

        # The codecs are built once here: each caches its compiled plans.
        self._affine = ScaleOffset(offset, scale)
        self._to_astype = self._cast()
        self._encode = self._affine.fuse(self._to_astype)
        # Decoding: in float64 from integers and float64, else in astype's own precision.
        wide = self._target.is_integer or self._target.name == "float64"
        self._middle = DataType.from_name("float64") if wide else self._target
        self._widen = CastValue(self._target.name)  # astype -> the middle type: exact
        self._narrow = CastValue(self._middle.name, "nearest-even", "clamp")  # middle -> dtype

    def _cast(self) -> Any:
        from zarr_codec_cast_value import CastValue

        name = self._target.name
        if self._target.is_float:
            return CastValue(name, "nearest-even", "clamp")
        mapped = _NONFINITE.get(name)
        scalar_map = None
        if mapped is not None:
            scalar_map = {"encode": [[v, mapped] for v in ("NaN", "Infinity", "-Infinity")]}
        return CastValue(name, "nearest-even", "wrap", scalar_map)

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

    def _as_dtype(self, array: Any) -> np.ndarray[Any, Any]:
        # numcodecs views any input as ``dtype``.
        return np.asarray(array).view(self.dtype)

    def encode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """``around((x - offset) * scale).astype(astype)``, as numcodecs computes it."""
        data = self._as_dtype(array)
        spec = ChunkSpec(data.shape, self._source)
        if self._target.is_float:
            # numcodecs rounds to whole numbers even for a float astype (np.around).
            scaled = np.around(self._affine.encode(data, spec))
            result: np.ndarray[Any, Any] = self._to_astype.encode(scaled, spec)
            return result
        assert self._encode is not None  # cast_value always fuses
        return self._encode.encode(data, spec)

    def decode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """``(y / scale + offset).astype(dtype)``, as numcodecs computes it."""
        encoded = np.asarray(array).view(self.astype)
        shape = ChunkSpec(encoded.shape, self._middle)
        middle = self._widen.decode(encoded, shape) if self._middle != self._target else encoded
        unscaled = self._affine.decode(middle, shape)
        if self._middle == self._source:
            return unscaled
        result: np.ndarray[Any, Any] = self._narrow.decode(
            unscaled, ChunkSpec(encoded.shape, self._source)
        )
        return result

    def decode_into(self, array: Any, spec: ChunkSpec, out: Any) -> None:
        result = self.decode(array, spec)
        if writable_in_place(out):
            np.copyto(out, result.reshape(out.shape))
        else:
            out[...] = result.reshape(np.shape(out))
