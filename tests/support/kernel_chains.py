"""Codec chains every step of which has a compiled kernel, and their test data: shared by the
tests of whole chains in Rust (``test_chain_kernels``, ``test_chain_files``)."""

from __future__ import annotations

from typing import Any

import numpy as np

CHUNK = (16, 50)
BLOSC = {
    "name": "blosc",
    "configuration": {
        "cname": "zstd",
        "clevel": 3,
        "shuffle": "bitshuffle",
        "typesize": 2,
        "blocksize": 0,
    },
}
GZIP = {"name": "gzip", "configuration": {"level": 3}}
SCALE = {"name": "scale_offset", "configuration": {"offset": 5, "scale": 10}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": True}}


def _cast(data_type: str, **extra: Any) -> dict[str, Any]:
    return {"name": "cast_value", "configuration": {"data_type": data_type, **extra}}


def _bytes(endian: str = "little") -> dict[str, Any]:
    return {"name": "bytes", "configuration": {"endian": endian}}


#: (array data type, codecs): chains every step of which has a kernel.
KERNEL_CHAINS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "fused-blosc": ("float32", [SCALE, _cast("int16", out_of_range="clamp"), _bytes(), BLOSC]),
    "scale-gzip-big": ("float64", [SCALE, _bytes("big"), GZIP]),
    "cast-only": ("int32", [_cast("int16", out_of_range="clamp"), _bytes()]),
    "cast-big-gzip": ("uint16", [_cast("float32"), _bytes("big"), GZIP]),
    "big-blosc": ("int16", [_bytes("big"), BLOSC]),
    "cast-then-scale": ("int64", [_cast("float64"), SCALE, _bytes(), GZIP]),
    "zstd": ("float32", [_bytes(), ZSTD]),
    "fused-zstd": ("float64", [SCALE, _cast("int16", out_of_range="clamp"), _bytes(), ZSTD]),
}


def _data(dtype: str, count: int = 6) -> list[np.ndarray[Any, Any]]:
    rng = np.random.default_rng(11)
    return [(rng.normal(50, 30, CHUNK)).clip(0, 1000).astype(dtype) for _ in range(count)]
