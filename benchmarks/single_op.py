"""``python -m benchmarks.single_op OP N``: one operation of ``benchmarks.peers`` timed alone,
in its own process, for checking a row that differs between runs.

16 MiB of float32 (a random walk along rows) in 256 KiB zstd chunks on tmpfs, through our
pipeline (``zarr_codecs.install(pipeline=True)``); OP is ``elem`` (``array[3 + i % 200, 4]``),
``whole`` (``array[:]``), ``wall`` (``array[:] = values``) or ``w44`` (a 4 x 4 chunk write), N
times. Prints the process CPU time per call (all threads). Run it for two builds in turn,
several processes each, and compare the medians; never asserts a time.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np
import zarr
import zarr_codecs


def main(operation: str, count: int) -> float:
    """The process CPU seconds per call of ``operation``, ``count`` calls."""
    zarr_codecs.install(pipeline=True)
    root = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        values = np.random.default_rng(1).standard_normal((2048, 2048)).astype("f4")
        values = values.cumsum(axis=1)
        array = zarr.create_array(
            os.path.join(root, "a"), shape=values.shape, chunks=(256, 256), dtype="f4",
            compressors=[{"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
        )  # fmt: skip
        array[:] = values
        block = np.ones((1024, 1024), "f4")
        calls: dict[str, Callable[[int], object]] = {
            "elem": lambda i: array[3 + i % 200, 4],
            "whole": lambda i: array[:],
            "wall": lambda i: array.__setitem__(slice(None), values),
            "w44": lambda i: array.__setitem__((slice(0, 1024), slice(0, 1024)), block),
        }
        call = calls[operation]
        start = time.process_time()
        for i in range(count):
            call(i)
        return (time.process_time() - start) / count
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    seconds = main(sys.argv[1], int(sys.argv[2]))
    print(f"{sys.argv[1]}: {seconds * 1e3:.4f} ms of CPU per call")
