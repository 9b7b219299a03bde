"""numcodecs' element filters, ``Delta``, ``BitRound``, ``Quantize`` and ``AsType``, on the
compiled codecs (``zarr_codec_filters::{Delta, BitRound, Quantize, AsType}`` in Rust, where
numpy's exact rules are written down): the values numcodecs (numpy 2) computes, NaN and
infinities included.

- ``Delta(dtype, astype=None)``: each element less the one before it (differences in ``dtype``,
  then numpy's ``astype``); decoding sums in numpy's promotion of the two types.
- ``BitRound(keepbits)``: float16/32/64 mantissas rounded to ``keepbits`` bits, half to even.
- ``Quantize(digits, dtype, astype=None)``: ``around(scale * x) / scale`` for a power of two
  ``scale`` of about ``digits`` decimal digits (lossy); float types only.
- ``AsType(encode_dtype, decode_dtype)``: numpy's ``astype`` each way.

Each maps a chunk to as many elements, element by element (``Delta``: each after the one
before it), one chunk or many in parallel with the GIL released, and as chain kernels. Where
numpy's result is platform-defined (a float outside an integer type's range), ours is what
numpy gives on x86.
"""

from __future__ import annotations

import json
import math
from typing import Any, ClassVar

import numpy as np
from zarr_codec_shapes import (
    ArrayArrayCodecBase,
    ChunkSpec,
    ConfigurationError,
    CorruptInputError,
    DataType,
    PartialDecodeCapability,
)
from zarr_codec_shapes.compiled import CompiledArrayCodec, CompiledArrayMethods

from zarr_codec_filters import _filters

__all__ = ["AsType", "BitRound", "Delta", "Quantize"]


def _dtype(codec: str, label: str, value: Any) -> np.dtype[Any]:
    """``value`` as a numpy dtype; ``ConfigurationError`` when numpy cannot read it."""
    try:
        dtype: np.dtype[Any] = np.dtype(value)
    except TypeError as err:
        raise ConfigurationError(f"{codec}: {label} {value!r}: {err}") from None
    return dtype


class _ElementFilter(CompiledArrayMethods, ArrayArrayCodecBase):
    """What the four share: the compiled codec bound per array data type from the v2 JSON,
    the encoded spec, and numcodecs' habit of viewing any input as its own ``dtype``."""

    def __init__(self) -> None:
        self._bound = {}
        # Built once for the configured type: the compiled codec checks the configuration, and
        # numcodecs-style calls (no spec) use it without looking the type up again.
        own = self._own_dtype()
        self._own = None if own is None else self.bind(DataType.from_numpy(own))

    def _own_dtype(self) -> np.dtype[Any] | None:
        """The decoded type numcodecs views every input as (``None``: the input's own)."""
        return None

    def _encoded_dtype(self) -> np.dtype[Any] | None:
        """The encoded type numcodecs views every input to ``decode`` as."""
        return None

    def _compile(self, data_type: DataType) -> CompiledArrayCodec:
        return _filters.bind(json.dumps(self.to_json(2)), data_type.numpy_dtype)

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The encoded spec: the encoded type, the fill value encoded like an element."""
        bound = self.bind(spec.data_type)
        fill = bound.encode(np.asarray([spec.fill_value], dtype=spec.numpy_dtype))[0]
        return ChunkSpec(spec.shape, DataType.from_name(bound.encoded), fill)

    def encode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """Encode ``array`` (of ``spec``'s data type; without a spec, viewed as ``dtype`` as
        numcodecs does) into a new array of the same shape."""
        if spec is not None:
            return self.bind(spec.data_type).encode(array)
        data = np.asarray(array)
        if self._own is not None:
            return self._own.encode(data.view(self._own_dtype()))
        return self.bind(DataType.from_numpy(data.dtype)).encode(data)

    def decode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """Decode ``array`` back to ``spec``'s data type (without a spec, as numcodecs does:
        the encoded input viewed as ``astype``, decoded to ``dtype``)."""
        if spec is not None:
            data = np.asarray(array)
            count = math.prod(spec.shape)
            if data.size != count:
                message = f"{self.codec_id}: {data.size} elements, the chunk holds {count}"
                raise CorruptInputError(message)
            return self.bind(spec.data_type).decode(data.reshape(spec.shape))
        data = np.asarray(array)
        if self._own is None:
            return self.bind(DataType.from_numpy(data.dtype)).decode(data)
        encoded = self._encoded_dtype()
        return self._own.decode(data.view(encoded if encoded is not None else self._own_dtype()))


class Delta(_ElementFilter):
    """numcodecs' ``Delta(dtype, astype=None)``: each element less the one before it."""

    name: ClassVar[str] = "numcodecs.delta"
    codec_id: ClassVar[str | None] = "delta"

    def __init__(self, dtype: Any, astype: Any = None) -> None:
        self.dtype = _dtype("delta", "dtype", dtype)
        self.astype = self.dtype if astype is None else _dtype("delta", "astype", astype)
        super().__init__()

    def configuration(self) -> dict[str, Any]:
        return {"dtype": self.dtype.str, "astype": self.astype.str}

    def _own_dtype(self) -> np.dtype[Any]:
        return self.dtype

    def _encoded_dtype(self) -> np.dtype[Any]:
        return self.astype

    def partial_decode_capability(self) -> PartialDecodeCapability:
        """Each element depends on all before it: whole chunks only."""
        return PartialDecodeCapability.NONE


