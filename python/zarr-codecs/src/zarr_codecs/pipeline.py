"""``ChainCodecPipeline``: a zarr-python 3.4 codec pipeline that hands whole batches of chunks
to the zarr-codecs runtime (:class:`zarr_codec_runtime.Chain`).

zarr-python's default pipeline decodes each chunk on its own, through asyncio and fresh
allocations. This one is a thin shell over the runtime: a read fetches the batch's chunks (the
file paths of a ``LocalStore``, the values of a ``MemoryStore``, zarr's concurrent gets for
any other store) and decodes them into their places in the output in one runtime call per
chain (one per read on a regular grid), with no Python work per chunk beyond handing over its
selection. A write is one runtime call per chain too: the chunks' values gathered from the
caller's array, merged with the old chunks where only part of one is written, chunks left all
fill value skipped as zarr-python skips them, encoded, and written to a ``LocalStore``'s files
in Rust, or handed back to be stored (into a ``MemoryStore``'s dict without its per-chunk
copy, into any other store through zarr's concurrent sets).

zarr-python also offers it whole selections (``read_selection`` / ``write_selection``, through
``_selections.hook``): integers and slices of a regular grid in a plain ``LocalStore`` or
``MemoryStore`` are cut into chunks in Rust, with no Python work per chunk at all.

It handles arrays whose every codec the ``zarr_codec_shapes`` registry has (plus ``bytes``);
any other array (sharding, v2 arrays, other codecs, data types we lack, selections other than
slices and integers) goes to zarr-python's own ``BatchedCodecPipeline`` code, unchanged.
Select it with::

    zarr.config.set({"codec_pipeline.path": "zarr_codecs.pipeline.ChainCodecPipeline"})

Importing this module imports zarr (``zarr_codec_shapes`` never does) and never raises
otherwise: zarr loads every registered pipeline whenever it builds one, so a failure here would
break every array.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import warnings
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
from zarr.core.codec_pipeline import BatchedCodecPipeline
from zarr_codec_runtime import Chain, Sharding, Transpose
from zarr_codec_runtime.chain import NATIVE
from zarr_codec_shapes.bytes_codec import BytesCodec
from zarr_codec_shapes.errors import CodecError
from zarr_codec_shapes.registry import get_codec
from zarr_codec_shapes.zarr_python import chunk_spec_from_zarr

from zarr_codecs import _fetching, _selections
from zarr_codecs._arrays import broadcast as _broadcast
from zarr_codecs._arrays import covers as _covers
from zarr_codecs._arrays import raw as _raw
from zarr_codecs._direct_stores import by_chain, memory_store_of, plain_store_of
from zarr_codecs._stored_order import StoredOrderChain
from zarr_codecs._usage import count

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


def _ours(codec: Any) -> Any:
    """Our codec object for one of the pipeline's: the one our adapter already holds, or, for
    zarr-python's own classes, ours made from its JSON (the only form they share); for
    zarr-python's sharding, ours of its inner and index codecs."""
    held = getattr(codec, "codec", None)
    if type(codec).__module__.startswith("zarr_codec") and held is not None:
        return held
    if _qualified(type(codec)) == _V2:
        compressor = codec.compressor
        return _V2Chunks(None if compressor is None else _v2_compressor(compressor))
    if _qualified(type(codec)) == _SHARDING:
        return Sharding(
            chunk_shape=tuple(codec.chunk_shape),
            codecs=tuple(_ours(inner) for inner in codec.codecs),
            index_codecs=tuple(_ours(inner) for inner in codec.index_codecs),
            index_location=str(getattr(codec.index_location, "value", codec.index_location)),
            write_order=getattr(codec, "subchunk_write_order", "morton"),
        )
    data = codec.to_dict()
    if data.get("name") == "transpose":
        return Transpose.from_json(data, 3)
    if data.get("name") == "bytes":
        return BytesCodec.from_json(data, 3)
    return get_codec(data, 3)


