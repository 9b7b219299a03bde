"""``FixedScaleOffset``: numcodecs' ``fixedscaleoffset`` filter on our compiled codecs, for
Zarr v2 arrays.

numcodecs registers its own ``fixedscaleoffset`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from zarr_codec import numcodecs as _adapter

from zarr_codec_scale_offset import legacy

__all__ = ["FixedScaleOffset", "register", "unregister"]

FixedScaleOffset = _adapter.numcodecs_codec_class(
    legacy.FixedScaleOffset, module=__name__, qualname="FixedScaleOffset"
)


def register() -> None:
    """Use this codec for ``{"id": "fixedscaleoffset"}`` in numcodecs."""
    _adapter.register(FixedScaleOffset)


def unregister() -> None:
    """Give ``fixedscaleoffset`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("fixedscaleoffset")
