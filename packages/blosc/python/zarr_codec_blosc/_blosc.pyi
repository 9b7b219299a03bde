"""Compiled core of zarr-codec-blosc (c-blosc 1.x): the Rust codec type through the glue's
generic bytes-codec binding. Every frame is validated before c-blosc reads it; every call
releases the GIL and raises ``zarr_codec_shapes.CodecError`` subclasses for bad input."""

from collections.abc import Buffer

from zarr_codec_shapes.compiled import CompiledBytesCodec

COMPRESSORS: list[str]
CBLOSC_VERSION: str

def blosc(json: str, zarr_format: int, threads: int = 1) -> CompiledBytesCodec:
    """The compiled codec of blosc metadata ``json`` (JSON text, Zarr format 2 or 3), with
    ``threads`` c-blosc threads inside each chunk."""

def frame_info(data: Buffer) -> dict[str, int | str | bool]: ...

class BytesCodec:
    """The class of the compiled codecs ``blosc`` returns (see ``CompiledBytesCodec``)."""
