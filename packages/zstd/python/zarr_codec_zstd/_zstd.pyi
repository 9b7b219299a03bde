"""Compiled core of zarr-codec-zstd (libzstd): a registration of the Rust codec type with the
glue's generic bytes-codec binding. Every call releases the GIL and raises
``zarr_codec_shapes.CodecError`` subclasses for bad input."""

from zarr_codec_shapes.compiled import CompiledBytesCodec

ENGINE: str

def zstd(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled codec of zstd metadata ``json`` (JSON text, Zarr format 2 or 3);
    ``ConfigurationError`` for anything the Rust configuration type refuses."""
