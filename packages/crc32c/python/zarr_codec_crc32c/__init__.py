"""The Zarr ``crc32c`` checksum codec with a Rust core (hardware CRC-32C where the CPU has it).

``Crc32c`` appends the CRC-32C of a chunk's bytes as a little-endian ``uint32`` and checks it
when decoding; a mismatch raises ``CorruptInputError``. ``checksum(data)`` is the bare CRC.
"""

from __future__ import annotations

import json
from collections.abc import Buffer
from typing import Any, ClassVar, Literal

from zarr_codec_shapes import UnsupportedError
from zarr_codec_shapes.compiled import CompiledBytesCodec, CompiledBytesCodecBase, Constructor

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


class Crc32c(CompiledBytesCodecBase):
    """The CRC-32C checksum codec: the chunk's bytes followed by their checksum.

    ``location="start"`` (numcodecs' option, Zarr v2 only) puts the checksum first.
    """

    name: ClassVar[str] = "crc32c"
    codec_id: ClassVar[str | None] = "crc32c"
    _constructor: ClassVar[Constructor] = _crc32c.crc32c

    def __init__(self, *, location: Location = "end") -> None:
        # Validated by the Rust configuration type (v2's form: the only one with a location).
        config = self._configured({"location": location}, 2)
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

    def _compile(self) -> CompiledBytesCodec:
        # The v2 form: the only one that can say where the checksum is.
        return _crc32c.crc32c(json.dumps(self.to_json(2)), 2)

    def max_encoded_size(self, decoded_size: int) -> int:
        """Always ``decoded_size + 4``."""
        return decoded_size + 4

    def encoded_size(self, decoded_size: int) -> int:
        """Exactly ``decoded_size + 4``: a fixed-size encoding, as a shard index needs."""
        return decoded_size + 4
