"""``zarr_codec_shapes.v1``: the codec API that never breaks.

What a codec package or a Zarr implementation programs against: the codec protocols and their
base classes, ``ChunkSpec``, the data types and fill values, the one error hierarchy, the
registry functions and (in :mod:`zarr_codec_shapes.v1.testing`) the conformance kit.

The rule: nothing here is removed or changed incompatibly. A breaking change becomes a ``v2``
beside this module, with adapters both ways, so that a Zarr implementation can move to ``v2``
while codecs written for ``v1`` keep working, and each side releases on its own schedule.
The package root re-exports these names; a test compares them and their signatures with a
committed snapshot, so any change to them is deliberate.
"""

from __future__ import annotations

from zarr_codec_shapes.base import (
    ArrayArrayCodecBase,
    ArrayBytesCodecBase,
    BytesBytesCodecBase,
    CodecBase,
)
from zarr_codec_shapes.capabilities import PartialDecodeCapability, RecommendedConcurrency
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.codec_json import check_keys, split_codec_json
from zarr_codec_shapes.data_types import DataType, FloatFormat, Kind
from zarr_codec_shapes.devices import device_of, require_device, supported_devices
from zarr_codec_shapes.errors import (
    BufferTypeError,
    CodecError,
    ConfigurationError,
    CorruptInputError,
    DeviceError,
    OutOfRangeError,
    OutputSizeError,
    UnknownCodecError,
    UnsupportedError,
)
from zarr_codec_shapes.fill_value import fill_value_from_json, fill_value_to_json
from zarr_codec_shapes.protocols import (
    ArrayArrayCodec,
    ArrayBytesCodec,
    BytesBytesCodec,
    Codec,
    CodecType,
    SupportsAsync,
    SupportsBatch,
    SupportsEncodedSize,
    SupportsEvolve,
    ZarrFormat,
)
from zarr_codec_shapes.registry import (
    available_codecs,
    get_codec,
    get_codec_class,
    register_codec,
    unregister_codec,
)

__all__ = [
    "ArrayArrayCodec",
    "ArrayArrayCodecBase",
    "ArrayBytesCodec",
    "ArrayBytesCodecBase",
    "BufferTypeError",
    "BytesBytesCodec",
    "BytesBytesCodecBase",
    "ChunkSpec",
    "Codec",
    "CodecBase",
    "CodecError",
    "CodecType",
    "ConfigurationError",
    "CorruptInputError",
    "DataType",
    "DeviceError",
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
    "available_codecs",
    "check_keys",
    "device_of",
    "fill_value_from_json",
    "fill_value_to_json",
    "get_codec",
    "get_codec_class",
    "register_codec",
    "require_device",
    "split_codec_json",
    "supported_devices",
    "unregister_codec",
]
