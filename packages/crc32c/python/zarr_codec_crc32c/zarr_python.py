"""``Crc32cCodec``: the crc32c codec as a zarr-python 3.4 codec class (the ``zarr.codecs``
entry point). Importing this module never raises (see ``zarr_codec_shapes.zarr_python``)."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_crc32c import Crc32c

Crc32cCodec = zarr_codec_class(Crc32c, module=__name__, qualname="Crc32cCodec")
