"""numcodecs' ``VLenUTF8``, ``VLenBytes``, ``VLenArray`` and ``Base64`` on our codecs, for
Zarr v2 object arrays and numcodecs users: the same constructors, configuration, ``repr`` and
bytes, object arrays out, ``out`` filled as numcodecs fills it, and ``ValueError`` (our
``CorruptInputError``) for truncated or malformed data.

numcodecs registers its own classes first; :func:`register` makes numcodecs use these, and
:func:`unregister` restores numcodecs' own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray
from zarr_codec_shapes import numcodecs as _adapter

import zarr_codec_vlen as _ours
from zarr_codec_vlen import _vlen

__all__ = ["IDS", "Base64", "VLenArray", "VLenBytes", "VLenUTF8", "register", "unregister"]

#: The numcodecs ids these classes take over when registered.
IDS = ("vlen-utf8", "vlen-bytes", "vlen-array", "base64")


def _values(buf: Any) -> np.ndarray[Any, Any]:
    return np.asarray(buf, dtype=object).reshape(-1, order="A")


def _output(decoded: np.ndarray[Any, Any], out: Any) -> Any:
    """``decoded`` into ``out`` as numcodecs checks and fills it, or ``decoded`` itself."""
    if out is None:
        return decoded
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be 1-dimensional array")
    if out.dtype != object:
        raise ValueError("out must be object array")
    flat = out.reshape(-1, order="A")
    if flat.shape[0] < decoded.shape[0]:
        raise ValueError("out is too small")
    flat[: decoded.shape[0]] = decoded
    return flat


def _input(buf: Any) -> Any:
    return ensure_contiguous_ndarray(buf)


class VLenUTF8(Codec):  # type: ignore[misc]
    """numcodecs' ``VLenUTF8()``: strings as UTF-8, each after its length."""

    codec_id = "vlen-utf8"

    def encode(self, buf: Any) -> bytes:
        return bytes(_vlen.encode_utf8(_values(buf)))

    def decode(self, buf: Any, out: Any = None) -> Any:
        return _output(_vlen.decode_utf8(_input(buf)), out)


class VLenBytes(Codec):  # type: ignore[misc]
    """numcodecs' ``VLenBytes()``: byte strings, each after its length."""

    codec_id = "vlen-bytes"

    def encode(self, buf: Any) -> bytes:
        return bytes(_vlen.encode_bytes(_values(buf)))

    def decode(self, buf: Any, out: Any = None) -> Any:
        return _output(_vlen.decode_bytes(_input(buf)), out)


class VLenArray(Codec):  # type: ignore[misc]
    """numcodecs' ``VLenArray(dtype)``: one-dimensional arrays of ``dtype``, each after its
    length in bytes."""

    codec_id = "vlen-array"

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, "dtype": self.dtype.str}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(dtype={self.dtype.str!r})"

    def encode(self, buf: Any) -> bytes:
        items = []
        for value in _values(buf):
            array = (
                np.array([], dtype=self.dtype)
                if value is None
                else np.ascontiguousarray(value, self.dtype)
            )
            if array.ndim != 1:
                raise ValueError("only 1-dimensional arrays are supported")
            items.append(array)
        return bytes(_vlen.encode_bytes(items, zero=False))

    def decode(self, buf: Any, out: Any = None) -> Any:
        items = _vlen.decode_bytes(_input(buf))
        decoded = np.empty(len(items), dtype=object)
        for index, item in enumerate(items):
            decoded[index] = np.frombuffer(item, dtype=self.dtype)
        return _output(decoded, out)


_Base64Base: Any = _adapter.numcodecs_codec_class(_ours.Base64, module=__name__, qualname="Base64")


class Base64(_Base64Base):  # type: ignore[misc]
    """numcodecs' ``Base64()``."""

    def __init__(self) -> None:
        self._codec = self._build()

    def _build(self) -> _ours.Base64:
        return _ours.Base64()

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id}

    def __repr__(self) -> str:
        return "Base64()"


_CLASSES = (VLenUTF8, VLenBytes, VLenArray, Base64)


def register() -> None:
    """Use these codecs for their ids (:data:`IDS`) in numcodecs."""
    for cls in _CLASSES:
        _adapter.register(cls)


def unregister() -> None:
    """Give the ids back to whatever numcodecs had before :func:`register`."""
    for codec_id in IDS:
        _adapter.unregister(codec_id)
