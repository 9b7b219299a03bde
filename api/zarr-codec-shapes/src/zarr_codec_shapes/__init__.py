"""zarr-codec-shapes: the Zarr chunk codec API.

Protocols and data types for Zarr chunk codecs, their v2 and v3 JSON, a registry fed by entry
points, adapters to zarr-python and numcodecs, and a conformance kit. It imports neither
zarr-python nor numcodecs: both can depend on it, and codec packages need nothing else.
"""

from __future__ import annotations

# The stable API is v1's (see zarr_codec_shapes.v1); the root re-exports it, plus the bytes
# codec, which is not part of the API (chains run in zarr_codec_runtime).
from zarr_codec_shapes import v1
from zarr_codec_shapes.bytes_codec import BytesCodec
from zarr_codec_shapes.v1 import *  # noqa: F403 (v1's list is the one list of the API)

__version__ = "0.1.0"

__all__ = ["BytesCodec", "__version__"]
__all__ += v1.__all__
