"""The x86-64-v3 build of :mod:`zarr_codec_pcodec._pcodec` (AVX2, BMI1, BMI2, LZCNT): the same
functions, chosen by :mod:`zarr_codec_pcodec._native` where the CPU has those features."""

from zarr_codec_pcodec._pcodec import *  # noqa: F403
