"""Compiled core of zarr-codec-zfpy (zfp 1.0.1). Bad input raises ``zarr_codec_shapes.CodecError``
subclasses; each call releases the GIL while it works."""

from typing import Any

import numpy as np
from zarr_codec_shapes.compiled import CompiledBytesCodec

#: The library doing the work.
ENGINE: str

def encode(json: str, zarr_format: int, array: Any) -> bytes:
    """``array`` (C order, one to four dimensions) as one zfp stream with its full header."""

def decode_into(data: Any, out: np.ndarray[Any, Any]) -> None:
    """The stream ``data`` into ``out``, which must be of the type and shape its header
    states."""

def decode_any(data: Any, limit: int | None = None) -> tuple[str, list[int], bytes]:
    """A whole stream: its Zarr data type name, shape and bytes (refused beyond ``limit``)."""

def element_codec(
    json: str, zarr_format: int, data_type: str, shape: list[int]
) -> CompiledBytesCodec:
    """The codec over chunks of ``data_type`` and ``shape`` as a compiled bytes codec of their
    element bytes."""

def header(data: Any) -> tuple[str, list[int]]:
    """The Zarr data type name and shape (C order) a stream's full header states."""
