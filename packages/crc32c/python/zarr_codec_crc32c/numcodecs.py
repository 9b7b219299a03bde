"""``CRC32C``: numcodecs' ``CRC32C`` on our crc32c codec, for Zarr v2 arrays and numcodecs
users.

It takes the same arguments (``location="end"`` or ``"start"``), has the same attributes,
configuration, ``repr`` and equality as ``numcodecs.CRC32C``, and takes buffers as numcodecs
does (see :mod:`zarr_codec_shapes.numcodecs`). A mismatch raises
:class:`ChecksumMismatchError`, both our ``CorruptInputError`` and the ``RuntimeError``
numcodecs raises.

numcodecs registers its own ``crc32c`` first and entry points cannot replace it; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use this one, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from collections.abc import Buffer
from typing import Any

from zarr_codec_shapes import ConfigurationError, CorruptInputError
from zarr_codec_shapes import numcodecs as _adapter

from zarr_codec_crc32c import Crc32c, Location, _crc32c

__all__ = ["CRC32C", "ChecksumMismatchError", "register", "unregister"]

_Base: Any = _adapter.numcodecs_codec_class(Crc32c, module=__name__, qualname="CRC32C")


class ChecksumMismatchError(CorruptInputError, RuntimeError):
    """Stored and computed checksums differ: a ``CorruptInputError`` and, as numcodecs raises
    for it, a ``RuntimeError``."""


class CRC32C(_Base):  # type: ignore[misc]
    """numcodecs' ``CRC32C(location=None)``: the checksum at the ``"end"`` (default) or the
    ``"start"``."""

    location: Location = "end"

    def __init__(self, location: Location | None = None) -> None:
        if location is not None:
            if location not in ("end", "start"):
                raise ConfigurationError(f"Invalid checksum location: {location!r}")
            self.location = location

    @staticmethod
    def checksum(data: Buffer, value: int = 0) -> int:
        """The CRC-32C of ``data``, continuing from ``value`` (the CRC of what came before)."""
        return _crc32c.checksum(data, value)

    def _build(self) -> Crc32c:
        return Crc32c(location=self.location)

    def get_config(self) -> dict[str, Any]:
        # numcodecs writes "location" only when it was passed.
        config: dict[str, Any] = {"id": "crc32c"}
        if "location" in self.__dict__:
            config["location"] = self.location
        return config

    def decode(self, buf: Any, out: Any = None) -> Any:
        try:
            return super().decode(buf, out)
        except CorruptInputError as err:
            raise ChecksumMismatchError(str(err)) from None


def register() -> None:
    """Use this codec for ``{"id": "crc32c"}`` in numcodecs."""
    _adapter.register(CRC32C)


def unregister() -> None:
    """Give ``crc32c`` back to whatever numcodecs had before :func:`register`."""
    _adapter.unregister("crc32c")
