"""The Zarr ``gzip`` codec with a Rust core on libdeflate, and numcodecs' ``zlib`` on the same
core.

``Gzip`` and ``Zlib`` are plain Python classes holding their level (so they pickle, copy and
compare as values); the work happens in the compiled ``_gzip`` module with the GIL released.
"""

from __future__ import annotations

import functools
from collections.abc import Buffer, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from zarr_codec_shapes import BytesBytesCodecBase, ChunkSpec, ConfigurationError
from zarr_codec_shapes.codec_json import canonical_configuration

from zarr_codec_gzip import _gzip

__all__ = ["ENGINE", "Gzip", "Zlib"]
__version__ = "0.1.0"

#: The compression library doing the work.
ENGINE: str = _gzip.ENGINE


@dataclass(frozen=True)
class _Core:
    """The compiled functions of one container format (gzip or zlib) over the deflate core."""

    encode: Callable[[Buffer, int], bytes]
    encode_into: Callable[[Buffer, Buffer, int], int]
    decode: Callable[[Buffer, int | None], bytes]
    decode_into: Callable[[Buffer, Buffer], int]
    max_encoded_size: Callable[[int, int], int]
    decode_kernel: Callable[[], object]
    encode_kernel: Callable[[int], object]
    canonical_configuration: Callable[[str, int], str]


_GZIP = _Core(
    _gzip.encode,
    _gzip.encode_into,
    _gzip.decode,
    _gzip.decode_into,
    _gzip.max_encoded_size,
    functools.cache(_gzip.decode_kernel),  # stateless: one kernel serves every codec object
    _gzip.encode_kernel,
    _gzip.canonical_configuration,
)
_ZLIB = _Core(
    _gzip.zlib_encode,
    _gzip.zlib_encode_into,
    _gzip.zlib_decode,
    _gzip.zlib_decode_into,
    _gzip.zlib_max_encoded_size,
    functools.cache(_gzip.zlib_decode_kernel),
    _gzip.zlib_encode_kernel,
    _gzip.zlib_canonical_configuration,
)


class _Deflate(BytesBytesCodecBase):
    """What ``Gzip`` and ``Zlib`` share: a level, an optional bound on what ``decode`` may
    allocate, and the compiled functions of their container format."""

    _core: ClassVar[_Core]
    _v2_id: ClassVar[str]

    def __init__(self, level: int, *, max_decoded_size: int | None = None) -> None:
        # The configuration is validated by the Rust configuration type, nowhere else.
        config = self._configured({"level": level}, 3)
        if max_decoded_size is not None and (
            isinstance(max_decoded_size, bool)
            or not isinstance(max_decoded_size, int)
            or max_decoded_size < 0
        ):
            raise ConfigurationError(
                f"{self._v2_id}: invalid max_decoded_size {max_decoded_size!r}"
            )
        self.level: int = config["level"]
        self.max_decoded_size = max_decoded_size

    @classmethod
    def _configured(cls, config: dict[str, Any], zarr_format: Literal[2, 3]) -> dict[str, Any]:
        name = cls.name if zarr_format == 3 else cls._v2_id
        check = cls._core.canonical_configuration
        return canonical_configuration(check, name, config, zarr_format)

    def configuration(self) -> dict[str, Any]:
        return {"level": self.level}

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self.level, self.max_decoded_size)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.level, self.max_decoded_size))

    def __copy__(self) -> Self:
        return type(self)(self.level, max_decoded_size=self.max_decoded_size)

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> Self:
        return cls(**cls._configured(config, 3))

    @classmethod
    def from_v2_configuration(cls, config: dict[str, Any]) -> Self:
        # numcodecs' defaults (level 1; -1, zlib's default, is 6) are the Rust type's.
        return cls(**cls._configured(config, 2))

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Compress ``data`` (any buffer; non-contiguous arrays in C order)."""
        return self._core.encode(data, self.level)

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Decompress a whole stream."""
        return self._core.decode(data, self.max_decoded_size)

    def encode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Compress into ``out``; ``OutputSizeError`` if it does not fit."""
        return self._core.encode_into(data, out, self.level)

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Decompress into ``out``; ``OutputSizeError`` as soon as ``out`` is full."""
        return self._core.decode_into(data, out)

    def max_encoded_size(self, decoded_size: int) -> int:
        """The largest stream ``decoded_size`` bytes can compress to."""
        return self._core.max_encoded_size(decoded_size, self.level)

    def decode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Decoding as a compiled kernel, so that a :class:`zarr_codec_runtime.Chain` of our codecs
        decodes each chunk through all of them in Rust (a stream needs no configuration)."""
        return self._core.decode_kernel()

    def encode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Compression as a compiled kernel for a :class:`zarr_codec_runtime.Chain`."""
        return self._core.encode_kernel(self.level)


class Gzip(_Deflate):
    """gzip (RFC 1952) compression at ``level`` 0 (stored) to 9 (smallest).

    Output is reproducible (no file name, mtime 0). Decoding accepts every stream Python's
    ``gzip`` module accepts, checks CRC-32 and size, and raises ``CorruptInputError`` for
    anything else. ``max_decoded_size`` (optional) bounds what ``decode`` may allocate.
    """

    name: ClassVar[str] = "gzip"
    codec_id: ClassVar[str | None] = "gzip"
    _core: ClassVar[_Core] = _GZIP
    _v2_id: ClassVar[str] = "gzip"

    def __init__(self, level: int = 5, *, max_decoded_size: int | None = None) -> None:
        super().__init__(level, max_decoded_size=max_decoded_size)

    def encode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Compress every chunk, in parallel with the GIL released."""
        return _gzip.encode_batch(list(chunks), self.level, threads)

    def decode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Decompress every chunk, in parallel with the GIL released."""
        return _gzip.decode_batch(list(chunks), self.max_decoded_size, threads)

    def decode_batch_into(
        self, chunks: Sequence[Buffer], outs: Sequence[Buffer], threads: int | None = None
    ) -> list[int]:
        """Decompress each chunk into the matching ``out`` (writable, C-contiguous, sharing no
        memory with another ``out`` or any chunk), in parallel with the GIL released; returns
        the bytes written into each."""
        return _gzip.decode_batch_into(list(chunks), list(outs), threads)


class Zlib(_Deflate):
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
    _core: ClassVar[_Core] = _ZLIB
    _v2_id: ClassVar[str] = "zlib"

    def __init__(self, level: int = 1, *, max_decoded_size: int | None = None) -> None:
        super().__init__(level, max_decoded_size=max_decoded_size)


def _rebuild(cls: type[_Deflate], level: int, max_decoded_size: int | None) -> _Deflate:
    return cls(level, max_decoded_size=max_decoded_size)
