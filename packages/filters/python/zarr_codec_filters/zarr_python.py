"""The filters as zarr-python 3.4 codec classes, for the Zarr v3 names zarr-python gives
numcodecs' filters (``numcodecs.shuffle``). Importing this module never raises (see
``zarr_codec_shapes.zarr_python``); ``zarr_codecs.install()`` selects them."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_filters import Shuffle

ShuffleCodec = zarr_codec_class(Shuffle, module=__name__, qualname="ShuffleCodec")
