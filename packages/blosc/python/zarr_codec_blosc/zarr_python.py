"""``BloscCodec``: the blosc codec as a zarr-python 3.4 codec class (the ``zarr.codecs`` entry
point). Importing this module never raises (see ``zarr_codec_shapes.zarr_python``)."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_blosc import Blosc

BloscCodec = zarr_codec_class(Blosc, module=__name__, qualname="BloscCodec")
