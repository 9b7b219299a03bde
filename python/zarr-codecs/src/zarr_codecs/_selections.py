"""Whole selections through the pipeline: a read or write of any size in a constant number of
Python calls.

zarr-python cuts every selection into chunks in Python (its indexers, a ``StorePath`` and a key
per chunk) before it calls a codec pipeline; for an array of many small chunks that costs more
than decoding them. For a pipeline that offers ``read_selection`` / ``write_selection``
(``ChainCodecPipeline`` does), :func:`hook` has zarr-python's ``_get_selection`` and
``_set_selection`` offer it the whole selection first; :func:`read` and :func:`write` take it
when it is a basic selection (integers and slices) of a regular grid in CPU memory, in a plain
``LocalStore`` (or zarr's ``FsspecStore`` over local files) or ``MemoryStore``, or (reads
only) an object store the runtime's own client reaches (``_remote_stores``: obstore's S3 and
HTTP stores, s3fs with its credentials given, fsspec's HTTP), cut it in Rust
(``zarr_codec_runtime.cut_selection``: every chunk's key, part and place in one call) and run
it in one runtime call. Anything else answers
``NotImplemented`` before touching the store or the output, and zarr-python's own function
runs, which hands the pipeline its usual batches.

For zarr-python's synchronous ``Array`` two more steps are skipped where they cost more than a
small read: the hop to zarr-python's event-loop thread (its ``sync``: such reads need no event
loop, so they run on the caller's thread, and threads read in parallel), and, for
``array[key]`` with a key of Python integers and slices, zarr-python's indexers (the key is
checked and normalised here; any other key, or one out of bounds, goes to zarr-python).
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from math import prod
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np
from zarr.core.buffer import cpu, default_buffer_prototype
from zarr.core.indexing import BasicIndexer, IntDimIndexer, OrthogonalIndexer, SliceDimIndexer
from zarr.storage import MemoryStore
from zarr_codec_runtime import cut_selection
from zarr_codec_shapes.errors import UnsupportedError

from zarr_codecs._arrays import raw
from zarr_codecs._direct_stores import files_root
from zarr_codecs._fetching import limit
from zarr_codecs._remote_stores import remote_of
from zarr_codecs._usage import count

if TYPE_CHECKING:
    from zarr.core.array_spec import ArrayConfig, ArraySpec
    from zarr.core.buffer import BufferPrototype
    from zarr.storage import StorePath
    from zarr_codec_runtime import Chain

__all__ = ["hook", "read", "read_now", "unhook", "write", "write_now"]

#: Reads and writes of at most this many bytes run on the event loop's thread (a hop to a
#: worker thread costs more than they do).
INLINE_BYTES = 4 << 20

#: A write to a ``MemoryStore`` encodes and stores its chunks in groups of about this many
#: bytes (decoded).
_GROUP_BYTES = 32 << 20

#: zarr-python's own functions while :func:`hook` has replaced them.
_ORIGINALS: dict[str, Any] = {}
#: What :func:`_sync` runs on the caller's thread in place of the coroutines of
#: ``AsyncArray._get_selection`` and ``_set_selection`` (by their code objects).
_HERE: dict[Any, Callable[[Any], Any]] = {}
#: The parameters of the zarr-python functions :func:`hook` replaces, as 3.4 has them: a
#: different version keeps its own functions.
_GET = ("store_path", "metadata", "codec_pipeline", "config", "chunk_grid", "indexer")
_GET_KEYWORDS = ("prototype", "out", "fields")
_SET = (*_GET, "value")
_SET_KEYWORDS = ("prototype", "fields")


class _Chains(Protocol):
    def chain(self, spec: ArraySpec) -> Chain | None: ...


def hook() -> None:
    """Have zarr-python offer whole selections to pipelines that take them, as the patch
    ``upstream/zarr-python/0007`` makes it do itself. Idempotent; does nothing where
    zarr-python already does, or where its functions differ from those of 3.4."""
    import zarr.core.array as array_module
    from zarr.abc.codec import CodecPipeline

    if _ORIGINALS or hasattr(CodecPipeline, "read_selection"):
        return  # hooked already, or zarr offers them itself (upstream/zarr-python, 0007)
    get, put = array_module._get_selection, array_module._set_selection
    if not (_shaped(get, _GET, _GET_KEYWORDS) and _shaped(put, _SET, _SET_KEYWORDS)):
        return
    _ORIGINALS.update(get=get, set=put)
    array_module._get_selection = _get_selection
    array_module._set_selection = _set_selection
    get_method = getattr(array_module.AsyncArray, "_get_selection", None)
    set_method = getattr(array_module.AsyncArray, "_set_selection", None)
    sync = getattr(array_module, "sync", None)
    if (
        _shaped(get_method, ("self", "indexer"), _GET_KEYWORDS)
        and _shaped(set_method, ("self", "indexer", "value"), _SET_KEYWORDS)
        and _shaped(sync, ("coro", "loop", "timeout"), ())
        and inspect.iscoroutinefunction(get_method)
        and inspect.iscoroutinefunction(set_method)
    ):
        _ORIGINALS["sync"] = sync
        _HERE.update(
            {get_method.__code__: _read_on_this_thread, set_method.__code__: _write_on_this_thread}
        )
        array_module.sync = _sync  # type: ignore[attr-defined]
    array_class = array_module.Array
    if isinstance(getattr(array_class, "async_array", None), property):
        getitem = getattr(array_class, "__getitem__", None)
        setitem = getattr(array_class, "__setitem__", None)
        if _shaped(getitem, ("self", "selection"), ()):
            _ORIGINALS["getitem"] = getitem
            array_class.__getitem__ = _getitem  # type: ignore[method-assign]
        if _shaped(setitem, ("self", "selection", "value"), ()):
            _ORIGINALS["setitem"] = setitem
            array_class.__setitem__ = _setitem  # type: ignore[method-assign]


def unhook() -> None:
    """Put zarr-python's own functions back."""
    import zarr.core.array as array_module

    if _ORIGINALS:
        array_module._get_selection = _ORIGINALS.pop("get")
        array_module._set_selection = _ORIGINALS.pop("set")
        if "getitem" in _ORIGINALS:
            array_module.Array.__getitem__ = _ORIGINALS.pop("getitem")  # type: ignore[method-assign]
        if "setitem" in _ORIGINALS:
            array_module.Array.__setitem__ = _ORIGINALS.pop("setitem")  # type: ignore[method-assign]
        if "sync" in _ORIGINALS:
            array_module.sync = _ORIGINALS.pop("sync")  # type: ignore[attr-defined]
            _HERE.clear()


