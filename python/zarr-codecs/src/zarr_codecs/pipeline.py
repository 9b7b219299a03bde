"""``ChainCodecPipeline``: a zarr-python 3.4 codec pipeline that reads and writes whole batches
of chunks through :class:`zarr_codec_shapes.Chain`.

zarr-python's default pipeline decodes each chunk on its own, through asyncio and fresh
allocations. This one fetches a batch's chunks concurrently (the store is still zarr's), then
decodes them in one call off the event loop, through each codec's batch method (compiled codecs
run in parallel with the GIL released), straight into the output array's chunk slots. Chunks of
a ``LocalStore`` are read from their files here: in Rust, a batch call per chain, each whole
chunk read and decoded into its place (``Chain.decode_files_into``), or for chains without
compiled kernels by one pool task per chunk. Writes merge, encode in one batch call and store
concurrently; into a ``MemoryStore`` they go without its per-chunk copy, into a ``LocalStore``
they are encoded and written to their files in Rust the same way
(:mod:`zarr_codecs._direct_stores`).

It handles arrays whose every codec the ``zarr_codec_shapes`` registry has (plus ``bytes``); any
other
array (sharding, v2 arrays, other codecs, data types we lack) goes to zarr-python's own
``BatchedCodecPipeline`` code, unchanged. Select it with::

    zarr.config.set({"codec_pipeline.path": "zarr_codecs.pipeline.ChainCodecPipeline"})

Importing this module imports zarr (``zarr_codec_shapes`` never does) and never raises
otherwise: zarr loads every registered pipeline whenever it builds one, so a failure here would
break every array. If zarr's chunk helpers this relies on are missing (another zarr version),
the pipeline runs zarr's own code for every array.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from zarr.core.codec_pipeline import BatchedCodecPipeline
from zarr.core.common import concurrent_map
from zarr.core.config import config

try:  # zarr 3.4's helpers, so merging and scattering behave exactly as zarr's own
    from zarr.core.chunk_utils import _merge_chunk_array, chunk_is_empty, scatter_chunk
except ImportError:  # pragma: no cover - another zarr: every array takes zarr's own path
    _HELPERS = False
else:
    _HELPERS = True

from zarr_codec_shapes.chain import Chain, each_in_parallel
from zarr_codec_shapes.errors import CodecError, CorruptInputError
from zarr_codec_shapes.registry import available_codecs
from zarr_codec_shapes.zarr_python import chunk_spec_from_zarr

from zarr_codecs._direct_stores import (
    by_chain,
    local_store_of,
    memory_store_of,
    plain_store_of,
    store_all,
    write_files,
)

if TYPE_CHECKING:
    from zarr.abc.codec import GetResult
    from zarr.abc.store import ByteGetter, ByteSetter
    from zarr.core.array_spec import ArraySpec
    from zarr.core.buffer import Buffer, NDBuffer
    from zarr.core.indexing import SelectorTuple

__all__ = ["PATH", "ChainCodecPipeline"]

#: What zarr's ``codec_pipeline.path`` config names to select this pipeline.
PATH = f"{__name__}.ChainCodecPipeline"

ReadItem = tuple["ByteGetter", "ArraySpec", "SelectorTuple", "SelectorTuple", bool]
WriteItem = tuple["ByteSetter", "ArraySpec", "SelectorTuple", "SelectorTuple", bool]

_chains: dict[tuple[str, Any], Chain | None] = {}  # (codecs JSON, chunk spec) -> chain
_chains_lock = threading.Lock()
_MAX_CACHED = 256


def _supported(codecs_json: str) -> bool:
    """Whether every codec of the list is one ``zarr_codec_shapes`` has (cheap: names only)."""
    try:
        names = [codec["name"] for codec in json.loads(codecs_json)]
    except (TypeError, ValueError, KeyError):
        return False
    ours = available_codecs()
    return all(isinstance(n, str) and (n == "bytes" or n in ours) for n in names)


def _chain_for(codecs_json: str, spec: ArraySpec) -> Chain | None:
    """The chain for these codecs and chunks, or ``None`` when we cannot run it (cached)."""
    if not _supported(codecs_json):
        return None
    try:
        with warnings.catch_warnings():  # zarr warns about data types without a v3 spec
            warnings.simplefilter("ignore")
            chunk_spec = chunk_spec_from_zarr(spec)
    except (CodecError, TypeError, ValueError):
        return None
    key = (codecs_json, chunk_spec)
    with _chains_lock:
        if key in _chains:
            return _chains[key]
    try:
        chain: Chain | None = Chain.from_json(json.loads(codecs_json), chunk_spec)
    except (CodecError, TypeError, ValueError, KeyError, AttributeError):
        chain = None
    with _chains_lock:
        if len(_chains) >= _MAX_CACHED:
            _chains.clear()
        _chains[key] = chain
    return chain


#: zarr-python's own codec classes whose chunks ours read and write identically (exact
#: classes: a subclass may behave differently).
_ZARR_EQUIVALENTS = frozenset(
    {
        "zarr.codecs.bytes.BytesCodec",
        "zarr.codecs.gzip.GzipCodec",
        "zarr.codecs.blosc.BloscCodec",
        "zarr.codecs.zstd.ZstdCodec",
        "zarr.codecs.crc32c_.Crc32cCodec",
        "zarr.codecs.cast_value.CastValue",
        "zarr.codecs.scale_offset.ScaleOffset",
        "zarr.codecs.numcodecs._codecs.FixedScaleOffset",
    }
)


def _replaceable(cls: type) -> bool:
    """Ours (the zarr_codec_shapes adapters of our wheels), or one of :data:`_ZARR_EQUIVALENTS`."""
    if cls.__module__.startswith("zarr_codec"):
        return True
    return f"{cls.__module__}.{cls.__qualname__}" in _ZARR_EQUIVALENTS


def _same_chunks(spec: ArraySpec, other: ArraySpec) -> bool:
    """Whether two chunk specs give the same chain: equal shapes and the very same data type
    and fill value objects (zarr builds every chunk's spec from the array's own), which is
    cheap to check, unlike :func:`_chain_for`'s conversion and lookup."""
    return spec is other or (
        spec.shape == other.shape
        and spec.dtype is other.dtype
        and spec.fill_value is other.fill_value
    )


