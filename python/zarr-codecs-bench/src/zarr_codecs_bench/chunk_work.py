"""The chunk work of the pipeline benchmark with zarr-python taken out: each chunk encoded,
stored, read and decoded by our Rust runners called directly, in the same process, on the same
chunks, codecs and store layout.

Every pipeline must do this work (the same frames, byte for byte, the same files, the same
copies into a new output array); what a pipeline takes beyond it is its own overhead and
zarr-python's. So the row this module measures is about the best, on the machine it runs on,
that a pipeline built on these codec libraries can do. Not quite for MemoryStore overwrites of
uncompressed chunks: this copies every chunk into new memory while the old ones are still held,
where a pipeline that replaces each old chunk as it goes reuses that memory.

- **memory**: a write encodes every chunk into memory of its own (an uncompressed chunk is
  copied, as a store must own what it keeps); a read decodes every stored chunk into its place
  in a new array.
- **local**: a write encodes every chunk and writes it to its file (a temporary file renamed
  into place, as zarr-python's ``LocalStore`` does); a read reads and decodes every file into
  its place in a new array.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from zarr_codec_runtime import Chain
from zarr_codec_shapes import ChunkSpec

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


class Subject(Protocol):
    """One way of storing the benchmark's array, taken through a round by
    :func:`zarr_codecs_bench.pipelines.in_rounds`: each step runs inside :meth:`context`."""

    def context(self) -> contextlib.AbstractContextManager[object]:
        """The configuration the steps run in (zarr-python's, for a pipeline)."""
        ...

    def fresh(self) -> None:
        """A new, empty array (untimed)."""
        ...

    def write(self) -> None:
        """Write the whole array (timed)."""
        ...

    def read(self) -> np.ndarray[Any, Any]:
        """Read the whole array into a new one (timed)."""
        ...

    def remove(self) -> None:
        """Let go of the array and its store."""
        ...


class ChunkWork:
    """The chunk work of ``data`` (1-D, a whole number of chunks) in a store of
    ``store_kind`` (``"memory"`` or ``"local"``, the files under ``path``), as a
    :class:`Subject`."""

    def __init__(
        self,
        store_kind: str,
        filters: Sequence[dict[str, Any]],
        compressors: Sequence[dict[str, Any]],
        data: np.ndarray[Any, Any],
        chunk: int,
        path: Path,
    ) -> None:
        if data.ndim != 1 or data.size % chunk:
            raise ValueError("data must be 1-D and a whole number of chunks")
        if store_kind not in ("memory", "local"):
            raise ValueError(f"unknown store kind {store_kind!r}")
        self.store_kind, self.data, self.chunk, self.path = store_kind, data, chunk, path
        self.chain = chain_for(filters, compressors, chunk, data.dtype)
        self.chunks = [data[start : start + chunk] for start in range(0, data.size, chunk)]
        self.files = [path / "c" / str(index) for index in range(len(self.chunks))]
        self.stored: list[Any] = []

    def context(self) -> contextlib.AbstractContextManager[object]:
        return contextlib.nullcontext()

    def fresh(self) -> None:
        self.stored.clear()
        shutil.rmtree(self.path, ignore_errors=True)

    def write(self) -> None:
        if self.store_kind == "local":
            if not self.chain.encode_files(self.chunks, self.files):
                raise RuntimeError(f"{self.chain!r} has no compiled kernels")
            return
        # The runtime's output is new memory of its own: stored as it is, as the pipeline does.
        self.stored[:] = self.chain.encode_batch(self.chunks)

    def read(self) -> np.ndarray[Any, Any]:
        out = np.empty_like(self.data)  # a new array, as zarr-python reads into
        slots = [out[start : start + self.chunk] for start in range(0, out.size, self.chunk)]
        if self.store_kind == "local":
            found = self.chain.decode_files_into(self.files, slots)
            if found is None or not all(found):
                raise RuntimeError(f"{self.chain!r} could not read every chunk file")
        else:
            self.chain.decode_batch_into(self.stored, slots)
        return out

    def remove(self) -> None:
        self.fresh()
