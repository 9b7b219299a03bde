"""``BZ2``: numcodecs' ``BZ2`` on our codec, for Zarr v2 arrays and numcodecs users.

It takes the same argument (``level=1``), has the same attribute, configuration and ``repr``
as ``numcodecs.BZ2``, and takes buffers as numcodecs does (see
:mod:`zarr_codec_shapes.numcodecs`). A damaged chunk raises our ``CorruptInputError`` (a
``ValueError``, which Python's ``bz2`` raises for a cut-short stream; it raises ``OSError`` for
one that is not bzip2, which no class can be as well as a ``ValueError``).

numcodecs registers its own ``bz2`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any

from zarr_codec_shapes import numcodecs as _adapter

from zarr_codec_bz2 import Bz2

__all__ = ["BZ2", "register", "unregister"]

_Base: Any = _adapter.numcodecs_codec_class(Bz2, module=__name__, qualname="BZ2")


class BZ2(_Base):  # type: ignore[misc]
    """numcodecs' ``BZ2(level=1)``."""

    def __init__(self, level: int = 1) -> None:
        self.level = level

    def _build(self) -> Bz2:
        return Bz2(self.level)

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, "level": self.level}


def register() -> None:
    """Use this codec for ``{"id": "bz2"}`` in numcodecs."""
    _adapter.register(BZ2)


def unregister() -> None:
    """Give ``bz2`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("bz2")