@dataclass(frozen=True)
class ChainCodecPipeline(BatchedCodecPipeline):
    """zarr-python's batched pipeline, with whole batches run through a :class:`Chain` for
    arrays whose codecs ``zarr_codec_shapes`` has."""

    def _codecs_json(self) -> str | None:
        """The chain's JSON, when every codec object is ours or one of zarr-python's own
        classes that ours read and write identically. Anything else, such as a subclass a
        user configured for a name, is zarr's to run."""
        if not all(_replaceable(type(codec)) for codec in self):
            return None
        try:
            return json.dumps([codec.to_dict() for codec in self])
        except (TypeError, ValueError, AttributeError, NotImplementedError):
            return None

    def chain(self, spec: ArraySpec) -> Chain | None:
        """The chain for chunks like ``spec``, or ``None`` (zarr's own path is used)."""
        codecs_json = self._codecs_json() if _HELPERS else None
        return None if codecs_json is None else _chain_for(codecs_json, spec)

    def _chains(self, batch: Sequence[ReadItem | WriteItem]) -> list[Chain] | None:
        """Each item's chain (chunks may differ in shape: rectilinear grids), or ``None``
        when any of them has none."""
        codecs_json = self._codecs_json() if _HELPERS and batch else None
        if codecs_json is None:
            return None
        chains: list[Chain] = []
        last: tuple[ArraySpec, Chain] | None = None
        for _, spec, *_ in batch:
            if last is not None and _same_chunks(spec, last[0]):
                chains.append(last[1])  # the common case: every chunk of a regular grid
                continue
            chain = _chain_for(codecs_json, spec)
            if chain is None:
                return None
            last = (spec, chain)
            chains.append(chain)
        return chains

    # -- reading ---------------------------------------------------------------------------

    async def read(
        self,
        batch_info: Iterable[ReadItem],
        out: NDBuffer,
        drop_axes: tuple[int, ...] = (),
    ) -> tuple[GetResult, ...]:
        batch = list(batch_info)
        chains = self._chains(batch)
        if chains is None:
            return await super().read(batch, out, drop_axes)
        files = _local_files(batch)
        if files is not None:  # files of a LocalStore: read here, whole chunks into place
            return await asyncio.to_thread(_read_files, chains, batch, files, out, drop_axes)
        buffers = _memory_chunks(batch)
        if buffers is None:
            buffers = await concurrent_map(
                [(getter, spec.prototype) for getter, spec, *_ in batch],
                lambda getter, prototype: getter.get(prototype),
                config.get("async.concurrency"),
            )
        return await asyncio.to_thread(_decode_and_scatter, chains, batch, buffers, out, drop_axes)

    # -- writing ---------------------------------------------------------------------------

    async def write(
        self,
        batch_info: Iterable[WriteItem],
        value: NDBuffer,
        drop_axes: tuple[int, ...] = (),
    ) -> None:
        batch = list(batch_info)
        chains = self._chains(batch)
        if chains is None:
            await super().write(batch, value, drop_axes)
            return

        async def existing(setter: ByteSetter | None, spec: ArraySpec) -> Buffer | None:
            return None if setter is None else await setter.get(prototype=spec.prototype)

        old = await concurrent_map(
            [(None if complete else setter, spec) for setter, spec, _, _, complete in batch],
            existing,
            config.get("async.concurrency"),
        )
        setters = [setter for setter, *_ in batch]
        prototype = batch[0][1].prototype if batch else None
        local = local_store_of(setters)
        if local is not None and prototype is not None:
            # Each chunk merged, encoded and written to its file by one task.
            merge = await asyncio.to_thread(_merger, chains, batch, old, value, drop_axes)
            await write_files(local, setters, chains, merge, prototype)
            return
        encoded = await asyncio.to_thread(
            lambda: _encode(chains, _merge(chains, batch, old, value, drop_axes))
        )
        memory = memory_store_of(setters)
        if memory is not None and prototype is not None:
            # Straight into the store's dict, without MemoryStore.set's per-chunk copy.
            caller = value.as_ndarray_like()
            await store_all(memory, setters, encoded, prototype, caller)
            return
        stored = [
            None if data is None else spec.prototype.buffer.from_bytes(memoryview(data))
            for data, (_, spec, *_) in zip(encoded, batch, strict=True)
        ]

        async def store(setter: ByteSetter, data: Buffer | None) -> None:
            if data is None:
                await setter.delete()
            else:
                await setter.set(data)

        await concurrent_map(
            [(setter, data) for data, (setter, *_) in zip(stored, batch, strict=True)],
            store,
            config.get("async.concurrency"),
        )


