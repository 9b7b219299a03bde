"""Optional base classes that give a codec its value semantics and default extras.

A codec only has to satisfy the protocols; these bases save writing the same boilerplate in
every codec. A subclass declares ``name``, ``codec_id``, ``codec_type``, a constructor taking
its configuration as keyword arguments, and ``configuration()`` returning those arguments.
Equality, hashing, ``repr``, ``copy``, pickling and both JSON forms follow from that.
"""

from __future__ import annotations

import asyncio
from collections.abc import Buffer, Sequence
from typing import Any, ClassVar, Self

import numpy as np

from zarr_codec_shapes.capabilities import PartialDecodeCapability, RecommendedConcurrency
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.codec_json import split_codec_json
from zarr_codec_shapes.devices import CPU, require_device
from zarr_codec_shapes.errors import BufferTypeError, ConfigurationError, OutputSizeError
from zarr_codec_shapes.protocols import CodecType, ZarrFormat

__all__ = ["ArrayArrayCodecBase", "ArrayBytesCodecBase", "BytesBytesCodecBase", "CodecBase"]


def as_byte_view(data: Buffer) -> memoryview:
    """A flat byte view of any buffer, the bytes a bytes codec stores for it: in memory order
    when it is contiguous (C or Fortran order, as numcodecs stores Zarr v2 chunks), copied in
    C order otherwise (numpy's ``tobytes(order="A")``). ``BufferTypeError`` for what is not
    a buffer of plain data (object arrays hold pointers)."""
    return _flat_bytes(data, writable=False)


def _flat_bytes(data: Any, *, writable: bool) -> memoryview:
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "Mm":  # numpy exports no buffer for these: their int64 bytes
            data = data.view(np.int64)
        elif data.dtype.hasobject:
            raise BufferTypeError(_OBJECTS)
    try:
        view = memoryview(data)
    except TypeError:
        require_device(CPU, "a CPU codec", input=data)
        raise BufferTypeError(f"a buffer is required, got {type(data).__name__}") from None
    if _holds_objects(view.format):
        raise BufferTypeError(_OBJECTS)
    if writable and view.readonly:
        raise OutputSizeError("the output buffer is read-only")
    if writable and not view.contiguous:
        raise OutputSizeError("the output buffer must be contiguous")
    if view.format == "B" and view.ndim == 1 and view.c_contiguous:
        return view
    # A view of the same memory when contiguous; strided input: one copy is unavoidable.
    flat = np.asarray(view).reshape(-1, order="A")
    return memoryview(flat.view(np.uint8))


_OBJECTS = "object arrays are not supported: their buffer holds pointers to Python objects"


def _holds_objects(format: str) -> bool:
    """Whether a PEP 3118 format names Python objects (``O``), field names aside."""
    in_name = False
    for char in format:
        if char == ":":
            in_name = not in_name
        elif char == "O" and not in_name:
            return True
    return False


def item_size(data: Any) -> int:
    """The item size of a buffer: a numpy array's element size (datetime64 and timedelta64
    included, which export no buffer), else the buffer's own item size."""
    dtype = getattr(data, "dtype", None)
    if isinstance(dtype, np.dtype):
        return dtype.itemsize
    try:
        return memoryview(data).itemsize
    except TypeError:
        require_device(CPU, "a CPU codec", input=data)
        raise BufferTypeError(f"a buffer is required, got {type(data).__name__}") from None


def copy_into(result: Buffer, out: Buffer) -> int:
    """Copy ``result`` to the front of the writable buffer ``out`` (contiguous, filled in its
    memory order); return the byte count."""
    src = as_byte_view(result)
    dst = _flat_bytes(out, writable=True)
    if src.nbytes > dst.nbytes:
        raise OutputSizeError(f"output needs {src.nbytes} bytes but the buffer holds {dst.nbytes}")
    dst[: src.nbytes] = src
    return src.nbytes


def writable_in_place(out: Any) -> bool:
    """Whether compiled code can write ``out`` directly: a writable, C-contiguous, native-order
    numpy array of at least one dimension (a 0-d array exports no buffer shape). Otherwise an
    array codec's ``decode_into`` decodes, then copies with ``out[...] = ...``."""
    import numpy as np

    return (
        isinstance(out, np.ndarray)
        and out.flags.c_contiguous
        and out.flags.writeable
        and out.dtype.isnative
        and out.ndim > 0
    )


