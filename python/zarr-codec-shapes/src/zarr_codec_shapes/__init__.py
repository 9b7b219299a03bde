"""zarr-codec-shapes: the Zarr chunk codec API.

Protocols and data types for Zarr chunk codecs, their v2 and v3 JSON, a registry fed by entry
points, adapters to zarr-python and numcodecs, and a conformance kit. It imports neither
zarr-python nor numcodecs: both can depend on it, and codec packages need nothing else.
"""

from __future__ import annotations

# The stable API is v1's (see zarr_codec_shapes.v1); the root re-exports it, plus the bytes
# codec, which is not part of the API (chains run in zarr_codec_runtime).
from zarr_codec_shapes.bytes_codec import BytesCodec
from zarr_codec_shapes.v1 import (
    ArrayArrayCodec,
    ArrayArrayCodecBase,
    ArrayBytesCodec,
    ArrayBytesCodecBase,
    BufferTypeError,
    BytesBytesCodec,
    BytesBytesCodecBase,
    ChunkSpec,
    Codec,
    CodecBase,
    CodecError,
    CodecType,
    ConfigurationError,
    CorruptInputError,
    DataType,
    FloatFormat,
    Kind,
    OutOfRangeError,
    OutputSizeError,
    PartialDecodeCapability,
    RecommendedConcurrency,
    SupportsAsync,
    SupportsBatch,
    SupportsEncodedSize,
    SupportsEvolve,
    UnknownCodecError,
    UnsupportedError,
    ZarrFormat,
    available_codecs,
    check_keys,
    fill_value_from_json,
    fill_value_to_json,
    get_codec,
    get_codec_class,
    register_codec,
    split_codec_json,
    unregister_codec,
)

__version__ = "0.1.0"

__all__ = [
    "ArrayArrayCodec",
    "ArrayArrayCodecBase",
    "ArrayBytesCodec",
    "ArrayBytesCodecBase",
    "BufferTypeError",
    "BytesBytesCodec",
    "BytesBytesCodecBase",
    "BytesCodec",
    "ChunkSpec",
    "Codec",
    "CodecBase",
    "CodecError",
    "CodecType",
    "ConfigurationError",
    "CorruptInputError",
    "DataType",
    "FloatFormat",
    "Kind",
    "OutOfRangeError",
    "OutputSizeError",
    "PartialDecodeCapability",
    "RecommendedConcurrency",
    "SupportsAsync",
    "SupportsBatch",
    "SupportsEncodedSize",
    "SupportsEvolve",
    "UnknownCodecError",
    "UnsupportedError",
    "ZarrFormat",
    "__version__",
    "available_codecs",
    "check_keys",
    "fill_value_from_json",
    "fill_value_to_json",
    "get_codec",
    "get_codec_class",
    "register_codec",
    "split_codec_json",
    "unregister_codec",
]
