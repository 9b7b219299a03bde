"""Codecs whose work is compiled: the protocols of the glue's two generic bindings (a compiled
bytes codec, and an element-wise array codec bound to an array's data type) and a base class
that hands every call of a bytes codec to its compiled one (and a mixin that does the same for
an element-wise array codec).

A codec wheel registers its Rust codec type with the glue's generic binding
(``add_bytes_codec``), which gives its module a constructor ``name(json, zarr_format)``
returning a :class:`CompiledBytesCodec`. The wheel's Python class (numcodecs-compatible
arguments, attributes and ``repr``) derives from :class:`CompiledBytesCodecBase` and names
that constructor: every method below then runs in Rust with the GIL released, and the
configuration is validated by the Rust configuration type alone.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Buffer, Callable, Sequence
from typing import Any, ClassVar, Literal, Protocol, Self

import numpy as np

from zarr_codec_shapes.base import BytesBytesCodecBase, fill_array, writable_in_place
from zarr_codec_shapes.capabilities import PartialDecodeCapability, RecommendedConcurrency
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.codec_json import canonical_configuration
from zarr_codec_shapes.data_types import DataType
from zarr_codec_shapes.errors import ConfigurationError

__all__ = [
    "CompiledArrayCodec",
    "CompiledArrayMethods",
    "CompiledBytesCodec",
    "CompiledBytesCodecBase",
    "ElementBytesCodec",
    "check_max_decoded_size",
]


class CompiledBytesCodec(Protocol):
    """A compiled bytes-to-bytes codec: one chunk, batches on the shared pool (``threads``:
    ``None`` for one per core), and the chain kernels the runtime runs."""

    @property
    def name(self) -> str: ...
    def configuration(self, zarr_format: int) -> str: ...
    def encode(self, data: Buffer) -> bytes: ...
    def encode_into(self, data: Buffer, out: Buffer) -> int: ...
    def decode(self, data: Buffer, limit: int | None = None) -> bytes: ...
    def decode_into(self, data: Buffer, out: Buffer) -> int: ...
    def max_encoded_size(self, size: int) -> int | None: ...
    def decoded_size(self, data: Buffer) -> int | None: ...
    def encode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]: ...
    def decode_batch(
        self, chunks: Sequence[Buffer], limit: int | None = None, threads: int | None = None
    ) -> list[bytes]: ...
    def decode_batch_into(
        self, chunks: Sequence[Buffer], outs: Sequence[Buffer], threads: int | None = None
    ) -> list[int]: ...
    def decode_kernel(self) -> object: ...
    def encode_kernel(self) -> object: ...


class CompiledArrayCodec(Protocol):
    """An element-wise array codec bound to an array's data type (``decoded``; ``encoded``
    after encoding), as the glue's ``PyArrayCodec`` binding gives it: numpy arrays of any
    layout or byte order in, C-ordered arrays out, batches on the shared pool, chain kernels."""

    @property
    def decoded(self) -> str: ...
    @property
    def encoded(self) -> str: ...
    def encode(self, array: Any) -> np.ndarray[Any, Any]: ...
    def decode(self, array: Any) -> np.ndarray[Any, Any]: ...
    def encode_into(self, array: Any, out: Any) -> None: ...
    def decode_into(self, array: Any, out: Any) -> None: ...
    def encode_batch(
        self, arrays: Sequence[Any], threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]: ...
    def decode_batch(
        self, arrays: Sequence[Any], threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]: ...
    def encode_batch_into(
        self, arrays: Sequence[Any], outs: Sequence[Any], threads: int | None = None
    ) -> None: ...
    def decode_batch_into(
        self, arrays: Sequence[Any], outs: Sequence[Any], threads: int | None = None
    ) -> None: ...
    def encode_kernel(self) -> object: ...
    def decode_kernel(self) -> object: ...


#: A wheel's registered constructor: codec metadata (JSON text) in Zarr format 2 or 3.
Constructor = Callable[[str, int], CompiledBytesCodec]


def check_max_decoded_size(codec: str, value: object) -> int | None:
    """``value`` as a bound on what ``decode`` may allocate: ``None`` or an integer >= 0."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise ConfigurationError(f"{codec}: invalid max_decoded_size {value!r}")


