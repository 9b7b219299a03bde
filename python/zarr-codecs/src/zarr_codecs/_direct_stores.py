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

from zarr_codecs._arrays import raw

if TYPE_CHECKING:
    from zarr.abc.store import ByteSetter
    from zarr.storage import MemoryStore
    from zarr_codec_runtime import Chain

__all__ = [
    "by_chain",
    "files_root",
    "local_files",
    "memory_chunks",
    "memory_reads",
    "memory_store_of",
    "plain_store_of",
    "store_encoded",
    "write_memory",
]


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


def memory_chunks(
    stored: Any, keys: Sequence[str], wanted: Sequence[bool] | None = None
) -> list[Any]:
    """The stored bytes of chunks ``keys`` of a ``MemoryStore``'s dict ``stored`` (``None``
    where missing, or not ``wanted``), as ``MemoryStore.get`` finds them, without its task."""
    if wanted is None:
        return [None if (c := stored.get(key)) is None else raw(c) for key in keys]
    return [
        None if not w or (c := stored.get(key)) is None else raw(c)
        for key, w in zip(keys, wanted, strict=True)
    ]


def memory_reads(batch: Sequence[Any]) -> list[Any] | None:
    """The stored bytes of a read batch's chunks (``None`` where absent), when every chunk is a
    key of one plain, open ``MemoryStore`` read into CPU memory: taken from its dict as
    ``MemoryStore.get`` does, without an asyncio task per chunk. Otherwise ``None``."""
    from zarr.core.buffer import cpu
    from zarr.storage import MemoryStore

    getters = [getter for getter, *_ in batch]
    store = plain_store_of(getters, MemoryStore)
    if store is None or not store._is_open:
        return None
    if not all(spec.prototype.buffer is cpu.Buffer for _, spec, *_ in batch):
        return None
    return memory_chunks(store._store_dict, [getter.path for getter in getters])


def write_memory(
    stored: Any,
    chain: Chain,
    keys: Sequence[str],
    merged: Sequence[bool],
    selections: Any,
    values: Any,
    write_empty: bool,
    buffer: Any,
) -> bool:
    """Chunks ``keys`` of a ``MemoryStore``'s dict ``stored`` written by the runtime in one
    call (the old chunk merged where ``merged``), then put straight into the dict: the
    runtime's bytes are the chunks' own memory, so ``MemoryStore.set``'s copy is not needed.
    ``False``, with nothing stored, where the runtime does not take them."""
    olds = memory_chunks(stored, keys, merged)
    encoded = chain.write_buffers(olds, selections, values, write_empty_chunks=write_empty)
    if encoded is None:
        return False
    store_encoded(stored, keys, encoded, buffer)
    return True


def store_encoded(stored: Any, keys: Sequence[str], encoded: Sequence[Any], buffer: Any) -> None:
    """Chunks ``keys`` of a ``MemoryStore``'s dict ``stored`` set to the runtime's ``encoded``
    bytes (``None``: the chunk is not stored, its key removed)."""
    for key, data in zip(keys, encoded, strict=True):
        if data is None:
            stored.pop(key, None)
        else:
            stored[key] = buffer.from_bytes(data)


def local_files(paths: Sequence[Any]) -> list[str] | None:
    """The chunk files of ``paths`` (a batch's byte getters or setters), when every chunk is a
    key of one plain ``LocalStore``: joined as strings, which for a batch of many chunks is
    several times cheaper than ``Path``."""
    from zarr.storage import LocalStore

    store = plain_store_of(paths, LocalStore)
    if store is None:
        return None
    root = os.fspath(store.root)
    return [os.path.join(root, path.path) for path in paths]
