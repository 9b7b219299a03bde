"""The Zarr ``gzip`` codec with a Rust core on libdeflate, and numcodecs' ``zlib`` on the same
core.

``Gzip`` and ``Zlib`` are plain Python classes holding their level (so they pickle, copy and
compare as values); the work happens in the compiled ``_gzip`` module with the GIL released.
"""

from __future__ import annotations

import functools
from collections.abc import Buffer, Sequence
from typing import Any, ClassVar, Literal

from zarr_codec_shapes import BytesBytesCodecBase, ChunkSpec, ConfigurationError
from zarr_codec_shapes.codec_json import canonical_configuration

from zarr_codec_gzip import _gzip

__all__ = ["ENGINE", "Gzip", "Zlib"]
__version__ = "0.1.0"

#: The compression library doing the work.
ENGINE: str = _gzip.ENGINE


@functools.cache
def _kernel() -> object:
    """The decode kernel: stateless, so one serves every codec object."""
    return _gzip.decode_kernel()


class Gzip(BytesBytesCodecBase):
    """gzip (RFC 1952) compression at ``level`` 0 (stored) to 9 (smallest).

    Output is reproducible (no file name, mtime 0). Decoding accepts every stream Python's
    ``gzip`` module accepts, checks CRC-32 and size, and raises ``CorruptInputError`` for
    anything else. ``max_decoded_size`` (optional) bounds what ``decode`` may allocate.
    """

    name: ClassVar[str] = "gzip"
    codec_id: ClassVar[str | None] = "gzip"

    def __init__(self, level: int = 5, *, max_decoded_size: int | None = None) -> None:
        # The configuration is validated by the Rust configuration type, nowhere else.
        config = _configured({"level": level}, 3)
        if max_decoded_size is not None and (
            isinstance(max_decoded_size, bool)
            or not isinstance(max_decoded_size, int)
            or max_decoded_size < 0
        ):
            raise ConfigurationError(f"gzip: invalid max_decoded_size {max_decoded_size!r}")
        self.level: int = config["level"]
        self.max_decoded_size = max_decoded_size

    def configuration(self) -> dict[str, Any]:
        return {"level": self.level}

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self.level, self.max_decoded_size)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.level, self.max_decoded_size))

    def __copy__(self) -> Gzip:
        return Gzip(self.level, max_decoded_size=self.max_decoded_size)

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> Gzip:
        return cls(**_configured(config, 3))

    @classmethod
    def from_v2_configuration(cls, config: dict[str, Any]) -> Gzip:
        # numcodecs' defaults (level 1; -1, zlib's default, is 6) are the Rust type's.
        return cls(**_configured(config, 2))

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Compress ``data`` (any buffer; non-contiguous arrays in C order)."""
        return _gzip.encode(data, self.level)

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Decompress a whole gzip stream."""
        return _gzip.decode(data, self.max_decoded_size)

    def encode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Compress into ``out``; ``OutputSizeError`` if it does not fit."""
        return _gzip.encode_into(data, out, self.level)

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Decompress into ``out``; ``OutputSizeError`` as soon as ``out`` is full."""
        return _gzip.decode_into(data, out)

    def max_encoded_size(self, decoded_size: int) -> int:
        """The largest stream ``decoded_size`` bytes can compress to."""
        return _gzip.max_encoded_size(decoded_size, self.level)

    def encode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Compress every chunk, in parallel with the GIL released."""
        return _gzip.encode_batch(list(chunks), self.level, threads)

    def decode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Decompress every chunk, in parallel with the GIL released."""
        return _gzip.decode_batch(list(chunks), self.max_decoded_size, threads)

    def decode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Decoding as a compiled kernel, so that a :class:`zarr_codec_runtime.Chain` of our codecs
        decodes each chunk through all of them in Rust (a stream needs no configuration)."""
        return _kernel()

    def encode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Compression as a compiled kernel for a :class:`zarr_codec_runtime.Chain`."""
        return _gzip.encode_kernel(self.level)

    def decode_batch_into(
        self, chunks: Sequence[Buffer], outs: Sequence[Buffer], threads: int | None = None
    ) -> list[int]:
        """Decompress each chunk into the matching ``out`` (writable, C-contiguous, sharing no
        memory with another ``out`` or any chunk), in parallel with the GIL released; returns
        the bytes written into each."""
        return _gzip.decode_batch_into(list(chunks), list(outs), threads)


