"""The codec protocols: what a Zarr chunk codec is, structurally.

A codec satisfies these by having the methods; nothing has to inherit from anything here
(:class:`zarr_codec_shapes.CodecBase` is an optional helper). Every method works on a single chunk
and
is synchronous; asynchronous and batch execution are opt-in extras with their own protocols.

Buffers are anything that supports the buffer protocol (``bytes``, ``memoryview``, a numpy
array). Arrays are numpy arrays, or any array of the array API for codecs that declare it, so
the protocols assume nothing about where memory lives.
"""

from __future__ import annotations

from collections.abc import Buffer, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self, runtime_checkable

if TYPE_CHECKING:
    from zarr_codec_shapes.capabilities import PartialDecodeCapability, RecommendedConcurrency
    from zarr_codec_shapes.chunk_spec import ChunkSpec

__all__ = [
    "ArrayArrayCodec",
    "ArrayBytesCodec",
    "BytesBytesCodec",
    "Codec",
    "CodecType",
    "SupportsAsync",
    "SupportsBatch",
    "SupportsDecodeKernel",
    "SupportsEncodeKernel",
    "SupportsEncodedSize",
    "SupportsEvolve",
    "ZarrFormat",
]

ZarrFormat = Literal[2, 3]
#: Where a codec sits in a chain. Structural checks alone cannot tell a bytes->bytes codec
#: from an array->bytes one (both have ``encode``/``decode``), so every codec says.
CodecType = Literal["array_array", "array_bytes", "bytes_bytes"]


@runtime_checkable
class Codec(Protocol):
    """What every codec has: a name, JSON in both Zarr formats, and value semantics.

    Codecs are values: equal configurations compare equal and hash alike; ``copy`` and
    ``pickle`` round-trip them.
    """

    # Read-only members, so a class attribute (``name: ClassVar[str] = "gzip"``) satisfies them.
    @property
    def name(self) -> str:
        """The Zarr v3 name, e.g. ``"gzip"``."""
        ...

    @property
    def codec_id(self) -> str | None:
        """The Zarr v2 / numcodecs id, or ``None`` when the codec has no v2 form."""
        ...

    @property
    def codec_type(self) -> CodecType:
        """``"array_array"``, ``"array_bytes"`` or ``"bytes_bytes"``."""
        ...

    def to_json(self, zarr_format: ZarrFormat = 3) -> dict[str, Any]:
        """The codec's metadata: v3 ``{"name", "configuration"}`` or v2 ``{"id", ...}``."""
        ...

    @classmethod
    def from_json(cls, data: Any, zarr_format: ZarrFormat = 3) -> Self:
        """Build the codec from its metadata; ``ConfigurationError`` if invalid."""
        ...

    def recommended_concurrency(self, spec: ChunkSpec) -> RecommendedConcurrency:
        """How many threads the codec can use on one chunk of ``spec`` (the decoded chunk)."""
        ...

    def partial_decode_capability(self) -> PartialDecodeCapability:
        """Whether part of a chunk can be read or decoded without the rest."""
        ...


# One call shape for the three kinds: ``encode(chunk, spec)``, ``decode(chunk, spec)``,
# ``encode_into(chunk, out, spec) -> int`` and ``decode_into(chunk, out, spec) -> int`` (bytes
# written). ``spec`` describes the decoded chunk; bytes -> bytes codecs accept it, may ignore
# it, and let it be left out.


@runtime_checkable
class BytesBytesCodec(Codec, Protocol):
    """A codec from bytes to bytes (compressors, checksums)."""

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> Buffer:
        """Encode a whole chunk."""
        ...

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> Buffer:
        """Decode a whole chunk."""
        ...

    def encode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Encode into the writable buffer ``out``; return the number of bytes written."""
        ...

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Decode into the writable buffer ``out``; return the number of bytes written.

        Never writes past ``out``: output that would not fit raises ``OutputSizeError``.
        """
        ...

    def max_encoded_size(self, decoded_size: int) -> int | None:
        """An upper bound on the encoded size of ``decoded_size`` bytes, or ``None``."""
        ...


