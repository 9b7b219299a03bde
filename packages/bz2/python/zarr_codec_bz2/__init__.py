"""numcodecs' ``bz2`` codec over libbzip2 1.0.8: ``Bz2``, for Zarr v2
(``{"id": "bz2", "level": 1}``) and Zarr v3 (zarr-python's ``numcodecs.bz2``).

A chunk is one bzip2 stream, byte for byte as numcodecs 0.17 (Python's ``bz2`` module) writes
it. Decoding reads what ``bz2.decompress`` reads (streams one after another, non-stream bytes
after them ignored); a damaged or cut-short stream raises ``CorruptInputError``, and
``max_decoded_size`` bounds what ``decode`` may allocate. The numcodecs-compatible class is
:class:`zarr_codec_bz2.numcodecs.BZ2`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes.compiled import (
    CompiledBytesCodecBase,
    Constructor,
    check_max_decoded_size,
)

from zarr_codec_bz2 import _bz2

__all__ = ["ENGINE", "Bz2"]
__version__ = "0.1.0"

#: The bzip2 implementation doing the work.
ENGINE: str = _bz2.ENGINE


class Bz2(CompiledBytesCodecBase):
    """numcodecs' ``bz2``: ``level`` 1 (numcodecs' default) to 9, the block size in 100 kB.
    ``max_decoded_size`` (optional) bounds what ``decode`` may allocate."""

    name: ClassVar[str] = "numcodecs.bz2"
    codec_id: ClassVar[str | None] = "bz2"
    _constructor: ClassVar[Constructor] = _bz2.bz2

    def __init__(self, level: int = 1, *, max_decoded_size: int | None = None) -> None:
        config = self._configured({"level": level}, 3)
        self.level: int = config["level"]
        self.max_decoded_size = check_max_decoded_size(self.name, max_decoded_size)

    def configuration(self) -> dict[str, Any]:
        return {"level": self.level}