def _chunk_spec(spec: ArraySpec) -> Any:
    """Our chunk spec for zarr's, or ``None`` for data types we lack."""
    try:
        with warnings.catch_warnings():  # zarr warns about data types without a v3 spec
            warnings.simplefilter("ignore")
            return chunk_spec_from_zarr(spec)
    except (CodecError, TypeError, ValueError):
        return None


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
        "zarr.codecs.transpose.TransposeCodec",
    }
)


#: zarr-python's sharding codec, which ours runs when it can run every codec inside it.
_SHARDING = "zarr.codecs.sharding.ShardingCodec"
#: zarr-python's codec for Zarr v2 arrays: numcodecs filters and compressor.
_V2 = "zarr.codecs._v2.V2Codec"


@dataclass(frozen=True)
class _V2Chunks:
    """A Zarr v2 array's chunks without filters: the elements in the array's byte order and
    memory order (Fortran order: dimensions reversed), then ``compressor`` (ours, from its
    numcodecs configuration) if any. Made into a v3 chain per chunk spec (:func:`_v2_chain`)."""

    compressor: Any | None


def _v2_compressor(compressor: Any) -> Any:
    """Ours for a numcodecs compressor, from its configuration (raises when we lack it)."""
    return get_codec(compressor.get_config(), 2)


def _v2_chain(chunks: _V2Chunks, spec: ArraySpec) -> tuple[Any, ...]:
    """The v3 codecs that store a v2 array's chunks as zarr-python's ``V2Codec`` does, for
    chunks of ``spec``: the elements' bytes as they are (an array of the other byte order is
    handed over and stored in that order: :class:`StoredOrderChain` takes it)."""
    dtype = spec.dtype.to_native_dtype()
    endian = BytesCodec(NATIVE if dtype.itemsize > 1 else None)
    codecs: tuple[Any, ...] = (endian,)
    if spec.order == "F" and len(spec.shape) > 1:
        codecs = (Transpose.reversing(len(spec.shape)), endian)
    return codecs if chunks.compressor is None else (*codecs, chunks.compressor)


def _foreign_byte_order(spec: ArraySpec) -> Literal["<", ">"] | None:
    """The byte order zarr-python hands the chunks of ``spec`` over in, when it is not this
    machine's (Zarr v2 data types such as ``">f4"``); ``None`` when it is."""
    dtype = spec.dtype.to_native_dtype()
    if dtype.isnative:
        return None
    return "<" if dtype.byteorder == "<" else ">"


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _replaceable(codec: Any) -> bool:
    """Ours (the zarr_codec_shapes adapters of our wheels), one of :data:`_ZARR_EQUIVALENTS`,
    or zarr-python's sharding of codecs that are."""
    cls = type(codec)
    if cls.__module__.startswith("zarr_codec"):
        return True
    if _qualified(cls) == _SHARDING:
        return all(_replaceable(inner) for inner in (*codec.codecs, *codec.index_codecs))
    if _qualified(cls) == _V2:
        return not codec.filters
    return _qualified(cls) in _ZARR_EQUIVALENTS


def _same_chunks(spec: ArraySpec, other: ArraySpec) -> bool:
    """Whether two chunk specs give the same chain: equal shapes and the very same data type
    and fill value objects (zarr builds every chunk's spec from the array's own), which is
    cheap to check, unlike converting the spec to look its chain up."""
    return spec is other or (
        spec.shape == other.shape
        and spec.dtype is other.dtype
        and spec.fill_value is other.fill_value
    )