def _raw(buffer: Any) -> Any:
    """A chunk's stored bytes as a numpy array: from a zarr ``Buffer`` or ``bytes``."""
    if isinstance(buffer, bytes):
        return np.frombuffer(buffer, dtype=np.uint8)
    return buffer.as_numpy_array()


def _slot(out: NDBuffer, selection: SelectorTuple, shape: tuple[int, ...]) -> Any:
    """The view of ``out`` a whole chunk decodes into, or ``None`` when there is none."""
    target = out.as_ndarray_like()
    if not isinstance(target, np.ndarray):
        return None
    if not isinstance(selection, tuple) or not all(isinstance(s, slice) for s in selection):
        return None
    view = target[selection]
    if view.shape != shape or not np.shares_memory(view, target):
        return None
    return view


def _memory_chunks(batch: Sequence[ReadItem]) -> list[Any] | None:
    """The chunks' stored bytes (``None`` where absent), when every chunk is a key of one
    plain ``MemoryStore`` read into CPU memory: taken from its dict as ``MemoryStore.get``
    does, without an asyncio task per chunk. Otherwise ``None``."""
    from zarr.core.buffer import cpu
    from zarr.storage import MemoryStore

    getters = [getter for getter, *_ in batch]
    store = plain_store_of(getters, MemoryStore)
    if store is None or not store._is_open:
        return None
    if not all(spec.prototype.buffer is cpu.Buffer for _, spec, *_ in batch):
        return None
    stored = store._store_dict
    return [stored.get(getter.path) for getter in getters]  # type: ignore[attr-defined]