def _shaped(function: Any, positional: tuple[str, ...], keywords: tuple[str, ...]) -> bool:
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    names = tuple(parameters)
    kinds = [parameters[name].kind for name in keywords if name in parameters]
    return names == positional + keywords and all(
        k is inspect.Parameter.KEYWORD_ONLY for k in kinds
    )


def _sync(coro: Any, loop: Any = None, timeout: Any = None) -> Any:
    """zarr-python's ``sync`` (its synchronous ``Array`` hands every call to the event loop's
    thread and waits), except that a read or write the pipeline can do on this thread
    (``read_selection_now``, ``write_selection_now``: files and a ``MemoryStore`` need no
    event loop) is done here and the coroutine is never started."""
    here = _HERE.get(getattr(coro, "cr_code", None)) if loop is None and timeout is None else None
    if here is not None and inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
        try:
            # The call's arguments, before its first line runs.
            result = here(coro.cr_frame.f_locals)
        except BaseException:
            coro.close()  # never started: closing it runs nothing
            raise
        if result is not NotImplemented:
            coro.close()
            return result
    return _ORIGINALS["sync"](coro, loop=loop, timeout=timeout)


def _read_on_this_thread(arguments: Any) -> Any:
    """``AsyncArray._get_selection(indexer, ...)``'s result, from ``read_selection_now``, or
    ``NotImplemented``."""
    if arguments.get("out") is not None or arguments.get("fields"):
        return NotImplemented
    return _offer(
        arguments["self"], "read_selection_now", arguments["indexer"], arguments["prototype"]
    )


