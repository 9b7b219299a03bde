"""``Blosc``: numcodecs' ``Blosc`` on our blosc codec, for Zarr v2 arrays and numcodecs users.

It takes the same arguments, has the same attributes and constants (``SHUFFLE`` and the
others, ``max_buffer_size``), configuration, ``repr`` and equality as ``numcodecs.Blosc``, and
takes buffers as numcodecs does (see :mod:`zarr_codec_shapes.numcodecs`). Frames are the c-blosc 1.x
format numcodecs writes, byte for byte. A frame that cannot be decoded raises
:class:`BloscDecompressionError`, both our ``CorruptInputError`` and the ``RuntimeError``
numcodecs raises.

numcodecs registers its own ``blosc`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes import ConfigurationError, CorruptInputError
from zarr_codec_shapes import numcodecs as _adapter

from zarr_codec_blosc import Blosc as _Blosc

__all__ = ["Blosc", "BloscDecompressionError", "register", "unregister"]

_SHUFFLE_NAMES = {-1: "AUTOSHUFFLE", 0: "NOSHUFFLE", 1: "SHUFFLE", 2: "BITSHUFFLE"}
_SHUFFLES = {-1: None, 0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}

_Base: Any = _adapter.numcodecs_codec_class(_Blosc, module=__name__, qualname="Blosc")


class BloscDecompressionError(CorruptInputError, RuntimeError):
    """A frame that cannot be decoded: a ``CorruptInputError`` and, as numcodecs raises for
    it, a ``RuntimeError``."""


class Blosc(_Base):  # type: ignore[misc]
    """numcodecs' ``Blosc(cname="lz4", clevel=5, shuffle=SHUFFLE, blocksize=0,
    typesize=None)``: ``shuffle`` one of the constants below; ``typesize`` (not part of the
    configuration) overrides the input's item size."""

    NOSHUFFLE: ClassVar[int] = 0
    SHUFFLE: ClassVar[int] = 1
    BITSHUFFLE: ClassVar[int] = 2
    AUTOSHUFFLE: ClassVar[int] = -1
    #: c-blosc 1.x frames hold at most this many bytes.
    max_buffer_size: int | None = 2**31 - 1

    def __init__(
        self,
        cname: str | bytes = "lz4",
        clevel: int = 5,
        shuffle: int = 1,
        blocksize: int = 0,
        typesize: int | None = None,
    ) -> None:
        _check_typesize(typesize)
        self.cname = cname
        self.clevel = clevel
        self.shuffle = shuffle
        self.blocksize = blocksize
        self._typesize = typesize

    def _build(self) -> _Blosc:
        _check_typesize(self._typesize)
        cname = self.cname.decode("ascii") if isinstance(self.cname, bytes) else self.cname
        if self.shuffle not in _SHUFFLES:
            raise ConfigurationError(
                f"invalid shuffle argument; expected -1, 0, 1 or 2, found {self.shuffle!r}"
            )
        return _Blosc(cname, self.clevel, _SHUFFLES[self.shuffle], self._typesize, self.blocksize)

    def _adopt(self, codec: Any) -> None:
        super()._adopt(codec)
        object.__setattr__(self, "_typesize", codec.typesize)  # keeps the adopted codec

    def decode(self, buf: Any, out: Any = None) -> Any:
        try:
            return super().decode(buf, out)
        except CorruptInputError as err:
            raise BloscDecompressionError(str(err)) from None

    def __repr__(self) -> str:
        shuffle = _SHUFFLE_NAMES.get(self.shuffle, repr(self.shuffle))
        return (
            f"{type(self).__name__}(cname={self.cname!r}, clevel={self.clevel!r}, "
            f"shuffle={shuffle}, blocksize={self.blocksize})"
        )


def _check_typesize(typesize: object) -> None:
    if isinstance(typesize, int) and typesize < 1:
        raise ConfigurationError(f"Cannot use typesize {typesize} less than 1.")


def register() -> None:
    """Use this codec for ``{"id": "blosc"}`` in numcodecs."""
    _adapter.register(Blosc)


def unregister() -> None:
    """Give ``blosc`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("blosc")
