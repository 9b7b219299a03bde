"""``[scale_offset, cast_value]`` as one pass: :meth:`ScaleOffset.fuse` returns a
:class:`ScaleOffsetCast` when the next codec of a chain is ``cast_value``. A chain runner uses
it in place of the pair; results are exactly those of the two codecs one after the other
(a property test checks every pair of core types and rounding mode), without the
intermediate array."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from zarr_codec import ChunkSpec, DataType
from zarr_codec.base import writable_in_place

from zarr_codec_scale_offset import _scale_offset

if TYPE_CHECKING:
    from zarr_codec_scale_offset import ScaleOffset

__all__ = ["ScaleOffsetCast"]


class ScaleOffsetCast:
    """A ``scale_offset`` codec and the ``cast_value`` codec after it, as one array codec.

    ``spec`` arguments describe the array going into ``scale_offset`` (as for the pair).
    """

    def __init__(self, first: ScaleOffset, second: Any) -> None:
        self.first = first
        self.second = second
        self._second_json = json.dumps(second.to_json(3))
        self.encoded_type = DataType.from_name(second.to_json(3)["configuration"]["data_type"])
        self._bound: dict[str, _scale_offset.Fused] = {}

    def bind(self, data_type: DataType) -> _scale_offset.Fused:
        """The compiled pass for arrays of ``data_type`` (cached)."""
        fused = self._bound.get(data_type.name)
        if fused is None:
            fused = _scale_offset.Fused(
                self.first._json,
                self._second_json,
                data_type.numpy_dtype,
                self.encoded_type.numpy_dtype,
            )
            self._bound[data_type.name] = fused
        return fused

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The spec after both codecs."""
        resolved: ChunkSpec = self.second.resolve(self.first.resolve(spec))
        return resolved

    def encode(self, array: Any, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        """``cast_value(scale_offset(array))`` in one pass."""
        return self.bind(spec.data_type).encode(array)

    def decode(self, array: Any, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        """The inverse, in one pass: back to ``spec``'s data type."""
        return self.bind(spec.data_type).decode(array)

    def decode_into(self, array: Any, spec: ChunkSpec, out: Any) -> None:
        """Decode straight into ``out`` (C-contiguous, native order), or through a copy."""
        if writable_in_place(out):
            self.bind(spec.data_type).decode_into(array, out)
        else:
            out[...] = self.decode(array, spec)

    def encode_batch(
        self, chunks: Sequence[Any], spec: ChunkSpec, threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]:
        """Encode many chunks in parallel (GIL released)."""
        return self.bind(spec.data_type).encode_batch(chunks, threads)

    def decode_batch_into(
        self,
        chunks: Sequence[Any],
        spec: ChunkSpec,
        outs: Sequence[np.ndarray[Any, Any]],
        threads: int | None = None,
    ) -> None:
        """Decode each chunk into the matching ``outs`` array, in parallel."""
        self.bind(spec.data_type).decode_batch_into(chunks, outs, threads)

    def __repr__(self) -> str:
        return f"ScaleOffsetCast({self.first!r}, {self.second!r})"
