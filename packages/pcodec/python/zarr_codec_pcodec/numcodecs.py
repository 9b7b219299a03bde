"""numcodecs' ``PCodec`` on our codec, for Zarr v2 arrays and numcodecs users: the same
constructor, attributes, configuration and bytes, without the ``pcodec`` package.

numcodecs registers its own class only where ``pcodec`` is installed; :func:`register` makes
numcodecs use this one either way, and :func:`unregister` gives the id back.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_bytes, ensure_contiguous_ndarray
from zarr_codec_shapes import numcodecs as _adapter
from zarr_codec_shapes.data_types import DataType

from zarr_codec_pcodec import DEFAULTS
from zarr_codec_pcodec import PCodec as _Ours
from zarr_codec_pcodec._native import native as _compiled

__all__ = ["IDS", "PCodec", "register", "unregister"]

#: The numcodecs ids these classes take over when registered.
IDS = ("pcodec",)


class PCodec(Codec):  # type: ignore[misc]
    """numcodecs' ``PCodec(level=8, *, mode_spec="auto", delta_spec="auto",
    paging_spec="equal_pages_up_to", delta_encoding_order=None, equal_pages_up_to=262144)``."""

    codec_id = "pcodec"

    def __init__(
        self,
        level: int = 8,
        *,
        mode_spec: str = "auto",
        delta_spec: str = "auto",
        paging_spec: str = "equal_pages_up_to",
        delta_encoding_order: int | None = None,
        equal_pages_up_to: int = DEFAULTS["equal_pages_up_to"],
    ) -> None:
        self.level = level
        self.mode_spec = mode_spec
        self.delta_spec = delta_spec
        self.paging_spec = paging_spec
        self.delta_encoding_order = delta_encoding_order
        self.equal_pages_up_to = equal_pages_up_to

    def _ours(self) -> _Ours:
        return _Ours(
            self.level,
            mode_spec=self.mode_spec,
            delta_spec=self.delta_spec,
            paging_spec=self.paging_spec,
            delta_encoding_order=self.delta_encoding_order,
            equal_pages_up_to=self.equal_pages_up_to,
        )

    def encode(self, buf: Any) -> bytes:
        return self._ours().encode_array(ensure_contiguous_ndarray(buf))

    def decode(self, buf: Any, out: Any = None) -> Any:
        data = ensure_bytes(buf)
        if out is not None:
            out = ensure_contiguous_ndarray(out)
            _compiled.decode_into(data, out)
            return out
        # The file states its type and count: decoded straight into a new array of them (a
        # file that does not fill it exactly is refused as corrupt), in one call.
        decoded = _compiled.decode(data)
        if decoded is not None:
            return decoded
        found = _compiled.decode_all(data)
        if found is None:  # a file of no numbers: pcodec's own gives an empty float array
            return np.empty(0, dtype=np.float64)
        name, numbers = found
        return np.frombuffer(numbers, dtype=DataType.from_name(name).numpy_dtype).copy()


def register() -> None:
    """Use :class:`PCodec` for ``pcodec`` in numcodecs."""
    _adapter.register(PCodec)


def unregister() -> None:
    """Give ``pcodec`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("pcodec")
