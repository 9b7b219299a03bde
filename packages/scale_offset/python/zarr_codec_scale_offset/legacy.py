"""numcodecs' ``FixedScaleOffset``: v2 ``fixedscaleoffset`` and v3 ``numcodecs.fixedscaleoffset``,
read and written byte for byte as numcodecs (numpy 2) does, by the compiled codec
(``zarr_codec_scale_offset::FixedScaleOffset`` in Rust, where its rules are written down).

numcodecs computes ``around((x - offset) * scale).astype(astype)`` and, back,
``(y / scale + offset).astype(dtype)`` with numpy's promotion rules: for a float ``dtype`` the
arithmetic is in ``dtype``; for an integer ``dtype`` it is numpy's wrapping integer arithmetic
while both operands are integers (a Python integer that ``dtype`` cannot hold is an
``OutOfRangeError`` here, an ``OverflowError`` in numpy) and float64 otherwise; integers and
float64 decode in float64, float32 and float16 in their own precision; the casts wrap integers
and round half to even, or truncate into an integer ``dtype``, as numpy's ``astype`` does.

Where numpy's result is platform-defined, ours is defined: a finite float outside the range of
an integer ``astype`` or ``dtype`` (C's undefined conversion; numpy warns "invalid value
encountered in cast") wraps modulo 2^N here; NaN and ±Infinity become what x86 gives. Values
that numpy converts without that warning are identical.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
from zarr_codec_shapes import (
    ArrayArrayCodecBase,
    ChunkSpec,
    ConfigurationError,
    DataType,
    UnsupportedError,
)
from zarr_codec_shapes.compiled import CompiledArrayCodec, CompiledArrayMethods

from zarr_codec_scale_offset import _scale_offset

__all__ = ["FixedScaleOffset"]


class FixedScaleOffset(CompiledArrayMethods, ArrayArrayCodecBase):
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
        try:
            self.dtype = np.dtype(dtype)
            self.astype = self.dtype if astype is None else np.dtype(astype)
        except TypeError as err:
            raise ConfigurationError(f"fixedscaleoffset: {err}") from None
        for label, side in (("dtype", self.dtype), ("astype", self.astype)):
            if side.kind not in "iuf":
                raise UnsupportedError(f"fixedscaleoffset: {label} {side} is not supported")
        self._source = DataType.from_numpy(self.dtype)
        self._target = DataType.from_numpy(self.astype)
        # Built once: the compiled codec checks the configuration and keeps its plans.
        self._plan = _scale_offset.legacy(
            json.dumps({"id": self.codec_id, **self.configuration()}),
            self._source.numpy_dtype,
            self._target.numpy_dtype,
        )

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

    def bind(self, data_type: DataType) -> CompiledArrayCodec:
        """The compiled codec, for arrays of its ``dtype`` only."""
        if data_type != self._source:
            raise ConfigurationError(
                f"fixedscaleoffset: dtype {self.dtype.str} does not match the array's "
                f"{data_type.name}"
            )
        return self._plan

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The encoded spec: ``astype``, and the fill value encoded like an element."""
        fill = self.encode(np.asarray([spec.fill_value], dtype=spec.numpy_dtype), spec)[0]
        return ChunkSpec(spec.shape, self._target, fill)

    def encode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """``around((x - offset) * scale).astype(astype)``, as numcodecs computes it (any
        input is viewed as ``dtype``, as numcodecs does)."""
        return self._plan.encode(np.asarray(array).view(self.dtype))

    def decode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """``(y / scale + offset).astype(dtype)``, as numcodecs computes it."""
        return self._plan.decode(np.asarray(array).view(self.astype))

    def decode_kernel(self, spec: ChunkSpec) -> object | None:
        """Decoding as a compiled chain kernel; ``None`` (no kernel) for an array of another
        data type, which numcodecs would reinterpret."""
        return self._plan.decode_kernel() if spec.data_type == self._source else None

    def encode_kernel(self, spec: ChunkSpec) -> object | None:
        """Encoding as a compiled chain kernel (see ``decode_kernel``)."""
        return self._plan.encode_kernel() if spec.data_type == self._source else None