class CompiledBytesCodecBase(BytesBytesCodecBase):
    """A bytes codec whose every call runs in its compiled codec (:attr:`compiled`), made by
    the class's registered ``_constructor`` from the codec's v3 JSON.

    A subclass sets ``name``, ``codec_id`` and ``_constructor``, stores its configuration in
    ``__init__`` (validated with :meth:`_configured`) and returns it from
    ``configuration()``; ``max_decoded_size`` (``None``: no bound) caps what ``decode``
    allocates."""

    _constructor: ClassVar[Constructor]
    max_decoded_size: int | None = None

    @classmethod
    def _configured(cls, config: dict[str, Any], zarr_format: Literal[2, 3]) -> dict[str, Any]:
        """``config`` as the Rust configuration type reads and writes it back (the one place
        it is validated): numcodecs' defaults filled in for v2."""
        name = cls.name if zarr_format == 3 else (cls.codec_id or cls.name)
        constructor = cls._constructor

        def check(text: str, fmt: int) -> str:
            return constructor(text, fmt).configuration(fmt)

        return canonical_configuration(check, name, config, zarr_format)

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> Self:
        """The codec of a v3 configuration, as the Rust configuration type reads it."""
        return cls(**cls._configured(config, 3))

    @classmethod
    def from_v2_configuration(cls, config: dict[str, Any]) -> Self:
        """The codec of a v2 (numcodecs) configuration: numcodecs' defaults (and its
        leniencies, such as clamped levels) are the Rust configuration type's."""
        return cls(**cls._configured(config, 2))

    @functools.cached_property
    def compiled(self) -> CompiledBytesCodec:
        """The compiled codec doing the work (made once per object, on first use)."""
        return self._compile()

    def _compile(self) -> CompiledBytesCodec:
        """The compiled codec of this configuration: from its v3 JSON unless overridden."""
        return type(self)._constructor(json.dumps(self.to_json(3)), 3)

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Encode ``data`` (any buffer; non-contiguous arrays in C order)."""
        return self.compiled.encode(data)

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Decode ``data`` (at most ``max_decoded_size`` bytes when set)."""
        return self.compiled.decode(data, self.max_decoded_size)

    def encode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Encode into ``out``; ``OutputSizeError`` if it does not fit."""
        return self.compiled.encode_into(data, out)

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Decode into ``out``; ``OutputSizeError`` if the content does not fit."""
        return self.compiled.decode_into(data, out)

    def max_encoded_size(self, decoded_size: int) -> int | None:
        """The most bytes ``decoded_size`` bytes can encode to."""
        return self.compiled.max_encoded_size(decoded_size)

    def encode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Encode every chunk, in parallel with the GIL released."""
        return self.compiled.encode_batch(list(chunks), threads)

    def decode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Decode every chunk, in parallel with the GIL released."""
        return self.compiled.decode_batch(list(chunks), self.max_decoded_size, threads)

    def decode_batch_into(
        self, chunks: Sequence[Buffer], outs: Sequence[Buffer], threads: int | None = None
    ) -> list[int]:
        """Decode each chunk into the matching ``out`` (writable, C-contiguous, sharing no
        memory with another ``out`` or any chunk), in parallel with the GIL released; returns
        the bytes written into each."""
        return self.compiled.decode_batch_into(list(chunks), list(outs), threads)

    def decode_kernel(self, spec: ChunkSpec | None = None) -> object | None:
        """Decoding as a compiled kernel, so that a chain of our codecs decodes each chunk
        through all of them in Rust (``zarr_codec_runtime.Chain``)."""
        return self.compiled.decode_kernel()

    def encode_kernel(self, spec: ChunkSpec | None = None) -> object | None:
        """Encoding as a compiled kernel for ``zarr_codec_runtime.Chain``."""
        return self.compiled.encode_kernel()


