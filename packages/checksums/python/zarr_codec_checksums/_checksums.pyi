"""Compiled core of zarr-codec-checksums: the four Rust checksum codecs registered with the
glue's generic bytes-codec binding, and the bare checksums. Every call releases the GIL (but a
bare checksum of a small buffer) and raises ``zarr_codec_shapes.CodecError`` subclasses for
bad input."""

from collections.abc import Buffer

from zarr_codec_shapes.compiled import CompiledBytesCodec

def crc32(data: Buffer) -> int:
    """zlib's CRC-32 of ``data``."""

def adler32(data: Buffer) -> int:
    """zlib's Adler-32 of ``data``."""

def fletcher32(data: Buffer) -> int:
    """HDF5's Fletcher-32 of ``data``."""

def jenkins_lookup3(data: Buffer, initval: int = 0) -> int:
    """lookup3's ``hashlittle`` of ``data`` from the seed ``initval``."""

def crc32_codec(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled crc32 codec of metadata ``json`` (JSON text, Zarr format 2 or 3)."""

def adler32_codec(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled adler32 codec of metadata ``json`` (JSON text, Zarr format 2 or 3)."""

def fletcher32_codec(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled fletcher32 codec of metadata ``json`` (JSON text, Zarr format 2 or 3)."""

def jenkins_lookup3_codec(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled jenkins_lookup3 codec of metadata ``json`` (JSON text, Zarr format 2 or
    3)."""