class BitRound(_ElementFilter):
    """numcodecs' ``BitRound(keepbits)``: float mantissas rounded to ``keepbits`` bits."""

    name: ClassVar[str] = "numcodecs.bitround"
    codec_id: ClassVar[str | None] = "bitround"

    def __init__(self, keepbits: int) -> None:
        if isinstance(keepbits, bool) or not isinstance(keepbits, int | np.integer):
            raise ConfigurationError(f"bitround: keepbits must be an integer, got {keepbits!r}")
        if keepbits < 0:
            raise ConfigurationError("bitround: keepbits must be zero or positive")
        self.keepbits = int(keepbits)
        super().__init__()

    def configuration(self) -> dict[str, Any]:
        return {"keepbits": self.keepbits}


class Quantize(_ElementFilter):
    """numcodecs' ``Quantize(digits, dtype, astype=None)``: floats to about ``digits``
    decimal digits (lossy)."""

    name: ClassVar[str] = "numcodecs.quantize"
    codec_id: ClassVar[str | None] = "quantize"

    def __init__(self, digits: int, dtype: Any, astype: Any = None) -> None:
        if isinstance(digits, bool) or not isinstance(digits, int | np.integer):
            raise ConfigurationError(f"quantize: digits must be an integer, got {digits!r}")
        self.digits = int(digits)
        self.dtype = _dtype("quantize", "dtype", dtype)
        self.astype = self.dtype if astype is None else _dtype("quantize", "astype", astype)
        super().__init__()

    def configuration(self) -> dict[str, Any]:
        return {"digits": self.digits, "dtype": self.dtype.str, "astype": self.astype.str}

    def _own_dtype(self) -> np.dtype[Any]:
        return self.dtype

    def _encoded_dtype(self) -> np.dtype[Any]:
        return self.astype


class AsType(_ElementFilter):
    """numcodecs' ``AsType(encode_dtype, decode_dtype)``: numpy's ``astype`` each way."""

    name: ClassVar[str] = "numcodecs.astype"
    codec_id: ClassVar[str | None] = "astype"

    def __init__(self, encode_dtype: Any, decode_dtype: Any) -> None:
        self.encode_dtype = _dtype("astype", "encode_dtype", encode_dtype)
        self.decode_dtype = _dtype("astype", "decode_dtype", decode_dtype)
        super().__init__()

    def configuration(self) -> dict[str, Any]:
        return {"encode_dtype": self.encode_dtype.str, "decode_dtype": self.decode_dtype.str}

    def _own_dtype(self) -> np.dtype[Any]:
        return self.decode_dtype

    def _encoded_dtype(self) -> np.dtype[Any]:
        return self.encode_dtype