def _configured(config: dict[str, Any], zarr_format: Literal[2, 3]) -> dict[str, Any]:
    return canonical_configuration(_gzip.canonical_configuration, "gzip", config, zarr_format)


def _rebuild(level: int, max_decoded_size: int | None) -> Gzip:
    return Gzip(level, max_decoded_size=max_decoded_size)


@functools.cache
def _zlib_kernel() -> object:
    """The zlib decode kernel: stateless, so one serves every codec object."""
    return _gzip.zlib_decode_kernel()


class Zlib(BytesBytesCodecBase):
    """numcodecs' ``zlib`` (RFC 1950 streams), a common Zarr v2 compressor: ``{"id": "zlib",
    "level": N}`` in v2 metadata, ``numcodecs.zlib`` in v3 (as zarr-python names it).

    ``level`` 0 (stored) to 9; in v2 metadata a missing level is numcodecs' 1 and -1 is zlib's
    default, 6. Decoding accepts what numcodecs' ``Zlib`` (``zlib.decompress``) accepts: one
    stream without a preset dictionary, its Adler-32 checked, bytes after it ignored; anything
    else is ``CorruptInputError``. ``max_decoded_size`` (optional) bounds what ``decode`` may
    allocate.
    """

    name: ClassVar[str] = "numcodecs.zlib"
    codec_id: ClassVar[str | None] = "zlib"

    def __init__(self, level: int = 1, *, max_decoded_size: int | None = None) -> None:
        config = _configured_zlib({"level": level}, 3)
        if max_decoded_size is not None and (
            isinstance(max_decoded_size, bool)
            or not isinstance(max_decoded_size, int)
            or max_decoded_size < 0
        ):
            raise ConfigurationError(f"zlib: invalid max_decoded_size {max_decoded_size!r}")
        self.level: int = config["level"]
        self.max_decoded_size = max_decoded_size

    def configuration(self) -> dict[str, Any]:
        return {"level": self.level}

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self.level, self.max_decoded_size)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_zlib, (self.level, self.max_decoded_size))

    def __copy__(self) -> Zlib:
        return Zlib(self.level, max_decoded_size=self.max_decoded_size)

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> Zlib:
        return cls(**_configured_zlib(config, 3))

    @classmethod
    def from_v2_configuration(cls, config: dict[str, Any]) -> Zlib:
        return cls(**_configured_zlib(config, 2))

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Compress ``data`` (any buffer; non-contiguous arrays in C order)."""
        return _gzip.zlib_encode(data, self.level)

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Decompress a zlib stream."""
        return _gzip.zlib_decode(data, self.max_decoded_size)

    def encode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Compress into ``out``; ``OutputSizeError`` if it does not fit."""
        return _gzip.zlib_encode_into(data, out, self.level)

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Decompress into ``out``; ``OutputSizeError`` as soon as ``out`` is full."""
        return _gzip.zlib_decode_into(data, out)

    def max_encoded_size(self, decoded_size: int) -> int:
        """The largest stream ``decoded_size`` bytes can compress to."""
        return _gzip.zlib_max_encoded_size(decoded_size, self.level)

    def decode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Decoding as a compiled kernel for a :class:`zarr_codec_runtime.Chain`."""
        return _zlib_kernel()

    def encode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Compression as a compiled kernel for a :class:`zarr_codec_runtime.Chain`."""
        return _gzip.zlib_encode_kernel(self.level)


def _configured_zlib(config: dict[str, Any], zarr_format: Literal[2, 3]) -> dict[str, Any]:
    name = Zlib.name if zarr_format == 3 else "zlib"
    return canonical_configuration(_gzip.zlib_canonical_configuration, name, config, zarr_format)


def _rebuild_zlib(level: int, max_decoded_size: int | None) -> Zlib:
    return Zlib(level, max_decoded_size=max_decoded_size)
