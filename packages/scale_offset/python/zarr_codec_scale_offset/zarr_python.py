"""``ScaleOffsetCodec``: the scale_offset codec as a zarr-python 3.4 codec class. Importing this
module never raises (see ``zarr_codec_shapes.zarr_python``).

zarr-python 3.4 ships its own ``scale_offset`` and its default config names no implementation
for it, so a second one registered by an entry point would make zarr warn and pick one at
random. This wheel therefore registers nothing on its own: :func:`register` makes zarr use
ours (registration and config), :func:`unregister` undoes exactly that.

``FixedScaleOffsetCodec`` is numcodecs' ``numcodecs.fixedscaleoffset`` on our codecs; numcodecs
registers its own under that name, so it too is used only when selected
(``zarr_codec_shapes.zarr_python.select``, as ``zarr_codecs.install()`` does).
"""

from zarr_codec_shapes.zarr_python import select, unselect, zarr_codec_class

from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_scale_offset.legacy import FixedScaleOffset

__all__ = [
    "CONFIG_PATH",
    "FixedScaleOffsetCodec",
    "ScaleOffsetCodec",
    "register",
    "unregister",
]

ScaleOffsetCodec = zarr_codec_class(ScaleOffset, module=__name__, qualname="ScaleOffsetCodec")
FixedScaleOffsetCodec = zarr_codec_class(
    FixedScaleOffset, module=__name__, qualname="FixedScaleOffsetCodec"
)

#: What zarr's ``codecs.scale_offset`` config names to select this implementation.
CONFIG_PATH = f"{__name__}.ScaleOffsetCodec"


def register() -> None:
    """Make zarr-python read and write ``scale_offset`` with this codec (idempotent)."""
    select("scale_offset", ScaleOffsetCodec)


def unregister() -> None:
    """Undo :func:`register`: zarr's registry and config as they were (idempotent)."""
    unselect("scale_offset", ScaleOffsetCodec)