def _write_on_this_thread(arguments: Any) -> Any:
    """``AsyncArray._set_selection(indexer, value, ...)`` done by ``write_selection_now``
    (``None``), or ``NotImplemented``."""
    if arguments.get("fields"):
        return NotImplemented
    return _offer(
        arguments["self"],
        "write_selection_now",
        arguments["indexer"],
        arguments["value"],
        arguments["prototype"],
    )


def _getitem(self: Any, selection: Any) -> Any:
    """zarr-python's ``Array.__getitem__``, except that a key of Python integers and slices
    is read by the pipeline on this thread (``read_selection_now``) without zarr-python's
    indexers, which cost more than a one-chunk read's other work in Python."""
    async_array = self.async_array
    key = _from_key(selection, async_array.metadata.shape)
    if key is not None:
        result = _offer(async_array, "read_selection_now", key, default_buffer_prototype())
        if result is not NotImplemented:
            return result
    return _ORIGINALS["getitem"](self, selection)


def _setitem(self: Any, selection: Any, value: Any) -> None:
    """zarr-python's ``Array.__setitem__``, except that a key of Python integers and slices
    is written by the pipeline on this thread (``write_selection_now``) without zarr-python's
    indexers."""
    async_array = self.async_array
    key = _from_key(selection, async_array.metadata.shape)
    prototype = default_buffer_prototype()
    if (
        key is not None
        and _offer(async_array, "write_selection_now", key, value, prototype) is None
    ):
        return  # written
    _ORIGINALS["setitem"](self, selection, value)


def _offer(async_array: Any, name: str, *arguments: Any) -> Any:
    """The array's pipeline's method ``name`` called with the array's store path, metadata,
    config and chunk grid, then ``arguments``; ``NotImplemented`` for a pipeline without it."""
    offer = getattr(async_array.codec_pipeline, name, None)
    if offer is None:
        return NotImplemented
    return offer(
        async_array.store_path,
        async_array.metadata,
        async_array.config,
        async_array._chunk_grid,
        *arguments,
    )


async def _get_selection(
    store_path: StorePath,
    metadata: Any,
    codec_pipeline: Any,
    config: ArrayConfig,
    chunk_grid: Any,
    indexer: Any,
    *,
    prototype: BufferPrototype,
    out: Any = None,
    fields: Any = None,
) -> Any:
    offer = getattr(codec_pipeline, "read_selection", None)
    if offer is not None and out is None and not fields:  # zarr passes [] for none
        result = await offer(store_path, metadata, config, chunk_grid, indexer, prototype)
        if result is not NotImplemented:
            return result
    return await _ORIGINALS["get"](
        store_path,
        metadata,
        codec_pipeline,
        config,
        chunk_grid,
        indexer,
        prototype=prototype,
        out=out,
        fields=fields,
    )


async def _set_selection(
    store_path: StorePath,
    metadata: Any,
    codec_pipeline: Any,
    config: ArrayConfig,
    chunk_grid: Any,
    indexer: Any,
    value: Any,
    *,
    prototype: BufferPrototype,
    fields: Any = None,
) -> None:
    offer = getattr(codec_pipeline, "write_selection", None)
    if offer is not None and not fields:
        done = await offer(store_path, metadata, config, chunk_grid, indexer, value, prototype)
        if done is not NotImplemented:
            return
    await _ORIGINALS["set"](
        store_path,
        metadata,
        codec_pipeline,
        config,
        chunk_grid,
        indexer,
        value,
        prototype=prototype,
        fields=fields,
    )


class _Layout:
    """What every whole selection of one array shares: its chunks' spec and chain, its store,
    the prefix of its chunk keys. Built once per array (see :func:`_layout`)."""

    def __init__(
        self,
        pipeline: _Chains,
        store_path: Any,
        metadata: Any,
        config: Any,
        grid: Any,
        prototype: Any,
        key_encoding: tuple[str, str],
    ) -> None:
        from zarr.core.array_spec import ArraySpec

        if metadata.zarr_format == 2:
            config = replace(config, order=metadata.order)
        self.config = config
        self.order = config.order
        self.shape: tuple[int, ...] = metadata.shape
        self.spec = ArraySpec(
            shape=grid.chunk_shape,
            dtype=metadata.dtype,
            fill_value=metadata.fill_value,
            config=config,
            prototype=prototype,  # any CPU one: the chain depends on the rest only
        )
        self.chain = pipeline.chain(self.spec)
        self.store = store_path.store
        self.path: str = store_path.path
        self.key_encoding = key_encoding
        self.root = files_root(self.store)
        self.prefix = _prefix(self.root, self.path)
        #: The runtime's own client of an object store (reads only), where it takes the store.
        self.remote: Any = None
        if self.root is None and type(self.store) is not MemoryStore:
            remote = remote_of(self.store)
            if remote is not None:
                self.remote, before = remote
                self.prefix = before + self.prefix


