"""Small conversions between zarr-python's buffers and selections and what the runtime takes,
shared by the pipeline's batch path and its whole-selection path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["broadcast", "covers", "raw"]


def raw(buffer: Any) -> Any:
    """A chunk's stored bytes as a numpy array: from a zarr ``Buffer`` or ``bytes``."""
    if isinstance(buffer, bytes):
        return np.frombuffer(buffer, dtype=np.uint8)
    return buffer.as_numpy_array()


def broadcast(scalar: np.ndarray[Any, Any], selections: Sequence[Any]) -> Any:
    """A 0-d array seen as an array every selection of ``selections`` (tuples of slices with
    stops, as zarr's indexers make them) lies in, with strides of 0 (no copy); ``None`` for
    other selections."""
    ends: list[int] = []
    for selection in selections:
        if not isinstance(selection, tuple):
            return None
        if not ends:
            ends = [0] * len(selection)
        if len(selection) != len(ends):
            return None
        for dim, item in enumerate(selection):
            if not isinstance(item, slice) or not isinstance(item.stop, int):
                return None
            ends[dim] = max(ends[dim], item.stop)
    return np.broadcast_to(scalar, tuple(ends))


def covers(selection: Any, shape: tuple[int, ...]) -> bool:
    """Whether ``selection`` (slices and integers) is all of a chunk of ``shape``."""
    if len(selection) != len(shape):
        return False
    for item, n in zip(selection, shape, strict=True):
        whole = item.indices(n) == (0, n, 1) if isinstance(item, slice) else n == 1
        if not whole:
            return False
    return True
