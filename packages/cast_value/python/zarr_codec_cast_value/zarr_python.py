"""``CastValueCodec``: the cast_value codec as a zarr-python 3.4 codec class. Importing this
module never raises (see ``zarr_codec.zarr_python``).

zarr-python 3.4 ships its own ``cast_value`` and its default config names no implementation
for it, so a second one registered by an entry point would make zarr warn and pick one at
random. This wheel therefore registers nothing on its own: :func:`register` makes zarr use
ours (registration and config), :func:`unregister` undoes exactly that.
"""

from __future__ import annotations

from typing import Any

from zarr_codec.zarr_python import zarr_codec_class

from zarr_codec_cast_value import CastValue

__all__ = ["CONFIG_PATH", "CastValueCodec", "register", "unregister"]

CastValueCodec = zarr_codec_class(CastValue, module=__name__, qualname="CastValueCodec")

#: What zarr's ``codecs.cast_value`` config names to select this implementation.
CONFIG_PATH = f"{__name__}.CastValueCodec"

_previous: list[Any] = []  # the config entry register() replaced ([] if there was none)


def register() -> None:
    """Make zarr-python read and write ``cast_value`` with this codec (idempotent)."""
    import zarr
    from zarr.registry import register_codec

    register_codec("cast_value", CastValueCodec)
    codecs = zarr.config.get("codecs", {})
    if codecs.get("cast_value") != CONFIG_PATH:
        # The entry as it was: its value, or nothing when there was no entry at all.
        _previous[:] = [codecs["cast_value"]] if "cast_value" in codecs else []
    zarr.config.set({"codecs.cast_value": CONFIG_PATH})


def unregister() -> None:
    """Undo :func:`register`: zarr's registry and config as they were (idempotent)."""
    import zarr
    from zarr.registry import _codec_registries

    if "cast_value" in _codec_registries:
        _codec_registries["cast_value"].pop(CONFIG_PATH, None)
    if zarr.config.get("codecs", {}).get("cast_value") == CONFIG_PATH:
        if _previous:
            zarr.config.set({"codecs.cast_value": _previous[0]})
        else:
            zarr.config.config.get("codecs", {}).pop("cast_value", None)
    _previous.clear()
