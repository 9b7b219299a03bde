"""``ZstdCodec``: the zstd codec as a zarr-python 3.4 codec class (the ``zarr.codecs`` entry
point). Importing this module never raises (see ``zarr_codec_shapes.zarr_python``)."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_zstd import Zstd

ZstdCodec = zarr_codec_class(Zstd, module=__name__, qualname="ZstdCodec")
