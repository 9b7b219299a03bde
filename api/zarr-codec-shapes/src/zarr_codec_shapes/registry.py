"""The codec registry: every provider of a codec name is collected, then one is chosen.

A provider is a codec class found through the ``zarr_codec_shapes.codecs`` entry points (the
entry point's name is the codec's v3 name, its value the class) or registered at run time::

    [project.entry-points."zarr_codec_shapes.codecs"]
    gzip = "zarr_codec_gzip:Gzip"

**Collect.** Discovery records every provider of every name with its origin (distribution and
entry point) and never fails: classes load lazily, one name at a time, so a broken package
only breaks the names it provides.

A package that provides a name only until a better one is installed (numcodecs' own codecs
under their ``numcodecs.<id>`` names, a reference implementation) declares it in the group
``zarr_codec_shapes.fallback_codecs`` instead.

**Resolve.** For a name, in this order: a class registered at run time
(:func:`register_codec`); an explicit selection (:func:`select_codec`, or the environment
variable ``ZARR_CODEC_SHAPES_SELECT="gzip=zarr-codec-gzip,blosc=..."``); the first
distribution of the precedence list (:func:`set_precedence`, or
``ZARR_CODEC_SHAPES_PRECEDENCE="dist-a,dist-b"``) that provides it; the only provider that is
not a fallback; the only fallback. Two or more providers of one rank and no choice is a
:class:`CodecConflictError` at the point of use, naming them and how to choose; never a silent
first-wins.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from zarr_codec_shapes.codec_json import codec_name_of
from zarr_codec_shapes.errors import ConfigurationError, UnknownCodecError
from zarr_codec_shapes.protocols import Codec, ZarrFormat

__all__ = [
    "ENTRY_POINT_GROUP",
    "FALLBACK_GROUP",
    "CodecConflictError",
    "Provider",
    "available_codecs",
    "conflicts",
    "get_codec",
    "get_codec_class",
    "list_codecs",
    "register_codec",
    "select_codec",
    "set_precedence",
    "unregister_codec",
]

ENTRY_POINT_GROUP = "zarr_codec_shapes.codecs"
FALLBACK_GROUP = "zarr_codec_shapes.fallback_codecs"
SELECT_VARIABLE = "ZARR_CODEC_SHAPES_SELECT"
PRECEDENCE_VARIABLE = "ZARR_CODEC_SHAPES_PRECEDENCE"


class CodecConflictError(ConfigurationError):
    """Two or more installed packages provide one codec name and none was chosen."""


@dataclass
class Provider:
    """One provider of a codec name: where it comes from, and its class once loaded."""

    name: str
    distribution: str  # the distribution that declares it ("" when registered at run time)
    origin: str  # "distribution: module:Class" or "run time: module.Class"
    entry_point: EntryPoint | None = None
    cls: type[Codec] | None = None
    error: str | None = None  # why loading failed
    fallback: bool = False  # from FALLBACK_GROUP: any other provider of the name comes first
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def load(self) -> type[Codec]:
        """The codec class (loaded once); ``UnknownCodecError`` saying why it cannot load."""
        with self._lock:
            if self.cls is None and self.error is None and self.entry_point is not None:
                try:
                    loaded = self.entry_point.load()
                    _check_class(loaded)
                    self.cls = loaded
                except Exception as err:
                    self.error = f"{type(err).__name__}: {err}"
        if self.cls is None:
            raise UnknownCodecError(
                f"codec {self.name!r} from {self.origin} failed to load: {self.error}"
            )
        return self.cls


_lock = threading.RLock()
_discovered: dict[str, list[Provider]] | None = None  # name -> entry point providers
_registered: dict[str, type[Codec]] = {}  # name -> class registered at run time
_selected: dict[str, str] = {}  # name -> distribution or "module:Class" chosen by a call
_precedence: list[str] = []  # distributions, first wins, set by a call
# Bumped by each discovery and each change of registration, selection or precedence: the
# resolution of every name (what available_codecs, a pipeline's hot path, asks) is kept
# until it or the environment's choices change.
_generation = 0
_resolved: tuple[Any, tuple[list[type[Codec]], dict[str, CodecConflictError]]] | None = None


def _changed() -> None:
    global _generation
    _generation += 1


def _check_class(cls: Any) -> str:
    """The class's v3 name; ``ConfigurationError`` when it has none."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str):
        raise ConfigurationError(f"{cls!r} has no string 'name' attribute")
    return name


def _providers() -> dict[str, list[Provider]]:
    """Every entry point of the group, by name (collected once; nothing is loaded)."""
    global _discovered
    with _lock:
        if _discovered is None:
            found: dict[str, list[Provider]] = {}
            for group, fallback in ((ENTRY_POINT_GROUP, False), (FALLBACK_GROUP, True)):
                for ep in entry_points(group=group):
                    dist = ep.dist.name if ep.dist is not None else ""
                    origin = f"{dist or '?'}: {ep.value}" + (" (fallback)" if fallback else "")
                    provider = Provider(ep.name, dist, origin, ep, fallback=fallback)
                    found.setdefault(ep.name, []).append(provider)
            _discovered = found
            _changed()
        return _discovered


def _env_map(variable: str) -> dict[str, str]:
    pairs = (item.partition("=") for item in os.environ.get(variable, "").split(","))
    return {k.strip(): v.strip() for k, _, v in pairs if k.strip() and v.strip()}


def _env_list(variable: str) -> list[str]:
    return [item.strip() for item in os.environ.get(variable, "").split(",") if item.strip()]


def _matches(provider: Provider, choice: str) -> bool:
    """A choice names a distribution (``zarr-codec-gzip``) or an entry point's value."""
    value = provider.entry_point.value if provider.entry_point is not None else ""
    normal = choice.replace("_", "-").lower()
    return normal == provider.distribution.replace("_", "-").lower() or choice == value


