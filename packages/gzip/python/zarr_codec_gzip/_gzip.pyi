"""Compiled core of zarr-codec-gzip (libdeflate): registrations of the Rust gzip and zlib codec
types with the glue's generic bytes-codec binding. Every call releases the GIL and raises
``zarr_codec_shapes.CodecError`` subclasses for bad input."""

from zarr_codec_shapes.compiled import CompiledBytesCodec

ENGINE: str

def gzip(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled codec of gzip metadata ``json`` (JSON text, Zarr format 2 or 3)."""

def zlib(json: str, zarr_format: int) -> CompiledBytesCodec:
    """The compiled codec of numcodecs' zlib metadata ``json`` (v2, or v3 ``numcodecs.zlib``)."""
