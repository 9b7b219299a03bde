"""``GZip`` and ``Zlib``: numcodecs' ``GZip`` and ``Zlib`` on our codecs, for Zarr v2 arrays
and numcodecs users.

Each takes the same arguments, has the same attributes, configuration, ``repr`` and equality
as numcodecs' class of its name, and takes buffers as numcodecs does (see
:mod:`zarr_codec_shapes.numcodecs`). Their streams differ from numcodecs' byte for byte (no
timestamp; libdeflate, not zlib) but decode the same with either.

numcodecs registers its own ``gzip`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any

from zarr_codec_shapes import numcodecs as _adapter

from zarr_codec_gzip import Gzip
from zarr_codec_gzip import Zlib as _ZlibCore

__all__ = ["GZip", "Zlib", "register", "unregister"]

#: zlib's level -1: its default level, 6.
_ZLIB_DEFAULT_LEVEL = 6

_Base: Any = _adapter.numcodecs_codec_class(Gzip, module=__name__, qualname="GZip")


class GZip(_Base):  # type: ignore[misc]
    """numcodecs' ``GZip(level=1)``: ``level`` 0 (stored) to 9, or -1 for zlib's default (6)."""

    def __init__(self, level: int = 1) -> None:
        self.level = level

    def _build(self) -> Gzip:
        return Gzip(_ZLIB_DEFAULT_LEVEL if self.level == -1 else self.level)


_ZlibBase: Any = _adapter.numcodecs_codec_class(_ZlibCore, module=__name__, qualname="Zlib")


class Zlib(_ZlibBase):  # type: ignore[misc]
    """numcodecs' ``Zlib(level=1)``: ``level`` 0 (stored) to 9, or -1 for zlib's default (6).
    Its streams differ from numcodecs' byte for byte (libdeflate, not zlib) and decode the
    same with either."""

    def __init__(self, level: int = 1) -> None:
        self.level = level

    def _build(self) -> _ZlibCore:
        return _ZlibCore(_ZLIB_DEFAULT_LEVEL if self.level == -1 else self.level)


def register() -> None:
    """Use this codec for ``{"id": "gzip"}`` in numcodecs."""
    _adapter.register(GZip)


def unregister() -> None:
    """Give ``gzip`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("gzip")