def _resolve(name: str) -> type[Codec]:
    with _lock:
        registered = _registered.get(name)
        candidates = list(_providers().get(name, ()))
        choice = _selected.get(name) or _env_map(SELECT_VARIABLE).get(name)
        precedence = _precedence or _env_list(PRECEDENCE_VARIABLE)
    if registered is not None:
        return registered
    if not candidates:
        inbound = _numcodecs_inbound(name)
        if inbound is not None:
            return inbound
        raise UnknownCodecError(f"no codec named {name!r} is installed")
    if choice is not None:
        chosen = [p for p in candidates if _matches(p, choice)]
        if not chosen:
            raise ConfigurationError(
                f"codec {name!r}: the selection {choice!r} matches none of its providers "
                f"({_describe(candidates)})"
            )
        return chosen[0].load()
    for preferred in precedence:
        chosen = [p for p in candidates if _matches(p, preferred)]
        if chosen:
            return chosen[0].load()
    # Fallbacks only when nothing else provides the name.
    candidates = [p for p in candidates if not p.fallback] or candidates
    if len(candidates) == 1:
        return candidates[0].load()
    raise CodecConflictError(
        f"codec {name!r} is provided by {len(candidates)} packages ({_describe(candidates)}); "
        f"choose one with zarr_codec_shapes.registry.select_codec({name!r}, DISTRIBUTION), "
        f"{SELECT_VARIABLE}='{name}=DISTRIBUTION' or a precedence list "
        f"({PRECEDENCE_VARIABLE})"
    )


def _numcodecs_inbound(name: str) -> type[Codec] | None:
    """numcodecs' own codec, through the inbound adapter, for a ``numcodecs.<id>`` name that
    no package provides, when numcodecs is installed and has that id."""
    if not name.startswith("numcodecs.") or importlib.util.find_spec("numcodecs") is None:
        return None
    from numcodecs.registry import codec_registry

    from zarr_codec_shapes.numcodecs import _inbound_class

    codec_id = name.removeprefix("numcodecs.")
    if codec_id not in codec_registry:
        return None
    cls: type[Codec] = _inbound_class(codec_id)
    return cls


def _describe(providers: list[Provider]) -> str:
    return "; ".join(p.origin for p in providers)


def register_codec(cls: type[Codec]) -> None:
    """Use ``cls`` for ``cls.name`` (and its ``codec_id``), ahead of every installed provider."""
    name = _check_class(cls)
    with _lock:
        _registered[name] = cls
        _changed()


def unregister_codec(name: str) -> None:
    """Remove the class registered at run time for the v3 name ``name``."""
    with _lock:
        _registered.pop(name, None)
        _changed()


def select_codec(name: str, provider: str | None) -> None:
    """Choose the provider of ``name``: a distribution name (``"zarr-codec-gzip"``) or an
    entry point's value (``"zarr_codec_gzip:Gzip"``); ``None`` removes the choice."""
    with _lock:
        if provider is None:
            _selected.pop(name, None)
        else:
            _selected[name] = provider
        _changed()


def set_precedence(distributions: list[str]) -> None:
    """Distributions to prefer, first first, for every name with several providers and no
    selection (an empty list: the environment's, else none)."""
    with _lock:
        _precedence[:] = list(distributions)
        _changed()


def list_codecs() -> dict[str, list[str]]:
    """Every codec name with the origin of each of its providers (nothing is loaded)."""
    with _lock:
        listed = {name: [p.origin for p in found] for name, found in _providers().items()}
        for name, cls in _registered.items():
            origin = f"run time: {cls.__module__}.{cls.__qualname__}"
            listed[name] = [origin, *listed.get(name, [])]
    return dict(sorted(listed.items()))


def conflicts() -> dict[str, list[str]]:
    """The names that resolve to a :class:`CodecConflictError` now, with their providers."""
    listed = list_codecs()
    return {name: listed[name] for name in _loadable()[1]}


def get_codec_class(name: str, zarr_format: ZarrFormat = 3) -> type[Codec]:
    """The class chosen for a v3 name (or, with ``zarr_format=2``, a v2 id)."""
    if zarr_format == 3:
        return _resolve(name)
    classes, conflicted = _loadable()
    matches = [cls for cls in classes if getattr(cls, "codec_id", None) == name]
    if matches:
        return matches[0]
    for v3_name, error in conflicted.items():  # is the id one of a name in conflict?
        for provider in _providers().get(v3_name, ()):
            try:
                if getattr(provider.load(), "codec_id", None) == name:
                    raise error
            except UnknownCodecError:
                continue
    raise UnknownCodecError(f"no codec with the Zarr v2 id {name!r} is installed")


def _loadable() -> tuple[list[type[Codec]], dict[str, CodecConflictError]]:
    """The chosen class of every name that resolves and loads (for v2 ids and listings),
    and the names in conflict with their errors (kept until anything they depend on changes)."""
    global _resolved
    with _lock:
        names = set(_providers()) | set(_registered)
        key = (_generation, os.environ.get(SELECT_VARIABLE), os.environ.get(PRECEDENCE_VARIABLE))
        if _resolved is not None and _resolved[0] == key:
            return _resolved[1]
    classes, conflicted = [], {}
    for name in sorted(names):
        try:
            classes.append(_resolve(name))
        except CodecConflictError as err:
            conflicted[name] = err
        except ConfigurationError:  # unknown or broken: only its own name fails
            continue
    with _lock:
        _resolved = (key, (classes, conflicted))
    return classes, conflicted


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
    """The chosen class of every codec name that resolves and loads, by v3 name."""
    return {_check_class(cls): cls for cls in _loadable()[0]}