def _local_files(batch: Sequence[ReadItem]) -> list[str] | None:
    """The chunk files' paths, when every chunk is a key of one plain ``LocalStore``: joined
    as strings, which for a batch of many chunks is several times cheaper than ``Path``."""
    from zarr.storage import LocalStore

    getters = [getter for getter, *_ in batch]
    store = plain_store_of(getters, LocalStore)
    if store is None:
        return None
    root = os.fspath(store.root)
    return [os.path.join(root, getter.path) for getter in getters]  # type: ignore[attr-defined]


def _read_into(path: str, slot: np.ndarray[Any, Any]) -> bool:
    """Read a stored-as-is chunk file into ``slot``; ``False`` when there is no file."""
    try:
        file = open(path, "rb")  # noqa: SIM115 - closed by the `with` below
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return False
    with file:
        target = memoryview(slot.reshape(-1).view(np.uint8))
        size = file.readinto(target)
        if size != target.nbytes or file.read(1):
            raise CorruptInputError(
                f"bytes: chunk file {path} does not hold exactly {target.nbytes} bytes"
            )
    return True


def _read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _read_files(
    chains: Sequence[Chain],
    batch: Sequence[ReadItem],
    files: Sequence[str],
    out: NDBuffer,
    drop_axes: tuple[int, ...],
) -> tuple[GetResult, ...]:
    """Whole chunks go from their files straight into ``out``: read and decoded in Rust, a
    batch call per chain (:meth:`Chain.decode_files_into`), or where a chain cannot, each read
    and decoded by one task of a thread pool (uncompressed ones read into place, compressed
    ones decompressed there while their bytes are still in cache); the others are read in
    parallel and decoded as usual."""
    slots: dict[int, np.ndarray[Any, Any]] = {}
    for index, (_, spec, _, out_selection, complete) in enumerate(batch):
        slot = _slot(out, out_selection, spec.shape) if complete and not drop_axes else None
        if slot is not None and slot.flags.c_contiguous and slot.dtype.isnative:
            slots[index] = slot
    found: dict[int, bool] = {}
    for group in by_chain(slots, chains).values():
        there = chains[group[0]].decode_files_into(
            [files[i] for i in group], [slots[i] for i in group]
        )
        if there is not None:
            found.update(zip(group, there, strict=True))
    buffers: list[Any] = [None] * len(batch)

    def read_whole(index: int) -> None:
        chain, slot = chains[index], slots[index]
        if chain.stored_as_is:
            found[index] = _read_into(files[index], slot)
            return
        data = _read_bytes(files[index])
        found[index] = data is not None
        if data is not None:
            chain.decode_into(np.frombuffer(data, dtype=np.uint8), slot)

    def read(index: int) -> None:
        if index in slots:
            read_whole(index)
        else:  # decoded below, as a batch
            buffers[index] = _read_bytes(files[index])

    each_in_parallel(read, [i for i in range(len(batch)) if i not in found])
    rest = [i for i in range(len(batch)) if i not in slots]
    results: list[GetResult | None] = [None] * len(batch)
    for index in slots:
        if found[index]:
            results[index] = {"status": "present"}
        else:
            _, spec, _, out_selection, _ = batch[index]
            results[index] = scatter_chunk(
                None, out, chunk_spec=spec, out_selection=out_selection, drop_axes=drop_axes
            )
    decoded = _decode_and_scatter(
        [chains[i] for i in rest],
        [batch[i] for i in rest],
        [buffers[i] for i in rest],
        out,
        drop_axes,
    )
    for index, result in zip(rest, decoded, strict=True):
        results[index] = result
    return tuple(r for r in results if r is not None)


