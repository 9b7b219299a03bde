"""Codecs that exist only for the tests: written straight against the ``zarr_codec_shapes``
protocols.

``XorCrc`` is a bytes->bytes codec implemented without any base class (the protocols are
structural), with a real integrity check so malformed input is detectable. ``BitNot`` is an
array->array codec built on ``ArrayArrayCodecBase`` that changes the fill value on encode, so
``resolve`` matters. Neither is shipped.
"""

from __future__ import annotations

import zlib
from collections.abc import Buffer
from typing import Any, ClassVar, Literal, Self

import numpy as np
from zarr_codec_shapes import (
    ArrayArrayCodecBase,
    ChunkSpec,
    ConfigurationError,
    CorruptInputError,
    OutputSizeError,
    PartialDecodeCapability,
    RecommendedConcurrency,
    check_keys,
    split_codec_json,
)
from zarr_codec_shapes.base import as_byte_view
from zarr_codec_shapes.numcodecs import numcodecs_codec_class
from zarr_codec_shapes.zarr_python import zarr_codec_class


class XorCrc:
    """XOR every byte with ``key`` and append the CRC32 of the result (4 bytes, little-endian)."""

    name: ClassVar[str] = "test.xor_crc"
    codec_id: ClassVar[str | None] = "test_xor_crc"
    codec_type: ClassVar[Literal["bytes_bytes"]] = "bytes_bytes"

    def __init__(self, key: int = 0x5A) -> None:
        if isinstance(key, bool) or not isinstance(key, int) or not 0 <= key <= 255:
            raise ConfigurationError(f"test.xor_crc: key must be an integer in 0..255, got {key!r}")
        self.key = key

    def to_json(self, zarr_format: Literal[2, 3] = 3) -> dict[str, Any]:
        if zarr_format == 2:
            return {"id": self.codec_id, "key": self.key}
        return {"name": self.name, "configuration": {"key": self.key}}

    @classmethod
    def from_json(cls, data: Any, zarr_format: Literal[2, 3] = 3) -> Self:
        name, config = split_codec_json(data, zarr_format)
        if name != (cls.name if zarr_format == 3 else cls.codec_id):
            raise ConfigurationError(f"not a {cls.name} codec: {data!r}")
        check_keys(cls.name, config, optional=("key",))
        return cls(**config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, XorCrc) and other.key == self.key

    def __hash__(self) -> int:
        return hash((XorCrc, self.key))

    def __repr__(self) -> str:
        return f"XorCrc(key={self.key})"

    def _xor(self, data: Buffer) -> np.ndarray[Any, np.dtype[np.uint8]]:
        return _stored_bytes(data) ^ np.uint8(self.key)

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        body = self._xor(data).tobytes()
        return body + zlib.crc32(body).to_bytes(4, "little")

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        raw = _stored_bytes(data).tobytes()
        if len(raw) < 4:
            raise CorruptInputError(f"test.xor_crc: {len(raw)} bytes is shorter than the checksum")
        body, crc = raw[:-4], int.from_bytes(raw[-4:], "little")
        if zlib.crc32(body) != crc:
            raise CorruptInputError("test.xor_crc: checksum mismatch")
        return self._xor(body).tobytes()

    def encode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        return _copy(self.encode(data), out)

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        return _copy(self.decode(data), out)

    def max_encoded_size(self, decoded_size: int) -> int | None:
        return decoded_size + 4

    def recommended_concurrency(self, spec: ChunkSpec) -> RecommendedConcurrency:
        return RecommendedConcurrency.ONE  # one CRC over the whole chunk

    def partial_decode_capability(self) -> PartialDecodeCapability:
        return PartialDecodeCapability.NONE


def _stored_bytes(data: Buffer) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """The bytes a bytes codec stores for any buffer (memory order when contiguous, else C
    order), as a flat uint8 array."""
    return np.frombuffer(as_byte_view(data), np.uint8)


def _copy(result: bytes, out: Buffer) -> int:
    target = memoryview(out).cast("B")
    if len(result) > len(target):
        raise OutputSizeError(f"need {len(result)} bytes, the output holds {len(target)}")
    target[: len(result)] = result
    return len(result)


class BitNot(ArrayArrayCodecBase):
    """Invert every bit of every element; the encoded fill value is inverted too."""

    name: ClassVar[str] = "test.bitnot"

    def __init__(self) -> None:
        pass

    def configuration(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def _invert(array: Any) -> np.ndarray[Any, Any]:
        arr = np.asarray(array)
        native = np.asarray(arr, dtype=arr.dtype.newbyteorder("="), order="C")
        # complex128 has no 16-byte unsigned type: invert it as two uint64 halves.
        unit = np.dtype(f"u{min(native.dtype.itemsize, 8)}")
        bits = native.reshape((*native.shape, 1)).view(unit)
        return (~bits).view(native.dtype).reshape(native.shape)  # type: ignore[no-any-return]

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        fill = self._invert(np.asarray(spec.fill_value, dtype=spec.numpy_dtype))[()]
        return ChunkSpec(spec.shape, spec.data_type, fill)

    def encode(self, array: Any, spec: ChunkSpec) -> Any:
        return self._invert(array)

    def decode(self, array: Any, spec: ChunkSpec) -> Any:
        return self._invert(array)


XorCrcZarr = zarr_codec_class(XorCrc, module=__name__, qualname="XorCrcZarr")
BitNotZarr = zarr_codec_class(BitNot, module=__name__, qualname="BitNotZarr")


def __getattr__(name: str) -> Any:
    # Built on first use so importing this module does not import numcodecs.
    if name == "XorCrcNumcodecs":
        cls = numcodecs_codec_class(XorCrc, module=__name__, qualname="XorCrcNumcodecs")
        globals()[name] = cls
        return cls
    raise AttributeError(name)
