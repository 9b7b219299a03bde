"""The one bridge into zarr-python: hooks that have it offer whole selections to a pipeline
that takes them (``read_selection`` / ``write_selection``, as the patch
``upstream/zarr-python/0007`` makes zarr-python do itself).

Applied only to the zarr-python versions the tests prove (:data:`PROVEN`: ``scripts/test``
runs the quick suite against the oldest and the newest from PyPI), and only where each hooked
function has the shape those versions give it. With any other version zarr-python keeps its
own functions, its batches still reach the pipeline, and one warning says why.

The seams, each a module or class attribute zarr-python calls through:

- ``zarr.core.array._get_selection`` / ``_set_selection``, which every read and write of an
  ``AsyncArray`` goes through: the pipeline's ``read_selection`` / ``write_selection`` first.
- ``AsyncArray._get_selection`` / ``_set_selection`` return a :class:`_Pending` call, awaited
  as the coroutine would be, that the hooked ``zarr.core.array.sync`` (what the synchronous
  ``Array`` hands every call to) can instead do on the caller's thread
  (``read_selection_now`` / ``write_selection_now``: files and a ``MemoryStore`` need no
  event loop, and the hop to zarr's loop thread costs more than a small read).
- ``Array.__getitem__`` / ``__setitem__``: a key of Python integers and slices skips
  zarr-python's indexers, which cost more than a one-chunk read's other work.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from zarr.core.buffer import default_buffer_prototype

from zarr_codecs._selections import Selection, from_key

__all__ = ["PROVEN", "hook", "unhook"]

#: The zarr-python versions the hooks are tested with: the oldest and the newest supported,
#: both run by ``scripts/test``'s quick suite, and every release between them.
PROVEN = ((3, 4, 0), (3, 4, 2))

#: zarr-python's own functions while :func:`hook` has replaced them, by name.
_ORIGINALS: dict[str, Any] = {}

_GET_KEYWORDS = ("prototype", "out", "fields")
_SET_KEYWORDS = ("prototype", "fields")
_MODULE_GET = ("store_path", "metadata", "codec_pipeline", "config", "chunk_grid", "indexer")
#: Each hooked function's parameters (positional, then keyword-only), as the proven versions
#: have them.
_SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "get": (_MODULE_GET, _GET_KEYWORDS),
    "set": ((*_MODULE_GET, "value"), _SET_KEYWORDS),
    "get_method": (("self", "indexer"), _GET_KEYWORDS),
    "set_method": (("self", "indexer", "value"), _SET_KEYWORDS),
    "sync": (("coro", "loop", "timeout"), ()),
    "getitem": (("self", "selection"), ()),
    "setitem": (("self", "selection", "value"), ()),
}


def _version(text: str) -> tuple[int, ...] | None:
    parts = text.split(".")
    if len(parts) != 3 or not all(map(str.isdigit, parts)):
        return None  # a pre-release or development build: not one the tests prove
    return tuple(int(p) for p in parts)


def _targets() -> dict[str, tuple[Any, str]]:
    """Where each hooked function lives: ``(owner, attribute)`` by name."""
    import zarr.core.array as array_module

    asynchronous, synchronous = array_module.AsyncArray, array_module.Array
    return {
        "get": (array_module, "_get_selection"),
        "set": (array_module, "_set_selection"),
        "get_method": (asynchronous, "_get_selection"),
        "set_method": (asynchronous, "_set_selection"),
        "sync": (array_module, "sync"),
        "getitem": (synchronous, "__getitem__"),
        "setitem": (synchronous, "__setitem__"),
    }


def refusal() -> str | None:
    """Why :func:`hook` leaves this zarr-python as it is, or ``None`` where it hooks it."""
    import zarr

    found = _version(zarr.__version__)
    if found is None or not PROVEN[0] <= found <= PROVEN[-1]:
        proven = " to ".join(".".join(map(str, v)) for v in PROVEN)
        return f"zarr-python {zarr.__version__} is not one the hooks are tested with ({proven})"
    for name, (owner, attribute) in _targets().items():
        positional, keywords = _SHAPES[name]
        function = _ORIGINALS.get(name, getattr(owner, attribute, None))
        if not _shaped(function, positional, keywords):
            return f"zarr-python's {getattr(owner, '__name__', owner)}.{attribute} has changed"
    return None


def hook() -> None:
    """Have zarr-python offer whole selections to pipelines that take them. Idempotent; does
    nothing where zarr-python offers them itself, and warns once (hooking nothing) where this
    zarr-python is not one the hooks are proven with."""
    from zarr.abc.codec import CodecPipeline

    if _ORIGINALS or hasattr(CodecPipeline, "read_selection"):
        return  # hooked already, or zarr offers them itself (upstream/zarr-python, 0007)
    why = refusal()
    if why is not None:
        warnings.warn(
            f"zarr_codecs: {why}, so its own selection path runs: every selection is cut into "
            "chunk batches in Python before the pipeline decodes them (slower for small reads)",
            RuntimeWarning,
            stacklevel=2,
        )
        return
    replacements = {
        "get": _get_selection,
        "set": _set_selection,
        "get_method": _pending(_read_here),
        "set_method": _pending(_write_here),
        "sync": _sync,
        "getitem": _getitem,
        "setitem": _setitem,
    }
    for name, (owner, attribute) in _targets().items():
        _ORIGINALS[name] = getattr(owner, attribute)
        setattr(owner, attribute, replacements[name])


def unhook() -> None:
    """Put zarr-python's own functions back."""
    if _ORIGINALS:
        for name, (owner, attribute) in _targets().items():
            setattr(owner, attribute, _ORIGINALS.pop(name))


