"""``Zstd``: numcodecs' ``Zstd`` on our zstd codec, for Zarr v2 arrays and numcodecs users.

It takes the same arguments, has the same attributes, configuration, ``repr`` and equality as
``numcodecs.Zstd``, and takes buffers as numcodecs does (see
:mod:`zarr_codec_shapes.numcodecs`). Frames are byte for byte numcodecs' own: one per chunk,
with its content size, from the same libzstd release (1.5.6).

numcodecs registers its own ``zstd`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes import CorruptInputError
from zarr_codec_shapes import numcodecs as _adapter

from zarr_codec_zstd import MAX_LEVEL, MIN_LEVEL, NUMCODECS_DEFAULT_LEVEL
from zarr_codec_zstd import Zstd as _Zstd

__all__ = ["Zstd", "ZstdDecompressionError", "register", "unregister"]

_Base: Any = _adapter.numcodecs_codec_class(_Zstd, module=__name__, qualname="Zstd")


#: libzstd's level 0 stands for this one.
_LIBZSTD_DEFAULT_LEVEL = 3


class ZstdDecompressionError(CorruptInputError, RuntimeError):
    """Input that is not valid zstd frames: a ``CorruptInputError`` and, as numcodecs raises
    for it, a ``RuntimeError`` (with numcodecs' message prefix)."""


class Zstd(_Base):  # type: ignore[misc]
    """numcodecs' ``Zstd(level=0, checksum=False)``: any integer level (libzstd clamps it to
    -131072..22; 0 is libzstd's default)."""

    DEFAULT_CLEVEL: ClassVar[int] = NUMCODECS_DEFAULT_LEVEL
    MAX_CLEVEL: ClassVar[int] = MAX_LEVEL

    def __init__(self, level: int = NUMCODECS_DEFAULT_LEVEL, checksum: bool = False) -> None:
        self.level = level
        self.checksum = checksum

    @classmethod
    def default_level(cls) -> int:
        """libzstd's default compression level (what level 0 means)."""
        return _LIBZSTD_DEFAULT_LEVEL

    @classmethod
    def min_level(cls) -> int:
        """libzstd's fastest level."""
        return MIN_LEVEL

    @classmethod
    def max_level(cls) -> int:
        """libzstd's strongest level."""
        return MAX_LEVEL

    def decode(self, buf: Any, out: Any = None) -> Any:
        try:
            return super().decode(buf, out)
        except CorruptInputError as err:
            raise ZstdDecompressionError(
                f"Zstd decompression error: invalid input data ({err})"
            ) from None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(level={self.level!r})"  # numcodecs' own repr

    def _build(self) -> _Zstd:
        level = self.level
        if isinstance(level, int) and not isinstance(level, bool):
            level = min(max(level, MIN_LEVEL), MAX_LEVEL)
        return _Zstd(level, self.checksum)


def register() -> None:
    """Use this codec for ``{"id": "zstd"}`` in numcodecs."""
    _adapter.register(Zstd)


def unregister() -> None:
    """Give ``zstd`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("zstd")
