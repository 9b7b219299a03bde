"""Our codec objects for the codecs of zarr-python's pipelines: which of zarr-python's codec
objects ours take (ours, behind zarr_codec_shapes' adapters; zarr-python's own classes whose
chunks ours read and write identically; its sharding of such codecs; its codec for Zarr v2
arrays without filters) and ours for each. ``ChainCodecPipeline`` builds its chains from these.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from zarr_codec_runtime import Sharding, Transpose
from zarr_codec_runtime.chain import NATIVE
from zarr_codec_shapes import ChunkSpec, DataType
from zarr_codec_shapes.bytes_codec import BytesCodec
from zarr_codec_shapes.registry import get_codec

from zarr_codecs._strings import LAYOUTS, Strings

if TYPE_CHECKING:
    from zarr.core.array_spec import ArraySpec

__all__ = ["V2Chunks", "foreign_byte_order", "ours", "replaceable", "v2_chain"]


def ours(codec: Any) -> Any:
    """Our codec object for one of the pipeline's: the one our adapter already holds, or, for
    zarr-python's own classes, ours made from its JSON (the only form they share); for
    zarr-python's sharding, ours of its inner and index codecs."""
    held = getattr(codec, "codec", None)
    if type(codec).__module__.startswith("zarr_codec") and held is not None:
        return held
    if _qualified(type(codec)) == _V2:
        compressor = codec.compressor
        filters = tuple(_v2_filter(f) for f in codec.filters or ())
        return V2Chunks(None if compressor is None else _v2_compressor(compressor), filters)
    if _qualified(type(codec)) == _SHARDING:
        return Sharding(
            chunk_shape=tuple(codec.chunk_shape),
            codecs=tuple(ours(inner) for inner in codec.codecs),
            index_codecs=tuple(ours(inner) for inner in codec.index_codecs),
            index_location=str(getattr(codec.index_location, "value", codec.index_location)),
            write_order=getattr(codec, "subchunk_write_order", "morton"),
        )
    data = codec.to_dict()
    if data.get("name") in LAYOUTS:
        return Strings(LAYOUTS[data["name"]])
    if data.get("name") == "transpose":
        return Transpose.from_json(data, 3)
    if data.get("name") == "bytes":
        return BytesCodec.from_json(data, 3)
    return get_codec(data, 3)


#: zarr-python's own codec classes whose chunks ours read and write identically (exact
#: classes: a subclass may behave differently).
_ZARR_EQUIVALENTS = frozenset(
    {
        "zarr.codecs.bytes.BytesCodec",
        "zarr.codecs.gzip.GzipCodec",
        "zarr.codecs.blosc.BloscCodec",
        "zarr.codecs.zstd.ZstdCodec",
        "zarr.codecs.crc32c_.Crc32cCodec",
        "zarr.codecs.cast_value.CastValue",
        "zarr.codecs.scale_offset.ScaleOffset",
        "zarr.codecs.numcodecs._codecs.FixedScaleOffset",
        "zarr.codecs.numcodecs._codecs.Zlib",
        "zarr.codecs.numcodecs._codecs.LZ4",
        "zarr.codecs.numcodecs._codecs.BZ2",
        "zarr.codecs.numcodecs._codecs.LZMA",
        "zarr.codecs.numcodecs._codecs.PCodec",
        "zarr.codecs.numcodecs._codecs.ZFPY",
        "zarr.codecs.numcodecs._codecs.Shuffle",
        "zarr.codecs.numcodecs._codecs.Delta",
        "zarr.codecs.numcodecs._codecs.BitRound",
        "zarr.codecs.numcodecs._codecs.Quantize",
        "zarr.codecs.numcodecs._codecs.AsType",
        "zarr.codecs.numcodecs._codecs.PackBits",
        "zarr.codecs.numcodecs._codecs.CRC32",
        "zarr.codecs.numcodecs._codecs.Adler32",
        "zarr.codecs.numcodecs._codecs.Fletcher32",
        "zarr.codecs.numcodecs._codecs.JenkinsLookup3",
        "zarr.codecs.transpose.TransposeCodec",
        "zarr.codecs.vlen_utf8.VLenUTF8Codec",
        "zarr.codecs.vlen_utf8.VLenBytesCodec",
    }
)


#: zarr-python's sharding codec, which ours runs when it can run every codec inside it.
_SHARDING = "zarr.codecs.sharding.ShardingCodec"
#: zarr-python's codec for Zarr v2 arrays: numcodecs filters and compressor.
_V2 = "zarr.codecs._v2.V2Codec"


