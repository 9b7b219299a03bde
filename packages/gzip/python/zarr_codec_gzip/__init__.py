"""The Zarr ``gzip`` codec with a Rust core on libdeflate, and numcodecs' ``zlib`` on the same
core.

``Gzip`` and ``Zlib`` are plain Python classes holding their level (so they pickle, copy and
compare as values); the work happens in their compiled codecs (``_gzip.gzip`` and
``_gzip.zlib``, the glue's generic bytes-codec binding) with the GIL released.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from zarr_codec_shapes.compiled import CompiledBytesCodecBase, Constructor, check_max_decoded_size

from zarr_codec_gzip import _gzip

__all__ = ["ENGINE", "Gzip", "Zlib"]
__version__ = "0.1.0"

#: The compression library doing the work.
ENGINE: str = _gzip.ENGINE


class _Deflate(CompiledBytesCodecBase):
    """What ``Gzip`` and ``Zlib`` share: a level and an optional bound on what ``decode`` may
    allocate; the work is their compiled codec's."""

    def __init__(self, level: int, *, max_decoded_size: int | None = None) -> None:
        config = self._configured({"level": level}, 3)
        self.level: int = config["level"]
        self.max_decoded_size = check_max_decoded_size(self.codec_id or self.name, max_decoded_size)

    def configuration(self) -> dict[str, Any]:
        return {"level": self.level}

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self.level, self.max_decoded_size)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.level, self.max_decoded_size))

    def __copy__(self) -> Self:
        return type(self)(self.level, max_decoded_size=self.max_decoded_size)


class Gzip(_Deflate):
    """gzip (RFC 1952) compression at ``level`` 0 (stored) to 9 (smallest).

    Output is reproducible (no file name, mtime 0). Decoding accepts every stream Python's
    ``gzip`` module accepts, checks CRC-32 and size, and raises ``CorruptInputError`` for
    anything else. ``max_decoded_size`` (optional) bounds what ``decode`` may allocate.
    """

    name: ClassVar[str] = "gzip"
    codec_id: ClassVar[str | None] = "gzip"
    _constructor: ClassVar[Constructor] = _gzip.gzip

    def __init__(self, level: int = 5, *, max_decoded_size: int | None = None) -> None:
        super().__init__(level, max_decoded_size=max_decoded_size)


class Zlib(_Deflate):
    """numcodecs' ``zlib`` (RFC 1950 streams), a common Zarr v2 compressor: ``{"id": "zlib",
    "level": N}`` in v2 metadata, ``numcodecs.zlib`` in v3 (as zarr-python names it).

    ``level`` 0 (stored) to 9; in v2 metadata a missing level is numcodecs' 1 and -1 is zlib's
    default, 6. Decoding accepts what numcodecs' ``Zlib`` (``zlib.decompress``) accepts: one
    stream without a preset dictionary, its Adler-32 checked, bytes after it ignored; anything
    else is ``CorruptInputError``. ``max_decoded_size`` (optional) bounds what ``decode`` may
    allocate.
    """

    name: ClassVar[str] = "numcodecs.zlib"
    codec_id: ClassVar[str | None] = "zlib"
    _constructor: ClassVar[Constructor] = _gzip.zlib

    def __init__(self, level: int = 1, *, max_decoded_size: int | None = None) -> None:
        super().__init__(level, max_decoded_size=max_decoded_size)


def _rebuild(cls: type[_Deflate], level: int, max_decoded_size: int | None) -> _Deflate:
    return cls(level, max_decoded_size=max_decoded_size)
