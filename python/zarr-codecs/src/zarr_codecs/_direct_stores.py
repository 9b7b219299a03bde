"""Writing encoded chunks straight into zarr-python's ``MemoryStore`` and ``LocalStore``.

**MemoryStore.** ``MemoryStore.set`` copies every value it is given, because an encoded chunk
may be a view of the caller's array (an uncompressed chunk is). The pipeline instead hands the
store memory that nothing else references, copying only what needs it:

- a compressor's output is a new ``bytes`` object, and an array codec's output a new array:
  both are stored as they are;
- what may share memory with the caller's array (an uncompressed whole chunk is a view of it)
  is copied into a new array of its own, the copies of a batch in parallel with the GIL
  released.

**LocalStore.** The chunks of a chain stored as is or made of codecs with compiled kernels are
encoded and written to their files in Rust, one call per chain (``Chain.encode_files``: a
temporary file renamed into place, as zarr's own helper writes one). Other chunks are each
encoded and written by one task of a thread pool with zarr's own file helpers, so compressing
one chunk overlaps writing another; no event-loop round trip is made per chunk either way.

Only a plain store (not a subclass, whose methods may do more) is written this way.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from zarr.abc.store import ByteSetter
    from zarr.core.buffer import Buffer, BufferPrototype
    from zarr.storage import LocalStore, MemoryStore
    from zarr_codec_runtime import Chain

__all__ = [
    "by_chain",
    "each_in_parallel",
    "local_store_of",
    "memory_store_of",
    "owned_buffer",
    "plain_store_of",
    "store_all",
    "write_files",
]

try:  # zarr 3.4's LocalStore helpers: the same files, written the same way, as LocalStore.set
    from zarr.storage._local import _delete, _put
except ImportError:  # pragma: no cover - another zarr: LocalStore.set is used
    _FILE_HELPERS = None
else:
    _FILE_HELPERS = (_put, _delete)


@functools.cache
def _pool(io: bool) -> ThreadPoolExecutor:
    """The pool chunk work without a runtime plan runs on: one thread per core, or for file
    writes (mostly waiting) as many as Python's default executor, which zarr's own use."""
    cpus = os.cpu_count() or 1
    return ThreadPoolExecutor(min(32, cpus + 4) if io else cpus, thread_name_prefix="zarr-codecs")


def each_in_parallel(fn: Callable[..., object], *columns: Sequence[Any], io: bool = False) -> None:
    """``fn`` on each row of ``columns``, on a thread pool when there are several rows (the
    work releases the GIL); rows start in order, so files are written in key order."""
    rows = list(zip(*columns, strict=True))
    if len(rows) < 2 or ((os.cpu_count() or 1) < 2 and not io):
        for row in rows:
            fn(*row)
        return
    for _ in _pool(io).map(lambda row: fn(*row), rows):
        pass


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
    """The plain ``MemoryStore`` of every chunk in ``setters``, with the dict this module
    fills; otherwise ``None``."""
    from zarr.storage import MemoryStore

    store = plain_store_of(setters, MemoryStore)
    if store is None or not isinstance(getattr(store, "_store_dict", None), MutableMapping):
        return None
    return store


def local_store_of(setters: Sequence[ByteSetter]) -> LocalStore | None:
    """The plain ``LocalStore`` of every chunk in ``setters``, when zarr's file helpers are
    there to write it with; otherwise ``None``."""
    from zarr.storage import LocalStore

    return plain_store_of(setters, LocalStore) if _FILE_HELPERS is not None else None


def owned_buffer(data: Any | None, prototype: BufferPrototype, caller: Any) -> Buffer | None:
    """An ``encoded`` chunk as a zarr buffer over memory no one else holds: a copy when it may
    share memory with ``caller`` (the array being written; anything but a numpy array counts
    as sharing), else the chunk as it is (see the module's docstring). ``None`` stays."""
    if data is None:
        return None
    if isinstance(data, bytes):
        return prototype.buffer.from_bytes(data)
    source = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    if isinstance(caller, np.ndarray) and not np.may_share_memory(source, caller):
        return prototype.buffer.from_array_like(source)
    return prototype.buffer.from_array_like(source.copy())


async def store_all(
    store: MemoryStore,
    setters: Sequence[ByteSetter],
    encoded: Sequence[Any | None],
    prototype: BufferPrototype,
    caller: Any,
) -> None:
    """Store each encoded chunk under its setter's key (``None`` deletes the key), as
    ``MemoryStore.set`` and ``delete`` do, through :func:`owned_buffer`.

    The chunks are copied and stored in parallel, each replacing its old value as soon as it
    is copied: the old value's memory is then free for the next copy, which so reuses memory
    already mapped instead of faulting in new pages (as zarr's own chunk-by-chunk ``set``
    does too)."""
    from zarr.storage import StorePath

    store._check_writable()
    await store._ensure_open()
    stored = store._store_dict
    paths = []
    for setter in setters:
        assert isinstance(setter, StorePath)
        paths.append(setter.path)

    def one(path: str, data: Any | None) -> None:
        buffer = owned_buffer(data, prototype, caller)
        if buffer is None:
            stored.pop(path, None)
        else:
            stored[path] = buffer

    await asyncio.to_thread(each_in_parallel, one, paths, encoded)


async def write_files(
    store: LocalStore,
    setters: Sequence[ByteSetter],
    chains: Sequence[Chain],
    chunk: Callable[[int], Any | None],
    prototype: BufferPrototype,
) -> None:
    """Write chunk ``i``, ``chunk(i)`` encoded with its chain, to its file (``None`` deletes
    the file), as ``LocalStore.set`` and ``delete`` do: the chunks of each chain whose codecs
    all have compiled kernels encoded and written in Rust in one call
    (:meth:`Chain.encode_files`), the others each merged, encoded and written by one task of
    the thread pool, so reading the caller's data, compressing and writing files overlap."""
    from zarr.storage import StorePath

    assert _FILE_HELPERS is not None
    put, delete = _FILE_HELPERS
    await store._ensure_open()
    store._check_writable()
    root = Path(store.root)
    paths = []
    for setter in setters:
        assert isinstance(setter, StorePath)
        paths.append(root / setter.path)
    await asyncio.to_thread(_write_all, paths, chains, chunk, prototype, put, delete)


def _write_all(
    paths: Sequence[Path],
    chains: Sequence[Chain],
    chunk: Callable[[int], Any | None],
    prototype: BufferPrototype,
    put: Callable[[Path, Buffer], object],
    delete: Callable[[Path], object],
) -> None:
    """The body of :func:`write_files`, off the event loop."""
    merged: list[Any | None] = [None] * len(paths)

    def merge(index: int) -> None:
        merged[index] = chunk(index)

    each_in_parallel(merge, range(len(paths)))
    present = [index for index, data in enumerate(merged) if data is not None]
    by_python = [index for index, data in enumerate(merged) if data is None]
    for group in by_chain(present, chains).values():
        arrays = [merged[i] for i in group]
        if not chains[group[0]].encode_files(arrays, [paths[i] for i in group]):
            by_python.extend(group)

    def one(index: int) -> None:
        data = merged[index]
        if data is None:
            delete(paths[index])
        else:
            encoded = chains[index].encode(data)
            put(paths[index], prototype.buffer.from_bytes(memoryview(encoded)))

    each_in_parallel(one, sorted(by_python), io=True)
