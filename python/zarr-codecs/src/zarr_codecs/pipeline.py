"""``ChainCodecPipeline``: a zarr-python 3.4 codec pipeline that runs every chain of our codecs
in the zarr-codecs runtime (:class:`zarr_codec_runtime.Chain`).

zarr-python offers it whole selections first (``read_selection``/``write_selection``, through
``_bridge``): integers and slices of a regular grid in local files, a ``MemoryStore`` or (reads)
an object store the runtime reaches are cut into chunks and run in Rust in one call
(``_selections``). Otherwise zarr-python cuts the selection into batches: a read fetches the
batch's chunks and decodes them into their places in one runtime call per chain; a write merges,
encodes and stores them the same way, skipping chunks left all fill value as zarr-python does.
Anything else (codecs we lack, data types we lack, selections of arrays) is zarr-python's own
``BatchedCodecPipeline`` code, unchanged. Select it with::

    zarr.config.set({"codec_pipeline.path": "zarr_codecs.pipeline.ChainCodecPipeline"})

Importing this module imports zarr and never raises otherwise: zarr loads every registered
pipeline whenever it builds one, so a failure here would break every array.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from math import prod
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from zarr.core.codec_pipeline import BatchedCodecPipeline
from zarr_codec_runtime import Chain
from zarr_codec_shapes.errors import CodecError

from zarr_codecs import _bridge, _fetching, _selections, _strings
from zarr_codecs._arrays import broadcast, chunk_spec, covers, raw, same_chunks
from zarr_codecs._direct_stores import (
    by_chain,
    local_files,
    memory_reads,
    memory_store_of,
    write_memory,
)
from zarr_codecs._from_zarr import V2Chunks, foreign_byte_order, ours, replaceable, v2_chain
from zarr_codecs._located import at_chunk_async
from zarr_codecs._stored_order import StoredOrderChain
from zarr_codecs._strings import StringChain, string_chain
from zarr_codecs._usage import count
from zarr_codecs.gpu import reads as device

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

#: Chains kept per pipeline object, one per kind of chunk (regular grids have one).
_MAX_CACHED = 64


@dataclass(frozen=True)
class ChainCodecPipeline(BatchedCodecPipeline):
    """zarr-python's batched pipeline, with whole batches run through a :class:`Chain` for
    arrays whose codecs ``zarr_codec_shapes`` has."""

    def __getstate__(self) -> dict[str, Any]:
        """The pipeline's fields, without the chains and layouts worked out from them
        (compiled plans do not pickle; a worker plans its own)."""
        worked_out = ("_our_codecs", "_chain_cache", "_string_chains", "_selection_layouts")
        return {name: value for name, value in self.__dict__.items() if name not in worked_out}

    def _codecs(self) -> tuple[Any, ...] | None:
        """Our codec objects for the pipeline's, when every one is ours or one of
        zarr-python's own classes that ours read and write identically (anything else, such
        as a subclass a user configured for a name, is zarr's to run). Worked out once per
        pipeline object: its codecs never change."""
        if "_our_codecs" not in self.__dict__:
            cached: tuple[Any, ...] | None = None
            if all(replaceable(codec) for codec in self):
                failures = (CodecError, TypeError, ValueError, AttributeError, NotImplementedError)
                with contextlib.suppress(*failures):
                    cached = tuple(ours(codec) for codec in self)
            object.__setattr__(self, "_our_codecs", cached)  # a cache, not a field
            object.__setattr__(self, "_chain_cache", {})
            object.__setattr__(self, "_string_chains", {})
        return cast(tuple[Any, ...] | None, self.__dict__["_our_codecs"])

    def chain(self, spec: ArraySpec) -> Chain | None:
        """The chain for chunks like ``spec`` (planned once, then kept), or ``None`` (zarr's
        own path is used)."""
        codecs = self._codecs()
        if codecs is None:
            return None
        # zarr builds a new spec for every read, from the same data type and fill value
        # objects: found by those, without converting the spec (which costs more than a small
        # read's own work). The objects are kept, so their ids stay theirs.
        cache: dict[Any, tuple[Any, Any, Chain | None]] = self.__dict__["_chain_cache"]
        key = (spec.shape, id(spec.dtype), id(spec.fill_value), spec.order)
        hit = cache.get(key)
        if hit is not None and hit[0] is spec.dtype and hit[1] is spec.fill_value:
            return hit[2]
        if len(cache) >= _MAX_CACHED:
            cache.clear()
        cache[key] = (spec.dtype, spec.fill_value, _chain_for(codecs, spec))
        return cache[key][2]

    def _chains(self, batch: Sequence[ReadItem | WriteItem]) -> list[Chain] | None:
        """Each item's chain (chunks may differ in shape: rectilinear grids), or ``None``
        when any of them has none."""
        if not batch or self._codecs() is None:
            return None
        chains: list[Chain] = []
        last: tuple[ArraySpec, Chain] | None = None
        for _, spec, *_ in batch:
            if last is not None and same_chunks(spec, last[0]):
                chains.append(last[1])  # the common case: every chunk of a regular grid
                continue
            chain = self.chain(spec)
            if chain is None:
                return None
            last = (spec, chain)
            chains.append(chain)
        return chains

    def _strings(self, batch: Sequence[ReadItem | WriteItem]) -> list[StringChain] | None:
        """Each item's chain where the array is a string or bytes array of ours (see
        ``_strings``), else ``None``."""
        codecs = self._codecs()
        if not batch or codecs is None:
            return None
        cache: dict[Any, StringChain | None] = self.__dict__["_string_chains"]
        chains = []
        for _, spec, *_ in batch:
            key = (spec.shape, spec.order)
            if key not in cache:
                if len(cache) >= _MAX_CACHED:
                    cache.clear()
                cache[key] = string_chain(codecs, spec)
            chain = cache[key]
            if chain is None:
                return None
            chains.append(chain)
        return chains

    # -- whole selections (offered by zarr-python, see ``_bridge``) --------------------------

    # ``where`` is what zarr-python offers a whole selection with: ``store_path, metadata,
    # config, chunk_grid, indexer, prototype`` for a read, ``value`` before ``prototype`` for
    # a write (the methods of ``upstream/zarr-python``'s patch 0007).

    async def read_selection(self, *where: Any) -> Any:
        """A whole basic selection read with no Python work per chunk (see ``_selections``),
        or ``NotImplemented``: zarr-python cuts it into batches for :meth:`read`."""
        return await _run_async(self._codecs() and _selections.plan_read(self, *where))

    def read_selection_now(self, *where: Any) -> Any:
        """:meth:`read_selection` on the caller's thread, for zarr-python's synchronous
        ``Array`` (no hop to its event loop's thread), or ``NotImplemented``."""
        return _run(self._codecs() and _selections.plan_read(self, *where))

    async def write_selection(self, *where: Any) -> Any:
        """A whole basic selection written with no Python work per chunk, or
        ``NotImplemented``: zarr-python cuts it into batches for :meth:`write`."""
        return await _run_async(self._codecs() and _selections.plan_write(self, *where))

    def write_selection_now(self, *where: Any) -> Any:
        """:meth:`write_selection` on the caller's thread, for zarr-python's synchronous
        ``Array`` (no hop to its event loop's thread), or ``NotImplemented``."""
        return _run(self._codecs() and _selections.plan_write(self, *where))

    # -- reading ---------------------------------------------------------------------------

    async def read(
        self,
        batch_info: Iterable[ReadItem],
        out: NDBuffer,
        drop_axes: tuple[int, ...] = (),
    ) -> tuple[GetResult, ...]:
        """Each chain's chunks fetched (file paths of a ``LocalStore``, the values of a
        ``MemoryStore``, otherwise zarr's concurrent gets), then decoded into their places in
        ``out`` by the runtime in one call (:meth:`Chain.read`). Anything the runtime does not
        take (selections other than slices and integers, a chain without kernels, an output
        that is not a numpy array) is zarr-python's own read. Counted in :func:`usage`."""
        batch = list(batch_info)
        if device.holds_device_memory(out):
            found = await device.read_batch(self._codecs(), batch, out, drop_axes)
            if found is not None:
                count("device_read", len(batch))
                return tuple(_PRESENT if present else _MISSING for present in found)
            count("zarr_read", len(batch))
            return await super().read(batch, out, drop_axes)
        strings = self._strings(batch)
        target = out.as_ndarray_like()
        if strings is not None and not drop_axes and isinstance(target, np.ndarray):
            try:
                found = await _strings.read(batch, strings, target)
            except CodecError as error:
                raise await _located(error, batch, strings, None) from error
            count("runtime_read", len(batch))
            return tuple(_PRESENT if present else _MISSING for present in found)
        try:
            found = await self._read_in_runtime(batch, out, drop_axes)
        except CodecError as error:
            raise await _located(error, batch, self._chains(batch), None) from error
        if found is None:
            count("zarr_read", len(batch))
            return await super().read(batch, out, drop_axes)
        count("runtime_read", len(batch))
        return tuple(_PRESENT if present else _MISSING for present in found)

    async def _read_in_runtime(
        self, batch: Sequence[ReadItem], out: NDBuffer, drop_axes: tuple[int, ...]
    ) -> list[bool] | None:
        """Whether each chunk was there, or ``None`` (nothing written to ``out``) where the
        runtime does not take the batch."""
        chains = self._chains(batch)
        target = out.as_ndarray_like()
        if chains is None or drop_axes or not isinstance(target, np.ndarray):
            return None
        # Files and a MemoryStore's values cost nothing to name; the runtime checks the
        # selections before it reads any. Other stores are read first: check before that.
        sources: list[Any] | None = local_files([item[0] for item in batch])
        if sources is None:
            sources = memory_reads(batch)
        if sources is None and not _basic(batch):
            return None
        selections = [(item[2], item[3]) for item in batch]
        decode = functools.partial(_fetching.decode_groups, chains, selections, target)
        everything = list(range(len(batch)))
        small = _small(batch, chains)
        if sources is None and not small:
            # Any other store: decoded in groups as the chunks arrive.
            def fetch_one(index: int) -> Any:
                getter, spec, selection, _, complete = batch[index]
                return _fetching.fetch(getter, spec, selection, complete, chains[index])

            return await _fetching.fetch_and_decode(len(batch), fetch_one, decode)
        if sources is None:
            sources = await _fetching.gather(
                functools.partial(_fetching.fetch, g, s, sel, c, chain)
                for (g, s, sel, _, c), chain in zip(batch, chains, strict=True)
            )
        # Small reads run here (a thread hop costs more than they do); the GIL is released
        # while the runtime works either way.
        if not small:
            return await asyncio.to_thread(decode, everything, sources)
        await asyncio.sleep(0)  # one turn of the event loop, as any awaiting read gives
        return decode(everything, sources)

    # -- writing ---------------------------------------------------------------------------

    async def write(
        self,
        batch_info: Iterable[WriteItem],
        value: NDBuffer,
        drop_axes: tuple[int, ...] = (),
    ) -> None:
        """Each chain's chunks written by the runtime in one call: their values gathered from
        ``value``, merged with the old chunks where only part of one is written, chunks left
        all fill value not stored (as zarr-python decides), encoded, and for a ``LocalStore``
        written to their files, for any other store handed back and stored (a ``MemoryStore``'s
        dict directly, other stores through zarr's concurrent sets). Anything the runtime does
        not take is zarr-python's own write. Counted in :func:`usage`."""
        batch = list(batch_info)
        # zarr-python's GPU mode: encoding stays on the CPU, after one copy to the host.
        host_value = device.to_host(value) if device.holds_device_memory(value) else value
        if await self._write_strings(batch, host_value, drop_axes):
            count("runtime_written", len(batch))
            return
        try:
            written = await self._write_in_runtime(batch, host_value, drop_axes)
        except CodecError as error:
            chains = self._chains(batch)
            merged = None if chains is None else _merged(batch, chains)
            raise await _located(error, batch, chains, merged) from error
        if written:
            count("runtime_written", len(batch))
        else:
            count("zarr_written", len(batch))
            await super().write(batch, value, drop_axes)

    async def _write_strings(
        self, batch: Sequence[WriteItem], value: NDBuffer, drop_axes: tuple[int, ...]
    ) -> bool:
        """Whether the batch was a string or bytes array's, written (see ``_strings``)."""
        strings, values = self._strings(batch), value.as_ndarray_like()
        write_empty = {spec.config.write_empty_chunks for _, spec, *_ in batch}
        if strings is None or drop_axes or not isinstance(values, np.ndarray):
            return False
        if len(write_empty) > 1:
            return False
        if values.ndim == 0:
            values = broadcast(values, [item[3] for item in batch])
        try:
            await _strings.write(batch, strings, values, write_empty.pop())
        except CodecError as error:
            merged = [not complete for *_, complete in batch]
            raise await _located(error, batch, strings, merged) from error
        return True

    async def _write_in_runtime(
        self, batch: Sequence[WriteItem], value: NDBuffer, drop_axes: tuple[int, ...]
    ) -> bool:
        """Whether the runtime wrote the batch (``False``: nothing was stored)."""
        chains, values = self._chains(batch), value.as_ndarray_like()
        write_empty = {spec.config.write_empty_chunks for _, spec, *_ in batch}
        if (
            chains is None
            or drop_axes
            or not isinstance(values, np.ndarray)
            or len(write_empty) > 1
        ):
            return False
        if values.ndim == 0:  # a scalar written everywhere, seen as a broadcast array
            values = broadcast(values, [item[3] for item in batch])
        empty = write_empty.pop()
        setters = [setter for setter, *_ in batch]
        small = sum(chain.spec.num_bytes for chain in chains) <= _selections.INLINE_BYTES
        paths = local_files(setters)
        memory = None if paths is not None else memory_store_of(setters)
        if paths is not None or memory is not None:
            store: Any = setters[0].store  # type: ignore[attr-defined]
            store._check_writable()
            await store._ensure_open()
        if paths is not None:

            def write_file_group(chain: Chain, group: list[int], selections: Any) -> bool:
                files = [paths[i] for i in group]
                return (
                    chain.write_files(files, selections, values, write_empty_chunks=empty)
                    is not None
                )

            write = functools.partial(_per_chain, batch, chains, write_file_group)
            return write() if small else await asyncio.to_thread(write)
        if not _basic(batch):  # checked by the runtime too, but old chunks are read first
            return False
        merged = _merged(batch, chains)
        if memory is not None:
            stored, buffer = memory._store_dict, batch[0][1].prototype.buffer

            def write_memory_group(chain: Chain, group: list[int], selections: Any) -> bool:
                keys = [setters[i].path for i in group]  # type: ignore[attr-defined]
                was = [merged[i] for i in group]
                return write_memory(stored, chain, keys, was, selections, values, empty, buffer)

            write = functools.partial(_per_chain, batch, chains, write_memory_group)
            return write() if small else await asyncio.to_thread(write)
        return await _write_through_zarr(batch, chains, merged, values, empty, small)


def _chain_for(codecs: tuple[Any, ...], spec: ArraySpec) -> Chain | None:
    """The chain of ``codecs`` (ours) for chunks of zarr-python's ``spec``, or ``None`` where
    the runtime cannot run it (a data type we lack, a codec that refuses the spec). A v2
    array's chunks are stored in its memory order and its byte order."""
    ours = chunk_spec(spec)
    if ours is None:
        return None
    byte_order = foreign_byte_order(spec)
    with contextlib.suppress(CodecError, TypeError, ValueError, AttributeError):
        if len(codecs) == 1 and isinstance(codecs[0], V2Chunks):
            codecs = v2_chain(codecs[0], spec)
            if byte_order is not None:
                return StoredOrderChain(codecs, ours, byte_order)
        return Chain(codecs, ours)
    return None


async def _located(
    error: CodecError,
    batch: Sequence[ReadItem | WriteItem],
    chains: Sequence[Chain | StringChain] | None,
    merged: Sequence[bool] | None,
) -> CodecError:
    """``error`` named after the chunk of ``batch`` (of those ``merged``, for a write) whose
    stored bytes fail to decode (see ``_located``)."""
    if chains is None:
        return error

    async def fetch(getter: Any, spec: ArraySpec) -> Any:
        data = await getter.get(prototype=spec.prototype)
        return None if data is None else raw(data)

    candidates = [
        (str(getattr(getter, "path", getter)), chain, functools.partial(fetch, getter, spec))
        for index, ((getter, spec, *_), chain) in enumerate(zip(batch, chains, strict=True))
        if merged is None or merged[index]
    ]
    return await at_chunk_async(error, candidates)


def _run(planned: Any) -> Any:
    """A planned whole-selection read or write done on this thread, or ``NotImplemented``
    where there is none."""
    return planned.run() if planned else NotImplemented


async def _run_async(planned: Any) -> Any:
    """:func:`_run`, awaited (on a worker thread where it is large)."""
    return await planned.run_async() if planned else NotImplemented


def _per_chain(
    batch: Sequence[WriteItem], chains: Sequence[Chain], run: Callable[..., bool]
) -> bool:
    """``run(chain, indices, selections)`` for each group of ``batch`` with one chain; whether
    every one ran (``False`` from the first that did not). A group the runtime does not take
    sends the whole batch to zarr-python's path, which writes again what groups before it
    wrote: the same values, so the same chunks."""
    for group in by_chain(range(len(batch)), chains).values():
        parts_and_places = ([batch[i][2] for i in group], [batch[i][3] for i in group])
        if not run(chains[group[0]], group, parts_and_places):
            return False
    return True


async def _write_through_zarr(
    batch: Sequence[WriteItem],
    chains: Sequence[Chain],
    merged: Sequence[bool],
    values: Any,
    empty: bool,
    small: bool,
) -> bool:
    """A write to any other store: the old chunks to merge fetched through zarr's gets, every
    chunk encoded by the runtime, then stored through zarr's concurrent sets (deleted where
    left empty). ``False``, with nothing stored, where the runtime does not take the batch."""

    async def existing(setter: ByteSetter | None, spec: ArraySpec) -> Buffer | None:
        return None if setter is None else await setter.get(prototype=spec.prototype)

    fetched = await _fetching.gather(
        functools.partial(existing, setter if m else None, spec)
        for (setter, spec, *_), m in zip(batch, merged, strict=True)
    )
    olds = [None if data is None else raw(data) for data in fetched]
    encoded: list[Any] = [None] * len(batch)

    def encode_group(chain: Chain, group: list[int], selections: Any) -> bool:
        old = [olds[i] for i in group]
        written = chain.write_buffers(old, selections, values, write_empty_chunks=empty)
        for index, data in zip(group, written or (), strict=False):
            encoded[index] = data
        return written is not None

    encode = functools.partial(_per_chain, batch, chains, encode_group)
    if not (encode() if small else await asyncio.to_thread(encode)):
        return False  # nothing was stored yet

    async def store(setter: ByteSetter, spec: ArraySpec, data: Any) -> None:
        if data is None:
            await setter.delete()
        else:
            await setter.set(spec.prototype.buffer.from_bytes(data))

    await _fetching.gather(
        functools.partial(store, setter, spec, data)
        for (setter, spec, *_), data in zip(batch, encoded, strict=True)
    )
    return True


def _basic(batch: Sequence[ReadItem | WriteItem]) -> bool:
    """Whether every selection of ``batch`` is of the kind the runtime takes: chunk
    selections of slices and integers, places of slices."""
    for _, _, chunk_selection, place, _ in batch:
        if not isinstance(chunk_selection, tuple) or not isinstance(place, tuple):
            return False
        if not all(isinstance(s, slice | int) for s in chunk_selection):
            return False
        if not all(isinstance(s, slice) for s in place):
            return False
    return True


def _merged(batch: Sequence[WriteItem], chains: Sequence[Chain]) -> list[bool]:
    """Which chunks of ``batch`` are only partly written, so merged with their old bytes. A
    shard counts as partly written unless all of it is: zarr calls a write complete when it
    covers the part of an edge shard inside the array, but the rest of the shard, left by a
    shrinking resize, is kept as zarr's sharding keeps it."""
    return [
        not complete or (chain.shards is not None and not covers(selection, chain.spec.shape))
        for (_, _, selection, _, complete), chain in zip(batch, chains, strict=True)
    ]


def _small(batch: Sequence[ReadItem], chains: Sequence[Chain]) -> bool:
    """Whether a read moves or decodes at most ``_selections.INLINE_BYTES`` (then it runs on the
    event loop's thread: a hop to another costs more). A chunk stored as is counts the bytes
    of its part that are copied, any other chunk its whole decoded size."""
    total = 0
    for (_, _, selection, _, _), chain in zip(batch, chains, strict=True):
        if chain.stored_as_is and isinstance(selection, tuple):
            parts = zip(selection, chain.spec.shape, strict=False)
            elements = prod(len(range(*s.indices(n))) for s, n in parts if isinstance(s, slice))
            total += elements * chain.spec.data_type.itemsize
        else:
            total += chain.spec.num_bytes
        if total > _selections.INLINE_BYTES:
            return False
    return True


_PRESENT: GetResult = {"status": "present"}  # zarr's GetResult is a TypedDict
_MISSING: GetResult = {"status": "missing"}


# zarr-python offers whole selections to pipelines that take them (this one's
# ``read_selection`` and ``write_selection``); any other pipeline is unaffected.
with contextlib.suppress(ImportError, AttributeError):
    _bridge.hook()
