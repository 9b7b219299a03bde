"""``GzipCodec``: the gzip codec as a zarr-python 3.4 codec class (the ``zarr.codecs`` entry
point). Importing this module never raises (see ``zarr_codec_shapes.zarr_python``)."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_gzip import Gzip

GzipCodec = zarr_codec_class(Gzip, module=__name__, qualname="GzipCodec")
