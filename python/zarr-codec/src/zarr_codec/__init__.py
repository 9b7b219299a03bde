"""zarr-codec: the Zarr chunk codec API.

Protocols and data types for Zarr chunk codecs, their v2 and v3 JSON, a registry fed by entry
points, adapters to zarr-python and numcodecs, and a conformance kit. It imports neither
zarr-python nor numcodecs: both can depend on it, and codec packages need nothing else.
"""

from __future__ import annotations

from zarr_codec.base import (
    ArrayArrayCodecBase,
    ArrayBytesCodecBase,
    BytesBytesCodecBase,
    CodecBase,
)
from zarr_codec.bytes_codec import BytesCodec
from zarr_codec.chain import Chain
from zarr_codec.chunk_spec import ChunkSpec
from zarr_codec.codec_json import check_keys, split_codec_json
from zarr_codec.data_types import DataType, FloatFormat, Kind
from zarr_codec.errors import (
    BufferTypeError,
    CodecError,
    ConfigurationError,
    CorruptInputError,
    OutOfRangeError,
    OutputSizeError,
    UnknownCodecError,
    UnsupportedError,
)
from zarr_codec.fill_value import fill_value_from_json, fill_value_to_json
from zarr_codec.protocols import (
    ArrayArrayCodec,
    ArrayBytesCodec,
    BytesBytesCodec,
    Codec,
    CodecType,
    SupportsAsync,
    SupportsBatch,
    SupportsEvolve,
    ZarrFormat,
)
from zarr_codec.registry import (
    available_codecs,
    get_codec,
    get_codec_class,
    register_codec,
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
    "Chain",
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
    "SupportsAsync",
    "SupportsBatch",
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
