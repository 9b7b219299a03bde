"""numcodecs' filters on our codecs, for Zarr v2 arrays and numcodecs users: ``Shuffle``,
``Delta``, ``BitRound``, ``Quantize``, ``AsType`` and ``PackBits``.

Each takes the same arguments, has the same attributes (data types as numpy dtypes),
configuration, ``repr`` and equality as numcodecs' class of the same name, takes buffers as
numcodecs does (see :mod:`zarr_codec_shapes.numcodecs`) and gives the same values; bad input
raises a ``ValueError`` (our ``CodecError``), as numcodecs does.

numcodecs registers its own classes first and entry points cannot replace them; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use these, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from zarr_codec_shapes import numcodecs as _adapter

import zarr_codec_filters as _ours
from zarr_codec_filters import elementwise as _elementwise
from zarr_codec_filters.packbits import PackBits as _PackBits

__all__ = [
    "AsType",
    "BitRound",
    "Delta",
    "PackBits",
    "Quantize",
    "Shuffle",
    "register",
    "unregister",
]

#: The numcodecs ids these classes take over when registered.
IDS = ("shuffle", "delta", "bitround", "quantize", "astype", "packbits")

_Base: Any = _adapter.numcodecs_codec_class(_ours.Shuffle, module=__name__, qualname="Shuffle")


class Shuffle(_Base):  # type: ignore[misc]
    """numcodecs' ``Shuffle(elementsize=4)``."""

    def __init__(self, elementsize: int = 4) -> None:
        self.elementsize = elementsize

    def _build(self) -> _ours.Shuffle:
        return _ours.Shuffle(self.elementsize)

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, "elementsize": self.elementsize}

    def __repr__(self) -> str:
        return f"Shuffle(elementsize={self.elementsize})"

    # numcodecs' Shuffle returns a new uint8 array both ways (or ``out``): so does this one,
    # written in place by the compiled codec.
    def encode(self, buf: Any) -> Any:
        data = self._input(buf)
        out = np.empty(data.nbytes, dtype="u1")
        self.codec.encode_into(data, out)
        return out

    def decode(self, buf: Any, out: Any = None) -> Any:
        if out is not None:
            return super().decode(buf, out)
        data = self._input(buf)
        result = np.empty(data.nbytes, dtype="u1")
        self.codec.decode_into(data, result)
        return result


def _base(cls: type[Any], qualname: str) -> Any:
    return _adapter.numcodecs_codec_class(cls, module=__name__, qualname=qualname)


_DeltaBase: Any = _base(_elementwise.Delta, "Delta")


class Delta(_DeltaBase):  # type: ignore[misc]
    """numcodecs' ``Delta(dtype, astype=None)``."""

    def __init__(self, dtype: Any, astype: Any = None) -> None:
        self.dtype = np.dtype(dtype)
        self.astype = self.dtype if astype is None else np.dtype(astype)
        self._codec = self._build()  # numcodecs checks the types here too

    def _build(self) -> _elementwise.Delta:
        return _elementwise.Delta(self.dtype, self.astype)

    def _adopt(self, codec: Any) -> None:
        self.dtype, self.astype = codec.dtype, codec.astype
        object.__setattr__(self, "_codec", codec)

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, "dtype": self.dtype.str, "astype": self.astype.str}

    def __repr__(self) -> str:
        text = f"{type(self).__name__}(dtype={self.dtype.str!r}"
        if self.astype != self.dtype:
            text += f", astype={self.astype.str!r}"
        return text + ")"


_BitRoundBase: Any = _base(_elementwise.BitRound, "BitRound")

#: numcodecs' mantissa bits per float type (by numpy scalar type: either byte order).
_MANTISSA_BITS: dict[type, int] = {np.float16: 10, np.float32: 23, np.float64: 52}


#: The signed integer type of each float type's width, native order.
_SIGNED: dict[type, np.dtype[Any]] = {
    np.float16: np.dtype(np.int16),
    np.float32: np.dtype(np.int32),
    np.float64: np.dtype(np.int64),
}


