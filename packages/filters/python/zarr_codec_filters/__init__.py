"""numcodecs' filters in Rust, for Zarr v2 (numcodecs ids) and Zarr v3 (zarr-python's
``numcodecs.*`` names), byte for byte as numcodecs 0.17 writes them: ``Shuffle``, ``Delta``,
``BitRound``, ``Quantize``, ``AsType`` and ``PackBits`` (the array filters are in
:mod:`zarr_codec_filters.elementwise` and :mod:`zarr_codec_filters.packbits`).

``Shuffle(elementsize=4)`` puts the bytes of each element position together (a byte
transpose of the chunk); an element size of 1 or less leaves the bytes as they are, and a
chunk that is not a whole number of elements is refused (``OutOfRangeError`` encoding,
``CorruptInputError`` decoding). The numcodecs-compatible class is
:class:`zarr_codec_filters.numcodecs.Shuffle`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes.compiled import CompiledBytesCodecBase, Constructor

from zarr_codec_filters import _filters
from zarr_codec_filters.elementwise import AsType, BitRound, Delta, Quantize
from zarr_codec_filters.packbits import PackBits

__all__ = ["AsType", "BitRound", "Delta", "PackBits", "Quantize", "Shuffle"]
__version__ = "0.1.0"


class Shuffle(CompiledBytesCodecBase):
    """numcodecs' ``shuffle``: ``elementsize`` bytes per element (numcodecs' default 4)."""

    name: ClassVar[str] = "numcodecs.shuffle"
    codec_id: ClassVar[str | None] = "shuffle"
    _constructor: ClassVar[Constructor] = _filters.shuffle

    def __init__(self, elementsize: int = 4) -> None:
        config = self._configured({"elementsize": elementsize}, 3)
        self.elementsize: int = config["elementsize"]

    def configuration(self) -> dict[str, Any]:
        return {"elementsize": self.elementsize}

    def max_encoded_size(self, decoded_size: int) -> int:
        """Always ``decoded_size``."""
        return decoded_size

    def encoded_size(self, decoded_size: int) -> int:
        """Exactly ``decoded_size``: shuffling moves bytes, it adds none."""
        return decoded_size
