"""Our codec objects for the codecs of zarr-python's pipelines: which of zarr-python's codec
objects ours take (ours, behind zarr_codec_shapes' adapters; zarr-python's own classes whose
chunks ours read and write identically; its sharding of such codecs; its codec for Zarr v2
arrays without filters) and ours for each. ``ChainCodecPipeline`` builds its chains from these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from zarr_codec_runtime import Sharding, Transpose
from zarr_codec_runtime.chain import NATIVE
from zarr_codec_shapes.bytes_codec import BytesCodec
from zarr_codec_shapes.registry import get_codec

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
        return V2Chunks(None if compressor is None else _v2_compressor(compressor))
    if _qualified(type(codec)) == _SHARDING:
        return Sharding(
            chunk_shape=tuple(codec.chunk_shape),
            codecs=tuple(ours(inner) for inner in codec.codecs),
            index_codecs=tuple(ours(inner) for inner in codec.index_codecs),
            index_location=str(getattr(codec.index_location, "value", codec.index_location)),
            write_order=getattr(codec, "subchunk_write_order", "morton"),
        )
    data = codec.to_dict()
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
        "zarr.codecs.numcodecs._codecs.LZ4",
        "zarr.codecs.numcodecs._codecs.BZ2",
        "zarr.codecs.numcodecs._codecs.LZMA",
        "zarr.codecs.numcodecs._codecs.CRC32",
        "zarr.codecs.numcodecs._codecs.Adler32",
        "zarr.codecs.numcodecs._codecs.Fletcher32",
        "zarr.codecs.numcodecs._codecs.JenkinsLookup3",
        "zarr.codecs.transpose.TransposeCodec",
    }
)


#: zarr-python's sharding codec, which ours runs when it can run every codec inside it.
_SHARDING = "zarr.codecs.sharding.ShardingCodec"
#: zarr-python's codec for Zarr v2 arrays: numcodecs filters and compressor.
_V2 = "zarr.codecs._v2.V2Codec"


@dataclass(frozen=True)
class V2Chunks:
    """A Zarr v2 array's chunks without filters: the elements in the array's byte order and
    memory order (Fortran order: dimensions reversed), then ``compressor`` (ours, from its
    numcodecs configuration) if any. Made into a v3 chain per chunk spec (:func:`v2_chain`)."""

    compressor: Any | None


def _v2_compressor(compressor: Any) -> Any:
    """Ours for a numcodecs compressor, from its configuration (raises when we lack it)."""
    return get_codec(compressor.get_config(), 2)


def v2_chain(chunks: V2Chunks, spec: ArraySpec) -> tuple[Any, ...]:
    """The v3 codecs that store a v2 array's chunks as zarr-python's ``V2Codec`` does, for
    chunks of ``spec``: the elements' bytes as they are (an array of the other byte order is
    handed over and stored in that order: :class:`StoredOrderChain` takes it)."""
    dtype = spec.dtype.to_native_dtype()
    endian = BytesCodec(NATIVE if dtype.itemsize > 1 else None)
    codecs: tuple[Any, ...] = (endian,)
    if spec.order == "F" and len(spec.shape) > 1:
        codecs = (Transpose.reversing(len(spec.shape)), endian)
    return codecs if chunks.compressor is None else (*codecs, chunks.compressor)


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
        return not codec.filters
    return _qualified(cls) in _ZARR_EQUIVALENTS
