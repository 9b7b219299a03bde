"""``GZip``: the gzip codec as a numcodecs codec, for Zarr v2 arrays.

numcodecs registers its own ``gzip`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from zarr_codec import numcodecs as _adapter

from zarr_codec_gzip import Gzip

GZip = _adapter.numcodecs_codec_class(Gzip, module=__name__, qualname="GZip")


def register() -> None:
    """Use this codec for ``{"id": "gzip"}`` in numcodecs."""
    _adapter.register(GZip)


def unregister() -> None:
    """Give ``gzip`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("gzip")
