"""The Zarr v3 ``bytes`` codec: an array's elements as bytes in C order, in a given byte order.

It is the array -> bytes step of almost every chain, so :class:`zarr_codec_shapes.Chain` can run a
whole
v3 chain without zarr-python. Native-order, C-contiguous arrays are serialised without a copy,
and decoding returns a view of the chunk's bytes (or copies straight into the caller's array).
"""

from __future__ import annotations

from collections.abc import Buffer
from typing import Any, ClassVar, Literal

import numpy as np

from zarr_codec_shapes.base import ArrayBytesCodecBase
from zarr_codec_shapes.capabilities import PartialDecodeCapability
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.codec_json import check_keys
from zarr_codec_shapes.errors import ConfigurationError, CorruptInputError, OutputSizeError

__all__ = ["BytesCodec"]

Endian = Literal["little", "big"]


class BytesCodec(ArrayBytesCodecBase):
    """``{"name": "bytes", "configuration": {"endian": "little" | "big"}}``; ``endian`` may be
    left out only for one-byte data types."""

    name: ClassVar[str] = "bytes"
    codec_id: ClassVar[str | None] = None

    def __init__(self, endian: Endian | None = "little") -> None:
        if endian not in ("little", "big", None):
            raise ConfigurationError(f"bytes: endian must be 'little' or 'big', got {endian!r}")
        self.endian = endian

    def configuration(self) -> dict[str, Any]:
        return {} if self.endian is None else {"endian": self.endian}

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> BytesCodec:
        check_keys("bytes", config, optional=("endian",))
        return cls(config.get("endian"))

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self.endian)

    def __repr__(self) -> str:
        return f"BytesCodec(endian={self.endian!r})"

    # No endian has an empty configuration, which the constructor would read as "little".
    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.endian,))

    def __copy__(self) -> BytesCodec:
        return type(self)(self.endian)

    def _dtype(self, spec: ChunkSpec) -> np.dtype[Any]:
        dtype = spec.numpy_dtype
        if dtype.itemsize == 1:
            return dtype
        if self.endian is None:
            raise ConfigurationError(f"bytes: endian is required for {spec.data_type.name}")
        return dtype.newbyteorder("<" if self.endian == "little" else ">")

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return spec

    def partial_decode_capability(self) -> PartialDecodeCapability:
        """Each element is stored on its own: any part reads and decodes alone."""
        return PartialDecodeCapability.ELEMENTWISE

    def encode(self, array: Any, spec: ChunkSpec) -> Buffer:
        """The elements of ``array`` (shape and type of ``spec``) as bytes, C order."""
        data = np.asarray(array)
        if data.shape != spec.shape:
            data = data.reshape(spec.shape)
        stored = np.ascontiguousarray(data, dtype=self._dtype(spec))
        if stored.dtype.itemsize > 1 and not stored.dtype.isnative:
            return stored.tobytes()
        return memoryview(stored.reshape(-1).view(np.uint8))

    def _view(self, data: Buffer, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        dtype = self._dtype(spec)
        raw = np.frombuffer(data, dtype=np.uint8)
        expected = spec.num_bytes
        if raw.size != expected:
            raise CorruptInputError(
                f"bytes: a {spec.shape} {spec.data_type.name} chunk is {expected} bytes, "
                f"got {raw.size}"
            )
        return raw.view(dtype).reshape(spec.shape)

    def decode(self, data: Buffer, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        """A native-order array over ``data`` (a view when the byte order is native)."""
        view = self._view(data, spec)
        if view.dtype.itemsize > 1 and not view.dtype.isnative:
            return view.astype(spec.numpy_dtype)
        return view.view(spec.numpy_dtype)

    def decode_into(self, data: Buffer, out: Any, spec: ChunkSpec) -> int:
        """Copy the chunk's elements into ``out`` (byte-swapping on the way if needed);
        returns the bytes written."""
        view = self._view(data, spec)
        if np.size(out) != view.size:
            raise OutputSizeError(
                f"bytes: the output holds {np.size(out)} elements, the chunk {view.size}"
            )
        np.copyto(out, view.reshape(np.shape(out)), casting="equiv")
        return int(np.asarray(out).nbytes)
