"""Compiled core of zarr-codec-crc32c. Functions release the GIL for large inputs and raise
``zarr_codec_shapes.CodecError`` subclasses for bad input."""

from collections.abc import Buffer
from typing import Literal

ENGINE: str

_Location = Literal["end", "start"]

def checksum(data: Buffer, value: int = 0) -> int: ...
def encode(data: Buffer, location: _Location = "end") -> bytes: ...
def encode_into(data: Buffer, out: Buffer, location: _Location = "end") -> int: ...
def decode(data: Buffer, location: _Location = "end") -> bytes: ...
def decode_into(data: Buffer, out: Buffer, location: _Location = "end") -> int: ...
def encode_batch(
    chunks: list[Buffer], location: _Location = "end", threads: int | None = None
) -> list[bytes]: ...
def decode_batch(
    chunks: list[Buffer], location: _Location = "end", threads: int | None = None
) -> list[bytes]: ...
def decode_batch_into(
    chunks: list[Buffer],
    outs: list[Buffer],
    location: _Location = "end",
    threads: int | None = None,
) -> list[int]: ...
def decode_kernel(location: _Location = "end") -> object:
    """Checking as a chain kernel (an opaque capsule; run by ``zarr_codec_runtime.Plan``)."""

def encode_kernel(location: _Location = "end") -> object:
    """Appending the checksum as a chain kernel."""

def canonical_configuration(json: str, zarr_format: int) -> str:
    """The canonical configuration (JSON text) of codec metadata ``json`` (JSON text) in Zarr
    format ``zarr_format``, as the Rust configuration type reads it: ``ConfigurationError``
    for anything it refuses."""
