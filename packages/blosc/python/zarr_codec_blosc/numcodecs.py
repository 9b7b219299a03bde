"""``Blosc``: the blosc codec as a numcodecs codec, for Zarr v2 arrays.

numcodecs registers its own ``blosc`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from zarr_codec import numcodecs as _adapter

from zarr_codec_blosc import Blosc as _Blosc

Blosc = _adapter.numcodecs_codec_class(_Blosc, module=__name__, qualname="Blosc")


def register() -> None:
    """Use this codec for ``{"id": "blosc"}`` in numcodecs."""
    _adapter.register(Blosc)


def unregister() -> None:
    """Give ``blosc`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("blosc")
