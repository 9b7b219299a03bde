"""``LZMA``: numcodecs' ``LZMA`` on our codec, for Zarr v2 arrays and numcodecs users.

It takes the same arguments (``format=1, check=-1, preset=None, filters=None``), has the same
attributes, configuration and ``repr`` as ``numcodecs.LZMA``, and takes buffers as numcodecs
does (see :mod:`zarr_codec_shapes.numcodecs`). Damaged data raises
:class:`LZMADecodeError`, both our ``CorruptInputError`` and the ``lzma.LZMAError`` numcodecs
raises.

numcodecs registers its own ``lzma`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

import lzma as _python_lzma
from typing import Any

from zarr_codec_shapes import CorruptInputError
from zarr_codec_shapes import numcodecs as _adapter

from zarr_codec_lzma import Lzma

__all__ = ["LZMA", "LZMADecodeError", "register", "unregister"]

_Base: Any = _adapter.numcodecs_codec_class(Lzma, module=__name__, qualname="LZMA")


class LZMADecodeError(CorruptInputError, _python_lzma.LZMAError):
    """Damaged lzma data: a ``CorruptInputError`` and, as numcodecs raises, an
    ``lzma.LZMAError``."""


class LZMA(_Base):  # type: ignore[misc]
    """numcodecs' ``LZMA(format=1, check=-1, preset=None, filters=None)``."""

    def __init__(
        self,
        format: int = 1,
        check: int = -1,
        preset: int | None = None,
        filters: list[dict[str, int]] | None = None,
    ) -> None:
        self.format = format
        self.check = check
        self.preset = preset
        self.filters = filters

    def _build(self) -> Lzma:
        return Lzma(self.format, self.check, self.preset, self.filters)

    def get_config(self) -> dict[str, Any]:
        return {
            "id": self.codec_id,
            "format": self.format,
            "check": self.check,
            "preset": self.preset,
            "filters": self.filters,
        }

    def __repr__(self) -> str:  # numcodecs' order, not its sorted default
        return (
            f"LZMA(format={self.format!r}, check={self.check!r}, preset={self.preset!r}, "
            f"filters={self.filters!r})"
        )

    def decode(self, buf: Any, out: Any = None) -> Any:
        try:
            return super().decode(buf, out)
        except CorruptInputError as err:
            raise LZMADecodeError(str(err)) from None


def register() -> None:
    """Use this codec for ``{"id": "lzma"}`` in numcodecs."""
    _adapter.register(LZMA)


def unregister() -> None:
    """Give ``lzma`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("lzma")
