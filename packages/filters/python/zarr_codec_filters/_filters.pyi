"""Compiled core of zarr-codec-filters: the Rust filters, on the glue's generic bindings. Every
call releases the GIL and raises ``zarr_codec_shapes.CodecError`` subclasses for bad input."""

from typing import Any

import numpy as np
from zarr_codec_shapes.compiled import CompiledArrayCodec, CompiledBytesCodec

def shuffle(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled codec of shuffle metadata ``json`` (JSON text, Zarr format 2 or 3)."""

def bind(configuration: str, dtype: np.dtype[Any]) -> CompiledArrayCodec:
    """Delta, bitround, quantize or astype (v2 JSON text) bound to arrays of ``dtype``."""

def pack_bits(array: Any) -> np.ndarray[Any, Any]:
    """Booleans (flattened in C order) packed into ``1 + ceil(n / 8)`` ``uint8`` bytes."""

def unpack_bits(array: Any) -> np.ndarray[Any, Any]:
    """Packed bytes (the padding byte first) unpacked into a new bool array."""

def pack_bits_kernel() -> object:
    """Packing as a chain kernel."""

def unpack_bits_kernel() -> object:
    """Unpacking as a chain kernel."""