def _layout(
    pipeline: _Chains, store_path: Any, metadata: Any, config: Any, grid: Any, prototype: Any
) -> _Layout | None:
    """The array's :class:`_Layout`, or ``None`` where its store, keys or chain are not ours
    to read whole. Kept in the pipeline (one per array, gone with it), found by the identity
    of zarr-python's objects for the array, which it keeps from call to call (a resize makes
    new metadata, hence a new layout)."""
    objects = (store_path, metadata, config, grid)
    layouts: dict[tuple[int, ...], tuple[tuple[Any, ...], _Layout | None]] | None = None
    attributes = getattr(pipeline, "__dict__", None)
    if attributes is not None:
        layouts = attributes.setdefault("_selection_layouts", {})
        hit = layouts.get(tuple(map(id, objects)))
        if hit is not None and all(a is b for a, b in zip(hit[0], objects, strict=True)):
            return hit[1]
    layout = _new_layout(pipeline, store_path, metadata, config, grid, prototype)
    if layouts is not None:
        if len(layouts) >= 8:
            layouts.clear()
        layouts[tuple(map(id, objects))] = (objects, layout)
    return layout


def _new_layout(
    pipeline: _Chains, store_path: Any, metadata: Any, config: Any, grid: Any, prototype: Any
) -> _Layout | None:
    if not getattr(grid, "is_regular", False) or not metadata.shape:
        return None
    key_encoding = _key_encoding(metadata)
    if key_encoding is None:
        return None
    layout = _Layout(pipeline, store_path, metadata, config, grid, prototype, key_encoding)
    store = layout.store
    if type(store) is not MemoryStore and layout.root is None and layout.remote is None:
        return None
    chain = layout.chain
    if chain is None or chain.spec.numpy_dtype != metadata.dtype.to_native_dtype():
        return None  # the runtime's elements are in this machine's byte order
    return layout


class _Cut:
    """A selection of an array cut into its chunks, with what a runtime call needs."""

    def __init__(self, layout: _Layout) -> None:
        self.config = layout.config
        self.order = layout.order
        self.chain = layout.chain
        self.store = layout.store
        self.root = layout.root
        self.layout = layout
        #: The selection cut into its chunks, kept in Rust (``zarr_codec_runtime.Cut``).
        self.parts: Any = None

    def cut(self, selection: _Selection) -> bool:
        """Cut the selection; ``False`` (nothing cut) for one of more chunks than
        ``cut_selection`` names in one call, which zarr-python's path then takes."""
        layout = self.layout
        encoding, separator = layout.key_encoding
        try:
            self.parts = cut_selection(
                layout.shape,
                layout.spec.shape,
                selection.items,
                layout.prefix,
                encoding,
                separator,
            )
        except UnsupportedError:
            return False
        return True

    def inline(self, selected_bytes: int) -> bool:
        """Whether the work is small enough for the event loop's thread."""
        chain = self.chain
        assert chain is not None
        if chain.stored_as_is and chain.shards is None:
            return selected_bytes <= INLINE_BYTES
        return len(self.parts) * chain.spec.num_bytes <= INLINE_BYTES


def _prepared(
    pipeline: _Chains,
    store_path: Any,
    metadata: Any,
    config: Any,
    grid: Any,
    selection: _Selection,
    prototype: Any,
) -> _Cut | None:
    """What a whole-selection read or write needs, or ``None`` where zarr-python's own path
    must run: another kind of grid, store, buffer or chain."""
    if prod(selection.shape) == 0:
        return None
    if prototype.buffer is not cpu.Buffer or prototype.nd_buffer is not cpu.NDBuffer:
        return None
    layout = _layout(pipeline, store_path, metadata, config, grid, prototype)
    return None if layout is None else _Cut(layout)


