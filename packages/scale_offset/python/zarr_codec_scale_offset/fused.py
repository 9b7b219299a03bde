"""``[scale_offset, cast_value]`` as one pass: :meth:`ScaleOffset.fuse` returns a
:class:`ScaleOffsetCast` when the next codec of a chain is ``cast_value``. A chain runner uses
it in place of the pair; results are exactly those of the two codecs one after the other
(a property test checks every pair of core types and rounding mode), without the
intermediate array."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from zarr_codec_shapes import ChunkSpec, DataType
from zarr_codec_shapes.compiled import CompiledArrayCodec, CompiledArrayMethods

from zarr_codec_scale_offset import _scale_offset

if TYPE_CHECKING:
    from zarr_codec_scale_offset import ScaleOffset

__all__ = ["ScaleOffsetCast"]


class ScaleOffsetCast(CompiledArrayMethods):
    """A ``scale_offset`` codec and the ``cast_value`` codec after it, as one array codec.

    ``spec`` arguments describe the array going into ``scale_offset`` (as for the pair).
    """

    def __init__(self, first: ScaleOffset, second: Any) -> None:
        self.first = first
        self.second = second
        self._second_json = json.dumps(second.to_json(3))
        self.encoded_type = DataType.from_name(second.to_json(3)["configuration"]["data_type"])
        self._bound: dict[str, CompiledArrayCodec] = {}

    def _compile(self, data_type: DataType) -> CompiledArrayCodec:
        """The compiled pass for arrays of ``data_type``."""
        return _scale_offset.bind(
            self.first._json,
            data_type.numpy_dtype,
            self._second_json,
            self.encoded_type.numpy_dtype,
        )

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The spec after both codecs."""
        resolved: ChunkSpec = self.second.resolve(self.first.resolve(spec))
        return resolved

    def __repr__(self) -> str:
        return f"ScaleOffsetCast({self.first!r}, {self.second!r})"
