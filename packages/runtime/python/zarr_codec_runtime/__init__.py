"""zarr-codec-runtime: whole Zarr codec chains run in Rust.

:class:`Chain` binds a v3 codec chain to its chunks and plans it once; when every codec has a
compiled kernel (every codec of the zarr-codecs wheels does), a batch of any size is one call
into Rust (:class:`Plan`): the GIL released, chunks on one work-stealing pool, each through
every codec on one thread, the last step writing into the caller's memory. Reads put chunks,
or parts of them, straight into their places in a larger array; chunk files are read and
written in Rust.
"""

from __future__ import annotations

from zarr_codec_runtime._runtime import Plan
from zarr_codec_runtime.chain import Chain

__all__ = ["Chain", "Plan"]
__version__ = "0.1.0"