@dataclass(frozen=True)
class ChainCodecPipeline(BatchedCodecPipeline):
    """zarr-python's batched pipeline, with whole batches run through a :class:`Chain` for
    arrays whose codecs ``zarr_codec_shapes`` has."""

    def __getstate__(self) -> dict[str, Any]:
        """The pipeline's fields, without the chains worked out from them (compiled plans
        do not pickle; a worker plans its own)."""
        state = dict(self.__dict__)
        state.pop("_our_codecs", None)
        state.pop("_chain_cache", None)
        state.pop("_seen_specs", None)
        return state

    def _codecs(self) -> tuple[Any, ...] | None:
        """Our codec objects for the pipeline's, when every one is ours or one of
        zarr-python's own classes that ours read and write identically (anything else, such
        as a subclass a user configured for a name, is zarr's to run). Worked out once per
        pipeline object: its codecs never change."""
        cached: object = self.__dict__.get("_our_codecs", _UNSET)
        if cached is _UNSET:
            cached = None
            if all(_replaceable(codec) for codec in self):
                failures = (CodecError, TypeError, ValueError, AttributeError, NotImplementedError)
                with contextlib.suppress(*failures):
                    cached = tuple(_ours(codec) for codec in self)
            object.__setattr__(self, "_our_codecs", cached)  # a cache, not a field
            object.__setattr__(self, "_chain_cache", {})
            object.__setattr__(self, "_seen_specs", {})
        return cached if isinstance(cached, tuple) else None

    def chain(self, spec: ArraySpec) -> Chain | None:
        """The chain for chunks like ``spec`` (planned once, then kept), or ``None`` (zarr's
        own path is used)."""
        codecs = self._codecs()
        if codecs is None:
            return None
        # zarr builds a new spec for every read, from the same data type and fill value
        # objects: found by those, without converting the spec (which costs more than a small
        # read's own work). The objects are kept, so their ids stay theirs.
        seen: dict[Any, tuple[Any, Any, Chain | None]] = self.__dict__["_seen_specs"]
        quick = (spec.shape, id(spec.dtype), id(spec.fill_value), spec.order)
        hit = seen.get(quick)
        if hit is not None and hit[0] is spec.dtype and hit[1] is spec.fill_value:
            return hit[2]
        chunk_spec = _chunk_spec(spec)
        if chunk_spec is None:
            return None
        cache: dict[Any, Chain | None] = self.__dict__["_chain_cache"]
        # A v2 array's chunks are stored in its memory order and its byte order.
        byte_order = _foreign_byte_order(spec)
        key = (chunk_spec, spec.order, byte_order)
        if key not in cache:
            chain: Chain | None = None
            order = None
            if len(codecs) == 1 and isinstance(codecs[0], _V2Chunks):
                order = byte_order
                codecs = _v2_chain(codecs[0], spec)
            with contextlib.suppress(CodecError, TypeError, ValueError, AttributeError):
                if order is None:
                    chain = Chain(codecs, chunk_spec)
                else:
                    chain = StoredOrderChain(codecs, chunk_spec, order)
            if len(cache) >= _MAX_CACHED:
                cache.clear()
            cache[key] = chain
        if len(seen) >= _MAX_CACHED:
            seen.clear()
        seen[quick] = (spec.dtype, spec.fill_value, cache[key])
        return cache[key]

    def _chains(self, batch: Sequence[ReadItem | WriteItem]) -> list[Chain] | None:
        """Each item's chain (chunks may differ in shape: rectilinear grids), or ``None``
        when any of them has none."""
        if not batch or self._codecs() is None:
            return None
        chains: list[Chain] = []
        last: tuple[ArraySpec, Chain] | None = None
        for _, spec, *_ in batch:
            if last is not None and _same_chunks(spec, last[0]):
                chains.append(last[1])  # the common case: every chunk of a regular grid
                continue
            chain = self.chain(spec)
            if chain is None:
                return None
            last = (spec, chain)
            chains.append(chain)
        return chains

    # -- whole selections (offered by zarr-python through ``_selections.hook``) -------------

    async def read_selection(
        self,
        store_path: Any,
        metadata: Any,
        config: Any,
        chunk_grid: Any,
        indexer: Any,
        prototype: Any,
    ) -> Any:
        """A whole basic selection read with no Python work per chunk (see ``_selections``),
        or ``NotImplemented``: zarr-python cuts it into batches for :meth:`read`."""
        if self._codecs() is None:
            return NotImplemented
        return await _selections.read(
            self, store_path, metadata, config, chunk_grid, indexer, prototype
        )

    def read_selection_now(
        self,
        store_path: Any,
        metadata: Any,
        config: Any,
        chunk_grid: Any,
        indexer: Any,
        prototype: Any,
    ) -> Any:
        """:meth:`read_selection` on the caller's thread, for zarr-python's synchronous
        ``Array`` (no hop to its event loop's thread), or ``NotImplemented``."""
        if self._codecs() is None:
            return NotImplemented
        return _selections.read_now(
            self, store_path, metadata, config, chunk_grid, indexer, prototype
        )

    async def write_selection(
        self,
        store_path: Any,
        metadata: Any,
        config: Any,
        chunk_grid: Any,
        indexer: Any,
        value: Any,
        prototype: Any,
    ) -> Any:
        """A whole basic selection written with no Python work per chunk, or
        ``NotImplemented``: zarr-python cuts it into batches for :meth:`write`."""
        if self._codecs() is None:
            return NotImplemented
        return await _selections.write(
            self, store_path, metadata, config, chunk_grid, indexer, value, prototype
        )

    def write_selection_now(
        self,
        store_path: Any,
        metadata: Any,
        config: Any,
        chunk_grid: Any,
        indexer: Any,
        value: Any,
        prototype: Any,
    ) -> Any:
        """:meth:`write_selection` on the caller's thread, for zarr-python's synchronous
        ``Array`` (no hop to its event loop's thread), or ``NotImplemented``."""
        if self._codecs() is None:
            return NotImplemented
        return _selections.write_now(
            self, store_path, metadata, config, chunk_grid, indexer, value, prototype
        )

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
        if _on_device(out):
            found = await self._read_on_device(batch, out, drop_axes)
            if found is not None:
                count("device_read", len(batch))
                return tuple(_PRESENT if present else _MISSING for present in found)
            count("zarr_read", len(batch))
            return await super().read(batch, out, drop_axes)
        found = await self._read_in_runtime(batch, out, drop_axes)
        if found is None:
            count("zarr_read", len(batch))
            return await super().read(batch, out, drop_axes)
        count("runtime_read", len(batch))
        return tuple(_PRESENT if present else _MISSING for present in found)

    async def _read_on_device(
        self, batch: Sequence[ReadItem], out: NDBuffer, drop_axes: tuple[int, ...]
    ) -> list[bool] | None:
        """zarr-python's GPU mode: the batch decoded on the device into ``out`` (a CuPy array),
        or ``None`` (nothing written) where part of the chain has no device path."""
        codecs = self._codecs()
        if codecs is None or drop_axes or not batch:
            return None
        from zarr_codecs.gpu import reads

        spec = batch[0][1]
        if spec.order != "C" or not all(_same_chunks(item[1], spec) for item in batch):
            return None
        chunk_spec = _chunk_spec(spec)
        plan = None if chunk_spec is None else reads.plan_for(codecs, chunk_spec)
        if plan is None:
            return None
        files = _local_files(batch)
        if files is not None:  # read by threads, without a task per chunk
            chunks: list[Any] = await asyncio.to_thread(_read_files, files)
        else:
            from zarr.core.buffer import default_buffer_prototype

            host = default_buffer_prototype()

            async def fetch(item: ReadItem) -> Any:
                found = await item[0].get(prototype=host)
                return None if found is None else found.as_numpy_array()

            chunks = await _fetching.gather(functools.partial(fetch, item) for item in batch)
        fill = spec.fill_value
        return await asyncio.to_thread(
            reads.read_into,
            plan,
            chunks,
            [item[2] for item in batch],
            [item[3] for item in batch],
            out.as_ndarray_like(),
            fill,
        )

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
        sources: list[Any] | None = _local_files(batch)
        if sources is None:
            sources = _memory_chunks(batch)
        if sources is None and not _basic(batch):
            return None
        selections = [
            (cast(tuple[Any, ...], item[2]), cast(tuple[Any, ...], item[3])) for item in batch
        ]
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
        host_value = _to_host(value) if _on_device(value) else value
        if await self._write_in_runtime(batch, host_value, drop_axes):
            count("runtime_written", len(batch))
        else:
            count("zarr_written", len(batch))
            await super().write(batch, value, drop_axes)

    async def _write_in_runtime(
        self, batch: Sequence[WriteItem], value: NDBuffer, drop_axes: tuple[int, ...]
    ) -> bool:
        """Whether the runtime wrote the batch (``False``: nothing was stored)."""
        chains = self._chains(batch)
        values = _values_of(value, batch) if chains is not None and not drop_axes else None
        write_empty = {spec.config.write_empty_chunks for _, spec, *_ in batch}
        if chains is None or values is None or len(write_empty) != 1:
            return False
        empty = write_empty.pop()
        if await _write_local_files(chains, batch, values, empty):
            return True
        setters = [setter for setter, *_ in batch]
        memory = memory_store_of(setters)
        if not _basic(batch):  # checked by the runtime too, but old chunks are read first
            return False
        olds = await _old_chunks(batch, chains, memory)
        small = sum(chain.spec.num_bytes for chain in chains) <= _INLINE_BYTES

        def encode() -> list[Any] | None:
            stored: list[Any] = [None] * len(batch)
            for group in by_chain(range(len(batch)), chains).values():
                written = chains[group[0]].write_buffers(
                    [olds[i] for i in group],
                    _parts_and_places(batch, group),
                    values,
                    write_empty_chunks=empty,
                )
                if written is None:
                    return None
                for index, data in zip(group, written, strict=True):
                    stored[index] = data
            return stored

        stored = encode() if small else await asyncio.to_thread(encode)
        if stored is None:  # nothing was stored yet
            return False
        buffers = [
            None if data is None else spec.prototype.buffer.from_bytes(data)
            for data, (_, spec, *_) in zip(stored, batch, strict=True)
        ]
        if memory is not None:
            # Straight into the store's dict: the runtime's bytes are the chunks' own memory,
            # so MemoryStore.set's per-chunk copy is not needed.
            memory._check_writable()
            await memory._ensure_open()
            for setter, buffer in zip(setters, buffers, strict=True):
                if buffer is None:
                    memory._store_dict.pop(setter.path, None)  # type: ignore[attr-defined]
                else:
                    memory._store_dict[setter.path] = buffer  # type: ignore[attr-defined]
            return True

        async def store(setter: ByteSetter, data: Buffer | None) -> None:
            if data is None:
                await setter.delete()
            else:
                await setter.set(data)

        await _fetching.gather(
            functools.partial(store, setter, buffer)
            for setter, buffer in zip(setters, buffers, strict=True)
        )
        return True


