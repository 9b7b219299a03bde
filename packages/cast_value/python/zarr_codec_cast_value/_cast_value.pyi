"""Compiled core of zarr-codec-cast-value. Every function releases the GIL while casting and
raises ``zarr_codec_shapes.CodecError`` subclasses: ``OutOfRangeError`` for an element the rules
refuse, ``ConfigurationError`` for a bad configuration or a mismatched array."""

from collections.abc import Iterable
from typing import Any, Literal

import numpy as np

class Plan:
    """One direction of a codec (its v3 JSON as a string) bound to numpy dtypes."""

    def __init__(
        self,
        configuration: str,
        source: np.dtype[Any],
        target: np.dtype[Any],
        direction: Literal["encode", "decode"],
    ) -> None: ...
    @property
    def source(self) -> str: ...
    @property
    def target(self) -> str: ...
    def apply(self, array: Any) -> np.ndarray[Any, Any]: ...
    def apply_into(self, array: Any, out: np.ndarray[Any, Any]) -> None: ...
    def apply_batch(
        self, arrays: Iterable[Any], threads: int | None = None
    ) -> list[np.ndarray[Any, Any]]: ...
    def apply_batch_into(
        self,
        arrays: Iterable[Any],
        outs: Iterable[np.ndarray[Any, Any]],
        threads: int | None = None,
    ) -> None: ...
    def kernel(self) -> object:
        """The cast as a chain kernel (run by ``zarr_codec_runtime.Plan``)."""

def check_configuration(configuration: str) -> None: ...
def encoded_fill_value(configuration: str, data_type: str, fill: str) -> str: ...