@dataclass(frozen=True)
class V2Chunks:
    """A Zarr v2 array's chunks: the elements in the array's memory order (Fortran order:
    dimensions reversed), through ``filters`` (ours, array to array, in order), in their byte
    order, then ``compressor`` (ours) if any; each from its numcodecs configuration. Made
    into a v3 chain per chunk spec (:func:`v2_chain`)."""

    compressor: Any | None
    filters: tuple[Any, ...] = ()


def _v2_compressor(compressor: Any) -> Any:
    """Ours for a numcodecs compressor, from its configuration (raises when we lack it)."""
    return get_codec(compressor.get_config(), 2)


def _v2_filter(codec: Any) -> Any:
    """Ours for a numcodecs filter, from its configuration: one of our classes, never
    numcodecs' own through the registry's fallback (raises when we lack it, and zarr-python
    runs the array)."""
    config = codec.get_config()
    if config.get("id") in LAYOUTS:
        return Strings(LAYOUTS[config["id"]])
    found = get_codec(config, 2)
    if not type(found).__module__.startswith("zarr_codec"):
        raise TypeError(f"no filter of ours for {codec.get_config()!r}")
    return found


def v2_chain(chunks: V2Chunks, spec: ArraySpec) -> tuple[Any, ...]:
    """The v3 codecs that store a v2 array's chunks as zarr-python's ``V2Codec`` does, for
    chunks of ``spec``: the filters on the chunk in its memory order, then the elements' bytes
    as they are (an array of the other byte order is handed over and stored in that order:
    :class:`StoredOrderChain` takes it), then the compressor."""
    dtype = spec.dtype.to_native_dtype()
    if chunks.filters and not dtype.isnative:
        # numcodecs' filters write their own byte order (little-endian): the stored-order
        # chain's swap would apply to their output, not the array's.
        raise TypeError("v2 filters on an array of the other byte order")
    itemsize = _encoded_itemsize(chunks.filters, dtype)
    endian = BytesCodec(NATIVE if itemsize > 1 else None)
    codecs: tuple[Any, ...] = (*chunks.filters, endian)
    if spec.order == "F" and len(spec.shape) > 1:
        codecs = (Transpose.reversing(len(spec.shape)), *codecs)
    return codecs if chunks.compressor is None else (*codecs, chunks.compressor)


def _encoded_itemsize(filters: tuple[Any, ...], dtype: np.dtype[Any]) -> int:
    """The item size of what ``filters`` encode chunks of ``dtype`` to, each filter resolving
    the spec the one before it gives; refused (``TypeError``) where a filter's configuration
    names a big-endian type: numcodecs' filters write little-endian elements, the order
    ``BytesCodec(NATIVE)`` stores on this machine."""
    spec = ChunkSpec((1,), DataType.from_numpy(dtype))
    for codec in filters:
        config = codec.to_json(2)
        named = [v for k, v in config.items() if k.endswith("dtype") or k == "astype"]
        if any(np.dtype(v).byteorder == ">" for v in named if isinstance(v, str)):
            raise TypeError(f"v2 filter {config!r}: big-endian elements")
        spec = codec.resolve(spec)
    itemsize = int(spec.numpy_dtype.itemsize)
    if itemsize > 1 and sys.byteorder != "little":
        raise TypeError("v2 filters write little-endian elements")
    return itemsize


def foreign_byte_order(spec: ArraySpec) -> Literal["<", ">"] | None:
    """The byte order zarr-python hands the chunks of ``spec`` over in, when it is not this
    machine's (Zarr v2 data types such as ``">f4"``); ``None`` when it is."""
    dtype = spec.dtype.to_native_dtype()
    if dtype.isnative:
        return None
    return "<" if dtype.byteorder == "<" else ">"


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def replaceable(codec: Any) -> bool:
    """Ours (the zarr_codec_shapes adapters of our wheels), one of :data:`_ZARR_EQUIVALENTS`,
    or zarr-python's sharding of codecs that are."""
    cls = type(codec)
    if cls.__module__.startswith("zarr_codec"):
        return True
    if _qualified(cls) == _SHARDING:
        return all(replaceable(inner) for inner in (*codec.codecs, *codec.index_codecs))
    if _qualified(cls) == _V2:
        return True  # filters and compressor: ours or not is known when they are made ours
    return _qualified(cls) in _ZARR_EQUIVALENTS