def _parts_and_places(batch: Sequence[WriteItem], group: Sequence[int]) -> Any:
    """The chunk selections and value selections of the items ``group`` of ``batch``, as the
    runtime takes them."""
    return (
        [cast(tuple[Any, ...], batch[i][2]) for i in group],
        [cast(tuple[Any, ...], batch[i][3]) for i in group],
    )


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


async def _old_chunks(
    batch: Sequence[WriteItem], chains: Sequence[Chain], memory: Any
) -> list[Any]:
    """The stored bytes of the chunks only part of which is written (``None`` for the others
    and for missing ones): from a ``MemoryStore``'s dict, else through zarr's gets. A shard
    counts as partly written unless all of it is: zarr calls a write complete when it covers
    the part of an edge shard inside the array, but the rest of the shard, left by a
    shrinking resize, is kept as zarr's sharding keeps it."""
    partial = [
        not complete or (chain.shards is not None and not _covers(selection, chain.spec.shape))
        for (_, _, selection, _, complete), chain in zip(batch, chains, strict=True)
    ]
    if memory is not None:
        stored = memory._store_dict
        found = [
            stored.get(s.path) if p else None  # type: ignore[attr-defined]
            for (s, *_), p in zip(batch, partial, strict=True)
        ]
        return [None if data is None else _raw(data) for data in found]

    async def existing(setter: ByteSetter | None, spec: ArraySpec) -> Buffer | None:
        return None if setter is None else await setter.get(prototype=spec.prototype)

    fetched = await _fetching.gather(
        functools.partial(existing, setter if p else None, spec)
        for (setter, spec, *_), p in zip(batch, partial, strict=True)
    )
    return [None if data is None else _raw(data) for data in fetched]


