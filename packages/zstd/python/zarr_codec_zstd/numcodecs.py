"""``Zstd``: numcodecs' ``Zstd`` on our zstd codec, for Zarr v2 arrays and numcodecs users.

It takes the same arguments, has the same attributes, configuration, ``repr`` and equality as
``numcodecs.Zstd``, and takes buffers as numcodecs does (see
:mod:`zarr_codec_shapes.numcodecs`). Frames are what libzstd 1.5.7 writes, one per chunk with
its content size; numcodecs 0.17 bundles libzstd 1.5.6, whose frames differ at a few levels
and decode the same with either.

numcodecs registers its own ``zstd`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes import numcodecs as _adapter

from zarr_codec_zstd import MAX_LEVEL, MIN_LEVEL, NUMCODECS_DEFAULT_LEVEL
from zarr_codec_zstd import Zstd as _Zstd

__all__ = ["Zstd", "register", "unregister"]

_Base: Any = _adapter.numcodecs_codec_class(_Zstd, module=__name__, qualname="Zstd")


class Zstd(_Base):  # type: ignore[misc]
    """numcodecs' ``Zstd(level=1, checksum=False)``: any integer level (libzstd clamps it to
    -131072..22; 0 is libzstd's default)."""

    DEFAULT_CLEVEL: ClassVar[int] = NUMCODECS_DEFAULT_LEVEL
    MAX_CLEVEL: ClassVar[int] = MAX_LEVEL

    def __init__(self, level: int = NUMCODECS_DEFAULT_LEVEL, checksum: bool = False) -> None:
        self.level = level
        self.checksum = checksum

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