class CompiledArrayMethods:
    """An element-wise array codec's methods, each delegated to its compiled codec for the
    chunk's data type: ``bind(data_type)``, which the codec class defines (and caches); ``spec``
    is the array's decoded spec. Mixed into a codec class before ``ArrayArrayCodecBase``."""

    #: Each data type's compiled codec (by name), made once by :meth:`_compile`.
    _bound: dict[str, CompiledArrayCodec]

    def bind(self, data_type: DataType) -> CompiledArrayCodec:
        """The compiled codec for arrays of ``data_type`` (made once, then kept)."""
        bound = self._bound.get(data_type.name)
        if bound is None:
            bound = self._bound[data_type.name] = self._compile(data_type)
        return bound

    def _compile(self, data_type: DataType) -> CompiledArrayCodec:
        """The compiled codec for arrays of ``data_type``, made by the codec's wheel."""
        raise NotImplementedError

    def partial_decode_capability(self) -> PartialDecodeCapability:
        """Each element is encoded on its own: any part of a chunk reads and decodes alone."""
        return PartialDecodeCapability.ELEMENTWISE

    def recommended_concurrency(self, spec: ChunkSpec) -> RecommendedConcurrency:
        """One thread per chunk: chunks run in parallel with each other."""
        return RecommendedConcurrency.ONE

    def encode(self, array: Any, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        """Encode ``array`` (of ``spec``'s data type) into a new array."""
        return self.bind(spec.data_type).encode(array)

    def decode(self, array: Any, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        """Decode ``array`` back to ``spec``'s data type."""
        return self.bind(spec.data_type).decode(array)

    def encode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Encode straight into ``out`` (C-contiguous, native order), or through a copy;
        returns the bytes written."""
        return self._into("encode", array, out, spec)

    def decode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Decode straight into ``out`` (C-contiguous, native order), or through a copy;
        returns the bytes written."""
        return self._into("decode", array, out, spec)

    def _into(self, direction: str, array: Any, out: Any, spec: ChunkSpec) -> int:
        compiled = self.bind(spec.data_type)
        if not writable_in_place(out):
            return fill_array(out, getattr(compiled, direction)(array))
        getattr(compiled, f"{direction}_into")(array, out)
        return int(out.nbytes)

    def encode_batch(
        self, chunks: Sequence[Any], spec: ChunkSpec, threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]:
        """Encode many chunks of ``spec``'s data type in parallel (GIL released)."""
        return self.bind(spec.data_type).encode_batch(chunks, threads)

    def decode_batch(
        self, chunks: Sequence[Any], spec: ChunkSpec, threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]:
        """Decode many chunks in parallel (GIL released)."""
        return self.bind(spec.data_type).decode_batch(chunks, threads)

    def decode_batch_into(
        self,
        chunks: Sequence[Any],
        spec: ChunkSpec,
        outs: Sequence[np.ndarray[Any, Any]],
        threads: int | None = None,
    ) -> None:
        """Decode each chunk into the matching ``outs`` array, in parallel."""
        self.bind(spec.data_type).decode_batch_into(chunks, outs, threads)

    def decode_kernel(self, spec: ChunkSpec) -> object:
        """Decoding to ``spec``'s data type as a compiled kernel, so that a
        :class:`zarr_codec_runtime.Chain` of our codecs decodes each chunk through all of them in
        Rust."""
        return self.bind(spec.data_type).decode_kernel()

    def encode_kernel(self, spec: ChunkSpec) -> object:
        """Encoding from ``spec``'s data type as a compiled kernel (see ``decode_kernel``)."""
        return self.bind(spec.data_type).encode_kernel()


class ElementBytesCodec:
    """An array-to-bytes codec (pcodec, zfp) bound to one chunk type (and shape), as the
    compiled bytes codec of the chunk's element bytes in this machine's order that its wheel
    builds: what such a codec's ``element_bytes_codec(spec)`` returns, and what
    ``zarr_codec_runtime.Chain`` runs after the ``bytes`` codec in native order, one compiled
    kernel each way."""

    codec_type: ClassVar[str] = "bytes_bytes"

    def __init__(self, name: str, compiled: CompiledBytesCodec) -> None:
        self.name = name
        self.compiled = compiled

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """The chunk's element bytes encoded."""
        return bytes(self.compiled.encode(data))

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """A stored chunk decoded to its element bytes."""
        return bytes(self.compiled.decode(data, None))

    def encode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Encoding as a compiled chain kernel."""
        return self.compiled.encode_kernel()

    def decode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Decoding as a compiled chain kernel."""
        return self.compiled.decode_kernel()
