"""Compiled core of zarr-codec-filters: the Rust filters registered with the glue's generic
bytes-codec binding. Every call releases the GIL and raises ``zarr_codec_shapes.CodecError``
subclasses for bad input."""

from zarr_codec_shapes.compiled import CompiledBytesCodec

def shuffle(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled codec of shuffle metadata ``json`` (JSON text, Zarr format 2 or 3)."""
