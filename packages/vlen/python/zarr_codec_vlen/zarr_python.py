"""Base64 as a zarr-python 3.4 codec class, for the Zarr v3 name ``numcodecs.base64``.
Importing this module never raises (see ``zarr_codec_shapes.zarr_python``);
``zarr_codecs.install()`` selects it."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_vlen import Base64

Base64Codec = zarr_codec_class(Base64, module=__name__, qualname="Base64Codec")
