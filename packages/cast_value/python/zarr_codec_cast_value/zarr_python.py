"""``CastValueCodec``: the cast_value codec as a zarr-python 3.4 codec class (the
``zarr.codecs`` entry point). Importing this module never raises (see
``zarr_codec.zarr_python``)."""

from zarr_codec.zarr_python import zarr_codec_class

from zarr_codec_cast_value import CastValue

CastValueCodec = zarr_codec_class(CastValue, module=__name__, qualname="CastValueCodec")
