"""numcodecs' variable-length codecs and base64 in Rust, byte for byte as numcodecs 0.17
writes them.

- :class:`Base64`: numcodecs' ``base64`` (v2 id ``base64``, v3 name ``numcodecs.base64``),
  Python's ``base64`` bytes both ways.
- :class:`Categorize`: numcodecs' ``categorize`` (Zarr v2 id ``categorize``, no v3 form), strings
  as the codes of their labels: what zarr-python reads a Zarr v2 ``categorize`` array with when
  numcodecs is not installed.
- :mod:`zarr_codec_vlen.numcodecs`: numcodecs' ``VLenUTF8``, ``VLenBytes``, ``VLenArray`` and
  ``Base64`` classes on our codecs, for Zarr v2 object arrays and numcodecs users
  (``register()`` makes numcodecs use them).
- :mod:`zarr_codec_vlen.zarr_python`: zarr-python's ``vlen-utf8`` and ``vlen-bytes`` (Zarr v3
  string and bytes arrays), reading and filling numpy ``StringDType`` arrays in place.
- numcodecs' ``Pickle``: decoding runs code from the store, so it is refused until the caller
  opts in (:class:`allow_pickle`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes.compiled import CompiledBytesCodecBase, Constructor

from zarr_codec_vlen import _vlen

__all__ = ["Base64", "Categorize", "allow_pickle"]
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


from zarr_codec_vlen.categorize import Categorize  # noqa: E402  (needs _vlen, imported above)


def __getattr__(name: str) -> Any:
    # allow_pickle lives with the pickle codec, which imports numcodecs' error class where
    # numcodecs is installed: loaded on first use, not with every import of this package.
    if name == "allow_pickle":
        from zarr_codec_vlen.pickles import allow_pickle

        return allow_pickle
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
