"""numcodecs' ``lzma`` codec over liblzma: ``Lzma``, for Zarr v2 (``{"id": "lzma", ...}``) and
Zarr v3 (zarr-python's ``numcodecs.lzma``).

The options are numcodecs' (and Python's ``lzma`` module's): ``format`` (1 xz, the default;
2 lzma-alone; 3 raw; 0 any of the first two, for decoding), ``check`` (-1 the format's
default), ``preset`` (0 to 9, optionally ``| lzma.PRESET_EXTREME``; ``None``: 6) and
``filters`` (a filter chain as ``lzma`` takes it, instead of a preset). Chunks are written as
numcodecs 0.17 writes them and read as it reads them; damaged or cut-short data raises
``CorruptInputError``, and ``max_decoded_size`` bounds what ``decode`` may allocate. The
numcodecs-compatible class is :class:`zarr_codec_lzma.numcodecs.LZMA`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes.compiled import (
    CompiledBytesCodecBase,
    Constructor,
    check_max_decoded_size,
)

from zarr_codec_lzma import _lzma

__all__ = ["ENGINE", "Lzma"]
__version__ = "0.1.0"

#: The liblzma doing the work.
ENGINE: str = _lzma.ENGINE


class Lzma(CompiledBytesCodecBase):
    """numcodecs' ``lzma``: ``format``, ``check``, ``preset`` and ``filters`` as numcodecs
    takes them (see the module). ``max_decoded_size`` (optional) bounds what ``decode`` may
    allocate."""

    name: ClassVar[str] = "numcodecs.lzma"
    codec_id: ClassVar[str | None] = "lzma"
    _constructor: ClassVar[Constructor] = _lzma.lzma

    def __init__(
        self,
        format: int = 1,
        check: int = -1,
        preset: int | None = None,
        filters: list[dict[str, int]] | None = None,
        *,
        max_decoded_size: int | None = None,
    ) -> None:
        given: dict[str, Any] = {"format": format, "check": check}
        if preset is not None:
            given["preset"] = preset
        if filters is not None:
            given["filters"] = [dict(f) for f in filters]
        config = self._configured(given, 3)
        self.format: int = config["format"]
        self.check: int = config["check"]
        self.preset: int | None = config.get("preset")
        self.filters: list[dict[str, int]] | None = config.get("filters")
        self.max_decoded_size = check_max_decoded_size(self.name, max_decoded_size)

    def configuration(self) -> dict[str, Any]:
        config: dict[str, Any] = {"format": self.format, "check": self.check}
        if self.preset is not None:
            config["preset"] = self.preset
        if self.filters is not None:
            config["filters"] = self.filters
        return config

    def v2_configuration(self) -> dict[str, Any]:
        # numcodecs writes every key, None included.
        return {
            "format": self.format,
            "check": self.check,
            "preset": self.preset,
            "filters": self.filters,
        }
