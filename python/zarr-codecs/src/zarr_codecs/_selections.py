"""Whole selections through the pipeline: a read or write of any size in a constant number of
Python calls.

zarr-python cuts every selection into chunks in Python (its indexers, a ``StorePath`` and a key
per chunk) before it calls a codec pipeline; for an array of many small chunks that costs more
than decoding them. zarr-python offers ``ChainCodecPipeline`` the whole selection first (see
``_bridge``); :func:`plan_read` and :func:`plan_write` take it when it is a basic selection
(integers and slices) of a regular grid in CPU memory, in a plain ``LocalStore`` (or zarr's
``FsspecStore`` over local files) or ``MemoryStore``, or (reads only) an object store the
runtime's own client reaches (``_remote_stores``), cut it in Rust
(``zarr_codec_runtime.cut_selection``: every chunk's key, part and place in one call) and run
it in one runtime call. Anything else is declined (``None``) before touching the store or the
output, and zarr-python's own path runs, which hands the pipeline its usual batches.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from math import prod
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np
from zarr.core.buffer import cpu
from zarr.core.indexing import BasicIndexer, IntDimIndexer, OrthogonalIndexer, SliceDimIndexer
from zarr.storage import MemoryStore
from zarr_codec_runtime import ChunkGrid
from zarr_codec_shapes.errors import CodecError

from zarr_codecs._direct_stores import files_root, memory_chunks, store_encoded
from zarr_codecs._fetching import limit
from zarr_codecs._located import at_array, at_chunk
from zarr_codecs._remote_stores import remote_of
from zarr_codecs._usage import count

if TYPE_CHECKING:
    from zarr_codec_runtime import Chain

__all__ = ["Selection", "from_key", "plan_read", "plan_write"]

#: Reads and writes of at most this many bytes run on the event loop's thread (a hop to a
#: worker thread costs more than they do).
INLINE_BYTES = 4 << 20

#: The most chunks one selection is cut into in one call (the runtime's ``MAX_PARTS``): a
#: selection of more is zarr-python's to cut.
MAX_CHUNKS = 1 << 26

#: A write to a ``MemoryStore`` encodes and stores its chunks in groups of about this many
#: bytes (decoded).
_GROUP_BYTES = 32 << 20


class _Chains(Protocol):
    def chain(self, spec: Any) -> Chain | None: ...


class Selection(NamedTuple):
    """A selection of integers and slices, each within its dimension (what ``cut_selection``
    takes), the shape of what it selects, and whether zarr-python returns it as a scalar."""

    items: list[int | slice]
    shape: tuple[int, ...]
    scalar: bool


class _Layout:
    """What every whole selection of one array shares: its chunks' chain, its store, the
    prefix of its chunk keys. Built once per array (see :func:`_layout`)."""

    def __init__(
        self, chain: Chain, store_path: Any, metadata: Any, config: Any, encoding: tuple[str, str]
    ) -> None:
        self.chain, self.config = chain, config
        self.array_path: str = store_path.path
        self.store = store_path.store
        self.root = files_root(self.store)
        # What comes before a chunk key: the array's directory for files, else its path.
        path = store_path.path
        if self.root is not None:
            self.prefix = os.path.join(self.root, path, "")
        else:
            self.prefix = f"{path}/" if path else ""
        #: The runtime's own client of an object store (reads only), where it takes the store.
        self.remote: Any = None
        if self.root is None and type(self.store) is not MemoryStore:
            remote = remote_of(self.store)
            if remote is not None:
                self.remote, before = remote
                self.prefix = before + self.prefix
        #: What every selection of the array is cut against, in Rust.
        self.grid = ChunkGrid(metadata.shape, chain.spec.shape, self.prefix, *encoding)

    def located(self, error: CodecError, items: list[int | slice], merged: bool) -> CodecError:
        """``error`` named after the chunk of the selection ``items`` that fails (of those a
        write merges, where ``merged``): see ``_located``."""
        if self.remote is not None:
            return at_array(error, self.array_path)
        cut = self.grid.cut(items)
        keys = cut.keys
        if merged:
            whole = cut.complete if self.chain.shards is None else cut.covered
            keys = [key for key, complete in zip(keys, whole, strict=True) if not complete]
        if self.root is not None:
            root = self.root
            candidates = [
                (os.path.relpath(key, root).replace(os.sep, "/"), Path(key).read_bytes)
                for key in keys
            ]
        else:
            stored = self.store._store_dict
            candidates = [(key, partial(_memory_bytes, stored, key)) for key in keys]
        return at_chunk(error, self.array_path, self.chain, candidates)

    @property
    def reachable(self) -> bool:
        """Whether the runtime reaches the store: files, a ``MemoryStore``, or an object store
        through its own client (dropped after a failed request)."""
        return self.root is not None or self.remote is not None or type(self.store) is MemoryStore

    def chunks(self, selection: Selection) -> int:
        """How many chunks ``selection`` touches (at most: a step longer than a chunk skips
        some), from its items alone."""
        touched = 1
        for item, chunk in zip(selection.items, self.chain.spec.shape, strict=True):
            if type(item) is slice:
                last = range(item.start, item.stop, item.step)[-1:]
                touched *= last[0] // chunk - item.start // chunk + 1 if last else 0
        return touched

    def inline(self, selection: Selection, selected_bytes: int) -> bool:
        """Whether the work is small enough for the event loop's thread."""
        chain = self.chain
        if chain.stored_as_is and chain.shards is None:
            return selected_bytes <= INLINE_BYTES
        return self.chunks(selection) * chain.spec.num_bytes <= INLINE_BYTES


