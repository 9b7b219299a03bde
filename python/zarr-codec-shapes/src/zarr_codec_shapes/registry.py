"""The codec registry: codec classes found through the ``zarr_codec_shapes.codecs`` entry points.

An entry point's name is the codec's v3 name and its value the codec class::

    [project.entry-points."zarr_codec_shapes.codecs"]
    gzip = "zarr_codec_gzip:Gzip"

Entry points are loaded lazily, one name at a time, so a broken package only affects the
codec it provides. Classes can also be registered at run time with :func:`register_codec`.
"""

from __future__ import annotations

import threading
from importlib.metadata import entry_points
from typing import Any

from zarr_codec_shapes.codec_json import codec_name_of
from zarr_codec_shapes.errors import ConfigurationError, UnknownCodecError
from zarr_codec_shapes.protocols import Codec, ZarrFormat

__all__ = [
    "ENTRY_POINT_GROUP",
    "available_codecs",
    "get_codec",
    "get_codec_class",
    "register_codec",
    "unregister_codec",
]

ENTRY_POINT_GROUP = "zarr_codec_shapes.codecs"

_lock = threading.Lock()
_by_name: dict[str, type[Codec]] = {}
_by_v2_id: dict[str, type[Codec]] = {}
_broken: dict[str, str] = {}  # entry point name -> why it failed to load
_entry_points_loaded = False


def _load_entry_points() -> None:
    """Register every entry point once; a failing one is reported when its name is asked for."""
    global _entry_points_loaded
    with _lock:
        if _entry_points_loaded:
            return
        _entry_points_loaded = True
        found = list(entry_points(group=ENTRY_POINT_GROUP))
    for ep in found:
        if ep.name in _by_name:
            continue  # registered explicitly at run time: that wins
        try:
            cls = ep.load()
        except Exception as err:
            _broken[ep.name] = f"{ep.value}: {type(err).__name__}: {err}"
            continue
        _add(cls, replace=False)


def _add(cls: type[Codec], *, replace: bool) -> None:
    name = getattr(cls, "name", None)
    if not isinstance(name, str):
        raise ConfigurationError(f"{cls!r} has no string 'name' attribute")
    with _lock:
        if replace or name not in _by_name:
            _by_name[name] = cls
        codec_id = getattr(cls, "codec_id", None)
        if isinstance(codec_id, str) and (replace or codec_id not in _by_v2_id):
            _by_v2_id[codec_id] = cls


def register_codec(cls: type[Codec]) -> None:
    """Register (or replace) the class for ``cls.name`` and, if it has one, ``cls.codec_id``."""
    _add(cls, replace=True)


def unregister_codec(name: str) -> None:
    """Remove the class registered for the v3 name ``name`` (and its v2 id)."""
    with _lock:
        cls = _by_name.pop(name, None)
        if cls is not None:
            for key in [k for k, v in _by_v2_id.items() if v is cls]:
                del _by_v2_id[key]


def get_codec_class(name: str, zarr_format: ZarrFormat = 3) -> type[Codec]:
    """The class registered for a v3 name (or, with ``zarr_format=2``, a v2 id)."""
    _load_entry_points()
    table = _by_name if zarr_format == 3 else _by_v2_id
    cls = table.get(name)
    if cls is None:
        hint = f" (its entry point failed to load: {_broken[name]})" if name in _broken else ""
        raise UnknownCodecError(f"no codec named {name!r} for Zarr v{zarr_format}{hint}")
    return cls


def get_codec(data: Any, zarr_format: ZarrFormat | None = None) -> Codec:
    """Build a codec from its JSON in either form.

    ``zarr_format`` picks the form; when omitted it is inferred (``"id"`` means v2).
    """
    name, detected = codec_name_of(data)
    fmt = detected if zarr_format is None else zarr_format
    if fmt == 2 and detected == 3:
        raise ConfigurationError(f"expected Zarr v2 codec JSON with an 'id', got {data!r}")
    return get_codec_class(name, fmt).from_json(data, zarr_format=fmt)


def available_codecs() -> dict[str, type[Codec]]:
    """Every codec class that loaded, by v3 name."""
    _load_entry_points()
    with _lock:
        return dict(_by_name)
