"""numcodecs' ``PackBits()``: a boolean array as bits, eight to a byte (first element in the
high bit), after one byte holding how many bits pad the last; compiled
(``zarr_codec_filters::packbits`` in Rust).

A chunk of ``n`` booleans encodes to a one-dimensional ``uint8`` array of ``1 + ceil(n / 8)``
bytes, the shape zarr-python's ``numcodecs.packbits`` gives it; any nonzero byte is ``True``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from zarr_codec_shapes import (
    ArrayArrayCodecBase,
    ChunkSpec,
    CorruptInputError,
    DataType,
    UnsupportedError,
)

from zarr_codec_filters import _filters

__all__ = ["PackBits"]


def _viewed(array: Any, scalar: type[np.generic]) -> np.ndarray[Any, Any]:
    """``array``'s bytes viewed as ``scalar`` (one byte), as numcodecs views them; a numpy
    array of that type already is taken as it is (the view costs more than a small chunk)."""
    if type(array) is np.ndarray and array.dtype.type is scalar:
        return array
    return np.asarray(array).view(scalar)


class PackBits(ArrayArrayCodecBase):
    """numcodecs' ``PackBits()``: boolean arrays only."""

    name: ClassVar[str] = "numcodecs.packbits"
    codec_id: ClassVar[str | None] = "packbits"

    def configuration(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def _check(spec: ChunkSpec | None) -> None:
        if spec is not None and spec.data_type != DataType.from_name("bool"):
            raise UnsupportedError(f"packbits: only bool arrays, not {spec.data_type}")

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """One dimension of ``1 + ceil(n / 8)`` ``uint8`` bytes, filled with 0."""
        self._check(spec)
        count = math.prod(spec.shape)
        return ChunkSpec((1 + (count + 7) // 8,), "uint8", 0)

    def encode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """Pack ``array`` (viewed as booleans, as numcodecs does; flattened in C order)."""
        if spec is not None:
            self._check(spec)
        return _filters.pack_bits(_viewed(array, np.bool_))

    def decode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """Unpack into a new bool array (of ``spec``'s shape when given)."""
        if spec is not None:
            self._check(spec)
        result = _filters.unpack_bits(_viewed(array, np.uint8))
        if spec is None:
            return result
        if result.size != math.prod(spec.shape):
            raise CorruptInputError(
                f"packbits: {result.size} booleans packed, the chunk holds {math.prod(spec.shape)}"
            )
        return result.reshape(spec.shape)

    def decode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Unpacking as a compiled chain kernel."""
        return _filters.unpack_bits_kernel()

    def encode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Packing as a compiled chain kernel."""
        return _filters.pack_bits_kernel()
