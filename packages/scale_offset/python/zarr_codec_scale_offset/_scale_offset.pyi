"""Compiled core of zarr-codec-scale-offset. Every method releases the GIL while working and
raises ``zarr_codec_shapes.CodecError`` subclasses: ``OutOfRangeError`` for an integer result
outside
the type's range or an inexact division, ``ConfigurationError`` for bad parameters or a
mismatched array."""

from typing import Any

import numpy as np
from zarr_codec_shapes.compiled import CompiledArrayCodec

def bind(
    configuration: str,
    dtype: np.dtype[Any],
    cast_value: str | None = None,
    encoded_dtype: np.dtype[Any] | None = None,
) -> CompiledArrayCodec:
    """The codec (its v3 JSON as a string) bound to an array's numpy dtype; with a following
    ``cast_value`` (its JSON) and the encoded dtype, the two fused into one pass."""

def legacy(
    configuration: str, dtype: np.dtype[Any], encoded_dtype: np.dtype[Any]
) -> CompiledArrayCodec:
    """numcodecs' ``fixedscaleoffset`` from its v2 JSON (a string), from ``dtype`` (its
    ``dtype``) into ``encoded_dtype`` (its ``astype``), both native order."""

def check_configuration(configuration: str) -> None: ...
def encoded_fill_value(configuration: str, data_type: str, fill: str) -> str: ...
