"""numcodecs' ``CRC32``, ``Adler32``, ``Fletcher32`` and ``JenkinsLookup3`` on our codecs, for
Zarr v2 arrays and numcodecs users.

Each takes numcodecs' arguments and has its attributes, configuration and ``repr``, and takes
buffers as numcodecs does (see :mod:`zarr_codec_shapes.numcodecs`). A damaged or short chunk
raises :class:`ChecksumMismatchError`: our ``CorruptInputError`` (a ``ValueError``, which
numcodecs raises for a short chunk) and the ``RuntimeError`` numcodecs raises for a mismatch.

numcodecs registers its own classes first and entry points cannot replace them; call
:func:`register` to make numcodecs (and so zarr-python's v2 arrays) use these, and
:func:`unregister` to restore numcodecs' own.
"""

from __future__ import annotations

from typing import Any

from zarr_codec_shapes import ConfigurationError, CorruptInputError
from zarr_codec_shapes import numcodecs as _adapter

import zarr_codec_checksums as _ours
from zarr_codec_checksums import Location

__all__ = [
    "CRC32",
    "Adler32",
    "ChecksumMismatchError",
    "Fletcher32",
    "JenkinsLookup3",
    "register",
    "unregister",
]


class ChecksumMismatchError(CorruptInputError, RuntimeError):
    """A chunk whose stored checksum is missing or wrong: a ``CorruptInputError`` and, as
    numcodecs raises for a mismatch, a ``RuntimeError``."""


def _checked(what: str, decode: Any, buf: Any, out: Any) -> Any:
    """``decode(buf, out)``, a damaged chunk's error led by numcodecs' words for it."""
    try:
        return decode(buf, out)
    except CorruptInputError as err:
        raise ChecksumMismatchError(
            f"The {what} checksum of the data did not match the expected checksum "
            f"(this could be a sign that the data has been corrupted): {err}"
        ) from None


def _class(codec: type[Any], name: str) -> Any:
    return _adapter.numcodecs_codec_class(codec, module=__name__, qualname=name)


class _LocatedBase:
    """numcodecs' ``Checksum32(location=None)``: ``location`` is kept, and written, only when
    given."""

    codec_id: str
    location: Location = "start"

    def __init__(self, location: Location | None = None) -> None:
        if location is not None:
            if location not in ("start", "end"):
                raise ConfigurationError(f"Invalid checksum location: {location}")
            self.location = location

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"id": self.codec_id}
        if "location" in self.__dict__:
            config["location"] = self.location
        return config

    def decode(self, buf: Any, out: Any = None) -> Any:
        return _checked(self.codec_id, super().decode, buf, out)  # type: ignore[misc]


class CRC32(_LocatedBase, _class(_ours.Crc32, "CRC32")):  # type: ignore[misc]
    """numcodecs' ``CRC32(location=None)``: the CRC-32 at the ``"start"`` (default) or the
    ``"end"``."""

    def _build(self) -> _ours.Crc32:
        return _ours.Crc32(location=self.__dict__.get("location"))


class Adler32(_LocatedBase, _class(_ours.Adler32, "Adler32")):  # type: ignore[misc]
    """numcodecs' ``Adler32(location=None)``: the Adler-32 at the ``"start"`` (default) or
    the ``"end"``."""

    def _build(self) -> _ours.Adler32:
        return _ours.Adler32(location=self.__dict__.get("location"))


class Fletcher32(_class(_ours.Fletcher32, "Fletcher32")):  # type: ignore[misc]
    """numcodecs' ``Fletcher32()``: HDF5's Fletcher-32 after the data."""

    def __init__(self) -> None:
        pass

    def _build(self) -> _ours.Fletcher32:
        return _ours.Fletcher32()

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id}

    def decode(self, buf: Any, out: Any = None) -> Any:
        return _checked("fletcher32", super().decode, buf, out)


class JenkinsLookup3(_class(_ours.JenkinsLookup3, "JenkinsLookup3")):  # type: ignore[misc]
    """numcodecs' ``JenkinsLookup3(initval=0, prefix=None)``: lookup3's hash of ``prefix``
    then the data, after the data."""

    def __init__(self, initval: int = 0, prefix: Any = None) -> None:
        self.initval = initval
        self.prefix = None if prefix is None else bytes(prefix)

    def _build(self) -> _ours.JenkinsLookup3:
        return _ours.JenkinsLookup3(initval=self.initval, prefix=self.prefix)

    def get_config(self) -> dict[str, Any]:
        # numcodecs writes both keys; the prefix as a list of byte values (JSON), where
        # numcodecs' own would hold a numpy array no JSON encoder takes.
        prefix = None if self.prefix is None else list(self.prefix)
        return {"id": self.codec_id, "initval": self.initval, "prefix": prefix}

    def decode(self, buf: Any, out: Any = None) -> Any:
        return _checked("Bob Jenkin's lookup3", super().decode, buf, out)


_CLASSES = (CRC32, Adler32, Fletcher32, JenkinsLookup3)


def register() -> None:
    """Use these codecs for ``crc32``, ``adler32``, ``fletcher32`` and ``jenkins_lookup3`` in
    numcodecs."""
    for cls in _CLASSES:
        _adapter.register(cls)


def unregister() -> None:
    """Give the four ids back to whatever numcodecs had before :func:`register`."""
    for cls in _CLASSES:
        _adapter.unregister(cls.codec_id)
