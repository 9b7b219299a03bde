"""Writing encoded chunks into zarr-python's ``MemoryStore`` without its defensive copy.

``MemoryStore.set`` copies every value it is given, because an encoded chunk may be a view of
the caller's array (an uncompressed chunk is). Each copy is a fresh allocation of the chunk's
size, and on Linux its first write faults in every 4 KiB page: for 2 MiB chunks that costs more
than everything else a write does. The pipeline instead hands the store memory that nothing else
references:

- a compressor's output is a new ``bytes`` object, stored as is;
- anything else (views of the caller's data) is copied, in parallel, into large shared blocks,
  which numpy backs with huge pages, so a block faults in once per 2 MiB.

A block stays alive while any chunk stored in it does: rewriting most chunks of a batch, but not
all, keeps the block's memory until the rest are rewritten too. Blocks are at most
:data:`BLOCK_BYTES`, which bounds that.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from zarr_codec.chain import each_in_parallel

if TYPE_CHECKING:
    from zarr.abc.store import ByteSetter
    from zarr.core.buffer import Buffer, BufferPrototype
    from zarr.storage import MemoryStore

__all__ = ["BLOCK_BYTES", "memory_store_of", "owned_buffers", "put_all"]

#: The most bytes of copied chunks that share one allocation.
BLOCK_BYTES = 64 << 20


def memory_store_of(setters: Sequence[ByteSetter]) -> MemoryStore | None:
    """The store of every chunk in ``setters`` when it is one plain ``MemoryStore`` (not a
    subclass, whose ``set`` may do more) with the dict this module fills; otherwise ``None``."""
    from zarr.storage import MemoryStore, StorePath

    stores = {id(s.store): s.store for s in setters if isinstance(s, StorePath)}
    if len(stores) != 1 or not all(isinstance(s, StorePath) for s in setters):
        return None
    (store,) = stores.values()
    if type(store) is not MemoryStore:
        return None
    if not isinstance(getattr(store, "_store_dict", None), MutableMapping):
        return None  # pragma: no cover - another zarr's MemoryStore
    return store


def owned_buffers(encoded: Sequence[Any | None], prototype: BufferPrototype) -> list[Buffer | None]:
    """``encoded`` chunks as zarr buffers over memory no one else holds: ``bytes`` as they are,
    anything else copied into shared blocks (see the module's docstring)."""
    buffers: list[Buffer | None] = [None] * len(encoded)
    views: list[tuple[int, memoryview]] = []
    for index, data in enumerate(encoded):
        if data is None:
            continue
        if isinstance(data, bytes):
            buffers[index] = prototype.buffer.from_bytes(data)
        else:
            views.append((index, memoryview(data).cast("B")))
    for group in _blocks(views):
        block = np.empty(sum(view.nbytes for _, view in group), dtype=np.uint8)
        places = []
        start = 0
        for index, view in group:
            place = block[start : start + view.nbytes]
            places.append(place)
            buffers[index] = prototype.buffer.from_array_like(place)
            start += view.nbytes
        each_in_parallel(np.copyto, places, [np.frombuffer(v, np.uint8) for _, v in group])
    return buffers


def _blocks(
    views: Sequence[tuple[int, memoryview]],
) -> list[list[tuple[int, memoryview]]]:
    """``views`` in runs of at most :data:`BLOCK_BYTES` (a larger view is a run of its own)."""
    groups: list[list[tuple[int, memoryview]]] = []
    size = BLOCK_BYTES
    for item in views:
        if size + item[1].nbytes > BLOCK_BYTES:
            groups.append([])
            size = 0
        groups[-1].append(item)
        size += item[1].nbytes
    return groups


async def put_all(
    store: MemoryStore, setters: Sequence[ByteSetter], buffers: Sequence[Buffer | None]
) -> None:
    """Store each buffer under its setter's key (``None`` deletes the key), as
    ``MemoryStore.set`` and ``delete`` do but for the copy; ``buffers`` must come from
    :func:`owned_buffers`."""
    from zarr.storage import StorePath

    store._check_writable()
    await store._ensure_open()
    stored = store._store_dict
    for setter, buffer in zip(setters, buffers, strict=True):
        assert isinstance(setter, StorePath)
        if buffer is None:
            stored.pop(setter.path, None)
        else:
            stored[setter.path] = buffer
