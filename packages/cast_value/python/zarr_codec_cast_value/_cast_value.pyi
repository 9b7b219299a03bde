"""Compiled core of zarr-codec-cast-value. Every function releases the GIL while casting and
raises ``zarr_codec_shapes.CodecError`` subclasses: ``OutOfRangeError`` for an element the rules
refuse, ``ConfigurationError`` for a bad configuration or a mismatched array."""

import os
from collections.abc import Buffer, Iterable
from typing import Any, Literal

import numpy as np

class Plan:
    """One direction of a codec (its v3 JSON as a string) bound to numpy dtypes."""

    def __init__(
        self,
        configuration: str,
        source: np.dtype[Any],
        target: np.dtype[Any],
        direction: Literal["encode", "decode"],
    ) -> None: ...
    @property
    def source(self) -> str: ...
    @property
    def target(self) -> str: ...
    def apply(self, array: Any) -> np.ndarray[Any, Any]: ...
    def apply_into(self, array: Any, out: np.ndarray[Any, Any]) -> None: ...
    def apply_batch(
        self, arrays: Iterable[Any], threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]: ...
    def apply_batch_into(
        self,
        arrays: Iterable[Any],
        outs: Iterable[np.ndarray[Any, Any]],
        threads: int | None = None,
    ) -> None: ...
    def kernel(self) -> object:
        """The cast as a chain kernel (see ``decode_chain_batch_into``)."""

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
