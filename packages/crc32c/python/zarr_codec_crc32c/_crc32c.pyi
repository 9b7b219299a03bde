"""Compiled core of zarr-codec-crc32c: a registration of the Rust checksum codec with the glue's
generic bytes-codec binding, and the bare checksum. Every call releases the GIL (but
``checksum`` of a small buffer) and raises ``zarr_codec_shapes.CodecError`` subclasses for bad
input."""

from collections.abc import Buffer

from zarr_codec_shapes.compiled import CompiledBytesCodec

ENGINE: str

def checksum(data: Buffer, value: int = 0) -> int:
    """The CRC-32C of ``data``, continuing from ``value``."""

def crc32c(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled codec of crc32c metadata ``json`` (JSON text, Zarr format 2 or 3)."""