def _shaped(function: Any, positional: tuple[str, ...], keywords: tuple[str, ...]) -> bool:
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    kinds = [parameters[name].kind for name in keywords if name in parameters]
    return tuple(parameters) == positional + keywords and all(
        k is inspect.Parameter.KEYWORD_ONLY for k in kinds
    )


class _Pending:
    """A call of ``AsyncArray._get_selection`` or ``_set_selection``: awaited, it is
    zarr-python's own method; run by the hooked ``sync``, it is first offered to the
    pipeline on the caller's thread (``here``)."""

    __slots__ = ("arguments", "here", "keywords", "method")

    def __init__(self, method: Any, here: Any, arguments: tuple[Any, ...], keywords: Any) -> None:
        self.method, self.here, self.arguments, self.keywords = method, here, arguments, keywords

    def __await__(self) -> Any:
        return self.method(*self.arguments, **self.keywords).__await__()


def _pending(here: Any) -> Any:
    """An ``AsyncArray`` method that returns its call as a :class:`_Pending`, ``here`` the
    pipeline's way to do it on the caller's thread."""
    name = "get_method" if here is _read_here else "set_method"

    def method(*arguments: Any, **keywords: Any) -> _Pending:
        return _Pending(_ORIGINALS[name], here, arguments, keywords)

    return method


def _sync(coro: Any, loop: Any = None, timeout: Any = None) -> Any:
    """zarr-python's ``sync``, except that a :class:`_Pending` call the pipeline can do on
    this thread is done here, with no hop to zarr's event loop."""
    if type(coro) is _Pending and loop is None and timeout is None:
        result = coro.here(*coro.arguments, **coro.keywords)
        if result is not NotImplemented:
            return result
    return _ORIGINALS["sync"](coro, loop=loop, timeout=timeout)


def _read_here(
    array: Any, indexer: Any, *, prototype: Any, out: Any = None, fields: Any = None
) -> Any:
    if out is not None or fields:
        return NotImplemented
    return _offer(array, "read_selection_now", indexer, prototype)


def _write_here(array: Any, indexer: Any, value: Any, *, prototype: Any, fields: Any = None) -> Any:
    # Metadata read through a repair that moves chunks must be stored before any chunk is:
    # zarr-python's own method does that first.
    if fields or getattr(array.metadata, "_stored_document", None) is not None:
        return NotImplemented
    return _offer(array, "write_selection_now", indexer, value, prototype)


def _getitem(self: Any, selection: Any) -> Any:
    """zarr-python's ``Array.__getitem__``, except that a key of Python integers and slices
    is read by the pipeline on this thread without zarr-python's indexers."""
    key = from_key(selection, self.async_array.metadata.shape)
    if key is not None:
        result = _read_here(self.async_array, key, prototype=default_buffer_prototype())
        if result is not NotImplemented:
            return result
    return _ORIGINALS["getitem"](self, selection)


def _setitem(self: Any, selection: Any, value: Any) -> None:
    """zarr-python's ``Array.__setitem__``, except that a key of Python integers and slices
    is written by the pipeline on this thread without zarr-python's indexers."""
    key: Selection | None = from_key(selection, self.async_array.metadata.shape)
    prototype = default_buffer_prototype()
    if key is None or _write_here(self.async_array, key, value, prototype=prototype) is not None:
        _ORIGINALS["setitem"](self, selection, value)


def _offer(array: Any, name: str, *arguments: Any) -> Any:
    """The array's pipeline's method ``name`` called with the array's store path, metadata,
    config and chunk grid, then ``arguments``; ``NotImplemented`` for a pipeline without it."""
    offer = getattr(array.codec_pipeline, name, None)
    if offer is None:
        return NotImplemented
    return offer(array.store_path, array.metadata, array.config, array._chunk_grid, *arguments)


async def _get_selection(
    store_path: Any,
    metadata: Any,
    codec_pipeline: Any,
    config: Any,
    chunk_grid: Any,
    indexer: Any,
    *,
    prototype: Any,
    out: Any = None,
    fields: Any = None,
) -> Any:
    offer = getattr(codec_pipeline, "read_selection", None)
    if offer is not None and out is None and not fields:  # zarr passes [] for none
        result = await offer(store_path, metadata, config, chunk_grid, indexer, prototype)
        if result is not NotImplemented:
            return result
    return await _ORIGINALS["get"](
        store_path, metadata, codec_pipeline, config, chunk_grid, indexer,
        prototype=prototype, out=out, fields=fields,
    )  # fmt: skip


async def _set_selection(
    store_path: Any,
    metadata: Any,
    codec_pipeline: Any,
    config: Any,
    chunk_grid: Any,
    indexer: Any,
    value: Any,
    *,
    prototype: Any,
    fields: Any = None,
) -> None:
    offer = getattr(codec_pipeline, "write_selection", None)
    if offer is not None and not fields:
        done = await offer(store_path, metadata, config, chunk_grid, indexer, value, prototype)
        if done is not NotImplemented:
            return
    await _ORIGINALS["set"](
        store_path, metadata, codec_pipeline, config, chunk_grid, indexer, value,
        prototype=prototype, fields=fields,
    )  # fmt: skip
