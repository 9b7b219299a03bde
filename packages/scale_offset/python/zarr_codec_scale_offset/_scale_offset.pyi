"""Compiled core of zarr-codec-scale-offset. Every method releases the GIL while working and
raises ``zarr_codec_shapes.CodecError`` subclasses: ``OutOfRangeError`` for an integer result
outside
the type's range or an inexact division, ``ConfigurationError`` for bad parameters or a
mismatched array."""

from collections.abc import Iterable
from typing import Any

import numpy as np

class Plan:
    """A codec (its v3 JSON as a string) bound to an array's numpy dtype; with a following
    ``cast_value`` (its JSON) and the encoded dtype, the two fused into one pass."""

    def __init__(
        self,
        configuration: str,
        dtype: np.dtype[Any],
        cast_value: str | None = None,
        encoded_dtype: np.dtype[Any] | None = None,
    ) -> None: ...
    @staticmethod
    def legacy(configuration: str, dtype: np.dtype[Any], encoded_dtype: np.dtype[Any]) -> Plan:
        """numcodecs' ``fixedscaleoffset`` from its v2 JSON (a string), from ``dtype`` (its
        ``dtype``) into ``encoded_dtype`` (its ``astype``), both native order."""
    def encode(self, array: Any) -> np.ndarray[Any, Any]: ...
    def decode(self, array: Any) -> np.ndarray[Any, Any]: ...
    def encode_into(self, array: Any, out: np.ndarray[Any, Any]) -> None: ...
    def decode_into(self, array: Any, out: np.ndarray[Any, Any]) -> None: ...
    def encode_batch(
        self, arrays: Iterable[Any], threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]: ...
    def decode_batch(
        self, arrays: Iterable[Any], threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]: ...
    def decode_batch_into(
        self,
        arrays: Iterable[Any],
        outs: Iterable[np.ndarray[Any, Any]],
        threads: int | None = None,
    ) -> None: ...
    def decode_kernel(self) -> object:
        """Decoding as a chain kernel (run by ``zarr_codec_runtime.Plan``)."""
    def encode_kernel(self) -> object:
        """Encoding as a chain kernel (run by ``zarr_codec_runtime.Plan``)."""

def check_configuration(configuration: str) -> None: ...
def encoded_fill_value(configuration: str, data_type: str, fill: str) -> str: ...
