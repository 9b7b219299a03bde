"""numcodecs' ``Shuffle`` on our codec, for Zarr v2 arrays and numcodecs users.

It takes the same argument (``elementsize=4``), has the same attribute, configuration and
``repr`` as ``numcodecs.Shuffle``, and takes buffers as numcodecs does (see
:mod:`zarr_codec_shapes.numcodecs`); a chunk that is not a whole number of elements raises a
``ValueError`` (our ``CodecError``), as numcodecs does.

numcodecs registers its own classes first and entry points cannot replace them; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use these, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from zarr_codec_shapes import numcodecs as _adapter

import zarr_codec_filters as _ours

__all__ = ["Shuffle", "register", "unregister"]

_Base: Any = _adapter.numcodecs_codec_class(_ours.Shuffle, module=__name__, qualname="Shuffle")


class Shuffle(_Base):  # type: ignore[misc]
    """numcodecs' ``Shuffle(elementsize=4)``."""

    def __init__(self, elementsize: int = 4) -> None:
        self.elementsize = elementsize

    def _build(self) -> _ours.Shuffle:
        return _ours.Shuffle(self.elementsize)

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, "elementsize": self.elementsize}

    def __repr__(self) -> str:
        return f"Shuffle(elementsize={self.elementsize})"

    # numcodecs' Shuffle returns a new uint8 array both ways (or ``out``): so does this one,
    # written in place by the compiled codec.
    def encode(self, buf: Any) -> Any:
        data = self._input(buf)
        out = np.empty(data.nbytes, dtype="u1")
        self.codec.encode_into(data, out)
        return out

    def decode(self, buf: Any, out: Any = None) -> Any:
        if out is not None:
            return super().decode(buf, out)
        data = self._input(buf)
        result = np.empty(data.nbytes, dtype="u1")
        self.codec.decode_into(data, result)
        return result


def register() -> None:
    """Use these codecs for their ids (``shuffle``) in numcodecs."""
    _adapter.register(Shuffle)


def unregister() -> None:
    """Give the ids back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("shuffle")
