"""Chunks fetched from stores reached through zarr's async API (object storage: obstore, s3fs,
HTTP, icechunk, ...), where each request waits a round trip.

Two things make such reads fast: many requests in flight at once (:func:`limit`: zarr's own
pipeline keeps ``async.concurrency``, 10 by default, which at 20 ms a request caps a read at
500 chunks a second), and decoding overlapped with fetching (:func:`fetch_and_decode`: chunks
are handed to the runtime in groups as they arrive, while the rest are still on the way, so
the compressed bytes of a whole array are never all held at once). Part of a shard is fetched
as its index and then the inner chunks it needs, adjacent ones in one request
(:func:`fetch`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from zarr.core.config import config

from zarr_codecs._arrays import raw

if TYPE_CHECKING:
    from zarr.core.array_spec import ArraySpec
    from zarr_codec_runtime import Chain

__all__ = [
    "DEFAULT_LIMIT",
    "Parts",
    "decode_groups",
    "fetch",
    "fetch_and_decode",
    "gather",
    "limit",
]

#: Requests in flight at once unless ``codec_pipeline.fetch_concurrency`` says otherwise (or
#: zarr's ``async.concurrency`` is set higher).
DEFAULT_LIMIT = 64


def limit() -> int:
    """How many requests a read or a write keeps in flight: ``codec_pipeline.fetch_concurrency``
    where set, else the larger of :data:`DEFAULT_LIMIT` and zarr's ``async.concurrency``."""
    chosen = config.get("codec_pipeline.fetch_concurrency", None)
    if chosen is None:
        chosen = max(DEFAULT_LIMIT, int(config.get("async.concurrency") or 1))
    return max(1, int(chosen))


async def gather[T](calls: Iterable[Callable[[], Awaitable[T]]]) -> list[T]:
    """Each call's result, in order, with at most :func:`limit` running at once; the first
    failure cancels the rest and is raised (as zarr's own ``concurrent_map`` raises it)."""
    calls = list(calls)
    if len(calls) == 1:
        return [await calls[0]()]
    window = asyncio.Semaphore(limit())

    async def run(call: Callable[[], Awaitable[T]]) -> T:
        async with window:
            return await call()

    return await _all([asyncio.ensure_future(run(call)) for call in calls])


async def _all[T](tasks: list[asyncio.Future[T]]) -> list[T]:
    """The tasks' results; on the first failure the others are cancelled and waited for, then
    the failure is raised."""
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


class Parts(tuple[Any, list[tuple[int, Any]]]):
    """A shard fetched in parts: its encoded index and ``(inner chunk, bytes)`` pairs (what
    :meth:`Chain.read_fetched` takes for each shard)."""

    __slots__ = ()


async def fetch(getter: Any, spec: ArraySpec, selection: Any, complete: bool, chain: Chain) -> Any:
    """One chunk's stored bytes from any store (``None``: missing). For part of a shard: its
    index (one range read), then only the inner chunks the part needs (through the store's
    coalescing ``get_ranges`` where it has one), as :class:`Parts`."""
    runner = chain.runner
    if runner is None or not runner.is_sharded or complete:
        data = await getter.get(spec.prototype)
        return None if data is None else raw(data)
    from zarr.abc.store import RangeByteRequest, SuffixByteRequest

    length = runner.index_len  # the shard's index: at its start, or at its end
    at_start = chain.array_bytes.codec.index_location == "start"
    request = RangeByteRequest(0, length) if at_start else SuffixByteRequest(length)
    index = await getter.get(spec.prototype, byte_range=request)
    if index is None:
        return None
    index = raw(index)
    needed = runner.needed(index, cast(tuple[Any, ...], selection))
    if needed is None:  # a selection the runtime does not take: zarr's read follows
        return None
    chunks = await _ranges(getter, spec, [(first, end) for _, first, end in needed])
    if chunks is None:  # the shard went away between the reads, as zarr treats it
        return None
    return Parts((index, [(n, c) for (n, _, _), c in zip(needed, chunks, strict=True)]))


