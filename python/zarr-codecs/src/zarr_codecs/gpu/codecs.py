"""Our array codecs on the GPU: :func:`on_device` wraps ``cast_value``, ``scale_offset`` or
the fused pair so that they take and return CuPy arrays, computing exactly what the CPU codec
computes (the kernels mirror the Rust code; the tests compare them bit for bit).

A device codec refuses host memory with ``DeviceError``, as the CPU codecs refuse device
memory. An element the kernel refuses is handed to the CPU codec, so that the exception is the
CPU codec's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import numpy as np
from zarr_codec_shapes import (
    ChunkSpec,
    DataType,
    OutOfRangeError,
    OutputSizeError,
    RecommendedConcurrency,
    UnsupportedError,
    require_device,
)

from zarr_codecs.gpu import availability, kernels
from zarr_codecs.gpu.decompress import decompress_batch, stated_size
from zarr_codecs.gpu.plans import Step, cast_step, scale_offset_step

__all__ = ["DeviceArrayCodec", "DeviceBytesCodec", "as_cupy", "on_device"]

CUDA = frozenset({"cuda"})


class DeviceArrayCodec:
    """One of our array codecs, run on the GPU over CuPy arrays, wrapping the CPU codec
    (``codec``). Its JSON is that codec's; for the fused pair (``ScaleOffsetCast``), which is
    two codecs of a chain, it is the list of the two codecs' JSON, as they stand in the chain's
    ``codecs``. Two are equal when they wrap equal codecs (for the fused pair, equal pairs)."""

    devices: ClassVar[frozenset[str]] = CUDA

    def __init__(self, codec: Any) -> None:
        kind = _kind(codec)
        if kind is None:
            raise UnsupportedError(
                f"{type(codec).__name__} has no GPU kernels (cast_value, scale_offset and the "
                "fused pair have)"
            )
        self.codec = codec
        self._kind = kind
        self._steps: dict[tuple[str, bool], Step] = {}

    # -- what the codec is -------------------------------------------------------------------

    @property
    def name(self) -> str:
        return str(getattr(self.codec, "name", "scale_offset+cast_value"))

    def to_json(self, zarr_format: Any = 3) -> Any:
        """The wrapped codec's JSON; for the fused pair, the list of its two codecs' JSON."""
        if self._kind == "fused":
            return [self.codec.first.to_json(zarr_format), self.codec.second.to_json(zarr_format)]
        return self.codec.to_json(zarr_format)

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return self.codec.resolve(spec)  # type: ignore[no-any-return]

    def recommended_concurrency(self, spec: ChunkSpec) -> RecommendedConcurrency:
        """One chunk at a time: a kernel already spreads one chunk over the whole device."""
        return RecommendedConcurrency.ONE

    def _identity(self) -> Any:
        """What equality compares: the codec, or the fused pair's two codecs (the pair itself
        has no equality of its own)."""
        if self._kind == "fused":
            return (self.codec.first, self.codec.second)
        return self.codec

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeviceArrayCodec) and other._identity() == self._identity()

    def __hash__(self) -> int:
        return hash((DeviceArrayCodec, self._identity()))

    def __repr__(self) -> str:
        return f"on_device({self.codec!r})"

    # -- steps -------------------------------------------------------------------------------

    def step(self, data_type: DataType, encode: bool) -> Step:
        """The kernel for arrays of ``data_type`` (the decoded type) in one direction.
        Checked by the CPU codec first, so a bad configuration raises its error here."""
        key = (data_type.name, encode)
        if key not in self._steps:
            self._steps[key] = _step(self._kind, self.codec, data_type, encode)
        return self._steps[key]

    # -- the codec methods -------------------------------------------------------------------

    def encode(self, array: Any, spec: ChunkSpec) -> Any:
        """``array`` (CuPy, of ``spec``'s type) encoded into a new CuPy array."""
        return self._apply(array, None, spec, encode=True)

    def decode(self, array: Any, spec: ChunkSpec) -> Any:
        """``array`` (CuPy, of the encoded type) decoded into a new CuPy array of ``spec``'s
        type."""
        return self._apply(array, None, spec, encode=False)

    def encode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Encode into the CuPy array ``out``; returns the bytes written."""
        return int(self._apply(array, out, spec, encode=True).nbytes)

    def decode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Decode into the CuPy array ``out`` (C-contiguous, as many elements); returns the
        bytes written."""
        return int(self._apply(array, out, spec, encode=False).nbytes)

    def _apply(self, array: Any, out: Any, spec: ChunkSpec, encode: bool) -> Any:
        availability.require()
        import cupy

        require_device(CUDA, self.name, input=array)
        if out is not None:
            require_device(CUDA, self.name, output=out)
        decoded = spec.data_type
        encoded = self.resolve(spec).data_type
        source_type, target_type = (decoded, encoded) if encode else (encoded, decoded)
        source = cupy.ascontiguousarray(as_cupy(array))
        if out is not None:
            out = as_cupy(out)
        if source.dtype.itemsize != source_type.itemsize:
            raise UnsupportedError(
                f"{self.name}: the input has {source.dtype.itemsize}-byte elements, "
                f"{source_type.name} {source_type.itemsize}-byte ones"
            )
        count = source.size
        if out is None:
            out = cupy.empty(source.shape, dtype=_cupy_dtype(target_type))
        elif out.size != count or out.dtype.itemsize != target_type.itemsize:
            raise OutputSizeError(
                f"{self.name}: the output holds {out.size} elements of {out.dtype.itemsize} "
                f"bytes, the chunk {count} of {target_type.itemsize}"
            )
        elif not out.flags.c_contiguous:
            raise OutputSizeError(f"{self.name}: the output must be C-contiguous")
        step = self.step(decoded, encode)
        failed = kernels.launch(step, source, out)
        first = int(failed.get()[0])
        if first < count:
            self._raise_for(source.reshape(-1)[first : first + 1], source_type, spec, encode)
        return out

    def _raise_for(
        self, element: Any, source_type: DataType, spec: ChunkSpec, encode: bool
    ) -> None:
        """The CPU codec's exception for the element the kernel refused."""
        import cupy

        host = cupy.asnumpy(element).view(source_type.numpy_dtype)
        method = self.codec.encode if encode else self.codec.decode
        method(host, ChunkSpec(host.shape, spec.data_type))
        raise OutOfRangeError(f"{self.name}: an element cannot be converted: {host[0]!r}")


def as_cupy(array: Any) -> Any:
    """``array`` as a CuPy array over the same device memory: CuPy arrays as they are, other
    objects through the CUDA array interface (Numba, PyTorch) or DLPack, without a copy."""
    import cupy

    if isinstance(array, cupy.ndarray):
        return array
    if hasattr(array, "__cuda_array_interface__"):
        return cupy.asarray(array)
    return cupy.from_dlpack(array)


def on_device(codec: Any) -> Any:
    """``codec`` run on the GPU: our ``CastValue``, ``ScaleOffset`` or ``ScaleOffsetCast`` as a
    :class:`DeviceArrayCodec`, our ``Zstd`` or ``Gzip`` as a :class:`DeviceBytesCodec`.
    ``UnsupportedError`` for any other codec."""
    if getattr(codec, "name", None) in ("zstd", "gzip") and type(codec).__module__.split(".")[
        0
    ] in ("zarr_codec_zstd", "zarr_codec_gzip"):
        return DeviceBytesCodec(codec)
    return DeviceArrayCodec(codec)


class DeviceBytesCodec:
    """Our zstd or gzip decompressing host bytes into device memory with nvCOMP (the chunks
    whose structure nvCOMP can be trusted with; the others by the CPU codec, then copied).
    Encoding stays on the CPU codec (``codec``)."""

    devices: ClassVar[frozenset[str]] = frozenset({"cuda", "cpu"})

    def __init__(self, codec: Any) -> None:
        self.codec = codec
        self.name: str = codec.name

    def to_json(self, zarr_format: Any = 3) -> Any:
        return self.codec.to_json(zarr_format)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeviceBytesCodec) and other.codec == self.codec

    def __hash__(self) -> int:
        return hash((DeviceBytesCodec, self.codec))

    def __repr__(self) -> str:
        return f"on_device({self.codec!r})"

    def encode(self, data: Any) -> Any:
        """Compressed on the CPU (host bytes in, host bytes out)."""
        return self.codec.encode(data)

    def decode(self, data: Any) -> Any:
        """Host bytes in, a CuPy ``uint8`` array out."""
        return self.decode_batch([data])[0]

    def decode_into(self, data: Any, out: Any) -> int:
        """Host bytes in, decoded into the device array ``out`` (its size is the chunk's)."""
        require_device(CUDA, self.name, output=out)
        target = as_cupy(out)
        decoded = decompress_batch(self.name, [data], [int(target.nbytes)], self.codec)[0]
        target.reshape(-1).view("u1")[...] = decoded
        return int(target.nbytes)

    def decode_batch(self, chunks: Sequence[Any]) -> list[Any]:
        """Many chunks in one nvCOMP call where their headers state their sizes; the rest on
        the CPU."""
        availability.require()
        import cupy

        sizes = [stated_size(self.name, chunk) for chunk in chunks]
        known = [i for i, size in enumerate(sizes) if size is not None]
        outs: list[Any] = [None] * len(chunks)
        decoded = decompress_batch(
            self.name, [chunks[i] for i in known], [int(sizes[i] or 0) for i in known], self.codec
        )
        for i, array in zip(known, decoded, strict=True):
            outs[i] = array
        for i, size in enumerate(sizes):
            if size is None:
                outs[i] = cupy.asarray(np.frombuffer(self.codec.decode(chunks[i]), dtype=np.uint8))
        return outs


