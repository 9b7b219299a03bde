"""``ChunkSpec``: what an array codec needs to know about the chunk it transforms."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from zarr_codec_shapes.data_types import DataType
from zarr_codec_shapes.errors import ConfigurationError
from zarr_codec_shapes.fill_value import coerce_fill_value, fill_value_to_json, scalar_bits

__all__ = ["ChunkSpec"]


@dataclass(frozen=True, init=False)
class ChunkSpec:
    """The shape, data type and fill value of one chunk.

    ``fill_value`` is normalised to a numpy scalar of the data type; equality compares its bits,
    so ``NaN == NaN`` and ``-0.0 != 0.0`` here, as Zarr metadata requires.
    """

    shape: tuple[int, ...]
    data_type: DataType
    fill_value: np.generic = field(compare=False)

    def __init__(
        self,
        shape: tuple[int, ...] | list[int],
        data_type: DataType | str,
        fill_value: object = None,
    ) -> None:
        dtype = data_type if isinstance(data_type, DataType) else DataType.from_name(data_type)
        dims = tuple(shape)
        if not all(isinstance(n, int | np.integer) and n >= 0 for n in dims):
            raise ConfigurationError(f"invalid chunk shape {shape!r}")
        if fill_value is None:  # the type's zero, as Zarr's default fill value
            fill_value = np.zeros(1, dtype=dtype.numpy_dtype)[0]
        fill = coerce_fill_value(fill_value, dtype)
        object.__setattr__(self, "shape", tuple(int(n) for n in dims))
        object.__setattr__(self, "data_type", dtype)
        object.__setattr__(self, "fill_value", fill)

    @classmethod
    def for_array(cls, array: Any, fill_value: object = None) -> ChunkSpec:
        """The spec of a numpy (or array API) array: its shape and data type."""
        return cls(tuple(array.shape), DataType.from_numpy(array.dtype), fill_value)

    @property
    def numpy_dtype(self) -> np.dtype[Any]:
        """The native-order numpy dtype of the elements."""
        return self.data_type.numpy_dtype

    @property
    def num_elements(self) -> int:
        """Number of elements in the chunk."""
        return math.prod(self.shape)

    @property
    def num_bytes(self) -> int:
        """Bytes the decoded chunk occupies in memory."""
        return self.num_elements * self.data_type.itemsize

    def fill_value_json(self) -> Any:
        """The fill value in its v3 JSON encoding."""
        return fill_value_to_json(self.fill_value, self.data_type)

    def _key(self) -> tuple[object, ...]:
        return (self.shape, self.data_type, scalar_bits(self.fill_value, self.data_type))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChunkSpec):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"ChunkSpec(shape={self.shape}, data_type={self.data_type.name!r}, "
            f"fill_value={self.fill_value_json()!r})"
        )
