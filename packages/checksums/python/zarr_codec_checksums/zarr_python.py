"""The checksum codecs as zarr-python 3.4 codec classes, for the Zarr v3 names zarr-python
gives numcodecs' codecs (``numcodecs.crc32``, ...). Importing this module never raises (see
``zarr_codec_shapes.zarr_python``); ``zarr_codecs.install()`` selects them."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_checksums import Adler32, Crc32, Fletcher32, JenkinsLookup3

Crc32Codec = zarr_codec_class(Crc32, module=__name__, qualname="Crc32Codec")
Adler32Codec = zarr_codec_class(Adler32, module=__name__, qualname="Adler32Codec")
Fletcher32Codec = zarr_codec_class(Fletcher32, module=__name__, qualname="Fletcher32Codec")
JenkinsLookup3Codec = zarr_codec_class(
    JenkinsLookup3, module=__name__, qualname="JenkinsLookup3Codec"
)
