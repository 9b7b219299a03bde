"""The Zarr ``zstd`` codec with a Rust core on libzstd.

``Zstd`` is a plain Python class holding its level and checksum flag (so it pickles, copies
and compares as a value); the work happens in its compiled codec (``_zstd.zstd``, the glue's
generic bytes-codec binding) with the GIL released.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes.compiled import CompiledBytesCodecBase, Constructor, check_max_decoded_size

from zarr_codec_zstd import _zstd

__all__ = ["ENGINE", "MAX_LEVEL", "MIN_LEVEL", "Zstd"]
__version__ = "0.1.0"

#: The compression library doing the work.
ENGINE: str = _zstd.ENGINE
#: The level range of the Zarr v3 spec (and of libzstd).
MIN_LEVEL = -131072
MAX_LEVEL = 22
#: numcodecs' ``Zstd.DEFAULT_CLEVEL``: the level of a v2 configuration without one.
NUMCODECS_DEFAULT_LEVEL = 0


class Zstd(CompiledBytesCodecBase):
    """Zstandard compression at ``level`` -131072 (fastest) to 22 (smallest), 0 meaning
    libzstd's default (3); ``checksum`` stores a content checksum in each frame.

    Decoding reads every frame numcodecs and the ``zstandard`` package write (several frames,
    frames without a content size, skippable frames), verifies stored checksums, and raises
    ``CorruptInputError`` for anything else. ``max_decoded_size`` (optional) bounds what
    ``decode`` may allocate.
    """

    name: ClassVar[str] = "zstd"
    codec_id: ClassVar[str | None] = "zstd"
    _constructor: ClassVar[Constructor] = _zstd.zstd

    def __init__(
        self, level: int = 0, checksum: bool = False, *, max_decoded_size: int | None = None
    ) -> None:
        config = self._configured({"level": level, "checksum": checksum}, 3)
        self.level: int = config["level"]
        self.checksum: bool = config.get("checksum", False)
        self.max_decoded_size = check_max_decoded_size("zstd", max_decoded_size)

    def configuration(self) -> dict[str, Any]:
        # "checksum" written when false too (the spec only recommends leaving it out): as
        # zarr-python writes it, and zarrs refuses a zstd configuration without it.
        return {"level": self.level, "checksum": self.checksum}

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self.level, self.checksum, self.max_decoded_size)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.level, self.checksum, self.max_decoded_size))

    def __copy__(self) -> Zstd:
        return _rebuild(self.level, self.checksum, self.max_decoded_size)


def _rebuild(level: int, checksum: bool, max_decoded_size: int | None) -> Zstd:
    return Zstd(level, checksum, max_decoded_size=max_decoded_size)
