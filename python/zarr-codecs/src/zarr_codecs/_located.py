"""Errors that say where: a codec error met while reading or writing chunks through our
pipeline is raised again, of the same class, with the key of the chunk that fails in front of
its message (``chunk 'temperature/c/2/3': corrupt input: gzip: ...``), the key as zarr-python
names it in its store (the array's path, then the chunk's own key).

The runtime reports the first failure of a batch, not which chunk it was; the chunk is found
afterwards, by decoding the batch's stored chunks one at a time until one fails. Only a failed
read or write pays for that.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from zarr_codec_shapes.errors import CodecError

__all__ = ["at_array", "at_chunk", "at_chunk_async"]

#: A chunk to try: its key in the store, and how to load its stored bytes (``None``: absent).
Candidate = tuple[str, Callable[[], Any]]


def _placed(error: CodecError, place: str) -> CodecError:
    """``error`` again, of its class, with ``place`` in front of its message."""
    try:
        placed = type(error)(f"{place}: {error}")
    except TypeError:  # a class that takes other arguments: the place as a note instead
        error.add_note(place)
        return error
    placed.__cause__ = error
    return placed


def at_array(error: CodecError, array: str) -> CodecError:
    """``error`` with the array's path in front (where no one chunk can be named)."""
    return _placed(error, f"array {array or '/'!r}")


def _reported(error: CodecError, own: CodecError) -> CodecError:
    """What to raise for the chunk whose own decode failed with ``own``: the runtime's
    ``error`` where it is of the same class (the same failure, often told more exactly: a
    file's size against the chunk's), else ``own``; but ``own`` where it tells the same
    failure with more (the inner chunk of a shard, which a write's merge does not name)."""
    if type(error) is not type(own):
        return own
    detail = str(error).partition(": ")[2]
    return own if detail and detail in str(own) and len(str(own)) > len(str(error)) else error


def _own_error(chain: Any, data: Any) -> CodecError | None:
    if data is None:
        return None
    try:
        chain.decode(data)
    except CodecError as own:
        return own
    return None


def at_chunk(
    error: CodecError, array: str, chain: Any, candidates: Iterable[Candidate]
) -> CodecError:
    """``error`` named after the first of ``candidates`` whose stored bytes ``chain`` cannot
    decode (that chunk's own error), or after the array where none fails."""
    for key, load in candidates:
        try:
            own = _own_error(chain, load())
        except OSError:
            continue
        if own is not None:
            return _placed(_reported(error, own), f"chunk {key!r}")
    return at_array(error, array)


async def at_chunk_async(
    error: CodecError, candidates: Sequence[tuple[str, Any, Callable[[], Awaitable[Any]]]]
) -> CodecError:
    """:func:`at_chunk` for a batch of zarr-python's, fetched through the store's async API:
    ``candidates`` are ``(key, chain, fetch)``; where none fails, the batch's keys are named."""
    for key, chain, fetch in candidates:
        try:
            own = _own_error(chain, await fetch())
        except OSError:
            continue
        if own is not None:
            return _placed(_reported(error, own), f"chunk {key!r}")
    keys = [key for key, *_ in candidates]
    if not keys:
        return error
    if len(keys) == 1:
        return _placed(error, f"chunk {keys[0]!r}")
    return _placed(error, f"one of chunks {keys[0]!r} to {keys[-1]!r}")
