"""The filters as zarr-python 3.4 codec classes, for the Zarr v3 names zarr-python gives
numcodecs' filters (``numcodecs.shuffle``, ``numcodecs.delta``, ...). Importing this module
never raises (see ``zarr_codec_shapes.zarr_python``); ``zarr_codecs.install()`` selects them."""

from zarr_codec_shapes.zarr_python import zarr_codec_class

from zarr_codec_filters import AsType, BitRound, Delta, PackBits, Quantize, Shuffle

ShuffleCodec = zarr_codec_class(Shuffle, module=__name__, qualname="ShuffleCodec")
DeltaCodec = zarr_codec_class(Delta, module=__name__, qualname="DeltaCodec")
BitRoundCodec = zarr_codec_class(BitRound, module=__name__, qualname="BitRoundCodec")
QuantizeCodec = zarr_codec_class(Quantize, module=__name__, qualname="QuantizeCodec")
AsTypeCodec = zarr_codec_class(AsType, module=__name__, qualname="AsTypeCodec")
PackBitsCodec = zarr_codec_class(PackBits, module=__name__, qualname="PackBitsCodec")
