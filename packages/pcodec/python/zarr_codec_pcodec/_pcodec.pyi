"""Compiled core of zarr-codec-pcodec (pco 1.1). Bad input raises ``zarr_codec_shapes.CodecError``
subclasses; each call releases the GIL while it works."""

from typing import Any

import numpy as np
from zarr_codec_shapes.compiled import CompiledBytesCodec

#: The library doing the work.
ENGINE: str
#: Which build this module is: ``"baseline"`` (every CPU of its platform) or ``"x86-64-v3"``.
BUILD: str
#: The CPU features the x86-64-v3 build is compiled for.
X86_64_V3_FEATURES: list[str]

def x86_64_v3_supported() -> bool:
    """Whether this CPU has every feature of :data:`X86_64_V3_FEATURES` (x86-64 only)."""

def encode(json: str, zarr_format: int, array: Any) -> bytes:
    """``array``'s numbers as one pco file, with the codec of metadata ``json``."""

def decode_into(data: Any, out: np.ndarray[Any, Any]) -> None:
    """The numbers of pco ``data`` into ``out``, which must be of the type the file holds and
    hold exactly as many numbers (C-contiguous, writable)."""

def decode(data: Any) -> np.ndarray[Any, Any] | None:
    """The numbers of pco ``data`` as a new 1-d array of the type and count its header states
    (a file that does not hold exactly them raises ``CorruptInputError``); ``None`` for a file
    of no numbers or one that states no count (then :func:`decode_all`)."""

def stored_type(data: Any) -> str | None:
    """The Zarr data type name of the numbers pco ``data`` holds (``None``: a file of none)."""

def decode_all(data: Any) -> tuple[str, bytes] | None:
    """All the numbers of pco ``data``: their Zarr data type name and bytes (``None``: none)."""

def element_codec(json: str, zarr_format: int, data_type: str) -> CompiledBytesCodec:
    """The codec of metadata ``json`` over chunks of ``data_type`` (a Zarr data type name) as a
    compiled bytes codec of their element bytes, in this machine's order."""

def count_hint(data: Any) -> int:
    """How many numbers pco ``data`` says it holds (0: no hint)."""
