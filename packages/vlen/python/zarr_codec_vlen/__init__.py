"""numcodecs' variable-length codecs and base64 in Rust, byte for byte as numcodecs 0.17
writes them.

- :class:`Base64`: numcodecs' ``base64`` (v2 id ``base64``, v3 name ``numcodecs.base64``),
  Python's ``base64`` bytes both ways.
- :mod:`zarr_codec_vlen.numcodecs`: numcodecs' ``VLenUTF8``, ``VLenBytes``, ``VLenArray`` and
  ``Base64`` classes on our codecs, for Zarr v2 object arrays and numcodecs users
  (``register()`` makes numcodecs use them).

Zarr v3 string arrays through zarr-python's pipeline are to follow.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes.compiled import CompiledBytesCodecBase, Constructor

from zarr_codec_vlen import _vlen

__all__ = ["Base64"]
__version__ = "0.1.0"


class Base64(CompiledBytesCodecBase):
    """numcodecs' ``base64``: bytes as standard base64 text with ``=`` padding; decoding as
    Python's non-strict ``base64.standard_b64decode`` (characters outside the alphabet are
    skipped, a complete padding ends the data)."""

    name: ClassVar[str] = "numcodecs.base64"
    codec_id: ClassVar[str | None] = "base64"
    _constructor: ClassVar[Constructor] = _vlen.base64

    def __init__(self) -> None:
        self._configured({}, 3)

    def configuration(self) -> dict[str, Any]:
        return {}
