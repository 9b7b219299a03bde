"""Compiled core of zarr-codec-scale-offset. Every method releases the GIL while working and
raises ``zarr_codec_shapes.CodecError`` subclasses: ``OutOfRangeError`` for an integer result
outside
the type's range or an inexact division, ``ConfigurationError`` for bad parameters or a
mismatched array."""

import os
from collections.abc import Buffer, Iterable
from typing import Any

import numpy as np

class Plan:
    """A codec (its v3 JSON as a string) bound to an array's numpy dtype; with a following
    ``cast_value`` (its JSON) and the encoded dtype, the two fused into one pass."""

    def __init__(
        self,
        configuration: str,
        dtype: np.dtype[Any],
        cast_value: str | None = None,
        encoded_dtype: np.dtype[Any] | None = None,
    ) -> None: ...
    def encode(self, array: Any) -> np.ndarray[Any, Any]: ...
    def decode(self, array: Any) -> np.ndarray[Any, Any]: ...
    def encode_into(self, array: Any, out: np.ndarray[Any, Any]) -> None: ...
    def decode_into(self, array: Any, out: np.ndarray[Any, Any]) -> None: ...
    def encode_batch(
        self, arrays: Iterable[Any], threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]: ...
    def decode_batch(
        self, arrays: Iterable[Any], threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]: ...
    def decode_batch_into(
        self,
        arrays: Iterable[Any],
        outs: Iterable[np.ndarray[Any, Any]],
        threads: int | None = None,
    ) -> None: ...
    def decode_kernel(self) -> object:
        """Decoding as a chain kernel (see ``decode_chain_batch_into``)."""
    def encode_kernel(self) -> object:
        """Encoding as a chain kernel (see ``encode_chain_batch``)."""

def check_configuration(configuration: str) -> None: ...
def encoded_fill_value(configuration: str, data_type: str, fill: str) -> str: ...
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
