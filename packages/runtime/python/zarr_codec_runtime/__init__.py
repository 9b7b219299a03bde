"""zarr-codec-runtime: whole Zarr codec chains run in Rust.

:class:`Chain` binds a v3 codec chain to its chunks and plans it once; when every codec has a
compiled kernel (every codec of the zarr-codecs wheels does), a batch of any size is one call
into Rust (:class:`Plan`): the GIL released, chunks on one work-stealing pool, each through
every codec on one thread, the last step writing into the caller's memory. Reads put chunks,
or parts of them, straight into their places in a larger array; chunk files are read and
written in Rust. ``sharding_indexed`` runs there too (:class:`Sharding`; one :class:`Runner`
runs a chain's reads and writes, plain or sharded):
reads fetch only the inner chunks they need, writes lay shards out as zarr-python does.
:class:`Remote` fetches
chunks from object storage (S3, HTTP) itself and decodes each as it arrives.
:class:`ChunkGrid` cuts a selection of a whole array into its chunks in one call: a
:class:`Cut`, kept in Rust, which reads and writes take as it is (or cut themselves, given
the grid and the selection).
"""

from __future__ import annotations

from zarr_codec_runtime._runtime import ChunkGrid, Cut, Plan, Remote, Runner, cut_selection
from zarr_codec_runtime.chain import Chain
from zarr_codec_runtime.sharding import Sharding
from zarr_codec_runtime.transpose import Transpose

__all__ = [
    "Chain",
    "ChunkGrid",
    "Cut",
    "Plan",
    "Remote",
    "Runner",
    "Sharding",
    "Transpose",
    "cut_selection",
]
__version__ = "0.1.0"