class _Selection(NamedTuple):
    """A selection of integers and slices, each within its dimension (what ``cut_selection``
    takes), the shape of what it selects, and whether zarr-python returns it as a scalar."""

    items: list[int | slice]
    shape: tuple[int, ...]
    scalar: bool


def _from_indexer(indexer: Any) -> _Selection | None:
    """The selection of zarr-python's ``indexer`` if it selects integers and slices only: its
    ``BasicIndexer``, and its ``OrthogonalIndexer`` (which ``Array.__getitem__`` uses for those
    too) without arrays; ``None`` for any other."""
    kind = type(indexer)
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
    return _Selection(items, shape, shape == () and kind is BasicIndexer)


def _from_key(key: Any, shape: tuple[int, ...]) -> _Selection | None:
    """What ``Array.__getitem__(key)`` selects when ``key`` is Python integers and slices
    (zarr-python's orthogonal indexing: never a scalar), each within bounds with a positive
    step; ``None`` for any other key, left to zarr-python (which has the errors)."""
    key = key if type(key) is tuple else (key,)
    if len(key) > len(shape) or not shape:
        return None
    items: list[int | slice] = []
    selected: list[int] = []
    for index, length in zip(key, shape, strict=False):
        if type(index) is int:
            index = index + length if index < 0 else index
            if not 0 <= index < length:
                return None
            items.append(index)
        elif type(index) is slice:
            if index.step is not None and (type(index.step) is not int or index.step < 1):
                return None
            if not all(v is None or type(v) is int for v in (index.start, index.stop)):
                return None
            start, stop, step = index.indices(length)
            items.append(slice(start, stop, step))
            selected.append(len(range(start, stop, step)))
        else:
            return None
    for length in shape[len(key) :]:
        items.append(slice(0, length, 1))
        selected.append(length)
    return _Selection(items, tuple(selected), False)


def _key_encoding(metadata: Any) -> tuple[str, str] | None:
    """``(encoding, separator)`` of the array's chunk keys as ``cut_selection`` writes them,
    checked against zarr-python's own for one chunk; ``None`` for any other encoding."""
    if metadata.zarr_format == 2:
        found: tuple[str, str] = ("v2", metadata.dimension_separator)
    else:
        encoding = metadata.chunk_key_encoding
        found = (getattr(encoding, "name", ""), getattr(encoding, "separator", ""))
    name, separator = found
    if name not in ("default", "v2") or separator not in ("/", "."):
        return None
    probe = tuple(range(1, len(metadata.shape) + 1))
    words = [str(c) for c in probe]
    expected = (
        "c" + "".join(separator + w for w in words) if name == "default" else separator.join(words)
    )
    return found if metadata.encode_chunk_key(probe) == expected else None


def _prefix(root: str | None, path: str) -> str:
    """What comes before a chunk key: the array's directory under ``root`` for files, else
    its path among the store's keys."""
    if root is not None:
        return os.path.join(root, path, "") if path else os.path.join(root, "")
    return f"{path}/" if path else ""


class _Read:
    """A whole-selection read, planned: its chunks cut, its output made; nothing read yet."""

    def __init__(self, cut: _Cut, files: bool, out: Any, selection: _Selection) -> None:
        self.cut = cut
        self.files = files
        self.out = out
        self.target = out.as_ndarray_like()
        self.scalar = selection.scalar
        self.remote = cut.layout.remote
        # A remote read waits on the network: never on the event loop's thread.
        self.inline = self.remote is None and cut.inline(self.target.nbytes)

    def run(self) -> Any:
        """The selection, read (zarr-python's ``_get_selection`` result), or
        ``NotImplemented`` where the runtime declines the chain."""
        cut, chain = self.cut, self.cut.chain
        assert chain is not None
        sources: list[Any]
        remote = self.remote
        if remote is not None:
            try:
                # A shard all of whose elements within the array are read is fetched whole.
                parts = cut.parts
                found = chain.read_remote(
                    remote, None, parts, self.target, limit(), whole=parts.complete
                )
            except OSError:
                # A request failed in the runtime's client: this array is read through the
                # store's own client from now on, which retries as it does and raises its
                # own errors (what zarr-python's pipeline would raise).
                cut.layout.remote = None
                return NotImplemented
            if found is not None:
                count("remote_read", len(found))
        else:
            if self.files:
                found = chain.read(None, cut.parts, self.target)  # the keys are the files
            else:
                stored = cut.store._store_dict
                keys = cut.parts.keys
                sources = [None if (c := stored.get(k)) is None else raw(c) for k in keys]
                found = chain.read(sources, cut.parts, self.target)
        if found is None:
            return NotImplemented
        count("runtime_read", len(found))
        count("selections_read", 1)
        if self.scalar:
            return self.out.as_scalar()
        return self.target


