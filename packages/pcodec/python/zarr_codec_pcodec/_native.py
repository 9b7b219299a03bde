"""The compiled core this machine runs: ``_pcodec``, built for every CPU of its platform, or, on
x86-64 CPUs with AVX2 and BMI2, ``_pcodec_x86_64_v3``, the same code built for them (the release
wheels for x86-64 carry both; a wheel built from the sdist carries only the first).

pco's decoder runs at the ``pcodec`` wheel's speed only with those features (its offsets loop
vectorises with AVX2 gathers, its bit reads use BMI2); the ``pcodec`` wheel is built for them
alone, ours runs everywhere and chooses at import. ``ZARR_CODEC_PCODEC_BUILD=baseline`` keeps
the first (to compare the two, or on a CPU that misreports its features).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import TYPE_CHECKING

from zarr_codec_pcodec import _pcodec

#: The environment variable that keeps the baseline build.
BUILD_VARIABLE = "ZARR_CODEC_PCODEC_BUILD"


def choose() -> ModuleType:
    """The compiled module to run here: the x86-64-v3 build where the wheel has it, the CPU
    has its features and :data:`BUILD_VARIABLE` does not say ``baseline``; else ``_pcodec``."""
    wanted = os.environ.get(BUILD_VARIABLE, "").strip().lower()
    if wanted not in ("", "baseline", "x86-64-v3"):
        raise ImportError(f"{BUILD_VARIABLE}={wanted!r}: expected 'baseline' or 'x86-64-v3'")
    if wanted == "baseline" or not _pcodec.x86_64_v3_supported():
        return _pcodec
    try:
        return importlib.import_module("zarr_codec_pcodec._pcodec_x86_64_v3")
    except ModuleNotFoundError:
        if wanted == "x86-64-v3":
            raise ImportError(
                f"{BUILD_VARIABLE}=x86-64-v3, but this installation of zarr-codec-pcodec has "
                "no x86-64-v3 build (a release wheel for x86-64 has one)"
            ) from None
        return _pcodec


if TYPE_CHECKING:
    native = _pcodec
else:
    native = choose()
