"""numcodecs' ``pcodec`` codec in Rust (pco 1.1, the release the ``pcodec`` 1.1 package wraps),
without the ``pcodec`` package: :class:`PCodec`, an array-to-bytes codec for Zarr v2
(``{"id": "pcodec", ...}``) and Zarr v3 (zarr-python's ``numcodecs.pcodec``).

An array of ``uint16``-``uint64``, ``int16``-``int64`` or ``float16``-``float64`` numbers becomes
one pco standalone file, byte for byte as numcodecs 0.17 writes it. Decoding is bounded by the
chunk: a file of another number type or count raises ``CorruptInputError``. The
numcodecs-compatible class is :class:`zarr_codec_pcodec.numcodecs.PCodec`.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
from zarr_codec_shapes.base import ArrayBytesCodecBase
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.compiled import ElementBytesCodec
from zarr_codec_shapes.errors import ConfigurationError

from zarr_codec_pcodec._native import native as _compiled

__all__ = ["BUILD", "ENGINE", "PCodec"]
__version__ = "0.1.0"

#: Which build of the compiled core runs here: ``"baseline"``, or ``"x86-64-v3"`` on x86-64 CPUs
#: with AVX2 and BMI2 (see :mod:`zarr_codec_pcodec._native`).
BUILD: str = _compiled.BUILD

#: The library doing the work, and its build.
ENGINE: str = f"{_compiled.ENGINE} ({BUILD} build)"

#: numcodecs' defaults, in the order numcodecs writes the keys.
DEFAULTS: dict[str, Any] = {
    "level": 8,
    "mode_spec": "auto",
    "delta_spec": "auto",
    "paging_spec": "equal_pages_up_to",
    "delta_encoding_order": None,
    "equal_pages_up_to": 262144,
}


class PCodec(ArrayBytesCodecBase):
    """numcodecs' ``PCodec(level=8, mode_spec="auto", delta_spec="auto",
    paging_spec="equal_pages_up_to", delta_encoding_order=None, equal_pages_up_to=262144)``.
    The configuration is checked when encoding, as numcodecs checks it (a chunk stored with
    any configuration decodes)."""

    name: ClassVar[str] = "numcodecs.pcodec"
    codec_id: ClassVar[str | None] = "pcodec"

    def __init__(
        self,
        level: int = 8,
        *,
        mode_spec: str = "auto",
        delta_spec: str = "auto",
        paging_spec: str = "equal_pages_up_to",
        delta_encoding_order: int | None = None,
        equal_pages_up_to: int = 262144,
    ) -> None:
        self.level = level
        self.mode_spec = mode_spec
        self.delta_spec = delta_spec
        self.paging_spec = paging_spec
        self.delta_encoding_order = delta_encoding_order
        self.equal_pages_up_to = equal_pages_up_to
        for key, value in self.configuration().items():
            expected = int if key in ("level", "equal_pages_up_to") else str
            if key == "delta_encoding_order":
                expected = int
                if value is None:
                    continue
            if not isinstance(value, expected) or isinstance(value, bool):
                raise ConfigurationError(
                    f"pcodec: {key} must be {expected.__name__}, not {value!r}"
                )
        self._json = json.dumps({"id": "pcodec", **self.configuration()})

    def configuration(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "mode_spec": self.mode_spec,
            "delta_spec": self.delta_spec,
            "paging_spec": self.paging_spec,
            "delta_encoding_order": self.delta_encoding_order,
            "equal_pages_up_to": self.equal_pages_up_to,
        }

    def encode_array(self, array: Any) -> bytes:
        """An array of numbers (any shape, this machine's byte order or not) as a pco file."""
        return bytes(_compiled.encode(self._json, 2, array))

    def encode(self, array: Any, spec: ChunkSpec | None = None) -> bytes:
        return self.encode_array(array)

    def decode(self, data: Any, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        out = np.empty(spec.shape, dtype=spec.numpy_dtype)
        _compiled.decode_into(data, out)
        return out

    def decode_into(self, data: Any, out: Any, spec: ChunkSpec) -> int:
        _compiled.decode_into(data, out)
        return int(out.nbytes)

    def element_bytes_codec(self, spec: ChunkSpec) -> ElementBytesCodec:
        """This codec for chunks of ``spec`` as a bytes codec of their element bytes in this
        machine's order: what a codec chain runs after the ``bytes`` codec in native order
        (``zarr_codec_runtime.Chain`` plans it so, one compiled kernel each way)."""
        return ElementBytesCodec(
            self.name, _compiled.element_codec(self._json, 2, spec.data_type.name)
        )
