"""Writing encoded chunks into zarr-python's ``MemoryStore`` without its defensive copy.

``MemoryStore.set`` copies every value it is given, because an encoded chunk may be a view of
the caller's array (an uncompressed chunk is). The pipeline instead hands the store memory that
nothing else references, copying only what needs it:

- a compressor's output is a new ``bytes`` object, stored as is;
- anything else (views of the caller's data) is copied into a new array of its own, the copies
  of a batch in parallel with the GIL released.
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

__all__ = ["memory_store_of", "owned_buffers", "put_all"]


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
    anything else copied (see the module's docstring)."""
    buffers: list[Buffer | None] = [None] * len(encoded)
    sources: list[np.ndarray[Any, Any]] = []
    copies: list[np.ndarray[Any, Any]] = []
    for index, data in enumerate(encoded):
        if data is None:
            continue
        if isinstance(data, bytes):
            buffers[index] = prototype.buffer.from_bytes(data)
            continue
        source = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
        copy = np.empty_like(source)
        sources.append(source)
        copies.append(copy)
        buffers[index] = prototype.buffer.from_array_like(copy)
    each_in_parallel(np.copyto, copies, sources)
    return buffers


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