def _values_of(value: NDBuffer, batch: Sequence[WriteItem]) -> Any:
    """The values written as a numpy array the runtime reads (a scalar written everywhere, a
    0-d array from zarr, seen as a broadcast array), or ``None`` for another kind."""
    values = value.as_ndarray_like()
    if not isinstance(values, np.ndarray):
        return None
    if values.ndim == 0:
        return _broadcast(values, [item[3] for item in batch])
    return values


_UNSET = object()

#: Reads and writes of at most this many bytes run on the event loop's thread.
_INLINE_BYTES = 4 << 20


def _small(batch: Sequence[ReadItem], chains: Sequence[Chain]) -> bool:
    """Whether a read moves or decodes at most :data:`_INLINE_BYTES` (then it runs on the
    event loop's thread: a hop to another costs more). A chunk stored as is counts the bytes
    of its part that are copied, any other chunk its whole decoded size."""
    total = 0
    for (_, _, selection, _, _), chain in zip(batch, chains, strict=True):
        if chain.stored_as_is and isinstance(selection, tuple):
            elements = 1
            for item, n in zip(selection, chain.spec.shape, strict=False):
                if isinstance(item, slice):
                    elements *= len(range(*item.indices(n)))
            total += elements * chain.spec.data_type.itemsize
        else:
            total += chain.spec.num_bytes
        if total > _INLINE_BYTES:
            return False
    return True


