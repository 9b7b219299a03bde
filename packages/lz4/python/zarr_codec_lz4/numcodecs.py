"""``LZ4``: numcodecs' ``LZ4`` on our codec, for Zarr v2 arrays and numcodecs users.

It takes the same argument (``acceleration=1``), has the same attribute, configuration and
``repr`` as ``numcodecs.LZ4``, and takes buffers as numcodecs does (see
:mod:`zarr_codec_shapes.numcodecs`). A damaged chunk raises :class:`LZ4DecompressionError`,
both our ``CorruptInputError`` and the ``RuntimeError`` numcodecs raises.

numcodecs registers its own ``lz4`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any

from zarr_codec_shapes import CorruptInputError
from zarr_codec_shapes import numcodecs as _adapter

from zarr_codec_lz4 import Lz4

__all__ = ["LZ4", "LZ4DecompressionError", "register", "unregister"]

_Base: Any = _adapter.numcodecs_codec_class(Lz4, module=__name__, qualname="LZ4")


class LZ4DecompressionError(CorruptInputError, RuntimeError):
    """A damaged lz4 chunk: a ``CorruptInputError`` and, as numcodecs raises, a
    ``RuntimeError``."""


class LZ4(_Base):  # type: ignore[misc]
    """numcodecs' ``LZ4(acceleration=1)``."""

    #: The largest input one LZ4 block takes (``LZ4_MAX_INPUT_SIZE``), as numcodecs says.
    max_buffer_size = 0x7E000000

    def __init__(self, acceleration: int = 1) -> None:
        self.acceleration = acceleration

    def _build(self) -> Lz4:
        return Lz4(self.acceleration)

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, "acceleration": self.acceleration}

    def decode(self, buf: Any, out: Any = None) -> Any:
        try:
            return super().decode(buf, out)
        except CorruptInputError as err:
            raise LZ4DecompressionError(f"LZ4 decompression error: {err}") from None


def register() -> None:
    """Use this codec for ``{"id": "lz4"}`` in numcodecs."""
    _adapter.register(LZ4)


def unregister() -> None:
    """Give ``lz4`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("lz4")
