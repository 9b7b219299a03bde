"""Compiled core of zarr-codec-blosc (c-blosc 1.x). Every frame is validated before c-blosc
reads it; all functions release the GIL while working and raise ``zarr_codec_shapes.CodecError``
subclasses for bad input."""

from collections.abc import Buffer

COMPRESSORS: list[str]
CBLOSC_VERSION: str

def encode(
    data: Buffer,
    cname: str,
    clevel: int,
    shuffle: str,
    typesize: int,
    blocksize: int = 0,
    threads: int = 1,
) -> bytes: ...
def decode(data: Buffer, limit: int | None = None, threads: int = 1) -> bytes: ...
def decode_into(data: Buffer, out: Buffer, threads: int = 1) -> int: ...
def frame_info(data: Buffer) -> dict[str, int | str | bool]: ...
def encode_batch(
    chunks: list[Buffer],
    cname: str,
    clevel: int,
    shuffle: str,
    typesize: int,
    blocksize: int = 0,
    threads: int | None = None,
) -> list[bytes]: ...
def decode_batch(
    chunks: list[Buffer], limit: int | None = None, threads: int | None = None
) -> list[bytes]: ...
def decode_batch_into(
    chunks: list[Buffer], outs: list[Buffer], threads: int | None = None
) -> list[int]: ...
def decode_kernel() -> object:
    """The frame decoder as a chain kernel (a capsule that ``zarr_codec_runtime.Plan`` runs)."""

def encode_kernel(
    cname: str, clevel: int, shuffle: str, typesize: int, blocksize: int = 0
) -> object:
    """Compression with these parameters as a chain kernel."""

def canonical_configuration(json: str, zarr_format: int) -> str:
    """The canonical configuration (JSON text) of codec metadata ``json`` (JSON text) in Zarr
    format ``zarr_format``, as the Rust configuration type reads it: ``ConfigurationError``
    for anything it refuses."""
