"""The Zarr ``crc32c`` checksum codec with a Rust core (hardware CRC-32C where the CPU has it).

``Crc32c`` appends the CRC-32C of a chunk's bytes as a little-endian ``uint32`` and checks it
when decoding; a mismatch raises ``CorruptInputError``. ``checksum(data)`` is the bare CRC.
"""

from __future__ import annotations

import functools
from collections.abc import Buffer, Sequence
from typing import Any, ClassVar, Literal

from zarr_codec_shapes import BytesBytesCodecBase, ChunkSpec, UnsupportedError
from zarr_codec_shapes.codec_json import canonical_configuration

from zarr_codec_crc32c import _crc32c

__all__ = ["ENGINE", "Crc32c", "checksum"]
__version__ = "0.1.0"

#: The checksum implementation doing the work.
ENGINE: str = _crc32c.ENGINE

Location = Literal["end", "start"]


def checksum(data: Buffer, value: int = 0) -> int:
    """The CRC-32C (RFC 3720) of ``data``, as an unsigned 32-bit integer; ``value`` continues
    from the CRC of the bytes before ``data``."""
    return _crc32c.checksum(data, value)


def _configured(config: dict[str, Any], zarr_format: Literal[2, 3]) -> dict[str, Any]:
    return canonical_configuration(_crc32c.canonical_configuration, "crc32c", config, zarr_format)


@functools.cache
def _kernel(location: Location) -> object:
    return _crc32c.decode_kernel(location)


class Crc32c(BytesBytesCodecBase):
    """The CRC-32C checksum codec: the chunk's bytes followed by their checksum.

    ``location="start"`` (numcodecs' option, Zarr v2 only) puts the checksum first.
    """

    name: ClassVar[str] = "crc32c"
    codec_id: ClassVar[str | None] = "crc32c"

    def __init__(self, *, location: Location = "end") -> None:
        # Validated by the Rust configuration type (v2's form: the only one with a location).
        config = _configured({"location": location}, 2)
        self.location: Location = config.get("location", "end")

    def configuration(self) -> dict[str, Any]:
        return {} if self.location == "end" else {"location": self.location}

    def to_json(self, zarr_format: Literal[2, 3] = 3) -> dict[str, Any]:
        if zarr_format == 3 and self.location != "end":
            raise UnsupportedError(
                'crc32c: Zarr v3 stores the checksum at the end; location "start" is v2 only'
            )
        if zarr_format == 3:
            return {"name": self.name}  # no configuration parameters: none written, as zarr does
        return super().to_json(zarr_format)

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> Crc32c:
        return cls(**_configured(config, 3))

    @classmethod
    def from_v2_configuration(cls, config: dict[str, Any]) -> Crc32c:
        return cls(**_configured(config, 2))

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """``data`` followed by its checksum."""
        return _crc32c.encode(data, self.location)

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """The data, after checking its checksum."""
        return _crc32c.decode(data, self.location)

    def encode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Write ``data`` and its checksum into ``out``; ``OutputSizeError`` if it does not
        fit."""
        return _crc32c.encode_into(data, out, self.location)

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Check ``data`` and copy its data into ``out``."""
        return _crc32c.decode_into(data, out, self.location)

    def max_encoded_size(self, decoded_size: int) -> int:
        """Always ``decoded_size + 4``."""
        return decoded_size + 4

    def encoded_size(self, decoded_size: int) -> int:
        """Exactly ``decoded_size + 4``: a fixed-size encoding, as a shard index needs."""
        return decoded_size + 4

    def encode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Checksum every chunk, in parallel with the GIL released."""
        return _crc32c.encode_batch(list(chunks), self.location, threads)

    def decode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Check and strip every chunk, in parallel with the GIL released."""
        return _crc32c.decode_batch(list(chunks), self.location, threads)

    def decode_batch_into(
        self, chunks: Sequence[Buffer], outs: Sequence[Buffer], threads: int | None = None
    ) -> list[int]:
        """Check each chunk and copy its data into the matching ``out``, in parallel with the
        GIL released; returns the bytes written into each."""
        return _crc32c.decode_batch_into(list(chunks), list(outs), self.location, threads)

    def decode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Checking as a compiled kernel for a :class:`zarr_codec_runtime.Chain`."""
        return _kernel(self.location)

    def encode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Appending the checksum as a compiled kernel for a :class:`zarr_codec_runtime.Chain`."""
        return _crc32c.encode_kernel(self.location)