@runtime_checkable
class ArrayArrayCodec(Codec, Protocol):
    """A codec from arrays to arrays (casts, scale/offset, transpose)."""

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The spec of the encoded chunk (its data type and fill value after encoding)."""
        ...

    def encode(self, array: Any, spec: ChunkSpec) -> Any:
        """Encode a chunk described by ``spec`` (the decoded side)."""
        ...

    def decode(self, array: Any, spec: ChunkSpec) -> Any:
        """Decode a chunk; ``spec`` describes the decoded side."""
        ...

    def encode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Encode into the caller's array ``out`` (the encoded chunk's shape and data type);
        return the number of bytes written."""
        ...

    def decode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Decode into the caller's array ``out`` (shape and data type of ``spec``); return the
        number of bytes written."""
        ...


@runtime_checkable
class ArrayBytesCodec(Codec, Protocol):
    """A codec from arrays to bytes (``bytes``, ``sharding_indexed``)."""

    def encode(self, array: Any, spec: ChunkSpec) -> Buffer:
        """Serialise a chunk described by ``spec``."""
        ...

    def decode(self, data: Buffer, spec: ChunkSpec) -> Any:
        """Deserialise a chunk into a new array of ``spec``'s shape and data type."""
        ...

    def encode_into(self, array: Any, out: Buffer, spec: ChunkSpec) -> int:
        """Serialise into the writable buffer ``out``; return the number of bytes written."""
        ...

    def decode_into(self, data: Buffer, out: Any, spec: ChunkSpec) -> int:
        """Deserialise into the caller's array ``out``; return the number of bytes written."""
        ...


@runtime_checkable
class SupportsAsync(Protocol):
    """Opt-in: awaitable single-chunk encode/decode (same arguments as the sync methods)."""

    async def encode_async(self, data: Any, *args: Any) -> Any:
        """Encode without blocking the event loop."""
        ...

    async def decode_async(self, data: Any, *args: Any) -> Any:
        """Decode without blocking the event loop."""
        ...


@runtime_checkable
class SupportsBatch(Protocol):
    """Opt-in: many chunks per call, typically in parallel with the GIL released."""

    def encode_batch(self, chunks: Sequence[Any], *args: Any) -> list[Any]:
        """Encode every chunk; results in the same order."""
        ...

    def decode_batch(self, chunks: Sequence[Any], *args: Any) -> list[Any]:
        """Decode every chunk; results in the same order."""
        ...


@runtime_checkable
class SupportsEncodedSize(Protocol):
    """Opt-in: a bytes codec whose output size follows from its input size alone (checksums
    such as crc32c). zarr-python's sharding codec requires such codecs for the shard index."""

    def encoded_size(self, decoded_size: int) -> int:
        """The exact encoded size of ``decoded_size`` bytes."""
        ...


@runtime_checkable
class SupportsEvolve(Protocol):
    """Opt-in: fill in configuration left unset from the array (blosc's typesize)."""

    def evolve(self, spec: ChunkSpec) -> Self:
        """A codec with unset parameters resolved for arrays like ``spec``."""
        ...


@runtime_checkable
class SupportsDecodeKernel(Protocol):
    """Opt-in: the codec's decoding as a compiled kernel, so that a chain made only of such
    codecs decodes each chunk through every codec in Rust (``zarr_codec_runtime``), with no
    Python call per chunk or per codec (``zarr_codec_python``'s kernel ABI: a capsule named
    ``zarr_codec_shapes.kernel.v1``)."""

    def decode_kernel(self, spec: ChunkSpec) -> object:
        """The kernel (an opaque capsule) for chunks whose decoded side is ``spec`` (array
        codecs; bytes codecs ignore it)."""
        ...


@runtime_checkable
class SupportsEncodeKernel(Protocol):
    """Opt-in: the codec's encoding as a compiled kernel, the counterpart of
    :class:`SupportsDecodeKernel`."""

    def encode_kernel(self, spec: ChunkSpec) -> object | None:
        """The kernel for chunks whose decoded side is ``spec`` (bytes codecs ignore it), or
        ``None`` when the codec cannot encode without more configuration."""
        ...
