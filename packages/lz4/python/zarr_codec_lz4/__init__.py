"""numcodecs' ``lz4`` codec with a Rust core over the LZ4 library 1.10.0: ``Lz4``, for Zarr v2
(``{"id": "lz4", "acceleration": 1}``) and Zarr v3 (zarr-python's ``numcodecs.lz4``).

A chunk is its size as a little-endian ``uint32``, then one LZ4 block, byte for byte as
numcodecs 0.17 writes it. Decoding is bounded by the declared size (and
``max_decoded_size``); a damaged chunk raises ``CorruptInputError``. The numcodecs-compatible
class is :class:`zarr_codec_lz4.numcodecs.LZ4`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes.compiled import (
    CompiledBytesCodecBase,
    Constructor,
    check_max_decoded_size,
)

from zarr_codec_lz4 import _lz4

__all__ = ["ENGINE", "Lz4"]
__version__ = "0.1.0"

#: The LZ4 library doing the work.
ENGINE: str = _lz4.ENGINE


class Lz4(CompiledBytesCodecBase):
    """numcodecs' ``lz4``: ``acceleration`` trades ratio for speed (numcodecs' default 1; 0 or
    less compresses as 1). ``max_decoded_size`` (optional) bounds what ``decode`` may
    allocate."""

    name: ClassVar[str] = "numcodecs.lz4"
    codec_id: ClassVar[str | None] = "lz4"
    _constructor: ClassVar[Constructor] = _lz4.lz4

    def __init__(self, acceleration: int = 1, *, max_decoded_size: int | None = None) -> None:
        config = self._configured({"acceleration": acceleration}, 3)
        self.acceleration: int = config["acceleration"]
        self.max_decoded_size = check_max_decoded_size(self.name, max_decoded_size)

    def configuration(self) -> dict[str, Any]:
        return {"acceleration": self.acceleration}
