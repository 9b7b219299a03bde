"""Compiled core of zarr-codec-crc32c. Functions release the GIL for large inputs and raise
``zarr_codec_shapes.CodecError`` subclasses for bad input."""

import os
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
    """Checking as a chain kernel (an opaque capsule; see ``decode_chain_batch_into``)."""

def encode_kernel(location: _Location = "end") -> object:
    """Appending the checksum as a chain kernel."""

def decode_chain_batch_into(
    steps: list[tuple[str, object, int]],
    chunks: list[Buffer],
    outs: list[Buffer],
    threads: int | None = None,
) -> None:
    """Decode each chunk through every step of a chain (in decoding order: ``(codec name,
    kernel, bytes it writes)``, or ``("bytes", element size, 0)`` to swap byte order), the
    last step into the chunk's ``out``; in parallel, the GIL released."""

def encode_chain_batch(
    steps: list[tuple[str, object, int]],
    chunks: list[Buffer],
    threads: int | None = None,
) -> list[bytes]:
    """Encode each chunk (its native-order element bytes) through every step of a chain (in
    encoding order: ``(codec name, kernel, bytes it writes or -1 for a compressor)``, or
    ``("bytes", element size, 0)`` to swap byte order) into a new ``bytes``; in parallel,
    the GIL released."""

def decode_chain_files_into(
    steps: list[tuple[str, object, int]],
    paths: list[str | os.PathLike[str]],
    outs: list[Buffer],
    stored_len: int | None = None,
    threads: int | None = None,
) -> list[bool]:
    """Read each chunk file and decode it through every step of a chain (as for
    ``decode_chain_batch_into``; no steps: stored as is) into the chunk's ``out``; in
    parallel, the GIL released. ``stored_len``: the size every file must have. Returns
    whether each file was there (a missing one leaves its ``out`` untouched); raises
    ``OSError`` for a file that cannot be read."""

def encode_chain_files(
    steps: list[tuple[str, object, int]],
    chunks: list[Buffer],
    paths: list[str | os.PathLike[str]],
    threads: int | None = None,
) -> None:
    """Encode each chunk through every step of a chain (as for ``encode_chain_batch``; no
    steps: stored as is) and write it to its file as zarr's ``LocalStore`` does (a temporary
    file renamed over it, directories made as needed); in parallel, the GIL released."""
