"""Compiled core of zarr-codec-cast-value. Every function releases the GIL while casting and
raises ``zarr_codec_shapes.CodecError`` subclasses: ``OutOfRangeError`` for an element the rules
refuse, ``ConfigurationError`` for a bad configuration or a mismatched array."""

from typing import Any

import numpy as np
from zarr_codec_shapes.compiled import CompiledArrayCodec

def bind(
    configuration: str, dtype: np.dtype[Any], encoded_dtype: np.dtype[Any]
) -> CompiledArrayCodec:
    """The codec (its v3 JSON as a string) bound to arrays of ``dtype``: encoding casts them
    to ``encoded_dtype`` (the codec's ``data_type``), decoding casts back (both planned once),
    as the glue's element-wise binding."""

def check_configuration(configuration: str) -> None: ...
def encoded_fill_value(configuration: str, data_type: str, fill: str) -> str: ...