def _decode_and_scatter(
    chains: Sequence[Chain],
    batch: Sequence[ReadItem],
    buffers: Sequence[Buffer | None],
    out: NDBuffer,
    drop_axes: tuple[int, ...],
) -> tuple[GetResult, ...]:
    results: list[GetResult | None] = [None] * len(batch)
    slots: dict[int, Any] = {}  # whole chunks: decoded straight into their place in `out`
    partial: list[int] = []
    for index, (buffer, (_, spec, _, out_selection, complete)) in enumerate(
        zip(buffers, batch, strict=True)
    ):
        if buffer is None:
            results[index] = scatter_chunk(
                None, out, chunk_spec=spec, out_selection=out_selection, drop_axes=drop_axes
            )
            continue
        slot = _slot(out, out_selection, spec.shape) if complete and not drop_axes else None
        if slot is None:
            partial.append(index)
        else:
            slots[index] = slot
    raw = {i: _raw(buffers[i]) for i in (*slots, *partial)}
    for group in by_chain(slots, chains).values():
        chains[group[0]].decode_batch_into([raw[i] for i in group], [slots[i] for i in group])
        for index in group:
            results[index] = {"status": "present"}
    for group in by_chain(partial, chains).values():
        for index, decoded in zip(
            group, chains[group[0]].decode_batch([raw[i] for i in group]), strict=True
        ):
            _, spec, chunk_selection, out_selection, _ = batch[index]
            selected = spec.prototype.nd_buffer.from_numpy_array(decoded)[chunk_selection]
            results[index] = scatter_chunk(
                selected, out, chunk_spec=spec, out_selection=out_selection, drop_axes=drop_axes
            )
    return tuple(r for r in results if r is not None)


def _merge(
    chains: Sequence[Chain],
    batch: Sequence[WriteItem],
    old: Sequence[Buffer | None],
    value: NDBuffer,
    drop_axes: tuple[int, ...],
) -> list[Any | None]:
    """Each chunk of ``batch`` merged with its old contents (an array that may be a view of
    the caller's), or ``None`` for a chunk left empty (not stored)."""
    merge = _merger(chains, batch, old, value, drop_axes)
    return [merge(index) for index in range(len(batch))]


def _merger(
    chains: Sequence[Chain],
    batch: Sequence[WriteItem],
    old: Sequence[Buffer | None],
    value: NDBuffer,
    drop_axes: tuple[int, ...],
) -> Callable[[int], Any | None]:
    """Decodes the old contents of the batch's partly written chunks (a batch call per
    chain), and returns what merges chunk ``index`` with them (see :func:`_merge`); that
    part runs chunk by chunk, on any thread."""
    decoded: dict[int, NDBuffer] = {}
    present = [i for i, data in enumerate(old) if data is not None]
    for group in by_chain(present, chains).values():
        raw = [old[i].as_numpy_array() for i in group]  # type: ignore[union-attr]
        for index, array in zip(group, chains[group[0]].decode_batch(raw), strict=True):
            decoded[index] = batch[index][1].prototype.nd_buffer.from_numpy_array(array)

    def merge(index: int) -> Any | None:
        _, spec, chunk_selection, out_selection, complete = batch[index]
        merged = _merge_chunk_array(
            decoded.get(index), value, out_selection, spec, chunk_selection, complete, drop_axes
        )
        return None if chunk_is_empty(merged, spec) else np.asarray(merged.as_numpy_array())

    return merge


def _encode(chains: Sequence[Chain], chunks: Sequence[Any | None]) -> list[Any | None]:
    """Each chunk encoded (a ``bytes``, or a view that may share the caller's memory), a
    batch call per chain; ``None`` stays ``None``."""
    stored: list[Any | None] = [None] * len(chunks)
    present = [i for i, chunk in enumerate(chunks) if chunk is not None]
    for group in by_chain(present, chains).values():
        encoded = chains[group[0]].encode_batch([chunks[i] for i in group])
        for index, data in zip(group, encoded, strict=True):
            stored[index] = data
    return stored