def _layout(
    pipeline: _Chains, store_path: Any, metadata: Any, config: Any, grid: Any, prototype: Any
) -> _Layout | None:
    """The array's :class:`_Layout`, or ``None`` where its store, keys or chain are not ours
    to read whole. Kept in the pipeline (one per array, gone with it), found by the identity
    of zarr-python's objects for the array, which it keeps from call to call (a resize makes
    new metadata, hence a new layout)."""
    objects = (store_path, metadata, config, grid)
    layouts: dict[tuple[int, ...], tuple[tuple[Any, ...], _Layout | None]] = (
        pipeline.__dict__.setdefault("_selection_layouts", {})
    )
    hit = layouts.get(tuple(map(id, objects)))
    if hit is not None and all(a is b for a, b in zip(hit[0], objects, strict=True)):
        return hit[1]
    layout = _new_layout(pipeline, store_path, metadata, config, grid, prototype)
    if len(layouts) >= 8:
        layouts.clear()
    layouts[tuple(map(id, objects))] = (objects, layout)
    return layout


def _new_layout(
    pipeline: _Chains, store_path: Any, metadata: Any, config: Any, grid: Any, prototype: Any
) -> _Layout | None:
    from zarr.core.array_spec import ArraySpec

    encoding = _key_encoding(metadata) if getattr(grid, "is_regular", False) else None
    if encoding is None or not metadata.shape:
        return None
    if metadata.zarr_format == 2:
        config = replace(config, order=metadata.order)
    spec = ArraySpec(
        shape=grid.chunk_shape,
        dtype=metadata.dtype,
        fill_value=metadata.fill_value,
        config=config,
        prototype=prototype,  # any CPU one: the chain depends on the rest only
    )
    chain = pipeline.chain(spec)
    if chain is None or chain.spec.numpy_dtype != metadata.dtype.to_native_dtype():
        return None  # the runtime's elements are in this machine's byte order
    layout = _Layout(chain, store_path, metadata, config, encoding)
    return layout if layout.reachable else None


