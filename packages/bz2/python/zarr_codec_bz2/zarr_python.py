"""``Bz2Codec``: the bz2 codec as a zarr-python 3.4 codec class, for the Zarr v3 name
zarr-python gives numcodecs' bz2 (``numcodecs.bz2``). Importing this module never raises (see
``zarr_codec_shapes.zarr_python``); ``zarr_codecs.install()`` selects it."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_bz2 import Bz2

Bz2Codec = zarr_codec_class(Bz2, module=__name__, qualname="Bz2Codec")
