"""Which zarr-python stores the pipeline reaches past, and batches grouped by chain.

The pipeline reads a ``LocalStore``'s chunk files and writes them in Rust, and reads and
writes a ``MemoryStore``'s dict directly (its ``set`` copies every value, because a chunk may
share the caller's memory; the runtime's encoded chunks never do). Only a plain store (not a
subclass, whose methods may do more) is reached past this way.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zarr.abc.store import ByteSetter
    from zarr.storage import MemoryStore
    from zarr_codec_runtime import Chain

__all__ = ["by_chain", "files_root", "memory_store_of", "plain_store_of"]


def by_chain(indices: Iterable[int], chains: Sequence[Chain]) -> dict[int, list[int]]:
    """``indices`` grouped by their chain (by identity), so each group is one batch call."""
    groups: dict[int, list[int]] = {}
    for index in indices:
        groups.setdefault(id(chains[index]), []).append(index)
    return groups


def plain_store_of[S](paths: Sequence[Any], kind: type[S]) -> S | None:
    """The store of every chunk in ``paths`` (the byte getters or setters of a batch) when
    they are keys of one store of exactly type ``kind`` (a subclass's methods may do more);
    otherwise ``None``."""
    from zarr.storage import StorePath

    stores = {id(s.store): s.store for s in paths if isinstance(s, StorePath)}
    if len(stores) != 1 or not all(isinstance(s, StorePath) for s in paths):
        return None
    (store,) = stores.values()
    return store if type(store) is kind else None


def memory_store_of(setters: Sequence[ByteSetter]) -> MemoryStore | None:
    """The plain ``MemoryStore`` of every chunk in ``setters``, with the dict the pipeline
    reads and fills; otherwise ``None``."""
    from zarr.storage import MemoryStore

    store = plain_store_of(setters, MemoryStore)
    if store is None or not isinstance(getattr(store, "_store_dict", None), MutableMapping):
        return None
    return store


def files_root(store: Any) -> str | None:
    """The directory whose files are ``store``'s keys, where the store is plain files: a plain
    ``LocalStore``, or zarr's ``FsspecStore`` over fsspec's local file system (what
    ``dask.array.from_zarr`` opens for a path); ``None`` for any other store."""
    from zarr.storage import FsspecStore, LocalStore

    if type(store) is LocalStore:
        return os.fspath(store.root)
    if type(store) is not FsspecStore:
        return None
    try:
        from fsspec.implementations.local import LocalFileSystem  # type: ignore[import-untyped]
    except ImportError:
        return None
    fs = getattr(store.fs, "sync_fs", store.fs)  # zarr wraps sync file systems for asyncio
    path = store.path
    if type(fs) is LocalFileSystem and isinstance(path, str) and os.path.isabs(path):
        return path
    return None
