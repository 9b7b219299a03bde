"""PCodec as a zarr-python 3.4 codec class, for the Zarr v3 name ``numcodecs.pcodec`` (an
array-to-bytes codec, as zarr-python's own). Importing this module never raises (see
``zarr_codec_shapes.zarr_python``); ``zarr_codecs.install()`` selects it."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_pcodec import PCodec

__all__ = ["PCodecCodec"]

PCodecCodec = zarr_codec_class(PCodec, module=__name__, qualname="PCodecCodec")
