"""``FixedScaleOffset``: numcodecs' ``fixedscaleoffset`` filter on our compiled codecs, for
Zarr v2 arrays and numcodecs users.

It takes the same arguments, has the same attributes (``dtype`` and ``astype`` as numpy
dtypes), configuration, ``repr`` and equality as ``numcodecs.FixedScaleOffset``, and gives the
same values (see :mod:`zarr_codec_scale_offset.legacy`).

numcodecs registers its own ``fixedscaleoffset`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from zarr_codec_shapes import numcodecs as _adapter

from zarr_codec_scale_offset import legacy

__all__ = ["FixedScaleOffset", "register", "unregister"]

_Base: Any = _adapter.numcodecs_codec_class(
    legacy.FixedScaleOffset, module=__name__, qualname="FixedScaleOffset"
)


class FixedScaleOffset(_Base):  # type: ignore[misc]
    """numcodecs' ``FixedScaleOffset(offset, scale, dtype, astype=None)``:
    ``around((x - offset) * scale).astype(astype)``."""

    def __init__(self, offset: float, scale: float, dtype: Any, astype: Any = None) -> None:
        self.offset = offset
        self.scale = scale
        self.dtype = np.dtype(dtype)
        self.astype = self.dtype if astype is None else np.dtype(astype)
        # numcodecs refuses object dtypes here; this, every dtype the codec does not support.
        self._codec = self._build()

    def _build(self) -> legacy.FixedScaleOffset:
        return legacy.FixedScaleOffset(self.offset, self.scale, self.dtype, self.astype)

    def _adopt(self, codec: Any) -> None:
        self.offset, self.scale = codec.offset, codec.scale
        self.dtype, self.astype = codec.dtype, codec.astype
        object.__setattr__(self, "_codec", codec)

    def get_config(self) -> dict[str, Any]:
        return {
            "id": self.codec_id,
            "scale": self.scale,
            "offset": self.offset,
            "dtype": self.dtype.str,
            "astype": self.astype.str,
        }

    def __repr__(self) -> str:
        text = f"{type(self).__name__}(scale={self.scale}, offset={self.offset}, "
        text += f"dtype={self.dtype.str!r}"
        if self.astype != self.dtype:
            text += f", astype={self.astype.str!r}"
        return text + ")"


def register() -> None:
    """Use this codec for ``{"id": "fixedscaleoffset"}`` in numcodecs."""
    _adapter.register(FixedScaleOffset)


def unregister() -> None:
    """Give ``fixedscaleoffset`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("fixedscaleoffset")
