"""Compiled core of zarr-codec-vlen: numcodecs' vlen layout and base64 in Rust. Bad input
raises ``zarr_codec_shapes.CodecError`` subclasses."""

from collections.abc import Iterable
from typing import Any

import numpy as np
from zarr_codec_shapes.compiled import CompiledBytesCodec

def base64(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled codec of base64 metadata ``json`` (JSON text, Zarr format 2 or 3)."""

def encode_utf8(values: Iterable[Any]) -> bytes:
    """Strings (``None`` and 0 as empty strings) in numcodecs' vlen-utf8 layout."""

def decode_utf8(data: Any) -> np.ndarray[Any, Any]:
    """The strings of vlen-utf8 data, as a new object array."""

def encode_bytes(values: Iterable[Any], zero: bool = True) -> bytes:
    """Buffers (``None``, and with ``zero`` anything equal to 0, as empty) in numcodecs'
    vlen-bytes layout."""

def decode_bytes(data: Any) -> np.ndarray[Any, Any]:
    """The byte strings of vlen-bytes data, as a new object array."""

def item_count(data: Any) -> int:
    """The item count vlen data declares (checked against its length)."""

def decode_utf8_into(data: Any, out: np.ndarray[Any, Any]) -> None:
    """The strings of vlen-utf8 data packed into ``out``, a C-contiguous writable numpy
    ``StringDType`` array of as many items (numpy's own string storage, no ``str`` made)."""

def encode_utf8_strings(values: np.ndarray[Any, Any]) -> bytes:
    """The strings of a C-contiguous numpy ``StringDType`` array (a missing value as empty) in
    numcodecs' vlen-utf8 layout, read where numpy keeps them."""

class Categorizer:
    """numcodecs' ``Categorize`` labels, for the codes of strings."""

    def __init__(self, labels: list[str]) -> None: ...
    def codes(self, items: Any, width: int | None = None) -> np.ndarray[Any, Any]:
        """Each item's code (``1 +`` its label's position, 0 for none) as ``uint64``: ``items``
        objects (``str`` items matched), or with ``width`` a ``uint32`` array of numpy ``U``
        items of ``width`` code points each."""

def json2_encode(
    items: Any,
    ensure_ascii: bool,
    allow_nan: bool,
    sort_keys: bool,
    indent: str | None,
    separators: tuple[str, str],
    skip_keys: bool,
) -> str:
    """``items`` as JSON text, as Python's ``json.JSONEncoder`` with these options writes it."""

def json2_decode(text: str, strict: bool) -> Any:
    """The Python objects of JSON ``text``, as ``json.loads(text, strict=strict)`` reads them."""

def msgpack2_encode(items: Any, use_bin_type: bool, use_single_float: bool) -> bytes:
    """``items`` packed as msgpack's ``packb(items, use_bin_type=..., use_single_float=...)``."""

def msgpack2_decode(data: Any, raw: bool) -> Any:
    """The Python objects of msgpack ``data``, as msgpack's ``unpackb(data, raw=raw)`` reads
    them; ``CorruptInputError`` for data that is not one whole value."""
