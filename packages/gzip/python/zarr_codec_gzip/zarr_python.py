"""``GzipCodec``: the gzip codec as a zarr-python 3.4 codec class (the ``zarr.codecs`` entry
point), and ``ZlibCodec``, numcodecs' zlib under the Zarr v3 name zarr-python gives it
(``numcodecs.zlib``; ``zarr_codecs.install()`` selects it). Importing this module never raises
(see ``zarr_codec_shapes.zarr_python``)."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_gzip import Gzip, Zlib

GzipCodec = zarr_codec_class(Gzip, module=__name__, qualname="GzipCodec")
ZlibCodec = zarr_codec_class(Zlib, module=__name__, qualname="ZlibCodec")
