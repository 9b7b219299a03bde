"""Run zarr-python's own codec objects with our codecs while :func:`zarr_codecs.install` is in
effect.

A user who writes ``compressors=zarr.codecs.GzipCodec(level=5)``, or takes the ``ZstdCodec``
zarr-python fills in by default, holds an object of zarr's class: no registry lookup happens,
so selecting our classes by name does not reach it. While installed, the chunk methods of
those classes hand each call to our codec built from the object's own JSON (one per distinct
configuration, kept); everything else (the object, its metadata, its JSON) stays zarr's.
An object whose JSON is not complete yet (a blosc codec before zarr resolves its type size)
runs zarr's code. :func:`restore` puts the classes back exactly.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Hashable
from typing import Any, cast

__all__ = ["replace", "restore"]

#: The chunk methods of a zarr-python codec class that compute (its batch and per-chunk ones,
#: async and sync); identity, JSON and metadata methods stay zarr's.
METHODS = ("decode", "encode", "_decode_single", "_encode_single", "_decode_sync", "_encode_sync")

_ABSENT = object()
# zarr class -> {method name: what its own __dict__ held, or _ABSENT}
_saved: dict[type[Any], dict[str, Any]] = {}


@functools.lru_cache(maxsize=256)
def _ours_for_json(ours: Any, text: str) -> Any:
    return ours.from_dict(json.loads(text))


def _ours(obj: Any, ours: type[Any]) -> Any | None:
    """Our codec for zarr's codec object ``obj``, or ``None`` where it cannot be built (its
    JSON is not complete yet, or ours refuses a configuration zarr's accepts)."""
    from zarr_codec_shapes import CodecError

    try:
        text = json.dumps(obj.to_dict(), sort_keys=True)
        return _ours_for_json(cast(Hashable, ours), text)
    except (CodecError, TypeError, ValueError, KeyError):
        return None


def _delegate(name: str, ours: type[Any], original: Any) -> Any:
    """A method for a zarr class that calls ``name`` on our codec, or ``original``."""
    if name.endswith("_sync"):

        def sync_method(self: Any, chunk: Any, spec: Any) -> Any:
            codec = _ours(self, ours)
            if codec is None:
                return original(self, chunk, spec)
            return getattr(codec, name)(chunk, spec)

        return sync_method
    if name in ("decode", "encode"):

        async def batch_method(self: Any, chunks_and_specs: Any) -> Any:
            codec = _ours(self, ours)
            if codec is None:
                return await original(self, chunks_and_specs)
            return await getattr(codec, name)(chunks_and_specs)

        return batch_method

    async def single_method(self: Any, chunk: Any, spec: Any) -> Any:
        codec = _ours(self, ours)
        if codec is None:
            return await original(self, chunk, spec)
        return await getattr(codec, name)(chunk, spec)

    return single_method


def replace(theirs: type[Any], ours: type[Any]) -> None:
    """Make objects of zarr's class ``theirs`` run ``ours`` (a zarr codec class of ours for
    the same name). Idempotent."""
    if theirs in _saved:
        return
    _saved[theirs] = {name: vars(theirs).get(name, _ABSENT) for name in METHODS}
    for name in METHODS:
        setattr(theirs, name, _delegate(name, ours, getattr(theirs, name)))


def restore(theirs: type[Any]) -> None:
    """Undo :func:`replace` for ``theirs``. Idempotent."""
    saved = _saved.pop(theirs, None)
    if saved is None:
        return
    for name, method in saved.items():
        if method is _ABSENT:
            delattr(theirs, name)
        else:
            setattr(theirs, name, method)