def _read_files(paths: Sequence[str]) -> list[bytes | None]:
    """Each file's bytes (``None`` where there is none), read by a pool of threads."""

    def read(path: str) -> bytes | None:
        try:
            with open(path, "rb") as file:
                return file.read()
        except FileNotFoundError:
            return None

    with ThreadPoolExecutor(max_workers=min(32, (os.cpu_count() or 1) * 2)) as pool:
        return list(pool.map(read, paths))


def _on_device(buffer: NDBuffer) -> bool:
    """Whether zarr's buffer holds device memory (zarr-python's GPU mode: CuPy arrays)."""
    return hasattr(buffer.as_ndarray_like(), "__cuda_array_interface__")


def _to_host(buffer: NDBuffer) -> NDBuffer:
    """A host copy of a device buffer, as zarr's CPU ``NDBuffer``."""
    import cupy
    from zarr.core.buffer import cpu

    return cpu.NDBuffer.from_ndarray_like(cupy.asnumpy(buffer.as_ndarray_like()))


_PRESENT: GetResult = {"status": "present"}  # zarr's GetResult is a TypedDict
_MISSING: GetResult = {"status": "missing"}


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
    chunks = [stored.get(getter.path) for getter in getters]  # type: ignore[attr-defined]
    return [None if chunk is None else _raw(chunk) for chunk in chunks]


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


async def _write_local_files(
    chains: Sequence[Chain], batch: Sequence[WriteItem], values: Any, write_empty: bool
) -> bool:
    """A write into a plain ``LocalStore`` in one runtime call per chain: each chunk's values
    gathered from ``values``, merged with the chunk's file where only part of it is written,
    encoded and written (or its file removed when it is left empty), in Rust. ``False``, with
    nothing written, where the runtime does not take the batch."""
    from zarr.storage import LocalStore

    setters = [setter for setter, *_ in batch]
    store = plain_store_of(setters, LocalStore)
    if store is None:
        return False
    store._check_writable()
    await store._ensure_open()
    root = os.fspath(store.root)
    paths = [os.path.join(root, setter.path) for setter in setters]  # type: ignore[attr-defined]

    def write() -> bool:
        # A group the runtime does not take sends the whole batch to the other path, which
        # writes again what groups before it wrote: the same values, so the same files.
        for group in by_chain(range(len(batch)), chains).values():
            stored = chains[group[0]].write_files(
                [paths[i] for i in group],
                _parts_and_places(batch, group),
                values,
                write_empty_chunks=write_empty,
            )
            if stored is None:
                return False
        return True

    small = sum(chain.spec.num_bytes for chain in chains) <= _INLINE_BYTES
    return write() if small else await asyncio.to_thread(write)


# zarr-python offers whole selections to pipelines that take them (this one's
# ``read_selection`` and ``write_selection``); any other pipeline is unaffected.
with contextlib.suppress(ImportError, AttributeError):
    _selections.hook()
