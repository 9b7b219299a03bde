"""What ran in this process: chunks our pipeline read and wrote in the runtime, and chunks it
handed to zarr-python's own code. A worker of a cluster reports these (``client.run(usage)``),
so one can see that the plugin took effect there."""

from __future__ import annotations

import threading
from collections import Counter

__all__ = ["KINDS", "count", "reset_usage", "usage"]

#: The counters, in the order :func:`usage` lists them.
KINDS = (
    "runtime_read",
    "runtime_written",
    "zarr_read",
    "zarr_written",
    "selections_read",
    "selections_written",
    "device_read",
    "remote_read",
)

_lock = threading.Lock()
_counts: Counter[str] = Counter()


def count(kind: str, chunks: int) -> None:
    """Add ``chunks`` to the counter ``kind`` (one of :data:`KINDS`; for the ``selections_``
    ones, a number of selections)."""
    with _lock:  # pipelines run on zarr's event loop and in worker threads alike
        _counts[kind] += chunks


def usage() -> dict[str, int]:
    """Chunks (shards, for sharded arrays) that ``ChainCodecPipeline`` read and wrote in this
        process since it started (or since :func:`reset_usage`): ``runtime_read`` and
        ``runtime_written`` by our runtime, ``zarr_read`` and ``zarr_written`` handed to
        zarr-python's own pipeline code (selections or chains the runtime does not take);
        ``selections_read`` and ``selections_written``: how many of the reads and writes it took
        whole from zarr-python's array (cut into chunks in Rust, no Python work per chunk; their
        chunks are counted in ``runtime_*`` too); ``device_read``: chunks decoded on the GPU
    into CuPy arrays (zarr-python's GPU mode, see ``zarr_codecs.gpu``); ``remote_read``:
    chunks fetched from object storage by the runtime's own client (counted in
    ``runtime_read`` too; see ``zarr_codecs._remote_stores``). All zero where our
    pipeline was never used."""
    with _lock:
        return {kind: _counts[kind] for kind in KINDS}


def reset_usage() -> None:
    """Set every counter of :func:`usage` back to zero."""
    with _lock:
        _counts.clear()