async def _ranges(getter: Any, spec: ArraySpec, ranges: list[tuple[int, int]]) -> Any:
    """Byte ranges of one stored value, as numpy arrays, or ``None`` when the value is gone.
    A ``StorePath``'s store coalesces them (``get_ranges``, with the array's sharding
    settings); other getters read each."""
    from zarr.abc.store import RangeByteRequest
    from zarr.storage import StorePath

    requests = [RangeByteRequest(first, end) for first, end in ranges]
    found: list[Any] = [None] * len(requests)
    if requests and isinstance(getter, StorePath) and hasattr(getter.store, "get_ranges"):
        settings = spec.config
        try:
            async for group in getter.store.get_ranges(
                getter.path,
                requests,
                prototype=spec.prototype,
                max_gap_bytes=getattr(settings, "sharding_coalesce_max_gap_bytes", 1 << 20),
                max_coalesced_bytes=getattr(settings, "sharding_coalesce_max_bytes", 16 << 20),
            ):
                for position, data in group:
                    found[position] = data
        except BaseExceptionGroup as group:
            _, rest = group.split(FileNotFoundError)
            if rest is not None:
                raise rest from None
            return None
    else:
        for position, request in enumerate(requests):
            found[position] = await getter.get(spec.prototype, byte_range=request)
    if any(data is None for data in found):
        return None
    return [raw(data) for data in found]


async def fetch_and_decode(
    count: int,
    fetch_one: Callable[[int], Awaitable[Any]],
    decode: Callable[[list[int], list[Any]], list[bool] | None],
) -> list[bool] | None:
    """Whether each of ``count`` chunks was there: chunk ``i`` fetched by ``fetch_one(i)`` (at
    most :func:`limit` at once), and the fetched ones handed to ``decode(indices, sources)`` in
    a worker thread, one call at a time, each taking every chunk that arrived while the one
    before ran. ``None`` as soon as a ``decode`` call does (the runtime did not take the
    chunks: the caller's own read follows). A failed fetch cancels the rest and is raised."""
    found: list[bool] = [False] * count
    arrived: list[tuple[int, Any]] = []
    news = asyncio.Event()
    window = asyncio.Semaphore(limit())
    running: list[asyncio.Future[list[bool] | None]] = []  # the decode call in its thread

    async def fetch_into(index: int) -> None:
        async with window:
            source = await fetch_one(index)
        arrived.append((index, source))
        news.set()

    async def decode_as_they_come() -> bool:
        done = 0
        while done < count:
            await news.wait()
            news.clear()
            group = arrived[:]
            arrived.clear()
            indices = [index for index, _ in group]
            sources = [source for _, source in group]
            running[:] = [asyncio.ensure_future(asyncio.to_thread(decode, indices, sources))]
            there = await asyncio.shield(running[0])
            if there is None:
                return False
            for index, present in zip(indices, there, strict=True):
                found[index] = present
            done += len(group)
            if arrived:
                news.set()
        return True

    decoder = asyncio.ensure_future(decode_as_they_come())
    tasks: list[asyncio.Future[Any]] = [asyncio.ensure_future(fetch_into(i)) for i in range(count)]
    try:
        await _all([*tasks, decoder])
    finally:
        if running:  # a thread may still write into the output: it ends before we return
            await asyncio.wait(running)
    return found if decoder.result() else None


def decode_groups(
    chains: Sequence[Chain],
    selections: Sequence[tuple[Any, Any]],
    target: Any,
    indices: Sequence[int],
    sources: Sequence[Any],
) -> list[bool] | None:
    """``sources`` (the stored bytes of chunks ``indices``) decoded into ``target`` by the
    runtime: one call per chain, shards fetched in parts in a call of their own. Whether each
    was there, or ``None`` where the runtime does not take them."""
    from zarr_codecs._direct_stores import by_chain

    found: dict[int, bool] = {}
    source_of = dict(zip(indices, sources, strict=True))
    for group in by_chain(indices, chains).values():
        parts = [i for i in group if isinstance(source_of[i], Parts)]
        rest = [i for i in group if not isinstance(source_of[i], Parts)]
        chain = chains[group[0]]
        for members, read in ((parts, chain.read_fetched), (rest, chain.read)):
            if not members:
                continue
            parts_and_places = (
                [selections[i][0] for i in members],
                [selections[i][1] for i in members],
            )
            there = read([source_of[i] for i in members], parts_and_places, target)
            if there is None:
                return None
            found.update(zip(members, there, strict=True))
    return [found[i] for i in indices]
