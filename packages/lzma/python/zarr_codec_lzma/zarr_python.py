"""``LzmaCodec``: the lzma codec as a zarr-python 3.4 codec class, for the Zarr v3 name
zarr-python gives numcodecs' lzma (``numcodecs.lzma``). Importing this module never raises (see
``zarr_codec_shapes.zarr_python``); ``zarr_codecs.install()`` selects it."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_lzma import Lzma

LzmaCodec = zarr_codec_class(Lzma, module=__name__, qualname="LzmaCodec")