def _plan_read(
    pipeline: _Chains,
    store_path: Any,
    metadata: Any,
    config: Any,
    grid: Any,
    indexer: Any,
    prototype: Any,
) -> _Read | None:
    """The read of ``indexer`` (zarr-python's, or a :class:`_Selection`), planned, or ``None``
    (nothing read) where zarr-python's path must run."""
    selection = indexer if type(indexer) is _Selection else _from_indexer(indexer)
    if selection is None:
        return None
    prepared = _prepared(pipeline, store_path, metadata, config, grid, selection, prototype)
    if prepared is None or prepared.config.read_missing_chunks is False:
        return None
    files = prepared.root is not None
    if not files and not prepared.store._is_open:
        return None
    if not files and prepared.layout.remote is None and type(prepared.store) is not MemoryStore:
        return None  # an object store handed back to its own client after a failed request
    chain = prepared.chain
    assert chain is not None
    out = prototype.nd_buffer.empty(
        shape=selection.shape, dtype=chain.spec.numpy_dtype, order=prepared.order
    )
    if not prepared.cut(selection):
        return None
    return _Read(prepared, files, out, selection)


async def read(
    pipeline: _Chains,
    store_path: Any,
    metadata: Any,
    config: Any,
    grid: Any,
    indexer: Any,
    prototype: Any,
) -> Any:
    """The selection ``indexer`` of the array read whole, as zarr-python's ``_get_selection``
    returns it, or ``NotImplemented`` (nothing read) where zarr-python's path must run."""
    planned = _plan_read(pipeline, store_path, metadata, config, grid, indexer, prototype)
    if planned is None:
        return NotImplemented
    if not planned.inline:
        return await asyncio.to_thread(planned.run)
    # One turn of the event loop first, as any awaiting read gives: concurrent reads
    # (xarray's load_async of several objects) start together, not one after another.
    await asyncio.sleep(0)
    return planned.run()


def read_now(
    pipeline: _Chains,
    store_path: Any,
    metadata: Any,
    config: Any,
    grid: Any,
    indexer: Any,
    prototype: Any,
) -> Any:
    """:func:`read` on the caller's thread, for zarr-python's synchronous ``Array``: its
    stores here (files, a ``MemoryStore``, an object store read by the runtime's own client,
    which waits with the GIL released) need no event loop, and the hop to zarr's loop thread
    and back costs more than a small read's decode."""
    planned = _plan_read(pipeline, store_path, metadata, config, grid, indexer, prototype)
    return NotImplemented if planned is None else planned.run()


