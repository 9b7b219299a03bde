"""``Transpose``: the ``transpose`` codec (``{"name": "transpose", "configuration": {"order":
[...]}}``) as a codec object a :class:`~zarr_codec_runtime.Chain` plans as a runtime step.

Encoding moves a chunk's dimension ``order[k]`` to place ``k``; decoding moves them back. In the
runtime it is a step of its own (no kernel): elements copied row by row in Rust. It is also how
the runtime stores the chunks of a Zarr v2 array in Fortran order: the C-order bytes of the
chunk with its dimensions reversed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.errors import ConfigurationError

__all__ = ["Transpose"]


@dataclass(frozen=True)
class Transpose:
    """The ``transpose`` codec: ``order`` is a permutation of the chunk's dimensions."""

    order: tuple[int, ...]

    name: ClassVar[str] = "transpose"
    codec_type: ClassVar[str] = "array_array"

    def __post_init__(self) -> None:
        order = tuple(self.order)
        if not all(isinstance(axis, int) for axis in order) or sorted(order) != list(
            range(len(order))
        ):
            raise ConfigurationError(f"transpose: order must be a permutation, got {order!r}")
        object.__setattr__(self, "order", order)

    @classmethod
    def reversing(cls, ndim: int) -> Transpose:
        """The order that stores a chunk as Fortran order does: dimensions reversed."""
        return cls(tuple(reversed(range(ndim))))

    @classmethod
    def from_json(cls, data: Any, zarr_format: int = 3) -> Transpose:
        """From the codec's v3 JSON."""
        if zarr_format != 3 or not isinstance(data, dict) or data.get("name") != cls.name:
            raise ConfigurationError(f"not transpose v3 JSON: {data!r}")
        config = data.get("configuration")
        if not isinstance(config, dict) or set(config) != {"order"}:
            raise ConfigurationError("transpose: the configuration is {'order': [...]}")
        order = config["order"]
        if not isinstance(order, list | tuple):
            raise ConfigurationError(f"transpose: order must be a list, got {order!r}")
        return cls(tuple(order))

    def to_json(self, zarr_format: int = 3) -> dict[str, Any]:
        """The codec's v3 JSON."""
        if zarr_format != 3:
            raise ConfigurationError("transpose exists in Zarr v3 only")
        return {"name": self.name, "configuration": {"order": list(self.order)}}

    def _check(self, spec: ChunkSpec) -> None:
        if len(spec.shape) != len(self.order):
            raise ConfigurationError(
                f"transpose: order {self.order} for chunks of {len(spec.shape)} dimensions"
            )

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The spec of the encoded chunk: the dimensions in ``order``."""
        self._check(spec)
        shape = tuple(spec.shape[axis] for axis in self.order)
        return ChunkSpec(shape, spec.data_type, spec.fill_value)

    def encode(self, array: Any, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        """One chunk (of ``spec``) with its dimensions in ``order``, C-contiguous."""
        self._check(spec)
        return np.ascontiguousarray(np.transpose(np.asarray(array), self.order))

    def decode(self, array: Any, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        """The encoded chunk of ``spec``'s chunk back in its own order."""
        self._check(spec)
        return np.ascontiguousarray(np.transpose(np.asarray(array), np.argsort(self.order)))

    def encode_kernel(self, spec: ChunkSpec) -> tuple[list[int], list[int], int]:
        """The runtime's step for encoding chunks of ``spec``: ``(shape, order, item)``."""
        self._check(spec)
        return list(spec.shape), list(self.order), spec.data_type.itemsize

    def decode_kernel(self, spec: ChunkSpec) -> tuple[list[int], list[int], int]:
        """The runtime's step for decoding into chunks of ``spec``: the encoded shape moved
        back by the inverse order."""
        encoded = self.resolve(spec)
        inverse = [int(axis) for axis in np.argsort(self.order)]
        return list(encoded.shape), inverse, spec.data_type.itemsize