def _taken(
    pipeline: _Chains, array: tuple[Any, Any, Any, Any], indexer: Any, prototype: Any
) -> tuple[_Layout, Selection] | None:
    """The layout and selection of a whole-selection read or write, or ``None`` where
    zarr-python's own path must run: another kind of selection, grid, store, buffer or
    chain."""
    selection = from_indexer(indexer)
    if selection is None or prod(selection.shape) == 0:
        return None
    if prototype.buffer is not cpu.Buffer or prototype.nd_buffer is not cpu.NDBuffer:
        return None
    layout = _layout(pipeline, *array, prototype)
    if layout is None or layout.chunks(selection) > MAX_CHUNKS:
        return None
    return layout, selection


def from_indexer(indexer: Any) -> Selection | None:
    """The selection of zarr-python's ``indexer`` (or a :class:`Selection`, as it is) if it
    selects integers and slices only: its ``BasicIndexer``, and its ``OrthogonalIndexer``
    (which ``Array.__getitem__`` uses for those too) without arrays; ``None`` for any other."""
    kind = type(indexer)
    if kind is Selection:
        return indexer  # type: ignore[no-any-return]
    if kind is OrthogonalIndexer:
        if indexer.is_advanced or indexer.drop_axes:
            return None
    elif kind is not BasicIndexer:
        return None
    items: list[int | slice] = []
    for d in indexer.dim_indexers:
        if type(d) is IntDimIndexer:
            items.append(d.dim_sel)
        elif type(d) is SliceDimIndexer:
            items.append(slice(d.start, d.stop, d.step))
        else:
            return None
    shape = tuple(indexer.shape)
    return Selection(items, shape, shape == () and kind is BasicIndexer)


def from_key(key: Any, shape: tuple[int, ...]) -> Selection | None:
    """What ``Array.__getitem__(key)`` selects when ``key`` is Python integers and slices
    (zarr-python's orthogonal indexing: never a scalar), each within bounds with a positive
    step; ``None`` for any other key, left to zarr-python (which has the errors)."""
    key = key if type(key) is tuple else (key,)
    if len(key) > len(shape) or not shape:
        return None
    items: list[int | slice] = []
    for index, length in zip(key, shape, strict=False):
        if type(index) is int and -length <= index < length:
            items.append(index % length)
        elif type(index) is slice and all(
            v is None or type(v) is int for v in (index.start, index.stop, index.step)
        ):
            if index.step is not None and index.step < 1:
                return None
            items.append(slice(*index.indices(length)))
        else:
            return None
    items += [slice(0, length, 1) for length in shape[len(key) :]]
    selected = tuple(len(range(i.start, i.stop, i.step)) for i in items if type(i) is slice)
    return Selection(items, selected, False)


def _key_encoding(metadata: Any) -> tuple[str, str] | None:
    """``(encoding, separator)`` of the array's chunk keys as :class:`ChunkGrid` writes them,
    checked against zarr-python's own key of one chunk; ``None`` for any other encoding."""
    if metadata.zarr_format == 2:
        found: tuple[str, str] = ("v2", metadata.dimension_separator)
    else:
        encoding = metadata.chunk_key_encoding
        found = (getattr(encoding, "name", ""), getattr(encoding, "separator", ""))
    probe = list(range(1, len(metadata.shape) + 1))
    with contextlib.suppress(CodecError):
        ours = ChunkGrid([p + 1 for p in probe], [1] * len(probe), "", *found).cut(probe).keys
        return found if ours == [metadata.encode_chunk_key(tuple(probe))] else None
    return None


