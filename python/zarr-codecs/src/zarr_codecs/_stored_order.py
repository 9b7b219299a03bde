"""Zarr v2 arrays of the other byte order (``">f4"`` on a little-endian machine) in the runtime.

zarr-python reads and writes such an array through numpy arrays of that byte order, and stores
each chunk's elements in it too: the bytes never need swapping. :class:`StoredOrderChain` runs
the array's chain with no swap, on those arrays seen as native elements of the same bytes (a
view, no copy), with a fill value whose native bytes are the stored fill value's. Which chunks
count as empty is decided as zarr-python decides, from the real fill value; where the
runtime's rule would read the bytes as numbers (a NaN fill value, complex numbers) the write
is left to zarr-python.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from zarr_codec_runtime import Chain
from zarr_codec_runtime.chain import Selections
from zarr_codec_shapes import ChunkSpec

__all__ = ["StoredOrderChain", "native_view"]


def native_view(array: Any) -> Any:
    """``array`` with its elements' bytes seen in this machine's order (no copy); anything
    else as it is."""
    if isinstance(array, np.ndarray) and not array.dtype.isnative:
        return array.view(array.dtype.newbyteorder("="))
    return array


class StoredOrderChain(Chain):
    """``Chain`` for chunks whose elements are stored, and handed over by zarr-python, in
    ``order`` (``"<"`` or ``">"``), the other byte order than this machine's. ``codecs`` must
    not swap (their ``bytes`` codec is native)."""

    def __init__(self, codecs: Sequence[Any], spec: ChunkSpec, order: Literal["<", ">"]) -> None:
        self.order = order
        self.real_fill = spec.fill_value
        stored = np.asarray(spec.fill_value, dtype=spec.numpy_dtype.newbyteorder(order))
        as_native = stored.view(spec.numpy_dtype)[()]
        super().__init__(codecs, ChunkSpec(spec.shape, spec.data_type, as_native))
        if self._fill_bytes != stored.tobytes():  # a NaN the spec did not keep bit for bit
            raise ValueError("the stored fill value has no native value of the same bytes")

    def __reduce__(self) -> tuple[Any, ...]:
        real = ChunkSpec(self.spec.shape, self.spec.data_type, self.real_fill)
        return (type(self), (list(self.codecs), real, self.order))

    def read(self, sources: Any, selections: Selections, out: Any) -> list[bool] | None:
        return super().read(sources, selections, native_view(out))

    def read_fetched(
        self, fetched: Sequence[Any], selections: Selections, out: Any
    ) -> list[bool] | None:
        return super().read_fetched(fetched, selections, native_view(out))

    def write_files(
        self, paths: Any, selections: Selections, values: Any, *, write_empty_chunks: bool = False
    ) -> list[bool] | None:
        stored = self._stored_values(values)
        return super().write_files(paths, selections, stored, write_empty_chunks=write_empty_chunks)

    def write_buffers(
        self,
        olds: Sequence[Any],
        selections: Selections,
        values: Any,
        *,
        write_empty_chunks: bool = False,
    ) -> list[Any] | None:
        stored = self._stored_values(values)
        return super().write_buffers(
            olds, selections, stored, write_empty_chunks=write_empty_chunks
        )

    def _stored_values(self, values: Any) -> Any:
        """Values to write, in the stored byte order (converted only when zarr-python hands
        them over in another), seen as native elements."""
        native = self.spec.numpy_dtype
        if not isinstance(values, np.ndarray) or values.dtype.newbyteorder("=") != native:
            return values  # another type: the runtime declines it, zarr-python writes
        stored = native.newbyteorder(self.order)
        return native_view(values if values.dtype == stored else values.astype(stored))

    def _empty_rule(self) -> str | None:
        """zarr-python's rule from the real fill value: equal bytes, except where it compares
        numbers that bytes in the other order cannot stand for (NaN fill values, complex)."""
        kind = self.spec.numpy_dtype.kind
        if kind == "c" or (kind == "f" and np.isnan(self.real_fill)):
            return None
        return "same-bytes"
