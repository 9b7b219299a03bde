"""The zarr_codec_shapes conformance kit over ``Blosc``: every compressor this build has, every
shuffle,
typesizes 1/2/4/8, level 0 (stored blocks) and forced block sizes."""

from __future__ import annotations

import struct
from typing import Any, ClassVar

from zarr_codec_blosc import COMPRESSORS, Blosc
from zarr_codec_shapes.testing import ConformanceSuite

_DATA = b"".join(struct.pack("<I", i // 3) for i in range(2000))
_VALID = Blosc("lz4", 5, "shuffle", 4).encode(_DATA)  # a compressed frame with a block table
_STORED = Blosc("lz4", 0, "shuffle", 4).encode(_DATA)  # a memcpyed frame


def _with(frame: bytes, at: int, value: bytes) -> bytes:
    return frame[:at] + value + frame[at + len(value) :]


MALFORMED: tuple[Any, ...] = (
    b"",  # shorter than the header (encode(b"") is a 16-byte frame, not b"")
    b"\x02",
    _VALID[:15],  # one byte short of a header
    _VALID[:16],  # a header only
    _VALID[:-1],  # truncated body
    _STORED[:-1],
    b"not a blosc frame at all",
    bytes(64),  # version 0
    _with(_VALID, 0, b"\x01"),  # format version 1
    _with(_VALID, 0, b"\x05"),  # a blosc2 version
    _with(_VALID, 2, bytes([_VALID[2] | 0x08])),  # reserved flag
    _with(_VALID, 2, bytes([(_VALID[2] & 0x1F) | (7 << 5)])),  # compressor code 7
    _with(_VALID, 3, b"\x00"),  # typesize 0
    _with(_VALID, 4, struct.pack("<I", 0xFFFFFFFF)),  # nbytes negative
    _with(_VALID, 4, struct.pack("<I", len(_DATA) + 1)),  # nbytes one too many
    _with(_VALID, 8, struct.pack("<I", 0)),  # blocksize 0
    _with(_VALID, 12, struct.pack("<I", len(_VALID) + 1)),  # cbytes past the input
    _with(_VALID, 12, struct.pack("<I", 15)),  # cbytes inside the header
    _with(_VALID, 16, struct.pack("<I", 0)),  # block 0 starts inside the header
    _with(_STORED, 12, struct.pack("<I", len(_STORED) - 1)),  # memcpyed frame one byte short
    bytearray(_VALID[: len(_VALID) // 2]),  # a truncated bytearray
    memoryview(_VALID)[:20],  # a truncated memoryview
)


def _configurations() -> tuple[Blosc, ...]:
    codecs = [Blosc(cname, 5, "shuffle", 4) for cname in COMPRESSORS]
    codecs += [
        Blosc("zstd", 5, "noshuffle"),  # typesize may be left out of v3 JSON with noshuffle
        Blosc("lz4", 5, "bitshuffle", 1),
        Blosc("blosclz", 9, "shuffle", 2),
        Blosc("zlib", 1, "bitshuffle", 8),
        Blosc("zstd", 0, "shuffle", 4),  # level 0: every block stored
        Blosc("lz4", 9, "shuffle", 2, blocksize=256),  # forced small blocks
        Blosc("zstd", 3, "noshuffle", 1, blocksize=4096),
        Blosc("lz4hc", 9, "bitshuffle", 255, blocksize=1),  # typesize at its limit
    ]
    return tuple(codecs)


class TestBloscConformance(ConformanceSuite):
    codecs = _configurations()
    malformed: ClassVar[tuple[Any, ...]] = MALFORMED