class _Read:
    """A whole-selection read, planned: its output made; nothing read yet."""

    def __init__(self, layout: _Layout, selection: Selection, out: Any) -> None:
        self.layout, self.selection, self.out = layout, selection, out
        self.target = out.as_ndarray_like()

    async def run_async(self) -> Any:
        """:meth:`run` on a worker thread, or after one turn of the event loop (as any
        awaiting read gives: concurrent reads start together) where it is small. A remote
        read waits on the network: never on the event loop's thread."""
        layout = self.layout
        if layout.remote is not None or not layout.inline(self.selection, self.target.nbytes):
            return await asyncio.to_thread(self.run)
        await asyncio.sleep(0)
        return self.run()

    def run(self) -> Any:
        """The selection, read (zarr-python's ``_get_selection`` result), or
        ``NotImplemented`` where the runtime declines the chain. For files and object stores
        one call, which cuts the selection too. A codec error names the chunk."""
        try:
            return self._run()
        except CodecError as error:
            raise self.layout.located(error, self.selection.items, merged=False) from error

    def _run(self) -> Any:
        layout, chain = self.layout, self.layout.chain
        selection = (layout.grid, self.selection.items)
        if layout.remote is not None:
            try:
                runner = chain.runner
                if runner is None:
                    return NotImplemented
                found = layout.remote.read(runner, None, selection, self.target, limit())
            except OSError:
                # A request failed in the runtime's client: this array is read through the
                # store's own client from now on, which retries as it does and raises its
                # own errors (what zarr-python's pipeline would raise).
                layout.remote = None
                return NotImplemented
            if found is not None:
                count("remote_read", len(found))
        elif layout.root is not None:
            found = chain.read(None, selection, self.target)  # the cut's keys are the files
        else:
            cut = layout.grid.cut(self.selection.items)
            found = chain.read(memory_chunks(layout.store._store_dict, cut.keys), cut, self.target)
        if found is None:
            return NotImplemented
        count("runtime_read", len(found))
        count("selections_read", 1)
        return self.out.as_scalar() if self.selection.scalar else self.target


def _memory_bytes(stored: Any, key: str) -> Any:
    return memory_chunks(stored, [key])[0]


def plan_read(pipeline: _Chains, *where: Any) -> _Read | None:
    """The read of ``indexer`` (zarr-python's, or a :class:`Selection`) planned, or ``None``
    (nothing read) where zarr-python's path must run. ``where`` is ``store_path, metadata,
    config, chunk_grid, indexer, prototype``, as zarr-python offers a read."""
    store_path, metadata, config, grid, indexer, prototype = where
    taken = _taken(pipeline, (store_path, metadata, config, grid), indexer, prototype)
    if taken is None or taken[0].config.read_missing_chunks is False:
        return None
    layout, selection = taken
    if not layout.reachable or (layout.root is None and not layout.store._is_open):
        return None
    out = prototype.nd_buffer.empty(
        shape=selection.shape, dtype=layout.chain.spec.numpy_dtype, order=layout.config.order
    )
    return _Read(layout, selection, out)


