"""What ``ScaleOffset`` and ``ScaleOffsetCast`` share: every array method delegates to the
compiled plan for the chunk's data type (``bind``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from zarr_codec_shapes import (
    ChunkSpec,
    DataType,
    PartialDecodeCapability,
    RecommendedConcurrency,
)
from zarr_codec_shapes.base import fill_array, writable_in_place
from zarr_codec_shapes.compiled import CompiledArrayCodec


class BoundMethods:
    """Array methods over ``bind(spec.data_type)``; ``spec`` is the array's (decoded) spec."""

    def bind(self, data_type: DataType) -> CompiledArrayCodec:
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
        if not writable_in_place(out):
            return fill_array(out, self.encode(array, spec))
        self.bind(spec.data_type).encode_into(array, out)
        return int(out.nbytes)

    def decode_into(self, array: Any, out: Any, spec: ChunkSpec) -> int:
        """Decode straight into ``out`` (C-contiguous, native order), or through a copy;
        returns the bytes written."""
        if not writable_in_place(out):
            return fill_array(out, self.decode(array, spec))
        self.bind(spec.data_type).decode_into(array, out)
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
