"""Zfpy as a zarr-python 3.4 codec class, for the Zarr v3 name ``numcodecs.zfpy`` (an
array-to-bytes codec, as zarr-python's own). Importing this module never raises (see
``zarr_codec_shapes.zarr_python``); ``zarr_codecs.install()`` selects it."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_zfpy import Zfpy

__all__ = ["ZfpyCodec"]

ZfpyCodec = zarr_codec_class(Zfpy, module=__name__, qualname="ZfpyCodec")