class _Write:
    """A whole-selection write, planned: the values converted; nothing cut or written yet
    (the store may not be open). :meth:`steps` does it, a step at a time."""

    def __init__(self, layout: _Layout, selection: Selection, values: Any, prototype: Any) -> None:
        self.layout, self.selection, self.values = layout, selection, values
        self.buffer = prototype.buffer
        self.store = layout.store
        self.chunks = 0
        self.inline = True

    async def run_async(self) -> Any:
        """:meth:`run` with the store opened first, its steps on worker threads unless
        small."""
        await self.store._ensure_open()
        steps = self.steps()
        try:
            for step in steps:
                if not (step() if self.inline else await asyncio.to_thread(step)):
                    return NotImplemented
        except CodecError as error:
            raise self.layout.located(error, self.selection.items, merged=True) from error
        return self.done()

    def run(self) -> Any:
        """The write done on this thread (``None``), or ``NotImplemented`` with nothing
        written (also for a store not yet open, which zarr-python's path opens). A codec
        error names the chunk."""
        try:
            if not self.store._is_open or not all(step() for step in self.steps()):
                return NotImplemented  # only the first step can decline
        except CodecError as error:
            raise self.layout.located(error, self.selection.items, merged=True) from error
        return self.done()

    def steps(self) -> Iterator[Callable[[], bool]]:
        """The write's steps, to be run in turn, each on any thread. A step that returns
        ``False`` has written nothing, and only the first can (the runtime takes every group
        of a chain alike): zarr-python's path then writes it all."""
        layout, selection = self.layout, self.selection
        if self.values.ndim == 0:
            self.values = np.broadcast_to(self.values, selection.shape)
        self.inline = layout.inline(selection, self.values.nbytes)
        chain, values = layout.chain, self.values
        empty = bool(layout.config.write_empty_chunks)
        if layout.root is not None:

            def write_files() -> bool:
                # One call, which cuts the selection too: the cut's keys are the files.
                cut = (layout.grid, selection.items)
                written = chain.write_files(None, cut, values, write_empty_chunks=empty)
                self.chunks += 0 if written is None else len(written)
                return written is not None

            yield write_files
            return
        stored = self.store._store_dict
        cut = layout.grid.cut(selection.items)
        whole = cut.complete if chain.shards is None else cut.covered
        merged = [index for index, complete in enumerate(whole) if not complete]
        complete = [index for index, done in enumerate(whole) if done]
        rest = cut if not merged else cut.take(complete) if complete else None
        # Every chunk is encoded before any is stored: a damaged old chunk, or a value a codec
        # cannot encode, fails the write with nothing stored. The merged chunks (a shard is,
        # unless all of it is written) first, as their old chunks are read; then the rest in
        # groups, so that each call into the runtime stays bounded.
        staged: list[tuple[Any, Any]] = []
        if merged:
            partial = cut.take(merged)

            def encode_merged() -> bool:
                olds = memory_chunks(stored, partial.keys)
                encoded = chain.write_buffers(olds, partial, values, write_empty_chunks=empty)
                staged.append((partial.keys, encoded))
                return encoded is not None

            yield encode_merged
        group = max(1, _GROUP_BYTES // max(1, chain.spec.num_bytes))
        for first in range(0, 0 if rest is None else len(rest), group):

            def encode_group(first: int = first) -> bool:
                some = rest.part(first, first + group)  # type: ignore[union-attr]
                unmerged = [None] * len(some)
                encoded = chain.write_buffers(unmerged, some, values, write_empty_chunks=empty)
                staged.append((some.keys, encoded))
                return encoded is not None

            yield encode_group

        def store_all() -> bool:
            for keys, encoded in staged:
                store_encoded(stored, keys, encoded, self.buffer)
                self.chunks += len(keys)
            return True

        yield store_all

    def done(self) -> None:
        count("runtime_written", self.chunks)
        count("selections_written", 1)


def plan_write(pipeline: _Chains, *where: Any) -> _Write | None:
    """The write of ``value`` to ``indexer`` (zarr-python's, or a :class:`Selection`) before
    its store is opened and its chunks cut, or ``None`` (nothing written) where zarr-python's
    path must run. ``where`` is ``store_path, metadata, config, chunk_grid, indexer, value,
    prototype``, as zarr-python offers a write. Raises zarr-python's error for a read-only
    store."""
    store_path, metadata, config, grid, indexer, value, prototype = where
    taken = _taken(pipeline, (store_path, metadata, config, grid), indexer, prototype)
    if taken is None or taken[0].remote is not None:
        return None  # writes to object storage go through the store's own client
    layout, selection = taken
    values = _values(value, layout.chain.spec.numpy_dtype, selection.shape)
    if values is None:
        return None
    layout.store._check_writable()
    return _Write(layout, selection, values, prototype)


def _values(value: Any, dtype: np.dtype[Any], shape: tuple[int, ...]) -> Any:
    """``value`` as zarr-python's ``_set_selection`` converts it (a scalar, or a numpy array
    cast to the array's type), or ``None`` for any other kind or a shape other than the
    selection's, which zarr-python's path handles."""
    if np.isscalar(value):
        return np.asanyarray(value, dtype=dtype)
    if type(value) is not np.ndarray:
        return None
    if value.dtype.name != dtype.name:
        value = value.astype(dtype=dtype, order="A")
    return value if value.ndim == 0 or value.shape == shape else None
