"""The Zarr ``zstd`` codec with a Rust core on libzstd.

``Zstd`` is a plain Python class holding its level and checksum flag (so it pickles, copies
and compares as a value); the work happens in the compiled ``_zstd`` module with the GIL
released.
"""

from __future__ import annotations

import functools
from collections.abc import Buffer, Sequence
from typing import Any, ClassVar, Literal

from zarr_codec_shapes import BytesBytesCodecBase, ChunkSpec, ConfigurationError
from zarr_codec_shapes.codec_json import canonical_configuration

from zarr_codec_zstd import _zstd

__all__ = ["ENGINE", "MAX_LEVEL", "MIN_LEVEL", "Zstd"]
__version__ = "0.1.0"

#: The compression library doing the work.
ENGINE: str = _zstd.ENGINE
#: The level range of the Zarr v3 spec (and of libzstd).
MIN_LEVEL = -131072
MAX_LEVEL = 22
#: numcodecs' ``Zstd.DEFAULT_CLEVEL``: the level of a v2 configuration without one.
NUMCODECS_DEFAULT_LEVEL = 0


@functools.cache
def _kernel() -> object:
    """The decode kernel: stateless, so one serves every codec object."""
    return _zstd.decode_kernel()


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Zstd(BytesBytesCodecBase):
    """Zstandard compression at ``level`` -131072 (fastest) to 22 (smallest), 0 meaning
    libzstd's default (3); ``checksum`` stores a content checksum in each frame.

    Decoding reads every frame numcodecs and the ``zstandard`` package write (several frames,
    frames without a content size, skippable frames), verifies stored checksums, and raises
    ``CorruptInputError`` for anything else. ``max_decoded_size`` (optional) bounds what
    ``decode`` may allocate.
    """

    name: ClassVar[str] = "zstd"
    codec_id: ClassVar[str | None] = "zstd"

    def __init__(
        self, level: int = 0, checksum: bool = False, *, max_decoded_size: int | None = None
    ) -> None:
        # The configuration is validated by the Rust configuration type, nowhere else.
        config = _configured({"level": level, "checksum": checksum}, 3)
        if max_decoded_size is not None and (not _is_int(max_decoded_size) or max_decoded_size < 0):
            raise ConfigurationError(f"zstd: invalid max_decoded_size {max_decoded_size!r}")
        self.level: int = config["level"]
        self.checksum: bool = config.get("checksum", False)
        self.max_decoded_size = max_decoded_size

    def configuration(self) -> dict[str, Any]:
        # "checksum" written when false too (the spec only recommends leaving it out): as
        # zarr-python writes it, and zarrs refuses a zstd configuration without it.
        return {"level": self.level, "checksum": self.checksum}

    def v2_configuration(self) -> dict[str, Any]:
        """numcodecs' form: both keys, always."""
        return {"level": self.level, "checksum": self.checksum}

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self.level, self.checksum, self.max_decoded_size)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.level, self.checksum, self.max_decoded_size))

    def __copy__(self) -> Zstd:
        return _rebuild(self.level, self.checksum, self.max_decoded_size)

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> Zstd:
        return cls(**_configured(config, 3))

    @classmethod
    def from_v2_configuration(cls, config: dict[str, Any]) -> Zstd:
        # numcodecs' default level and its clamping of any integer level are the Rust type's.
        return cls(**_configured(config, 2))

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Compress ``data`` (any buffer; non-contiguous arrays in C order) into one frame."""
        return _zstd.encode(data, self.level, self.checksum)

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Decompress every frame of ``data``."""
        return _zstd.decode(data, self.max_decoded_size)

    def encode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Compress into ``out``; ``OutputSizeError`` if it does not fit."""
        return _zstd.encode_into(data, out, self.level, self.checksum)

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Decompress into ``out``; ``OutputSizeError`` if the content does not fit."""
        return _zstd.decode_into(data, out)

    def max_encoded_size(self, decoded_size: int) -> int:
        """The largest frame ``decoded_size`` bytes can compress to."""
        return _zstd.max_encoded_size(decoded_size)

    def encode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Compress every chunk, in parallel with the GIL released."""
        return _zstd.encode_batch(list(chunks), self.level, self.checksum, threads)

    def decode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Decompress every chunk, in parallel with the GIL released."""
        return _zstd.decode_batch(list(chunks), self.max_decoded_size, threads)

    def decode_batch_into(
        self, chunks: Sequence[Buffer], outs: Sequence[Buffer], threads: int | None = None
    ) -> list[int]:
        """Decompress each chunk into the matching ``out`` (writable, C-contiguous, sharing no
        memory with another ``out`` or any chunk), in parallel with the GIL released; returns
        the bytes written into each."""
        return _zstd.decode_batch_into(list(chunks), list(outs), threads)

    def decode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Decoding as a compiled kernel, so that a :class:`zarr_codec_runtime.Chain` of our codecs
        decodes each chunk through all of them in Rust (frames need no configuration)."""
        return _kernel()

    def encode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Compression as a compiled kernel for a :class:`zarr_codec_runtime.Chain`."""
        return _zstd.encode_kernel(self.level, self.checksum)


def _configured(config: dict[str, Any], zarr_format: Literal[2, 3]) -> dict[str, Any]:
    return canonical_configuration(_zstd.canonical_configuration, "zstd", config, zarr_format)


def _rebuild(level: int, checksum: bool, max_decoded_size: int | None) -> Zstd:
    return Zstd(level, checksum, max_decoded_size=max_decoded_size)