class _Write:
    """A whole-selection write, planned: the values converted, the chunks cut; nothing
    written yet. :meth:`steps` does it, a step at a time."""

    def __init__(self, cut: _Cut, selection: _Selection, values: Any, prototype: Any) -> None:
        self.cut = cut
        self.store = cut.store
        self.selection = selection
        self.values = values
        self.buffer = prototype.buffer
        self.chunks = 0

    def planned(self) -> bool:
        """Cut the selection (the store open): whether the runtime takes it."""
        if not self.cut.cut(self.selection):
            return False
        if self.values.ndim == 0:
            self.values = np.broadcast_to(self.values, tuple(self.cut.parts.shape))
        return True

    @property
    def inline(self) -> bool:
        """Whether the work is small enough for the event loop's thread."""
        return self.cut.inline(self.values.nbytes)

    def steps(self) -> Iterator[Callable[[], bool]]:
        """The write's steps, to be run in turn, each on any thread; a step that returns
        ``False`` has written nothing, and only the first can (the runtime takes every group
        of a chain alike): zarr-python's path then writes it all."""
        cut = self.cut
        chain = cut.chain
        assert chain is not None
        empty = bool(cut.config.write_empty_chunks)
        parts, values = cut.parts, self.values
        if cut.root is not None:

            def write_files() -> bool:
                written = chain.write_files(None, parts, values, write_empty_chunks=empty)
                self.chunks += 0 if written is None else len(written)
                return written is not None

            yield write_files
            return
        stored = cut.store._store_dict
        # In groups, each stored before the next is encoded: the old chunks each group replaces
        # are freed before the next group's memory is taken, which the allocator then reuses
        # (fresh pages cost more than encoding without a compressor), and at most one group's
        # new chunks are held at once. A shard is read first unless all of it is written.
        group = max(1, _GROUP_BYTES // max(1, chain.spec.num_bytes))
        whole = parts.complete if chain.shards is None else parts.covered
        for first in range(0, len(parts), group):

            def write_group(first: int = first) -> bool:
                some = parts.part(first, first + group)
                keys = some.keys
                olds = [
                    None if written else (None if (c := stored.get(key)) is None else raw(c))
                    for key, written in zip(keys, whole[first : first + group], strict=True)
                ]
                encoded = chain.write_buffers(olds, some, values, write_empty_chunks=empty)
                if encoded is None:
                    return False
                for key, data in zip(keys, encoded, strict=True):
                    if data is None:
                        stored.pop(key, None)
                    else:
                        stored[key] = self.buffer.from_bytes(data)
                self.chunks += len(encoded)
                return True

            yield write_group

    def done(self) -> None:
        count("runtime_written", self.chunks)
        count("selections_written", 1)


def _plan_write(
    pipeline: _Chains,
    store_path: Any,
    metadata: Any,
    config: Any,
    grid: Any,
    indexer: Any,
    value: Any,
    prototype: Any,
) -> _Write | None:
    """The write of ``value`` to ``indexer`` (zarr-python's, or a :class:`_Selection`) before
    its store is opened and its chunks cut, or ``None`` (nothing written) where zarr-python's
    path must run. Raises zarr-python's error for a read-only store."""
    selection = indexer if type(indexer) is _Selection else _from_indexer(indexer)
    if selection is None:
        return None
    prepared = _prepared(pipeline, store_path, metadata, config, grid, selection, prototype)
    if prepared is None or prepared.layout.remote is not None:
        return None  # writes to object storage go through the store's own client
    chain = prepared.chain
    assert chain is not None
    values = _values(value, chain.spec.numpy_dtype, selection.shape)
    if values is None:
        return None
    prepared.store._check_writable()
    return _Write(prepared, selection, values, prototype)


async def write(
    pipeline: _Chains,
    store_path: Any,
    metadata: Any,
    config: Any,
    grid: Any,
    indexer: Any,
    value: Any,
    prototype: Any,
) -> Any:
    """``value`` written to the selection ``indexer`` of the array, as zarr-python's
    ``_set_selection`` writes it, or ``NotImplemented`` (nothing written) where zarr-python's
    path must run."""
    write = _plan_write(pipeline, store_path, metadata, config, grid, indexer, value, prototype)
    if write is None:
        return NotImplemented
    await write.store._ensure_open()
    if not write.planned():
        return NotImplemented
    inline = write.inline
    for step in write.steps():
        if not (step() if inline else await asyncio.to_thread(step)):
            return NotImplemented
    write.done()
    return None


def write_now(
    pipeline: _Chains,
    store_path: Any,
    metadata: Any,
    config: Any,
    grid: Any,
    indexer: Any,
    value: Any,
    prototype: Any,
) -> Any:
    """:func:`write` on the caller's thread, for zarr-python's synchronous ``Array``, or
    ``NotImplemented`` (nothing written; also for a store not yet open, which zarr-python's
    path opens)."""
    write = _plan_write(pipeline, store_path, metadata, config, grid, indexer, value, prototype)
    if write is None or not write.store._is_open or not write.planned():
        return NotImplemented
    if not all(step() for step in write.steps()):  # only the first step can decline
        return NotImplemented
    write.done()
    return None


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
