"""``CastValueCodec``: the cast_value codec as a zarr-python 3.4 codec class. Importing this
module never raises (see ``zarr_codec_shapes.zarr_python``).

zarr-python 3.4 ships its own ``cast_value`` and its default config names no implementation
for it, so a second one registered by an entry point would make zarr warn and pick one at
random. This wheel therefore registers nothing on its own: :func:`register` makes zarr use
ours (registration and config), :func:`unregister` undoes exactly that.
"""

from zarr_codec_shapes.zarr_python import select, unselect, zarr_codec_class

from zarr_codec_cast_value import CastValue

__all__ = ["CONFIG_PATH", "CastValueCodec", "register", "unregister"]

CastValueCodec = zarr_codec_class(CastValue, module=__name__, qualname="CastValueCodec")

#: What zarr's ``codecs.cast_value`` config names to select this implementation.
CONFIG_PATH = f"{__name__}.CastValueCodec"


def register() -> None:
    """Make zarr-python read and write ``cast_value`` with this codec (idempotent)."""
    select("cast_value", CastValueCodec)


def unregister() -> None:
    """Undo :func:`register`: zarr's registry and config as they were (idempotent)."""
    unselect("cast_value", CastValueCodec)
