"""``Lz4Codec``: the lz4 codec as a zarr-python 3.4 codec class, for the Zarr v3 name
zarr-python gives numcodecs' lz4 (``numcodecs.lz4``). Importing this module never raises (see
``zarr_codec_shapes.zarr_python``); ``zarr_codecs.install()`` selects it."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_lz4 import Lz4

Lz4Codec = zarr_codec_class(Lz4, module=__name__, qualname="Lz4Codec")
