"""Compiled core of zarr-codec-gzip (libdeflate). All functions release the GIL while working
and raise ``zarr_codec_shapes.CodecError`` subclasses for bad input."""

from collections.abc import Buffer

ENGINE: str

def encode(data: Buffer, level: int) -> bytes: ...
def encode_into(data: Buffer, out: Buffer, level: int) -> int: ...
def decode(data: Buffer, limit: int | None = None) -> bytes: ...
def decode_into(data: Buffer, out: Buffer) -> int: ...
def max_encoded_size(size: int, level: int) -> int: ...
def encode_batch(chunks: list[Buffer], level: int, threads: int | None = None) -> list[bytes]: ...
def decode_batch(
    chunks: list[Buffer], limit: int | None = None, threads: int | None = None
) -> list[bytes]: ...
def decode_batch_into(
    chunks: list[Buffer], outs: list[Buffer], threads: int | None = None
) -> list[int]: ...
def decode_kernel() -> object:
    """The frame decoder as a chain kernel (a capsule that ``zarr_codec_runtime.Plan`` runs)."""

def encode_kernel(level: int) -> object:
    """Compression at ``level`` as a chain kernel."""

def canonical_configuration(json: str, zarr_format: int) -> str:
    """The canonical configuration (JSON text) of codec metadata ``json`` (JSON text) in Zarr
    format ``zarr_format``, as the Rust configuration type reads it: ``ConfigurationError``
    for anything it refuses."""

def zlib_encode(data: Buffer, level: int) -> bytes: ...
def zlib_encode_into(data: Buffer, out: Buffer, level: int) -> int: ...
def zlib_decode(data: Buffer, limit: int | None = None) -> bytes: ...
def zlib_decode_into(data: Buffer, out: Buffer) -> int: ...
def zlib_max_encoded_size(size: int, level: int) -> int: ...
def zlib_decode_kernel() -> object:
    """The zlib stream decoder as a chain kernel."""

def zlib_encode_kernel(level: int) -> object:
    """zlib compression at ``level`` as a chain kernel."""

def zlib_canonical_configuration(json: str, zarr_format: int) -> str:
    """:func:`canonical_configuration` for numcodecs' ``zlib`` (v2 id ``zlib``, v3 name
    ``numcodecs.zlib``)."""
