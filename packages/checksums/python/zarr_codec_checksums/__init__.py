"""numcodecs' checksum codecs with a Rust core: ``Crc32``, ``Adler32``, ``Fletcher32`` and
``JenkinsLookup3``, for Zarr v2 (numcodecs ids ``crc32``, ``adler32``, ``fletcher32``,
``jenkins_lookup3``) and Zarr v3 (zarr-python's names ``numcodecs.crc32``, ...).

Each stores a 32-bit checksum of the chunk's bytes beside them, little-endian, byte for byte
as numcodecs 0.17 writes it, and checks it when decoding: a chunk too short for its checksum,
or whose checksum does not match, raises ``CorruptInputError``. The bare checksums are
:func:`crc32`, :func:`adler32`, :func:`fletcher32` and :func:`jenkins_lookup3`.
numcodecs-compatible classes are in :mod:`zarr_codec_checksums.numcodecs`.
"""

from __future__ import annotations

from collections.abc import Buffer
from typing import Any, ClassVar, Literal

from zarr_codec_shapes.compiled import CompiledBytesCodecBase, Constructor

from zarr_codec_checksums import _checksums

__all__ = [
    "Adler32",
    "Crc32",
    "Fletcher32",
    "JenkinsLookup3",
    "Location",
    "adler32",
    "crc32",
    "fletcher32",
    "jenkins_lookup3",
]
__version__ = "0.1.0"

#: Where ``Crc32`` and ``Adler32`` store the checksum (numcodecs' default: the start).
Location = Literal["start", "end"]

#: The size of every stored checksum.
CHECKSUM_SIZE = 4


def crc32(data: Buffer) -> int:
    """zlib's CRC-32 of ``data`` (``zlib.crc32(data)``)."""
    return _checksums.crc32(data)


def adler32(data: Buffer) -> int:
    """zlib's Adler-32 of ``data`` (``zlib.adler32(data)``)."""
    return _checksums.adler32(data)


def fletcher32(data: Buffer) -> int:
    """HDF5's Fletcher-32 of ``data`` (big-endian 16-bit words), as numcodecs computes it."""
    return _checksums.fletcher32(data)


def jenkins_lookup3(data: Buffer, initval: int = 0) -> int:
    """lookup3's ``hashlittle`` of ``data`` from the seed ``initval`` (0 to 2**32 - 1), as
    HDF5 and numcodecs compute it."""
    return _checksums.jenkins_lookup3(data, initval)


class _Checksum(CompiledBytesCodecBase):
    """A 4-byte checksum beside the chunk's bytes: a fixed-size encoding."""

    def max_encoded_size(self, decoded_size: int) -> int:
        """Always ``decoded_size + 4``."""
        return decoded_size + CHECKSUM_SIZE

    def encoded_size(self, decoded_size: int) -> int:
        """Exactly ``decoded_size + 4``."""
        return decoded_size + CHECKSUM_SIZE


class _Located(_Checksum):
    """crc32 and adler32: ``location`` ``"start"`` (numcodecs' default) or ``"end"``; left
    out of the metadata unless given, as numcodecs does."""

    def __init__(self, *, location: Location | None = None) -> None:
        config = self._configured({} if location is None else {"location": location}, 3)
        self.location: Location | None = config.get("location")

    def configuration(self) -> dict[str, Any]:
        return {} if self.location is None else {"location": self.location}


class Crc32(_Located):
    """numcodecs' ``crc32``: zlib's CRC-32 before the data (``location="end"``: after it)."""

    name: ClassVar[str] = "numcodecs.crc32"
    codec_id: ClassVar[str | None] = "crc32"
    _constructor: ClassVar[Constructor] = _checksums.crc32_codec


class Adler32(_Located):
    """numcodecs' ``adler32``: zlib's Adler-32 before the data (``location="end"``: after
    it)."""

    name: ClassVar[str] = "numcodecs.adler32"
    codec_id: ClassVar[str | None] = "adler32"
    _constructor: ClassVar[Constructor] = _checksums.adler32_codec


class Fletcher32(_Checksum):
    """numcodecs' ``fletcher32``: HDF5's Fletcher-32 after the data. No configuration."""

    name: ClassVar[str] = "numcodecs.fletcher32"
    codec_id: ClassVar[str | None] = "fletcher32"
    _constructor: ClassVar[Constructor] = _checksums.fletcher32_codec

    def __init__(self) -> None:
        self._configured({}, 3)

    def configuration(self) -> dict[str, Any]:
        return {}


class JenkinsLookup3(_Checksum):
    """numcodecs' ``jenkins_lookup3``: lookup3's hash of ``prefix`` (bytes, optional) then the
    data, from the seed ``initval``, after the data."""

    name: ClassVar[str] = "numcodecs.jenkins_lookup3"
    codec_id: ClassVar[str | None] = "jenkins_lookup3"
    _constructor: ClassVar[Constructor] = _checksums.jenkins_lookup3_codec

    def __init__(self, *, initval: int = 0, prefix: Buffer | list[int] | None = None) -> None:
        given: dict[str, Any] = {"initval": initval}
        if prefix is not None:
            given["prefix"] = list(bytes(prefix) if isinstance(prefix, Buffer) else prefix)
        config = self._configured(given, 3)
        self.initval: int = config.get("initval", 0)
        stored = config.get("prefix")
        self.prefix: bytes | None = None if stored is None else bytes(stored)

    def configuration(self) -> dict[str, Any]:
        config: dict[str, Any] = {}
        if self.initval:
            config["initval"] = self.initval
        if self.prefix is not None:
            config["prefix"] = list(self.prefix)
        return config

    def v2_configuration(self) -> dict[str, Any]:
        # numcodecs writes both keys, always.
        return {
            "initval": self.initval,
            "prefix": None if self.prefix is None else list(self.prefix),
        }