class CodecBase:
    """Value semantics and JSON for a codec whose state is its configuration."""

    name: ClassVar[str]
    codec_id: ClassVar[str | None] = None
    codec_type: ClassVar[CodecType]

    def configuration(self) -> dict[str, Any]:
        """The constructor keyword arguments that recreate this codec (the v3 configuration)."""
        raise NotImplementedError

    # -- JSON ------------------------------------------------------------------------------

    def to_json(self, zarr_format: ZarrFormat = 3) -> dict[str, Any]:
        """v3 ``{"name", "configuration"}`` or v2 ``{"id", ...}`` metadata."""
        if zarr_format == 3:
            return {"name": self.name, "configuration": self.configuration()}
        if zarr_format == 2:
            if self.codec_id is None:
                raise ConfigurationError(f"codec {self.name!r} has no Zarr v2 form")
            return {"id": self.codec_id, **self.v2_configuration()}
        raise ConfigurationError(f"zarr_format must be 2 or 3, got {zarr_format!r}")

    def v2_configuration(self) -> dict[str, Any]:
        """The keys beside ``"id"`` in the v2 form; the v3 configuration unless overridden."""
        return self.configuration()

    @classmethod
    def from_json(cls, data: Any, zarr_format: ZarrFormat = 3) -> Self:
        """Build from metadata in either form; ``ConfigurationError`` if it does not fit."""
        name, config = split_codec_json(data, zarr_format)
        expected = cls.name if zarr_format == 3 else cls.codec_id
        if name != expected:
            raise ConfigurationError(f"expected codec {expected!r}, got {name!r}")
        if zarr_format == 2:
            return cls.from_v2_configuration(config)
        return cls.from_configuration(config)

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> Self:
        """Build from a v3 configuration; the constructor validates the keys."""
        try:
            return cls(**config)
        except TypeError as err:  # unknown or missing keyword: a configuration problem
            raise ConfigurationError(f"{cls.name}: {err}") from None

    @classmethod
    def from_v2_configuration(cls, config: dict[str, Any]) -> Self:
        """Build from the keys beside ``"id"``; the v3 rules unless overridden."""
        return cls.from_configuration(config)

    # -- value semantics -------------------------------------------------------------------

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), _freeze(self.configuration()))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CodecBase):
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.configuration().items())
        return f"{type(self).__name__}({args})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.configuration()))

    # -- capabilities ----------------------------------------------------------------------

    def recommended_concurrency(self, spec: ChunkSpec) -> RecommendedConcurrency:
        """One thread per chunk unless the codec says more."""
        return RecommendedConcurrency.ONE

    def partial_decode_capability(self) -> PartialDecodeCapability:
        """Whole chunks only unless the codec says more."""
        return PartialDecodeCapability.NONE

    def __copy__(self) -> Self:
        return type(self)(**self.configuration())

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self.__copy__()


def _rebuild(cls: type[CodecBase], config: dict[str, Any]) -> CodecBase:
    return cls(**config)


def _freeze(value: Any) -> Any:
    """A hashable stand-in for nested JSON-like configuration."""
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, float) and value != value:
        return ("NaN",)
    return value


class _AsyncAndBatchDefaults:
    """Async and batch methods derived from the sync ones (compiled codecs do better)."""

    def encode(self, data: Any, *args: Any) -> Any:
        raise NotImplementedError

    def decode(self, data: Any, *args: Any) -> Any:
        raise NotImplementedError

    async def encode_async(self, data: Any, *args: Any) -> Any:
        """``encode`` in a worker thread."""
        return await asyncio.to_thread(self.encode, data, *args)

    async def decode_async(self, data: Any, *args: Any) -> Any:
        """``decode`` in a worker thread."""
        return await asyncio.to_thread(self.decode, data, *args)

    def encode_batch(self, chunks: Sequence[Any], *args: Any) -> list[Any]:
        """``encode`` of each chunk, in order."""
        return [self.encode(chunk, *args) for chunk in chunks]

    def decode_batch(self, chunks: Sequence[Any], *args: Any) -> list[Any]:
        """``decode`` of each chunk, in order."""
        return [self.decode(chunk, *args) for chunk in chunks]


class BytesBytesCodecBase(CodecBase, _AsyncAndBatchDefaults):
    """Base for bytes->bytes codecs: ``*_into`` and the extras derive from encode/decode."""

    codec_type: ClassVar[CodecType] = "bytes_bytes"

    def encode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Encode, then copy into ``out``."""
        return copy_into(self.encode(data, spec), out)

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Decode, then copy into ``out``."""
        return copy_into(self.decode(data, spec), out)

    def max_encoded_size(self, decoded_size: int) -> int | None:
        """Unknown unless the codec says."""
        return None


def fill_array(out: Any, result: Any) -> int:
    """Copy the array ``result`` into the caller's array ``out`` (as many elements, any
    shape); return the bytes written. ``OutputSizeError`` when the sizes differ: numpy would
    broadcast a smaller result silently; ``DeviceError`` when ``out`` is in GPU memory."""
    require_device(CPU, "a CPU codec", output=out)
    values = np.asarray(result)
    if np.size(out) != values.size:
        raise OutputSizeError(f"the output holds {np.size(out)} elements, the chunk {values.size}")
    out[...] = values.reshape(np.shape(out))
    return int(np.asarray(out).nbytes)


class ArrayArrayCodecBase(CodecBase, _AsyncAndBatchDefaults):
    """Base for array->array codecs: the ``*_into`` methods derive from encode/decode."""

    codec_type: ClassVar[CodecType] = "array_array"

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """Unchanged spec unless the codec changes the data type or fill value."""
        return spec

    def encode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Encode, then copy into ``out``."""
        return fill_array(out, self.encode(array, spec))

    def decode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Decode, then copy into ``out``."""
        return fill_array(out, self.decode(array, spec))


class ArrayBytesCodecBase(CodecBase, _AsyncAndBatchDefaults):
    """Base for array->bytes codecs: the ``*_into`` methods derive from encode/decode."""

    codec_type: ClassVar[CodecType] = "array_bytes"

    def encode_into(self, array: Any, out: Buffer, spec: ChunkSpec) -> int:
        """Encode, then copy into ``out``."""
        return copy_into(self.encode(array, spec), out)

    def decode_into(self, data: Buffer, out: Any, spec: ChunkSpec) -> int:
        """Decode, then copy into ``out``."""
        return fill_array(out, self.decode(data, spec))