def _kind(codec: Any) -> str | None:
    """Which of our array codecs ``codec`` is (taken by type, so subclasses and other
    implementations of the same names are not assumed to compute the same)."""
    from zarr_codec_cast_value import CastValue
    from zarr_codec_scale_offset import ScaleOffset
    from zarr_codec_scale_offset.fused import ScaleOffsetCast

    if type(codec) is CastValue:
        return "cast_value"
    if type(codec) is ScaleOffset:
        return "scale_offset"
    if type(codec) is ScaleOffsetCast and type(codec.second) is CastValue:
        return "fused"
    return None


def _step(kind: str, codec: Any, data_type: DataType, encode: bool) -> Step:
    direction: Literal["encode", "decode"] = "encode" if encode else "decode"
    if kind == "cast_value":
        return Step(0, cast=cast_step(codec, data_type, direction))
    if kind == "scale_offset":
        return Step(1, affine=scale_offset_step(codec, data_type, encode))
    return Step(
        2 if encode else 3,
        cast=cast_step(codec.second, data_type, direction),
        affine=scale_offset_step(codec.first, data_type, encode),
    )


def cupy_has(data_type: DataType) -> bool:
    """Whether CuPy has arrays of ``data_type`` (it has none of the ml_dtypes types)."""
    dtype = data_type.numpy_dtype
    return bool(dtype.type.__module__ == "numpy" and dtype.kind in "iuf")


def _cupy_dtype(data_type: DataType) -> Any:
    """The dtype of new CuPy arrays of ``data_type``."""
    if cupy_has(data_type):
        return data_type.numpy_dtype
    raise UnsupportedError(
        f"CuPy has no {data_type.name} arrays: pass an output array of "
        f"{data_type.itemsize}-byte elements (its bits are written as they are stored)"
    )
