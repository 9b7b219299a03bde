"""Small conversions between zarr-python's buffers and selections and what the runtime takes,
shared by the pipeline's batch path and its whole-selection path."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["broadcast", "chunk_spec", "covers", "raw", "same_chunks"]


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


def chunk_spec(spec: Any) -> Any:
    """Our chunk spec for zarr-python's ``ArraySpec``, or ``None`` for data types we lack."""
    from zarr_codec_shapes.errors import CodecError
    from zarr_codec_shapes.zarr_python import chunk_spec_from_zarr

    try:
        with warnings.catch_warnings():  # zarr warns about data types without a v3 spec
            warnings.simplefilter("ignore")
            return chunk_spec_from_zarr(spec)
    except (CodecError, TypeError, ValueError):
        return None


def same_chunks(spec: Any, other: Any) -> bool:
    """Whether two of zarr-python's chunk specs give the same chain: equal shapes and the very
    same data type and fill value objects (zarr builds every chunk's spec from the array's
    own), which is cheap to check, unlike converting the spec to look its chain up."""
    return spec is other or (
        spec.shape == other.shape
        and spec.dtype is other.dtype
        and spec.fill_value is other.fill_value
    )
