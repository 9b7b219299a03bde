"""numcodecs' ``zfpy`` codec over zfp 1.0.1 (vendored C, called from Rust), without the ``zfpy``
package: :class:`Zfpy`, an array-to-bytes codec for Zarr v2 (``{"id": "zfpy", ...}``) and Zarr
v3 (zarr-python's ``numcodecs.zfpy``).

An array of ``int32``, ``int64``, ``float32`` or ``float64`` of one to four dimensions becomes
one zfp stream with zfp's full header, byte for byte as numcodecs 0.17 writes it with zfpy
1.0.1: fixed accuracy (``mode=4``, ``tolerance``), fixed rate (``mode=2``, ``rate``), fixed
precision (``mode=3``, ``precision``), or zfp's lossless reversible mode where that parameter
is negative (numcodecs' default). Decoding into a chunk checks the stream's type and shape.
The numcodecs-compatible class is :class:`zarr_codec_zfpy.numcodecs.ZFPY`.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
from zarr_codec_shapes.base import ArrayBytesCodecBase
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.compiled import ElementBytesCodec

from zarr_codec_zfpy import _zfpy

__all__ = ["ENGINE", "MODE_FIXED_ACCURACY", "MODE_FIXED_PRECISION", "MODE_FIXED_RATE", "Zfpy"]
__version__ = "0.1.0"

#: The library doing the work.
ENGINE: str = _zfpy.ENGINE
#: zfp's mode numbers, as zfpy names them (``zfpy.mode_fixed_rate``, ...).
MODE_FIXED_RATE = 2
MODE_FIXED_PRECISION = 3
MODE_FIXED_ACCURACY = 4


class Zfpy(ArrayBytesCodecBase):
    """numcodecs' ``ZFPY(mode=4, tolerance=-1, rate=-1, precision=-1)``: the parameter of
    ``mode`` sets zfp's mode; a negative one (the default) compresses losslessly."""

    name: ClassVar[str] = "numcodecs.zfpy"
    codec_id: ClassVar[str | None] = "zfpy"

    def __init__(
        self,
        mode: int = MODE_FIXED_ACCURACY,
        tolerance: float = -1,
        rate: float = -1,
        precision: int = -1,
        compression_kwargs: Any = None,  # numcodecs writes it; ignored, as numcodecs does
    ) -> None:
        self.mode, self.tolerance, self.rate, self.precision = mode, tolerance, rate, precision
        self._json = json.dumps(
            {
                "id": "zfpy",
                "mode": mode,
                "tolerance": tolerance,
                "rate": rate,
                "precision": precision,
            }
        )

    def configuration(self) -> dict[str, Any]:
        config: dict[str, Any] = {"mode": self.mode}
        kwargs = {
            MODE_FIXED_ACCURACY: {"tolerance": self.tolerance},
            MODE_FIXED_RATE: {"rate": self.rate},
            MODE_FIXED_PRECISION: {"precision": self.precision},
        }.get(self.mode)
        if kwargs is not None:
            config["compression_kwargs"] = kwargs
        config.update(tolerance=self.tolerance, rate=self.rate, precision=self.precision)
        return config

    def encode_array(self, array: Any) -> bytes:
        """A C-order array of one to four dimensions as one zfp stream with its header."""
        return bytes(_zfpy.encode(self._json, 2, array))

    def encode(self, array: Any, spec: ChunkSpec | None = None) -> bytes:
        return self.encode_array(array)

    def decode(self, data: Any, spec: ChunkSpec) -> np.ndarray[Any, Any]:
        out = np.empty(spec.shape, dtype=spec.numpy_dtype)
        _zfpy.decode_into(data, out)
        return out

    def decode_into(self, data: Any, out: Any, spec: ChunkSpec) -> int:
        _zfpy.decode_into(data, out)
        return int(out.nbytes)

    def element_bytes_codec(self, spec: ChunkSpec) -> ElementBytesCodec:
        """This codec for chunks of ``spec`` as a bytes codec of their element bytes in this
        machine's order, which ``zarr_codec_runtime.Chain`` runs after the ``bytes`` codec in
        native order (one compiled kernel each way)."""
        compiled = _zfpy.element_codec(
            self._json, 2, spec.data_type.name, [int(n) for n in spec.shape]
        )
        return ElementBytesCodec(self.name, compiled)
