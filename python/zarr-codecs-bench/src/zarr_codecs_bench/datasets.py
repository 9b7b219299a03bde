"""Deterministic benchmark datasets, generated in memory (nothing is cached on disk).

Each dataset comes from :func:`numpy.random.default_rng` with a fixed seed, so the same name and
size always give the same bytes. The default size is 16 MiB of array data; smaller sizes keep
test runs quick. Arrays are 2-D where that is natural (fields and images), C-contiguous.

* ``float32_field``: smooth 2-D trigonometric field plus a random walk, float32.
* ``float64_field``: the same idea with other frequencies and seed, float64.
* ``int32_counts``: Poisson counts around a smoothly varying rate, int32.
* ``uint8_image``: smooth gradients and soft blobs plus sensor noise, uint8.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

MiB = 1 << 20
DEFAULT_SIZE = 16 * MiB

Array = npt.NDArray[Any]


@dataclass(frozen=True)
class Dataset:
    """A named generator: ``make(rng, shape)`` returns an array of ``dtype`` and ``shape``."""

    name: str
    dtype: np.dtype[np.generic]
    seed: int
    make: Callable[[np.random.Generator, tuple[int, int]], Array]
    description: str


def shape_for(n_elements: int) -> tuple[int, int]:
    """A near-square 2-D shape with exactly ``n_elements``; the width is a power of two."""
    if n_elements <= 0:
        raise ValueError("a dataset needs at least one element")
    width = 1 << (math.isqrt(n_elements).bit_length() - 1)
    while n_elements % width:
        width //= 2
    return n_elements // width, width


def _grid(shape: tuple[int, int]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Coordinates in [0, 1) along each axis, broadcastable to ``shape``."""
    rows, cols = shape
    y = (np.arange(rows, dtype=np.float64) / rows)[:, None]
    x = (np.arange(cols, dtype=np.float64) / cols)[None, :]
    return y, x


def _walk(rng: np.random.Generator, shape: tuple[int, int], step: float) -> npt.NDArray[np.float64]:
    """A random walk along the flattened array (row-major), reshaped to ``shape``."""
    return np.cumsum(rng.normal(0.0, step, size=shape[0] * shape[1])).reshape(shape)


def _float_field(
    rng: np.random.Generator, shape: tuple[int, int], freqs: tuple[float, float, float]
) -> npt.NDArray[np.float64]:
    y, x = _grid(shape)
    a, b, c = freqs
    two_pi = 2 * np.pi
    smooth = np.sin(two_pi * a * x) * np.cos(two_pi * b * y) + 0.5 * np.sin(two_pi * c * (x + y))
    return 10.0 * smooth + _walk(rng, shape, 0.01) + rng.normal(0.0, 1e-3, size=shape)


def _float32_field(rng: np.random.Generator, shape: tuple[int, int]) -> Array:
    return _float_field(rng, shape, (3.0, 2.0, 7.0)).astype(np.float32)


def _float64_field(rng: np.random.Generator, shape: tuple[int, int]) -> Array:
    return _float_field(rng, shape, (5.0, 4.0, 11.0)).astype(np.float64)


def _int32_counts(rng: np.random.Generator, shape: tuple[int, int]) -> Array:
    y, x = _grid(shape)
    rate = 20.0 + 15.0 * np.sin(2 * np.pi * 2 * x) * np.cos(2 * np.pi * 3 * y)
    return rng.poisson(np.broadcast_to(rate, shape)).astype(np.int32)


def _uint8_image(rng: np.random.Generator, shape: tuple[int, int]) -> Array:
    y, x = _grid(shape)
    image = 40.0 + 120.0 * x + 50.0 * y
    for _ in range(6):
        cy, cx = rng.uniform(0.1, 0.9, size=2)
        radius = rng.uniform(0.05, 0.2)
        image = image + rng.uniform(-60, 60) * np.exp(
            -((x - cx) ** 2 + (y - cy) ** 2) / (2 * radius**2)
        )
    image = image + rng.normal(0.0, 3.0, size=shape)
    return np.clip(np.rint(image), 0, 255).astype(np.uint8)


DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in (
        Dataset(
            "float32_field",
            np.dtype(np.float32),
            1,
            _float32_field,
            "smooth 2-D field + random walk",
        ),
        Dataset(
            "float64_field",
            np.dtype(np.float64),
            2,
            _float64_field,
            "smooth 2-D field + random walk",
        ),
        Dataset(
            "int32_counts",
            np.dtype(np.int32),
            3,
            _int32_counts,
            "Poisson counts, smooth rate",
        ),
        Dataset(
            "uint8_image",
            np.dtype(np.uint8),
            4,
            _uint8_image,
            "gradients + blobs + noise",
        ),
    )
}


def load(name: str, size_bytes: int = DEFAULT_SIZE) -> Array:
    """Generate dataset ``name`` with exactly ``size_bytes`` bytes of data.

    ``size_bytes`` must be a positive multiple of the item size. The result is C-contiguous
    and deterministic: the same arguments always give the same array.
    """
    try:
        dataset = DATASETS[name]
    except KeyError:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}") from None
    itemsize = dataset.dtype.itemsize
    if size_bytes <= 0 or size_bytes % itemsize:
        raise ValueError(f"size_bytes must be a positive multiple of {itemsize} for {name}")
    shape = shape_for(size_bytes // itemsize)
    array = np.ascontiguousarray(dataset.make(np.random.default_rng(dataset.seed), shape))
    if array.dtype != dataset.dtype or array.nbytes != size_bytes:
        raise AssertionError(f"{name} generated {array.dtype} {array.shape}")  # a bug here
    return array
