"""The chunk work of the pipeline benchmark with zarr-python taken out: each chunk encoded,
stored, read and decoded by our Rust runners called directly, in the same process, on the same
chunks, codecs and store layout.

Every pipeline must do this work (the same frames, byte for byte, the same files, the same
copies into a new output array); what a pipeline takes beyond it is its own overhead and
zarr-python's. So the row this module measures bounds, on the machine it runs on, how fast any
pipeline built on these codec libraries can be: its ratio to zarr's default is the highest a
pipeline can reach there.

- **memory**: a write encodes every chunk into memory of its own (an uncompressed chunk is
  copied, as a store must own what it keeps); a read decodes every stored chunk into its place
  in a new array.
- **local**: a write encodes every chunk and writes it to its file (a temporary file renamed
  into place, as zarr-python's ``LocalStore`` does); a read reads and decodes every file into
  its place in a new array.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from zarr_codec import Chain, ChunkSpec
from zarr_codec.chain import each_in_parallel
from zarr_codecs.bench import harness

#: The row's name in the benchmark's table.
NAME = "runners alone (no zarr)"


def chain_for(
    filters: Sequence[dict[str, Any]],
    compressors: Sequence[dict[str, Any]],
    chunk: int,
    dtype: np.dtype[Any],
) -> Chain:
    """The chain zarr-python makes of a benchmark row: its array codecs (``filters``),
    ``bytes`` (little-endian), then its ``compressors``, for 1-D chunks of ``chunk``
    elements."""
    bytes_codec = {"name": "bytes", "configuration": {"endian": "little"}}
    return Chain.from_json([*filters, bytes_codec, *compressors], ChunkSpec((chunk,), dtype.name))


def _owned(encoded: Any, caller: np.ndarray[Any, Any]) -> Any:
    """An encoded chunk in memory of its own: copied when it is a view of ``caller``."""
    view = np.frombuffer(memoryview(encoded).cast("B"), dtype=np.uint8)
    return view.copy() if np.may_share_memory(view, caller) else encoded


def measure(
    store_kind: str,
    filters: Sequence[dict[str, Any]],
    compressors: Sequence[dict[str, Any]],
    data: np.ndarray[Any, Any],
    chunk: int,
    repeats: int,
    path: Path,
) -> tuple[tuple[float, float, float], np.ndarray[Any, Any]]:
    """(write, overwrite, read) seconds of the chunk work alone for ``data`` (1-D, a whole
    number of chunks) in a store of ``store_kind`` (``"memory"`` or ``"local"``), and the values
    the last read gave."""
    if data.ndim != 1 or data.size % chunk:
        raise ValueError("data must be 1-D and a whole number of chunks")
    chain = chain_for(filters, compressors, chunk, data.dtype)
    chunks = [data[start : start + chunk] for start in range(0, data.size, chunk)]
    files = [path / "c" / str(index) for index in range(len(chunks))]
    stored: list[Any] = []

    def quiet() -> None:
        """No earlier run's writes still going to disk (untimed)."""
        if store_kind == "local":
            os.sync()

    def empty() -> None:
        stored.clear()
        shutil.rmtree(path, ignore_errors=True)
        quiet()

    def write() -> None:
        if store_kind == "local":
            if not chain.encode_files(chunks, files):
                raise RuntimeError(f"{chain!r} has no compiled kernels")
            return
        encoded = chain.encode_batch(chunks)
        owned: list[Any] = [None] * len(encoded)

        def own(index: int) -> None:
            owned[index] = _owned(encoded[index], data)

        each_in_parallel(own, range(len(encoded)))
        stored[:] = owned

    def read() -> np.ndarray[Any, Any]:
        out = np.empty_like(data)  # a new array, as zarr-python reads into
        slots = [out[start : start + chunk] for start in range(0, out.size, chunk)]
        if store_kind == "local":
            found = chain.decode_files_into(files, slots)
            if found is None or not all(found):
                raise RuntimeError(f"{chain!r} could not read every chunk file")
        else:
            chain.decode_batch_into(stored, slots)
        return out

    seconds_write = harness.measure(write, warmup=1, repeats=repeats, min_time=0, setup=empty)
    seconds_overwrite = harness.measure(write, warmup=1, repeats=repeats, min_time=0, setup=quiet)
    values = read()
    seconds_read = harness.measure(read, warmup=1, repeats=repeats, min_time=0, setup=quiet)
    return (seconds_write, seconds_overwrite, seconds_read), values