class BitRound(_BitRoundBase):  # type: ignore[misc]
    """numcodecs' ``BitRound(keepbits)``."""

    def __init__(self, keepbits: int) -> None:
        self.keepbits = keepbits
        self._codec = self._build()

    def _build(self) -> _elementwise.BitRound:
        return _elementwise.BitRound(self.keepbits)

    def _adopt(self, codec: Any) -> None:
        self.keepbits = codec.keepbits
        object.__setattr__(self, "_codec", codec)

    def encode(self, buf: Any) -> Any:
        # numcodecs returns the rounded bits as integers of the same width (the floats
        # themselves when nothing is dropped).
        if type(buf) is np.ndarray:  # numcodecs' check would take it as it is
            data = buf
        else:
            from numcodecs.compat import ensure_ndarray_like

            data = ensure_ndarray_like(buf)  # numcodecs keeps the shape here
        bits = _MANTISSA_BITS.get(data.dtype.type)
        if bits is None:
            raise TypeError("Only float arrays (16-64bit) can be bit-rounded")
        if bits == self.keepbits:
            return data
        encoded = self.codec.encode(data)
        dtype = encoded.dtype
        return encoded.view(
            dtype.str.replace("f", "i") if not dtype.isnative else _SIGNED[dtype.type]
        )

    def decode(self, buf: Any, out: Any = None) -> Any:
        from numcodecs.compat import ensure_ndarray_like, ndarray_copy

        data = ensure_ndarray_like(buf)
        return ndarray_copy(data.view(data.dtype.str.replace("i", "f")), out)


_QuantizeBase: Any = _base(_elementwise.Quantize, "Quantize")


class Quantize(_QuantizeBase):  # type: ignore[misc]
    """numcodecs' ``Quantize(digits, dtype, astype=None)``."""

    def __init__(self, digits: int, dtype: Any, astype: Any = None) -> None:
        self.digits = digits
        self.dtype = np.dtype(dtype)
        self.astype = self.dtype if astype is None else np.dtype(astype)
        self._codec = self._build()

    def _build(self) -> _elementwise.Quantize:
        return _elementwise.Quantize(self.digits, self.dtype, self.astype)

    def _adopt(self, codec: Any) -> None:
        self.digits, self.dtype, self.astype = codec.digits, codec.dtype, codec.astype
        object.__setattr__(self, "_codec", codec)

    def decode(self, buf: Any, out: Any = None) -> Any:
        if self.astype != self.dtype:
            return super().decode(buf, out)
        # Nothing to convert: numcodecs returns the input itself (a view), and so does this.
        from numcodecs.compat import ensure_ndarray, ndarray_copy

        return ndarray_copy(ensure_ndarray(buf).view(self.astype), out)

    def get_config(self) -> dict[str, Any]:
        return {
            "id": self.codec_id,
            "digits": self.digits,
            "dtype": self.dtype.str,
            "astype": self.astype.str,
        }

    def __repr__(self) -> str:
        text = f"{type(self).__name__}(digits={self.digits}, dtype={self.dtype.str!r}"
        if self.astype != self.dtype:
            text += f", astype={self.astype.str!r}"
        return text + ")"


_AsTypeBase: Any = _base(_elementwise.AsType, "AsType")


class AsType(_AsTypeBase):  # type: ignore[misc]
    """numcodecs' ``AsType(encode_dtype, decode_dtype)``."""

    def __init__(self, encode_dtype: Any, decode_dtype: Any) -> None:
        self.encode_dtype = np.dtype(encode_dtype)
        self.decode_dtype = np.dtype(decode_dtype)
        self._codec = self._build()

    def _build(self) -> _elementwise.AsType:
        return _elementwise.AsType(self.encode_dtype, self.decode_dtype)

    def _adopt(self, codec: Any) -> None:
        self.encode_dtype, self.decode_dtype = codec.encode_dtype, codec.decode_dtype
        object.__setattr__(self, "_codec", codec)

    def get_config(self) -> dict[str, Any]:
        return {
            "id": self.codec_id,
            "encode_dtype": self.encode_dtype.str,
            "decode_dtype": self.decode_dtype.str,
        }

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(encode_dtype={self.encode_dtype.str!r}, "
            f"decode_dtype={self.decode_dtype.str!r})"
        )


_PackBitsBase: Any = _base(_PackBits, "PackBits")


class PackBits(_PackBitsBase):  # type: ignore[misc]
    """numcodecs' ``PackBits()``."""

    def __init__(self) -> None:
        self._codec = self._build()

    def _build(self) -> _PackBits:
        return _PackBits()

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id}

    def __repr__(self) -> str:
        return "PackBits()"


_CLASSES = (Shuffle, Delta, BitRound, Quantize, AsType, PackBits)


def register() -> None:
    """Use these codecs for their ids (:data:`IDS`) in numcodecs."""
    for cls in _CLASSES:
        _adapter.register(cls)


def unregister() -> None:
    """Give the ids back to whatever numcodecs had before :func:`register`."""
    for codec_id in IDS:
        _adapter.unregister(codec_id)
