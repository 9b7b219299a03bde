"""Our codecs as zarr-python 3.4 codec classes.

- ``Base64Codec``: Base64 for the Zarr v3 name ``numcodecs.base64``.
- ``VLenUTF8Codec`` and ``VLenBytesCodec``: Zarr v3's ``vlen-utf8`` (string arrays) and
  ``vlen-bytes`` (bytes arrays) serializers, on our Rust layout. They subclass zarr-python's
  own classes of those names (zarr checks a string array's serializer by its class name, and
  other code by ``isinstance``), and define every chunk method themselves, so that
  ``zarr_codecs.install()`` can hand zarr's own objects' calls to them.

Importing this module never raises (see ``zarr_codec_shapes.zarr_python``);
``zarr_codecs.install()`` selects these classes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_vlen import Base64, _vlen

__all__ = ["Base64Codec", "VLenBytesCodec", "VLenUTF8Codec"]

Base64Codec = zarr_codec_class(Base64, module=__name__, qualname="Base64Codec")


def _count_checked(data: Any, spec: Any) -> int:
    """The item count ``data`` declares, which must be the chunk's."""
    count, expected = _vlen.item_count(data), int(np.prod(spec.shape))
    if count != expected:
        from zarr_codec_shapes.errors import CorruptInputError

        raise CorruptInputError(f"vlen: a chunk of {count} items, {expected} expected")
    return count


def _decoded_utf8(data: Any, spec: Any) -> Any:
    """A string chunk of ``spec`` in the data type zarr-python gives the array: numpy's
    ``StringDType`` (the strings packed straight into it) or objects."""
    native = spec.dtype.to_native_dtype()
    count = _count_checked(data, spec)
    if native.kind == "T":
        chunk = np.empty(count, dtype=native)
        _vlen.decode_utf8_into(data, chunk)
    else:
        chunk = _vlen.decode_utf8(data).astype(native, copy=False)
    return spec.prototype.nd_buffer.from_numpy_array(chunk.reshape(spec.shape))


def _decoded_bytes(data: Any, spec: Any) -> Any:
    _count_checked(data, spec)
    chunk = _vlen.decode_bytes(data).reshape(spec.shape)
    return spec.prototype.nd_buffer.from_numpy_array(chunk)


def _encoded_utf8(chunk_array: Any) -> bytes:
    """A string chunk in C order: numpy's strings read where they are, else as objects."""
    values = np.asarray(chunk_array.as_numpy_array())
    if values.dtype.kind == "T":
        return bytes(_vlen.encode_utf8_strings(np.ascontiguousarray(values).reshape(-1)))
    return bytes(_vlen.encode_utf8(_items(values)))


def _encoded_bytes(chunk_array: Any) -> bytes:
    return bytes(_vlen.encode_bytes(_items(np.asarray(chunk_array.as_numpy_array()))))


def _items(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A chunk's items in C order, as objects (what the layout stores, in that order)."""
    return values.astype(object, order="C", copy=False).reshape(-1)


def _classes() -> tuple[type[Any], type[Any]]:
    from zarr.codecs.vlen_utf8 import VLenBytesCodec as ZarrBytes
    from zarr.codecs.vlen_utf8 import VLenUTF8Codec as ZarrUTF8

    class _Ours:
        """The chunk methods, defined on our classes themselves: zarr's own class may be
        patched to call them (see ``zarr_codecs._zarr_objects``)."""

        _decoded: Any
        _encoded: Any

        def _decode_sync(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
            return type(self)._decoded(chunk_bytes.as_numpy_array(), chunk_spec)

        def _encode_sync(self, chunk_array: Any, chunk_spec: Any) -> Any:
            encoded = type(self)._encoded(chunk_array)
            return chunk_spec.prototype.buffer.from_bytes(encoded)

        async def _decode_single(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
            return self._decode_sync(chunk_bytes, chunk_spec)

        async def _encode_single(self, chunk_array: Any, chunk_spec: Any) -> Any:
            return self._encode_sync(chunk_array, chunk_spec)

        async def decode(self, chunks_and_specs: Iterable[tuple[Any, Any]]) -> Iterable[Any]:
            return [
                None if chunk is None else self._decode_sync(chunk, spec)
                for chunk, spec in chunks_and_specs
            ]

        async def encode(self, chunks_and_specs: Iterable[tuple[Any, Any]]) -> Iterable[Any]:
            return [
                None if chunk is None else self._encode_sync(chunk, spec)
                for chunk, spec in chunks_and_specs
            ]

    class VLenUTF8Codec(_Ours, ZarrUTF8):
        """``vlen-utf8``: strings as UTF-8, each after its length (numcodecs' layout), in
        Rust."""

        _decoded = staticmethod(_decoded_utf8)
        _encoded = staticmethod(_encoded_utf8)

    class VLenBytesCodec(_Ours, ZarrBytes):
        """``vlen-bytes``: byte strings, each after its length (numcodecs' layout), in
        Rust."""

        _decoded = staticmethod(_decoded_bytes)
        _encoded = staticmethod(_encoded_bytes)

    for cls in (VLenUTF8Codec, VLenBytesCodec):
        cls.__module__ = __name__
    return VLenUTF8Codec, VLenBytesCodec


def _unavailable(name: str, reason: str) -> type[Any]:
    class Unavailable:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise ImportError(f"{name} needs zarr-python 3.4 or later: {reason}")

        @classmethod
        def from_dict(cls, data: Any) -> Any:
            return cls()

    Unavailable.__name__ = Unavailable.__qualname__ = name
    Unavailable.__module__ = __name__
    return Unavailable


try:
    VLenUTF8Codec, VLenBytesCodec = _classes()
except Exception as error:  # no zarr, or one without these classes
    VLenUTF8Codec = _unavailable("VLenUTF8Codec", f"{type(error).__name__}: {error}")
    VLenBytesCodec = _unavailable("VLenBytesCodec", f"{type(error).__name__}: {error}")
