"""numcodecs' ``ZFPY`` on our codec, for Zarr v2 arrays and numcodecs users: the same
constructor, attributes, configuration, ``repr`` and bytes, without the ``zfpy`` package.

numcodecs registers its own class only where ``zfpy`` is installed; :func:`register` makes
numcodecs use this one either way, and :func:`unregister` gives the id back.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_bytes, ensure_contiguous_ndarray, ndarray_copy
from zarr_codec_shapes import numcodecs as _adapter
from zarr_codec_shapes.data_types import DataType

from zarr_codec_zfpy import MODE_FIXED_ACCURACY, MODE_FIXED_PRECISION, MODE_FIXED_RATE, Zfpy, _zfpy

__all__ = ["IDS", "ZFPY", "register", "unregister"]

#: The element types zfp compresses.
_TYPES = tuple(np.dtype(t) for t in ("i4", "i8", "f4", "f8"))

#: The numcodecs ids these classes take over when registered.
IDS = ("zfpy",)


class ZFPY(Codec):  # type: ignore[misc]
    """numcodecs' ``ZFPY(mode=4, tolerance=-1, rate=-1, precision=-1, compression_kwargs=None)``."""

    codec_id = "zfpy"

    def __init__(
        self,
        mode: int = MODE_FIXED_ACCURACY,
        tolerance: float = -1,
        rate: float = -1,
        precision: int = -1,
        compression_kwargs: Any = None,
    ) -> None:
        self.mode = mode
        if mode == MODE_FIXED_ACCURACY:
            self.compression_kwargs = {"tolerance": tolerance}
        elif mode == MODE_FIXED_RATE:
            self.compression_kwargs = {"rate": rate}
        elif mode == MODE_FIXED_PRECISION:
            self.compression_kwargs = {"precision": precision}
        self.tolerance = tolerance
        self.rate = rate
        self.precision = precision

    def encode(self, buf: Any) -> bytes:
        if not isinstance(buf, np.ndarray):
            raise TypeError(
                f"The zfp codec does not support none numpy arrays. Your buffers were {type(buf)}."
            )
        if not buf.flags.c_contiguous:
            raise ValueError(
                "The zfp codec does not support F order arrays. "
                f"Your arrays flags were {buf.flags}."
            )
        if buf.dtype.newbyteorder("=") not in _TYPES:
            raise TypeError(f"Unknown dtype: {buf.dtype}")  # zfpy's refusal
        codec = Zfpy(self.mode, self.tolerance, self.rate, self.precision)
        return codec.encode_array(buf)

    def decode(self, buf: Any, out: Any = None) -> Any:
        data = ensure_bytes(buf)
        # The header (its claim checked against the stream's length) sizes the output.
        name, shape = _zfpy.header(data)
        dec = np.empty(shape, dtype=DataType.from_name(name).numpy_dtype)
        _zfpy.decode_into(data, dec)
        if out is not None:
            return ndarray_copy(dec, ensure_contiguous_ndarray(out))
        return dec

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(mode={self.mode!r}, "
            f"tolerance={self.tolerance}, rate={self.rate}, "
            f"precision={self.precision})"
        )


def register() -> None:
    """Use :class:`ZFPY` for ``zfpy`` in numcodecs."""
    _adapter.register(ZFPY)


def unregister() -> None:
    """Give ``zfpy`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("zfpy")
